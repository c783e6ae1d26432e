/* map_explore.c -- the mapper's exploration and verification (map.h,
 * docs/MAPPING.md), and the routes a NIC computes on a map it received.
 * Called by the mapping firmware through myri_mcp_map_lib. */
#include <stdlib.h>
#include <string.h>

#include "map/map.h"

#define XOFF(p) ((p) + 31)
#define XBATCH 64u

enum { OCC_UNKNOWN = 0, OCC_HOST, OCC_SW, OCC_EMPTY };
enum { X_IDLE, X_START, X_HOSTS, X_LOOPS, X_TESTS, X_VERIFY, X_RESCOUT, X_DONE };

typedef struct xroute {
    uint8_t len;
    uint8_t b[MYRI_MAPW_ROUTE_MAX];
} xroute;

typedef struct xsw {
    int32_t link[MYRI_MAP_OFFSETS];
    uint8_t occ[MYRI_MAP_OFFSETS];
    xroute r;                  /* reaches it, entering on frame port `entry` */
    int32_t entry;             /* 0 when explored; another after a local repair re-routed it */
    bool hostful, explored, reached;
} xsw;

typedef struct xhost {
    uint64_t id;
    uint8_t level;
    int32_t sw, port;          /* -1 for the peer of a back-to-back pair */
    xroute r, ret;             /* the route to it and its way back */
    bool gone;                 /* found dead by a verification (local repair) */
} xhost;

typedef struct xend {
    bool sw;
    uint32_t idx;
    int32_t port;
} xend;

typedef struct xlink {
    xend a, b;
    bool gone;                 /* found cut by a verification (local repair) */
} xlink;

typedef struct xcand {
    xroute r;
    uint32_t parent;
    int32_t pport;
} xcand;

typedef struct xprobe {
    myri_mcp_map_probe p;
    int32_t d;
    bool answered;
    uint64_t id;
    uint8_t level;
} xprobe;

typedef struct xtest {
    uint32_t t;
    int32_t p;
} xtest;

struct myri_map_explorer {
    myri_map_cfg cfg;
    uint64_t my_id;
    uint8_t my_level;
    int phase, result;
    xsw *sw;
    uint32_t nsw, capsw;
    xhost *host;
    uint32_t nhost, caphost;
    xlink *lk;
    uint32_t nlk, caplk;
    xcand *q;
    uint32_t qn, qhead, qcap;
    xcand cur;
    int32_t cur_sw;
    uint8_t cand_s[MYRI_MAP_OFFSETS];   /* host-less candidate: its switch-occupied offsets */
    xtest *tests;
    uint32_t ntests, test_i, captests;
    xprobe batch[XBATCH];
    uint32_t nb, sent, batch_no;
    bool complete;
    uint32_t v_i, sweeps;
    uint32_t rs_i, rs_sw;      /* re-scouting: the next switch, the current one */
    uint32_t v_retry;
    bool v_restarted;
    myri_map map;
    bool have_map;
    struct xrt {
        uint64_t id;
        int len;
        uint8_t b[MYRI_MAPW_ROUTE_MAX];
    } *rt;
    uint32_t nrt;
    void (*note)(void *ctx, const char *what, uint64_t a, uint64_t b);
    void *note_ctx;
    myri_map_xstats st;
};

/* ---- small helpers ---------------------------------------------------------------------------- */

static bool x__grow(void **p, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap) return true;
    uint32_t c = *cap ? *cap * 2 : 16;
    while (c < need) c *= 2;
    void *n = realloc(*p, (size_t)c * sz);
    if (!n) return false;
    *p = n;
    *cap = c;
    return true;
}

static bool x__cat(xroute *r, const uint8_t *b, uint32_t n)
{
    if (r->len + n > MYRI_MAPW_ROUTE_MAX) return false;
    memcpy(r->b + r->len, b, n);
    r->len = (uint8_t)(r->len + n);
    return true;
}

static bool x__push(xroute *r, int d)
{
    uint8_t b = myri_mapw_rel(d);
    return x__cat(r, &b, 1);
}

/* The way back of route r: reversed, offsets negated. */
static bool x__rev(xroute *out, const xroute *r)
{
    for (int i = r->len - 1; i >= 0; i--)
        if (!x__push(out, -myri_mapw_off(r->b[i]))) return false;
    return true;
}

static int32_t x__offset(uint32_t k) /* the k-th offset probed: 1, -1, 2, -2, ... */
{
    int32_t m = (int32_t)(k / 2 + 1);
    return (k & 1) ? -m : m;
}

static int64_t x__find_host(const myri_map_explorer *x, uint64_t id)
{
    for (uint32_t i = 0; i < x->nhost; i++)
        if (x->host[i].id == id) return i;
    return -1;
}

static void x__note(myri_map_explorer *x, const char *what, uint64_t a, uint64_t b)
{
    if (x->note) x->note(x->note_ctx, what, a, b);
}

