/* loader.c -- links relocatable ELF objects for the Lanai (EM_LANAI, 32-bit,
 * big-endian, RELA) into SRAM: what ld.lld cannot do, since it does not
 * know the R_LANAI_* relocations.
 *
 * Sections with SHF_ALLOC are placed in four passes (code, read-only data,
 * data, zero-filled), each object's in input order, each at its alignment;
 * COMMON symbols follow.  Global definitions go into one table: a
 * program's own definition wins over the runtime's, two strong ones in the
 * program are an error, a strong one wins over a weak one.  Relocations
 * (LLVM's LanaiELFObjectWriter / Lanai.def; field placement as
 * LanaiInstrFormats.td):
 *   R_LANAI_NONE  0  nothing
 *   R_LANAI_21    1  SLS/SLI address: bits 22..18 <- v[20:16], 15..0 <- v[15:0]; v < 2^21
 *   R_LANAI_21_F  2  the same with bits 1..0 of the word kept; v < 2^21, v % 4 == 0
 *   R_LANAI_25    3  BR target: bits 24..2 <- v[24:2]; v < 2^25, v % 4 == 0
 *   R_LANAI_32    4  the whole word
 *   R_LANAI_HI16  5  bits 15..0 <- v[31:16]
 *   R_LANAI_LO16  6  bits 15..0 <- v[15:0]
 * with v = S + A.  Every field read from the file is checked against the
 * file's size before use.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_int.h"

#define EM_LANAI 244u
#define SHT_SYMTAB 2u
#define SHT_RELA 4u
#define SHT_NOBITS 8u
#define SHT_REL 9u
#define SHF_WRITE 1u
#define SHF_ALLOC 2u
#define SHF_EXEC 4u
#define SHN_UNDEF 0u
#define SHN_ABS 0xfff1u
#define SHN_COMMON 0xfff2u
#define NO_ADDR 0xffffffffu

typedef struct elf_sec {
    uint32_t name, type, flags, offset, size, link, info, align, entsize;
} elf_sec;

typedef struct elf_obj {
    const char *file;
    const uint8_t *d;
    size_t n;
    bool runtime;
    uint32_t nsec;
    elf_sec *sec;
    uint32_t *addr; /* placed address of each section, NO_ADDR if not placed */
    uint32_t symtab, nsyms;
    uint32_t *common; /* address of each COMMON symbol (by index) */
} elf_obj;

typedef struct gsym {
    const char *name;
    uint32_t addr;
    bool weak, runtime;
    const char *file;
} gsym;

typedef struct linker {
    elf_obj *objs;
    size_t nobjs;
    gsym *g;
    size_t ng, capg;
    uint8_t *sram;
    uint32_t sram_bytes, at;
    char *err;
    size_t errlen;
} linker;

static int ld__fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (err && errlen) vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint32_t ld__be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint16_t ld__be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

/* A NUL-terminated string at offset off of section s, or NULL. */
static const char *ld__str(const elf_obj *o, uint32_t s, uint32_t off)
{
    if (s >= o->nsec) return NULL;
    const elf_sec *x = &o->sec[s];
    if (x->type == SHT_NOBITS || x->type == 0 || off >= x->size || x->offset > o->n || x->size > o->n - x->offset)
        return NULL;
    const char *p = (const char *)o->d + x->offset + off;
    if (!memchr(p, 0, x->size - off)) return NULL;
    return p;
}

static const char *ld__secname(const elf_obj *o, uint32_t s)
{
    uint32_t shstr = ld__be16(o->d + 0x32);
    const char *nm = s < o->nsec ? ld__str(o, shstr, o->sec[s].name) : NULL;
    return nm ? nm : "?";
}

