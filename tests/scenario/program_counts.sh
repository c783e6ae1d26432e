#!/usr/bin/env bash
# program_counts.sh -- issue 23 items 1, 2, 3 and 10: the built-in programs talk among the hosts
# their entry names; a run whose packets were lost prints no figure made of time-outs, names
# and counts the losses and exits 1; every sending program reports sent, received, lost,
# corrupted and the system's accounting balances; mismatches are refused at load (exit 2,
# FILE:LINE:COL and what is expected); return codes are shown by name and text.
# Usage: bash program_counts.sh path/to/myri source_dir
. "$(dirname "$0")/lib/check.bash" "$@"

cat >"$tmp/four.yaml" <<'Y'
job: system
topology: {generator: star, hosts_per_switch: 4}
programs:
  - {program: pingpong, hosts: [h2, h3], args: ["sizes=4,64", reps=10]}
Y
# fig KEY: the sum of a figure over the hosts in the text output ($tmp/out)
fig() { awk -v k="$1" '$1 == k { s += $2 } END { print s + 0 }' "$tmp/out"; }
run() { "$myri" run "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { cat "$tmp/rc"; }

# ---- 1: the entry's hosts -------------------------------------------------------------
run "$tmp/four.yaml"
check "1: pingpong on [h2, h3] of four hosts succeeds" test "$(rc)" = 0
check "1: h2 measures a latency against h3" grep -q 'pingpong.64.latency_us' "$tmp/out"
check "1: nothing lost, both hosts received" test "$(fig pingpong.lost)" = 0 -a "$(fig pingpong.received)" = 48
run "$tmp/four.yaml" --set 'programs=[{program: traffic, hosts: [h1, h3], args: [duration_us=2000]}]'
check "1: traffic on [h1, h3] of four succeeds" test "$(rc)" = 0
check "1: traffic sends only to hosts with a program (no drop_chan)" sh -c "! grep -q drop_chan '$tmp/out'"
check "1: every packet traffic sent was received" test "$(fig traffic.sent)" -gt 10 -a "$(fig traffic.sent)" = "$(fig traffic.received)"
want 2 "1: pingpong on three hosts is refused at load" -- "$myri" run "$tmp/four.yaml" --set 'programs=[{program: pingpong, hosts: [h0, h1, h2]}]'
check "1: ... saying it needs two hosts" grep -q 'runs between two hosts; its entry names 3' "$tmp/err"
want 2 "1: traffic on one host is refused at load" -- "$myri" run "$tmp/four.yaml" --set 'programs=[{program: traffic, hosts: [h0]}]'
check "1: ... saying it needs two or more" grep -q 'give two or more' "$tmp/err"

# ---- 2: no figure made of time-outs; losses named and counted; exit 1 --------------------
run "$tmp/four.yaml" --set link.ber=0.001
check "2: a ping-pong over a bad link exits 1" test "$(rc)" = 1
check "2: ... prints no latency" sh -c "! grep -q latency_us '$tmp/out'"
check "2: ... names the failed sizes" grep -q 'pingpong.4.failed' "$tmp/out"
check "2: ... counts the losses" test "$(fig pingpong.lost)" -gt 0
run "$src/scenarios/stream.yaml" --set link.ber=2e-7
crc=$(grep -o 'drop_crc [0-9]*' "$tmp/out" | awk '{print $2}')
check "2: the stream over a bad link exits 1" test "$(rc)" = 1
check "2: ... prints no bandwidth" sh -c "! grep -q bandwidth_MBps '$tmp/out'"
check "2: each CRC drop is one loss, not an error per later packet ($crc)" test "${crc:-0}" -gt 0 -a "$(fig stream.lost)" = "$crc"
check "2: ... and nothing corrupted" test "$(fig stream.corrupted)" = 0
check "2: the sender reports what the receiver got" test "$(fig stream.peer_lost)" = "$crc"
want 1 "2: bench pingpong over a bad link fails" -- "$myri" bench pingpong --set link.ber=0.0001
check "2: ... with no nan" sh -c "! grep -qi nan '$tmp/out'"
check "2: ... naming its losses" grep -q 'FAILED: packets sent [0-9]*, received [0-9]*, lost [1-9]' "$tmp/out"

# ---- 3: traffic counts losses; the accounting balances for every program ----------------
run "$src/scenarios/link-failure-mapped.yaml" --set mapping=off --json
check "3: traffic with a cut link exits 1" test "$(rc)" = 1
acct() { python3 - "$tmp/out" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); f = {}
for p in d["programs"]:
    k = p["key"].split(".", 1)[1] if p["program"] != "system" else p["key"]
    f[k] = f.get(k, 0) + p["value"]
if sys.argv[2] == "lost":   # every packet sent was received or counted lost; the fabric's drops are the losses
    ok = f["sent"] == f["received"] + f["lost"] + f["corrupted"] and f["lost"] == f["fabric.dropped_in_network"] > 0
else:                       # what the NICs delivered was taken by the programs or is still in a channel
    ok = f["nic.rx_good"] == f["received"] + f["corrupted"] + f["nic.left_in_channels"] and f["nic.left_in_channels"] == 0
sys.exit(0 if ok else 1)
PY
}
if command -v python3 >/dev/null 2>&1; then
  check "3: traffic counts every lost packet (sent = received + lost; lost = the fabric's drops)" acct lost
  check "3: ... and the NICs' deliveries balance" acct chan
  for f in pingpong stream; do
    run "$src/scenarios/$f.yaml" --json
    check "3: $f: left_in_channels is measured (0), rx_good = received + corrupted + left" acct chan
  done
