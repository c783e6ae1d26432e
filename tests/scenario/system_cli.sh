#!/bin/bash
# The system from the command line (issue 9): `myri bench pingpong|latency|
# stream` give points with every byte checked; `myri reproduce seed001` puts
# the variants side by side, checks the paper's claims on the run and writes
# its figures; outputs fit 100 columns; misuse exits 2.
# usage: system_cli.sh path/to/myri source_dir
set -u
myri=$1
src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fail=1; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
want() { # want RC WHAT -- CMD...: exit code RC, stdout in $tmp/out, stderr in $tmp/err
  local rc=$1 what=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" = "$rc" ]; then ok "$what (exit $rc)"; else bad "$what: exit $got, expected $rc"; cat "$tmp/err"; fi
}
json() { python3 -c "import json,sys; d=json.load(open('$tmp/out')); $1" 2>"$tmp/perr"; }

want 0 "bench pingpong --json" -- "$myri" bench pingpong --json
if command -v python3 >/dev/null 2>&1; then
  check "pingpong: 11 points 4 B..8 KiB" json "p=d['points']; assert len(p)==11 and p[0]['bytes']==4 and p[-1]['bytes']==8192"
  check "pingpong: bandwidth = bytes/2/time" json "p=d['points'][-1]; assert abs(p['bandwidth_MBps'] - p['bytes']/2/p['latency_us']) < 1e-6*p['bandwidth_MBps']"
  check "pingpong: ok and hash" json "assert d['ok'] and d['hash'].startswith('0x')"
fi
h1=$(grep -o '"hash":"0x[0-9a-f]*"' "$tmp/out")
want 0 "bench pingpong again" -- "$myri" bench pingpong --json
check "same seed, same hash" test "$h1" = "$(grep -o '"hash":"0x[0-9a-f]*"' "$tmp/out")"
want 0 "bench latency (polled receive)" -- "$myri" bench latency --set mcp.recv_mode=polled
check "latency: 11 lines of points" test "$(grep -cE '^[0-9]+ +[0-9.]+ +[0-9.]+$' "$tmp/out")" -eq 11
# Issue 20, part 2: latency does not fall with size (PIO up to mcp.pio_bytes is
# faster than host DMA, as seed 001 says).  Between sizes that cost the same
# (1-32 B) the phase of the MCP's polling loop (about 1.7 us a pass) moves a
# single round trip by up to about 20 ns; `bench latency` averages 500 round
# trips a size and `bench pingpong` 200, and their points, as printed, do not
# fall at all.  The variants of `reproduce seed001` with polled receive or every
# send by DMA stay phase-locked: there at most 0.1 us (1-128 B).
mono() { awk -v col="$1" -v tol="${2:-0}" 'NF >= col && $1 ~ /^[0-9]+$/ { v = $col + 0; if (n++ && v < prev - tol) {
  print "latency falls at " $1 " B: " prev " -> " v; bad = 1 } prev = v } END { exit bad || n < 5 }' "$tmp/out"; }
want 0 "bench latency" -- "$myri" bench latency
check "bench latency: does not fall with size" mono 2
want 0 "bench pingpong" -- "$myri" bench pingpong
check "bench pingpong: does not fall with size" mono 2
want 0 "bench latency" -- "$myri" bench latency
check "bench latency: PIO at 256 B below DMA at 512 B" awk '$1 == 256 { a = $2 } $1 == 512 { b = $2 } END { exit !(a < b) }' "$tmp/out"
want 0 "bench latency, CPU waiting for each PIO word (bus.pio_posted=0, pio_merge=4B)" -- \
  "$myri" bench latency --set bus.pio_posted=0 --set bus.pio_merge=4B
# (With the CPU waiting for every PIO word, the issue's 256 B point was above 512 B: 27.27 against 26.83 us.
# The pipelined switch delays every byte of the 512 B packet's underrun send DMA by the fall-through, so
# today that model gives 27.20 against 27.90 us: PIO at 256 B is still dearer than with posted writes.)
check "  the CPU waiting for each PIO word: 256 B costs more than with posted writes" \
  awk '$1 == 256 { a = $2 } END { exit !(a > 27.0) }' "$tmp/out"
want 0 "bench stream from a FILE" -- "$myri" bench stream "$src/scenarios/pingpong.yaml" --json
command -v python3 >/dev/null 2>&1 && check "stream: one point of 8 KiB" json "p=d['points']; assert len(p)==1 and p[0]['bytes']==8192 and p[0]['bandwidth_MBps']>10"
want 2 "bench pingpong: --pending is the engine's" -- "$myri" bench pingpong --pending 3
want 2 "bench pingpong: missing FILE" -- "$myri" bench pingpong "$tmp/none.yaml"
want 2 "bench pingpong: bad --set" -- "$myri" bench pingpong --set mcp.recv_mode=sometimes
grep -q "mcp.recv_mode" "$tmp/err" || bad "bad --set names its key"
want 2 "bench engine: still refuses --set" -- "$myri" bench engine --set a=1

