/* system_report.c -- what a system run measured: program figures, per-NIC
 * utilisation with the bottleneck named, packet accounting, the run's hash;
 * as text or JSON (system_job.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app/presets.h"
#include "app/system_int.h"
#include "common/hcb.h"
#include "common/lanai_regs.h"
#include "myri/api0.h"
#include "myri/json.h"
#include "myri/via.h"

/* ---- per-NIC figures ------------------------------------------------------------- */

enum { SYS_R_CPU, SYS_R_HDMA, SYS_R_SDMA, SYS_R_RDMA, SYS_R_BUS, SYS_NRES };
/* SYS_R_BUS is the bus's time carrying host PIO (the host DMA's share of the bus is the host DMA's). */
static const char *const sys__res_name[SYS_NRES] = {"LANai CPU", "host DMA", "send DMA", "receive DMA",
                                                    "host PIO on the I/O bus"};
static const char *const sys__res_key[SYS_NRES] = {"cpu", "host_dma", "send_dma", "recv_dma", "bus_pio"};

typedef struct sys__nicfig {
    myri_lanai_stats ls;
    myri_bus_stats bs;
    myri_host_stats hs;
    double util[SYS_NRES];
    double bus_util;       /* the I/O bus, DMA and PIO */
    int worst;             /* the busiest resource */
} sys__nicfig;

static void sys__nic_figures(const myri_sys_run *r, uint32_t i, sys__nicfig *f)
{
    memset(f, 0, sizeof *f);
    myri_lanai_get_stats(r->nic[i].lanai, &f->ls);
    myri_bus_get_stats(r->nic[i].bus, &f->bs);
    myri_host_get_stats(r->nic[i].host, &f->hs);
    double el = f->ls.elapsed_ps ? (double)f->ls.elapsed_ps : NAN; /* no time elapsed: no utilisation (JSON null) */
    f->util[SYS_R_CPU] = (double)(f->ls.cpu_ps[0] + f->ls.cpu_ps[1]) / el;
    f->util[SYS_R_HDMA] = (double)(f->ls.hdma_ps[0] + f->ls.hdma_ps[1]) / el;
    f->util[SYS_R_SDMA] = (double)f->ls.sdma_ps / el;
    f->util[SYS_R_RDMA] = (double)f->ls.rdma_ps / el;
    f->util[SYS_R_BUS] = (double)(f->bs.busy_ps[MYRI_BUS_PIO_READ] + f->bs.busy_ps[MYRI_BUS_PIO_WRITE]) / el;
    myri_time_ps bus = 0;
    for (int u = 0; u < MYRI_BUS_NUSERS; u++) bus += f->bs.busy_ps[u];
    f->bus_util = (double)bus / el;
    f->worst = 0;
    for (int k = 1; k < SYS_NRES; k++)
        if (f->util[k] > f->util[f->worst]) f->worst = k;
}

/* The bottleneck, one definition for the text and the JSON: the key
 * ("io_bus", a resource's key such as "host_dma", or "none" when nothing is
 * busy half the run) and the words: "host DMA is the bottleneck: busy 97 % of
 * the run (the I/O bus 98 %)", "the I/O bus is the bottleneck: busy 66 % of
 * the run (host DMA 45 %, host PIO 39 %)" when the host's PIO takes a real
 * share of it, or "no engine is saturated: the busiest, ...".  *busiest gets
 * the key of the busiest resource (the I/O bus counted as one). */
static const char *sys__bottleneck(const sys__nicfig *f, char *buf, size_t len, const char **busiest)
{
    int w = f->worst;
    double p = 100.0 * f->util[w];
    if (!f->ls.elapsed_ps) {
        snprintf(buf, len, "no simulated time elapsed: no utilisation measured");
        *busiest = "none";
        return "none";
    }
    bool bus = f->bus_util > f->util[w] && f->util[SYS_R_BUS] >= 0.1; /* PIO makes the bus busier than any engine */
    *busiest = bus ? "io_bus" : sys__res_key[w];
    if (bus && f->bus_util >= 0.5) {
        snprintf(buf, len, "the I/O bus is the bottleneck: busy %.0f %% of the run (host DMA %.0f %%, host PIO %.0f %%)",
                 100 * f->bus_util, 100 * f->util[SYS_R_HDMA], 100 * f->util[SYS_R_BUS]);
        return "io_bus";
    }
    if (!bus && f->util[w] >= 0.5) {
        snprintf(buf, len, "%s is the bottleneck: busy %.0f %% of the run (the I/O bus %.0f %%)", sys__res_name[w],
                 p, 100 * f->bus_util);
        return sys__res_key[w];
    }
    if (bus)
        snprintf(buf, len, "no engine is saturated: the busiest, the I/O bus, is busy %.0f %% of the run",
                 100 * f->bus_util);
    else
        snprintf(buf, len, "no engine is saturated: the busiest, the %s, is busy %.0f %% of the run",
                 sys__res_name[w], p);
    return "none";
}

/* ---- accounting ------------------------------------------------------------------ */

typedef struct sys__acct {
    myri_fabric_counters fc;
    uint64_t fw[MYRI_SYS_MAX_COUNTERS];   /* firmware counters summed over NICs */
    size_t nfw;
} sys__acct;

