/* reproduce_seed004_system.c -- `myri reproduce seed004 --system`: the NIC
 * of seed 004 measured on the register-level model instead of a queueing
 * network, on the `seed004` preset (Table 2's service times as the costs),
 * 4 KB messages, Poisson doorbells at the paper's six rates, two firmwares:
 *
 *   myricom  Myricom's MCP as seed 000 models it: hostSend fills one SRAM
 *            buffer while netSend sends another, so the host DMA of one
 *            message overlaps the send DMA of the one before -- the closest
 *            of Myri's firmwares to seed 004's "sequence of operations",
 *            whose LANai, HDMA and NSDMA work on different messages at once;
 *   lcp      seed 000's LCP, which serves one message at a time: the
 *            contrast (the NIC is one server).
 *
 * Both write a 16-byte completion back to the host per message (VIA,
 * common/via.h); seed 004 lists that operation (Section 2.1, "Transfer
 * completion information ... using HDMA") but gives it no time and leaves it
 * out of its model.  On the preset it costs bus.dma_setup + 16 B / bus.dma_rate
 * = 20.81 us, both values derived from Table 2 (presets.c); the output shows
 * it as a separate term of the host DMA's time per message.
 *
 * Per rate and firmware, R independent runs (seeds seed .. seed + R - 1): the
 * utilisations of the sending NIC's LANai, host DMA (HDMA) and send DMA
 * (NSDMA), and the messages waiting in it (posted, not in service:
 * L - P(N > 0)), each with its 95 % confidence interval over the runs
 * (Student t); the throughput and the host DMA's busy time per message. */
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
/* The preset's host DMA (presets.c, both from seed 004 Table 2) and VIA's
 * completion (common/via.h: the descriptor's last 16 bytes). */
#define R4_DMA_SETUP_US 20.627
#define R4_DMA_BYTES_PER_US 85.891
#define R4_COMPLETION_BYTES 16.0
#define R4_T2_HDMA_US (21.0 + 68.3154) /* Table 2: descriptor + data fetch per message */

const char *const myri_rep4_fw_names[MYRI_REP4_NFW] = {"myricom", "lcp"};

static const char r4__doc[] = "job: system\npreset: seed004\nfirmware: %s\n"
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

static double r4__completion_us(void) { return R4_DMA_SETUP_US + R4_COMPLETION_BYTES / R4_DMA_BYTES_PER_US; }

static myri_status r4__one(const char *fw, double lambda, int count, uint64_t seed, double v[6], uint64_t *hash,
                           myri_error *err)
{
    char doc[512];
    snprintf(doc, sizeof doc, r4__doc, fw, count, lambda);
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
        snprintf(err->msg, sizeof err->msg, "the seed004 system run (%s) at lambda %g did not complete", fw, lambda);
        return MYRI_EMODEL;
    }
    return MYRI_OK;
}

static myri_status r4__rate(int f, double lambda, int count, uint64_t seed, myri_rep4_fw *o, uint64_t *hash,
                            myri_error *err)
{
    double x[8][R4_RUNS], hw;
    memset(o, 0, sizeof *o);
    for (int r = 0; r < R4_RUNS; r++) {
        double v[6];
        myri_status st = r4__one(myri_rep4_fw_names[f], lambda, count, seed + (uint64_t)r, v, hash, err);
        if (st) return st;
        for (int i = 0; i < 6; i++) x[i][r] = v[i];
        x[6][r] = v[5] > 0 ? v[1] / v[5] : 0; /* HDMA busy us per message served */
        x[7][r] = v[5] > 0 ? v[0] / v[5] : 0; /* LANai busy us per message served */
        if (v[4] > 0) o->saturated = true;
    }
    for (int i = 0; i < 3; i++) r4__ci(x[i], R4_RUNS, &o->util[i], &o->util_hw[i]);
    r4__ci(x[3], R4_RUNS, &o->waiting, &o->waiting_hw);
    r4__ci(x[5], R4_RUNS, &o->throughput, &hw);
    r4__ci(x[6], R4_RUNS, &o->hdma_us_per_msg, &hw);
    r4__ci(x[7], R4_RUNS, &o->lanai_us_per_msg, &hw);
    return MYRI_OK;
}

