#!/bin/sh
# booksim.sh -- Myri beside BookSim2 (the field's reference interconnect
# simulator) on the same fat trees, for issue 13.  Not run by `make bench`:
# BookSim2 is not part of Myri and is never copied into it.
#
# usage: bench/booksim.sh [--build] [BOOKSIM_DIR] [MYRI]
#   BOOKSIM_DIR  a checkout of https://github.com/booksim/booksim2 (default
#                /tmp/booksim2); --build runs `make` in its src/ first (needs
#                g++, flex and bison)
#   MYRI         the myri program (default build/myri)
#
# For 4-ary n-trees with n = 3, 4, 5 (64, 256, 1024 hosts): uniform traffic at
# 20 % load for the same simulated time in both, 20-byte payloads; BookSim's
# packets are P flits = the characters of Myri's packet on the wire (route
# bytes, 2n-1 at most, + type 4 + payload 20 + CRC 1: P = 2n + 24), one flit per
# character time (12.5 ns at 640 Mb/s), one VC of 16 flits, injection counted
# in flits.  Runs are interleaved (Myri, BookSim, Myri, BookSim) and each
# prints its process wall time; the ratio is BookSim's over Myri's.  Measure on
# an otherwise idle machine, pinned to one core (taskset -c 0) if you can.
set -eu
build=0
[ "${1:-}" = "--build" ] && { build=1; shift; }
bs=${1:-/tmp/booksim2}
myri=${2:-build/myri}
[ -d "$bs/src" ] || { echo "booksim.sh: no BookSim2 checkout at $bs (git clone https://github.com/booksim/booksim2)" >&2; exit 2; }
[ "$build" = 1 ] && make -C "$bs/src" -j2 >/dev/null
[ -x "$bs/src/booksim" ] || { echo "booksim.sh: $bs/src/booksim is not built (run with --build)" >&2; exit 2; }
[ -x "$myri" ] || { echo "booksim.sh: $myri is not built (make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
printf '%6s %8s %10s %10s %8s\n' hosts cycles myri_s booksim_s ratio
for n in 3 4 5; do
  hosts=$((1 << (2 * n)))
  p=$((2 * n + 24))
  us=$(awk -v h="$hosts" 'BEGIN { printf "%.3f", 60000 / (h * 0.2 * 80e6 / 26) * 1e6 }')
  cycles=$(awk -v us="$us" 'BEGIN { printf "%d", us * 1e6 / 12500 }')
  cat >"$tmp/m.yaml" <<EOF
seed: 1
warmup: 0us
duration: ${us}us
model: fast
link: {rate: 640Mb/s, length: 10m}
switch: {latency: 550ns}
topology: {generator: fat-tree, k: 4, n: $n}
traffic: {pattern: uniform, load: 0.2, size: 20B, arrivals: poisson}
EOF
  cat >"$tmp/b.cfg" <<EOF
topology = fattree; k = 4; n = $n; routing_function = nca;
num_vcs = 1; vc_buf_size = 16; wait_for_tail_credit = 0;
vc_allocator = separable_input_first; sw_allocator = separable_input_first; alloc_iters = 1;
traffic = uniform; packet_size = $p; injection_rate = 0.2; injection_rate_uses_flits = 1;
sim_type = latency; warmup_periods = 0; sample_period = $cycles; max_samples = 1; sim_count = 1;
EOF
  m=0; b=0
  for rep in 1 2; do
    t0=$(now); "$myri" run "$tmp/m.yaml" >/dev/null; t1=$(now)
    "$bs/src/booksim" "$tmp/b.cfg" >"$tmp/b.out"; t2=$(now)
    m=$(awk -v a="$m" -v x="$t0" -v y="$t1" 'BEGIN { print a + y - x }')
    b=$(awk -v a="$b" -v x="$t1" -v y="$t2" 'BEGIN { print a + y - x }')
  done
  awk -v h="$hosts" -v c="$cycles" -v m="$m" -v b="$b" \
    'BEGIN { printf "%6d %8d %10.3f %10.3f %8.1f\n", h, c, m / 2, b / 2, b / m }'
done
