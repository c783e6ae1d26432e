#!/usr/bin/env bash
# scenarios/hotspot8-slowrx.yaml: host devices on the ports (port.device: dma)
# and a hot host that re-arms its receive window 10 us after each packet.
# Both fabric models give the same result_hash; nothing is dropped; the hot
# host's port sends STOPs on its link (s0 -> h0) and the switch output toward
# it is stopped part of the time; the delivered throughput is one 256-byte
# payload per (arm_delay + 261 character times) within 2 %; with ideal hosts
# (--set port.device=none) h0 never sends STOP.  Bad port.* values are input
# errors at FILE:LINE:COL (exit 2).
# usage: port_slowrx.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

sc="$src/scenarios/hotspot8-slowrx.yaml"

# dir_val FILE HOST DIR KEY: KEY of direction DIR ("ab" or "ba") of the link
# whose end a is HOST, from the "links" array of a --json result.
dir_val() {
  awk -v host="$2" -v dir="$3" -v key="$4" '
    /"link": [0-9]+,/ { inl = 0; ind = 0 }
    $0 ~ "\"a\": \"" host "\"," { inl = 1 }
    inl && $0 ~ "\"" dir "\": [{]" { ind = 1; next }
    inl && ind && /[}]/ { ind = 0 }
    inl && ind && $0 ~ "\"" key "\":" { gsub(/[",]/, ""); print $2; exit }' "$1"
}

check "fast model" expect_rc 0 "$myri" run "$sc" --json
cp "$tmp/out" "$tmp/fast"
check "reference model" expect_rc 0 "$myri" run "$sc" --json --set model=reference
cp "$tmp/out" "$tmp/ref"
check "both models, same result_hash" \
  test "$(grep '"result_hash"' "$tmp/fast")" = "$(grep '"result_hash"' "$tmp/ref")"
for m in fast ref; do
  f="$tmp/$m"
  check "$m: dropped 0" test "$(num dropped_total "$f")" -eq 0
  check "$m: json has ports" grep -q '"ports": {' "$f"
  check "$m: ports device dma" grep -q '"device": "dma"' "$f"
  check "$m: every packet received good" test "$(num rx_packets "$f")" -eq "$(num delivered "$f")"
  check "$m: no bad CRC" test "$(num rx_bad_crc "$f")" -eq 0
  stops=$(dir_val "$f" h0 ba stops)
  check "$m: STOPs on the hot link ($stops)" test "${stops:-0}" -gt 0
  gos=$(dir_val "$f" h0 ba gos)
  check "$m: GOs on the hot link ($gos)" test "${gos:-0}" -gt 0
  stopped=$(dir_val "$f" h0 ba stopped_fraction)
  check "$m: s0 -> h0 stopped part of the time ($stopped)" awk -v x="${stopped:-0}" 'BEGIN { exit !(x > 0) }'
  # one 256 B payload per (10 us + 261 x 12.5 ns) at h0, the only receiver
  thr=$(num throughput_bytes_per_sec "$f")
  check "$m: throughput $thr within 2 % of 256 B / (arm_delay + 261 T)" \
    awk -v x="$thr" 'BEGIN { e = 256 / (10e-6 + 261 * 12.5e-9); d = x / e - 1; exit !(d < 0.02 && d > -0.02) }'
done

check "ideal hosts" expect_rc 0 "$myri" run "$sc" --json --set port.device=none
cp "$tmp/out" "$tmp/none"
check "ideal hosts: no ports object" bash -c "! grep -q '\"ports\":' '$tmp/none'"
check "ideal hosts: no STOP on the hot link" test "$(dir_val "$tmp/none" h0 ba stops)" -eq 0
check "ideal hosts: dropped 0" test "$(num dropped_total "$tmp/none")" -eq 0

check "text ports line" expect_rc 0 "$myri" run "$sc"
check "text ports line says dma" grep -Eq '^ports +dma devices' "$tmp/out"
check "text echoes port.device" grep -Eq '^ *port.device *= *dma' "$tmp/out"

# bad values: FILE:LINE:COL and exit 2
cat >"$tmp/dev.yaml" <<'Y'
duration: 10us
port:
  device: nic
Y
check "port.device: nic is exit 2" expect_rc 2 "$myri" run "$tmp/dev.yaml"
check "port.device: nic at 3:11" grep -q "dev.yaml:3:11: .*expected" "$tmp/err"
cat >"$tmp/win.yaml" <<'Y'
duration: 10us
port:
  device: dma
  window: 0B
Y
check "port.window: 0B is exit 2" expect_rc 2 "$myri" run "$tmp/win.yaml"
check "port.window: 0B at 4:11" grep -q "win.yaml:4:11: " "$tmp/err"
check "bad --set port.arm_delay" expect_rc 2 "$myri" run "$sc" --set port.arm_delay=-1us
check "bad --set names --set" grep -q "^--set:1:" "$tmp/err"
check_summary