/* The fabric's counters and the engine's events: a cut run's sums over its partitions. */
static void sys__counters(const myri_sys_run *r, myri_fabric_counters *fc)
{
    if (r->fc_sum) *fc = *r->fc_sum;
    else myri_fabric_get_counters(r->fabric, fc);
}

static uint64_t sys__events(const myri_sys_run *r) { return r->fc_sum ? r->events_sum : myri_sim_events(r->sim); }

static void sys__accounting(const myri_sys_run *r, sys__acct *a)
{
    memset(a, 0, sizeof *a);
    sys__counters(r, &a->fc);
    if (!r->nnic) return;
    const myri_fw_def *d = myri_fw_def_of(r->nic[0].fw);
    a->nfw = d->ncounters < MYRI_SYS_MAX_COUNTERS ? d->ncounters : MYRI_SYS_MAX_COUNTERS;
    for (uint32_t i = 0; i < r->nnic; i++)
        for (size_t k = 0; k < a->nfw; k++) a->fw[k] += myri_fw_counter(r->nic[i].fw, (uint32_t)k);
}

/* ---- return codes and channels ------------------------------------------------------- */

static const char *const sys__via_name[MYRI_VIA_NCODES] = {
    "MYRI_VIA_OK", "MYRI_VIA_EINVAL", "MYRI_VIA_ENOHOST", "MYRI_VIA_EBADUNIT", "MYRI_VIA_ENOTINIT",
    "MYRI_VIA_ETIMEOUT", "MYRI_VIA_EFULL", "MYRI_VIA_ETOOLONG", "MYRI_VIA_ENOMEM", "MYRI_VIA_EFIRMWARE",
    "MYRI_VIA_EIO", "MYRI_VIA_ENOROUTE", "MYRI_VIA_EBADDESC",
};

/* A figure that is a return code (key NAME.setup_error or NAME[.SIZE].error,
 * a negative whole value): its name and text, for the reader (issue 23). */
static bool sys__code_text(const char *program, const char *key, double v, char *buf, size_t n)
{
    size_t k = strlen(key);
    bool code = (k >= 12 && !strcmp(key + k - 12, ".setup_error")) || (k >= 6 && !strcmp(key + k - 6, ".error"));
    if (!code || !(v < 0) || v != floor(v) || v < -1000) return false;
    int rc = (int)v;
    if (!strncmp(program, "via-", 4))
        snprintf(buf, n, "%s: %s", rc > -MYRI_VIA_NCODES ? sys__via_name[-rc] : "MYRI_VIA_(unknown)",
                 myri_via_strerror(rc));
    else snprintf(buf, n, "%s: %s", myri_api0_strname(rc), myri_api0_strerror(rc));
    return true;
}

/* The packets still in the receive channels' slots at the end (delivered by
 * the MCP, RC_PUT, and not given back by a program, RC_FREED, counting the
 * frees still posted on the bus), read from each NIC's HCB; -1 when the
 * firmware has no HCB (the VIA firmwares). */
static double sys__left_in_channels(const myri_sys_run *r)
{
    double left = 0;
    for (uint32_t i = 0; i < r->nnic; i++) {
        const uint8_t *p = myri_lanai_sram(r->nic[i].lanai, MYRI_LANAI_HCB_PTR_ADDR, 4);
        uint32_t hcb = p ? myri_be32_get(p) : 0;
        const uint8_t *h = hcb ? myri_lanai_sram(r->nic[i].lanai, hcb, MYRI_HCB_HDR_BYTES) : NULL;
        if (!h) continue; /* the MCP never came up: nothing delivered */
        if (myri_be32_get(h + MYRI_HCB_SIG_START_OFF) != MYRI_HCB_SIG_START) return -1;
        uint32_t nchan = myri_be32_get(h + MYRI_HCB_NCHAN_OFF);
        myri_hcb_geom g = {.nchan = nchan, .send_q = myri_be32_get(h + MYRI_HCB_SEND_Q_OFF),
                           .recv_q = myri_be32_get(h + MYRI_HCB_RECV_Q_OFF),
                           .nroutes = myri_be32_get(h + MYRI_HCB_NROUTES_OFF),
                           .route_max = myri_be32_get(h + MYRI_HCB_ROUTE_MAX_OFF),
                           .pio_bytes = myri_be32_get(h + MYRI_HCB_PIO_BYTES_OFF),
                           .mtu = myri_be32_get(h + MYRI_HCB_MTU_OFF)};
        for (uint32_t c = 0; c < nchan; c++) {
            uint8_t rc[MYRI_HCB_RCHAN_BYTES]; /* with the host's last posted writes (RC_FREED) applied */
            if (myri_host_sram_view(r->nic[i].host, 0, hcb + myri_hcb_rchan_off(&g, c), rc, sizeof rc) == MYRI_OK &&
                myri_be32_get(rc + MYRI_HCB_RC_ENABLED))
                left += (double)(uint32_t)(myri_be32_get(rc + MYRI_HCB_RC_PUT) - myri_be32_get(rc + MYRI_HCB_RC_FREED));
        }
    }
    return left;
}

/* ---- hash -------------------------------------------------------------------------- */

