/* fabric_switch.c -- what both models share at switches and on links: the
 * packets present at an input, route decoding, round-robin arbitration,
 * STOP/GO at the senders, long-period timeouts, FRES, cut and restored
 * links, and the dispatch of shared events.  See docs/FABRIC.md.
 */
#include "fabric/fabric_int.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the receivers' rings: one arena per fabric ------------------------------------
 * The input FIFOs and the run rings are small (2-8 entries of 32 bytes) and
 * there are two per channel: as separate mallocs each carried a 16-byte
 * header and a random place in the heap (4096 hosts: 1.6 MB of headers).
 * Here a block of 2^k bytes is carved from a 64 KiB chunk, or taken from the
 * free list of its size (a ring that grows gives its old block back, reused
 * by the next ring of that size); all are freed with the fabric. */
#define FAB_RING_CHUNK_BYTES (64u * 1024u)

/* Under AddressSanitizer a block given back, and a chunk's part not handed
 * out yet, are poisoned (the free list's link excepted), so that a pointer
 * kept into a ring that moved is reported as malloc's blocks would be. */
#if defined(__SANITIZE_ADDRESS__)
#define FAB_RING_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAB_RING_ASAN 1
#endif
#endif
#ifdef FAB_RING_ASAN
#include <sanitizer/asan_interface.h>
#define FAB_RING_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define FAB_RING_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define FAB_RING_POISON(p, n) ((void)(p), (void)(n))
#define FAB_RING_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

static unsigned fab__ring_class(size_t bytes)
{
    unsigned k = 6;
    while (((size_t)1 << k) < bytes) k++;
    return k;
}

static bool fab__ring_keep(myri_fabric *f, void *chunk)
{
    if (f->nring_chunks == f->capring_chunks) {
        size_t nc = f->capring_chunks ? 2 * f->capring_chunks : 16;
        void **na = realloc(f->ring_chunks, nc * sizeof *na);
        if (!na) return false;
        f->ring_chunks = na;
        f->capring_chunks = nc;
    }
    f->ring_chunks[f->nring_chunks++] = chunk;
    return true;
}

void *myri_fab_ring_get(myri_fabric *f, size_t bytes)
{
    unsigned k = fab__ring_class(bytes);
    size_t sz = (size_t)1 << k;
    void *p = f->ring_free[k];
    if (p) {
        FAB_RING_UNPOISON(p, sz);
        memcpy(&f->ring_free[k], p, sizeof(void *)); /* the next free block of this size */
        return p;
    }
    if (sz > FAB_RING_CHUNK_BYTES / 4) { /* a large ring: a chunk of its own */
        p = aligned_alloc(64, sz);
        if (p && !fab__ring_keep(f, p)) { free(p); p = NULL; }
        return p;
    }
    if (f->ring_left < sz) {
        uint8_t *c = aligned_alloc(64, FAB_RING_CHUNK_BYTES);
        if (!c || !fab__ring_keep(f, c)) { free(c); return NULL; }
        while (f->ring_left >= 64) { /* the old chunk's tail to the free lists */
            unsigned t = 6;
            while (((size_t)2 << t) <= f->ring_left) t++;
            myri_fab_ring_put(f, f->ring_cur, (size_t)1 << t);
            f->ring_cur += (size_t)1 << t;
            f->ring_left -= (size_t)1 << t;
        }
        f->ring_cur = c;
        f->ring_left = FAB_RING_CHUNK_BYTES;
        FAB_RING_POISON(c, FAB_RING_CHUNK_BYTES);
    }
    p = f->ring_cur;
    FAB_RING_UNPOISON(p, sz);
    f->ring_cur += sz;
    f->ring_left -= sz;
    return p;
}

void myri_fab_ring_put(myri_fabric *f, void *p, size_t bytes)
{
    if (!p) return;
    unsigned k = fab__ring_class(bytes);
    FAB_RING_UNPOISON(p, sizeof(void *)); /* a chunk's tail comes here poisoned */
    memcpy(p, &f->ring_free[k], sizeof(void *));
    f->ring_free[k] = p;
    FAB_RING_POISON((uint8_t *)p + sizeof(void *), ((size_t)1 << k) - sizeof(void *));
}

