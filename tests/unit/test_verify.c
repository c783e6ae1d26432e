/* test_verify.c -- model checking of the running firmware (docs/VERIFY.md):
 * the Promela is generated from the tables the simulator runs (every machine
 * becomes a proctype; an abstraction that misses an event or guard is an
 * error naming it), SPIN's verdicts are seed 000's finding (the LCP's host
 * DMA never moves data while the send DMA sends, Myricom's does; mutual
 * exclusion, no deadlock, no overflow, progress), and two deliberate faults
 * in a copy of the LCP's tables change the verdicts: the checker can fail.
 * The SPIN parts skip, saying why, when spin is not installed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "firmware/viafw.h"
#include "verify/verify_int.h"

static bool have_spin(void)
{
    char why[256];
    if (myri_verify_have_spin(why, sizeof why)) return true;
    print_message("skipped: %s\n", why);
    return false;
}

static const char *verdict(const myri_verify_result *r, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(r[i].prop->name, name)) return r[i].verdict;
    fail_msg("no property %s", name);
    return "";
}

/* Every machine of every firmware is a proctype of its model; bounds are checked. */
static void test_model_from_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < myri_verify_nfirmwares(); i++) {
        const char *fw = myri_verify_firmware(i);
        myri_verify_bounds b;
        myri_verify_bounds_default(&b);
        char *text = NULL, err[256] = "";
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        assert_int_equal(myri_verify_model(fw, &b, f, err, sizeof err), MYRI_OK);
        fclose(f);
        const myri_fw_def *d = myri_fw_find(fw);
        assert_non_null(d);
        for (uint8_t m = 0; m < d->nmachines; m++) {
            char want[80];
            snprintf(want, sizeof want, "active proctype m_%s()", d->machines[m].name);
            assert_non_null(strstr(text, want));
        }
        size_t np = 0;
        const myri_verify_prop *p = myri_verify_props(fw, &np);
        for (size_t k = 0; k < np; k++) {
            char want[80];
            snprintf(want, sizeof want, "ltl p_%s", p[k].name);
            for (char *c = want; *c; c++) *c = *c == '-' ? '_' : *c;
            assert_non_null(strstr(text, want));
        }
        free(text);
        b.sends = 9;
        f = fopen("/dev/null", "w");
        assert_int_equal(myri_verify_model(fw, &b, f, err, sizeof err), MYRI_ERANGE);
        fclose(f);
    }
    char err[256];
    FILE *f = fopen("/dev/null", "w");
    myri_verify_bounds b;
    myri_verify_bounds_default(&b);
    assert_int_equal(myri_verify_model("gm", &b, f, err, sizeof err), MYRI_ERANGE);
    fclose(f);
}

/* An abstraction without an atom the tables use is refused, naming it. */
static void test_missing_atom(void **state)
{
    (void)state;
    myri_vabs a = myri_vabs_lcp;
    a.nguards--; /* the last guard of the abstraction: rx_no_fit */
    myri_verify_bounds b;
    myri_verify_bounds_default(&b);
    char err[256] = "";
    FILE *f = fopen("/dev/null", "w");
    assert_int_equal(myri_vgen_write(&a, &b, f, err, sizeof err), MYRI_EINVAL);
    fclose(f);
    assert_non_null(strstr(err, "rx_no_fit"));
}

