#!/usr/bin/env bash
# Scripted faults of the fabric job (`faults:` in a scenario, issue 3): a link
# cut and restored drops packets as `link_down` and truncates the one on the
# wire; a scripted corruption is caught by the CRC; counts are conserved, the
# run is deterministic, both models agree; bad fault items are input errors
# (exit 2) at the right FILE:LINE:COL.
# usage: fabric_faults.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"
truncated() { # sum of the per-channel "truncated" counts of a JSON result
  grep -o '"truncated": *[0-9]*' "$1" | awk -F: '{s += $2} END {print s + 0}'
}
packets() { # the "packets" object of a JSON result, on one line
  sed -n '/"packets": {/,/^  },/p' "$1" | tr -d ' \n'
}

lf="$src/scenarios/link-failure.yaml"
check "link-failure json" expect_rc 0 "$myri" run "$lf" --json
cp "$tmp/out" "$tmp/f1"
check "cut: link_down drops" test "$(num link_down "$tmp/f1")" -gt 0
check "cut: packet on the wire truncated" test "$(truncated "$tmp/f1")" -gt 0
check "corruption: exactly one crc drop" test "$(num crc "$tmp/f1")" -eq 1
check "corruption: its packet's fate is crc" grep -q '"fate": "crc"' "$tmp/f1"
# three in the echoed configuration ("config"), three in the report
check "faults listed in the json" test "$(grep -c '"action": "' "$tmp/f1")" -eq 6
check "cut time echoed in ps" grep -q '"at_ps": 102000000' "$tmp/f1"
inj=$(num injected "$tmp/f1"); del=$(num delivered "$tmp/f1")
dropt=$(num dropped_total "$tmp/f1"); infl=$(num in_flight "$tmp/f1")
check "injected = delivered + dropped + in flight" test "$inj" -eq $((del + dropt + infl))
check "most packets still delivered" test "$del" -gt $((inj * 9 / 10))

"$myri" run "$lf" --json >"$tmp/f2" 2>/dev/null
check "same seed, same hash" test "$(grep '"hash"' "$tmp/f1" | tail -n 1)" = "$(grep '"hash"' "$tmp/f2" | tail -n 1)"

check "reference model" expect_rc 0 "$myri" run "$lf" --json --set model=reference
check "models: same packet counts and drops" test "$(packets "$tmp/f1")" = "$(packets "$tmp/out")"
check "models: same truncations" test "$(truncated "$tmp/f1")" -eq "$(truncated "$tmp/out")"
check "models: same fate of the corrupted packet" \
  test "$(grep -A1 '"fate"' "$tmp/f1")" = "$(grep -A1 '"fate"' "$tmp/out")"

# Without the faults nothing is dropped: the drops above are the faults' doing.
check "no faults, no drops" expect_rc 0 "$myri" run "$lf" --json --set faults=none
check "no faults: dropped_total 0" test "$(num dropped_total "$tmp/out")" -eq 0
check "faults=[] also turns them off" expect_rc 0 "$myri" run "$lf" --json --set "faults=[]"

check "text summary" expect_rc 0 "$myri" run "$lf"
check "text: link_down line" grep -Eq '^  dropped +link_down +[1-9][0-9]*$' "$tmp/out"
check "text: cut line" grep -q '^fault  *cut link s0.4 (link [0-9]*) at 102us$' "$tmp/out"
check "text: restore line" grep -q '^fault  *restore link s0.4 (link [0-9]*) at 300us$' "$tmp/out"
check "text: corruption outcome" grep -q '^fault  *corrupt packet h1#3 .*: dropped crc at ' "$tmp/out"
check "text: truncated count" grep -Eq 'truncated [1-9]' "$tmp/out"

# A cut host link: the host's queued packets are dropped too; a sweep applies
# the same faults at every point.
cat >"$tmp/host.yaml" <<'Y'
seed: 3
duration: 200us
topology: {generator: star, hosts_per_switch: 4}
switch: {ports: 4}
traffic: {pattern: uniform, load: 0.5, size: 64B}
faults:
  - {at: 50us, action: cut, link: h2}
  - {at: 150us, action: restore, link: h2}
sweep: {key: traffic.load, values: [0.2, 0.5]}
Y
check "sweep with faults" expect_rc 0 "$myri" run "$tmp/host.yaml" --json
check "sweep: drops at every point" test "$(grep -o '"link_down": *[1-9][0-9]*' "$tmp/out" | wc -l)" -eq 2

