/* map_check.c -- a discovered map against the true network: what cannot be
 * mapped from the mapper's place, Mainwaring's F, and the isomorphism check
 * (map.h, docs/MAPPING.md). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "map/map.h"

static bool chk__dead(const bool *dead, int32_t link) { return dead && link >= 0 && dead[link]; }

/* Hop distance of every switch from switch `from` over switch-to-switch links
 * not dead (-1: unreached). */
static int32_t *chk__dist(const myri_topo *t, int64_t from, const bool *dead)
{
    int32_t *d = malloc(t->nnodes * sizeof *d);
    uint32_t *q = malloc(t->nnodes * sizeof *q);
    if (!d || !q) {
        free(d);
        free(q);
        return NULL;
    }
    for (size_t i = 0; i < t->nnodes; i++) d[i] = -1;
    size_t qh = 0, qt = 0;
    if (from >= 0) d[from] = 0, q[qt++] = (uint32_t)from;
    while (qh < qt) {
        uint32_t u = q[qh++];
        const myri_topo_node *n = &t->node[u];
        for (uint32_t p = 0; p < n->nports; p++) {
            int32_t v = n->port[p].peer_node;
            if (v < 0 || t->node[v].kind != MYRI_TOPO_SWITCH || d[v] >= 0 || chk__dead(dead, n->port[p].link))
                continue;
            d[v] = d[u] + 1;
            q[qt++] = (uint32_t)v;
        }
    }
    free(q);
    return d;
}

/* Switches beyond a switch-bridge whose far side has no host (Mainwaring's F). */
static uint32_t chk__mainwaring(const myri_topo *t)
{
    bool *inf = calloc(t->nnodes, 1), *seen = malloc(t->nnodes);
    uint32_t *q = malloc(t->nnodes * sizeof *q);
    uint32_t n = 0;
    for (size_t l = 0; inf && seen && q && l < t->nlinks; l++) {
        const myri_topo_link *lk = &t->link[l];
        if (t->node[lk->a_node].kind != MYRI_TOPO_SWITCH || t->node[lk->b_node].kind != MYRI_TOPO_SWITCH) continue;
        for (int side = 0; side < 2; side++) {
            memset(seen, 0, t->nnodes);
            size_t qh = 0, qt = 0;
            uint32_t s = side ? lk->b_node : lk->a_node;
            seen[s] = true;
            q[qt++] = s;
            bool host = false;
            while (qh < qt) {
                uint32_t u = q[qh++];
                if (t->node[u].kind == MYRI_TOPO_HOST) host = true;
                for (uint32_t p = 0; p < t->node[u].nports; p++) {
                    const myri_topo_port *pp = &t->node[u].port[p];
                    if (pp->peer_node < 0 || pp->link == (int32_t)l || seen[pp->peer_node]) continue;
                    seen[pp->peer_node] = true;
                    q[qt++] = (uint32_t)pp->peer_node;
                }
            }
            if (host || seen[side ? lk->a_node : lk->b_node]) continue; /* reaches a host, or not a bridge */
            for (size_t i = 0; i < t->nnodes; i++) inf[i] = inf[i] || seen[i];
        }
    }
    for (size_t i = 0; inf && i < t->nnodes; i++) n += inf[i];
    free(inf);
    free(seen);
    free(q);
    return n;
}

static bool chk__fail(myri_map_check *c, const char *fmt, ...)
{
    if (!c->why[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->why, sizeof c->why, fmt, ap);
        va_end(ap);
    }
    c->isomorphic = false;
    return false;
}

typedef struct chk {
    const myri_map *m;
    const myri_topo *t;
    const bool *dead;      /* per true link: cut (NULL: none) */
    int64_t *node_true;    /* per map node: true node index (-1 unknown) */
    int32_t *shift;        /* per map switch: true port - map port */
    bool *mappable;
} chk;

