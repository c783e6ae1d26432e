#!/bin/bash
# `myri nicsim` and `myri reproduce` end to end: JSON keys, determinism
# (same seed, same output; another seed differs), exit codes for bad input
# (2) and unstable models (1), the figures as SVG files, the send-and-receive
# report naming the bottleneck.
# usage: nicsim_cli.sh path/to/myri source_dir
set -u
myri=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$myri" nicsim --model polling --lambda 0.009 --seed 4 --json >"$tmp/a.json" || { echo "FAIL nicsim run"; fail=1; }
"$myri" nicsim --model polling --lambda 0.009 --seed 4 --json >"$tmp/b.json"
"$myri" nicsim --model polling --lambda 0.009 --seed 5 --json >"$tmp/c.json"
cmp -s "$tmp/a.json" "$tmp/b.json" || { echo "FAIL same seed, different output"; fail=1; }
cmp -s "$tmp/a.json" "$tmp/c.json" && { echo "FAIL different seeds, same output"; fail=1; }
for key in '"nodes"' '"name": "lanai"' '"name": "hdma"' '"name": "nsdma"' '"utilization"' \
           '"queue_length"' '"queue_length_ci"' '"queues"' '"doorbell"' '"descriptor"' '"data"'; do
  grep -q "$key" "$tmp/a.json" || { echo "FAIL nicsim JSON lacks $key"; fail=1; }
done
# pooled model: no per-queue split
"$myri" nicsim --model pooled --lambda 0.005 --arrivals 20000 --json >"$tmp/p.json" || { echo "FAIL pooled"; fail=1; }
grep -q '"queues"' "$tmp/p.json" && { echo "FAIL pooled has queues"; fail=1; }
# text output names the nodes
"$myri" nicsim --model pooled --lambda 0.005 --arrivals 20000 | grep -q '^hdma' || { echo "FAIL text"; fail=1; }

# bad input: exit 2 with a message
for args in "--model pooled" "--lambda 0.01" "--model foo --lambda 0.01" "--model pooled --lambda -1" \
            "--model pooled --lambda 0.01 --precision 2" "--model pooled --lambda 0.01 --blocking maybe" \
            "--model pooled --lambda 0.01 --arrivals 10 " "--model pooled --lambda 0.01 --rx-lambda 0.01" \
            "--model pooled --lambda 0.01 --arrivals 5000 --precision 0.1" "--model pooled --lambda 0.01 --bogus"; do
  err=$("$myri" nicsim $args 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || { echo "FAIL 'nicsim $args': exit $rc, expected 2"; fail=1; }
  case "$err" in *nicsim*) ;; *) echo "FAIL 'nicsim $args': message '$err'"; fail=1 ;; esac
done
# unstable: exit 1 naming the station and its utilisation
err=$("$myri" nicsim --model pooled --lambda 0.0115 2>&1 >/dev/null); rc=$?
[ "$rc" = 1 ] || { echo "FAIL unstable: exit $rc"; fail=1; }
case "$err" in *hdma*1.02*) ;; *) echo "FAIL unstable message: $err"; fail=1 ;; esac
"$myri" reproduce nopaper >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL unknown paper"; fail=1; }
"$myri" reproduce >/dev/null 2>&1; [ $? = 2 ] || { echo "FAIL reproduce without paper"; fail=1; }

# reproduce with figures: tables printed, two SVG files written
"$myri" reproduce seed004 --figures "$tmp/fig" >"$tmp/rep.txt" 2>/dev/null || { echo "FAIL reproduce"; fail=1; }
for t in "Table 3" "Table 4" "Table 5" "Table 6" "Table 7" "Table 8" "Table 9" "Derived p"; do
  grep -q "^$t" "$tmp/rep.txt" || { echo "FAIL reproduce lacks $t"; fail=1; }
done
grep -q "NOT converged" "$tmp/rep.txt" && { echo "FAIL a run did not converge"; fail=1; }
for f in fig4_utilization.svg fig5_hdma_queue.svg; do
  head -c 200 "$tmp/fig/$f" 2>/dev/null | grep -q "<svg" || { echo "FAIL $f is not SVG"; fail=1; }
  grep -q "</svg>" "$tmp/fig/$f" 2>/dev/null || { echo "FAIL $f incomplete"; fail=1; }
done

# send and receive: the bottleneck is named for every rate
n=$("$myri" reproduce seed004-sendrecv | grep -c "bottleneck: QNA hdma")
[ "$n" = 6 ] || { echo "FAIL sendrecv bottleneck lines: $n"; fail=1; }
"$myri" nicsim --model sendrecv --lambda 0.004 --rx-lambda 0.005 --json | grep -q '"name": "nrdma"' \
  || { echo "FAIL nicsim sendrecv"; fail=1; }
exit $fail
