/* topo_routes.c -- the compact store of all-pairs source routes.
 *
 * A flat table of every ordered pair (33 bytes each) takes 553 MB at 4096
 * hosts.  The routes of the hosts attached to one switch leave that switch
 * on the same path: they differ at most in their first byte, and only under
 * relative encoding (the byte depends on the port the host enters on).  So:
 *
 *  - routes are interned: each distinct route is kept once in a byte pool
 *    (its length, then its bytes) and found again through a hash set;
 *  - the first byte is kept "as if entered on port 0": under relative
 *    encoding its low 6 bits plus the host's entry port (mod 64), i.e. the
 *    output port, which is what absolute encoding stores anyway.  This is a
 *    bijection for each entry port, so any byte round-trips exactly;
 *  - a row is nhosts pool offsets, one per destination; the hosts of one
 *    switch share a row (a host on no switch has its own).  myri_routes_set
 *    gives a host its own copy of the row before changing one of its pairs.
 *
 * The pair (h, h) has no route whatever its row holds (the row of a switch
 * holds the route to h for the other hosts on that switch).
 *
 * A 4-ary 6-tree (4096 hosts on 1024 leaf switches): 1024 rows of 16 KB and
 * about 1 MB of distinct routes and their hash set, 19 MB in all. */
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

#define ROUTES__NONE_OFF 0u /* pool offset of the no-route entry (length 0xff) */

/* The stored form of first byte b of a host entering on port `in`. */
static uint8_t routes__canon(const myri_routes *r, uint8_t b, uint32_t in)
{
    if (r->enc != MYRI_ROUTE_RELATIVE) return b;
    return (uint8_t)((b & 0xc0u) | ((b + in) & 0x3fu));
}

/* Inverse of routes__canon. */
static uint8_t routes__uncanon(const myri_routes *r, uint8_t s, uint32_t in)
{
    if (r->enc != MYRI_ROUTE_RELATIVE) return s;
    return (uint8_t)((s & 0xc0u) | ((s - in) & 0x3fu));
}

static uint64_t routes__hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* Stored size of the route at pool offset off. */
static size_t routes__size(const myri_routes *r, uint32_t off)
{
    uint8_t len = r->pool[off];
    return len == MYRI_ROUTE_NONE ? 1u : 1u + len;
}

static myri_status routes__grow_slots(myri_routes *r)
{
    size_t n = r->nslots ? 2 * r->nslots : 1024;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s) return MYRI_ENOMEM;
    for (size_t i = 0; i < r->nslots; i++) {
        if (!r->slot[i]) continue;
        uint32_t off = r->slot[i] - 1;
        size_t j = routes__hash(r->pool + off, routes__size(r, off)) & (n - 1);
        while (s[j]) j = (j + 1) & (n - 1);
        s[j] = r->slot[i];
    }
    free(r->slot);
    r->slot = s;
    r->nslots = n;
    return MYRI_OK;
}

/* The pool offset of the stored route `rec` (nrec bytes: length, bytes),
 * added if new. */
static myri_status routes__intern(myri_routes *r, const uint8_t *rec, size_t nrec, uint32_t *off)
{
    if (2 * (r->ndistinct + 1) > r->nslots && routes__grow_slots(r)) return MYRI_ENOMEM;
    size_t j = routes__hash(rec, nrec) & (r->nslots - 1);
    for (; r->slot[j]; j = (j + 1) & (r->nslots - 1)) {
        uint32_t o = r->slot[j] - 1;
        if (routes__size(r, o) == nrec && !memcmp(r->pool + o, rec, nrec)) {
            *off = o;
            return MYRI_OK;
        }
    }
    if (r->pool_len + nrec > UINT32_MAX - 1) return MYRI_ENOMEM;
    if (r->pool_len + nrec > r->pool_cap) {
        size_t cap = r->pool_cap ? 2 * r->pool_cap : 4096;
        uint8_t *p = realloc(r->pool, cap);
        if (!p) return MYRI_ENOMEM;
        r->pool = p;
        r->pool_cap = cap;
    }
    *off = (uint32_t)r->pool_len;
    memcpy(r->pool + r->pool_len, rec, nrec);
    r->pool_len += nrec;
    r->slot[j] = *off + 1;
    r->ndistinct++;
    return MYRI_OK;
}

void myri_routes_free(myri_routes *r)
{
    if (!r) return;
    for (size_t i = 0; r->row && i < r->nrows; i++) free(r->row[i]);
    free(r->row);
    free(r->row_users);
    free(r->host_row);
    free(r->host_in);
    free(r->pool);
    free(r->slot);
    memset(r, 0, sizeof *r);
}

/* Rows: one per switch with hosts, in order of its first host, and one per
 * host attached to no switch. */