int myri_cpu_elf_check(const uint8_t *d, size_t n, char *err, size_t errlen)
{
    if (n < 52 || memcmp(d, "\177ELF", 4)) return ld__fail(err, errlen, "not an ELF file");
    if (d[4] != 1 || d[5] != 2) return ld__fail(err, errlen, "not a 32-bit big-endian ELF file");
    if (ld__be16(d + 0x12) != EM_LANAI)
        return ld__fail(err, errlen, "wrong machine %u (expected %u, EM_LANAI: compile with clang --target=lanai)",
                        ld__be16(d + 0x12), EM_LANAI);
    if (ld__be16(d + 0x10) != 1) return ld__fail(err, errlen, "not a relocatable object (ET_REL)");
    uint32_t shoff = ld__be32(d + 0x20), shnum = ld__be16(d + 0x30), shent = ld__be16(d + 0x2e);
    if (shent != 40 || shnum == 0 || shoff > n || (uint64_t)shnum * 40 > n - shoff)
        return ld__fail(err, errlen, "truncated or bad section header table");
    if (ld__be16(d + 0x32) >= shnum) return ld__fail(err, errlen, "bad section name table index");
    for (uint32_t i = 0; i < shnum; i++) {
        const uint8_t *h = d + shoff + 40 * i;
        uint32_t type = ld__be32(h + 4), off = ld__be32(h + 16), size = ld__be32(h + 20);
        if (type != SHT_NOBITS && type != 0 && (off > n || size > n - off))
            return ld__fail(err, errlen, "truncated: section %u extends past the end of the file", i);
    }
    return 0;
}

static int ld__parse(elf_obj *o, char *err, size_t errlen)
{
    char why[160];
    if (myri_cpu_elf_check(o->d, o->n, why, sizeof why))
        return ld__fail(err, errlen, "%s: %s", o->file, why);
    uint32_t shoff = ld__be32(o->d + 0x20);
    o->nsec = ld__be16(o->d + 0x30);
    o->sec = calloc(o->nsec, sizeof *o->sec);
    o->addr = malloc(o->nsec * sizeof *o->addr);
    if (!o->sec || !o->addr) return ld__fail(err, errlen, "out of memory");
    for (uint32_t i = 0; i < o->nsec; i++) {
        const uint8_t *h = o->d + shoff + 40 * i;
        elf_sec *s = &o->sec[i];
        s->name = ld__be32(h);
        s->type = ld__be32(h + 4);
        s->flags = ld__be32(h + 8);
        s->offset = ld__be32(h + 16);
        s->size = ld__be32(h + 20);
        s->link = ld__be32(h + 24);
        s->info = ld__be32(h + 28);
        s->align = ld__be32(h + 32);
        s->entsize = ld__be32(h + 36);
        o->addr[i] = NO_ADDR;
        if (s->type == SHT_SYMTAB) {
            if (s->link >= o->nsec || s->size % 16) return ld__fail(err, errlen, "%s: bad symbol table", o->file);
            o->symtab = i;
            o->nsyms = s->size / 16;
        }
        if (s->type == SHT_REL)
            return ld__fail(err, errlen, "%s: section %s: REL relocations (without addend) are not Lanai's", o->file,
                            ld__secname(o, i));
    }
    o->common = calloc(o->nsyms ? o->nsyms : 1, sizeof *o->common);
    return o->common ? 0 : ld__fail(err, errlen, "out of memory");
}

/* Symbol i of o: its fields; false if i is out of range. */
static bool ld__sym(const elf_obj *o, uint32_t i, uint32_t *value, uint32_t *size, unsigned *bind,
                    unsigned *type, uint32_t *shndx, const char **name)
{
    if (!o->nsyms || i >= o->nsyms) return false;
    const uint8_t *p = o->d + o->sec[o->symtab].offset + 16 * i;
    *value = ld__be32(p + 4);
    *size = ld__be32(p + 8);
    *bind = p[12] >> 4;
    *type = p[12] & 15;
    *shndx = ld__be16(p + 14);
    const char *nm = ld__str(o, o->sec[o->symtab].link, ld__be32(p));
    *name = nm ? nm : "";
    return true;
}

