/* cmd_reproduce.c -- `myri reproduce seed004 | seed004-sendrecv`.
 *
 * seed004: Tables 3 to 9 of seed 004 side by side with ours -- the QNA
 * tables (3, 8) from src/analysis/qna (converged, and under the paper's unstated
 * conditions), the simulation tables (4-7, 9) from both simulation models
 * run to +-precision on the HDMA queue length -- then the derived
 * probability p (the paper's future work (2)), optionally Figures 4 and 5
 * as SVG.  seed004-sendrecv: the send-and-receive NIC (future work (1)),
 * QNA next to simulation, with the bottleneck named.
 *
 * Every "ours" number is computed by the run that prints it; the paper's
 * numbers come from the tables in models.c (4-7, 9) and src/analysis/qna (3, 8).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/args.h"
#include "myri/json.h"
#include "myri/sim.h"
#include "analysis/qsim/qsim.h"
#include "analysis/qna/qna.h"

static const char rep__usage[] =
    "usage: myri reproduce seed000 [--json] [--seed S] [--messages N]\n"
    "       myri reproduce seed001 [--json] [--figures DIR] [--seed S]\n"
    "       myri reproduce seed002 [--json] [--seed S]\n"
    "       myri reproduce seed004 [--json] [--figures DIR] [--seed S] [--precision REL] [--system]\n"
    "                      [--threads N] [--plain] [--blocking hold|skip]\n"
    "                      [--discipline limited|gated|exhaustive]\n"
    "       myri reproduce seed004-sendrecv [--json] [--seed S] [--precision REL]\n"
    "\n"
    "seed001: seed 001's ping-pong (up to 8 KB), small-packet latency and pipelined stream\n"
    "(200 x 8 KB) on the old MCP (interrupt receive), polled receive, the new MCP (polled receive\n"
    "with overlapped to-host DMA), the new MCP without DMA receive notification and the old MCP\n"
    "without PIO sends, side by side; six claims of the paper, each with its value, ours, the\n"
    "difference, the tolerance and a verdict (holds, differs, calibrated: the fitted parameter\n"
    "named, not modelled); --figures DIR writes SVG figures.\n"
    "seed000: seed 000's section 4: throughput of the lcp firmware (host DMA and send DMA serialised:\n"
    "a b / (a + b)) and myricom (in parallel: min(a, b)), and seed 001's mcp, with the host-DMA rate a\n"
    "swept over a/b = 0.25 .. 4 (b the 1.28 Gb/s link); N messages per run (default 64).\n"
    "seed002: the rows of seed 002's Table 1 (SPARC-2, 20 MHz SBus, 1994) the simulator can measure\n"
    "(channel, DMA, raw speed test, Myrinet API with 8 KB packets) on preset sparc2-sbus-1994: the\n"
    "paper's value, ours, the difference and a verdict; the channel row is an input, the DMA and\n"
    "API rows calibrated (the fitted parameter named), the raw speed test a prediction.\n"
    "seed004: prints Tables 3 to 9 of seed 004 next to ours.  Tables 3 and 8 (QNA):\n"
    "our converged QNA and our QNA under the paper's conditions.  Tables 4-7 and 9:\n"
    "both simulation models at the six arrival rates, each run until the 95 %\n"
    "half-width of the HDMA queue length is within REL (default 0.02) of its mean;\n"
    "our value +- its 95 % half-width and the difference to the paper.  Then the\n"
    "probability p derived instead of assumed (docs/NICSIM.md), and the claims with verdicts.\n"
    "\n"
    "  --figures DIR   also write DIR/fig4_utilization.svg and DIR/fig5_hdma_queue.svg\n"
    "  --threads N     simulation threads (default: online CPUs, at most 2)\n"
    "  --plain         plain batch means instead of control variates (much slower)\n"
    "  --blocking B    the NSDMA-busy reading (hold, default; or skip)\n"
    "  --discipline D  LANai polling in model 2: limited (one message per visit, the\n"
    "                  abstract; default), gated (Section 3.1's words), exhaustive\n"
    "  --system        also measure the NIC on the register-level model, preset seed004:\n"
    "                  Myricom's MCP (engines overlapped) and the lcp (one message at a\n"
    "                  time) with VIA, 5 runs of 1000 messages per rate and firmware\n"
    "seed004-sendrecv: the send-and-receive NIC at half the paper's rates per\n"
    "direction, QNA next to simulation, with the bottleneck named.\n"
    "Exit: 0 done, 1 a run failed, 2 bad input.\n";


static double rep__diff(double ours, double paper) { return paper != 0.0 ? 100.0 * (ours - paper) / paper : 0.0; }

/* ---- QNA helpers ------------------------------------------------------------------ */

static myri_status rep__qna_nic(double lambda, double p, myri_qna_result *res)
{
    myri_qna_nic_params prm;
    myri_qna_nic_params_default(&prm);
    /* The mean LANai time per data message is lanai_program_us * p; the QNA
     * module keeps p a probability (<= 1), so p > 1 (LANai also holds the
     * message while NSDMA is busy) goes into the programming time. */
    if (p > 1.0) {
        prm.lanai_program_us *= p;
        p = 1.0;
    }
    prm.p_override = p;
    myri_qna_net *net = NULL;
    myri_status st = myri_qna_nic_build(lambda, &prm, &net);
    if (st == MYRI_OK) st = myri_qna_solve(net, NULL, res, NULL);
    myri_qna_net_destroy(net);
    return st;
}

/* The derived p: LANai holds a data message while NSDMA is busy, so LANai's
 * mean time per data message is 10 us + the wait for NSDMA, i.e. p = 1 +
 * Wq(NSDMA)/10 us; Wq(NSDMA) from the QNA itself, which depends on p:
 * iterate to the fixed point. */
static myri_status rep__p_fixed(double lambda, double *p_out, double *rho_lanai)
{
    double p = 1.0;
    myri_qna_result res;
    for (int it = 0; it < 100; it++) {
        myri_status st = rep__qna_nic(lambda, p, &res);
        if (st != MYRI_OK) return st;
        double np = 1.0 + res.node[QNA_NIC_NSDMA].wq / (MYRI_QSIM_T_LANAI_PROGRAM_PS / (double)MYRI_PS_PER_US);
        if (fabs(np - p) < 1e-12) break;
        p = np;
    }
    *p_out = p;
    *rho_lanai = res.node[QNA_NIC_LANAI].rho;
    return MYRI_OK;
}

