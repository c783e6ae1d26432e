#!/usr/bin/env bash
# bench_live.sh -- live mode (docs/LIVE.md, issue 21): the example ping-pong
# (examples/programs/pingpong.c) simulated (myri run --program) and live (two
# real processes linked with libmyri-live, through `myri live`), one-way
# latency per size side by side with the daemon's lag; then the daemon's CPU
# at idle (no client, and with a client blocked waiting for a packet) per
# second of wall time and per simulated microsecond.  Unix sockets only.
# Usage: bash bench/bench_live.sh [BUILD_DIR] [SOURCE_DIR]   (default build .)
set -u
b=${1:-build}; src=${2:-.}
myri=$b/myri; pp=$b/examples/pingpong-live; so=$b/examples/pingpong.so
sizes=${SIZES:-4,64,1024,8192}; reps=${REPS:-200}; idle_s=${IDLE_S:-5}
tmp=$(mktemp -d); trap 'kill -9 $dm 2>/dev/null; rm -rf "$tmp"' EXIT
dm=
cat >"$tmp/sim.yaml" <<YAML
job: system
preset: alpha-pci-1998
seed: 1
topology: {generator: star, hosts_per_switch: 2}
firmware: mcp
programs:
  - {program: user, hosts: [h0, h1], args: ["sizes=$sizes", reps=$reps, warmup=5]}
YAML
"$myri" run "$tmp/sim.yaml" --program "$so" --json >"$tmp/sim.json" || { echo "simulated run failed"; exit 1; }

live() { # live OUT SETS...: a live ping-pong; h0's output in OUT.h0, the daemon's JSON in OUT.json
  local out=$1; shift
  "$myri" live "$src/scenarios/live-pingpong.yaml" --dir "$tmp/s" --json "$@" >"$out.json" 2>"$out.err" &
  dm=$!
  for i in $(seq 100); do [ -S "$tmp/s/h1.sock" ] && break; sleep 0.05; done
  "$pp" --myri-host h1 --myri-dir "$tmp/s" sizes=$sizes reps=$reps warmup=5 timeout_us=10000000 >"$out.h1" &
  local h1=$!
  sleep 0.5
  "$pp" --myri-host h0 --myri-dir "$tmp/s" sizes=$sizes reps=$reps warmup=5 timeout_us=10000000 >"$out.h0"
  wait $h1
  kill -INT $dm; wait $dm
}
live "$tmp/live"

jnum() { grep -o "\"$1\":[0-9.eE+-]*" "$2" | head -n 1 | sed 's/.*://'; }
echo "one-way latency (half the round trip, $reps round trips a size), microseconds:"
printf "%8s %12s %12s\n" bytes simulated live
for s in ${sizes//,/ }; do
  sim=$(grep -o "\"user_pingpong.$s.latency_us\"[^}]*\"value\": *[0-9.eE+-]*" "$tmp/sim.json" | head -n 1 |
        sed 's/.*"value": *//')
  [ -n "$sim" ] || sim=$(grep -o "user_pingpong.$s.latency_us[^0-9]*[0-9.eE+-]*" "$tmp/sim.json" | head -n 1 |
                         sed 's/.*[^0-9.eE+-]//')
  lv=$(sed -n "s/.*user_pingpong.$s.latency_us = //p" "$tmp/live.h0")
  printf "%8s %12s %12s\n" "$s" "${sim:-?}" "${lv:-?}"
done
grep -h "errors" "$tmp/live.h0" "$tmp/live.h1"
printf "daemon lag during the live run: max %s ns, mean %s ns over %s steps; CPU %s s in %s s wall\n" \
  "$(jnum lag_max_ns "$tmp/live.json")" "$(jnum lag_mean_ns "$tmp/live.json")" "$(jnum lag_samples "$tmp/live.json")" \
  "$(jnum cpu_s "$tmp/live.json")" "$(jnum wall_s "$tmp/live.json")"

# idle: no client
"$myri" live "$src/scenarios/live-pingpong.yaml" --dir "$tmp/s" --duration "$idle_s" --json >"$tmp/idle.json" 2>/dev/null
cpu=$(jnum cpu_s "$tmp/idle.json"); wall=$(jnum wall_s "$tmp/idle.json")
echo "idle, no client, ${idle_s} s: daemon CPU $cpu s = $(awk "BEGIN{printf \"%.3f\", 100*$cpu/$wall}") % of a core," \
     "$(jnum cpu_s_per_sim_us "$tmp/idle.json") s per simulated us"
# idle: a client attached and blocked in recv_wait (h1 waits for a ping that never comes)
"$myri" live "$src/scenarios/live-pingpong.yaml" --dir "$tmp/s" --duration "$idle_s" --json >"$tmp/idle2.json" 2>/dev/null &
dm=$!
for i in $(seq 100); do [ -S "$tmp/s/h1.sock" ] && break; sleep 0.05; done
"$pp" --myri-host h1 --myri-dir "$tmp/s" sizes=4 reps=1 timeout_us=100000000 >/dev/null &
cl=$!
wait $dm
c_ticks=$(awk '{print $14 + $15}' /proc/$cl/stat 2>/dev/null)
kill -9 $cl 2>/dev/null; wait $cl 2>/dev/null
cpu=$(jnum cpu_s "$tmp/idle2.json"); wall=$(jnum wall_s "$tmp/idle2.json")
echo "idle, one client waiting for a packet, ${idle_s} s: daemon CPU $cpu s =" \
     "$(awk "BEGIN{printf \"%.3f\", 100*$cpu/$wall}") % of a core; the client's CPU $(awk "BEGIN{printf \"%.2f\", ${c_ticks:-0}/$(getconf CLK_TCK)}") s"
