# forms.s -- every instruction form of LLVM's Lanai assembler, for the
# disassembler test (tests/scenario/lanai_disasm.sh) and the unit tests.
        .text
        .globl forms
forms:
        add %r3, 0x1234, %r5
        add.f %r3, 0x1234, %r5
        addc %r3, 0x12340000, %r5
        addc.f %r7, 0x1, %r9
        sub %sp, 0x8, %sp
        sub.f %r6, 0x2, %r0
        subb %r3, 0x10000, %r5
        subb.f %r3, 0x7fff, %r5
        and %r3, 0xffff1234, %r5
        and %r3, 0x1234ffff, %r5
        and.f %r3, 0xffff0000, %r5
        or %r3, 0xffff, %r5
        or.f %r3, 0x12340000, %r5
        xor %r3, 0x1, %r5
        xor.f %r3, 0xabcd0000, %r5
        sh %r3, 0x1f, %r5
        sh %r3, -0x1f, %r5
        sha %r3, -0x4, %r5
        sh.f %r3, 0x3, %r5
        sha.f %r3, -0x1, %r5
        mov 0x1234, %r9
        mov 0x12340000, %r9
        mov 0xffff1234, %r9
        mov 0x1fffff, %r9
        mov %r3, %r9
        nop
        add %r3, %r4, %r5
        add.f %r3, %r4, %r5
        addc.eq %r3, %r4, %r5
        sub.f.ne %r3, %r4, %r5
        subb.ugt %r3, %r4, %r5
        and.ule %r3, %r4, %r5
        or.ult %r3, %r4, %r5
        xor.uge %r3, %r4, %r5
        add.vc %r3, %r4, %r5
        add.vs %r3, %r4, %r5
        add.pl %r3, %r4, %r5
        add.mi %r3, %r4, %r5
        add.ge %r3, %r4, %r5
        add.lt %r3, %r4, %r5
        add.gt %r3, %r4, %r5
        add.le %r3, %r4, %r5
        add.f %r3, %r4, %r5
        sh %r3, %r4, %r5
        sha %r3, %r4, %r5
        sh.f %r3, %r4, %r5
        sha.f.lt %r3, %r4, %r5
        sel.eq %r3, %r4, %r5
        sel.gt %r3, %r4, %r5
        ld 4[%r3], %r5
        ld -4[%r3], %r5
        ld 4[*%r3], %r5
        ld 8[%r3*], %r5
        ld [--%sp], %r5
        ld [%r6++], %r5
        st %r5, 12[%r3]
        st %r5, [--%sp]
        st %r5, [%r6++]
        st %r5, -12[*%r3]
        uld [%r3 add %r4], %r5
        ld [%r3 sub %r4], %r5
        ld.h [%r3 add %r4], %r5
        uld.h [*%r3 add %r4], %r5
        ld.b [%r3* add %r4], %r5
        uld.b [%r3 and %r4], %r5
        st %r5, [%r3 add %r4]
        st.h %r5, [%r3 add %r4]
        st.b %r5, [%r3 or %r4]
        ld [0x1234], %r5
        st %r5, [0x1ffffc]
        ld.h 6[%r3], %r5
        uld.h -2[%r3], %r5
        ld.b 511[%r3], %r5
        uld.b -512[%r3], %r5
        ld.h [%r3++], %r5
        uld.b [--%r3], %r5
        st.h %r5, 2[%r3]
        st.b %r5, [%r3++]
        st.h %r5, 8[*%r3]
        st.b %r5, 3[%r3*]
        bt forms
        bf forms
        bugt forms
        bule forms
        bult forms
        buge forms
        bne forms
        beq forms
        bvc forms
        bvs forms
        bpl forms
        bmi forms
        bge forms
        blt forms
        bgt forms
        ble forms
        bt %r9
        beq %r9
        seq %r5
        sne %r5
        sugt %r5
        slt %r5
        sle %r5
        popc %r3, %r5
        leadz %r3, %r5
        trailz %r3, %r5
        add %pc, 0x10, %rca
        ld -4[%fp], %pc
        add %fp, 0x0, %sp
        ld -8[%fp], %fp