typedef struct rep__pder {
    double p_paper, p_fixed, p_sim;
    double p_idle; /* simulated: fraction of data messages that find NSDMA idle */
    double rho_paper, rho_one, rho_fixed, rho_simp; /* QNA LANai utilisation with each p */
} rep__pder;

static myri_status rep__pderive(const myri_qsim_seed004 *s, rep__pder out[MYRI_QSIM_NRATES])
{
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        double lambda = myri_qsim_paper_rates[k];
        rep__pder *d = &out[k];
        myri_qna_result res;
        d->p_paper = 0.5 * (1.0 - lambda * MYRI_QSIM_T_NSDMA_DATA_PS / (double)MYRI_PS_PER_US);
        const myri_qsim_result *r = &s->job[MYRI_QSIM_POLLING][k].result;
        d->p_sim = 1.0 + r->st[MYRI_QSIM_LANAI].hold_per_msg_us[MYRI_QSIM_DATA] / 10.0;
        uint64_t fi = r->found_idle[MYRI_QSIM_LANAI], fb = r->found_busy[MYRI_QSIM_LANAI];
        d->p_idle = fi + fb ? (double)fi / (double)(fi + fb) : 1.0;
        myri_status st = rep__qna_nic(lambda, d->p_paper, &res);
        if (st == MYRI_OK) d->rho_paper = res.node[QNA_NIC_LANAI].rho;
        if (st == MYRI_OK && (st = rep__qna_nic(lambda, 1.0, &res)) == MYRI_OK)
            d->rho_one = res.node[QNA_NIC_LANAI].rho;
        if (st == MYRI_OK && (st = rep__qna_nic(lambda, d->p_sim, &res)) == MYRI_OK)
            d->rho_simp = res.node[QNA_NIC_LANAI].rho;
        if (st == MYRI_OK) st = rep__p_fixed(lambda, &d->p_fixed, &d->rho_fixed);
        if (st != MYRI_OK) return st;
    }
    return MYRI_OK;
}

/* ---- text tables ---------------------------------------------------------------- */

static void rep__cell(double paper, myri_qsim_est e)
{
    printf(" | %8.4f %8.4f+-%-7.4f %+6.1f%%", paper, e.mean, e.hw, rep__diff(e.mean, paper));
}

static void rep__header(const char *title, const char *const *cols, int n)
{
    printf("\n%s\n%-8s", title, "lambda");
    for (int i = 0; i < n; i++) printf(" | %-33s", cols[i]);
    printf("\n%-8s", "");
    for (int i = 0; i < n; i++) printf(" | %8s %17s %7s", "paper", "ours +- 95% hw", "diff");
    printf("\n");
}

/* A table of the six rates by columns, printed in blocks of at most `per`
 * columns so that no line is longer than 100 characters (a terminal). */
typedef struct rep__table {
    const char *const *cols;
    int ncols, per, width; /* width: characters of one column, its " | " included */
    const char *sub;       /* sub-header of every column, or NULL */
    void (*cell)(const void *ctx, int k, int col);
    const void *ctx;
} rep__table;

static void rep__table_print(const rep__table *t)
{
    for (int b = 0; b < t->ncols; b += t->per) {
        int e = b + t->per < t->ncols ? b + t->per : t->ncols;
        printf("%-8s", "lambda");
        for (int i = b; i < e; i++) printf(" | %-*s", i + 1 < e ? t->width - 3 : 0, t->cols[i]);
        printf("\n");
        if (t->sub) {
            printf("%-8s", "");
            for (int i = b; i < e; i++) printf("%s", t->sub);
            printf("\n");
        }
        for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
            printf("%-8.5f", myri_qsim_paper_rates[k]);
            for (int i = b; i < e; i++) t->cell(t->ctx, k, i);
            printf("\n");
        }
    }
}

/* Prints text after `indent` spaces, wrapped at word boundaries to 100 columns. */
static void rep__wrap(const char *lead, const char *text)
{
    int col = printf("%s", lead);
    const char *w = text;
    while (*w) {
        const char *end = strchr(w, ' ');
        int len = end ? (int)(end - w) : (int)strlen(w);
        if (col > 2 && col + 1 + len > 100) col = printf("\n  ") - 1;
        col += printf(" %.*s", len, w);
        w += len;
        while (*w == ' ') w++;
    }
    printf("\n");
}

static void rep__t3_cell(const void *ctx, int k, int i)
{
    const myri_qna_seed004_row *q = ctx;
    printf(" | %8.4f %9.4f %+6.1f%% %9.4f", q[k].paper_lq[i], q[k].conv_lq[i],
           rep__diff(q[k].conv_lq[i], q[k].paper_lq[i]), q[k].cond_lq[i]);
}

static void rep__print_qna(const myri_qna_seed004_row *q)
{
    static const char *const nodes[3] = {"LANai", "HDMA", "NSDMA"};
    printf("\nTable 3: mean queue lengths, QNA (paper | ours converged | ours under the paper's\n"
           "conditions)\n");
    rep__wrap("conditions:", myri_qna_seed004_conditions_text());
    rep__table t = {nodes, 3, 2, 39, " |    paper converged    diff   cond'ns", rep__t3_cell, q};
    rep__table_print(&t);
}

static void rep__t4_cell(const void *ctx, int k, int i)
{
    const myri_qsim_paper_row *p = &myri_qsim_paper[k];
    const double paper[3] = {p->t4_doorbell, p->t4_descriptor, p->t4_data};
    rep__cell(paper[i], ((const myri_qsim_seed004 *)ctx)->job[MYRI_QSIM_POLLING][k].result.st[0].queue[i]);
}

/* Table 5: column i is station i / 2 of model i % 2. */
static void rep__t5_cell(const void *ctx, int k, int i)
{
    const myri_qsim_paper_row *p = &myri_qsim_paper[k];
    const double paper[6] = {p->t5_lanai1, p->t5_lanai2, p->t5_hdma1, p->t5_hdma2, p->t5_nsdma1, p->t5_nsdma2};
    rep__cell(paper[i], ((const myri_qsim_seed004 *)ctx)->job[i % 2][k].result.st[i / 2].util);
}

