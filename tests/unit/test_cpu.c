/* test_cpu.c -- the LANai CPU (src/cpu/, docs/LANAI.md) one instruction class
 * at a time, on hand-encoded words (no compiler needed): ALU with immediate
 * (flags, H, AND fill, shifts), conditional RR and select, loads and stores
 * in every addressing mode and width, branches with their delay slots, SCC,
 * jumps through %pc (one delay slot) and loads into %pc (two), popc, leadz
 * and trailz, the load-use stall, self-modifying code, faults, and the plain
 * loop giving what the predecoded one gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cpu/cpu.h"

/* Encoders (LanaiInstrFormats.td). */
static uint32_t RI(unsigned op, unsigned rd, unsigned rs1, unsigned f, unsigned h, uint32_t imm)
{
    return op << 28 | rd << 23 | rs1 << 18 | f << 17 | h << 16 | (imm & 0xffff);
}
static uint32_t RR(unsigned rd, unsigned rs1, unsigned f, unsigned rs2, unsigned bbb, unsigned j, unsigned cond)
{
    return 0xcu << 28 | rd << 23 | rs1 << 18 | f << 17 | (cond & 1) << 16 | rs2 << 11 | bbb << 8 | j << 3 | cond >> 1;
}
static uint32_t RM(unsigned s, unsigned rd, unsigned rs1, unsigned p, unsigned q, int32_t imm)
{
    return (8u | s) << 28 | rd << 23 | rs1 << 18 | p << 17 | q << 16 | ((uint32_t)imm & 0xffff);
}
static uint32_t RRM(unsigned s, unsigned rd, unsigned rs1, unsigned pq, unsigned rs2, unsigned bbb, unsigned yl, unsigned e)
{
    return (0xau | s) << 28 | rd << 23 | rs1 << 18 | pq << 16 | rs2 << 11 | bbb << 8 | yl << 1 | e;
}
static uint32_t BR(unsigned cond, uint32_t addr) { return 0xeu << 28 | (cond >> 1) << 25 | addr | (cond & 1); }
static uint32_t BRR(unsigned cond, int32_t off)
{
    return 0xeu << 28 | (cond >> 1) << 25 | 1u << 24 | ((uint32_t)off & 0xfffc) | 2 | (cond & 1);
}
static uint32_t SCC(unsigned cond, unsigned rd) { return 0xeu << 28 | (cond >> 1) << 25 | rd << 18 | 2 | (cond & 1); }
static uint32_t SLS(unsigned s, unsigned rd, uint32_t a) { return 0xfu << 28 | rd << 23 | (a >> 16) << 18 | s << 16 | (a & 0xffff); }
static uint32_t SLI(unsigned rd, uint32_t v) { return 0xfu << 28 | rd << 23 | (v >> 16) << 18 | 2u << 16 | (v & 0xffff); }
static uint32_t SPLS(unsigned rd, unsigned rs1, unsigned y, unsigned s, unsigned e, unsigned pq, int32_t imm)
{
    return 0xfu << 28 | rd << 23 | rs1 << 18 | 6u << 15 | y << 14 | s << 13 | e << 12 | pq << 10 | ((uint32_t)imm & 0x3ff);
}
static uint32_t SPECIAL(unsigned rd, unsigned rs1, unsigned op) { return 0xdu << 28 | rd << 23 | rs1 << 18 | op; }
#define NOP 0x00000001u
#define HALT RM(1, 0, 0, 1, 0, -12) /* st %r0, -12[%r0]: the EXIT word 0xfffffff4 */
enum { ADD, ADDC, SUB, SUBB, AND, OR, XOR, SHIFT };
enum { T = 0, F = 1, UGT = 2, ULE = 3, ULT = 4, UGE = 5, NE = 6, EQ = 7, MI = 11, LT = 13, GT = 14 };

static int test_mmio(void *ctx, uint32_t off, bool wr, uint32_t *v, unsigned size)
{
    (void)size;
    if (wr && off == MYRI_CPU_EXIT_OFFSET) {
        myri_cpu_stop(ctx, *v);
        return 0;
    }
    if (!wr && off == 0x34) { /* RTC, as a NIC would answer */
        *v = 1234;
        return 0;
    }
    return -1;
}

