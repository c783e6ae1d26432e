/* reproduce_seed004_system.c -- `myri reproduce seed004 --system`: the NIC
 * of seed 004 measured on the register-level model instead of a queueing
 * network: the lcp firmware with the VIA host interface on the `seed004`
 * preset (Table 2's service times as the costs), 4 KB messages, Poisson
 * doorbells at the paper's six rates.  Per rate, R independent runs (seeds
 * seed .. seed + R - 1): the utilisations of the LANai, the host DMA (HDMA)
 * and the send DMA (NSDMA) of the sending NIC, and the messages waiting in it
 * (posted, not yet in service: L - P(N > 0), the analogue of the HDMA queue
 * length, since the lcp serves one message at a time), each with its 95 %
 * confidence interval over the runs (Student t). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/qna/qna.h"
#include "analysis/qsim/qsim.h"
#include "app/system_job.h"
#include "cli/cli.h"
#include "myri/json.h"

#define R4_RUNS 5
#define R4_T975 2.776 /* Student t, 4 degrees of freedom */

static const char r4__doc[] = "job: system\npreset: seed004\nfirmware: lcp\n"
                              "topology:\n  generator: star\n  hosts_per_switch: 2\n"
                              "programs:\n  - program: via-poisson\n    hosts: [h0, h1]\n"
                              "    args: [count=%d, size=4096, rate=%.6g]\n";

static void r4__ci(const double *x, int n, double *mean, double *hw)
{
    double s = 0, ss = 0;
    for (int i = 0; i < n; i++) s += x[i];
    *mean = s / n;
    for (int i = 0; i < n; i++) ss += (x[i] - *mean) * (x[i] - *mean);
    *hw = n > 1 ? R4_T975 * sqrt(ss / (n - 1) / n) : 0;
}

static myri_status r4__one(double lambda, int count, uint64_t seed, double v[6], uint64_t *hash, myri_error *err)
{
    char doc[512];
    snprintf(doc, sizeof doc, r4__doc, count, lambda);
    myri_node *root = NULL;
    myri_status st = myri_doc_parse("(seed004 system)", doc, strlen(doc), &root, err);
    myri_run_opts ro = {.have_seed = true, .seed = seed};
    myri_system_result res;
    memset(&res, 0, sizeof res);
    if (!st) st = myri_system_run_doc(root, NULL, &ro, &res, err);
    myri_node_free(root);
    if (st) return st;
    static const char *const key[6] = {"nic.util_cpu", "nic.util_hdma", "nic.util_sdma", "via-poisson.mean_waiting",
                                       "via-poisson.held_arrivals", "via-poisson.throughput_per_us"};
    for (int k = 0; k < 6; k++) v[k] = myri_system_figure_host(&res, 0, key[k]);
    *hash = (*hash ^ res.hash) * UINT64_C(0x100000001b3);
    bool ok = res.all_done && res.worst_exit == 0;
    myri_system_result_free(&res);
    if (!ok) {
        snprintf(err->msg, sizeof err->msg, "the seed004 system run at lambda %g did not complete", lambda);
        return MYRI_EMODEL;
    }
    return MYRI_OK;
}

myri_status myri_rep4_system_run(uint64_t seed, int count, myri_rep4_sys out[MYRI_QSIM_NRATES], uint64_t *hash,
                                 myri_error *err)
{
    *hash = UINT64_C(0xcbf29ce484222325);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        double x[6][R4_RUNS];
        myri_rep4_sys *o = &out[k];
        memset(o, 0, sizeof *o);
        o->lambda = myri_qsim_paper_rates[k];
        for (int r = 0; r < R4_RUNS; r++) {
            double v[6];
            myri_status st = r4__one(o->lambda, count, seed + (uint64_t)r, v, hash, err);
            if (st) return st;
            for (int i = 0; i < 6; i++) x[i][r] = v[i];
            if (v[4] > 0) o->saturated = true;
        }
        for (int i = 0; i < 3; i++) r4__ci(x[i], R4_RUNS, &o->util[i], &o->util_hw[i]);
        r4__ci(x[3], R4_RUNS, &o->waiting, &o->waiting_hw);
        double hw;
        r4__ci(x[5], R4_RUNS, &o->throughput, &hw);
    }
    return MYRI_OK;
}