/* ---- graph ------------------------------------------------------------------------------------ */

static int64_t x__new_switch(myri_map_explorer *x, const xroute *r)
{
    if (x->nsw >= MYRI_MAP_MAX_SWITCHES || !x__grow((void **)&x->sw, &x->capsw, x->nsw + 1, sizeof *x->sw)) return -1;
    xsw *s = &x->sw[x->nsw];
    memset(s, 0, sizeof *s);
    for (int i = 0; i < MYRI_MAP_OFFSETS; i++) s->link[i] = MYRI_MAP_NO_LINK;
    s->r = *r;
    s->reached = true;
    return x->nsw++;
}

static bool x__link(myri_map_explorer *x, xend a, xend b)
{
    if (!x__grow((void **)&x->lk, &x->caplk, x->nlk + 1, sizeof *x->lk)) return false;
    x->lk[x->nlk] = (xlink){a, b, false};
    if (a.sw) x->sw[a.idx].link[XOFF(a.port)] = (int32_t)x->nlk;
    if (b.sw) x->sw[b.idx].link[XOFF(b.port)] = (int32_t)x->nlk;
    x->nlk++;
    return true;
}

static int64_t x__add_host(myri_map_explorer *x, uint64_t id, uint8_t level, int32_t sw, int32_t port,
                           const xroute *r, const xroute *ret)
{
    if (x->nhost >= MYRI_MAP_MAX_HOSTS || !x__grow((void **)&x->host, &x->caphost, x->nhost + 1, sizeof *x->host))
        return -1;
    xhost *h = &x->host[x->nhost];
    memset(h, 0, sizeof *h);
    h->id = id;
    h->level = level;
    h->sw = sw;
    h->port = port;
    if (r) h->r = *r;
    if (ret) h->ret = *ret;
    if (sw >= 0) {
        x->sw[sw].occ[XOFF(port)] = OCC_HOST;
        x->sw[sw].hostful = true;
        if (!x__link(x, (xend){false, x->nhost, 0}, (xend){true, (uint32_t)sw, port})) return -1;
    }
    return x->nhost++;
}

/* ---- batches ---------------------------------------------------------------------------------- */

static void x__batch_reset(myri_map_explorer *x)
{
    x->nb = x->sent = 0;
    x->complete = false;
    x->batch_no = (x->batch_no + 1) & 0xffffffu;
    x->st.batches++;
}

static xprobe *x__batch_add(myri_map_explorer *x, uint8_t kind, const xroute *r, int32_t d)
{
    if (x->nb >= XBATCH) return NULL;
    xprobe *p = &x->batch[x->nb];
    memset(p, 0, sizeof *p);
    p->p.kind = kind;
    p->p.len = r->len;
    memcpy(p->p.route, r->b, r->len);
    p->p.tag = x->batch_no << 8 | x->nb;
    p->d = d;
    x->nb++;
    return p;
}

/* A scout to the host at offset d of the switch reached by r. */
static bool x__scout(myri_map_explorer *x, const xroute *r, int32_t d)
{
    xroute to = *r, back = {0};
    if (!x__push(&to, d) || !x__push(&back, -d) || !x__rev(&back, r)) return false;
    xprobe *p = x__batch_add(x, MYRI_MAPW_SCOUT, &to, d);
    if (!p) return false;
    p->p.ret_len = back.len;
    memcpy(p->p.ret, back.b, back.len);
    return true;
}

/* A loop probe through offset d of the switch reached by r: r.d.0.(-d).r^-1. */
static bool x__loop(myri_map_explorer *x, const xroute *r, int32_t d)
{
    xroute to = *r;
    if (!x__push(&to, d) || !x__push(&to, 0) || !x__push(&to, -d) || !x__rev(&to, r)) return false;
    return x__batch_add(x, MYRI_MAPW_LOOP, &to, d) != NULL;
}

/* ---- exploration -------------------------------------------------------------------------------- */

static void x__finish(myri_map_explorer *x);
static void x__next_candidate(myri_map_explorer *x);
static void x__start_loops(myri_map_explorer *x);

static void x__start_hosts(myri_map_explorer *x)
{
    x__batch_reset(x);
    x->phase = X_HOSTS;
    for (uint32_t k = 0; k < 2 * (x->cfg.ports - 1); k++) {
        int32_t d = x__offset(k);
        if (x->cur_sw >= 0 && x->sw[x->cur_sw].occ[XOFF(d)] != OCC_UNKNOWN) continue;
        if (x->cur_sw >= 0 && x->sw[x->cur_sw].link[XOFF(d)] != MYRI_MAP_NO_LINK) continue;
        if (!x__scout(x, &x->cur.r, d)) break;
    }
    if (x->nb == 0) x__start_loops(x);
}

