/* test_qna.c -- the QNA solver (src/analysis/qna/qna.c) against exact queueing results
 * and against a slow reference implementation of seed 004 (1)-(15).
 *
 *  - M/M/1; a Jackson network (tandem plus feedback): QNA is exact there;
 *  - M/D/1 and a two-class M/G/1 node against Pollaczek-Khinchine, the latter
 *    also against the aggregation formulas (6)-(7) worked by hand;
 *  - m > 1 servers against Whitt's GI/G/m formula and M/M/m (Erlang C), and
 *    equation (12) as printed (QNA_WQ_PAPER);
 *  - utilisation >= 1 names the node; API misuse returns status codes;
 *  - fixed sweeps versus convergence;
 *  - a differential test on random multi-class networks with class switching
 *    against a reference solver written for clarity, not speed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/qna/qna.h"

#define CLOSE(a, b, tol) assert_true(fabs((a) - (b)) <= (tol) * (1 + fabs(b)))

/* One node "q", one class "c", Poisson arrivals at `rate` (SCV ca2). */
static myri_qna_net *single(double rate, double ca2, double mean, double cs2, int m)
{
    myri_qna_net *n = myri_qna_net_create();
    assert_non_null(n);
    assert_int_equal(myri_qna_net_add_node(n, "q", m, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "c", NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 0, 0, mean, cs2), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, rate, ca2), MYRI_OK);
    return n;
}

static void test_mm1(void **state)
{
    (void)state;
    myri_qna_net *n = single(0.5, 1, 1.0, 1, 1);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    const myri_qna_node_result *q = &r.node[0];
    CLOSE(q->rho, 0.5, 1e-12);
    CLOSE(q->lq, 0.5, 1e-12); /* rho^2 / (1 - rho) */
    CLOSE(q->l, 1.0, 1e-12);  /* rho / (1 - rho) */
    CLOSE(q->wq, 1.0, 1e-12);
    CLOSE(q->w, 2.0, 1e-12);
    CLOSE(q->cd2, 1.0, 1e-12);
    assert_string_equal(r.node[r.bottleneck].name, "q");
    myri_qna_net_destroy(n);
}

/* Jackson: a -> b -> c, from c back to a with probability 0.25, else exit.
 * Exact: lambda = lambda0 / 0.75 at every node, L = rho / (1 - rho). */
static void test_jackson(void **state)
{
    (void)state;
    myri_qna_net *n = myri_qna_net_create();
    const double mean[3] = {0.5, 1.0, 0.8}, lam0 = 0.6;
    const char *names[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) assert_int_equal(myri_qna_net_add_node(n, names[i], 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "job", NULL), MYRI_OK);
    for (size_t i = 0; i < 3; i++) assert_int_equal(myri_qna_net_service(n, i, 0, mean[i], 1), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, lam0, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 1.0), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 1, 0, 2, 0, 1.0), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 2, 0, 0, 0, 0.25), MYRI_OK);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    double lam = lam0 / 0.75;
    for (int i = 0; i < 3; i++) {
        double rho = lam * mean[i];
        CLOSE(r.node[i].lambda, lam, 1e-12);
        CLOSE(r.node[i].rho, rho, 1e-12);
        CLOSE(r.node[i].l, rho / (1 - rho), 1e-12);
        CLOSE(r.node[i].w, mean[i] / (1 - rho), 1e-12);
        CLOSE(r.node[i].ca2, 1.0, 1e-12);
    }
    assert_string_equal(r.node[r.bottleneck].name, "b"); /* rho = 0.8 */
    myri_qna_net_destroy(n);
}

/* M/D/1: Pollaczek-Khinchine Wq = rho E[S] / (2 (1 - rho)). */
static void test_md1(void **state)
{
    (void)state;
    for (double rho = 0.1; rho < 0.96; rho += 0.2) {
        double es = 3.0;
        myri_qna_net *n = single(rho / es, 1, es, 0, 1);
        myri_qna_result r;
        assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
        CLOSE(r.node[0].wq, rho * es / (2 * (1 - rho)), 1e-12);
        CLOSE(r.node[0].cd2, 1 - rho * rho, 1e-12); /* (10) with ca2 = 1, cs2 = 0 */
        myri_qna_net_destroy(n);
    }
}

