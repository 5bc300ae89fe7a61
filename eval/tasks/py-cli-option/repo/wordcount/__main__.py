from wordcount.cli import main

main()