/* Follows map link k from its end `a` (already matched): matches the other end. */
static bool chk__link(chk *k, myri_map_check *c, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb)
{
    const myri_map *m = k->m;
    int64_t A = k->node_true[a];
    int64_t P = a < m->nhosts ? 0 : (int64_t)pa + k->shift[a - m->nhosts];
    if (P < 0 || P >= (int64_t)k->t->node[A].nports) return chk__fail(c, "a map port has no true port");
    const myri_topo_port *tp = &k->t->node[A].port[P];
    if (tp->peer_node < 0) return chk__fail(c, "map link on an unconnected true port of %s", k->t->node[A].name);
    if (chk__dead(k->dead, tp->link)) return chk__fail(c, "map link on a dead link of %s", k->t->node[A].name);
    if (b < m->nhosts) {
        if (k->node_true[b] != tp->peer_node) return chk__fail(c, "host link leads elsewhere");
        return true;
    }
    if (k->node_true[b] < 0) {
        k->node_true[b] = tp->peer_node;
        k->shift[b - m->nhosts] = tp->peer_port - (int32_t)pb;
        return true;
    }
    if (k->node_true[b] != tp->peer_node || k->shift[b - m->nhosts] != tp->peer_port - (int32_t)pb)
        return chk__fail(c, "map switch m%u matches two places", b - m->nhosts);
    return true;
}

static void chk__match(chk *k, myri_map_check *c)
{
    const myri_map *m = k->m;
    bool more = true;
    while (more && !c->why[0]) {
        more = false;
        for (uint32_t i = 0; i < m->nlinks && !c->why[0]; i++) {
            const myri_map_link *l = &m->link[i];
            bool ka = k->node_true[l->a] >= 0, kb = k->node_true[l->b] >= 0;
            if (ka && !kb) chk__link(k, c, l->a, l->pa, l->b, l->pb), more = true;
            else if (kb && !ka) chk__link(k, c, l->b, l->pb, l->a, l->pa), more = true;
            else if (ka && kb) chk__link(k, c, l->a, l->pa, l->b, l->pb);
        }
    }
}

static void chk__count(chk *k, myri_map_check *c)
{
    const myri_map *m = k->m;
    const myri_topo *t = k->t;
    bool *used = calloc(t->nnodes, 1);
    if (!used) {
        chk__fail(c, "out of memory");
        return;
    }
    for (uint32_t n = 0; n < m->nhosts + m->nswitches && !c->why[0]; n++) {
        int64_t v = k->node_true[n];
        if (v < 0) chk__fail(c, "map node %u matches no true node", n);
        else if (used[v]) chk__fail(c, "two map nodes match %s", t->node[v].name);
        else if (!k->mappable[v]) chk__fail(c, "%s is mapped but counted unmappable", t->node[v].name);
        else used[v] = true;
    }
    free(used);
    if (c->why[0]) return;
    if (m->nhosts != c->true_hosts) chk__fail(c, "%u hosts mapped, %u mappable", m->nhosts, c->true_hosts);
    else if (m->nswitches != c->true_switches)
        chk__fail(c, "%u switches mapped, %u mappable", m->nswitches, c->true_switches);
    else if (m->nlinks != c->true_links) chk__fail(c, "%u links mapped, %u mappable", m->nlinks, c->true_links);
}

myri_status myri_map_check_topo(const myri_map *m, const myri_topo *t, uint32_t mapper_host, uint32_t reach,
                                int64_t (*host_of_id)(void *ctx, uint64_t id), void *ctx, myri_map_check *out)
{
    return myri_map_check_live(m, t, NULL, mapper_host, reach, host_of_id, ctx, out);
}

/* Whether true node v can be mapped from the mapper's host node mh: a switch
 * within reach, a host on a live cable to one (or the mapper itself). */
