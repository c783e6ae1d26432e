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
 * search; it is re-predicted whenever a run starts or is cut short.  The
 * receiver learns of the sender's runs only by messages taken after the
 * cable's delay (EV_F_MSG: docs/PARTITION.md rows 1-3).  Events per packet
 * when nothing blocks: per switch the route decoding (with the arbitration)
 * and the run end; the source host's run start and end; the GAP's arrival at
 * the destination; one message per run and hop.  Heads are entered at switch
 * inputs when their run is told (no arrival event), and a head reaching a
 * host is an event only for a misrouted packet.  See docs/FABRIC.md for why
 * this equals the reference model.
 */
#include "fabric/fabric_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fab_fast_wake(myri_fabric *f, fab_chan *c);
static uint32_t fab_fast_got(myri_fabric *f, fab_chan *c, const fab_rxent *e);

/* ---- the ring of runs ---------------------------------------------------------- */

static fab_run *ff__run(fab_chan *c, uint32_t i) { return &FAB_RX(c)->runs[(FAB_RX(c)->rhead + i) & (FAB_RX(c)->rcap - 1)]; }
static fab_run *ff__last(fab_chan *c) { return ff__run(c, FAB_RX(c)->rcount - 1); }

/* A(x): characters of channel c arrived at its receiver by the end of instant x.
 * Global character numbers count exactly the characters that arrive (those
 * lost on a cut cable are given back), and runs follow each other in time,
 * so A(x) = n0 + arrived part of the last run that has begun arriving. */
static uint64_t ff__arrived(const myri_fabric *f, fab_chan *c, uint64_t x)
{
    for (uint32_t i = FAB_RX(c)->rcount; i-- > 0;) {
        const fab_run *r = ff__run(c, i);
        uint64_t first = r->s + c->d_ps;
        if (x < first) continue;
        uint64_t k = fab_div_T(f, x - first) + 1;
        return r->n0 + (k < r->cnt ? k : r->cnt);
    }
    return FAB_RX(c)->arr_base;
}

