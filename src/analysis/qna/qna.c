/* qna.c -- the QNA solver of seed 004 section 2.2 (equations (1)-(15)).
 *
 * Tuned for small networks (the seed-004 NIC has 3 nodes and 3 classes; the
 * limits are QNA_MAX_NODES x QNA_MAX_CLASSES): everything lives in fixed
 * arrays inside myri_qna_net and myri_qna_result, and a solve allocates nothing but a
 * scratch matrix for the traffic equations.
 *
 * Equation numbers in comments are those of seed 004; "Whitt" is W. Whitt,
 * "The Queueing Network Analyzer", Bell System Technical Journal 62(9), 1983.
 */
#include "analysis/qna/qna.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define QNA_MAX_PAIRS (QNA_MAX_NODES * QNA_MAX_CLASSES)

typedef struct myri_qna_route {
    size_t from, to; /* pair indices (node * QNA_MAX_CLASSES + class); to may be QNA_EXIT */
    double p;
} myri_qna_route;

struct myri_qna_net {
    size_t n_nodes, n_classes, n_routes;
    char node_name[QNA_MAX_NODES][QNA_NAME_MAX];
    int servers[QNA_MAX_NODES];
    char class_name[QNA_MAX_CLASSES][QNA_NAME_MAX];
    bool has_service[QNA_MAX_PAIRS];
    double svc_mean[QNA_MAX_PAIRS], svc_scv[QNA_MAX_PAIRS]; /* 1/mu_{i,r}, C^2_{S_{i,r}} */
    double ext_rate[QNA_MAX_PAIRS], ext_scv[QNA_MAX_PAIRS]; /* lambda_{0i,r}, C^2_{0i,r} */
    myri_qna_route route[QNA_MAX_ROUTES];
};

/* The smallest probability of leaving a routing cycle that the traffic
 * equations resolve: below it, a probability is indistinguishable from the
 * rounding of a sum of probabilities (about 1e-16 each). */
#define QNA_EXIT_MIN 1e-14

static size_t qna__pair(size_t node, size_t cls) { return node * QNA_MAX_CLASSES + cls; }

/* Formats a message (no position) into err when err is not NULL; returns st. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static myri_status qna__err(myri_error *err, myri_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* ---- building -------------------------------------------------------------------- */

myri_qna_net *myri_qna_net_create(void) { return calloc(1, sizeof(myri_qna_net)); }

void myri_qna_net_destroy(myri_qna_net *net) { free(net); }

myri_qna_net *myri_qna_net_clone(const myri_qna_net *net)
{
    if (!net) return NULL;
    myri_qna_net *c = malloc(sizeof *c);
    if (c) memcpy(c, net, sizeof *c);
    return c;
}

static bool qna__name_ok(const char *name)
{
    return name && name[0] && strlen(name) < QNA_NAME_MAX;
}

myri_status myri_qna_net_add_node(myri_qna_net *net, const char *name, int servers, size_t *idx)
{
    if (!net || !qna__name_ok(name) || servers < 1) return MYRI_EINVAL;
    size_t dummy;
    if (myri_qna_net_find_node(net, name, &dummy) == MYRI_OK) return MYRI_EINVAL;
    if (net->n_nodes >= QNA_MAX_NODES) return MYRI_EFULL;
    size_t i = net->n_nodes++;
    strcpy(net->node_name[i], name);
    net->servers[i] = servers;
    if (idx) *idx = i;
    return MYRI_OK;
}

myri_status myri_qna_net_add_class(myri_qna_net *net, const char *name, size_t *idx)
{
    if (!net || !qna__name_ok(name)) return MYRI_EINVAL;
    size_t dummy;
    if (myri_qna_net_find_class(net, name, &dummy) == MYRI_OK) return MYRI_EINVAL;
    if (net->n_classes >= QNA_MAX_CLASSES) return MYRI_EFULL;
    size_t r = net->n_classes++;
    strcpy(net->class_name[r], name);
    if (idx) *idx = r;
    return MYRI_OK;
}

static bool qna__pair_ok(const myri_qna_net *net, size_t node, size_t cls)
{
    return net && node < net->n_nodes && cls < net->n_classes;
}

myri_status myri_qna_net_service(myri_qna_net *net, size_t node, size_t cls, double mean, double scv)
{
    if (!qna__pair_ok(net, node, cls)) return MYRI_EINVAL;
    if (!(mean > 0) || !isfinite(mean) || !(scv >= 0) || !isfinite(scv)) return MYRI_ERANGE;
    size_t k = qna__pair(node, cls);
    net->has_service[k] = true;
    net->svc_mean[k] = mean;
    net->svc_scv[k] = scv;
    return MYRI_OK;
}