void myri_fab_ring_fini(myri_fabric *f)
{
    for (size_t i = 0; i < f->nring_chunks; i++) free(f->ring_chunks[i]); /* poisoned parts too: ASan's free reads none */
    free(f->ring_chunks);
    f->ring_chunks = NULL;
    f->nring_chunks = f->capring_chunks = 0;
    memset(f->ring_free, 0, sizeof f->ring_free);
    f->ring_cur = NULL;
    f->ring_left = 0;
}

/* ---- switch inputs: packets present, decoding, arbitration ------------------------ */

fab_rxent *myri_fab_rx_front(fab_chan *c) { return FAB_RX(c)->rxcount ? &FAB_RX(c)->rxq[FAB_RX(c)->rxhead] : NULL; }

fab_rxent *myri_fab_rx_push(myri_fabric *f, fab_chan *c)
{
    if (FAB_RX(c)->rxcount == FAB_RX(c)->rxcap) {
        uint32_t nc = FAB_RX(c)->rxcap ? 2 * FAB_RX(c)->rxcap : 2;
        fab_rxent *nq = myri_fab_ring_get(f, nc * sizeof *nq);
        if (!nq) myri_panic(f->comp, "out of memory (input queue)");
        for (uint32_t i = 0; i < FAB_RX(c)->rxcount; i++) nq[i] = FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + i) & (FAB_RX(c)->rxcap - 1)];
        myri_fab_ring_put(f, FAB_RX(c)->rxq, FAB_RX(c)->rxcap * sizeof *nq);
        FAB_RX(c)->rxq = nq;
        FAB_RX(c)->rxcap = nc;
        FAB_RX(c)->rxhead = 0;
    }
    fab_rxent *e = &FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + FAB_RX(c)->rxcount++) & (FAB_RX(c)->rxcap - 1)];
    memset(e, 0, sizeof *e);
    return e;
}

fab_rxent *myri_fab_rx_find(fab_chan *c, const fab_pkt *pkt)
{
    for (uint32_t i = 0; i < FAB_RX(c)->rxcount; i++) {
        fab_rxent *e = &FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + i) & (FAB_RX(c)->rxcap - 1)];
        if (e->pix == fab_pkt_ix(pkt)) return e;
    }
    return NULL;
}

void myri_fab_rx_recheck(myri_fabric *f, fab_chan *c)
{
    if (c->dst_host) return;
    myri_fab_push(f, fab_now(f), PH_CHECK, f->m->check_kind, c->id, 0, NULL);
}

void myri_fab_rx_pop(fab_chan *c)
{
    FAB_RX(c)->rxhead = (FAB_RX(c)->rxhead + 1) & (FAB_RX(c)->rxcap - 1);
    FAB_RX(c)->rxcount--;
}

void myri_fab_rx_release(myri_fabric *f, fab_chan *c)
{
    fab_rx_half *rx = FAB_RX(c);
    if (rx->rxcount || !rx->rxq) return;
    myri_fab_ring_put(f, rx->rxq, rx->rxcap * sizeof *rx->rxq);
    rx->rxq = NULL;
    rx->rxcap = rx->rxhead = 0;
}

static void fab__sink(myri_fabric *f, fab_chan *in)
{
    if (f->m->track) f->m->track(f, in);
    fab_set_front(f, in, FR_SINK);
    f->m->sink(f, in);
}

void myri_fab_front_begin(myri_fabric *f, fab_chan *c)
{
    fab_rxent *e = myri_fab_rx_front(c);
    if (!e) {
        fab_set_front(f, c, FR_NONE);
        return;
    }
    if (e->fres && !c->dev_in) { /* truncated before it got a path: discard what is here */
        fab__sink(f, c);
        return;
    }
    fab_set_front(f, c, FR_DECODE);
    /* An entry made in advance by the fast model may not have arrived yet:
     * decoding starts L after the later of its arrival and now (at a
     * device's host, the DMA takes the packet then: no path formation). */
    FAB_RXX(c)->ready_at = (e->arrive_at > fab_now(f) ? e->arrive_at : fab_now(f)) + fab_path_latency(f, c);
    if (c->dev_in && FAB_RXX(c)->ready_at == fab_now(f) && f->now_phase > PH_DECODE) {
        myri_fab_port_grant(f, c); /* the previous packet just ended at the DMA: the next one now */
        return;
    }
    myri_fab_push(f, FAB_RXX(c)->ready_at, PH_DECODE, EV_DECODE, c->id, ++FAB_RX(c)->dec_gen, NULL);
}

