/* bench_cpu.c -- speed of the LANai CPU (src/cpu/, docs/LANAI.md) on
 * straight-line code: the predecoded simulator against the plain
 * fetch-decode-execute loop (myri_cpu_new(..., predecode false)), measured
 * in the same run, three times each, interleaved, the best kept.
 *
 * The code: 4096 instruction words from a fixed random stream (45 %
 * ALU with an immediate, 30 % register-register ALU (15 % of them
 * conditional), 15 % of all ALU instructions setting the flags, 15 % loads
 * and 10 % stores in three widths and modes, base register r4 kept on a
 * 4 KiB data area), then `bt 0` and its delay slot.  Two blocks: "repeat",
 * a 64-word body repeated 64 times (straight-line code as unrolled loops
 * give it; the host's branch predictor learns the dispatch sequence), and
 * "random", 4096 independent words (no pattern: the interpreter's worst
 * case).  Issue 22's target:
 * >= 50 million simulated instructions per second.  Both loops must end in
 * the same state: the result hash (registers, flags, counts) is printed and
 * compared.  MIPS are per second of the thread's processor time (the
 * machine is shared; the wall time is printed beside it).  Output: aligned
 * text, then one JSON line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu/cpu.h"

#define CODE_WORDS 4096u
#define DATA_ADDR 0x8000u

static uint32_t bc__seed = 20261127u;
static uint32_t bc__rand(void)
{
    bc__seed = bc__seed * 1664525u + 1013904223u;
    return bc__seed >> 8;
}

/* A destination register: any but r0, r1, %pc and the base r4. */
static uint32_t bc__rd(void)
{
    uint32_t r;
    do r = bc__rand() % 32; while (r < 3 || r == 4);
    return r;
}

static uint32_t bc__word(void)
{
    uint32_t k = bc__rand() % 100, rd = bc__rd(), rs1 = bc__rand() % 32, rs2 = bc__rand() % 32;
    if (rs1 == 2) rs1 = 3;
    uint32_t f = bc__rand() % 100 < 15; /* 15 % set the flags (compares, add.f/addc pairs) */
    if (k < 45) { /* RI: add .. xor, shifts; H at random */
        uint32_t op = bc__rand() % 8, imm = bc__rand() & 0xffff;
        if (op == 7) imm = (bc__rand() % 63) - 31;
        return op << 28 | rd << 23 | rs1 << 18 | f << 17 | (bc__rand() & 1) << 16 | (imm & 0xffff);
    }
    if (k < 75) { /* RR: ALU, sh/sha, select; 15 % conditional */
        uint32_t bbb = bc__rand() % 8, j = bbb == 7 ? (bc__rand() & 1 ? 0x18 : 0x10) : 0;
        uint32_t cond = bc__rand() % 100 < 15 ? bc__rand() % 16 : 0;
        return 0xcu << 28 | rd << 23 | rs1 << 18 | f << 17 | (cond & 1) << 16 | rs2 << 11 | bbb << 8 | j << 3 | cond >> 1;
    }
    uint32_t off = (bc__rand() % 1024) & ~3u;
    bool store = k >= 90;
    switch (bc__rand() % 3) {
    case 0: /* RM word, offset only (base stays) */
        return (store ? 0x9u : 0x8u) << 28 | rd << 23 | 4u << 18 | 2u << 16 | off;
    case 1: /* SPLS byte/half, sign or zero extended */
        return 0xfu << 28 | rd << 23 | 4u << 18 | 6u << 15 | (bc__rand() & 1) << 14 | (uint32_t)store << 13 |
               (store ? 0 : (bc__rand() & 1)) << 12 | 2u << 10 | (off & 0x1ff);
    default: /* SLS absolute word */
        return (0xfu << 28) | rd << 23 | (uint32_t)store << 16 | (DATA_ADDR + off);
    }
}

/* CPU time of this thread: the machine is shared, so MIPS are simulated
 * instructions per second of the processor time the run got (wall time is
 * printed beside it). */
static double bc__now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void bc__load(myri_cpu *c, const uint32_t *w, size_t n)
{
    uint8_t *m = myri_cpu_sram(c);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++) m[4 * i + (size_t)b] = (uint8_t)(w[i] >> (24 - 8 * b));
}

typedef struct bc_result {
    double mips, wall_s, cpu_s;
    myri_cpu_counts n;
    uint64_t hash;
} bc_result;