/* Two classes at one node, worked by hand:
 *   A: lambda 0.2, mean 1, scv 0;  B: lambda 0.1, mean 3, scv 1 (both Poisson).
 *   (3) lambda = 0.3; (5) rho = 0.2 + 0.3 = 0.5; (6) mu = 0.3 / 0.5 = 0.6;
 *   (7) cs2 = -1 + (2/3)(0.6*1)^2 (0+1) + (1/3)(0.6*3)^2 (1+1) = -1 + 0.24 + 2.16 = 1.4;
 *   (12) Wq = (rho/lambda)... = (0.5 / 0.6) (1 / 0.5) (1 + 1.4) / 2 = 2.0.
 * M/G/1 exactly: E[S^2] = (2/3) 1 + (1/3) 2 * 9 = 20/3, Wq = lambda E[S^2] / (2 (1 - rho)) = 2. */
static void test_two_class(void **state)
{
    (void)state;
    myri_qna_net *n = myri_qna_net_create();
    assert_int_equal(myri_qna_net_add_node(n, "q", 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "A", NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "B", NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 0, 0, 1.0, 0), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 0, 1, 3.0, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, 0.2, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 1, 0.1, 1), MYRI_OK);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    const myri_qna_node_result *q = &r.node[0];
    CLOSE(q->lambda, 0.3, 1e-12);
    CLOSE(q->rho, 0.5, 1e-12);
    CLOSE(q->mu, 0.6, 1e-12);
    CLOSE(q->cs2, 1.4, 1e-12);
    CLOSE(q->ca2, 1.0, 1e-12);
    CLOSE(q->wq, 2.0, 1e-12);
    CLOSE(q->lq, 0.6, 1e-12);
    CLOSE(q->w, 2.0 + 1 / 0.6, 1e-12);
    CLOSE(r.lambda_nc[0][0], 0.2, 1e-12);
    CLOSE(r.lambda_nc[0][1], 0.1, 1e-12);
    myri_qna_net_destroy(n);
}

/* Erlang C from the textbook sum (independent of the solver's recursion). */
static double erlang_c(int m, double rho)
{
    double a = m * rho, term = 1, sum = 1;
    for (int k = 1; k < m; k++) {
        term *= a / k;
        sum += term;
    }
    double last = term * a / m / (1 - rho);
    return last / (sum + last);
}

/* m = 3 servers: Whitt's GI/G/m EW = (ca2 + cs2)/2 * C(m, rho) E[S] / (m (1 - rho)). */
static void test_multiserver(void **state)
{
    (void)state;
    const int m = 3;
    const double es = 1.2, lam = 2.0, rho = lam * es / m, ca2 = 0.5, cs2 = 0.3;
    myri_qna_net *n = single(lam, ca2, es, cs2, m);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    const myri_qna_node_result *q = &r.node[0];
    double wq = (ca2 + cs2) / 2 * erlang_c(m, rho) * es / (m * (1 - rho));
    CLOSE(q->rho, rho, 1e-12);
    CLOSE(q->mu, m / es, 1e-12);
    CLOSE(q->wq, wq, 1e-12);
    CLOSE(q->w, wq + es, 1e-12);
    CLOSE(q->l, lam * (wq + es), 1e-12);
    /* (10) with the sqrt(m) term of Whitt */
    CLOSE(q->cd2, 1 + rho * rho * (cs2 - 1) / sqrt(m) + (1 - rho * rho) * (ca2 - 1), 1e-12);

    /* (12) and (13) as printed: alpha = (rho^m + rho)/2 for rho > 0.7, mu_i aggregate. */
    myri_qna_options opt;
    myri_qna_options_default(&opt);
    opt.wq = QNA_WQ_PAPER;
    assert_int_equal(myri_qna_solve(n, &opt, &r, NULL), MYRI_OK);
    double alpha = (pow(rho, m) + rho) / 2, mu = m / es;
    CLOSE(r.node[0].wq, alpha / mu / (1 - rho) * (ca2 + cs2) / (2 * m), 1e-12);
    CLOSE(r.node[0].w, r.node[0].wq + 1 / mu, 1e-12);
    myri_qna_net_destroy(n);

    /* M/M/m exactly (ca2 = cs2 = 1), and rho < 0.7 branch of (12). */
    n = single(1.0, 1, 1.5, 1, 4);
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    CLOSE(r.node[0].wq, erlang_c(4, 0.375) * 1.5 / (4 * 0.625), 1e-12);
    assert_int_equal(myri_qna_solve(n, &opt, &r, NULL), MYRI_OK);
    CLOSE(r.node[0].wq, pow(0.375, 2.5) / (4 / 1.5) / 0.625 * 2 / 8, 1e-12);
    myri_qna_net_destroy(n);
}

