/* topo_route.c -- up*-then-down* source routes, route walking and the channel
 * dependency check.
 *
 * Cost: one breadth-first search over (switch, phase) states per switch that
 * has hosts, plus one short walk per host pair: O(S * (S + L) + H^2 * hops).
 * Generated fat trees and Clos networks skip all this (myri_routes_updown:
 * arithmetic routes, topo_routes.c), as do dimension-order meshes. */
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

uint8_t myri_route_encode(uint32_t in_port, uint32_t out_port, myri_route_encoding enc)
{
    if (enc == MYRI_ROUTE_RELATIVE)
        return (uint8_t)(0x80u | ((out_port - in_port) & 0x3fu));
    return (uint8_t)(0x80u | (out_port & 0x7fu));
}

int myri_route_decode(uint8_t b, uint32_t in_port, uint32_t nports, myri_route_encoding enc)
{
    if (!(b & 0x80u)) return -1;
    int64_t out;
    if (enc == MYRI_ROUTE_RELATIVE) {
        int off = b & 0x3f;
        if (off & 0x20) off -= 0x40; /* 6-bit two's complement */
        out = (int64_t)in_port + off;
    } else {
        out = b & 0x7f;
    }
    return out >= 0 && out < (int64_t)nports ? (int)out : -1;
}

static void route__chan_name(const myri_topo *t, uint32_t c, char *buf, size_t len)
{
    const myri_topo_link *lk = &t->link[c / 2];
    if (c % 2 == 0)
        snprintf(buf, len, "%s.%u->%s.%u", t->node[lk->a_node].name, lk->a_port,
                 t->node[lk->b_node].name, lk->b_port);
    else
        snprintf(buf, len, "%s.%u->%s.%u", t->node[lk->b_node].name, lk->b_port,
                 t->node[lk->a_node].name, lk->a_port);
}

/* Steps from (node, port) across its link; returns the node entered and its
 * entry port in *in_port, or -1 if the port is unconnected. */
static int32_t route__cross(const myri_topo *t, uint32_t node, uint32_t port, uint32_t *in_port)
{
    const myri_topo_port *p = &t->node[node].port[port];
    if (p->link < 0) return -1;
    *in_port = (uint32_t)p->peer_port;
    return p->peer_node;
}

myri_status myri_route_walk(const myri_topo *t, myri_route_encoding enc, uint32_t src_host,
                            const myri_route *r, uint32_t *chan, size_t *nchan,
                            uint32_t *dst_host, myri_error *err)
{
    if (!t || !r || src_host >= t->nhosts || r->len > sizeof r->byte) return MYRI_EINVAL;
    uint32_t node = t->host_node[src_host], port = 0, in = 0;
    size_t nc = 0;
    for (size_t i = 0;; i++) {
        int64_t c = myri_topo_out_channel(t, node, port);
        if (c < 0) {
            myri_error_at(err, NULL, "route byte %zu: port %u of '%s' is not connected", i, port,
                          t->node[node].name);
            myri_error_set_node(err, t->node[node].name);
            return MYRI_EINVAL;
        }
        if (chan) chan[nc] = (uint32_t)c;
        nc++;
        node = (uint32_t)route__cross(t, node, port, &in);
        const myri_topo_node *nd = &t->node[node];
        if (nd->kind == MYRI_TOPO_HOST) {
            if (i != r->len) {
                myri_error_at(err, NULL, "route reaches host '%s' with %zu route bytes left", nd->name,
                              (size_t)r->len - i);
                myri_error_set_node(err, nd->name);
                return MYRI_EINVAL;
            }
            if (nchan) *nchan = nc;
            if (dst_host) *dst_host = (uint32_t)nd->host_index;
            return MYRI_OK;
        }
        if (i == r->len) {
            myri_error_at(err, NULL, "route ends inside switch '%s'", nd->name);
            myri_error_set_node(err, nd->name);
            return MYRI_EINVAL;
        }
        int p = myri_route_decode(r->byte[i], in, nd->nports, enc);
        if (p < 0) {
            myri_error_at(err, NULL, "route byte %zu (0x%02x) at switch '%s' selects no port", i,
                          r->byte[i], nd->name);
            myri_error_set_node(err, nd->name);
            return MYRI_EINVAL;
        }
        port = (uint32_t)p;
    }
}

