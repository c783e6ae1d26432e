#!/usr/bin/env bash
# bench_live_ip.sh -- `myri live FILE --ip` (docs/LIVE.md "IP", issue 21):
# unmodified programs over the simulated Myrinet in real time, beside the
# same network simulated.
#   1. simulated: examples/programs/pingpong.c at 84 B (a default ping's IP
#      packet) and 8192 B (one MTU) on two hosts -> round trip; the stream
#      program (scenarios/stream.yaml, 8 KB packets) -> throughput; the link
#      rate (link.rate) and the host DMA rate (bus.dma_rate) of the preset.
#   2. live, 2 hosts (scenarios/live-pingpong.yaml --ip): ping -c 20 at both
#      sizes, iperf3 TCP and UDP, a 16 MiB file with nc (sha256 compared),
#      the daemon's lag and CPU.
#   3. live, 16-host fat tree (scenarios/live-ip-fattree16.yaml --ip):
#      iperf3 TCP between PAIRS pairs at once (h0->h8, h1->h9, ...).
# Traffic only inside the namespaces Myri makes, to 198.18.0.0/15.
# Needs root, /dev/net/tun, ip, ping, nc, iperf3, python3.
# Usage: sudo bash bench/bench_live_ip.sh [BUILD_DIR] [SOURCE_DIR]   (default build .)
#   T=seconds of each iperf3 (3), PAIRS (4), UDP_RATE (iperf3 -b, 300M)
set -u
b=${1:-build}; src=${2:-.}
myri=$b/myri; so=$b/examples/pingpong.so
t=${T:-3}; pairs=${PAIRS:-4}; udp_rate=${UDP_RATE:-300M}
[ "$(id -u)" = 0 ] || { echo "bench_live_ip: needs root (namespaces, TUN)"; exit 2; }
for x in ip ping nc iperf3 python3 sha256sum; do command -v $x >/dev/null || { echo "bench_live_ip: no $x"; exit 2; }; done
tmp=$(mktemp -d)
dm=""
trap '[ -n "$dm" ] && { kill -INT $dm 2>/dev/null; wait $dm; }; rm -rf "$tmp"' EXIT

# ---- 1. simulated ----
cat >"$tmp/sim.yaml" <<YAML
job: system
preset: alpha-pci-1998
seed: 1
topology: {generator: star, hosts_per_switch: 2}
firmware: mcp
programs:
  - {program: user, hosts: [h0, h1], args: ["sizes=84,8192", reps=50, warmup=5]}