myri_status myri_rep4_system_run(uint64_t seed, int count, myri_rep4_sys out[MYRI_QSIM_NRATES], uint64_t *hash,
                                 myri_error *err)
{
    *hash = UINT64_C(0xcbf29ce484222325);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        out[k].lambda = myri_qsim_paper_rates[k];
        for (int f = 0; f < MYRI_REP4_NFW; f++) {
            myri_status st = r4__rate(f, out[k].lambda, count, seed, &out[k].fw[f], hash, err);
            if (st) return st;
        }
    }
    return MYRI_OK;
}

/* The largest throughput of a saturated run of firmware f (0: none saturated), and its rate's index. */
static double r4__capacity(const myri_rep4_sys *s, int f, int *at)
{
    double cap = 0;
    *at = -1;
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        if (s[k].fw[f].saturated && s[k].fw[f].throughput > cap) cap = s[k].fw[f].throughput, *at = k;
    return cap;
}

static void r4__print_util(const myri_rep4_sys *s, const myri_qna_seed004_row *q, const myri_qsim_seed004 *sim)
{
    static const char *const node[3] = {"LANai", "HDMA", "NSDMA"};
    printf("Utilisations: Table 5 = the paper's simulation model 2, Table 8 = its QNA, QNA and sim 2 = ours;\n"
           "myricom and lcp measured on the sending NIC (+- 95 %% half-width over the runs; * = saturated).\n");
    printf("%-8s %-5s | %7s %7s %7s %7s | %-16s %-16s\n", "lambda", "node", "Table 5", "Table 8", "QNA", "sim 2",
           "myricom", "lcp");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_qsim_paper_row *p = &myri_qsim_paper[k];
        const double t5[3] = {p->t5_lanai2, p->t5_hdma2, p->t5_nsdma2};
        for (int i = 0; i < 3; i++) {
            printf("%-8.5f %-5s | %7.4f %7.4f %7.4f %7.4f |", s[k].lambda, node[i], t5[i], q[k].paper_rho[i],
                   q[k].conv_rho[i], sim->job[MYRI_QSIM_POLLING][k].result.st[i].util.mean);
            for (int f = 0; f < MYRI_REP4_NFW; f++)
                printf(" %6.4f+-%-6.4f%s", s[k].fw[f].util[i], s[k].fw[f].util_hw[i], s[k].fw[f].saturated ? "*" : " ");
            printf("\n");
        }
    }
}

static void r4__print_queue(const myri_rep4_sys *s, const myri_qna_seed004_row *q, const myri_qsim_seed004 *sim)
{
    printf("\nHDMA queue: Table 6 = the paper's simulation model 2, QNA = ours converged, sim 1 / sim 2 =\n"
           "our simulation models; myricom and lcp = messages waiting in the NIC (posted, not in service).\n");
    printf("%-8s | %8s %8s %8s %8s | %-16s %-16s\n", "lambda", "Table 6", "QNA", "sim 1", "sim 2", "myricom", "lcp");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        printf("%-8.5f | %8.4f %8.4f %8.4f %8.4f |", s[k].lambda, myri_qsim_paper[k].t6_hdma2, q[k].conv_lq[1],
               sim->job[MYRI_QSIM_POOLED][k].result.st[1].lq.mean,
               sim->job[MYRI_QSIM_POLLING][k].result.st[1].lq.mean);
        for (int f = 0; f < MYRI_REP4_NFW; f++)
            printf(" %6.2f+-%-6.2f%s", s[k].fw[f].waiting, s[k].fw[f].waiting_hw, s[k].fw[f].saturated ? "*" : " ");
        printf("\n");
    }
}

