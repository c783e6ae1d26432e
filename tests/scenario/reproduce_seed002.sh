#!/bin/bash
# Seed 002's Table 1 (issue 10): `myri reproduce seed002` measures the
# channel, DMA, raw speed-test and Myrinet-API rows on the sparc2-sbus-1994
# preset; each is within 10 % of the paper, the shape holds (channel > DMA >
# raw > API); the claims say which rows are inputs or fitted (calibrated) and
# which is a prediction, and that TCP/IP and UDP/IP are not modelled; the same
# seed gives the same hash, and misuse exits 2.
# usage: reproduce_seed002.sh path/to/myri source_dir
set -u
. "$(dirname "$0")/lib/check.bash" "$@"
want 0 "reproduce seed002 --json" -- "$myri" reproduce seed002 --json
cp "$tmp/out" "$tmp/j1"
if command -v python3 >/dev/null 2>&1; then
  if python3 - "$tmp/j1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = {x['name']: x for x in d['rows']}
assert set(r) == {'channel', 'dma', 'raw', 'api'}, r.keys()
paper = {'channel': 640, 'dma': 444, 'raw': 380, 'api': 250}
for k, v in paper.items():
    assert r[k]['paper_Mbps'] == v, k
    assert abs(r[k]['ours_Mbps'] / v - 1) < 0.10, (k, r[k]['ours_Mbps'])
o = {k: r[k]['ours_Mbps'] for k in r}
assert o['channel'] > o['dma'] > o['raw'] > o['api'], o
v = {c['id']: c for c in d['claims']}
assert v['channel']['verdict'] == 'calibrated' and 'link.preset' in v['channel']['fitted']
assert v['dma']['verdict'] == 'calibrated' and 'bus.dma_rate' in v['dma']['fitted']
assert v['api']['verdict'] == 'calibrated' and 'mcp.packet_cycles' in v['api']['fitted']
assert v['raw']['verdict'] == 'holds' and 'fitted' not in v['raw'], v['raw']
assert v['tcpip']['verdict'] == 'not modelled' and v['udpip']['verdict'] == 'not modelled'
PY
  then ok "rows within 10 % of the paper, channel > DMA > raw > API, verdicts name inputs and fits"; else bad "rows"; fi
fi
want 0 "reproduce seed002 (text)" -- "$myri" reproduce seed002
grep -q "Myrinet API (8 KB packets)" "$tmp/out" && ok "text names the API row" || bad "text rows"
grep -q "calibrated" "$tmp/out" && grep -q "(fitted: mcp.packet_cycles = 3800)" "$tmp/out" \
  && ok "text names the fitted parameter" || bad "text fitted parameter"
awk 'length > 100 { exit 1 }' "$tmp/out" && ok "text fits 100 columns" || bad "text wider than 100 columns"
"$myri" reproduce seed002 --json >"$tmp/j2" 2>/dev/null
h1=$(grep -o '"hash":"0x[0-9a-f]*"' "$tmp/j1"); h2=$(grep -o '"hash":"0x[0-9a-f]*"' "$tmp/j2")
[ -n "$h1" ] && [ "$h1" = "$h2" ] && ok "same seed, same hash" || bad "hash differs: $h1 $h2"
want 2 "seed002 --figures is refused" -- "$myri" reproduce seed002 --figures /tmp/x
want 2 "seed002 --precision is refused" -- "$myri" reproduce seed002 --precision 0.1
check_summary