/* Loads words at 0, runs to the HALT (or a fault); returns the CPU. */
static myri_cpu *run(const uint32_t *w, size_t n, bool predecode, myri_cpu_status want)
{
    myri_cpu *c = myri_cpu_new(NULL, 65536, predecode);
    assert_non_null(c);
    uint8_t *m = myri_cpu_sram(c);
    for (size_t i = 0; i < n; i++) {
        m[4 * i] = (uint8_t)(w[i] >> 24);
        m[4 * i + 1] = (uint8_t)(w[i] >> 16);
        m[4 * i + 2] = (uint8_t)(w[i] >> 8);
        m[4 * i + 3] = (uint8_t)w[i];
    }
    myri_cpu_reset(c, 0);
    myri_cpu_set_mmio(c, test_mmio, c);
    assert_int_equal(myri_cpu_run(c, 100000), want);
    return c;
}
#define RUN(words, want) run(words, sizeof words / sizeof words[0], true, want)

static void test_ri(void **state)
{
    (void)state;
    const uint32_t p[] = {
        RI(ADD, 3, 0, 0, 0, 0x1234),           /* r3 = 0x1234 */
        RI(ADD, 6, 3, 0, 1, 0x1),              /* r6 = r3 + 0x10000 */
        RI(AND, 7, 1, 0, 0, 0x00ff),           /* r7 = 0xffff00ff (AND fills the high half with ones) */
        RI(AND, 9, 1, 0, 1, 0x00ff),           /* r9 = 0x00ffffff */
        RI(SUB, 12, 0, 1, 0, 1),               /* r12 = -1: N, borrow (C clear) */
        SCC(MI, 13), SCC(ULT, 14),
        RI(ADD, 16, 1, 1, 0, 1),               /* 0xffffffff + 1 = 0: Z and C */
        SCC(EQ, 17), SCC(UGE, 18),
        RI(SHIFT, 19, 3, 0, 0, 4),             /* 0x12340 */
        RI(SHIFT, 20, 1, 0, 0, (uint32_t)-28), /* logical right 28: 0xf */
        RI(SHIFT, 21, 1, 0, 1, (uint32_t)-28), /* arithmetic: still -1 */
        RI(ADD, 0, 3, 0, 0, 5), RI(ADD, 1, 3, 0, 0, 5), /* writes to r0 and r1 are ignored */
        RI(ADD, 22, 1, 0, 0, 0), RI(ADD, 23, 0, 0, 0, 0),
        SLI(24, 0x1abcde),
        RI(ADD, 25, 2, 0, 0, 0), /* %pc reads as this instruction's address: 0x48 */
        HALT};
    myri_cpu *c = RUN(p, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 3), 0x1234);
    assert_int_equal(myri_cpu_reg(c, 6), 0x11234);
    assert_int_equal(myri_cpu_reg(c, 7), 0xffff00ff);
    assert_int_equal(myri_cpu_reg(c, 9), 0x00ffffff);
    assert_int_equal(myri_cpu_reg(c, 12), 0xffffffff);
    assert_int_equal(myri_cpu_reg(c, 13), 1);
    assert_int_equal(myri_cpu_reg(c, 14), 1);
    assert_int_equal(myri_cpu_reg(c, 16), 0);
    assert_int_equal(myri_cpu_reg(c, 17), 1);
    assert_int_equal(myri_cpu_reg(c, 18), 1);
    assert_int_equal(myri_cpu_reg(c, 19), 0x12340);
    assert_int_equal(myri_cpu_reg(c, 20), 0xf);
    assert_int_equal(myri_cpu_reg(c, 21), 0xffffffff);
    assert_int_equal(myri_cpu_reg(c, 22), 0xffffffff);
    assert_int_equal(myri_cpu_reg(c, 23), 0);
    assert_int_equal(myri_cpu_reg(c, 24), 0x1abcde);
    assert_int_equal(myri_cpu_reg(c, 25), 0x48);
    myri_cpu_free(c);
}