static void test_unstable(void **state)
{
    (void)state;
    myri_qna_net *n = myri_qna_net_create();
    assert_int_equal(myri_qna_net_add_node(n, "front", 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_node(n, "slowdisk", 2, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "c", NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 0, 0, 1.0, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 1, 0, 5.0, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, 0.5, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 1.0), MYRI_OK);
    myri_qna_result r;
    myri_error err;
    assert_int_equal(myri_qna_solve(n, NULL, &r, &err), MYRI_EMODEL);
    assert_non_null(strstr(err.msg, "'slowdisk'"));
    assert_non_null(strstr(err.msg, "1.25")); /* 0.5 * 5 / 2 */
    CLOSE(r.node[1].rho, 1.25, 1e-12);       /* step 1 still reported */
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_EMODEL); /* err may be NULL */
    /* exactly 1 is an error too */
    assert_int_equal(myri_qna_net_service(n, 1, 0, 4.0, 1), MYRI_OK);
    assert_int_equal(myri_qna_solve(n, NULL, &r, &err), MYRI_EMODEL);
    assert_non_null(strstr(err.msg, "slowdisk"));
    myri_qna_net_destroy(n);
}

static void test_misuse(void **state)
{
    (void)state;
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(NULL, NULL, &r, NULL), MYRI_EINVAL);
    myri_qna_net *n = myri_qna_net_create();
    assert_int_equal(myri_qna_solve(n, NULL, NULL, NULL), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_add_node(NULL, "x", 1, NULL), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_add_node(n, NULL, 1, NULL), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_add_node(n, "", 1, NULL), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_add_node(n, "x", 0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_add_node(n, "x", 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_node(n, "x", 1, NULL), MYRI_EINVAL); /* duplicate */
    assert_int_equal(myri_qna_net_add_node(n, "y", 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "c", NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "c", NULL), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_service(n, 5, 0, 1, 1), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_service(n, 0, 1, 1, 1), MYRI_EINVAL);
    assert_int_equal(myri_qna_net_service(n, 0, 0, 0, 1), MYRI_ERANGE);
    assert_int_equal(myri_qna_net_service(n, 0, 0, 1, -1), MYRI_ERANGE);
    assert_int_equal(myri_qna_net_service(n, 0, 0, NAN, 1), MYRI_ERANGE);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, -1, 1), MYRI_ERANGE);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 1.5), MYRI_ERANGE);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 0.7), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, QNA_EXIT, 0, 0.4), MYRI_ERANGE); /* 1.1 */
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 0.5), MYRI_OK);          /* replaces */
    assert_int_equal(myri_qna_net_route(n, 0, 0, QNA_EXIT, 0, 0.5), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 7, 0, 0.1), MYRI_EINVAL);
    size_t idx;
    assert_int_equal(myri_qna_net_find_node(n, "y", &idx), MYRI_OK);
    assert_int_equal(idx, 1);
    assert_int_equal(myri_qna_net_find_node(n, "z", &idx), MYRI_ENOTFOUND);
    assert_null(myri_qna_net_node_name(n, 9));
    assert_null(myri_qna_net_class_name(NULL, 0));
    /* traffic reaching y without a service time there */
    assert_int_equal(myri_qna_net_service(n, 0, 0, 1, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, 0.1, 1), MYRI_OK);
    myri_error err;
    assert_int_equal(myri_qna_solve(n, NULL, &r, &err), MYRI_EINPUT);
    assert_non_null(strstr(err.msg, "'y'"));
    /* a cycle that never exits: singular traffic equations */
    assert_int_equal(myri_qna_net_service(n, 1, 0, 1, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 1, 0, 0, 0, 1.0), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 1.0), MYRI_ERANGE); /* 1.0 + exit 0.5 */
    assert_int_equal(myri_qna_net_route(n, 0, 0, QNA_EXIT, 0, 0.0), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 1.0), MYRI_OK);
    assert_int_equal(myri_qna_solve(n, NULL, &r, &err), MYRI_EMODEL);
    assert_non_null(strstr(err.msg, "never leaves"));
    myri_qna_options opt;
    myri_qna_options_default(&opt);
    opt.sweeps = -1;
    assert_int_equal(myri_qna_solve(n, &opt, &r, NULL), MYRI_EINVAL);
    myri_qna_net_destroy(n);
    myri_qna_net_destroy(NULL);
    assert_null(myri_qna_net_clone(NULL));
    n = myri_qna_net_create(); /* an empty network solves to nothing */
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    assert_int_equal(r.n_nodes, 0);
    myri_qna_net_destroy(n);
}