myri_status myri_route_from_ports(const myri_topo *t, myri_route_encoding enc, uint32_t src_host,
                                  uint32_t dst_host, const uint32_t *ports, size_t nports,
                                  myri_route *out, myri_error *err)
{
    if (!t || !out || src_host >= t->nhosts || dst_host >= t->nhosts) return MYRI_EINVAL;
    if (nports > sizeof out->byte) {
        myri_error_at(err, NULL, "a route crosses at most %zu switches", sizeof out->byte);
        return MYRI_EINVAL;
    }
    myri_route r = {.len = (uint8_t)nports};
    uint32_t node = t->host_node[src_host], in = 0;
    node = t->node[node].port[0].link < 0 ? node : (uint32_t)route__cross(t, node, 0, &in);
    for (size_t i = 0; i < nports; i++) {
        const myri_topo_node *nd = &t->node[node];
        if (nd->kind != MYRI_TOPO_SWITCH) {
            myri_error_at(err, NULL, "port %zu of the route: '%s' is a host, not a switch", i, nd->name);
            myri_error_set_node(err, nd->name);
            return MYRI_EINVAL;
        }
        if (ports[i] >= nd->nports || nd->port[ports[i]].link < 0) {
            myri_error_at(err, NULL, "port %u of switch '%s' is %s", ports[i], nd->name,
                          ports[i] >= nd->nports ? "out of range" : "not connected");
            myri_error_set_node(err, nd->name);
            return MYRI_EINVAL;
        }
        r.byte[i] = myri_route_encode(in, ports[i], enc);
        node = (uint32_t)route__cross(t, node, ports[i], &in);
    }
    if (node != t->host_node[dst_host]) {
        myri_error_at(err, NULL, "the route from '%s' ends at '%s', not at '%s'",
                      t->node[t->host_node[src_host]].name, t->node[node].name,
                      t->node[t->host_node[dst_host]].name);
        return MYRI_EINVAL;
    }
    *out = r;
    return MYRI_OK;
}

/* ---- up*-then-down* ------------------------------------------------------------ */

typedef struct route__ctx {
    const myri_topo *t;
    int32_t *rank;     /* per node; -1 for hosts */
    int32_t *dist;     /* per (node, phase): 2*node + phase */
    uint32_t *queue;   /* 2 * nnodes */
    uint32_t *stamp;   /* per switch: dst + 1 once its hosts have their route to dst */
} route__ctx;

/* True if the hop from switch u to switch v goes up. */
static bool route__up(const route__ctx *c, uint32_t u, uint32_t v)
{
    return c->rank[v] < c->rank[u] || (c->rank[v] == c->rank[u] && v < u);
}

/* Switch-only BFS from the sources in q[0..nq-1] (dist already 0 there). */
static void route__switch_bfs(const myri_topo *t, int32_t *d, uint32_t *q, size_t nq)
{
    size_t head = 0;
    while (head < nq) {
        uint32_t u = q[head++];
        for (uint32_t p = 0; p < t->node[u].nports; p++) {
            int32_t v = t->node[u].port[p].peer_node;
            if (v < 0 || t->node[v].kind != MYRI_TOPO_SWITCH || d[v] >= 0) continue;
            d[v] = d[u] + 1;
            q[nq++] = (uint32_t)v;
        }
    }
}

/* Ranks: hop distance from the nearest root (myri_topo.root, or the switch
 * of least eccentricity, lowest index on ties). */