static void test_flags_overflow_carry(void **state)
{
    (void)state;
    const uint32_t p[] = {
        SLI(3, 0x7fff), RI(ADD, 3, 3, 0, 1, 0x7fff), /* r3 = 0x7fff7fff */
        RI(ADD, 4, 3, 1, 1, 0x1), /* + 0x10000: 0x80007fff, V and N, no C */
        SCC(9, 6) /* vs */, SCC(LT, 7), SCC(UGE, 8),
        RI(SUB, 0, 3, 1, 0, 0x1), /* flags of r3 - 1: positive, C set (no borrow) */
        SCC(GT, 9), SCC(UGT, 10),
        RI(ADD, 11, 0, 1, 0, 0), /* add.f r0 + 0: Z */
        RI(ADDC, 12, 0, 0, 0, 5), /* addc: 5 + C (C was cleared by the add.f) */
        RI(SUB, 0, 0, 1, 0, 1), /* 0 - 1: borrow, C clear */
        RI(SUBB, 13, 0, 0, 0, 0), /* subb 0 - 0 with C clear: 0 + ~0 + 0 = -1 */
        RI(SHIFT, 14, 1, 1, 0, 1), /* sh.f -1 << 1: C = the bit shifted out */
        SCC(UGE, 15),
        HALT};
    myri_cpu *c = RUN(p, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 4), 0x80007fff);
    assert_int_equal(myri_cpu_reg(c, 6), 1);
    assert_int_equal(myri_cpu_reg(c, 7), 0);  /* N != V is false: N=1, V=1 */
    assert_int_equal(myri_cpu_reg(c, 8), 0);
    assert_int_equal(myri_cpu_reg(c, 9), 1);
    assert_int_equal(myri_cpu_reg(c, 10), 1);
    assert_int_equal(myri_cpu_reg(c, 12), 5);
    assert_int_equal(myri_cpu_reg(c, 13), 0xffffffff);
    assert_int_equal(myri_cpu_reg(c, 14), 0xfffffffe);
    assert_int_equal(myri_cpu_reg(c, 15), 1);
    myri_cpu_free(c);
}

static void test_rr_conditional_select(void **state)
{
    (void)state;
    const uint32_t p[] = {
        SLI(3, 10), SLI(4, 3),
        RR(5, 3, 1, 4, SUB, 0, T),      /* sub.f: 7, flags of 10 - 3 */
        RR(6, 3, 0, 4, ADD, 0, EQ),     /* not executed (NE) */
        RR(7, 3, 0, 4, ADD, 0, NE),     /* executed: 13 */
        RR(8, 3, 0, 4, 7, 0, GT),       /* sel.gt: 10 */
        RR(9, 3, 0, 4, 7, 0, LT),       /* sel.lt: 3 */
        RR(12, 3, 0, 4, SHIFT, 0x10, T),/* sh 10 << 3 = 80 */
        RI(SUB, 13, 0, 0, 0, 2),        /* -2 */
        RR(14, 1, 0, 13, SHIFT, 0x10, T), /* 0xffffffff >> 2 (logical) */
        RR(15, 1, 0, 13, SHIFT, 0x18, T), /* arithmetic: -1 */
        RR(16, 3, 0, 4, XOR, 0, T), RR(17, 3, 0, 4, AND, 0, T), RR(18, 3, 0, 4, OR, 0, T),
        HALT};
    myri_cpu *c = RUN(p, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 5), 7);
    assert_int_equal(myri_cpu_reg(c, 6), 0);
    assert_int_equal(myri_cpu_reg(c, 7), 13);
    assert_int_equal(myri_cpu_reg(c, 8), 10);
    assert_int_equal(myri_cpu_reg(c, 9), 3);
    assert_int_equal(myri_cpu_reg(c, 12), 80);
    assert_int_equal(myri_cpu_reg(c, 14), 0x3fffffff);
    assert_int_equal(myri_cpu_reg(c, 15), 0xffffffff);
    assert_int_equal(myri_cpu_reg(c, 16), 9);
    assert_int_equal(myri_cpu_reg(c, 17), 2);
    assert_int_equal(myri_cpu_reg(c, 18), 11);
    myri_cpu_free(c);
}

