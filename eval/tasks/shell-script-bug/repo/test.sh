#!/usr/bin/env bash
set -euo pipefail
dir=$(mktemp -d)
printf 'a\nb\n' > "$dir/one.txt"
printf 'c\n' > "$dir/two.txt"
printf 'x\n' > "$dir/skip.md"
got=$(bash scripts/count-lines.sh "$dir")
[ "$got" = 3 ] || { echo "expected 3, got $got"; exit 1; }
echo ok
