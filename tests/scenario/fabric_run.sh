#!/usr/bin/env bash
# `myri run` with the fabric job: JSON keys of the results, conservation of
# packets, determinism (same seed same hash, other seed other hash), the text
# summary, sweeps, --pcap (read back by tshark when it is installed), and bad
# input.
# usage: fabric_run.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

hs="$src/scenarios/hotspot8.yaml"
check "hotspot json" expect_rc 0 "$myri" run "$hs" --json --set duration=300us
cp "$tmp/out" "$tmp/hs1"
for key in config packets injected delivered dropped in_flight latency_ns mean p50 p99 max \
           throughput_bytes_per_sec links sim_time_ps events wall_s result_hash hash; do
  check "json has $key" grep -q "\"$key\":" "$tmp/hs1"
done
for reason in crc to_host_byte_at_switch unconnected_port misrouted timeout link_down; do
  check "json dropped has $reason" grep -q "\"$reason\": *0" "$tmp/hs1"
done
check "json echoes the configuration" grep -q '"traffic.pattern": "hotspot"' "$tmp/hs1"
inj=$(num injected "$tmp/hs1"); del=$(num delivered "$tmp/hs1")
dropt=$(num dropped_total "$tmp/hs1"); infl=$(num in_flight "$tmp/hs1")
check "injected = delivered + dropped + in flight" test "$inj" -eq $((del + dropt + infl))
check "sim time = warmup + duration" test "$(num sim_time_ps "$tmp/hs1")" -eq 400000000
check "no progress line when not a terminal" test ! -s "$tmp/err"

"$myri" run "$hs" --json --set duration=300us >"$tmp/hs2"
check "same seed, same hash" test "$(grep '"hash"' "$tmp/hs1" | tail -n 1)" = "$(grep '"hash"' "$tmp/hs2" | tail -n 1)"
"$myri" run "$hs" --json --set duration=300us --seed 2 >"$tmp/hs3"
check "other seed, other hash" test "$(grep '"hash"' "$tmp/hs1" | tail -n 1)" != "$(grep '"hash"' "$tmp/hs3" | tail -n 1)"

check "text summary" expect_rc 0 "$myri" run "$src/scenarios/back-to-back.yaml"
check "text echoes config" grep -Eq '^ *traffic.pattern *= *ping-pong' "$tmp/out"
check "text packets line" grep -Eq '^packets +injected [0-9]+, delivered [0-9]+, dropped 0' "$tmp/out"
check "text latency line" grep -Eq '^latency +mean [0-9.]+ ns' "$tmp/out"
check "text hash" grep -Eq '^hash +0x[0-9a-f]{16}$' "$tmp/out"
check "text result_hash" grep -Eq '^result_hash +0x[0-9a-f]{16}$' "$tmp/out"

# The fabric's result hash (packets, fates and times) is the same for both
# models; the engine's hash (mixed into "hash") may differ between them.
check "fast model json" expect_rc 0 "$myri" run "$hs" --json
cp "$tmp/out" "$tmp/fast"
check "reference model json" expect_rc 0 "$myri" run "$hs" --json --set model=reference
cp "$tmp/out" "$tmp/ref"
check "result_hash printed" grep -Eq '"result_hash": "0x[0-9a-f]{16}"' "$tmp/fast"
check "both models, same result_hash" \
  test "$(grep '"result_hash"' "$tmp/fast")" = "$(grep '"result_hash"' "$tmp/ref")"

cat >"$tmp/sweep.yaml" <<'Y'
seed: 1
warmup: 20us
duration: 200us
topology: {generator: star, hosts_per_switch: 4}
switch: {ports: 4}
traffic: {pattern: uniform, size: 64B}
sweep: {key: traffic.load, values: [0.1, 0.5, 1.0]}
Y
check "sweep" expect_rc 0 "$myri" run "$tmp/sweep.yaml"
check "sweep has one line per value" test "$(grep -Ec '^(0\.1|0\.5|1\.0) ' "$tmp/out")" -eq 3
check "sweep names a saturation point" grep -q '^saturation: ' "$tmp/out"
check "sweep json" expect_rc 0 "$myri" run "$tmp/sweep.yaml" --json
check "sweep json points" test "$(grep -c '"value":' "$tmp/out")" -eq 3
check "sweep bad key" expect_rc 2 "$myri" run "$tmp/sweep.yaml" --set sweep.key=traffic.nothing
check "sweep bad key message" grep -q "sweep.key 'traffic.nothing'" "$tmp/err"

check "pcap" expect_rc 0 "$myri" run "$src/scenarios/back-to-back.yaml" --pcap "$tmp/b2b.pcap" --json
n=$(num pcap_packets "$tmp/out")
check "pcap packets counted" test "${n:-0}" -gt 0
# pcap global header: nanosecond magic (written in host order) and DLT_USER0 = 147
magic=$(od -An -tx4 -N4 "$tmp/b2b.pcap" | tr -d ' ')
check "pcap nanosecond magic" test "$magic" = "a1b23c4d"
dlt=$(od -An -tu4 -j20 -N4 "$tmp/b2b.pcap" | tr -d ' ')
check "pcap link type DLT_USER0" test "$dlt" = "147"
if command -v tshark >/dev/null 2>&1; then
  check "tshark reads the pcap" bash -c "test \"\$(tshark -r '$tmp/b2b.pcap' 2>/dev/null | wc -l)\" -eq $n"
  # The shipped dissector recomputes the CRC-8 of every record, on host and
  # switch channels alike: with no bit errors every one must be good.
  lua="$src/tools/wireshark/myrinet.lua"
  "$myri" run "$hs" --set duration=50us --set pcap.links=h1,s0.0 --pcap "$tmp/hs.pcap" >/dev/null 2>&1
  good=$(tshark -X lua_script:"$lua" -r "$tmp/hs.pcap" -Y 'myrinet.crc_ok == 1' 2>/dev/null | wc -l)
  bad=$(tshark -X lua_script:"$lua" -r "$tmp/hs.pcap" -Y 'myrinet.crc_ok == 0' 2>/dev/null | wc -l)
  check "dissector: CRC good on every hop" test "$good" -gt 0 -a "$bad" -eq 0
