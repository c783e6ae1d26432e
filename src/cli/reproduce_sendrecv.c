/* reproduce_sendrecv.c -- `myri reproduce seed004-sendrecv`: the
 * send-and-receive NIC (seed 004's future work (1)): the QNA, built programmatically, next to the simulation model
 * MYRI_QSIM_SENDRECV, at the paper's six total rates split evenly between
 * sending and receiving.  Model and assumptions: docs/NICSIM.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "myri/json.h"
#include "myri/sim.h"
#include "analysis/qsim/qsim.h"
#include "analysis/qna/qna.h"

enum { SR_NODES = 4, SR_CLASSES = 7 };
static const char *const sr__nodes[SR_NODES] = {"lanai", "hdma", "nsdma", "nrdma"};
static const char *const sr__classes[SR_CLASSES] = {"doorbell",    "descriptor", "data",  "rdoorbell",
                                                    "rdescriptor", "rpacket",    "rdata"};

static double sr__us(uint64_t ps) { return (double)ps / (double)MYRI_PS_PER_US; }

/* Builds the QNA network: the same stations, classes, service times and
 * routes as myri_qsim_net_seed004(MYRI_QSIM_SENDRECV); NSDMA and NRDMA get an
 * infinite queue (the paper's abstraction) and LANai's programming of them
 * costs 10 us * p_s and 10 us * p_r. */
static myri_status sr__qna_build(double ls, double lr, double ps, double pr, myri_qna_net **out)
{
    myri_qna_net *n = myri_qna_net_create();
    if (!n) return MYRI_ENOMEM;
    myri_status st = MYRI_OK;
    for (int i = 0; i < SR_NODES && st == MYRI_OK; i++) st = myri_qna_net_add_node(n, sr__nodes[i], 1, NULL);
    for (int c = 0; c < SR_CLASSES && st == MYRI_OK; c++)
        st = myri_qna_net_add_class(n, sr__classes[c], NULL);
    struct { int node, cls; double mean; int to_node, to_cls; } hop[] = {
        {MYRI_QSIM_LANAI, MYRI_QSIM_DOORBELL,
         sr__us(MYRI_QSIM_T_LANAI_DOORBELL_PS), MYRI_QSIM_HDMA, MYRI_QSIM_DOORBELL},
        {MYRI_QSIM_HDMA, MYRI_QSIM_DOORBELL,
         sr__us(MYRI_QSIM_T_HDMA_DOORBELL_PS), MYRI_QSIM_LANAI, MYRI_QSIM_DESCRIPTOR},
        {MYRI_QSIM_LANAI, MYRI_QSIM_DESCRIPTOR,
         sr__us(MYRI_QSIM_T_LANAI_DESCRIPTOR_PS), MYRI_QSIM_HDMA, MYRI_QSIM_DESCRIPTOR},
        {MYRI_QSIM_HDMA, MYRI_QSIM_DESCRIPTOR, sr__us(MYRI_QSIM_T_HDMA_DESCRIPTOR_PS), MYRI_QSIM_LANAI, MYRI_QSIM_DATA},
        {MYRI_QSIM_LANAI, MYRI_QSIM_DATA, sr__us(MYRI_QSIM_T_LANAI_PROGRAM_PS) * ps, MYRI_QSIM_NSDMA, MYRI_QSIM_DATA},
        {MYRI_QSIM_NSDMA, MYRI_QSIM_DATA, sr__us(MYRI_QSIM_T_NSDMA_DATA_PS), -1, 0},
        {MYRI_QSIM_LANAI, MYRI_QSIM_RDOORBELL,
         sr__us(MYRI_QSIM_T_LANAI_DOORBELL_PS), MYRI_QSIM_HDMA, MYRI_QSIM_RDOORBELL},
        {MYRI_QSIM_HDMA, MYRI_QSIM_RDOORBELL,
         sr__us(MYRI_QSIM_T_HDMA_DOORBELL_PS), MYRI_QSIM_LANAI, MYRI_QSIM_RDESCRIPTOR},
        {MYRI_QSIM_LANAI, MYRI_QSIM_RDESCRIPTOR, sr__us(MYRI_QSIM_T_LANAI_DESCRIPTOR_PS), -1, 0},
        {MYRI_QSIM_LANAI, MYRI_QSIM_RPACKET,
         sr__us(MYRI_QSIM_T_LANAI_PROGRAM_PS) * pr, MYRI_QSIM_NRDMA, MYRI_QSIM_RPACKET},
        {MYRI_QSIM_NRDMA, MYRI_QSIM_RPACKET, sr__us(MYRI_QSIM_T_NSDMA_DATA_PS), MYRI_QSIM_LANAI, MYRI_QSIM_RDATA},
        {MYRI_QSIM_LANAI, MYRI_QSIM_RDATA, sr__us(MYRI_QSIM_T_LANAI_DESCRIPTOR_PS), MYRI_QSIM_HDMA, MYRI_QSIM_RDATA},
        {MYRI_QSIM_HDMA, MYRI_QSIM_RDATA, sr__us(MYRI_QSIM_T_HDMA_DESCRIPTOR_PS), -1, 0},
    };
    for (size_t h = 0; h < sizeof hop / sizeof hop[0] && st == MYRI_OK; h++) {
        st = myri_qna_net_service(n, (size_t)hop[h].node, (size_t)hop[h].cls, hop[h].mean, 0.0);
        if (st == MYRI_OK)
            st = hop[h].to_node < 0 ? myri_qna_net_route(n, (size_t)hop[h].node, (size_t)hop[h].cls, QNA_EXIT, 0, 1.0)
                                    : myri_qna_net_route(n, (size_t)hop[h].node, (size_t)hop[h].cls,
                                                    (size_t)hop[h].to_node, (size_t)hop[h].to_cls, 1.0);
    }
    if (st == MYRI_OK) st = myri_qna_net_arrival(n, MYRI_QSIM_LANAI, MYRI_QSIM_DOORBELL, ls, 1.0);
    if (st == MYRI_OK) st = myri_qna_net_arrival(n, MYRI_QSIM_LANAI, MYRI_QSIM_RDOORBELL, lr, 1.0);
    if (st == MYRI_OK) st = myri_qna_net_arrival(n, MYRI_QSIM_LANAI, MYRI_QSIM_RPACKET, lr, 1.0);
    if (st != MYRI_OK) {
        myri_qna_net_destroy(n);
        return st;
    }
    *out = n;
    return MYRI_OK;
}

