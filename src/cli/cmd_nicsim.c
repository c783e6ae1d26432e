/* cmd_nicsim.c -- `myri nicsim`: one run of a seed-004 NIC simulation model.
 *
 * Exit codes: 0 done (precision reached, or the fixed run finished); 1 the
 * run failed (a station's offered utilisation >= 1, or the precision was not
 * reached within --max-arrivals); 2 bad input or usage.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "myri/json.h"
#include "analysis/qsim/qsim.h"

static const char nicsim__usage[] =
    "usage: myri nicsim --model pooled|polling|sendrecv --lambda RATE\n"
    "                   [--arrivals N | --precision REL] [--seed S] [--json]\n"
    "                   [--discipline limited|gated|exhaustive] [--blocking hold|skip]\n"
    "                   [--rx-lambda RATE] [--warmup N] [--max-arrivals N] [--plain]\n"
    "\n"
    "Simulates the Myrinet NIC of seed 004 on the engine: Poisson doorbells, the\n"
    "deterministic service times of Table 2, doorbell -> HDMA -> descriptor -> HDMA\n"
    "-> data -> LANai programs NSDMA (only when idle) -> NSDMA -> out.\n"
    "\n"
    "  --model pooled      model 1: LANai serves one FCFS queue of all messages\n"
    "  --model polling     model 2: LANai polls doorbell, descriptor, data queues\n"
    "  --model sendrecv    extension: send and receive (NRDMA; docs/NICSIM.md)\n"
    "  --lambda RATE       doorbell arrival rate per microsecond (e.g. 0.011)\n"
    "  --rx-lambda RATE    receive rate per microsecond (sendrecv; default RATE)\n"
    "  --arrivals N        run for about N arrivals after the warm-up (32 batches)\n"
    "  --precision REL     else stop when the 95 % half-width of the HDMA queue\n"
    "                      length is within REL of its mean (default 0.02)\n"
    "  --discipline D      polling: one message per visit (limited, default),\n"
    "                      gated or exhaustive\n"
    "  --blocking hold|skip  LANai with a data message while NSDMA is busy: holds it\n"
    "                      and waits (default; reproduces the paper) or skips it\n"
    "  --warmup N          warm-up arrivals (default: 20/(1-rho)^2, at least 2000)\n"
    "  --max-arrivals N    give up the precision rule after N arrivals (4e8)\n"
    "  --plain             plain batch means (no control variates)\n"
    "  --seed S            random seed (default 1)\n"
    "  --json              one JSON object: nodes (name, utilization, queue_length,\n"
    "                      queue_length_ci ...), queues (polling), run figures\n"
    "Exit: 0 done, 1 run failed (unstable or precision not reached), 2 bad input.\n";

typedef struct nicsim__args {
    const char *model, *lambda, *rx, *arrivals, *precision, *disc, *blocking, *warmup, *maxarr,
        *plain;
} nicsim__args;

static int nicsim__choice(const char *opt, const char *v, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return 0;
        }
    fprintf(stderr, "myri nicsim: --%s expects one of", opt);
    for (int i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? ", " : " ", names[i]);
    fprintf(stderr, "; got '%s'\n", v);
    return MYRI_EXIT_INPUT;
}

static int nicsim__rate(const char *opt, const char *text, double *out)
{
    if (myri_cli_double("nicsim", opt, text, out)) return MYRI_EXIT_INPUT;
    if (!(*out > 0.0) || !isfinite(*out)) {
        fprintf(stderr, "myri nicsim: --%s expects a positive rate per microsecond, got '%s'\n", opt, text);
        return MYRI_EXIT_INPUT;
    }
    return 0;
}

/* Builds the network and options from the arguments; returns 0 or 2. */
static int nicsim__setup(const nicsim__args *a, const myri_cli *cli, myri_qsim_net *net, myri_qsim_opts *o)
{
    static const char *const models[] = {"pooled", "polling", "sendrecv"};
    static const char *const discs[] = {"limited", "gated", "exhaustive"};
    static const char *const blocks[] = {"hold", "skip"};
    int model = 0, disc = 0, blk = 0;
    double lambda = 0.0, rx = 0.0;
    if (!a->model || !a->lambda) {
        fprintf(stderr, "myri nicsim: --model and --lambda are required (see 'myri nicsim --help')\n");
        return MYRI_EXIT_INPUT;
    }
    if (nicsim__choice("model", a->model, models, 3, &model) || nicsim__rate("lambda", a->lambda, &lambda))
        return MYRI_EXIT_INPUT;
    if (a->disc && nicsim__choice("discipline", a->disc, discs, 3, &disc)) return MYRI_EXIT_INPUT;
    if (a->blocking && nicsim__choice("blocking", a->blocking, blocks, 2, &blk)) return MYRI_EXIT_INPUT;
    rx = lambda;
    if (a->rx && nicsim__rate("rx-lambda", a->rx, &rx)) return MYRI_EXIT_INPUT;
    if (a->rx && model != MYRI_QSIM_SENDRECV) {
        fprintf(stderr, "myri nicsim: --rx-lambda only applies to --model sendrecv\n");
        return MYRI_EXIT_INPUT;
    }
    memset(o, 0, sizeof *o);
    o->seed = cli->have_seed ? cli->seed : 1;
    o->precision = 0.02;
    o->plain_batch_means = a->plain != NULL;
    if (a->arrivals && a->precision) {
        fprintf(stderr, "myri nicsim: give either --arrivals or --precision, not both\n");
        return MYRI_EXIT_INPUT;
    }
    if (a->arrivals && (myri_cli_uint("nicsim", "arrivals", a->arrivals, &o->arrivals) || o->arrivals < 1000)) {
        fprintf(stderr, "myri nicsim: --arrivals expects an integer >= 1000\n");
        return MYRI_EXIT_INPUT;
    }
    if (a->precision && (myri_cli_double("nicsim", "precision", a->precision, &o->precision) ||
                         !(o->precision > 0.0 && o->precision < 1.0))) {
        fprintf(stderr, "myri nicsim: --precision expects a relative half-width in (0, 1), e.g. 0.02\n");
        return MYRI_EXIT_INPUT;
    }
    if (a->warmup && myri_cli_uint("nicsim", "warmup", a->warmup, &o->warmup_arrivals)) return MYRI_EXIT_INPUT;
    if (a->maxarr && myri_cli_uint("nicsim", "max-arrivals", a->maxarr, &o->max_arrivals)) return MYRI_EXIT_INPUT;
    if (myri_qsim_net_seed004(net, (myri_qsim_model)model, lambda, model == MYRI_QSIM_SENDRECV ? rx : 0.0,
                           (myri_qsim_discipline)disc, (myri_qsim_blocking)blk) != MYRI_OK) {
        fprintf(stderr, "myri nicsim: invalid model parameters\n");
        return MYRI_EXIT_INPUT;
    }
    return 0;
}