static void route__ranks(route__ctx *c)
{
    const myri_topo *t = c->t;
    size_t nq = 0;
    for (size_t i = 0; i < t->nnodes; i++) c->rank[i] = -1;
    if (t->nroots) {
        for (size_t i = 0; i < t->nroots; i++) {
            if (c->rank[t->root[i]] == 0) continue;
            c->rank[t->root[i]] = 0;
            c->queue[nq++] = t->root[i];
        }
    } else {
        int32_t best_ecc = INT32_MAX;
        uint32_t best = 0;
        for (uint32_t s = 0; s < t->nnodes; s++) {
            if (t->node[s].kind != MYRI_TOPO_SWITCH) continue;
            for (size_t i = 0; i < t->nnodes; i++) c->rank[i] = -1;
            c->rank[s] = 0;
            c->queue[0] = s;
            route__switch_bfs(t, c->rank, c->queue, 1);
            int32_t ecc = 0;
            for (size_t i = 0; i < t->nnodes; i++)
                if (c->rank[i] > ecc) ecc = c->rank[i];
            if (ecc < best_ecc) {
                best_ecc = ecc;
                best = s;
            }
        }
        if (best_ecc == INT32_MAX) return; /* no switch */
        for (size_t i = 0; i < t->nnodes; i++) c->rank[i] = -1;
        c->rank[best] = 0;
        c->queue[nq++] = best;
    }
    route__switch_bfs(t, c->rank, c->queue, nq);
}

/* Backward BFS over (switch, phase) states to switch w: dist = number of
 * switch-to-switch hops still needed.  Phase 0: only up hops taken so far;
 * phase 1: a down hop was taken, only down hops remain legal. */
static void route__dist_to(route__ctx *c, uint32_t w)
{
    const myri_topo *t = c->t;
    for (size_t i = 0; i < 2 * t->nnodes; i++) c->dist[i] = -1;
    size_t head = 0, tail = 0;
    c->dist[2 * w] = c->dist[2 * w + 1] = 0;
    c->queue[tail++] = 2 * w;
    c->queue[tail++] = 2 * w + 1;
    while (head < tail) {
        uint32_t s = c->queue[head++], v = s / 2, q = s % 2;
        for (uint32_t p = 0; p < t->node[v].nports; p++) {
            int32_t u = t->node[v].port[p].peer_node;
            if (u < 0 || t->node[u].kind != MYRI_TOPO_SWITCH) continue;
            bool up = route__up(c, (uint32_t)u, v);
            if (q == 0 && !up) continue;
            if (q == 1 && up) continue;
            for (uint32_t pp = 0; pp <= q; pp++) {
                uint32_t st = 2 * (uint32_t)u + pp;
                if (c->dist[st] >= 0) continue;
                c->dist[st] = c->dist[s] + 1;
                c->queue[tail++] = st;
            }
        }
    }
}

/* Walks the shortest legal path from host src to host dst (attached to the
 * switch of the last route__dist_to) with the destination-digit tie rule. */
static myri_status route__walk_one(route__ctx *c, myri_route_encoding enc, uint32_t src,
                                   uint32_t dst, myri_route *r, myri_error *err)
{
    const myri_topo *t = c->t;
    uint32_t in = 0, sw = (uint32_t)route__cross(t, t->host_node[src], 0, &in), phase = 0;
    uint64_t v = dst;
    if (c->dist[2 * sw] < 0) {
        myri_error_at(err, NULL, "no up*-then-down* route from '%s' to '%s' (choose other roots)",
                      t->node[t->host_node[src]].name, t->node[t->host_node[dst]].name);
        return MYRI_EINVAL;
    }
    if ((size_t)c->dist[2 * sw] + 1 > sizeof r->byte) {
        myri_error_at(err, NULL, "the route from '%s' to '%s' crosses more than %zu switches",
                      t->node[t->host_node[src]].name, t->node[t->host_node[dst]].name,
                      sizeof r->byte);
        return MYRI_EINVAL;
    }
    r->len = 0;
    while (c->dist[2 * sw + phase] > 0) {
        int32_t want = c->dist[2 * sw + phase] - 1;
        uint32_t cand[MYRI_TOPO_MAX_PORTS], nc = 0;
        for (uint32_t p = 0; p < t->node[sw].nports; p++) {
            int32_t u = t->node[sw].port[p].peer_node;
            if (u < 0 || t->node[u].kind != MYRI_TOPO_SWITCH) continue;
            bool up = route__up(c, sw, (uint32_t)u);
            if (phase == 1 && up) continue;
            uint32_t np = up ? 0 : 1;
            if (c->dist[2 * (uint32_t)u + np] == want) cand[nc++] = p;
        }
        uint32_t out = cand[v % nc];
        v /= nc;
        r->byte[r->len++] = myri_route_encode(in, out, enc);
        uint32_t nxt = (uint32_t)route__cross(t, sw, out, &in);
        phase = route__up(c, sw, nxt) ? phase : 1;
        sw = nxt;
    }
    r->byte[r->len++] = myri_route_encode(in, (uint32_t)t->node[t->host_node[dst]].port[0].peer_port,
                                          enc);
    return MYRI_OK;
}

