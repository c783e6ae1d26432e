#!/usr/bin/env bash
# The IP driver's transport over seed 001's API (src/live/ip_api0.c, issue 21)
# run over the SIMULATED Myrinet: tests/ip_api0_prog.c, a user program with
# a full IP driver inside whose TUN device is a socketpair, on h0 and h1 of
# scenarios/pingpong-user.yaml.  Eight IPv4 packets, 20 B to the MTU, each
# cross as ONE API packet on channel MYRI_IP_CHANNEL (8 injected, 8
# delivered, 8 rx_good) and arrive byte for byte; one byte over the MTU and
# a destination outside the plan are counted drops; the driver's MTU follows
# mcp.mtu (8192 by default, 1500 with --set mcp.mtu=1500B); with
# mcp.nchan=4 the IP channel does not exist and the programs say so (exit 2);
# the run is deterministic (same hash twice).  Needs no root.
# usage: ip_api0.sh PATH/TO/myri SOURCE_DIR PATH/TO/ip_api0_prog.so
set -u
. "$(dirname "$0")/lib/check.bash" "$@"
so=${3:-}
[ -n "$so" ] && [ -f "$so" ] || { echo "skipped: no ip_api0_prog.so given"; rm -rf "$tmp"; exit 77; }
scen=$src/scenarios/pingpong-user.yaml

want 0 "runs" -- "$myri" run "$scen" --program "$so"
cp "$tmp/out" "$tmp/run1"
check "h0 and h1 exit 0" test "$(grep -c '^program  h[01] user: exit 0' "$tmp/run1")" = 2
check "h0 sent 8" grep -q 'ip_api0.sent  *8$' "$tmp/run1"
check "h1 delivered 8 intact" grep -q 'ip_api0.delivered  *8$' "$tmp/run1"
check "no errors on either host" test "$(grep -c 'ip_api0.errors  *0$' "$tmp/run1")" = 2
check "MTU is mcp.mtu: 8192" test "$(grep -c 'ip_api0.mtu_bytes  *8192$' "$tmp/run1")" = 2
check "one Myrinet packet per IP packet" grep -q 'injected 8 = delivered 8 + misdelivered 0 + dropped 0' "$tmp/run1"
check "the MCP put all 8 into the channel" grep -q 'rx_good 8 tx_sent 8' "$tmp/run1"
check "h0's drops counted by reason" grep -q '^h0 (198.18.0.1): sent 8 packets .* dropped 2 tx_too_long=1 tx_no_host=1$' "$tmp/err"
check "h1 dropped nothing" grep -q '^h1 (198.18.0.2): sent 0 packets .* received 8 packets .* dropped 0$' "$tmp/err"

want 0 "runs again" -- "$myri" run "$scen" --program "$so"
check "same hash twice" test "$(grep '^hash' "$tmp/run1")" = "$(grep '^hash' "$tmp/out")"

want 0 "mcp.mtu=1500B" -- "$myri" run "$scen" --program "$so" --set mcp.mtu=1500B
check "MTU follows mcp.mtu: 1500" test "$(grep -c 'ip_api0.mtu_bytes  *1500$' "$tmp/out")" = 2
check "8 delivered at MTU 1500" grep -q 'ip_api0.delivered  *8$' "$tmp/out"

want 1 "mcp.nchan=4: no channel 7" -- "$myri" run "$scen" --program "$so" --set mcp.nchan=4
check "the programs exit 2" test "$(grep -c '^program  h[01] user: exit 2' "$tmp/out")" = 2
check "and name the reason" grep -q 'myri_api0_get_chan (the IP channel): MYRI_API0_EBADCHAN' "$tmp/err"
check_summary
