/* api0.c -- seed 001's API (include/myri/api0.h) over the host interface
 * (host/hostif.h) and the HCB contract with the MCP (common/hcb.h).
 *
 * State kept by the API:
 *   - in SRAM (the HCB, reached only by PIO across the bus): send queue
 *     entries and tail, PIO buffers, receive channel words, routes;
 *   - in the board's shared segment (host memory, one per board, shared by
 *     every program using the board; seed 001: "a shared memory region to
 *     hold information needed by multiple clients but not by the MCP"): the
 *     geometry, the shadowed queue pointers, the lock, the send buffers'
 *     state (free list, busy list, the FIFO of enqueued buffers), the
 *     receive channels' owners and counts, the routes in use;
 *   - in the DMA region (host memory the NIC's host DMA reaches): per channel
 *     a poll word (64 bytes apart) and recv_q slots, then the send buffers.
 *
 * No state lives in static variables: several programs (and hosts) run in one
 * simulator process.  Only myri_hostif_current() tells who is calling.
 *
 * Across processes (live mode, docs/LIVE.md: the segment is shared memory
 * mapped by every process of a host), the ordering of each shared word:
 *   - lock_owner: C11 atomic; taken by compare-and-swap 0 -> id (acquire),
 *     given back by a release store of 0; every field under "send channel"
 *     below (tail, head, enq, reaped, fifo, owned, inflight, freeq, free_*)
 *     and route_used is read and written only under the lock, so the lock's
 *     acquire/release orders them.  A holder that died (hostif alive() says
 *     so) loses the lock to a waiter after host.lock_timeout.
 *   - state: C11 atomic (sequentially consistent): INITING is published
 *     before init's PIO, READY after the geometry and layout it guards.
 *   - the receive channels (chan[]): each owned by one program (owner), its
 *     counts written only by that owner; owner itself is set under the lock
 *     by get_chan/release_chan.
 *   - the DMA region's poll words and slots are written by the NIC and read
 *     here (the length word last, as the MCP writes it).
 * In one simulator process these are plain loads and stores in effect (no
 * other thread), so simulated results are unchanged.
 */
#include "myri/api0.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/hcb.h"
#include "common/lanai_regs.h"
#include "host/hostif.h"

/* Limits of the shared segment's tables (the MCP's geometry must fit). */
enum {
    API0__MAX_SENDQ = 1024,
    API0__MAX_RECVQ = 1024,
    API0__MAX_BUFS = 1024,
    API0__MAX_ROUTES = 1024,
    API0__FIFO = 4096,        /* enqueued and not yet reaped, at most */
    API0__POLL_STRIDE = 64,   /* bytes between two channels' poll words (a cache line; assumption) */
    API0__ALIGN = 64          /* slots and send buffers start on 64-byte boundaries (assumption) */
};
enum { API0__SEG_NONE = 0, API0__SEG_INITING = 1, API0__SEG_READY = 2 };
enum { API0__SLOT_IDLE = 0, API0__SLOT_OUT = 1, API0__SLOT_FREED = 2 };

typedef struct api0__chan {
    int owner;                 /* program id, 0: free */
    uint8_t inited;
    uint32_t next;             /* packets taken by recv (count) */
    uint32_t freed;            /* packets given back to the MCP (count, = RC_FREED) */
    uint32_t put;              /* the MCP's delivered count as last seen */
    uint8_t slot[API0__MAX_RECVQ];
} api0__chan;

typedef struct api0__seg {
    _Atomic uint32_t state;
    int init_owner;
    uint32_t hcb;              /* SRAM address of the HCB */
    myri_hcb_geom g;
    uint32_t flags;
    uint32_t token;            /* last handshake token */
    /* DMA region layout (offsets from its base) */
    uint64_t dma_bus, dma_bytes;
    uint32_t slot_off, slot_bytes, buf_off, buf_bytes, nbufs;
    /* send channel */
    _Atomic int lock_owner;
    uint32_t tail, head;       /* tail: ours; head: the MCP's, shadowed */
    uint32_t enq, reaped;      /* packets enqueued / found sent (counts mod 2^32, same origin as SQ_SENT) */
    uint32_t fifo[API0__FIFO]; /* buffer of the k-th enqueue at [k % API0__FIFO] */
    uint8_t owned[API0__MAX_BUFS];
    uint16_t inflight[API0__MAX_BUFS];
    uint32_t freeq[API0__MAX_BUFS];
    uint32_t free_head, free_n;
    uint8_t route_used[API0__MAX_ROUTES];
    api0__chan chan[MYRI_API0_NUM_CHANNELS];
} api0__seg;

/* One call's context. */
typedef struct api0__ctx {
    myri_hostif *hi;
    api0__seg *s;
    int unit, self;
    uint8_t *dma;              /* this program's view of the DMA region */
} api0__ctx;