static uint64_t sys__mix(uint64_t h, uint64_t v)
{
    for (int k = 0; k < 8; k++) {
        h ^= (v >> (8 * k)) & 0xffu;
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t sys__hash(const myri_sys_run *r, const sys__acct *a)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    h = sys__mix(h, a->fc.result_hash);
    h = sys__mix(h, r->end_ps);
    for (size_t k = 0; k < a->nfw; k++) h = sys__mix(h, a->fw[k]);
    for (uint32_t i = 0; i < r->nnic; i++) {
        const myri_host *host = r->nic[i].host;
        for (size_t p = 0; p < myri_host_nprograms(host); p++) {
            const myri_program *pg = myri_host_program(host, p);
            h = sys__mix(h, (uint64_t)(int64_t)myri_program_exit_code(pg));
            for (size_t k = 0; k < myri_program_nreports(pg); k++) {
                const char *key;
                double v;
                myri_program_report(pg, k, &key, &v);
                uint64_t bits;
                memcpy(&bits, &v, sizeof bits);
                for (const char *c = key; *c; c++) h = sys__mix(h, (uint8_t)*c);
                h = sys__mix(h, bits);
            }
        }
    }
    return h;
}

/* ---- results for callers ---------------------------------------------------------------- */

/* Figures of the whole system (program "system", host 0): the accounting of
 * packets by the NICs and the fabric, so that a caller can check that every
 * packet a program sent is received or counted with its reason. */
#define SYS_NFIGS (8 + MYRI_FABRIC_DROP_NREASONS)
static void sys__system_figures(const myri_sys_run *r, const sys__acct *a, myri_system_result *out)
{
    double crc = 0, other = 0, rx_good = 0, received = 0;
    if (r->nnic) { /* by the roles the firmware gives its counters */
        const myri_fw_def *d = myri_fw_def_of(r->nic[0].fw);
        for (size_t k = 0; k < a->nfw; k++) {
            double v = (double)a->fw[k];
            switch (d->counters[k].role) {
            case MYRI_FW_ROLE_RX_GOOD: rx_good += v; break;
            case MYRI_FW_ROLE_DROP_CRC: crc += v; break;
            case MYRI_FW_ROLE_DROP_OTHER:
            case MYRI_FW_ROLE_TX_DROPPED: other += v; break;
            default: break;
            }
        }
    }
    /* measured from the channels; for a firmware without an HCB (VIA), what the programs did not take */
    double left = sys__left_in_channels(r);
    if (left < 0) {
        for (size_t i = 0; i < out->nfig; i++)
            if (strstr(out->fig[i].key, ".received") && !strchr(strchr(out->fig[i].key, '.') + 1, '.'))
                received += out->fig[i].value;
        left = rx_good - received;
    }
    /* packets the fabric lost on the way (the CRC-bad and misrouted ones reach a NIC, which counts them) */
    double in_net = (double)(a->fc.dropped_total - a->fc.dropped[MYRI_FABRIC_DROP_CRC] -
                             a->fc.dropped[MYRI_FABRIC_DROP_MISROUTED]);
    const struct {
        const char *key;
        double v;
    } f[8] = {
        {"nic.rx_good", rx_good},
        {"nic.drop_crc", crc},
        {"nic.drops_other", other},
        {"nic.left_in_channels", left},
        {"fabric.injected", (double)a->fc.injected},
        {"fabric.dropped_in_network", in_net},
        {"fabric.in_flight", (double)a->fc.in_flight},
        {"fabric.misdelivered", (double)a->fc.misdelivered},
    };
    for (int k = 0; k < SYS_NFIGS; k++) {
        myri_system_figure *g = &out->fig[out->nfig++];
        g->host = 0;
        snprintf(g->program, sizeof g->program, "system");
        if (k < 8) {
            snprintf(g->key, sizeof g->key, "%s", f[k].key);
            g->value = f[k].v;
        } else { /* the fabric's drops by reason (what the wire did) */
            snprintf(g->key, sizeof g->key, "fabric.drop.%s", myri_fabric_drop_name((myri_fabric_drop_reason)(k - 8)));
            g->value = (double)a->fc.dropped[k - 8];
        }
    }
}

/* Each NIC's engines as figures (program "nic", host = the NIC's host): the
 * utilisations, the overlap of host DMA and send DMA, and the rate of each
 * engine while busy (bytes / busy time), for `reproduce` to read. */
#define SYS_NNICFIGS 12
static void sys__nic_result(const myri_sys_run *r, uint32_t i, myri_system_result *out)
{
    sys__nicfig f;
    sys__nic_figures(r, i, &f);
    double el = f.ls.elapsed_ps ? (double)f.ls.elapsed_ps : NAN;
    /* host -> SRAM DMA time without its waits for the bus (host PIO): the engine's own rate */
    double own_ps = (double)f.ls.hdma_ps[1] - (double)f.bs.wait_ps[MYRI_BUS_DMA_E2L];
    myri_fw_check ck;
    myri_fw_get_check(r->nic[i].fw, &ck);
    const struct {
        const char *key;
        double v;
    } v[SYS_NNICFIGS] = {
        {"nic.util_cpu", f.util[SYS_R_CPU]},
        {"nic.util_hdma", f.util[SYS_R_HDMA]},
        {"nic.util_sdma", f.util[SYS_R_SDMA]},
        {"nic.util_rdma", f.util[SYS_R_RDMA]},
        {"nic.util_bus", f.bus_util},
        {"nic.overlap_hdma_sdma", (double)f.ls.hdma_sdma_ps / el},
        {"nic.hdma_e2l_MBps", f.ls.hdma_ps[1] ? (double)f.ls.hdma_bytes[1] / ((double)f.ls.hdma_ps[1] * 1e-6) : 0},
        {"nic.hdma_l2e_MBps", f.ls.hdma_ps[0] ? (double)f.ls.hdma_bytes[0] / ((double)f.ls.hdma_ps[0] * 1e-6) : 0},
        {"nic.sdma_MBps", f.ls.sdma_ps ? (double)f.ls.sdma_bytes / ((double)f.ls.sdma_ps * 1e-6) : 0},
        {"nic.hdma_e2l_own_MBps", own_ps > 0 ? (double)f.ls.hdma_bytes[1] / (own_ps * 1e-6) : 0},
        {"nic.fw_checked", (double)ck.actions},
        {"nic.fw_mismatches", (double)ck.mismatches},
    };
    for (int k = 0; k < SYS_NNICFIGS; k++) {
        myri_system_figure *g = &out->fig[out->nfig++];
        g->host = i;
        snprintf(g->program, sizeof g->program, "nic");
        snprintf(g->key, sizeof g->key, "%s", v[k].key);
        g->value = v[k].v;
    }
}

myri_status myri_sys_collect(const myri_sys_run *r, myri_system_result *out)
{
    memset(out, 0, sizeof *out);
    size_t n = SYS_NFIGS;
    out->all_done = true;
    for (uint32_t i = 0; i < r->nnic; i++)
        for (size_t p = 0; p < myri_host_nprograms(r->nic[i].host); p++)
            n += myri_program_nreports(myri_host_program(r->nic[i].host, p));
    n += (size_t)r->nnic * SYS_NNICFIGS;
    out->fig = calloc(n ? n : 1, sizeof *out->fig);
    if (!out->fig) return MYRI_ENOMEM;
    for (uint32_t i = 0; i < r->nnic; i++)
        for (size_t p = 0; p < myri_host_nprograms(r->nic[i].host); p++) {
            const myri_program *pg = myri_host_program(r->nic[i].host, p);
            if (!myri_program_done(pg)) out->all_done = false;
            else if (myri_program_exit_code(pg) != 0 &&
                     (out->worst_exit == 0 || abs(myri_program_exit_code(pg)) > abs(out->worst_exit)))
                out->worst_exit = myri_program_exit_code(pg); /* a negative code fails the run too */
            for (size_t k = 0; k < myri_program_nreports(pg); k++) {
                myri_system_figure *f = &out->fig[out->nfig++];
                const char *key;
                myri_program_report(pg, k, &key, &f->value);
                f->host = i;
                snprintf(f->program, sizeof f->program, "%s", myri_program_name(pg));
                snprintf(f->key, sizeof f->key, "%s", key);
            }
        }
    sys__acct a;
    sys__accounting(r, &a);
    sys__system_figures(r, &a, out);
    for (uint32_t i = 0; i < r->nnic; i++) sys__nic_result(r, i, out);
    out->hash = sys__hash(r, &a);
    out->sim_time_ps = r->end_ps;
    out->events = sys__events(r);
    out->wall_s = r->wall_s;
    return MYRI_OK;
}

void myri_system_result_free(myri_system_result *r)
{
    if (!r) return;
    free(r->fig);
    memset(r, 0, sizeof *r);
}

double myri_system_figure_host(const myri_system_result *r, uint32_t host, const char *key)
{
    for (size_t i = 0; r && key && i < r->nfig; i++)
        if (r->fig[i].host == host && !strcmp(r->fig[i].key, key)) return r->fig[i].value;
    return NAN;
}

double myri_system_figure_get(const myri_system_result *r, const char *key)
{
    for (size_t i = 0; r && key && i < r->nfig; i++)
        if (!strcmp(r->fig[i].key, key)) return r->fig[i].value;
    return NAN;
}

myri_status myri_system_run_doc(const myri_node *root, const myri_node *programs, const myri_run_opts *opts,
                                myri_system_result *out, myri_error *err)
{
    if (!out) return MYRI_EINVAL;
    memset(out, 0, sizeof *out);
    myri_sys_cfg c;
    myri_status st = myri_sys_cfg_load(&c, root, err);
    if (!st && programs) c.programs = programs;
    if (!st && opts && opts->have_seed) c.common.seed = opts->seed;
    myri_sys_run r;
    if (!st) {
        st = myri_sys_run_cfg(&r, &c, root, opts, false, err);
        if (!st) st = myri_sys_collect(&r, out);
        myri_sys_run_free(&r);
    }
    myri_sys_cfg_free(&c);
    return st;
}

/* ---- text ------------------------------------------------------------------------------ */

static void sys__text_programs(const myri_sys_run *r, FILE *o)
{
    for (uint32_t i = 0; i < r->nnic; i++) {
        const myri_host *host = r->nic[i].host;
        for (size_t p = 0; p < myri_host_nprograms(host); p++) {
            const myri_program *pg = myri_host_program(host, p);
            const char *hn = r->b.topo->node[r->b.topo->host_node[i]].name;
            if (myri_program_fault(pg))
                fprintf(o, "program  %s %s: %s (exit %d)\n", hn, myri_program_name(pg), myri_program_fault(pg),
                        myri_program_exit_code(pg));
            else if (myri_program_done(pg))
                fprintf(o, "program  %s %s: exit %d\n", hn, myri_program_name(pg), myri_program_exit_code(pg));
            else
                fprintf(o, "program  %s %s: STILL RUNNING at the end of the run (duration reached)\n", hn,
                        myri_program_name(pg));
            for (size_t k = 0; k < myri_program_nreports(pg); k++) {
                const char *key;
                double v;
                myri_program_report(pg, k, &key, &v);
                char code[160];
                if (sys__code_text(myri_program_name(pg), key, v, code, sizeof code))
                    fprintf(o, "           %-34s %.6g (%s)\n", key, v, code);
                else fprintf(o, "           %-34s %.6g\n", key, v);
            }
        }
    }
}

/* The firmware's pools (queues it both puts to and takes from): mean and largest occupancy. */
static void sys__text_pools(const myri_sys_run *r, uint32_t i, myri_time_ps elapsed_ps, FILE *o)
{
    const myri_fw_def *d = myri_fw_def_of(r->nic[i].fw);
    bool any = false;
    for (uint32_t q = 0; q < d->nqueues; q++) {
        myri_fw_qstat qs;
        if (myri_fw_queue_stats(r->nic[i].fw, q, &qs) || !qs.puts || !qs.gets) continue;
        fprintf(o, "%s %s mean %.2f max %lld", any ? "," : "           pools:", d->queues[q].name,
                elapsed_ps ? qs.area / (double)elapsed_ps : 0.0, (long long)qs.max);
        any = true;
    }
    if (any) fprintf(o, " (packets)\n");
}

static void sys__text_nic(const myri_sys_run *r, uint32_t i, const sys__nicfig *f, const char *lead, FILE *o)
{
    char bn[160];
    const char *busiest;
    sys__bottleneck(f, bn, sizeof bn, &busiest);
    double el = (double)f->ls.elapsed_ps;
    fprintf(o, "%-8s %s: %s\n", lead, r->b.topo->node[r->b.topo->host_node[i]].name, bn);
    if (!f->ls.elapsed_ps)
        fprintf(o, "           busy: - (no simulated time elapsed)\n");
    else
        fprintf(o, "           busy: CPU %.1f %% (user %.1f, system %.1f), host DMA %.1f %%, send DMA %.1f %%, "
                   "receive DMA %.1f %%, I/O bus %.1f %% (PIO %.1f %%)\n",
                100 * f->util[SYS_R_CPU], 100.0 * (double)f->ls.cpu_ps[0] / el, 100.0 * (double)f->ls.cpu_ps[1] / el,
                100 * f->util[SYS_R_HDMA], 100 * f->util[SYS_R_SDMA], 100 * f->util[SYS_R_RDMA], 100 * f->bus_util,
                100 * f->util[SYS_R_BUS]);
    if (f->ls.elapsed_ps)
        fprintf(o, "           host DMA and send DMA busy at once %.1f %% of the run (%.3f us; seed 000's overlap), "
                   "host DMA and receive DMA %.1f %%\n",
                100.0 * (double)f->ls.hdma_sdma_ps / el, (double)f->ls.hdma_sdma_ps / 1e6,
                100.0 * (double)f->ls.hdma_rdma_ps / el);
    fprintf(o, "           packets sent %llu, windows received %llu; interrupts %llu; PIO reads %llu, writes %llu\n",
            (unsigned long long)f->ls.sdma_packets,
            (unsigned long long)f->ls.rdma_windows, (unsigned long long)f->ls.interrupts,
            (unsigned long long)f->hs.pio_reads, (unsigned long long)f->hs.pio_writes);
    sys__text_pools(r, i, f->ls.elapsed_ps, o);
    if (f->ls.faults) fprintf(o, "           FIRMWARE FAULTS: %llu\n", (unsigned long long)f->ls.faults);
}

/* Each NIC (up to 8), or the mean over all and the busiest one. */
static void sys__text_nics(const myri_sys_run *r, FILE *o)
{
    double mean[SYS_NRES] = {0}, mean_bus = 0, worst = -1;
    uint32_t wi = 0;
    uint64_t faults = 0;
    for (uint32_t i = 0; i < r->nnic; i++) {
        sys__nicfig f;
        sys__nic_figures(r, i, &f);
        if (r->nnic <= 8) sys__text_nic(r, i, &f, "nic", o);
        if (!f.ls.elapsed_ps) continue; /* nothing measured */
        for (int k = 0; k < SYS_NRES; k++) mean[k] += f.util[k] / r->nnic;
        mean_bus += f.bus_util / r->nnic;
        if (f.util[f.worst] > worst) {
            worst = f.util[f.worst];
            wi = i;
        }
        faults += f.ls.faults;
    }
    if (r->nnic <= 8 || !r->nnic) return;
    fprintf(o, "nics     %u NICs, mean busy: CPU %.1f %%, host DMA %.1f %%, send DMA %.1f %%, receive DMA %.1f %%, "
               "I/O bus %.1f %% (PIO %.1f %%); firmware faults %llu\n",
            r->nnic, 100 * mean[SYS_R_CPU], 100 * mean[SYS_R_HDMA], 100 * mean[SYS_R_SDMA], 100 * mean[SYS_R_RDMA],
            100 * mean_bus, 100 * mean[SYS_R_BUS], (unsigned long long)faults);
    sys__nicfig f;
    sys__nic_figures(r, wi, &f);
    sys__text_nic(r, wi, &f, "busiest", o);
}

static void sys__text_acct(const myri_sys_run *r, const sys__acct *a, FILE *o)
{
    fprintf(o, "fabric   injected %llu = delivered %llu + misdelivered %llu + dropped %llu + in flight %llu\n",
            (unsigned long long)a->fc.injected, (unsigned long long)a->fc.delivered,
            (unsigned long long)a->fc.misdelivered, (unsigned long long)a->fc.dropped_total,
            (unsigned long long)a->fc.in_flight);
    if (a->fc.dropped_total) {
        fprintf(o, "         dropped by reason:");
        for (int k = 0; k < MYRI_FABRIC_DROP_NREASONS; k++)
            if (a->fc.dropped[k])
                fprintf(o, " %s %llu", myri_fabric_drop_name((myri_fabric_drop_reason)k),
                        (unsigned long long)a->fc.dropped[k]);
        fprintf(o, "\n");
    }
    if (!r->nnic) return;
    const myri_fw_def *d = myri_fw_def_of(r->nic[0].fw);
    fprintf(o, "firmware %s counters (all NICs):", d->name);
    for (size_t k = 0; k < a->nfw; k++)
        if (a->fw[k]) fprintf(o, " %s %llu", d->counters[k].name, (unsigned long long)a->fw[k]);
    fprintf(o, "\n");
    uint64_t checked = 0, bad = 0;
    const char *first = NULL;
    myri_fw_check ck[1];
    for (uint32_t i = 0; i < r->nnic; i++) {
        myri_fw_get_check(r->nic[i].fw, ck);
        checked += ck->actions;
        bad += ck->mismatches;
        if (ck->mismatches && !first) fprintf(o, "check    %s: %s\n", r->b.topo->node[r->b.topo->host_node[i]].name,
                                              ck->first), first = "";
    }
    if (checked) fprintf(o, "check    %llu firmware actions compared with their table rows: %llu mismatches\n",
                         (unsigned long long)checked, (unsigned long long)bad);
}

/* Every NIC's firmware instance (malloc'd), for the mapping report. */
static myri_fw_inst **sys__fws(const myri_sys_run *r)
{
    myri_fw_inst **f = malloc((r->nnic ? r->nnic : 1) * sizeof *f);
    for (uint32_t i = 0; f && i < r->nnic; i++) f[i] = r->nic[i].fw;
    return f;
}

/* A cut run: how it was cut, what its windows carried. */
static void sys__text_part(const myri_sys_run *r, FILE *o)
{
    const myri_sys_partinfo *p = r->part;
    if (!p) return;
    fprintf(o, "partitions %u (%s), hosts", p->n, p->mode);
    for (uint32_t q = 0; q < p->n; q++) fprintf(o, "%s%u", q ? "/" : " ", p->hosts[q]);
    if (p->cut_links) fprintf(o, ", %u cut cables, L %.3f ns", p->cut_links, (double)p->lookahead_ps / 1e3);
    else fprintf(o, ", no cable cut: one window");
    fprintf(o, ", %llu windows, %llu messages (at most %llu in one), %llu pass%s\n", (unsigned long long)p->st.windows,
            (unsigned long long)p->st.messages, (unsigned long long)p->st.max_window_messages,
            (unsigned long long)p->passes, p->passes == 1 ? "" : "es");
}

static void sys__json_part(const myri_sys_run *r, myri_json *j)
{
    const myri_sys_partinfo *p = r->part;
    if (!p) return;
    myri_json_key(j, "partitions");
    myri_json_obj_begin(j);
    myri_part_json_members(j, p->n, p->mode, p->hosts, p->nodes, p->cut_links, p->lookahead_ps, &p->st);
    myri_json_kuint(j, "passes", p->passes);
    myri_json_obj_end(j);
}

myri_status myri_sys_print(const myri_sys_cfg *c, const myri_sys_run *r, const myri_run_opts *opts, const char *file)
{
    FILE *o = opts->out ? opts->out : stdout;
    sys__acct a; /* for the text lines; the hash is the one sys__collect computed */
    sys__accounting(r, &a);
    myri_system_result res;
    myri_status st = myri_sys_collect(r, &res);
    if (st) return st;
    uint64_t h = res.hash;
    if (opts->json) {
        myri_json *j = myri_json_create(o, false);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "job", "system");
        myri_json_key(j, "configuration");
        myri_json_obj_begin(j);
        myri_params_echo_json(c->ps, c->nps, j);
        myri_json_obj_end(j);
        myri_sys_json_body(r, &res, j);
        if (opts->pcap_path) myri_json_kuint(j, "pcap_packets", r->pcap_packets);
        myri_json_key(j, "hash");
        myri_json_hash(j, h);
        myri_json_obj_end(j);
        st = myri_json_finish(j);
    } else {
        fprintf(o, "# system job: %s\n", file ? file : "(document)");
        myri_params_echo_text(c->ps, c->nps, o);
        fprintf(o, "system   %zu hosts, firmware %s, preset %s, seed %llu\n", r->b.topo->nhosts, c->fw->name,
                c->preset, (unsigned long long)c->common.seed);
        sys__text_programs(r, o);
        sys__text_nics(r, o);
        sys__text_acct(r, &a, o);
        if (r->map) {
            myri_fw_inst **fws = sys__fws(r);
            if (fws) myri_sysmap_text(r->map, fws, r->nnic, r->b.topo, o);
            free(fws);
        }
        if (opts->pcap_path)
            fprintf(o, "pcap     %llu packets written to %s\n", (unsigned long long)r->pcap_packets, opts->pcap_path);
        fprintf(o, "run      %.3f us simulated in %.3f s wall, %llu events\n", (double)r->end_ps / 1e6, r->wall_s,
                (unsigned long long)sys__events(r));
        sys__text_part(r, o);
        fprintf(o, "hash     0x%016llx\n", (unsigned long long)h);
    }
    bool ok = res.all_done && res.worst_exit == 0;
    if (!ok && !opts->json)
        fprintf(o, "FAILED   %s\n", !res.all_done ? "a program did not finish before `duration`"
                                                 : "a program returned a non-zero exit code (see its figures)");
    myri_system_result_free(&res);
    return st ? st : ok ? MYRI_OK : MYRI_EMODEL;
}

