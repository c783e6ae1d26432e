/* system_vcd.c -- NIC timelines as VCD (see system_vcd.h). */
#include "app/system_vcd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    VCD_SIG_HDMA = 0, VCD_SIG_SDMA, VCD_SIG_RDMA, VCD_SIG_CPU, VCD_SIG_ISR,
    VCD_SIG_EAR, VCD_SIG_LAR, VCD_SIG_DMA_CTR, VCD_SIG_SMP, VCD_SIG_SML, VCD_SIG_SMLT, VCD_SIG_RMP, VCD_SIG_RML,
    VCD_NFIXED
};

/* The fixed signals: name and width. */
static const struct {
    const char *name;
    unsigned width;
} vcd__fixed[VCD_NFIXED] = {
    {"host_dma", 2}, {"send_dma", 1}, {"recv_dma", 1}, {"cpu", 2}, {"isr", 32},
    {"ear", 32}, {"lar", 32}, {"dma_ctr", 32}, {"smp", 32}, {"sml", 32}, {"smlt", 32}, {"rmp", 32}, {"rml", 32},
};

/* The register lane of a DMA register offset (lanai_regs.h), -1 if none. */
static int vcd__reg_sig(uint32_t reg)
{
    switch (reg) {
    case MYRI_LANAI_EAR: return VCD_SIG_EAR;
    case MYRI_LANAI_LAR: return VCD_SIG_LAR;
    case MYRI_LANAI_DMA_CTR: return VCD_SIG_DMA_CTR;
    case MYRI_LANAI_SMP: return VCD_SIG_SMP;
    case MYRI_LANAI_SML: return VCD_SIG_SML;
    case MYRI_LANAI_SMLT: return VCD_SIG_SMLT;
    case MYRI_LANAI_RMP: return VCD_SIG_RMP;
    case MYRI_LANAI_RML: return VCD_SIG_RML;
    default: return -1;
    }
}

typedef struct vcd__sig {
    char id[8];          /* the VCD identifier code */
    unsigned width;      /* bits */
    uint32_t value;
} vcd__sig;

typedef struct vcd__nic {
    struct myri_vcd *v;
    myri_lanai *l;
    uint32_t index;      /* in myri_vcd.nic */
    char name[64];
    const char *const *machines;
    size_t nmachines;
    vcd__sig *sig;       /* VCD_NFIXED + nmachines */
} vcd__nic;

/* A value change waiting to be written: records can arrive out of time order
 * (the receive DMA's start is known only when its window ends), so they wait
 * in a buffer sorted by (time, arrival) until nothing earlier can arrive:
 * until the earliest start a receive interval still to be told can have
 * (myri_lanai_rx_pending_ps of every NIC). */
typedef struct vcd__rec {
    myri_time_ps t;
    uint64_t seq;
    uint32_t nic, sig, value;
} vcd__rec;

struct myri_vcd {
    vcd__rec *buf;
    size_t nbuf, capbuf;
    uint64_t seq;
    size_t next_flush;   /* try to write out the buffer when it holds this many */
    FILE *f;
    vcd__nic **nic;      /* each allocated alone: the LANai's trace keeps its address */
    size_t nnic, capnic;
    unsigned next_id;
    bool begun, failed;
    myri_time_ps t;      /* the last time stamp written */
    bool t_written;
};

static void vcd__id(unsigned n, char *out)
{
    /* printable identifier codes '!'..'~', little-endian base 94 */
    size_t k = 0;
    do {
        out[k++] = (char)('!' + n % 94u);
        n /= 94u;
    } while (n && k < 6);
    out[k] = '\0';
}

myri_status myri_vcd_open(const char *path, myri_vcd **out, myri_error *err)
{
    if (!out) return MYRI_EINVAL;
    *out = NULL;
    if (!path) return MYRI_EINVAL;
    myri_vcd *v = calloc(1, sizeof *v);
    if (!v) return MYRI_ENOMEM;
    v->f = fopen(path, "w");
    if (!v->f) {
        if (err) myri_error_at(err, NULL, "--vcd %s: cannot write: %s", path, strerror(errno));
        free(v);
        return MYRI_EIO;
    }
    *out = v;
    return MYRI_OK;
}

static void vcd__stamp(myri_vcd *v, myri_time_ps t)
{
    if (t < v->t) t = v->t; /* never backwards (events arrive in engine order) */
    if (!v->t_written || t != v->t) {
        if (fprintf(v->f, "#%llu\n", (unsigned long long)t) < 0) v->failed = true;
        v->t = t;
        v->t_written = true;
    }
}