static void test_memory_modes(void **state)
{
    (void)state;
    const uint32_t p[] = {
        SLI(3, 0x1000), SLI(4, 0xff80), RI(ADD, 4, 4, 0, 1, 0x1234), /* r4 = 0x1234ff80 */
        RM(1, 4, 3, 1, 0, 8),        /* st r4, 8[r3]: 0x1008 */
        RM(0, 5, 3, 1, 1, 8),        /* ld 8[*r3], r5: pre-increment, r3 = 0x1008 */
        RM(0, 6, 3, 0, 1, 4),        /* ld [r3+4]: post, reads 0x1008, r3 = 0x100c */
        RM(0, 7, 3, 0, 0, 100),      /* PQ 00: ea = r3, no offset */
        SPLS(9, 0, 1, 0, 0, 2, 0),   /* placeholder, replaced below */
        SLS(0, 12, 0x1008),          /* ld [0x1008] */
        SLI(13, 0x100b),
        SPLS(14, 13, 1, 0, 0, 2, 0), /* ld.b 0[r13]: 0x80 sign-extended */
        SPLS(15, 13, 1, 0, 1, 2, 0), /* uld.b: 0x80 */
        SPLS(16, 13, 0, 0, 0, 2, -1),/* ld.h at 0x100a: 0xff80 sign-extended (low bit ignored) */
        SPLS(17, 13, 0, 0, 1, 2, -1),/* uld.h: 0xff80 */
        SLI(18, 4), RRM(0, 19, 3, 2, 18, SUB, 1, 0), /* ld [r3 sub r18] = 0x1008 */
        RRM(1, 4, 3, 3, 18, ADD, 0, 0),             /* st.h r4, [*r3 add r18]: 0x1010 <- 0xff80, r3 = 0x1010 */
        RRM(0, 20, 3, 2, 0, ADD, 2, 1),             /* uld.b [r3 add r0]: 0xff */
        SPLS(4, 3, 1, 1, 0, 1, 1),                  /* st.b r4, [r3++]: 0x1010 <- 0x80, r3 = 0x1011 */
        RRM(0, 21, 0, 2, 0, ADD, 0, 1),             /* placeholder */
        HALT};
    uint32_t q[sizeof p / sizeof p[0]];
    memcpy(q, p, sizeof p);
    q[7] = NOP;
    q[19] = SLS(0, 21, 0x1010);
    myri_cpu *c = run(q, sizeof q / sizeof q[0], true, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 5), 0x1234ff80);
    assert_int_equal(myri_cpu_reg(c, 6), 0x1234ff80);
    assert_int_equal(myri_cpu_reg(c, 7), 0);
    assert_int_equal(myri_cpu_reg(c, 12), 0x1234ff80);
    assert_int_equal(myri_cpu_reg(c, 14), 0xffffff80);
    assert_int_equal(myri_cpu_reg(c, 15), 0x80);
    assert_int_equal(myri_cpu_reg(c, 16), 0xffffff80);
    assert_int_equal(myri_cpu_reg(c, 17), 0xff80);
    assert_int_equal(myri_cpu_reg(c, 19), 0x1234ff80);
    assert_int_equal(myri_cpu_reg(c, 20), 0xff);
    assert_int_equal(myri_cpu_reg(c, 21), 0x80800000);
    assert_int_equal(myri_cpu_reg(c, 3), 0x1011);
    myri_cpu_free(c);
}

