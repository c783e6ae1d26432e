/* via_api.c -- the VIA API (include/myri/via.h) written once against the
 * host interface (host/hostif.h), like api0.c: the firmware is reached only
 * by PIO across the bus (the VCB of common/via.h) and through descriptors in
 * the board's DMA region of host memory.
 *
 * The board's shared segment (one per unit, shared by the programs that use
 * it) holds the VCB address and geometry, the host's ends of the two
 * doorbell rings, the bump allocator of the DMA region and the descriptor
 * pool (MYRI_VIA__POOL descriptors of 32 bytes in the region, each with its
 * handle here). */
#include <stdbool.h>
#include <string.h>

#include "common/hcb.h"
#include "common/lanai_regs.h"
#include "common/via.h"
#include "host/hostif.h"
#include "myri/prog.h"
#include "myri/via.h"

#define VIA__POOL 256

struct myri_via_desc {
    int unit;
    uint32_t idx;
    bool posted;
};

#define VIA__MAGIC 0x56494153u /* "VIAS": this segment is the VIA API's (a program may hold api0's instead) */

typedef struct via__seg {
    uint32_t magic;             /* VIA__MAGIC once set up */
    int state;                  /* 0 not ready, 1 ready */
    uint32_t vcb;
    myri_via_geom g;
    uint32_t sdb_tail, rdb_tail, sdb_head, rdb_head; /* heads: as last read */
    uint8_t *dma;
    uint64_t dma_bus, dma_bytes, alloc_off;
    uint64_t pool_off;                               /* the descriptors in the region */
    myri_via_desc d[VIA__POOL];
    uint32_t nfree, free_idx[VIA__POOL];
    uint8_t route_set[256];                          /* 1 once a route to host h was set (h < 256 checked) */
} via__seg;

typedef struct via__ctx {
    myri_hostif *hi;
    int unit;
    via__seg *s;
} via__ctx;

static const char *const via__msg[MYRI_VIA_NCODES] = {
    "success", "invalid argument", "not called from a program on a host", "no such board",
    "myri_via_open not called on this board", "timed out", "doorbell ring or descriptor pool full",
    "longer than the MTU", "DMA region exhausted", "the board runs no VIA firmware", "board access failed",
    "no route to that host", "not a posted descriptor of this board",
};

const char *myri_via_strerror(int code)
{
    return code <= 0 && code > -MYRI_VIA_NCODES ? via__msg[-code] : "unknown VIA error";
}

/* ---- helpers ------------------------------------------------------------------------------- */

static void via__spend(const via__ctx *c, myri_time_ps ps)
{
    if (ps > 0) c->hi->ops->spend(c->hi->h, ps);
}
static int via__rd32(const via__ctx *c, uint32_t addr, uint32_t *v)
{
    uint8_t b[4];
    if (c->hi->ops->pio_read(c->hi->h, c->unit, addr, b, 4) != MYRI_OK) return MYRI_VIA_EIO;
    *v = myri_be32_get(b);
    return MYRI_VIA_OK;
}
static int via__wr(const via__ctx *c, uint32_t addr, const uint8_t *b, size_t n)
{
    return c->hi->ops->pio_write(c->hi->h, c->unit, addr, b, n) == MYRI_OK ? MYRI_VIA_OK : MYRI_VIA_EIO;
}

static int via__enter(int unit, via__ctx *c, bool need_ready)
{
    memset(c, 0, sizeof *c);
    c->hi = myri_hostif_current();
    if (!c->hi || !c->hi->ops || !c->hi->costs) return MYRI_VIA_ENOHOST;
    if (unit < 0 || unit >= 4) return MYRI_VIA_EBADUNIT;
    c->unit = unit;
    via__spend(c, c->hi->costs->call_ps);
    if (!need_ready) return MYRI_VIA_OK;
    c->s = c->hi->ops->seg_find(c->hi->h, unit);
    return c->s && c->s->magic == VIA__MAGIC && c->s->state == 1 ? MYRI_VIA_OK : MYRI_VIA_ENOTINIT;
}

/* Polls an SRAM word until it is non-zero (or equal to want) or the init time-out. */
static int via__poll(const via__ctx *c, uint32_t addr, uint32_t want, bool nonzero, uint32_t *got)
{
    myri_time_ps t0 = c->hi->ops->now(c->hi->h);
    for (;;) {
        uint32_t v;
        int rc = via__rd32(c, addr, &v);
        if (rc) return rc;
        if (nonzero ? v != 0 : v == want) {
            if (got) *got = v;
            return MYRI_VIA_OK;
        }
        if (c->hi->ops->now(c->hi->h) - t0 >= c->hi->costs->init_timeout_ps) return MYRI_VIA_ETIMEOUT;
        via__spend(c, c->hi->costs->poll_gap_ps ? c->hi->costs->poll_gap_ps : 1);
    }
}

