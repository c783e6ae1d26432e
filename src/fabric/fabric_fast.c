/* fabric_fast.c -- the FAST model: runs of characters instead of characters.
 *
 * A sender transmits a packet as one or more RUNS: characters sent back to
 * back, character k of the run at s + k*T.  A run is planned when it starts
 * (as long as the packet lasts and, for a switch output, as long as the
 * characters it forwards are already known to arrive in time) and is cut
 * short only by a STOP (characters at times >= the STOP's arrival are not
 * sent) or by a shorter plan upstream.  Each channel keeps a small ring of its
 * recent runs: from it the receiver knows exactly when every character
 * arrives (run time + T + propagation) without an event per character.
 *
 * The slack occupancy of a switch input at the end of instant x is
 * O(x) = A(x) - D(x): arrivals counted from the ring, departures from the
 * output run that drains it (or the sink).  Along the arrival instants of one
 * run O never decreases and along the departure instants of one run it never
 * increases (at most one character per T each way), so the first instant
 * where O reaches the STOP line (or falls to the GO line) is found by binary
 * search; it is re-predicted whenever a run starts or is cut short.  Events
 * per packet when nothing blocks: per switch the route decoding, the
 * arbitration and the run end; the source host's run start and end; the GAP's
 * arrival at the destination.  Heads are entered at switch inputs when they
 * are sent (no arrival event), and a head reaching a host is an event only
 * for a misrouted packet.  See docs/FABRIC.md for why this equals the
 * reference model.
 */
#include "fabric/fabric_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fab_fast_wake(myri_fabric *f, fab_chan *c);
static uint32_t fab_fast_got(myri_fabric *f, fab_chan *c, const fab_rxent *e);

/* ---- the ring of runs ---------------------------------------------------------- */

static fab_run *ff__run(fab_chan *c, uint32_t i) { return &c->rx.runs[(c->rx.rhead + i) & (c->rx.rcap - 1)]; }
static fab_run *ff__last(fab_chan *c) { return ff__run(c, c->rx.rcount - 1); }

/* A(x): characters of channel c arrived at its receiver by the end of instant x.
 * Global character numbers count exactly the characters that arrive (those
 * lost on a cut cable are given back), and runs follow each other in time,
 * so A(x) = n0 + arrived part of the last run that has begun arriving. */
static uint64_t ff__arrived(const myri_fabric *f, fab_chan *c, uint64_t x)
{
    for (uint32_t i = c->rx.rcount; i-- > 0;) {
        const fab_run *r = ff__run(c, i);
        uint64_t first = r->s + c->d_ps;
        if (x < first) continue;
        uint64_t k = fab_div_T(f, x - first) + 1;
        return r->n0 + (k < r->cnt ? k : r->cnt);
    }
    return c->rx.arr_base;
}

/* Arrival time of global character g of channel c, or NEVER if unknown. */
static uint64_t ff__arrival(const myri_fabric *f, fab_chan *c, uint64_t g, uint32_t *idx)
{
    for (uint32_t i = 0; i < c->rx.rcount; i++) {
        const fab_run *r = ff__run(c, i);
        if (g >= r->n0 && g < r->n0 + r->cnt) {
            if (idx) *idx = i;
            return r->s + (g - r->n0) * f->T + c->d_ps;
        }
    }
    return MYRI_TIME_NEVER;
}

/* Arrival time of character g of channel c if it is a character of packet
 * p (numbers of characters lost on a cut cable are reused), else NEVER. */
static uint64_t ff__arrival_of(const myri_fabric *f, fab_chan *c, uint64_t g, const fab_pkt *p)
{
    uint32_t i;
    uint64_t a = ff__arrival(f, c, g, &i);
    return (a != MYRI_TIME_NEVER && ff__run(c, i)->pix == fab_pkt_ix(p)) ? a : MYRI_TIME_NEVER;
}

/* D(x): characters that left input u's slack buffer by the end of instant x,
 * given a = A(x). */
static uint64_t ff__departed_a(const myri_fabric *f, fab_chan *u, uint64_t x, uint64_t a)
{
    if (u->rx.front == FR_SINK) return a < u->x->rx.sink_end ? a : u->x->rx.sink_end;
    if (u->rx.front == FR_GRANT) {
        const fab_chan *o = &f->ch[u->rx.want_out];
        if (o->tx.run_on && o->tx.src_in == (int32_t)u->id && x >= o->tx.run_s) {
            uint64_t k = fab_div_T(f, x - o->tx.run_s) + 1;
            return u->rx.dep_base + (k < o->tx.run_lim ? k : o->tx.run_lim);
        }
    }
    return u->rx.dep_base;
}

/* O at arrival number m of run r (its instant first + mT): A is known. */
static int64_t ff__occ_run(const myri_fabric *f, fab_chan *u, const fab_run *r, uint64_t m)
{
    uint64_t x = r->s + u->d_ps + m * f->T, a = r->n0 + m + 1;
    return (int64_t)(a - ff__departed_a(f, u, x, a));
}

/* D(x): characters that left input u's slack buffer by the end of instant x. */
static uint64_t ff__departed(const myri_fabric *f, fab_chan *u, uint64_t x)
{
    if (u->rx.front == FR_SINK) {
        uint64_t a = ff__arrived(f, u, x);
        return a < u->x->rx.sink_end ? a : u->x->rx.sink_end;
    }
    if (u->rx.front == FR_GRANT) {
        const fab_chan *o = &f->ch[u->rx.want_out];
        if (o->tx.run_on && o->tx.src_in == (int32_t)u->id && x >= o->tx.run_s) {
            uint64_t k = fab_div_T(f, x - o->tx.run_s) + 1;
            return u->rx.dep_base + (k < o->tx.run_lim ? k : o->tx.run_lim);
        }
    }
    return u->rx.dep_base;
}

static int64_t ff__occ(const myri_fabric *f, fab_chan *u, uint64_t x)
{
    uint64_t a = ff__arrived(f, u, x);
    return (int64_t)(a - ff__departed_a(f, u, x, a));
}

static void ff__purge(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    uint64_t dep = c->dst_host ? UINT64_MAX : ff__departed(f, c, now);
    while (c->rx.rcount > 1) {
        fab_run *r = ff__run(c, 0);
        uint64_t last = r->s + (r->cnt ? r->cnt - 1 : 0) * f->T + c->d_ps;
        if (last > now || last > c->rx.last_check || r->n0 + r->cnt > dep) break;
        c->rx.arr_base += r->cnt;
        c->rx.rhead = (c->rx.rhead + 1) & (c->rx.rcap - 1);
        c->rx.rcount--;
    }
}

