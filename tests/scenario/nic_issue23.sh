#!/usr/bin/env bash
# nic_issue23.sh -- the NIC's figures and limits a user relies on (issue 23):
#  item 5: a utilisation is over the interval it was measured on, never above
#   100 %: programs that exit at t = 0 print "busy: -" (JSON null), and with
#   bus.dma_rate=1 (a 256 B burst takes 256 s) the I/O bus is at most 100 %.
#  item 11: a firmware layout that does not fit names what limits it: the
#   LANai stack top (0x40000) when nic.sram is larger, else nic.sram.
#  item 15: mcp.nroutes = 0 (the default) sizes the route table from the
#   network: the 64-host traffic run that fails with 16 entries runs with the
#   default; more hosts than the table holds fail at load naming the key.
#  smaller things: bus.dma_rate, host.copy_rate and nic.clock take units
#   (the same run, the same hash); bench stream labels its time per packet;
#   no figure of reproduce seed001 is titled "latency: latency".
# Usage: bash nic_issue23.sh path/to/myri source_dir
. "$(dirname "$0")/lib/check.bash" "$@"

# every "busy" percentage of the text report is at most 100
busy_le_100() {
  grep -E '^ +busy: ' "$1" | grep -oE '[0-9]+(\.[0-9]+)? %' | awk '$1 > 100 { bad = 1; print "  " $0 " %" } END { exit bad }'
}

# ---- item 5: utilisation ------------------------------------------------------
if command -v cc >/dev/null 2>&1; then
  printf '#include <myri/prog.h>\nint myri_main(int argc, char **argv) { (void)argc; (void)argv; return 0; }\n' >"$tmp/quit.c"
  cc -std=c11 -shared -fPIC -I"$src/include" -o "$tmp/quit.so" "$tmp/quit.c" || bad "builds quit.c"
  want 0 "programs that exit at t = 0" -- "$myri" run "$src/scenarios/pingpong-user.yaml" --program "$tmp/quit.so"
  check "t = 0: busy is '-'" test "$(grep -c '^ *busy: - (no simulated time elapsed)' "$tmp/out")" -eq 2
  check "t = 0: no percentage" bash -c "! grep -E '^ *busy: .*%' '$tmp/out'"
  check "t = 0: says nothing was measured" grep -q '^nic      h0: no simulated time elapsed' "$tmp/out"
  want 0 "t = 0, JSON" -- "$myri" run "$src/scenarios/pingpong-user.yaml" --program "$tmp/quit.so" --json
  check "t = 0: JSON utilisations are null" grep -q '"util_cpu": *null' "$tmp/out"
  check "t = 0: no JSON utilisation is a number" bash -c "! grep -qE '\"util_[a-z_]+\": *[0-9]' '$tmp/out'"
else
  echo "no C compiler: the t = 0 checks skipped"
fi
"$myri" run "$src/scenarios/pingpong.yaml" --set bus.dma_rate=1 >"$tmp/slow" 2>&1
check "bus.dma_rate=1: the report has busy lines" grep -qE '^ +busy: CPU' "$tmp/slow"
check "bus.dma_rate=1: no utilisation above 100 %" busy_le_100 "$tmp/slow"
want 0 "pingpong.yaml" -- "$myri" run "$src/scenarios/pingpong.yaml"
check "pingpong.yaml: no utilisation above 100 %" busy_le_100 "$tmp/out"

# ---- item 11: what limits the firmware's SRAM ----------------------------------
want 2 "mcp.rx_pool=64 does not fit" -- "$myri" run "$src/scenarios/pingpong.yaml" --set mcp.rx_pool=64
check "the stack top limits, not nic.sram" grep -q 'does not fit below the LANai stack top at 0x40000' "$tmp/err"
check "no advice to enlarge nic.sram" bash -c "! grep -q 'nic.sram larger' '$tmp/err'"
want 2 "nic.sram=128KiB does not fit" -- "$myri" run "$src/scenarios/pingpong.yaml" --set mcp.rx_pool=20 --set nic.sram=128KiB
check "nic.sram limits: says so, up to the stack top" grep -q 'nic.sram larger (up to 0x40000' "$tmp/err"
want 0 "nic.sram=256KiB with the defaults runs" -- "$myri" run "$src/scenarios/pingpong.yaml" --set nic.sram=256KiB

# ---- item 15: the route table sized from the network ---------------------------
# (too small a table makes sends fail: traffic.errors, exit 1; the default runs clean, exit 0)
want 1 "64 hosts, traffic to all, mcp.nroutes=16: sends fail" -- \
  "$myri" run "$src/scenarios/fattree64-api.yaml" --set mcp.nroutes=16
check "mcp.nroutes=16: API errors on sends" grep -Eq '^ +traffic\.errors +[1-9]' "$tmp/out"
want 0 "64 hosts, the default mcp.nroutes: the run succeeds" -- "$myri" run "$src/scenarios/fattree64-api.yaml"
check "the default mcp.nroutes: no send fails" bash -c "! grep -Eq '^ +traffic\.errors +[1-9]' '$tmp/out' && grep -Eq '^ +traffic\.errors +0' '$tmp/out'"
check "the default is sized to 64 entries" grep -Eq '^ +mcp\.nroutes += 64$' "$tmp/out"
want 2 "4096 hosts: more than the table holds" -- "$myri" run "$src/scenarios/pingpong.yaml" \
  --set topology.generator=fat-tree --set topology.k=4 --set topology.n=6
check "names mcp.nroutes" grep -q '^mcp.nroutes: .*4096 hosts need 4096 entries, more than the 1024' "$tmp/err"

# ---- units on the three plain-number keys ---------------------------------------
hash_of() { grep -o '"hash": *"0x[0-9a-f]*"' "$1" | head -n 1; }
want 0 "pingpong.yaml, plain numbers" -- "$myri" run "$src/scenarios/pingpong.yaml" --json \
  --set bus.dma_rate=120e6 --set host.copy_rate=200e6 --set nic.clock=33e6
cp "$tmp/out" "$tmp/plain.json"
want 0 "pingpong.yaml, with units" -- "$myri" run "$src/scenarios/pingpong.yaml" --json \
  --set bus.dma_rate=120MB/s --set host.copy_rate=1.6Gb/s --set nic.clock=33MHz
check "units give the same run (hash)" test "$(hash_of "$tmp/out")" = "$(hash_of "$tmp/plain.json")"
check "a hash was read" test -n "$(hash_of "$tmp/out")"
want 2 "nic.clock=33MB/s is refused" -- "$myri" run "$src/scenarios/pingpong.yaml" --set nic.clock=33MB/s
check "  saying what it expects" grep -q "a frequency such as 33MHz" "$tmp/err"

# ---- bench stream: microseconds per packet are not a latency ----------------------
want 0 "bench stream" -- "$myri" bench stream
check "text column us_per_packet" grep -Eq '^bytes +us_per_packet +bandwidth_MB/s' "$tmp/out"
want 0 "bench stream --json" -- "$myri" bench stream --json
check "JSON us_per_packet" grep -q '"us_per_packet"' "$tmp/out"
check "JSON no latency_us" bash -c "! grep -q '\"latency_us\"' '$tmp/out'"

# ---- figure titles ----------------------------------------------------------------
want 0 "reproduce seed001 --figures" -- "$myri" reproduce seed001 --figures "$tmp/fig"
check "the small-packet figure's title" grep -q 'seed 001, small packets: latency' "$tmp/fig/seed001-latency-latency.svg"
check "no title says latency: latency" bash -c "! grep -q 'latency: latency' '$tmp'/fig/*.svg"

check_summary
