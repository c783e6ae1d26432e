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
 * about 1 MB of distinct routes and their hash set, 19 MB in all.
 *
 * Regular generated networks need no table at all (kind != TABLE): the
 * route of a pair is computed on each lookup from the host indices and the
 * generator's parameters, in a few integer steps (routes__arith_get).  A
 * fat tree's and a Clos's are the up*-then-down* routes of topo_route.c
 * byte for byte (test_topo_routes compares every pair), a mesh's the
 * dimension-order ones.  Changing one pair (myri_routes_set) first turns
 * such a set into the table it stands for (routes__materialize). */
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

/* ---- arithmetic route sets ------------------------------------------------ */

/* Hosts per switch of an arithmetic set (the hosts of one switch share a row
 * of the table it stands for). */
static uint32_t arith__per_switch(const myri_routes *r)
{
    return r->kind == MYRI_ROUTES_FAT_TREE ? r->arith_a : r->arith_c;
}

/* The port host h enters its switch on. */
static uint32_t arith__in_port(const myri_routes *r, size_t h)
{
    uint32_t q = (uint32_t)(h % arith__per_switch(r));
    return r->kind == MYRI_ROUTES_MESH_XY ? 4 + q : q;
}

/* Fat tree (k-ary n-tree, topo_gen.c): the level of the nearest common
 * ancestor of leaves s/k and d/k, the lowest l at which they agree in base-k
 * digits l.. (0: the same leaf). */
static uint32_t arith__ft_level(uint32_t k, size_t s, size_t d)
{
    size_t a = s / k, b = d / k;
    uint32_t l = 0;
    for (; a != b; l++) a /= k, b /= k;
    return l;
}

/* Up*-then-down* on a fat tree (the top level as roots): up L levels, at
 * each taking up port k + (v mod k) with v = d, then d / k, ... (the walk's
 * destination-digit rule: every up port stays on a shortest legal path),
 * then down the one path to leaf d/k.  Up port k+j of switch (l, i) reaches
 * (l+1, i with digit l := j) on its down port (digit l of i). */
static void arith__fat_tree(const myri_routes *r, size_t s, size_t d, myri_route *buf)
{
    uint32_t k = r->arith_a, nl = arith__ft_level(k, s, d), in = (uint32_t)(s % k);
    uint64_t i = s / k, id = d / k, v = d, w = 1; /* w = k^l */
    buf->len = 0;
    for (uint32_t l = 0; l < nl; l++, w *= k) {
        uint32_t j = (uint32_t)(v % k), dig = (uint32_t)((i / w) % k);
        v /= k;
        buf->byte[buf->len++] = myri_route_encode(in, k + j, r->enc);
        in = dig;
        i = i - dig * w + j * w;
    }
    for (uint32_t l = nl; l > 0; l--) {
        w /= k;
        uint32_t q = (uint32_t)((id / w) % k), dig = (uint32_t)((i / w) % k);
        buf->byte[buf->len++] = myri_route_encode(in, q, r->enc);
        in = k + dig;
        i = i - dig * w + q * w;
    }
    buf->byte[buf->len++] = myri_route_encode(in, (uint32_t)(d % k), r->enc);
}

/* Folded Clos (leaves, spines S, H hosts per leaf): the same leaf, or up to
 * spine d mod S (port H + that), down to leaf d/H, out to port d mod H. */
static void arith__clos(const myri_routes *r, size_t s, size_t d, myri_route *buf)
{
    uint32_t h = r->arith_c, in = (uint32_t)(s % h), j = (uint32_t)(d % r->arith_b);
    buf->len = 0;
    if (s / h != d / h) {
        buf->byte[buf->len++] = myri_route_encode(in, h + j, r->enc);
        buf->byte[buf->len++] = myri_route_encode((uint32_t)(s / h), (uint32_t)(d / h), r->enc);
        in = h + j;
    }
    buf->byte[buf->len++] = myri_route_encode(in, (uint32_t)(d % h), r->enc);
}