/* Arrival time of global character g of channel c, or NEVER if unknown. */
static uint64_t ff__arrival(const myri_fabric *f, fab_chan *c, uint64_t g, uint32_t *idx)
{
    for (uint32_t i = 0; i < FAB_RX(c)->rcount; i++) {
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
    if (FAB_RX(u)->front == FR_SINK) return a < FAB_RXX(u)->sink_end ? a : FAB_RXX(u)->sink_end;
    if (FAB_RX(u)->front == FR_GRANT) {
        const fab_chan *o = &f->ch[FAB_RX(u)->want_out];
        if (FAB_TX(o)->run_on && FAB_TX(o)->src_in == (int32_t)u->id && x >= FAB_TX(o)->run_s) {
            uint64_t k = fab_div_T(f, x - FAB_TX(o)->run_s) + 1;
            return FAB_RX(u)->dep_base + (k < FAB_TX(o)->run_lim ? k : FAB_TX(o)->run_lim);
        }
    }
    return FAB_RX(u)->dep_base;
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
    return ff__departed_a(f, u, x, FAB_RX(u)->front == FR_SINK ? ff__arrived(f, u, x) : 0); /* a: SINK only */
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
    while (FAB_RX(c)->rcount > 1) {
        fab_run *r = ff__run(c, 0);
        uint64_t last = r->s + (r->cnt ? r->cnt - 1 : 0) * f->T + c->d_ps;
        if (last > now || last > FAB_RX(c)->last_check || r->n0 + r->cnt > dep) break;
        FAB_RX(c)->arr_base += r->cnt;
        FAB_RX(c)->rhead = (FAB_RX(c)->rhead + 1) & (FAB_RX(c)->rcap - 1);
        FAB_RX(c)->rcount--;
    }
}

/* The receiver adds a run planned on c to its ring (row 1 of docs/PARTITION.md
 * section 2: still called by the sender at plan time).  It purges the runs it
 * no longer needs first (its own departures: row 6) and numbers the run's
 * characters itself (r.n0: the characters that arrive, counted by the receiver;
 * the sender's sent_total counts what it sent, lost ones too: row 12). */
static void ff__ring_push(myri_fabric *f, fab_chan *c, fab_run r)
{
    if (!c->dst_host && !c->dma) {
        if (FAB_RX(c)->rcount) ff__purge(f, c);
    } else {
        uint64_t now = fab_now(f);
        while (FAB_RX(c)->rcount) {
            fab_run *o = ff__run(c, 0);
            if (o->s + (o->cnt ? o->cnt - 1 : 0) * f->T + c->d_ps > now) break;
            FAB_RX(c)->arr_base += o->cnt;
            FAB_RX(c)->rhead = (FAB_RX(c)->rhead + 1) & (FAB_RX(c)->rcap - 1);
            FAB_RX(c)->rcount--;
        }
    }
    /* The ring's size follows its use: doubled when full, halved when the run
     * added leaves it half empty (not below 2 runs: one line). */
    uint32_t nc = FAB_RX(c)->rcount == FAB_RX(c)->rcap ? (FAB_RX(c)->rcap ? 2 * FAB_RX(c)->rcap : 2)
                  : FAB_RX(c)->rcap > 2 && 2 * (FAB_RX(c)->rcount + 1) <= FAB_RX(c)->rcap ? FAB_RX(c)->rcap / 2
                  : FAB_RX(c)->rcap;
    if (nc != FAB_RX(c)->rcap) {
        fab_run *nr = myri_fab_ring_get(f, nc * sizeof *nr);
        if (!nr) myri_panic(f->comp, "out of memory (runs)");
        for (uint32_t i = 0; i < FAB_RX(c)->rcount; i++) nr[i] = *ff__run(c, i);
        myri_fab_ring_put(f, FAB_RX(c)->runs, FAB_RX(c)->rcap * sizeof *nr);
        FAB_RX(c)->runs = nr;
        FAB_RX(c)->rcap = nc;
        FAB_RX(c)->rhead = 0;
    }
    r.n0 = FAB_RX(c)->rcount ? ff__last(c)->n0 + ff__last(c)->cnt : FAB_RX(c)->arr_base;
    *ff__run(c, FAB_RX(c)->rcount++) = r;
}

/* ---- slack checks ------------------------------------------------------------------ */

static void ff__rx_update(myri_fabric *f, fab_chan *u)
{
    if (u->dst_host || u->dma) return;
    uint64_t now = fab_now(f);
    if (FAB_RX(u)->check_pending && FAB_RX(u)->check_pending_at == now) return;
    FAB_RX(u)->check_pending = true;
    FAB_RX(u)->check_pending_at = now;
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
    if (FAB_RX(u)->front == FR_SINK) return UINT64_MAX;
    uint64_t amax = FAB_RX(u)->rcount ? FAB_RX(u)->runs[(FAB_RX(u)->rhead + FAB_RX(u)->rcount - 1) & (FAB_RX(u)->rcap - 1)].n0 +
                                    FAB_RX(u)->runs[(FAB_RX(u)->rhead + FAB_RX(u)->rcount - 1) & (FAB_RX(u)->rcap - 1)].cnt
                              : FAB_RX(u)->arr_base;
    return amax > FAB_RX(u)->dep_base ? amax - FAB_RX(u)->dep_base : 0;
}

static int64_t ff__track_upto(myri_fabric *f, fab_chan *u, uint64_t lim, bool at_lim)
{
    if (!at_lim && ff__bound(u) <= FAB_RX(u)->max_slack) { /* nothing to visit: no new largest occupancy */
        if (lim > FAB_RX(u)->last_check) FAB_RX(u)->last_check = lim;
        return 0;
    }
    uint64_t alim = (at_lim || lim > FAB_RX(u)->last_check) ? ff__arrived(f, u, lim) : 0;
    int64_t at = at_lim ? (int64_t)(alim - ff__departed_a(f, u, lim, alim)) : 0, best = at;
    /* The departure formula is valid since last_check + 1 (this is called
     * before every change of it) and D is nondecreasing there, A too: every
     * occupancy in (last_check, lim] is at most A(lim) - D(last_check + 1).
     * Below the largest occupancy seen, the instants need not be visited. */
    uint32_t from = FAB_RX(u)->rcount;
    if (lim > FAB_RX(u)->last_check &&
        (int64_t)(alim - ff__departed(f, u, FAB_RX(u)->last_check + 1)) > (int64_t)FAB_RX(u)->max_slack)
        from = 0;
    for (uint32_t i = from; i < FAB_RX(u)->rcount; i++) {
        const fab_run *r = ff__run(u, i);
        uint64_t first = r->s + u->d_ps;
        if (r->cnt == 0) continue;
        uint64_t last = first + (r->cnt - 1) * f->T;
        if (last <= FAB_RX(u)->last_check) continue;
        if (first > lim) break;
        uint64_t m = last < lim ? r->cnt - 1 : fab_div_T(f, lim - first);
        if (first + m * f->T <= FAB_RX(u)->last_check) continue;
        int64_t o = ff__occ_run(f, u, r, m);
        if (o > best) best = o;
    }
    MYRI_ASSERT(f->comp, best <= (int64_t)f->p.slack_size_bytes,
                "slack buffer of channel %u overflows: %lld > %llu characters", u->id,
                (long long)best, (unsigned long long)f->p.slack_size_bytes);
    if ((uint64_t)best > FAB_RX(u)->max_slack) FAB_RX(u)->max_slack = (uint64_t)best;
    if (lim > FAB_RX(u)->last_check) FAB_RX(u)->last_check = lim;
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
    for (uint32_t i = 0; i < FAB_RX(u)->rcount; i++) {
        const fab_run *r = ff__run(u, i);
        uint64_t first = r->s + u->d_ps;
        if (r->cnt == 0) continue;
        uint64_t last = first + (r->cnt - 1) * f->T;
        if (last <= now) continue;
        uint64_t lo = first > now ? 0 : fab_div_T(f, now - first) + 1, hi = r->cnt - 1;
        const fab_chan *o = FAB_RX(u)->front == FR_GRANT ? &f->ch[FAB_RX(u)->want_out] : NULL;
        if (!(o && FAB_TX(o)->run_on && FAB_TX(o)->src_in == (int32_t)u->id)) {
            /* Nothing departs along this run (or only the discarded packet's
             * characters, as they arrive): O(m) = n0 + m + 1 - D, D fixed. */
            uint64_t d = FAB_RX(u)->front == FR_SINK ? FAB_RXX(u)->sink_end : FAB_RX(u)->dep_base;
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
    if (FAB_RX(u)->front != FR_GRANT) return MYRI_TIME_NEVER;
    const fab_chan *o = &f->ch[FAB_RX(u)->want_out];
    if (!FAB_TX(o)->run_on || FAB_TX(o)->src_in != (int32_t)u->id) return MYRI_TIME_NEVER;
    uint64_t now = fab_now(f), G = f->p.slack_go_bytes;
    uint64_t last = FAB_TX(o)->run_s + (FAB_TX(o)->run_lim - 1) * f->T;
    if (last <= now) return MYRI_TIME_NEVER;
    uint64_t lo = FAB_TX(o)->run_s > now ? 0 : fab_div_T(f, now - FAB_TX(o)->run_s) + 1, hi = FAB_TX(o)->run_lim - 1;
    if (ff__occ(f, u, FAB_TX(o)->run_s + hi * f->T) > (int64_t)G) return MYRI_TIME_NEVER;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (ff__occ(f, u, FAB_TX(o)->run_s + mid * f->T) <= (int64_t)G) hi = mid;
        else lo = mid + 1;
    }
    return FAB_TX(o)->run_s + lo * f->T;
}

/* Compares the slack with the lines now and predicts the next crossing
 * (kept in the predicted-check queue, replaced at every check). */
static void ff__check(myri_fabric *f, fab_chan *u, uint64_t gen)
{
    uint64_t now = fab_now(f);
    (void)gen;
    if (FAB_RX(u)->check_pending && FAB_RX(u)->check_pending_at == now) FAB_RX(u)->check_pending = false;
    uint64_t b = FAB_RX(u)->stop_sent ? UINT64_MAX : ff__bound(u);
    if (b < f->p.slack_stop_bytes && b <= FAB_RX(u)->max_slack) {
        /* Below both the STOP line and the largest occupancy seen, by the
         * cheap bound: no STOP now nor along the known runs, no new
         * maximum; nothing to track or predict. */
        if (now > FAB_RX(u)->last_check) FAB_RX(u)->last_check = now;
        if (FAB_RX(u)->pred_at != MYRI_TIME_NEVER) myri_fab_cq_remove(f, u->id);
        return;
    }
    int64_t o = ff__track_upto(f, u, now, true);
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || u->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "F %llu ch %u check A %llu D %llu O %lld front %d dep_base %llu\n", (unsigned long long)now, u->id,
                (unsigned long long)ff__arrived(f, u, now), (unsigned long long)ff__departed(f, u, now), (long long)o,
                (int)FAB_RX(u)->front, (unsigned long long)FAB_RX(u)->dep_base);
#endif
    if (!FAB_RX(u)->stop_sent && o >= (int64_t)f->p.slack_stop_bytes) myri_fab_emit_ctrl(f, u, true);
    else if (FAB_RX(u)->stop_sent && o <= (int64_t)f->p.slack_go_bytes) myri_fab_emit_ctrl(f, u, false);
    uint64_t x = FAB_RX(u)->stop_sent ? ff__predict_go(f, u)
                 : b < f->p.slack_stop_bytes ? MYRI_TIME_NEVER /* the bound: the STOP line is out of reach */
                                              : ff__predict_stop(f, u);
    if (x == MYRI_TIME_NEVER) myri_fab_cq_remove(f, u->id);
    else if (x != FAB_RX(u)->pred_at) myri_fab_cq_set(f, u->id, x);
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
    if (FAB_TX(c)->send_pending && FAB_TXX(c)->send_pending_at == t) return;
    FAB_TX(c)->send_pending = true;
    FAB_TXX(c)->send_pending_at = t;
    myri_fab_push(f, t, PH_SEND, EV_F_SEND, c->id, 0, NULL);
}

static void fab_fast_wake(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    ff__wake_at(f, c, FAB_TX(c)->free_at > now ? FAB_TX(c)->free_at : now);
}

/* Applies this hop's bit errors: to the route/type copy the switches decode
 * and to the CRC syndrome (rem(mask * x^(8 (nbytes-1-pos)))). */
static void ff__apply_corr(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = FAB_TX(c)->cur;
    uint32_t nbytes = fab_cur_n(c) - 1;
    if (FAB_TX(c)->ncorr && pkt->hdr_lazy) myri_fab_pkt_hdr_fill(pkt);
    for (uint32_t k = 0; k < FAB_TX(c)->ncorr; k++) {
        uint32_t at = FAB_TX(c)->cur_hop + FAB_TXC(c)->corr[k].pos;
        uint8_t m = FAB_TXC(c)->corr[k].mask;
        if (at < FAB_HDR) pkt->hdr[at] ^= m;
        if (pkt->bytes) myri_fab_pkt_xor(f, pkt, at, FAB_TX(c)->cur_hop, m, false);
        if (!pkt->open) pkt->syndrome ^= myri_crc8_shift(&f->crc, m, nbytes - 1 - FAB_TXC(c)->corr[k].pos);
        /* (open: the length is not known yet; myri_fab_pkt_close adds it from the XOR list) */
    }
    /* Tap: the bytes of this hop are computed when the packet is over on c
     * (myri_fab_tap_done: the sender's bytes with the XORs of hops <= this one). */
    if (f->any_tap && f->taps[c->id].fn && pkt->bytes) FAB_TX(c)->tap_on = true; /* any_tap: no miss on taps[] */
}

/* Characters output o can send back to back from its character j at time t:
 * the forwarded input characters must have arrived, and fallen through the
 * switch's pipeline, by the time each is sent.  0 if character j is not
 * through by t (*next = when it is, if known). */
static uint64_t ff__avail(myri_fabric *f, fab_chan *o, uint64_t t, uint32_t j, uint64_t *next)
{
    fab_chan *u = &f->ch[FAB_TX(o)->src_in];
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
        if (i + 1 >= FAB_RX(u)->rcount) break;
        const fab_run *r2 = ff__run(u, i + 1);
        if (r2->n0 != cur || r2->pix != r->pix || r2->cnt == 0 || r2->s + u->d_ps + fall > t + (cur - g) * f->T)
            break;
        i++;
    }
    return cur - g;
}

