/* models.c -- the seed-004 NIC networks, the one-node test network, the
 * paper's printed simulation results, and result output (JSON, hash). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "myri/json.h"
#include "analysis/qsim/qsim.h"

/* Seed 004, Tables 3-10: the six doorbell arrival rates (per microsecond). */
const double myri_qsim_paper_rates[MYRI_QSIM_NRATES] = {0.00273, 0.00493, 0.00786, 0.00900, 0.01079, 0.01100};

/* Seed 004, the printed simulation results (ARENA runs of the paper):
 * Table 4 (model 2 SRAM queue lengths), Table 5 (utilisations, models 1 and
 * 2), Table 6 (HDMA queue length, models 1 and 2), Table 7 (LANai queue
 * length: model 1 pooled queue, model 2 sum of the three queues) and Table 9
 * (QNA LANai queue length vs model 2's sum).  Copied cell by cell from the
 * scanned text of the seed; the Table 9 simulation column equals Table 7's
 * model-2 column, as the paper says it should. */
const myri_qsim_paper_row myri_qsim_paper[MYRI_QSIM_NRATES] = {
    {0.00273, 0.0024, 0.0022, 0.0019, 0.0875, 0.0875, 0.2430, 0.2430, 0.1433, 0.1433,
     0.0464, 0.0465, 0.0067, 0.0064, 0.0059, 0.0064},
    {0.00493, 0.0084, 0.0076, 0.0062, 0.1588, 0.1586, 0.4393, 0.4393, 0.2591, 0.2591,
     0.1999, 0.2002, 0.0238, 0.0222, 0.0191, 0.0222},
    {0.00786, 0.0244, 0.0216, 0.0166, 0.2561, 0.2551, 0.7015, 0.7015, 0.4138, 0.4138,
     0.9433, 0.9438, 0.0680, 0.0626, 0.0486, 0.0626},
    {0.00900, 0.0337, 0.0293, 0.0224, 0.2954, 0.2935, 0.8032, 0.8032, 0.4738, 0.4738,
     1.8653, 1.8653, 0.0925, 0.0854, 0.0642, 0.0854},
    {0.01079, 0.0530, 0.0444, 0.0344, 0.3609, 0.3564, 0.9635, 0.9637, 0.5683, 0.5683,
     14.58, 14.576, 0.1413, 0.1317, 0.0940, 0.1317},
    {0.01100, 0.0554, 0.0464, 0.0360, 0.3690, 0.3640, 0.9822, 0.9822, 0.5794, 0.5794,
     30.506, 30.499, 0.1478, 0.1378, 0.0980, 0.1378},
};

static void cls__set(myri_qsim_station_spec *st, int cls, int queue, uint64_t ps, int next_st, int next_cls)
{
    myri_qsim_class_spec *c = &st->cls[cls];
    c->served = true;
    c->queue = (uint8_t)queue;
    c->dist = MYRI_QSIM_DET;
    c->service_ps = ps;
    c->next_station = (int8_t)next_st;
    c->next_class = (int8_t)next_cls;
}

/* The send side of seed 004 (Sections 3.1 and 4, Table 2): doorbell at LANai
 * -> HDMA fetches the descriptor -> descriptor at LANai -> HDMA fetches the
 * data -> data at LANai, which programs NSDMA (10 us, only when NSDMA is
 * idle) -> NSDMA sends it (52.6887 us) -> leaves.  Every service time is
 * deterministic (the paper sets all service SCVs to 0). */