# Bad items: FILE:LINE:COL and exit 2.
cat >"$tmp/base.yaml" <<'Y'
seed: 1
duration: 50us
topology: {generator: star, hosts_per_switch: 4}
switch: {ports: 4}
traffic: {pattern: uniform, load: 0.3, size: 64B}
faults:
Y
bad() { # bad NAME "EXPECTED FILE:LINE:COL: MESSAGE PREFIX" ITEM-LINES...
  local name=$1 want=$2; shift 2
  { cat "$tmp/base.yaml"; printf '%s\n' "$@"; } >"$tmp/bad.yaml"
  check "$name: exit 2" expect_rc 2 "$myri" run "$tmp/bad.yaml"
  check "$name: message" grep -qF "$tmp/bad.yaml:$want" "$tmp/err" || cat "$tmp/err"
}
bad "unknown link" "7:34: faults: link 'nosuch' is not a link" '  - {at: 1us, action: cut, link: nosuch}'
bad "unconnected port" "7:34: faults: link 's0.9' is not a link" '  - {at: 1us, action: cut, link: s0.9}'
bad "after the end" "7:10: faults: at 60us is after the end of the run" '  - {at: 60us, action: cut, link: h0}'
bad "bad action" "7:23: bad value 'explode' for action" '  - {at: 1us, action: explode, link: h0}'
bad "missing at" "7:5: faults: missing required key 'at' for action cut" '  - {action: cut, link: h0}'
bad "missing action" "7:5: missing required key 'action'" '  - {at: 1us, link: h0}'
bad "missing link" "7:5: missing required key 'link'" '  - {at: 1us, action: cut}'
bad "restore of a working link" "7:5: faults: link 'h0' is not cut at 1us" '  - {at: 1us, action: restore, link: h0}'
bad "cut twice (same cable, other name)" "8:5: faults: link 's0.0' is already cut at 2us" \
  '  - {at: 1us, action: cut, link: h0}' '  - {at: 2us, action: cut, link: s0.0}'
bad "restore before its cut (time order)" "8:5: faults: link 'h0' is not cut at 1us" \
  '  - {at: 5us, action: cut, link: h0}' '  - {at: 1us, action: restore, link: h0}'
bad "corrupt key on a cut" "7:44: faults: key 'mask' belongs to action corrupt" '  - {at: 1us, action: cut, link: h0, mask: 3}'
bad "corrupt with a time" "7:10: faults: a corrupt item names a packet, not a time" \
  '  - {at: 1us, action: corrupt, link: h0, from: h0, source: h0, seq: 1, byte: 3}'
bad "from not an end" "7:39: faults: 'h1' is not an end of link 'h0'" \
  '  - {action: corrupt, link: h0, from: h1, source: h0, seq: 1, byte: 3}'
bad "missing from" "7:5: faults: missing required key 'from'" '  - {action: corrupt, link: h0, source: h0, seq: 1, byte: 3}'
bad "source not a host" "7:51: faults: source 's0' is not a host" \
  '  - {action: corrupt, link: h0, from: h0, source: s0, seq: 1, byte: 3}'
bad "no packet" "7:48: faults: a corrupt item needs the packet" '  - {action: corrupt, link: h0, from: h0, seq: 1, byte: 3}'
bad "packet and seq" "7:59: faults: give either 'packet' or 'source' with 'seq'" \
  '  - {action: corrupt, link: h0, from: h0, packet: 5, seq: 1, byte: 3}'
bad "missing byte" "7:5: faults: missing required key 'byte'" '  - {action: corrupt, link: h0, from: h0, packet: 5}'
bad "mask out of range" "7:69: bad value '256' for mask: out of range" \
  '  - {action: corrupt, link: h0, from: h0, packet: 5, byte: 3, mask: 256}'
bad "unknown key in an item" "7:65: unknown key 'colour'" \
  '  - {action: corrupt, link: h0, from: s0.0, packet: 5, byte: 3, colour: red}'
bad "item not a mapping" "7:5: faults: expected a mapping" '  - [1us, cut, h0]'
check "faults not a list" expect_rc 2 "$myri" run "$tmp/base.yaml" --set faults=h0
check "faults not a list: position" grep -q '^--set:1:8: faults must be a list' "$tmp/err"
check "--set into an item" expect_rc 2 "$myri" run "$lf" --set faults.2.from=s0.2
check "--set into an item: position" grep -q "^--set:1:15: faults: 's0.2' is not an end of link 'h1'" "$tmp/err"

check_summary