static void ff__ring_push(myri_fabric *f, fab_chan *c, fab_run r)
{
    if (!c->dst_host && !c->dma) {
        if (c->rx.rcount) ff__purge(f, c);
    } else {
        uint64_t now = fab_now(f);
        while (c->rx.rcount) {
            fab_run *o = ff__run(c, 0);
            if (o->s + (o->cnt ? o->cnt - 1 : 0) * f->T + c->d_ps > now) break;
            c->rx.arr_base += o->cnt;
            c->rx.rhead = (c->rx.rhead + 1) & (c->rx.rcap - 1);
            c->rx.rcount--;
        }
    }
    if (c->rx.rcount == c->rx.rcap) {
        uint32_t nc = c->rx.rcap ? 2 * c->rx.rcap : 4;
        fab_run *nr = malloc(nc * sizeof *nr);
        if (!nr) myri_panic(f->comp, "out of memory (runs)");
        for (uint32_t i = 0; i < c->rx.rcount; i++) nr[i] = *ff__run(c, i);
        free(c->rx.runs);
        c->rx.runs = nr;
        c->rx.rcap = nc;
        c->rx.rhead = 0;
    }
    *ff__run(c, c->rx.rcount++) = r;
}

/* ---- slack checks ------------------------------------------------------------------ */

static void ff__rx_update(myri_fabric *f, fab_chan *u)
{
    if (u->dst_host || u->dma) return;
    uint64_t now = fab_now(f);
    if (u->rx.check_pending && u->rx.check_pending_at == now) return;
    u->rx.check_pending = true;
    u->rx.check_pending_at = now;
    if (f->in_tick) f->dirty[f->ndirty++] = u->id; /* checked at the end of the instant */
    else myri_fab_push(f, now, PH_CHECK, EV_F_CHECK, u->id, 0, NULL);
}

/* Largest occupancy at the arrival instants in (last_check, lim], and at lim
 * itself when `at_lim` (the end of the current instant, after all its
 * changes).  Called with lim = now - 1 just before the departure process of
 * u changes, since the formula for D(x) is only valid for the past until then. */
/* The cheap bound: every occupancy of u from last_check + 1 on is at most
 * B = A_max - dep_base, A_max the characters u will have received when the
 * runs it knows of are over (the last run's end: runs follow each other)
 * and dep_base a floor of its departures there (the departure formula is
 * valid from last_check + 1, dep_base + what the draining run sent, and
 * only grows; not while discarding, where D follows the arrivals).  A run
 * that starts later checks u again (ff__rx_update). */
static uint64_t ff__bound(const fab_chan *u)
{
    if (u->rx.front == FR_SINK) return UINT64_MAX;
    uint64_t amax = u->rx.rcount ? u->rx.runs[(u->rx.rhead + u->rx.rcount - 1) & (u->rx.rcap - 1)].n0 +
                                    u->rx.runs[(u->rx.rhead + u->rx.rcount - 1) & (u->rx.rcap - 1)].cnt
                              : u->rx.arr_base;
    return amax > u->rx.dep_base ? amax - u->rx.dep_base : 0;
}

static int64_t ff__track_upto(myri_fabric *f, fab_chan *u, uint64_t lim, bool at_lim)
{
    if (!at_lim && ff__bound(u) <= u->rx.max_slack) { /* nothing to visit: no new largest occupancy */
        if (lim > u->rx.last_check) u->rx.last_check = lim;
        return 0;
    }
    uint64_t alim = (at_lim || lim > u->rx.last_check) ? ff__arrived(f, u, lim) : 0;
    int64_t at = at_lim ? (int64_t)(alim - ff__departed_a(f, u, lim, alim)) : 0, best = at;
    /* The departure formula is valid since last_check + 1 (this is called
     * before every change of it) and D is nondecreasing there, A too: every
     * occupancy in (last_check, lim] is at most A(lim) - D(last_check + 1).
     * Below the largest occupancy seen, the instants need not be visited. */
    uint32_t from = u->rx.rcount;
    if (lim > u->rx.last_check &&
        (int64_t)(alim - ff__departed(f, u, u->rx.last_check + 1)) > (int64_t)u->rx.max_slack)
        from = 0;
    for (uint32_t i = from; i < u->rx.rcount; i++) {
        const fab_run *r = ff__run(u, i);
        uint64_t first = r->s + u->d_ps;
        if (r->cnt == 0) continue;
        uint64_t last = first + (r->cnt - 1) * f->T;
        if (last <= u->rx.last_check) continue;
        if (first > lim) break;
        uint64_t m = last < lim ? r->cnt - 1 : fab_div_T(f, lim - first);
        if (first + m * f->T <= u->rx.last_check) continue;
        int64_t o = ff__occ_run(f, u, r, m);
        if (o > best) best = o;
    }
    MYRI_ASSERT(f->comp, best <= (int64_t)f->p.slack_size_bytes,
                "slack buffer of channel %u overflows: %lld > %llu characters", u->id,
                (long long)best, (unsigned long long)f->p.slack_size_bytes);
    if ((uint64_t)best > u->rx.max_slack) u->rx.max_slack = (uint64_t)best;
    if (lim > u->rx.last_check) u->rx.last_check = lim;
    return at;
}

static void ff__track_max(myri_fabric *f, fab_chan *u)
{
    uint64_t now = fab_now(f);
    if (now > 0) ff__track_upto(f, u, now - 1, false);
}

/* First arrival instant after now where O reaches the STOP line. */
static uint64_t ff__predict_stop(myri_fabric *f, fab_chan *u)
{
    uint64_t now = fab_now(f), S = f->p.slack_stop_bytes;
    for (uint32_t i = 0; i < u->rx.rcount; i++) {
        const fab_run *r = ff__run(u, i);
        uint64_t first = r->s + u->d_ps;
        if (r->cnt == 0) continue;
        uint64_t last = first + (r->cnt - 1) * f->T;
        if (last <= now) continue;
        uint64_t lo = first > now ? 0 : fab_div_T(f, now - first) + 1, hi = r->cnt - 1;
        const fab_chan *o = u->rx.front == FR_GRANT ? &f->ch[u->rx.want_out] : NULL;
        if (!(o && o->tx.run_on && o->tx.src_in == (int32_t)u->id)) {
            /* Nothing departs along this run (or only the discarded packet's
             * characters, as they arrive): O(m) = n0 + m + 1 - D, D fixed. */
            uint64_t d = u->rx.front == FR_SINK ? u->x->rx.sink_end : u->rx.dep_base;
            int64_t need = (int64_t)S - 1 + (int64_t)d - (int64_t)r->n0;
            uint64_t m = need > (int64_t)lo ? (uint64_t)need : lo;
            if (m > hi) continue;
            return first + m * f->T;
        }
        if (ff__occ_run(f, u, r, hi) < (int64_t)S) continue;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (ff__occ_run(f, u, r, mid) >= (int64_t)S) hi = mid;
            else lo = mid + 1;
        }
        return first + lo * f->T;
    }
    return MYRI_TIME_NEVER;
}

