#!/usr/bin/env bash
# `myri lanai run` (issue 22, docs/LANAI.md): the test programs of
# tests/lanai/progs (sorting, CRC-8/CRC-32, checksums, arithmetic on every
# width through the multiply/divide/shift helpers, printf-like output, ...)
# print and return the same on the simulated LANai (clang --target=lanai at
# -O0, -O2 and -Os) as compiled natively; several objects link, a program's
# own definition wins over the runtime's; the loader applies every
# relocation type (tests/lanai/relocs.s; R_LANAI_21_F and R_LANAI_NONE by
# patching a relocation's type) and refuses unknown types, overflows,
# undefined and twice-defined symbols naming file, section, offset and
# symbol; a run past --max-cycles, an illegal instruction and an access
# outside SRAM end with exit 1 naming the program counter and the function;
# bad input exits 2.  Without clang's Lanai target: skipped (exit 77).
# usage: lanai_run.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

want 0 "lanai --help" -- "$myri" lanai --help
check "help names run and disasm" grep -q 'myri lanai disasm FILE.o' "$tmp/out"
want 2 "lanai without action" -- "$myri" lanai
want 2 "lanai unknown action" -- "$myri" lanai go x.o
want 2 "run without objects" -- "$myri" lanai run
want 2 "run missing file" -- "$myri" lanai run "$tmp/none.o"
want 2 "run an endless file: refused past 64 MiB, memory bounded" -- "$myri" lanai run /dev/zero
printf 'hello' >"$tmp/text.o"
want 2 "run not ELF" -- "$myri" lanai run "$tmp/text.o"
check "not ELF named" grep -q "text.o: not an ELF file" "$tmp/err"

for tool in clang llvm-mc cc; do
  command -v $tool >/dev/null 2>&1 || { echo "skipped: $tool not installed (Debian packages clang, llvm)"; check_summary; exit 77; }
done
clang --target=lanai -x c -c /dev/null -o "$tmp/probe.o" 2>/dev/null ||
  { echo "skipped: clang has no Lanai target"; check_summary; exit 77; }
"$myri" lanai run "$tmp/probe.o" >/dev/null 2>"$tmp/err"
if grep -q 'built without the LANai runtime' "$tmp/err"; then
  echo "skipped: this myri was built without the LANai runtime"; check_summary; exit 77
fi

inc="-I$src/firmware/lanai/runtime -I$src/tests/lanai/progs"
lanai_cc() { clang --target=lanai -Wall -Werror $inc "$@"; }