fi

# ---- 10: mismatches at load; return codes by name ----------------------------------------
want 2 "10: a misspelt argument is refused" -- "$myri" run "$tmp/four.yaml" --set 'programs=[{program: pingpong, hosts: [h0, h1], args: [szies=4]}]'
check "10: ... naming it, with the keys" grep -q "unknown argument 'szies'; expected one of: .*sizes" "$tmp/err"
check "10: ... at its place" grep -q '^--set:1:[0-9]*: program pingpong' "$tmp/err"
want 2 "10: a bad value is refused" -- "$myri" run "$tmp/four.yaml" --set 'programs=[{program: pingpong, hosts: [h0, h1], args: [sizes=abc]}]'
check "10: ... with the reason" grep -q 'sizes=abc: expected 1 to 32 comma-separated byte counts' "$tmp/err"
want 2 "10: an MCP program on lcp is refused" -- "$myri" run "$tmp/four.yaml" --set firmware=lcp
check "10: ... naming the firmware it needs" grep -q "four.yaml:4:15: program pingpong: runs on the MCP (firmware mcp), not on firmware lcp" "$tmp/err"
want 2 "10: a VIA program on mcp is refused" -- "$myri" run "$tmp/four.yaml" --set 'programs=[{program: via-stream, hosts: [h0, h1]}]'
check "10: ... naming the firmwares it needs" grep -q 'runs on the VIA firmwares (lcp, myricom), not on firmware mcp' "$tmp/err"
want 2 "10: bench pingpong --set firmware=lcp is refused" -- "$myri" bench pingpong --set firmware=lcp
check "10: ... with the reason, no rows of nan" sh -c "grep -q 'not on firmware lcp' '$tmp/err' && ! grep -qi nan '$tmp/out'"
want 1 "10: bench pingpong with sizes over the MTU fails" -- "$myri" bench pingpong --set mcp.mtu=4KiB
check "10: ... naming the code for those sizes" grep -q '^8192 .*(MYRI_API0_ETOOLONG: length over the board.s MTU)' "$tmp/out"
check "10: ... and measuring the others" grep -q '^4096 *[0-9]' "$tmp/out"
run "$tmp/four.yaml" --set 'programs=[{program: pingpong, hosts: [h0, h1], args: [mcp=none]}]'
check "10: a setup error is shown by name and text" grep -q 'pingpong.setup_error *-24 (MYRI_API0_ENOMCP: the MCP code could not be loaded)' "$tmp/out"
run "$tmp/four.yaml" --set 'programs=[{program: pingpong, hosts: [h0, h1], args: [mcp=none]}]' --json
check "10: ... also in JSON" grep -q '"code":"MYRI_API0_ENOMCP: the MCP code could not be loaded"' "$tmp/out"
check_summary
