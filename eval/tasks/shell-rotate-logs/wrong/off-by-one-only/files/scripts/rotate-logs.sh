#!/usr/bin/env bash
# Keeps the newest $2 (default 3) files named app-YYYY-MM-DD.log in folder $1 and deletes the older ones.
set -euo pipefail
dir=$1
keep=${2:-3}
ls "$dir"/app-*.log | sort -r | tail -n +$((keep + 1)) | xargs -r rm --