void myri_rep4_system_print(const myri_rep4_sys *s, const struct myri_qna_seed004_row *q,
                            const struct myri_qsim_seed004 *sim, int count)
{
    printf("\nSystem: the lcp firmware with VIA on the register-level NIC, preset seed004 (Table 2's times as\n"
           "costs), 4 KB messages, %d per run, %d runs per rate.  paper = Table 8 (QNA), QNA = ours\n"
           "converged, sim 2 = our simulation model 2, system = measured on the NIC (+- 95 %% half-width).\n",
           count, R4_RUNS);
    printf("        | %-27s | %-27s | %s\n", "LANai utilisation", "HDMA utilisation", "NSDMA utilisation");
    printf("lambda  |");
    for (int i = 0; i < 3; i++) printf(" %6s %6s %6s %6s%s", "paper", "QNA", "sim 2", "system", i < 2 ? " |" : "\n");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        printf("%-8.5f|", s[k].lambda);
        for (int i = 0; i < 3; i++)
            printf(" %6.3f %6.3f %6.3f %6.3f%s", q[k].paper_rho[i], q[k].conv_rho[i],
                   sim->job[MYRI_QSIM_POLLING][k].result.st[i].util.mean, s[k].util[i], i < 2 ? " |" : "\n");
    }
    printf("\nHDMA queue: paper = Table 6 (its simulation model 2), QNA = ours converged, sim 1 / sim 2 = our\n"
           "simulation models, system = messages waiting in the NIC (posted, not in service).\n");
    printf("%-8s| %8s %8s %8s %8s %16s |\n", "lambda", "paper", "QNA", "sim 1", "sim 2", "system +- hw");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        printf("%-8.5f| %8.4f %8.4f %8.4f %8.4f %8.2f +- %-5.2f |%s\n", s[k].lambda, myri_qsim_paper[k].t6_hdma2,
               q[k].conv_lq[1], sim->job[MYRI_QSIM_POOLED][k].result.st[1].lq.mean,
               sim->job[MYRI_QSIM_POLLING][k].result.st[1].lq.mean, s[k].waiting, s[k].waiting_hw,
               s[k].saturated ? " saturated" : "");
    double cap = 0;
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        if (s[k].saturated && s[k].throughput > cap) cap = s[k].throughput;
    printf("Why they differ: the lcp serialises a message's LANai work, its HDMA transfers and its NSDMA\n"
           "send (seed 000): a message holds the whole NIC, so the NIC is one server whose service time is\n"
           "the sum, not three stations working on different messages at once as the paper's network\n"
           "assumes.  It always programs NSDMA when the data is in (p = 1, not 0.5 (1 - lambda t)), and it\n"
           "writes each completion back to the host (one more HDMA transfer, 20.8 us with its setup) that\n"
           "Table 2 does not count.\n");
    if (cap > 0)
        printf("Saturated runs (arrivals held back at 32 outstanding) serve %.5f messages per us: the\n"
               "capacity of this NIC; their utilisations are those of the capacity, not of lambda.\n",
               cap);
    else printf("No run saturated.\n");
}

void myri_rep4_system_json(myri_json *j, const myri_rep4_sys *s, uint64_t hash)
{
    myri_json_key(j, "system");
    myri_json_arr_begin(j);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        myri_json_obj_begin(j);
        myri_json_knum(j, "lambda", s[k].lambda);
        myri_json_key(j, "utilization");
        myri_json_obj_begin(j);
        myri_json_knum(j, "lanai", s[k].util[0]);
        myri_json_knum(j, "hdma", s[k].util[1]);
        myri_json_knum(j, "nsdma", s[k].util[2]);
        myri_json_obj_end(j);
        myri_json_knum(j, "hdma_queue_length", s[k].waiting);
        myri_json_knum(j, "hdma_queue_length_ci", s[k].waiting_hw);
        myri_json_kbool(j, "saturated", s[k].saturated);
        myri_json_knum(j, "throughput_per_us", s[k].throughput);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "system_hash");
    myri_json_hash(j, hash);
}