static int ld__place_class(linker *L, int cls)
{
    for (size_t k = 0; k < L->nobjs; k++) {
        elf_obj *o = &L->objs[k];
        for (uint32_t i = 0; i < o->nsec; i++) {
            elf_sec *s = &o->sec[i];
            if (!(s->flags & SHF_ALLOC) || (s->type != SHT_NOBITS && s->type != 1)) continue;
            int c = s->type == SHT_NOBITS ? 3 : (s->flags & SHF_EXEC) ? 0 : (s->flags & SHF_WRITE) ? 2 : 1;
            if (c != cls) continue;
            uint32_t al = s->align > 1 ? s->align : 1;
            if (al & (al - 1)) return ld__fail(L->err, L->errlen, "%s: section %s: alignment %u is not a power of two",
                                               o->file, ld__secname(o, i), al);
            uint64_t at = ((uint64_t)L->at + al - 1) & ~(uint64_t)(al - 1);
            if (at + s->size > L->sram_bytes)
                return ld__fail(L->err, L->errlen, "%s: section %s (%u bytes) does not fit in SRAM (%u bytes)", o->file,
                                ld__secname(o, i), s->size, L->sram_bytes);
            o->addr[i] = (uint32_t)at;
            if (s->type == SHT_NOBITS)
                memset(L->sram + at, 0, s->size);
            else
                memcpy(L->sram + at, o->d + s->offset, s->size);
            L->at = (uint32_t)(at + s->size);
        }
    }
    return 0;
}

static int ld__place_common(linker *L)
{
    for (size_t k = 0; k < L->nobjs; k++) {
        elf_obj *o = &L->objs[k];
        for (uint32_t i = 1; i < o->nsyms; i++) {
            uint32_t v, sz, sh;
            unsigned b, t;
            const char *nm;
            ld__sym(o, i, &v, &sz, &b, &t, &sh, &nm);
            if (sh != SHN_COMMON) continue;
            uint32_t al = v > 1 ? v : 1;
            if (al & (al - 1)) al = 4;
            uint64_t at = ((uint64_t)L->at + al - 1) & ~(uint64_t)(al - 1);
            if (at + sz > L->sram_bytes)
                return ld__fail(L->err, L->errlen, "%s: common symbol '%s' does not fit in SRAM", o->file, nm);
            memset(L->sram + at, 0, sz);
            o->common[i] = (uint32_t)at;
            L->at = (uint32_t)(at + sz);
        }
    }
    return 0;
}

/* The address of a symbol defined in o (index i), false if undefined. */
static bool ld__defined_addr(const elf_obj *o, uint32_t i, uint32_t v, uint32_t sh, uint32_t *addr)
{
    if (sh == SHN_UNDEF) return false;
    if (sh == SHN_ABS) {
        *addr = v;
    } else if (sh == SHN_COMMON) {
        *addr = o->common[i];
    } else {
        if (sh >= o->nsec || o->addr[sh] == NO_ADDR) return false;
        *addr = o->addr[sh] + v;
    }
    return true;
}

static gsym *ld__find(linker *L, const char *name)
{
    for (size_t i = 0; i < L->ng; i++)
        if (!strcmp(L->g[i].name, name)) return &L->g[i];
    return NULL;
}

static int ld__define(linker *L, const elf_obj *o, const char *name, uint32_t addr, bool weak)
{
    gsym *g = ld__find(L, name);
    if (g) {
        if (g->runtime && !o->runtime) goto replace;        /* the program's wins */
        if (!g->runtime && o->runtime) return 0;            /* the runtime's yields */
        if (g->weak && !weak) goto replace;
        if (weak || g->weak) return 0;
        return ld__fail(L->err, L->errlen, "%s: symbol '%s' is defined twice (also in %s)", o->file, name, g->file);
    }
    if (L->ng == L->capg) {
        size_t cap = L->capg ? L->capg * 2 : 64;
        gsym *ng = realloc(L->g, cap * sizeof *ng);
        if (!ng) return ld__fail(L->err, L->errlen, "out of memory");
        L->g = ng;
        L->capg = cap;
    }
    g = &L->g[L->ng++];
replace:
    g->name = name;
    g->addr = addr;
    g->weak = weak;
    g->runtime = o->runtime;
    g->file = o->file;
    return 0;
}

