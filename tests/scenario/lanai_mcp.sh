#!/usr/bin/env bash
# Seed 001's MCP in C on the LANai CPU (issue 22, docs/LANAI.md "The C MCP"):
# firmware/lanai/mcp/mcp.c, built with clang --target=lanai and the default
# elf.objects, runs the unchanged host API and built-in programs:
#   - pingpong.yaml and stream.yaml with --set firmware=elf: exit 0, every
#     size measured, nothing lost or corrupted (every byte checked), the
#     fabric delivers all; the same through --firmware build/.../mcp.o;
#   - the latency program (every size) and the traffic program on four hosts
#     (nothing lost, reordered or corrupted); bench latency with firmware=elf:
#     every size, latency never falls;
#   - the differential run: tests/lanai/mcp_diff.c (a user program: every host
#     sends 40 messages of 2..3000 bytes to peers drawn from its own
#     generator, so the traffic is the same on both firmwares) on four hosts
#     with firmware mcp and elf: every host receives from every source the
#     packets of the plan in their order with their bytes (in_order 1,
#     errors 0), and the two runs report the same counts and digests;
#   - a stream over a bad link: the C MCP drops the CRC-bad packets the table
#     MCP drops (the same count), each one loss of the program, exit 1;
#   - the VCD has the fw_pc and fw_function lanes of each NIC;
#   - elf.profile writes one profile per NIC without changing the run, and
#     tools/lanai_profile.py sums it by source function (mcp.c built with -g);
#   - the C MCP counts by role (rx_good, tx_sent) as the tables do, and its
#     CPU's work (cpu_cycles - cpu_poll_cycles) per packet is reported;
#   - examples/firmware/echo.c, built against the headers `make install`
#     ships (staged in the build), echoes 50 packets whole; elf.symbols sets
#     its echo_rounds; a symbol it lacks or a bad number exits 2, named;
#   - --firmware misuse exits 2.
# Without clang's Lanai target (no mcp.o in the build): skipped (exit 77).
# usage: lanai_mcp.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

obj=$(dirname "$myri")/firmware/lanai/mcp/mcp.o
[ -f "$obj" ] || { echo "no $obj (no clang with the Lanai target): skipped"; exit 77; }

fig() { # fig KEY FILE: the values of a figure, one a line
  grep -E "^ +$1 " "$2" | awk '{print $2}'
}

# ---- pingpong and stream, unchanged programs and API ----------------------------
want 0 "pingpong on the C MCP" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf
cp "$tmp/out" "$tmp/pp"
check "firmware elf named" grep -q '^system .*firmware elf' "$tmp/pp"
for size in 4 64 256 1024 4096 8192; do
  check "pingpong $size B measured" grep -Eq "^ +pingpong\.$size\.latency_us +[0-9]" "$tmp/pp"
done
check "pingpong nothing lost" [ "$(fig pingpong.lost "$tmp/pp" | sort -u)" = 0 ]
check "pingpong nothing corrupted" [ "$(fig pingpong.corrupted "$tmp/pp" | sort -u)" = 0 ]
check "pingpong 132 received each" [ "$(fig pingpong.received "$tmp/pp" | sort -u)" = 132 ]
check "fabric delivers all" grep -q '^fabric   injected 264 = delivered 264 ' "$tmp/pp"
check "roles counted" grep -Eq '^firmware elf counters .*rx_good 264 tx_sent 264 ' "$tmp/pp"
check "poll cycles counted" grep -Eq 'cpu_poll_cycles [1-9]' "$tmp/pp"

want 0 "the same through --firmware" -- "$myri" run "$src/scenarios/pingpong.yaml" --firmware "$obj"
check "--firmware gives the same run" [ "$(grep '^hash' "$tmp/out")" = "$(grep '^hash' "$tmp/pp")" ]

want 0 "stream on the C MCP" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf
cp "$tmp/out" "$tmp/stream"
check "stream 200 received" [ "$(fig stream.received "$tmp/out" | sort -n | tail -1)" = 200 ]
check "stream nothing lost or corrupted" [ "$(fig 'stream.(lost|corrupted|errors)' "$tmp/out" | sort -u)" = 0 ]
check "stream bandwidth" grep -Eq '^ +stream\.bandwidth_MBps +[1-9][0-9]' "$tmp/out"

