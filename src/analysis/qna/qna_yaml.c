/* qna_yaml.c -- reads a QNA network from a YAML document (format in
 * docs/QNA.md):
 *
 *   network:
 *     nodes:    [{name: lanai, servers: 1}, {name: hdma}]
 *     classes:  [doorbell, descriptor]
 *     service:  [{node: lanai, class: doorbell, mean: 22.0, scv: 0}]
 *     arrivals: [{node: lanai, class: doorbell, rate: 0.00273, scv: 1}]
 *     routing:  [{from: [lanai, doorbell], to: [hdma, doorbell], p: 1.0},
 *                {from: [hdma, doorbell], to: exit, p: 1.0}]
 *
 * Every error names FILE:LINE:COL of the offending node (myri_error_at) and
 * returns MYRI_EINPUT.  The document tree is only read; the network is a new
 * object owned by the caller.
 */
#include <stddef.h>
#include <string.h>

#include "analysis/qna/qna.h"

typedef struct qna__node_elem {
    const char *name;
    int64_t servers;
} qna__node_elem;

typedef struct qna__pair_elem { /* a service or an arrival entry */
    const char *node, *cls;
    double value, scv;
} qna__pair_elem;

typedef struct qna__route_elem {
    const myri_node *from, *to;
    double p;
} qna__route_elem;

static const myri_param qna__node_params[] = {
    {"name", MYRI_P_STRING, NULL, NULL, NULL, NULL, "node name (unique)",
     offsetof(qna__node_elem, name), NULL},
    {"servers", MYRI_P_INT, NULL, "1", "1", "1000000", "number of identical servers m_i",
     offsetof(qna__node_elem, servers), NULL},
};

static const myri_param qna__service_params[] = {
    {"node", MYRI_P_STRING, NULL, NULL, NULL, NULL, "node name", offsetof(qna__pair_elem, node),
     NULL},
    {"class", MYRI_P_STRING, NULL, NULL, NULL, NULL, "class name", offsetof(qna__pair_elem, cls),
     NULL},
    {"mean", MYRI_P_DOUBLE, "time", NULL, "0", NULL, "mean service time 1/mu_{i,r} (> 0)",
     offsetof(qna__pair_elem, value), NULL},
    {"scv", MYRI_P_DOUBLE, NULL, "1", "0", NULL, "squared coefficient of variation of service",
     offsetof(qna__pair_elem, scv), NULL},
};

static const myri_param qna__arrival_params[] = {
    {"node", MYRI_P_STRING, NULL, NULL, NULL, NULL, "node name", offsetof(qna__pair_elem, node),
     NULL},
    {"class", MYRI_P_STRING, NULL, NULL, NULL, NULL, "class name", offsetof(qna__pair_elem, cls),
     NULL},
    {"rate", MYRI_P_DOUBLE, "1/time", NULL, "0", NULL, "external arrival rate lambda_{0i,r}",
     offsetof(qna__pair_elem, value), NULL},
    {"scv", MYRI_P_DOUBLE, NULL, "1", "0", NULL, "squared coefficient of variation of interarrival",
     offsetof(qna__pair_elem, scv), NULL},
};

static const myri_param qna__route_params[] = {
    {"from", MYRI_P_NODE, NULL, NULL, NULL, NULL, "[node, class] the customers leave",
     offsetof(qna__route_elem, from), NULL},
    {"to", MYRI_P_NODE, NULL, NULL, NULL, NULL, "[node, class] they join, or exit",
     offsetof(qna__route_elem, to), NULL},
    {"p", MYRI_P_DOUBLE, NULL, NULL, "0", "1", "routing probability",
     offsetof(qna__route_elem, p), NULL},
};

#define QNA__N(a) (sizeof(a) / sizeof((a)[0]))