static void ff__notify_down(myri_fabric *f, fab_chan *c, bool started);
static void ff__tell(myri_fabric *f, fab_chan *c, const fab_runmsg *m);

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
    return e && e->pix == fab_pkt_ix(p) && FAB_RX(c)->front == FR_SINK;
}

/* ---- what the receiver does when told of a run (messages) ----
 *
 * The sender half of c tells the receiver half of its runs only by messages
 * (docs/PARTITION.md section 2, rows 1-4), each taken at the sender's now +
 * the cable's delay D (PH_ARRIVE, the sender's key): a run planned
 * (FAB_MSG_RUN: ff__rx_run), its planned length changed (FAB_MSG_LIM:
 * ff__rx_lim), the run over after k characters (FAB_MSG_TRIM: ff__rx_trim),
 * all through ff__tell (EV_F_MSG, ff__msg_arrive), and "your runs were
 * shortened, react" (EV_F_TRIMMED: ff__rx_changed, ff__tell_trimmed).  A
 * port's DMA channel, whose two ends are one node, takes them at once.  Their
 * contents: the run, the packet's route position on c (`hop`), whether the
 * run ends with the GAP. */

/* c's latest run has `lim` characters, the last one the GAP when `gap`: the
 * ring is set, and where the GAP's arrival is an event (a host; a switch
 * input discarding that packet) the receiver schedules it (row 5). */
static void ff__rx_lim(myri_fabric *f, fab_chan *c, uint32_t lim, bool gap)
{
    fab_run *r = ff__last(c);
    r->cnt = lim;
    if (!gap) return;
    fab_pkt *pkt = fab_pkt_at(f, r->pix);
    if (c->dst_host || ff__sinking(c, pkt))
        myri_fab_push(f, r->s + (uint64_t)(lim - 1) * f->T + c->d_ps, PH_ARRIVE, EV_F_RXEND, c->id, r->n0 + lim - 1, pkt);
}

/* The receiver's reaction to runs that got shorter: compare the slack again
 * and shorten the plan of the output draining it (down the worm, row 4). */
static void ff__rx_changed(myri_fabric *f, fab_chan *c)
{
    ff__rx_update(f, c);
    ff__notify_down(f, c, false);
}

