/* fabric_job.c -- the `fabric` scenario job: topology + routes + fabric +
 * traffic (+ the host devices on the ports with port.device: dma), run for warm-up + duration, then a text summary or one JSON
 * object.  With a `sweep:` section the job runs once per value of one key and
 * prints one line per value, naming the saturation point.
 *
 * Measurement window: [warmup, warmup + duration].  Latencies are those of
 * packets created inside the window and delivered before its end; throughput
 * counts payload bytes whose tail arrived inside the window.  Packet counts
 * (injected, delivered, dropped by reason, in flight) are run totals, so
 * injected = delivered + dropped + in flight always holds. */
#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/fabric_job.h"
#include "app/part.h"
#include "app/partition.h"
#include "app/scenario_check.h"
#include "app/sweep.h"
#include "fabric/fabric.h"
#include "fabric/fabric_faults.h"
#include "fabric/fabric_pcap.h"
#include "workload/hostdev.h"
#include "workload/traffic.h"
#include "myri/json.h"
#include "myri/stats.h"

#define FJOB_MAX_PSETS 12

typedef struct fjob__cfg {
    myri_scenario_common common;
    myri_fabric_params fp;
    myri_topo_config topo;
    myri_traffic_params tr;
    myri_hostdev_params port;
    myri_fpcap_config pcap;
    myri_ffaults_config faults;
    myri_sweep sweep;
    myri_pset ps[FJOB_MAX_PSETS];
    size_t nps;
    bool topo_len_is_link_len; /* topology.length not given: it follows link.length (sweeps too) */
    bool per_switch_default;   /* topology.hosts_per_switch 0: the generator's default (fjob__sync) */
} fjob__cfg;

static void fjob__sync(fjob__cfg *c);

static void fjob__psets(fjob__cfg *c)
{
    size_t n = 0;
    c->ps[n++] = (myri_pset){"", myri_scenario_params, myri_scenario_nparams, &c->common};
    n += myri_fabric_psets(&c->fp, c->ps + n);
    c->ps[n++] = (myri_pset){"topology", myri_topo_params, myri_topo_nparams, &c->topo};
    c->ps[n++] = (myri_pset){"traffic", myri_traffic_param_table, myri_traffic_nparams, &c->tr};
    c->ps[n++] = (myri_pset){"port", myri_hostdev_param_table, myri_hostdev_nparams, &c->port};
    c->ps[n++] = (myri_pset){"pcap", myri_fpcap_params, myri_fpcap_nparams, &c->pcap};
    c->ps[n++] = (myri_pset){"sweep", myri_sweep_params, myri_sweep_nparams, &c->sweep};
    c->ps[n++] = (myri_pset){"", myri_ffaults_params, myri_ffaults_nparams, &c->faults};
    c->nps = n;
}

/* ---- one run ------------------------------------------------------------- */

/* A cut run (--partitions): how it was cut and what the windows carried. */
typedef struct fjob__partinfo {
    char mode[32];
    const myri_partition *pt;
    myri_part_stats st;
    uint64_t claims;       /* drops of packets that crossed a cut, as the partitions counted them */
    uint64_t taken_back;   /* of those, the later drops of a packet dropped in another partition first */
    uint64_t live_packets; /* packet records held at the end, summed over the partitions */
} fjob__partinfo;

typedef struct fjob__run {
    myri_time_ps win_start_ps, end_ps;
    myri_traffic *traffic;
    myri_fabric *fabric;
    myri_hostdevs *devs;          /* the host devices (port.device: dma), NULL if none */
    myri_hostdev_stats ds;        /* their counters summed over hosts (max_queue: the largest) */
    myri_ffaults *faults;         /* scripted faults, NULL if none */
    myri_hist *lat, *net_lat;     /* ps */
    uint64_t win_delivered, win_payload;
    uint64_t win_dropped[MYRI_FABRIC_DROP_NREASONS];
    /* results */
    myri_fabric_counters c;
    uint64_t win_injected, win_wire_chars, win_payload_injected;
    double offered_load, target_load, throughput_Bps, wall_s, cpu_s;
    double format_share, payload_share; /* payload / characters of the packets sent; delivered payload per host
                                         * as a fraction of the link rate */
    uint64_t mem_bytes;
    uint64_t sim_time_ps, events, hash, char_ps, pcap_packets;
    uint64_t created, refused, win_refused; /* at the sources (myri_traffic_refused) */
    /* a cut run: every channel's statistics, each half's from its owner, and how it was cut (else NULL) */
    myri_fabric_channel_stats *part_st;
    const fjob__partinfo *part;
} fjob__run;

static void fjob__delivered(void *ctx, const myri_fabric_delivery *d)
{
    fjob__run *r = ctx;
    if (d->queued_ps >= r->win_start_ps) {
        myri_hist_add(r->lat, d->tail_ps - d->queued_ps);
        myri_hist_add(r->net_lat, d->tail_ps - d->head_sent_ps);
    }
    if (d->tail_ps >= r->win_start_ps) {
        r->win_delivered++;
        r->win_payload += d->payload_bytes;
    }
    myri_traffic_delivered(r->traffic, d);
    if (r->faults) myri_ffaults_note(r->faults, d->id, -1, d->tail_ps);
}

static void fjob__misdelivered(void *ctx, const myri_fabric_delivery *d)
{
    fjob__run *r = ctx; /* not delivered: no latency, throughput or reply */
    if (r->faults) myri_ffaults_note(r->faults, d->id, MYRI_FFAULTS_MISDELIVERED, d->tail_ps);
}

static void fjob__dropped(void *ctx, uint64_t id, myri_fabric_drop_reason reason, myri_time_ps t)
{
    fjob__run *r = ctx;
    if (r->faults) myri_ffaults_note(r->faults, id, (int)reason, t);
    if (t >= r->win_start_ps && (unsigned)reason < MYRI_FABRIC_DROP_NREASONS) r->win_dropped[reason]++;
}

/* The sources give their packets to the devices, and the bound traffic.queue
 * applies to the devices' FIFOs. */
static void fjob__use_devices(fjob__run *r)
{
    myri_traffic_set_send(r->traffic, myri_hostdev_send, r->devs);
    myri_traffic_set_queued(r->traffic, myri_hostdev_queued, r->devs);
}

/* JSON: packets refused at the source (host queue full) and misdelivered (a
 * corrupted route byte the CRC missed): created = refused + injected (+ ports
 * queued), injected = delivered + misdelivered + dropped_total + in_flight. */
static void fjob__json_refused(myri_json *j, const fjob__run *r)
{
    myri_json_kuint(j, "created", r->created);
    myri_json_kuint(j, "refused", r->refused);
    myri_json_kuint(j, "refused_window", r->win_refused);
    myri_json_kuint(j, "misdelivered", r->c.misdelivered);
}

/* Text: the same, only when not zero. */
static void fjob__text_refused(FILE *out, const fjob__run *r)
{
    if (r->refused)
        fprintf(out, "  refused    %-24s %llu of %llu created (the host's send queue held traffic.queue packets)\n",
                "queue_full", (unsigned long long)r->refused, (unsigned long long)r->created);
    if (r->c.misdelivered)
        fprintf(out, "  misdelivered %-22s %llu (good CRC at another host: not in latency or throughput)\n",
                "route_corrupted", (unsigned long long)r->c.misdelivered);
}

static void fjob__window_start(fjob__run *r)
{
    myri_fabric_reset_stats(r->fabric);
    myri_traffic_window_start(r->traffic);
    myri_hist_reset(r->lat);
    myri_hist_reset(r->net_lat);
    r->win_delivered = r->win_payload = 0;
    memset(r->win_dropped, 0, sizeof r->win_dropped);
}

/* The job's own component: starts the measurement window at warm-up end. */
static myri_status fjob__ctl_create(myri_component *self, const void *config)
{
    self->state = (void *)config;
    return MYRI_OK;
}
static void fjob__ctl_handle(myri_component *self, const myri_event *ev)
{
    (void)ev;
    fjob__window_start(self->state);
}
static const myri_component_ops fjob__ctl_ops = {
    .type = "fabric-job", .help = "starts the measurement window (fabric job)",
    .create = fjob__ctl_create, .handle = fjob__ctl_handle,
};

static double fjob__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Heap bytes in use (glibc: mallinfo2), 0 elsewhere. */
static uint64_t fjob__heap_bytes(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 m = mallinfo2();
    return (uint64_t)m.uordblks + (uint64_t)m.hblkhd;
#else
    return 0;
#endif
}

static double fjob__cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The traffic sources of sim (reserved ids have none). */
static size_t fjob__nsources(myri_sim *sim)
{
    size_t nh = 0;
    for (size_t i = 0; i < myri_sim_component_count(sim); i++) {
        const myri_component *comp = myri_sim_component(sim, i);
        nh += comp && strcmp(comp->ops->type, "traffic-source") == 0;
    }
    return nh;
}

/* The figures made from the counts: nh sources, lp_fold the engine's hash. */
static void fjob__derive(fjob__run *r, size_t nh, uint64_t lp_fold)
{
    double win_ps = (double)(r->end_ps - r->win_start_ps);
    r->offered_load = win_ps > 0 && nh ? (double)r->win_wire_chars * (double)r->char_ps / win_ps / (double)nh : 0;
    r->target_load = myri_traffic_target_load(r->traffic);
    r->throughput_Bps = win_ps > 0 ? (double)r->win_payload / (win_ps * 1e-12) : 0;
    r->format_share = r->win_wire_chars ? (double)r->win_payload_injected / (double)r->win_wire_chars : 0;
    r->payload_share = win_ps > 0 && nh ? (double)r->win_payload * (double)r->char_ps / win_ps / (double)nh : 0;
    uint64_t x = r->c.result_hash ^ (lp_fold * 0x9e3779b97f4a7c15ull);
    r->hash = myri_splitmix64(&x);
}

