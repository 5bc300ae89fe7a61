#!/usr/bin/env bash
set -euo pipefail
check() { # keep, files..., expected survivors
  local keep=$1; shift
  local dir; dir=$(mktemp -d)
  mkdir -p "$dir/logs dir"
  for f in app-2026-01-09.log app-2026-01-10.log app-2026-01-11.log app-2026-02-01.log app-2025-12-31.log notes.txt; do echo x > "$dir/logs dir/$f"; done
  bash scripts/rotate-logs.sh "$dir/logs dir" $keep
  local got; got=$(cd "$dir/logs dir" && ls | sort | tr '\n' ' ')
  [ "$got" = "$1" ] || { echo "keep $keep: left '$got', want '$1'"; exit 1; }
}
check 3 "app-2026-01-10.log app-2026-01-11.log app-2026-02-01.log notes.txt "
check 1 "app-2026-02-01.log notes.txt "
check 5 "app-2025-12-31.log app-2026-01-09.log app-2026-01-10.log app-2026-01-11.log app-2026-02-01.log notes.txt "
echo ok
