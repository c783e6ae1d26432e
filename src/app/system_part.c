/* system_part.c -- a system job cut into N partitions inside one process
 * (`myri run FILE --partitions N`, docs/PARTITION.md step 9): each partition
 * is a whole myri_sys_run of its own (simulation, fabric built from the
 * whole topology, told its partition) with only its hosts' LANais, hosts and
 * programs; the other hosts' engine ids are reserved in their per-host
 * blocks (MYRI_SYS_HOST_IDS), so that every component has its whole-run id.
 * The window loop and the exchange are part.c's.
 *
 * The end: a whole run ends at the end of the instant T its last program
 * returned (system_job.c).  Partitions run window by window, so when the
 * last program returns the others may have run past T: the run is made
 * again, every partition to T (a second pass; results are a function of the
 * scenario, so the second pass repeats the first up to T).  A run whose
 * programs do not all return ends at `duration` in one pass. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/part.h"
#include "app/partition.h"
#include "app/system_int.h"

typedef struct spart {
    uint32_t n;
    const myri_sys_cfg *c;
    const myri_node *root;
    const myri_run_opts *opts;
    myri_partition pt;
    myri_sys_run *r;
    myri_part *h;
    myri_sys_partinfo info;
} spart;

static myri_time_ps spart__next(void *ctx, uint32_t q) { return myri_sim_next_time(((spart *)ctx)->r[q].sim); }

static myri_status spart__run_to(void *ctx, uint32_t q, myri_time_ps last_ps)
{
    return myri_sim_run(((spart *)ctx)->r[q].sim, last_ps, 0);
}

static myri_status spart__take(void *ctx, uint32_t q, const myri_fabric_msg *m)
{
    return myri_fabric_take_msg(((spart *)ctx)->r[q].fabric, m);
}

/* Every program of every partition has returned (the whole run's stop). */
static bool spart__done(void *ctx)
{
    const spart *P = ctx;
    size_t exited = 0;
    for (uint32_t q = 0; q < P->n; q++) exited += P->r[q].nexited;
    return P->r[0].nprograms && exited == P->r[0].nprograms;
}

static const myri_part_ops spart__ops = {spart__next, spart__run_to, spart__take, spart__done};
static const myri_part_ops spart__ops_to_end = {spart__next, spart__run_to, spart__take, NULL};

/* What a cut system run cannot do yet: refused before anything is built. */
static myri_status spart__refuse(const myri_sys_cfg *c, const myri_node *root, const myri_run_opts *opts,
                                 myri_error *err)
{
    const char *what = NULL;
    bool after = false;
    const myri_node *list = c->programs;
    for (size_t k = 0; list && list->kind == MYRI_NODE_SEQ && k < list->n; k++) {
        const myri_node *a = myri_node_get(list->item[k], "after");
        after = after || (a && a->kind == MYRI_NODE_SCALAR && a->scalar && a->scalar[0]);
    }
    if (c->mapping) what = "mapping: on (the mapper's state is shared by every NIC, docs/PARTITION.md section 6)";
    else if (c->faults.faults) what = "faults: (their fates are not gathered per partition yet)";
    else if (opts->pcap_path) what = "--pcap (its records are not merged per partition yet, PARTITION.md row 18)";
    else if (opts->vcd_path) what = "--vcd (one file of every NIC's signals in time order)";
    else if (opts->nprograms) what = "--program (shared objects loaded once per run)";
    else if (after) what = "a programs: entry with after: (it starts when programs of other hosts return: one "
                           "count shared by every host, section 6)";
    if (!what) return MYRI_OK;
    return myri_error_at(err, root, "--partitions: a cut system run does not take %s; run it whole "
                                    "(docs/PARTITION.md step 9)", what);
}

/* The cut: partitions of the topology by the mode, L from the links' lookaheads (a fabric of its own). */
static myri_status spart__cut(spart *P, myri_error *err)
{
    myri_topo_built b;
    myri_status st = myri_system_build_topo(P->root, &b, err);
    if (st) return st;
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = NULL;
    size_t nl = b.topo->nlinks;
    uint64_t *la = calloc(nl ? nl : 1, sizeof *la);
    st = sim && la ? myri_fabric_create(sim, b.topo, &P->c->fp, NULL, &f, err) : MYRI_ENOMEM;
    for (size_t l = 0; !st && l < nl; l++) la[l] = myri_fabric_link_lookahead_ps(f, l);
    myri_part_mode m;
    if (!st) st = myri_part_mode_parse(P->info.mode, &m, err);
    if (!st) st = myri_partition_make(b.topo, P->n, &m, la, &P->pt, err);
    free(la);
    if (sim) myri_sim_destroy(sim);
    myri_topo_built_free(&b);
    return st;
}

/* One pass: every partition built, run by the window loop to end_ps (or,
 * with ops.done, until every program returned). */
