/* test_sweep_ranks.c -- a sweep spread over ranks (src/app/sweep.c, docs/RANKS.md)
 * without MPI: R "ranks" run one after another in this process through a
 * gather hook that keeps their logs, rank 0 last; its report must be the
 * plain run's byte for byte (wall-clock lines aside), the other ranks print
 * nothing, and a failure in another rank's point is reported by rank 0 as the
 * plain run reports it.  The MPI test (tests/scenario/mpi_sweep.sh) cannot run
 * under ASan (Open MPI's own leaks); this one does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "app/registry.h"
#include "app/run_opts.h"
#include "app/sweep.h"

#define MAX_RANKS 4

static unsigned char *kept[MAX_RANKS]; /* the logs of ranks 1.. until rank 0 gathers */
static size_t kept_len[MAX_RANKS];

/* myri_run_ranks.gather for ranks run in turn, rank 0 last. */
static int fake_gather(const myri_run_ranks *self, const void *mine, size_t len, unsigned char **all, size_t *lens)
{
    *all = NULL;
    kept[self->rank] = malloc(len ? len : 1);
    if (len) memcpy(kept[self->rank], mine, len);
    kept_len[self->rank] = len;
    if (self->rank != 0) return 0;
    size_t total = 0;
    for (int r = 0; r < self->size; r++) total += kept_len[r];
    unsigned char *b = malloc(total ? total : 1);
    size_t at = 0;
    for (int r = 0; r < self->size; r++) {
        if (kept_len[r]) memcpy(b + at, kept[r], kept_len[r]);
        at += kept_len[r];
        lens[r] = kept_len[r];
        free(kept[r]);
        kept[r] = NULL;
    }
    *all = b;
    return 0;
}

/* Runs the scenario with `nranks` ranks (0: plain); returns rank 0's output (malloc'd) and its status. */
static char *run(const char *text, int nranks, int json, myri_status *st, myri_error *err)
{
    myri_node *root = NULL;
    memset(err, 0, sizeof *err);
    assert_int_equal(myri_doc_parse("t.yaml", text, strlen(text), &root, err), MYRI_OK);
    const myri_node *jn = myri_node_get(root, "job");
    const myri_job *job = myri_job_find(jn ? jn->scalar : "fabric");
    assert_non_null(job);
    char *buf = NULL;
    for (int k = (nranks ? nranks : 1) - 1; k >= 0; k--) {
        size_t len = 0;
        char *b = NULL;
        FILE *out = open_memstream(&b, &len);
        myri_run_ranks rk = {k, nranks, fake_gather, NULL, NULL, NULL};
        myri_run_opts o = {.json = json, .out = out, .ranks = nranks ? &rk : NULL};
        myri_error e;
        memset(&e, 0, sizeof e);
        myri_status s = job->run(root, "t.yaml", &o, &e);
        fclose(out);
        if (k != 0) {
            assert_int_equal(s, MYRI_OK); /* rank 0 reports every point's fate */
            assert_int_equal(len, 0);      /* and alone prints */
            free(b);
        } else {
            buf = b, *st = s, *err = e;
        }
    }
    myri_node_free(root);
    return buf;
}

static int has_wall(const char *s, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i++)
        if (!memcmp(s + i, "wall", 4)) return 1;
    return 0;
}

/* Equal line by line, but for the lines that carry a wall-clock time. */
static void same_report(const char *a, const char *b)
{
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        int wall = has_wall(a, la) && has_wall(b, lb);
        if (!wall && (la != lb || memcmp(a, b, la) != 0)) fail_msg("differ: '%.*s' vs '%.*s'", (int)la, a, (int)lb, b);
        a += la + (a[la] == '\n');
        b += lb + (b[lb] == '\n');
    }
}

static const char *fabric_sweep =
    "seed: 3\nwarmup: 10us\nduration: 50us\n"
    "topology: {generator: fat-tree, k: 2, n: 2}\n"
    "traffic: {pattern: uniform, size: 128B, arrivals: poisson}\n"
    "sweep: {key: traffic.load, values: [0.1, 0.4, 0.7, 0.9, 0.2]}\n";

static const char *system_sweep =
    "job: system\n"
    "topology: {generator: star, hosts_per_switch: 2}\n"
    "programs:\n"
    "  - {program: pingpong, hosts: [h0, h1], args: [\"sizes=4,256\", reps=3]}\n"
    "sweep: {key: bus.dma_rate, values: [40MB/s, 120MB/s], runs: 2}\n";

static void check_same(const char *text, int json)
{
    myri_status st;
    myri_error err;
    char *plain = run(text, 0, json, &st, &err);
    assert_int_equal(st, MYRI_OK);
    assert_non_null(strstr(plain, "hash"));
    for (int n = 1; n <= MAX_RANKS; n++) {
        char *got = run(text, n, json, &st, &err);
        assert_int_equal(st, MYRI_OK);
        same_report(plain, got);
        free(got);
    }
    free(plain);
}

static void test_fabric_sweep(void **state)
{
    (void)state;
    check_same(fabric_sweep, 1);
}

static void test_system_sweep(void **state)
{
    (void)state;
    check_same(system_sweep, 1);
    check_same(system_sweep, 0);
}

/* A bad value at point 2 of 3: with 3 and 4 ranks another rank meets it, rank 0 says it. */
static void test_failure_elsewhere(void **state)
{
    (void)state;
    const char *bad = "seed: 3\nwarmup: 10us\nduration: 20us\ntopology: {generator: back-to-back}\n"
                      "sweep: {key: traffic.load, values: [0.1, 0.2, lots]}\n";
    myri_status st0, st;
    myri_error e0, e;
    char *plain = run(bad, 0, 0, &st0, &e0);
    assert_int_equal(st0, MYRI_EINPUT);
    assert_int_equal(e0.line, 5);
    for (int n = 2; n <= MAX_RANKS; n++) {
        char *got = run(bad, n, 0, &st, &e);
        assert_int_equal(st, st0);
        assert_string_equal(e.msg, e0.msg);
        assert_int_equal(e.line, e0.line);
        assert_int_equal(e.col, e0.col);
        assert_string_equal(got, plain); /* the heading printed before the runs, and nothing else */
        free(got);
    }
    free(plain);
}

/* Point u runs on rank u mod R. */
static void test_assignment(void **state)
{
    (void)state;
    myri_run_ranks rk = {1, 3, fake_gather, NULL, NULL, NULL};
    myri_run_opts o = {.ranks = &rk};
    for (size_t u = 0; u < 9; u++) assert_int_equal(myri_sweep_mine(&o, u), u % 3 == 1);
    assert_false(myri_sweep_reports(&o));
    o.ranks = NULL;
    assert_true(myri_sweep_mine(&o, 5) && myri_sweep_reports(&o));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fabric_sweep),
        cmocka_unit_test(test_system_sweep),
        cmocka_unit_test(test_failure_elsewhere),
        cmocka_unit_test(test_assignment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
