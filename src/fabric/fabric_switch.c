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

/* ---- switch inputs: packets present, decoding, arbitration ------------------------ */

fab_rxent *myri_fab_rx_front(fab_chan *c) { return c->rx.rxcount ? &c->rx.rxq[c->rx.rxhead] : NULL; }

fab_rxent *myri_fab_rx_push(myri_fabric *f, fab_chan *c)
{
    if (c->rx.rxcount == c->rx.rxcap) {
        uint32_t nc = c->rx.rxcap ? 2 * c->rx.rxcap : 2;
        fab_rxent *nq = malloc(nc * sizeof *nq);
        if (!nq) myri_panic(f->comp, "out of memory (input queue)");
        for (uint32_t i = 0; i < c->rx.rxcount; i++) nq[i] = c->rx.rxq[(c->rx.rxhead + i) & (c->rx.rxcap - 1)];
        free(c->rx.rxq);
        c->rx.rxq = nq;
        c->rx.rxcap = nc;
        c->rx.rxhead = 0;
    }
    fab_rxent *e = &c->rx.rxq[(c->rx.rxhead + c->rx.rxcount++) & (c->rx.rxcap - 1)];
    memset(e, 0, sizeof *e);
    return e;
}

fab_rxent *myri_fab_rx_find(fab_chan *c, const fab_pkt *pkt)
{
    for (uint32_t i = 0; i < c->rx.rxcount; i++) {
        fab_rxent *e = &c->rx.rxq[(c->rx.rxhead + i) & (c->rx.rxcap - 1)];
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
    c->rx.rxhead = (c->rx.rxhead + 1) & (c->rx.rxcap - 1);
    c->rx.rxcount--;
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
    c->x->rx.ready_at = (e->arrive_at > fab_now(f) ? e->arrive_at : fab_now(f)) + fab_path_latency(f, c);
    if (c->dev_in && c->x->rx.ready_at == fab_now(f) && f->now_phase > PH_DECODE) {
        myri_fab_port_grant(f, c); /* the previous packet just ended at the DMA: the next one now */
        return;
    }
    myri_fab_push(f, c->x->rx.ready_at, PH_DECODE, EV_DECODE, c->id, ++c->rx.dec_gen, NULL);
}

void myri_fab_front_done(myri_fabric *f, fab_chan *c)
{
    fab_rxent *e = myri_fab_rx_front(c);
    fab_pkt *pkt = fab_rx_pkt(f, e);
    myri_fab_rx_pop(c);
    fab_set_front(f, c, FR_NONE);
    c->rx.want_out = -1;
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
    in->rx.want_out = sw->out_ch[port];
    in->rx.in_route_byte = b;
    fab_chan *o = &f->ch[in->rx.want_out];
    o->tx.nreq++;
    o->tx.req_ports |= 1u << in->dst_port;
    if (f->m == &myri_fab_model_fast) {
        /* A busy output arbitrates when it is freed (every path that frees
         * one calls myri_fab_release): no event now.  A free output that
         * nobody else requests, at a switch where no other input is
         * decoding (so none can request it later in this instant: the route
         * time is not zero), has one possible outcome, the grant to this
         * input: arbitrate here rather than by an event of the arbitration
         * phase.  (The reference model keeps its events as they were.) */
        if (o->tx.cur) return;
        if (o->tx.nreq == 1 && sw->ndecoding == 0 && f->R > 0 && o->tx.free_at <= fab_now(f)) {
            fab__arbitrate(f, o);
            return;
        }
    }
    myri_fab_push(f, fab_now(f), PH_ARB, EV_ARB, (uint32_t)in->rx.want_out, 0, NULL);
}

static void fab__abandon(myri_fabric *f, fab_chan *c);
static void fab__fres_front(myri_fabric *f, fab_chan *in);

/* Does the sender of c hold a packet that a STOP blocks?  A packet in
 * progress, or at a switch output a granted packet not begun yet.  A host
 * takes its next packet only when it can send its head: a host that is
 * stopped before that holds nothing (the packet waits in its queue). */
static bool fab__holds(const fab_chan *c) { return c->tx.in_progress || (c->tx.cur && !c->src_host); }

/* Since when the packet of c (stopped, fab__holds) has been blocked: the
 * later of the STOP's arrival and the grant (docs/FABRIC.md). */
static uint64_t fab__blocked_since(const fab_chan *c)
{
    if (c->src_host || c->tx.granted_at < c->x->tx.stopped_since) return c->x->tx.stopped_since;
    return c->tx.granted_at;
}

/* One long-period timer per channel at most: it re-arms itself while stopped. */
static void fab__arm_timer(myri_fabric *f, fab_chan *c, uint64_t from)
{
    if (c->x->tx.timer_at) return;
    c->x->tx.timer_at = from + f->p.timeout_ps;
    myri_fab_push(f, c->x->tx.timer_at, PH_TIMEOUT, EV_TIMEOUT, c->id, 0, NULL);
}

void myri_fab_release(myri_fabric *f, fab_chan *o, uint64_t t)
{
    if (o->tx.nreq == 0 || o->tx.arb_at == t + 1) return;
    o->tx.arb_at = t + 1;
    myri_fab_push(f, t, PH_ARB, EV_ARB, o->id, 0, NULL);
}

static void fab__arbitrate(myri_fabric *f, fab_chan *o)
{
    uint64_t now = fab_now(f);
    if (o->tx.arb_at == now + 1) o->tx.arb_at = 0;
    if (o->tx.cur || o->tx.nreq == 0) return;
    if (o->tx.free_at > now) { /* still in its last slot: again when it ends */
        myri_fab_release(f, o, o->tx.free_at);
        return;
    }
    const fab_node *sw = &f->node[o->src_node];
    {
        /* Round robin: the first requesting port after the one served last. */
        uint32_t start = o->tx.rr + 1u < sw->nports ? o->tx.rr + 1u : 0, above = o->tx.req_ports >> start << start;
        uint32_t port = (uint32_t)__builtin_ctz(above ? above : o->tx.req_ports);
        int32_t ic = sw->in_ch[port];
        fab_chan *in = &f->ch[ic];
        MYRI_ASSERT(f->comp, in->rx.front == FR_WAIT && in->rx.want_out == (int32_t)o->id,
                    "output %u: port %u requests without waiting", o->id, port);
        fab_rxent *e = myri_fab_rx_front(in);
        o->tx.rr = port;
        o->tx.nreq--;
        o->tx.req_ports &= ~(1u << port);
        fab_set_front(f, in, FR_GRANT);
        o->tx.cur = fab_rx_pkt(f, e);
        f->ctr.hops++;
        o->tx.cur_hop = e->hop + 1;
        o->tx.cur_next = 0;
        o->tx.src_in = ic;
        o->x->tx.strip_byte = in->rx.in_route_byte;
        o->tx.granted_at = now;
        o->tx.ncorr = myri_fab_hop_corruptions(f, o->tx.cur, o, fab_cur_n(o) - 1);
        if (o->down) { /* into a cut cable: dropped at once */
            fab__abandon(f, o);
            return;
        }
        f->m->granted(f, in, o);
        /* Granted while stopped: blocked from now on (the long-period timer). */
        if (o->tx.cur && o->tx.stopped) fab__arm_timer(f, o, now);
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
    c->rx.stop_sent = stop;
    if (stop) c->x->st.stops++;
    else c->x->st.gos++;
    myri_fab_push(f, fab_now(f) + fab_q_ps(f, c), PH_CTRL, EV_CTRL, c->id, (c->x->epoch << 1) | (stop ? 1u : 0u), NULL);
}

static void fab__ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
    uint64_t now = fab_now(f);
    if (f->m->ctrl) f->m->ctrl(f, c, stop);
    if (stop) {
        if (c->tx.stopped) return;
        c->tx.stopped = true;
        c->x->tx.stopped_since = now;
        if (fab__holds(c)) fab__arm_timer(f, c, now);
    } else {
        if (!c->tx.stopped) return;
        c->tx.stopped = false;
        uint64_t from = c->x->tx.stopped_since > fab_win_start(f, c) ? c->x->tx.stopped_since : fab_win_start(f, c);
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
        fab_chan *in = &f->ch[c->tx.src_in];
        c->tx.src_in = -1;
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
    fab_pkt *pkt = c->tx.cur;
    uint64_t now = fab_now(f);
    bool begun = c->tx.in_progress;
#ifdef FAB_DEBUG
    fprintf(stderr, "%c %llu timeout ch %u pkt %llu begun %d\n", f->m->name[0], (unsigned long long)now, c->id, (unsigned long long)pkt->id, (int)begun);
#endif
    myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_TIMEOUT);
    if (c->src_host) myri_fab_port_tx_over(f, pkt, false, MYRI_FABRIC_DROP_TIMEOUT);
    if (begun) {
        c->x->st.truncated++;
        myri_fab_tap_done(f, c, c->tx.cur_next, true);
    }
    c->tx.tap_on = false; /* (the fast model copies a tapped packet's bytes at the grant) */
    uint64_t t = c->tx.free_at > now ? c->tx.free_at : now;
    /* FRES is a character: it takes the next slot (STOP does not hold it back) */
    myri_fab_push(f, t + c->d_ps, PH_ARRIVE, EV_FRES, c->id, c->x->epoch << 1, begun ? pkt : NULL);
    c->x->st.fres++;
    c->tx.free_at = t + f->T;
    t = c->tx.free_at;
    c->tx.in_progress = false;
    c->tx.cur = NULL;
    fab__free_path(f, c, t);
}

/* FRES reaches the receiver of c: the packet it terminates has no more
 * characters coming on this channel. */
static void fab__fres(myri_fabric *f, fab_chan *c, fab_pkt *pkt)
{
    if (!pkt) return; /* the FRES of a packet that never began on c: nothing to end */
    if (c->dst_host) {
        if (fab_cold(c)->rx.hpkt == pkt) fab_cold(c)->rx.hpkt = NULL;
        for (int i = 0; i < 2; i++)
            if (fab_cold(c)->rx.hh[i].pkt == pkt) fab_cold(c)->rx.hh[i].term = true;
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
    switch (c->rx.front) {
    case FR_DECODE:
        c->rx.dec_gen++;
        fab__sink(f, c);
        break;
    case FR_WAIT:
        f->ch[c->rx.want_out].tx.nreq--;
        f->ch[c->rx.want_out].tx.req_ports &= ~(1u << c->dst_port);
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
    if (!o->tx.cur || o->src_host || o->tx.run_on) return;
    fab_chan *u = &f->ch[o->tx.src_in];
    fab_rxent *e = myri_fab_rx_front(u);
    /* (a switch output's character k is its input's k + 1: the route byte) */
    if (!e || !e->fres || o->tx.cur_next + (o->dma ? 0u : 1u) < e->got) return;
    if (o->dma && o->tx.stopped) return;
    uint64_t now = fab_now(f);
    uint64_t t = o->tx.free_at > now ? o->tx.free_at : now;
    if (o->dma) {
        myri_fab_port_rx_end(f, o, MYRI_PORT_RX_TRUNC);
    } else if (o->tx.cur_next > 0) {
        o->x->st.truncated++;
        myri_fab_tap_done(f, o, o->tx.cur_next, true);
        myri_fab_push(f, t + o->d_ps, PH_ARRIVE, EV_FRES, o->id, o->x->epoch << 1, o->tx.cur);
        o->x->st.fres++;
        t += f->T;
        o->tx.free_at = t;
    }
    o->tx.cur = NULL;
    o->tx.in_progress = false;
    o->tx.src_in = -1;
    fab__drained(f, u, e);
    myri_fab_front_done(f, u);
    myri_fab_release(f, o, t);
}

/* FRES has reached the front packet of input `in`, which has a path or is
 * being discarded. */
static void fab__fres_front(myri_fabric *f, fab_chan *in)
{
    if (in->rx.front == FR_SINK) {
        fab_rxent *e = myri_fab_rx_front(in);
        in->x->rx.sink_end = e->g0 + e->got;
        fab__drained(f, in, e);
        myri_fab_front_done(f, in);
        return;
    }
    myri_fab_try_terminate(f, &f->ch[in->rx.want_out]);
}

/* The sender of c gives up its packet (cut cable): dropped "link_down", the
 * rest discarded where it comes from, the output free again. */
static void fab__abandon(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = c->tx.cur;
    uint64_t now = fab_now(f);
    myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
    if (c->src_host) myri_fab_port_tx_over(f, pkt, false, MYRI_FABRIC_DROP_LINK_DOWN);
    if (c->tx.in_progress) {
        c->x->st.truncated++;
        myri_fab_tap_done(f, c, c->tx.cur_next, true);
    }
    c->tx.in_progress = false;
    c->tx.cur = NULL;
    c->tx.tap_on = false;
    fab__free_path(f, c, c->tx.free_at > now ? c->tx.free_at : now);
}

static void fab__cut(myri_fabric *f, size_t link)
{
    uint64_t now = fab_now(f);
    for (size_t d = 0; d < 2; d++) {
        fab_chan *c = &f->ch[2 * link + d];
        if (c->down) continue;
        c->down = true;
        c->x->epoch++;
        if (c->tx.stopped) { /* no STOP/GO will come from a dead receiver */
            uint64_t from = c->x->tx.stopped_since > fab_win_start(f, c) ? c->x->tx.stopped_since : fab_win_start(f, c);
            if (now > from) c->x->st.stopped_ps += now - from;
            c->tx.stopped = false;
        }
        if (f->m->cut_sender) f->m->cut_sender(f, c);
        if (c->tx.cur) fab__abandon(f, c);
        else f->m->wake(f, c); /* queued packets go into the dead cable */
        fab_pkt *partial = f->m->cut_wire(f, c);
        if (partial) {
            /* The receiver notices the dead cable after the non-idle period and
             * terminates the packet as a FRES would. */
            myri_fab_drop(f, partial, MYRI_FABRIC_DROP_LINK_DOWN);
            myri_fab_push(f, now + f->p.nonidle_period_ps, PH_ARRIVE, EV_FRES, c->id, 1, partial);
        }
        myri_fab_port_link(f, c, false);
    }
}

static void fab__restore(myri_fabric *f, size_t link)
{
    for (size_t d = 0; d < 2; d++) {
        fab_chan *c = &f->ch[2 * link + d];
        if (!c->down) continue;
        c->down = false;
        c->x->epoch++;
        c->rx.stop_sent = false; /* flow control restarts from GO */
        myri_fab_rx_recheck(f, c);
        f->m->wake(f, c);
        myri_fab_port_link(f, c, true);
    }
}

void myri_fab_dispatch(myri_fabric *f, const fab_ev *ev)
{
    fab_chan *c = &f->ch[ev->a];
    switch (ev->kind) {
    case EV_CTRL: /* lost if the cable was cut (or restored) since it was sent */
        if (!c->down && (ev->b >> 1) == c->x->epoch) fab__ctrl(f, c, (ev->b & 1) != 0);
        break;
    case EV_TIMEOUT:
        c->x->tx.timer_at = 0;
        if (!c->tx.stopped || !fab__holds(c)) break;
        if (fab_now(f) - fab__blocked_since(c) >= f->p.timeout_ps) fab__timeout(f, c);
        else fab__arm_timer(f, c, fab__blocked_since(c));
        break;
    case EV_DECODE:
        if (ev->b == c->rx.dec_gen && c->rx.front == FR_DECODE) fab__decode(f, c);
        break;
    case EV_ARB: fab__arbitrate(f, c); break;
    case EV_FRES:
        if ((ev->b & 1) || (!c->down && (ev->b >> 1) == c->x->epoch)) fab__fres(f, c, ev->p);
        break;
    case EV_CUT: fab__cut(f, (size_t)ev->a); break;
    case EV_RESTORE: fab__restore(f, (size_t)ev->a); break;
    case EV_PORTLINK: myri_fab_port_link_due(f, c, ev->b); break;
    default:
        f->m->handle(f, ev);
    }
}

