#!/usr/bin/env bash
# Prints the total number of lines of the .txt files in folder $1.
set -euo pipefail
shopt -s nullglob
files=("$1"/*.txt)
if [ ${#files[@]} -eq 0 ]; then echo 0; exit 0; fi
cat "${files[@]}" | wc -l