/* The sender tells c's receiver that its runs got shorter (rows 3-4): a
 * message taken after the cable's delay D (PH_ARRIVE), when the receiver
 * reacts (ff__rx_changed).  Nothing the receiver does earlier depends on it:
 * the characters no longer sent are those at >= now, which would arrive at
 * >= now + D, and the output draining the receiver forwards a character no
 * earlier than its arrival (+ the fall-through), so its re-plan at now + D
 * finds the same characters sent and the same ones available; a predicted
 * slack check before now + D sees arrivals that the cut run does not change.
 * A host's receiver has nothing to do (no message); a port's DMA channel
 * does not cross a cable (its sender is its receiver: at once). */
static void ff__tell_trimmed(myri_fabric *f, fab_chan *c)
{
    if (c->dst_host) return;
    if (c->dma) ff__rx_changed(f, c);
    else myri_fab_push(f, fab_now(f) + c->d_ps, PH_ARRIVE, EV_F_TRIMMED, c->id, 0, NULL);
}

/* The run's planned end (sender): its last character's event.  Returns
 * whether that character is the GAP. */
static bool ff__plan_end(myri_fabric *f, fab_chan *c, uint32_t lim)
{
    FAB_TX(c)->run_lim = lim;
    FAB_TX(c)->f_gen++;
    myri_fab_push(f, FAB_TX(c)->run_s + (uint64_t)(lim - 1) * f->T, PH_SEND, EV_F_SEND, c->id, FAB_TX(c)->f_gen, NULL);
    return FAB_TX(c)->run_j0 + lim == fab_cur_n(c);
}

/* The head of packet `pkt` (route position `hop` on c) is sent at `now`, its
 * run just added to the ring: the receiver learns of it (entry made in
 * advance at a switch input, head event, or nothing at a host).  Told by a
 * live message, so the cable is up (a run sent before a cut is stale when it
 * comes, ff__msg_arrive; nothing is sent into a cut cable): every head told
 * arrives, in the order told. */
static void ff__head_sent(myri_fabric *f, fab_chan *c, fab_pkt *pkt, uint32_t hop, uint64_t now)
{
    MYRI_ASSERT(f->comp, !c->rx_down, "fast model: a run told on cut channel %u", c->id);
    if (!c->dst_host) {
        /* The head will arrive at the switch input behind the packets
         * entered there (only a cut can prevent that, which takes the
         * entry back): enter it now.  At the front already, its decoding
         * is scheduled for its arrival; else myri_fab_front_begin does it
         * when it reaches the front (not before it has arrived). */
        bool front = FAB_RX(c)->rxcount == 0;
        fab_rxent *e = myri_fab_rx_push(f, c);
        e->pix = fab_pkt_ix(pkt);
        e->hop = hop;
        e->g0 = ff__last(c)->n0; /* the run just added: its first character */
        e->arrive_at = now + c->d_ps;
        if (front) {
            fab_set_front(f, c, FR_DECODE);
            FAB_RXX(c)->ready_at = e->arrive_at + fab_path_latency(f, c);
            myri_fab_push(f, FAB_RXX(c)->ready_at, PH_DECODE, EV_DECODE, c->id, ++FAB_RX(c)->dec_gen, NULL);
        }
        return;
    }
    if (!ff__misrouted(pkt, hop)) {
        /* At a host the head's arrival changes nothing for a packet that
         * is not misrouted (hdr is final: no later hop corrupts it): no
         * event; the GAP's arrival delivers it, and a cut finds it in
         * c->hh as the packet partly received. */
        pkt->host_quiet = true;
    } else {
        myri_fab_push(f, now + c->d_ps, PH_ARRIVE, EV_F_HEAD, c->id, (ff__last(c)->n0 << 6) | hop, pkt);
    }
    /* the two latest heads sent to the host */
    FAB_RXC(c)->hh_gone = FAB_RXC(c)->hh[1];
    FAB_RXC(c)->hh[1] = FAB_RXC(c)->hh[0];
    FAB_RXC(c)->hh[0] = (__typeof__(FAB_RXC(c)->hh[0])){pkt, now + c->d_ps, ff__last(c)->n0, false};
}

/* A run planned on c (row 1; with the head when `head`, row 2): the receiver
 * adds it to its ring, enters the head, sets the run's end (ff__rx_lim), compares
 * its slack and lets the output draining it go on (row 4). */
static void ff__rx_run(myri_fabric *f, fab_chan *c, fab_run run, bool head, uint32_t hop, bool gap)
{
    ff__ring_push(f, c, run);
    if (head) ff__head_sent(f, c, fab_pkt_at(f, run.pix), hop, run.s);
    ff__rx_lim(f, c, run.cnt, gap);
    ff__rx_update(f, c);
    ff__notify_down(f, c, true);
}

/* Starts a run of c at `now` (>= the engine's instant; later than it only
 * for the continuation of a packet already in progress: a planned run that a
 * STOP, a cut or a shorter plan upstream may still cancel).  A host sends
 * what is ready of its packet; a port's DMA what fits in its window. */
static void ff__start_run_at(myri_fabric *f, fab_chan *c, uint64_t now)
{
    uint32_t j = FAB_TX(c)->cur_next;
    uint64_t lim = fab_cur_n(c) - j;
    if (c->src_host) {
        if (FAB_TX(c)->cur->ready <= j) return; /* underrun: the host waits for its bytes */
        if (FAB_TX(c)->cur->ready - j < lim) lim = FAB_TX(c)->cur->ready - j;
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
            if (j == 0 && next != MYRI_TIME_NEVER && next > now && next >= FAB_TX(c)->free_at && !c->dma && !c->down &&
                !(c->dst_host && ff__misrouted(FAB_TX(c)->cur, FAB_TX(c)->cur_hop))) {
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
                ff__rx_update(f, &f->ch[FAB_TX(c)->src_in]);
                return;
            }
            if (room < lim) lim = room;
        }
    }
    FAB_TX(c)->run_on = true;
    FAB_TX(c)->run_s = now;
    FAB_TX(c)->run_j0 = j;
    fab_run run = {.s = now, .pix = fab_pkt_ix(FAB_TX(c)->cur), .cnt = (uint32_t)lim, .j0 = j};
    if (j == 0) {
        FAB_TX(c)->in_progress = true;
        if (FAB_TX(c)->tap_on) FAB_TXC(c)->tap_first = now; /* read only when tapped: a cold line otherwise */
        if (c->src_host) FAB_TX(c)->cur->head_ps = now;
        else if (!c->dma) FAB_TX(c)->cur->refs++; /* this channel's reference, until GAP or FRES arrives */
    }
    bool gap = ff__plan_end(f, c, (uint32_t)lim);
    if (!c->src_host) ff__rx_update(f, &f->ch[FAB_TX(c)->src_in]);
    ff__tell(f, c, &(fab_runmsg){.kind = FAB_MSG_RUN, .run = run, .head = j == 0 && !c->dma,
                              .hop = (uint8_t)FAB_TX(c)->cur_hop, .gap = gap});
}