static myri_status spart__pass(spart *P, const myri_part_ops *ops, myri_time_ps end_ps, myri_error *err)
{
    P->h = myri_part_create(P->n, P->pt.owner, P->pt.lookahead_ps, ops, P);
    if (!P->h) return MYRI_ENOMEM;
    myri_status st = MYRI_OK;
    for (uint32_t q = 0; q < P->n && !st; q++) {
        myri_sys_run *r = &P->r[q];
        memset(r, 0, sizeof *r);
        r->host_owner = P->pt.host_owner;
        r->node_owner = P->pt.owner;
        r->part_me = q;
        r->part_out = myri_part_post;
        r->part_ctx = P->h;
        st = myri_sys_run_prepare(r, P->c, P->root, P->opts, err);
        if (!st) myri_fabric_partition_live(r->fabric);
    }
    if (st) return st;
    if (P->opts->part_test_fault_ps) myri_part__test_fault(P->h, P->opts->part_test_fault_ps);
    st = myri_part_run(P->h, end_ps, err);
    myri_part_get_stats(P->h, &P->info.st); /* the reported pass's */
    P->info.passes++;
    return st;
}

static void spart__free_pass(spart *P)
{
    for (uint32_t q = 0; q < P->n; q++) myri_sys_run_free(&P->r[q]);
    myri_part_destroy(P->h);
    P->h = NULL;
}

/* The report's run: each host's NIC from its partition, the counters summed. */
static myri_status spart__report(spart *P, const char *file, double wall_s)
{
    myri_sys_run v = P->r[0];
    myri_fabric_counters sum = {0};
    v.nic = calloc(v.nnic ? v.nnic : 1, sizeof *v.nic);
    if (!v.nic) return MYRI_ENOMEM;
    for (uint32_t i = 0; i < v.nnic; i++) v.nic[i] = P->r[P->pt.host_owner[i]].nic[i];
    v.events_sum = 0;
    for (uint32_t q = 0; q < P->n; q++) {
        myri_fabric_counters fc;
        myri_fabric_get_counters(P->r[q].fabric, &fc);
        sum.injected += fc.injected;
        sum.delivered += fc.delivered;
        sum.delivered_payload_bytes += fc.delivered_payload_bytes;
        for (int k = 0; k < MYRI_FABRIC_DROP_NREASONS; k++) sum.dropped[k] += fc.dropped[k];
        sum.dropped_total += fc.dropped_total;
        sum.misdelivered += fc.misdelivered;
        sum.in_flight += fc.in_flight; /* a packet injected in one partition, delivered in another: the sum */
        sum.events += fc.events;
        sum.hops += fc.hops;
        sum.result_hash += fc.result_hash; /* a sum over packets */
        v.events_sum += myri_sim_events(P->r[q].sim);
    }
    size_t nid = myri_sim_component_count(P->r[0].sim);
    uint64_t *lp = calloc(nid ? nid : 1, sizeof *lp);
    if (!lp) {
        free(v.nic);
        return MYRI_ENOMEM;
    }
    for (size_t id = 0; id < nid; id++) /* from the partition that created it (the fabric: partition 0's, unhashed) */
        for (uint32_t q = 0; q < P->n; q++)
            if (myri_sim_component(P->r[q].sim, id)) {
                lp[id] = myri_sim_lp_hash(P->r[q].sim, id);
                break;
            }
    v.event_hash = myri_sim_lp_hash_fold(lp, nid);
    free(lp);
    v.fc_sum = &sum;
    v.part = &P->info;
    v.wall_s = wall_s;
    myri_status st = myri_sys_print(P->c, &v, P->opts, file);
    free(v.nic);
    return st;
}

static double spart__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

myri_status myri_sys_run_parts(const myri_sys_cfg *c, const myri_node *root, const myri_run_opts *opts,
                               const char *file, myri_error *err)
{
    myri_status st = spart__refuse(c, root, opts, err);
    if (st) return st;
    spart P = {.n = opts->partitions, .c = c, .root = root, .opts = opts};
    if (P.n < 1 || P.n > MYRI_PART_MAX)
        return myri_error_key(err, "--partitions", "%u partitions: expected 1 to %u", P.n, MYRI_PART_MAX);
    snprintf(P.info.mode, sizeof P.info.mode, "%s", opts->partition ? opts->partition : "leaf");
    P.r = calloc(P.n, sizeof *P.r);
    if (!P.r) return MYRI_ENOMEM;
    if (!(st = spart__cut(&P, err))) {
        P.info.n = P.n;
        P.info.cut_links = (uint32_t)P.pt.ncut;
        P.info.lookahead_ps = P.pt.lookahead_ps;
        for (uint32_t q = 0; q < P.n; q++) P.info.hosts[q] = P.pt.hosts[q], P.info.nodes[q] = P.pt.nodes[q];
    }
    double t0 = spart__now_s();
    if (!st) st = spart__pass(&P, &spart__ops, c->common.duration_ps, err);
    if (!st && spart__done(&P) && !opts->part_test_one_pass) { /* every program returned, at T: again, every partition to T */
        myri_time_ps T = 0;
        for (uint32_t q = 0; q < P.n; q++)
            if (P.r[q].nexited && P.r[q].last_exit_ps > T) T = P.r[q].last_exit_ps;
        spart__free_pass(&P);
        st = spart__pass(&P, &spart__ops_to_end, T, err);
        if (!st && !spart__done(&P))
            st = myri_error_key(err, "--partitions", "the second pass to %llu ps did not see every program return",
                                (unsigned long long)T);
    }
    double wall = spart__now_s() - t0;
    for (uint32_t q = 0; q < P.n && !st; q++) st = myri_sys_run_close(&P.r[q], err);
    if (!st) st = spart__report(&P, file, wall);
    spart__free_pass(&P);
    myri_partition_free(&P.pt);
    free(P.r);
    return st;
}