void myri_fab_front_done(myri_fabric *f, fab_chan *c)
{
    fab_rxent *e = myri_fab_rx_front(c);
    fab_pkt *pkt = fab_rx_pkt(f, e);
    myri_fab_rx_pop(c);
    myri_fab_rx_release(f, c);
    fab_set_front(f, c, FR_NONE);
    FAB_RX(c)->want_out = -1;
    myri_fab_pkt_unref(f, pkt);
    myri_fab_front_begin(f, c);
}

static void fab__arbitrate(myri_fabric *f, fab_chan *o);

static void fab__decode(myri_fabric *f, fab_chan *in)
{
    if (in->dev_in) { /* a device's host: the receive DMA takes every packet */
        myri_fab_port_grant(f, in);
        return;
    }
    fab_rxent *e = myri_fab_rx_front(in);
    fab_pkt *pkt = fab_rx_pkt(f, e);
    /* The leading byte as it arrived.  When the route is exhausted it is the
     * first type byte (MSB 0).  A packet with nothing left behind the byte
     * (only the trailer) and bytes beyond FAB_HDR (a packet wandering more
     * than 64 switches on corrupted bytes) are dropped as to-host bytes. */
    uint8_t b = (e->hop < FAB_HDR && fab_e_n(f, e) > 2) ? fab_hdr_byte(pkt, e->hop) : 0;
    const fab_node *sw = &f->node[in->dst_node];
    if (!(b & 0x80u)) {
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_TO_HOST_BYTE);
        fab__sink(f, in);
        return;
    }
    int port = myri_route_decode(b, in->dst_port, sw->nports, (myri_route_encoding)f->p.addressing);
    if (port < 0 || sw->out_ch[port] < 0) {
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_UNCONNECTED_PORT);
        fab__sink(f, in);
        return;
    }
    fab_set_front(f, in, FR_WAIT);
    FAB_RX(in)->want_out = sw->out_ch[port];
    FAB_RX(in)->in_route_byte = b;
    fab_chan *o = &f->ch[FAB_RX(in)->want_out];
    FAB_TX(o)->nreq++;
    FAB_TX(o)->req_ports |= 1u << in->dst_port;
    if (f->m == &myri_fab_model_fast) {
        /* A busy output arbitrates when it is freed (every path that frees
         * one calls myri_fab_release): no event now.  A free output that
         * nobody else requests, at a switch where no other input is
         * decoding (so none can request it later in this instant: the route
         * time is not zero), has one possible outcome, the grant to this
         * input: arbitrate here rather than by an event of the arbitration
         * phase.  (The reference model keeps its events as they were.) */
        if (FAB_TX(o)->cur) return;
        if (FAB_TX(o)->nreq == 1 && sw->ndecoding == 0 && f->R > 0 && FAB_TX(o)->free_at <= fab_now(f)) {
            fab__arbitrate(f, o);
            return;
        }
    }
    myri_fab_push(f, fab_now(f), PH_ARB, EV_ARB, (uint32_t)FAB_RX(in)->want_out, 0, NULL);
}

static void fab__abandon(myri_fabric *f, fab_chan *c);
static void fab__fres_front(myri_fabric *f, fab_chan *in);

/* Does the sender of c hold a packet that a STOP blocks?  A packet in
 * progress, or at a switch output a granted packet not begun yet.  A host
 * takes its next packet only when it can send its head: a host that is
 * stopped before that holds nothing (the packet waits in its queue). */
static bool fab__holds(const fab_chan *c) { return FAB_TX(c)->in_progress || (FAB_TX(c)->cur && !c->src_host); }

/* Since when the packet of c (stopped, fab__holds) has been blocked: the
 * later of the STOP's arrival and the grant (docs/FABRIC.md). */
static uint64_t fab__blocked_since(const fab_chan *c)
{
    if (c->src_host || FAB_TX(c)->granted_at < FAB_TXX(c)->stopped_since) return FAB_TXX(c)->stopped_since;
    return FAB_TX(c)->granted_at;
}