# ---- the VCD: the program counter and the function, 32-bit lanes of each NIC -------------
want 0 "a VCD of the C MCP" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf --vcd "$tmp/e.vcd"
check "fw_pc and fw_function lanes on both NICs" [ "$(grep -cE '^\$var wire 32 [^ ]+ fw_(pc|function) ' "$tmp/e.vcd")" -eq 4 ]
pcid=$(grep -m1 -E '^\$var wire 32 [^ ]+ fw_pc ' "$tmp/e.vcd" | awk '{print $4}')
fnid=$(grep -m1 -E '^\$var wire 32 [^ ]+ fw_function ' "$tmp/e.vcd" | awk '{print $4}')
check "the pc moves" [ "$(grep -cF " $pcid" "$tmp/e.vcd")" -gt 100 ]
check "the function lane names _start then main (0x10, linked first)" grep -qx "b10000 $fnid" "$tmp/e.vcd"

# ---- elf.profile and tools/lanai_profile.py -------------------------------------------------
want 0 "pingpong with a profile" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf --set elf.profile="$tmp/prof"
check "a profile changes nothing" [ "$(grep '^hash' "$tmp/out")" = "$(grep '^hash' "$tmp/pp")" ]
check "one profile per NIC" test -s "$tmp/prof.nic.h0" -a -s "$tmp/prof.nic.h1"
check "each word with its disassembly" grep -q "$(printf '\tld\t')" "$tmp/prof.nic.h0"
insns=$(grep -o 'cpu_instructions [0-9]*' "$tmp/out" | awk '{print $2}')
pins=$(awk '!/^#/ {s += $2} END {print s + 0}' "$tmp/prof.nic.h0" "$tmp/prof.nic.h1")
check "the profile holds the instructions executed ($pins of $insns; the fast-forward's passes are not executed)" \
  [ "$pins" -gt 100000 -a "$pins" -le "${insns:-0}" ]
if command -v llvm-symbolizer >/dev/null && command -v llvm-nm >/dev/null && command -v python3 >/dev/null &&
   clang --target=lanai -O2 -ffreestanding -fno-builtin -g -I"$src/firmware/lanai/runtime" -I"$src/src" \
     -c "$src/firmware/lanai/mcp/mcp.c" -o "$tmp/mcp_g.o" 2>/dev/null; then
  want 0 "lanai_profile.py by source function" -- python3 "$src/tools/lanai_profile.py" --object "$tmp/mcp_g.o" --per 264 "$tmp/prof.nic.h0" "$tmp/prof.nic.h1"
  check "the host-DMA, send-DMA and receive services named" grep -q '^hdma_step ' "$tmp/out"
  check "... and the send DMA" grep -q '^sdma_step ' "$tmp/out"
  check "... the leaves: the counters, the header verdict" grep -q '^verdict ' "$tmp/out"
  check "the totals are the profile's" grep -q "^total  *$pins " "$tmp/out"
fi

# ---- drops counted by reason: a stream over a bad link ---------------------------------------
want 1 "stream over a bad link (table MCP)" -- "$myri" run "$src/scenarios/stream.yaml" --set link.ber=2e-7
tcrc=$(grep -o 'drop_crc [0-9]*' "$tmp/out" | awk '{print $2}')
want 1 "stream over a bad link (C MCP: the losses counted, exit 1)" -- "$myri" run "$src/scenarios/stream.yaml" --set link.ber=2e-7 --set firmware=elf
ccrc=$(grep -o 'rx_crc [0-9]*' "$tmp/out" | awk '{print $2}')
check "the C MCP drops the CRC-bad packets the table MCP drops (${ccrc:-none} = ${tcrc:-none})" [ "${ccrc:-0}" -gt 0 -a "${ccrc:-0}" = "${tcrc:-x}" ]
check "each is one loss of the program" [ "$(fig stream.lost "$tmp/out" | awk '{s += $1} END {print s}')" = "$ccrc" ]

# ---- the latency and traffic programs ---------------------------------------------------------
want 0 "the latency program on the C MCP" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf \
  --set 'programs=[{program: latency, hosts: [h0, h1]}]'
for size in 4 16 64 128 256 512 1024; do
  check "latency $size B measured" grep -Eq "^ +latency\.$size\.latency_us +[0-9]" "$tmp/out"
done
check "latency: nothing lost or corrupted" [ "$(fig 'latency.(lost|corrupted|errors)' "$tmp/out" | sort -u)" = 0 ]
printf 'job: system\npreset: alpha-pci-1998\nseed: 7\ntopology:\n  generator: star\n  hosts_per_switch: 4\n' >"$tmp/four.yaml"
want 0 "the traffic program on four hosts" -- "$myri" run "$tmp/four.yaml" --set firmware=elf \
  --set 'programs=[{program: traffic, hosts: [h0, h1, h2, h3], args: [size=600, interval_us=40, duration_us=3000, drain_us=2000]}]'
check "traffic: nothing lost, reordered or corrupted" [ "$(fig 'traffic.(lost|corrupted|errors|reordered)' "$tmp/out" | sort -u)" = 0 ]
check "traffic: every packet sent received" [ "$(fig traffic.sent "$tmp/out" | awk '{s += $1} END {print s}')" = "$(fig traffic.received "$tmp/out" | awk '{s += $1} END {print s}')" ]

