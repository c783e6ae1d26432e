/* cpu.c -- the LANai instruction-set simulator (LLVM's dialect, docs/LANAI.md).
 *
 * Every SRAM word has a predecoded slot (cpu_insn), filled the first time
 * the word is executed and cleared when the CPU stores into the word or
 * myri_cpu_invalidate is called; without predecoding (the benchmark's plain
 * loop) each instruction is decoded from SRAM as it is fetched.
 *
 * Control flow: the next two fetch addresses are kept (n1, n2) and move up
 * before an instruction executes.  A write to %pc by an ALU instruction or a
 * branch has one delay slot (the target becomes n1), a write by a load
 * (memory formats) has two (the target becomes n2).
 * Costs: one cycle per instruction, one stall cycle when an instruction
 * reads the register loaded by the instruction just before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_int.h"

struct myri_cpu {
    uint32_t r[33]; /* r[32]: where writes to r0 and r1 go */
    uint32_t flags;
    uint32_t pc, n1, n2;
    uint32_t load_mask; /* the register the previous instruction loaded */
    uint8_t *sram;
    uint32_t sram_bytes;
    bool own_sram, predecode;
    cpu_insn *dec;
    myri_cpu_mmio_fn mmio;
    void *mmio_ctx;
    myri_cpu_counts n;
    myri_cpu_status status;
    bool stop_req;
    bool mmio_sync;  /* register accesses only as the first instruction of a run */
    bool first;      /* the instruction executing is the first of this run */
    bool deferred;   /* the run ended before a register access (mmio_sync) */
    uint64_t *prof;  /* myri_cpu_set_profile: executions and cycles per word, or NULL */
    uint32_t prof_words;
    uint32_t exit_value, fault_pc, fault_addr;
    char fault_text[96];
};

/* taken[cond] bit f: condition cond holds for flags f (C=1 V=2 N=4 Z=8). */
static uint16_t cond_table[16];

static bool cpu__cond_eval(unsigned cond, unsigned f)
{
    bool c = f & 1, v = f & 2, n = f & 4, z = f & 8;
    switch (cond) {
    case 0: return true;
    case 1: return false;
    case 2: return c && !z;
    case 3: return !c || z;
    case 4: return !c;
    case 5: return c;
    case 6: return !z;
    case 7: return z;
    case 8: return !v;
    case 9: return v;
    case 10: return !n;
    case 11: return n;
    case 12: return n == v;
    case 13: return n != v;
    case 14: return n == v && !z;
    default: return z || n != v;
    }
}

static void cpu__init_tables(void)
{
    if (cond_table[0]) return;
    for (unsigned c = 0; c < 16; c++) {
        uint16_t m = 0;
        for (unsigned f = 0; f < 16; f++)
            if (cpu__cond_eval(c, f)) m |= (uint16_t)(1u << f);
        cond_table[c] = m;
    }
}

myri_cpu *myri_cpu_new(uint8_t *sram, uint32_t sram_bytes, bool predecode)
{
    if (sram_bytes == 0 || sram_bytes % 4 || sram_bytes > MYRI_CPU_MMIO_BASE) return NULL;
    cpu__init_tables();
    myri_cpu *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->sram = sram;
    c->sram_bytes = sram_bytes;
    c->predecode = predecode;
    if (!sram) {
        c->sram = calloc(sram_bytes, 1);
        c->own_sram = true;
    }
    if (predecode) c->dec = calloc(sram_bytes / 4, sizeof *c->dec);
    if (!c->sram || (predecode && !c->dec)) {
        myri_cpu_free(c);
        return NULL;
    }
    myri_cpu_reset(c, 0);
    return c;
}

void myri_cpu_free(myri_cpu *c)
{
    if (!c) return;
    if (c->own_sram) free(c->sram);
    free(c->dec);
    free(c);
}

uint8_t *myri_cpu_sram(myri_cpu *c) { return c->sram; }
uint32_t myri_cpu_sram_bytes(const myri_cpu *c) { return c->sram_bytes; }

void myri_cpu_set_mmio_sync(myri_cpu *c, bool on)
{
    if (c) c->mmio_sync = on;
}