myri_status myri_qna_net_arrival(myri_qna_net *net, size_t node, size_t cls, double rate, double scv)
{
    if (!qna__pair_ok(net, node, cls)) return MYRI_EINVAL;
    if (!(rate >= 0) || !isfinite(rate) || !(scv >= 0) || !isfinite(scv)) return MYRI_ERANGE;
    size_t k = qna__pair(node, cls);
    net->ext_rate[k] = rate;
    net->ext_scv[k] = scv;
    return MYRI_OK;
}

/* Sum of the routing probabilities out of pair `from`, leaving out route `skip`. */
static double qna__out_sum(const myri_qna_net *net, size_t from, size_t skip)
{
    double s = 0;
    for (size_t e = 0; e < net->n_routes; e++)
        if (e != skip && net->route[e].from == from) s += net->route[e].p;
    return s;
}

myri_status myri_qna_net_route(myri_qna_net *net, size_t from_node, size_t from_cls, size_t to_node,
                          size_t to_cls, double p)
{
    if (!qna__pair_ok(net, from_node, from_cls)) return MYRI_EINVAL;
    if (to_node != QNA_EXIT && !qna__pair_ok(net, to_node, to_cls)) return MYRI_EINVAL;
    if (!(p >= 0 && p <= 1)) return MYRI_ERANGE;
    size_t from = qna__pair(from_node, from_cls);
    size_t to = to_node == QNA_EXIT ? QNA_EXIT : qna__pair(to_node, to_cls);
    size_t e = 0;
    while (e < net->n_routes && !(net->route[e].from == from && net->route[e].to == to)) e++;
    /* 1e-9 of slack so that decimal probabilities such as 0.3+0.7 pass. */
    if (qna__out_sum(net, from, e) + p > 1 + 1e-9) return MYRI_ERANGE;
    if (e == net->n_routes) {
        if (net->n_routes >= QNA_MAX_ROUTES) return MYRI_EFULL;
        net->n_routes++;
    }
    net->route[e] = (myri_qna_route){.from = from, .to = to, .p = p};
    return MYRI_OK;
}

size_t myri_qna_net_nodes(const myri_qna_net *net) { return net ? net->n_nodes : 0; }
size_t myri_qna_net_classes(const myri_qna_net *net) { return net ? net->n_classes : 0; }

const char *myri_qna_net_node_name(const myri_qna_net *net, size_t node)
{
    return net && node < net->n_nodes ? net->node_name[node] : NULL;
}

const char *myri_qna_net_class_name(const myri_qna_net *net, size_t cls)
{
    return net && cls < net->n_classes ? net->class_name[cls] : NULL;
}

bool myri_qna_net_has_service(const myri_qna_net *net, size_t node, size_t cls)
{
    return qna__pair_ok(net, node, cls) && net->has_service[qna__pair(node, cls)];
}

myri_status myri_qna_net_find_node(const myri_qna_net *net, const char *name, size_t *idx)
{
    if (!net || !name || !idx) return MYRI_EINVAL;
    for (size_t i = 0; i < net->n_nodes; i++)
        if (strcmp(net->node_name[i], name) == 0) {
            *idx = i;
            return MYRI_OK;
        }
    return MYRI_ENOTFOUND;
}

myri_status myri_qna_net_find_class(const myri_qna_net *net, const char *name, size_t *idx)
{
    if (!net || !name || !idx) return MYRI_EINVAL;
    for (size_t r = 0; r < net->n_classes; r++)
        if (strcmp(net->class_name[r], name) == 0) {
            *idx = r;
            return MYRI_OK;
        }
    return MYRI_ENOTFOUND;
}

void myri_qna_options_default(myri_qna_options *opt)
{
    if (!opt) return;
    opt->sweeps = 0;
    opt->tol = 1e-12;
    opt->max_sweeps = 10000;
    opt->wq = QNA_WQ_WHITT;
    opt->split = QNA_SPLIT_CLASS;
}

/* ---- step 1: traffic equations (1)-(2) and (3)-(7) --------------------------------- */

/* Marks the pairs (index node * R + class) that receive traffic: reachable
 * from an external arrival over routes with p > 0 (flow == true), and those
 * from which the exit is reachable (leaves == true).  Both are exact graph
 * properties, free of rounding. */