/* The candidate is switch t entered on frame port e: the link from its parent. */
static void x__identified(myri_map_explorer *x, uint32_t t, int32_t e)
{
    if (e < -31 || e > 31) return;
    if (x->sw[t].link[XOFF(e)] != MYRI_MAP_NO_LINK || x->sw[x->cur.parent].link[XOFF(x->cur.pport)] != MYRI_MAP_NO_LINK)
        return;
    (void)x__link(x, (xend){true, x->cur.parent, x->cur.pport}, (xend){true, t, e});
    x->sw[t].occ[XOFF(e)] = OCC_SW;
}

/* Adds the switch at the current probe's route as a new host-less switch,
 * linked to the port it was reached through; false (exploration over) if the
 * map is full. */
static bool x__add_hostless(myri_map_explorer *x)
{
    int64_t t = x__new_switch(x, &x->cur.r);
    if (t < 0) {
        x__finish(x);
        return false;
    }
    x->cur_sw = (int32_t)t;
    (void)x__link(x, (xend){true, x->cur.parent, x->cur.pport}, (xend){true, (uint32_t)t, 0});
    x->sw[t].occ[XOFF(0)] = OCC_SW;
    return true;
}

/* The hosts the scouts of the batch found on switch sw (reached by r). */
static void x__found_hosts(myri_map_explorer *x, const xroute *r, int32_t sw)
{
    for (uint32_t i = 0; i < x->nb; i++) {
        const xprobe *p = &x->batch[i];
        if (!p->answered || x__find_host(x, p->id) >= 0) continue;
        xroute to = *r, back = {0};
        (void)x__push(&to, p->d);
        (void)x__push(&back, -p->d);
        (void)x__rev(&back, r);
        (void)x__add_host(x, p->id, p->level, sw, p->d, &to, &back);
    }
}

static void x__process_hosts(myri_map_explorer *x)
{
    if (x->cur_sw < 0) {
        bool any = false;
        for (uint32_t i = 0; i < x->nb; i++) {
            if (!x->batch[i].answered) continue;
            any = true;
            int64_t h = x__find_host(x, x->batch[i].id);
            if (h >= 0 && x->host[h].sw >= 0) {
                x__identified(x, (uint32_t)x->host[h].sw, x->host[h].port - x->batch[i].d);
                x__next_candidate(x);
                return;
            }
        }
        if (!any) {
            x__start_loops(x);
            return;
        }
        if (!x__add_hostless(x)) return;
    }
    x__found_hosts(x, &x->cur.r, x->cur_sw);
    x__start_loops(x);
}

static void x__start_loops(myri_map_explorer *x)
{
    x__batch_reset(x);
    x->phase = X_LOOPS;
    if (2u * x->cur.r.len + 3u > MYRI_MAPW_ROUTE_MAX) { /* too far to explore */
        x->st.unexplored++;
    } else {
        for (uint32_t k = 0; k < 2 * (x->cfg.ports - 1); k++) {
            int32_t d = x__offset(k);
            if (x->cur_sw >= 0) {
                const xsw *s = &x->sw[x->cur_sw];
                if (s->occ[XOFF(d)] == OCC_HOST || s->link[XOFF(d)] != MYRI_MAP_NO_LINK) continue;
            }
            if (!x__loop(x, &x->cur.r, d)) break;
        }
    }
    if (x->nb == 0) {
        x->complete = true;
        x->sent = 0;
    }
}

static void x__queue(myri_map_explorer *x, uint32_t parent, int32_t d)
{
    xcand c = {.r = x->sw[parent].r, .parent = parent, .pport = d};
    if (!x__push(&c.r, d) || c.r.len > MYRI_MAP_REACH) { /* beyond what a loop probe can explore */
        x->st.unexplored++;
        return;
    }
    if (!x__grow((void **)&x->q, &x->qcap, x->qn + 1, sizeof *x->q)) return;
    x->q[x->qn++] = c;
}

/* The switch just explored at x->cur_sw: its offsets from the loop batch. */
static void x__explored(myri_map_explorer *x, const uint8_t *s_occ)
{
    xsw *s = &x->sw[x->cur_sw];
    s->explored = true;
    for (int32_t d = -31; d <= 31; d++) {
        if (d == 0 || s->occ[XOFF(d)] == OCC_HOST || s->link[XOFF(d)] != MYRI_MAP_NO_LINK) continue;
        if (s_occ[XOFF(d)]) {
            s->occ[XOFF(d)] = OCC_SW;
            x__queue(x, (uint32_t)x->cur_sw, d);
        } else if (d > -(int32_t)x->cfg.ports && d < (int32_t)x->cfg.ports) {
            s->occ[XOFF(d)] = OCC_EMPTY;
        }
    }
}

static bool x__occupied(const xsw *s, int32_t p)
{
    if (p < -31 || p > 31) return false;
    return s->occ[XOFF(p)] == OCC_HOST || s->occ[XOFF(p)] == OCC_SW || s->link[XOFF(p)] != MYRI_MAP_NO_LINK;
}