# ---- latency per size --------------------------------------------------------------
want 0 "bench latency on the C MCP" -- "$myri" bench latency --set firmware=elf
mono() { awk '$1 ~ /^[0-9]+$/ { if (n && $2 < prev - 0.1) bad = 1; prev = $2; n++ } END { exit bad || n < 5 }' "$tmp/out"; }
check "latency never falls with size" mono

# ---- the differential run ---------------------------------------------------------------
if cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -I"$src/include" -o "$tmp/diff.so" "$src/tests/lanai/mcp_diff.c" 2>"$tmp/cc"; then
  printf 'job: system\npreset: alpha-pci-1998\nseed: 3\ntopology:\n  generator: star\n  hosts_per_switch: 4\nprograms:\n  - program: user\n    hosts: [h0, h1, h2, h3]\n' >"$tmp/diff.yaml"
  for fw in mcp elf; do
    want 0 "differential traffic on $fw" -- "$myri" run "$tmp/diff.yaml" --program "$tmp/diff.so" --set firmware=$fw
    grep -E '^program|^ +diff\.' "$tmp/out" >"$tmp/diff.$fw"
    check "$fw: 12 sources in order with their bytes" [ "$(grep -cE 'diff\.from[0-9]+\.in_order +1$' "$tmp/diff.$fw")" -eq 12 ]
    check "$fw: no byte wrong" [ "$(fig diff.errors "$tmp/diff.$fw" | sort -u)" = 0 ]
    check "$fw: 40 sent each" [ "$(fig diff.sent "$tmp/diff.$fw" | sort -u)" = 40 ]
  done
  check "both MCPs deliver the same payloads in the same order" cmp -s "$tmp/diff.mcp" "$tmp/diff.elf"
else
  cat "$tmp/cc"; bad "the differential program compiles"
fi

# ---- your own firmware: examples/firmware/echo.c against the staged headers, its parameter -------
inc=$(dirname "$myri")/stage/include/myri/lanai
if [ -f "$inc/lanai_nic.h" ] && clang --target=lanai -O2 -ffreestanding -fno-builtin -Wall -Wextra -Werror -I"$inc" \
     -c "$src/examples/firmware/echo.c" -o "$tmp/echo.o"; then
  want 0 "the echo firmware" -- "$myri" run "$src/examples/firmware/echo.yaml" --firmware "$tmp/echo.o"
  check "50 echoes whole" grep -Eq '^firmware elf counters .*rx_good 100 tx_sent 100 app 50 ' "$tmp/out"
  want 0 "elf.symbols sets its parameter" -- "$myri" run "$src/examples/firmware/echo.yaml" --firmware "$tmp/echo.o" --set elf.symbols.echo_rounds=20
  check "20 echoes" grep -Eq '^firmware elf counters .*rx_good 40 tx_sent 40 app 20 ' "$tmp/out"
  want 2 "a symbol the program lacks" -- "$myri" run "$src/examples/firmware/echo.yaml" --firmware "$tmp/echo.o" --set elf.symbols.nope=1
  check "named with its place" grep -q "^--set:1:13: elf.symbols: 'nope' is not a global word" "$tmp/err"
  want 2 "a value that is not a number" -- "$myri" run "$src/examples/firmware/echo.yaml" --firmware "$tmp/echo.o" --set elf.symbols.echo_rounds=abc
  check "named with its place" grep -q "elf.symbols.echo_rounds: expected a number" "$tmp/err"
else
  bad "examples/firmware/echo.c builds against the staged headers"
fi

# ---- misuse ------------------------------------------------------------------------------
# ---- the mcp.* keys reach the C MCP (its geometry filled at load) -------------------
pio_writes() { grep -m1 -o 'PIO reads [0-9]*, writes [0-9]*' "$1" | awk '{print $5}'; }
lat4() { fig pingpong.4.latency_us "$1" | head -1; }
for fw in mcp elf; do
  want 0 "mcp.pio_bytes=0 on $fw" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=$fw --set mcp.pio_bytes=0
  cp "$tmp/out" "$tmp/p0.$fw"
  check "pio_bytes=0 on $fw: nothing lost or corrupted" [ "$(fig 'pingpong.(lost|corrupted)' "$tmp/p0.$fw" | sort -u)" = 0 ]
  want 1 "mcp.mtu=1KiB on $fw" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=$fw --set mcp.mtu=1KiB
  check "mtu 1 KiB on $fw: 4096 B refused as too long" grep -q 'pingpong.4096.error *-12 (MYRI_API0_ETOOLONG' "$tmp/out"
  check "mtu 1 KiB on $fw: 1024 B measured" grep -Eq '^ +pingpong\.1024\.latency_us +[0-9]' "$tmp/out"
  want 1 "mcp.nchan=1 on $fw" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=$fw --set mcp.nchan=1
  check "nchan 1 on $fw: the program's channel refused" grep -q 'setup_error *-5 (MYRI_API0_EBADCHAN' "$tmp/out"
