#!/usr/bin/env bash
# `myri live FILE --ip` (issue 21, docs/LIVE.md "IP"): the daemon runs
# scenarios/live-pingpong.yaml (two program: live hosts through a switch),
# gives each host a namespace with its TUN device myri0 and starts one IP
# driver process per host, an ordinary libmyri-live client carrying each IP
# packet as one Myrinet packet over the simulated network in real time.
# Inside the namespaces, unmodified programs: ping -c 5 and a random 1 MiB
# file over TCP with nc arriving with the same sha256.  No driver drops a
# packet; the namespaces are gone after SIGINT, and the record of the run
# replays to the same hash.  Refusals exit 2 with the reason (not root,
# live.ip_channel not below mcp.nchan, a firmware other than the MCP).
# Traffic stays inside the namespaces Myri makes, to 198.18.0.0/15 only.
# A SIGKILLed daemon's drivers die with it and the next run removes its
# namespaces as stale; a daemon started with SIGINT ignored still stops on it.
# Skipped (77) without root, /dev/net/tun, ip, ping, nc or the driver.
# usage: live_ip.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"
scen=$src/scenarios/live-pingpong.yaml

skip() { echo "skipped: $1"; rm -rf "$tmp"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, TUN devices)"
[ -c /dev/net/tun ] || skip "no /dev/net/tun"
for t in ip ping nc sha256sum ss; do
  command -v $t >/dev/null 2>&1 || skip "$t not installed (Debian packages iproute2 iputils-ping netcat-openbsd)"
done
[ -x "$(dirname "$myri")/myri-ip-driver" ] || skip "no myri-ip-driver beside $myri"
. "$(dirname "$0")/lib/netns.bash"
need_netns_tun