static void r4__print_capacity(const myri_rep4_sys *s)
{
    double compl_us = r4__completion_us();
    printf("\nCapacity (messages per us a saturated NIC serves; arrivals held back at 32 outstanding):\n");
    printf("  paper    %.5f = 1 / %.4f us, the HDMA time per message of Table 2 (descriptor 21 us +\n"
           "           data 68.3154 us): HDMA is the bottleneck and no rate of Tables 5-9 saturates it\n",
           1.0 / R4_T2_HDMA_US, R4_T2_HDMA_US);
    for (int f = 0; f < MYRI_REP4_NFW; f++) {
        int at;
        double cap = r4__capacity(s, f, &at);
        if (cap <= 0) {
            printf("  %-8s no run saturated\n", myri_rep4_fw_names[f]);
            continue;
        }
        const myri_rep4_fw *o = &s[at].fw[f];
        double per = 1.0 / cap;
        printf("  %-8s %.5f = 1 / %.1f us (lambda %.5f): HDMA busy %.1f us a message (Table 2's %.1f +\n"
               "           completion %.2f), idle %.1f us; LANai busy %.1f us a message (Table 2: %.2f)\n",
               myri_rep4_fw_names[f], cap, per, s[at].lambda, o->hdma_us_per_msg, R4_T2_HDMA_US, compl_us,
               per - o->hdma_us_per_msg, o->lanai_us_per_msg, 22.0 + 0.12 + 10.0);
    }
}

void myri_rep4_system_print(const myri_rep4_sys *s, const struct myri_qna_seed004_row *q,
                            const struct myri_qsim_seed004 *sim, int count)
{
    printf("\nSystem: seed 004's NIC on the register-level model, preset seed004 (Table 2's times as costs),\n"
           "4 KB messages, %d per run, %d runs per rate and firmware.  myricom = Myricom's MCP (host DMA of\n"
           "one message overlaps the send DMA of the previous one); lcp = seed 000's LCP (one message at a\n"
           "time), the contrast.  Both write a 16-byte completion per message by host DMA (%.2f us:\n"
           "bus.dma_setup + 16 B / bus.dma_rate, from Table 2); seed 004 lists it but leaves it out.\n\n",
           count, R4_RUNS, r4__completion_us());
    r4__print_util(s, q, sim);
    r4__print_queue(s, q, sim);
    r4__print_capacity(s);
    printf("Why the NICs saturate below the paper's rates: the paper's LANai takes doorbell i+1 while HDMA\n"
           "fetches message i's data (\"polled doorbells wait in a queue at HDMA\"), so HDMA never waits for\n"
           "the LANai.  Myricom's hostSend takes a doorbell only when it has finished the previous message's\n"
           "data and written the completion, so HDMA idles while the LANai takes the doorbell (22 us) and\n"
           "programs the send; only the send DMA overlaps.  The LCP also serialises the send DMA (seed 000).\n"
           "The LANai's time beyond Table 2's 32.12 us is the MCP's dispatch, completion and send-interrupt\n"
           "work (the firmware tables' fixed cycle counts, assumptions: docs/FIRMWARE.md).\n"
           "Saturated runs' utilisations are those of the capacity, not of lambda.\n");
}

static void r4__json_fw(myri_json *j, const myri_rep4_sys *s, int f)
{
    myri_json_key(j, myri_rep4_fw_names[f]);
    myri_json_arr_begin(j);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_rep4_fw *o = &s[k].fw[f];
        myri_json_obj_begin(j);
        myri_json_knum(j, "lambda", s[k].lambda);
        myri_json_key(j, "utilization");
        myri_json_obj_begin(j);
        myri_json_knum(j, "lanai", o->util[0]);
        myri_json_knum(j, "hdma", o->util[1]);
        myri_json_knum(j, "nsdma", o->util[2]);
        myri_json_obj_end(j);
        myri_json_knum(j, "hdma_queue_length", o->waiting);
        myri_json_knum(j, "hdma_queue_length_ci", o->waiting_hw);
        myri_json_kbool(j, "saturated", o->saturated);
        myri_json_knum(j, "throughput_per_us", o->throughput);
        myri_json_knum(j, "hdma_us_per_message", o->hdma_us_per_msg);
        myri_json_knum(j, "lanai_us_per_message", o->lanai_us_per_msg);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
}

void myri_rep4_system_json(myri_json *j, const myri_rep4_sys *s, uint64_t hash)
{
    myri_json_key(j, "system");
    myri_json_obj_begin(j);
    myri_json_knum(j, "completion_us", r4__completion_us());
    myri_json_knum(j, "paper_capacity_per_us", 1.0 / R4_T2_HDMA_US);
    for (int f = 0; f < MYRI_REP4_NFW; f++) r4__json_fw(j, s, f);
    myri_json_obj_end(j);
    myri_json_key(j, "system_hash");
    myri_json_hash(j, hash);
}
