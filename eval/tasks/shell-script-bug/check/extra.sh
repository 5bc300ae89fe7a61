#!/usr/bin/env bash
# Names with spaces must work too.
set -euo pipefail
dir=$(mktemp -d)
mkdir "$dir/my notes"
printf 'a\nb\nc\n' > "$dir/my notes/a file.txt"
got=$(bash scripts/count-lines.sh "$dir/my notes")
[ "$got" = 3 ] || { echo "with spaces: expected 3, got $got"; exit 1; }