/* First departure instant after now where O falls to the GO line. */
static uint64_t ff__predict_go(myri_fabric *f, fab_chan *u)
{
    if (u->rx.front != FR_GRANT) return MYRI_TIME_NEVER;
    const fab_chan *o = &f->ch[u->rx.want_out];
    if (!o->tx.run_on || o->tx.src_in != (int32_t)u->id) return MYRI_TIME_NEVER;
    uint64_t now = fab_now(f), G = f->p.slack_go_bytes;
    uint64_t last = o->tx.run_s + (o->tx.run_lim - 1) * f->T;
    if (last <= now) return MYRI_TIME_NEVER;
    uint64_t lo = o->tx.run_s > now ? 0 : fab_div_T(f, now - o->tx.run_s) + 1, hi = o->tx.run_lim - 1;
    if (ff__occ(f, u, o->tx.run_s + hi * f->T) > (int64_t)G) return MYRI_TIME_NEVER;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ff__occ(f, u, o->tx.run_s + mid * f->T) <= (int64_t)G) hi = mid;
        else lo = mid + 1;
    }
    return o->tx.run_s + lo * f->T;
}

/* Compares the slack with the lines now and predicts the next crossing
 * (kept in the predicted-check queue, replaced at every check). */
static void ff__check(myri_fabric *f, fab_chan *u, uint64_t gen)
{
    uint64_t now = fab_now(f);
    (void)gen;
    if (u->rx.check_pending && u->rx.check_pending_at == now) u->rx.check_pending = false;
    uint64_t b = u->rx.stop_sent ? UINT64_MAX : ff__bound(u);
    if (b < f->p.slack_stop_bytes && b <= u->rx.max_slack) {
        /* Below both the STOP line and the largest occupancy seen, by the
         * cheap bound: no STOP now nor along the known runs, no new
         * maximum; nothing to track or predict. */
        if (now > u->rx.last_check) u->rx.last_check = now;
        if (u->rx.pred_at != MYRI_TIME_NEVER) myri_fab_cq_remove(f, u->id);
        return;
    }
    int64_t o = ff__track_upto(f, u, now, true);
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || u->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "F %llu check A %llu D %llu O %lld front %d dep_base %llu\n", (unsigned long long)now,
                (unsigned long long)ff__arrived(f, u, now), (unsigned long long)ff__departed(f, u, now), (long long)o,
                (int)u->front, (unsigned long long)u->dep_base);
#endif
    if (!u->rx.stop_sent && o >= (int64_t)f->p.slack_stop_bytes) myri_fab_emit_ctrl(f, u, true);
    else if (u->rx.stop_sent && o <= (int64_t)f->p.slack_go_bytes) myri_fab_emit_ctrl(f, u, false);
    uint64_t x = u->rx.stop_sent ? ff__predict_go(f, u)
                 : b < f->p.slack_stop_bytes ? MYRI_TIME_NEVER /* the bound: the STOP line is out of reach */
                                              : ff__predict_stop(f, u);
    if (x == MYRI_TIME_NEVER) myri_fab_cq_remove(f, u->id);
    else if (x != u->rx.pred_at) myri_fab_cq_set(f, u->id, x);
}

static void fab_fast_check_due(myri_fabric *f, uint32_t channel)
{
    myri_fab_cq_remove(f, channel);
    ff__check(f, &f->ch[channel], 1);
}

static void fab_fast_flush(myri_fabric *f)
{
    for (size_t i = 0; i < f->ndirty; i++) {
        f->cur_node = f->ch[f->dirty[i]].dst_node; /* the agenda's origin: the receiver checks */
        ff__check(f, &f->ch[f->dirty[i]], 0);
    }
    f->ndirty = 0;
}

/* ---- senders ------------------------------------------------------------------------ */

static void ff__wake_at(myri_fabric *f, fab_chan *c, uint64_t t)
{
    if (c->tx.send_pending && c->x->tx.send_pending_at == t) return;
    c->tx.send_pending = true;
    c->x->tx.send_pending_at = t;
    myri_fab_push(f, t, PH_SEND, EV_F_SEND, c->id, 0, NULL);
}

static void fab_fast_wake(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    ff__wake_at(f, c, c->tx.free_at > now ? c->tx.free_at : now);
}

/* Applies this hop's bit errors: to the route/type copy the switches decode
 * and to the CRC syndrome (rem(mask * x^(8 (nbytes-1-pos)))). */
static void ff__apply_corr(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = c->tx.cur;
    uint32_t nbytes = fab_cur_n(c) - 1;
    if (c->tx.ncorr && pkt->hdr_lazy) myri_fab_pkt_hdr_fill(pkt);
    for (uint32_t k = 0; k < c->tx.ncorr; k++) {
        uint32_t at = c->tx.cur_hop + fab_cold(c)->tx.corr[k].pos;
        uint8_t m = fab_cold(c)->tx.corr[k].mask;
        if (at < FAB_HDR) pkt->hdr[at] ^= m;
        if (pkt->bytes) myri_fab_pkt_xor(f, pkt, at, c->tx.cur_hop, m, false);
        if (!pkt->open) pkt->syndrome ^= myri_crc8_shift(&f->crc, m, nbytes - 1 - fab_cold(c)->tx.corr[k].pos);
        /* (open: the length is not known yet; myri_fab_pkt_close adds it from the XOR list) */
    }
    /* Tap: the bytes of this hop are computed when the packet is over on c
     * (myri_fab_tap_done: the sender's bytes with the XORs of hops <= this one). */
    if (f->any_tap && f->taps[c->id].fn && pkt->bytes) c->tx.tap_on = true; /* any_tap: no miss on taps[] */
}