static void qna__reach(const myri_qna_net *net, bool *flow, bool *leaves)
{
    size_t R = net->n_classes, n = net->n_nodes * R;
    double routed[QNA_MAX_PAIRS] = {0};
    for (size_t e = 0; e < net->n_routes; e++) {
        const myri_qna_route *rt = &net->route[e];
        if (rt->to != QNA_EXIT) routed[(rt->from / QNA_MAX_CLASSES) * R + rt->from % QNA_MAX_CLASSES] += rt->p;
    }
    for (size_t k = 0; k < n; k++) {
        flow[k] = net->ext_rate[qna__pair(k / R, k % R)] > 0;
        /* What is not routed leaves: an implicit exit counts when it is more
         * than the rounding of the sum (0.3 + 0.7 is a cycle, not an exit). */
        leaves[k] = 1 - routed[k] > QNA_EXIT_MIN;
    }
    for (bool more = true; more;) {
        more = false;
        for (size_t e = 0; e < net->n_routes; e++) {
            const myri_qna_route *rt = &net->route[e];
            if (!(rt->p > 0)) continue;
            size_t f = (rt->from / QNA_MAX_CLASSES) * R + rt->from % QNA_MAX_CLASSES;
            bool exit = rt->to == QNA_EXIT;
            size_t t = exit ? 0 : (rt->to / QNA_MAX_CLASSES) * R + rt->to % QNA_MAX_CLASSES;
            if (!exit && flow[f] && !flow[t]) flow[t] = more = true;
            if (!leaves[f] && (exit || leaves[t])) leaves[f] = more = true;
        }
    }
}

/* Solves (2) with class switching: lambda_k = lambda_0k + sum_e lambda_from(e) p_e
 * over the pairs that receive traffic (the others have lambda 0), by Gaussian
 * elimination with partial pivoting on (I - P^T) lambda = lambda_0.  When
 * every such pair can reach the exit the system is non-singular however
 * small the exit probability of a cycle (a cycle left with probability
 * 1e-12 is ill-conditioned, about 1e-4 relative accuracy, but solvable);
 * MYRI_EMODEL names the pair when traffic cannot leave at all, or when an
 * exit probability is below QNA_EXIT_MIN (a pivot that small is rounding). */
static myri_status qna__traffic(const myri_qna_net *net, myri_qna_result *out, myri_error *err)
{
    size_t R = net->n_classes, n = net->n_nodes * R, m = 0;
    if (n == 0) return MYRI_OK; /* no nodes or no classes: nothing flows */
    bool flow[QNA_MAX_PAIRS], leaves[QNA_MAX_PAIRS];
    size_t idx[QNA_MAX_PAIRS], pair[QNA_MAX_PAIRS];
    qna__reach(net, flow, leaves);
    for (size_t k = 0; k < n; k++) {
        if (!flow[k]) continue;
        if (!leaves[k])
            return qna__err(err, MYRI_EMODEL,
                            "qna: traffic of class '%s' at node '%s' never leaves the network (no "
                            "route with p > 0 leads from it to exit); expected every routing cycle "
                            "to have an exit",
                            net->class_name[k % R], net->node_name[k / R]);
        idx[k] = m;
        pair[m++] = k;
    }
    if (m == 0) return MYRI_OK;
    double *a = calloc(m * (m + 1), sizeof *a);
    if (!a) return MYRI_ENOMEM;
#define A(i, j) a[(i) * (m + 1) + (j)]
    for (size_t i = 0; i < m; i++) {
        A(i, i) = 1;
        A(i, m) = net->ext_rate[qna__pair(pair[i] / R, pair[i] % R)];
    }
    for (size_t e = 0; e < net->n_routes; e++) {
        const myri_qna_route *rt = &net->route[e];
        if (rt->to == QNA_EXIT || !(rt->p > 0)) continue;
        size_t f = (rt->from / QNA_MAX_CLASSES) * R + rt->from % QNA_MAX_CLASSES;
        size_t t = (rt->to / QNA_MAX_CLASSES) * R + rt->to % QNA_MAX_CLASSES;
        if (flow[f]) A(idx[t], idx[f]) -= rt->p; /* flow[f] implies flow[t] */
    }
    myri_status st = MYRI_OK;
    for (size_t c = 0; c < m && st == MYRI_OK; c++) {
        size_t piv = c;
        for (size_t r = c + 1; r < m; r++)
            if (fabs(A(r, c)) > fabs(A(piv, c))) piv = r;
        if (!(fabs(A(piv, c)) > QNA_EXIT_MIN)) {
            st = qna__err(err, MYRI_EMODEL,
                          "qna: the traffic equations are singular in double precision: a routing "
                          "cycle through class '%s' at node '%s' is left with a probability below "
                          "%g, the rounding of sums of probabilities; expected an exit probability "
                          "above %g",
                          net->class_name[pair[c] % R], net->node_name[pair[c] / R], QNA_EXIT_MIN,
                          QNA_EXIT_MIN);
            break;
        }
        if (piv != c)
            for (size_t j = 0; j <= m; j++) {
                double t = A(c, j);
                A(c, j) = A(piv, j);
                A(piv, j) = t;
            }
        for (size_t r = 0; r < m; r++) {
            if (r == c || A(r, c) == 0) continue;
            double f = A(r, c) / A(c, c);
            for (size_t j = c; j <= m; j++) A(r, j) -= f * A(c, j);
        }
    }
    if (st == MYRI_OK)
        for (size_t i = 0; i < m; i++) {
            double v = A(i, m) / A(i, i);
            out->lambda_nc[pair[i] / R][pair[i] % R] = fabs(v) < 1e-300 ? 0 : v;
        }
#undef A
    free(a);
    return st;
}