/* The figures of the programs and of the system, one object each. */
static void sys__json_figures(const myri_sys_run *r, const myri_system_result *res, myri_json *j)
{
    myri_json_key(j, "programs");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < res->nfig; i++) {
        if (!strcmp(res->fig[i].program, "nic")) continue; /* in "nics" below */
        myri_json_obj_begin(j);
        myri_json_kstr(j, "host", r->b.topo->node[r->b.topo->host_node[res->fig[i].host]].name);
        myri_json_kstr(j, "program", res->fig[i].program);
        myri_json_kstr(j, "key", res->fig[i].key);
        myri_json_knum(j, "value", res->fig[i].value);
        char code[160];
        if (sys__code_text(res->fig[i].program, res->fig[i].key, res->fig[i].value, code, sizeof code))
            myri_json_kstr(j, "code", code); /* a return code: its name and text */
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
}

/* The JSON members of a run: programs, nics, accounting. */
void myri_sys_json_body(const myri_sys_run *r, const myri_system_result *res, myri_json *j)
{
    sys__json_figures(r, res, j);
    myri_json_kbool(j, "all_done", res->all_done);
    myri_json_kint(j, "worst_exit", res->worst_exit);
    myri_json_key(j, "program_ends"); /* every program, also those that report nothing */
    myri_json_arr_begin(j);
    for (uint32_t i = 0; i < r->nnic; i++)
        for (size_t p = 0; p < myri_host_nprograms(r->nic[i].host); p++) {
            const myri_program *pg = myri_host_program(r->nic[i].host, p);
            myri_json_obj_begin(j);
            myri_json_kstr(j, "host", r->b.topo->node[r->b.topo->host_node[i]].name);
            myri_json_kstr(j, "program", myri_program_name(pg));
            myri_json_kbool(j, "done", myri_program_done(pg));
            if (myri_program_done(pg)) myri_json_kint(j, "exit", myri_program_exit_code(pg));
            if (myri_program_fault(pg)) myri_json_kstr(j, "fault", myri_program_fault(pg));
            myri_json_obj_end(j);
        }
    myri_json_arr_end(j);
    myri_json_key(j, "nics");
    myri_json_arr_begin(j);
    for (uint32_t i = 0; i < r->nnic; i++) {
        sys__nicfig f;
        sys__nic_figures(r, i, &f);
        char bn[160];
        const char *busiest, *bneck = sys__bottleneck(&f, bn, sizeof bn, &busiest);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "host", r->b.topo->node[r->b.topo->host_node[i]].name);
        for (int k = 0; k < SYS_NRES; k++) {
            char key[40];
            snprintf(key, sizeof key, "util_%s", sys__res_key[k]);
            myri_json_knum(j, key, f.util[k]);
        }
        myri_json_knum(j, "util_bus", f.bus_util);
        myri_json_kstr(j, "bottleneck", bneck); /* io_bus, cpu, host_dma, send_dma, recv_dma, bus_pio or none */
        myri_json_kstr(j, "busiest", busiest);
        myri_json_kstr(j, "bottleneck_text", bn);
        myri_json_kuint(j, "hdma_sdma_overlap_ps", f.ls.hdma_sdma_ps);
        myri_fw_check ck;
        myri_fw_get_check(r->nic[i].fw, &ck);
        myri_json_kuint(j, "fw_checked", ck.actions);
        myri_json_kuint(j, "fw_mismatches", ck.mismatches);
        myri_json_knum(j, "overlap_hdma_sdma",
                       f.ls.elapsed_ps ? (double)f.ls.hdma_sdma_ps / (double)f.ls.elapsed_ps : 0.0);
        myri_json_kuint(j, "hdma_rdma_overlap_ps", f.ls.hdma_rdma_ps);
        myri_json_kuint(j, "faults", f.ls.faults);
        const myri_fw_def *d = myri_fw_def_of(r->nic[i].fw);
        myri_json_key(j, "pools");
        myri_json_obj_begin(j);
        for (uint32_t q = 0; q < d->nqueues; q++) {
            myri_fw_qstat qs;
            if (myri_fw_queue_stats(r->nic[i].fw, q, &qs) || !qs.puts || !qs.gets) continue;
            myri_json_key(j, d->queues[q].name);
            myri_json_obj_begin(j);
            myri_json_knum(j, "mean", f.ls.elapsed_ps ? qs.area / (double)f.ls.elapsed_ps : 0.0);
            myri_json_kint(j, "max", qs.max);
            myri_json_obj_end(j);
        }
        myri_json_obj_end(j);
        myri_json_key(j, "firmware");
        myri_json_obj_begin(j);
        for (size_t k = 0; k < d->ncounters; k++)
            myri_json_kuint(j, d->counters[k].name, myri_fw_counter(r->nic[i].fw, (uint32_t)k));
        myri_json_obj_end(j);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_fabric_counters fc;
    sys__counters(r, &fc);
    myri_json_key(j, "fabric");
    myri_json_obj_begin(j);
    myri_json_kuint(j, "injected", fc.injected);
    myri_json_kuint(j, "delivered", fc.delivered);
    myri_json_kuint(j, "misdelivered", fc.misdelivered);
    myri_json_kuint(j, "dropped", fc.dropped_total);
    myri_json_kuint(j, "in_flight", fc.in_flight);
    myri_json_key(j, "dropped_by_reason");
    myri_json_obj_begin(j);
    for (int k = 0; k < MYRI_FABRIC_DROP_NREASONS; k++)
        myri_json_kuint(j, myri_fabric_drop_name((myri_fabric_drop_reason)k), fc.dropped[k]);
    myri_json_obj_end(j);
    myri_json_obj_end(j);
    if (r->map) {
        myri_fw_inst **fws = sys__fws(r);
        if (fws) myri_sysmap_json(r->map, fws, r->nnic, r->b.topo, j);
        free(fws);
    }
    myri_json_knum(j, "sim_time_us", (double)r->end_ps / 1e6);
    myri_json_knum(j, "wall_s", r->wall_s);
    myri_json_kuint(j, "events", sys__events(r));
    /* the engine's hash (the fold of every unit's events: docs/ENGINE.md), not in `hash` (results only) */
    myri_json_key(j, "event_hash");
    myri_json_hash(j, r->fc_sum ? r->event_hash : myri_sim_hash(r->sim));
    sys__json_part(r, j);
}