static void vcd__put(myri_vcd *v, const vcd__sig *s)
{
    int rc;
    if (s->width == 1) {
        rc = fprintf(v->f, "%u%s\n", (unsigned)(s->value & 1u), s->id);
    } else {
        char bits[40];
        unsigned n = 0;
        bool lead = true;
        for (int b = (int)s->width - 1; b >= 0; b--) {
            unsigned bit = (s->value >> b) & 1u;
            if (lead && !bit && b > 0) continue;
            lead = false;
            bits[n++] = (char)('0' + bit);
        }
        bits[n] = '\0';
        rc = fprintf(v->f, "b%s %s\n", bits, s->id);
    }
    if (rc < 0) v->failed = true;
}

/* Writes the buffered changes up to (and not including) time `upto`. */
static void vcd__flush(myri_vcd *v, myri_time_ps upto)
{
    size_t k = 0;
    for (; k < v->nbuf && v->buf[k].t < upto; k++) {
        const vcd__rec *r = &v->buf[k];
        vcd__sig *s = &v->nic[r->nic]->sig[r->sig];
        if (s->value == r->value) continue;
        s->value = r->value;
        vcd__stamp(v, r->t);
        vcd__put(v, s);
    }
    if (k) memmove(v->buf, v->buf + k, (v->nbuf - k) * sizeof *v->buf);
    v->nbuf -= k;
}

/* Writes out what no later record can precede: everything before the
 * earliest pending receive start of any NIC, and before now. */
static void vcd__flush_final(myri_vcd *v, myri_time_ps now)
{
    myri_time_ps h = now;
    for (size_t i = 0; i < v->nnic; i++) {
        myri_time_ps p = myri_lanai_rx_pending_ps(v->nic[i]->l);
        if (p < h) h = p;
    }
    vcd__flush(v, h);
    v->next_flush = v->nbuf > 128 ? 2 * v->nbuf : 256;
}

static void vcd__set(vcd__nic *n, size_t k, uint32_t value, myri_time_ps t, myri_time_ps now)
{
    myri_vcd *v = n->v;
    vcd__sig *s = &n->sig[k];
    if (s->width < 32) value &= (1u << s->width) - 1u;
    if (!v->begun) {
        s->value = value;
        return;
    }
    if (v->nbuf == v->capbuf) {
        size_t cap = v->capbuf ? 2 * v->capbuf : 256;
        vcd__rec *b = realloc(v->buf, cap * sizeof *b);
        if (!b) {
            v->failed = true;
            return;
        }
        v->buf = b;
        v->capbuf = cap;
    }
    size_t i = v->nbuf++; /* insertion from the end: records come almost in order */
    while (i > 0 && v->buf[i - 1].t > t) {
        v->buf[i] = v->buf[i - 1];
        i--;
    }
    v->buf[i] = (vcd__rec){t, v->seq++, n->index, (uint32_t)k, value};
    if (v->nbuf >= v->next_flush) vcd__flush_final(v, now);
}

static void vcd__trace(void *ctx, const myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a, uint32_t b)
{
    vcd__nic *n = ctx;
    myri_time_ps now = myri_lanai_now(l);
    switch (ev) {
    case MYRI_LANAI_EV_HDMA: vcd__set(n, VCD_SIG_HDMA, a ? (b == MYRI_LANAI_DIR_E2L ? 2u : 1u) : 0u, t, now); break;
    case MYRI_LANAI_EV_SDMA: vcd__set(n, VCD_SIG_SDMA, a ? 1u : 0u, t, now); break;
    case MYRI_LANAI_EV_RDMA: vcd__set(n, VCD_SIG_RDMA, a ? 1u : 0u, t, now); break;
    case MYRI_LANAI_EV_CPU: vcd__set(n, VCD_SIG_CPU, a, t, now); break;
    case MYRI_LANAI_EV_ISR: vcd__set(n, VCD_SIG_ISR, a, t, now); break;
    case MYRI_LANAI_EV_FW:
        if (a < n->nmachines) vcd__set(n, VCD_NFIXED + a, b, t, now);
        break;
    case MYRI_LANAI_EV_DMAREG: {
        int k = vcd__reg_sig(a);
        if (k >= 0) vcd__set(n, (size_t)k, b, t, now);
        break;
    }
    default: break;
    }
}

/* A firmware lane's width: 8 bits (a state index), or 32 for the lanes the
 * kind elf publishes, "pc" and "function" (addresses, fw_elf.c). */
static unsigned vcd__machine_width(const char *name)
{
    return name && (!strcmp(name, "pc") || !strcmp(name, "function")) ? 32u : 8u;
}

