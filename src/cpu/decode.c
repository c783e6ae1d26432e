/* decode.c -- LANai instruction words (LLVM's Lanai encoding) decoded into
 * the simulator's form, and printed in llvm-objdump's syntax.
 *
 * The formats (bits 31..28 the opcode):
 *   0AAA RI    rd, rs1, F, H, 16-bit constant (AAA: add addc sub subb and or xor shift)
 *   100S RM    rd, rs1, P, Q, 16-bit signed offset        (S: store)
 *   101S RRM   rd, rs1, P, Q, rs2, BBB, JJJJJ, Y, L, E    (part-word, register offset)
 *   1100 RR    rd, rs1, F, I, rs2, BBB, JJJJJ, DDD        (conditional ALU, select, shifts)
 *   1101       rd, rs1, F, op (popc 1, leadz 2, trailz 3)
 *   1110 BR / BRR / SCC   DDD, then bit 1 (0: BR) and bit 24 (1: BRR, 0: SCC), bit 0 = I
 *   1111 SLS (bits 17..16 = 0S), SLI (10), SPLS (110 in bits 17..15)
 * Legal words are the ones LLVM's disassembler decodes (checked against
 * llvm-objdump by tests/scenario/lanai_disasm.sh); everything else is
 * illegal for the simulator too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cpu/cpu_int.h"

static int32_t decode__sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    v &= (m << 1) - 1;
    return (int32_t)((v ^ m) - m);
}

static uint32_t decode__mask_reg(unsigned r)
{
    return r > MYRI_CPU_PC ? 1u << r : 0;
}

static void decode__ri(uint32_t w, cpu_insn *d)
{
    unsigned aaa = (w >> 28) & 7, h = (w >> 16) & 1;
    uint32_t c = w & 0xffff;
    d->kind = K_RI;
    if (aaa == 7) {
        d->alu = h ? A_SHA : A_SHL;
        d->imm = decode__sext(c, 16);
    } else {
        d->alu = (uint8_t)aaa;
        uint32_t v = h ? c << 16 : c;
        if (aaa == A_AND) v |= h ? 0xffffu : 0xffff0000u;
        d->imm = (int32_t)v;
    }
    d->uses = decode__mask_reg(d->rs1);
}

static void decode__rr(uint32_t w, cpu_insn *d)
{
    unsigned bbb = (w >> 8) & 7, j = (w >> 3) & 31;
    d->rs2 = (w >> 11) & 31;
    d->cond = (uint8_t)(((w & 7) << 1) | ((w >> 16) & 1));
    d->uses = decode__mask_reg(d->rs1) | decode__mask_reg(d->rs2);
    d->kind = K_RR;
    if (bbb < 7 && j == 0)
        d->alu = (uint8_t)bbb;
    else if (bbb == 7 && j == 0x10)
        d->alu = A_SHL;
    else if (bbb == 7 && j == 0x18)
        d->alu = A_SHA;
    else if (bbb == 7 && j == 0 && !d->setf)
        d->kind = K_SEL;
    else
        d->kind = K_ILLEGAL;
}

static void decode__rrm(uint32_t w, cpu_insn *d)
{
    unsigned bbb = (w >> 8) & 7, j = (w >> 3) & 31, yl = (w >> 1) & 3, e = w & 1;
    bool store = (w >> 28) & 1;
    d->kind = store ? K_STORE : K_LOAD;
    d->rs2 = (w >> 11) & 31;
    d->regoff = 1;
    d->mode = (uint8_t)((w >> 16) & 3);
    if (bbb < 7)
        d->alu = (uint8_t)bbb;
    else if (j == 0x10)
        d->alu = A_SHL;
    else if (j == 0x18)
        d->alu = A_SHA;
    else
        d->kind = K_ILLEGAL;
    static const uint8_t sizes[4] = {2, 4, 1, 0};
    d->size = sizes[yl];
    d->sext = !e;
    if (!d->size || (store && e)) d->kind = K_ILLEGAL;
    d->uses = decode__mask_reg(d->rs1) | (d->mode ? decode__mask_reg(d->rs2) : 0) |
              (store ? decode__mask_reg(d->rd) : 0);
}

static void decode__branch(uint32_t w, cpu_insn *d)
{
    d->cond = (uint8_t)((((w >> 25) & 7) << 1) | (w & 1));
    d->rd = d->rs1 = 0;
    if (!((w >> 1) & 1)) {
        d->kind = K_BR;
        d->imm = (int32_t)(w & 0x01fffffcu);
    } else if ((w >> 24) & 1) {
        bool ok = !((w >> 23) & 1) && !((w >> 16) & 3) && !((w >> 18) & 31);
        d->kind = ok ? K_BRR : K_ILLEGAL;
        d->imm = decode__sext(w & 0xfffc, 16);
    } else {
        bool ok = !((w >> 23) & 1) && !(w & 0x3fffc);
        d->kind = ok ? K_SCC : K_ILLEGAL;
        d->rs1 = (w >> 18) & 31;
    }
}

static void decode__special_mem(uint32_t w, cpu_insn *d)
{
    unsigned sel = (w >> 16) & 3;
    uint32_t addr = (((w >> 18) & 31) << 16) | (w & 0xffff);
    d->pcslots = 2;
    if (sel <= 1) { /* SLS */
        d->kind = sel ? K_STORE : K_LOAD;
        d->rs1 = 0;
        d->mode = M_OFFSET;
        d->imm = (int32_t)addr;
        d->size = 4;
        d->uses = sel ? decode__mask_reg(d->rd) : 0;
    } else if (sel == 2) { /* SLI */
        d->kind = K_RI;
        d->alu = A_ADD;
        d->rs1 = 0;
        d->imm = (int32_t)addr;
    } else if ((w >> 15) & 1) {
        d->kind = K_ILLEGAL;
    } else { /* SPLS */
        unsigned y = (w >> 14) & 1, s = (w >> 13) & 1, e = (w >> 12) & 1;
        d->kind = s ? K_STORE : K_LOAD;
        d->size = y ? 1 : 2;
        d->sext = !e;
        d->mode = (uint8_t)((w >> 10) & 3);
        d->imm = decode__sext(w & 0x3ff, 10);
        d->uses = decode__mask_reg(d->rs1) | (s ? decode__mask_reg(d->rd) : 0);
        if (s && e) d->kind = K_ILLEGAL;
    }
}