/* ---- the job ------------------------------------------------------------------------------ */

static void sys__help_params(FILE *out)
{
    myri_sys_cfg c;
    myri_error err;
    if (myri_sys_cfg_load(&c, NULL, &err) == MYRI_OK) myri_params_help(c.ps, c.nps, out);
    myri_sys_cfg_free(&c);
    /* the other firmwares' keys (the tables above have the default firmware's) */
    for (size_t i = 0; i < myri_fw_ndefs(); i++) {
        const myri_fw_def *d = myri_fw_at(i);
        if (!d->nparams || !strcmp(d->name, "mcp") || strchr(d->name, '+')) continue;
        void *fwp = calloc(1, d->params_size ? d->params_size : 1);
        if (!fwp) continue;
        if (d->params_default) d->params_default(fwp);
        myri_pset ps = {d->name, d->params, d->nparams, fwp};
        fprintf(out, "\nkeys of firmware '%s' (with firmware: %s):\n", d->name, d->name);
        myri_params_help(&ps, 1, out);
        free(fwp);
    }
    fprintf(out, "\nIn the system job `duration` is a limit: the run ends when the last program returns, or at\n"
                 "`duration` (10 s when not given), and programs still running then fail the run; `warmup` is\n"
                 "not used (programs measure what they report).\n");
    fprintf(out, "\nsystem presets (`preset:`), each value with its source:\n");
    for (size_t i = 0; myri_preset_at(i); i++) myri_preset_print(myri_preset_at(i), out);
}

