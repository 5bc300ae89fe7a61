"""Prints the words of a text file, most frequent first: `python3 -m wordcount FILE`."""

import argparse
import collections
import re


def count_words(text):
    return collections.Counter(re.findall(r"[a-z']+", text.lower()))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="wordcount")
    parser.add_argument("file")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        counts = count_words(f.read())
    for word, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[: args.limit]:
        print(f"{n} {word}")


if __name__ == "__main__":
    main()
