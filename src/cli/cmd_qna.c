/* cmd_qna.c -- `myri qna`: solve a queueing network from a YAML file or the
 * built-in seed-004 NIC model, print the per-node table or one JSON object.
 *
 * Exit codes: 0 solved; 1 the model cannot be solved (a utilisation >= 1, or
 * step 2 not converging); 2 bad input or usage (FILE:LINE:COL messages).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "myri/json.h"
#include "analysis/qna/qna.h"

static const char qna__usage[] =
    "usage: myri qna FILE [--sweeps N] [--wq whitt|paper] [--split class|aggregate]\n"
    "                     [--set network.KEY=VALUE ...] [--json]\n"
    "       myri qna --model nic-seed004 --lambda RATE [--sweeps N] [--paper-conditions] [--json]\n"
    "\n"
    "Solves an open multi-class queueing network with Whitt's QNA as written in\n"
    "seed 004 (equations (1)-(15); class switching by routing between (node, class)\n"
    "pairs) and prints, per node: arrival rate, utilisation, aggregate service rate,\n"
    "arrival/service/departure SCVs, Wq, W, Lq, L, and the bottleneck.\n"
    "\n"
    "  FILE                a network in YAML (docs/QNA.md; e.g. scenarios/nic-seed004.yaml)\n"
    "  --model nic-seed004 the built-in NIC of seed 004 (Table 2, p = 0.5 (1 - lambda t))\n"
    "  --lambda RATE       doorbell arrival rate per microsecond (only with --model;\n"
    "                      with a FILE: --set network.arrivals.N.rate=RATE)\n"
    "  --paper-conditions  (with --model) Table 2 corrected and 5 sweeps, the conditions\n"
    "                      under which the paper's Tables 3 and 8 come out (docs/QNA.md)\n"
    "  --sweeps N          exactly N Gauss-Seidel sweeps of step 2 from SCV 1\n"
    "                      (default: iterate until the SCVs converge)\n"
    "  --wq whitt|paper    waiting time at m > 1 servers: Whitt's GI/G/m (default) or\n"
    "                      equation (12) as printed (identical for m = 1)\n"
    "  --split class|aggregate  splitting (11) with the per-class probability (default,\n"
    "                      as in seed 004) or Whitt's share of the node's departures\n"
    "  --set KEY=VALUE     override a value of FILE by its dotted path\n"
    "  --json              one JSON object: nodes, bottleneck, iterations\n"
    "       myri qna --search-seed004 [--json]\n"
    "  re-runs the search for the paper's unstated conditions: every Table 2 entry\n"
    "  as printed or with one misprint (digit changed, swapped, inserted, deleted,\n"
    "  decimal point moved) x 1..30 sweeps and convergence, ranked by the cells of\n"
    "  Tables 3 and 8 reproduced to the printed 4 decimals (of 36)\n"
    "Limits: 32 nodes, 16 classes, 1024 routes (docs/QNA.md).\n"
    "Exit: 0 solved, 1 not solvable (utilisation >= 1, no exit), 2 bad input.\n";

/* Builds the built-in model (the arguments are checked by myri_cmd_qna_parse);
 * returns 0, 1 or 2. */
static int qna__model(myri_cmd_qna_args *a, myri_qna_net **net)
{
    myri_qna_nic_params p;
    myri_qna_nic_params_default(&p);
    if (a->cond) {
        int sweeps;
        myri_qna_seed004_conditions(&p, &sweeps);
        if (!a->have_sweeps) a->opt.sweeps = sweeps;
    }
    myri_status st = myri_qna_nic_build(a->lambda, &p, net);
    if (st == MYRI_ERANGE) {
        fprintf(stderr,
                "myri qna: --lambda %s out of range; expected 0 < lambda < 1/t = %g per us "
                "(NSDMA service t = %g us)\n",
                a->lambda_text, 1 / p.nsdma_data_us, p.nsdma_data_us);
        return MYRI_EXIT_INPUT;
    }
    if (st != MYRI_OK) {
        fprintf(stderr, "myri qna: %s\n", myri_strerror(st));
        return MYRI_EXIT_FAIL;
    }
    return 0;
}

/* Reads FILE, applies --set, builds the network; returns 0 or 2. */
static int qna__file(const myri_cmd_qna_args *a, myri_qna_net **net)
{
    myri_node *root = NULL;
    myri_error err = {0};
    if (myri_doc_load(a->file, &root, &err) != MYRI_OK)
        return myri_cli_input_error(&err);
    int rc = myri_cli_apply_sets(&a->cli, root);
    if (rc == 0 && myri_qna_net_from_doc(root, net, &err) != MYRI_OK) rc = myri_cli_input_error(&err);
    myri_node_free(root);
    return rc;
}