static void rep__print_sim(const myri_qsim_seed004 *s)
{
    static const char *const sub = " |    paper    ours +- 95% hw    diff";
    static const char *const t4[] = {"doorbell queue (model 2)", "descriptor queue (model 2)", "data queue (model 2)"};
    printf("\nTable 4: mean SRAM queue lengths, simulation model 2 (polling)\n");
    rep__table t = {t4, 3, 2, 37, sub, rep__t4_cell, s};
    rep__table_print(&t);
    printf("A data message LANai holds while NSDMA is busy stays in the SRAM data queue (counted above;\n"
           "docs/NICSIM.md, \"Table 4\"); not counting it, the data queue and the sum (Table 7, model 2) are:\n");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_qsim_station_result *l = &s->job[MYRI_QSIM_POLLING][k].result.st[0];
        const myri_qsim_paper_row *p = &myri_qsim_paper[k];
        double data = l->queue[2].mean - l->blocked.mean, sum = l->lq.mean - l->blocked.mean;
        printf("%-8.5f | data %8.4f %8.4f %+6.1f%% | sum %8.4f %8.4f %+6.1f%%\n", p->lambda, p->t4_data, data,
               rep__diff(data, p->t4_data), p->t7_lanai2, sum, rep__diff(sum, p->t7_lanai2));
    }
    static const char *const t5[] = {"LANai model 1", "LANai model 2", "HDMA model 1",
                                     "HDMA model 2",  "NSDMA model 1", "NSDMA model 2"};
    printf("\nTable 5: utilisations, simulation models 1 (pooled) and 2 (polling)\n");
    t = (rep__table){t5, 6, 2, 37, sub, rep__t5_cell, s};
    rep__table_print(&t);
    static const char *const t6[] = {"HDMA queue model 1", "HDMA queue model 2"};
    rep__header("Table 6: mean HDMA queue length, simulation models 1 and 2", t6, 2);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        printf("%-8.5f", myri_qsim_paper[k].lambda);
        rep__cell(myri_qsim_paper[k].t6_hdma1, s->job[MYRI_QSIM_POOLED][k].result.st[1].lq);
        rep__cell(myri_qsim_paper[k].t6_hdma2, s->job[MYRI_QSIM_POLLING][k].result.st[1].lq);
        printf("\n");
    }
    static const char *const t7[] = {"LANai queue model 1", "sum of 3 LANai queues model 2"};
    rep__header("Table 7: mean LANai queue length, simulation models 1 and 2", t7, 2);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        printf("%-8.5f", myri_qsim_paper[k].lambda);
        rep__cell(myri_qsim_paper[k].t7_lanai1, s->job[MYRI_QSIM_POOLED][k].result.st[0].lq);
        rep__cell(myri_qsim_paper[k].t7_lanai2, s->job[MYRI_QSIM_POLLING][k].result.st[0].lq);
        printf("\n");
    }
}

typedef struct rep__t8_ctx {
    const myri_qsim_seed004 *s;
    const myri_qna_seed004_row *q;
} rep__t8_ctx;

static void rep__t8_cell(const void *ctx, int k, int i)
{
    const rep__t8_ctx *c = ctx;
    const myri_qsim_paper_row *p = &myri_qsim_paper[k];
    const double psim[3] = {p->t5_lanai2, p->t5_hdma2, p->t5_nsdma2};
    myri_qsim_est u = c->s->job[MYRI_QSIM_POLLING][k].result.st[i].util;
    printf(" | %7.4f %7.4f %7.4f : %7.4f %7.4f+-%-6.4f", c->q[k].paper_rho[i], c->q[k].conv_rho[i],
           c->q[k].cond_rho[i], psim[i], u.mean, u.hw);
}

static void rep__print_t8_t9(const myri_qsim_seed004 *s, const myri_qna_seed004_row *q)
{
    static const char *const nodes[3] = {"LANai", "HDMA", "NSDMA"};
    printf("\nTable 8: utilisations, analytical (paper | ours converged | paper conditions) and\n"
           "simulated (paper's model 2 | ours model 2 +- 95%% hw)\n");
    rep__t8_ctx c = {s, q};
    rep__table t = {nodes, 3, 1, 57, NULL, rep__t8_cell, &c};
    rep__table_print(&t);
    printf("\nTable 9: mean LANai queue length, QNA (paper | ours converged | paper conditions) and\n"
           "simulation model 2, sum of the three queues (paper | ours +- 95%% hw | diff)\n");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_qsim_paper_row *p = &myri_qsim_paper[k];
        myri_qsim_est e = s->job[MYRI_QSIM_POLLING][k].result.st[0].lq;
        printf("%-8.5f | %7.4f %7.4f %7.4f | %7.4f %7.4f+-%-6.4f %+6.1f%%\n", p->lambda, p->t9_qna, q[k].conv_lq[0],
               q[k].cond_lq[0], p->t9_sim, e.mean, e.hw, rep__diff(e.mean, p->t9_sim));
    }
}

static void rep__print_p(const myri_qsim_seed004 *s, const rep__pder *d)
{
    printf("\nDerived p (future work (2)).  The paper's p = 0.5 (1 - lambda t) estimates \"NSDMA idle and\n"
           "data present\"; in our model 2 the fraction of data messages that find NSDMA idle is:\n");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        printf("  lambda %.5f: paper's p %.4f, simulated P(NSDMA idle | LANai takes data) %.4f\n",
               myri_qsim_paper_rates[k], d[k].p_paper, d[k].p_idle);
    printf("Every data message is programmed once (10 us) plus any hold, so LANai's mean time per data\n"
           "message is 10 us * p with p >= 1.  LANai utilisation of the QNA with each p against the\n"
           "simulated one (paper's model 2 | ours); error relative to the paper's simulation:\n");
    printf("%-8s | %7s %7s %7s | %7s %7s\n", "lambda", "p paper", "p fixed", "p sim", "paper", "ours");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        printf("%-8.5f | %7.4f %7.4f %7.4f | %7.4f %7.4f\n", myri_qsim_paper_rates[k], d[k].p_paper, d[k].p_fixed,
               d[k].p_sim, myri_qsim_paper[k].t5_lanai2, s->job[MYRI_QSIM_POLLING][k].result.st[0].util.mean);
    printf("%-8s | %15s | %15s | %15s | %15s\n", "lambda", "p=0.5(1-lt)", "p=1", "p fixed point", "p from sim");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        double ref = myri_qsim_paper[k].t5_lanai2;
        const double rho[4] = {d[k].rho_paper, d[k].rho_one, d[k].rho_fixed, d[k].rho_simp};
        printf("%-8.5f", myri_qsim_paper_rates[k]);
        for (int i = 0; i < 4; i++) printf(" | %7.4f %+6.1f%%", rho[i], rep__diff(rho[i], ref));
        printf("\n");
    }
}