/* Characters output o can send back to back from its character j at time t:
 * the forwarded input characters must have arrived, and fallen through the
 * switch's pipeline, by the time each is sent.  0 if character j is not
 * through by t (*next = when it is, if known). */
static uint64_t ff__avail(myri_fabric *f, fab_chan *o, uint64_t t, uint32_t j, uint64_t *next)
{
    fab_chan *u = &f->ch[o->tx.src_in];
    fab_rxent *e = myri_fab_rx_front(u);
    uint64_t g = e->g0 + j + (o->dma ? 0u : 1u); /* a switch output's j is its input's j + 1 */
    uint32_t i;
    uint64_t a = ff__arrival(f, u, g, &i), fall = fab_fall_ps(f, o);
    if (a != MYRI_TIME_NEVER && ff__run(u, i)->pix != e->pix) a = MYRI_TIME_NEVER; /* lost */
    if (a != MYRI_TIME_NEVER) a += fall; /* through the switch's pipeline */
    *next = a;
    if (a == MYRI_TIME_NEVER || a > t) return 0;
    uint64_t cur = g;
    for (;;) {
        const fab_run *r = ff__run(u, i);
        cur = r->n0 + r->cnt;
        if (i + 1 >= u->rx.rcount) break;
        const fab_run *r2 = ff__run(u, i + 1);
        if (r2->n0 != cur || r2->pix != r->pix || r2->cnt == 0 || r2->s + u->d_ps + fall > t + (cur - g) * f->T)
            break;
        i++;
    }
    return cur - g;
}

static void ff__notify_down(myri_fabric *f, fab_chan *c, bool started);

/* Does the byte a host receives first (hop `hop`) have its MSB set? */
static bool ff__misrouted(fab_pkt *pkt, uint32_t hop)
{
    return ((hop < FAB_HDR ? fab_hdr_byte(pkt, hop) : 0) & 0x80u) != 0;
}

/* Cuts or re-plans the running run of c to `lim` characters. */
/* Is the switch input at the end of c discarding packet p? */
static bool ff__sinking(fab_chan *c, const fab_pkt *p)
{
    fab_rxent *e = myri_fab_rx_front(c);
    return e && e->pix == fab_pkt_ix(p) && c->rx.front == FR_SINK;
}

static void ff__set_lim(myri_fabric *f, fab_chan *c, uint32_t lim)
{
    c->tx.run_lim = lim;
    ff__last(c)->cnt = lim;
    c->tx.f_gen++;
    myri_fab_push(f, c->tx.run_s + (uint64_t)(lim - 1) * f->T, PH_SEND, EV_F_SEND, c->id, c->tx.f_gen, NULL);
    if (c->tx.run_j0 + lim == fab_cur_n(c) && (c->dst_host || ff__sinking(c, c->tx.cur)))
        myri_fab_push(f, c->tx.run_s + (uint64_t)(lim - 1) * f->T + c->d_ps, PH_ARRIVE, EV_F_RXEND, c->id,
                 c->tx.run_g0 + lim - 1, c->tx.cur);
}

/* The head of c's packet is sent at `now`: the receiver learns of it (entry
 * made in advance at a switch input, head event, or nothing at a host). */
static void ff__head_sent(myri_fabric *f, fab_chan *c, uint64_t now)
{
    if (!c->dst_host && c->heads_inflight == 0 && !c->down) {
        /* The head will arrive at the switch input behind the packets
         * entered there (only a cut can prevent that, which takes the
         * entry back): enter it now.  At the front already, its decoding
         * is scheduled for its arrival; else myri_fab_front_begin does it
         * when it reaches the front (not before it has arrived). */
        bool front = c->rx.rxcount == 0;
        fab_rxent *e = myri_fab_rx_push(f, c);
        e->pix = fab_pkt_ix(c->tx.cur);
        e->hop = c->tx.cur_hop;
        e->g0 = c->tx.run_g0;
        e->arrive_at = now + c->d_ps;
        if (front) {
            fab_set_front(f, c, FR_DECODE);
            c->x->rx.ready_at = e->arrive_at + fab_path_latency(f, c);
            myri_fab_push(f, c->x->rx.ready_at, PH_DECODE, EV_DECODE, c->id, ++c->rx.dec_gen, NULL);
        }
    } else if (c->dst_host && !c->down && !ff__misrouted(c->tx.cur, c->tx.cur_hop)) {
        /* At a host the head's arrival changes nothing for a packet that
         * is not misrouted (hdr is final: no later hop corrupts it): no
         * event; the GAP's arrival delivers it, and a cut finds it in
         * c->hh as the packet partly received. */
        c->tx.cur->host_quiet = true;
    } else {
        if (!c->dst_host) c->heads_inflight++;
        myri_fab_push(f, now + c->d_ps, PH_ARRIVE, EV_F_HEAD, c->id, (c->tx.run_g0 << 6) | c->tx.cur_hop,
                 c->tx.cur);
    }
    if (c->dst_host) { /* the two latest heads sent to the host */
        fab_cold(c)->rx.hh_gone = fab_cold(c)->rx.hh[1];
        fab_cold(c)->rx.hh[1] = fab_cold(c)->rx.hh[0];
        fab_cold(c)->rx.hh[0] = (__typeof__(fab_cold(c)->rx.hh[0])){c->tx.cur, now + c->d_ps, c->tx.run_g0, c->down};
    }
}

/* Starts a run of c at `now` (>= the engine's instant; later than it only
 * for the continuation of a packet already in progress: a planned run that a
 * STOP, a cut or a shorter plan upstream may still cancel).  A host sends
 * what is ready of its packet; a port's DMA what fits in its window. */
