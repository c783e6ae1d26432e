#!/usr/bin/env bash
# SRAM contention of the LANai CPU with the DMA engines (issue 22, docs/LANAI.md
# "Costs"): the C MCP's loads and stores wait for the SRAM cycles the send and
# receive DMA take (elf.sram_contention, on by default).  On the stream
# (8 KiB packets, where the packet interface is busy most of the time):
#   - waits are charged (cpu_sram_waits > 0), never more than the CPU's SRAM
#     accesses nor the packet interface's words in the same steps (each step
#     waits min(accesses, words));
#   - the CPU's work (cpu_cycles - cpu_poll_cycles) with contention exceeds
#     the work without by the waits, within 5 % (the runs' timing differs a
#     little, so the work itself moves a little);
#   - the same waits, accesses, words, work cycles and program figures with
#     the busy-wait fast-forward on and off;
#   - elf.sram_contention=false charges none.
# Without clang's Lanai target: skipped (exit 77).
# usage: lanai_contention.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

obj=$(dirname "$myri")/firmware/lanai/mcp/mcp.o
[ -f "$obj" ] || { echo "no $obj (no clang with the Lanai target): skipped"; exit 77; }

ctr() { # ctr NAME FILE: a counter of the 'firmware elf counters' line (0 when absent)
  local v
  v=$(grep "firmware elf counters" "$2" | grep -o " $1 [0-9]*" | awk '{print $2}')
  echo "${v:-0}"
}
want 0 "stream, contention" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf
cat "$tmp/out" "$tmp/err" >"$tmp/on"
want 0 "stream, contention, no fast-forward" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf \
  --set elf.fast_forward=false
cat "$tmp/out" "$tmp/err" >"$tmp/onslow"
want 0 "stream, no contention" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf \
  --set elf.sram_contention=false
cat "$tmp/out" "$tmp/err" >"$tmp/off"

w=$(ctr cpu_sram_waits "$tmp/on"); m=$(ctr cpu_sram_accesses "$tmp/on"); b=$(ctr cpu_dma_words "$tmp/on")
work_on=$(( $(ctr cpu_cycles "$tmp/on") - $(ctr cpu_poll_cycles "$tmp/on") ))
work_off=$(( $(ctr cpu_cycles "$tmp/off") - $(ctr cpu_poll_cycles "$tmp/off") ))
echo "waits $w accesses $m dma_words $b work with $work_on without $work_off"
check "waits charged" [ "$w" -gt 0 ]
check "waits <= accesses" [ "$w" -le "$m" ]
check "waits <= DMA words" [ "$w" -le "$b" ]
check "no waits without contention" [ "$(ctr cpu_sram_waits "$tmp/off")" -eq 0 ]
check "work with contention > without" [ "$work_on" -gt "$work_off" ]
d=$((work_on - work_off))
check "the difference is the waits (5 %)" [ $((d * 100)) -ge $((w * 95)) -a $((d * 100)) -le $((w * 105)) ]

for k in cpu_sram_waits cpu_sram_accesses cpu_dma_words rx_good tx_sent; do
  check "$k the same with the fast-forward off" [ "$(ctr $k "$tmp/on")" = "$(ctr $k "$tmp/onslow")" ]
done
work_slow=$(( $(ctr cpu_cycles "$tmp/onslow") - $(ctr cpu_poll_cycles "$tmp/onslow") ))
check "work cycles the same with the fast-forward off" [ "$work_on" -eq "$work_slow" ]
bw() { grep -E "^ +stream.(bandwidth_MBps|time_us) " "$1"; }
check "stream figures the same with the fast-forward off" [ "$(bw "$tmp/on")" = "$(bw "$tmp/onslow")" ]
check "stream bandwidth reported" [ -n "$(bw "$tmp/on")" ]

check_summary