static const char *const api0__msg[MYRI_API0_NCODES] = {
    "ok",
    "no such board (unit number out of range)",
    "the API is not initialised on this board by this program",
    "the API is initialised already (use force_init to initialise again)",
    "bad argument (NULL pointer or negative length)",
    "channel number out of range for the board",
    "the channel belongs to another program (or was got already)",
    "no free receive channel",
    "the calling program has not got this channel",
    "the receive channel is not initialised (myri_api0_init_recv_chan)",
    "not a send buffer of this board",
    "the send buffer is not held (freed twice or never got)",
    "length over the board's MTU",
    "route id out of range or no route added under it",
    "route too long for the route table, or a route byte without its MSB set",
    "no free route id",
    "no free send buffer",
    "the send channel is full",
    "no packet in the receive channel",
    "the send-channel lock is held by the caller already",
    "the caller does not hold the send-channel lock",
    "the send-channel lock stayed with another program past the time-out",
    "the MCP did not answer in time",
    "the HCB's signature or geometry is wrong (API and MCP do not match)",
    "the MCP code could not be loaded",
    "not called from a program running on a host",
    "an SRAM or host-memory access failed",
    "not a buffer received from this channel, or freed twice",
    "the DMA region or shared segment is too small for the board",
};

static const char *const api0__name[MYRI_API0_NCODES] = {
    "MYRI_API0_OK", "MYRI_API0_EBADUNIT", "MYRI_API0_ENOTINIT", "MYRI_API0_EALREADY", "MYRI_API0_EINVAL",
    "MYRI_API0_EBADCHAN", "MYRI_API0_CHAN_IN_USE", "MYRI_API0_NO_CHANS", "MYRI_API0_CHAN_NOT_IN_USE",
    "MYRI_API0_ECHANINIT", "MYRI_API0_EBADBUF", "MYRI_API0_ENOTOWNED", "MYRI_API0_ETOOLONG", "MYRI_API0_EBADROUTE",
    "MYRI_API0_EROUTE", "MYRI_API0_NO_ROUTES", "MYRI_API0_NO_BUFFERS", "MYRI_API0_QUEUE_FULL", "MYRI_API0_EMPTY",
    "MYRI_API0_ELOCKED", "MYRI_API0_ENOTLOCKED", "MYRI_API0_ELOCKTIMEOUT", "MYRI_API0_ETIMEOUT",
    "MYRI_API0_EBADHCB", "MYRI_API0_ENOMCP", "MYRI_API0_ENOHOST", "MYRI_API0_EIO", "MYRI_API0_ENOTRECV",
    "MYRI_API0_ENOMEM",
};

const char *myri_api0_strname(int rc)
{
    if (rc > 0 || rc <= -MYRI_API0_NCODES) return "MYRI_API0_(unknown)";
    return api0__name[-rc];
}

const char *myri_api0_strerror(int rc)
{
    if (rc > 0 || rc <= -MYRI_API0_NCODES) return "unknown API return code";
    return api0__msg[-rc];
}

/* ---- host access helpers ------------------------------------------------------ */

static myri_time_ps api0__now(const api0__ctx *c) { return c->hi->ops->now(c->hi->h); }
static void api0__spend(const api0__ctx *c, myri_time_ps ps)
{
    if (ps > 0) c->hi->ops->spend(c->hi->h, ps);
}

/* A word of the HCB (big-endian in SRAM) by PIO. */
static int api0__rd32(const api0__ctx *c, uint32_t off, uint32_t *v)
{
    uint8_t b[4];
    if (c->hi->ops->pio_read(c->hi->h, c->unit, c->s->hcb + off, b, 4) != MYRI_OK) return MYRI_API0_EIO;
    *v = myri_be32_get(b);
    return MYRI_API0_OK;
}
static int api0__wr32(const api0__ctx *c, uint32_t off, uint32_t v)
{
    uint8_t b[4];
    myri_be32_put(b, v);
    if (c->hi->ops->pio_write(c->hi->h, c->unit, c->s->hcb + off, b, 4) != MYRI_OK) return MYRI_API0_EIO;
    return MYRI_API0_OK;
}
static int api0__wr(const api0__ctx *c, uint32_t off, const void *src, size_t n)
{
    if (c->hi->ops->pio_write(c->hi->h, c->unit, c->s->hcb + off, src, n) != MYRI_OK) return MYRI_API0_EIO;
    return MYRI_API0_OK;
}

/* Every call: who calls, on which board; charges the call's CPU time.  With
 * need_ready the caller must have initialised the API on the board. */
static int api0__enter(int unit, api0__ctx *c, bool need_ready)
{
    memset(c, 0, sizeof *c);
    c->hi = myri_hostif_current();
    if (!c->hi || !c->hi->ops || !c->hi->costs) return MYRI_API0_ENOHOST;
    if (unit < 0 || unit >= MYRI_API0_MAX_UNITS) return MYRI_API0_EBADUNIT;
    c->unit = unit;
    c->self = c->hi->ops->self(c->hi->h);
    api0__spend(c, c->hi->costs->call_ps);
    if (!need_ready) return MYRI_API0_OK;
    c->s = c->hi->ops->seg_find(c->hi->h, unit);
    if (!c->s || c->s->state != API0__SEG_READY) return MYRI_API0_ENOTINIT;
    uint64_t bus, bytes;
    if (c->hi->ops->dma_region(c->hi->h, unit, &c->dma, &bus, &bytes) != MYRI_OK) return MYRI_API0_EIO;
    if (bus != c->s->dma_bus || bytes != c->s->dma_bytes) return MYRI_API0_EIO;
    return MYRI_API0_OK;
}

/* Polls until the HCB word at SRAM address `addr` (absolute when c->s->hcb is
 * 0) satisfies want(v) or the init time-out passes; one PIO read per turn,
 * poll_gap_ps apart. */
