#!/usr/bin/env bash
# echo_roundtrip.sh -- the README's promise that a run's echo of its
# configuration can be given back (issue 23, item 13): for every shipped
# scenario that `myri run` takes, each echoed `key = value` line becomes a
# --set on an empty file, and the rerun gives the same hashes.  Absent values
# echo as `null`, which --set takes back as absent.
# Usage: bash echo_roundtrip.sh path/to/myri source_dir [path/to/pingpong.so]
. "$(dirname "$0")/lib/check.bash" "$@"
so=${3:-$(dirname "$myri")/examples/pingpong.so}
: >"$tmp/empty.yaml"
hashes() { grep -o -E '0x[0-9a-f]{16}' "$1" | tr '\n' ' '; }
roundtrip() { # roundtrip FILE [more args for both runs]
  local f=$1; shift
  # exit 1: the run finished but a program lost packets (counted; issue 23): the rerun must say the same
  local rc1=0 rc2=0
  "$myri" run ${f:+"$f"} "$@" >"$tmp/echo1" 2>"$tmp/err1" || rc1=$?
  [ "$rc1" -le 1 ] || { echo "  $f: exit $rc1"; cat "$tmp/err1"; return 1; }
  local sets=() line k v
  while IFS= read -r line; do
    k=$(printf '%s' "$line" | sed 's/^ *\([^ ]*\) *= .*/\1/')
    v=$(printf '%s' "$line" | sed 's/^[^=]*= //')
    sets+=(--set "$k=$v")
  done < <(sed -n '2,/^[^ ]/p' "$tmp/echo1" | grep '^  [^ ]* *= ')
  local extra=()
  [ "${1:-}" = --program ] && extra=("$1" "$2")
  "$myri" run "$tmp/empty.yaml" "${sets[@]}" "${extra[@]}" >"$tmp/echo2" 2>"$tmp/err2" || rc2=$?
  [ "$rc2" = "$rc1" ] || { echo "  rerun of $f: exit $rc2, first run $rc1"; head -3 "$tmp/err2"; return 1; }
  [ -n "$(hashes "$tmp/echo1")" ] && [ "$(hashes "$tmp/echo1")" = "$(hashes "$tmp/echo2")" ] ||
    { echo "  $f: hashes $(hashes "$tmp/echo1") -> $(hashes "$tmp/echo2")"; return 1; }
}
for f in "$src"/scenarios/*.yaml; do
  name=$(basename "$f" .yaml)
  case $name in
    nic-seed004) continue ;;   # a queueing network for `myri qna`, not a run scenario
    live-*) continue ;;        # for `myri live` (real processes on its hosts), tests/scenario/live_*.sh
    pingpong-user) [ -f "$so" ] && check "$name: the echo reruns" roundtrip "$f" --program "$so"; continue ;;
    mainwaring-*) check "$name: the echo reruns" roundtrip "$f" --set duration=10ms; continue ;;
    fattree64|fattree64-4k|fattree64-sweep) check "$name: the echo reruns" roundtrip "$f" --set duration=20us; continue ;;
  esac
  check "$name: the echo reruns" roundtrip "$f"
done
check "the default scenario: the echo reruns" roundtrip ""
check_summary