/* Routes to every host attached to switch w.  One walk per (source switch,
 * destination host), stored for all the hosts of that switch (their rows are
 * one): the routes are those of a walk per host, found about
 * hosts-per-switch times faster. */
static myri_status route__to_switch(route__ctx *c, myri_route_encoding enc, uint32_t w,
                                    myri_routes *out, myri_error *err)
{
    const myri_topo *t = c->t;
    route__dist_to(c, w);
    for (uint32_t p = 0; p < t->node[w].nports; p++) {
        int32_t d = t->node[w].port[p].peer_node;
        if (d < 0 || t->node[d].kind != MYRI_TOPO_HOST) continue;
        uint32_t dst = (uint32_t)t->node[d].host_index;
        for (uint32_t src = 0; src < t->nhosts; src++) {
            int32_t sw = t->node[t->host_node[src]].port[0].peer_node;
            if (src == dst || c->stamp[sw] == dst + 1) continue;
            myri_route r;
            myri_status st = route__walk_one(c, enc, src, dst, &r, err);
            if (!st) st = myri_routes_set_switch(out, src, dst, &r);
            if (st) return st;
            c->stamp[sw] = dst + 1;
        }
    }
    return MYRI_OK;
}

myri_status myri_routes_updown_table(const myri_topo *t, myri_route_encoding enc, myri_routes *out,
                                     myri_error *err)
{
    if (!t || !out || t->nhosts == 0) return MYRI_EINVAL;
    myri_status st = myri_routes_init(out, t, enc);
    if (st == MYRI_EINVAL) return st;
    route__ctx c = {.t = t};
    c.rank = malloc(t->nnodes * sizeof(int32_t));
    c.dist = malloc(2 * t->nnodes * sizeof(int32_t));
    c.queue = malloc(2 * t->nnodes * sizeof(uint32_t));
    c.stamp = calloc(t->nnodes, sizeof(uint32_t));
    if (!c.rank || !c.dist || !c.queue || !c.stamp) st = MYRI_ENOMEM;
    if (!st) route__ranks(&c);
    for (uint32_t h = 0; h < t->nhosts && !st; h++) { /* back-to-back pairs */
        int32_t peer = t->node[t->host_node[h]].port[0].peer_node;
        if (peer < 0) {
            myri_error_at(err, NULL, "host '%s' is not connected", t->node[t->host_node[h]].name);
            myri_error_set_node(err, t->node[t->host_node[h]].name);
            st = MYRI_EINVAL;
        } else if (t->node[peer].kind == MYRI_TOPO_HOST) {
            myri_route r = {.len = 0};
            st = myri_routes_set(out, h, (uint32_t)t->node[peer].host_index, &r);
        }
    }
    for (uint32_t w = 0; w < t->nnodes && !st; w++)
        if (t->node[w].kind == MYRI_TOPO_SWITCH) st = route__to_switch(&c, enc, w, out, err);
    free(c.rank);
    free(c.dist);
    free(c.queue);
    free(c.stamp);
    if (st) {
        if (st == MYRI_ENOMEM) myri_error_at(err, NULL, "out of memory");
        myri_routes_free(out);
    }
    return st;
}

/* A generated fat tree or Clos, untouched since (myri_topo.made_by), with the
 * generator's roots: its up*-then-down* routes are arithmetic
 * (topo_routes.c), the same bytes as the table's, built in O(1). */