/* Reads and checks the VCB header (signatures, geometry). */
static int via__find_vcb(via__ctx *c)
{
    via__seg *s = c->s;
    int rc = via__poll(c, MYRI_LANAI_HCB_PTR_ADDR, 0, true, &s->vcb);
    if (!rc) rc = via__poll(c, s->vcb + MYRI_VIA_STATE_OFF, MYRI_VIA_STATE_READY, false, NULL);
    if (rc) return rc;
    uint8_t h[MYRI_VIA_HDR_BYTES];
    if (c->hi->ops->pio_read(c->hi->h, c->unit, s->vcb, h, sizeof h) != MYRI_OK) return MYRI_VIA_EIO;
    if (myri_be32_get(h + MYRI_VIA_SIG_START_OFF) != MYRI_VIA_SIG_START) return MYRI_VIA_EFIRMWARE;
    s->g = (myri_via_geom){myri_be32_get(h + MYRI_VIA_NVI_OFF),     myri_be32_get(h + MYRI_VIA_SDB_N_OFF),
                           myri_be32_get(h + MYRI_VIA_RDB_N_OFF),   myri_be32_get(h + MYRI_VIA_NROUTES_OFF),
                           myri_be32_get(h + MYRI_VIA_ROUTE_MAX_OFF), myri_be32_get(h + MYRI_VIA_MTU_OFF)};
    const myri_via_geom *g = &s->g;
    if (!g->nvi || g->nvi > 256 || g->sdb_n < 2 || g->rdb_n < 2 || !g->nroutes || g->route_max > 64 || !g->mtu ||
        myri_be32_get(h + MYRI_VIA_BYTES_OFF) != myri_via_bytes(g))
        return MYRI_VIA_EFIRMWARE;
    uint32_t end;
    if ((rc = via__rd32(c, s->vcb + myri_via_sig_end_off(g), &end))) return rc;
    return end == MYRI_VIA_SIG_END ? MYRI_VIA_OK : MYRI_VIA_EFIRMWARE;
}

static void via__leave(void *seg, int id) { (void)seg, (void)id; }

/* The first user: the VCB, this host's index, the rings' host ends, the pool. */
static int via__setup(via__ctx *c)
{
    via__seg *s = c->s;
    int rc = via__find_vcb(c);
    if (rc) return rc;
    if (c->hi->ops->dma_region(c->hi->h, c->unit, &s->dma, &s->dma_bus, &s->dma_bytes) != MYRI_OK) return MYRI_VIA_EIO;
    uint8_t w[4];
    myri_be32_put(w, (uint32_t)myri_prog_host());
    if ((rc = via__wr(c, s->vcb + MYRI_VIA_HOST_ID_OFF, w, 4))) return rc;
    if ((rc = via__rd32(c, s->vcb + myri_via_sring_off(&s->g) + MYRI_VIA_RING_TAIL, &s->sdb_tail)) ||
        (rc = via__rd32(c, s->vcb + myri_via_rring_off(&s->g) + MYRI_VIA_RING_TAIL, &s->rdb_tail)))
        return rc;
    s->sdb_head = s->sdb_tail, s->rdb_head = s->rdb_tail;
    if ((uint64_t)VIA__POOL * MYRI_VIA_DESC_BYTES > s->dma_bytes) return MYRI_VIA_ENOMEM;
    s->pool_off = 0;
    s->alloc_off = (uint64_t)VIA__POOL * MYRI_VIA_DESC_BYTES;
    s->nfree = VIA__POOL;
    for (uint32_t i = 0; i < VIA__POOL; i++) {
        s->d[i] = (myri_via_desc){c->unit, i, false};
        s->free_idx[i] = VIA__POOL - 1 - i;
    }
    s->magic = VIA__MAGIC;
    s->state = 1;
    return MYRI_VIA_OK;
}

int myri_via_open(int unit)
{
    via__ctx c;
    int rc = via__enter(unit, &c, false);
    if (rc) return rc;
    void *seg = NULL;
    bool first = false;
    myri_status st = c.hi->ops->seg_attach(c.hi->h, unit, sizeof(via__seg), via__leave, &seg, &first);
    if (st == MYRI_ENOTFOUND) return MYRI_VIA_EBADUNIT;
    if (st == MYRI_EINVAL) return MYRI_VIA_EINVAL; /* this program uses the board through seed 001's API */
    if (st != MYRI_OK && st != MYRI_ESTATE) return MYRI_VIA_ENOMEM;
    c.s = seg;
    if (c.s->magic == VIA__MAGIC && c.s->state == 1) return MYRI_VIA_OK;
    return via__setup(&c);
}