static void rep__print_runs(const myri_qsim_seed004 *s, unsigned threads)
{
    printf("\nSimulation runs (both models share each rate's arrival stream):\n");
    printf("%-8s %-8s %11s %12s %8s %10s %9s\n", "lambda", "model", "arrivals", "events", "batches", "HDMA corr",
           "wall s");
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        for (int m = 0; m < 2; m++) {
            const myri_qsim_job *j = &s->job[m][k];
            char corr[16] = "         -"; /* plain batch means: no controls */
            if (j->result.st[1].lq_corr != 0.0) snprintf(corr, sizeof corr, "%10.4f", j->result.st[1].lq_corr);
            printf("%-8.5f %-8s %11llu %12llu %8zu %s %9.3f%s\n", myri_qsim_paper_rates[k], m ? "polling" : "pooled",
                   (unsigned long long)j->result.arrivals, (unsigned long long)j->result.events, j->result.batches,
                   corr, j->wall_s, j->result.converged ? "" : "  NOT converged");
        }
    printf("total: %llu arrivals (with warm-up), %llu events, %.2f s wall on %u thread(s),\n"
           "result hash %016llx\n",
           (unsigned long long)s->arrivals, (unsigned long long)s->events, s->wall_s, threads,
           (unsigned long long)s->hash);
}

/* ---- claims --------------------------------------------------------------------------- */

/* The paper's claims checked on this run (myri_cli_claim): the worst cell of
 * each table or column (largest relative difference over the six rates, the
 * tolerance stated here), and the claims of the paper's text. */
#define REP_MAXCLAIMS 24
typedef struct rep__claims {
    myri_cli_claim c[REP_MAXCLAIMS];
    char text[REP_MAXCLAIMS][160], note[REP_MAXCLAIMS][200];
    int n;
} rep__claims;

typedef struct rep__cellref {
    double paper, ours;
    const char *col;
    double lambda;
} rep__cellref;

/* Adds the claim "text" for the worst of cells[0..n). */
static myri_cli_claim *rep__worst(rep__claims *cs, const char *id, const char *text, const rep__cellref *cells, int n,
                                  double tol_rel)
{
    if (cs->n >= REP_MAXCLAIMS) return NULL;
    int w = 0;
    for (int i = 1; i < n; i++)
        if (fabs(rep__diff(cells[i].ours, cells[i].paper)) > fabs(rep__diff(cells[w].ours, cells[w].paper))) w = i;
    int k = cs->n++;
    snprintf(cs->text[k], sizeof cs->text[k], "%s", text);
    snprintf(cs->note[k], sizeof cs->note[k], "worst of %d cells: %s at lambda %.5f", n, cells[w].col, cells[w].lambda);
    cs->c[k] = (myri_cli_claim){.id = id, .text = cs->text[k], .unit = "", .paper = cells[w].paper,
                                .ours = cells[w].ours, .tol_rel = tol_rel, .note = cs->note[k]};
    return &cs->c[k];
}

/* The QNA tables 3 and 8 (converged: a prediction; under the paper's conditions: calibrated). */
static void rep__claims_qna(rep__claims *cs, const myri_qna_seed004_row *q)
{
    static const char *const node[3] = {"LANai", "HDMA", "NSDMA"};
    rep__cellref c[4][3 * MYRI_QSIM_NRATES];
    int n = 0;
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        for (int i = 0; i < 3; i++, n++) {
            c[0][n] = (rep__cellref){q[k].paper_lq[i], q[k].conv_lq[i], node[i], q[k].lambda_per_us};
            c[1][n] = (rep__cellref){q[k].paper_lq[i], q[k].cond_lq[i], node[i], q[k].lambda_per_us};
            c[2][n] = (rep__cellref){q[k].paper_rho[i], q[k].conv_rho[i], node[i], q[k].lambda_per_us};
            c[3][n] = (rep__cellref){q[k].paper_rho[i], q[k].cond_rho[i], node[i], q[k].lambda_per_us};
        }
    rep__worst(cs, "table3_qna", "Table 3: QNA mean queue lengths (ours converged)", c[0], n, 0.01);
    myri_cli_claim *x = rep__worst(cs, "table3_qna_conditions",
                                   "Table 3: QNA mean queue lengths under the paper's unstated conditions", c[1], n,
                                   0.01);
    if (x) x->fitted = "the step-2 sweep count and the HDMA descriptor time, found by search (docs/QNA.md)";
    rep__worst(cs, "table8_qna", "Table 8: QNA utilisations (ours converged)", c[2], n, 0.01);
}