# The test programs: the same output and return value as native code.
for p in "$src"/tests/lanai/progs/*.c; do
  name=$(basename "$p" .c)
  [ "$name" = native_main ] && continue
  cc -std=c11 -O2 -I"$src/tests/lanai/progs" "$p" "$src/tests/lanai/progs/native_main.c" -o "$tmp/$name.native" &&
    "$tmp/$name.native" >"$tmp/$name.want" || { bad "native $name"; continue; }
  for opt in -O0 -O2 -Os; do
    lanai_cc $opt -c "$p" -o "$tmp/$name.o" || { bad "compile $name $opt"; continue; }
    "$myri" lanai run "$tmp/$name.o" --entry test_main >"$tmp/$name.got" 2>"$tmp/err" || { bad "run $name $opt"; cat "$tmp/err"; continue; }
    grep -v -E '^(instructions|cycles|stalls): ' "$tmp/$name.got" >"$tmp/$name.cmp"
    check "$name $opt: LANai output and return value as native" diff "$tmp/$name.want" "$tmp/$name.cmp"
    check "$name $opt: counts printed" grep -q '^cycles: [1-9]' "$tmp/$name.got"
  done
done

# JSON.
lanai_cc -O2 -c "$src/tests/lanai/progs/crc.c" -o "$tmp/crc.o"
want 0 "run --json" -- "$myri" lanai run "$tmp/crc.o" --entry test_main --json
check "json: return value" grep -q '"return_value":1906819969' "$tmp/out"
check "json: console" grep -q '"console":"crc8(check) f4 crc32(check) cbf43926' "$tmp/out"
check "json: cycles >= instructions + stalls" awk -F'[:,]' '{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
  END { exit !(v["\"cycles\""] == v["\"instructions\""] + v["\"stalls\""]) }' "$tmp/out"

# Several objects; the program's own __mulsi3 wins over the runtime's.
cat >"$tmp/a.c" <<'C'
int helper(int x) { return x + 1; }
int __mulsi3(int a, int b) { return a + b + 1000; }
C
cat >"$tmp/b.c" <<'C'
int helper(int x);
volatile int six = 6, seven = 7;
int main(void) { return helper(six * seven); }
C
lanai_cc -O2 -c "$tmp/a.c" -o "$tmp/a.o" && lanai_cc -O2 -c "$tmp/b.c" -o "$tmp/b.o"
want 0 "run two objects" -- "$myri" lanai run "$tmp/b.o" "$tmp/a.o"
check "the program's __mulsi3 wins (6*7 -> 1013 + 1)" grep -q '^return value: 1014 ' "$tmp/out"
want 2 "a symbol defined twice" -- "$myri" lanai run "$tmp/b.o" "$tmp/a.o" "$tmp/a.o"
check "twice: named" grep -q "symbol 'helper' is defined twice" "$tmp/err"
want 2 "undefined symbol" -- "$myri" lanai run "$tmp/b.o"
check "undefined: file, section, offset, symbol" grep -q "b.o: section .text offset 0x[0-9a-f]*: undefined symbol 'helper'" "$tmp/err"
want 2 "missing entry" -- "$myri" lanai run "$tmp/b.o" "$tmp/a.o" --entry nosuch
check "missing entry named" grep -q "no function 'nosuch'" "$tmp/err"

# Small data: .sdata and .sbss (clang puts small globals there on request), reached by SLS/SLI.
cat >"$tmp/sd.c" <<'C'
int small_a = 5; int small_b; static short tiny = 3;
int main(void) { small_b = small_a * 2 + tiny; tiny++; return small_b + tiny; }
C
lanai_cc -O2 -mllvm -lanai-ssection-threshold=8 -c "$tmp/sd.c" -o "$tmp/sd.o"
check "sd.o has .sdata and .sbss" sh -c "llvm-readelf -S '$tmp/sd.o' | grep -q '\.sdata' && llvm-readelf -S '$tmp/sd.o' | grep -q '\.sbss'"
want 0 "small data sections" -- "$myri" lanai run "$tmp/sd.o"
check "small data: 5 * 2 + 3 + 4" grep -q '^return value: 17 ' "$tmp/out"

# Every relocation type.
llvm-mc -triple=lanai -filetype=obj "$src/tests/lanai/relocs.s" -o "$tmp/rel.o"
want 0 "relocations: HI16 LO16 21 32 25" -- "$myri" lanai run "$tmp/rel.o" --entry reloc_main
check "relocations: all reached target" grep -q '^return value: 0 ' "$tmp/out"
# patch_type FILE INDEX TYPE: sets the type of relocation INDEX of .rela.text
patch_type() {
  local off
  off=$((16#$(llvm-readelf -S "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == ".rela.text") print $(i + 3) }')))
  printf "$(printf '\\%03o' "$3")" | dd of="$1" bs=1 seek=$((off + 12 * $2 + 7)) conv=notrunc status=none
}
cp "$tmp/rel.o" "$tmp/rel21f.o" && patch_type "$tmp/rel21f.o" 2 2
want 0 "relocation R_LANAI_21_F" -- "$myri" lanai run "$tmp/rel21f.o" --entry reloc_main
check "R_LANAI_21_F: the load still reaches target" grep -q '^return value: 0 ' "$tmp/out"
cp "$tmp/rel.o" "$tmp/relnone.o" && patch_type "$tmp/relnone.o" 2 0
want 0 "relocation R_LANAI_NONE (field left as is)" -- "$myri" lanai run "$tmp/relnone.o" --entry reloc_main
check "R_LANAI_NONE: the load reads address 0" grep -q -v '^return value: 0 ' "$tmp/out"
cp "$tmp/rel.o" "$tmp/relbad.o" && patch_type "$tmp/relbad.o" 2 200
want 2 "unknown relocation type" -- "$myri" lanai run "$tmp/relbad.o" --entry reloc_main
check "unknown type: file, section, offset, symbol" grep -q "relbad.o: section .text offset 0x10: unknown relocation type 200 (symbol 'target')" "$tmp/err"
printf '\t.text\n\t.globl f\nf:\n\tmov big, %%r3\n\tbt f+0x2000000\n\tnop\n\t.bss\npad:\t.space 0x200000\nbig:\t.long 0\n' >"$tmp/ovf.s"
llvm-mc -triple=lanai -filetype=obj "$tmp/ovf.s" -o "$tmp/ovf.o"
want 2 "R_LANAI_21 overflow" -- "$myri" lanai run "$tmp/ovf.o" --entry f --sram 4194304
check "overflow named" grep -q "ovf.o: section .text offset 0x0: R_LANAI_21 overflow: 'big' = 0x2" "$tmp/err"
printf '\t.text\n\t.globl f\nf:\n\tbt f+0x2000000\n\tnop\n' >"$tmp/ovf25.s"
llvm-mc -triple=lanai -filetype=obj "$tmp/ovf25.s" -o "$tmp/ovf25.o"
want 2 "R_LANAI_25 overflow" -- "$myri" lanai run "$tmp/ovf25.o" --entry f
check "R_LANAI_25 overflow named" grep -q "R_LANAI_25 overflow: 'f'" "$tmp/err"

# Faults end the run with exit 1, naming the program counter and function.
cat >"$tmp/f.c" <<'C'
volatile int sink;
int spin(void) { for (;;) sink++; }
int ill(void) { __asm__ volatile(".long 0xd0000000"); return 0; }
int far(void) { *(volatile int *)0x800000 = 1; return 0; }
int reg(void) { return *(volatile int *)0xFFFFFF34u; }
C
lanai_cc -O2 -c "$tmp/f.c" -o "$tmp/f.o"
want 1 "--max-cycles" -- "$myri" lanai run "$tmp/f.o" --entry spin --max-cycles 5000
check "max-cycles: pc and function" grep -q 'stopped after --max-cycles 5000 cycles at pc 0x[0-9a-f]* (in spin+0x' "$tmp/err"
check "max-cycles: counts printed" grep -q '^cycles: 500[0-9]$' "$tmp/out"
want 1 "illegal instruction" -- "$myri" lanai run "$tmp/f.o" --entry ill
check "illegal: pc and function" grep -q 'illegal instruction at pc 0x[0-9a-f]* (in ill+0x' "$tmp/err"
want 1 "store outside SRAM" -- "$myri" lanai run "$tmp/f.o" --entry far
check "outside SRAM: address, pc, function" grep -q 'store outside SRAM (address 0x00800000) at pc 0x[0-9a-f]* (in far+0x' "$tmp/err"
want 1 "LANai register without a NIC" -- "$myri" lanai run "$tmp/f.o" --entry reg
check "register refused named" grep -q 'register access refused (address 0xffffff34)' "$tmp/err"
want 0 "a larger SRAM" -- "$myri" lanai run "$tmp/b.o" "$tmp/a.o" --sram 4194304
want 2 "--sram not a multiple of 4" -- "$myri" lanai run "$tmp/b.o" --sram 5000
want 2 "unknown option" -- "$myri" lanai run "$tmp/b.o" --fast

# Bad objects: wrong machine, truncated.
cc -c -x c /dev/null -o "$tmp/native.o"
want 2 "wrong machine" -- "$myri" lanai run "$tmp/native.o"
check "wrong machine named" grep -q 'native.o: \(not a 32-bit big-endian ELF file\|wrong machine\)' "$tmp/err"
head -c 300 "$tmp/crc.o" >"$tmp/trunc.o"
want 2 "truncated object" -- "$myri" lanai run "$tmp/trunc.o"
check "truncated named" grep -q 'trunc.o: truncated' "$tmp/err"
want 2 "disasm truncated" -- "$myri" lanai disasm "$tmp/trunc.o"

check_summary
