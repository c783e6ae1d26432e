/* test_cut_ranks.c -- one fabric run cut across ranks (src/app/part.c's
 * ranked window loop, fabric_job.c's records gathered to rank 0,
 * docs/PARTITION.md step 10) without MPI: R processes forked from this one
 * talk through a shared mapping and a process-shared barrier, a hook with
 * the meaning of the MPI collectives (myri_run_ranks).  Rank 0's report must
 * be the one-process `--partitions R` report (wall clock aside), the other
 * ranks print nothing; a message delivered 1 ps early stops every rank, and
 * rank 0 names the partition that refused it.  tests/scenario/mpi_partition.sh
 * runs it with Open MPI, which cannot run under ASan; this test does. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "app/registry.h"
#include "app/run_opts.h"

#define MAX_RANKS 4
#define SLOT_BYTES (8u << 20) /* what one rank publishes in one collective: far above a record here */

typedef struct shared {
    pthread_barrier_t bar;
    size_t len[MAX_RANKS];
    size_t count[MAX_RANKS][MAX_RANKS]; /* alltoallv: bytes from rank r for rank q */
    unsigned char slot[MAX_RANKS][SLOT_BYTES];
} shared;

static shared *sh;

static void sync_all(void) { pthread_barrier_wait(&sh->bar); }

static int fake_alltoall(const myri_run_ranks *self, const uint64_t *send, uint64_t *recv, int k)
{
    int n = self->size, me = self->rank;
    memcpy(sh->slot[me], send, (size_t)n * (size_t)k * sizeof *send);
    sync_all();
    for (int r = 0; r < n; r++)
        memcpy(recv + (size_t)r * (size_t)k, (uint64_t *)sh->slot[r] + (size_t)me * (size_t)k,
               (size_t)k * sizeof *recv);
    sync_all();
    return 0;
}

static int fake_alltoallv(const myri_run_ranks *self, const void *send, const size_t *scount, void *recv,
                          const size_t *rcount)
{
    int n = self->size, me = self->rank;
    size_t tot = 0;
    for (int q = 0; q < n; q++) tot += sh->count[me][q] = scount[q];
    if (tot > SLOT_BYTES) return -1;
    if (tot) memcpy(sh->slot[me], send, tot);
    sync_all();
    size_t at = 0;
    for (int r = 0; r < n; r++) {
        size_t off = 0;
        for (int q = 0; q < me; q++) off += sh->count[r][q];
        if (sh->count[r][me] != rcount[r]) return -1;
        if (rcount[r]) memcpy((unsigned char *)recv + at, sh->slot[r] + off, rcount[r]);
        at += rcount[r];
    }
    sync_all();
    return 0;
}

static int fake_bcast(const myri_run_ranks *self, void *buf, size_t len, int root)
{
    if (self->rank == root) memcpy(sh->slot[root], buf, len);
    sync_all();
    if (self->rank != root) memcpy(buf, sh->slot[root], len);
    sync_all();
    return 0;
}

static int fake_gather(const myri_run_ranks *self, const void *mine, size_t len, unsigned char **all, size_t *lens)
{
    *all = NULL;
    sh->len[self->rank] = len;
    if (len) memcpy(sh->slot[self->rank], mine, len);
    sync_all();
    if (self->rank == 0) {
        size_t tot = 0;
        for (int r = 0; r < self->size; r++) tot += sh->len[r];
        *all = malloc(tot ? tot : 1);
        size_t at = 0;
        for (int r = 0; r < self->size; r++) {
            memcpy(*all + at, sh->slot[r], sh->len[r]);
            at += sh->len[r];
            if (lens) lens[r] = sh->len[r];
        }
    }
    sync_all();
    return 0;
}

static const char scen[] = "job: fabric\nseed: 3\nwarmup: 5us\nduration: 30us\n"
                           "topology: {generator: fat-tree, k: 4, n: 3}\n"
                           "traffic: {pattern: uniform, size: 64B, load: 0.3}\n";

