/* topo_yaml.c -- the `topology:` section of a scenario: generators, explicit
 * hosts/switches/links, roots and explicit routes, with FILE:LINE:COL errors.
 *
 * Explicit form (see docs/TOPOLOGY.md):
 *   topology:
 *     hosts: [h0, h1]                  # or a count: hosts: 2 gives h0, h1
 *     switches: [{name: s0, ports: 8}]
 *     links:
 *       - {a: h0, b: [s0, 0]}          # a host end may omit its port (0)
 *       - {a: h1, b: [s0, 1], length: 25m}
 *     roots: [s0]                      # optional up/down roots
 *     routes: [{from: h0, to: h1, ports: [1]}]   # optional explicit routes
 */
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GEN_CHOICES "none|back-to-back|star|mesh|fat-tree|clos|ring"

const myri_param myri_topo_params[] = {
    {"generator", MYRI_P_ENUM, NULL, "fat-tree", NULL, NULL,
     "network generator; `none` (or giving hosts/switches/links) = explicit topology",
     offsetof(myri_topo_config, generator), GEN_CHOICES},
    {"k", MYRI_P_INT, NULL, "4", "2", "16", "fat-tree: arity (switches have 2k ports)",
     offsetof(myri_topo_config, k), NULL},
    {"n", MYRI_P_INT, NULL, "3", "1", "16384", "fat-tree: levels; ring: number of switches",
     offsetof(myri_topo_config, n), NULL},
    {"x", MYRI_P_INT, NULL, "4", "1", "16384", "mesh: switches along x",
     offsetof(myri_topo_config, x), NULL},
    {"y", MYRI_P_INT, NULL, "4", "1", "16384", "mesh: switches along y",
     offsetof(myri_topo_config, y), NULL},
    {"leaves", MYRI_P_INT, NULL, "4", "1", "32", "clos: leaf switches",
     offsetof(myri_topo_config, leaves), NULL},
    {"spines", MYRI_P_INT, NULL, "4", "1", "31", "clos: spine switches",
     offsetof(myri_topo_config, spines), NULL},
    {"hosts_per_switch", MYRI_P_INT, NULL, "0", "0", "32",
     "star/mesh/ring/clos: hosts per (leaf) switch; 0 = generator default",
     offsetof(myri_topo_config, hosts_per_switch), NULL},
    {"length", MYRI_P_LENGTH, "m", "0", "0", "100km",
     "cable length of generated links and default of explicit ones; unset: link.length",
     offsetof(myri_topo_config, length_m), NULL},
    {"routing", MYRI_P_ENUM, NULL, "up-down", NULL, NULL,
     "route algorithm: up-down (any topology), dimension-order (x then y; mesh generator only)",
     offsetof(myri_topo_config, routing), "up-down|dimension-order"},
    {"hosts", MYRI_P_NODE, NULL, "", NULL, NULL, "explicit: host names (list) or a count",
     offsetof(myri_topo_config, hosts), NULL},
    {"switches", MYRI_P_NODE, NULL, "", NULL, NULL, "explicit: list of {name, ports}",
     offsetof(myri_topo_config, switches), NULL},
    {"links", MYRI_P_NODE, NULL, "", NULL, NULL,
     "explicit: list of {a: NODE or [NODE, PORT], b: ..., length}",
     offsetof(myri_topo_config, links), NULL},
    {"roots", MYRI_P_NODE, NULL, "", NULL, NULL,
     "up/down roots (switch names); default: generator's, else least eccentric switch",
     offsetof(myri_topo_config, roots), NULL},
    {"routes", MYRI_P_NODE, NULL, "", NULL, NULL,
     "explicit routes: list of {from: HOST, to: HOST, ports: [P, ...]}",
     offsetof(myri_topo_config, routes), NULL},
};
const size_t myri_topo_nparams = sizeof myri_topo_params / sizeof myri_topo_params[0];

typedef struct yaml__sw {
    const char *name;
    int64_t ports;
} yaml__sw;

static const myri_param yaml__sw_params[] = {
    {"name", MYRI_P_STRING, NULL, NULL, NULL, NULL, "switch name",
     offsetof(yaml__sw, name), NULL},
    {"ports", MYRI_P_INT, NULL, "0", "0", "32", "port count: 4, 8, 16 or 32; unset: switch.ports",
     offsetof(yaml__sw, ports), NULL},
};

