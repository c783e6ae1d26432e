#!/usr/bin/env bash
# Issue 8, resources and misdelivery:
# - host send queues are bounded (traffic.queue, default 256): at load 1.0 on
#   the deadlocking ring (8-byte packets) the packets beyond the bound are
#   refused at the source, counted (packets.refused, text "refused
#   queue_full"), conservation holds (created = refused + injected [+ the
#   devices' FIFOs], injected = delivered + misdelivered + dropped + in
#   flight), and what is queued (and the memory) does not grow with the run's
#   length, for ideal hosts and for port.device dma;
# - with link.ber > 0 a packet whose corrupted route byte passes the CRC-8
#   reaches another host: counted misdelivered (not delivered), the same in
#   both models.
# usage: fabric_resources.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

sc="$src/scenarios/cyclic-deadlock.yaml"
conserve() { # conserve FILE: the two conservation laws of a --json result
  local f=$1 dq=${2:-0}
  [ "$(num created "$f")" -eq $(( $(num refused "$f") + $(num injected "$f") + dq )) ] &&
  [ "$(num injected "$f")" -eq $(( $(num delivered "$f") + $(num misdelivered "$f") + $(num dropped_total "$f") + $(num in_flight "$f") )) ]
}
rss() { # rss FILE: max RSS in KB from /usr/bin/time -v output
  awk -F': *' '/Maximum resident set size/ { print $2 }' "$1"
}

for d in 20ms 200ms; do
  check "cyclic $d runs" expect_rc 0 "$myri" run "$sc" --set traffic.size=8B --set duration=$d --json
  cp "$tmp/out" "$tmp/c$d.json"
done
check "refused counted" test "$(num refused "$tmp/c200ms.json")" -gt 1000000
check "refused in the window" test "$(num refused_window "$tmp/c200ms.json")" -gt 0
check "conservation 20ms" conserve "$tmp/c20ms.json"
check "conservation 200ms" conserve "$tmp/c200ms.json"
check "queued packets flat (in flight at most 8 hosts x 256 + the network)" \
  test "$(num in_flight "$tmp/c200ms.json")" -le $((8 * 256 + 64))
check "text: refused line" sh -c "'$myri' run '$sc' --set traffic.size=8B --set duration=20ms |
  grep -Eq '^  refused +queue_full +[1-9][0-9]* of [0-9]+ created'"
check "traffic.queue echoed" sh -c "'$myri' run '$sc' --set duration=1ms --set traffic.queue=16 | grep -Eq 'traffic.queue += 16'"
check "traffic.queue=0 rejected" expect_rc 2 "$myri" run "$sc" --set traffic.queue=0

# The devices' FIFOs: bounded the same way (ports.max_queue = the bound).
check "dma runs" expect_rc 0 "$myri" run "$sc" --set traffic.size=8B --set duration=50ms --set port.device=dma \
  --set traffic.queue=100 --json
check "dma: max_queue = traffic.queue" test "$(num max_queue "$tmp/out")" -eq 100
check "dma: refused" test "$(num refused "$tmp/out")" -gt 1000000
# created = refused + injected + queued - the packets on the ports (in both counts)
check "dma: conservation" test "$(num created "$tmp/out")" -le \
  $(( $(num refused "$tmp/out") + $(num injected "$tmp/out") + $(num queued "$tmp/out") ))

# Memory flat: the maximum RSS of a 200 ms run is close to that of a 20 ms run.
if [ -x /usr/bin/time ]; then
  for d in 20ms 200ms; do
    /usr/bin/time -v "$myri" run "$sc" --set traffic.size=8B --set duration=$d >/dev/null 2>"$tmp/t$d"
  done
  check "memory flat (RSS $(rss "$tmp/t20ms") KB at 20 ms, $(rss "$tmp/t200ms") KB at 200 ms)" \
    test "$(rss "$tmp/t200ms")" -le $(( $(rss "$tmp/t20ms") * 3 / 2 + 2048 ))
fi

# Misdelivered: link.ber 1e-3 on fattree64, 200 us: one packet's corrupted route
# byte passes the CRC-8 (seed 1); both models agree.
ft="$src/scenarios/fattree64.yaml"
check "ber fast" expect_rc 0 "$myri" run "$ft" --set link.ber=1e-3 --set duration=200us --json
cp "$tmp/out" "$tmp/bf.json"
check "ber reference" expect_rc 0 "$myri" run "$ft" --set link.ber=1e-3 --set duration=200us --set model=reference --json
cp "$tmp/out" "$tmp/br.json"
check "misdelivered counted" test "$(num misdelivered "$tmp/bf.json")" -ge 1
check "misdelivered: same in both models" test "$(num misdelivered "$tmp/bf.json")" -eq "$(num misdelivered "$tmp/br.json")"
check "misdelivered: same result_hash" test "$(grep -o '"result_hash": *"[0-9a-fx]*"' "$tmp/bf.json")" = \
  "$(grep -o '"result_hash": *"[0-9a-fx]*"' "$tmp/br.json")"
check "ber: conservation" conserve "$tmp/bf.json"
check "text: misdelivered line" sh -c "'$myri' run '$ft' --set link.ber=1e-3 --set duration=200us |
  grep -Eq '^  misdelivered +route_corrupted +[1-9]'"

# A scripted misdelivery: h1's packet #3 to h0 (route 0x80) gets route byte
# 0x82 (port 2: h2) and its trailer corrected by rem(0x02 x^(8*261)) = 0xb9
# (CRC-8 x^8+x^2+x+1), so that h2 sees a good CRC: the fault's fate is
# "misdelivered" in both models.
{ cat "$src/scenarios/hotspot8.yaml"
  printf 'faults:\n  - {action: corrupt, link: h1, from: h1, source: h1, seq: 3, byte: 0, mask: 2}\n'
  printf '  - {action: corrupt, link: h1, from: h1, source: h1, seq: 3, byte: 261, mask: 185}\n'; } > "$tmp/mis.yaml"
for m in fast reference; do
  check "scripted misdelivery ($m)" expect_rc 0 "$myri" run "$tmp/mis.yaml" --set model=$m --json
  check "misdelivered 1 ($m)" test "$(num misdelivered "$tmp/out")" -eq 1
  check "fate misdelivered ($m)" test "$(grep -c '"fate": "misdelivered"' "$tmp/out")" -eq 2
  check "no crc drop ($m)" test "$(num crc "$tmp/out")" -eq 0
done
check "text: fate" sh -c "'$myri' run '$tmp/mis.yaml' | grep -q 'mask 0x02: misdelivered at '"

check_summary
