"""Prints the words of a text file, most frequent first: `python3 -m wordcount FILE`."""

import argparse
import collections
import re


def count_words(text):
    return collections.Counter(re.findall(r"[a-z']+", text.lower()))


def positive(text):
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"limit must be a positive whole number, not {text!r}")
    return n


def main(argv=None):
    parser = argparse.ArgumentParser(prog="wordcount")
    parser.add_argument("file")
    parser.add_argument("--limit", type=positive, help="print only the N most frequent words")
    args = parser.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        counts = count_words(f.read())
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    for word, n in ranked[: args.limit]:
        print(f"{n} {word}")


if __name__ == "__main__":
    main()