static void ff__start_run(myri_fabric *f, fab_chan *c) { ff__start_run_at(f, c, fab_now(f)); }

/* A switch output in the middle of a packet, idle: plan its next run now if
 * the next character is known to arrive (no event until then), else wait. */
static void ff__continue(myri_fabric *f, fab_chan *c)
{
    if (FAB_TX(c)->run_on || FAB_TX(c)->stopped || c->down || !FAB_TX(c)->cur || c->src_host || FAB_TX(c)->cur_next == 0) {
        if (FAB_TX(c)->cur && !FAB_TX(c)->run_on) ff__wake_at(f, c, FAB_TX(c)->free_at > fab_now(f) ? FAB_TX(c)->free_at : fab_now(f));
        return;
    }
    fab_chan *u = &f->ch[FAB_TX(c)->src_in];
    fab_rxent *e = myri_fab_rx_front(u);
    uint32_t i;
    uint64_t a = ff__arrival(f, u, e->g0 + FAB_TX(c)->cur_next + (c->dma ? 0u : 1u), &i);
    if (a == MYRI_TIME_NEVER || ff__run(u, i)->pix != e->pix) return; /* told when it is sent */
    a += fab_fall_ps(f, c); /* through the switch's pipeline */
    uint64_t t = FAB_TX(c)->free_at > a ? FAB_TX(c)->free_at : a;
    if (t < fab_now(f)) t = fab_now(f);
    ff__start_run_at(f, c, t);
}

/* A run planned to carry the head of c's packet (the ring's last run) is
 * cancelled before it began: the packet has not begun on c (its entry made in
 * advance at the next input goes back; a decoding planned for the entry is
 * void; the sender gives back its reference on c). */
static void ff__unsend_head(myri_fabric *f, fab_chan *c)
{
    const fab_run *r = ff__last(c);
    if (c->dst_host) { /* the host's latest heads as they were */
        fab_rx_cold *y = FAB_RXC(c);
        y->hh[0] = y->hh[1];
        y->hh[1] = y->hh_gone;
        fab_pkt_at(f, r->pix)->host_quiet = false;
        return;
    }
    if (FAB_RX(c)->rxcount == 0) return;
    fab_rxent *e = &FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + FAB_RX(c)->rxcount - 1) & (FAB_RX(c)->rxcap - 1)];
    if (e->pix != r->pix || e->g0 != r->n0 || e->arrive_at != r->s + c->d_ps) return;
    FAB_RX(c)->rxcount--;
    if (FAB_RX(c)->rxcount == 0) {
        fab_set_front(f, c, FR_NONE);
        FAB_RX(c)->dec_gen++;
        myri_fab_rx_release(f, c);
    }
}

/* c's latest run is over after k characters (row 3; `unsend`: it was to
 * carry the head and carries nothing): the ring is set, a run cancelled
 * before it began leaves it. */
static void ff__rx_trim(myri_fabric *f, fab_chan *c, uint32_t k, bool unsend)
{
    fab_pkt *pkt = fab_pkt_at(f, ff__last(c)->pix);
    if (unsend) ff__unsend_head(f, c);
    ff__last(c)->cnt = k;
    if (k == 0) FAB_RX(c)->rcount--;
    if (unsend) myri_fab_pkt_unref(f, pkt); /* the channel's reference (the input still holds it) */
}

/* A message of c's sender taken by its receiver (EV_F_MSG), or at once for a
 * port's DMA channel, whose two ends are one node. */
static void ff__rx_msg(myri_fabric *f, fab_chan *c, const fab_runmsg *m)
{
    switch ((fab_runmsg_kind)m->kind) {
    case FAB_MSG_RUN: ff__rx_run(f, c, m->run, m->head, m->hop, m->gap); break;
    case FAB_MSG_LIM: ff__rx_lim(f, c, m->lim, m->gap); break;
    case FAB_MSG_TRIM: ff__rx_trim(f, c, m->lim, m->unsend); break;
    }
}

/* The sender of c tells its receiver (docs/PARTITION.md rows 1-3): a message
 * taken at now + D (PH_ARRIVE, the sender's key).  Every character it
 * concerns is sent at >= now, so arrives at >= now + D: the receiver learns
 * of a run no later than its first character arrives, and of a shorter run
 * no later than the first character no longer sent would have. */
static void ff__tell(myri_fabric *f, fab_chan *c, const fab_runmsg *m)
{
    if (c->dma) {
        ff__rx_msg(f, c, m);
        return;
    }
    /* the sender's key: a run is planned only in the fabric's pass, by its sender */
    MYRI_ASSERT(f->comp, f->in_tick && f->cur_node == c->src_node, "fast model: channel %u told outside its sender", c->id);
    uint32_t i = myri_fab_runmsg_put(f, m);
    f->msg[i].epoch = c->x->epoch;
    myri_fab_push(f, fab_now(f) + c->d_ps, PH_ARRIVE, EV_F_MSG, c->id, i, NULL);
}

uint32_t myri_fab_runmsg_put(myri_fabric *f, const fab_runmsg *m)
{
    uint32_t i = f->msg_free; /* 1 + the first free slot, 0: none */
    if (i) {
        i--;
        f->msg_free = f->msg[i].next;
    } else {
        if (f->nmsg == f->capmsg) {
            uint32_t nc = f->capmsg ? 2 * f->capmsg : 256;
            fab_runmsg *nm = realloc(f->msg, (size_t)nc * sizeof *nm);
            if (!nm) myri_panic(f->comp, "out of memory (fast model messages)");
            f->msg = nm;
            f->capmsg = nc;
        }
        i = f->nmsg++;
    }
    f->msg[i] = *m;
    return i;
}

/* Slot i's message, the slot freed. */
fab_runmsg myri_fab_runmsg_take(myri_fabric *f, uint32_t i)
{
    fab_runmsg m = f->msg[i];
    f->msg[i].next = f->msg_free;
    f->msg_free = i + 1;
    return m;
}

