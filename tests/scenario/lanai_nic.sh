#!/usr/bin/env bash
# C firmware on the simulated NIC (issue 22, docs/LANAI.md "On the NIC"):
# `firmware: elf` links the objects of elf.objects into every NIC's SRAM and
# runs them on the LANai CPU.  firmware/lanai/examples/pingpong.c (compiled
# by the build with clang --target=lanai): h0's NIC sends 100 packets to h1,
# whose NIC echoes each back; the counters the program bumps by role give
# 200 good receives and 200 sends, 100 round trips, and the fabric delivers
# all 200; the results do not depend on elf.quantum (register accesses are
# exact) nor on the busy-wait fast-forward (h0's instructions, cycles and
# stalls the same, fewer events); a firmware that stores outside SRAM or touches an unknown register
# stops with a message naming the NIC, the program counter and the time, and
# the run goes on; bad elf.* input exits 2 with the reason.
# Without clang's Lanai target (no pingpong.o in the build): skipped (exit 77).
# usage: lanai_nic.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

obj=$(dirname "$myri")/firmware/lanai/examples/pingpong.o
scen() { # scen FILE OBJECTS...: a two-host system scenario running the objects
  local f=$1; shift
  { printf 'job: system\npreset: alpha-pci-1998\nseed: 1\nduration: 1ms\n'
    printf 'topology:\n  generator: star\n  hosts_per_switch: 2\nfirmware: elf\nelf:\n  objects: ['
    local sep=""; for o in "$@"; do printf '%s"%s"' "$sep" "$o"; sep=", "; done; printf ']\n'; } >"$f"
}

scen "$tmp/missing.yaml" "$tmp/none.o"
want 2 "missing object" -- "$myri" run "$tmp/missing.yaml"
check "missing object named with its position" grep -q "missing.yaml:[0-9]*:[0-9]*: elf.objects: cannot read '$tmp/none.o'" "$tmp/err"
printf 'hello' >"$tmp/text.o"
scen "$tmp/text.yaml" "$tmp/text.o"
want 2 "not an object" -- "$myri" run "$tmp/text.yaml"
check "not ELF named" grep -q "text.o: not an ELF file" "$tmp/err"

if [ ! -f "$obj" ]; then
  echo "skipped: no $obj (this myri was built without clang's Lanai target)"; check_summary; exit 77
fi

scen "$tmp/pp.yaml" "$obj"
want 0 "pingpong on the C firmware" -- "$myri" run "$tmp/pp.yaml"
check "counters by role: 200 received, 200 sent, 100 round trips" \
  grep -q "firmware elf counters (all NICs): rx_good 200 tx_sent 200 app 100 cpu_instructions [1-9]" "$tmp/out"
check "the fabric delivered all 200" grep -q "injected 200 = delivered 200 + misdelivered 0 + dropped 0" "$tmp/out"
check "h0 sent 100 packets" grep -A3 "^nic      h0" "$tmp/out" | grep -q "packets sent 100, windows received 100"
h64=$(grep '^hash' "$tmp/out")
want 0 "again" -- "$myri" run "$tmp/pp.yaml"
check "deterministic: the same hash" test "$(grep '^hash' "$tmp/out")" = "$h64"
want 0 "quantum 64" -- "$myri" run "$tmp/pp.yaml" --json
cp "$tmp/out" "$tmp/q64.json"
want 0 "quantum 1" -- "$myri" run "$tmp/pp.yaml" --json --set elf.quantum=1
for k in cpu_instructions cpu_cycles cpu_stalls app rx_good tx_sent; do
  check "h0's $k the same with quantum 1 and 64" test "$(num $k "$tmp/out")" = "$(num $k "$tmp/q64.json")"
done
# the busy-wait fast-forward: h0's NIC (which ends its loop before the run ends) runs the same
# instructions, cycles and stalls with it on and off, in fewer engine events
want 0 "fast-forward on" -- "$myri" run "$tmp/pp.yaml" --json
cp "$tmp/out" "$tmp/ff_on.json"
want 0 "fast-forward off" -- "$myri" run "$tmp/pp.yaml" --json --set elf.fast_forward=false
cp "$tmp/out" "$tmp/ff_off.json"
for k in cpu_instructions cpu_cycles cpu_stalls cpu_steps app rx_good tx_sent; do
  check "h0's $k the same with the fast-forward on and off" test "$(num $k "$tmp/ff_on.json")" = "$(num $k "$tmp/ff_off.json")"
done
check "h0 made 100 round trips" test "$(num app "$tmp/ff_on.json")" = 100
check "fewer events with the fast-forward" test "$(num events "$tmp/ff_on.json")" -lt "$(num events "$tmp/ff_off.json")"
want 2 "no entry" -- "$myri" run "$tmp/pp.yaml" --set elf.entry=nope
check "no entry named" grep -q "no function 'nope' in elf.objects" "$tmp/err"

command -v clang >/dev/null 2>&1 || { echo "skipped the fault runs: no clang"; check_summary; exit 0; }
cat >"$tmp/bad.c" <<'C'
int main(void)
{
    *(volatile unsigned *)0x80000000u = 1;
    return 0;
}
C
cat >"$tmp/badreg.c" <<'C'
int main(void)
{
    *(volatile unsigned *)0xFFFFFFC8u = 1;
    return 0;
}
C
clang --target=lanai -O2 -c "$tmp/bad.c" -o "$tmp/bad.o" && clang --target=lanai -O2 -c "$tmp/badreg.c" -o "$tmp/badreg.o"
scen "$tmp/bad.yaml" "$tmp/bad.o"
want 0 "a store outside SRAM stops the CPU, not myri" -- "$myri" run "$tmp/bad.yaml"
check "fault names NIC, pc, function and time" \
  grep -q "nic.h0: elf firmware stopped: store outside SRAM at pc 0x[0-9a-f]* (in main+0x[0-9a-f]*), address 0x80000000, at 0" "$tmp/err"
scen "$tmp/badreg.yaml" "$tmp/badreg.o"
want 0 "an unknown register stops the CPU" -- "$myri" run "$tmp/badreg.yaml"
check "refused register named" grep -q "nic.h1: elf firmware stopped: register access refused at pc .* address 0xffffffc8" "$tmp/err"
check_summary