/* One long-period timer per channel at most: it re-arms itself while stopped. */
static void fab__arm_timer(myri_fabric *f, fab_chan *c, uint64_t from)
{
    if (FAB_TXX(c)->timer_at) return;
    FAB_TXX(c)->timer_at = from + f->p.timeout_ps;
    myri_fab_push(f, FAB_TXX(c)->timer_at, PH_TIMEOUT, EV_TIMEOUT, c->id, 0, NULL);
}

void myri_fab_release(myri_fabric *f, fab_chan *o, uint64_t t)
{
    if (FAB_TX(o)->nreq == 0 || FAB_TX(o)->arb_at == t + 1) return;
    FAB_TX(o)->arb_at = t + 1;
    myri_fab_push(f, t, PH_ARB, EV_ARB, o->id, 0, NULL);
}

static void fab__arbitrate(myri_fabric *f, fab_chan *o)
{
    uint64_t now = fab_now(f);
    if (FAB_TX(o)->arb_at == now + 1) FAB_TX(o)->arb_at = 0;
    if (FAB_TX(o)->cur || FAB_TX(o)->nreq == 0) return;
    if (FAB_TX(o)->free_at > now) { /* still in its last slot: again when it ends */
        myri_fab_release(f, o, FAB_TX(o)->free_at);
        return;
    }
    const fab_node *sw = &f->node[o->src_node];
    {
        /* Round robin: the first requesting port after the one served last. */
        uint32_t start = FAB_TX(o)->rr + 1u < sw->nports ? FAB_TX(o)->rr + 1u : 0, above = FAB_TX(o)->req_ports >> start << start;
        uint32_t port = (uint32_t)__builtin_ctz(above ? above : FAB_TX(o)->req_ports);
        int32_t ic = sw->in_ch[port];
        fab_chan *in = &f->ch[ic];
        MYRI_ASSERT(f->comp, FAB_RX(in)->front == FR_WAIT && FAB_RX(in)->want_out == (int32_t)o->id,
                    "output %u: port %u requests without waiting", o->id, port);
        fab_rxent *e = myri_fab_rx_front(in);
        FAB_TX(o)->rr = port;
        FAB_TX(o)->nreq--;
        FAB_TX(o)->req_ports &= ~(1u << port);
        fab_set_front(f, in, FR_GRANT);
        FAB_TX(o)->cur = fab_rx_pkt(f, e);
        f->ctr.hops++;
        FAB_TX(o)->cur_hop = e->hop + 1;
        FAB_TX(o)->cur_next = 0;
        FAB_TX(o)->src_in = ic;
        FAB_TX(o)->strip_byte = FAB_RX(in)->in_route_byte;
        FAB_TX(o)->granted_at = now;
        FAB_TX(o)->ncorr = myri_fab_hop_corruptions(f, FAB_TX(o)->cur, o, fab_cur_n(o) - 1);
        if (o->down) { /* into a cut cable: dropped at once */
            fab__abandon(f, o);
            return;
        }
        f->m->granted(f, in, o);
        /* Granted while stopped: blocked from now on (the long-period timer). */
        if (FAB_TX(o)->cur && FAB_TX(o)->stopped) fab__arm_timer(f, o, now);
        return;
    }
}

/* ---- STOP / GO / timeouts / FRES --------------------------------------------------- */

void myri_fab_emit_ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "%c %llu ch %u emit %s\n", f->m->name[0], (unsigned long long)fab_now(f), c->id, stop ? "STOP" : "GO");
#endif
    FAB_RX(c)->stop_sent = stop;
    if (stop) c->x->st.stops++;
    else c->x->st.gos++;
    /* A message to the sender, Q_c later (PARTITION.md row 9); lost if the cable is cut or restored before it
     * arrives: the receiver's epoch, compared with the sender's own (myri_fab_dispatch, EV_CTRL). */
    fab_msg m = {.epoch = c->x->rx_epoch, .stop = stop ? 1u : 0u};
    myri_fab_msg(f, c, fab_now(f) + fab_q_ps(f, c), PH_CTRL, MSG_CTRL, &m);
}