static void nicsim__print(const nicsim__args *a, const myri_qsim_net *net, const myri_qsim_opts *o,
                          const myri_qsim_result *r, double wall_s)
{
    printf("# myri nicsim --model %s --lambda %s", a->model, a->lambda);
    if (net->nsources > 1) printf(" --rx-lambda %g", net->src[1].rate_per_us);
    printf(" --seed %llu --blocking %s --discipline %s\n", (unsigned long long)o->seed,
           a->blocking ? a->blocking : "hold", a->disc ? a->disc : "limited");
    printf("# %s, %s\n", o->arrivals ? "fixed run" : "precision rule on the HDMA queue length",
           o->plain_batch_means ? "plain batch means" : "batch means with control variates");
    printf("%-8s %20s %24s %16s\n", "node", "utilization", "queue length (waiting)", "blocked");
    for (unsigned i = 0; i < net->nstations; i++) {
        const myri_qsim_station_result *s = &r->st[i];
        printf("%-8s %10.4f +- %-7.4f %12.4f +- %-9.4f %8.4f%s\n", net->st[i].name, s->util.mean, s->util.hw,
               s->lq.mean, s->lq.hw, s->blocked.mean, net->st[i].bufferless ? "  (no waiting room)" : "");
    }
    const myri_qsim_station_spec *l = &net->st[MYRI_QSIM_LANAI];
    if (l->nqueues > 1) {
        printf("LANai queues:");
        for (unsigned q = 0; q < l->nqueues; q++)
            printf("  %s %.4f +- %.4f", l->queue_names[q], r->st[0].queue[q].mean, r->st[0].queue[q].hw);
        printf("\n");
    }
    printf("arrivals %llu (+ %llu warm-up), events %llu, %zu batches of %.4g us, lag-1 %.2f,\n"
           "HDMA queue: correlation with the controls %.3f, plain batch means %.4f +- %.4f\n"
           "event hash %016llx, %s, wall %.2f s\n",
           (unsigned long long)r->arrivals, (unsigned long long)r->warmup_arrivals,
           (unsigned long long)r->events, r->batches, r->batch_us, r->lag1, r->st[MYRI_QSIM_HDMA].lq_corr,
           r->st[MYRI_QSIM_HDMA].lq_plain.mean, r->st[MYRI_QSIM_HDMA].lq_plain.hw, (unsigned long long)r->hash,
           r->converged ? "converged" : "NOT converged", wall_s);
}