static void fjob__collect(fjob__run *r, myri_sim *sim)
{
    myri_fabric_get_counters(r->fabric, &r->c);
    if (r->devs) myri_hostdev_get_stats(r->devs, UINT32_MAX, &r->ds);
    myri_traffic_window(r->traffic, &r->win_injected, &r->win_wire_chars, &r->win_payload_injected);
    myri_traffic_refused(r->traffic, &r->created, &r->refused, &r->win_refused);
    r->char_ps = myri_fabric_char_time_ps(r->fabric);
    r->sim_time_ps = myri_sim_now(sim);
    r->events = myri_sim_events(sim);
    fjob__derive(r, fjob__nsources(sim), myri_sim_hash(sim));
}

typedef void (*fjob__report_fn)(void *ctx, fjob__run *r, const myri_topo_built *b, myri_sim *sim);

/* The first value in `n` (a section) given by a --set, or NULL. */
static const myri_node *fjob__set_in(const myri_node *n)
{
    if (!n) return NULL;
    if (n->kind == MYRI_NODE_SCALAR) return n->file && !strcmp(n->file, "--set") ? n : NULL;
    for (size_t i = 0; i < n->n; i++) {
        const myri_node *s = fjob__set_in(n->item[i]);
        if (s) return s;
    }
    return NULL;
}

/* Gives an error from the fabric's parameter checks, which name the dotted
 * key at fault (err->key), the FILE:LINE:COL of that key in the scenario, or
 * of its nearest enclosing section when the value is a default. */
static void fjob__locate(myri_error *err, const myri_node *root)
{
    if (!err || !root) return;
    char key[128];
    if (!err->key[0]) return;
    snprintf(key, sizeof key, "%s", err->key);
    char at_key[sizeof key];
    memcpy(at_key, key, sizeof key);
    const myri_node *at = myri_node_path(root, key);
    while (!at) {
        char *dot = strrchr(key, '.');
        if (!dot) break;
        *dot = '\0';
        at = myri_node_path(root, key);
    }
    if (!at) at = root;
    /* the key at fault has its default: if a --set changed the section, the
     * error follows from that --set, so point there (not at a file line) */
    if (!myri_node_path(root, at_key)) {
        const myri_node *set = fjob__set_in(at);
        if (set) at = set;
    }
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    myri_error_at(err, at, "%s", msg);
    myri_error_set_key(err, at_key);
}

/* Builds and runs one configuration.  `report` (may be NULL) is called while
 * the fabric still exists.  Returns MYRI_OK, MYRI_EINPUT (bad input, in err)
 * or the status of what failed. */
static myri_status fjob__run_once(fjob__cfg *c, const myri_node *root, const myri_run_opts *opts,
                          bool progress, fjob__run *r, fjob__report_fn report, void *rctx,
                          myri_error *err)
{
    memset(r, 0, sizeof *r);
    fjob__sync(c);
    myri_topo_env env = {.length_m = c->fp.length_m, .encoding = (myri_route_encoding)c->fp.addressing,
                         .at = root};
    if (myri_node_path(root, "switch.ports")) env.ports = (uint32_t)c->fp.switch_ports;
    myri_topo_built b;
    if (myri_topo_build(&c->topo, myri_node_get(root, "topology"), &env, &b, err)) return MYRI_EINPUT;
    uint64_t heap0 = fjob__heap_bytes();
    myri_status rc = MYRI_OK;
    myri_sim *sim = myri_sim_create(c->common.seed);
    r->lat = myri_hist_create(7);
    r->net_lat = myri_hist_create(7);
    myri_fpcap *pcap = NULL;
    if (!sim || !r->lat || !r->net_lat) rc = MYRI_ENOMEM;
    myri_fabric_callbacks cb = {.delivered = fjob__delivered, .dropped = fjob__dropped, .ctx = r};
    myri_status st = MYRI_OK;
    if (!rc) myri_error_clear(err);
    if (!rc && (st = myri_fabric_create(sim, b.topo, &c->fp, &cb, &r->fabric, err)) != MYRI_OK) {
        rc = st;
        if (rc == MYRI_EINPUT) fjob__locate(err, root);
    }
    r->win_start_ps = c->common.warmup_ps;
    r->end_ps = c->common.warmup_ps + c->common.duration_ps;
    myri_component *ctl = NULL;
    if (!rc && (st = myri_sim_add(sim, &fjob__ctl_ops, "fabric-job", r, &ctl)) != MYRI_OK)
        rc = st == MYRI_EINPUT ? MYRI_EINVAL : st;
    if (!rc && (st = myri_traffic_create(sim, r->fabric, &b, &c->fp, &c->tr, myri_node_get(root, "traffic"),
                                         &r->traffic, err)) != MYRI_OK)
        rc = st;
    if (!rc && c->port.device == MYRI_HOSTDEV_DMA) {
        /* the devices attach before anything is sent; the sources give them their packets */
        st = myri_hostdev_create(sim, r->fabric, b.topo, &c->port, (uint32_t)c->fp.type_bytes, &r->devs);
        if (st) rc = st == MYRI_EINPUT ? MYRI_EINVAL : st;
        else fjob__use_devices(r);
    }
    if (!rc) myri_fabric_set_misdelivered(r->fabric, fjob__misdelivered); /* a fault's fate */
    if (!rc && (st = myri_ffaults_apply(&c->faults, b.topo, r->fabric, r->end_ps, &r->faults, err)) != MYRI_OK)
        rc = st;
    c->pcap.type_bytes = (uint8_t)c->fp.type_bytes;
    c->pcap.crc_poly = (uint8_t)c->fp.crc_poly;
    if (!rc && opts->pcap_path &&
        (st = myri_fpcap_open(opts->pcap_path, b.topo, &c->pcap, r->fabric, &pcap, err)) != MYRI_OK)
        rc = st;
    if (!rc) {
        if (r->win_start_ps == 0) {
            fjob__window_start(r);
        } else {
            myri_event ev = {.target = ctl, .kind = 1};
            myri_sim_schedule(sim, r->win_start_ps, &ev);
        }
        if (progress && opts->progress) myri_sim_set_progress(sim, opts->progress, r->end_ps);
        double t0 = fjob__now_s(), c0 = fjob__cpu_s();
        myri_sim_run(sim, r->end_ps, 0);
        r->wall_s = fjob__now_s() - t0;
        r->cpu_s = fjob__cpu_s() - c0;
        uint64_t heap1 = fjob__heap_bytes();
        r->mem_bytes = heap1 > heap0 ? heap1 - heap0 : 0;
        myri_sim_finish(sim);
        rc = myri_fpcap_finish(pcap, &r->pcap_packets, err);
        pcap = NULL;
        fjob__collect(r, sim);
        if (report && !rc) report(rctx, r, &b, sim);
    }
    myri_fpcap_close(pcap);
    myri_sim_destroy(sim);
    myri_ffaults_free(r->faults);
    r->faults = NULL;
    myri_traffic_destroy(r->traffic);
    r->traffic = NULL;
    myri_hostdev_destroy(r->devs);
    r->devs = NULL;
    r->fabric = NULL;
    myri_hist_destroy(r->lat);
    myri_hist_destroy(r->net_lat);
    r->lat = r->net_lat = NULL;
    myri_topo_built_free(&b);
    return rc;
}

/* ---- a run cut into partitions (docs/PARTITION.md section 4, step 9) ------------ */

/* What partition q gives the fold beside its fjob__run: its sources, each
 * engine id's LP hash where it made the component, every channel's figures. */
typedef struct fjob__psum {
    uint64_t nsrc, nid, nch;
    uint64_t *lp, *made; /* nid each (made: 1 where partition q made component id) */
    myri_fabric_channel_stats *ch;
    myri_fabric_claim *cl; /* the drop claims (ncl; docs/PARTITION.md row 15) */
    uint64_t ncl, live;    /* live: packet records held at the end */
    uint64_t *fates, nfate; /* the fault fates seen (myri_ffaults_pack: nfate words) */
} fjob__psum;

/* N partitions, each a simulation with its own fabric built from the whole
 * topology and only its units' components (the other hosts' ids reserved).
 * In one process all are here; across MPI ranks (rk) only partition
 * rk->rank is built and run here, and rank 0 receives the others' figures
 * (fjob__parts_recv) into r[q] and sum[q]. */
typedef struct fjob__parts {
    uint32_t n, lo, hi; /* the partitions built here: [lo, hi) */
    const myri_run_ranks *rk;
    myri_partition pt;
    myri_sim **sim;
    fjob__run *r;
    fjob__psum *sum;
    myri_part *h;
    fjob__partinfo info;
} fjob__parts;

static myri_time_ps fjob__p_next(void *ctx, uint32_t q) { return myri_sim_next_time(((fjob__parts *)ctx)->sim[q]); }
static myri_status fjob__p_run(void *ctx, uint32_t q, myri_time_ps last_ps)
{
    return myri_sim_run(((fjob__parts *)ctx)->sim[q], last_ps, 0);
}
static myri_status fjob__p_take(void *ctx, uint32_t q, const myri_fabric_msg *m)
{
    return myri_fabric_take_msg(((fjob__parts *)ctx)->r[q].fabric, m);
}
static const myri_part_ops fjob__p_ops = {fjob__p_next, fjob__p_run, fjob__p_take, NULL};