static void qna__output(const myri_cmd_qna_args *a, const myri_qna_result *res)
{
    double lambda = a->lambda;
    if (a->cli.json) {
        myri_json *j = myri_json_create(stdout, true);
        if (!j) return;
        myri_json_obj_begin(j);
        if (a->model) {
            myri_json_kstr(j, "model", a->model);
            myri_json_knum(j, "lambda_per_us", lambda);
            myri_json_kbool(j, "paper_conditions", a->cond);
        } else {
            myri_json_kstr(j, "network", a->file);
        }
        myri_qna_result_json(res, j);
        myri_json_obj_end(j);
        myri_json_finish(j);
        return;
    }
    if (a->model)
        printf("model: %s, doorbell rate %g per us%s\n", a->model, lambda,
               a->cond ? " (paper conditions)" : "");
    else
        printf("network: %s\n", a->file);
    myri_qna_result_print(res, stdout);
}

/* --search-seed004: prints the best candidates of myri_qna_seed004_search. */
static int qna__search(const myri_cli *cli)
{
    enum { SHOW = 15, MAX_SWEEPS = 30 };
    myri_qna_seed004_candidate best[SHOW];
    size_t scored = 0;
    if (myri_qna_seed004_search(MAX_SWEEPS, best, SHOW, &scored) != MYRI_OK) {
        fprintf(stderr, "myri qna: the search failed\n");
        return MYRI_EXIT_FAIL;
    }
    if (cli->json) {
        myri_json *j = myri_json_create(stdout, true);
        if (!j) return MYRI_EXIT_FAIL;
        myri_json_obj_begin(j);
        myri_json_kuint(j, "scored", scored);
        myri_json_kint(j, "cells", 36);
        myri_json_key(j, "best");
        myri_json_arr_begin(j);
        for (int k = 0; k < SHOW; k++) {
            myri_json_obj_begin(j);
            myri_json_kstr(j, "entry", myri_qna_seed004_entry_name(best[k].entry));
            myri_json_kstr(j, "printed", myri_qna_seed004_entry_printed(best[k].entry));
            myri_json_kstr(j, "tried", best[k].text);
            myri_json_kint(j, "sweeps", best[k].sweeps);
            myri_json_kint(j, "cells", best[k].cells);
            myri_json_obj_end(j);
        }
        myri_json_arr_end(j);
        myri_json_obj_end(j);
        return myri_json_finish(j) == MYRI_OK ? MYRI_EXIT_OK : MYRI_EXIT_FAIL;
    }
    printf("%zu candidates scored against the 36 printed cells of seed 004 Tables 3 and 8\n",
           scored);
    printf("%-4s %-26s %-9s %-10s %-10s %s\n", "rank", "Table 2 entry", "printed", "tried",
           "sweeps", "cells");
    for (int k = 0; k < SHOW; k++) {
        char sw[16];
        if (best[k].sweeps)
            snprintf(sw, sizeof sw, "%d", best[k].sweeps);
        else
            snprintf(sw, sizeof sw, "converged");
        printf("%-4d %-26s %-9s %-10s %-10s %d\n", k + 1, myri_qna_seed004_entry_name(best[k].entry),
               myri_qna_seed004_entry_printed(best[k].entry), best[k].entry < 0 ? "-" : best[k].text,
               sw, best[k].cells);
    }
    return MYRI_EXIT_OK;
}

int myri_cmd_qna(int argc, char **argv)
{
    myri_cmd_qna_args a;
    int rc = myri_cmd_qna_parse(argc, argv, &a);
    if (rc) return rc;
    if (a.cli.help) {
        fputs(qna__usage, stdout);
        return MYRI_EXIT_OK;
    }
    if (a.search) return qna__search(&a.cli);
    myri_qna_net *net = NULL;
    rc = a.model ? qna__model(&a, &net) : qna__file(&a, &net);
    if (rc) return rc;
    myri_qna_result res;
    myri_error err = {0};
    myri_status st = myri_qna_solve(net, &a.opt, &res, &err);
    myri_qna_net_destroy(net);
    if (st == MYRI_EINPUT) {
        fprintf(stderr, "myri qna: %s: %s\n", a.model ? a.model : a.file, err.msg);
        return MYRI_EXIT_INPUT;
    }
    if (st != MYRI_OK) {
        if (st == MYRI_EMODEL)
            fprintf(stderr, "myri %s\n", err.msg); /* err.msg starts "qna: " */
        else
            fprintf(stderr, "myri qna: %s\n", myri_strerror(st));
        return MYRI_EXIT_FAIL;
    }
    qna__output(&a, &res);
    return MYRI_EXIT_OK;
}