static int ld__globals(linker *L)
{
    for (size_t k = 0; k < L->nobjs; k++) {
        const elf_obj *o = &L->objs[k];
        for (uint32_t i = 1; i < o->nsyms; i++) {
            uint32_t v, sz, sh, addr;
            unsigned b, t;
            const char *nm;
            ld__sym(o, i, &v, &sz, &b, &t, &sh, &nm);
            if ((b != 1 && b != 2) || !*nm || !ld__defined_addr(o, i, v, sh, &addr)) continue;
            if (ld__define(L, o, nm, addr, b == 2)) return -1;
        }
    }
    return 0;
}

/* The value S of relocation symbol i in o; -1 (message set) if undefined. */
static int ld__sym_value(linker *L, const elf_obj *o, uint32_t i, const char *where, uint32_t *S,
                         const char **symname)
{
    uint32_t v, sz, sh;
    unsigned b, t;
    const char *nm;
    if (!ld__sym(o, i, &v, &sz, &b, &t, &sh, &nm))
        return ld__fail(L->err, L->errlen, "%s: %s: relocation names symbol %u, which does not exist", o->file, where, i);
    *symname = *nm ? nm : (t == 3 && sh < o->nsec ? ld__secname(o, sh) : "?");
    if (b == 0 || sh != SHN_UNDEF) { /* local, or defined here: its own definition */
        if (ld__defined_addr(o, i, v, sh, S)) {
            if (b != 0) { /* a global defined here may have been overridden (runtime) */
                gsym *g = ld__find(L, nm);
                if (g) *S = g->addr;
            }
            return 0;
        }
        return ld__fail(L->err, L->errlen, "%s: %s: symbol '%s' is in a section that is not loaded", o->file, where,
                        *symname);
    }
    gsym *g = ld__find(L, nm);
    if (g) {
        *S = g->addr;
        return 0;
    }
    if (b == 2) { /* an undefined weak symbol is 0 */
        *S = 0;
        return 0;
    }
    return ld__fail(L->err, L->errlen, "%s: %s: undefined symbol '%s'", o->file, where, nm);
}

static int ld__apply(linker *L, const elf_obj *o, const char *where, const char *sym, unsigned type,
                     uint8_t *p, uint32_t v)
{
    uint32_t w = ld__be32(p);
    switch (type) {
    case 0: return 0;
    case 1:
    case 2:
        if (v > 0x1fffff || (type == 2 && (v & 3)))
            return ld__fail(L->err, L->errlen, "%s: %s: R_LANAI_21%s overflow: '%s' = 0x%" PRIx32 " (needs < 0x200000%s)",
                            o->file, where, type == 2 ? "_F" : "", sym, v, type == 2 ? ", 4-aligned" : "");
        w = (w & ~(type == 2 ? 0x7cfffcu : 0x7cffffu)) | ((v >> 16) & 31) << 18 | (v & (type == 2 ? 0xfffcu : 0xffffu));
        break;
    case 3:
        if (v > 0x1ffffff || (v & 3))
            return ld__fail(L->err, L->errlen, "%s: %s: R_LANAI_25 overflow: '%s' = 0x%" PRIx32 " (needs < 0x2000000, 4-aligned)",
                            o->file, where, sym, v);
        w = (w & ~0x1fffffcu) | v;
        break;
    case 4: w = v; break;
    case 5: w = (w & ~0xffffu) | v >> 16; break;
    case 6: w = (w & ~0xffffu) | (v & 0xffff); break;
    default:
        return ld__fail(L->err, L->errlen, "%s: %s: unknown relocation type %u (symbol '%s')", o->file, where, type, sym);
    }
    p[0] = (uint8_t)(w >> 24);
    p[1] = (uint8_t)(w >> 16);
    p[2] = (uint8_t)(w >> 8);
    p[3] = (uint8_t)w;
    return 0;
}