int myri_via_set_route(int unit, int host, const char *route, int len)
{
    via__ctx c;
    int rc = via__enter(unit, &c, true);
    if (rc) return rc;
    if (host < 0 || (uint32_t)host >= c.s->g.nroutes || host >= 256 || len < 0 ||
        (uint32_t)len > c.s->g.route_max || (len && !route))
        return MYRI_VIA_EINVAL;
    uint8_t e[4 + 64];
    uint32_t rl = (uint32_t)len, n = myri_via_round4(rl);
    memset(e, 0, sizeof e);
    myri_be32_put(e, MYRI_VIA_ROUTE_VALID | rl);
    if (rl) memcpy(e + 4 + n - rl, route, rl);
    rc = via__wr(&c, c.s->vcb + myri_via_route_off(&c.s->g, (uint32_t)host), e, 4 + n);
    if (!rc) c.s->route_set[host] = 1;
    return rc;
}

void *myri_via_alloc(int unit, size_t bytes)
{
    via__ctx c;
    if (via__enter(unit, &c, true) || bytes == 0) return NULL;
    uint64_t n = ((uint64_t)bytes + 7u) & ~(uint64_t)3u; /* word aligned, a word of slack for the DMA's rounding */
    if (c.s->alloc_off + n > c.s->dma_bytes) return NULL;
    void *p = c.s->dma + c.s->alloc_off;
    c.s->alloc_off += n;
    return p;
}

int myri_via_mtu(int unit)
{
    via__ctx c;
    int rc = via__enter(unit, &c, true);
    return rc ? rc : (int)c.s->g.mtu;
}

int myri_via_nvi(int unit)
{
    via__ctx c;
    int rc = via__enter(unit, &c, true);
    return rc ? rc : (int)c.s->g.nvi;
}

/* ---- posting ------------------------------------------------------------------------------------- */

/* The bus address of host pointer p with len bytes in the region, or 0. */
static uint32_t via__bus(const via__seg *s, const void *p, size_t len)
{
    const uint8_t *b = p;
    if (!p || b < s->dma || (uint64_t)(b - s->dma) + len > s->dma_bytes || ((uintptr_t)b & 3u)) return 0;
    return (uint32_t)(s->dma_bus + (uint64_t)(b - s->dma));
}

/* Rings a doorbell: the entry, then the tail (PIO). */
static int via__ring(const via__ctx *c, bool send, uint32_t desc_bus, uint32_t vi)
{
    via__seg *s = c->s;
    uint32_t ring = send ? myri_via_sring_off(&s->g) : myri_via_rring_off(&s->g);
    uint32_t n = send ? s->g.sdb_n : s->g.rdb_n;
    uint32_t *tail = send ? &s->sdb_tail : &s->rdb_tail, *head = send ? &s->sdb_head : &s->rdb_head;
    if ((*tail + 1) % n == *head) { /* full as last seen: look again */
        int rc = via__rd32(c, s->vcb + ring + MYRI_VIA_RING_HEAD, head);
        if (rc) return rc;
        if ((*tail + 1) % n == *head) return MYRI_VIA_EFULL;
    }
    uint8_t e[8];
    myri_be32_put(e, desc_bus);
    myri_be32_put(e + 4, vi);
    int rc = via__wr(c, s->vcb + myri_via_db_off(ring, *tail), e, 8);
    if (rc) return rc;
    *tail = (*tail + 1) % n;
    myri_be32_put(e, *tail);
    return via__wr(c, s->vcb + ring + MYRI_VIA_RING_TAIL, e, 4);
}

static int via__post(const via__ctx *c, bool send, uint32_t vi, const uint32_t w[4], myri_via_desc **d)
{
    via__seg *s = c->s;
    if (!s->nfree) return MYRI_VIA_EFULL;
    uint32_t i = s->free_idx[s->nfree - 1];
    uint8_t *p = s->dma + s->pool_off + (uint64_t)i * MYRI_VIA_DESC_BYTES;
    memset(p, 0, MYRI_VIA_DESC_BYTES);
    for (int k = 0; k < 4; k++) myri_be32_put(p + 4 * k, w[k]);
    int rc = via__ring(c, send, via__bus(s, p, MYRI_VIA_DESC_BYTES), vi);
    if (rc) return rc;
    s->nfree--;
    s->d[i].posted = true;
    *d = &s->d[i];
    return MYRI_VIA_OK;
}