static void net__send_side(myri_qsim_net *net, bool polling)
{
    myri_qsim_station_spec *lanai = &net->st[MYRI_QSIM_LANAI];
    myri_qsim_station_spec *hdma = &net->st[MYRI_QSIM_HDMA];
    myri_qsim_station_spec *nsdma = &net->st[MYRI_QSIM_NSDMA];
    lanai->name = "lanai";
    hdma->name = "hdma";
    nsdma->name = "nsdma";
    net->class_names[MYRI_QSIM_DOORBELL] = "doorbell";
    net->class_names[MYRI_QSIM_DESCRIPTOR] = "descriptor";
    net->class_names[MYRI_QSIM_DATA] = "data";
    if (polling) {
        lanai->nqueues = 3;
        lanai->queue_names[0] = "doorbell";
        lanai->queue_names[1] = "descriptor";
        lanai->queue_names[2] = "data";
    } else {
        lanai->nqueues = 1;
        lanai->queue_names[0] = "pooled";
    }
    hdma->nqueues = 1;
    hdma->queue_names[0] = "fcfs";
    nsdma->nqueues = 1;
    nsdma->queue_names[0] = "none";
    nsdma->bufferless = true;
    cls__set(lanai, MYRI_QSIM_DOORBELL, 0, MYRI_QSIM_T_LANAI_DOORBELL_PS, MYRI_QSIM_HDMA, MYRI_QSIM_DOORBELL);
    cls__set(lanai, MYRI_QSIM_DESCRIPTOR, polling ? 1 : 0, MYRI_QSIM_T_LANAI_DESCRIPTOR_PS, MYRI_QSIM_HDMA,
             MYRI_QSIM_DESCRIPTOR);
    cls__set(lanai, MYRI_QSIM_DATA, polling ? 2 : 0, MYRI_QSIM_T_LANAI_PROGRAM_PS, MYRI_QSIM_NSDMA, MYRI_QSIM_DATA);
    cls__set(hdma, MYRI_QSIM_DOORBELL, 0, MYRI_QSIM_T_HDMA_DOORBELL_PS, MYRI_QSIM_LANAI, MYRI_QSIM_DESCRIPTOR);
    cls__set(hdma, MYRI_QSIM_DESCRIPTOR, 0, MYRI_QSIM_T_HDMA_DESCRIPTOR_PS, MYRI_QSIM_LANAI, MYRI_QSIM_DATA);
    cls__set(nsdma, MYRI_QSIM_DATA, 0, MYRI_QSIM_T_NSDMA_DATA_PS, -1, 0);
}

/* The receive side (extension; assumptions in docs/NICSIM.md):
 *   receive doorbell at LANai (22 us, as a send doorbell) -> HDMA fetches the
 *   receive descriptor (21 us) -> LANai posts it (0.12 us) -> leaves;
 *   packet from the network waits in LANai's network queue -> LANai programs
 *   NRDMA (10 us, only when NRDMA is idle, as for NSDMA) -> NRDMA moves the
 *   4 KB block into SRAM (52.6887 us, the NSDMA time) -> LANai starts the
 *   host transfer (0.12 us, as for a descriptor) -> HDMA writes the data to
 *   host memory (68.3154 us, the host->SRAM time of Table 2) -> leaves. */
static void net__recv_side(myri_qsim_net *net)
{
    myri_qsim_station_spec *lanai = &net->st[MYRI_QSIM_LANAI];
    myri_qsim_station_spec *hdma = &net->st[MYRI_QSIM_HDMA];
    myri_qsim_station_spec *nrdma = &net->st[MYRI_QSIM_NRDMA];
    lanai->nqueues = 4;
    lanai->queue_names[3] = "network";
    nrdma->name = "nrdma";
    nrdma->nqueues = 1;
    nrdma->queue_names[0] = "none";
    nrdma->bufferless = true;
    net->class_names[MYRI_QSIM_RDOORBELL] = "rdoorbell";
    net->class_names[MYRI_QSIM_RDESCRIPTOR] = "rdescriptor";
    net->class_names[MYRI_QSIM_RPACKET] = "rpacket";
    net->class_names[MYRI_QSIM_RDATA] = "rdata";
    cls__set(lanai, MYRI_QSIM_RDOORBELL, 0, MYRI_QSIM_T_LANAI_DOORBELL_PS, MYRI_QSIM_HDMA, MYRI_QSIM_RDOORBELL);
    cls__set(hdma, MYRI_QSIM_RDOORBELL, 0, MYRI_QSIM_T_HDMA_DOORBELL_PS, MYRI_QSIM_LANAI, MYRI_QSIM_RDESCRIPTOR);
    cls__set(lanai, MYRI_QSIM_RDESCRIPTOR, 1, MYRI_QSIM_T_LANAI_DESCRIPTOR_PS, -1, 0);
    cls__set(lanai, MYRI_QSIM_RPACKET, 3, MYRI_QSIM_T_LANAI_PROGRAM_PS, MYRI_QSIM_NRDMA, MYRI_QSIM_RPACKET);
    cls__set(nrdma, MYRI_QSIM_RPACKET, 0, MYRI_QSIM_T_NSDMA_DATA_PS, MYRI_QSIM_LANAI, MYRI_QSIM_RDATA);
    cls__set(lanai, MYRI_QSIM_RDATA, 2, MYRI_QSIM_T_LANAI_DESCRIPTOR_PS, MYRI_QSIM_HDMA, MYRI_QSIM_RDATA);
    cls__set(hdma, MYRI_QSIM_RDATA, 0, MYRI_QSIM_T_HDMA_DESCRIPTOR_PS, -1, 0);
}

