/* test_qna_nic.c -- the seed-004 NIC model, its YAML twin, the network file
 * reader, and the reproduction of the paper's Tables 3 and 8.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/qna/qna.h"

/* Is x, printed like the paper's `printed` (same number of decimals), equal
 * to it?  The paper prints 4 decimals (3 for one Table 6 column, unused). */
static bool same_printed(double x, double printed)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%.4f", x);
    snprintf(b, sizeof b, "%.4f", printed);
    return strcmp(a, b) == 0;
}

/* scenarios/nic-seed004.yaml and --model nic-seed004 --lambda 0.00273 agree
 * exactly (the file carries the LANai data mean 10 * 0.5 (1 - lambda t)). */
static void test_file_equals_builtin(void **state)
{
    (void)state;
    myri_node *root = NULL;
    myri_error err;
    assert_int_equal(myri_doc_load(MYRI_SOURCE_DIR "/scenarios/nic-seed004.yaml", &root, &err),
                     MYRI_OK);
    myri_qna_net *file = NULL, *built = NULL;
    assert_int_equal(myri_qna_net_from_doc(root, &file, &err), MYRI_OK);
    assert_int_equal(myri_qna_nic_build(0.00273, NULL, &built), MYRI_OK);
    for (int sweeps = 0; sweeps <= 5; sweeps++) {
        myri_qna_options opt;
        myri_qna_options_default(&opt);
        opt.sweeps = sweeps;
        myri_qna_result a, b;
        assert_int_equal(myri_qna_solve(file, &opt, &a, NULL), MYRI_OK);
        assert_int_equal(myri_qna_solve(built, &opt, &b, NULL), MYRI_OK);
        assert_int_equal(a.n_nodes, 3);
        assert_int_equal(a.iterations, b.iterations);
        for (int i = 0; i < 3; i++) {
            assert_string_equal(a.node[i].name, b.node[i].name);
            assert_true(a.node[i].rho == b.node[i].rho);
            assert_true(a.node[i].lq == b.node[i].lq);
            assert_true(a.node[i].l == b.node[i].l);
            assert_true(a.node[i].cd2 == b.node[i].cd2);
        }
    }
    myri_qna_net_destroy(file);
    myri_qna_net_destroy(built);
    myri_node_free(root);
}

/* Utilisations follow from Table 2 alone (no step 2): rho_HDMA = lambda (21 +
 * 68.3154), rho_NSDMA = lambda 52.6887, rho_LANai = lambda (22 + 0.12 + 10 p). */
static void test_nic_utilisations(void **state)
{
    (void)state;
    const double lam = 0.00786, t = 52.6887, p = 0.5 * (1 - lam * t);
    myri_qna_net *n;
    assert_int_equal(myri_qna_nic_build(lam, NULL, &n), MYRI_OK);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    assert_true(fabs(r.node[QNA_NIC_HDMA].rho - lam * (21 + 68.3154)) < 1e-12);
    assert_true(fabs(r.node[QNA_NIC_NSDMA].rho - lam * t) < 1e-12);
    assert_true(fabs(r.node[QNA_NIC_LANAI].rho - lam * (22 + 0.12 + 10 * p)) < 1e-12);
    assert_string_equal(r.node[r.bottleneck].name, "hdma");
    assert_true(fabs(r.node[QNA_NIC_LANAI].lambda - 3 * lam) < 1e-15);
    myri_qna_net_destroy(n);
    /* saturation: HDMA reaches 1 at lambda = 1/89.3154 */
    assert_int_equal(myri_qna_nic_build(0.0112, NULL, &n), MYRI_OK);
    myri_error err;
    assert_int_equal(myri_qna_solve(n, NULL, &r, &err), MYRI_EMODEL);
    assert_non_null(strstr(err.msg, "hdma"));
    myri_qna_net_destroy(n);
    assert_int_equal(myri_qna_nic_build(0, NULL, &n), MYRI_ERANGE);
    assert_int_equal(myri_qna_nic_build(0.02, NULL, &n), MYRI_ERANGE); /* lambda t > 1 */
    assert_int_equal(myri_qna_nic_build(0.001, NULL, NULL), MYRI_EINVAL);
}

/* The cells of Tables 3 and 8 that do not come out under the paper's
 * conditions (docs/QNA.md explains each).  row = arrival-rate index,
 * col = 0 LANai, 1 HDMA, 2 NSDMA. */
static bool known_miss(int table, int row, int col)
{
    return (table == 3 && row == 0 && col == 1)   /* 0.0480: ours 0.04791 */
           || (table == 3 && row == 0 && col == 2) /* 0.0133: ours 0.0113, digit typo */
           || (table == 3 && row == 4 && col == 2) /* 0.2250: ours 0.22507 */
           || (table == 8 && row == 1 && col == 2);/* 0.2597: ours 0.25976 = 0.00493 * 52.6887 */
}

