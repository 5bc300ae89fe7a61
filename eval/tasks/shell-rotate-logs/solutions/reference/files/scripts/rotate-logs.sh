#!/usr/bin/env bash
# Keeps the newest $2 (default 3) files named app-YYYY-MM-DD.log in folder $1 and deletes the older ones.
set -euo pipefail
dir=$1
keep=${2:-3}
shopt -s nullglob
logs=("$dir"/app-*.log)
# The dates sort as text; the newest come last.
count=${#logs[@]}
for ((i = 0; i < count - keep; i++)); do
  rm -- "${logs[i]}"
done