/* What a cut run cannot do yet: refused before anything is built (exit 2). */
static myri_status fjob__parts_refuse(const fjob__cfg *c, const myri_node *root, const myri_run_opts *opts,
                                      myri_error *err)
{
    const char *what = NULL;
    if (c->port.device == MYRI_HOSTDEV_DMA) what = "port.device: dma (the host devices are not units yet)";
    else if (opts->pcap_path) what = "--pcap (its records are not merged per partition yet, PARTITION.md row 18)";
    else if (c->sweep.key && *c->sweep.key) what = "a sweep: (cut one run at a time)";
    if (!what) return MYRI_OK;
    return myri_error_at(err, root, "--partitions: a cut run does not take %s; run it whole (docs/PARTITION.md step 9)",
                         what);
}

/* Builds partition q: its simulation, fabric (told its partition), the job's
 * window component and its hosts' traffic sources. */
static myri_status fjob__part_build(fjob__cfg *c, const myri_node *root, fjob__parts *P, uint32_t q,
                                    const myri_topo_built *b, myri_error *err)
{
    fjob__run *r = &P->r[q];
    myri_sim *sim = P->sim[q];
    myri_status st = myri_fabric_set_partition(r->fabric, P->pt.owner, q, myri_part_post, P->h);
    myri_component *ctl = NULL;
    if (!st && (st = myri_sim_add(sim, &fjob__ctl_ops, "fabric-job", r, &ctl)) != MYRI_OK)
        st = st == MYRI_EINPUT ? MYRI_EINVAL : st;
    if (!st)
        st = myri_traffic_create_part(sim, r->fabric, b, &c->fp, &c->tr, myri_node_get(root, "traffic"),
                                      P->pt.host_owner, q, &r->traffic, err);
    if (st) return st;
    myri_fabric_set_misdelivered(r->fabric, fjob__misdelivered);
    /* every partition schedules the faults (a cut's halves run where their nodes are; the set-up pushes of
     * the others' take their numbers) and notes the fates it sees (merged in fjob__parts_claims) */
    if ((st = myri_ffaults_apply(&c->faults, b->topo, r->fabric, r->end_ps, &r->faults, err)) != MYRI_OK) return st;
    if (r->win_start_ps == 0) {
        fjob__window_start(r);
    } else {
        myri_event ev = {.target = ctl, .kind = 1};
        myri_sim_schedule(sim, r->win_start_ps, &ev);
    }
    myri_fabric_partition_live(r->fabric);
    return MYRI_OK;
}

/* The simulations and fabrics (cut later: the lookaheads come from a fabric). */
static myri_status fjob__parts_make(fjob__cfg *c, const myri_node *root, fjob__parts *P, const myri_topo_built *b,
                                    myri_error *err)
{
    for (uint32_t q = P->lo; q < P->hi; q++) {
        fjob__run *r = &P->r[q];
        P->sim[q] = myri_sim_create(c->common.seed);
        r->lat = myri_hist_create(7);
        r->net_lat = myri_hist_create(7);
        r->win_start_ps = c->common.warmup_ps;
        r->end_ps = c->common.warmup_ps + c->common.duration_ps;
        if (!P->sim[q] || !r->lat || !r->net_lat) return MYRI_ENOMEM;
        myri_fabric_callbacks cb = {.delivered = fjob__delivered, .dropped = fjob__dropped, .ctx = r};
        myri_error_clear(err);
        myri_status st = myri_fabric_create(P->sim[q], b->topo, &c->fp, &cb, &r->fabric, err);
        if (st == MYRI_EINPUT) fjob__locate(err, root);
        if (st) return st;
    }
    size_t nl = b->topo->nlinks;
    uint64_t *la = calloc(nl ? nl : 1, sizeof *la);
    if (!la) return MYRI_ENOMEM;
    for (size_t l = 0; l < nl; l++) la[l] = myri_fabric_link_lookahead_ps(P->r[P->lo].fabric, l);
    myri_part_mode m;
    myri_status st = myri_part_mode_parse(P->info.mode, &m, err);
    if (!st) st = myri_partition_make(b->topo, P->n, &m, la, &P->pt, err);
    free(la);
    if (st) return st;
    P->info.pt = &P->pt;
    P->h = myri_part_create(P->n, P->pt.owner, P->pt.lookahead_ps, &fjob__p_ops, P);
    if (!P->h) return MYRI_ENOMEM;
    if (P->rk && (st = myri_part_set_ranks(P->h, P->rk)) != MYRI_OK) return st;
    for (uint32_t q = P->lo; q < P->hi && !st; q++) st = fjob__part_build(c, root, P, q, b, err);
    return st;
}

/* Every channel's statistics: the sender half's figures from its source
 * node's partition, the receiver half's from its destination's. */
static myri_status fjob__parts_stats(fjob__parts *P, const myri_topo *t, fjob__run *r)
{
    size_t n = myri_fabric_channel_count(P->r[0].fabric);
    r->part_st = calloc(n ? n : 1, sizeof *r->part_st);
    if (!r->part_st) return MYRI_ENOMEM;
    for (uint32_t q = 0; q < P->n; q++)
        if (P->sum[q].nch != n) return MYRI_ESTATE; /* checked when received */
    for (size_t ch = 0; ch < n; ch++) {
        const myri_topo_link *lk = &t->link[ch / 2];
        uint32_t src = ch % 2 ? lk->b_node : lk->a_node, dst = ch % 2 ? lk->a_node : lk->b_node;
        const myri_fabric_channel_stats *tx = &P->sum[P->pt.owner[src]].ch[ch], *rx = &P->sum[P->pt.owner[dst]].ch[ch];
        r->part_st[ch] = *tx; /* chars, busy, stopped, truncated, fres: the sender's */
        r->part_st[ch].stops = rx->stops;
        r->part_st[ch].gos = rx->gos;
        r->part_st[ch].max_slack_bytes = rx->max_slack_bytes;
    }
    return MYRI_OK;
}

typedef struct fjob__claim {
    myri_fabric_claim c;
    uint32_t part;
} fjob__claim;

/* The order of the whole run's events: per packet, by (time, key, node). */
static int fjob__claim_cmp(const void *pa, const void *pb)
{
    const fjob__claim *a = pa, *b = pb;
#define FJOB__CMP(x) if (a->x != b->x) return a->x < b->x ? -1 : 1
    FJOB__CMP(c.id);
    FJOB__CMP(c.t_ps);
    FJOB__CMP(c.order);
    FJOB__CMP(c.node);
    FJOB__CMP(part);
#undef FJOB__CMP
    return 0;
}

/* A packet that crossed a cut may be dropped in two partitions (a cable cut
 * drops it at both ends; a timeout and a cut can meet): the whole run counts
 * its first drop only, in its event order (docs/PARTITION.md row 15), so every
 * later one is taken back from the sums (counters, result_hash, the window's
 * drops) and the fault fates are merged, a packet dropped twice given its
 * first drop's.  At the end of the run, not at window ends: a fabric job's
 * `dropped` callback only counts (fjob__dropped), so nothing of the run
 * depends on which claim counts. */
static myri_status fjob__parts_claims(fjob__parts *P, fjob__run *r)
{
    size_t n = 0;
    for (uint32_t q = 0; q < P->n; q++) {
        n += P->sum[q].ncl;
        P->info.live_packets += P->sum[q].live;
        if (q && r->faults && myri_ffaults_merge_packed(r->faults, P->sum[q].fates, P->sum[q].nfate))
            return MYRI_ESTATE; /* a partition's fates of another `faults:` list: another myri on that rank */
    }
    fjob__claim *all = malloc((n ? n : 1) * sizeof *all);
    if (!all) return MYRI_ENOMEM;
    n = 0;
    for (uint32_t q = 0; q < P->n; q++)
        for (size_t i = 0; i < P->sum[q].ncl; i++) all[n++] = (fjob__claim){P->sum[q].cl[i], q};
    qsort(all, n, sizeof *all, fjob__claim_cmp);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && all[j].c.id == all[i].c.id; j++) {
            const myri_fabric_claim *c = &all[j].c; /* a later drop: the whole run would not count it */
            r->c.dropped[c->reason]--;
            r->c.dropped_total--;
            r->c.in_flight++;
            r->c.result_hash -= c->hash;
            if (c->at_ps >= r->win_start_ps) r->win_dropped[c->reason]--;
            P->info.taken_back++;
        }
        if (j > i + 1) myri_ffaults_note(r->faults, all[i].c.id, (int)all[i].c.reason, all[i].c.at_ps);
    }
    P->info.claims = n;
    free(all);
    return MYRI_OK;
}

