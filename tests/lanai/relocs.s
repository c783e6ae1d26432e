# relocs.s -- every relocation type llvm-mc emits for the Lanai, checked at
# run time (tests/scenario/lanai_run.sh): reloc_main returns 0 when the
# HI16/LO16 pair, the R_LANAI_21 forms (SLS load, SLI mov), the R_LANAI_32
# word and the R_LANAI_25 branch all reached `target` and what it holds.
        .text
        .globl reloc_main
        .type reloc_main,@function
reloc_main:
        st %fp, [--%sp]
        add %sp, 0x8, %fp
        mov hi(target), %r9
        or %r9, lo(target), %r9
        ld [target], %r3
        mov target, %r12
        ld [ptr], %r13
        xor %r9, %r12, %rv
        xor %r13, %r12, %r9
        or %rv, %r9, %rv
        mov 0x12340000, %r9
        or %r9, 0x5678, %r9
        xor %r3, %r9, %r3
        or %rv, %r3, %rv
        bt over
        nop
        add %rv, 0x100, %rv
over:
        ld -4[%fp], %pc
        add %fp, 0x0, %sp
        ld -8[%fp], %fp
        .data
        .p2align 2
target: .long 0x12345678
ptr:    .long target
