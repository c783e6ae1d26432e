# booksim_workload.sh -- the one workload Myri and BookSim2 are compared on
# (issues 13 and 24), sourced by bench/booksim.sh and bench/before_after.sh.
# booksim_workload N DIR: for the 4-ary N-tree writes DIR/m.yaml (Myri) and
# DIR/b.cfg (BookSim2) and sets hosts, us (simulated time, us) and cycles
# (BookSim cycles of 12.5 ns, one character of 640 Mb/s's 80 Mchar/s).
# Uniform traffic at 20 % load, 20-byte payloads, the same simulated time in
# both: 60 000 packets over the network; BookSim's packets are 2N+24 flits =
# the characters of Myri's packet on the wire (route bytes 2N-1 at most, type
# 4, payload 20, CRC 1); the load formula takes 26 characters a packet.
booksim_workload() {
  hosts=$((1 << (2 * $1)))
  _bw_p=$((2 * $1 + 24))
  us=$(awk -v h="$hosts" 'BEGIN { printf "%.3f", 60000 / (h * 0.2 * 80e6 / 26) * 1e6 }')
  cycles=$(awk -v us="$us" 'BEGIN { printf "%d", us * 1e6 / 12500 }')
  cat >"$2/m.yaml" <<EOF
seed: 1
warmup: 0us
duration: ${us}us
model: fast
link: {rate: 640Mb/s, length: 10m}
switch: {latency: 550ns}
topology: {generator: fat-tree, k: 4, n: $1}
traffic: {pattern: uniform, load: 0.2, size: 20B, arrivals: poisson}
EOF
  cat >"$2/b.cfg" <<EOF
topology = fattree; k = 4; n = $1; routing_function = nca;
num_vcs = 1; vc_buf_size = 16; wait_for_tail_credit = 0;
vc_allocator = separable_input_first; sw_allocator = separable_input_first; alloc_iters = 1;
traffic = uniform; packet_size = $_bw_p; injection_rate = 0.2; injection_rate_uses_flits = 1;
sim_type = latency; warmup_periods = 0; sample_period = $cycles; max_samples = 1; sim_count = 1;
EOF
}