myri_status myri_qsim_net_seed004(myri_qsim_net *net, myri_qsim_model model, double lambda_per_us,
                               double rx_lambda_per_us, myri_qsim_discipline disc,
                               myri_qsim_blocking blocking)
{
    if (!net || !(lambda_per_us > 0.0) || !isfinite(lambda_per_us) || rx_lambda_per_us < 0.0 ||
        !isfinite(rx_lambda_per_us) || (unsigned)disc > MYRI_QSIM_EXHAUSTIVE ||
        (unsigned)blocking > MYRI_QSIM_SKIP)
        return MYRI_EINVAL;
    memset(net, 0, sizeof *net);
    switch (model) {
    case MYRI_QSIM_POOLED:
    case MYRI_QSIM_POLLING:
        net->nstations = 3;
        net->nclasses = 3;
        net__send_side(net, model == MYRI_QSIM_POLLING);
        break;
    case MYRI_QSIM_SENDRECV:
        if (!(rx_lambda_per_us > 0.0)) return MYRI_EINVAL;
        net->nstations = 4;
        net->nclasses = 7;
        net__send_side(net, true);
        net__recv_side(net);
        net->src[1] = (myri_qsim_source_spec){MYRI_QSIM_LANAI, MYRI_QSIM_RDOORBELL, rx_lambda_per_us};
        net->src[2] = (myri_qsim_source_spec){MYRI_QSIM_LANAI, MYRI_QSIM_RPACKET, rx_lambda_per_us};
        net->nsources = 2;
        break;
    default: return MYRI_EINVAL;
    }
    net->src[0] = (myri_qsim_source_spec){MYRI_QSIM_LANAI, MYRI_QSIM_DOORBELL, lambda_per_us};
    net->nsources++;
    net->st[MYRI_QSIM_LANAI].discipline = disc;
    net->st[MYRI_QSIM_LANAI].blocking = blocking;
    /* Model 2 (and the send-and-receive NIC) has SRAM queues: a data message
     * LANai holds for NSDMA is still in the data queue (docs/NICSIM.md,
     * "Table 4"); model 1's pooled queue is the paper's abstraction, where
     * the held message is in service. */
    net->st[MYRI_QSIM_LANAI].held_queued = model != MYRI_QSIM_POOLED;
    net->bottleneck = MYRI_QSIM_HDMA;
    return MYRI_OK;
}

void myri_qsim_net_single(myri_qsim_net *net, double lambda_per_us, uint64_t service_ps, myri_qsim_dist dist)
{
    memset(net, 0, sizeof *net);
    net->nstations = 1;
    net->nclasses = 1;
    net->nsources = 1;
    net->class_names[0] = "job";
    net->st[0].name = "server";
    net->st[0].nqueues = 1;
    net->st[0].queue_names[0] = "fcfs";
    net->st[0].cls[0] = (myri_qsim_class_spec){true, 0, dist, service_ps, -1, 0};
    net->src[0] = (myri_qsim_source_spec){0, 0, lambda_per_us};
    net->bottleneck = 0;
}

/* ---- output ------------------------------------------------------------------------ */

static void est__json(myri_json *j, const char *key, const char *ci_key, myri_qsim_est e)
{
    myri_json_knum(j, key, e.mean);
    myri_json_knum(j, ci_key, e.hw);
}

