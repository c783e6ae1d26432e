/* fuzz_qna_model.c -- libFuzzer target for the `myri qna --model nic-seed004`
 * path: the built-in NIC network at a rate and Table 2 values from the input.
 *
 * The input is text, one "key=value" per line (unknown keys and bad values
 * are ignored, as a fuzzer's mutations mostly are):
 *   lambda=RATE  sweeps=N  wq=whitt|paper  split=class|aggregate
 *   conditions=1 (the paper's conditions)  p=P (p_override)
 *   lanai_doorbell= lanai_descriptor= lanai_program= hdma_doorbell=
 *   hdma_descriptor= nsdma_data= p_idle_share=   (Table 2 entries, us)
 * The network is built (myri_qna_nic_build) and solved; a solve that
 * returns MYRI_OK must give finite, non-negative figures and utilisations
 * below 1, else the target aborts.  Any crash, leak or sanitizer report is
 * a bug; error returns are expected.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qna/qna.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_model {
    double lambda;
    int sweeps;
    bool cond;
    myri_qna_options opt;
    myri_qna_nic_params prm;
} fz_model;

static void fz_set(fz_model *m, const char *key, const char *val)
{
    char *end;
    double v = strtod(val, &end);
    bool num = end != val;
    struct { const char *k; double *p; } tab[] = {
        {"lambda", &m->lambda}, {"lanai_doorbell", &m->prm.lanai_doorbell_us},
        {"lanai_descriptor", &m->prm.lanai_descriptor_us}, {"lanai_program", &m->prm.lanai_program_us},
        {"hdma_doorbell", &m->prm.hdma_doorbell_us}, {"hdma_descriptor", &m->prm.hdma_descriptor_us},
        {"nsdma_data", &m->prm.nsdma_data_us}, {"p_idle_share", &m->prm.p_idle_share}, {"p", &m->prm.p_override},
    };
    for (size_t k = 0; k < sizeof tab / sizeof tab[0]; k++)
        if (num && strcmp(key, tab[k].k) == 0) *tab[k].p = v;
    if (num && strcmp(key, "sweeps") == 0 && v >= 0 && v <= 5000) m->opt.sweeps = (int)v;
    if (strcmp(key, "wq") == 0) m->opt.wq = strcmp(val, "paper") == 0 ? QNA_WQ_PAPER : QNA_WQ_WHITT;
    if (strcmp(key, "split") == 0)
        m->opt.split = strcmp(val, "aggregate") == 0 ? QNA_SPLIT_AGGREGATE : QNA_SPLIT_CLASS;
    if (strcmp(key, "conditions") == 0) m->cond = num && v != 0;
}

static void fz_check(const myri_qna_result *r)
{
    for (size_t i = 0; i < r->n_nodes; i++) {
        const myri_qna_node_result *n = &r->node[i];
        const double v[] = {n->lambda, n->rho, n->mu, n->ca2, n->cs2, n->cd2, n->wq, n->w, n->lq, n->l};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            if (!isfinite(v[k]) || v[k] < -1e-9) abort(); /* printed as a result: must not happen */
        if (!(n->rho < 1)) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    fz_model m = {.lambda = 0.005};
    myri_qna_options_default(&m.opt);
    m.opt.max_sweeps = 2000;
    myri_qna_nic_params_default(&m.prm);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        fz_set(&m, line, eq + 1);
    }
    free(text);
    if (m.cond) {
        int sweeps;
        myri_qna_seed004_conditions(&m.prm, &sweeps);
        if (m.opt.sweeps == 0) m.opt.sweeps = sweeps;
    }
    myri_qna_net *net = NULL;
    if (myri_qna_nic_build(m.lambda, &m.prm, &net) != MYRI_OK) return 0;
    myri_qna_result r;
    myri_error err;
    if (myri_qna_solve(net, &m.opt, &r, &err) == MYRI_OK) fz_check(&r);
    myri_qna_net_destroy(net);
    return 0;
}