myri_status myri_routes_updown(const myri_topo *t, myri_route_encoding enc, myri_routes *out,
                               myri_error *err)
{
    if (!t || !out || t->nhosts == 0) return MYRI_EINVAL;
    if (t->made_by.gen == MYRI_GEN_FAT_TREE && t->made_by.k >= 2 && t->made_by.n >= 1)
        return myri_routes_init_arith(out, t, enc, MYRI_ROUTES_FAT_TREE, t->made_by.k, t->made_by.n, 0);
    if (t->made_by.gen == MYRI_GEN_CLOS) {
        uint32_t h = t->made_by.per_switch ? t->made_by.per_switch : t->made_by.spines;
        return myri_routes_init_arith(out, t, enc, MYRI_ROUTES_CLOS, t->made_by.leaves, t->made_by.spines, h);
    }
    return myri_routes_updown_table(t, enc, out, err);
}

/* ---- dimension order on a mesh --------------------------------------------------- */

myri_status myri_routes_mesh_xy(const myri_topo *t, uint32_t x, uint32_t y, uint32_t per_switch,
                                myri_route_encoding enc, myri_routes *out, myri_error *err)
{
    uint32_t h = per_switch ? per_switch : 1;
    uint64_t ns = (uint64_t)x * y;
    if (!t || !out || x == 0 || y == 0 || t->nhosts != ns * h || t->nnodes != ns * h + ns) {
        myri_error_at(err, NULL, "dimension-order routes need the network of the mesh generator");
        return MYRI_EINVAL;
    }
    if ((uint64_t)x + y - 1 > sizeof ((myri_route *)0)->byte) {
        myri_error_at(err, NULL, "dimension-order routes on a %ux%u mesh cross more than 32 switches", x, y);
        return MYRI_EINVAL;
    }
    /* Computed on each lookup (topo_routes.c): x, then y, then the host port. */
    return myri_routes_init_arith(out, t, enc, MYRI_ROUTES_MESH_XY, x, y, h);
}

/* ---- channel dependency graph ----------------------------------------------- */

/* Depth-first search for a back edge; dep[ch] is the mask of output ports of
 * the node that channel ch enters.  Returns a channel on a cycle or -1. */
static int64_t route__find_cycle(const myri_topo *t, const uint32_t *dep, uint8_t *color,
                                 uint32_t *stack_c, uint8_t *stack_p)
{
    size_t nch = 2 * t->nlinks;
    for (size_t root = 0; root < nch; root++) {
        if (color[root]) continue;
        size_t sp = 0;
        stack_c[sp] = (uint32_t)root;
        stack_p[sp++] = 0;
        color[root] = 1;
        while (sp) {
            uint32_t ch = stack_c[sp - 1];
            uint8_t *next = &stack_p[sp - 1];
            const myri_topo_link *lk = &t->link[ch / 2];
            uint32_t node = ch % 2 ? lk->a_node : lk->b_node;
            while (*next < 32 && !(dep[ch] & (1u << *next))) (*next)++;
            if (*next >= 32) {
                color[ch] = 2;
                sp--;
                continue;
            }
            uint32_t to = (uint32_t)myri_topo_out_channel(t, node, *next);
            (*next)++;
            if (color[to] == 1) return to;
            if (color[to] == 0) {
                color[to] = 1;
                stack_c[sp] = to;
                stack_p[sp++] = 0;
            }
        }
    }
    return -1;
}

/* Output port that route rt takes at the switch its source host s is
 * attached to (-1 if none). */
static int route__first_out(const myri_topo *t, myri_route_encoding enc, size_t s, const myri_route *rt)
{
    const myri_topo_port *hp = &t->node[t->host_node[s]].port[0];
    if (rt->len == 0 || hp->peer_node < 0 || t->node[hp->peer_node].kind != MYRI_TOPO_SWITCH) return -1;
    return myri_route_decode(rt->byte[0], (uint32_t)hp->peer_port, t->node[hp->peer_node].nports, enc);
}

/* True if the route rt of host s follows, after its first switch, the same
 * path as the route rr of host r on the same switch (same output there, same
 * bytes after): its channel dependencies are rr's plus its own first one. */