/* Runs the scenario as rank `rank` of `nranks` (0: in one process, cut into `parts`); its output. */
static char *run_as(int rank, int nranks, uint32_t parts, const char *mode, uint64_t fault_ps, myri_status *st,
                    myri_error *err)
{
    myri_node *root = NULL;
    memset(err, 0, sizeof *err);
    if (myri_doc_parse("t.yaml", scen, strlen(scen), &root, err)) return NULL;
    const myri_job *job = myri_job_find("fabric");
    size_t len = 0;
    char *b = NULL;
    FILE *out = open_memstream(&b, &len);
    myri_run_ranks rk = {rank, nranks, fake_gather, fake_alltoall, fake_alltoallv, fake_bcast};
    myri_run_opts o = {.out = out, .ranks = nranks ? &rk : NULL, .partitions = parts, .partition = mode,
                       .part_test_fault_ps = fault_ps};
    *st = job->run(root, "t.yaml", &o, err);
    fclose(out);
    myri_node_free(root);
    return b;
}

/* The report without its wall-clock line ("run ... wall X s"). */
static void drop_wall(char *s)
{
    char *p = strstr(s, "\nrun ");
    if (!p) return;
    char *e = strchr(p + 1, '\n');
    if (e) memmove(p, e, strlen(e) + 1);
}

/* nranks processes: rank 0 (this one) returns its output; the others must
 * print nothing and end with rank 0's status (their exit code: 0 if so). */
static char *run_ranks(int nranks, const char *mode, uint64_t fault_ps, myri_status *st, myri_error *err)
{
    pid_t kid[MAX_RANKS];
    pthread_barrierattr_t a;
    pthread_barrierattr_init(&a);
    pthread_barrierattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    assert_int_equal(pthread_barrier_init(&sh->bar, &a, (unsigned)nranks), 0);
    pthread_barrierattr_destroy(&a);
    fflush(NULL);
    for (int r = 1; r < nranks; r++) {
        kid[r] = fork();
        assert_true(kid[r] >= 0);
        if (kid[r] == 0) {
            myri_status s;
            myri_error e;
            char *o = run_as(r, nranks, 0, mode, fault_ps, &s, &e);
            int bad = !o || o[0] != '\0' || (fault_ps ? s == MYRI_OK : s != MYRI_OK);
            free(o);
            exit(bad);
        }
    }
    char *o = run_as(0, nranks, 0, mode, fault_ps, st, err);
    for (int r = 1; r < nranks; r++) {
        int ws = 0;
        assert_int_equal(waitpid(kid[r], &ws, 0), kid[r]);
        assert_true(WIFEXITED(ws));
        assert_int_equal(WEXITSTATUS(ws), 0);
    }
    pthread_barrier_destroy(&sh->bar);
    return o;
}

/* R ranks print the one-process --partitions R report (wall clock aside), leaf and random cuts. */
static void test_cut_ranks_report(void **state)
{
    (void)state;
    static const struct { int n; const char *mode; } cases[] = {{2, NULL}, {3, NULL}, {4, "random:5"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        myri_status st;
        myri_error err;
        char *one = run_as(0, 0, (uint32_t)cases[i].n, cases[i].mode, 0, &st, &err);
        assert_int_equal(st, MYRI_OK);
        char *got = run_ranks(cases[i].n, cases[i].mode, 0, &st, &err);
        if (st) print_message("%d ranks: %s\n", cases[i].n, err.msg);
        assert_int_equal(st, MYRI_OK);
        assert_non_null(strstr(got, "result_hash"));
        drop_wall(one);
        drop_wall(got);
        assert_string_equal(one, got);
        free(one);
        free(got);
    }
}

/* A message 1 ps early is refused by its partition: every rank stops, rank 0 says which. */
static void test_cut_ranks_fault(void **state)
{
    (void)state;
    myri_status st;
    myri_error err;
    char *got = run_ranks(2, NULL, 1, &st, &err);
    assert_int_not_equal(st, MYRI_OK);
    assert_true(strstr(err.msg, "partition 0 refused a message") || strstr(err.msg, "partition 1 refused a message"));
    assert_string_equal(got, "");
    free(got);
}

int main(void)
{
    sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (sh == MAP_FAILED) return 1;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_cut_ranks_report), cmocka_unit_test(test_cut_ranks_fault)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    munmap(sh, sizeof *sh);
    return rc;
}
