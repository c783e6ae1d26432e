#!/usr/bin/env bash
# The IP interface of live mode without Myri (issue 21, docs/LIVE-IP.md):
# tests/ip_bridge gives two hosts a network namespace each with a TUN device
# myri0 (198.18.0.1, 198.18.0.2), an IP driver per host and an in-process
# wire with a one-way delay ($IP_BRIDGE_DELAY_US, default 16 us: half the
# simulated round trip of a 64-128 B API packet in `myri bench latency`,
# 16.18-16.26 us, the size of a ping); then,
# inside the namespaces, unmodified programs: ping -c 5, a random 4 MiB file
# over TCP with nc arriving with the same sha256, iperf3 TCP and UDP for 2 s.
# No checksum left half-done by the stack, no packet dropped inbound; the
# namespaces and owner files are gone at the end, also after SIGKILL (the
# next run removes them as stale); without root the bridge exits 2 with the
# reason.  Traffic stays inside the namespaces, to 198.18.0.0/15 only.
# Skipped (77) without root, /dev/net/tun, ip, ping, nc or iperf3.
# usage: ip_bridge.sh PATH/TO/myri SOURCE_DIR PATH/TO/ip_bridge
set -u
. "$(dirname "$0")/lib/check.bash" "$@"
bridge=${3:-}
delay_us=${IP_BRIDGE_DELAY_US:-16}

skip() { echo "skipped: $1"; rm -rf "$tmp"; exit 77; }
[ -n "$bridge" ] && [ -x "$bridge" ] || skip "no ip_bridge program given"
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, TUN devices)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
for t in ip ping nc iperf3 sha256sum python3; do
  command -v $t >/dev/null 2>&1 || skip "$t not installed (Debian packages iproute2 iputils-ping netcat-openbsd iperf3)"
done
. "$(dirname "$0")/lib/netns.bash"
need_netns_tun

