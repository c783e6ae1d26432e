#!/usr/bin/env bash
# bench/before_after.sh as a user meets it before a run: --help, and argument
# errors (a message naming the fault and exit 2, before anything is built).
# The benchmarks themselves are not run here (they take minutes).
# usage: before_after_args.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"
ba=$src/bench/before_after.sh

want 0 "help" -- sh "$ba" --help
check "help shows usage" grep -q '^usage: bench/before_after.sh' "$tmp/out"
check "help names the default before revision" grep -q '710d8e6^' "$tmp/out"
check "help names --quick" grep -q -- '--quick' "$tmp/out"
want 0 "short help" -- sh "$ba" -h
want 2 "unknown option" -- sh "$ba" --frobnicate
check "unknown option message" grep -q "unknown argument '--frobnicate'" "$tmp/err"
check "unknown option usage line" grep -q '^usage:' "$tmp/err"
check "unknown option prints nothing on stdout" test ! -s "$tmp/out"
want 2 "stray argument" -- sh "$ba" extra
want 2 "runs not a number" -- sh "$ba" --runs abc
check "runs message" grep -q -- "--runs wants a whole number" "$tmp/err"
want 2 "runs zero" -- sh "$ba" --runs 0
want 2 "runs missing value" -- sh "$ba" --runs
check "missing value message" grep -q -- "option --runs needs a value" "$tmp/err"
want 2 "cpu not a number" -- sh "$ba" --cpu x
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  want 2 "unknown revision" -- sh "$ba" --after no-such-revision-here
  check "unknown revision message" grep -q "no such revision 'no-such-revision-here'" "$tmp/err"
else
  echo "(not a git checkout: the revision check is skipped)"
fi
check_summary
