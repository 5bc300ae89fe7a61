#!/usr/bin/env bash
# Prints the total number of lines of the .txt files in folder $1.
set -euo pipefail
total=0
for f in "$1"/*.txt; do
  [ -e "$f" ] || continue
  n=$(wc -l < "$f")
  total=$((total + n))
done
echo "$total"
