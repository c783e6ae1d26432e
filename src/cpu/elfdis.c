/* elfdis.c -- `myri lanai disasm`: the executable sections of a Lanai ELF
 * object in llvm-objdump -d's layout: a header per symbol, "ADDR: bytes
 * <TAB>instruction", runs of eight or more zero bytes shown as "...", the
 * targets of branches with a non-zero immediate annotated "<sym+0xoff>"
 * (objdump's LanaiMCInstrAnalysis skips 0, the value of unlinked branches).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_int.h"

typedef struct dis_buf {
    char *s;
    size_t len, cap;
    bool oom;
} dis_buf;

static void dis__printf(dis_buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int k = b->s ? vsnprintf(b->s + b->len, room, fmt, ap) : -1;
        va_end(ap);
        if (k >= 0 && (size_t)k < room) {
            b->len += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        if (k >= 0 && cap < b->len + (size_t)k + 1) cap = b->len + (size_t)k + 1;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

static uint32_t dis__be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t dis__be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

typedef struct dis_sym {
    uint32_t addr;
    const char *name;
} dis_sym;

static int dis__cmp(const void *a, const void *b)
{
    const dis_sym *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return strcmp(x->name, y->name);
}

static const char *dis__str(const uint8_t *d, size_t n, const uint8_t *sh, uint32_t off)
{
    uint32_t o = dis__be32(sh + 16), sz = dis__be32(sh + 20);
    if (off >= sz || o > n || sz > n - o) return "";
    const char *p = (const char *)d + o + off;
    return memchr(p, 0, sz - off) ? p : "";
}

/* The symbols of section sec (no section or file symbols), sorted. */
static dis_sym *dis__symbols(const uint8_t *d, size_t n, uint32_t shoff, uint32_t shnum, uint32_t sec, size_t *count)
{
    *count = 0;
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *h = d + shoff + 40 * i;
        if (dis__be32(h + 4) != 2) continue;
        uint32_t off = dis__be32(h + 16), size = dis__be32(h + 20), link = dis__be32(h + 24);
        if (link >= shnum) return NULL;
        const uint8_t *strh = d + shoff + 40 * link;
        dis_sym *v = malloc((size / 16 + 1) * sizeof *v);
        if (!v) return NULL;
        for (uint32_t k = 1; k < size / 16; k++) {
            const uint8_t *p = d + off + 16 * k;
            unsigned type = p[12] & 15;
            if (dis__be16(p + 14) != sec || type == 3 || type == 4) continue;
            v[*count].addr = dis__be32(p + 4);
            v[*count].name = dis__str(d, n, strh, dis__be32(p));
            (*count)++;
        }
        qsort(v, *count, sizeof *v, dis__cmp);
        return v;
    }
    return malloc(sizeof(dis_sym));
}

static void dis__target(dis_buf *b, const dis_sym *syms, size_t ns, uint32_t target, uint32_t size,
                        const char *secname)
{
    const dis_sym *best = NULL;
    (void)size;
    for (size_t i = 0; i < ns; i++)
        if (syms[i].addr <= target) best = &syms[i];
    const char *name = best ? best->name : secname;
    uint32_t off = target - (best ? best->addr : 0);
    if (off)
        dis__printf(b, " <%s+0x%" PRIx32 ">", name, off);
    else
        dis__printf(b, " <%s>", name);
}

static void dis__section(dis_buf *b, const uint8_t *code, uint32_t size, const dis_sym *syms, size_t ns,
                         const char *secname)
{
    dis__printf(b, "\nDisassembly of section %s:\n", secname);
    size_t si = 0;
    uint32_t at = 0;
    if (!ns || syms[0].addr != 0) dis__printf(b, "\n%08x <%s>:\n", 0u, secname);
    while (at + 4 <= size) {
        uint32_t end = size;
        while (si < ns && syms[si].addr <= at) {
            if (syms[si].addr == at) dis__printf(b, "\n%08" PRIx32 " <%s>:\n", at, syms[si].name);
            si++;
        }
        if (si < ns && syms[si].addr < end) end = syms[si].addr;
        uint32_t z = 0;
        while (at + z < end && !code[at + z]) z++;
        if (z >= 8) {
            dis__printf(b, "\t\t...\n");
            at += z & ~3u;
            continue;
        }
        uint32_t w = dis__be32(code + at), target;
        bool has;
        char text[96];
        myri_cpu_disasm(w, text, sizeof text, &target, &has);
        dis__printf(b, "%8" PRIx32 ": %02x %02x %02x %02x  \t%s", at, w >> 24, (w >> 16) & 255, (w >> 8) & 255, w & 255,
                    text);
        if (has && target) dis__target(b, syms, ns, target, size, secname);
        dis__printf(b, "\n");
        at += 4;
    }
}

char *myri_cpu_disasm_object(const char *name, const uint8_t *d, size_t n, char *err, size_t errlen)
{
    if (myri_cpu_elf_check(d, n, err, errlen)) return NULL;
    uint32_t shoff = dis__be32(d + 0x20), shnum = dis__be16(d + 0x30), shstr = dis__be16(d + 0x32);
    dis_buf b = {0};
    dis__printf(&b, "\n%s:\tfile format elf32-lanai\n", name);
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *h = d + shoff + 40 * i;
        uint32_t type = dis__be32(h + 4), flags = dis__be32(h + 8), off = dis__be32(h + 16), size = dis__be32(h + 20);
        if (type != 1 || !(flags & 4) || !(flags & 2)) continue;
        size_t ns;
        dis_sym *syms = dis__symbols(d, n, shoff, shnum, i, &ns);
        if (!syms) {
            free(b.s);
            snprintf(err, errlen, "bad symbol table");
            return NULL;
        }
        dis__section(&b, d + off, size, syms, ns, dis__str(d, n, d + shoff + 40 * shstr, dis__be32(h)));
        free(syms);
    }
    if (b.oom) {
        free(b.s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    return b.s;
}
