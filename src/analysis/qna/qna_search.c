/* qna_search.c -- the systematic search for the conditions under which the
 * seed-004 analytical Tables 3 and 8 come out (see qna.h and docs/QNA.md).
 *
 * About 600 Table-2 variants x 31 step-2 settings x 6 arrival rates, i.e.
 * about 10^5 small solves: under a second in a release build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qna/qna.h"

static const struct {
    const char *name, *printed;
    size_t offset;
} qna__entries[QNA_SEED004_ENTRIES] = {
    {"LANai doorbell", "22", offsetof(myri_qna_nic_params, lanai_doorbell_us)},
    {"LANai descriptor", "0.12", offsetof(myri_qna_nic_params, lanai_descriptor_us)},
    {"LANai programming NSDMA", "10", offsetof(myri_qna_nic_params, lanai_program_us)},
    {"HDMA doorbell", "21", offsetof(myri_qna_nic_params, hdma_doorbell_us)},
    {"HDMA descriptor", "68.3154", offsetof(myri_qna_nic_params, hdma_descriptor_us)},
    {"NSDMA data", "52.6887", offsetof(myri_qna_nic_params, nsdma_data_us)},
};

const char *myri_qna_seed004_entry_name(int k)
{
    return k >= 0 && k < QNA_SEED004_ENTRIES ? qna__entries[k].name : "Table 2 as printed";
}

const char *myri_qna_seed004_entry_printed(int k)
{
    return k >= 0 && k < QNA_SEED004_ENTRIES ? qna__entries[k].printed : "";
}

/* Same text at 4 decimals (the paper's precision in Tables 3 and 8). */
static bool qna__same4(double x, double printed)
{
    char a[40], b[40];
    snprintf(a, sizeof a, "%.4f", x);
    snprintf(b, sizeof b, "%.4f", printed);
    return strcmp(a, b) == 0;
}

/* Cells of Tables 3 and 8 matched with these parameters and sweeps. */
static int qna__score(const myri_qna_nic_params *p, int sweeps, const myri_qna_seed004_row *paper)
{
    myri_qna_options opt;
    myri_qna_options_default(&opt);
    opt.sweeps = sweeps;
    int cells = 0;
    for (int k = 0; k < QNA_SEED004_ROWS; k++) {
        myri_qna_net *net = NULL;
        myri_qna_result r;
        if (myri_qna_nic_build(paper[k].lambda_per_us, p, &net) != MYRI_OK) continue;
        myri_status st = myri_qna_solve(net, &opt, &r, NULL);
        myri_qna_net_destroy(net);
        if (st != MYRI_OK) continue;
        for (int i = 0; i < 3; i++)
            cells += qna__same4(r.node[i].lq, paper[k].paper_lq[i]) +
                     qna__same4(r.node[i].rho, paper[k].paper_rho[i]);
    }
    return cells;
}

/* Misprint variants of the decimal text s (without s itself): appends up to
 * max texts of at most 23 characters to out, returns how many. */
static size_t qna__variants(const char *s, char (*out)[24], size_t max)
{
    size_t n = 0, len = strlen(s);
    char t[24];
#define ADD()                                                                 \
    do {                                                                      \
        if (n < max && strcmp(t, s) != 0) strcpy(out[n++], t);               \
    } while (0)
    for (size_t i = 0; i < len; i++) { /* one digit changed */
        if (s[i] == '.') continue;
        for (char c = '0'; c <= '9'; c++) {
            strcpy(t, s);
            t[i] = c;
            ADD();
        }
    }
    for (size_t i = 0; i + 1 < len; i++) { /* adjacent digits swapped */
        if (s[i] == '.' || s[i + 1] == '.') continue;
        strcpy(t, s);
        t[i] = s[i + 1];
        t[i + 1] = s[i];
        ADD();
    }
    for (size_t i = 0; i <= len && len + 1 < sizeof t; i++) /* a digit inserted */
        for (char c = '0'; c <= '9'; c++) {
            memcpy(t, s, i);
            t[i] = c;
            strcpy(t + i + 1, s + i);
            ADD();
        }
    for (size_t i = 0; i < len; i++) { /* a digit deleted */
        if (s[i] == '.') continue;
        memcpy(t, s, i);
        strcpy(t + i, s + i + 1);
        if (t[0]) ADD();
    }
    static const double shift[4] = {10, 100, 0.1, 0.01}; /* decimal point moved */
    for (int k = 0; k < 4; k++) {
        snprintf(t, sizeof t, "%.10g", atof(s) * shift[k]);
        ADD();
    }
#undef ADD
    return n;
}

/* Inserts c into the sorted list best[0..*nb) of capacity n. */
static void qna__keep(myri_qna_seed004_candidate *best, size_t n, size_t *nb,
                      const myri_qna_seed004_candidate *c)
{
    size_t pos = *nb;
    while (pos > 0) {
        const myri_qna_seed004_candidate *b = &best[pos - 1];
        bool better = c->cells > b->cells ||
                      (c->cells == b->cells && c->entry < 0 && b->entry >= 0);
        if (!better) break;
        pos--;
    }
    if (pos >= n) return;
    size_t last = *nb < n ? *nb : n - 1;
    memmove(&best[pos + 1], &best[pos], (last - pos) * sizeof *best);
    best[pos] = *c;
    if (*nb < n) (*nb)++;
}

myri_status myri_qna_seed004_search(int max_sweeps, myri_qna_seed004_candidate *best, size_t n,
                               size_t *scored)
{
    if (max_sweeps < 1 || max_sweeps > 100 || (n && !best) || !scored) return MYRI_EINVAL;
    myri_qna_seed004_row paper[QNA_SEED004_ROWS];
    myri_status st = myri_qna_seed004_tables(paper, NULL);
    if (st != MYRI_OK) return st;
    char (*texts)[24] = malloc(400 * sizeof *texts);
    if (!texts) return MYRI_ENOMEM;
    size_t nb = 0;
    *scored = 0;
    for (int e = -1; e < QNA_SEED004_ENTRIES; e++) {
        size_t nv = 1;
        if (e < 0)
            strcpy(texts[0], "");
        else
            nv = qna__variants(qna__entries[e].printed, texts, 400);
        for (size_t v = 0; v < nv; v++) {
            myri_qna_nic_params p;
            myri_qna_nic_params_default(&p);
            double value = 0;
            if (e >= 0) {
                value = atof(texts[v]);
                double *field = (double *)((char *)&p + qna__entries[e].offset);
                if (!(value > 0) || value == *field) continue; /* not a different time */
                bool seen = false;
                for (size_t u = 0; u < v && !seen; u++) seen = atof(texts[u]) == value;
                if (seen) continue;
                *field = value;
            }
            for (int sw = 1; sw <= max_sweeps + 1; sw++) {
                int sweeps = sw > max_sweeps ? 0 : sw;
                myri_qna_seed004_candidate c = {.entry = e, .value_us = value, .sweeps = sweeps};
                snprintf(c.text, sizeof c.text, "%s", texts[v]);
                c.cells = qna__score(&p, sweeps, paper);
                (*scored)++;
                if (n) qna__keep(best, n, &nb, &c);
            }
        }
    }
    free(texts);
    return MYRI_OK;
}