static int bc__run(const uint32_t *code, size_t n, bool predecode, uint64_t cycles, bc_result *r)
{
    myri_cpu *c = myri_cpu_new(NULL, 65536, predecode);
    if (!c) return -1;
    bc__load(c, code, n);
    myri_cpu_reset(c, 0);
    myri_cpu_set_reg(c, 4, DATA_ADDR);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    double t0 = bc__now();
    myri_cpu_status st = myri_cpu_run(c, cycles);
    r->cpu_s = bc__now() - t0;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    r->wall_s = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
    r->n = myri_cpu_get_counts(c);
    r->mips = r->cpu_s > 0 ? (double)r->n.instructions / r->cpu_s / 1e6 : 0;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (unsigned i = 0; i < 32; i++) h = (h ^ myri_cpu_reg(c, i)) * UINT64_C(0x100000001b3);
    h = (h ^ myri_cpu_flags(c)) * UINT64_C(0x100000001b3);
    h = (h ^ r->n.instructions) * UINT64_C(0x100000001b3);
    h = (h ^ r->n.cycles) * UINT64_C(0x100000001b3);
    r->hash = h;
    myri_cpu_free(c);
    return st == MYRI_CPU_RUNNING ? 0 : -1;
}

/* Both loops on one block, best of three interleaved; 0 if they agree. */
static int bc__case(const char *name, const uint32_t *code, double *mips_out)
{
    const uint64_t cycles = 50000000u;
    bc_result best[2] = {{0}}, r;
    for (int rep = 0; rep < 3; rep++)
        for (int k = 0; k < 2; k++) {
            if (bc__run(code, CODE_WORDS + 2, k == 0, cycles, &r)) {
                fprintf(stderr, "bench_cpu: the code faulted\n");
                return 1;
            }
            if (r.mips > best[k].mips) best[k] = r;
        }
    const char *loops[2] = {"predecoded", "plain"};
    for (int k = 0; k < 2; k++)
        printf("%-8s %-11s %13" PRIu64 " %7.3f %7.3f %8.1f %10" PRIu64 " %9" PRIu64 "  0x%016" PRIx64 "\n", name,
               loops[k], best[k].n.instructions, best[k].cpu_s, best[k].wall_s, best[k].mips, best[k].n.cycles,
               best[k].n.stalls, best[k].hash);
    double ratio = best[1].mips > 0 ? best[0].mips / best[1].mips : 0;
    bool same = best[0].hash == best[1].hash;
    printf("%-8s ratio predecoded/plain %.2f; >= 50 MIPS: %s; same end state: %s\n", name, ratio,
           best[0].mips >= 50 ? "met" : "NOT met", same ? "yes" : "NO");
    printf("{\"bench\":\"cpu\",\"code\":\"%s\",\"predecoded_mips\":%.1f,\"plain_mips\":%.1f,\"ratio\":%.2f,"
           "\"instructions\":%" PRIu64 ",\"stalls\":%" PRIu64 ",\"hash\":\"0x%016" PRIx64 "\"}\n",
           name, best[0].mips, best[1].mips, ratio, best[0].n.instructions, best[0].n.stalls, best[0].hash);
    *mips_out = best[0].mips;
    return same ? 0 : 1;
}

int main(void)
{
    static uint32_t code[CODE_WORDS + 2];
    double mips[2];
    printf("%-8s %-11s %13s %7s %7s %8s %10s %9s  %s\n", "code", "loop", "instructions", "cpu_s", "wall_s", "MIPS",
           "cycles", "stalls", "hash");
    /* "repeat": a 64-word body repeated (straight-line code as an unrolled
     * loop gives it: the host's branch predictor learns the sequence) */
    for (size_t i = 0; i < 64; i++) code[i] = bc__word();
    for (size_t i = 64; i < CODE_WORDS; i++) code[i] = code[i % 64];
    code[CODE_WORDS] = 0xe0000000u;     /* bt 0 */
    code[CODE_WORDS + 1] = 0x00000001u; /* nop */
    int rc = bc__case("repeat", code, &mips[0]);
    /* "random": 4096 independent words (no pattern for the predictor: the worst case) */
    for (size_t i = 0; i < CODE_WORDS; i++) code[i] = bc__word();
    rc |= bc__case("random", code, &mips[1]);
    return rc;
}