static void fab__ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
    uint64_t now = fab_now(f);
    if (f->m->ctrl) f->m->ctrl(f, c, stop);
    if (stop) {
        if (FAB_TX(c)->stopped) return;
        FAB_TX(c)->stopped = true;
        FAB_TXX(c)->stopped_since = now;
        if (fab__holds(c)) fab__arm_timer(f, c, now);
    } else {
        if (!FAB_TX(c)->stopped) return;
        FAB_TX(c)->stopped = false;
        uint64_t from = FAB_TXX(c)->stopped_since > fab_win_start(f, c) ? FAB_TXX(c)->stopped_since : fab_win_start(f, c);
        if (now > from) c->x->st.stopped_ps += now - from;
        f->m->wake(f, c);
    }
}

/* After the packet on channel c was cut short (timeout or dead cable): a
 * host sender moves on to its next packet; a switch output drains what is
 * left of the packet at its input and is released at t_ps. */
static void fab__free_path(myri_fabric *f, fab_chan *c, uint64_t t_ps)
{
    if (c->src_host) {
        f->m->wake(f, c);
    } else {
        fab_chan *in = &f->ch[FAB_TX(c)->src_in];
        FAB_TX(c)->src_in = -1;
        fab__sink(f, in);
        myri_fab_release(f, c, t_ps);
    }
}

/* The packet held by the sender of c has been blocked by STOP for the whole
 * long period: it is dropped, the rest of it is discarded where it comes
 * from, FRES goes forward to the receiver and the output is free one slot
 * later (seed 002: the time-out "drops the blocked part of the sender's
 * packet and sends a forward-reset (Fres) control symbol to the receiver").
 * A packet granted but not begun gets its FRES too; the receiver has seen
 * nothing of it (and holds no reference to it): that FRES carries no packet
 * and terminates nothing there. */
static void fab__timeout(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = FAB_TX(c)->cur;
    uint64_t now = fab_now(f);
    bool begun = FAB_TX(c)->in_progress;
#ifdef FAB_DEBUG
    fprintf(stderr, "%c %llu timeout ch %u pkt %llu begun %d\n", f->m->name[0], (unsigned long long)now, c->id, (unsigned long long)pkt->id, (int)begun);
#endif
    myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_TIMEOUT);
    if (c->src_host) myri_fab_port_tx_over(f, pkt, false, MYRI_FABRIC_DROP_TIMEOUT);
    if (begun) {
        c->x->st.truncated++;
        myri_fab_tap_done(f, c, FAB_TX(c)->cur_next, true);
    }
    FAB_TX(c)->tap_on = false; /* (the fast model copies a tapped packet's bytes at the grant) */
    uint64_t t = FAB_TX(c)->free_at > now ? FAB_TX(c)->free_at : now;
    /* FRES is a character: it takes the next slot (STOP does not hold it back) */
    myri_fab_push(f, t + c->d_ps, PH_ARRIVE, EV_FRES, c->id, (uint64_t)c->x->epoch << 1, begun ? pkt : NULL);
    c->x->st.fres++;
    FAB_TX(c)->free_at = t + f->T;
    t = FAB_TX(c)->free_at;
    FAB_TX(c)->in_progress = false;
    FAB_TX(c)->cur = NULL;
    fab__free_path(f, c, t);
}

/* FRES reaches the receiver of c: the packet it terminates has no more
 * characters coming on this channel. */
static void fab__fres(myri_fabric *f, fab_chan *c, fab_pkt *pkt)
{
    if (!pkt) return; /* the FRES of a packet that never began on c: nothing to end */
    if (c->dst_host) {
        if (FAB_RXC(c)->hpkt == pkt) FAB_RXC(c)->hpkt = NULL;
        for (int i = 0; i < 2; i++)
            if (FAB_RXC(c)->hh[i].pkt == pkt) FAB_RXC(c)->hh[i].term = true;
        myri_fab_pkt_unref(f, pkt); /* the channel's reference */
        return;
    }
    /* At a switch input the channel's reference is the packet's presence
     * there, released when it leaves the front. */
    fab_rxent *e = myri_fab_rx_find(c, pkt);
    if (!e) return;
    if (f->m->got) e->got = f->m->got(f, c, e);
    e->fres = true;
    if (e != myri_fab_rx_front(c)) return; /* handled when it reaches the front */
    switch (FAB_RX(c)->front) {
    case FR_DECODE:
        FAB_RX(c)->dec_gen++;
        fab__sink(f, c);
        break;
    case FR_WAIT:
        FAB_TX(&f->ch[FAB_RX(c)->want_out])->nreq--;
        FAB_TX(&f->ch[FAB_RX(c)->want_out])->req_ports &= ~(1u << c->dst_port);
        fab__sink(f, c);
        break;
    case FR_GRANT:
    case FR_SINK:
        fab__fres_front(f, c);
        break;
    default:
        break;
    }
}