/* (3)-(7) for every node.  MYRI_EINPUT if a pair with traffic has no service. */
static myri_status qna__step1(const myri_qna_net *net, myri_qna_result *out, myri_error *err)
{
    for (size_t i = 0; i < net->n_nodes; i++) {
        myri_qna_node_result *nr = &out->node[i];
        double m = net->servers[i], lam = 0, rho = 0;
        for (size_t r = 0; r < net->n_classes; r++) {
            double l = out->lambda_nc[i][r];
            if (l <= 0) continue;
            size_t k = qna__pair(i, r);
            if (!net->has_service[k])
                return qna__err(err, MYRI_EINPUT,
                                     "qna: class '%s' reaches node '%s' (rate %g) but has no "
                                     "service time there; expected a service entry",
                                     net->class_name[r], net->node_name[i], l);
            lam += l;                                 /* (3) */
            rho += l * net->svc_mean[k] / m;          /* (4), (5) */
        }
        /* (6) is lambda_i / rho_i; when rho_i underflows to 0 with lambda_i > 0
         * (tiny rates) that is 0/0, so mu_i comes from the rate-weighted mean
         * service time instead (the same value in exact arithmetic). */
        double es = 0, sum = 0;
        for (size_t r = 0; r < net->n_classes && lam > 0; r++) {
            double l = out->lambda_nc[i][r];
            if (l > 0) es += l / lam * net->svc_mean[qna__pair(i, r)];
        }
        nr->lambda = lam;
        nr->rho = rho;
        nr->mu = rho > 0 ? lam / rho : es > 0 ? m / es : 0; /* (6) */
        for (size_t r = 0; r < net->n_classes && lam > 0; r++) {
            double l = out->lambda_nc[i][r];
            if (l <= 0) continue;
            size_t k = qna__pair(i, r);
            double ratio = nr->mu * net->svc_mean[k] / m; /* mu_i / (m_i mu_{i,r}) */
            sum += l / lam * ratio * ratio * (net->svc_scv[k] + 1);
        }
        nr->cs2 = lam > 0 ? sum - 1 : 0;              /* (7) */
    }
    return MYRI_OK;
}

/* ---- step 2: superposition (8)-(9), flow (10), splitting (11) ---------------------- */

/* One Gauss-Seidel sweep in node order; c2[e] is C^2 of route e (its departure
 * stream).  Returns the largest change of any route SCV. */