want 0 "reproduce seed001" -- "$myri" reproduce seed001 --figures "$tmp/fig"
check "reproduce seed001: within 100 columns" test "$(awk 'length > 100' "$tmp/out" | wc -l)" -eq 0
check "reproduce seed001: six claims with verdicts" test "$(grep -cE '^    paper .*tolerance .*: (holds|differs|calibrated|not modelled)' "$tmp/out")" -eq 6
check "reproduce seed001: the 5 us of polled receive is calibrated" grep -qE 'calibrated( \(fitted:|$)' "$tmp/out"
check "reproduce seed001: ... naming the fitted parameter" grep -q '(fitted: MCP_SERVICE_CYCLES' "$tmp/out"
check "reproduce seed001: the crossover (paper 800 B) is judged" grep -qE 'paper 800 B, ours [0-9]+ B.*: (holds|differs)$' "$tmp/out"
check "reproduce seed001: PIO is a win" grep -q 'paper 0 us, ours .*: holds$' "$tmp/out"
awk '/^latency \(/ { on = 1; next } on && NF == 0 { on = 0 } on' "$tmp/out" >"$tmp/lat"
cp "$tmp/lat" "$tmp/out"
for col in 2 4 6 8; do check "reproduce seed001 latency table: column $col (latency) does not fall" mono "$col" 0.1; done
for f in pingpong-latency pingpong-bandwidth latency-latency; do
  check "figure $f" grep -q '<svg' "$tmp/fig/seed001-$f.svg"
done
want 0 "reproduce seed001 --json" -- "$myri" reproduce seed001 --json
if command -v python3 >/dev/null 2>&1; then
  check "JSON: the claims' figures" json "assert 256 <= d['crossover_bytes'] <= 2048 and 2.5 <= d['polled_minus_interrupt_us'] <= 7.5 and d['notification_gain'] > 0"
  check "JSON: every variant's points" json "e=d['experiments']; assert set(e['pingpong'])=={'old','polled','new','new-no-notify'} and set(e['latency'])=={'old','polled','new','old-no-pio'} and len(e['stream'])==6"
  check "JSON: claims with verdicts" json "c=d['claims']; assert len(c)==6 and all(x['verdict'] in ('holds','differs','calibrated','not modelled') for x in c) and [x for x in c if x['id']=='polled_cost'][0]['verdict']=='calibrated'"
fi
want 2 "reproduce seed001 --precision" -- "$myri" reproduce seed001 --precision 0.1
want 0 "default scenario with a VCD" -- "$myri" run --vcd "$tmp/run.vcd"
check "VCD has both NICs" test "$(grep -c '^\$scope module h' "$tmp/run.vcd")" -eq 2
want 1 "a VCD of 16 NICs (more than the writer's first 8; exit 1: the cut loses packets)" -- "$myri" run "$src/scenarios/link-failure-mapped.yaml" --vcd "$tmp/m.vcd"
check "VCD has 16 NICs, each with its DMA registers" test "$(grep -c '^\$var wire 32 [^ ]* dma_ctr ' "$tmp/m.vcd")" -eq 16
if command -v python3 >/dev/null 2>&1; then
  want 0 "vcd_svg.py draws register lanes" -- python3 "$src/tools/vcd_svg.py" "$tmp/run.vcd" "$tmp/r.svg" \
    --signals recv_dma,ear,lar,dma_ctr,smp,sml,smlt,rmp,rml --nics h1
  check "register lanes hold hex values" test "$(grep -c '<title>dma_ctr 0x' "$tmp/r.svg")" -gt 10
  want 0 "vcd_svg.py draws the CPU lane" -- python3 "$src/tools/vcd_svg.py" "$tmp/run.vcd" "$tmp/c.svg" --signals cpu
  check "the CPU lane shows system context, and the legend says which colour it is" \
    bash -c "grep -q '<title>cpu system</title>' '$tmp/c.svg' && grep -q 'yellow = system context' '$tmp/c.svg'"
fi
want 2 "--vcd with a fabric scenario" -- "$myri" run "$src/scenarios/hotspot8.yaml" --vcd "$tmp/x.vcd"
want 1 "--vcd to an unwritable place" -- "$myri" run --vcd "$tmp/no/such/dir/x.vcd"
exit $fail