void myri_cpu_set_mmio(myri_cpu *c, myri_cpu_mmio_fn fn, void *ctx)
{
    c->mmio = fn;
    c->mmio_ctx = ctx;
}

void myri_cpu_reset(myri_cpu *c, uint32_t pc)
{
    memset(c->r, 0, sizeof c->r);
    c->r[1] = 0xffffffffu;
    c->flags = 0;
    c->pc = pc;
    c->n1 = pc + 4;
    c->n2 = pc + 8;
    c->load_mask = 0;
    memset(&c->n, 0, sizeof c->n);
    c->status = MYRI_CPU_RUNNING;
    c->stop_req = false;
    c->exit_value = c->fault_pc = c->fault_addr = 0;
    c->fault_text[0] = 0;
    /* predecoded words stay: they follow SRAM through the invalidations */
}

uint32_t myri_cpu_reg(const myri_cpu *c, unsigned r)
{
    if (r == MYRI_CPU_PC) return c->pc;
    return r < 32 ? c->r[r] : 0;
}

void myri_cpu_set_reg(myri_cpu *c, unsigned r, uint32_t v)
{
    if (r == MYRI_CPU_PC) {
        c->pc = v;
        c->n1 = v + 4;
        c->n2 = v + 8;
    } else if (r > 2 && r < 32) {
        c->r[r] = v;
    }
}

uint32_t myri_cpu_pc(const myri_cpu *c) { return c->pc; }
unsigned myri_cpu_flags(const myri_cpu *c) { return c->flags; }
void myri_cpu_set_flags(myri_cpu *c, unsigned f) { c->flags = f & 15; }
myri_cpu_counts myri_cpu_get_counts(const myri_cpu *c) { return c->n; }

void myri_cpu_snap(const myri_cpu *c, myri_cpu_snapshot *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->r, c->r, sizeof out->r);
    out->flags = c->flags;
    out->pc = c->pc;
    out->n1 = c->n1;
    out->n2 = c->n2;
    out->load_mask = c->load_mask;
}

void myri_cpu_restore(myri_cpu *c, const myri_cpu_snapshot *in)
{
    memcpy(c->r, in->r, sizeof c->r);
    c->r[0] = 0;
    c->r[1] = 0xffffffffu;
    c->flags = in->flags & 15;
    c->pc = in->pc;
    c->n1 = in->n1;
    c->n2 = in->n2;
    c->load_mask = in->load_mask;
    c->status = MYRI_CPU_RUNNING;
    c->stop_req = false;
}

void myri_cpu_stop(myri_cpu *c, uint32_t v)
{
    c->stop_req = true;
    c->exit_value = v;
}

uint32_t myri_cpu_exit_value(const myri_cpu *c) { return c->exit_value; }
uint32_t myri_cpu_fault_pc(const myri_cpu *c) { return c->fault_pc; }
uint32_t myri_cpu_fault_addr(const myri_cpu *c) { return c->fault_addr; }
const char *myri_cpu_fault_text(const myri_cpu *c) { return c->fault_text; }

const char *myri_cpu_status_name(myri_cpu_status st)
{
    switch (st) {
    case MYRI_CPU_RUNNING: return "running";
    case MYRI_CPU_STOPPED: return "stopped";
    case MYRI_CPU_ILLEGAL: return "illegal instruction";
    case MYRI_CPU_BADMEM: return "access outside SRAM";
    default: return "register access refused";
    }
}

void myri_cpu_invalidate(myri_cpu *c, uint32_t addr, uint32_t bytes)
{
    if (!c->dec || addr >= c->sram_bytes || !bytes) return;
    uint64_t end = (uint64_t)addr + bytes;
    if (end > c->sram_bytes) end = c->sram_bytes;
    for (uint64_t a = addr & ~3u; a < end; a += 4) c->dec[a / 4].kind = K_UNDECODED;
}

static void cpu__fault(myri_cpu *c, myri_cpu_status st, uint32_t pc, uint32_t addr, const char *what)
{
    c->status = st;
    c->fault_pc = pc;
    c->fault_addr = addr;
    snprintf(c->fault_text, sizeof c->fault_text, "%s", what);
}