/* Returns the sequence under key `key` of `map` (NULL if absent and optional). */
static myri_status qna__seq(const myri_node *map, const char *key, bool required,
                            const myri_node **out, myri_error *err)
{
    *out = myri_node_get(map, key);
    if (!*out) {
        if (!required) return MYRI_OK;
        return myri_error_at(err, map, "network has no '%s'; expected a list '%s: [...]'", key,
                             key);
    }
    if ((*out)->kind != MYRI_NODE_SEQ)
        return myri_error_at(err, *out, "'%s' is not a list; expected '%s: [...]'", key, key);
    return MYRI_OK;
}

/* Rejects any key of `map` not in the NULL-terminated `allowed` list. */
static myri_status qna__check_keys(const myri_node *map, const char *const *allowed,
                                   const char *what, const char *expected, myri_error *err)
{
    for (size_t k = 0; k < map->n; k++) {
        bool ok = false;
        for (size_t a = 0; allowed[a]; a++) ok = ok || strcmp(map->key[k], allowed[a]) == 0;
        if (!ok)
            return myri_error_at(err, map->keynode ? map->keynode[k] : map,
                                 "unknown key '%s' in %s; expected %s", map->key[k], what,
                                 expected);
    }
    return MYRI_OK;
}

static myri_status qna__nodes(myri_qna_net *net, const myri_node *seq, myri_error *err)
{
    for (size_t k = 0; k < seq->n; k++) {
        qna__node_elem e = {0};
        myri_status st = myri_params_load_map(qna__node_params, QNA__N(qna__node_params),
                                              seq->item[k], &e, err);
        if (st != MYRI_OK) return st;
        const myri_node *name = myri_node_get(seq->item[k], "name");
        if (!e.name || !e.name[0] || strlen(e.name) >= QNA_NAME_MAX || strcmp(e.name, "exit") == 0)
            return myri_error_at(err, name, "bad node name; expected 1 to %d characters, not 'exit'",
                                 QNA_NAME_MAX - 1);
        st = myri_qna_net_add_node(net, e.name, (int)e.servers, NULL);
        if (st == MYRI_EFULL)
            return myri_error_at(err, seq->item[k], "too many nodes; expected at most %d",
                                 QNA_MAX_NODES);
        if (st != MYRI_OK)
            return myri_error_at(err, name, "duplicate node name '%s'; expected unique names",
                                 e.name);
    }
    return MYRI_OK;
}

static myri_status qna__classes(myri_qna_net *net, const myri_node *seq, myri_error *err)
{
    for (size_t k = 0; k < seq->n; k++) {
        const myri_node *c = seq->item[k];
        if (c->kind != MYRI_NODE_SCALAR || !c->scalar[0] || strlen(c->scalar) >= QNA_NAME_MAX)
            return myri_error_at(err, c, "bad class; expected a name of 1 to %d characters",
                                 QNA_NAME_MAX - 1);
        myri_status st = myri_qna_net_add_class(net, c->scalar, NULL);
        if (st == MYRI_EFULL)
            return myri_error_at(err, c, "too many classes; expected at most %d", QNA_MAX_CLASSES);
        if (st != MYRI_OK)
            return myri_error_at(err, c, "duplicate class '%s'; expected unique names", c->scalar);
    }
    return MYRI_OK;
}

/* Resolves the node and class names of a service/arrival element. */
static myri_status qna__resolve(const myri_qna_net *net, const myri_node *elem, const qna__pair_elem *e,
                                size_t *node, size_t *cls, myri_error *err)
{
    if (myri_qna_net_find_node(net, e->node, node) != MYRI_OK)
        return myri_error_at(err, myri_node_get(elem, "node"),
                             "unknown node '%s'; expected a name listed under nodes", e->node);
    if (myri_qna_net_find_class(net, e->cls, cls) != MYRI_OK)
        return myri_error_at(err, myri_node_get(elem, "class"),
                             "unknown class '%s'; expected a name listed under classes", e->cls);
    return MYRI_OK;
}