done
check "pio_bytes=0: the C MCP's PIO writes are the table MCP's" [ "$(pio_writes "$tmp/p0.elf")" = "$(pio_writes "$tmp/p0.mcp")" ]
check "pio_bytes=0: fewer PIO writes than with PIO sends" [ "$(pio_writes "$tmp/p0.elf")" -lt "$(pio_writes "$tmp/pp")" ]
check "pio_bytes=0: 4 B slower without PIO (C MCP)" awk -v a="$(lat4 "$tmp/p0.elf")" -v b="$(lat4 "$tmp/pp")" 'BEGIN{exit !(a > b)}'
small='programs=[{program: stream, hosts: [h0, h1], args: [count=400, size=64, window=64]}]'
want 0 "small stream, default rx pool" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf --set "$small"
check "default rx pool: nothing lost" [ "$(fig stream.lost "$tmp/out" | sort -u)" = 0 ]
want 1 "small stream, mcp.rx_pool=2" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf --set "$small" --set mcp.rx_pool=2
check "rx_pool 2: packets dropped (rx_other) and lost" grep -Eq '^firmware elf counters .*rx_other [1-9]' "$tmp/out"
want 0 "stream, mcp.tx_pool=2" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf --set mcp.tx_pool=2
bw2=$(fig stream.bandwidth_MBps "$tmp/out" | sort -n | tail -1)
bw=$(fig stream.bandwidth_MBps "$tmp/stream" | sort -n | tail -1)
check "tx_pool 2 (one usable): less bandwidth ($bw2 < $bw MB/s)" awk -v a="$bw2" -v b="$bw" 'BEGIN{exit !(a < b)}'
want 0 "mcp.recv_mode=interrupt on the C MCP" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf --set mcp.recv_mode=interrupt
check "recv_mode interrupt: one interrupt per packet" grep -q 'windows received 132; interrupts 132;' "$tmp/out"
check "recv_mode not given: polled" grep -q 'windows received 132; interrupts 0;' "$tmp/pp"
want 2 "a key the C MCP cannot honour" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf --set mcp.policy=old
check "policy old refused, named" grep -q 'mcp.policy: the C MCP has only the policy "new"' "$tmp/err"
want 2 "buffers beyond SRAM" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf --set mcp.mtu=1MiB --set mcp.rx_pool=64
check "buffers beyond SRAM: said" grep -q 'more than the [0-9]* bytes of nic.sram' "$tmp/err"
printf 'job: system\nfirmware: elf\nelf:\n  objects: [%s]\nmcp:\n  nchan: 2\nprograms: [{program: pingpong, hosts: [h0, h1]}]\n' "$obj" >"$tmp/user.yaml"
want 2 "an mcp section with user objects" -- "$myri" run "$tmp/user.yaml"
check "user objects: refused at FILE:LINE:COL" grep -q "user.yaml:6:3: mcp: the mcp.\* keys set the built-in C MCP" "$tmp/err"

want 2 "--firmware without a value" -- "$myri" run "$src/scenarios/pingpong.yaml" --firmware
check "says what it needs" grep -q "option '--firmware' needs a value" "$tmp/err"
want 2 "--firmware with a comma" -- "$myri" run "$src/scenarios/pingpong.yaml" --firmware a,b.o
want 2 "--firmware with a fabric job" -- "$myri" run "$src/scenarios/single-flow.yaml" --firmware "$obj"
check "fabric job refused" grep -q -- "--firmware is taken by the system job only" "$tmp/err"
want 2 "--firmware with a missing file" -- "$myri" run "$src/scenarios/pingpong.yaml" --firmware "$tmp/none.o"
check "names --firmware and the file" grep -q -- "--firmware $tmp/none.o: cannot read" "$tmp/err"
# a firmware that cannot be created says why once, through the run's error (no second, empty line)
printf 'job: system\npreset: alpha-pci-1998\nduration: 1ms\ntopology:\n  generator: star\n  hosts_per_switch: 2\nfirmware: elf\nelf:\n  objects: [%s]\n  entry: nope\n' "$obj" >"$tmp/noentry.yaml"
want 2 "an entry that is not there" -- "$myri" run "$tmp/noentry.yaml"
check "said once, on one line" [ "$(cat "$tmp/err")" = "myri: firmware elf: no function 'nope' in elf.objects (elf.entry)" ]
check_summary