static int api0__poll_word(const api0__ctx *c, uint32_t off, uint32_t want, bool nonzero, uint32_t *got)
{
    myri_time_ps t0 = api0__now(c);
    for (;;) {
        uint32_t v;
        int rc = api0__rd32(c, off, &v);
        if (rc) return rc;
        if (nonzero ? v != 0 : v == want) {
            if (got) *got = v;
            return MYRI_API0_OK;
        }
        if (api0__now(c) - t0 >= c->hi->costs->init_timeout_ps) return MYRI_API0_ETIMEOUT;
        api0__spend(c, c->hi->costs->poll_gap_ps ? c->hi->costs->poll_gap_ps : 1);
    }
}

/* ---- the send-channel lock ------------------------------------------------------ */

/* Takes the lock unless the caller holds it; *took says whether to give it back. */
static int api0__take(const api0__ctx *c, bool *took)
{
    *took = false;
    if (atomic_load_explicit(&c->s->lock_owner, memory_order_relaxed) == c->self) return MYRI_API0_OK;
    myri_time_ps t0 = api0__now(c);
    for (;;) {
        int free_ = 0;
        if (atomic_compare_exchange_strong_explicit(&c->s->lock_owner, &free_, c->self, memory_order_acquire,
                                                    memory_order_relaxed))
            break;
        if (api0__now(c) - t0 >= c->hi->costs->lock_timeout_ps) {
            /* a holder that died: its lock is recovered (live mode; simulated programs give it back on exit) */
            int dead = atomic_load_explicit(&c->s->lock_owner, memory_order_relaxed);
            if (!c->hi->ops->alive || dead == 0 || c->hi->ops->alive(c->hi->h, dead) ||
                !atomic_compare_exchange_strong_explicit(&c->s->lock_owner, &dead, c->self, memory_order_acquire,
                                                         memory_order_relaxed))
                return MYRI_API0_ELOCKTIMEOUT;
            break;
        }
        api0__spend(c, c->hi->costs->lock_spin_ps ? c->hi->costs->lock_spin_ps : 1);
    }
    *took = true;
    return MYRI_API0_OK;
}
static void api0__give(const api0__ctx *c, bool took)
{
    if (took && atomic_load_explicit(&c->s->lock_owner, memory_order_relaxed) == c->self)
        atomic_store_explicit(&c->s->lock_owner, 0, memory_order_release);
}

/* ---- initialisation -------------------------------------------------------------- */

static int api0__handshake(api0__ctx *c)
{
    uint32_t token = ++c->s->token;
    if (token == 0) token = c->s->token = 1;
    int rc = api0__wr32(c, MYRI_HCB_HANDSHAKE_OFF, token);
    if (rc) return rc;
    return api0__poll_word(c, MYRI_HCB_HANDSHAKE_ACK_OFF, token, false, NULL);
}

/* Checks the geometry read from the header against the API's limits. */
static int api0__check_geom(const myri_hcb_geom *g, uint32_t bytes)
{
    if (g->nchan < 1 || g->nchan > MYRI_API0_NUM_CHANNELS) return MYRI_API0_EBADHCB;
    if (g->send_q < 2 || g->send_q > API0__MAX_SENDQ) return MYRI_API0_EBADHCB;
    if (g->recv_q < 2 || g->recv_q > API0__MAX_RECVQ) return MYRI_API0_EBADHCB;
    if (g->nroutes < 1 || g->nroutes > API0__MAX_ROUTES || g->route_max > 4096) return MYRI_API0_EBADHCB;
    if (g->mtu < 1 || g->mtu > (1u << 24) || g->pio_bytes > g->mtu) return MYRI_API0_EBADHCB;
    if (bytes != myri_hcb_bytes(g)) return MYRI_API0_EBADHCB;
    return MYRI_API0_OK;
}

static uint32_t api0__align(uint64_t n) { return (uint32_t)((n + API0__ALIGN - 1) / API0__ALIGN * API0__ALIGN); }

/* Divides the DMA region: poll words, receive slots, send buffers. */
static int api0__layout(api0__ctx *c)
{
    api0__seg *s = c->s;
    uint64_t bus, bytes;
    if (c->hi->ops->dma_region(c->hi->h, c->unit, &c->dma, &bus, &bytes) != MYRI_OK) return MYRI_API0_EIO;
    if (bus + bytes > UINT32_MAX) return MYRI_API0_ENOMEM; /* entries hold 32-bit bus addresses */
    s->dma_bus = bus;
    s->dma_bytes = bytes;
    s->slot_off = api0__align((uint64_t)s->g.nchan * API0__POLL_STRIDE);
    s->slot_bytes = api0__align((uint64_t)s->g.mtu + MYRI_SLOT_OVERHEAD);
    uint64_t end = (uint64_t)s->slot_off + (uint64_t)s->g.nchan * s->g.recv_q * s->slot_bytes;
    s->buf_bytes = api0__align(s->g.mtu);
    if (end + s->buf_bytes > bytes) return MYRI_API0_ENOMEM;
    s->buf_off = (uint32_t)end;
    uint64_t n = (bytes - end) / s->buf_bytes;
    s->nbufs = n > API0__MAX_BUFS ? API0__MAX_BUFS : (uint32_t)n;
    return MYRI_API0_OK;
}

/* Waits for the HCB pointer and the READY state, then reads and checks the
 * header, the geometry and the three signatures. */