/* ---- Memory ---- */

static bool cpu__mmio(myri_cpu *c, uint32_t addr, bool wr, uint32_t *v, unsigned size, uint32_t pc)
{
    if (addr < MYRI_CPU_MMIO_BASE) {
        cpu__fault(c, MYRI_CPU_BADMEM, pc, addr, wr ? "store outside SRAM" : "load outside SRAM");
        return false;
    }
    if (c->mmio_sync && !c->first) { /* ends the run before this instruction: it runs first in the next */
        c->deferred = true;
        return false;
    }
    if (!c->mmio || c->mmio(c->mmio_ctx, addr - MYRI_CPU_MMIO_BASE, wr, v, size) != 0) {
        cpu__fault(c, MYRI_CPU_MMIOFAULT, pc, addr, "register access refused");
        return false;
    }
    return true;
}

static inline bool cpu__load(myri_cpu *c, uint32_t ea, unsigned size, bool sext, uint32_t *out,
                             uint32_t pc)
{
    ea &= ~(uint32_t)(size - 1); /* the low address bits are ignored */
    uint32_t v;
    if (ea < c->sram_bytes) {
        const uint8_t *p = c->sram + ea;
        c->n.sram_loads++;
        if (size == 4) {
            v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        } else if (size == 2) {
            v = (uint32_t)p[0] << 8 | p[1];
            if (sext) v = (uint32_t)(int32_t)(int16_t)v;
        } else {
            v = p[0];
            if (sext) v = (uint32_t)(int32_t)(int8_t)v;
        }
    } else {
        if (!cpu__mmio(c, ea, false, &v, size, pc)) return false;
        if (size == 2 && sext) v = (uint32_t)(int32_t)(int16_t)v;
        if (size == 1 && sext) v = (uint32_t)(int32_t)(int8_t)v;
    }
    *out = v;
    return true;
}

static inline bool cpu__store(myri_cpu *c, uint32_t ea, unsigned size, uint32_t v, uint32_t pc)
{
    ea &= ~(uint32_t)(size - 1);
    if (ea >= c->sram_bytes) return cpu__mmio(c, ea, true, &v, size, pc);
    uint8_t *p = c->sram + ea;
    if (size == 4) {
        p[0] = (uint8_t)(v >> 24);
        p[1] = (uint8_t)(v >> 16);
        p[2] = (uint8_t)(v >> 8);
        p[3] = (uint8_t)v;
    } else if (size == 2) {
        p[0] = (uint8_t)(v >> 8);
        p[1] = (uint8_t)v;
    } else {
        p[0] = (uint8_t)v;
    }
    c->n.sram_stores++;
    if (c->dec) c->dec[ea / 4].kind = K_UNDECODED;
    return true;
}

/* ---- ALU ---- */

static inline uint32_t cpu__shift(uint32_t a, int32_t amount, bool arith, unsigned *cout)
{
    *cout = 0;
    if (amount >= 0) {
        if (amount == 0) return a;
        if (amount > 31) return 0;
        *cout = (a >> (32 - amount)) & 1; /* the last bit shifted out */
        return a << amount;
    }
    int32_t r = -amount;
    if (r > 31) return arith && (a >> 31) ? 0xffffffffu : 0;
    if (arith) return (uint32_t)((int32_t)a >> r);
    return a >> r;
}