static void vcd__scope_name(const char *in, char *out, size_t len)
{
    size_t k = 0;
    for (; in && *in && k + 1 < len; in++) {
        char c = *in;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
        out[k++] = ok ? c : '_';
    }
    out[k] = '\0';
    if (k == 0 && len > 1) snprintf(out, len, "nic");
}

myri_status myri_vcd_add_nic(myri_vcd *v, myri_lanai *l, const char *name, const char *const *machines,
                             size_t nmachines)
{
    if (!v || !l || v->begun || (nmachines && !machines)) return v && v->begun ? MYRI_ESTATE : MYRI_EINVAL;
    if (v->nnic == v->capnic) {
        size_t cap = v->capnic ? 2 * v->capnic : 8;
        vcd__nic **p = realloc(v->nic, cap * sizeof *p);
        if (!p) return MYRI_ENOMEM;
        v->nic = p;
        v->capnic = cap;
    }
    vcd__nic *n = calloc(1, sizeof *n);
    if (!n) return MYRI_ENOMEM;
    n->sig = calloc(VCD_NFIXED + nmachines, sizeof *n->sig);
    if (!n->sig) {
        free(n);
        return MYRI_ENOMEM;
    }
    n->v = v;
    n->index = (uint32_t)v->nnic;
    n->l = l;
    vcd__scope_name(name, n->name, sizeof n->name);
    n->machines = machines;
    n->nmachines = nmachines;
    for (size_t k = 0; k < VCD_NFIXED + nmachines; k++) {
        n->sig[k].width = k < VCD_NFIXED ? vcd__fixed[k].width : vcd__machine_width(machines[k - VCD_NFIXED]);
        vcd__id(v->next_id++, n->sig[k].id);
    }
    myri_status st = myri_lanai_add_trace(l, vcd__trace, n);
    if (st) {
        free(n->sig);
        free(n);
        return st;
    }
    v->nic[v->nnic++] = n;
    return MYRI_OK;
}

myri_status myri_vcd_begin(myri_vcd *v)
{
    if (!v) return MYRI_EINVAL;
    if (v->begun) return MYRI_ESTATE;
    FILE *f = v->f;
    fprintf(f, "$comment Myri NIC timeline: host_dma 0 idle 1 to host 2 from host; cpu 0 idle 1 user 2 system; "
               "ear lar dma_ctr smp sml smlt rmp rml: the LANai's DMA registers (written values; EAR, LAR, "
               "DMA_CTR at each host-DMA burst; RMP when read and at each window's end); "
               "firmware machines by state index (firmware elf: fw_pc, the program counter at each CPU step, and "
               "fw_function, the entry address of its function) $end\n$timescale 1ps $end\n$scope module myri $end\n");
    v->next_flush = 256;
    for (size_t i = 0; i < v->nnic; i++) {
        const vcd__nic *n = v->nic[i];
        fprintf(f, "$scope module %s $end\n", n->name);
        for (size_t k = 0; k < VCD_NFIXED + n->nmachines; k++) {
            char nm[64];
            vcd__scope_name(k < VCD_NFIXED ? vcd__fixed[k].name : n->machines[k - VCD_NFIXED], nm, sizeof nm);
            fprintf(f, "$var wire %u %s %s%s $end\n", n->sig[k].width, n->sig[k].id, k < VCD_NFIXED ? "" : "fw_", nm);
        }
        fprintf(f, "$upscope $end\n");
    }
    fprintf(f, "$upscope $end\n$enddefinitions $end\n");
    v->begun = true;
    vcd__stamp(v, 0);
    fprintf(f, "$dumpvars\n");
    for (size_t i = 0; i < v->nnic; i++)
        for (size_t k = 0; k < VCD_NFIXED + v->nic[i]->nmachines; k++) vcd__put(v, &v->nic[i]->sig[k]);
    if (fprintf(f, "$end\n") < 0) v->failed = true;
    return MYRI_OK;
}

myri_status myri_vcd_close(myri_vcd *v, myri_time_ps end_ps, myri_error *err)
{
    if (!v) return MYRI_OK;
    if (v->begun) {
        vcd__flush(v, MYRI_TIME_NEVER);
        vcd__stamp(v, end_ps);
    }
    bool failed = v->failed || ferror(v->f);
    if (fclose(v->f) != 0) failed = true;
    for (size_t i = 0; i < v->nnic; i++) {
        free(v->nic[i]->sig);
        free(v->nic[i]);
    }
    free(v->nic);
    free(v->buf);
    free(v);
    if (failed) {
        if (err) myri_error_at(err, NULL, "--vcd: writing the timeline failed");
        return MYRI_EIO;
    }
    return MYRI_OK;
}