/* Partition q's figures for the fold (q built here, its run over). */
static myri_status fjob__parts_summ(fjob__parts *P, uint32_t q)
{
    fjob__psum *u = &P->sum[q];
    u->nsrc = fjob__nsources(P->sim[q]);
    u->nid = myri_sim_component_count(P->sim[q]);
    u->nch = myri_fabric_channel_count(P->r[q].fabric);
    u->lp = calloc(u->nid ? 2 * u->nid : 1, sizeof *u->lp);
    u->ch = calloc(u->nch ? u->nch : 1, sizeof *u->ch);
    if (!u->lp || !u->ch) return MYRI_ENOMEM;
    u->made = u->lp + u->nid;
    for (size_t id = 0; id < u->nid; id++)
        if (myri_sim_component(P->sim[q], id)) {
            u->made[id] = 1;
            u->lp[id] = myri_sim_lp_hash(P->sim[q], id);
        }
    size_t k;
    const myri_fabric_claim *cl = myri_fabric_claims(P->r[q].fabric, &k);
    u->ncl = k;
    u->live = myri_fabric_live_packets(P->r[q].fabric);
    if (!(u->cl = malloc((k ? k : 1) * sizeof *u->cl))) return MYRI_ENOMEM;
    if (k) memcpy(u->cl, cl, k * sizeof *cl);
    u->nfate = myri_ffaults_pack(P->r[q].faults, NULL, 0);
    if (!(u->fates = malloc(u->nfate ? u->nfate * 8 : 1))) return MYRI_ENOMEM;
    myri_ffaults_pack(P->r[q].faults, u->fates, u->nfate);
    return myri_fabric_get_all_channel_stats(P->r[q].fabric, u->ch, u->nch);
}

/* Folds the partitions' figures into r, in partition order (sums and
 * merged histograms: the order does not matter), and the engine's hash: each
 * id's from the first partition that created it (a host's source: its
 * owner's; the replicated ones: partition 0's). */
static myri_status fjob__parts_gather(fjob__parts *P, const myri_topo *t, fjob__run *r)
{
    *r = P->r[0];
    r->part = &P->info; /* from here r's histograms are its own */
    r->lat = myri_hist_create(7);
    r->net_lat = myri_hist_create(7);
    if (!r->lat || !r->net_lat) return MYRI_ENOMEM;
    memset(&r->c, 0, sizeof r->c);
    r->win_delivered = r->win_payload = r->win_injected = r->win_wire_chars = r->win_payload_injected = 0;
    r->created = r->refused = r->win_refused = r->events = r->sim_time_ps = 0;
    memset(r->win_dropped, 0, sizeof r->win_dropped);
    size_t nh = 0;
    for (uint32_t q = 0; q < P->n; q++) {
        const fjob__run *p = &P->r[q];
        r->c.injected += p->c.injected;
        r->c.delivered += p->c.delivered;
        r->c.delivered_payload_bytes += p->c.delivered_payload_bytes;
        for (int i = 0; i < MYRI_FABRIC_DROP_NREASONS; i++) r->c.dropped[i] += p->c.dropped[i];
        for (int i = 0; i < MYRI_FABRIC_DROP_NREASONS; i++) r->win_dropped[i] += p->win_dropped[i];
        r->c.dropped_total += p->c.dropped_total;
        r->c.misdelivered += p->c.misdelivered;
        r->c.in_flight += p->c.in_flight;
        r->c.events += p->c.events;
        r->c.hops += p->c.hops;
        r->c.result_hash += p->c.result_hash; /* a sum over packets */
        r->win_delivered += p->win_delivered;
        r->win_payload += p->win_payload;
        r->win_injected += p->win_injected;
        r->win_wire_chars += p->win_wire_chars;
        r->win_payload_injected += p->win_payload_injected;
        r->created += p->created;
        r->refused += p->refused;
        r->win_refused += p->win_refused;
        r->events += p->events;
        if (p->sim_time_ps > r->sim_time_ps) r->sim_time_ps = p->sim_time_ps;
        if (myri_hist_merge(r->lat, p->lat) || myri_hist_merge(r->net_lat, p->net_lat)) return MYRI_ENOMEM;
        nh += P->sum[q].nsrc;
    }
    P->info.claims = P->info.taken_back = P->info.live_packets = 0;
    myri_status st = fjob__parts_claims(P, r);
    if (st) return st;
    size_t nid = P->sum[0].nid;
    uint64_t *lp = calloc(nid ? nid : 1, sizeof *lp);
    if (!lp) return MYRI_ENOMEM;
    for (size_t id = 0; id < nid; id++)
        for (uint32_t q = 0; q < P->n; q++)
            if (id < P->sum[q].nid && P->sum[q].made[id]) {
                lp[id] = P->sum[q].lp[id];
                break;
            }
    fjob__derive(r, nh, myri_sim_lp_hash_fold(lp, nid));
    free(lp);
    return fjob__parts_stats(P, t, r);
}

static void fjob__parts_free(fjob__parts *P)
{
    for (uint32_t q = 0; q < P->n; q++) {
        if (P->sim[q]) myri_sim_destroy(P->sim[q]);
        myri_traffic_destroy(P->r[q].traffic);
        myri_hist_destroy(P->r[q].lat);
        myri_hist_destroy(P->r[q].net_lat);
        myri_ffaults_free(P->r[q].faults);
    }
    for (uint32_t q = 0; P->sum && q < P->n; q++) {
        free(P->sum[q].lp);
        free(P->sum[q].ch);
        free(P->sum[q].cl);
        free(P->sum[q].fates);
    }
    myri_part_destroy(P->h);
    myri_partition_free(&P->pt);
    free(P->sim);
    free(P->r);
    free(P->sum);
}

/* ---- across MPI ranks: partition q's figures as one flat record to rank 0 ------------ */

/* The record: this head (the fjob__run's bytes, its pointers meaningless
 * elsewhere), then lp[nid], made[nid], ch[nch] and the two histograms'
 * words (myri_hist_pack).  Every rank runs the same myri (docs/RANKS.md). */
typedef struct fjob__prec {
    uint64_t run_bytes, nsrc, nid, nch, nlat, nnet, ncl, live, nfate;
    fjob__run r;
} fjob__prec;

static unsigned char *fjob__prec_make(const fjob__parts *P, uint32_t q, size_t *len)
{
    const fjob__psum *u = &P->sum[q];
    fjob__prec h = {sizeof(fjob__run), u->nsrc, u->nid, u->nch, myri_hist_pack(P->r[q].lat, NULL, 0),
                    myri_hist_pack(P->r[q].net_lat, NULL, 0), u->ncl, u->live, u->nfate, P->r[q]};
    size_t n = sizeof h + (2 * h.nid + h.nlat + h.nnet + h.nfate) * 8 + h.nch * sizeof *u->ch + h.ncl * sizeof *u->cl;
    unsigned char *b = malloc(n);
    if (!b) return NULL;
    memcpy(b, &h, sizeof h);
    unsigned char *p = b + sizeof h;
    memcpy(p, u->lp, 2 * h.nid * 8), p += 2 * h.nid * 8; /* lp then made, one block */
    memcpy(p, u->ch, h.nch * sizeof *u->ch), p += h.nch * sizeof *u->ch;
    if (h.ncl) memcpy(p, u->cl, h.ncl * sizeof *u->cl), p += h.ncl * sizeof *u->cl;
    if (h.nfate) memcpy(p, u->fates, h.nfate * 8), p += h.nfate * 8;
    uint64_t *w = malloc((h.nlat + h.nnet) * 8 + 8);
    if (!w) {
        free(b);
        return NULL;
    }
    myri_hist_pack(P->r[q].lat, w, h.nlat);
    myri_hist_pack(P->r[q].net_lat, w + h.nlat, h.nnet);
    memcpy(p, w, (h.nlat + h.nnet) * 8);
    free(w);
    *len = n;
    return b;
}

/* Rank 0: partition q's record into r[q] (its histograms made here) and sum[q]. */
static myri_status fjob__prec_take(fjob__parts *P, uint32_t q, const unsigned char *b, size_t len)
{
    fjob__prec h;
    if (len < sizeof h) return MYRI_ESTATE;
    memcpy(&h, b, sizeof h);
    size_t chb = sizeof(myri_fabric_channel_stats), clb = sizeof(myri_fabric_claim);
    if (h.run_bytes != sizeof(fjob__run) || h.nch != P->sum[0].nch || h.nid > (1u << 30) || h.nlat > len ||
        h.nnet > len || h.ncl > len || h.nfate > len ||
        len != sizeof h + (2 * h.nid + h.nlat + h.nnet + h.nfate) * 8 + h.nch * chb + h.ncl * clb)
        return MYRI_ESTATE; /* another myri on that rank */
    fjob__run *r = &P->r[q];
    *r = h.r;
    r->traffic = NULL, r->fabric = NULL, r->devs = NULL, r->faults = NULL, r->part_st = NULL, r->part = NULL;
    r->lat = myri_hist_create(7);
    r->net_lat = myri_hist_create(7);
    fjob__psum *u = &P->sum[q];
    *u = (fjob__psum){h.nsrc, h.nid, h.nch, calloc(h.nid ? 2 * h.nid : 1, 8), NULL, calloc(h.nch ? h.nch : 1, chb),
                      malloc(h.ncl ? h.ncl * clb : 1), h.ncl, h.live, malloc(h.nfate ? h.nfate * 8 : 1), h.nfate};
    uint64_t *w = malloc((h.nlat + h.nnet) * 8 + 8);
    myri_status st = r->lat && r->net_lat && u->lp && u->ch && u->cl && u->fates && w ? MYRI_OK : MYRI_ENOMEM;
    if (!st) {
        const unsigned char *p = b + sizeof h;
        u->made = u->lp + h.nid;
        memcpy(u->lp, p, 2 * h.nid * 8), p += 2 * h.nid * 8;
        memcpy(u->ch, p, h.nch * chb), p += h.nch * chb;
        if (h.ncl) memcpy(u->cl, p, h.ncl * clb), p += h.ncl * clb;
        if (h.nfate) memcpy(u->fates, p, h.nfate * 8), p += h.nfate * 8;
        memcpy(w, p, (h.nlat + h.nnet) * 8);
        st = myri_hist_unpack(r->lat, w, h.nlat) || myri_hist_unpack(r->net_lat, w + h.nlat, h.nnet) ? MYRI_ESTATE
                                                                                                      : MYRI_OK;
    }
    free(w);
    return st;
}