static myri_status sys__run(const myri_node *root, const char *file, const myri_run_opts *opts, myri_error *err)
{
    myri_sys_cfg c;
    myri_status st = myri_sys_cfg_load(&c, root, err);
    if (!st && ((c.sweep.key && *c.sweep.key) || c.sweep.runs > 1)) { /* a sweep, or repeated seeds */
        myri_sys_cfg_free(&c);
        return myri_sys_sweep(root, file, opts, err);
    }
    if (!st && opts->have_seed) c.common.seed = opts->seed;
    myri_sys_run r;
    memset(&r, 0, sizeof r);
    if (!st && opts->partitions) { /* cut into partitions inside this process (system_part.c) */
        st = myri_sys_run_parts(&c, root, opts, file, err);
        if (st == MYRI_EMODEL)
            myri_error_at(err, NULL, "the run failed: a program did not finish or returned a non-zero exit code "
                                     "(see its figures above)");
    } else if (!st) {
        st = myri_sys_run_cfg(&r, &c, root, opts, true, err);
        if (!st) {
            st = myri_sys_print(&c, &r, opts, file);
            if (st == MYRI_EMODEL)
                myri_error_at(err, NULL, "the run failed: a program did not finish or returned a non-zero exit code "
                                         "(see its figures above)");
        }
    }
    myri_sys_run_free(&r);
    myri_sys_cfg_free(&c);
    return st;
}

const myri_job myri_system_job = {
    .name = "system",
    .help = "programs on hosts, the Myrinet API, LANai NICs with firmware, on the fabric",
    .help_params = sys__help_params,
    .run = sys__run,
};
