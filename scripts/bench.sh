#!/bin/sh
# Runs every benchmark program built from bench/ (make bench).  Each prints
# its figures and a result hash; nothing here asserts timings.
set -eu
build=${1:-build}
status=0
for b in "$build"/bench_*; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" || status=1
  echo
done
exit $status