/* The simulation tables 4 to 7 (model 2 unless named). */
static void rep__claims_sim(rep__claims *cs, const myri_qsim_seed004 *s)
{
    static const char *const qn[3] = {"doorbell", "descriptor", "data"};
    static const char *const un[6] = {"LANai model 1", "LANai model 2", "HDMA model 1",
                                      "HDMA model 2",  "NSDMA model 1", "NSDMA model 2"};
    static const char *const t4id[3] = {"table4_doorbell", "table4_descriptor", "table4_data"};
    static const char *const t4text[3] = {"Table 4: doorbell queue, model 2", "Table 4: descriptor queue, model 2",
                                          "Table 4: data queue, model 2"};
    rep__cellref t4[3][MYRI_QSIM_NRATES], t5[6 * MYRI_QSIM_NRATES], t6[2 * MYRI_QSIM_NRATES], t7[2 * MYRI_QSIM_NRATES];
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_qsim_paper_row *p = &myri_qsim_paper[k];
        const myri_qsim_result *r[2] = {&s->job[MYRI_QSIM_POOLED][k].result, &s->job[MYRI_QSIM_POLLING][k].result};
        const double p4[3] = {p->t4_doorbell, p->t4_descriptor, p->t4_data};
        const double p5[6] = {p->t5_lanai1, p->t5_lanai2, p->t5_hdma1, p->t5_hdma2, p->t5_nsdma1, p->t5_nsdma2};
        for (int i = 0; i < 3; i++) t4[i][k] = (rep__cellref){p4[i], r[1]->st[0].queue[i].mean, qn[i], p->lambda};
        for (int i = 0; i < 6; i++)
            t5[6 * k + i] = (rep__cellref){p5[i], r[i % 2]->st[i / 2].util.mean, un[i], p->lambda};
        t6[2 * k] = (rep__cellref){p->t6_hdma1, r[0]->st[1].lq.mean, "model 1", p->lambda};
        t6[2 * k + 1] = (rep__cellref){p->t6_hdma2, r[1]->st[1].lq.mean, "model 2", p->lambda};
        t7[2 * k] = (rep__cellref){p->t7_lanai1, r[0]->st[0].lq.mean, "model 1", p->lambda};
        t7[2 * k + 1] = (rep__cellref){p->t7_lanai2, r[1]->st[0].lq.mean, "model 2 (sum)", p->lambda};
    }
    for (int i = 0; i < 3; i++) {
        myri_cli_claim *x = rep__worst(cs, t4id[i], t4text[i], t4[i], MYRI_QSIM_NRATES, 0.10);
        if (x && i == 0)
            snprintf(cs->note[cs->n - 1] + strlen(cs->note[cs->n - 1]),
                     sizeof cs->note[0] - strlen(cs->note[cs->n - 1]),
                     "; doorbell, descriptor: no reading fits (NICSIM.md)");
    }
    rep__worst(cs, "table5", "Table 5: utilisations, models 1 and 2", t5, 6 * MYRI_QSIM_NRATES, 0.01);
    rep__worst(cs, "table6", "Table 6: HDMA queue length, models 1 and 2", t6, 2 * MYRI_QSIM_NRATES, 0.03);
    rep__worst(cs, "table7", "Table 7: LANai queue length, models 1 and 2 (Table 9's simulation column)", t7,
               2 * MYRI_QSIM_NRATES, 0.06);
}

/* The claims of the paper's text (Sections 3.3 and 4.3). */
static void rep__claims_text(rep__claims *cs, const myri_qsim_seed004 *s, const rep__pder *d)
{
    const int last = MYRI_QSIM_NRATES - 1;
    const myri_qsim_result *r1 = &s->job[MYRI_QSIM_POOLED][last].result, *r2 = &s->job[MYRI_QSIM_POLLING][last].result;
    double same = 0;
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        for (int i = 1; i < 3; i++)
            same = fmax(same, fabs(s->job[0][k].result.st[i].util.mean - s->job[1][k].result.st[i].util.mean));
    if (cs->n + 4 > REP_MAXCLAIMS) return;
    cs->c[cs->n++] = (myri_cli_claim){
        .id = "hdma_nsdma_same", .unit = "",
        .text = "4.3: HDMA and NSDMA utilisations \"exactly the same in both simulation models\" (largest "
                "difference)",
        .paper = 0, .ours = same, .tol_abs = 0.001};
    double u1 = r1->st[0].util.mean, u2 = r2->st[0].util.mean;
    cs->c[cs->n++] = (myri_cli_claim){
        .id = "lanai_model_error", .unit = "%",
        .text = "4.3: LANai utilisation, model 1 against 2: \"maximum error equal to 1.38% at the largest rate\"",
        .paper = 1.38, .ours = 100 * (u1 - u2) / u2, .tol_abs = 0.5};
    double q1 = r1->st[0].lq.mean, q2 = r2->st[0].lq.mean;
    cs->c[cs->n++] = (myri_cli_claim){
        .id = "lanai_queue_model_error", .unit = "%",
        .text = "4.3: \"Table 7 shows a maximum difference of 6.76%\" (at the largest rate, relative to model 1)",
        .paper = 6.76, .ours = 100 * (q1 - q2) / q1, .tol_abs = 2,
        .note = "the paper's own Table 7 differs by 7.9 % at lambda 0.00786"};
    cs->c[cs->n++] = (myri_cli_claim){
        .id = "p_nsdma_idle", .unit = "",
        .text = "3.3: p = 0.5 (1 - lambda t), the chance that NSDMA is idle when LANai takes data (0.011)",
        .note = "ours: the fraction of data messages that find NSDMA idle in model 2",
        .paper = d[last].p_paper, .ours = d[last].p_idle, .tol_rel = 0.10};
}

/* The system runs (--system): the paper's NIC carries every rate of its tables. */
static void rep__claims_system(rep__claims *cs, const myri_rep4_sys *sys)
{
    static const char *const text[MYRI_REP4_NFW] = {
        "the NIC carries the paper's highest rate (messages served per us; myricom, register level)",
        "the NIC carries the paper's highest rate (messages served per us; lcp, register level)"};
    const myri_rep4_sys *top = &sys[MYRI_QSIM_NRATES - 1];
    for (int f = 0; f < MYRI_REP4_NFW && cs->n < REP_MAXCLAIMS; f++)
        cs->c[cs->n++] = (myri_cli_claim){
            .id = f ? "system_lcp_rate" : "system_myricom_rate", .text = text[f], .unit = "",
            .paper = top->lambda, .ours = top->fw[f].throughput, .tol_rel = 0.02, .lo_only = true,
            .note = f ? "the contrast: one message at a time (seed 000)"
                      : "see the capacity lines above: its hostSend serialises doorbell, data and completion"};
}

static void rep__claims_build(rep__claims *cs, const myri_qsim_seed004 *s, const myri_qna_seed004_row *q,
                              const rep__pder *d, const myri_rep4_sys *sys)
{
    cs->n = 0;
    rep__claims_qna(cs, q);
    rep__claims_sim(cs, s);
    rep__claims_text(cs, s, d);
    if (sys) rep__claims_system(cs, sys);
}

static void rep__claims_print(const rep__claims *cs)
{
    printf("\nClaims (tolerance stated beforehand; worst cell of each table or column):\n");
    for (int i = 0; i < cs->n; i++) myri_cli_claim_print(stdout, &cs->c[i]);
}