static void test_branches_delay_slots(void **state)
{
    (void)state;
    const uint32_t p[] = {
        /* 0x00 */ SLI(3, 1),
        /* 0x04 */ BR(T, 0x10),             /* taken: the slot at 0x08 runs, 0x0c is skipped */
        /* 0x08 */ RI(ADD, 4, 0, 0, 0, 7),
        /* 0x0c */ RI(ADD, 5, 0, 0, 0, 9),
        /* 0x10 */ RI(SUB, 0, 3, 1, 0, 1),  /* Z */
        /* 0x14 */ BR(NE, 0x40),            /* not taken; 0x18 runs as the next instruction */
        /* 0x18 */ RI(ADD, 6, 0, 0, 0, 1),
        /* 0x1c */ BRR(EQ, 0x10),           /* taken: 0x1c + 0x10 = 0x2c */
        /* 0x20 */ RI(ADD, 7, 0, 0, 0, 2),  /* slot */
        /* 0x24 */ RI(ADD, 8, 0, 0, 0, 3),
        /* 0x28 */ HALT,
        /* 0x2c */ SLI(9, 0x40),
        /* 0x30 */ RR(2, 0, 0, 9, OR, 0, T), /* bt %r9: one delay slot */
        /* 0x34 */ RI(ADD, 12, 0, 0, 0, 4),
        /* 0x38 */ RI(ADD, 13, 0, 0, 0, 5),
        /* 0x3c */ HALT,
        /* 0x40 */ SLI(14, 0x60), RM(1, 14, 0, 1, 0, 0x100), /* mem[0x100] = 0x60 */
        /* 0x48 */ RM(0, 2, 0, 1, 0, 0x100), /* ld 0x100, %pc: two delay slots */
        /* 0x4c */ RI(ADD, 15, 0, 0, 0, 6),
        /* 0x50 */ RI(ADD, 16, 0, 0, 0, 7),
        /* 0x54 */ RI(ADD, 17, 0, 0, 0, 8),
        /* 0x58 */ HALT, HALT,
        /* 0x60 */ HALT};
    myri_cpu *c = RUN(p, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 4), 7);
    assert_int_equal(myri_cpu_reg(c, 5), 0);
    assert_int_equal(myri_cpu_reg(c, 6), 1);
    assert_int_equal(myri_cpu_reg(c, 7), 2);
    assert_int_equal(myri_cpu_reg(c, 8), 0);
    assert_int_equal(myri_cpu_reg(c, 12), 4);
    assert_int_equal(myri_cpu_reg(c, 13), 0);
    assert_int_equal(myri_cpu_reg(c, 15), 6);
    assert_int_equal(myri_cpu_reg(c, 16), 7);
    assert_int_equal(myri_cpu_reg(c, 17), 0);
    myri_cpu_free(c);
}

static void test_special_and_stall(void **state)
{
    (void)state;
    const uint32_t p[] = {
        SLI(3, 0xf0f0), SPECIAL(4, 3, 1), SPECIAL(5, 3, 2), SPECIAL(6, 3, 3), SPECIAL(7, 0, 2), SPECIAL(8, 0, 3),
        RM(1, 3, 0, 1, 0, 0x200), RM(0, 9, 0, 1, 0, 0x200),
        RI(ADD, 12, 9, 0, 0, 1), /* uses r9 right after its load: one stall */
        RM(0, 13, 0, 1, 0, 0x200), NOP, RI(ADD, 14, 13, 0, 0, 1), /* separated: no stall */
        HALT};
    myri_cpu *c = RUN(p, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 4), 8);
    assert_int_equal(myri_cpu_reg(c, 5), 16);
    assert_int_equal(myri_cpu_reg(c, 6), 4);
    assert_int_equal(myri_cpu_reg(c, 7), 32);
    assert_int_equal(myri_cpu_reg(c, 8), 32);
    assert_int_equal(myri_cpu_reg(c, 12), 0xf0f1);
    myri_cpu_counts n = myri_cpu_get_counts(c);
    assert_int_equal(n.instructions, sizeof p / sizeof p[0]);
    assert_int_equal(n.stalls, 1);
    assert_int_equal(n.cycles, n.instructions + 1);
    assert_int_equal(n.sram_stores, 1); /* the EXIT store is a register, not SRAM */
    assert_int_equal(n.sram_loads, 2);  /* loads of SRAM (the contention's accesses); fetches not counted */
    myri_cpu_snapshot a, b;
    myri_cpu_snap(c, &a);
    myri_cpu_snap(c, &b);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.r[12], 0xf0f1);
    myri_cpu_free(c);
}

/* With register accesses in step (the NIC's clock): a run ends before an
 * instruction that reaches the register window unless it is the run's
 * first; nothing of it is done, its stall is counted once, when it runs. */