static double qna__sweep(const myri_qna_net *net, const myri_qna_options *opt, myri_qna_result *out,
                         double *c2)
{
    double change = 0;
    for (size_t i = 0; i < net->n_nodes; i++) {
        myri_qna_node_result *nr = &out->node[i];
        if (nr->lambda <= 0) continue;
        double ca = 0;
        for (size_t r = 0; r < net->n_classes; r++) {
            double l = out->lambda_nc[i][r];
            if (l <= 0) continue;
            size_t k = qna__pair(i, r);
            double s = net->ext_scv[k] * net->ext_rate[k]; /* j = 0 term of (8) */
            for (size_t e = 0; e < net->n_routes; e++) {
                const myri_qna_route *rt = &net->route[e];
                if (rt->to != k) continue;
                double lf = out->lambda_nc[rt->from / QNA_MAX_CLASSES][rt->from % QNA_MAX_CLASSES];
                s += c2[e] * lf * rt->p;
            }
            out->ca2_nc[i][r] = s / l;                 /* (8) */
            ca += out->ca2_nc[i][r] * l;
        }
        nr->ca2 = ca / nr->lambda;                     /* (9) */
        double rho2 = nr->rho * nr->rho;
        nr->cd2 = 1 + rho2 * (nr->cs2 - 1) / sqrt((double)nr->servers) +
                  (1 - rho2) * (nr->ca2 - 1);          /* (10) */
        for (size_t e = 0; e < net->n_routes; e++) {
            const myri_qna_route *rt = &net->route[e];
            if (rt->to == QNA_EXIT || rt->from / QNA_MAX_CLASSES != i) continue;
            double p = rt->p;                          /* (11), per-class p_{ij,r} */
            if (opt->split == QNA_SPLIT_AGGREGATE)
                p *= out->lambda_nc[i][rt->from % QNA_MAX_CLASSES] / nr->lambda;
            double v = 1 + p * (nr->cd2 - 1);
            if (fabs(v - c2[e]) > change) change = fabs(v - c2[e]);
            c2[e] = v;
        }
    }
    return change;
}

/* ---- step 3: (12)-(15) ------------------------------------------------------------- */

/* Erlang's C formula: probability of waiting in M/M/m with offered load a = m rho. */
static double qna__erlang_c(int m, double rho)
{
    double a = m * rho, b = 1; /* Erlang B by the stable recursion */
    for (int k = 1; k <= m; k++) b = a * b / (k + a * b);
    return b / (1 - rho * (1 - b));
}

static void qna__step3(const myri_qna_options *opt, myri_qna_node_result *nr)
{
    if (nr->lambda <= 0) {
        nr->ca2 = 1;
        nr->cd2 = 1;
        return;
    }
    double m = nr->servers, rho = nr->rho, c = nr->ca2 + nr->cs2;
    if (opt->wq == QNA_WQ_PAPER) {
        double alpha = rho > 0.7 ? (pow(rho, m) + rho) / 2 : pow(rho, (m + 1) / 2);
        nr->wq = alpha / nr->mu / (1 - rho) * c / (2 * m); /* (12) as printed */
        nr->w = nr->wq + 1 / nr->mu;                       /* (13) as printed */
    } else {
        /* Whitt: EW(GI/G/m) = (c_a^2 + c_s^2)/2 * EW(M/M/m), mean service
         * time m/mu_i.  For m = 1 this is (12). */
        double es = m / nr->mu;
        double wq_mmm = qna__erlang_c(nr->servers, rho) * es / (m * (1 - rho));
        nr->wq = c / 2 * wq_mmm;
        nr->w = nr->wq + es;
    }
    nr->lq = nr->wq * nr->lambda; /* (14) */
    nr->l = nr->w * nr->lambda;   /* (15) */
}

/* Every figure of a node finite and in its range (rates, times, lengths and
 * SCVs >= 0, utilisation < 1): a result outside is reported, never printed.
 * Only rates or times near the limits of double get here (a sum that
 * overflows to inf, a product that underflows). */
static myri_status qna__check(const myri_qna_net *net, const myri_qna_result *out, myri_error *err)
{
    for (size_t i = 0; i < net->n_nodes; i++) {
        const myri_qna_node_result *n = &out->node[i];
        const double v[] = {n->lambda, n->rho, n->mu, n->ca2, n->cs2, n->cd2, n->wq, n->w, n->lq, n->l};
        static const char *const name[] = {"lambda", "rho", "mu", "ca2", "cs2", "cd2", "wq", "w", "lq", "l"};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            if (!isfinite(v[k]) || v[k] < -1e-9)
                return qna__err(err, MYRI_EMODEL,
                                "qna: node '%s': %s = %g is not a finite non-negative number (arrival "
                                "rate %g, utilisation %g): the rates or times of the network are beyond "
                                "the range of double; expected rates and times nearer 1",
                                net->node_name[i], name[k], v[k], n->lambda, n->rho);
    }
    return MYRI_OK;
}

