#!/usr/bin/env bash
# Interrupts on the LANai CPU (issue 22, docs/LANAI.md "Interrupts"): when
# ISR & IMR != 0 between two steps of the user context, the simulator saves
# the CPU's state and calls the program's lanai_isr as a function; its
# return puts the state back.  The C MCP's interrupt receive
# (elf.symbols {mcp_rx_interrupt: 1}: RECV_INT and BUFF_INT in IMR, the
# receive service in lanai_isr):
#   - pingpong.yaml: exit 0, nothing lost or corrupted (every byte checked),
#     one interrupt per packet received on each NIC; polled (the default):
#     no interrupt, the same packets;
#   - stream.yaml: 200 packets of 8 KiB, every byte checked, 200 interrupts on
#     the receiver.
# Without clang's Lanai target: skipped (exit 77).
# usage: lanai_interrupt.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

obj=$(dirname "$myri")/firmware/lanai/mcp/mcp.o
[ -f "$obj" ] || { echo "no $obj (no clang with the Lanai target): skipped"; exit 77; }

intr() { grep -o "windows received [0-9]*; interrupts [0-9]*" "$1" | awk '{print $3, $5}' | tr -d ';' | tr '\n' ' '; }
fig() { grep -E "^ +$1 " "$2" | awk '{print $2}' | tr '\n' ' '; }

want 0 "pingpong, interrupt receive" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf \
  --set 'elf.symbols={mcp_rx_interrupt: 1}'
cp "$tmp/out" "$tmp/int"
want 0 "pingpong, polled receive" -- "$myri" run "$src/scenarios/pingpong.yaml" --set firmware=elf
cp "$tmp/out" "$tmp/poll"
echo "interrupt: $(intr "$tmp/int")  polled: $(intr "$tmp/poll")"
check "one interrupt per packet received" [ "$(intr "$tmp/int")" = "132 132 132 132 " ]
check "no interrupt when polled" [ "$(intr "$tmp/poll")" = "132 0 132 0 " ]
check "nothing lost (interrupt)" [ "$(fig pingpong.lost "$tmp/int")" = "0 0 " ]
check "nothing corrupted (interrupt)" [ "$(fig pingpong.corrupted "$tmp/int")" = "0 0 " ]
check "every size measured (interrupt)" [ "$(grep -c 'pingpong\.[0-9]*\.latency_us' "$tmp/int")" -eq 6 ]

want 0 "stream, interrupt receive" -- "$myri" run "$src/scenarios/stream.yaml" --set firmware=elf \
  --set 'elf.symbols={mcp_rx_interrupt: 1}'
check "stream: 200 interrupts on the receiver" grep -q "windows received 200; interrupts 200;" "$tmp/out"
check "stream: nothing lost or corrupted" [ "$(fig stream.lost "$tmp/out")$(fig stream.corrupted "$tmp/out")" = "0 0 0 0 " ]

check_summary