static void ff__start_run_at(myri_fabric *f, fab_chan *c, uint64_t now)
{
    uint32_t j = c->tx.cur_next;
    uint64_t lim = fab_cur_n(c) - j;
    if (c->src_host) {
        if (c->tx.cur->ready <= j) return; /* underrun: the host waits for its bytes */
        if (c->tx.cur->ready - j < lim) lim = c->tx.cur->ready - j;
    } else {
        uint64_t next;
        uint64_t av = ff__avail(f, c, now, j, &next);
        if (av == 0) {
            /* The head goes when its first character is through the
             * switch's pipeline: plan the run for then now, rather than an
             * event to plan it then (the head is entered at the next input
             * in advance; a STOP, a cut or a shorter plan upstream before it
             * begins takes it back: ff__unsend_head).  Only where the head
             * is entered there or, at a host, needs no head event (not at
             * a DMA, not behind a head event, not misrouted). */
            if (j == 0 && next != MYRI_TIME_NEVER && next > now && next >= c->tx.free_at && !c->dma && !c->down &&
                (c->dst_host ? !ff__misrouted(c->tx.cur, c->tx.cur_hop) : c->heads_inflight == 0)) {
                ff__start_run_at(f, c, next);
                return;
            }
            if (next != MYRI_TIME_NEVER) ff__wake_at(f, c, next);
            return;
        }
        if (av < lim) lim = av;
        if (c->dma) {
            uint32_t room = myri_fab_port_room(f, c, j);
            if (room == 0) { /* the window is full and character j, a byte, is there: BUFF then */
                if (now > fab_now(f)) {
                    ff__wake_at(f, c, now);
                    return;
                }
                myri_fab_port_rx_end(f, c, MYRI_PORT_RX_BUFF);
                /* the byte waits in the slack at least to the end of this pass (the
                 * device re-arms in a later one): compared with the lines then, as
                 * the reference model's check of the pass does */
                ff__rx_update(f, &f->ch[c->tx.src_in]);
                return;
            }
            if (room < lim) lim = room;
        }
    }
    c->tx.run_on = true;
    c->tx.run_s = now;
    c->tx.run_j0 = j;
    c->tx.run_g0 = c->tx.sent_total;
    ff__ring_push(f, c, (fab_run){.s = now, .n0 = c->tx.run_g0, .pix = fab_pkt_ix(c->tx.cur), .cnt = (uint32_t)lim, .j0 = j});
    if (j == 0) {
        c->tx.in_progress = true;
        if (c->tx.tap_on) fab_cold(c)->tx.tap_first = now; /* read only when tapped: a cold line otherwise */
        if (c->src_host) c->tx.cur->head_ps = now;
        else if (!c->dma) c->tx.cur->refs++; /* this channel's reference, until GAP or FRES arrives */
        if (!c->dma) ff__head_sent(f, c, now);
    }
    ff__set_lim(f, c, (uint32_t)lim);
    if (!c->src_host) ff__rx_update(f, &f->ch[c->tx.src_in]);
    ff__rx_update(f, c);
    ff__notify_down(f, c, true);
}

static void ff__start_run(myri_fabric *f, fab_chan *c) { ff__start_run_at(f, c, fab_now(f)); }

/* A switch output in the middle of a packet, idle: plan its next run now if
 * the next character is known to arrive (no event until then), else wait. */
static void ff__continue(myri_fabric *f, fab_chan *c)
{
    if (c->tx.run_on || c->tx.stopped || c->down || !c->tx.cur || c->src_host || c->tx.cur_next == 0) {
        if (c->tx.cur && !c->tx.run_on) ff__wake_at(f, c, c->tx.free_at > fab_now(f) ? c->tx.free_at : fab_now(f));
        return;
    }
    fab_chan *u = &f->ch[c->tx.src_in];
    fab_rxent *e = myri_fab_rx_front(u);
    uint32_t i;
    uint64_t a = ff__arrival(f, u, e->g0 + c->tx.cur_next + (c->dma ? 0u : 1u), &i);
    if (a == MYRI_TIME_NEVER || ff__run(u, i)->pix != e->pix) return; /* told when it is sent */
    a += fab_fall_ps(f, c); /* through the switch's pipeline */
    uint64_t t = c->tx.free_at > a ? c->tx.free_at : a;
    if (t < fab_now(f)) t = fab_now(f);
    ff__start_run_at(f, c, t);
}

/* A run planned to carry the head of c's packet is cancelled before it
 * began: the packet has not begun on c (its reference on c, and its entry
 * made in advance at the next input, go back; a decoding planned for the
 * entry is void). */
static void ff__unsend_head(myri_fabric *f, fab_chan *c)
{
    c->tx.in_progress = false;
    c->tx.cur->refs--; /* the input still holds it */
    if (c->dst_host) { /* the host's latest heads as they were */
        fab_chcold *y = fab_cold(c);
        y->rx.hh[0] = y->rx.hh[1];
        y->rx.hh[1] = y->rx.hh_gone;
        c->tx.cur->host_quiet = false;
        return;
    }
    if (c->rx.rxcount == 0) return;
    fab_rxent *e = &c->rx.rxq[(c->rx.rxhead + c->rx.rxcount - 1) & (c->rx.rxcap - 1)];
    if (e->pix != fab_pkt_ix(c->tx.cur) || e->g0 != c->tx.run_g0 || e->arrive_at != c->tx.run_s + c->d_ps) return;
    c->rx.rxcount--;
    if (c->rx.rxcount == 0) {
        fab_set_front(f, c, FR_NONE);
        c->rx.dec_gen++;
    }
    (void)f;
}

/* The run of c is over after k characters (all planned, or cut by STOP). */
static void ff__finalize(myri_fabric *f, fab_chan *c, uint32_t k)
{
    if (!c->src_host) ff__track_max(f, &f->ch[c->tx.src_in]);
    if (k == 0 && c->tx.run_j0 == 0 && !c->src_host && !c->dma) ff__unsend_head(f, c);
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        for (uint32_t q = 0; q < k; q++)
            fprintf(stderr, "F %llu ch %u send pkt %llu j %u\n", (unsigned long long)(c->run_s + q * f->T), c->id, (unsigned long long)c->cur->id, c->run_j0 + q);
#endif
    uint32_t planned = c->tx.run_lim;
    c->tx.run_on = false;
    ff__last(c)->cnt = k;
    c->tx.sent_total += k; /* the window's characters are derived from it (fab_fast_extra_chars) */
    c->tx.cur_next = c->tx.run_j0 + k;
    if (c->dma) myri_fab_port_write(f, c, c->tx.cur_next, NULL, c->tx.run_s);
    if (k) c->tx.free_at = c->tx.run_s + (uint64_t)k * f->T;
    else c->rx.rcount--; /* a planned run cancelled before it began */
    if (!c->src_host) {
        fab_chan *u = &f->ch[c->tx.src_in];
        u->rx.dep_base += k;
        /* A run that went to its planned end leaves D(x) unchanged from now
         * on (its last character left now): the occupancy of u now and its
         * predicted crossings are those already known, no check.  A run cut
         * short stops the departures earlier than predicted: check. */
        if (k < planned) ff__rx_update(f, u);
    }
}