/* A message arrives.  One sent before a cut or restore of the cable (its
 * epoch is not the receiver's) is stale: its characters all arrive after the
 * cut (sent at >= the sending time, which is after the cut less D), so they
 * are lost, as the receiver's cut would have found had it known the run:
 * the packet is dropped "link_down", dated at the cut (row 15), and a head's
 * run gives back the channel's reference.  A stale shortening concerns
 * characters lost anyway (the cut gave back the reference of a head it
 * found not arrived). */
static void ff__msg_arrive(myri_fabric *f, fab_chan *c, uint32_t i)
{
    fab_runmsg m = myri_fab_runmsg_take(f, i);
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "F %llu ch %u msg %u s %llu j0 %u cnt %u lim %u epoch %u/%u\n", (unsigned long long)fab_now(f), c->id,
                m.kind, (unsigned long long)m.run.s, m.run.j0, m.run.cnt, m.lim, m.epoch, c->x->rx_epoch);
#endif
    if (m.epoch == c->x->rx_epoch) {
        ff__rx_msg(f, c, &m);
        return;
    }
    if (m.kind != FAB_MSG_RUN || m.run.pix == FAB_PKT_NONE) return; /* (NONE: a cut run's copy given back) */
    fab_pkt *pkt = fab_pkt_at(f, m.run.pix);
    myri_fab_drop_at(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN, FAB_RXX(c)->cut_at);
    if (m.run.j0 == 0) myri_fab_pkt_unref(f, pkt);
}

/* The run of c is over after k characters (all planned, or cut by STOP). */
static void ff__finalize(myri_fabric *f, fab_chan *c, uint32_t k)
{
    if (!c->src_host) ff__track_max(f, &f->ch[FAB_TX(c)->src_in]);
    bool unsend = k == 0 && FAB_TX(c)->run_j0 == 0 && !c->src_host && !c->dma;
    if (unsend) FAB_TX(c)->in_progress = false; /* (the channel's reference: the receiver gives it back) */
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        for (uint32_t q = 0; q < k; q++)
            fprintf(stderr, "F %llu ch %u send pkt %llu j %u\n", (unsigned long long)(FAB_TX(c)->run_s + q * f->T), c->id,
                    (unsigned long long)FAB_TX(c)->cur->id, FAB_TX(c)->run_j0 + q);
#endif
    uint32_t planned = FAB_TX(c)->run_lim;
    FAB_TX(c)->run_on = false;
    if (k != planned) /* (the receiver knows the planned length: ff__plan_end's lim was told) */
        ff__tell(f, c, &(fab_runmsg){.kind = FAB_MSG_TRIM, .lim = k, .unsend = unsend});
    FAB_TX(c)->sent_total += k; /* the window's characters are derived from it (fab_fast_extra_chars) */
    FAB_TX(c)->cur_next = FAB_TX(c)->run_j0 + k;
    if (c->dma) myri_fab_port_write(f, c, FAB_TX(c)->cur_next, NULL, FAB_TX(c)->run_s);
    if (k) FAB_TX(c)->free_at = FAB_TX(c)->run_s + (uint64_t)k * f->T;
    if (!c->src_host) {
        fab_chan *u = &f->ch[FAB_TX(c)->src_in];
        FAB_RX(u)->dep_base += k;
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
    uint64_t k = now > FAB_TX(o)->run_s ? fab_div_T(f, now - FAB_TX(o)->run_s + f->T - 1) : 0;
    if (k >= FAB_TX(o)->run_lim) return;
    uint64_t av = ff__avail(f, o, FAB_TX(o)->run_s + k * f->T, FAB_TX(o)->run_j0 + (uint32_t)k, &next);
    if (k + av >= FAB_TX(o)->run_lim) return;
    if (av == 0) {
        /* Its last character went before now (or it had not begun): over. */
        MYRI_ASSERT(f->comp, k >= 1 || FAB_TX(o)->run_s > now, "fast model: running output %u lost its first character", o->id);
        FAB_TX(o)->f_gen++;
        ff__finalize(f, o, (uint32_t)k);
        ff__tell_trimmed(f, o);
        ff__after_end(f, o);
        return;
    }
    bool gap = ff__plan_end(f, o, (uint32_t)(k + av));
    ff__rx_update(f, &f->ch[FAB_TX(o)->src_in]);
    ff__tell(f, o, &(fab_runmsg){.kind = FAB_MSG_LIM, .lim = (uint32_t)(k + av), .gap = gap});
    ff__tell_trimmed(f, o);
}

/* The runs of c changed: the output draining c's receiver may need to start
 * (new run: wake at its first arrival) or shorten its plan (cut run). */
static void ff__notify_down(myri_fabric *f, fab_chan *c, bool started)
{
    if (c->dst_host || FAB_RX(c)->front != FR_GRANT) return;
    fab_chan *o = &f->ch[FAB_RX(c)->want_out];
    if (FAB_TX(o)->src_in != (int32_t)c->id || !FAB_TX(o)->cur) return;
    if (FAB_TX(o)->run_on) {
        if (!started) ff__replan(f, o);
    } else if (started) {
        ff__continue(f, o);
    }
}

/* Everything input u received of its front packet e has left (FRES). */
static void ff__drained(myri_fabric *f, fab_chan *u, const fab_rxent *e)
{
    ff__track_max(f, u);
    FAB_RX(u)->dep_base = e->g0 + e->got;
    ff__rx_update(f, u);
}

/* After a run: the GAP went (packet done here), or wait for more. */
static void ff__after_end(myri_fabric *f, fab_chan *c)
{
    if (FAB_TX(c)->cur_next == fab_cur_n(c)) { /* GAP sent */
        if (c->dma) myri_fab_port_rx_end(f, c, MYRI_PORT_RX_TAIL);
        else if (c->src_host) myri_fab_port_tx_over(f, FAB_TX(c)->cur, true, MYRI_FABRIC_DROP_NREASONS);
        FAB_TX(c)->in_progress = false;
        myri_fab_tap_done(f, c, fab_cur_n(c) - 1, false);
        FAB_TX(c)->cur = NULL;
        if (!c->src_host) {
            fab_chan *u = &f->ch[FAB_TX(c)->src_in];
            FAB_TX(c)->src_in = -1;
            myri_fab_front_done(f, u);
            myri_fab_release(f, c, FAB_TX(c)->free_at);
        } else if (FAB_TXC(c)->hq_head) {
            ff__wake_at(f, c, FAB_TX(c)->free_at);
        }
        return;
    }
    /* (a full window waits for the next character: ff__start_run_at decides BUFF or the GAP) */
    if (!c->src_host) myri_fab_try_terminate(f, c);
    if (FAB_TX(c)->cur && c->src_host) ff__wake_at(f, c, FAB_TX(c)->free_at);
    else if (FAB_TX(c)->cur) ff__continue(f, c);
}

static void ff__send(myri_fabric *f, fab_chan *c, uint64_t gen)
{
    uint64_t now = fab_now(f);
    if (gen) { /* end of the planned run: its last character goes now */
        if (gen != FAB_TX(c)->f_gen || !FAB_TX(c)->run_on) return;
        ff__finalize(f, c, FAB_TX(c)->run_lim);
        ff__after_end(f, c);
        return;
    }
    if (FAB_TX(c)->send_pending && FAB_TXX(c)->send_pending_at == now) FAB_TX(c)->send_pending = false;
    if (FAB_TX(c)->run_on || FAB_TX(c)->stopped || FAB_TX(c)->free_at > now) return;
    if (!FAB_TX(c)->cur) {
        if (!myri_fab_take_next(f, c)) return;
        ff__apply_corr(f, c);
    }
    if (c->dma) {
        myri_fab_try_terminate(f, c); /* truncated and drained (the DMA stops; the next packet may be taken) */
        if (!FAB_TX(c)->cur || FAB_TX(c)->stopped) return;
    }
    ff__start_run(f, c);
}

static void fab_fast_ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
    if (!stop || FAB_TX(c)->stopped || !FAB_TX(c)->run_on) return;
    uint64_t now = fab_now(f);
    /* Characters at times < now were sent; the STOP prevents the rest. */
    uint32_t k = now > FAB_TX(c)->run_s ? (uint32_t)(fab_div_T(f, now - FAB_TX(c)->run_s + f->T - 1)) : 0;
    MYRI_ASSERT(f->comp, k < FAB_TX(c)->run_lim, "fast model: STOP outside the run of %u", c->id);
    FAB_TX(c)->f_gen++;
    ff__finalize(f, c, k);
    ff__tell_trimmed(f, c);
}