/* Across ranks: every rank's record to rank 0 (MPI_Gather of the lengths,
 * MPI_Gatherv of the bytes: myri_run_ranks.gather), which takes them in
 * partition order. */
static myri_status fjob__parts_recv(fjob__parts *P, myri_error *err)
{
    size_t len = 0, *lens = calloc(P->n, sizeof *lens);
    unsigned char *mine = lens ? fjob__prec_make(P, P->lo, &len) : NULL, *all = NULL;
    /* every rank takes part in the gather, whatever failed here (an empty record is refused at rank 0) */
    int bad = P->rk->gather(P->rk, mine ? mine : (const unsigned char *)"", mine ? len : 0, &all, lens);
    free(mine);
    myri_status st = bad || (P->lo == 0 && (!all || !lens)) ? MYRI_ESTATE : MYRI_OK;
    size_t off = 0;
    for (uint32_t q = 0; q < P->n && !st && P->lo == 0; q++) {
        if (q && (st = fjob__prec_take(P, q, all + off, lens[q])) != MYRI_OK)
            myri_error_key(err, "--partitions", "rank %u sent a record rank 0 cannot read (%zu bytes; every rank "
                                                "must run the same myri on the same architecture)", q, lens[q]);
        off += lens[q];
    }
    free(all);
    free(lens);
    return st;
}

/* Runs one configuration cut into opts->partitions partitions by
 * opts->partition (NULL: leaf) and reports it as one run (fjob__run_once). */
static myri_status fjob__run_parts(fjob__cfg *c, const myri_node *root, const myri_run_opts *opts, fjob__run *r,
                                   fjob__report_fn report, void *rctx, myri_error *err)
{
    memset(r, 0, sizeof *r);
    fjob__sync(c);
    myri_status rc = fjob__parts_refuse(c, root, opts, err);
    if (rc) return rc;
    myri_topo_env env = {.length_m = c->fp.length_m, .encoding = (myri_route_encoding)c->fp.addressing,
                         .at = root};
    if (myri_node_path(root, "switch.ports")) env.ports = (uint32_t)c->fp.switch_ports;
    myri_topo_built b;
    if (myri_topo_build(&c->topo, myri_node_get(root, "topology"), &env, &b, err)) return MYRI_EINPUT;
    /* across ranks: one partition per rank, this rank's built here */
    const myri_run_ranks *rk = opts->ranks;
    fjob__parts P = {.n = rk ? (uint32_t)rk->size : opts->partitions, .rk = rk};
    P.lo = rk ? (uint32_t)rk->rank : 0;
    P.hi = rk ? P.lo + 1 : P.n;
    snprintf(P.info.mode, sizeof P.info.mode, "%s", opts->partition ? opts->partition : "leaf");
    if (P.n < 1 || P.n > MYRI_PART_MAX) {
        rc = myri_error_key(err, rk ? "mpirun -n" : "--partitions", "%u partitions: expected 1 to %u", P.n,
                            MYRI_PART_MAX);
    } else {
        P.sim = calloc(P.n, sizeof *P.sim);
        P.r = calloc(P.n, sizeof *P.r);
        P.sum = calloc(P.n, sizeof *P.sum);
        rc = P.sim && P.r && P.sum ? fjob__parts_make(c, root, &P, &b, err) : MYRI_ENOMEM;
    }
    if (P.rk) rc = myri_part_agree(P.rk, rc, err); /* a rank that could not build its partition stops all */
    if (!rc) {
        if (opts->part_test_fault_ps) myri_part__test_fault(P.h, opts->part_test_fault_ps);
        double t0 = fjob__now_s(), c0 = fjob__cpu_s();
        rc = myri_part_run(P.h, P.r[P.lo].end_ps, err);
        myri_part_get_stats(P.h, &P.info.st);
        double wall = fjob__now_s() - t0, cpu = fjob__cpu_s() - c0;
        for (uint32_t q = P.lo; q < P.hi; q++) myri_sim_finish(P.sim[q]);
        for (uint32_t q = P.lo; q < P.hi; q++) fjob__collect(&P.r[q], P.sim[q]);
        for (uint32_t q = P.lo; q < P.hi && !rc; q++) rc = fjob__parts_summ(&P, q);
        if (P.rk) rc = myri_part_agree(P.rk, rc, err);
        if (!rc && P.rk) rc = fjob__parts_recv(&P, err);
        if (!rc && P.lo == 0) rc = fjob__parts_gather(&P, b.topo, r);
        r->wall_s = wall;
        r->cpu_s = cpu;
        if (!rc && report && P.lo == 0) report(rctx, r, &b, P.sim[0]);
    }
    free(r->part_st);
    if (r->part) { /* the gathered histograms are r's own */
        myri_hist_destroy(r->lat);
        myri_hist_destroy(r->net_lat);
    }
    memset(r, 0, sizeof *r);
    fjob__parts_free(&P);
    myri_topo_built_free(&b);
    return rc;
}

/* ---- output ------------------------------------------------------------------ */

typedef struct fjob__lat {
    double mean_ns, p50_ns, p99_ns, max_ns;
    uint64_t count;
} fjob__lat;

static fjob__lat fjob__lat_of(const myri_hist *h)
{
    fjob__lat l = {myri_hist_mean(h) / 1e3, (double)myri_hist_percentile(h, 0.5) / 1e3,
                   (double)myri_hist_percentile(h, 0.99) / 1e3, (double)myri_hist_max(h) / 1e3,
                   myri_hist_count(h)};
    return l;
}

static void fjob__json_lat(myri_json *j, const char *key, const fjob__lat *l)
{
    myri_json_key(j, key);
    myri_json_obj_begin(j);
    myri_json_kuint(j, "count", l->count);
    myri_json_knum(j, "mean", l->mean_ns);
    myri_json_knum(j, "p50", l->p50_ns);
    myri_json_knum(j, "p99", l->p99_ns);
    myri_json_knum(j, "max", l->max_ns);
    myri_json_obj_end(j);
}

static void fjob__json_packets(myri_json *j, const fjob__run *r)
{
    myri_json_key(j, "packets");
    myri_json_obj_begin(j);
    myri_json_kuint(j, "injected", r->c.injected);
    myri_json_kuint(j, "delivered", r->c.delivered);
    myri_json_kuint(j, "in_flight", r->c.in_flight);
    myri_json_kuint(j, "dropped_total", r->c.dropped_total);
    myri_json_kuint(j, "packet_hops", r->c.hops);
    fjob__json_refused(j, r);
    myri_json_key(j, "dropped");
    myri_json_obj_begin(j);
    for (int i = 0; i < MYRI_FABRIC_DROP_NREASONS; i++)
        myri_json_kuint(j, myri_fabric_drop_name((myri_fabric_drop_reason)i), r->c.dropped[i]);
    myri_json_obj_end(j);
    myri_json_key(j, "window");
    myri_json_obj_begin(j);
    myri_json_kuint(j, "injected", r->win_injected);
    myri_json_kuint(j, "delivered", r->win_delivered);
    myri_json_kuint(j, "injected_payload_bytes", r->win_payload_injected);
    myri_json_kuint(j, "delivered_payload_bytes", r->win_payload);
    myri_json_obj_end(j);
    myri_json_obj_end(j);
}

/* Aggregates of the per-channel statistics over the window. */
typedef struct fjob__links {
    double mean_util, max_util, max_stopped;
    size_t max_util_ch;
    uint64_t stops, gos, max_slack, truncated;
} fjob__links;

static fjob__links fjob__links_of(const fjob__run *r)
{
    fjob__links a = {0};
    size_t n = myri_fabric_channel_count(r->fabric);
    double win = (double)(r->end_ps - r->win_start_ps);
    myri_fabric_channel_stats *all = n ? malloc(n * sizeof *all) : NULL;
    if (all && r->part_st) memcpy(all, r->part_st, n * sizeof *all);
    else if (!all || myri_fabric_get_all_channel_stats(r->fabric, all, n)) { /* linear in the channels */
        free(all);
        return a;
    }
    for (size_t ch = 0; ch < n; ch++) {
        myri_fabric_channel_stats s = all[ch];
        double u = win > 0 ? (double)s.busy_ps / win : 0, st = win > 0 ? (double)s.stopped_ps / win : 0;
        a.mean_util += u / (double)n;
        if (u > a.max_util) {
            a.max_util = u;
            a.max_util_ch = ch;
        }
        if (st > a.max_stopped) a.max_stopped = st;
        a.stops += s.stops;
        a.gos += s.gos;
        a.truncated += s.truncated;
        if (s.max_slack_bytes > a.max_slack) a.max_slack = s.max_slack_bytes;
    }
    free(all);
    return a;
}