static void test_mmio_sync(void **state)
{
    (void)state;
    const uint32_t p[] = {RM(0, 9, 0, 1, 0, 0x200), /* ld 0x200[%r0], %r9: the RTC's address */
                          RM(0, 6, 9, 1, 0, 0),     /* ld 0[%r9], %r6: the RTC, right after the load */
                          HALT};
    myri_cpu *c = myri_cpu_new(NULL, 65536, true);
    assert_non_null(c);
    uint8_t *m = myri_cpu_sram(c);
    for (size_t i = 0; i < 3; i++)
        for (int b = 0; b < 4; b++) m[4 * i + (size_t)b] = (uint8_t)(p[i] >> (24 - 8 * b));
    m[0x200] = 0xff, m[0x201] = 0xff, m[0x202] = 0xff, m[0x203] = 0x34;
    myri_cpu_reset(c, 0);
    myri_cpu_set_mmio(c, test_mmio, c);
    myri_cpu_set_mmio_sync(c, true);
    assert_int_equal(myri_cpu_run(c, 1000), MYRI_CPU_RUNNING); /* ends before the RTC load */
    assert_int_equal(myri_cpu_pc(c), 4);
    myri_cpu_counts n = myri_cpu_get_counts(c);
    assert_int_equal(n.instructions, 1);
    assert_int_equal(n.cycles, 1);
    assert_int_equal(myri_cpu_reg(c, 6), 0);
    assert_int_equal(myri_cpu_run(c, 1000), MYRI_CPU_RUNNING); /* the RTC load first, then ends before HALT */
    n = myri_cpu_get_counts(c);
    assert_int_equal(myri_cpu_reg(c, 6), 1234);
    assert_int_equal(n.instructions, 2);
    assert_int_equal(n.stalls, 1);
    assert_int_equal(n.cycles, 3);
    assert_int_equal(myri_cpu_pc(c), 8);
    assert_int_equal(myri_cpu_run(c, 1000), MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_get_counts(c).instructions, 3);
    myri_cpu_free(c);
}

static void test_self_modifying_and_invalidate(void **state)
{
    (void)state;
    /* A loop runs 0x10 twice; the first pass rewrites it (store into code). */
    const uint32_t p[] = {
        /* 0x00 */ SLI(3, 0), SLI(4, 0x18), RM(0, 5, 0, 1, 0, 0x40), /* r5 = the new word */
        /* 0x0c */ NOP,
        /* 0x10 */ RI(ADD, 3, 3, 0, 0, 1),  /* becomes add r3 + 100 */
        /* 0x14 */ RM(1, 5, 0, 1, 0, 0x10), /* store the new word over 0x10 */
        /* 0x18 */ RI(SUB, 4, 4, 1, 0, 0xc), /* r4 = 0xc, then 0 */
        /* 0x1c */ BR(NE, 0x10), NOP,
        /* 0x24 */ HALT, 0, 0, 0, 0, 0, 0,
        /* 0x40 */ RI(ADD, 3, 3, 0, 0, 100)};
    for (int pre = 0; pre < 2; pre++) {
        myri_cpu *c = run(p, sizeof p / sizeof p[0], pre, MYRI_CPU_STOPPED);
        assert_int_equal(myri_cpu_reg(c, 3), 101);
        /* an outside write (DMA) followed by myri_cpu_invalidate */
        uint8_t *m = myri_cpu_sram(c);
        const uint32_t w[] = {SLI(6, 77), HALT};
        for (int i = 0; i < 2; i++)
            for (int b = 0; b < 4; b++) m[0x24 + 4 * i + b] = (uint8_t)(w[i] >> (24 - 8 * b));
        myri_cpu_invalidate(c, 0x24, 8);
        myri_cpu_reset(c, 0x24);
        assert_int_equal(myri_cpu_run(c, 100), MYRI_CPU_STOPPED);
        assert_int_equal(myri_cpu_reg(c, 6), 77);
        myri_cpu_free(c);
    }
}

static void test_faults(void **state)
{
    (void)state;
    const uint32_t ill[] = {NOP, 0xd0000000u};
    myri_cpu *c = RUN(ill, MYRI_CPU_ILLEGAL);
    assert_int_equal(myri_cpu_fault_pc(c), 4);
    assert_int_equal(myri_cpu_run(c, 10), MYRI_CPU_ILLEGAL); /* stays faulted */
    myri_cpu_free(c);
    const uint32_t far[] = {SLI(3, 0x100000), RM(1, 3, 3, 1, 0, 0)};
    c = RUN(far, MYRI_CPU_BADMEM);
    assert_int_equal(myri_cpu_fault_pc(c), 4);
    assert_int_equal(myri_cpu_fault_addr(c), 0x100000);
    myri_cpu_free(c);
    const uint32_t jump[] = {SLI(3, 0x20000), RR(2, 0, 0, 3, OR, 0, T), NOP};
    c = RUN(jump, MYRI_CPU_BADMEM); /* fetch from 0x20000: past the 64 KiB SRAM */
    assert_int_equal(myri_cpu_fault_pc(c), 0x20000);
    myri_cpu_free(c);
    const uint32_t reg[] = {RM(0, 3, 0, 1, 0, -0xcc), RM(0, 4, 0, 1, 0, -0xc8)}; /* RTC, then 0x38: refused */
    c = RUN(reg, MYRI_CPU_MMIOFAULT);
    assert_int_equal(myri_cpu_reg(c, 3), 1234);
    assert_int_equal(myri_cpu_fault_addr(c), 0xffffff38);
    myri_cpu_free(c);
    const uint32_t loop[] = {BR(T, 0), NOP};
    c = RUN(loop, MYRI_CPU_RUNNING); /* the budget ends the run */
    assert_true(myri_cpu_get_counts(c).cycles >= 100000);
    myri_cpu_free(c);
}