int myri_via_post_send(int unit, int vi, int dest_host, int dest_vi, const void *buf, size_t len, myri_via_desc **d)
{
    via__ctx c;
    int rc = via__enter(unit, &c, true);
    if (rc) return rc;
    via__seg *s = c.s;
    if (!d || vi < 0 || (uint32_t)vi >= s->g.nvi || dest_vi < 0 || (uint32_t)dest_vi >= s->g.nvi || dest_host < 0 ||
        len == 0)
        return MYRI_VIA_EINVAL;
    if (len > s->g.mtu) return MYRI_VIA_ETOOLONG;
    if ((uint32_t)dest_host >= s->g.nroutes || dest_host >= 256 || !s->route_set[dest_host]) return MYRI_VIA_ENOROUTE;
    uint32_t bus = via__bus(s, buf, len);
    if (!bus) return MYRI_VIA_EINVAL;
    uint32_t w[4] = {MYRI_VIA_OP_SEND, bus, (uint32_t)len, (uint32_t)dest_host << 8 | (uint32_t)dest_vi};
    return via__post(&c, true, (uint32_t)vi, w, d);
}

int myri_via_post_recv(int unit, int vi, void *buf, size_t len, myri_via_desc **d)
{
    via__ctx c;
    int rc = via__enter(unit, &c, true);
    if (rc) return rc;
    via__seg *s = c.s;
    if (!d || vi < 0 || (uint32_t)vi >= s->g.nvi || len == 0) return MYRI_VIA_EINVAL;
    uint32_t bus = via__bus(s, buf, len);
    if (!bus) return MYRI_VIA_EINVAL;
    uint32_t w[4] = {MYRI_VIA_OP_RECV, bus, (uint32_t)len, 0};
    return via__post(&c, false, (uint32_t)vi, w, d);
}

/* ---- completion ----------------------------------------------------------------------------------- */

static int via__check(via__ctx *c, const myri_via_desc *d)
{
    if (!d) return MYRI_VIA_EINVAL;
    int rc = via__enter(d->unit >= 0 && d->unit < 4 ? d->unit : 0, c, true);
    if (rc) return rc;
    if (d < c->s->d || d >= c->s->d + VIA__POOL || !d->posted) return MYRI_VIA_EBADDESC;
    if (c->hi->ops->sync) c->hi->ops->sync(c->hi->h); /* via__done reads the status the NIC writes */
    return MYRI_VIA_OK;
}

/* 1 if complete (*out filled, the descriptor back in the pool). */
static int via__done(via__seg *s, myri_via_desc *d, myri_via_done *out)
{
    const uint8_t *p = s->dma + s->pool_off + (uint64_t)d->idx * MYRI_VIA_DESC_BYTES;
    uint32_t st = myri_be32_get(p + MYRI_VIA_D_STATUS);
    if (st == MYRI_VIA_STATUS_POSTED) return 0;
    uint32_t src = myri_be32_get(p + MYRI_VIA_D_DONE_SRC);
    if (out) *out = (myri_via_done){(int)st, myri_be32_get(p + MYRI_VIA_D_DONE_LEN), (int)(src >> 8), (int)(src & 0xffu)};
    d->posted = false;
    s->free_idx[s->nfree++] = d->idx;
    return 1;
}

int myri_via_test(myri_via_desc *d, myri_via_done *out)
{
    via__ctx c;
    int rc = via__check(&c, d);
    return rc ? rc : via__done(c.s, d, out);
}

int myri_via_wait(myri_via_desc *d, double timeout_us, myri_via_done *out)
{
    via__ctx c;
    int rc = via__check(&c, d);
    if (rc) return rc;
    myri_time_ps t0 = c.hi->ops->now(c.hi->h);
    myri_time_ps lim = timeout_us > 0 ? (myri_time_ps)(timeout_us * 1e6) : (myri_time_ps)INT64_MAX / 4;
    if (lim < 1) lim = 1; /* a positive time-out waits at least a picosecond */
    while (!via__done(c.s, d, out)) {
        myri_time_ps el = c.hi->ops->now(c.hi->h) - t0;
        if (el >= lim) return MYRI_VIA_ETIMEOUT;
        c.hi->ops->wait_dma(c.hi->h, lim - el);
    }
    return MYRI_VIA_OK;
}