static int api0__find_hcb(api0__ctx *c)
{
    api0__seg *s = c->s;
    s->hcb = 0;
    uint32_t ptr;
    int rc = api0__poll_word(c, MYRI_LANAI_HCB_PTR_ADDR, 0, true, &ptr);
    if (rc) return rc;
    s->hcb = ptr;
    rc = api0__poll_word(c, MYRI_HCB_STATE_OFF, MYRI_HCB_STATE_READY, false, NULL);
    if (rc) return rc;
    rc = api0__handshake(c);
    if (rc) return rc;
    uint8_t h[MYRI_HCB_HDR_BYTES];
    if (c->hi->ops->pio_read(c->hi->h, c->unit, s->hcb, h, sizeof h) != MYRI_OK) return MYRI_API0_EIO;
    if (myri_be32_get(h + MYRI_HCB_SIG_START_OFF) != MYRI_HCB_SIG_START) return MYRI_API0_EBADHCB;
    myri_hcb_geom g = {
        .nchan = myri_be32_get(h + MYRI_HCB_NCHAN_OFF),
        .send_q = myri_be32_get(h + MYRI_HCB_SEND_Q_OFF),
        .recv_q = myri_be32_get(h + MYRI_HCB_RECV_Q_OFF),
        .nroutes = myri_be32_get(h + MYRI_HCB_NROUTES_OFF),
        .route_max = myri_be32_get(h + MYRI_HCB_ROUTE_MAX_OFF),
        .pio_bytes = myri_be32_get(h + MYRI_HCB_PIO_BYTES_OFF),
        .mtu = myri_be32_get(h + MYRI_HCB_MTU_OFF),
    };
    rc = api0__check_geom(&g, myri_be32_get(h + MYRI_HCB_BYTES_OFF));
    if (rc) return rc;
    s->g = g;
    s->flags = myri_be32_get(h + MYRI_HCB_FLAGS_OFF);
    uint32_t mid, end;
    if ((rc = api0__rd32(c, myri_hcb_sig_mid_off(&g), &mid)) || (rc = api0__rd32(c, myri_hcb_sig_end_off(&g), &end)))
        return rc;
    if (mid != MYRI_HCB_SIG_MID || end != MYRI_HCB_SIG_END) return MYRI_API0_EBADHCB;
    return MYRI_API0_OK;
}

/* The send channel emptied, every buffer free, the route table cleared with
 * the zero route added, every receive channel disabled. */
static int api0__init_tables(api0__ctx *c)
{
    api0__seg *s = c->s;
    uint32_t head, sent;
    int rc;
    if ((rc = api0__rd32(c, myri_hcb_sendq_off(&s->g) + MYRI_HCB_SQ_HEAD, &head)) ||
        (rc = api0__rd32(c, myri_hcb_sendq_off(&s->g) + MYRI_HCB_SQ_SENT, &sent)))
        return rc;
    if (head >= s->g.send_q) return MYRI_API0_EBADHCB;
    if ((rc = api0__wr32(c, myri_hcb_sendq_off(&s->g) + MYRI_HCB_SQ_TAIL, head))) return rc;
    s->tail = s->head = head;
    s->enq = s->reaped = sent;
    s->free_head = 0;
    s->free_n = s->nbufs;
    for (uint32_t i = 0; i < s->nbufs; i++) {
        s->owned[i] = 0;
        s->inflight[i] = 0;
        s->freeq[i] = i;
    }
    memset(s->route_used, 0, sizeof s->route_used);
    for (uint32_t r = 0; r < s->g.nroutes; r++)
        if ((rc = api0__wr32(c, myri_hcb_route_off(&s->g, r), 0))) return rc;
    s->route_used[0] = 1; /* the zero route: no route bytes, a point-to-point link */
    for (uint32_t ch = 0; ch < s->g.nchan; ch++) {
        if ((rc = api0__wr32(c, myri_hcb_rchan_off(&s->g, ch) + MYRI_HCB_RC_ENABLED, 0))) return rc;
        s->chan[ch].inited = 0;
    }
    return MYRI_API0_OK;
}

static void api0__leave(void *seg, int id)
{
    api0__seg *s = seg;
    if (s->lock_owner == id) s->lock_owner = 0;
    if (s->state == API0__SEG_INITING && s->init_owner == id) s->state = API0__SEG_NONE;
    for (int ch = 0; ch < MYRI_API0_NUM_CHANNELS; ch++)
        if (s->chan[ch].owner == id) {
            s->chan[ch].owner = 0;
            s->chan[ch].inited = 0;
        }
}

static int api0__full_init(api0__ctx *c, const char *mcp_code)
{
    api0__seg *s = c->s;
    s->state = API0__SEG_INITING;
    s->init_owner = c->self;
    int rc = MYRI_API0_OK;
    if (mcp_code && mcp_code[0] && c->hi->ops->load_mcp(c->hi->h, c->unit, mcp_code) != MYRI_OK)
        rc = MYRI_API0_ENOMCP;
    if (!rc) rc = api0__find_hcb(c);
    if (!rc) rc = api0__layout(c);
    if (!rc) rc = api0__init_tables(c);
    s->state = rc ? API0__SEG_NONE : API0__SEG_READY;
    return rc;
}