/* A new host-less switch (no known one matched). */
static void x__new_hostless(myri_map_explorer *x)
{
    if (!x__add_hostless(x)) return;
    x__explored(x, x->cand_s);
    x__next_candidate(x);
}

static void x__start_test(myri_map_explorer *x)
{
    const xtest *t = &x->tests[x->test_i];
    xroute r = x->cur.r;
    x__batch_reset(x);
    x->phase = X_TESTS;
    if (!x__push(&r, -t->p) || !x__rev(&r, &x->sw[t->t].r) || !x__batch_add(x, MYRI_MAPW_LOOP, &r, t->p)) {
        x->complete = true; /* too long: counts as not that switch */
        x->sent = x->nb = 0;
    }
}

/* The known host-less explored switches whose occupied ports are the
 * candidate's shifted by p. */
static void x__find_tests(myri_map_explorer *x)
{
    int32_t occ[MYRI_MAP_OFFSETS];
    uint32_t n = 0;
    occ[n++] = 0;
    for (int32_t d = -31; d <= 31; d++)
        if (x->cand_s[XOFF(d)]) occ[n++] = d;
    x->ntests = x->test_i = 0;
    for (uint32_t t = 0; t < x->nsw; t++) {
        const xsw *s = &x->sw[t];
        if (s->hostful || !s->explored) continue;
        uint32_t m = 0;
        for (int32_t p = -31; p <= 31; p++) m += x__occupied(s, p);
        if (m != n) continue;
        for (int32_t p = -31; p <= 31; p++) {
            bool ok = true;
            for (uint32_t i = 0; i < n && ok; i++) ok = x__occupied(s, occ[i] + p);
            if (!ok || x->cur.r.len + 1u + s->r.len > MYRI_MAPW_ROUTE_MAX) continue;
            if (!x__grow((void **)&x->tests, &x->captests, x->ntests + 1, sizeof *x->tests)) continue;
            x->tests[x->ntests++] = (xtest){t, p};
        }
    }
}

static void x__process_loops(myri_map_explorer *x)
{
    uint8_t s_occ[MYRI_MAP_OFFSETS] = {0};
    for (uint32_t i = 0; i < x->nb; i++)
        if (x->batch[i].answered) s_occ[XOFF(x->batch[i].d)] = 1;
    if (x->cur_sw >= 0) {
        x__explored(x, s_occ);
        x__next_candidate(x);
        return;
    }
    memcpy(x->cand_s, s_occ, sizeof s_occ);
    x__find_tests(x);
    if (x->ntests == 0) x__new_hostless(x);
    else x__start_test(x);
}

static void x__process_test(myri_map_explorer *x)
{
    if (x->nb && x->batch[0].answered) {
        const xtest *t = &x->tests[x->test_i];
        x__identified(x, t->t, t->p);
        x__next_candidate(x);
        return;
    }
    if (++x->test_i < x->ntests) x__start_test(x);
    else x__new_hostless(x);
}

static void x__next_candidate(myri_map_explorer *x)
{
    while (x->qhead < x->qn) {
        xcand c = x->q[x->qhead++];
        if (x->sw[c.parent].link[XOFF(c.pport)] != MYRI_MAP_NO_LINK) continue; /* linked from the other side */
        x->cur = c;
        x->cur_sw = -1;
        x__start_hosts(x);
        return;
    }
    x__finish(x);
}

/* ---- the map from the graph ------------------------------------------------------------------------- */

static uint32_t x__ports_for(uint32_t span)
{
    uint32_t p = 4;
    while (p < span && p < 32) p *= 2;
    return p;
}

/* Marks the hosts and switches reached from the mapper through links not gone. */
static void x__reach(const myri_map_explorer *x, bool *hin, bool *sin)
{
    hin[0] = true;
    for (bool more = true; more;) {
        more = false;
        for (uint32_t k = 0; k < x->nlk; k++) {
            const xlink *l = &x->lk[k];
            if (l->gone) continue;
            bool ia = l->a.sw ? sin[l->a.idx] : hin[l->a.idx], ib = l->b.sw ? sin[l->b.idx] : hin[l->b.idx];
            if (ia == ib) continue;
            const xend *e = ia ? &l->b : &l->a;
            if (!e->sw && x->host[e->idx].gone) continue;
            if (e->sw) sin[e->idx] = true;
            else hin[e->idx] = true;
            more = true;
        }
    }
}

/* The map of what is reached from the mapper, ports numbered from each
 * switch's lowest used frame port. */