/* Solves with p_s = 1 + Wq(NSDMA)/10 us and p_r = 1 + Wq(NRDMA)/10 us at
 * their fixed point (LANai holds the message while the DMA engine is busy). */
static myri_status sr__qna(double ls, double lr, myri_qna_result *res, double *ps_out, double *pr_out)
{
    double ps = 1.0, pr = 1.0, prog = sr__us(MYRI_QSIM_T_LANAI_PROGRAM_PS);
    for (int it = 0; it < 200; it++) {
        myri_qna_net *n = NULL;
        myri_status st = sr__qna_build(ls, lr, ps, pr, &n);
        if (st == MYRI_OK) st = myri_qna_solve(n, NULL, res, NULL);
        myri_qna_net_destroy(n);
        if (st != MYRI_OK) return st;
        double nps = 1.0 + res->node[MYRI_QSIM_NSDMA].wq / prog, npr = 1.0 + res->node[MYRI_QSIM_NRDMA].wq / prog;
        bool done = fabs(nps - ps) < 1e-12 && fabs(npr - pr) < 1e-12;
        ps = nps;
        pr = npr;
        if (done) break;
    }
    *ps_out = ps;
    *pr_out = pr;
    return MYRI_OK;
}

static size_t sr__argmax(const double *v, size_t n)
{
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] > v[b]) b = i;
    return b;
}

/* One rate of the send-and-receive comparison, for the JSON writer. */
typedef struct sr__row {
    double lambda, p_send, p_recv, p_send_sim, p_recv_sim;
    const char *bottleneck_qna, *bottleneck_sim;
    const double *rho_qna, *rho_sim;
} sr__row;