static void ff__after_end(myri_fabric *f, fab_chan *c);

/* A running consumer's plan may have become too long: shorten it, from the
 * first character not sent before now. */
static void ff__replan(myri_fabric *f, fab_chan *o)
{
    uint64_t now = fab_now(f), next;
    uint64_t k = now > o->tx.run_s ? fab_div_T(f, now - o->tx.run_s + f->T - 1) : 0;
    if (k >= o->tx.run_lim) return;
    uint64_t av = ff__avail(f, o, o->tx.run_s + k * f->T, o->tx.run_j0 + (uint32_t)k, &next);
    if (k + av >= o->tx.run_lim) return;
    if (av == 0) {
        /* Its last character went before now (or it had not begun): over. */
        MYRI_ASSERT(f->comp, k >= 1 || o->tx.run_s > now, "fast model: running output %u lost its first character", o->id);
        o->tx.f_gen++;
        ff__finalize(f, o, (uint32_t)k);
        ff__rx_update(f, o);
        ff__notify_down(f, o, false);
        ff__after_end(f, o);
        return;
    }
    ff__set_lim(f, o, (uint32_t)(k + av));
    ff__rx_update(f, &f->ch[o->tx.src_in]);
    ff__rx_update(f, o);
    ff__notify_down(f, o, false);
}

/* The runs of c changed: the output draining c's receiver may need to start
 * (new run: wake at its first arrival) or shorten its plan (cut run). */
static void ff__notify_down(myri_fabric *f, fab_chan *c, bool started)
{
    if (c->dst_host || c->rx.front != FR_GRANT) return;
    fab_chan *o = &f->ch[c->rx.want_out];
    if (o->tx.src_in != (int32_t)c->id || !o->tx.cur) return;
    if (o->tx.run_on) {
        if (!started) ff__replan(f, o);
    } else if (started) {
        ff__continue(f, o);
    }
}

/* Everything input u received of its front packet e has left (FRES). */
static void ff__drained(myri_fabric *f, fab_chan *u, const fab_rxent *e)
{
    ff__track_max(f, u);
    u->rx.dep_base = e->g0 + e->got;
    ff__rx_update(f, u);
}

/* After a run: the GAP went (packet done here), or wait for more. */
static void ff__after_end(myri_fabric *f, fab_chan *c)
{
    if (c->tx.cur_next == fab_cur_n(c)) { /* GAP sent */
        if (c->dma) myri_fab_port_rx_end(f, c, MYRI_PORT_RX_TAIL);
        else if (c->src_host) myri_fab_port_tx_over(f, c->tx.cur, true, MYRI_FABRIC_DROP_NREASONS);
        c->tx.in_progress = false;
        myri_fab_tap_done(f, c, fab_cur_n(c) - 1, false);
        c->tx.cur = NULL;
        if (!c->src_host) {
            fab_chan *u = &f->ch[c->tx.src_in];
            c->tx.src_in = -1;
            myri_fab_front_done(f, u);
            myri_fab_release(f, c, c->tx.free_at);
        } else if (fab_cold(c)->tx.hq_head) {
            ff__wake_at(f, c, c->tx.free_at);
        }
        return;
    }
    /* (a full window waits for the next character: ff__start_run_at decides BUFF or the GAP) */
    if (!c->src_host) myri_fab_try_terminate(f, c);
    if (c->tx.cur && c->src_host) ff__wake_at(f, c, c->tx.free_at);
    else if (c->tx.cur) ff__continue(f, c);
}

static void ff__send(myri_fabric *f, fab_chan *c, uint64_t gen)
{
    uint64_t now = fab_now(f);
    if (gen) { /* end of the planned run: its last character goes now */
        if (gen != c->tx.f_gen || !c->tx.run_on) return;
        ff__finalize(f, c, c->tx.run_lim);
        ff__after_end(f, c);
        return;
    }
    if (c->tx.send_pending && c->x->tx.send_pending_at == now) c->tx.send_pending = false;
    if (c->tx.run_on || c->tx.stopped || c->tx.free_at > now) return;
    if (!c->tx.cur) {
        if (c->src_host) myri_fab_host_drop_down(f, c);
        if (!c->src_host || !fab_cold(c)->tx.hq_head) return;
        fab_pkt *pkt = fab_cold(c)->tx.hq_head;
        fab_cold(c)->tx.hq_head = pkt->next;
        if (!fab_cold(c)->tx.hq_head) fab_cold(c)->tx.hq_tail = NULL;
        fab_cold(c)->tx.hq_len--;
        c->tx.cur = pkt;
        f->ctr.hops++;
        c->tx.cur_hop = 0;
        c->tx.cur_next = 0;
        c->tx.ncorr = myri_fab_hop_corruptions(f, pkt, c, pkt->nbytes0);
        ff__apply_corr(f, c);
    }
    if (c->dma) {
        myri_fab_try_terminate(f, c); /* truncated and drained (the DMA stops; the next packet may be taken) */
        if (!c->tx.cur || c->tx.stopped) return;
    }
    ff__start_run(f, c);
}

static void fab_fast_ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
    if (!stop || c->tx.stopped || !c->tx.run_on) return;
    uint64_t now = fab_now(f);
    /* Characters at times < now were sent; the STOP prevents the rest. */
    uint32_t k = now > c->tx.run_s ? (uint32_t)(fab_div_T(f, now - c->tx.run_s + f->T - 1)) : 0;
    MYRI_ASSERT(f->comp, k < c->tx.run_lim, "fast model: STOP outside the run of %u", c->id);
    c->tx.f_gen++;
    ff__finalize(f, c, k);
    ff__rx_update(f, c);
    ff__notify_down(f, c, false);
}

/* ---- receivers ----------------------------------------------------------------------- */

static void ff__head(myri_fabric *f, fab_chan *c, fab_pkt *pkt, uint64_t b)
{
    uint32_t hop = (uint32_t)(b & 63u);
    uint64_t g = b >> 6;
    if (!c->dst_host) c->heads_inflight--;
    if (ff__arrival_of(f, c, g, pkt) != fab_now(f)) return; /* lost on a cut cable */
    if (c->dst_host) {
        fab_cold(c)->rx.hpkt = pkt;
        c->rx.hbad = false;
        uint8_t first = hop < FAB_HDR ? fab_hdr_byte(pkt, hop) : 0;
        if (first & 0x80u) {
            myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_MISROUTED);
            c->rx.hbad = true;
        }
        return;
    }
    fab_rxent *e = myri_fab_rx_push(f, c);
    e->pix = pkt->ix;
    e->hop = hop;
    e->g0 = g; /* the channel's reference is now the packet's presence here */
    if (c->rx.rxcount == 1) myri_fab_front_begin(f, c);
    ff__rx_update(f, c);
}