int myri_cmd_nicsim(int argc, char **argv)
{
    nicsim__args a = {0};
    const myri_cli_opt opts[] = {
        {"model", true, &a.model},         {"lambda", true, &a.lambda},
        {"rx-lambda", true, &a.rx},        {"arrivals", true, &a.arrivals},
        {"precision", true, &a.precision}, {"discipline", true, &a.disc},
        {"blocking", true, &a.blocking},   {"warmup", true, &a.warmup},
        {"max-arrivals", true, &a.maxarr}, {"plain", false, &a.plain},
    };
    myri_cli cli;
    int rc = myri_cli_parse("nicsim", argc, argv, &cli, opts, sizeof opts / sizeof opts[0]);
    if (rc) return rc;
    if (cli.help) {
        fputs(nicsim__usage, stdout);
        return MYRI_EXIT_OK;
    }
    if (cli.npositional || cli.nsets) {
        fprintf(stderr, "myri nicsim: takes no FILE and no --set (see 'myri nicsim --help')\n");
        return MYRI_EXIT_INPUT;
    }
    myri_qsim_net net;
    myri_qsim_opts o;
    if ((rc = nicsim__setup(&a, &cli, &net, &o))) return rc;
    char why[400];
    myri_status st = myri_qsim_check(&net, &o, why, sizeof why);
    if (st != MYRI_OK) {
        /* An unstable model is a failed run (1); a plan that cannot run is an input error (2). */
        fprintf(stderr, "myri nicsim: %s\n", why);
        return st == MYRI_EMODEL ? MYRI_EXIT_FAIL : MYRI_EXIT_INPUT;
    }
    myri_qsim_result r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = myri_qsim_run(&net, &o, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (st == MYRI_ERANGE && myri_qsim_result_check(&net, &r, why, sizeof why) != MYRI_OK) {
        fprintf(stderr, "myri nicsim: %s\n", why);
        return MYRI_EXIT_FAIL;
    }
    if (st != MYRI_OK) {
        fprintf(stderr, "myri nicsim: %s\n", myri_strerror(st));
        return MYRI_EXIT_FAIL;
    }
    if (cli.json) {
        myri_json *j = myri_json_create(stdout, true);
        if (!j) return MYRI_EXIT_FAIL;
        myri_json_obj_begin(j);
        myri_json_kstr(j, "model", a.model);
        myri_json_knum(j, "lambda", net.src[0].rate_per_us);
        if (net.nsources > 1) myri_json_knum(j, "rx_lambda", net.src[1].rate_per_us);
        myri_json_kuint(j, "seed", o.seed);
        myri_json_kstr(j, "blocking", net.st[0].blocking == MYRI_QSIM_HOLD ? "hold" : "skip");
        myri_json_kstr(j, "discipline", a.disc ? a.disc : "limited");
        myri_json_kstr(j, "estimator", o.plain_batch_means ? "batch means" : "batch means with control variates");
        myri_qsim_result_json(&net, &r, j);
        myri_json_obj_end(j);
        if (myri_json_finish(j) != MYRI_OK) return MYRI_EXIT_FAIL;
    } else {
        nicsim__print(&a, &net, &o, &r, wall);
    }
    if (!r.converged) {
        fprintf(stderr, "myri nicsim: precision %.3g not reached within %llu arrivals%s\n", o.precision,
                (unsigned long long)r.arrivals,
                r.time_limit ? " (stopped at the longest simulated time a run may span, 4.6e12 us)" : "");
        return MYRI_EXIT_FAIL;
    }
    return MYRI_EXIT_OK;
}