/* rd <- a op b; the flags (when setf) as LanaiInstrFormats.td describes. */
static inline uint32_t cpu__alu(myri_cpu *c, unsigned op, uint32_t a, uint32_t b, bool setf)
{
    uint64_t wide;
    uint32_t r;
    unsigned cf = 0, vf = 0, sc;
    switch (op) {
    case A_ADD: wide = (uint64_t)a + b; goto arith_add;
    case A_ADDC: wide = (uint64_t)a + b + (c->flags & 1); goto arith_add;
    case A_SUB: b = ~b; wide = (uint64_t)a + b + 1; goto arith_add;
    case A_SUBB: b = ~b; wide = (uint64_t)a + b + (c->flags & 1); goto arith_add;
    case A_AND: r = a & b; break;
    case A_OR: r = a | b; break;
    case A_XOR: r = a ^ b; break;
    case A_SHL: r = cpu__shift(a, (int32_t)b, false, &sc); cf = sc; break;
    default: r = cpu__shift(a, (int32_t)b, true, &sc); cf = sc; break;
    }
    if (setf) c->flags = cf | (r >> 31) << 2 | (r == 0) << 3;
    return r;
arith_add:
    r = (uint32_t)wide;
    if (setf) {
        cf = (unsigned)(wide >> 32) & 1;
        vf = (~(a ^ b) & (a ^ r)) >> 31;
        c->flags = cf | vf << 1 | (r >> 31) << 2 | (r == 0) << 3;
    }
    return r;
}

/* ---- Execution ---- */

/* A write of v to register rd (slots: delay slots if rd is %pc). */
static inline void cpu__write(myri_cpu *c, unsigned rd, uint32_t v, unsigned slots)
{
    if (rd > 2) {
        c->r[rd] = v;
    } else if (rd == 2) {
        if (slots == 1) { /* after the queue moved: pc is the delay slot */
            c->n1 = v;
            c->n2 = v + 4;
        } else { /* pc and n1 are the two delay slots */
            c->n2 = v;
        }
    }
}

static inline bool cpu__mem(myri_cpu *c, const cpu_insn *d, uint32_t pc)
{
    uint32_t base = c->r[d->rs1];
    uint32_t off = d->regoff ? c->r[d->rs2] : (uint32_t)d->imm;
    uint32_t sum = d->mode == M_BASE ? base : (d->regoff ? cpu__alu(c, d->alu, base, off, false) : base + off);
    uint32_t ea = (d->mode == M_POST || d->mode == M_BASE) ? base : sum;
    if (d->kind == K_LOAD) {
        uint32_t v;
        if (!cpu__load(c, ea, d->size, d->sext, &v, pc)) return false;
        if (d->mode & 1) cpu__write(c, d->rs1, sum, 1);
        cpu__write(c, d->rd, v, 2);
        c->load_mask = d->rd > 2 ? 1u << d->rd : 0;
        return true;
    }
    if (!cpu__store(c, ea, d->size, c->r[d->rd], pc)) return false;
    if (d->mode & 1) cpu__write(c, d->rs1, sum, 1);
    return true;
}

static inline uint32_t cpu__count(unsigned kind, uint32_t v)
{
    if (kind == K_POPC) return (uint32_t)__builtin_popcount(v);
    if (v == 0) return 32;
    return (uint32_t)(kind == K_LEADZ ? __builtin_clz(v) : __builtin_ctz(v));
}

/* Executes one decoded instruction at pc; false on a fault. */
static inline bool cpu__exec(myri_cpu *c, const cpu_insn *d, uint32_t pc)
{
    c->r[2] = pc;
    c->load_mask = 0;
    switch (d->kind) {
    case K_RI:
        cpu__write(c, d->rd, cpu__alu(c, d->alu, c->r[d->rs1], (uint32_t)d->imm, d->setf), d->pcslots);
        return true;
    case K_RR:
        if ((cond_table[d->cond] >> c->flags) & 1)
            cpu__write(c, d->rd, cpu__alu(c, d->alu, c->r[d->rs1], c->r[d->rs2], d->setf), 1);
        return true;
    case K_SEL:
        cpu__write(c, d->rd, (cond_table[d->cond] >> c->flags) & 1 ? c->r[d->rs1] : c->r[d->rs2], 1);
        return true;
    case K_LOAD:
    case K_STORE: return cpu__mem(c, d, pc);
    case K_BR:
        if ((cond_table[d->cond] >> c->flags) & 1) cpu__write(c, 2, (uint32_t)d->imm, 1);
        return true;
    case K_BRR:
        if ((cond_table[d->cond] >> c->flags) & 1) cpu__write(c, 2, pc + (uint32_t)d->imm, 1);
        return true;
    case K_SCC: cpu__write(c, d->rs1, (cond_table[d->cond] >> c->flags) & 1, 1); return true;
    case K_POPC:
    case K_LEADZ:
    case K_TRAILZ: cpu__write(c, d->rd, cpu__count(d->kind, c->r[d->rs1]), 1); return true;
    default: cpu__fault(c, MYRI_CPU_ILLEGAL, pc, pc, "illegal instruction"); return false;
    }
}