myri_status myri_qna_solve(const myri_qna_net *net, const myri_qna_options *opt, myri_qna_result *out,
                      myri_error *err)
{
    if (!net || !out) return MYRI_EINVAL;
    myri_qna_options def;
    if (!opt) {
        myri_qna_options_default(&def);
        opt = &def;
    }
    if (opt->sweeps < 0 || (opt->sweeps == 0 && opt->max_sweeps < 1) || !(opt->tol >= 0))
        return MYRI_EINVAL;
    memset(out, 0, sizeof *out);
    out->n_nodes = net->n_nodes;
    out->n_classes = net->n_classes;
    for (size_t i = 0; i < net->n_nodes; i++) {
        memcpy(out->node[i].name, net->node_name[i], QNA_NAME_MAX);
        out->node[i].servers = net->servers[i];
        for (size_t r = 0; r < QNA_MAX_CLASSES; r++) out->ca2_nc[i][r] = 1;
    }
    myri_status st = qna__traffic(net, out, err);
    if (st == MYRI_OK) st = qna__step1(net, out, err);
    if (st != MYRI_OK) return st;
    for (size_t i = 0; i < net->n_nodes; i++)
        if (out->node[i].rho > out->node[out->bottleneck].rho) out->bottleneck = i;
    for (size_t i = 0; i < net->n_nodes; i++)
        if (!(out->node[i].rho < 1))
            return qna__err(err, MYRI_EMODEL,
                                 "qna: node '%s' is unstable: utilisation %.6g >= 1 "
                                 "(arrival rate %g, service rate %g); expected utilisation < 1",
                                 net->node_name[i], out->node[i].rho, out->node[i].lambda,
                                 out->node[i].mu);
    double c2[QNA_MAX_ROUTES];
    for (size_t e = 0; e < net->n_routes; e++) c2[e] = 1; /* initial C^2_{ij,r} = 1 */
    int limit = opt->sweeps > 0 ? opt->sweeps : opt->max_sweeps;
    for (out->iterations = 0; out->iterations < limit;) {
        double change = qna__sweep(net, opt, out, c2);
        out->iterations++;
        if (opt->sweeps == 0 && change <= opt->tol) {
            out->converged = true;
            break;
        }
    }
    if (opt->sweeps == 0 && !out->converged)
        return qna__err(err, MYRI_EMODEL, "qna: step 2 did not converge in %d sweeps",
                        opt->max_sweeps);
    for (size_t i = 0; i < net->n_nodes; i++) qna__step3(opt, &out->node[i]);
    return qna__check(net, out, err);
}

/* ---- output ------------------------------------------------------------------------ */

void myri_qna_result_print(const myri_qna_result *res, FILE *out)
{
    if (!res || !out) return;
    fprintf(out, "%-12s %3s %10s %8s %10s %7s %7s %7s %11s %11s %10s %10s\n", "node", "m",
            "lambda", "rho", "mu", "ca2", "cs2", "cd2", "wq", "w", "lq", "l");
    for (size_t i = 0; i < res->n_nodes; i++) {
        const myri_qna_node_result *n = &res->node[i];
        fprintf(out, "%-12s %3d %10.6g %8.4f %10.6g %7.4f %7.4f %7.4f %11.6g %11.6g %10.4f %10.4f\n",
                n->name, n->servers, n->lambda, n->rho, n->mu, n->ca2, n->cs2, n->cd2, n->wq,
                n->w, n->lq, n->l);
    }
    if (res->n_nodes)
        fprintf(out, "bottleneck: %s (utilisation %.4f)\n", res->node[res->bottleneck].name,
                res->node[res->bottleneck].rho);
    fprintf(out, "step 2: %d sweep%s%s\n", res->iterations, res->iterations == 1 ? "" : "s",
            res->converged ? " (converged)" : " (fixed count)");
}

void myri_qna_result_json(const myri_qna_result *res, myri_json *j)
{
    if (!res || !j) return;
    myri_json_key(j, "nodes");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < res->n_nodes; i++) {
        const myri_qna_node_result *n = &res->node[i];
        myri_json_obj_begin(j);
        myri_json_kstr(j, "name", n->name);
        myri_json_kint(j, "servers", n->servers);
        myri_json_knum(j, "lambda", n->lambda);
        myri_json_knum(j, "rho", n->rho);
        myri_json_knum(j, "mu", n->mu);
        myri_json_knum(j, "ca2", n->ca2);
        myri_json_knum(j, "cs2", n->cs2);
        myri_json_knum(j, "cd2", n->cd2);
        myri_json_knum(j, "wq", n->wq);
        myri_json_knum(j, "w", n->w);
        myri_json_knum(j, "lq", n->lq);
        myri_json_knum(j, "l", n->l);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_kstr(j, "bottleneck", res->n_nodes ? res->node[res->bottleneck].name : "");
    myri_json_kint(j, "iterations", res->iterations);
    myri_json_kbool(j, "converged", res->converged);
}