/* Everything of the packet at the front of input u up to what was received
 * before FRES has left: the model brings its departures up to date. */
static void fab__drained(myri_fabric *f, fab_chan *u, const fab_rxent *e)
{
    if (f->m->drained) f->m->drained(f, u, e);
}

/* Output o has sent on every character that reached its input before a FRES
 * (and is not sending): FRES goes forward in its next slot (ignoring STOP) if
 * the packet had begun on o, and the path is freed.  A port's receive DMA
 * instead ends its window with a truncation, when one is armed. */
void myri_fab_try_terminate(myri_fabric *f, fab_chan *o)
{
    if (!FAB_TX(o)->cur || o->src_host || FAB_TX(o)->run_on) return;
    fab_chan *u = &f->ch[FAB_TX(o)->src_in];
    fab_rxent *e = myri_fab_rx_front(u);
    /* (a switch output's character k is its input's k + 1: the route byte) */
    if (!e || !e->fres || FAB_TX(o)->cur_next + (o->dma ? 0u : 1u) < e->got) return;
    if (o->dma && FAB_TX(o)->stopped) return;
    uint64_t now = fab_now(f);
    uint64_t t = FAB_TX(o)->free_at > now ? FAB_TX(o)->free_at : now;
    if (o->dma) {
        myri_fab_port_rx_end(f, o, MYRI_PORT_RX_TRUNC);
    } else if (FAB_TX(o)->cur_next > 0) {
        o->x->st.truncated++;
        myri_fab_tap_done(f, o, FAB_TX(o)->cur_next, true);
        myri_fab_push(f, t + o->d_ps, PH_ARRIVE, EV_FRES, o->id, (uint64_t)o->x->epoch << 1, FAB_TX(o)->cur);
        o->x->st.fres++;
        t += f->T;
        FAB_TX(o)->free_at = t;
    }
    FAB_TX(o)->cur = NULL;
    FAB_TX(o)->in_progress = false;
    FAB_TX(o)->src_in = -1;
    fab__drained(f, u, e);
    myri_fab_front_done(f, u);
    myri_fab_release(f, o, t);
}

/* FRES has reached the front packet of input `in`, which has a path or is
 * being discarded. */
static void fab__fres_front(myri_fabric *f, fab_chan *in)
{
    if (FAB_RX(in)->front == FR_SINK) {
        fab_rxent *e = myri_fab_rx_front(in);
        FAB_RXX(in)->sink_end = e->g0 + e->got;
        fab__drained(f, in, e);
        myri_fab_front_done(f, in);
        return;
    }
    myri_fab_try_terminate(f, &f->ch[FAB_RX(in)->want_out]);
}

/* The sender of c gives up its packet (cut cable): dropped "link_down", the
 * rest discarded where it comes from, the output free again. */
static void fab__abandon(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = FAB_TX(c)->cur;
    uint64_t now = fab_now(f);
    myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
    if (c->src_host) myri_fab_port_tx_over(f, pkt, false, MYRI_FABRIC_DROP_LINK_DOWN);
    if (FAB_TX(c)->in_progress) {
        c->x->st.truncated++;
        myri_fab_tap_done(f, c, FAB_TX(c)->cur_next, true);
    }
    FAB_TX(c)->in_progress = false;
    FAB_TX(c)->cur = NULL;
    FAB_TX(c)->tap_on = false;
    fab__free_path(f, c, FAB_TX(c)->free_at > now ? FAB_TX(c)->free_at : now);
}

/* A cut and a restore are one event per half of each channel of the link
 * (docs/PARTITION.md row 11), pushed at set-up in the order the two ends
 * did their work when one event did both: a cut's sender half before its
 * receiver half (the sender's cut run is over before the receiver counts
 * what is lost), a restore's receiver half first (flow control restarts
 * from GO before the sender wakes).  Each half sets its own copy of `down`
 * and of the epoch. */