int myri_api0_init(int unit_num, int in_id, int force_init, char *mcp_code)
{
    (void)in_id; /* seed 001: "board id... not really used" */
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, false);
    if (rc) return rc;
    void *seg = NULL;
    bool first = false;
    myri_status st = c.hi->ops->seg_attach(c.hi->h, unit_num, sizeof(api0__seg), api0__leave, &seg, &first);
    if (st == MYRI_ENOTFOUND) return MYRI_API0_EBADUNIT;
    if (st != MYRI_OK && st != MYRI_ESTATE) return MYRI_API0_ENOMEM;
    c.s = seg;
    if (st == MYRI_ESTATE) {
        /* this program is attached already: initialise again only if asked,
         * or if its earlier init failed */
        if (c.s->state == API0__SEG_READY && !force_init) return MYRI_API0_EALREADY;
        if (c.s->state == API0__SEG_INITING) return MYRI_API0_EALREADY;
        return api0__full_init(&c, mcp_code);
    }
    if (first || force_init) return api0__full_init(&c, mcp_code);
    /* a later user: wait while the first one initialises; take over if it failed */
    myri_time_ps t0 = api0__now(&c);
    while (c.s->state == API0__SEG_INITING) {
        if (api0__now(&c) - t0 >= c.hi->costs->init_timeout_ps) return MYRI_API0_ETIMEOUT;
        api0__spend(&c, c.hi->costs->poll_gap_ps ? c.hi->costs->poll_gap_ps : 1);
    }
    if (c.s->state == API0__SEG_READY) return MYRI_API0_OK;
    return api0__full_init(&c, mcp_code);
}

int myri_api0_handshake(int unit_num)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    return rc ? rc : api0__handshake(&c);
}

/* ---- send buffers ------------------------------------------------------------------ */

/* The index of send buffer buf, or -1 if it is not the start of one. */
static int api0__buf_index(const api0__ctx *c, const void *buf)
{
    if (!buf) return -1;
    uintptr_t p = (uintptr_t)buf, base = (uintptr_t)c->dma + c->s->buf_off;
    if (p < base) return -1;
    uintptr_t off = p - base;
    if (off % c->s->buf_bytes != 0 || off / c->s->buf_bytes >= c->s->nbufs) return -1;
    return (int)(off / c->s->buf_bytes);
}

static void api0__free_push(api0__seg *s, uint32_t idx)
{
    s->freeq[(s->free_head + s->free_n) % s->nbufs] = idx;
    s->free_n++;
}

/* The reap: the first (sent - reaped) enqueued buffers have been sent. */
static int api0__reap(const api0__ctx *c)
{
    api0__seg *s = c->s;
    uint32_t sent;
    int rc = api0__rd32(c, myri_hcb_sendq_off(&s->g) + MYRI_HCB_SQ_SENT, &sent);
    if (rc) return rc;
    uint32_t done = sent - s->reaped, queued = s->enq - s->reaped;
    if (done > queued) done = queued; /* never more than enqueued (a bad count) */
    for (uint32_t k = 0; k < done; k++) {
        uint32_t idx = s->fifo[s->reaped % API0__FIFO];
        s->reaped++;
        if (s->inflight[idx] > 0 && --s->inflight[idx] == 0 && !s->owned[idx]) api0__free_push(s, idx);
    }
    return MYRI_API0_OK;
}

static int api0__get_buffer(const api0__ctx *c, void **buf)
{
    api0__seg *s = c->s;
    if (s->free_n == 0) {
        int rc = api0__reap(c);
        if (rc) return rc;
        if (s->free_n == 0) return MYRI_API0_NO_BUFFERS;
    }
    uint32_t idx = s->freeq[s->free_head];
    s->free_head = (s->free_head + 1) % s->nbufs;
    s->free_n--;
    s->owned[idx] = 1;
    *buf = c->dma + s->buf_off + (size_t)idx * s->buf_bytes;
    return MYRI_API0_OK;
}

static int api0__get_send_buffer(int unit_num, void **buf, bool lock)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    if (!buf) return MYRI_API0_EINVAL;
    bool took = false;
    if (lock && (rc = api0__take(&c, &took))) return rc;
    rc = api0__get_buffer(&c, buf);
    api0__give(&c, took);
    return rc;
}
int myri_api0_get_send_buffer_l(int unit_num, void **buf) { return api0__get_send_buffer(unit_num, buf, true); }
int myri_api0_get_send_buffer(int unit_num, void **buf) { return api0__get_send_buffer(unit_num, buf, false); }

static int api0__free_send(int unit_num, char *buf, bool lock)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    if (!buf) return MYRI_API0_EINVAL;
    int idx = api0__buf_index(&c, buf);
    if (idx < 0) return MYRI_API0_EBADBUF;
    bool took = false;
    if (lock && (rc = api0__take(&c, &took))) return rc;
    if (!c.s->owned[idx]) {
        rc = MYRI_API0_ENOTOWNED;
    } else {
        c.s->owned[idx] = 0;
        if (c.s->inflight[idx] == 0) api0__free_push(c.s, (uint32_t)idx); /* else: on the busy list */
    }
    api0__give(&c, took);
    return rc;
}
int myri_api0_free_send_l(int unit_num, char *buf) { return api0__free_send(unit_num, buf, true); }
int myri_api0_free_send(int unit_num, char *buf) { return api0__free_send(unit_num, buf, false); }

static int api0__reap_sent(int unit_num, bool lock)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    bool took = false;
    if (lock && (rc = api0__take(&c, &took))) return rc;
    rc = api0__reap(&c);
    api0__give(&c, took);
    return rc;
}
int myri_api0_reap_sent_l(int unit_num) { return api0__reap_sent(unit_num, true); }
int myri_api0_reap_sent(int unit_num) { return api0__reap_sent(unit_num, false); }