static void fjob__chan_name(const myri_topo *t, size_t ch, char *buf, size_t len)
{
    const myri_topo_link *lk = &t->link[ch / 2];
    uint32_t from = ch % 2 ? lk->b_node : lk->a_node, to = ch % 2 ? lk->a_node : lk->b_node;
    snprintf(buf, len, "%s->%s", t->node[from].name, t->node[to].name);
}

typedef struct fjob__out {
    fjob__cfg *cfg;
    const myri_run_opts *opts;
    const char *file;
} fjob__out;

/* The host devices' counters (port.device: dma only). */
static void fjob__json_ports(myri_json *j, const fjob__cfg *c, const fjob__run *r)
{
    if (!r->devs) return;
    const myri_hostdev_stats *d = &r->ds;
    myri_json_key(j, "ports");
    myri_json_obj_begin(j);
    myri_json_kstr(j, "device", c->port.device == MYRI_HOSTDEV_DMA ? "dma" : "none");
    myri_json_kuint(j, "rx_packets", d->rx_packets);
    myri_json_kuint(j, "rx_bad_crc", d->rx_bad_crc);
    myri_json_kuint(j, "rx_misrouted", d->rx_misrouted);
    myri_json_kuint(j, "rx_trunc", d->rx_trunc);
    myri_json_kuint(j, "rx_buff", d->rx_buff);
    myri_json_kuint(j, "rx_bytes", d->rx_bytes);
    myri_json_kuint(j, "tx_packets", d->tx_packets);
    myri_json_kuint(j, "tx_dropped", d->tx_dropped);
    myri_json_kuint(j, "queued", d->queued);
    myri_json_kuint(j, "max_queue", d->max_queue);
    myri_json_obj_end(j);
}

static void fjob__text_ports(FILE *out, const fjob__cfg *c, const fjob__run *r)
{
    if (!r->devs) return;
    const myri_hostdev_stats *d = &r->ds;
    char delay[32] = "at once";
    if (c->port.arm_delay_ps) myri_format_time(c->port.arm_delay_ps, delay, sizeof delay);
    fprintf(out, "ports        dma devices (window %llu B, re-armed %s after each rx notice): received %llu good, "
                 "%llu bad CRC, %llu misrouted, %llu truncated, %llu BUFF, %llu B; sent %llu, dropped at the "
                 "host %llu; send queues: largest %llu, %llu packets still queued\n",
            (unsigned long long)c->port.window_bytes, delay, (unsigned long long)d->rx_packets,
            (unsigned long long)d->rx_bad_crc, (unsigned long long)d->rx_misrouted,
            (unsigned long long)d->rx_trunc, (unsigned long long)d->rx_buff, (unsigned long long)d->rx_bytes,
            (unsigned long long)d->tx_packets, (unsigned long long)d->tx_dropped,
            (unsigned long long)d->max_queue, (unsigned long long)d->queued);
}

/* A cut run: the partitions' sizes, the cut cables, L, the windows and their messages. */
static void fjob__json_part(myri_json *j, const fjob__run *r)
{
    if (!r->part) return;
    const myri_partition *pt = r->part->pt;
    myri_json_key(j, "partitions");
    myri_json_obj_begin(j);
    myri_part_json_members(j, pt->n, r->part->mode, pt->hosts, pt->nodes, pt->ncut, pt->lookahead_ps, &r->part->st);
    myri_json_kuint(j, "drop_claims", r->part->claims);
    myri_json_kuint(j, "drops_taken_back", r->part->taken_back);
    myri_json_kuint(j, "live_packets", r->part->live_packets);
    myri_json_obj_end(j);
}

static void fjob__text_part(FILE *out, const fjob__run *r)
{
    if (!r->part) return;
    const myri_partition *pt = r->part->pt;
    const myri_part_stats *st = &r->part->st;
    fprintf(out, "partitions   %u (%s), hosts", pt->n, r->part->mode);
    for (uint32_t q = 0; q < pt->n; q++) fprintf(out, "%s%u", q ? "/" : " ", pt->hosts[q]);
    fprintf(out, ", nodes");
    for (uint32_t q = 0; q < pt->n; q++) fprintf(out, "%s%u", q ? "/" : " ", pt->nodes[q]);
    if (pt->ncut) fprintf(out, "; %zu cut cables, L %.3f ns", pt->ncut, (double)pt->lookahead_ps / 1e3);
    else fprintf(out, "; no cable cut: one window");
    fprintf(out, "\n             %llu windows, %llu messages (%.3f per window, at most %llu)\n",
            (unsigned long long)st->windows, (unsigned long long)st->messages,
            st->windows ? (double)st->messages / (double)st->windows : 0.0,
            (unsigned long long)st->max_window_messages);
    fprintf(out, "             %llu drops of packets that crossed a cut, %llu of them taken back (dropped in another "
                 "partition first); %llu packet records held at the end\n",
            (unsigned long long)r->part->claims, (unsigned long long)r->part->taken_back,
            (unsigned long long)r->part->live_packets);
}

/* Opens the result object: the job and the configuration echoed. */
static void fjob__json_head(myri_json *j, const fjob__out *o)
{
    myri_json_obj_begin(j);
    myri_json_kstr(j, "job", "fabric");
    myri_json_key(j, "config");
    myri_json_obj_begin(j);
    myri_params_echo_json(o->cfg->ps, o->cfg->nps, j);
    myri_json_obj_end(j);
}