/* The fast path of a decoded instruction, if it has one. */
static void decode__fast(cpu_insn *d)
{
    d->fast = F_GENERIC;
    bool regs_ok = d->rd > 2 && d->rs1 != 2 && d->rs2 != 2 && !d->setf;
    if (d->kind == K_RI && regs_ok) {
        static const uint8_t ri[9] = {F_ADDI, F_GENERIC, F_SUBI, F_GENERIC, F_ANDI, F_ORI, F_XORI, F_SHLI, F_SHAI};
        d->fast = ri[d->alu];
        if (d->alu >= A_SHL) {
            if (d->imm < -31 || d->imm > 31) d->fast = F_GENERIC;
            else if (d->alu == A_SHL && d->imm < 0) d->fast = F_SHRI;
            else if (d->alu == A_SHA && d->imm >= 0) d->fast = F_SHLI; /* left: the same as logical */
            if (d->fast == F_SHRI || d->fast == F_SHAI) d->imm = -d->imm;
        }
    } else if (d->kind == K_RR && regs_ok && d->cond == 0) {
        static const uint8_t rr[9] = {F_ADDR, F_GENERIC, F_SUBR, F_GENERIC, F_ANDR, F_ORR, F_XORR, F_GENERIC, F_GENERIC};
        d->fast = rr[d->alu];
    } else if ((d->kind == K_LOAD || d->kind == K_STORE) && d->size == 4 && d->mode == M_OFFSET && !d->regoff &&
               d->rs1 != 2 && (d->kind == K_STORE || d->rd > 2)) {
        d->fast = d->kind == K_LOAD ? F_LDW : F_STW;
    } else if (d->kind == K_BR) {
        d->fast = F_BR;
    }
    bool flag_ok = d->setf && d->rd != 2 && d->rs1 != 2 && d->rs2 != 2;
    if (flag_ok && d->kind == K_RI) d->fast = F_ALUFI;
    if (flag_ok && d->kind == K_RR && d->cond == 0) d->fast = F_ALUFR;
}

void myri_cpu__decode(uint32_t w, cpu_insn *d)
{
    myri_cpu__decode_slow(w, d);
    decode__fast(d);
}