int myri_api0_buffer_busy_p(int unit_num, void *buf)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    int idx = api0__buf_index(&c, buf);
    if (idx < 0) return buf ? MYRI_API0_EBADBUF : MYRI_API0_EINVAL;
    if (c.s->inflight[idx] == 0) return 0;
    bool took = false;
    if ((rc = api0__take(&c, &took))) return rc;
    rc = api0__reap(&c);
    api0__give(&c, took);
    if (rc) return rc;
    return c.s->inflight[idx] > 0 ? 1 : 0;
}

int myri_api0_num_pending(int unit_num)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    uint32_t sent;
    if ((rc = api0__rd32(&c, myri_hcb_sendq_off(&c.s->g) + MYRI_HCB_SQ_SENT, &sent))) return rc;
    /* read after every enqueue this program made: the MCP's count only grows
     * after the read, so the difference can only be too large (safe) */
    uint32_t queued = c.s->enq - c.s->reaped, done = sent - c.s->reaped;
    if (done > queued) done = queued;
    uint32_t pending = queued - done;
    return pending > INT32_MAX ? INT32_MAX : (int)pending;
}

int myri_api0_mtu(int unit_num)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    return c.s->g.mtu > INT32_MAX ? INT32_MAX : (int)c.s->g.mtu;
}

/* ---- send ----------------------------------------------------------------------------- */

/* Makes room for one entry: the shadowed head is re-read from SRAM only when
 * the queue looks full (seed 001: "once every N-1 sends"). */
static int api0__room(const api0__ctx *c)
{
    api0__seg *s = c->s;
    if (s->enq - s->reaped >= API0__FIFO) {
        int rc = api0__reap(c);
        if (rc) return rc;
        if (s->enq - s->reaped >= API0__FIFO) return MYRI_API0_QUEUE_FULL;
    }
    if ((s->tail + 1) % s->g.send_q != s->head) return MYRI_API0_OK;
    uint32_t head;
    int rc = api0__rd32(c, myri_hcb_sendq_off(&s->g) + MYRI_HCB_SQ_HEAD, &head);
    if (rc) return rc;
    if (head >= s->g.send_q) return MYRI_API0_EIO;
    s->head = head;
    return (s->tail + 1) % s->g.send_q == s->head ? MYRI_API0_QUEUE_FULL : MYRI_API0_OK;
}

static int api0__enqueue(const api0__ctx *c, int idx, uint32_t chan, uint32_t len, uint32_t route)
{
    api0__seg *s = c->s;
    int rc = api0__room(c);
    if (rc) return rc;
    uint32_t e = s->tail, flags = 0, addr = 0;
    const uint8_t *data = c->dma + s->buf_off + (size_t)idx * s->buf_bytes;
    if (s->g.pio_bytes > 0 && len <= s->g.pio_bytes) {
        /* small: the host CPU copies the payload into the entry's PIO buffer */
        if (len > 0 && (rc = api0__wr(c, myri_hcb_pio_off(&s->g, e), data, myri_hcb_round4(len)))) return rc;
        flags = MYRI_HCB_SE_F_PIO;
    } else {
        addr = (uint32_t)(s->dma_bus + s->buf_off + (uint64_t)idx * s->buf_bytes);
    }
    uint8_t ent[MYRI_HCB_SE_BYTES];
    myri_be32_put(ent + MYRI_HCB_SE_ADDR, addr);
    myri_be32_put(ent + MYRI_HCB_SE_LEN, len);
    myri_be32_put(ent + MYRI_HCB_SE_ROUTE, route);
    myri_be32_put(ent + MYRI_HCB_SE_CHAN, (flags << 16) | (chan & 0xffffu));
    if ((rc = api0__wr(c, myri_hcb_sentry_off(&s->g, e), ent, sizeof ent))) return rc;
    s->fifo[s->enq % API0__FIFO] = (uint32_t)idx;
    s->enq++;
    s->inflight[idx]++;
    s->tail = (e + 1) % s->g.send_q;
    return api0__wr32(c, myri_hcb_sendq_off(&s->g) + MYRI_HCB_SQ_TAIL, s->tail);
}

static int api0__send(int unit_num, int chan_num, void *buf, int buf_len, int route_id, bool lock)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    if (!buf || buf_len < 0) return MYRI_API0_EINVAL;
    if (chan_num < 0 || (uint32_t)chan_num >= c.s->g.nchan || chan_num > 0xffff) return MYRI_API0_EBADCHAN;
    int idx = api0__buf_index(&c, buf);
    if (idx < 0) return MYRI_API0_EBADBUF;
    if ((uint32_t)buf_len > c.s->g.mtu) return MYRI_API0_ETOOLONG;
    if (route_id < 0 || (uint32_t)route_id >= c.s->g.nroutes || !c.s->route_used[route_id])
        return MYRI_API0_EBADROUTE;
    bool took = false;
    if (lock && (rc = api0__take(&c, &took))) return rc;
    if (!c.s->owned[idx])
        rc = MYRI_API0_ENOTOWNED;
    else
        rc = api0__enqueue(&c, idx, (uint32_t)chan_num, (uint32_t)buf_len, (uint32_t)route_id);
    api0__give(&c, took);
    return rc;
}
int myri_api0_send_route_l(int unit_num, int chan_num, void *buf, int buf_len, int route_id)
{
    return api0__send(unit_num, chan_num, buf, buf_len, route_id, true);
}
int myri_api0_send_route(int unit_num, int chan_num, void *buf, int buf_len, int route_id)
{
    return api0__send(unit_num, chan_num, buf, buf_len, route_id, false);
}