s1="ipt$$"          # this run's sessions: namespaces myri-ipt<pid>[k]-h0/h1
s2="ipt$$k"
ns0="myri-$s1-h0" ns1="myri-$s1-h1"
bpid="" pids=""
cleanup() {
  for p in $pids $bpid; do kill "$p" 2>/dev/null; done
  [ -n "$bpid" ] && wait "$bpid" 2>/dev/null
  for n in "myri-$s1-h0" "myri-$s1-h1" "myri-$s2-h0" "myri-$s2-h1" "myri-ipt$$l-h0" "myri-ipt$$l-h1"; do
    [ -e "/run/netns/$n" ] && ip netns del "$n" 2>/dev/null
    rm -f "/run/myri-ip/$n"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start SESSION: runs the bridge in the background until it says ready.
start() {
  rm -f "$tmp/bridge.out" "$tmp/bridge.err" # else the last run's "ready" may be read before the shell truncates
  "$bridge" --session "$1" --delay-us "$delay_us" >"$tmp/bridge.out" 2>"$tmp/bridge.err" &
  bpid=$!
  for _ in $(seq 100); do
    grep -q '^ready' "$tmp/bridge.out" 2>/dev/null && return 0
    kill -0 "$bpid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$tmp/bridge.err"
  return 1
}
stop() { kill -TERM "$bpid"; wait "$bpid"; local rc=$?; bpid=""; return $rc; }
in0() { ip netns exec "$ns0" "$@"; }
in1() { ip netns exec "$ns1" "$@"; }

# ---- refusals: exit 2 with the reason ----
if command -v setpriv >/dev/null 2>&1; then
  want 2 "not root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$bridge" --session "$s1"
  check "not root: says so" grep -q "needs root" "$tmp/err"
fi
want 2 "prefix with host bits" -- "$bridge" --prefix 198.18.0.1/15
check "prefix: reason named" grep -q "host bits set" "$tmp/err"
want 2 "prefix too small for the hosts" -- "$bridge" --prefix 198.19.255.252/30 --hosts 3
want 2 "bad argument" -- "$bridge" --hosts 1

# ---- the bridge ----
check "bridge ready" start "$s1"
check "ready line names both namespaces" grep -q "^ready $ns0 198.18.0.1 $ns1 198.18.0.2$" "$tmp/bridge.out"
check "owner files written" test -f "/run/myri-ip/$ns0" -a -f "/run/myri-ip/$ns1"
mtu=$(in0 cat /sys/class/net/myri0/mtu)
check "MTU of myri0 is mcp.mtu (8192 B)" test "$mtu" = 8192
check "one on-link route for the prefix" sh -c "ip netns exec $ns0 ip route | grep -q '^198.18.0.0/15 dev myri0'"
if command -v ethtool >/dev/null 2>&1; then
  in0 ethtool -k myri0 >"$tmp/k" 2>&1
  for f in tcp-segmentation-offload generic-segmentation-offload generic-receive-offload tx-checksumming; do
    check "$f off" grep -q "^$f: off" "$tmp/k"
  done
fi

in0 ping -c 5 -i 0.2 -W 2 198.18.0.2 >"$tmp/ping" 2>&1
check "ping: 5 of 5 answered" grep -q " 5 received, 0% packet loss" "$tmp/ping"
echo "ping (one-way wire delay $delay_us us): $(grep '^rtt' "$tmp/ping")"

head -c 4194304 /dev/urandom >"$tmp/file"
in1 nc -l 198.18.0.2 5001 >"$tmp/got" &
ncpid=$!; pids="$ncpid"
for _ in $(seq 50); do in1 ss -ltn | grep -q ':5001 ' && break; sleep 0.1; done
in0 timeout 30 nc -N 198.18.0.2 5001 <"$tmp/file"
wait "$ncpid"; pids=""
check "nc: 4 MiB over TCP arrive with the same sha256" \
  test "$(sha256sum <"$tmp/file")" = "$(sha256sum <"$tmp/got")"

iperf() { # iperf NAME ARGS...: iperf3 server in h1 (one test), client in h0, JSON in $tmp/NAME.json
  local name=$1; shift
  in1 iperf3 -s -1 -B 198.18.0.2 >/dev/null 2>&1 &
  local spid=$!; pids="$spid"
  for _ in $(seq 50); do in1 ss -ltn | grep -q ':5201 ' && break; sleep 0.1; done
  in0 timeout 30 iperf3 -c 198.18.0.2 -t 2 -J "$@" >"$tmp/$name.json"
  local rc=$?
  wait "$spid"; pids=""
  return $rc
}
check "iperf3 TCP runs" iperf tcp
tcp=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]; print("%.0f Mbit/s received, %d retransmits" % (e["sum_received"]["bits_per_second"]/1e6, e["sum_sent"].get("retransmits",0)))' "$tmp/tcp.json")
check "iperf3 TCP carried data" python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"] <= 0)' "$tmp/tcp.json"
echo "iperf3 TCP 2 s: $tcp"
check "iperf3 UDP runs" iperf udp -u -b 1G
udp=$(python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; print("%.0f Mbit/s offered at 1 Gbit/s, %.2f %% lost" % (e["bits_per_second"]/1e6, e["lost_percent"]))' "$tmp/udp.json")
check "iperf3 UDP carried data" python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum"]; sys.exit(e["packets"] - e["lost_packets"] <= 0)' "$tmp/udp.json"
echo "iperf3 UDP 2 s: $udp"

check "bridge stops on SIGTERM with exit 0" stop
cat "$tmp/bridge.out"
check "no checksum left half-done by the stack" sh -c "! grep -q tx_bad_csum '$tmp/bridge.out'"
check "no inbound packet dropped" sh -c "! grep -q ' rx_' '$tmp/bridge.out'"
check "counters printed for both hosts" test "$(grep -c '^h[01] (198.18.0.[12]): sent [1-9]' "$tmp/bridge.out")" = 2
check "namespaces removed at exit" test ! -e "/run/netns/$ns0" -a ! -e "/run/netns/$ns1"
check "owner files removed at exit" test ! -e "/run/myri-ip/$ns0" -a ! -e "/run/myri-ip/$ns1"

# ---- a crashed run's namespaces are removed by the next run, no one else's ----
ip netns add "myri-x$$-h0" 2>/dev/null && foreign="myri-x$$-h0" || foreign=""
check "bridge ready (to be killed)" start "$s1"
kill -KILL "$bpid"; wait "$bpid" 2>/dev/null; bpid=""
check "killed: namespaces still there" test -e "/run/netns/$ns0"
check "next run starts" start "$s2"
check "next run removed the stale namespaces" test ! -e "/run/netns/$ns0" -a ! -e "/run/netns/$ns1"
check "and said so" grep -q "removed stale namespace $ns0" "$tmp/bridge.err"
if [ -n "$foreign" ]; then
  check "a namespace without our owner file is left alone" test -e "/run/netns/$foreign"
  ip netns del "$foreign"
fi
# a running run's namespaces are never another run's to remove
s3="ipt$$l"
"$bridge" --session "$s3" >"$tmp/third.out" 2>&1 &
third=$!; pids="$third"
for _ in $(seq 100); do grep -q '^ready' "$tmp/third.out" && break; sleep 0.1; done
check "a third run starts beside the second" grep -q '^ready' "$tmp/third.out"
check "and leaves the running second's namespaces alone" test -e "/run/netns/myri-$s2-h0" -a -e "/run/netns/myri-$s2-h1"
kill -TERM "$third"; wait "$third"; pids=""
check "third run cleaned its own" test ! -e "/run/netns/myri-$s3-h0"
check "second bridge stops" stop
check_summary