static void x__build_map(myri_map_explorer *x)
{
    myri_map *m = &x->map;
    myri_map_free(m);
    myri_map_init(m);
    uint32_t nh = x->nhost ? x->nhost : 1, ns = x->nsw ? x->nsw : 1;
    int32_t *base = calloc(ns, sizeof *base), *hnew = calloc(nh, sizeof *hnew), *snew = calloc(ns, sizeof *snew);
    bool *hin = calloc(nh, 1), *sin = calloc(ns, 1);
    m->id = calloc(nh, sizeof *m->id);
    m->level = calloc(nh, 1);
    m->sw_ports = calloc(ns, sizeof *m->sw_ports);
    m->link = calloc(x->nlk ? x->nlk : 1, sizeof *m->link);
    if (base && hnew && snew && hin && sin && m->id && m->level && m->sw_ports && m->link) {
        x__reach(x, hin, sin);
        for (uint32_t i = 0; i < x->nhost; i++) {
            hnew[i] = hin[i] ? (int32_t)m->nhosts : -1;
            if (hin[i]) m->id[m->nhosts] = x->host[i].id, m->level[m->nhosts++] = x->host[i].level;
        }
        for (uint32_t s = 0; s < x->nsw; s++) {
            snew[s] = sin[s] ? (int32_t)m->nswitches : -1;
            if (!sin[s]) continue;
            int32_t lo = 31, hi = -31;
            for (int32_t p = -31; p <= 31; p++)
                if (x__occupied(&x->sw[s], p)) lo = p < lo ? p : lo, hi = p > hi ? p : hi;
            if (lo > hi) lo = hi = 0;
            base[s] = lo;
            m->sw_ports[m->nswitches++] = x__ports_for((uint32_t)(hi - lo + 1));
        }
        for (uint32_t k = 0; k < x->nlk; k++) {
            const xlink *l = &x->lk[k];
            int32_t a = l->a.sw ? snew[l->a.idx] : hnew[l->a.idx], b = l->b.sw ? snew[l->b.idx] : hnew[l->b.idx];
            if (l->gone || a < 0 || b < 0) continue;
            myri_map_link *o = &m->link[m->nlinks++];
            o->a = l->a.sw ? m->nhosts + (uint32_t)a : (uint32_t)a;
            o->pa = l->a.sw ? (uint32_t)(l->a.port - base[l->a.idx]) : 0;
            o->b = l->b.sw ? m->nhosts + (uint32_t)b : (uint32_t)b;
            o->pb = l->b.sw ? (uint32_t)(l->b.port - base[l->b.idx]) : 0;
        }
        m->cap_hosts = nh;
        m->cap_switches = ns;
        m->cap_links = x->nlk;
        x->have_map = true;
    } else {
        myri_map_free(m);
    }
    free(base);
    free(hnew);
    free(snew);
    free(hin);
    free(sin);
}

static void x__finish(myri_map_explorer *x)
{
    x__build_map(x);
    x->phase = X_DONE;
    x->result = 1;
    x__note(x, "explored", x->nhost, x->nsw);
}

/* ---- verification ------------------------------------------------------------------------------------ */

/* Item i of a sweep: switch-to-switch links in the order found (loops:
 * a link is probed after the links of the route to it), then hosts 1..
 * (scouts). */
static uint32_t x__nswlinks(const myri_map_explorer *x)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < x->nlk; j++) n += x->lk[j].a.sw && x->lk[j].b.sw;
    return n;
}

static bool x__verify_item(myri_map_explorer *x, uint32_t i)
{
    x__batch_reset(x);
    uint32_t nsl = x__nswlinks(x);
    if (i < nsl) {
        for (uint32_t j = 0, seen = 0; j < x->nlk; j++) {
            const xlink *l = &x->lk[j];
            if (!l->a.sw || !l->b.sw || seen++ != i) continue;
            if (l->gone) return true;
            const xend *e = &l->a;
            if (!x->sw[e->idx].reached || (x->sw[l->b.idx].reached && x->sw[l->b.idx].r.len < x->sw[e->idx].r.len))
                e = &l->b;
            if (!x->sw[e->idx].reached) return true;
            (void)x__loop(x, &x->sw[e->idx].r, e->port - x->sw[e->idx].entry);
            return true;
        }
    }
    uint32_t h = i - nsl + 1;
    if (h >= x->nhost) return false;
    if (x->host[h].gone) return true; /* nothing to send: skipped */
    xprobe *p = x__batch_add(x, MYRI_MAPW_SCOUT, &x->host[h].r, (int32_t)h);
    if (!p) return false;
    p->p.ret_len = x->host[h].ret.len;
    memcpy(p->p.ret, x->host[h].ret.b, x->host[h].ret.len);
    return true;
}

/* After a local repair: new routes to every switch and host through the
 * links not gone (breadth first from the mapper); a switch may now be
 * entered on another frame port (entry). */