/* Seed 000's finding on the firmware that runs, and the invariants. */
static void test_verdicts(void **state)
{
    (void)state;
    if (!have_spin()) skip();
    static const struct {
        const char *fw, *engine_a, *engine_b;
    } want[] = {{"lcp", "1A-engine", "1B-engine"}, {"myricom", "2A-engine", "2B-engine"}, {"mcp", "2A-engine", "2B-engine"}};
    for (size_t i = 0; i < 3; i++) {
        myri_verify_bounds b;
        myri_verify_bounds_default(&b);
        myri_verify_result r[16];
        size_t n = 0;
        char err[512] = "";
        assert_int_equal(myri_verify_run(want[i].fw, &b, NULL, r, 16, &n, err, sizeof err), MYRI_OK);
        const char *overlap = i == 0 ? "unreachable" : "reachable";
        assert_string_equal(verdict(r, n, want[i].engine_a), overlap);
        assert_string_equal(verdict(r, n, want[i].engine_b), overlap);
        for (const char *const *p = (const char *const[]){"mutex", "deadlock", "overflow", "progress", NULL}; *p; p++)
            assert_string_equal(verdict(r, n, *p), "holds");
        for (size_t k = 0; k < n; k++) {
            assert_true(r[k].states > 0);
            assert_false(r[k].depth_limited);
            if (r[k].error) assert_true(strlen(r[k].trail) > 0); /* a counterexample in firmware steps */
        }
    }
}

/* ---- deliberate faults in a copy of the LCP's tables ------------------------------------------ */

static myri_fw_def fault_def;
static myri_fw_machine fault_machines[MYRI_LCP_NMACHINES];
static myri_fw_rule fault_rules[64];
static const myri_fw_def *fault_get(void) { return &fault_def; }

/* A copy of the lcp whose machine m has rule `name` changed by fix. */
static myri_vabs fault_lcp(uint8_t m, const char *name, void (*fix)(myri_fw_rule *))
{
    fault_def = myri_lcp_def;
    memcpy(fault_machines, myri_lcp_def.machines, sizeof fault_machines);
    const myri_fw_machine *mc = &myri_lcp_def.machines[m];
    assert_true(mc->nrules <= 64);
    memcpy(fault_rules, mc->rules, mc->nrules * sizeof *fault_rules);
    bool found = false;
    for (uint16_t r = 0; r < mc->nrules; r++)
        if (!strcmp(fault_rules[r].name, name)) fix(&fault_rules[r]), found = true;
    assert_true(found);
    fault_machines[m].rules = fault_rules;
    fault_def.machines = fault_machines;
    myri_vabs a = myri_vabs_lcp;
    a.def = fault_get;
    return a;
}

/* lcpTx starts the send DMA as soon as it asks for the data (before hostDma returns). */
static void fix_send_early(myri_fw_rule *r)
{
    r->to = MYRI_LCP_TX_SDMA;
    int k = 0;
    while (k < MYRI_FW_MAX_EFF && r->eff[k].op != MYRI_FW_NOP) k++;
    r->eff[k] = (myri_fw_effect){MYRI_FW_START_SDMA, 1, 0};
}

/* lcpTx "starts" the send DMA without writing SML: it waits for a SEND_INT that never comes. */
static void fix_no_send(myri_fw_rule *r)
{
    for (int k = 0; k < MYRI_FW_MAX_EFF; k++)
        if (r->eff[k].op == MYRI_FW_START_SDMA) r->eff[k] = (myri_fw_effect){MYRI_FW_NOP, 0, 0};
}

/* hostDma returns without clearing its call word: it is called again and again (a livelock). */
static void fix_no_return(myri_fw_rule *r)
{
    for (int k = 0; k < MYRI_FW_MAX_EFF; k++)
        if (r->eff[k].op == MYRI_FW_SET) r->eff[k] = (myri_fw_effect){MYRI_FW_NOP, 0, 0};
}

/* What a SPIN test needs: default bounds, room for the results, an error buffer. */
typedef struct spin_run {
    myri_verify_bounds b;
    myri_verify_result r[16];
    size_t n;
    char err[512];
} spin_run;
/* The arguments after the run's own: where the results and the error go. */
#define RUN(sr, ...) __VA_ARGS__, (sr)->r, 16, &(sr)->n, (sr)->err, sizeof (sr)->err
static spin_run *spin_run_new(void)
{
    spin_run *s = calloc(1, sizeof *s);
    assert_non_null(s);
    myri_verify_bounds_default(&s->b);
    return s;
}

