#!/bin/bash
# What a system run reports (issue 23, items 4, 6, 7, 9, 12): the default scenario's
# stream starts when its ping-pong has ended (`after:`), so the ping-pong's
# figures are those of the ping-pong alone; the JSON bottleneck is the one the
# text names; the fabric's drops are given by reason in text and JSON; what
# a user program prints goes to standard error, not into the report;
# --pcap and `myri topo` work on system scenarios.
# usage: system_report.sh path/to/myri source_dir
. "$(dirname "$0")/lib/check.bash" "$@"
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 is missing (scripts/deps.sh installs it)"; exit 77; }
cd "$src" || exit 1

# 6: the default run's ping-pong equals the ping-pong alone, to the picosecond
"$myri" run --json >"$tmp/both" || bad "default run"
"$myri" run --json --set 'programs=[{program: pingpong, hosts: [h0, h1], args: ["sizes=4,64,512,1024,4096,8192", reps=10, chan=1]}]' \
  >"$tmp/alone" || bad "ping-pong alone"
check "default: ping-pong figures unchanged by the stream that follows it" python3 - "$tmp/both" "$tmp/alone" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
pp = lambda d: {(p['host'], p['key']): p['value'] for p in d['programs'] if p['program'] == 'pingpong'}
assert pp(a) == pp(b) and len(pp(a)) > 10, (pp(a), pp(b))
assert any(p['key'] == 'stream.bandwidth_MBps' for p in a['programs'])
assert a['all_done']
PY
"$myri" run --set 'programs=[{program: pingpong, hosts: [h0, h1]}, {program: stream, hosts: [h0, h1], after: pingpng}]' \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
check "after: an unknown program is bad input (exit 2, named)" test "$rc" = 2
check "after: the message names what was expected" grep -q "after: 'pingpng' is not the program of an earlier entry" "$tmp/err"

# 4: one definition of the bottleneck for text and JSON
# (exit 0: every packet arrives; before issue 23's item 3 the closing tallies overflowed the receive pools)
"$myri" run scenarios/fattree64-api.yaml --json >"$tmp/api.json"; [ $? = 0 ] || bad "fattree64-api exits 0"
check "fattree64-api: no drop anywhere, every program returned 0, nothing lost" python3 - "$tmp/api.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['fabric']['dropped'] == 0 and d['fabric']['injected'] == d['fabric']['delivered'] > 16000, d['fabric']
for n in d['nics']:
    assert all(v == 0 for k, v in n['firmware'].items() if k.startswith('drop_')), n['firmware']
assert all(p['exit'] == 0 for p in d['program_ends']) and len(d['program_ends']) == 64
lost = [f for f in d['programs'] if f['key'] in ('traffic.lost', 'traffic.corrupted', 'traffic.errors')]
assert len(lost) == 3 * 64 and all(f['value'] == 0 for f in lost)
PY
check "bottleneck: the JSON key is the resource the text names" python3 - "$tmp/api.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
words = {'io_bus': 'the I/O bus is the bottleneck', 'cpu': 'LANai CPU is the bottleneck',
         'host_dma': 'host DMA is the bottleneck', 'send_dma': 'send DMA is the bottleneck',
         'recv_dma': 'receive DMA is the bottleneck', 'none': 'no engine is saturated'}
for n in d['nics']:
    assert n['bottleneck_text'].startswith(words[n['bottleneck']]), n
assert sum(n['bottleneck'] == 'io_bus' for n in d['nics']) > 32
PY

# 7: drops by reason
"$myri" run scenarios/pingpong.yaml --set link.ber=0.0001 >"$tmp/ber.txt" 2>&1
check "text: the fabric's drops by reason" grep -q "^         dropped by reason: crc [1-9]" "$tmp/ber.txt"
"$myri" run scenarios/pingpong.yaml --set link.ber=0.0001 --json >"$tmp/ber.json" 2>/dev/null
check "JSON: the fabric's drops by reason" python3 -c "
import json,sys; f=json.load(open('$tmp/ber.json'))['fabric']
assert f['dropped_by_reason']['crc'] > 0 and sum(f['dropped_by_reason'].values()) == f['dropped']"

# 12: --pcap and myri topo work on system scenarios
"$myri" run scenarios/pingpong.yaml --pcap "$tmp/pp.pcap" >"$tmp/pcap.txt" 2>&1
check "system --pcap: packets written" grep -q "^pcap     528 packets written to" "$tmp/pcap.txt"
check "system --pcap: a pcap file (magic: microsecond or nanosecond pcap)" python3 -c "
m=open('$tmp/pp.pcap','rb').read(4); assert m[::-1].hex() in ('a1b2c3d4', 'a1b23c4d') or m.hex() in ('a1b2c3d4', 'a1b23c4d'), m"
check "system --pcap: the run's hash is unchanged by the capture" test \
  "$(grep '^hash' "$tmp/pcap.txt")" = "$("$myri" run scenarios/pingpong.yaml | grep '^hash')"
"$myri" topo scenarios/fattree64-api.yaml >"$tmp/topo.txt" 2>&1
check "topo on a system scenario: its network" grep -q "^  hosts            64" "$tmp/topo.txt"
"$myri" topo scenarios/pingpong.yaml --route h0:h1 >"$tmp/route.txt" 2>&1
check "topo --route on a system scenario" grep -q "h0" "$tmp/route.txt"

# 9: what a user program prints goes to standard error, never into the report
if command -v cc >/dev/null 2>&1; then
  printf '%s\n' '#include <stdio.h>' '#include <myri/prog.h>' \
    'int myri_main(int argc, char **argv) { (void)argc; (void)argv; printf("{not json\\n"); return 0; }' >"$tmp/noisy.c"
  if cc -std=c11 -shared -fPIC -I"$src/include" -o "$tmp/noisy.so" "$tmp/noisy.c" 2>"$tmp/cc.err"; then
    "$myri" run scenarios/pingpong-user.yaml --program "$tmp/noisy.so" --json >"$tmp/noisy.json" 2>"$tmp/noisy.err"
    check "a program's printf leaves --json whole" python3 -c "import json; json.load(open('$tmp/noisy.json'))"
    check "a program's printf reaches standard error" grep -q '{not json' "$tmp/noisy.err"
    "$myri" run scenarios/pingpong-user.yaml --program "$tmp/noisy.so" >"$tmp/noisy.txt" 2>/dev/null
    check "and never the text report" bash -c "! grep -q '{not json' '$tmp/noisy.txt'"
  else
    echo "note: cc cannot build a program here; the printf checks are skipped"; cat "$tmp/cc.err"
  fi
fi
check_summary