/* Dimension order on the mesh generator's network: along x, then y, then
 * out to the host (ports 0 = +x, 1 = -x, 2 = +y, 3 = -y, hosts from 4). */
static void arith__mesh_xy(const myri_routes *r, size_t s, size_t d, myri_route *buf)
{
    uint32_t x = r->arith_a, h = r->arith_c, in = 4 + (uint32_t)(s % h);
    uint32_t i = (uint32_t)((s / h) % x), j = (uint32_t)((s / h) / x);
    uint32_t di = (uint32_t)((d / h) % x), dj = (uint32_t)((d / h) / x);
    buf->len = 0;
    while (i != di || j != dj) {
        uint32_t port = i < di ? 0 : i > di ? 1 : j < dj ? 2 : 3;
        buf->byte[buf->len++] = myri_route_encode(in, port, r->enc);
        in = port ^ 1u; /* arriving on the opposite port */
        i = port == 0 ? i + 1 : port == 1 ? i - 1 : i;
        j = port == 2 ? j + 1 : port == 3 ? j - 1 : j;
    }
    buf->byte[buf->len++] = myri_route_encode(in, 4 + (uint32_t)(d % h), r->enc);
}

static void routes__arith_get(const myri_routes *r, size_t s, size_t d, myri_route *buf)
{
    if (r->kind == MYRI_ROUTES_FAT_TREE) arith__fat_tree(r, s, d, buf);
    else if (r->kind == MYRI_ROUTES_CLOS) arith__clos(r, s, d, buf);
    else arith__mesh_xy(r, s, d, buf);
}

static uint32_t arith__absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }

static uint8_t routes__arith_len(const myri_routes *r, size_t s, size_t d)
{
    if (r->kind == MYRI_ROUTES_FAT_TREE) return (uint8_t)(2 * arith__ft_level(r->arith_a, s, d) + 1);
    uint32_t h = r->arith_c;
    if (r->kind == MYRI_ROUTES_CLOS) return s / h == d / h ? 1 : 3;
    uint32_t x = r->arith_a;
    size_t a = s / h, b = d / h;
    return (uint8_t)(arith__absdiff((uint32_t)(a % x), (uint32_t)(b % x)) +
                     arith__absdiff((uint32_t)(a / x), (uint32_t)(b / x)) + 1);
}

myri_status myri_routes_init_arith(myri_routes *r, const myri_topo *t, myri_route_encoding enc,
                                   myri_routes_kind kind, uint32_t a, uint32_t b, uint32_t c)
{
    if (!r || !t || t->nhosts == 0 || t->nhosts > MYRI_TOPO_MAX_HOSTS || kind == MYRI_ROUTES_TABLE ||
        kind > MYRI_ROUTES_MESH_XY || a == 0 || b == 0 || (kind != MYRI_ROUTES_FAT_TREE && c == 0))
        return MYRI_EINVAL;
    memset(r, 0, sizeof *r);
    *r = (myri_routes){.nhosts = t->nhosts, .enc = enc, .kind = kind, .arith_a = a, .arith_b = b, .arith_c = c};
    return MYRI_OK;
}

bool myri_routes_by_construction(const myri_routes *r) { return r && r->kind != MYRI_ROUTES_TABLE; }

/* Sum over x in [0, n) of |i - x|. */
static uint64_t arith__dist_sum(uint64_t i, uint64_t n) { return i * (i + 1) / 2 + (n - 1 - i) * (n - i) / 2; }