static void fab__cut_tx(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (c->down) return;
    c->down = true;
    if (FAB_TX(c)->stopped) { /* no STOP/GO will come from a dead receiver */
        uint64_t from = FAB_TXX(c)->stopped_since > fab_win_start(f, c) ? FAB_TXX(c)->stopped_since : fab_win_start(f, c);
        if (now > from) c->x->st.stopped_ps += now - from;
        FAB_TX(c)->stopped = false;
    }
    if (f->m->cut_sender) f->m->cut_sender(f, c);
    if (FAB_TX(c)->cur) fab__abandon(f, c);
    else f->m->wake(f, c); /* queued packets go into the dead cable */
    /* What the cut's own work told the receiver (the fast model's run ended
     * here, a FRES) was sent before the cut: the older epoch, lost. */
    c->x->epoch++;
}

static void fab__cut_rx(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (c->rx_down) return;
    c->rx_down = true;
    c->x->rx_epoch++;
    FAB_RXX(c)->cut_at = now;
    fab_pkt *partial = f->m->cut_wire(f, c);
    if (partial) {
        /* The receiver notices the dead cable after the non-idle period and
         * terminates the packet as a FRES would. */
        myri_fab_drop(f, partial, MYRI_FABRIC_DROP_LINK_DOWN);
        myri_fab_push(f, now + f->p.nonidle_period_ps, PH_ARRIVE, EV_FRES, c->id, 1, partial);
    }
    myri_fab_port_link(f, c, false);
}

static void fab__restore_rx(myri_fabric *f, fab_chan *c)
{
    if (!c->rx_down) return;
    c->rx_down = false;
    c->x->rx_epoch++;
    /* Flow control restarts from the receiver's state, not from GO: a
     * receiver whose STOP stands (its slack reached the STOP line and has
     * not drained to GO) may hold more than the STOP line, so the sender
     * starts stopped until that GO.  (A sender restarting free could send
     * a round trip of characters into a buffer above STOP: overflow.)  The
     * STOP is taken as known to the sender at the restore (an assumption,
     * docs/FABRIC.md "Link cut"): a crossing of row 11 until the restore
     * is a message (docs/PARTITION.md). */
    if (FAB_RX(c)->stop_sent) FAB_CROSS_DO(f, c->src_node, 11, fab__ctrl(f, c, true));
    myri_fab_rx_recheck(f, c);
    /* the receiving device's notice: port notices are delivered sorted by
     * (host, kind, sequence), so before or after the sender's wake is the same */
    myri_fab_port_link(f, c, true);
}

static void fab__restore_tx(myri_fabric *f, fab_chan *c)
{
    if (!c->down) return;
    c->down = false;
    c->x->epoch++;
    f->m->wake(f, c);
}

void myri_fab_dispatch(myri_fabric *f, const fab_ev *ev)
{
    fab_chan *c = &f->ch[ev->a];
    switch (ev->kind) {
    case EV_CTRL: /* lost if the cable was cut (or restored) since it was sent */
        if (!c->down && (ev->b >> 1) == c->x->epoch) fab__ctrl(f, c, (ev->b & 1) != 0);
        break;
    case EV_TIMEOUT:
        FAB_TXX(c)->timer_at = 0;
        if (!FAB_TX(c)->stopped || !fab__holds(c)) break;
        if (fab_now(f) - fab__blocked_since(c) >= f->p.timeout_ps) fab__timeout(f, c);
        else fab__arm_timer(f, c, fab__blocked_since(c));
        break;
    case EV_DECODE:
        if (ev->b == FAB_RX(c)->dec_gen && FAB_RX(c)->front == FR_DECODE) fab__decode(f, c);
        break;
    case EV_ARB: fab__arbitrate(f, c); break;
    case EV_FRES:
        if ((ev->b & 1) || (!c->rx_down && (ev->b >> 1) == c->x->rx_epoch)) fab__fres(f, c, ev->p);
        break;
    case EV_CUT_TX: fab__cut_tx(f, c); break;
    case EV_CUT_RX: fab__cut_rx(f, c); break;
    case EV_RESTORE_RX: fab__restore_rx(f, c); break;
    case EV_RESTORE_TX: fab__restore_tx(f, c); break;
    case EV_PORTLINK: myri_fab_port_link_due(f, c, ev->b); break;
    default:
        f->m->handle(f, ev);
    }
}