static void test_plain_loop_same_results(void **state)
{
    (void)state;
    /* sum of 1..1000 with a load-use in the loop */
    const uint32_t p[] = {
        SLI(3, 1000), SLI(4, 0),
        /* 0x08 */ RM(1, 3, 0, 1, 0, 0x300), RM(0, 5, 0, 1, 0, 0x300), RR(4, 4, 0, 5, ADD, 0, T),
        RI(SUB, 3, 3, 1, 0, 1), BR(NE, 0x08), NOP, HALT};
    myri_cpu *a = run(p, sizeof p / sizeof p[0], true, MYRI_CPU_STOPPED);
    myri_cpu *b = run(p, sizeof p / sizeof p[0], false, MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(a, 4), 500500);
    assert_int_equal(myri_cpu_reg(b, 4), 500500);
    myri_cpu_counts x = myri_cpu_get_counts(a), y = myri_cpu_get_counts(b);
    assert_int_equal(x.instructions, y.instructions);
    assert_int_equal(x.cycles, y.cycles);
    assert_int_equal(x.stalls, 1000);
    assert_int_equal(y.stalls, 1000);
    myri_cpu_free(a);
    myri_cpu_free(b);
}

/* The profile counts each word's executions and cycles (the load-use stall
 * on the word that waits), sums to the run's counts, and changes nothing. */
static void test_profile(void **state)
{
    (void)state;
    const uint32_t p[] = {
        SLI(3, 1000), SLI(4, 0),
        /* 0x08 */ RM(1, 3, 0, 1, 0, 0x300), RM(0, 5, 0, 1, 0, 0x300), RR(4, 4, 0, 5, ADD, 0, T),
        RI(SUB, 3, 3, 1, 0, 1), BR(NE, 0x08), NOP, HALT};
    for (int pre = 0; pre < 2; pre++) {
        myri_cpu *c = myri_cpu_new(NULL, 65536, pre);
        assert_non_null(c);
        uint8_t *m = myri_cpu_sram(c);
        for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
            for (int k = 0; k < 4; k++) m[4 * i + (size_t)k] = (uint8_t)(p[i] >> (24 - 8 * k));
        uint64_t prof[2 * 8] = {0}; /* the first 8 words only: the HALT word is past them */
        myri_cpu_reset(c, 0);
        myri_cpu_set_mmio(c, test_mmio, c); /* the HALT's exit word */
        myri_cpu_set_profile(c, prof, 8);
        assert_int_equal(myri_cpu_run(c, 100000), MYRI_CPU_STOPPED);
        assert_int_equal(myri_cpu_reg(c, 4), 500500);
        myri_cpu_counts n = myri_cpu_get_counts(c);
        assert_int_equal(prof[2 * 0], 1);
        assert_int_equal(prof[2 * 2], 1000);     /* the first load, once a pass */
        assert_int_equal(prof[2 * 4], 1000);     /* the add waits for the load: 2 cycles */
        assert_int_equal(prof[2 * 4 + 1], 2000);
        assert_int_equal(prof[2 * 3 + 1], 1000);
        uint64_t ni = 0, nc = 0;
        for (int w = 0; w < 8; w++) ni += prof[2 * w], nc += prof[2 * w + 1];
        assert_int_equal(ni + 1, n.instructions); /* + the HALT, past the profiled words */
        assert_int_equal(nc + 1, n.cycles);
        assert_int_equal(n.stalls, 1000);
        myri_cpu_free(c);
    }
}