static void test_tables_3_and_8(void **state)
{
    (void)state;
    myri_qna_seed004_row rows[QNA_SEED004_ROWS];
    myri_error err;
    assert_int_equal(myri_qna_seed004_tables(rows, &err), MYRI_OK);
    int hit = 0, conv_hit = 0;
    for (int k = 0; k < QNA_SEED004_ROWS; k++)
        for (int c = 0; c < 3; c++) {
            const myri_qna_seed004_row *r = &rows[k];
            bool m3 = same_printed(r->cond_lq[c], r->paper_lq[c]);
            bool m8 = same_printed(r->cond_rho[c], r->paper_rho[c]);
            if (m3 == known_miss(3, k, c) || m8 == known_miss(8, k, c))
                print_error("row %d col %d: T3 %.5f vs %.4f, T8 %.5f vs %.4f\n", k, c,
                            r->cond_lq[c], r->paper_lq[c], r->cond_rho[c], r->paper_rho[c]);
            assert_true(m3 != known_miss(3, k, c));
            assert_true(m8 != known_miss(8, k, c));
            hit += m3 + m8;
            conv_hit += same_printed(r->conv_lq[c], r->paper_lq[c]) +
                        same_printed(r->conv_rho[c], r->paper_rho[c]);
        }
    assert_int_equal(hit, 32);
    /* the converged QNA with Table 2 as printed does worse: that is why
     * the conditions are worth documenting */
    assert_true(conv_hit < 26);
    /* the HDMA queue at the two highest rates is the sharpest evidence */
    assert_true(fabs(rows[4].cond_lq[1] - 11.2929) < 0.00005);
    assert_true(fabs(rows[5].cond_lq[1] - 24.1981) < 0.00005);
}

/* The two NSDMA cells missed above come out if t were 52.687 instead of
 * 52.6887 (a second, smaller discrepancy; docs/QNA.md). */
static void test_nsdma_second_discrepancy(void **state)
{
    (void)state;
    myri_qna_nic_params p;
    int sweeps;
    myri_qna_seed004_conditions(&p, &sweeps);
    p.nsdma_data_us = 52.687;
    myri_qna_options opt;
    myri_qna_options_default(&opt);
    opt.sweeps = sweeps;
    const double lam[2] = {0.00493, 0.01079};
    myri_qna_result r[2];
    for (int k = 0; k < 2; k++) {
        myri_qna_net *n;
        assert_int_equal(myri_qna_nic_build(lam[k], &p, &n), MYRI_OK);
        assert_int_equal(myri_qna_solve(n, &opt, &r[k], NULL), MYRI_OK);
        myri_qna_net_destroy(n);
    }
    assert_true(same_printed(r[0].node[2].rho, 0.2597));
    assert_true(same_printed(r[1].node[2].lq, 0.2250));
}

/* The search (restricted to 1..8 sweeps to stay quick under the sanitizers)
 * finds one best candidate: HDMA descriptor 68.3184 with 5 sweeps, 32 cells,
 * ahead of every other candidate; Table 2 as printed does at best 27. */
static void test_search(void **state)
{
    (void)state;
    myri_qna_seed004_candidate best[3];
    size_t scored = 0;
    assert_int_equal(myri_qna_seed004_search(8, best, 3, &scored), MYRI_OK);
    assert_true(scored > 3000);
    assert_int_equal(best[0].entry, 4);
    assert_string_equal(myri_qna_seed004_entry_name(best[0].entry), "HDMA descriptor");
    assert_string_equal(best[0].text, "68.3184");
    assert_int_equal(best[0].sweeps, 5);
    assert_int_equal(best[0].cells, 32);
    assert_true(best[1].cells <= 30);
    myri_qna_nic_params p;
    int sweeps;
    myri_qna_seed004_conditions(&p, &sweeps);
    assert_true(p.hdma_descriptor_us == best[0].value_us);
    assert_int_equal(sweeps, best[0].sweeps);
    assert_int_equal(myri_qna_seed004_search(0, best, 3, &scored), MYRI_EINVAL);
    assert_int_equal(myri_qna_seed004_search(5, NULL, 3, &scored), MYRI_EINVAL);
}

/* ---- network files -------------------------------------------------------------------- */

static myri_status load_text(const char *text, myri_qna_net **net, myri_error *err)
{
    myri_node *root = NULL;
    myri_status st = myri_doc_parse("t.yaml", text, strlen(text), &root, err);
    if (st == MYRI_OK) st = myri_qna_net_from_doc(root, net, err);
    myri_node_free(root);
    return st;
}