/* ---- reference solver: dense, Jacobi, fixed-point traffic equations ------------------ */

typedef struct ref_net {
    int N, R, m[8];
    double mean[8][4], scv[8][4], ext[8][4], ext_scv[8][4];
    double p[8][4][8][4]; /* p[i][r][j][s] */
} ref_net;

/* Seed 004 (1)-(15) written out directly.  Returns Lq per node in lq[]. */
static void ref_solve(const ref_net *n, double lam_out[8], double rho_out[8], double ca_out[8],
                      double lq[8])
{
    double lam[8][4] = {{0}};
    for (int it = 0; it < 500; it++) { /* (2) by fixed-point iteration */
        double nl[8][4];
        for (int j = 0; j < n->N; j++)
            for (int s = 0; s < n->R; s++) {
                nl[j][s] = n->ext[j][s];
                for (int i = 0; i < n->N; i++)
                    for (int r = 0; r < n->R; r++) nl[j][s] += lam[i][r] * n->p[i][r][j][s];
            }
        memcpy(lam, nl, sizeof lam);
    }
    double L[8], rho[8], mu[8], cs[8], cd[8], ca[8];
    for (int i = 0; i < n->N; i++) {
        L[i] = rho[i] = 0;
        for (int r = 0; r < n->R; r++) {
            L[i] += lam[i][r];
            rho[i] += lam[i][r] * n->mean[i][r] / n->m[i];
        }
        cd[i] = 1;
        ca[i] = 1;
        if (L[i] <= 0) continue;
        mu[i] = L[i] / rho[i];
        cs[i] = -1;
        for (int r = 0; r < n->R; r++) {
            double x = mu[i] * n->mean[i][r] / n->m[i];
            cs[i] += lam[i][r] / L[i] * x * x * (n->scv[i][r] + 1);
        }
    }
    for (int it = 0; it < 800; it++) { /* Jacobi: all nodes from the previous cd */
        double ncd[8];
        for (int j = 0; j < n->N; j++) {
            double acc = 0;
            ncd[j] = 1;
            if (L[j] <= 0) continue; /* no traffic: departure SCV unused */
            for (int s = 0; s < n->R; s++) {
                double x = n->ext_scv[j][s] * n->ext[j][s];
                for (int i = 0; i < n->N; i++)
                    for (int r = 0; r < n->R; r++) {
                        double pp = n->p[i][r][j][s];
                        if (lam[i][r] <= 0) continue;
                        x += (1 + pp * (cd[i] - 1)) * lam[i][r] * pp; /* (11) in (8) */
                    }
                acc += x; /* (9): sum_r lambda_{j,s} C^2_{A_{j,s}} */
            }
            ca[j] = acc / L[j];
            double r2 = rho[j] * rho[j];
            ncd[j] = 1 + r2 * (cs[j] - 1) / sqrt(n->m[j]) + (1 - r2) * (ca[j] - 1);
        }
        memcpy(cd, ncd, sizeof cd);
    }
    for (int i = 0; i < n->N; i++) {
        lam_out[i] = L[i];
        rho_out[i] = rho[i];
        ca_out[i] = ca[i];
        lq[i] = 0;
        if (L[i] <= 0) continue;
        double es = n->m[i] / mu[i], wmm = erlang_c(n->m[i], rho[i]) * es / (n->m[i] * (1 - rho[i]));
        lq[i] = L[i] * (ca[i] + cs[i]) / 2 * wmm;
    }
}