void myri_qsim_result_json(const myri_qsim_net *net, const myri_qsim_result *r, myri_json *j)
{
    myri_json_key(j, "nodes");
    myri_json_arr_begin(j);
    for (unsigned i = 0; i < net->nstations; i++) {
        const myri_qsim_station_result *s = &r->st[i];
        myri_json_obj_begin(j);
        myri_json_kstr(j, "name", net->st[i].name);
        est__json(j, "utilization", "utilization_ci", s->util);
        est__json(j, "queue_length", "queue_length_ci", s->lq);
        est__json(j, "blocked", "blocked_ci", s->blocked);
        myri_json_kbool(j, "bufferless", net->st[i].bufferless);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    const myri_qsim_station_spec *st0 = &net->st[0];
    if (st0->nqueues > 1) {
        myri_json_key(j, "queues");
        myri_json_obj_begin(j);
        for (unsigned q = 0; q < st0->nqueues; q++) myri_json_knum(j, st0->queue_names[q], r->st[0].queue[q].mean);
        myri_json_obj_end(j);
        myri_json_key(j, "queues_ci");
        myri_json_obj_begin(j);
        for (unsigned q = 0; q < st0->nqueues; q++) myri_json_knum(j, st0->queue_names[q], r->st[0].queue[q].hw);
        myri_json_obj_end(j);
    }
    myri_json_kuint(j, "arrivals", r->arrivals);
    myri_json_kuint(j, "warmup_arrivals", r->warmup_arrivals);
    myri_json_kuint(j, "events", r->events);
    myri_json_knum(j, "sim_time_us", r->sim_time_us);
    myri_json_kuint(j, "batches", r->batches);
    myri_json_knum(j, "batch_us", r->batch_us);
    myri_json_knum(j, "lag1_autocorrelation", r->lag1);
    myri_json_kbool(j, "converged", r->converged);
    myri_json_key(j, "event_hash");
    myri_json_hash(j, r->hash);
}

static uint64_t fnv__bytes(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t myri_qsim_result_hash(const myri_qsim_result *r, uint64_t h)
{
    if (h == 0) h = 14695981039346656037ull;
    for (unsigned i = 0; i < MYRI_QSIM_MAX_STATIONS; i++) {
        const myri_qsim_station_result *s = &r->st[i];
        h = fnv__bytes(h, &s->util.mean, sizeof(double));
        h = fnv__bytes(h, &s->lq.mean, sizeof(double));
        for (unsigned q = 0; q < MYRI_QSIM_MAX_QUEUES; q++) h = fnv__bytes(h, &s->queue[q].mean, sizeof(double));
    }
    h = fnv__bytes(h, &r->arrivals, sizeof r->arrivals);
    h = fnv__bytes(h, &r->hash, sizeof r->hash);
    return h;
}

/* ---- the simulation part of `myri reproduce seed004` --------------------------- */

myri_status myri_qsim_seed004_run(uint64_t seed, double precision, unsigned threads, bool plain,
                               myri_qsim_blocking blocking, myri_qsim_discipline disc, myri_qsim_seed004 *out)
{
    if (!out || !(precision > 0.0 && precision < 1.0)) return MYRI_EINVAL;
    memset(out, 0, sizeof *out);
    /* Most expensive first (highest rate), so two threads finish together. */
    myri_qsim_job *jobs = calloc(2 * MYRI_QSIM_NRATES, sizeof *jobs);
    if (!jobs) return MYRI_ENOMEM;
    size_t n = 0;
    for (int k = MYRI_QSIM_NRATES - 1; k >= 0; k--) {
        uint64_t s = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
        for (int m = 0; m < 2; m++) {
            myri_qsim_job *j = &jobs[n++];
            myri_status st = myri_qsim_net_seed004(&j->net, (myri_qsim_model)m, myri_qsim_paper_rates[k], 0.0,
                                                disc, blocking);
            if (st != MYRI_OK) {
                free(jobs);
                return st;
            }
            j->opts.seed = s;
            j->opts.precision = precision;
            j->opts.plain_batch_means = plain;
        }
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    myri_status st = myri_qsim_run_jobs(jobs, n, threads);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    n = 0;
    for (int k = MYRI_QSIM_NRATES - 1; k >= 0; k--)
        for (int m = 0; m < 2; m++) out->job[m][k] = jobs[n++];
    free(jobs);
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
            const myri_qsim_result *r = &out->job[m][k].result;
            out->arrivals += r->arrivals + r->warmup_arrivals;
            out->events += r->events;
            out->hash = myri_qsim_result_hash(r, out->hash);
        }
    return st;
}
