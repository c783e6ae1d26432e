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
# The other way: myri's disassembly of forms.s, assembled by llvm-mc, gives
# the same words; the random legal words' disassembly, where llvm-mc parses
# it, assembles to words myri prints the same (but for two encodings LLVM's
# assembler picks itself, named below).
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

# ---- the other way: myri's disassembly, assembled again by llvm-mc -------------------------
# pairs FILE: "word<TAB>text" for every decoded line of myri's disassembly (annotations dropped)
pairs() {
  awk -F'\t' '/^ +[0-9a-f]+:/ { t = $2; for (i = 3; i <= NF; i++) t = t "\t" $i
    if (t ~ /<unknown>/) next; sub(/ *<[^>]*>$/, "", t); sub(/ *!.*$/, "", t)
    a = $1; sub(/^ +/, "", a); split(a, b, ": "); gsub(" ", "", b[2]); print b[2] "\t" t }' "$1"
}
"$myri" lanai disasm "$tmp/forms.o" >"$tmp/forms.txt"
pairs "$tmp/forms.txt" >"$tmp/forms.pairs"
{ echo ".text"; cut -f2- "$tmp/forms.pairs"; } >"$tmp/forms_re.s"
llvm-mc -triple=lanai -filetype=obj "$tmp/forms_re.s" -o "$tmp/forms_re.o" 2>"$tmp/mc.err"
"$myri" lanai disasm "$tmp/forms_re.o" >"$tmp/forms_re.txt"
pairs "$tmp/forms_re.txt" | cut -f1 >"$tmp/forms_re.words"
check "forms.s: myri's disassembly re-assembled gives the same words ($(wc -l <"$tmp/forms.pairs"))" \
  cmp -s <(cut -f1 "$tmp/forms.pairs") "$tmp/forms_re.words"
# The legal random words: the lines llvm-mc accepts (LLVM's own printer writes some it does not parse,
# e.g. shift constants beyond 16 bits) re-assemble to words that myri prints the same, but for two
# encodings LLVM's assembler chooses itself: an increment with a zero offset (0[*%r1], [%r2* add %r0]:
# parsed as no increment) and an SLS address that fits RM (ld [0x4f] -> ld 79[%r0]).
"$myri" lanai disasm "$tmp/legal.o" >"$tmp/legal.txt"
pairs "$tmp/legal.txt" >"$tmp/legal.pairs"
{ echo ".text"; cut -f2- "$tmp/legal.pairs"; } >"$tmp/legal_re.s"
llvm-mc -triple=lanai -filetype=obj "$tmp/legal_re.s" -o /dev/null 2>"$tmp/mc.err"
grep -o '^[^:]*legal_re.s:[0-9]*' "$tmp/mc.err" | sed 's/.*://' | sort -un >"$tmp/bad.lines"
awk 'NR == FNR { bad[$1] = 1; next } !((FNR + 1) in bad)' "$tmp/bad.lines" "$tmp/legal.pairs" >"$tmp/ok.pairs"
{ echo ".text"; cut -f2- "$tmp/ok.pairs"; } >"$tmp/ok.s"
llvm-mc -triple=lanai -filetype=obj "$tmp/ok.s" -o "$tmp/ok.o"
"$myri" lanai disasm "$tmp/ok.o" >"$tmp/ok.txt"
pairs "$tmp/ok.txt" >"$tmp/ok_re.pairs"
nok=$(wc -l <"$tmp/ok.pairs")
other=$(paste <(cut -f2- "$tmp/ok.pairs" | tr '\t' ' ') <(cut -f2- "$tmp/ok_re.pairs" | tr '\t' ' ') |
  awk -F'\t' '$1 != $2' | cut -f1 |
  grep -cvE '(0\[\*?%[a-z0-9]+\*?\]|\[\*?%[a-z0-9]+\*? [a-z]+ %r0\]|^(ld|st)[a-z.]* .*\[0x[0-9a-f]+\])')
echo "random legal words: $nok of $(wc -l <"$tmp/legal.pairs") re-assembled by llvm-mc, $other printed otherwise"
check "random legal words: most re-assemble" [ "$nok" -gt 3000 ]
check "random legal words: one word each, re-assembled" [ "$(wc -l <"$tmp/ok_re.pairs")" -eq "$nok" ]
check "random legal words: re-assembled, printed the same (but LLVM's two choices)" [ "$other" -eq 0 ]

check_summary