static bool chk__mappable(const myri_topo *t, const bool *dead, const int32_t *dist, uint32_t mh, uint32_t reach,
                          size_t v)
{
    const myri_topo_node *n = &t->node[v];
    if (n->kind == MYRI_TOPO_SWITCH) return dist[v] >= 0 && (uint32_t)dist[v] <= reach;
    if (v == mh) return true;
    const myri_topo_port *p = &n->port[0];
    if (p->peer_node < 0 || chk__dead(dead, p->link)) return false;
    if (t->node[p->peer_node].kind == MYRI_TOPO_HOST) return (uint32_t)p->peer_node == mh; /* back to back */
    return dist[p->peer_node] >= 0 && (uint32_t)dist[p->peer_node] <= reach;
}

myri_status myri_map_check_live(const myri_map *m, const myri_topo *t, const bool *link_dead, uint32_t mapper_host,
                                uint32_t reach, int64_t (*host_of_id)(void *ctx, uint64_t id), void *ctx,
                                myri_map_check *out)
{
    memset(out, 0, sizeof *out);
    if (!m || !t || mapper_host >= t->nhosts || !host_of_id) return MYRI_EINVAL;
    uint32_t mh = t->host_node[mapper_host];
    const myri_topo_port *mp = &t->node[mh].port[0];
    int32_t first = chk__dead(link_dead, mp->link) ? -1 : mp->peer_node;
    int32_t *dist = chk__dist(t, first >= 0 && t->node[first].kind == MYRI_TOPO_SWITCH ? first : -1, link_dead);
    chk k = {m, t, link_dead, calloc(m->nhosts + m->nswitches + 1, sizeof(int64_t)),
             calloc(m->nswitches + 1, sizeof(int32_t)),
             calloc(t->nnodes, 1)};
    out->unmappable = calloc(t->nnodes + 1, sizeof *out->unmappable);
    out->sw_true = calloc(m->nswitches + 1, sizeof *out->sw_true);
    if (!dist || !k.node_true || !k.shift || !k.mappable || !out->unmappable || !out->sw_true) {
        free(dist), free(k.node_true), free(k.shift), free(k.mappable);
        myri_map_check_free(out);
        return MYRI_ENOMEM;
    }
    for (size_t v = 0; v < t->nnodes; v++) {
        const myri_topo_node *n = &t->node[v];
        bool ok = chk__mappable(t, link_dead, dist, mh, reach, v);
        k.mappable[v] = ok;
        if (!ok) out->unmappable[out->unmappable_n++] = (uint32_t)v;
        else if (n->kind == MYRI_TOPO_SWITCH) out->true_switches++;
        else out->true_hosts++;
    }
    for (size_t l = 0; l < t->nlinks; l++)
        out->true_links +=
            k.mappable[t->link[l].a_node] && k.mappable[t->link[l].b_node] && !chk__dead(link_dead, (int32_t)l);
    out->mainwaring_n = chk__mainwaring(t);
    out->isomorphic = true;
    for (uint32_t i = 0; i < m->nhosts + m->nswitches; i++) k.node_true[i] = -1;
    for (uint32_t i = 0; i < m->nhosts; i++) {
        int64_t h = host_of_id(ctx, m->id[i]);
        if (h < 0 || (size_t)h >= t->nhosts) {
            chk__fail(out, "host %012llx is not in the network", (unsigned long long)m->id[i]);
            break;
        }
        k.node_true[i] = t->host_node[h];
    }
    if (!out->why[0]) chk__match(&k, out);
    if (!out->why[0]) chk__count(&k, out);
    for (uint32_t j = 0; j < m->nswitches; j++) out->sw_true[j] = k.node_true[m->nhosts + j] >= 0 ? (uint32_t)k.node_true[m->nhosts + j] : UINT32_MAX;
    free(dist);
    free(k.node_true);
    free(k.shift);
    free(k.mappable);
    return MYRI_OK;
}

void myri_map_check_free(myri_map_check *c)
{
    if (!c) return;
    free(c->unmappable);
    free(c->sw_true);
    c->unmappable = NULL;
    c->sw_true = NULL;
}