static myri_status qna__pairs(myri_qna_net *net, const myri_node *seq, bool service, myri_error *err)
{
    bool seen[QNA_MAX_NODES][QNA_MAX_CLASSES] = {{false}};
    for (size_t k = 0; seq && k < seq->n; k++) {
        const myri_node *elem = seq->item[k];
        qna__pair_elem e = {0};
        myri_status st =
            service ? myri_params_load_map(qna__service_params, QNA__N(qna__service_params), elem,
                                           &e, err)
                    : myri_params_load_map(qna__arrival_params, QNA__N(qna__arrival_params), elem,
                                           &e, err);
        size_t i = 0, r = 0;
        if (st == MYRI_OK) st = qna__resolve(net, elem, &e, &i, &r, err);
        if (st != MYRI_OK) return st;
        if (seen[i][r])
            return myri_error_at(err, elem, "second %s entry for (%s, %s); expected one per pair",
                                 service ? "service" : "arrivals", e.node, e.cls);
        seen[i][r] = true;
        if (service && !(e.value > 0))
            return myri_error_at(err, myri_node_get(elem, "mean"),
                                 "service mean %g; expected a positive time", e.value);
        if (!service && e.value > 0 && !myri_qna_net_has_service(net, i, r))
            return myri_error_at(err, elem, "arrivals at (%s, %s), which has no service time; "
                                 "expected a service entry for it", e.node, e.cls);
        st = service ? myri_qna_net_service(net, i, r, e.value, e.scv)
                     : myri_qna_net_arrival(net, i, r, e.value, e.scv);
        if (st != MYRI_OK)
            return myri_error_at(err, elem, "bad value; expected finite non-negative numbers");
    }
    return MYRI_OK;
}

/* Parses "[node, class]" (or "exit" when allow_exit) into indices. */
static myri_status qna__endpoint(const myri_qna_net *net, const myri_node *n, bool allow_exit,
                                 size_t *node, size_t *cls, myri_error *err)
{
    if (allow_exit && n->kind == MYRI_NODE_SCALAR && strcmp(n->scalar, "exit") == 0) {
        *node = QNA_EXIT;
        *cls = 0;
        return MYRI_OK;
    }
    if (n->kind != MYRI_NODE_SEQ || n->n != 2 || n->item[0]->kind != MYRI_NODE_SCALAR ||
        n->item[1]->kind != MYRI_NODE_SCALAR)
        return myri_error_at(err, n, "bad routing end; expected [node, class]%s",
                             allow_exit ? " or exit" : "");
    if (myri_qna_net_find_node(net, n->item[0]->scalar, node) != MYRI_OK)
        return myri_error_at(err, n->item[0], "unknown node '%s'; expected a name listed under nodes",
                             n->item[0]->scalar);
    if (myri_qna_net_find_class(net, n->item[1]->scalar, cls) != MYRI_OK)
        return myri_error_at(err, n->item[1],
                             "unknown class '%s'; expected a name listed under classes",
                             n->item[1]->scalar);
    return MYRI_OK;
}