static void ff__rxend(myri_fabric *f, fab_chan *c, fab_pkt *pkt, uint64_t g)
{
    if (ff__arrival_of(f, c, g, pkt) != fab_now(f)) return; /* that GAP was never sent */
    if (c->x->rx.rx_done_g == g + 1) return; /* a re-planned run announced the same GAP twice */
    c->x->rx.rx_done_g = g + 1;
    if (c->dst_host) {
        if (pkt->host_quiet || (fab_cold(c)->rx.hpkt == pkt && !c->rx.hbad)) {
            if (pkt->syndrome == 0) myri_fab_deliver(f, pkt, c->dst_node);
            else myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_CRC);
        }
        if (fab_cold(c)->rx.hpkt == pkt) fab_cold(c)->rx.hpkt = NULL;
        myri_fab_pkt_unref(f, pkt);
        return;
    }
    /* At a switch input this event exists only for a packet being discarded. */
    fab_rxent *front = myri_fab_rx_front(c);
    bool sinking = front && front->pix == fab_pkt_ix(pkt) && c->rx.front == FR_SINK;
    if (sinking) {
        ff__track_max(f, c);
        if (!front->dead) c->x->rx.sink_end = front->g0 + fab_e_n(f, front); /* its tail was open when the discard began */
        c->rx.dep_base = c->x->rx.sink_end;
        ff__rx_update(f, c);
        myri_fab_front_done(f, c);
    }
}

static void fab_fast_handle(myri_fabric *f, const fab_ev *ev)
{
    fab_chan *c = &f->ch[ev->a];
    switch (ev->kind) {
    case EV_F_SEND: ff__send(f, c, ev->b); break;
    case EV_F_CHECK: ff__check(f, c, ev->b); break;
    case EV_F_HEAD: ff__head(f, c, ev->p, ev->b); break;
    case EV_F_RXEND: ff__rxend(f, c, ev->p, ev->b); break;
    default: myri_panic(f->comp, "fast model: unknown event kind %u", ev->kind);
    }
}

static void fab_fast_granted(myri_fabric *f, fab_chan *in, fab_chan *out)
{
    ff__track_max(f, in);
    in->rx.dep_base += 1; /* the route byte is stripped */
    if (out->tx.cur->bytes) /* the trailer update of packet.h, for taps and devices; open: when the tail is given */
        myri_fab_pkt_xor(f, out->tx.cur, out->tx.cur->open ? UINT32_MAX : out->tx.cur->nbytes0 - 1, out->tx.cur_hop,
                         out->tx.cur->open ? out->x->tx.strip_byte
                                        : myri_crc8_strip_delta(&f->crc, out->x->tx.strip_byte, fab_cur_n(out)),
                         out->tx.cur->open ? 2 : 1);
    ff__apply_corr(f, out);
    ff__rx_update(f, in);
    myri_fab_try_terminate(f, out);
    if (!out->tx.cur) return;
    /* Nothing between arbitration and sending in this instant can change
     * what the output does now: start it here rather than by an event. */
    if (!out->tx.stopped && !out->tx.run_on && out->tx.free_at <= fab_now(f)) ff__start_run(f, out);
    else fab_fast_wake(f, out);
}

/* Characters of the entry's packet received so far: up to the last one of
 * its runs that has arrived.  Runs leave the ring in order and only once all
 * their characters have left the buffer; if none of the packet's runs is left,
 * everything it received has departed (it is at the front). */
static uint32_t fab_fast_got(myri_fabric *f, fab_chan *c, const fab_rxent *e)
{
    uint64_t now = fab_now(f), got = 0;
    bool found = false;
    for (uint32_t i = 0; i < c->rx.rcount; i++) {
        const fab_run *r = ff__run(c, i);
        /* (a run of an older packet, kept in the ring, may carry the same
         * pointer if that packet was freed and its memory reused: the
         * entry's runs are those at or after its first character) */
        if (r->pix != e->pix || r->cnt == 0 || r->n0 + r->cnt <= e->g0 || now < r->s + c->d_ps) continue;
        uint64_t k = fab_div_T(f, now - r->s - c->d_ps) + 1;
        if (k > r->cnt) k = r->cnt;
        found = true;
        if (r->n0 + k - e->g0 > got) got = r->n0 + k - e->g0;
    }
    if (!found) {
        uint64_t d = ff__departed(f, c, now);
        got = d > e->g0 ? d - e->g0 : 0;
    }
    uint32_t n = fab_e_n(f, e);
    return (uint32_t)(got < n ? got : n);
}

static void fab_fast_cut_sender(myri_fabric *f, fab_chan *c)
{
    if (!c->tx.run_on) return;
    uint64_t now = fab_now(f);
    uint32_t k = now > c->tx.run_s ? (uint32_t)(fab_div_T(f, now - c->tx.run_s + f->T - 1)) : 0; /* sent before now */
    c->tx.f_gen++;
    ff__finalize(f, c, k);
}

