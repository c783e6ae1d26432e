/* cmd_nicsim.c -- `myri nicsim`: one run of a seed-004 NIC simulation model.
 *
 * Exit codes: 0 done (precision reached, or the fixed run finished); 1 the
 * run failed (a station's offered utilisation >= 1, or the precision was not
 * reached within --max-arrivals); 2 bad input or usage.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/args.h"
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

static void nicsim__print(const myri_cmd_nicsim_args *a, const myri_qsim_net *net, const myri_qsim_opts *o,
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
    myri_cmd_nicsim_args a;
    int rc = myri_cmd_nicsim_parse(argc, argv, &a);
    if (rc) return rc;
    if (a.cli.help) {
        fputs(nicsim__usage, stdout);
        return MYRI_EXIT_OK;
    }
    const myri_qsim_net *net = &a.net;
    const myri_qsim_opts *o = &a.opts;
    char why[400];
    myri_status st = myri_qsim_check(net, o, why, sizeof why);
    if (st != MYRI_OK) {
        /* An unstable model is a failed run (1); a plan that cannot run is an input error (2). */
        fprintf(stderr, "myri nicsim: %s\n", why);
        return st == MYRI_EMODEL ? MYRI_EXIT_FAIL : MYRI_EXIT_INPUT;
    }
    myri_qsim_result r;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    st = myri_qsim_run(net, o, &r);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (st == MYRI_ERANGE && myri_qsim_result_check(net, &r, why, sizeof why) != MYRI_OK) {
        fprintf(stderr, "myri nicsim: %s\n", why);
        return MYRI_EXIT_FAIL;
    }
    if (st != MYRI_OK) {
        fprintf(stderr, "myri nicsim: %s\n", myri_strerror(st));
        return MYRI_EXIT_FAIL;
    }
    if (a.cli.json) {
        myri_json *j = myri_json_create(stdout, true);
        if (!j) return MYRI_EXIT_FAIL;
        myri_json_obj_begin(j);
        myri_json_kstr(j, "model", a.model);
        myri_json_knum(j, "lambda", net->src[0].rate_per_us);
        if (net->nsources > 1) myri_json_knum(j, "rx_lambda", net->src[1].rate_per_us);
        myri_json_kuint(j, "seed", o->seed);
        myri_json_kstr(j, "blocking", net->st[0].blocking == MYRI_QSIM_HOLD ? "hold" : "skip");
        myri_json_kstr(j, "discipline", a.disc ? a.disc : "limited");
        myri_json_kstr(j, "estimator", o->plain_batch_means ? "batch means" : "batch means with control variates");
        myri_qsim_result_json(net, &r, j);
        myri_json_obj_end(j);
        if (myri_json_finish(j) != MYRI_OK) return MYRI_EXIT_FAIL;
    } else {
        nicsim__print(&a, net, o, &r, wall);
    }
    if (!r.converged) {
        fprintf(stderr, "myri nicsim: precision %.3g not reached within %llu arrivals%s\n", o->precision,
                (unsigned long long)r.arrivals,
                r.time_limit ? " (stopped at the longest simulated time a run may span, 4.6e12 us)" : "");
        return MYRI_EXIT_FAIL;
    }
    return MYRI_EXIT_OK;
}