static void x__reroute(myri_map_explorer *x)
{
    for (uint32_t s2 = 0; s2 < x->nsw; s2++) x->sw[s2].reached = false;
    if (!x->nsw || x->host[0].sw < 0) return;
    uint32_t *q = malloc(x->nsw * sizeof *q), qh = 0, qt = 0;
    if (!q) return;
    x->sw[0].reached = true;
    x->sw[0].r.len = 0;
    x->sw[0].entry = x->host[0].port;
    q[qt++] = 0;
    while (qh < qt) {
        uint32_t u = q[qh++];
        const xsw *su = &x->sw[u];
        for (uint32_t k = 0; k < x->nlk; k++) {
            const xlink *l = &x->lk[k];
            if (l->gone) continue;
            const xend *me = l->a.sw && l->a.idx == u ? &l->a : l->b.sw && l->b.idx == u ? &l->b : NULL;
            if (!me) continue;
            const xend *o = me == &l->a ? &l->b : &l->a;
            xroute r = su->r;
            if (!x__push(&r, me->port - su->entry)) continue;
            if (!o->sw) {
                xhost *h = &x->host[o->idx];
                if (o->idx == 0) continue;
                h->r = r;
                h->ret.len = 0;
                (void)x__push(&h->ret, -(me->port - su->entry));
                (void)x__rev(&h->ret, &su->r);
                continue;
            }
            xsw *sv = &x->sw[o->idx];
            if (sv->reached || r.len > MYRI_MAP_REACH) continue;
            sv->reached = true;
            sv->r = r;
            sv->entry = o->port;
            q[qt++] = o->idx;
        }
    }
    free(q);
}

static void x__verify_next(myri_map_explorer *x)
{
    while (x__verify_item(x, x->v_i)) {
        if (x->nb) return;
        x->v_i++; /* not verifiable (too far): skipped */
    }
    x->phase = X_DONE;
    x->result = 0;
}

static void x__process_verify(myri_map_explorer *x)
{
    bool ok = x->nb && x->batch[0].answered;
    if (ok && x->batch[0].p.kind == MYRI_MAPW_SCOUT) ok = x->batch[0].id == x->host[x->batch[0].d].id;
    if (ok || x->v_retry < 2) {
        if (ok) x->v_i++, x->v_retry = 0;
        else x->v_retry++; /* twice more before calling it a fault (a loaded NIC answers late) */
        x__verify_next(x);
        return;
    }
    uint32_t nsl0 = x__nswlinks(x);
    if (x->v_i >= nsl0 && !x->v_restarted) {
        /* a host did not answer: first check the links again (one may have
         * been cut after this sweep checked it), then blame the host */
        x->v_restarted = true;
        x->v_i = 0;
        x->v_retry = 0;
        x__verify_next(x);
        return;
    }
    x->phase = X_DONE;
    x->st.faults++;
    x__note(x, "verify_fault", x->v_i, 0);
    /* local repair: the map without what failed, distributed at once; the
     * next full exploration (map.remap_every) finds it again if it comes back */
    uint32_t nsl = x__nswlinks(x);
    if (x->v_i < nsl) {
        for (uint32_t j = 0, seen = 0; j < x->nlk; j++)
            if (x->lk[j].a.sw && x->lk[j].b.sw && seen++ == x->v_i) x->lk[j].gone = true;
    } else {
        uint32_t h = x->v_i - nsl + 1;
        x->host[h].gone = true;
        for (uint32_t j = 0; j < x->nlk; j++)
            if ((!x->lk[j].a.sw && x->lk[j].a.idx == h) || (!x->lk[j].b.sw && x->lk[j].b.idx == h)) x->lk[j].gone = true;
    }
    x__reroute(x);
    x__build_map(x);
    x->result = 1;
}

/* ---- re-scouting ------------------------------------------------------------------------------------- */

/* After an exploration during which another NIC was mapping (its out ring
 * full of its own probes, it dropped scouts or answered them late): a scout
 * again to every port each explored switch showed empty, one batch per
 * switch; what answers joins the map.  Much cheaper than exploring again
 * (no loop probes, no identity tests). */
static void x__rescout_next(myri_map_explorer *x)
{
    while (x->rs_i < x->nsw) {
        uint32_t s = x->rs_i++;
        const xsw *w = &x->sw[s];
        if (!w->explored || !w->reached || w->entry != 0) continue;
        x__batch_reset(x);
        for (uint32_t k = 0; k < 2 * (x->cfg.ports - 1); k++) {
            int32_t d = x__offset(k);
            if (w->occ[XOFF(d)] == OCC_EMPTY && !x__scout(x, &w->r, d)) break;
        }
        if (x->nb) {
            x->rs_sw = s;
            return;
        }
    }
    x__build_map(x);
    x->phase = X_DONE;
    x->result = 1;
    x__note(x, "rescouted", x->nhost, x->nsw);
}

static void x__process_rescout(myri_map_explorer *x)
{
    x__found_hosts(x, &x->sw[x->rs_sw].r, (int32_t)x->rs_sw);
    x__rescout_next(x);
}

/* ---- the library --------------------------------------------------------------------------------------- */

static void x__reset(myri_map_explorer *x)
{
    x->nsw = x->nhost = x->nlk = x->qn = x->qhead = x->ntests = 0;
}