static fab_pkt *fab_fast_cut_wire(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f), lost = 0;
    if (!c->dst_host) ff__track_max(f, c);
    for (uint32_t i = 0; i < c->rx.rcount; i++) {
        fab_run *r = ff__run(c, i);
        uint64_t keep = now < r->s + c->d_ps ? 0 : fab_div_T(f, now - r->s - c->d_ps) + 1;
        if (keep >= r->cnt) continue;
        fab_pkt *pkt = fab_pkt_at(f, r->pix);
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
        if (r->j0 == 0 && keep == 0) myri_fab_pkt_unref(f, pkt); /* head lost: the channel's reference */
        lost += r->cnt - keep;
        r->cnt = (uint32_t)keep;
    }
    /* Entries made in advance for heads that are now lost go away (they are
     * the last ones: heads arrive in the order they were sent). */
    if (!c->dst_host && c->rx.rxcount && c->rx.rxq[(c->rx.rxhead + c->rx.rxcount - 1) & (c->rx.rxcap - 1)].arrive_at > now) {
        while (c->rx.rxcount && c->rx.rxq[(c->rx.rxhead + c->rx.rxcount - 1) & (c->rx.rxcap - 1)].arrive_at > now) c->rx.rxcount--;
        if (c->rx.rxcount == 0) {
            fab_set_front(f, c, FR_NONE);
            c->rx.dec_gen++;
        }
    }
    /* The lost characters are the most recent ones: give their global
     * numbers back, so that numbers stay those of characters that arrive. */
    while (c->rx.rcount && ff__last(c)->cnt == 0) c->rx.rcount--;
    c->tx.sent_total -= lost;
    c->x->tx.lost_total += lost;
    ff__rx_update(f, c);
    ff__notify_down(f, c, false);
    if (c->dst_host) { /* the packet partly received: its head arrived, its GAP not */
        fab_pkt *p = NULL;
        for (int i = 0; i < 2; i++) {
            __typeof__(fab_cold(c)->rx.hh[0]) *h = &fab_cold(c)->rx.hh[i];
            if (!h->pkt || h->term) continue;
            h->term = true; /* lost (head on the wire), or partly received, or complete */
            if (h->head_at > now) continue;
            if (c->x->rx.rx_done_g <= h->g0) p = h->pkt; /* its GAP has not been handled */
            break;
        }
        fab_cold(c)->rx.hpkt = NULL;
        return p;
    }
    if (!c->rx.rxcount) return NULL;
    fab_rxent *e = &c->rx.rxq[(c->rx.rxhead + c->rx.rxcount - 1) & (c->rx.rxcap - 1)];
    uint32_t got = fab_fast_got(f, c, e);
    if (got >= fab_e_n(f, e) || e->fres || e->dead) return NULL;
    e->dead = true;
    e->will = got; /* the rest was lost */
    if (e == myri_fab_rx_front(c) && c->rx.front == FR_SINK) c->x->rx.sink_end = e->g0 + got;
    return fab_rx_pkt(f, e);
}

static void fab_fast_sink(myri_fabric *f, fab_chan *in)
{
    fab_rxent *e = myri_fab_rx_front(in);
    in->x->rx.sink_end = e->g0 + (e->fres ? e->got : fab_e_will(f, e)); /* open: beyond any arrival (ff__rxend) */
    ff__rx_update(f, in);
    /* Done if nothing more will come: FRES seen, or the GAP has arrived. */
    if (e->fres || fab_fast_got(f, in, e) >= fab_e_n(f, e)) {
        in->rx.dep_base = in->x->rx.sink_end;
        myri_fab_front_done(f, in);
        return;
    }
    /* The discard ends when the GAP arrives: if it is already on its way,
     * that is an event (later runs that carry it announce it themselves). */
    uint64_t g = e->g0 + fab_e_n(f, e) - 1; /* open: no character has that number yet */
    uint64_t a = ff__arrival_of(f, in, g, fab_rx_pkt(f, e));
    if (a != MYRI_TIME_NEVER && a > fab_now(f))
        myri_fab_push(f, a, PH_ARRIVE, EV_F_RXEND, in->id, g, fab_rx_pkt(f, e));
}

/* Characters ever sent on c up to now: the finished runs' (sent_total, and
 * the characters lost on a cut cable, whose numbers were given back) and the
 * open run's so far. */
static uint64_t ff__chars_ever(const myri_fabric *f, const fab_chan *c)
{
    uint64_t n = c->tx.sent_total + c->x->tx.lost_total;
    uint64_t now = fab_now(f);
    if (!c->tx.run_on || now < c->tx.run_s) return n;
    uint64_t k = fab_div_T(f, now - c->tx.run_s) + 1;
    return n + (k < c->tx.run_lim ? k : c->tx.run_lim);
}

/* The window's characters: the fast model keeps st.chars at 0 and counts
 * from the characters ever sent (finishing a run touches no statistics). */
static uint64_t fab_fast_extra_chars(const myri_fabric *f, const fab_chan *c)
{
    return ff__chars_ever(f, c) - c->x->tx.win_chars0;
}

static void fab_fast_finish_stats(myri_fabric *f)
{
    for (size_t i = 0; i < f->nchan; i++)
        if (!f->ch[i].dst_host) ff__track_upto(f, &f->ch[i], fab_now(f), true);
}

static void fab_fast_reset_window(myri_fabric *f)
{
    uint64_t now = fab_now(f);
    for (size_t i = 0; i < f->nchan; i++) {
        fab_chan *c = &f->ch[i];
        c->x->tx.win_chars0 = ff__chars_ever(f, c);
        if (!c->dst_host) {
            int64_t o = ff__occ(f, c, now);
            c->rx.max_slack = o > 0 ? (uint64_t)o : 0;
            c->rx.last_check = now;
        }
    }
}

static void fab_fast_track(myri_fabric *f, fab_chan *c) { ff__track_max(f, c); }

static void fab_fast_dma_sync(myri_fabric *f, fab_chan *o)
{
    if (!o->tx.cur) return;
    uint64_t now = fab_now(f);
    uint32_t upto = o->tx.cur_next;
    if (o->tx.run_on && now >= o->tx.run_s) {
        /* characters at times before now; at now too once the fabric's pass
         * over now has begun (the same-instant rule) */
        bool incl = f->last_instant != MYRI_TIME_NEVER && f->last_instant >= now;
        uint64_t k = incl ? fab_div_T(f, now - o->tx.run_s) + 1 : fab_div_T(f, now - o->tx.run_s + f->T - 1);
        if (k > o->tx.run_lim) k = o->tx.run_lim;
        upto = o->tx.run_j0 + (uint32_t)k;
    }
    myri_fab_port_write(f, o, upto, NULL, o->tx.run_s);
}

const fab_model myri_fab_model_fast = {
    .name = "fast",
    .check_kind = EV_F_CHECK,
    .carries_bytes = false,
    .handle = fab_fast_handle,
    .wake = fab_fast_wake,
    .sink = fab_fast_sink,
    .granted = fab_fast_granted,
    .drained = ff__drained,
    .cut_wire = fab_fast_cut_wire,
    .reset_window = fab_fast_reset_window,
    .ctrl = fab_fast_ctrl,
    .track = fab_fast_track,
    .cut_sender = fab_fast_cut_sender,
    .got = fab_fast_got,
    .finish_stats = fab_fast_finish_stats,
    .extra_chars = fab_fast_extra_chars,
    .flush = fab_fast_flush,
    .check_due = fab_fast_check_due,
    .dma_sync = fab_fast_dma_sync,
};