else
  echo "(tshark not installed: skipping the tshark read-back)"
fi
check "pcap.links" expect_rc 0 "$myri" run "$hs" --set duration=100us --set pcap.links=h1,s0.3 --pcap "$tmp/l.pcap"
check "pcap bad link" expect_rc 2 "$myri" run "$hs" --set pcap.links=s0.9 --pcap "$tmp/l.pcap"
check "pcap bad link message" grep -q 'pcap.links: expected' "$tmp/err"

check "relative addressing" expect_rc 0 "$myri" run "$hs" --json --set duration=300us --set switch.addressing=relative
check "relative addressing: same timing, same hash" \
  test "$(grep '"hash"' "$tmp/hs1" | tail -n 1)" = "$(grep '"hash"' "$tmp/out" | tail -n 1)"

check "deadlock scenario" expect_rc 0 "$myri" run "$src/scenarios/cyclic-deadlock.yaml" --json --set duration=120ms
check "deadlock: route set flagged" grep -q '"deadlock_free": false' "$tmp/out"
check "deadlock: broken by timeouts" test "$(num timeout "$tmp/out")" -gt 0
check "deadlock: nothing lost uncounted" test "$(num injected "$tmp/out")" -eq \
  $(( $(num delivered "$tmp/out") + $(num dropped_total "$tmp/out") + $(num in_flight "$tmp/out") ))
# 8-byte packets deadlock in the slack buffers, no sender stopped mid-packet:
# the timeout (1 ms here) drops the packets granted at the stopped switch
# outputs, and deliveries go on after the first timeouts.
dl8=(run "$src/scenarios/cyclic-deadlock.yaml" --json --set traffic.size=8B --set link.timeout=1ms)
check "small-packet deadlock, 2 ms" expect_rc 0 "$myri" "${dl8[@]}" --set duration=2ms
d2=$(num delivered "$tmp/out")
check "small-packet deadlock: timeouts by 2 ms" test "$(num timeout "$tmp/out")" -gt 0
check "small-packet deadlock, 10 ms" expect_rc 0 "$myri" "${dl8[@]}" --set duration=10ms
check "small-packet deadlock: delivered grows after the first timeouts" test "$(num delivered "$tmp/out")" -gt "$d2"

check "unknown traffic key" expect_rc 2 "$myri" run "$hs" --set traffic.colour=red
check "unknown key message" grep -q "unknown key 'colour'" "$tmp/err"
check "bad topology exits 2" expect_rc 2 "$myri" run "$hs" --set topology.generator=torus

# The built-in default scenario (make run): the whole system, ping-pong then
# stream, every byte checked, each NIC's bottleneck named.
check "default scenario" expect_rc 0 "$myri" run
check "default: both programs ran" test "$(grep -c '^program  h[01] \(pingpong\|stream\): exit 0' "$tmp/out")" -eq 4
check "default: bottleneck named" grep -q '^nic      h0: .* is the bottleneck: busy' "$tmp/out"
check "default: no byte wrong" test "$(grep -E '(pingpong|stream)\.errors' "$tmp/out" | grep -vc ' 0$')" -eq 0
# The fabric sweep that was the default (about 1.5 s in a release build, so
# not under the sanitizers: make check-asan sets MYRI_SLOW_TESTS=0).
if [ "${MYRI_SLOW_TESTS:-1}" != 0 ]; then
  check "fabric sweep scenario" expect_rc 0 "$myri" run "$src/scenarios/fattree64-sweep.yaml"
  check "sweep: one line per load" test "$(grep -Ec '^(0\.[0-9]+|1\.0) +[0-9.]+ +[0-9.]+' "$tmp/out")" -eq 13
  check "sweep: saturation named" grep -q '^saturation: between traffic.load = ' "$tmp/out"
  # the point the scenario's comment defends (docs/FABRIC.md, "The switch pipeline")
  check "sweep: saturation between 0.375 and 0.4" \
    grep -q '^saturation: between traffic.load = 0.375 (keeps up) and traffic.load = 0.4 ' "$tmp/out"
fi

# Seed 002: copper cables up to 25 m; the default slack lines must absorb the
# round trip, and lines that cannot are an input error (exit 2) naming the key.
check "25 m cable with default slack" expect_rc 0 "$myri" run "$hs" --set duration=100us --set link.length=25m
check "too little slack headroom" expect_rc 2 "$myri" run "$hs" --set link.length=25m --set link.slack.stop=60B
check "headroom error names the --set position" grep -q '^--set:1:17: link.slack.stop: .* expected link.slack.size - link.slack.stop >= ' "$tmp/err"
check "bad GO line" expect_rc 2 "$myri" run "$hs" --set link.slack.go=60B
check "bad GO line position" grep -q '^--set:1:15: link.slack.go: ' "$tmp/err"

check_summary