static void lib_begin(void *ctx, uint64_t my_id, uint8_t level, bool verify)
{
    myri_map_explorer *x = ctx;
    x->my_id = my_id;
    x->my_level = level;
    bool full = !verify || !x->have_map || (x->cfg.remap_every && ++x->sweeps % x->cfg.remap_every == 0);
    if (!full) {
        x->st.sweeps++;
        x->v_i = 0;
        x->v_retry = 0;
        x->v_restarted = false;
        x->phase = X_VERIFY;
        x__verify_next(x);
        return;
    }
    x->st.explorations++;
    x__reset(x);
    x__batch_reset(x);
    x->phase = X_START;
    xroute none = {0};
    (void)x__add_host(x, my_id, level, -1, 0, NULL, NULL);
    xprobe *p = x__batch_add(x, MYRI_MAPW_SCOUT, &none, 0); /* a back-to-back peer, if any */
    (void)p;
}

static void x__start_done(myri_map_explorer *x)
{
    if (x->nb && x->batch[0].answered && x->batch[0].id != x->my_id) {
        xroute none = {0};
        (void)x__add_host(x, x->batch[0].id, x->batch[0].level, -1, 0, &none, &none);
        (void)x__link(x, (xend){false, 0, 0}, (xend){false, 1, 0});
        x__finish(x);
        return;
    }
    xroute none = {0};
    int64_t s = x__new_switch(x, &none);
    if (s < 0) {
        x__finish(x);
        return;
    }
    x->host[0].sw = 0;
    x->host[0].port = 0;
    x->sw[0].occ[XOFF(0)] = OCC_HOST;
    x->sw[0].hostful = true;
    (void)x__link(x, (xend){false, 0, 0}, (xend){true, 0, 0});
    x->cur = (xcand){.r = none, .parent = 0, .pport = 0};
    x->cur_sw = 0;
    x__start_hosts(x);
}

static void x__advance(myri_map_explorer *x)
{
    switch (x->phase) {
    case X_START: x__start_done(x); break;
    case X_HOSTS: x__process_hosts(x); break;
    case X_LOOPS: x__process_loops(x); break;
    case X_TESTS: x__process_test(x); break;
    case X_VERIFY: x__process_verify(x); break;
    case X_RESCOUT: x__process_rescout(x); break;
    default: x->phase = X_DONE; break;
    }
}

static void lib_rescout(void *ctx)
{
    myri_map_explorer *x = ctx;
    if (!x->have_map || !x->nsw) { /* nothing explored to scout again */
        x->phase = X_DONE;
        x->result = x->have_map ? 1 : -1;
        return;
    }
    x->phase = X_RESCOUT;
    x->rs_i = 0;
    x__rescout_next(x);
}

static bool x__answered_all(const myri_map_explorer *x)
{
    if (x->complete) return true;
    for (uint32_t i = 0; i < x->nb; i++)
        if (!x->batch[i].answered) return false;
    return true;
}

static int lib_peek(void *ctx)
{
    myri_map_explorer *x = ctx;
    for (int guard = 0; guard < 1 << 20; guard++) {
        if (x->phase == X_DONE || x->phase == X_IDLE) return -1;
        if (x->sent < x->nb) return 1;
        if (!x__answered_all(x)) return 0;
        x__advance(x);
    }
    return -1;
}

static void lib_next(void *ctx, myri_mcp_map_probe *p)
{
    myri_map_explorer *x = ctx;
    memset(p, 0, sizeof *p);
    if (x->sent >= x->nb) return;
    *p = x->batch[x->sent++].p;
    x->st.probes++;
}

static bool lib_expects(void *ctx, uint32_t tag)
{
    const myri_map_explorer *x = ctx;
    uint32_t i = tag & 0xffu;
    return x->phase != X_DONE && (tag >> 8) == x->batch_no && !x->complete && i < x->sent && !x->batch[i].answered;
}

static void lib_answer(void *ctx, const myri_mcp_map_answer *a)
{
    myri_map_explorer *x = ctx;
    if (!lib_expects(x, a->tag)) return;
    xprobe *p = &x->batch[a->tag & 0xffu];
    bool want = p->p.kind == MYRI_MAPW_SCOUT ? a->kind == MYRI_MAPW_REPLY : a->kind == MYRI_MAPW_LOOP;
    if (!want || (a->kind == MYRI_MAPW_LOOP && a->id != x->my_id)) return;
    p->answered = true;
    p->id = a->id;
    p->level = a->level;
}

static bool lib_batch_answered(void *ctx)
{
    const myri_map_explorer *x = ctx;
    return x->sent == x->nb && x__answered_all(x);
}

static void lib_timeout(void *ctx)
{
    myri_map_explorer *x = ctx;
    x->complete = true;
    x->st.timeouts++;
}

static int lib_changed(void *ctx) { return ((const myri_map_explorer *)ctx)->result; }