static int ld__relocate_section(linker *L, const elf_obj *o, uint32_t ri)
{
    const elf_sec *rs = &o->sec[ri];
    uint32_t tgt = rs->info;
    if (tgt >= o->nsec || o->addr[tgt] == NO_ADDR) return 0; /* e.g. debug sections */
    if (rs->link != o->symtab || rs->size % 12)
        return ld__fail(L->err, L->errlen, "%s: %s: bad relocation section", o->file, ld__secname(o, ri));
    const elf_sec *ts = &o->sec[tgt];
    for (uint32_t k = 0; k < rs->size / 12; k++) {
        const uint8_t *e = o->d + rs->offset + 12 * k;
        uint32_t off = ld__be32(e), info = ld__be32(e + 4);
        int32_t addend = (int32_t)ld__be32(e + 8);
        char where[96];
        snprintf(where, sizeof where, "section %s offset 0x%" PRIx32, ld__secname(o, tgt), off);
        if (ts->type == SHT_NOBITS || off > ts->size || ts->size - off < 4 || (off & 3))
            return ld__fail(L->err, L->errlen, "%s: %s: relocation outside its section", o->file, where);
        uint32_t S = 0;
        const char *sym = "?";
        if (ld__sym_value(L, o, info >> 8, where, &S, &sym)) return -1;
        if (ld__apply(L, o, where, sym, info & 0xff, L->sram + o->addr[tgt] + off, S + (uint32_t)addend))
            return -1;
    }
    return 0;
}