static myri_status routes__rows(myri_routes *r, const myri_topo *t)
{
    uint32_t *sw_row = malloc(t->nnodes * sizeof *sw_row);
    if (!sw_row) return MYRI_ENOMEM;
    for (size_t i = 0; i < t->nnodes; i++) sw_row[i] = UINT32_MAX;
    for (size_t h = 0; h < t->nhosts; h++) {
        const myri_topo_port *p = &t->node[t->host_node[h]].port[0];
        bool on_switch = p->peer_node >= 0 && t->node[p->peer_node].kind == MYRI_TOPO_SWITCH;
        r->host_in[h] = on_switch ? (uint8_t)p->peer_port : 0;
        if (on_switch && sw_row[p->peer_node] != UINT32_MAX) {
            r->host_row[h] = sw_row[p->peer_node];
        } else {
            r->host_row[h] = (uint32_t)r->nrows++;
            if (on_switch) sw_row[p->peer_node] = r->host_row[h];
        }
        r->row_users[r->host_row[h]]++;
    }
    free(sw_row);
    for (size_t i = 0; i < r->nrows; i++)
        if (!(r->row[i] = calloc(t->nhosts, sizeof(uint32_t)))) return MYRI_ENOMEM;
    return MYRI_OK;
}

myri_status myri_routes_init(myri_routes *r, const myri_topo *t, myri_route_encoding enc)
{
    if (!r || !t || t->nhosts == 0 || t->nhosts > MYRI_TOPO_MAX_HOSTS) return MYRI_EINVAL;
    memset(r, 0, sizeof *r);
    r->nhosts = t->nhosts;
    r->enc = enc;
    r->host_row = malloc(t->nhosts * sizeof *r->host_row);
    r->host_in = malloc(t->nhosts);
    r->row_users = calloc(t->nhosts, sizeof *r->row_users);
    r->row = calloc(t->nhosts, sizeof *r->row);
    uint8_t none = MYRI_ROUTE_NONE;
    uint32_t off = 0;
    myri_status st = MYRI_ENOMEM;
    if (r->host_row && r->host_in && r->row_users && r->row &&
        !routes__intern(r, &none, 1, &off) && !routes__rows(r, t))
        st = MYRI_OK;
    if (st) myri_routes_free(r);
    return st;
}

const myri_route *myri_routes_get(const myri_routes *r, size_t src, size_t dst, myri_route *buf)
{
    if (!r || !buf || !r->row || src >= r->nhosts || dst >= r->nhosts) return NULL;
    uint32_t off = src == dst ? ROUTES__NONE_OFF : r->row[r->host_row[src]][dst];
    const uint8_t *p = r->pool + off;
    buf->len = p[0];
    if (buf->len == MYRI_ROUTE_NONE || buf->len == 0) return buf;
    memcpy(buf->byte, p + 1, buf->len);
    buf->byte[0] = routes__uncanon(r, p[1], r->host_in[src]);
    return buf;
}

uint8_t myri_routes_len(const myri_routes *r, size_t src, size_t dst)
{
    if (!r || !r->row || src >= r->nhosts || dst >= r->nhosts || src == dst) return MYRI_ROUTE_NONE;
    return r->pool[r->row[r->host_row[src]][dst]];
}

/* The pool offset of route rt as host src stores it. */
static myri_status routes__store(myri_routes *r, size_t src, const myri_route *rt, uint32_t *off)
{
    uint8_t rec[1 + sizeof rt->byte];
    if (rt->len != MYRI_ROUTE_NONE && rt->len > sizeof rt->byte) return MYRI_EINVAL;
    size_t n = rt->len == MYRI_ROUTE_NONE ? 0 : rt->len;
    rec[0] = rt->len;
    memcpy(rec + 1, rt->byte, n);
    if (n) rec[1] = routes__canon(r, rt->byte[0], r->host_in[src]);
    return routes__intern(r, rec, 1 + n, off);
}

static bool routes__pair_ok(const myri_routes *r, size_t src, size_t dst, const myri_route *rt)
{
    return r && rt && r->row && src < r->nhosts && dst < r->nhosts && src != dst;
}

myri_status myri_routes_set_switch(myri_routes *r, size_t src, size_t dst, const myri_route *rt)
{
    if (!routes__pair_ok(r, src, dst, rt)) return MYRI_EINVAL;
    uint32_t off;
    myri_status st = routes__store(r, src, rt, &off);
    if (!st) r->row[r->host_row[src]][dst] = off;
    return st;
}

myri_status myri_routes_set(myri_routes *r, size_t src, size_t dst, const myri_route *rt)
{
    if (!routes__pair_ok(r, src, dst, rt)) return MYRI_EINVAL;
    uint32_t off, row = r->host_row[src];
    myri_status st = routes__store(r, src, rt, &off);
    if (st || r->row[row][dst] == off) return st;
    if (r->row_users[row] > 1) { /* give src a row of its own */
        uint32_t *copy = malloc(r->nhosts * sizeof *copy);
        if (!copy) return MYRI_ENOMEM;
        memcpy(copy, r->row[row], r->nhosts * sizeof *copy);
        r->row_users[row]--;
        row = (uint32_t)r->nrows++; /* nrows <= nhosts: each row has a user */
        r->row[row] = copy;
        r->row_users[row] = 1;
        r->host_row[src] = row;
    }
    r->row[row][dst] = off;
    return MYRI_OK;
}

size_t myri_routes_memory(const myri_routes *r)
{
    if (!r || !r->row) return 0;
    return r->nrows * r->nhosts * sizeof(uint32_t) + r->nhosts * (sizeof(uint32_t) * 3 + 1 + sizeof(uint32_t *)) +
           r->pool_cap + r->nslots * sizeof(uint32_t);
}