dpid="" ncpid="" ns0="" ns1="" kns0="" kns1=""
cleanup() {
  [ -n "$ncpid" ] && kill "$ncpid" 2>/dev/null
  [ -n "$dpid" ] && { kill -TERM "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; }
  for n in $ns0 $ns1 $kns0 $kns1; do # only if the daemon failed to: the names it printed
    [ -e "/run/netns/$n" ] && ip netns del "$n" 2>/dev/null
    rm -f "/run/myri-ip/$n"
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- refusals: exit 2 with the reason, before anything starts ----
ip netns list | sed -n 's/^\(myri-[0-9]*-h[0-9]*\).*/\1/p' >"$tmp/ns_before"
if command -v setpriv >/dev/null 2>&1; then
  want 2 "--ip not root" -- setpriv --reuid=65534 --regid=65534 --clear-groups "$myri" live "$scen" --ip --duration 1
  check "not root: says so" grep -q "needs root" "$tmp/err"
fi
want 2 "live.ip_channel 8 with mcp.nchan 8" -- "$myri" live "$scen" --ip --duration 1 --set live.ip_channel=8
check "ip_channel: mcp.nchan named" grep -q "below mcp.nchan" "$tmp/err"
want 2 "--ip-prefix with host bits" -- "$myri" live "$scen" --ip --ip-prefix 198.18.0.1/15 --duration 1
# left by the refusals: a new myri-PID-hN namespace whose daemon PID is gone (one of
# another run at the same time, e.g. a second ctest, has its daemon alive)
leaked() {
  ip netns list | sed -n 's/^\(myri-\([0-9]*\)-h[0-9]*\).*/\1 \2/p' | while read -r n p; do
    grep -qx "$n" "$tmp/ns_before" || kill -0 "$p" 2>/dev/null || echo "$n"
  done
}
check "no namespace left by the refusals" test -z "$(leaked)"

# ---- the daemon with --ip ----
"$myri" live "$scen" --ip --duration 60 --record "$tmp/rec" >"$tmp/d.out" 2>"$tmp/d.err" &
dpid=$!
for _ in $(seq 100); do
  [ "$(grep -c 'driver up' "$tmp/d.err" 2>/dev/null)" = 2 ] && break
  kill -0 "$dpid" 2>/dev/null || break
  sleep 0.1
done
check "both IP drivers up" test "$(grep -c 'driver up' "$tmp/d.err")" = 2 || cat "$tmp/d.err"
read -r ns0 ns1 < <(sed -n 's/^myri live: ip ready: \([^ ]*\) \([^ ]*\) .*/\1 \2/p' "$tmp/d.err")
check "ready line names two namespaces" test -n "$ns0" -a -n "$ns1"
in0() { ip netns exec "$ns0" "$@"; }
in1() { ip netns exec "$ns1" "$@"; }
check "MTU of myri0 is mcp.mtu (8192 B)" test "$(in0 cat /sys/class/net/myri0/mtu)" = 8192

in0 ping -c 5 -i 0.2 -W 2 198.18.0.2 >"$tmp/ping" 2>&1
check "ping: 5 of 5 answered" grep -q " 5 received, 0% packet loss" "$tmp/ping"
echo "ping over the simulated Myrinet: $(grep '^rtt' "$tmp/ping")"

head -c 1048576 /dev/urandom >"$tmp/file"
in1 nc -l 198.18.0.2 5001 >"$tmp/got" &
ncpid=$!
for _ in $(seq 50); do in1 ss -ltn | grep -q ':5001 ' && break; sleep 0.1; done
t0=$(date +%s.%N)
in0 timeout 30 nc -N 198.18.0.2 5001 <"$tmp/file"
wait "$ncpid"; ncpid=""
t1=$(date +%s.%N)
check "nc: 1 MiB over TCP arrives with the same sha256" \
  test "$(sha256sum <"$tmp/file")" = "$(sha256sum <"$tmp/got")"
echo "nc: 1 MiB in $(echo "$t1 - $t0" | bc 2>/dev/null || echo "?") s"

kill -INT "$dpid"
wait "$dpid"
rc=$?
dpid=""
check "the daemon stops on SIGINT with exit 0" test "$rc" = 0
check "both drivers counted, nothing dropped" test "$(grep -c 'ip h[01] (198.18.0.[12]): sent .* dropped 0$' "$tmp/d.err")" = 2 ||
  grep "ip h" "$tmp/d.err"
check "namespaces removed and reported" grep -q "removed 2 namespaces" "$tmp/d.err"
check "no namespace left" test ! -e "/run/netns/$ns0" -a ! -e "/run/netns/$ns1"
check "no owner file left" test ! -e "/run/myri-ip/$ns0" -a ! -e "/run/myri-ip/$ns1"
gone=1
for p in $(sed -n 's/.*driver up (.*pid \([0-9]*\))$/\1/p' "$tmp/d.err"); do kill -0 "$p" 2>/dev/null && gone=0; done
check "no driver process left" test "$gone" = 1

h=$(sed -n 's/^hash //p' "$tmp/d.out")
"$myri" live "$scen" --ip --replay "$tmp/rec" >"$tmp/r.out" 2>&1
check "the record replays (exit 0)" test $? = 0
check "the replay gives the run's hash" test -n "$h" -a "$(sed -n 's/^hash //p' "$tmp/r.out")" = "$h"
# ---- a killed daemon: its drivers die with it; the next run removes its namespaces ----
up() { # up ERRFILE PID: waits until both drivers are up
  for _ in $(seq 100); do
    [ "$(grep -c 'driver up' "$1" 2>/dev/null)" = 2 ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
(trap '' INT; exec "$myri" live "$scen" --ip --duration 60) >"$tmp/k.out" 2>"$tmp/k.err" &
dpid=$!
check "daemon with SIGINT ignored: drivers up" up "$tmp/k.err" "$dpid"
kill -INT "$dpid"
wait "$dpid"
check "it stops on SIGINT all the same (exit 0)" test $? = 0
dpid=""
"$myri" live "$scen" --ip --duration 60 >"$tmp/k.out" 2>"$tmp/k.err" &
dpid=$!
check "second daemon: drivers up" up "$tmp/k.err" "$dpid"
read -r kns0 kns1 < <(sed -n 's/^myri live: ip ready: \([^ ]*\) \([^ ]*\) .*/\1 \2/p' "$tmp/k.err")
kill -KILL "$dpid"
wait "$dpid" 2>/dev/null
dpid=""
alive() { # alive PID: runs (a zombie left to an init that does not reap does not count)
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
for _ in $(seq 30); do
  gone=1
  for p in $(sed -n 's/.*driver up (.*pid \([0-9]*\))$/\1/p' "$tmp/k.err"); do alive "$p" && gone=0; done
  [ "$gone" = 1 ] && break
  sleep 0.1
done
check "the drivers died with the SIGKILLed daemon" test "$gone" = 1
check "its namespaces are left behind" test -e "/run/netns/$kns0"
"$myri" live "$scen" --ip --duration 0.5 >"$tmp/n.out" 2>"$tmp/n.err"
check "the next run (exit 0)" test $? = 0
check "the next run removes them as stale" grep -q "removed stale namespace $kns0" "$tmp/n.err"
check "none left" test ! -e "/run/netns/$kns0" -a ! -e "/run/netns/$kns1"
check_summary