void myri_cpu__decode_slow(uint32_t w, cpu_insn *d)
{
    memset(d, 0, sizeof *d);
    unsigned op = w >> 28;
    d->rd = (w >> 23) & 31;
    d->rs1 = (w >> 18) & 31;
    d->setf = (w >> 17) & 1;
    d->pcslots = 1;
    d->alu = A_ADD;
    if (op < 8) {
        decode__ri(w, d);
    } else if (op < 0xa) {
        d->kind = (op & 1) ? K_STORE : K_LOAD;
        d->mode = (uint8_t)((w >> 16) & 3);
        d->imm = decode__sext(w, 16);
        d->size = 4;
        d->pcslots = 2;
        d->uses = decode__mask_reg(d->rs1) | ((op & 1) ? decode__mask_reg(d->rd) : 0);
    } else if (op < 0xc) {
        decode__rrm(w, d);
        d->pcslots = 2;
    } else if (op == 0xc) {
        decode__rr(w, d);
    } else if (op == 0xd) {
        unsigned f = w & 7;
        bool ok = !(w & 0x1fff8) && !d->setf && f >= 1 && f <= 3;
        d->kind = ok ? (uint8_t)(K_POPC + f - 1) : K_ILLEGAL;
        d->uses = decode__mask_reg(d->rs1);
    } else if (op == 0xe) {
        decode__branch(w, d);
    } else {
        d->setf = 0;
        decode__special_mem(w, d);
    }
}

bool myri_cpu_legal(uint32_t word)
{
    cpu_insn d;
    myri_cpu__decode_slow(word, &d);
    return d.kind != K_ILLEGAL;
}

/* ---- Printing (llvm-objdump's syntax) ---- */

static const char *const reg_names[32] = {
    "r0",  "r1",  "pc",  "r3",  "sp",  "fp",  "r6",  "r7",  "rv",  "r9",  "rr1",
    "rr2", "r12", "r13", "r14", "rca", "r16", "r17", "r18", "r19", "r20", "r21",
    "r22", "r23", "r24", "r25", "r26", "r27", "r28", "r29", "r30", "r31"};
static const char *const cond_names[16] = {"t",  "f",  "ugt", "ule", "ult", "uge", "ne", "eq",
                                           "vc", "vs", "pl",  "mi",  "ge",  "lt",  "gt", "le"};
static const char *const alu_names[9] = {"add", "addc", "sub", "subb", "and",
                                         "or",  "xor",  "sh",  "sha"};

/* LLVM's formatHex: negative values as -0x... */
static void decode__hex(char *buf, size_t n, int64_t v)
{
    if (v < 0)
        snprintf(buf, n, "-0x%" PRIx64, (uint64_t)(-v));
    else
        snprintf(buf, n, "0x%" PRIx64, (uint64_t)v);
}

static void decode__print_ri(uint32_t w, const cpu_insn *d, char *buf, size_t n)
{
    char imm[24];
    if (w == 1) {
        snprintf(buf, n, "nop");
        return;
    }
    if (w >= 2 && w <= 6) {
        snprintf(buf, n, "log_%u", (unsigned)(w - 2));
        return;
    }
    if ((w >> 28) == 0xf) { /* SLI */
        decode__hex(imm, sizeof imm, d->imm);
        snprintf(buf, n, "mov\t%s, %%%s", imm, reg_names[d->rd]);
        return;
    }
    decode__hex(imm, sizeof imm, d->alu >= A_SHL ? (int64_t)d->imm : (int64_t)(uint32_t)d->imm);
    bool mov = !d->setf && ((d->alu == A_ADD && d->rs1 == 0) || (d->alu == A_AND && d->rs1 == 1));
    if (mov)
        snprintf(buf, n, "mov\t%s, %%%s", imm, reg_names[d->rd]);
    else
        snprintf(buf, n, "%s%s\t%%%s, %s, %%%s", alu_names[d->alu], d->setf ? ".f" : "",
                 reg_names[d->rs1], imm, reg_names[d->rd]);
}

static void decode__print_rr(const cpu_insn *d, char *buf, size_t n)
{
    const char *rd = reg_names[d->rd], *r1 = reg_names[d->rs1], *r2 = reg_names[d->rs2];
    const char *cc = cond_names[d->cond];
    if (d->kind == K_SEL) {
        snprintf(buf, n, "sel.%s %%%s, %%%s, %%%s", cc, r1, r2, rd);
        return;
    }
    if (!d->setf && d->rd == MYRI_CPU_PC && d->alu == A_OR) {
        if (d->rs1 == 0 && d->cond == 0)
            snprintf(buf, n, "bt\t%%%s", r2);
        else if (d->rs2 == 0)
            snprintf(buf, n, "b%s\t%%%s", cc, r1);
        else
            snprintf(buf, n, "b%s\t%%%s add %%%s", cc, r1, r2);
        return;
    }
    if (!d->setf && d->alu == A_ADD && d->rs2 == 0 && d->cond == 0) {
        snprintf(buf, n, "mov\t%%%s, %%%s", r1, rd);
        return;
    }
    snprintf(buf, n, "%s%s%s%s\t%%%s, %%%s, %%%s", alu_names[d->alu], d->setf ? ".f" : "",
             d->cond ? "." : "", d->cond ? cc : "", r1, r2, rd);
}