static myri_status qna__routing(myri_qna_net *net, const myri_node *seq, myri_error *err)
{
    double out_sum[QNA_MAX_NODES][QNA_MAX_CLASSES] = {{0}};
    for (size_t k = 0; seq && k < seq->n; k++) {
        const myri_node *elem = seq->item[k];
        qna__route_elem e = {0};
        myri_status st =
            myri_params_load_map(qna__route_params, QNA__N(qna__route_params), elem, &e, err);
        size_t fi = 0, fr = 0, ti = 0, tr = 0;
        if (st == MYRI_OK) st = qna__endpoint(net, e.from, false, &fi, &fr, err);
        if (st == MYRI_OK) st = qna__endpoint(net, e.to, true, &ti, &tr, err);
        if (st != MYRI_OK) return st;
        out_sum[fi][fr] += e.p;
        if (out_sum[fi][fr] > 1 + 1e-9)
            return myri_error_at(err, myri_node_get(elem, "p"),
                                 "routing probabilities out of (%s, %s) sum to %g; expected at "
                                 "most 1",
                                 myri_qna_net_node_name(net, fi), myri_qna_net_class_name(net, fr),
                                 out_sum[fi][fr]);
        /* a repeated (from, to) pair would silently replace: reject it */
        for (size_t j = 0; j < k; j++) {
            const myri_node *o = seq->item[j];
            size_t a, b, c, d;
            myri_error dummy;
            if (qna__endpoint(net, myri_node_get(o, "from"), false, &a, &b, &dummy) == MYRI_OK &&
                qna__endpoint(net, myri_node_get(o, "to"), true, &c, &d, &dummy) == MYRI_OK &&
                a == fi && b == fr && c == ti && (ti == QNA_EXIT || d == tr))
                return myri_error_at(err, elem, "second route with the same from and to; "
                                                "expected one entry per pair");
        }
        if (!myri_qna_net_has_service(net, fi, fr))
            return myri_error_at(err, e.from, "(%s, %s) has no service time; expected a service "
                                 "entry for every (node, class) that routes",
                                 myri_qna_net_node_name(net, fi), myri_qna_net_class_name(net, fr));
        if (ti != QNA_EXIT && e.p > 0 && !myri_qna_net_has_service(net, ti, tr))
            return myri_error_at(err, e.to, "(%s, %s) has no service time; expected a service "
                                 "entry for every (node, class) that traffic reaches",
                                 myri_qna_net_node_name(net, ti), myri_qna_net_class_name(net, tr));
        st = myri_qna_net_route(net, fi, fr, ti, tr, e.p);
        if (st == MYRI_EFULL) return myri_error_at(err, elem, "too many routes; expected at most %d", QNA_MAX_ROUTES);
        if (st != MYRI_OK) return myri_error_at(err, elem, "bad route");
    }
    return MYRI_OK;
}

myri_status myri_qna_net_from_doc(const myri_node *root, myri_qna_net **out, myri_error *err)
{
    if (!out) return MYRI_EINVAL;
    *out = NULL;
    if (!root || root->kind != MYRI_NODE_MAP)
        return myri_error_at(err, root, "expected a mapping with a 'network' key");
    static const char *const top[] = {"network", NULL};
    static const char *const keys[] = {"nodes", "classes", "service", "arrivals", "routing", NULL};
    myri_status st = qna__check_keys(root, top, "the document", "only 'network'", err);
    if (st != MYRI_OK) return st;
    const myri_node *nw = myri_node_get(root, "network");
    if (!nw || nw->kind != MYRI_NODE_MAP)
        return myri_error_at(err, nw ? nw : root, "expected 'network:' holding a mapping");
    st = qna__check_keys(nw, keys, "network",
                         "one of nodes, classes, service, arrivals, routing", err);
    const myri_node *nodes = NULL, *classes = NULL, *service = NULL, *arrivals = NULL,
                    *routing = NULL;
    if (st == MYRI_OK) st = qna__seq(nw, "nodes", true, &nodes, err);
    if (st == MYRI_OK) st = qna__seq(nw, "classes", true, &classes, err);
    if (st == MYRI_OK) st = qna__seq(nw, "service", true, &service, err);
    if (st == MYRI_OK) st = qna__seq(nw, "arrivals", true, &arrivals, err);
    if (st == MYRI_OK) st = qna__seq(nw, "routing", false, &routing, err);
    if (st != MYRI_OK) return st;
    myri_qna_net *net = myri_qna_net_create();
    if (!net) return MYRI_ENOMEM;
    st = qna__nodes(net, nodes, err);
    if (st == MYRI_OK) st = qna__classes(net, classes, err);
    if (st == MYRI_OK) st = qna__pairs(net, service, true, err);
    if (st == MYRI_OK) st = qna__pairs(net, arrivals, false, err);
    if (st == MYRI_OK) st = qna__routing(net, routing, err);
    if (st != MYRI_OK) {
        myri_qna_net_destroy(net);
        return st;
    }
    *out = net;
    return MYRI_OK;
}