static double urand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Random networks: up to 6 nodes x 3 classes, class switching, feedback,
 * sums of routing probabilities <= 0.9, utilisations scaled below 0.9. */
static void random_net(uint64_t *seed, ref_net *rn, myri_qna_net **out)
{
    memset(rn, 0, sizeof *rn);
    rn->N = 1 + (int)(urand(seed) * 6);
    rn->R = 1 + (int)(urand(seed) * 3);
    myri_qna_net *n = myri_qna_net_create();
    char name[16];
    for (int i = 0; i < rn->N; i++) {
        rn->m[i] = urand(seed) < 0.3 ? 2 + (int)(urand(seed) * 3) : 1;
        snprintf(name, sizeof name, "n%d", i);
        assert_int_equal(myri_qna_net_add_node(n, name, rn->m[i], NULL), MYRI_OK);
    }
    for (int r = 0; r < rn->R; r++) {
        snprintf(name, sizeof name, "c%d", r);
        assert_int_equal(myri_qna_net_add_class(n, name, NULL), MYRI_OK);
    }
    for (int i = 0; i < rn->N; i++)
        for (int r = 0; r < rn->R; r++) {
            rn->mean[i][r] = 0.1 + urand(seed);
            rn->scv[i][r] = urand(seed) * 2;
            if (urand(seed) < 0.4) {
                rn->ext[i][r] = 0.05 + urand(seed) * 0.2;
                rn->ext_scv[i][r] = urand(seed) * 3;
            }
            double left = 0.9 * urand(seed);
            int k = (int)(urand(seed) * 3);
            for (int e = 0; e < k; e++) {
                int j = (int)(urand(seed) * rn->N), s = (int)(urand(seed) * rn->R);
                double p = left * urand(seed);
                rn->p[i][r][j][s] += p;
                left -= p;
            }
        }
    if (rn->ext[0][0] == 0) {
        rn->ext[0][0] = 0.1;
        rn->ext_scv[0][0] = 1;
    }
    /* scale service times so that the busiest node is at 0.3..0.9 */
    double lam0[8], rho0[8], ca0[8], lq0[8];
    for (int i = 0; i < rn->N; i++)
        for (int r = 0; r < rn->R; r++)
            if (rn->mean[i][r] == 0) rn->mean[i][r] = 1;
    ref_solve(rn, lam0, rho0, ca0, lq0);
    double mx = 0;
    for (int i = 0; i < rn->N; i++) mx = rho0[i] > mx ? rho0[i] : mx;
    double f = (0.3 + 0.6 * urand(seed)) / mx;
    for (int i = 0; i < rn->N; i++)
        for (int r = 0; r < rn->R; r++) {
            rn->mean[i][r] *= f;
            assert_int_equal(myri_qna_net_service(n, i, r, rn->mean[i][r], rn->scv[i][r]), MYRI_OK);
            assert_int_equal(myri_qna_net_arrival(n, i, r, rn->ext[i][r], rn->ext_scv[i][r]), MYRI_OK);
            for (int j = 0; j < rn->N; j++)
                for (int s = 0; s < rn->R; s++)
                    if (rn->p[i][r][j][s] > 0)
                        assert_int_equal(myri_qna_net_route(n, i, r, j, s, rn->p[i][r][j][s]),
                                         MYRI_OK);
        }
    *out = n;
}