static inline uint32_t cpu__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The full executor for what has no fast path: the loop's state goes to
 * *c, then comes back.  False when the run must end (fault or stop). */
static bool cpu__slow(myri_cpu *c, const cpu_insn *d, uint32_t cur, uint32_t *pc, uint32_t *n1, uint32_t *n2,
                      uint32_t *lmask)
{
    c->pc = *pc;
    c->n1 = *n1;
    c->n2 = *n2;
    if (!cpu__exec(c, d, cur)) {
        c->pc = cur;
        return false;
    }
    *pc = c->pc;
    *n1 = c->n1;
    *n2 = c->n2;
    *lmask = c->load_mask;
    return !c->stop_req;
}

/* The fast paths (enum cpu_fast) on the loop's registers: false when the
 * instruction must go through the full executor instead. */
static inline bool cpu__fast(myri_cpu *c, uint32_t *r, uint8_t *sram, uint32_t size, cpu_insn *dec,
                             const cpu_insn *d, uint32_t *n1, uint32_t *n2, uint32_t *lmask, const bool predecode)
{
    switch (d->fast) {
    case F_ADDI: r[d->rd] = r[d->rs1] + (uint32_t)d->imm; return true;
    case F_SUBI: r[d->rd] = r[d->rs1] - (uint32_t)d->imm; return true;
    case F_ANDI: r[d->rd] = r[d->rs1] & (uint32_t)d->imm; return true;
    case F_ORI: r[d->rd] = r[d->rs1] | (uint32_t)d->imm; return true;
    case F_XORI: r[d->rd] = r[d->rs1] ^ (uint32_t)d->imm; return true;
    case F_SHLI: r[d->rd] = r[d->rs1] << d->imm; return true;
    case F_SHRI: r[d->rd] = r[d->rs1] >> d->imm; return true;
    case F_SHAI: r[d->rd] = (uint32_t)((int32_t)r[d->rs1] >> d->imm); return true;
    case F_ADDR: r[d->rd] = r[d->rs1] + r[d->rs2]; return true;
    case F_SUBR: r[d->rd] = r[d->rs1] - r[d->rs2]; return true;
    case F_ANDR: r[d->rd] = r[d->rs1] & r[d->rs2]; return true;
    case F_ORR: r[d->rd] = r[d->rs1] | r[d->rs2]; return true;
    case F_XORR: r[d->rd] = r[d->rs1] ^ r[d->rs2]; return true;
    case F_LDW: {
        uint32_t ea = (r[d->rs1] + (uint32_t)d->imm) & ~3u;
        if (ea >= size) return false;
        r[d->rd] = cpu__be32(sram + ea);
        *lmask = 1u << d->rd;
        c->n.sram_loads++;
        return true;
    }
    case F_STW: {
        uint32_t ea = (r[d->rs1] + (uint32_t)d->imm) & ~3u, v = r[d->rd];
        if (ea >= size) return false;
        uint8_t *p = sram + ea;
        p[0] = (uint8_t)(v >> 24);
        p[1] = (uint8_t)(v >> 16);
        p[2] = (uint8_t)(v >> 8);
        p[3] = (uint8_t)v;
        if (predecode) dec[ea >> 2].kind = K_UNDECODED;
        c->n.sram_stores++;
        return true;
    }
    case F_ALUFI:
    case F_ALUFR: {
        uint32_t b = d->fast == F_ALUFI ? (uint32_t)d->imm : r[d->rs2];
        uint32_t v = cpu__alu(c, d->alu, r[d->rs1], b, true);
        if (d->rd > 2) r[d->rd] = v;
        return true;
    }
    case F_BR:
        if ((cond_table[d->cond] >> c->flags) & 1) {
            *n1 = (uint32_t)d->imm;
            *n2 = *n1 + 4;
        }
        return true;
    default: return false;
    }
}