typedef struct yaml__link {
    const myri_node *a, *b;
    double length_m;
} yaml__link;

static const myri_param yaml__link_params[] = {
    {"a", MYRI_P_NODE, NULL, NULL, NULL, NULL, "one end: NODE or [NODE, PORT]",
     offsetof(yaml__link, a), NULL},
    {"b", MYRI_P_NODE, NULL, NULL, NULL, NULL, "other end: NODE or [NODE, PORT]",
     offsetof(yaml__link, b), NULL},
    {"length", MYRI_P_LENGTH, "m", "0", "0", "100km", "cable length; unset: topology.length",
     offsetof(yaml__link, length_m), NULL},
};

typedef struct yaml__route {
    const char *from, *to;
    const myri_node *ports;
} yaml__route;

static const myri_param yaml__route_params[] = {
    {"from", MYRI_P_STRING, NULL, NULL, NULL, NULL, "source host",
     offsetof(yaml__route, from), NULL},
    {"to", MYRI_P_STRING, NULL, NULL, NULL, NULL, "destination host",
     offsetof(yaml__route, to), NULL},
    {"ports", MYRI_P_NODE, NULL, NULL, NULL, NULL, "output port at each switch, in order",
     offsetof(yaml__route, ports), NULL},
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

void myri_topo_built_free(myri_topo_built *b)
{
    if (!b) return;
    myri_topo_destroy(b->topo);
    b->topo = NULL;
    myri_routes_free(&b->routes);
}

/* Positions an error of the topology functions (which carry no position) at
 * `at`, after `prefix`, keeping the node at fault. */
static myri_status yaml__at(myri_error *err, const myri_node *at, const char *prefix, const myri_error *e)
{
    myri_error_at(err, at, "%s%s", prefix, e->msg);
    myri_error_set_node(err, e->node);
    return MYRI_EINPUT;
}

static bool yaml__name_ok(const char *s)
{
    if (!s || !*s || strlen(s) > 64) return false;
    for (; *s; s++) {
        char c = *s;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

static myri_status yaml__seq(const myri_node *n, const char *what, myri_error *err)
{
    if (n && n->kind != MYRI_NODE_SEQ)
        return myri_error_at(err, n, "%s must be a list", what);
    return MYRI_OK;
}

/* Adds a node after checking its name; `first` remembers where each node was
 * declared for duplicate messages. */
static myri_status yaml__add(myri_topo *t, const myri_node *at, const char *name, bool host,
                             int64_t ports, const myri_node ***first, myri_error *err)
{
    if (!yaml__name_ok(name))
        return myri_error_at(err, at, "bad node name '%s'; expected 1 to 64 letters, digits, '_' or '-'",
                             name ? name : "");
    int32_t dup = myri_topo_find(t, name);
    if (dup >= 0) {
        const myri_node *f = (*first)[dup];
        return myri_error_at(err, at, "duplicate node name '%s' (first declared at line %u, column %u)",
                             name, f->line, f->col);
    }
    if (!host && !myri_topo_ports_ok((uint32_t)ports))
        return myri_error_at(err, at, "switch '%s' has %lld ports; expected 4, 8, 16 or 32", name,
                             (long long)ports);
    if (host && t->nhosts >= MYRI_TOPO_MAX_HOSTS)
        return myri_error_at(err, at, "too many hosts; at most %u are allowed", MYRI_TOPO_MAX_HOSTS);
    const myri_node **nf = realloc(*first, (t->nnodes + 1) * sizeof(**first));
    if (!nf) return myri_error_at(err, at, "out of memory");
    *first = nf;
    nf[t->nnodes] = at;
    myri_status st = host ? myri_topo_add_host(t, name, NULL)
                          : myri_topo_add_switch(t, name, (uint32_t)ports, NULL);
    return st ? myri_error_at(err, at, "cannot add node '%s'", name) : MYRI_OK;
}

static myri_status yaml__nodes(myri_topo *t, const myri_topo_config *c, uint32_t def_ports,
                               const myri_node ***first, myri_error *err)
{
    const myri_node *h = c->hosts;
    if (h && h->kind == MYRI_NODE_SCALAR) {
        myri_param p = {"hosts", MYRI_P_INT, NULL, NULL, "1", "4096", "", 0, NULL};
        int64_t count = 0;
        if (myri_param_parse(&p, h, &count, err)) return MYRI_EINPUT;
        char name[32];
        for (int64_t i = 0; i < count; i++) {
            snprintf(name, sizeof name, "h%lld", (long long)i);
            if (yaml__add(t, h, name, true, 1, first, err)) return MYRI_EINPUT;
        }
    } else if (h) {
        if (yaml__seq(h, "topology.hosts", err)) return MYRI_EINPUT;
        for (size_t i = 0; i < h->n; i++) {
            const myri_node *it = h->item[i];
            if (it->kind != MYRI_NODE_SCALAR)
                return myri_error_at(err, it, "expected a host name");
            if (yaml__add(t, it, it->scalar, true, 1, first, err)) return MYRI_EINPUT;
        }
    }
    if (yaml__seq(c->switches, "topology.switches", err)) return MYRI_EINPUT;
    for (size_t i = 0; c->switches && i < c->switches->n; i++) {
        const myri_node *it = c->switches->item[i];
        yaml__sw sw = {0};
        if (it->kind != MYRI_NODE_MAP)
            return myri_error_at(err, it, "expected a switch {name: NAME, ports: 4|8|16|32}");
        if (myri_params_load_map(yaml__sw_params, NELEM(yaml__sw_params), it, &sw, err))
            return MYRI_EINPUT;
        const myri_node *pn = myri_node_get(it, "ports");
        if (pn && sw.ports == 0)
            return myri_error_at(err, pn, "switch '%s' has 0 ports; expected 4, 8, 16 or 32 (or leave ports "
                                          "out for switch.ports)", sw.name);
        if (sw.ports == 0) sw.ports = def_ports ? def_ports : 8;
        if (!myri_topo_ports_ok((uint32_t)sw.ports))
            return myri_error_at(err, myri_node_get(it, "ports"),
                                 "switch '%s' has %lld ports; expected 4, 8, 16 or 32", sw.name,
                                 (long long)sw.ports);
        if (yaml__add(t, myri_node_get(it, "name"), sw.name, false, sw.ports, first, err))
            return MYRI_EINPUT;
    }
    return MYRI_OK;
}

/* Resolves a link end "NAME" (hosts: port 0) or "[NAME, PORT]". */
static myri_status yaml__end(const myri_topo *t, const myri_node *e, uint32_t *node,
                             uint32_t *port, myri_error *err)
{
    const myri_node *nm = e, *pn = NULL;
    if (e->kind == MYRI_NODE_SEQ) {
        if (e->n != 2 || e->item[0]->kind != MYRI_NODE_SCALAR)
            return myri_error_at(err, e, "expected a link end [NODE, PORT]");
        nm = e->item[0];
        pn = e->item[1];
    } else if (e->kind != MYRI_NODE_SCALAR) {
        return myri_error_at(err, e, "expected a link end: NODE or [NODE, PORT]");
    }
    int32_t n = myri_topo_find(t, nm->scalar);
    if (n < 0)
        return myri_error_at(err, nm, "unknown node '%s'; expected a name from topology.hosts or topology.switches",
                             nm->scalar);
    const myri_topo_node *nd = &t->node[n];
    int64_t p = 0;
    if (pn) {
        myri_param pp = {"port", MYRI_P_INT, NULL, NULL, NULL, NULL, "", 0, NULL};
        if (myri_param_parse(&pp, pn, &p, err)) return MYRI_EINPUT;
        if (p < 0 || p >= (int64_t)nd->nports)
            return myri_error_at(err, pn, "port %lld out of range for %s '%s'; expected 0..%u",
                                 (long long)p, nd->kind == MYRI_TOPO_HOST ? "host" : "switch",
                                 nd->name, nd->nports - 1);
    } else if (nd->kind == MYRI_TOPO_SWITCH) {
        return myri_error_at(err, nm, "switch '%s' needs a port: [%s, PORT]", nd->name, nd->name);
    }
    *node = (uint32_t)n;
    *port = (uint32_t)p;
    return MYRI_OK;
}

static myri_status yaml__links(myri_topo *t, const myri_node *links, double def_len,
                               myri_error *err)
{
    if (yaml__seq(links, "topology.links", err)) return MYRI_EINPUT;
    for (size_t i = 0; links && i < links->n; i++) {
        const myri_node *it = links->item[i];
        if (it->kind != MYRI_NODE_MAP) return myri_error_at(err, it, "expected a link {a: ..., b: ...}");
        yaml__link lk = {0};
        if (myri_params_load_map(yaml__link_params, NELEM(yaml__link_params), it, &lk, err))
            return MYRI_EINPUT;
        uint32_t an, ap, bn, bp;
        if (yaml__end(t, lk.a, &an, &ap, err) || yaml__end(t, lk.b, &bn, &bp, err))
            return MYRI_EINPUT;
        const myri_node *ends[2] = {lk.a, lk.b};
        uint32_t en[2] = {an, bn}, ep[2] = {ap, bp};
        for (int e = 0; e < 2; e++) {
            int32_t used = t->node[en[e]].port[ep[e]].link;
            if (used >= 0)
                return myri_error_at(err, ends[e], "port %u of '%s' is already used by link %d (%s -- %s)",
                                     ep[e], t->node[en[e]].name, used,
                                     t->node[t->link[used].a_node].name,
                                     t->node[t->link[used].b_node].name);
        }
        if (an == bn) return myri_error_at(err, it, "a link must join two different nodes");
        const myri_node *ln = myri_node_get(it, "length");
        if (ln && lk.length_m <= 0)
            return myri_error_at(err, ln, "a cable of 0 m; expected a length from 1mm to 100km (or leave "
                                          "length out for topology.length)");
        double len = lk.length_m > 0 ? lk.length_m : def_len;
        if (myri_topo_connect(t, an, ap, bn, bp, len, NULL))
            return myri_error_at(err, it, "cannot add this link");
    }
    return MYRI_OK;
}

static myri_status yaml__roots(myri_topo *t, const myri_node *roots, myri_error *err)
{
    if (!roots) return MYRI_OK;
    if (yaml__seq(roots, "topology.roots", err)) return MYRI_EINPUT;
    t->nroots = 0;
    for (size_t i = 0; i < roots->n; i++) {
        const myri_node *it = roots->item[i];
        int32_t n = it->kind == MYRI_NODE_SCALAR ? myri_topo_find(t, it->scalar) : -1;
        if (n < 0 || t->node[n].kind != MYRI_TOPO_SWITCH)
            return myri_error_at(err, it, "expected the name of a switch as an up/down root");
        if (myri_topo_add_root(t, (uint32_t)n)) return myri_error_at(err, it, "out of memory");
    }
    return MYRI_OK;
}

static int32_t yaml__host(const myri_topo *t, const myri_node *route, const char *key,
                          myri_error *err)
{
    const myri_node *n = myri_node_get(route, key);
    int32_t idx = myri_topo_find(t, n->scalar);
    if (idx < 0 || t->node[idx].kind != MYRI_TOPO_HOST) {
        myri_error_at(err, n, "unknown host '%s'; expected a host name", n->scalar);
        return -1;
    }
    return t->node[idx].host_index;
}

static myri_status yaml__routes(myri_topo_built *b, const myri_node *routes, myri_error *err)
{
    if (yaml__seq(routes, "topology.routes", err)) return MYRI_EINPUT;
    const myri_topo *t = b->topo;
    for (size_t i = 0; routes && i < routes->n; i++) {
        const myri_node *it = routes->item[i];
        yaml__route r = {0};
        if (it->kind != MYRI_NODE_MAP)
            return myri_error_at(err, it, "expected a route {from: HOST, to: HOST, ports: [...]}");
        if (myri_params_load_map(yaml__route_params, NELEM(yaml__route_params), it, &r, err))
            return MYRI_EINPUT;
        int32_t s = yaml__host(t, it, "from", err), d = s < 0 ? -1 : yaml__host(t, it, "to", err);
        if (s < 0 || d < 0) return MYRI_EINPUT;
        if (s == d) return myri_error_at(err, it, "a route must join two different hosts");
        if (yaml__seq(r.ports, "ports", err)) return MYRI_EINPUT;
        uint32_t ports[32];
        if (r.ports->n > 32) return myri_error_at(err, r.ports, "at most 32 route bytes");
        for (size_t j = 0; j < r.ports->n; j++) {
            myri_param pp = {"port", MYRI_P_INT, NULL, NULL, "0", "31", "", 0, NULL};
            int64_t v = 0;
            if (myri_param_parse(&pp, r.ports->item[j], &v, err)) return MYRI_EINPUT;
            ports[j] = (uint32_t)v;
        }
        myri_error e;
        myri_route rt;
        if (myri_route_from_ports(t, b->encoding, (uint32_t)s, (uint32_t)d, ports, r.ports->n, &rt, &e))
            return yaml__at(err, r.ports, "", &e);
        if (myri_routes_set(&b->routes, (size_t)s, (size_t)d, &rt))
            return myri_error_at(err, it, "out of memory");
    }
    return MYRI_OK;
}

static myri_status yaml__generate(const myri_topo_config *c, const myri_node *section,
                                  const myri_topo_env *env, double len, myri_topo **t,
                                  myri_error *err)
{
    myri_topo_gen_params p = {
        .gen = (myri_topo_generator)c->generator, .k = (uint32_t)c->k, .n = (uint32_t)c->n,
        .x = (uint32_t)c->x, .y = (uint32_t)c->y, .leaves = (uint32_t)c->leaves,
        .spines = (uint32_t)c->spines, .per_switch = (uint32_t)c->hosts_per_switch,
        .nports = env->ports, .length_m = len};
    myri_error e;
    myri_status st = myri_topo_generate(&p, t, &e);
    if (st) {
        const myri_node *at = myri_node_get(section, "generator");
        return myri_error_at(err, at ? at : section ? section : env->at, "topology generator '%s': %s",
                             myri_topo_generator_name(p.gen), e.msg);
    }
    return MYRI_OK;
}

static myri_status yaml__explicit(const myri_topo_config *c, const myri_node *section,
                                  const myri_topo_env *env, double len, myri_topo **out,
                                  myri_error *err)
{
    myri_topo *t = myri_topo_create();
    const myri_node **first = NULL;
    if (!t) return myri_error_at(err, section, "out of memory");
    myri_status st = MYRI_OK;
    if (!c->hosts) st = myri_error_at(err, section ? section : env->at,
                                      "topology: give a generator, or hosts, switches and links");
    if (!st) st = yaml__nodes(t, c, env->ports, &first, err);
    if (!st) st = yaml__links(t, c->links, len, err);
    free(first);
    if (st) {
        myri_topo_destroy(t);
        return MYRI_EINPUT;
    }
    *out = t;
    return MYRI_OK;
}

/* A progress line on stderr while the routes of a large network (2048 hosts
 * and more: seconds of work, 4 M host pairs) are built and checked, only when
 * stderr is a terminal; stage NULL erases it. */
static void yaml__progress(const myri_topo *t, const char *stage)
{
    if (!t || t->nhosts < 2048 || !isatty(fileno(stderr))) return;
    if (stage)
        fprintf(stderr, "\r\033[Ktopology: %zu hosts, %zu host pairs: %s...", t->nhosts, t->nhosts * (t->nhosts - 1), stage);
    else
        fprintf(stderr, "\r\033[K");
    fflush(stderr);
}

myri_status myri_topo_build(const myri_topo_config *c, const myri_node *section,
                            const myri_topo_env *env, myri_topo_built *out, myri_error *err)
{
    if (!c || !out || !env) return myri_error_at(err, NULL, "myri_topo_build: NULL argument");
    memset(out, 0, sizeof *out);
    out->encoding = env->encoding;
    out->routing = c->routing;
    double len = c->length_m > 0 ? c->length_m : env->length_m;
    const myri_node *where = section ? section : env->at;
    const myri_node *ln = myri_node_get(section, "length");
    if (ln && c->length_m <= 0)
        return myri_error_at(err, ln, "topology.length: a cable of 0 m; expected a length from 1mm to 100km "
                                      "(or leave it out for link.length)");
    bool explicit_nodes = c->hosts || c->switches || c->links;
    bool gen_given = myri_node_get(section, "generator") != NULL;
    myri_status st;
    if (explicit_nodes && gen_given && c->generator != MYRI_GEN_NONE)
        return myri_error_at(err, myri_node_get(section, "generator"),
                             "topology.generator cannot be combined with explicit hosts/switches/links; "
                             "expected generator: none");
    if (explicit_nodes || c->generator == MYRI_GEN_NONE)
        st = yaml__explicit(c, section, env, len, &out->topo, err);
    else
        st = yaml__generate(c, section, env, len, &out->topo, err);
    if (st) return MYRI_EINPUT;
    myri_error e;
    if (!st) st = yaml__roots(out->topo, c->roots, err);
    if (!st && myri_topo_validate(out->topo, &e)) st = yaml__at(err, where, "topology: ", &e);
    if (!st) yaml__progress(out->topo, "routes");
    if (!st && c->routing == 1) {
        const myri_node *rn = myri_node_get(section, "routing");
        if (c->generator != MYRI_GEN_MESH || explicit_nodes)
            st = myri_error_at(err, rn ? rn : where, "routing: dimension-order needs generator: mesh");
        else if (myri_routes_mesh_xy(out->topo, (uint32_t)c->x, (uint32_t)c->y,
                                     (uint32_t)c->hosts_per_switch, out->encoding, &out->routes, &e))
            st = yaml__at(err, rn ? rn : where, "topology routes: ", &e);
    } else if (!st && myri_routes_updown(out->topo, out->encoding, &out->routes, &e)) {
        st = yaml__at(err, c->roots ? c->roots : where, "topology routes: ", &e);
    }
    if (!st) st = yaml__routes(out, c->routes, err);
    if (!st && myri_routes_by_construction(&out->routes)) {
        /* Arithmetic routes (no explicit route changed them): up*-then-down*
         * on a fat tree or Clos, or dimension order on a mesh, acyclic by
         * construction (docs/TOPOLOGY.md, Routes); test_topo checks them. */
        out->deadlock_free = true;
    } else if (!st) {
        myri_error_clear(&e);
        yaml__progress(out->topo, "deadlock check of the routes");
        out->deadlock_free = myri_routes_deadlock_free(out->topo, out->encoding, &out->routes, &e);
        size_t n = out->deadlock_free ? 0 : strnlen(e.msg, sizeof out->deadlock_msg - 1);
        memcpy(out->deadlock_msg, e.msg, n);
        out->deadlock_msg[n] = '\0';
    }
    yaml__progress(out->topo, NULL);
    if (st) {
        myri_topo_built_free(out);
        return MYRI_EINPUT;
    }
    return MYRI_OK;
}

myri_status myri_topo_load_doc(const myri_node *root, myri_topo_built *out, myri_error *err)
{
    myri_topo_config cfg;
    const myri_node *section = myri_node_get(root, "topology");
    myri_status st;
    if (section && section->kind != MYRI_NODE_MAP)
        return myri_error_at(err, section, "topology must be a mapping");
    if (section) {
        st = myri_params_load_map(myri_topo_params, myri_topo_nparams, section, &cfg, err);
    } else {
        myri_pset ps = {"topology", myri_topo_params, myri_topo_nparams, &cfg};
        st = myri_params_load(&ps, 1, NULL, NULL, err);
    }
    if (st) return MYRI_EINPUT;
    /* The link and switch keys the topology depends on, read here with the
     * same units and ranges as the fabric's tables (fabric.h). */
    static const myri_param env_params[] = {
        {"link.length", MYRI_P_LENGTH, "m", "10m", "1mm", "100km", "", 0, NULL},
        {"switch.ports", MYRI_P_INT, NULL, "8", "4", "32", "", 0, NULL},
        {"switch.addressing", MYRI_P_ENUM, NULL, "absolute", NULL, NULL, "", 0,
         "absolute|relative"},
    };
    double len = 10.0; /* metres: the fabric's default link.length */
    int64_t ports = 0;
    int enc = 0;
    void *outs[3] = {&len, &ports, &enc};
    for (size_t i = 0; i < 3; i++) {
        const myri_node *n = myri_node_path(root, env_params[i].name);
        if (n && myri_param_parse(&env_params[i], n, outs[i], err)) return MYRI_EINPUT;
    }
    myri_topo_env env = {.length_m = len, .ports = (uint32_t)ports,
                         .encoding = (myri_route_encoding)enc, .at = root};
    return myri_topo_build(&cfg, section, &env, out, err);
}
