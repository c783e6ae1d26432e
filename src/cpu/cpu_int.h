/* cpu_int.h -- internals of the LANai CPU shared by its files (not installed). */
#ifndef MYRI_CPU_CPU_INT_H
#define MYRI_CPU_CPU_INT_H

#include <stdint.h>

#include "cpu/cpu.h"

/* Instruction kinds after decoding. */
enum cpu_kind {
    K_UNDECODED = 0, /* predecode slot not filled yet */
    K_ILLEGAL,
    K_RI,    /* rd <- rs1 alu imm (imm already placed: H, AND fill, shift sign) */
    K_RR,    /* if cond: rd <- rs1 alu rs2 */
    K_SEL,   /* rd <- cond ? rs1 : rs2 */
    K_LOAD,  /* rd <- mem[ea] (RM, RRM, SLS, SPLS) */
    K_STORE, /* mem[ea] <- rd */
    K_BR,    /* if cond: pc <- imm (absolute, one delay slot) */
    K_BRR,   /* if cond: pc <- this pc + imm (one delay slot) */
    K_SCC,   /* rs1 <- cond */
    K_POPC,
    K_LEADZ,
    K_TRAILZ
};

/* ALU operations (RI, RR, RRM address arithmetic). */
enum cpu_alu { A_ADD, A_ADDC, A_SUB, A_SUBB, A_AND, A_OR, A_XOR, A_SHL, A_SHA };

/* Address modes of loads and stores (the P and Q bits). */
enum cpu_mode {
    M_BASE = 0,    /* PQ 00: ea = rs1 */
    M_POST = 1,    /* PQ 01: ea = rs1, rs1 <- rs1 op offset */
    M_OFFSET = 2,  /* PQ 10: ea = rs1 op offset */
    M_PRE = 3      /* PQ 11: ea = rs1 op offset, rs1 <- ea */
};

/* Fast paths of the run loop (the common cases without flags, %pc or
 * faults); F_GENERIC goes through the full executor. */
enum cpu_fast {
    F_GENERIC = 0,
    F_ADDI, F_SUBI, F_ANDI, F_ORI, F_XORI, F_SHLI, F_SHRI, F_SHAI,
    F_ADDR, F_SUBR, F_ANDR, F_ORR, F_XORR,
    F_LDW, F_STW, F_BR,
    F_ALUFI, F_ALUFR /* flag-setting ALU (compares: sub.f ..., %r0) */
};

typedef struct cpu_insn {
    uint8_t kind;
    uint8_t fast;  /* enum cpu_fast */
    uint8_t alu;   /* enum cpu_alu */
    uint8_t rd, rs1, rs2;
    uint8_t cond;  /* 0..15, LLVM's condition code order */
    uint8_t setf;  /* the F bit */
    uint8_t mode;  /* enum cpu_mode (memory) */
    uint8_t size;  /* 1, 2, 4 (memory) */
    uint8_t sext;  /* loads: sign-extend */
    uint8_t regoff;/* memory: the offset is register rs2 (RRM) */
    uint8_t pcslots; /* delay slots of a write to %pc: 1 (ALU) or 2 (memory formats) */
    int32_t imm;
    uint32_t uses; /* bit mask of the registers read (load-use stall) */
} cpu_insn;

/* Decodes one word (never fails: unknown words give K_ILLEGAL). */
void myri_cpu__decode(uint32_t word, cpu_insn *out);
/* The same without the fast-path classification (the disassembler's). */
void myri_cpu__decode_slow(uint32_t word, cpu_insn *out);

#endif