YAML
"$myri" run "$tmp/sim.yaml" --program "$so" --json >"$tmp/sim.json" 2>/dev/null || { echo "simulated ping-pong failed"; exit 1; }
"$myri" run "$src/scenarios/stream.yaml" --json >"$tmp/stream.json" 2>/dev/null || { echo "simulated stream failed"; exit 1; }
simv() { python3 -c "
import json,sys; d=json.load(open('$1'))
print([p['value'] for p in d['programs'] if p['key']=='$2' and p['host']=='h0'][0])"; }
rtt84=$(python3 -c "print('%.1f' % (2*$(simv "$tmp/sim.json" user_pingpong.84.latency_us)))")
rtt8k=$(python3 -c "print('%.1f' % (2*$(simv "$tmp/sim.json" user_pingpong.8192.latency_us)))")
stream=$(python3 -c "print('%.0f' % (8*$(simv "$tmp/stream.json" stream.bandwidth_MBps)))")
cfg() { python3 -c "import json; print(json.load(open('$tmp/stream.json'))['configuration']['$1'])"; }
dma=$(python3 -c "print('%.0f' % ($(cfg bus.dma_rate)*8/1e6))")
echo "simulated (alpha-pci-1998, 2 hosts, one switch): round trip 84 B $rtt84 us, 8192 B $rtt8k us;" \
     "stream of 8 KB packets $stream Mbit/s; link.rate $(cfg link.rate), bus.dma_rate $dma Mbit/s"

# ---- the daemon ----
start() { # start SCENARIO: the daemon with --ip until every driver is up; namespaces in ns[]
  "$myri" live "$1" --ip --json >"$tmp/d.json" 2>"$tmp/d.err" &
  dm=$!
  local n=$(grep -c "program: live" "$1")
  for _ in $(seq 200); do
    grep -q "ip ready" "$tmp/d.err" 2>/dev/null && \
      [ "$(grep -c 'driver up' "$tmp/d.err")" = "$(sed -n 's/^myri live: ip ready: \(.*\) (ip .*/\1/p' "$tmp/d.err" | wc -w)" ] && break
    sleep 0.1
  done
  read -r -a ns < <(sed -n 's/^myri live: ip ready: \(.*\) (ip .*/\1/p' "$tmp/d.err")
}
stop() {
  kill -INT $dm; wait $dm; dm=""
  python3 -c "
import json; d=json.load(open('$tmp/d.json'))
print('daemon: lag max %.1f ms, mean %.1f us over %d steps; CPU %.2f s in %.1f s wall (%.0f %% of a core); %.3f s simulated' % (
  d['lag_max_ns']/1e6, d['lag_mean_ns']/1e3, d['lag_samples'], d['cpu_s'], d['wall_s'], 100*d['cpu_s']/d['wall_s'], d['sim_time_ps']/1e12))"
  grep "ip h[0-9]* (" "$tmp/d.err" | sed 's/^myri live: ip /  driver /' | grep -v " dropped 0$" || echo "  every driver: dropped 0"
  grep "removed" "$tmp/d.err" | sed 's/^myri live: /  /'
}
in_() { local h=$1; shift; ip netns exec "${ns[$h]}" "$@"; }
addr() { echo "198.18.0.$(($1 + 1))"; }
iperf_json() { # iperf_json JSON: received Mbit/s, retransmits or loss
  python3 -c "
import json; d=json.load(open('$1')); e=d['end']
if d['start']['test_start']['protocol'] != 'UDP': print('%.0f Mbit/s, %d retransmits' % (e['sum_received']['bits_per_second']/1e6, e['sum_sent'].get('retransmits',0)))
else: s=e['sum']; print('%.0f Mbit/s received, %d of %d lost (%.2f %%)' % (s['bits_per_second']*(1-s['lost_percent']/100)/1e6, s['lost_packets'], s['packets'], s['lost_percent']))"
}
iperf() { # iperf FROM TO NAME ARGS...: server on TO (one test), client on FROM
  local f=$1 to=$2 name=$3; shift 3
  in_ $to iperf3 -s -1 -B "$(addr $to)" >/dev/null 2>&1 &
  local sp=$!
  for _ in $(seq 50); do in_ $to ss -ltn | grep -q ":5201 " && break; sleep 0.1; done
  in_ $f iperf3 -c "$(addr $to)" -t "$t" -J "$@" >"$tmp/$name.json" 2>&1
  wait $sp
}

# ---- 2. two hosts ----
start "$src/scenarios/live-pingpong.yaml"
in_ 0 ping -c 20 -i 0.05 198.18.0.2 >"$tmp/p84" 2>&1
in_ 0 ping -c 20 -i 0.05 -s 8164 198.18.0.2 >"$tmp/p8k" 2>&1
rtt() { sed -n 's/^rtt min\/avg\/max\/mdev = \([^/]*\)\/\([^/]*\)\/\([^/]*\)\/.*/\1 \/ \2 \/ \3 ms/p' "$1"; }
echo "ping -c 20 (84 B IP packets):   rtt min/avg/max $(rtt "$tmp/p84"), $(grep -o '[0-9]* received' "$tmp/p84");" \
     "simulated round trip $rtt84 us"
echo "ping -c 20 -s 8164 (8192 B):    rtt min/avg/max $(rtt "$tmp/p8k"), $(grep -o '[0-9]* received' "$tmp/p8k");" \
     "simulated round trip $rtt8k us"
txdrop() { in_ $1 cat /sys/class/net/myri0/statistics/tx_dropped; }
d0=$(txdrop 0)
iperf 0 1 tcp
echo "iperf3 TCP $t s h0->h1:          $(iperf_json "$tmp/tcp.json"); simulated stream $stream Mbit/s, link $(cfg link.rate), DMA $dma Mbit/s"
echo "  (h0's myri0 TX queue dropped $(($(txdrop 0) - d0)) packets during it: the kernel's, before the driver)"
iperf 0 1 udp -u -b "$udp_rate"
echo "iperf3 UDP -b $udp_rate $t s:        $(iperf_json "$tmp/udp.json")"
head -c 16777216 /dev/urandom >"$tmp/file"
in_ 1 nc -l 198.18.0.2 5001 >"$tmp/got" &
nc1=$!
for _ in $(seq 50); do in_ 1 ss -ltn | grep -q ':5001 ' && break; sleep 0.1; done
t0=$(date +%s%N)
in_ 0 timeout 120 nc -N 198.18.0.2 5001 <"$tmp/file"
wait $nc1
t1=$(date +%s%N)
same=$([ "$(sha256sum <"$tmp/file")" = "$(sha256sum <"$tmp/got")" ] && echo "same sha256" || echo "sha256 DIFFERS")
echo "nc 16 MiB h0->h1:               $(python3 -c "print('%.2f s, %.0f Mbit/s' % (($t1-$t0)/1e9, 16*1048576*8/(($t1-$t0)/1e9)/1e6))"), $same"
stop

# ---- 3. the 16-host fat tree, PAIRS pairs at once ----
start "$src/scenarios/live-ip-fattree16.yaml"
in_ 0 ping -c 5 -i 0.1 198.18.0.16 >"$tmp/pft" 2>&1
echo "fat tree 16 hosts: ping h0->h15 (3 switches) rtt min/avg/max $(rtt "$tmp/pft")"
for ((p = 0; p < pairs; p++)); do
  in_ $((p + 8)) iperf3 -s -1 -B "$(addr $((p + 8)))" >/dev/null 2>&1 &
done
sleep 1
cl=""
for ((p = 0; p < pairs; p++)); do
  in_ $p iperf3 -c "$(addr $((p + 8)))" -t "$t" -J >"$tmp/ft$p.json" 2>&1 &
  cl="$cl $!"
done
wait $cl
sleep 0.5
tot=0
for ((p = 0; p < pairs; p++)); do
  r=$(iperf_json "$tmp/ft$p.json")
  echo "  iperf3 TCP h$p->h$((p + 8)): $r"
  tot=$(python3 -c "print($tot + ${r%% Mbit*})")
done
echo "fat tree: $pairs pairs at once, $tot Mbit/s in all"
stop