static int ld__cmp_sym(const void *a, const void *b)
{
    const myri_cpu_symbol *x = a, *y = b;
    if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The image's symbols: every named function or object symbol, sorted. */
static int ld__image(linker *L, myri_cpu_image *img)
{
    size_t cap = 64;
    img->syms = malloc(cap * sizeof *img->syms);
    if (!img->syms) return ld__fail(L->err, L->errlen, "out of memory");
    for (size_t k = 0; k < L->nobjs; k++) {
        const elf_obj *o = &L->objs[k];
        for (uint32_t i = 1; i < o->nsyms; i++) {
            uint32_t v, sz, sh, addr;
            unsigned b, t;
            const char *nm;
            ld__sym(o, i, &v, &sz, &b, &t, &sh, &nm);
            if (t > 2 || !*nm || nm[0] == '.' || !ld__defined_addr(o, i, v, sh, &addr)) continue;
            if (b != 0) {
                gsym *g = ld__find(L, nm);
                if (g && (g->addr != addr)) continue; /* overridden */
            }
            if (img->nsyms == cap) {
                myri_cpu_symbol *ns = realloc(img->syms, 2 * cap * sizeof *ns);
                if (!ns) return ld__fail(L->err, L->errlen, "out of memory");
                img->syms = ns;
                cap *= 2;
            }
            myri_cpu_symbol *s = &img->syms[img->nsyms];
            s->name = strdup(nm);
            if (!s->name) return ld__fail(L->err, L->errlen, "out of memory");
            s->addr = addr;
            s->size = sz;
            s->func = t == 2;
            s->global = b != 0;
            img->nsyms++;
        }
    }
    qsort(img->syms, img->nsyms, sizeof *img->syms, ld__cmp_sym);
    return 0;
}

static int ld__run(linker *L, myri_cpu_image *img)
{
    for (size_t k = 0; k < L->nobjs; k++)
        if (ld__parse(&L->objs[k], L->err, L->errlen)) return -1;
    for (int cls = 0; cls < 4; cls++)
        if (ld__place_class(L, cls)) return -1;
    if (ld__place_common(L) || ld__globals(L)) return -1;
    for (size_t k = 0; k < L->nobjs; k++) {
        const elf_obj *o = &L->objs[k];
        for (uint32_t i = 0; i < o->nsec; i++)
            if (o->sec[i].type == SHT_RELA && ld__relocate_section(L, o, i)) return -1;
    }
    img->end = L->at;
    return ld__image(L, img);
}

int myri_cpu_link(const myri_cpu_object *objs, size_t nobjs, const myri_cpu_object *runtime, size_t nruntime,
                  uint8_t *sram, uint32_t sram_bytes, uint32_t base, myri_cpu_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    linker L = {0};
    L.nobjs = nobjs + nruntime;
    L.objs = calloc(L.nobjs ? L.nobjs : 1, sizeof *L.objs);
    if (!L.objs) return ld__fail(err, errlen, "out of memory");
    for (size_t k = 0; k < L.nobjs; k++) {
        const myri_cpu_object *x = k < nobjs ? &objs[k] : &runtime[k - nobjs];
        L.objs[k].file = x->name;
        L.objs[k].d = x->data;
        L.objs[k].n = x->size;
        L.objs[k].runtime = k >= nobjs;
    }
    L.sram = sram;
    L.sram_bytes = sram_bytes;
    L.at = base;
    L.err = err;
    L.errlen = errlen;
    int rc = base > sram_bytes ? ld__fail(err, errlen, "base address past SRAM") : ld__run(&L, img);
    for (size_t k = 0; k < L.nobjs; k++) {
        free(L.objs[k].sec);
        free(L.objs[k].addr);
        free(L.objs[k].common);
    }
    free(L.objs);
    free(L.g);
    if (rc) myri_cpu_image_free(img);
    return rc;
}

void myri_cpu_image_free(myri_cpu_image *img)
{
    for (size_t i = 0; i < img->nsyms; i++) free(img->syms[i].name);
    free(img->syms);
    memset(img, 0, sizeof *img);
}

bool myri_cpu_image_lookup(const myri_cpu_image *img, const char *name, uint32_t *addr)
{
    for (size_t i = 0; i < img->nsyms; i++)
        if (img->syms[i].global && !strcmp(img->syms[i].name, name)) {
            *addr = img->syms[i].addr;
            return true;
        }
    return false;
}

const char *myri_cpu_image_function(const myri_cpu_image *img, uint32_t addr, uint32_t *offset)
{
    const myri_cpu_symbol *best = NULL;
    for (size_t i = 0; i < img->nsyms; i++) {
        const myri_cpu_symbol *s = &img->syms[i];
        if (s->func && s->addr <= addr && (!s->size || addr < s->addr + s->size)) best = s;
    }
    if (!best) return NULL;
    *offset = addr - best->addr;
    return best->name;
}

int myri_cpu_object_read(const char *path, myri_cpu_object *o, char *err, size_t errlen)
{
    o->name = path;
    o->data = NULL;
    o->size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 65536, len = 0;
    uint8_t *buf = malloc(cap);
    const char *why = buf ? NULL : "out of memory";
    while (!why) {
        if (len == cap) {
            uint8_t *nb = cap >= MYRI_CPU_OBJECT_MAX ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                why = cap >= MYRI_CPU_OBJECT_MAX ? "larger than 64 MiB; expected a LANai object" : "out of memory";
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t k = fread(buf + len, 1, cap - len, f);
        len += k;
        if (k == 0) break;
    }
    if (!why && ferror(f)) why = "read error";
    fclose(f);
    if (why) {
        free(buf);
        snprintf(err, errlen, "cannot read '%s': %s", path, why);
        return -1;
    }
    o->data = buf;
    o->size = len;
    return 0;
}