static void rep__claims_json(myri_json *j, const rep__claims *cs)
{
    myri_json_key(j, "claims");
    myri_json_arr_begin(j);
    for (int i = 0; i < cs->n; i++) myri_cli_claim_json(j, &cs->c[i]);
    myri_json_arr_end(j);
}

/* ---- JSON --------------------------------------------------------------------------- */

static void rep__jcell(myri_json *j, const char *key, double paper, myri_qsim_est e)
{
    myri_json_key(j, key);
    myri_json_obj_begin(j);
    myri_json_knum(j, "paper", paper);
    myri_json_knum(j, "ours", e.mean);
    myri_json_knum(j, "ci", e.hw);
    myri_json_knum(j, "diff_pct", rep__diff(e.mean, paper));
    myri_json_obj_end(j);
}

static void rep__jqna(myri_json *j, const char *key, double paper, double conv, double cond)
{
    myri_json_key(j, key);
    myri_json_obj_begin(j);
    myri_json_knum(j, "paper", paper);
    myri_json_knum(j, "converged", conv);
    myri_json_knum(j, "paper_conditions", cond);
    myri_json_obj_end(j);
}

/* Members of row k of the simulation tables 4 to 7 (t = 1..4). */
static void rep__jrow_sim(myri_json *j, int t, const myri_qsim_paper_row *p, const myri_qsim_result *r1,
                          const myri_qsim_result *r2)
{
    switch (t) {
    case 1:
        rep__jcell(j, "doorbell", p->t4_doorbell, r2->st[0].queue[0]);
        rep__jcell(j, "descriptor", p->t4_descriptor, r2->st[0].queue[1]);
        rep__jcell(j, "data", p->t4_data, r2->st[0].queue[2]);
        break;
    case 2:
        rep__jcell(j, "lanai_model1", p->t5_lanai1, r1->st[0].util);
        rep__jcell(j, "lanai_model2", p->t5_lanai2, r2->st[0].util);
        rep__jcell(j, "hdma_model1", p->t5_hdma1, r1->st[1].util);
        rep__jcell(j, "hdma_model2", p->t5_hdma2, r2->st[1].util);
        rep__jcell(j, "nsdma_model1", p->t5_nsdma1, r1->st[2].util);
        rep__jcell(j, "nsdma_model2", p->t5_nsdma2, r2->st[2].util);
        break;
    case 3:
        rep__jcell(j, "hdma_model1", p->t6_hdma1, r1->st[1].lq);
        rep__jcell(j, "hdma_model2", p->t6_hdma2, r2->st[1].lq);
        break;
    default:
        rep__jcell(j, "lanai_model1", p->t7_lanai1, r1->st[0].lq);
        rep__jcell(j, "lanai_model2", p->t7_lanai2, r2->st[0].lq);
        break;
    }
}

/* Members of row k of the tables with QNA values: 3, 8, 9 (t = 0, 5, 6). */
static void rep__jrow_qna(myri_json *j, int t, const myri_qsim_paper_row *p, const myri_qna_seed004_row *q,
                          const myri_qsim_result *r2)
{
    static const char *const nodes[3] = {"lanai", "hdma", "nsdma"};
    if (t == 0) {
        for (int i = 0; i < 3; i++) rep__jqna(j, nodes[i], q->paper_lq[i], q->conv_lq[i], q->cond_lq[i]);
    } else if (t == 5) {
        double ps[3] = {p->t5_lanai2, p->t5_hdma2, p->t5_nsdma2};
        for (int i = 0; i < 3; i++) {
            char key[32];
            snprintf(key, sizeof key, "%s_analytical", nodes[i]);
            rep__jqna(j, key, q->paper_rho[i], q->conv_rho[i], q->cond_rho[i]);
            snprintf(key, sizeof key, "%s_simulated", nodes[i]);
            rep__jcell(j, key, ps[i], r2->st[i].util);
        }
    } else {
        rep__jqna(j, "lanai_analytical", p->t9_qna, q->conv_lq[0], q->cond_lq[0]);
        rep__jcell(j, "lanai_simulated", p->t9_sim, r2->st[0].lq);
    }
}

static void rep__json_tables(myri_json *j, const myri_qsim_seed004 *s, const myri_qna_seed004_row *q)
{
    const char *names[] = {"table3", "table4", "table5", "table6", "table7", "table8", "table9"};
    for (int t = 0; t < 7; t++) {
        myri_json_key(j, names[t]);
        myri_json_arr_begin(j);
        for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
            const myri_qsim_paper_row *p = &myri_qsim_paper[k];
            const myri_qsim_result *r1 = &s->job[MYRI_QSIM_POOLED][k].result;
            const myri_qsim_result *r2 = &s->job[MYRI_QSIM_POLLING][k].result;
            myri_json_obj_begin(j);
            myri_json_knum(j, "lambda", p->lambda);
            if (t == 0 || t >= 5) rep__jrow_qna(j, t, p, &q[k], r2);
            else rep__jrow_sim(j, t, p, r1, r2);
            myri_json_obj_end(j);
        }
        myri_json_arr_end(j);
    }
}