/* ---- routes ------------------------------------------------------------------------------ */

int myri_api0_add_route(int unit_num, int route_id, char *route, int len)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    api0__seg *s = c.s;
    if (len < 0 || (len > 0 && !route)) return MYRI_API0_EINVAL;
    if ((uint32_t)len > s->g.route_max) return MYRI_API0_EROUTE;
    for (int i = 0; i < len; i++)
        if (!((uint8_t)route[i] & 0x80u)) return MYRI_API0_EROUTE;
    if (route_id == MYRI_API0_NEXT_ROUTE) {
        route_id = 0;
        for (uint32_t r = 1; r < s->g.nroutes && !route_id; r++)
            if (!s->route_used[r]) route_id = (int)r;
        if (!route_id) return MYRI_API0_NO_ROUTES;
    } else if (route_id <= 0 || (uint32_t)route_id >= s->g.nroutes) {
        return MYRI_API0_EBADROUTE;
    }
    s->route_used[route_id] = 1; /* claimed before the PIO: another user's NEXT_ROUTE skips it */
    uint32_t off = myri_hcb_route_off(&s->g, (uint32_t)route_id), r4 = myri_hcb_round4((uint32_t)len);
    if (len > 0) {
        /* right-aligned in round4(len) bytes: the send DMA skips SA = r4 - len (seed 001 figure 3) */
        uint8_t tmp[4096 + 4] = {0};
        memcpy(tmp + (r4 - (uint32_t)len), route, (size_t)len);
        if ((rc = api0__wr(&c, off + 4, tmp, r4))) return rc;
    }
    if ((rc = api0__wr32(&c, off, (uint32_t)len))) return rc;
    return route_id;
}

/* ---- lock, channels ------------------------------------------------------------------------- */

int myri_api0_lock(int unit_num)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    if (c.s->lock_owner == c.self) return MYRI_API0_ELOCKED;
    bool took;
    return api0__take(&c, &took);
}

int myri_api0_unlock(int unit_num)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    if (c.s->lock_owner != c.self) return MYRI_API0_ENOTLOCKED;
    atomic_store_explicit(&c.s->lock_owner, 0, memory_order_release);
    return MYRI_API0_OK;
}

int myri_api0_get_chan(int unit_num, int chan_num)
{
    api0__ctx c;
    int rc = api0__enter(unit_num, &c, true);
    if (rc) return rc;
    api0__seg *s = c.s;
    if (chan_num == MYRI_API0_ANY_CHAN) {
        for (uint32_t ch = 0; ch < s->g.nchan; ch++)
            if (s->chan[ch].owner == 0) {
                chan_num = (int)ch;
                break;
            }
        if (chan_num == MYRI_API0_ANY_CHAN) return MYRI_API0_NO_CHANS;
    } else if (chan_num < 0 || (uint32_t)chan_num >= s->g.nchan) {
        return MYRI_API0_EBADCHAN;
    } else if (s->chan[chan_num].owner != 0) {
        return MYRI_API0_CHAN_IN_USE;
    }
    s->chan[chan_num].owner = c.self;
    s->chan[chan_num].inited = 0;
    return chan_num;
}

/* The caller's channel chan_num (range and ownership checked). */
static int api0__own_chan(const api0__ctx *c, int chan_num, api0__chan **out)
{
    if (chan_num < 0 || (uint32_t)chan_num >= c->s->g.nchan) return MYRI_API0_EBADCHAN;
    if (c->s->chan[chan_num].owner != c->self) return MYRI_API0_CHAN_NOT_IN_USE;
    *out = &c->s->chan[chan_num];
    return MYRI_API0_OK;
}

int myri_api0_rele_chan(int unit_num, int chan_num)
{
    api0__ctx c;
    api0__chan *ch;
    int rc = api0__enter(unit_num, &c, true);
    if (rc || (rc = api0__own_chan(&c, chan_num, &ch))) return rc;
    ch->owner = 0;
    ch->inited = 0;
    return api0__wr32(&c, myri_hcb_rchan_off(&c.s->g, (uint32_t)chan_num) + MYRI_HCB_RC_ENABLED, 0);
}

int myri_api0_init_recv_chan(int unit_num, int chan_num)
{
    api0__ctx c;
    api0__chan *ch;
    int rc = api0__enter(unit_num, &c, true);
    if (rc || (rc = api0__own_chan(&c, chan_num, &ch))) return rc;
    api0__seg *s = c.s;
    uint32_t rco = myri_hcb_rchan_off(&s->g, (uint32_t)chan_num), put;
    ch->inited = 0;
    if ((rc = api0__wr32(&c, rco + MYRI_HCB_RC_ENABLED, 0)) || (rc = api0__rd32(&c, rco + MYRI_HCB_RC_PUT, &put)))
        return rc;
    uint64_t slots = s->dma_bus + s->slot_off + (uint64_t)chan_num * s->g.recv_q * s->slot_bytes;
    uint64_t poll = s->dma_bus + (uint64_t)chan_num * API0__POLL_STRIDE;
    myri_be32_put(c.dma + (size_t)chan_num * API0__POLL_STRIDE, put);
    uint8_t w[8];
    myri_be32_put(w, (uint32_t)slots);
    myri_be32_put(w + 4, s->slot_bytes);
    if ((rc = api0__wr(&c, rco + MYRI_HCB_RC_HOST_ADDR, w, 8))) return rc;
    myri_be32_put(w, put);
    myri_be32_put(w + 4, (uint32_t)poll);
    if ((rc = api0__wr(&c, rco + MYRI_HCB_RC_FREED, w, 8))) return rc;
    ch->next = ch->freed = ch->put = put;
    memset(ch->slot, API0__SLOT_IDLE, sizeof ch->slot);
    if ((rc = api0__wr32(&c, rco + MYRI_HCB_RC_ENABLED, 1))) return rc;
    ch->inited = 1;
    return MYRI_API0_OK;
}