/* ---- receivers ----------------------------------------------------------------------- */

/* The head of a misrouted packet arrives at a host (only there is a head an
 * event: ff__head_sent). */
static void ff__head(myri_fabric *f, fab_chan *c, fab_pkt *pkt, uint64_t b)
{
    uint32_t hop = (uint32_t)(b & 63u);
    uint64_t g = b >> 6;
    if (ff__arrival_of(f, c, g, pkt) != fab_now(f)) return; /* lost on a cut cable, or un-sent */
    FAB_RXC(c)->hpkt = pkt;
    FAB_RX(c)->hbad = false;
    uint8_t first = hop < FAB_HDR ? fab_hdr_byte(pkt, hop) : 0;
    if (first & 0x80u) {
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_MISROUTED);
        FAB_RX(c)->hbad = true;
    }
}

static void ff__rxend(myri_fabric *f, fab_chan *c, fab_pkt *pkt, uint64_t g)
{
    if (ff__arrival_of(f, c, g, pkt) != fab_now(f)) return; /* that GAP was never sent */
    if (FAB_RXX(c)->rx_done_g == g + 1) return; /* a re-planned run announced the same GAP twice */
    FAB_RXX(c)->rx_done_g = g + 1;
    if (c->dst_host) {
        if (pkt->host_quiet || (FAB_RXC(c)->hpkt == pkt && !FAB_RX(c)->hbad)) {
            if (pkt->syndrome == 0) myri_fab_deliver(f, pkt, c->dst_node);
            else myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_CRC);
        }
        if (FAB_RXC(c)->hpkt == pkt) FAB_RXC(c)->hpkt = NULL;
        myri_fab_pkt_unref(f, pkt);
        return;
    }
    /* At a switch input this event exists only for a packet being discarded. */
    fab_rxent *front = myri_fab_rx_front(c);
    bool sinking = front && front->pix == fab_pkt_ix(pkt) && FAB_RX(c)->front == FR_SINK;
    if (sinking) {
        ff__track_max(f, c);
        if (!front->dead) FAB_RXX(c)->sink_end = front->g0 + fab_e_n(f, front); /* its tail was open when the discard began */
        FAB_RX(c)->dep_base = FAB_RXX(c)->sink_end;
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
    case EV_F_TRIMMED: ff__rx_changed(f, c); break;
    case EV_F_MSG: ff__msg_arrive(f, c, (uint32_t)ev->b); break;
    case EV_F_RXEND: ff__rxend(f, c, ev->p, ev->b); break;
    default: myri_panic(f->comp, "fast model: unknown event kind %u", ev->kind);
    }
}