static void test_faults_change_verdicts(void **state)
{
    (void)state;
    if (!have_spin()) skip();
    spin_run *sr = spin_run_new();
    myri_verify_result *r = sr->r;
    myri_vabs a = fault_lcp(MYRI_LCP_M_TX, "fetch_data", fix_send_early);
    assert_int_equal(myri_vrun_abs(RUN(sr, &a, &sr->b, "1A-engine")), MYRI_OK);
    assert_int_equal(sr->n, 1);
    assert_string_equal(r[0].verdict, "reachable");
    assert_non_null(strstr(r[0].trail, "lcpTx fetch_data: LcpTxDesc -> LcpTxSendDma"));

    a = fault_lcp(MYRI_LCP_M_TX, "start_send_dma", fix_no_send);
    assert_int_equal(myri_vrun_abs(RUN(sr, &a, &sr->b, NULL)), MYRI_OK);
    assert_string_equal(verdict(r, sr->n, "deadlock"), "violated");
    assert_string_equal(verdict(r, sr->n, "progress"), "violated");
    assert_string_equal(verdict(r, sr->n, "mutex"), "holds");

    a = fault_lcp(MYRI_LCP_M_HDMA, "done_return", fix_no_return);
    assert_int_equal(myri_vrun_abs(RUN(sr, &a, &sr->b, "deadlock")), MYRI_OK);
    assert_string_equal(r[0].verdict, "holds"); /* it moves ... */
    assert_int_equal(myri_vrun_abs(RUN(sr, &a, &sr->b, "progress")), MYRI_OK);
    assert_string_equal(r[0].verdict, "violated"); /* ... but gets nowhere */
    free(sr);
}

/* The paper's own Promela: its formulas as SPIN reads them (on every run) give the paper's False for 1-A;
 * as reachability questions every printed formula is reachable. */
static void test_paper_models(void **state)
{
    (void)state;
    if (!have_spin()) skip();
    spin_run *sr = spin_run_new();
    myri_verify_result *r = sr->r;
    assert_int_equal(myri_verify_paper(RUN(sr, "lcp", &sr->b, NULL)), MYRI_OK);
    assert_string_equal(verdict(r, sr->n, "1A"), "reachable");
    assert_string_equal(verdict(r, sr->n, "1A-all"), "violated");
    assert_string_equal(verdict(r, sr->n, "mutex"), "holds");
    assert_string_equal(verdict(r, sr->n, "deadlock"), "holds");
    assert_int_equal(myri_verify_paper(RUN(sr, "myricom", &sr->b, "2A")), MYRI_OK);
    assert_string_equal(r[0].verdict, "reachable");
    assert_int_equal(myri_verify_paper(RUN(sr, "mcp", &sr->b, NULL)), MYRI_ERANGE);
    free(sr);
}

/* Timed: with free descriptors, 3 sends of the LCP take 3 x (4 + 4) ticks, one after the other; Myricom's
 * overlap makes them take 4 + 3 x 4. */
static void test_timed(void **state)
{
    (void)state;
    if (!have_spin()) skip();
    myri_verify_bounds b;
    myri_verify_bounds_default(&b);
    b.sends = 3;
    b.small_ticks = 0;
    uint32_t t = 0;
    double s = 0;
    char err[512] = "";
    assert_int_equal(myri_verify_min_time("lcp", &b, &t, &s, err, sizeof err), MYRI_OK);
    assert_int_equal(t, 24);
    assert_int_equal(myri_verify_min_time("myricom", &b, &t, &s, err, sizeof err), MYRI_OK);
    assert_int_equal(t, 16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_from_tables), cmocka_unit_test(test_missing_atom),
        cmocka_unit_test(test_verdicts),          cmocka_unit_test(test_faults_change_verdicts),
        cmocka_unit_test(test_paper_models),      cmocka_unit_test(test_timed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