/* ---- receive -------------------------------------------------------------------------------- */

/* The caller's initialised channel, for recv / recv_poll / free_recv. */
static int api0__rchan(api0__ctx *c, int unit_num, int chan_num, api0__chan **out)
{
    int rc = api0__enter(unit_num, c, true);
    if (rc || (rc = api0__own_chan(c, chan_num, out))) return rc;
    return (*out)->inited ? MYRI_API0_OK : MYRI_API0_ECHANINIT;
}

/* Looks at the MCP's delivered count: the poll word in host memory with DMA
 * notification (no bus crossing), else RC_PUT in SRAM (one PIO read). */
static int api0__refresh(const api0__ctx *c, int chan_num, api0__chan *ch)
{
    uint32_t put;
    if (c->s->flags & MYRI_HCB_F_DMA_NOTIFY) {
        if (c->hi->ops->sync) c->hi->ops->sync(c->hi->h);
        put = myri_be32_get(c->dma + (size_t)chan_num * API0__POLL_STRIDE);
    } else {
        int rc = api0__rd32(c, myri_hcb_rchan_off(&c->s->g, (uint32_t)chan_num) + MYRI_HCB_RC_PUT, &put);
        if (rc) return rc;
    }
    /* the MCP never delivers into a slot not freed: a larger count is broken */
    if (put - ch->freed > c->s->g.recv_q - 1 || put - ch->next > put - ch->freed) return MYRI_API0_EIO;
    ch->put = put;
    return MYRI_API0_OK;
}

static uint8_t *api0__slot(const api0__ctx *c, int chan_num, uint32_t slot)
{
    return c->dma + c->s->slot_off + ((size_t)chan_num * c->s->g.recv_q + slot) * c->s->slot_bytes;
}

int myri_api0_recv(int unit_num, int chan_num, void **buf, int *buf_len)
{
    api0__ctx c;
    api0__chan *ch;
    int rc = api0__rchan(&c, unit_num, chan_num, &ch);
    if (rc) return rc;
    if (!buf || !buf_len) return MYRI_API0_EINVAL;
    if (ch->next == ch->put && (rc = api0__refresh(&c, chan_num, ch))) return rc;
    if (ch->next == ch->put) return MYRI_API0_EMPTY;
    uint32_t slot = ch->next % c.s->g.recv_q;
    uint8_t *p = api0__slot(&c, chan_num, slot);
    uint32_t len = myri_be32_get(p + MYRI_SLOT_LEN);
    if (len > c.s->g.mtu) return MYRI_API0_EIO;
    ch->slot[slot] = API0__SLOT_OUT;
    ch->next++;
    *buf = p + MYRI_SLOT_PAYLOAD;
    *buf_len = (int)len;
    return MYRI_API0_OK;
}

int myri_api0_recv_poll(int unit_num, int chan_num)
{
    api0__ctx c;
    api0__chan *ch;
    int rc = api0__rchan(&c, unit_num, chan_num, &ch);
    if (rc) return rc;
    if (ch->next == ch->put && (rc = api0__refresh(&c, chan_num, ch))) return rc;
    return (int)(ch->put - ch->next);
}

int myri_api0_free_recv(int unit_num, int chan_num, void *buf)
{
    api0__ctx c;
    api0__chan *ch;
    int rc = api0__rchan(&c, unit_num, chan_num, &ch);
    if (rc) return rc;
    if (!buf) return MYRI_API0_EINVAL;
    uintptr_t p = (uintptr_t)buf, base = (uintptr_t)api0__slot(&c, chan_num, 0);
    if (p < (uintptr_t)c.dma || p >= (uintptr_t)c.dma + c.s->dma_bytes) return MYRI_API0_EBADBUF;
    uint32_t q = c.s->g.recv_q;
    if (p < base || p - base >= (uintptr_t)q * c.s->slot_bytes || (p - base) % c.s->slot_bytes != MYRI_SLOT_PAYLOAD)
        return MYRI_API0_ENOTRECV;
    uint32_t slot = (uint32_t)((p - base) / c.s->slot_bytes);
    if (ch->slot[slot] != API0__SLOT_OUT) return MYRI_API0_ENOTRECV;
    ch->slot[slot] = API0__SLOT_FREED;
    uint32_t before = ch->freed;
    while (ch->freed != ch->next && ch->slot[ch->freed % q] == API0__SLOT_FREED) {
        ch->slot[ch->freed % q] = API0__SLOT_IDLE;
        ch->freed++;
    }
    if (ch->freed == before) return MYRI_API0_OK;
    return api0__wr32(&c, myri_hcb_rchan_off(&c.s->g, (uint32_t)chan_num) + MYRI_HCB_RC_FREED, ch->freed);
}