static void rep__json(const myri_qsim_seed004 *s, const myri_qna_seed004_row *q, const rep__pder *d, double precision,
                      uint64_t seed, const char *blocking, const char *disc, const myri_rep4_sys *sys,
                      uint64_t sys_hash, const rep__claims *cs)
{
    myri_json *j = myri_json_create(stdout, true);
    if (!j) return;
    myri_json_obj_begin(j);
    myri_json_kstr(j, "paper", "seed004");
    myri_json_kuint(j, "seed", seed);
    myri_json_knum(j, "precision", precision);
    myri_json_kstr(j, "blocking", blocking);
    myri_json_kstr(j, "discipline", disc);
    myri_json_kstr(j, "qna_paper_conditions", myri_qna_seed004_conditions_text());
    rep__json_tables(j, s, q);
    myri_json_key(j, "p_derived");
    myri_json_arr_begin(j);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        myri_json_obj_begin(j);
        myri_json_knum(j, "lambda", myri_qsim_paper_rates[k]);
        myri_json_knum(j, "p_paper", d[k].p_paper);
        myri_json_knum(j, "p_fixed_point", d[k].p_fixed);
        myri_json_knum(j, "p_simulated", d[k].p_sim);
        myri_json_knum(j, "nsdma_idle_fraction_simulated", d[k].p_idle);
        myri_json_knum(j, "lanai_rho_p_paper", d[k].rho_paper);
        myri_json_knum(j, "lanai_rho_p_one", d[k].rho_one);
        myri_json_knum(j, "lanai_rho_p_fixed_point", d[k].rho_fixed);
        myri_json_knum(j, "lanai_rho_p_simulated", d[k].rho_simp);
        myri_json_knum(j, "lanai_rho_paper_simulation", myri_qsim_paper[k].t5_lanai2);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "runs");
    myri_json_arr_begin(j);
    for (int k = 0; k < MYRI_QSIM_NRATES; k++)
        for (int m = 0; m < 2; m++) {
            const myri_qsim_result *r = &s->job[m][k].result;
            myri_json_obj_begin(j);
            myri_json_knum(j, "lambda", myri_qsim_paper_rates[k]);
            myri_json_kstr(j, "model", m ? "polling" : "pooled");
            myri_json_kuint(j, "arrivals", r->arrivals);
            myri_json_kuint(j, "events", r->events);
            myri_json_kbool(j, "converged", r->converged);
            myri_json_knum(j, "hdma_control_correlation", r->st[1].lq_corr);
            myri_json_obj_end(j);
        }
    myri_json_arr_end(j);
    myri_json_kuint(j, "total_arrivals", s->arrivals);
    myri_json_kuint(j, "total_events", s->events);
    myri_json_key(j, "result_hash");
    myri_json_hash(j, s->hash);
    if (sys) myri_rep4_system_json(j, sys, sys_hash);
    rep__claims_json(j, cs);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

/* ---- figures --------------------------------------------------------------------------- */

static int rep__write_svg(const char *dir, const char *name, const myri_qsim_plot *p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "myri reproduce: cannot write %s: %s\n", path, strerror(errno));
        return MYRI_EXIT_FAIL;
    }
    myri_status st = myri_qsim_plot_svg(p, f);
    int fl = fflush(f) != 0 || ferror(f) ? errno : 0;
    if (fclose(f) != 0 && !fl) fl = errno;
    if (fl || st != MYRI_OK) {
        fprintf(stderr, "myri reproduce: writing %s failed: %s\n", path, fl ? strerror(fl) : "I/O error");
        return MYRI_EXIT_FAIL;
    }
    fprintf(stderr, "wrote %s\n", path);
    return 0;
}

/* The data of Figures 4 and 5: ours and the paper's, by rate. */
typedef struct rep__figdata {
    double x[MYRI_QSIM_NRATES];
    double uq[3][MYRI_QSIM_NRATES], us[3][MYRI_QSIM_NRATES], ue[3][MYRI_QSIM_NRATES]; /* ours: QNA, sim, hw */
    double pq[3][MYRI_QSIM_NRATES], ps[3][MYRI_QSIM_NRATES]; /* paper: QNA (Table 8), model 2 (Table 5) */
    double hq[3][MYRI_QSIM_NRATES], he[2][MYRI_QSIM_NRATES], hp[MYRI_QSIM_NRATES];
} rep__figdata;

static void rep__figdata_fill(rep__figdata *d, const myri_qsim_seed004 *s, const myri_qna_seed004_row *q)
{
    for (int k = 0; k < MYRI_QSIM_NRATES; k++) {
        const myri_qsim_paper_row *pr = &myri_qsim_paper[k];
        const double psim[3] = {pr->t5_lanai2, pr->t5_hdma2, pr->t5_nsdma2};
        d->x[k] = myri_qsim_paper_rates[k];
        for (int i = 0; i < 3; i++) {
            d->uq[i][k] = q[k].conv_rho[i];
            d->us[i][k] = s->job[MYRI_QSIM_POLLING][k].result.st[i].util.mean;
            d->ue[i][k] = s->job[MYRI_QSIM_POLLING][k].result.st[i].util.hw;
            d->pq[i][k] = q[k].paper_rho[i];
            d->ps[i][k] = psim[i];
        }
        d->hq[0][k] = q[k].conv_lq[1];
        for (int m = 0; m < 2; m++) {
            d->hq[1 + m][k] = s->job[m][k].result.st[1].lq.mean;
            d->he[m][k] = s->job[m][k].result.st[1].lq.hw;
        }
        d->hp[k] = pr->t6_hdma2;
    }
}

/* Figure 4: colour = node; dashed line and square = our QNA, solid line and
 * circle = our simulation (model 2), hollow markers = the paper's values
 * (triangle: its QNA, Table 8; diamond: its model 2, Table 5).  The four
 * markers of a rate sit side by side (QNA left, simulation right). */
static int rep__fig4(const char *dir, const rep__figdata *d)
{
    static const char *const node[3] = {"LANai", "HDMA", "NSDMA"};
    static const char *const what[4] = {"QNA", "QNA, paper Table 8", "simulation model 2",
                                        "sim. model 2, paper Table 5"};
    static const int shape[4] = {1, 4, 0, 3};
    static const double dodge[4] = {-7.5, -2.5, 2.5, 7.5};
    char label[3][4][64];
    myri_qsim_series f4[12];
    for (int i = 0; i < 3; i++)
        for (int w = 0; w < 4; w++) {
            snprintf(label[i][w], sizeof label[i][w], "%s, %s", node[i], what[w]);
            const double *y = w == 0 ? d->uq[i] : w == 1 ? d->pq[i] : w == 2 ? d->us[i] : d->ps[i];
            f4[i * 4 + w] = (myri_qsim_series){label[i][w], MYRI_QSIM_NRATES, d->x, y, w == 2 ? d->ue[i] : NULL,
                                               w == 0, true, i + 1, shape[w], w % 2 == 1, w % 2 == 1, dodge[w]};
        }
    myri_qsim_plot p4 = {"Figure 4: utilisation of the nodes (seed 004)", "doorbell arrival rate (per us)",
                         "utilisation", false, 12, f4};
    return rep__write_svg(dir, "fig4_utilization.svg", &p4);
}

