#!/bin/bash
# `myri reproduce` output fits a terminal and its figures show every series
# (issue 8): help and tables within 100 columns, no printf escape ("%%") in
# the help; in the SVG figures every data marker inside the frame, no two
# markers on the same spot (coincident series are told apart by shape and
# offset), and the paper's own values drawn in Figure 4 (Tables 5 and 8)
# and Figure 5 (Table 6).  The claims close the seed004 text; the independent
# Table 4 simulation (tools/seed004_table4.py) agrees with model 2's queues and
# refuses bad input.
# usage: reproduce_output.sh path/to/myri source_dir
set -u
myri=$1
src=${2:-$(dirname "$0")/../..}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check() { local what=$1; shift; if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fail=1; fi; }
expect_rc() { local rc=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; [ "$?" = "$rc" ]; }
width() { awk -v what="$1" 'length > 100 { print "FAIL " what " line " NR " is " length " columns"; bad = 1 }
  END { exit bad }'; }
for c in reproduce nicsim qna; do
  "$myri" $c --help >"$tmp/help" || { echo "FAIL $c --help"; fail=1; }
  width "$c --help" <"$tmp/help" || fail=1
  grep -q '%%' "$tmp/help" && { echo "FAIL $c --help prints %%"; fail=1; }
done
"$myri" reproduce seed004 --figures "$tmp/fig" >"$tmp/rep.txt" 2>/dev/null || { echo "FAIL reproduce seed004"; fail=1; }
width "reproduce seed004" <"$tmp/rep.txt" || fail=1
grep -q "^Table 5" "$tmp/rep.txt" || { echo "FAIL no Table 5"; fail=1; }
grep -q "^Claims (tolerance stated beforehand" "$tmp/rep.txt" || { echo "FAIL no claims"; fail=1; }
grep -q ": calibrated$" "$tmp/rep.txt" && grep -q "(fitted: the step-2 sweep count" "$tmp/rep.txt" \
  || { echo "FAIL the calibrated QNA claim does not name its fit"; fail=1; }
if command -v python3 >/dev/null 2>&1; then
  python3 "$src/tools/seed004_table4.py" 0.00786 --arrivals 60000 >"$tmp/t4.txt" || { echo "FAIL seed004_table4.py"; fail=1; }
  "$myri" nicsim --model polling --lambda 0.00786 --json >"$tmp/ns.json" || { echo "FAIL nicsim polling"; fail=1; }
  python3 - "$tmp/t4.txt" "$tmp/ns.json" <<'PY' || { echo "FAIL seed004_table4.py against model 2"; fail=1; }
import json, re, sys
t = open(sys.argv[1]).read()
q = dict(re.findall(r'(doorbell|descriptor) (\d\.\d+)', t.split('\n')[1]))
plus = float(re.search(r'data \+ held (\d\.\d+)', t).group(1))
m = json.load(open(sys.argv[2]))['queues']
for k in ('doorbell', 'descriptor'):
    assert abs(float(q[k]) / m[k] - 1) < 0.06, (k, q[k], m[k])
assert abs(plus / m['data'] - 1) < 0.06, (plus, m['data'])   # model 2 counts the held message
PY
  check "seed004_table4.py refuses a rate beyond saturation" expect_rc 2 python3 "$src/tools/seed004_table4.py" 0.02
fi
"$myri" reproduce seed004-sendrecv | width "reproduce seed004-sendrecv" || fail=1

# figure FILE SERIES PATTERN...: markers inside the frame, no two on one spot,
# SERIES legend entries, each PATTERN among the labels
figure() {
  local f=$1 n=$2; shift 2
  [ -s "$f" ] || { echo "FAIL $f missing"; fail=1; return; }
  awk -v file="$f" -v nseries="$n" '
    function num(s, k) { match(s, k "=\"[-0-9.]+\""); return substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 3) + 0 }
    /stroke="#000"/ && /<rect/ && !fx { fx = num($0, "x"); fy = num($0, "y"); fw = num($0, "width"); fh = num($0, "height") }
    /<circle/ { x0 = x1 = num($0, "cx"); y0 = y1 = num($0, "cy"); r = num($0, "r"); x0 -= r; x1 += r; y0 -= r; y1 += r; mark() }
    /<rect/ && /stroke-width="1.5"/ { x0 = num($0, "x"); y0 = num($0, "y"); x1 = x0 + num($0, "width"); y1 = y0 + num($0, "height"); mark() }
    /<path d="M[^"]*Z"/ { match($0, /d="[^"]*"/); d = substr($0, RSTART + 3, RLENGTH - 4); gsub(/[MLZ]/, " ", d)
      k = split(d, v, " "); x0 = y0 = 1e9; x1 = y1 = -1e9
      for (i = 1; i + 1 <= k; i += 2) { x0 = v[i] < x0 ? v[i] : x0; x1 = v[i] > x1 ? v[i] : x1; y0 = v[i+1] < y0 ? v[i+1] : y0; y1 = v[i+1] > y1 ? v[i+1] : y1 }
      mark() }
    function mark(   c) {
      if (x0 > fx + fw) { legend++; return }   # legend, right of the frame
      if (x0 < fx || x1 > fx + fw || y0 < fy || y1 > fy + fh) { print "FAIL " file ": marker cut by the frame at " x0 "," y0; bad = 1 }
      c = sprintf("%.0f,%.0f", (x0 + x1) / 2, (y0 + y1) / 2)
      if (c in seen) { print "FAIL " file ": two markers at " c; bad = 1 }
      seen[c] = 1; data++
    }
    END { if (legend != nseries) { print "FAIL " file ": " legend " legend markers, expected " nseries; bad = 1 }
          if (data != 6 * nseries) { print "FAIL " file ": " data " data markers, expected " 6 * nseries; bad = 1 }
          exit bad }' "$f" || fail=1
  for pat in "$@"; do grep -q ">$pat" "$f" || { echo "FAIL $f lacks a series '$pat'"; fail=1; }; done
}
figure "$tmp/fig/fig4_utilization.svg" 12 "HDMA, QNA, paper Table 8" "LANai, sim. model 2, paper Table 5" \
  "NSDMA, QNA<"
figure "$tmp/fig/fig5_hdma_queue.svg" 4 "QNA (converged)" "sim. model 1" "sim. model 2" "paper, simulation model 2"
# A figure that cannot be written is a failure with its reason (exit 1).
check "figures into a non-directory" expect_rc 1 "$myri" reproduce seed004 --figures /dev/full
check "the reason is given" grep -q "cannot write /dev/full/fig4_utilization.svg: Not a directory" "$tmp/err"
exit $fail