static const char *decode__mem_name(const cpu_insn *d, uint32_t w)
{
    bool st = d->kind == K_STORE;
    unsigned op = w >> 28;
    if (d->size == 4) {
        if (st) return "st";
        return (op == 0xa && (w & 1)) ? "uld" : "ld";
    }
    if (st) return d->size == 2 ? "st.h" : "st.b";
    if (d->size == 2) return d->sext ? "ld.h" : "uld.h";
    return d->sext ? "ld.b" : "uld.b";
}

/* The address operand: "[--%sp]", "-4[%fp]", "[*%r3 add %r9]", ... */
static void decode__mem_operand(uint32_t w, const cpu_insn *d, char *buf, size_t n)
{
    const char *b = reg_names[d->rs1];
    const char *pre = d->mode == M_PRE ? "*" : "", *post = d->mode == M_POST ? "*" : "";
    unsigned op = w >> 28;
    if (op == 0xf && ((w >> 17) & 1) == 0) { /* SLS */
        char imm[24];
        decode__hex(imm, sizeof imm, d->imm);
        snprintf(buf, n, "[%s]", imm);
        return;
    }
    if (d->regoff) {
        const char *r2 = d->mode == M_BASE ? "r0" : reg_names[d->rs2];
        snprintf(buf, n, "[%s%%%s%s %s %%%s]", pre, b, post, alu_names[d->alu], r2);
        return;
    }
    int32_t off = d->mode == M_BASE ? 0 : d->imm;
    if ((d->mode == M_PRE || d->mode == M_POST) && (off == d->size || off == -(int32_t)d->size)) {
        const char *inc = off < 0 ? "--" : "++";
        if (d->mode == M_PRE)
            snprintf(buf, n, "[%s%%%s]", inc, b);
        else
            snprintf(buf, n, "[%%%s%s]", b, inc);
        return;
    }
    snprintf(buf, n, "%" PRId32 "[%s%%%s%s]", off, pre, b, post);
}

static void decode__print_mem(uint32_t w, const cpu_insn *d, char *buf, size_t n)
{
    char addr[64];
    if (w == 0x8116fffcu) {
        snprintf(buf, n, "ld\t-4[%%fp], %%pc ! return");
        return;
    }
    decode__mem_operand(w, d, addr, sizeof addr);
    if (d->kind == K_STORE)
        snprintf(buf, n, "%s\t%%%s, %s", decode__mem_name(d, w), reg_names[d->rd], addr);
    else
        snprintf(buf, n, "%s\t%s, %%%s", decode__mem_name(d, w), addr, reg_names[d->rd]);
}

void myri_cpu_disasm(uint32_t w, char *buf, size_t n, uint32_t *target, bool *has_target)
{
    cpu_insn d;
    char imm[24];
    myri_cpu__decode_slow(w, &d);
    *has_target = false;
    *target = 0;
    switch (d.kind) {
    case K_RI: decode__print_ri(w, &d, buf, n); break;
    case K_RR:
    case K_SEL: decode__print_rr(&d, buf, n); break;
    case K_LOAD:
    case K_STORE: decode__print_mem(w, &d, buf, n); break;
    case K_BR:
        decode__hex(imm, sizeof imm, d.imm);
        snprintf(buf, n, "b%s\t%s", cond_names[d.cond], imm);
        *target = (uint32_t)d.imm;
        *has_target = true;
        break;
    case K_BRR:
        decode__hex(imm, sizeof imm, (int64_t)(w & 0xfffc));
        snprintf(buf, n, "b%s.r\t%s", cond_names[d.cond], imm);
        *target = w & 0xfffc;
        *has_target = true;
        break;
    case K_SCC: snprintf(buf, n, "s%s\t%%%s", cond_names[d.cond], reg_names[d.rs1]); break;
    case K_POPC:
    case K_LEADZ:
    case K_TRAILZ: {
        static const char *const names[3] = {"popc", "leadz", "trailz"};
        snprintf(buf, n, "%s\t%%%s, %%%s", names[d.kind - K_POPC], reg_names[d.rs1], reg_names[d.rd]);
        break;
    }
    default: snprintf(buf, n, "<unknown>"); break;
    }
}