static bool route__same_path(const myri_topo *t, myri_route_encoding enc, size_t s, const myri_route *rt,
                             size_t r, const myri_route *rr)
{
    if (rt->len != rr->len || rt->len == 0) return false;
    int o = route__first_out(t, enc, s, rt);
    return o >= 0 && o == route__first_out(t, enc, r, rr) && !memcmp(rt->byte + 1, rr->byte + 1, rt->len - 1u);
}

/* Adds the channel dependencies of route (s, d) to dep[]; rep is the
 * previous host on the same switch (UINT32_MAX: none), whose dependencies to
 * d are in dep[] already.  false on a broken route. */
static bool route__deps(const myri_topo *t, myri_route_encoding enc, const myri_routes *r, size_t s, size_t d,
                        uint32_t rep, uint32_t *dep, myri_error *err)
{
    myri_route rtb, rrb;
    const myri_route *rt = myri_routes_get(r, s, d, &rtb);
    if (rt->len == MYRI_ROUTE_NONE) return true;
    /* Sharing a row (hosts of one switch), s and rep store one entry: the
     * same path after that switch, the same port out of it when it is valid
     * for one of them (a port below 32 survives the re-encoding). */
    bool shared = rep != UINT32_MAX && r->kind == MYRI_ROUTES_TABLE && r->host_row[s] == r->host_row[rep] &&
                  rt->len > 0 &&
                  route__first_out(t, enc, s, rt) >= 0;
    if (shared || (rep != UINT32_MAX && route__same_path(t, enc, s, rt, rep, myri_routes_get(r, rep, d, &rrb)))) {
        dep[myri_topo_out_channel(t, t->host_node[s], 0)] |= 1u << route__first_out(t, enc, s, rt);
        return true;
    }
    uint32_t chan[40];
    size_t nc = 0;
    if (myri_route_walk(t, enc, (uint32_t)s, rt, chan, &nc, NULL, err)) return false;
    for (size_t i = 0; i + 1 < nc; i++) {
        const myri_topo_link *lk = &t->link[chan[i + 1] / 2];
        uint32_t out_port = chan[i + 1] % 2 ? lk->b_port : lk->a_port;
        dep[chan[i]] |= 1u << out_port;
    }
    return true;
}

bool myri_routes_deadlock_free(const myri_topo *t, myri_route_encoding enc,
                               const myri_routes *r, myri_error *err)
{
    if (!t || !r || r->nhosts != t->nhosts) return false;
    size_t nch = 2 * t->nlinks;
    uint32_t *dep = calloc(nch + 1, sizeof(uint32_t));
    uint8_t *color = calloc(nch + 1, 1);
    uint32_t *stack_c = malloc((nch + 1) * sizeof(uint32_t));
    uint8_t *stack_p = malloc(nch + 1);
    uint32_t *last = malloc(t->nnodes * sizeof(uint32_t)); /* per node: its latest host seen */
    bool ok = dep && color && stack_c && stack_p && last;
    if (!ok) myri_error_at(err, NULL, "out of memory");
    for (size_t i = 0; ok && i < t->nnodes; i++) last[i] = UINT32_MAX;
    /* A route that follows the route of the previous host on the same switch
     * (the same path after it) adds only its first dependency: fat-tree
     * routes are walked once per switch, not once per host. */
    for (size_t s = 0; s < t->nhosts && ok; s++) {
        int32_t at = t->node[t->host_node[s]].port[0].peer_node;
        uint32_t rep = at >= 0 ? last[at] : UINT32_MAX;
        for (size_t d = 0; d < t->nhosts && ok; d++) ok = route__deps(t, enc, r, s, d, rep, dep, err);
        if (at >= 0) last[at] = (uint32_t)s;
    }
    free(last);
    if (ok) {
        int64_t c = route__find_cycle(t, dep, color, stack_c, stack_p);
        if (c >= 0) {
            char name[160];
            route__chan_name(t, (uint32_t)c, name, sizeof name);
            myri_error_at(err, NULL, "the channel dependency graph has a cycle through channel %s", name);
            ok = false;
        }
    }
    free(dep);
    free(color);
    free(stack_c);
    free(stack_p);
    return ok;
}