static void fjob__report_json(void *ctx, fjob__run *r, const myri_topo_built *b, myri_sim *sim)
{
    fjob__out *o = ctx;
    myri_json *j = myri_json_create(o->opts->out, true);
    if (!j) return;
    fjob__json_head(j, o);
    myri_json_key(j, "network");
    myri_json_obj_begin(j);
    myri_json_kuint(j, "hosts", b->topo->nhosts);
    myri_json_kuint(j, "switches", myri_topo_nswitches(b->topo));
    myri_json_kuint(j, "links", b->topo->nlinks);
    myri_json_kbool(j, "deadlock_free", b->deadlock_free);
    if (!b->deadlock_free) myri_json_kstr(j, "cycle", b->deadlock_msg);
    myri_json_obj_end(j);
    fjob__json_packets(j, r);
    fjob__lat l = fjob__lat_of(r->lat), nl = fjob__lat_of(r->net_lat);
    fjob__json_lat(j, "latency_ns", &l);
    fjob__json_lat(j, "network_latency_ns", &nl);
    myri_json_knum(j, "throughput_bytes_per_sec", r->throughput_Bps);
    myri_json_knum(j, "payload_share", r->payload_share);
    myri_json_knum(j, "format_share", r->format_share);
    myri_json_knum(j, "offered_load", r->offered_load);
    myri_json_knum(j, "target_load", r->target_load);
    myri_json_kuint(j, "char_time_ps", r->char_ps);
    myri_json_kuint(j, "window_ps", r->end_ps - r->win_start_ps);
    /* every component's own report (ops.report; the fabric's: "links" and "dropped"); a cut run's
     * fabric report from the halves' owners (the fabric is the only component with a report) */
    if (r->part_st) myri_fabric_report_stats(r->fabric, r->part_st, r->c.dropped, j);
    for (size_t k = 0; !r->part_st && k < myri_sim_component_count(sim); k++) {
        myri_component *comp = myri_sim_component(sim, k);
        if (comp && comp->ops->report) comp->ops->report(comp, j); /* reserved ids: NULL */
    }
    fjob__json_ports(j, o->cfg, r);
    myri_ffaults_report_json(r->faults, j);
    myri_json_kuint(j, "sim_time_ps", r->sim_time_ps);
    myri_json_kuint(j, "events", r->events);
    myri_json_kuint(j, "fabric_events", r->c.events);
    myri_json_knum(j, "wall_s", r->wall_s);
    myri_json_knum(j, "events_per_sec", r->wall_s > 0 ? (double)r->events / r->wall_s : 0);
    if (o->opts->pcap_path) myri_json_kuint(j, "pcap_packets", r->pcap_packets);
    /* result_hash: packets, fates and times only, the same for both models;
     * hash: that mixed with the engine's event hash (differs between them). */
    myri_json_key(j, "result_hash");
    myri_json_hash(j, r->c.result_hash);
    myri_json_key(j, "hash");
    myri_json_hash(j, r->hash);
    fjob__json_part(j, r);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

static void fjob__print_time(FILE *out, double ns)
{
    if (ns >= 1e6) fprintf(out, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3) fprintf(out, "%.3f us", ns / 1e3);
    else fprintf(out, "%.1f ns", ns);
}

static void fjob__text_lat(FILE *out, const fjob__lat *l, const fjob__lat *nl)
{
    fprintf(out, "latency      mean ");
    fjob__print_time(out, l->mean_ns);
    fprintf(out, ", p50 ");
    fjob__print_time(out, l->p50_ns);
    fprintf(out, ", p99 ");
    fjob__print_time(out, l->p99_ns);
    fprintf(out, ", max ");
    fjob__print_time(out, l->max_ns);
    fprintf(out, " (%llu packets created in the window; creation to tail)\n", (unsigned long long)l->count);
    fprintf(out, "  network    mean ");
    fjob__print_time(out, nl->mean_ns);
    fprintf(out, ", p99 ");
    fjob__print_time(out, nl->p99_ns);
    fprintf(out, " (first character sent to tail)\n");
}

static void fjob__report_text(void *ctx, fjob__run *r, const myri_topo_built *b, myri_sim *sim)
{
    fjob__out *o = ctx;
    FILE *out = o->opts->out;
    (void)sim;
    fprintf(out, "# fabric job: %s\n", o->file);
    myri_params_echo_text(o->cfg->ps, o->cfg->nps, out);
    const myri_topo *t = b->topo;
    fjob__links a = fjob__links_of(r);
    fjob__lat l = fjob__lat_of(r->lat), nl = fjob__lat_of(r->net_lat);
    char chn[160];
    fjob__chan_name(t, a.max_util_ch, chn, sizeof chn);
    fprintf(out, "\nnetwork      %zu hosts, %zu switches, %zu links; route set %s\n", t->nhosts,
            myri_topo_nswitches(t), t->nlinks,
            b->deadlock_free ? "deadlock-free (acyclic channel dependencies)" : "NOT deadlock-free");
    if (!b->deadlock_free) fprintf(out, "             %s\n", b->deadlock_msg);
    fprintf(out, "traffic      offered load %.4f of the link rate", r->offered_load);
    if (r->target_load > 0) fprintf(out, " (target %.4f)", r->target_load);
    fprintf(out, ", character time %.3f ns\n", (double)r->char_ps / 1e3);
    fprintf(out, "packets      injected %llu, delivered %llu, dropped %llu, in flight at the end %llu\n",
            (unsigned long long)r->c.injected, (unsigned long long)r->c.delivered,
            (unsigned long long)r->c.dropped_total, (unsigned long long)r->c.in_flight);
    for (int i = 0; i < MYRI_FABRIC_DROP_NREASONS; i++)
        if (r->c.dropped[i])
            fprintf(out, "  dropped    %-24s %llu\n", myri_fabric_drop_name((myri_fabric_drop_reason)i),
                    (unsigned long long)r->c.dropped[i]);
    fjob__text_refused(out, r);
    myri_ffaults_report_text(r->faults, out);
    if (l.count == 0) {
        fprintf(out, "latency      none: no packet created in the window was delivered by its end\n");
    } else {
        fjob__text_lat(out, &l, &nl);
    }
    fprintf(out, "throughput   %.3f MB/s of delivered payload, all hosts (%llu packets in the window)\n",
            r->throughput_Bps / 1e6, (unsigned long long)r->win_delivered);
    /* What the packet format allows: the payload's share of the characters the
     * hosts sent (route, type, CRC and GAP cost the rest), times the offered load. */
    fprintf(out, "  per host   payload %.4f of the link rate delivered; expected %.4f = offered load %.4f x "
                 "payload share %.4f of the characters sent (route, type, CRC, GAP)\n",
            r->payload_share, r->offered_load * r->format_share, r->offered_load, r->format_share);
    fprintf(out, "channels     utilisation mean %.3f, max %.3f (%s); max time stopped %.3f\n",
            a.mean_util, a.max_util, chn, a.max_stopped);
    fprintf(out, "             STOP %llu, GO %llu, largest slack occupancy %llu B, truncated %llu\n",
            (unsigned long long)a.stops, (unsigned long long)a.gos, (unsigned long long)a.max_slack,
            (unsigned long long)a.truncated);
    fjob__text_ports(out, o->cfg, r);
    fprintf(out, "run          simulated %.6f ms, %llu events (%llu in the fabric), wall %.4f s, %.3g events/s\n",
            (double)r->sim_time_ps / 1e9, (unsigned long long)r->events, (unsigned long long)r->c.events,
            r->wall_s, r->wall_s > 0 ? (double)r->events / r->wall_s : 0);
    if (o->opts->pcap_path)
        fprintf(out, "pcap         %llu packets written to %s\n", (unsigned long long)r->pcap_packets,
                o->opts->pcap_path);
    fjob__text_part(out, r);
    fprintf(out, "result_hash  0x%016llx\n", (unsigned long long)r->c.result_hash);
    fprintf(out, "hash         0x%016llx\n", (unsigned long long)r->hash);
}

/* ---- sweeps -------------------------------------------------------------------- */

typedef struct fjob__point {
    const char *value;
    fjob__run r;
    fjob__lat lat;
    double ratio; /* delivered / injected payload in the window */
} fjob__point;

static void fjob__point_report(void *ctx, fjob__run *r, const myri_topo_built *b, myri_sim *sim)
{
    fjob__point *p = ctx;
    (void)b;
    (void)sim;
    p->lat = fjob__lat_of(r->lat);
}

static void fjob__sweep_output(const fjob__out *o, const fjob__point *pts, size_t n, int sat,
                               double wall, uint64_t events, uint64_t hash)
{
    FILE *out = o->opts->out;
    const char *key = o->cfg->sweep.key;
    if (o->opts->json) {
        myri_json *j = myri_json_create(out, true);
        fjob__json_head(j, o);
        myri_json_key(j, "sweep");
        myri_json_obj_begin(j);
        myri_json_kstr(j, "key", key);
        myri_json_key(j, "points");
        myri_json_arr_begin(j);
        for (size_t i = 0; i < n; i++) {
            myri_json_obj_begin(j);
            myri_json_kstr(j, "value", pts[i].value);
            fjob__json_packets(j, &pts[i].r);
            fjob__json_lat(j, "latency_ns", &pts[i].lat);
            myri_json_knum(j, "throughput_bytes_per_sec", pts[i].r.throughput_Bps);
            myri_json_knum(j, "offered_load", pts[i].r.offered_load);
            myri_json_knum(j, "delivered_ratio", pts[i].ratio);
            myri_json_kuint(j, "events", pts[i].r.events);
            myri_json_knum(j, "wall_s", pts[i].r.wall_s);
            myri_json_key(j, "hash");
            myri_json_hash(j, pts[i].r.hash);
            myri_json_obj_end(j);
        }
        myri_json_arr_end(j);
        if (sat >= 0) myri_json_kstr(j, "saturation", pts[sat].value);
        else myri_json_key(j, "saturation"), myri_json_null(j);
        myri_json_obj_end(j);
        myri_json_kuint(j, "sim_time_ps", o->cfg->common.warmup_ps + o->cfg->common.duration_ps);
        myri_json_kuint(j, "events", events);
        myri_json_knum(j, "wall_s", wall);
        myri_json_key(j, "hash");
        myri_json_hash(j, hash);
        myri_json_obj_end(j);
        myri_json_finish(j);
        return;
    }
    fprintf(out, "\n%-12s %9s %14s %9s %12s %12s %9s %9s\n", key, "offered", "throughput", "deliv/inj",
            "mean lat", "p99 lat", "dropped", "wall s");
    fprintf(out, "%-12s %9s %14s %9s %12s %12s %9s %9s\n", "", "load", "MB/s", "", "us", "us", "", "");
    for (size_t i = 0; i < n; i++) {
        const fjob__run *r = &pts[i].r;
        fprintf(out, "%-12s %9.4f %14.3f %9.4f %12.3f %12.3f %9llu %9.3f%s\n", pts[i].value, r->offered_load,
                r->throughput_Bps / 1e6, pts[i].ratio, pts[i].lat.mean_ns / 1e3, pts[i].lat.p99_ns / 1e3,
                (unsigned long long)r->c.dropped_total, r->wall_s, (int)i == sat ? "  <- saturated" : "");
    }
    if (sat > 0)
        fprintf(out, "\nsaturation: between %s = %s (keeps up) and %s = %s (delivers under 95 %% of what "
                     "is injected; latency grows without bound)\n",
                key, pts[sat - 1].value, key, pts[sat].value);
    else if (sat == 0)
        fprintf(out, "\nsaturation: already saturated at %s = %s\n", key, pts[0].value);
    else
        fprintf(out, "\nsaturation: not reached (every point delivered at least 95 %% of what it injected)\n");
    fprintf(out, "total: %llu events, wall %.3f s, hash 0x%016llx\n", (unsigned long long)events, wall,
            (unsigned long long)hash);
}

/* What one point's run sends to the reporting rank: the run's figures (its
 * pointers are NULL once fjob__run_once returns) and its latencies. */
typedef struct fjob__point_rec {
    fjob__run r;
    fjob__lat lat;
} fjob__point_rec;

/* Runs this process's points (every point without ranks; point i on rank
 * i mod R with them, docs/RANKS.md), logging each.  Every value is applied in
 * order on every rank, so that each run sees the configuration it would see
 * in one process.  Stops at the first failure. */
static void fjob__sweep_runs(fjob__cfg *c, const myri_node *root, const myri_run_opts *opts, myri_sweep_log *log,
                             myri_error *err)
{
    const myri_node *vals = c->sweep.values;
    myri_status rc = MYRI_OK;
    for (size_t i = 0; i < vals->n && !rc; i++) {
        rc = myri_sweep_apply(&c->sweep, c->ps, c->nps, i, err);
        if (!myri_sweep_mine(opts, i)) continue;
        fjob__point_rec *p = rc ? NULL : calloc(1, sizeof *p);
        if (!rc && !p) rc = MYRI_ENOMEM;
        if (!rc) {
            if (opts->progress) fprintf(opts->progress, "\r%s = %s ...", c->sweep.key, vals->item[i]->scalar);
            fjob__point pt = {0};
            rc = fjob__run_once(c, root, opts, false, &p->r, fjob__point_report, &pt, err);
            p->lat = pt.lat;
        }
        if (myri_sweep_log_put(log, i, rc, err, p, sizeof *p) && !rc) rc = MYRI_ENOMEM;
        free(p);
    }
    if (opts->progress) fprintf(opts->progress, "\r%40s\r", "");
}

static myri_status fjob__do_sweep(fjob__cfg *c, const myri_node *root, const char *file,
                                  const myri_run_opts *opts, myri_error *err)
{
    const myri_node *vals = c->sweep.values;
    myri_status rc = myri_sweep_check(&c->sweep, c->ps, c->nps, root, NULL, opts, err);
    if (rc) return rc;
    if (c->sweep.runs > 1)
        return myri_error_at(err, myri_node_path(root, "sweep.runs"),
                             "sweep.runs: the fabric job runs each value once (with the scenario's seed); expected "
                             "1, or give each seed with --seed");
    bool reports = myri_sweep_reports(opts);
    fjob__out o = {c, opts, file};
    if (!opts->json && reports) {
        fprintf(opts->out, "# fabric job: %s (sweep of %s)\n", file, c->sweep.key);
        myri_params_echo_text(c->ps, c->nps, opts->out);
    }
    myri_sweep_log log = {0};
    myri_sweep_logs all;
    fjob__sweep_runs(c, root, opts, &log, err);
    if ((rc = myri_sweep_gather(opts, &log, &all, err)) != MYRI_OK || !reports) {
        myri_sweep_logs_free(&all);
        return rc;
    }
    /* rank 0 (or the one process): the points in order, as one process runs them */
    fjob__point *pts = calloc(vals->n, sizeof *pts);
    if (!pts) rc = MYRI_ENOMEM;
    int sat = -1;
    uint64_t events = 0, hash = 0x6d797269ull;
    double wall = 0;
    for (size_t i = 0; i < vals->n && !rc; i++) {
        const unsigned char *b = NULL;
        size_t len = 0;
        if ((rc = myri_sweep_take(&all, i, err, &b, &len)) != MYRI_OK) break;
        fjob__point_rec p;
        if (len != sizeof p) {
            myri_error_at(err, NULL, "sweep point %zu: a record of %zu bytes, expected %zu (ranks running "
                                          "different myri programs?)", i, len, sizeof p);
            rc = MYRI_EINVAL;
            break;
        }
        memcpy(&p, b, sizeof p);
        pts[i].value = vals->item[i]->scalar;
        pts[i].r = p.r;
        pts[i].lat = p.lat;
        const fjob__run *r = &pts[i].r;
        pts[i].ratio = r->win_payload_injected ? (double)r->win_payload / (double)r->win_payload_injected : 1;
        if (sat < 0 && pts[i].ratio < 0.95) sat = (int)i;
        events += r->events;
        wall += r->wall_s;
        uint64_t x = hash ^ r->hash;
        hash = myri_splitmix64(&x);
    }
    if (!rc) fjob__sweep_output(&o, pts, vals->n, sat, wall, events, hash);
    free(pts);
    myri_sweep_logs_free(&all);
    return rc;
}

/* ---- the job --------------------------------------------------------------------- */

/* The keys that follow others when not given, set from them (again before
 * every run of a sweep, which may change the others). */
static void fjob__sync(fjob__cfg *c)
{
    if (c->topo_len_is_link_len) c->topo.length_m = c->fp.length_m;
    if (!c->per_switch_default) return;
    switch (c->topo.generator) { /* the defaults of topo_gen.c */
    case MYRI_GEN_STAR: c->topo.hosts_per_switch = c->fp.switch_ports; break;
    case MYRI_GEN_MESH:
    case MYRI_GEN_RING: c->topo.hosts_per_switch = 1; break;
    case MYRI_GEN_CLOS: c->topo.hosts_per_switch = c->topo.spines; break;
    default: c->topo.hosts_per_switch = 0; break; /* not used by the other generators */
    }
}

/* Replaces the defaults that mean "see another key" by the values used, so
 * that the echo shows what runs (and running the echo runs the same). */
static void fjob__resolve(fjob__cfg *c, const myri_node *root)
{
    static char all_hosts[] = "hosts";
    static const myri_node pcap_hosts = {.kind = MYRI_NODE_SCALAR, .scalar = all_hosts};
    const myri_node *topo = myri_node_get(root, "topology");
    if (!c->common.job || !*c->common.job) c->common.job = myri_fabric_job.name;
    if ((c->topo.hosts || c->topo.switches || c->topo.links) && !myri_node_get(topo, "generator"))
        c->topo.generator = MYRI_GEN_NONE;
    c->topo_len_is_link_len = c->topo.length_m <= 0 && !myri_node_get(topo, "length");
    c->per_switch_default = c->topo.hosts_per_switch == 0;
    fjob__sync(c);
    if (!c->pcap.links) c->pcap.links = &pcap_hosts;
}

/* link.preset brings slack values that work at its rate (unless the scenario
 * gives link.slack itself): myri_fabric_preset_slack. */
static void fjob__preset_slack(fjob__cfg *c, const myri_node *root)
{
    if (myri_node_path(root, "link.slack")) return;
    myri_fabric_preset_slack(&c->fp);
}

/* Reads and checks the scenario's keys into c: MYRI_OK, or MYRI_EINPUT with
 * the error (at its FILE:LINE:COL) in err. */
static myri_status fjob__load(fjob__cfg *c, const myri_node *root, myri_error *err)
{
    fjob__psets(c);
    if (myri_params_load(c->ps, c->nps, root, NULL, err)) return MYRI_EINPUT;
    if (myri_scenario_check_times(&c->common, root, err)) return MYRI_EINPUT;
    fjob__preset_slack(c, root);
    myri_error_clear(err);
    if (myri_fabric_params_check(&c->fp, err)) {
        fjob__locate(err, root);
        return MYRI_EINPUT;
    }
    fjob__resolve(c, root);
    return MYRI_OK;
}

static myri_status fjob__job_run(const myri_node *root, const char *file, const myri_run_opts *opts,
                                 myri_error *err)
{
    fjob__cfg *c = calloc(1, sizeof *c);
    if (!c) return MYRI_ENOMEM;
    myri_status rc = fjob__load(c, root, err);
    if (!rc && opts->have_seed) c->common.seed = opts->seed;
    if (!rc && c->sweep.key && *c->sweep.key && (opts->partitions || opts->partition)) {
        rc = fjob__parts_refuse(c, root, opts, err);
    } else if (!rc && c->sweep.key && *c->sweep.key) {
        rc = fjob__do_sweep(c, root, file, opts, err);
    } else if (!rc && opts->ranks && opts->partitions && opts->partitions != (uint32_t)opts->ranks->size) {
        rc = myri_error_key(err, "--partitions", "%u partitions under %d MPI ranks: a run cut across ranks has one "
                            "partition per rank (give --partitions %d, or none)", opts->partitions,
                            opts->ranks->size, opts->ranks->size);
    } else if (!rc) {
        fjob__out o = {c, opts, file};
        fjob__run r;
        fjob__report_fn rep = opts->json ? fjob__report_json : fjob__report_text;
        rc = opts->partitions || opts->ranks ? fjob__run_parts(c, root, opts, &r, rep, &o, err)
                                             : fjob__run_once(c, root, opts, true, &r, rep, &o, err);
    }
    free(c);
    return rc;
}

static void fjob__result_report(void *ctx, fjob__run *r, const myri_topo_built *b, myri_sim *sim)
{
    myri_fabric_run_result *o = ctx;
    (void)b;
    (void)sim;
    fjob__lat l = fjob__lat_of(r->lat);
    *o = (myri_fabric_run_result){
        .injected = r->c.injected, .delivered = r->c.delivered, .dropped = r->c.dropped_total,
        .in_flight = r->c.in_flight, .events = r->events, .fabric_events = r->c.events,
        .sim_time_ps = r->sim_time_ps, .hash = r->hash, .result_hash = r->c.result_hash, .wall_s = r->wall_s,
        .cpu_s = r->cpu_s, .hops = r->c.hops, .mem_bytes = r->mem_bytes,
        .throughput_bytes_per_sec = r->throughput_Bps, .offered_load = r->offered_load,
        .latency_mean_ns = l.mean_ns, .latency_p99_ns = l.p99_ns};
}

myri_status myri_fabric_run_doc(const myri_node *root, const uint64_t *seed, myri_fabric_run_result *out,
                                myri_error *err)
{
    if (!out) return MYRI_EINVAL;
    memset(out, 0, sizeof *out);
    fjob__cfg *c = calloc(1, sizeof *c);
    if (!c) return MYRI_ENOMEM;
    myri_status rc = fjob__load(c, root, err);
    if (!rc && seed) c->common.seed = *seed;
    myri_run_opts opts = {.out = NULL};
    fjob__run r;
    if (!rc) rc = fjob__run_once(c, root, &opts, false, &r, fjob__result_report, out, err);
    free(c);
    return rc;
}

myri_status myri_fabric_check_doc(const myri_node *root, myri_error *err)
{
    fjob__cfg *c = calloc(1, sizeof *c);
    if (!c) return MYRI_ENOMEM;
    myri_status rc = fjob__load(c, root, err);
    free(c);
    return rc;
}

static void fjob__help(FILE *out)
{
    fjob__cfg *c = calloc(1, sizeof *c);
    if (!c) return;
    fjob__psets(c);
    myri_params_help(c->ps, c->nps, out);
    free(c);
}

const myri_job myri_fabric_job = {
    .name = "fabric",
    .help = "Myrinet fabric: topology, up/down routes, STOP/GO links, cut-through switches, traffic",
    .help_params = fjob__help,
    .run = fjob__job_run,
};