/* The run loop; predecode is a constant in each caller, so the compiler
 * makes the predecoded and the plain loop from this one body. */
static inline myri_cpu_status cpu__loop(myri_cpu *c, uint64_t max_cycles, const bool predecode, const bool prof)
{
    uint32_t pc = c->pc, n1 = c->n1, n2 = c->n2, lmask = c->load_mask, *r = c->r;
    const uint32_t size = c->sram_bytes;
    uint8_t *sram = c->sram;
    cpu_insn tmp, *dec = c->dec;
    uint64_t insns = 0, stalls = 0, used = 0;
    while (used < max_cycles) {
        if (pc >= size || (pc & 3)) {
            cpu__fault(c, MYRI_CPU_BADMEM, pc, pc, "instruction fetch outside SRAM");
            break;
        }
        const cpu_insn *d;
        const uint64_t used0 = used;
        if (predecode) {
            d = &dec[pc >> 2];
            if (d->kind == K_UNDECODED) myri_cpu__decode(cpu__be32(sram + pc), &dec[pc >> 2]);
        } else {
            myri_cpu__decode(cpu__be32(sram + pc), &tmp);
            d = &tmp;
        }
        if (d->uses & lmask) {
            stalls++;
            used++;
        }
        const uint32_t cur = pc, o1 = n1, o2 = n2, olmask = lmask;
        pc = n1; /* the fetch queue moves before execution: a jump rewrites n1 or n2 */
        n1 = n2;
        n2 += 4;
        lmask = 0;
        if (!cpu__fast(c, r, sram, size, dec, d, &n1, &n2, &lmask, predecode) &&
            (c->first = insns == 0, !cpu__slow(c, d, cur, &pc, &n1, &n2, &lmask))) {
            if (c->deferred) { /* undone: the instruction has changed nothing yet (cpu__mem) */
                c->deferred = false;
                if (d->uses & olmask) {
                    stalls--;
                    used--;
                }
                pc = cur;
                n1 = o1;
                n2 = o2;
                lmask = olmask;
                break;
            }
            if (c->status == MYRI_CPU_RUNNING) { /* a stop: the instruction completed */
                c->status = MYRI_CPU_STOPPED;
                insns++;
                used++;
                if (prof && (cur >> 2) < c->prof_words) c->prof[2 * (cur >> 2)]++, c->prof[2 * (cur >> 2) + 1] += used - used0;
            }
            goto out;
        }
        insns++;
        used++;
        if (prof && (cur >> 2) < c->prof_words) c->prof[2 * (cur >> 2)]++, c->prof[2 * (cur >> 2) + 1] += used - used0;
    }
    c->pc = pc;
    c->n1 = n1;
    c->n2 = n2;
    c->load_mask = lmask;
out:
    c->n.instructions += insns;
    c->n.stalls += stalls;
    c->n.cycles += used;
    return c->status;
}

static myri_cpu_status cpu__run_predecoded(myri_cpu *c, uint64_t max_cycles)
{
    return cpu__loop(c, max_cycles, true, false);
}
static myri_cpu_status cpu__run_plain(myri_cpu *c, uint64_t max_cycles) { return cpu__loop(c, max_cycles, false, false); }
static myri_cpu_status cpu__run_profiled(myri_cpu *c, uint64_t max_cycles)
{
    return c->dec ? cpu__loop(c, max_cycles, true, true) : cpu__loop(c, max_cycles, false, true);
}

myri_cpu_status myri_cpu_run(myri_cpu *c, uint64_t max_cycles)
{
    if (c->status != MYRI_CPU_RUNNING) return c->status;
    if (c->prof) return cpu__run_profiled(c, max_cycles);
    return c->dec ? cpu__run_predecoded(c, max_cycles) : cpu__run_plain(c, max_cycles);
}

void myri_cpu_set_profile(myri_cpu *c, uint64_t *prof, uint32_t words)
{
    if (!c) return;
    c->prof = words ? prof : NULL;
    c->prof_words = prof ? words : 0;
}