/* The interrupt entry and return of the firmware kind elf: a snapshot taken
 * mid-program, a jump to a "handler" that returns to an address the CPU
 * cannot fetch (a fault at exactly that pc), then myri_cpu_restore: the
 * program continues where it was, with its registers, as if never left. */
static void test_restore_after_return(void **state)
{
    (void)state;
    const uint32_t p[] = {SLI(3, 7), SLI(4, 9), RI(ADD, 5, 3, 0, 0, 1), HALT,
                          /* 0x10: the handler: r3 <- 100, then jump to 0xFFFFFEFC */
                          SLI(3, 100), RI(SUB, 6, 0, 0, 0, 0x104), RR(2, 0, 0, 6, OR, 0, T), NOP};
    myri_cpu *c = myri_cpu_new(NULL, 65536, true);
    assert_non_null(c);
    uint8_t *m = myri_cpu_sram(c);
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        m[4 * i] = (uint8_t)(p[i] >> 24), m[4 * i + 1] = (uint8_t)(p[i] >> 16), m[4 * i + 2] = (uint8_t)(p[i] >> 8),
        m[4 * i + 3] = (uint8_t)p[i];
    myri_cpu_set_mmio(c, test_mmio, c);
    myri_cpu_reset(c, 0);
    assert_int_equal(myri_cpu_run(c, 2), MYRI_CPU_RUNNING); /* two instructions: r3 = 7, r4 = 9 */
    myri_cpu_snapshot saved, h;
    myri_cpu_snap(c, &saved);
    h = saved;
    h.pc = 0x10, h.n1 = 0x14, h.n2 = 0x18;
    myri_cpu_restore(c, &h);
    assert_int_equal(myri_cpu_run(c, 1000), MYRI_CPU_BADMEM);
    assert_int_equal(myri_cpu_fault_pc(c), 0xfffffefcu);
    assert_int_equal(myri_cpu_reg(c, 3), 100);
    myri_cpu_restore(c, &saved);
    assert_int_equal(myri_cpu_run(c, 1000), MYRI_CPU_STOPPED);
    assert_int_equal(myri_cpu_reg(c, 3), 7);
    assert_int_equal(myri_cpu_reg(c, 5), 8);
    assert_int_equal(myri_cpu_reg(c, 0), 0);
    assert_int_equal(myri_cpu_reg(c, 1), 0xffffffffu);
    myri_cpu_free(c);
}

static void test_disasm_and_legal(void **state)
{
    (void)state;
    char buf[96];
    uint32_t t;
    bool has;
    myri_cpu_disasm(0x9293fffcu, buf, sizeof buf, &t, &has);
    assert_string_equal(buf, "st\t%fp, [--%sp]");
    myri_cpu_disasm(0x8116fffcu, buf, sizeof buf, &t, &has);
    assert_string_equal(buf, "ld\t-4[%fp], %pc ! return");
    myri_cpu_disasm(0xc4193f06u, buf, sizeof buf, &t, &has);
    assert_string_equal(buf, "sel.lt %r6, %r7, %rv");
    myri_cpu_disasm(BR(LT, 0x1234), buf, sizeof buf, &t, &has);
    assert_string_equal(buf, "blt\t0x1234");
    assert_true(has);
    assert_int_equal(t, 0x1234);
    myri_cpu_disasm(0xd0000000u, buf, sizeof buf, &t, &has);
    assert_string_equal(buf, "<unknown>");
    assert_false(myri_cpu_legal(0xd0000000u));
    assert_true(myri_cpu_legal(NOP));
    assert_null(myri_cpu_new(NULL, 6, true));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ri),
        cmocka_unit_test(test_flags_overflow_carry),
        cmocka_unit_test(test_rr_conditional_select),
        cmocka_unit_test(test_memory_modes),
        cmocka_unit_test(test_branches_delay_slots),
        cmocka_unit_test(test_special_and_stall),
        cmocka_unit_test(test_mmio_sync),
        cmocka_unit_test(test_self_modifying_and_invalidate),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_plain_loop_same_results),
        cmocka_unit_test(test_profile),
        cmocka_unit_test(test_restore_after_return),
        cmocka_unit_test(test_disasm_and_legal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