static void fab_fast_granted(myri_fabric *f, fab_chan *in, fab_chan *out)
{
    ff__track_max(f, in);
    FAB_RX(in)->dep_base += 1; /* the route byte is stripped */
    if (FAB_TX(out)->cur->bytes) /* the trailer update of packet.h, for taps and devices; open: when the tail is given */
        myri_fab_pkt_xor(f, FAB_TX(out)->cur, FAB_TX(out)->cur->open ? UINT32_MAX : FAB_TX(out)->cur->nbytes0 - 1, FAB_TX(out)->cur_hop,
                         FAB_TX(out)->cur->open ? FAB_TX(out)->strip_byte
                                        : myri_crc8_strip_delta(&f->crc, FAB_TX(out)->strip_byte, fab_cur_n(out)),
                         FAB_TX(out)->cur->open ? 2 : 1);
    ff__apply_corr(f, out);
    ff__rx_update(f, in);
    myri_fab_try_terminate(f, out);
    if (!FAB_TX(out)->cur) return;
    /* Nothing between arbitration and sending in this instant can change
     * what the output does now: start it here rather than by an event. */
    if (!FAB_TX(out)->stopped && !FAB_TX(out)->run_on && FAB_TX(out)->free_at <= fab_now(f)) ff__start_run(f, out);
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
    for (uint32_t i = 0; i < FAB_RX(c)->rcount; i++) {
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
    if (!FAB_TX(c)->run_on) return;
    uint64_t now = fab_now(f);
    uint32_t k = now > FAB_TX(c)->run_s ? (uint32_t)(fab_div_T(f, now - FAB_TX(c)->run_s + f->T - 1)) : 0; /* sent before now */
    FAB_TX(c)->f_gen++;
    ff__finalize(f, c, k);
}

static fab_pkt *fab_fast_cut_wire(myri_fabric *f, fab_chan *c)
{
    uint64_t now = fab_now(f);
    if (!c->dst_host) ff__track_max(f, c);
    for (uint32_t i = 0; i < FAB_RX(c)->rcount; i++) {
        fab_run *r = ff__run(c, i);
        uint64_t keep = now < r->s + c->d_ps ? 0 : fab_div_T(f, now - r->s - c->d_ps) + 1;
        if (keep >= r->cnt) continue;
        fab_pkt *pkt = fab_pkt_at(f, r->pix);
        myri_fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
        if (r->j0 == 0 && keep == 0) myri_fab_pkt_unref(f, pkt); /* head lost: the channel's reference */
        r->cnt = (uint32_t)keep;
    }
    /* Entries made in advance for heads that are now lost go away (they are
     * the last ones: heads arrive in the order they were sent). */
    fab_rx_half *rx = FAB_RX(c);
    if (!c->dst_host && rx->rxcount && rx->rxq[(rx->rxhead + rx->rxcount - 1) & (rx->rxcap - 1)].arrive_at > now) {
        while (rx->rxcount && rx->rxq[(rx->rxhead + rx->rxcount - 1) & (rx->rxcap - 1)].arrive_at > now) rx->rxcount--;
        if (FAB_RX(c)->rxcount == 0) {
            fab_set_front(f, c, FR_NONE);
            FAB_RX(c)->dec_gen++;
        }
    }
    /* The lost characters are the most recent ones: their numbers are
     * given to the next characters that arrive (the receiver numbers its
     * arrivals: ff__ring_push), so that numbers stay those of characters
     * that arrive.  The sender's count (sent_total) keeps them. */
    while (FAB_RX(c)->rcount && ff__last(c)->cnt == 0) FAB_RX(c)->rcount--;
    ff__rx_update(f, c);
    ff__notify_down(f, c, false);
    if (c->dst_host) { /* the packet partly received: its head arrived, its GAP not */
        fab_pkt *p = NULL;
        for (int i = 0; i < 2; i++) {
            __typeof__(FAB_RXC(c)->hh[0]) *h = &FAB_RXC(c)->hh[i];
            if (!h->pkt || h->term) continue;
            h->term = true; /* lost (head on the wire), or partly received, or complete */
            if (h->head_at > now) continue;
            if (FAB_RXX(c)->rx_done_g <= h->g0) p = h->pkt; /* its GAP has not been handled */
            break;
        }
        FAB_RXC(c)->hpkt = NULL;
        return p;
    }
    if (!FAB_RX(c)->rxcount) return NULL;
    fab_rxent *e = &FAB_RX(c)->rxq[(FAB_RX(c)->rxhead + FAB_RX(c)->rxcount - 1) & (FAB_RX(c)->rxcap - 1)];
    uint32_t got = fab_fast_got(f, c, e);
    if (got >= fab_e_n(f, e) || e->fres || e->dead) return NULL;
    e->dead = true;
    e->will = got; /* the rest was lost */
    if (e == myri_fab_rx_front(c) && FAB_RX(c)->front == FR_SINK) FAB_RXX(c)->sink_end = e->g0 + got;
    return fab_rx_pkt(f, e);
}

static void fab_fast_sink(myri_fabric *f, fab_chan *in)
{
    fab_rxent *e = myri_fab_rx_front(in);
    FAB_RXX(in)->sink_end = e->g0 + (e->fres ? e->got : fab_e_will(f, e)); /* open: beyond any arrival (ff__rxend) */
    ff__rx_update(f, in);
    /* Done if nothing more will come: FRES seen, or the GAP has arrived. */
    if (e->fres || fab_fast_got(f, in, e) >= fab_e_n(f, e)) {
        FAB_RX(in)->dep_base = FAB_RXX(in)->sink_end;
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

/* Characters ever sent on c up to now: the finished runs' (sent_total, the
 * characters lost on a cut cable included) and the open run's so far. */
static uint64_t ff__chars_ever(const myri_fabric *f, const fab_chan *c)
{
    uint64_t n = FAB_TX(c)->sent_total;
    uint64_t now = fab_now(f);
    if (!FAB_TX(c)->run_on || now < FAB_TX(c)->run_s) return n;
    uint64_t k = fab_div_T(f, now - FAB_TX(c)->run_s) + 1;
    return n + (k < FAB_TX(c)->run_lim ? k : FAB_TX(c)->run_lim);
}

/* The window's characters: the fast model keeps st.chars at 0 and counts
 * from the characters ever sent (finishing a run touches no statistics). */
static uint64_t fab_fast_extra_chars(const myri_fabric *f, const fab_chan *c)
{
    return ff__chars_ever(f, c) - FAB_TXX(c)->win_chars0;
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
        FAB_TXX(c)->win_chars0 = ff__chars_ever(f, c);
        if (!c->dst_host) {
            int64_t o = ff__occ(f, c, now);
            FAB_RX(c)->max_slack = o > 0 ? (uint64_t)o : 0;
            FAB_RX(c)->last_check = now;
        }
    }
}

static void fab_fast_track(myri_fabric *f, fab_chan *c) { ff__track_max(f, c); }

static void fab_fast_dma_sync(myri_fabric *f, fab_chan *o)
{
    if (!FAB_TX(o)->cur) return;
    uint64_t now = fab_now(f);
    uint32_t upto = FAB_TX(o)->cur_next;
    if (FAB_TX(o)->run_on && now >= FAB_TX(o)->run_s) {
        /* characters at times before now; at now too once the fabric's pass
         * over now has begun (the same-instant rule) */
        bool incl = f->last_instant != MYRI_TIME_NEVER && f->last_instant >= now;
        uint64_t k = incl ? fab_div_T(f, now - FAB_TX(o)->run_s) + 1 : fab_div_T(f, now - FAB_TX(o)->run_s + f->T - 1);
        if (k > FAB_TX(o)->run_lim) k = FAB_TX(o)->run_lim;
        upto = FAB_TX(o)->run_j0 + (uint32_t)k;
    }
    myri_fab_port_write(f, o, upto, NULL, FAB_TX(o)->run_s);
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