static const char good[] = "network:\n"
                           "  nodes: [{name: a, servers: 2}, {name: b}]\n"
                           "  classes: [x, y]\n"
                           "  service:\n"
                           "    - {node: a, class: x, mean: 1.0, scv: 0.5}\n"
                           "    - {node: b, class: y, mean: 2.0}\n"
                           "  arrivals: [{node: a, class: x, rate: 0.3, scv: 2}]\n"
                           "  routing:\n"
                           "    - {from: [a, x], to: [b, y], p: 0.6}\n"
                           "    - {from: [a, x], to: exit, p: 0.4}\n";

static void test_file_good(void **state)
{
    (void)state;
    myri_qna_net *n = NULL;
    myri_error err;
    assert_int_equal(load_text(good, &n, &err), MYRI_OK);
    assert_int_equal(myri_qna_net_nodes(n), 2);
    assert_int_equal(myri_qna_net_classes(n), 2);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    assert_int_equal(r.node[0].servers, 2);
    assert_true(fabs(r.node[1].lambda - 0.18) < 1e-15);
    assert_true(fabs(r.node[1].cs2 - 1.0) < 1e-15); /* scv defaults to 1 */
    /* (11) per class: b sees 1 + 0.6 (cd2_a - 1) */
    assert_true(fabs(r.node[1].ca2 - (1 + 0.6 * (r.node[0].cd2 - 1))) < 1e-12);
    myri_qna_net_destroy(n);
}

/* Every class of bad file: the error names t.yaml:LINE:COL of the culprit. */
static void test_file_bad(void **state)
{
    (void)state;
    static const struct {
        const char *from, *to, *pos;
    } bad[] = {
        {"name: b}]", "name: a}]", "t.yaml:2:"},             /* duplicate node */
        {"servers: 2", "servers: 0", "t.yaml:2:"},           /* servers < 1 */
        {"servers: 2", "servers: two", "t.yaml:2:"},         /* not a number */
        {"classes: [x, y]", "classes: [x, x]", "t.yaml:3:"}, /* duplicate class */
        {"mean: 1.0", "mean: -1.0", "t.yaml:5:"},            /* negative */
        {"mean: 1.0", "mean: 0", "t.yaml:5:"},               /* zero mean */
        {"scv: 0.5", "scv: -0.5", "t.yaml:5:"},              /* negative scv */
        {"node: a, class: x, mean", "node: q, class: x, mean", "t.yaml:5:14"}, /* unknown node */
        {"node: b, class: y", "node: b, class: z", "t.yaml:6:"},              /* unknown class */
        {"rate: 0.3", "rate: -0.3", "t.yaml:7:"},            /* negative rate */
        {"to: [b, y], p: 0.6", "to: [b, y], p: 0.7", "t.yaml:10:"}, /* sum 1.1 */
        {"p: 0.6", "p: 1.5", "t.yaml:9:"},                   /* p > 1 */
        {"to: [b, y]", "to: [b, w]", "t.yaml:9:"},           /* unknown class in route */
        {"from: [a, x], to: [b", "from: [c, x], to: [b", "t.yaml:9:"}, /* unknown node */
        {"to: [b, y]", "to: b", "t.yaml:9:"},                /* bad end */
        {"mean: 2.0}", "mean: 2.0, colour: red}", "t.yaml:6:"}, /* unknown key */
        {"  classes", "  klasses", "t.yaml:3:3"},            /* unknown network key */
        {"{node: a, class: x, mean: 1.0, scv: 0.5}", "{node: a, class: x, mean: 1.0, scv: 0.5}\n"
                                                     "    - {node: a, class: x, mean: 3.0}",
         "t.yaml:6:"},                                       /* second service entry */
        {"network:", "netwerk:", "t.yaml:1:1"},              /* unknown top key */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[2048];
        const char *at = strstr(good, bad[k].from);
        assert_non_null(at);
        snprintf(text, sizeof text, "%.*s%s%s", (int)(at - good), good, bad[k].to,
                 at + strlen(bad[k].from));
        myri_qna_net *n = (myri_qna_net *)1;
        myri_error err = {.msg = ""};
        myri_status st = load_text(text, &n, &err);
        if (st != MYRI_EINPUT || !strstr(err.msg, bad[k].pos))
            print_error("case %zu: status %d, message '%s'\n", k, st, err.msg);
        assert_int_equal(st, MYRI_EINPUT);
        assert_null(n);
        assert_non_null(strstr(err.msg, bad[k].pos));
    }
    myri_qna_net *n;
    myri_error err;
    assert_int_equal(load_text("network: 3\n", &n, &err), MYRI_EINPUT);
    assert_int_equal(load_text("network: {nodes: []}\n", &n, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "classes"));
    assert_int_equal(myri_qna_net_from_doc(NULL, NULL, &err), MYRI_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_equals_builtin),
        cmocka_unit_test(test_nic_utilisations),
        cmocka_unit_test(test_tables_3_and_8),
        cmocka_unit_test(test_nsdma_second_discrepancy),
        cmocka_unit_test(test_search),
        cmocka_unit_test(test_file_good),
        cmocka_unit_test(test_file_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