uint64_t myri_routes_len_sum(const myri_routes *r, size_t src)
{
    if (!r || src >= r->nhosts || (r->kind == MYRI_ROUTES_TABLE && !r->row)) return 0;
    uint64_t sum = 0;
    if (r->kind == MYRI_ROUTES_TABLE) {
        for (size_t d = 0; d < r->nhosts; d++)
            if (d != src) sum += myri_routes_len(r, src, d);
    } else if (r->kind == MYRI_ROUTES_FAT_TREE) { /* k-1 hosts at 1 byte; k^(l+1) - k^l at 2l+1 */
        uint64_t k = r->arith_a, w = k;
        sum = k - 1;
        for (uint64_t l = 1; w < r->nhosts; l++, w *= k) sum += (w * k - w) * (2 * l + 1);
    } else if (r->kind == MYRI_ROUTES_CLOS) {
        sum = (r->arith_c - 1) + 3 * (r->nhosts - r->arith_c);
    } else { /* hosts per switch x (sum of |dx| + |dy| + 1 over switches), less src's own 1 */
        uint64_t x = r->arith_a, y = r->arith_b, sw = src / r->arith_c;
        sum = r->arith_c * (y * arith__dist_sum(sw % x, x) + x * arith__dist_sum(sw / x, y) + x * y) - 1;
    }
    return sum;
}

/* Turns an arithmetic set into the TABLE it stands for: one row per switch,
 * each distinct route interned once (before myri_routes_set changes one
 * pair). */
static myri_status routes__materialize(myri_routes *r)
{
    myri_routes a = *r, tb = {.nhosts = r->nhosts, .enc = r->enc};
    size_t n = r->nhosts, per = arith__per_switch(r);
    tb.host_row = malloc(n * sizeof *tb.host_row);
    tb.host_in = malloc(n);
    tb.row_users = calloc(n, sizeof *tb.row_users);
    tb.row = calloc(n, sizeof *tb.row);
    uint8_t none = MYRI_ROUTE_NONE;
    uint32_t off;
    myri_status st = MYRI_ENOMEM;
    if (tb.host_row && tb.host_in && tb.row_users && tb.row && !routes__intern(&tb, &none, 1, &off)) st = MYRI_OK;
    for (size_t h = 0; h < n && !st; h++) {
        tb.host_row[h] = (uint32_t)(h / per);
        tb.host_in[h] = (uint8_t)arith__in_port(r, h);
        tb.row_users[h / per]++;
        if (h % per == 0 && !(tb.row[tb.nrows++] = calloc(n, sizeof(uint32_t)))) st = MYRI_ENOMEM;
    }
    for (size_t rep = 0; rep < n && !st; rep += per)
        for (size_t d = 0; d < n && !st; d++) {
            size_t s = d != rep ? rep : rep + 1; /* the route to the row's first host: from its second */
            if (s >= rep + per || s >= n) continue;
            myri_route rt;
            routes__arith_get(&a, s, d, &rt);
            st = myri_routes_set_switch(&tb, s, d, &rt);
        }
    if (st) {
        myri_routes_free(&tb);
        return st;
    }
    *r = tb;
    return MYRI_OK;
}

const myri_route *myri_routes_get(const myri_routes *r, size_t src, size_t dst, myri_route *buf)
{
    if (!r || !buf || src >= r->nhosts || dst >= r->nhosts) return NULL;
    if (r->kind != MYRI_ROUTES_TABLE) {
        if (src == dst) buf->len = MYRI_ROUTE_NONE;
        else routes__arith_get(r, src, dst, buf);
        return buf;
    }
    if (!r->row) return NULL;
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
    if (!r || src >= r->nhosts || dst >= r->nhosts || src == dst) return MYRI_ROUTE_NONE;
    if (r->kind != MYRI_ROUTES_TABLE) return routes__arith_len(r, src, dst);
    if (!r->row) return MYRI_ROUTE_NONE;
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
    if (r && r->kind != MYRI_ROUTES_TABLE && rt && src < r->nhosts && dst < r->nhosts && src != dst) {
        myri_status mst = routes__materialize(r);
        if (mst) return mst;
    }
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
    if (r && r->kind != MYRI_ROUTES_TABLE) return sizeof *r;
    if (!r || !r->row) return 0;
    return r->nrows * r->nhosts * sizeof(uint32_t) + r->nhosts * (sizeof(uint32_t) * 3 + 1 + sizeof(uint32_t *)) +
           r->pool_cap + r->nslots * sizeof(uint32_t);
}