static void sr__json_rate(myri_json *j, const sr__row *w, const myri_qsim_result *r, const myri_qna_result *q)
{
    myri_json_obj_begin(j);
    myri_json_knum(j, "lambda_total", w->lambda);
    myri_json_knum(j, "p_send", w->p_send);
    myri_json_knum(j, "p_recv", w->p_recv);
    myri_json_knum(j, "p_send_sim", w->p_send_sim);
    myri_json_knum(j, "p_recv_sim", w->p_recv_sim);
    myri_json_kstr(j, "bottleneck_qna", w->bottleneck_qna);
    myri_json_kstr(j, "bottleneck_sim", w->bottleneck_sim);
    myri_json_key(j, "nodes");
    myri_json_arr_begin(j);
    for (int i = 0; i < SR_NODES; i++) {
        myri_json_obj_begin(j);
        myri_json_kstr(j, "name", sr__nodes[i]);
        myri_json_knum(j, "rho_qna", w->rho_qna[i]);
        myri_json_knum(j, "rho_sim", w->rho_sim[i]);
        myri_json_knum(j, "rho_sim_ci", r->st[i].util.hw);
        myri_json_knum(j, "lq_qna", q->node[i].lq);
        myri_json_knum(j, "lq_sim", r->st[i].lq.mean);
        myri_json_knum(j, "lq_sim_ci", r->st[i].lq.hw);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_kbool(j, "converged", r->converged);
    myri_json_obj_end(j);
}

int myri_cmd_reproduce_sendrecv(bool json, uint64_t seed, double precision, unsigned threads)
{
    myri_qsim_job *jobs = calloc(MYRI_QSIM_NRATES, sizeof *jobs);
    myri_qna_result *qres = calloc(MYRI_QSIM_NRATES, sizeof *qres);
    double ps[MYRI_QSIM_NRATES], pr[MYRI_QSIM_NRATES];
    int rc = MYRI_EXIT_OK;
    if (!jobs || !qres) rc = MYRI_EXIT_FAIL;
    for (int k = MYRI_QSIM_NRATES - 1; k >= 0 && rc == MYRI_EXIT_OK; k--) {
        double l = myri_qsim_paper_rates[k] / 2.0;
        myri_qsim_job *j = &jobs[MYRI_QSIM_NRATES - 1 - k];
        if (myri_qsim_net_seed004(&j->net, MYRI_QSIM_SENDRECV, l, l, MYRI_QSIM_LIMITED, MYRI_QSIM_HOLD) != MYRI_OK ||
            sr__qna(l, l, &qres[k], &ps[k], &pr[k]) != MYRI_OK)
            rc = MYRI_EXIT_FAIL;
        j->opts.seed = seed + 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
        j->opts.precision = precision;
    }
    if (rc == MYRI_EXIT_OK && myri_qsim_run_jobs(jobs, MYRI_QSIM_NRATES, threads) != MYRI_OK) rc = MYRI_EXIT_FAIL;
    if (rc != MYRI_EXIT_OK) {
        fprintf(stderr, "myri reproduce: seed004-sendrecv failed\n");
        free(jobs);
        free(qres);
        return rc;
    }
    myri_json *j = json ? myri_json_create(stdout, true) : NULL;
    if (j) {
        myri_json_obj_begin(j);
        myri_json_kstr(j, "model", "seed004-sendrecv");
        myri_json_kuint(j, "seed", seed);
        myri_json_key(j, "rates");
        myri_json_arr_begin(j);
    } else {
        printf("# myri reproduce seed004-sendrecv --seed %llu --precision %g\n"
               "# send and receive at lambda/2 each; QNA with p from its fixed point; simulation polling\n"
               "# model (hold), +- 95%% half-width; Lq = messages waiting (LANai: all its queues, a message\n"
               "# held for NSDMA or NRDMA included); no claim of the paper is checked here: seed 004\n"
               "# leaves the receive side as future work, so there is no paper value to hold or differ\n",
               (unsigned long long)seed, precision);
        printf("%-8s %-6s | %8s %15s | %9s %17s\n", "lambda", "node", "rho QNA", "rho sim", "Lq QNA", "Lq sim");
    }
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_qsim_result *r = &jobs[MYRI_QSIM_NRATES - 1 - k].result;
        double rq[SR_NODES], rs[SR_NODES];
        for (int i = 0; i < SR_NODES; i++) {
            rq[i] = qres[k].node[i].rho;
            rs[i] = r->st[i].util.mean;
        }
        const char *bq = sr__nodes[sr__argmax(rq, SR_NODES)], *bs = sr__nodes[sr__argmax(rs, SR_NODES)];
        /* p measured: LANai's mean time per message over the 10 us programming. */
        double prog = sr__us(MYRI_QSIM_T_LANAI_PROGRAM_PS);
        double ps_sim = 1.0 + r->st[MYRI_QSIM_LANAI].hold_per_msg_us[MYRI_QSIM_DATA] / prog;
        double pr_sim = 1.0 + r->st[MYRI_QSIM_LANAI].hold_per_msg_us[MYRI_QSIM_RPACKET] / prog;
        if (!r->converged) rc = MYRI_EXIT_FAIL;
        if (j) {
            sr__row r1 = {myri_qsim_paper_rates[k], ps[k], pr[k], ps_sim, pr_sim, bq, bs, rq, rs};
            sr__json_rate(j, &r1, r, &qres[k]);
            continue;
        }
        for (int i = 0; i < SR_NODES; i++)
            printf("%-8.5f %-6s | %8.4f %7.4f+-%-6.4f | %9.4f %8.4f+-%-7.4f\n", myri_qsim_paper_rates[k], sr__nodes[i],
                   rq[i], rs[i], r->st[i].util.hw, qres[k].node[i].lq, r->st[i].lq.mean, r->st[i].lq.hw);
        printf("%-8.5f bottleneck: QNA %s (rho %.4f), simulation %s (rho %.4f);\n"
               "         p send/recv: QNA %.3f/%.3f, simulation %.3f/%.3f%s\n",
               myri_qsim_paper_rates[k], bq, rq[sr__argmax(rq, SR_NODES)], bs, rs[sr__argmax(rs, SR_NODES)], ps[k],
               pr[k], ps_sim, pr_sim, r->converged ? "" : "  NOT converged");
    }
    if (j) {
        myri_json_arr_end(j);
        myri_json_obj_end(j);
        myri_json_finish(j);
    }
    free(jobs);
    free(qres);
    return rc;
}
