/* fuzz_nicsim.c -- libFuzzer target for the queueing simulation's parameters
 * (the options of `myri nicsim`).
 *
 * The input is text, one "key=value" per line, named as the options:
 *   model=pooled|polling|sendrecv  lambda=RATE  rx-lambda=RATE
 *   discipline=limited|gated|exhaustive  blocking=hold|skip
 *   arrivals=N  precision=REL  warmup=N  max-arrivals=N  min-arrivals=N
 *   min-batches=N  seed=S  plain=1  antithetic=1
 * (integers as strtoull reads them, so 18446744073709551615 is reachable;
 * unknown keys and bad values are ignored).  The network is built
 * (myri_qsim_net_seed004) and the run plan checked (myri_qsim_check: the
 * float-to-integer conversions of the plan live there); a plan that passes
 * is run only when it is small (a fixed run of at most 20000 arrivals after
 * a warm-up of at most 20000), and a run that returns MYRI_OK must pass
 * myri_qsim_result_check, else the target aborts.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/qsim/qsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_nic {
    int model, disc, blocking;
    double lambda, rx;
    myri_qsim_opts o;
} fz_nic;

static int fz_choice(const char *v, const char *const *names, int n, int dflt)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) return i;
    return dflt;
}

static void fz_set(fz_nic *f, const char *key, const char *val)
{
    static const char *const models[] = {"pooled", "polling", "sendrecv"};
    static const char *const discs[] = {"limited", "gated", "exhaustive"};
    static const char *const blocks[] = {"hold", "skip"};
    char *end;
    double d = strtod(val, &end);
    bool dnum = end != val;
    unsigned long long u = strtoull(val, &end, 10);
    bool unum = end != val && val[0] != '-';
    if (strcmp(key, "model") == 0) f->model = fz_choice(val, models, 3, f->model);
    else if (strcmp(key, "discipline") == 0) f->disc = fz_choice(val, discs, 3, f->disc);
    else if (strcmp(key, "blocking") == 0) f->blocking = fz_choice(val, blocks, 2, f->blocking);
    else if (strcmp(key, "lambda") == 0 && dnum) f->lambda = d;
    else if (strcmp(key, "rx-lambda") == 0 && dnum) f->rx = d;
    else if (strcmp(key, "precision") == 0 && dnum) f->o.precision = d;
    else if (strcmp(key, "arrivals") == 0 && unum) f->o.arrivals = u;
    else if (strcmp(key, "warmup") == 0 && unum) f->o.warmup_arrivals = u;
    else if (strcmp(key, "max-arrivals") == 0 && unum) f->o.max_arrivals = u;
    else if (strcmp(key, "min-arrivals") == 0 && unum) f->o.min_arrivals = u;
    else if (strcmp(key, "min-batches") == 0 && unum && u <= 4096) f->o.min_batches = (unsigned)u;
    else if (strcmp(key, "seed") == 0 && unum) f->o.seed = u;
    else if (strcmp(key, "plain") == 0) f->o.plain_batch_means = dnum && d != 0;
    else if (strcmp(key, "antithetic") == 0) f->o.antithetic = dnum && d != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    fz_nic f = {.lambda = 0.005, .rx = -1.0, .o = {.seed = 1, .precision = 0.02}};
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *eq = strchr(line, '=');
        if (!eq) continue;
        *eq = 0;
        fz_set(&f, line, eq + 1);
    }
    free(text);
    if (f.rx < 0) f.rx = f.lambda;
    myri_qsim_net net;
    if (myri_qsim_net_seed004(&net, (myri_qsim_model)f.model, f.lambda, f.model == MYRI_QSIM_SENDRECV ? f.rx : 0.0,
                              (myri_qsim_discipline)f.disc, (myri_qsim_blocking)f.blocking) != MYRI_OK)
        return 0;
    char why[400];
    myri_status st = myri_qsim_check(&net, &f.o, why, sizeof why);
    if (st != MYRI_OK) {
        if (!why[0]) abort(); /* every refusal names its cause */
        return 0;
    }
    bool small = f.o.arrivals >= 1 && f.o.arrivals <= 20000 && f.o.warmup_arrivals >= 1 &&
                 f.o.warmup_arrivals <= 20000 && (f.o.min_batches == 0 || f.o.min_batches <= 256);
    if (!small) return 0;
    myri_qsim_result r;
    st = myri_qsim_run(&net, &f.o, &r);
    if (st == MYRI_OK && myri_qsim_result_check(&net, &r, why, sizeof why) != MYRI_OK) abort();
    return 0;
}