/* Figure 5: one colour and marker per series; model 1 left of each rate,
 * model 2 right, the paper's value (hollow diamond) in the middle. */
static int rep__fig5(const char *dir, const rep__figdata *d)
{
    myri_qsim_series f5[4] = {
        {"QNA (converged)", MYRI_QSIM_NRATES, d->x, d->hq[0], NULL, true, true, 1, 1, false, false, 0.0},
        {"sim. model 1 (pooled), 95% CI", MYRI_QSIM_NRATES, d->x, d->hq[1], d->he[0], false, true, 2, 0, false,
         false, -6.0},
        {"sim. model 2 (polling), 95% CI", MYRI_QSIM_NRATES, d->x, d->hq[2], d->he[1], false, true, 3, 2, false,
         false, 6.0},
        {"paper, simulation model 2 (Table 6)", MYRI_QSIM_NRATES, d->x, d->hp, NULL, false, true, 4, 3, true, true, 0.0},
    };
    myri_qsim_plot p5 = {"Figure 5: mean HDMA queue length (seed 004)", "doorbell arrival rate (per us)",
                         "mean queue length at HDMA (log scale)", true, 4, f5};
    return rep__write_svg(dir, "fig5_hdma_queue.svg", &p5);
}

static int rep__figures(const char *dir, const myri_qsim_seed004 *s, const myri_qna_seed004_row *q)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 && mkdir(dir, 0777) != 0) {
        fprintf(stderr, "myri reproduce: cannot create directory %s\n", dir);
        return MYRI_EXIT_FAIL;
    }
    rep__figdata d;
    rep__figdata_fill(&d, s, q);
    int rc = rep__fig4(dir, &d);
    if (!rc) rc = rep__fig5(dir, &d);
    return rc;
}

/* ---- seed004 ----------------------------------------------------------------------------- */

#define REP4_MESSAGES 1000 /* per system run (--system) */

static int rep__seed004(const myri_cmd_reproduce_args *a)
{
    static const char *const discs[] = {"limited", "gated", "exhaustive"};
    myri_qsim_blocking blocking = a->blocking;
    myri_qsim_discipline disc = a->disc;
    uint64_t seed = a->seed;
    double precision = a->precision;
    unsigned threads = a->threads;
    myri_qna_seed004_row q[QNA_SEED004_ROWS];
    myri_error err = {.msg = ""};
    if (myri_qna_seed004_tables(q, &err) != MYRI_OK) {
        fprintf(stderr, "myri reproduce: QNA failed: %s\n", err.msg);
        return MYRI_EXIT_FAIL;
    }
    myri_qsim_seed004 *s = malloc(sizeof *s);
    if (!s) return MYRI_EXIT_FAIL;
    myri_status st = myri_qsim_seed004_run(seed, precision, threads, a->plain, blocking, disc, s);
    rep__pder d[MYRI_QSIM_NRATES];
    if (st == MYRI_OK) st = rep__pderive(s, d);
    if (st != MYRI_OK) {
        fprintf(stderr, "myri reproduce: simulation failed: %s\n", myri_strerror(st));
        free(s);
        return MYRI_EXIT_FAIL;
    }
    myri_rep4_sys sys[MYRI_QSIM_NRATES];
    uint64_t sys_hash = 0;
    myri_error serr = {0};
    if (a->system && (st = myri_rep4_system_run(seed, REP4_MESSAGES, sys, &sys_hash, &serr)) != MYRI_OK) {
        fprintf(stderr, "myri reproduce: the system runs failed: %s\n", serr.msg[0] ? serr.msg : myri_strerror(st));
        free(s);
        return MYRI_EXIT_FAIL;
    }
    rep__claims *cs = malloc(sizeof *cs);
    if (!cs) {
        free(s);
        return MYRI_EXIT_FAIL;
    }
    rep__claims_build(cs, s, q, d, a->system ? sys : NULL);
    if (a->cli.json) {
        rep__json(s, q, d, precision, seed, blocking == MYRI_QSIM_HOLD ? "hold" : "skip", discs[disc],
                  a->system ? sys : NULL, sys_hash, cs);
    } else {
        printf("# myri reproduce seed004 --seed %llu --precision %g --blocking %s --discipline %s\n# %s\n",
               (unsigned long long)seed, precision, blocking == MYRI_QSIM_HOLD ? "hold" : "skip", discs[disc],
               a->plain ? "plain batch means" : "batch means with control variates");
        rep__print_qna(q);
        rep__print_sim(s);
        rep__print_t8_t9(s, q);
        rep__print_p(s, d);
        rep__print_runs(s, threads);
        if (a->system) myri_rep4_system_print(sys, q, s, REP4_MESSAGES);
        rep__claims_print(cs);
    }
    free(cs);
    int rc = MYRI_EXIT_OK;
    for (int m = 0; m < 2; m++)
        for (int k = 0; k < MYRI_QSIM_NRATES; k++)
            if (!s->job[m][k].result.converged) rc = MYRI_EXIT_FAIL;
    if (a->figures) {
        int frc = rep__figures(a->figures, s, q);
        if (frc) rc = frc;
    }
    free(s);
    return rc;
}

int myri_cmd_reproduce(int argc, char **argv)
{
    myri_cmd_reproduce_args a;
    int rc = myri_cmd_reproduce_parse(argc, argv, &a);
    if (rc) return rc;
    if (a.cli.help) {
        fputs(rep__usage, stdout);
        return MYRI_EXIT_OK;
    }
    switch (a.paper) {
    case MYRI_PAPER_SEED001:
        return myri_cmd_reproduce_seed001(a.cli.json, a.figures, a.cli.have_seed, a.cli.seed);
    case MYRI_PAPER_SEED000:
        return myri_cmd_reproduce_seed000(a.cli.json, a.cli.have_seed, a.cli.seed, a.messages);
    case MYRI_PAPER_SEED002:
        return myri_cmd_reproduce_seed002(a.cli.json, a.cli.have_seed, a.cli.seed);
    case MYRI_PAPER_SEED004:
        return rep__seed004(&a);
    case MYRI_PAPER_SEED004_SENDRECV:
        return myri_cmd_reproduce_sendrecv(a.cli.json, a.seed, a.precision, a.threads);
    }
    return MYRI_EXIT_INPUT;
}
