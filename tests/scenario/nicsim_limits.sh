#!/bin/bash
# `myri nicsim` at the edges of its run plan (issue 8): a tiny lambda, a
# huge --warmup, lambda next to saturation, short runs near saturation.
# Every case ends quickly with a named cause (exit 2 for a plan that cannot
# run) or gives estimates in their physical range.
# usage: nicsim_limits.sh path/to/myri source_dir
set -u
myri=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect RC PATTERN ARGS...: exit RC within 300 s (a loaded machine under ASan needed over 60), stderr matching PATTERN
expect() {
  local want=$1 pat=$2; shift 2
  err=$(timeout 300 "$myri" nicsim "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" = "$want" ] || { echo "FAIL 'nicsim $*': exit $rc, expected $want ($err)"; fail=1; return; }
  case "$err" in $pat) ;; *) echo "FAIL 'nicsim $*': message '$err'"; fail=1 ;; esac
}
# a batch length doubled until it wrapped to 0: never ended
expect 2 '*lambda 1e-08 is too small*expected lambda >=*' --model polling --lambda 1e-8
expect 2 '*too small*' --model pooled --lambda 1e-300
# the warm-up's length in picoseconds overflowed: silently dropped
expect 2 '*--warmup 18446744073709551615*expected --warmup <=*' --model polling --lambda 0.005 \
  --warmup 18446744073709551615
# next to saturation: the cause is named, not "invalid argument"
expect 2 '*too close to saturation for the batch plan*' --model polling --lambda 0.011195
expect 2 '*too close to saturation for the batch plan*' --model pooled --lambda 0.0111955 --arrivals 100000
# a low rate ends at the longest simulated time, exit 1 saying so
expect 1 '*not reached*longest simulated time*' --model polling --lambda 1e-6

# short runs near saturation: every estimate in its physical range, or exit 1
for model in pooled polling; do
  for seed in 1 2 3 4 5 6; do
    timeout 60 "$myri" nicsim --model $model --lambda 0.011 --arrivals 1000 --seed $seed --json \
      >"$tmp/r.json" 2>"$tmp/err"; rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 1 ] || { echo "FAIL $model seed $seed: exit $rc"; fail=1; continue; }
    [ "$rc" = 1 ] && { grep -q "physical range" "$tmp/err" || { echo "FAIL $model seed $seed: $(cat "$tmp/err")"; fail=1; }; continue; }
    awk -v m=$model -v s=$seed '
      /"utilization":/ { v = $2 + 0; if (v < 0 || v > 1) { print "FAIL " m " seed " s ": utilization " v; bad = 1 } }
      /"queue_length":/ { v = $2 + 0; if (v < 0) { print "FAIL " m " seed " s ": queue length " v; bad = 1 } }
      /nan|inf/ { print "FAIL " m " seed " s ": " $0; bad = 1 }
      END { exit bad }' "$tmp/r.json" || fail=1
  done
done
exit $fail