static void test_reference_random(void **state)
{
    (void)state;
    uint64_t seed = 20240531;
    int checked = 0;
    for (int c = 0; c < 200; c++) {
        ref_net rn;
        myri_qna_net *n;
        random_net(&seed, &rn, &n);
        double lam[8], rho[8], ca[8], lq[8];
        ref_solve(&rn, lam, rho, ca, lq);
        myri_qna_result r;
        assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
        assert_true(r.converged);
        for (int i = 0; i < rn.N; i++) {
            if (lam[i] < 1e-12) continue;
            CLOSE(r.node[i].lambda, lam[i], 1e-9);
            CLOSE(r.node[i].rho, rho[i], 1e-9);
            CLOSE(r.node[i].ca2, ca[i], 1e-8);
            CLOSE(r.node[i].lq, lq[i], 1e-8);
            checked++;
        }
        myri_qna_net_destroy(n);
    }
    assert_true(checked > 300);
}

/* The checker can fail: a deliberate fault (one probability changed in the
 * reference network) must be detected. */
static void test_reference_detects_fault(void **state)
{
    (void)state;
    uint64_t seed = 7;
    ref_net rn;
    myri_qna_net *n;
    do {
        random_net(&seed, &rn, &n);
        if (rn.N >= 2) break;
        myri_qna_net_destroy(n);
    } while (1);
    rn.p[0][0][1][0] += 0.05; /* fault */
    double lam[8], rho[8], ca[8], lq[8];
    ref_solve(&rn, lam, rho, ca, lq);
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    double diff = 0;
    for (int i = 0; i < rn.N; i++) diff += fabs(r.node[i].lq - lq[i]) + fabs(r.node[i].rho - rho[i]);
    assert_true(diff > 1e-6);
    myri_qna_net_destroy(n);
}

/* Fixed sweeps: exactly N, from SCV 1; one sweep on a tandem of two M/D/1
 * nodes gives node 2 the departure SCV of node 1 computed from ca2 = 1. */
static void test_sweeps(void **state)
{
    (void)state;
    myri_qna_net *n = myri_qna_net_create();
    assert_int_equal(myri_qna_net_add_node(n, "a", 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_node(n, "b", 1, NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_add_class(n, "c", NULL), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 0, 0, 1.0, 0), MYRI_OK);
    assert_int_equal(myri_qna_net_service(n, 1, 0, 1.5, 0), MYRI_OK);
    assert_int_equal(myri_qna_net_arrival(n, 0, 0, 0.5, 1), MYRI_OK);
    assert_int_equal(myri_qna_net_route(n, 0, 0, 1, 0, 1.0), MYRI_OK);
    myri_qna_options opt;
    myri_qna_options_default(&opt);
    opt.sweeps = 1;
    myri_qna_result r;
    assert_int_equal(myri_qna_solve(n, &opt, &r, NULL), MYRI_OK);
    assert_int_equal(r.iterations, 1);
    assert_false(r.converged);
    CLOSE(r.node[1].ca2, 1 - 0.25, 1e-12); /* Gauss-Seidel: a's new cd2 reaches b */
    assert_int_equal(myri_qna_solve(n, NULL, &r, NULL), MYRI_OK);
    assert_true(r.converged);
    CLOSE(r.node[1].ca2, 0.75, 1e-12);
    /* the aggregate split differs from the per-class one only with several classes */
    opt.sweeps = 0;
    opt.split = QNA_SPLIT_AGGREGATE;
    assert_int_equal(myri_qna_solve(n, &opt, &r, NULL), MYRI_OK);
    CLOSE(r.node[1].ca2, 0.75, 1e-12);
    myri_qna_net_destroy(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm1),
        cmocka_unit_test(test_jackson),
        cmocka_unit_test(test_md1),
        cmocka_unit_test(test_two_class),
        cmocka_unit_test(test_multiserver),
        cmocka_unit_test(test_unstable),
        cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_sweeps),
        cmocka_unit_test(test_reference_random),
        cmocka_unit_test(test_reference_detects_fault),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
