#!/usr/bin/env bash
# The LANai decoder and disassembler against LLVM (issue 22, docs/LANAI.md):
# `myri lanai disasm` prints exactly what llvm-objdump -d prints for objects
# compiled by clang --target=lanai (the test programs at -O0, -O2, -Os, the
# runtime) and for tests/lanai/forms.s (every instruction form, assembled by
# llvm-mc); 6000 random instruction words (fields biased towards the
# special cases) whose disassembly myri calls legal are printed the same,
# and those it calls illegal are <unknown> to llvm-objdump too (each in its
# own section: llvm-objdump 14 skips one byte after some unknown words, and
# crashes on RRM words with a reserved shift code, which are kept out).
# Without clang, llvm-mc and llvm-objdump: skipped (exit 77).
# usage: lanai_disasm.sh PATH/TO/myri SOURCE_DIR
set -u
. "$(dirname "$0")/lib/check.bash" "$@"

want 2 "disasm without file" -- "$myri" lanai disasm
want 2 "disasm missing file" -- "$myri" lanai disasm "$tmp/none.o"
printf 'not an object' >"$tmp/text.o"
want 2 "disasm not ELF" -- "$myri" lanai disasm "$tmp/text.o"
check "not ELF named" grep -q 'text.o: not an ELF file' "$tmp/err"

for tool in clang llvm-mc llvm-objdump; do
  command -v $tool >/dev/null 2>&1 || { echo "skipped: $tool not installed (Debian packages clang, llvm)"; check_summary; exit 77; }
done
clang --target=lanai -x c -c /dev/null -o "$tmp/probe.o" 2>/dev/null ||
  { echo "skipped: clang has no Lanai target"; check_summary; exit 77; }

same_as_objdump() { # same_as_objdump FILE.o: myri's disassembly equals llvm-objdump's
  llvm-objdump -d "$1" >"$tmp/ref.txt" 2>/dev/null || return 1
  "$myri" lanai disasm "$1" >"$tmp/mine.txt" || return 1
  diff "$tmp/ref.txt" "$tmp/mine.txt" >"$tmp/diff.txt" || { head -20 "$tmp/diff.txt"; return 1; }
}

inc="-I$src/firmware/lanai/runtime -I$src/tests/lanai/progs"
for p in "$src"/tests/lanai/progs/*.c "$src"/firmware/lanai/runtime/*.c; do
  name=$(basename "$p" .c)
  [ "$name" = native_main ] && continue
  for opt in -O0 -O2 -Os; do
    clang --target=lanai $opt -ffreestanding $inc -c "$p" -o "$tmp/$name$opt.o" || { bad "compile $name $opt"; continue; }
    check "disasm $name $opt as llvm-objdump" same_as_objdump "$tmp/$name$opt.o"
  done
done
llvm-mc -triple=lanai -filetype=obj "$src/tests/lanai/forms.s" -o "$tmp/forms.o"
check "disasm forms.s (every form) as llvm-objdump" same_as_objdump "$tmp/forms.o"

# Random words: a fixed LCG; each field zeroed, set to all ones or left random.
awk 'BEGIN {
  s = 20261127; print ".text"
  for (i = 0; i < 6000; i++) {
    s = (s * 69069 + 1) % 4294967296; hi = int(s / 65536)
    s = (s * 69069 + 1) % 4294967296; lo = int(s / 65536)
    w = hi * 65536 + lo
    s = (s * 69069 + 1) % 4294967296; r = int(s / 65536) % 8
    if (r == 0) w = w - (w % 65536)                       # constant 0
    if (r == 1) w = w - (int(w / 262144) % 32) * 262144   # rs1 = r0
    if (r == 2) w = w - (int(w / 8388608) % 32) * 8388608 + 2 * 8388608  # rd = pc
    if (r == 3) w = w - (w % 2048) + (w % 8)              # rs2 = r0, no JJJJJ
    op = int(w / 268435456)
    if ((op == 10 || op == 11) && int(w / 256) % 8 == 7) w = w - (w % 256) + 128 + (w % 8)  # sh
    printf ".long 0x%08x\n", w
  }
}' >"$tmp/rand.s"
llvm-mc -triple=lanai -filetype=obj "$tmp/rand.s" -o "$tmp/rand.o"
"$myri" lanai disasm "$tmp/rand.o" >"$tmp/rand.txt"
awk -F'\t' '/^ +[0-9a-f]+:/ { split($1, a, ": "); gsub(" ", "", a[2]);
  print ($2 == "<unknown>" ? "U" : "L"), a[2] }' "$tmp/rand.txt" >"$tmp/words.txt"
{ echo ".text"; awk '$1 == "L" { print ".long 0x" $2 }' "$tmp/words.txt"; } >"$tmp/legal.s"
{ awk '$1 == "U" { printf ".section .u%d,\"ax\",@progbits\n.long 0x%s\n", NR, $2 }' "$tmp/words.txt"; } >"$tmp/illegal.s"
nlegal=$(grep -c '^L' "$tmp/words.txt"); nillegal=$(grep -c '^U' "$tmp/words.txt")
echo "random words: $nlegal legal, $nillegal illegal"
check "random words: most are legal" [ "$nlegal" -gt 3000 ]
llvm-mc -triple=lanai -filetype=obj "$tmp/legal.s" -o "$tmp/legal.o"
check "disasm of the legal random words as llvm-objdump" same_as_objdump "$tmp/legal.o"
llvm-mc -triple=lanai -filetype=obj "$tmp/illegal.s" -o "$tmp/illegal.o"
llvm-objdump -d "$tmp/illegal.o" >"$tmp/ill_ref.txt" 2>/dev/null
# every section's first line must be <unknown> (4 bytes or 1)
known=$(awk '/^Disassembly of section/ { first = 1; next } first && /^ +0: / { if ($0 !~ /<unknown>/) n++; first = 0 }
  END { print n + 0 }' "$tmp/ill_ref.txt")
nsec=$(grep -c '^Disassembly of section' "$tmp/ill_ref.txt")
check "illegal random words: llvm-objdump decodes none ($known of $nsec decoded)" [ "$known" -eq 0 ] && [ "$nsec" -eq "$nillegal" ]

check_summary
