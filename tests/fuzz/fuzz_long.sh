#!/bin/sh
# Runs every libFuzzer target of a fuzz build for SECONDS each, one after the
# other, starting from its stored corpus (tests/fuzz/corpus/NAME/, only
# read: new inputs go to a scratch directory).  Crashes, leaks, timeouts
# (an input taking over 10 s) and out-of-memory (over 2 GB) are failures:
# their inputs are kept in BUILD/fuzz-artifacts/ and the script exits 1
# after running the remaining targets.  `make fuzz-long` calls it.
# usage: fuzz_long.sh BUILD CORPUS_DIR [SECONDS]
set -u
build=$1
corpora=$2
seconds=${3:-60}
case $seconds in '' | *[!0-9]*) echo "fuzz-long: FUZZ_SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;; esac
art="$build/fuzz-artifacts"
mkdir -p "$art"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
n=0
failed=""
for bin in "$build"/fuzz_*; do
  name=$(basename "$bin")
  case $name in *_replay | *.*) continue ;; esac
  [ -x "$bin" ] || continue
  short=${name#fuzz_}
  n=$((n + 1))
  mkdir -p "$scratch/$short"
  seeds=""
  [ -d "$corpora/$short" ] && seeds="$corpora/$short"
  echo "fuzz-long: $name for ${seconds}s"
  # -close_fd_mask=3: the targets' own output is silenced; libFuzzer and the
  # sanitizers still report on a duplicate of stderr.
  # shellcheck disable=SC2086
  if ! "$bin" "$scratch/$short" $seeds -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -max_len=4096 -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$art/$name-" \
      >"$art/$name.log" 2>&1; then
    failed="$failed $name"
    echo "fuzz-long: $name FAILED (log: $art/$name.log)"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' "$art/$name.log" | head -5
  else
    grep -E '^stat::number_of_executed_units' "$art/$name.log" | sed "s/^/fuzz-long: $name: /"
  fi
done
[ "$n" -gt 0 ] || { echo "fuzz-long: no fuzz targets in $build (build with make fuzz)" >&2; exit 1; }
if [ -n "$failed" ]; then
  echo "fuzz-long: $n targets, failed:$failed (inputs in $art/)"
  exit 1
fi
echo "fuzz-long: $n targets, none failed"