static void lib_best(void *ctx, uint8_t *level, uint64_t *id)
{
    const myri_map_explorer *x = ctx;
    *level = x->my_level;
    *id = x->my_id;
    for (uint32_t i = 0; i < x->nhost; i++)
        if (!x->host[i].gone && myri_mapw_cmp(x->host[i].level, x->host[i].id, *level, *id) > 0)
            *level = x->host[i].level, *id = x->host[i].id;
}

static uint32_t lib_encode(void *ctx, uint8_t *buf, uint32_t max)
{
    const myri_map_explorer *x = ctx;
    return x->have_map ? myri_map_encode(&x->map, buf, max) : 0;
}

static int lib_dest(void *ctx, uint32_t i, myri_mcp_map_probe *p)
{
    const myri_map_explorer *x = ctx;
    if (i + 1 >= x->nhost) return 0;
    const xhost *h = &x->host[i + 1];
    memset(p, 0, sizeof *p);
    if (h->gone) return 1; /* not in the map: a packet of kind 0, which the firmware does not send */
    p->kind = MYRI_MAPW_MAP;
    p->len = h->r.len;
    memcpy(p->route, h->r.b, h->r.len);
    return 1;
}

static int lib_routes(void *ctx, const uint8_t *body, uint32_t n, uint64_t my_id)
{
    myri_map_explorer *x = ctx;
    x->nrt = 0;
    myri_map m;
    myri_map_init(&m);
    myri_topo *t = NULL;
    myri_routes r = {0};
    myri_error err;
    int res = -1;
    if (myri_map_decode(&m, body, n) != MYRI_OK || myri_map_to_topo(&m, &t, &err) != MYRI_OK) goto out;
    uint32_t me = UINT32_MAX;
    for (uint32_t i = 0; i < m.nhosts; i++)
        if (m.id[i] == my_id) me = i;
    if (me == UINT32_MAX || myri_routes_updown(t, MYRI_ROUTE_RELATIVE, &r, &err) != MYRI_OK) goto out;
    struct xrt *rt = realloc(x->rt, (size_t)(m.nhosts ? m.nhosts : 1) * sizeof *rt);
    if (!rt) goto out;
    x->rt = rt;
    for (uint32_t i = 0; i < m.nhosts; i++) {
        myri_route buf;
        const myri_route *ro = myri_routes_get(&r, me, i, &buf);
        x->rt[i].id = m.id[i];
        x->rt[i].len = ro && ro->len != MYRI_ROUTE_NONE ? ro->len : -1;
        if (x->rt[i].len > 0) memcpy(x->rt[i].b, ro->byte, ro->len);
    }
    x->nrt = m.nhosts;
    res = (int)m.nhosts;
out:
    myri_routes_free(&r);
    myri_topo_destroy(t);
    myri_map_free(&m);
    return res;
}

static int lib_route(void *ctx, uint32_t i, uint64_t *id, uint8_t *bytes)
{
    const myri_map_explorer *x = ctx;
    if (i >= x->nrt) return -1;
    *id = x->rt[i].id;
    if (x->rt[i].len > 0) memcpy(bytes, x->rt[i].b, (size_t)x->rt[i].len);
    return x->rt[i].len;
}

static void lib_note(void *ctx, const char *what, uint64_t a, uint64_t b) { x__note(ctx, what, a, b); }

void myri_map_explorer_lib(myri_map_explorer *x, myri_mcp_map_lib *lib)
{
    *lib = (myri_mcp_map_lib){.ctx = x, .begin = lib_begin, .peek = lib_peek, .next = lib_next,
                              .expects = lib_expects, .answer = lib_answer, .batch_answered = lib_batch_answered,
                              .timeout = lib_timeout, .changed = lib_changed, .best = lib_best,
                              .rescout = lib_rescout, .encode = lib_encode, .dest = lib_dest, .routes = lib_routes,
                              .route = lib_route, .cycles = NULL, .note = lib_note};
}

myri_map_explorer *myri_map_explorer_create(const myri_map_cfg *cfg)
{
    if (!cfg || cfg->ports < 2 || cfg->ports > 32) return NULL;
    myri_map_explorer *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->cfg = *cfg;
    x->phase = X_IDLE;
    myri_map_init(&x->map);
    return x;
}

void myri_map_explorer_destroy(myri_map_explorer *x)
{
    if (!x) return;
    free(x->sw);
    free(x->host);
    free(x->lk);
    free(x->q);
    free(x->tests);
    free(x->rt);
    myri_map_free(&x->map);
    free(x);
}

void myri_map_explorer_set_note(myri_map_explorer *x, void (*fn)(void *ctx, const char *what, uint64_t a, uint64_t b),
                                void *ctx)
{
    if (!x) return;
    x->note = fn;
    x->note_ctx = ctx;
}

const myri_map *myri_map_explorer_map(const myri_map_explorer *x) { return x && x->have_map ? &x->map : NULL; }

void myri_map_explorer_stats(const myri_map_explorer *x, myri_map_xstats *out)
{
    if (x && out) *out = x->st;
}
