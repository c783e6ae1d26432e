/* fabric_core.c -- what both fabric models share: parameters, construction,
 * the phased agenda, packets, route decoding, round-robin arbitration,
 * STOP/GO symbols at the senders, long-period timeouts, FRES, accounting and
 * the report.  How characters move is the models' business (fabric_ref.c,
 * fabric_fast.c).  See docs/FABRIC.md.
 */
#include "fabric/fabric_int.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---------------------------------------------------------------- */

#define OFF(f) offsetof(myri_fabric_params, f)

const myri_param myri_fabric_link_params[] = {
    {"preset", MYRI_P_ENUM, NULL, "none", NULL, NULL,
     "link generation: none (use link.rate), 1995 = 640 Mb/s (seed 002), 1280 = 1.28 Gb/s, "
     "2000 = 2 Gb/s (myrinet-facts 3.4); overrides link.rate",
     OFF(preset), "none|1995|1280|2000"},
    {"rate", MYRI_P_RATE, "b/s", "640Mb/s", "1Mb/s", "100Gb/s",
     "data rate per channel: 80 M characters/s x 8 bits (seed 002)", OFF(rate_bps), NULL},
    {"length", MYRI_P_LENGTH, "m", "10m", "1mm", "100km",
     "cable length where the topology gives none (seed 002: <= 25 m copper)", OFF(length_m), NULL},
    {"prop_speed", MYRI_P_DOUBLE, NULL, "0.6", "0.01", "1",
     "propagation speed as a fraction of c (seed 002: ~0.6 c)", OFF(prop_speed_c), NULL},
    {"slack.size", MYRI_P_SIZE, "B", "80B", "2B", "1MB",
     "receiver slack buffer (NO SOURCE; 80 B as in the unverified UPV/UCLM model, facts 1.2)",
     OFF(slack_size_bytes), NULL},
    /* The unverified UPV/UCLM model (facts 1.2) puts STOP at 56 B of 80: that
     * leaves 24 characters, fewer than the 27 a 25 m cable needs at 12.5 ns per
     * character with our 25 ns control delay (seed 002: about 23 characters in
     * transit on a 25 m round trip).  52 B leaves 28. */
    {"slack.stop", MYRI_P_SIZE, "B", "52B", "1B", "1MB",
     "STOP line (NO SOURCE; 80 B buffer minus room for a 25 m round trip)", OFF(slack_stop_bytes), NULL},
    {"slack.go", MYRI_P_SIZE, "B", "40B", "0B", "1MB",
     "GO line (NO SOURCE; 40 B, facts 1.2 [U])", OFF(slack_go_bytes), NULL},
    {"ctrl_delay", MYRI_P_TIME, "ns", "25ns", "1ps", "1ms",
     "STOP/GO/FRES generation + decoding delay (seed 002: 'several character periods'; "
     "assumption: 2 x 12.5 ns)",
     OFF(ctrl_delay_ps), NULL},
    {"nonidle_period", MYRI_P_TIME, "us", "10us", "1ns", "1s",
     "a live sender emits a non-IDLE character at least this often; a cut link is noticed "
     "after it (seed 002 gives no value: assumption)",
     OFF(nonidle_period_ps), NULL},
    {"timeout", MYRI_P_TIME, "ms", "50ms", "1us", "100s",
     "long-period timeout for a blocked packet (seed 002: ~50 ms)", OFF(timeout_ps), NULL},
    {"ber", MYRI_P_DOUBLE, NULL, "0", "0", "0.01",
     "bit error rate per data bit (seed 002: well below 1e-15 on 25 m cables)", OFF(ber), NULL},
};
const size_t myri_fabric_link_nparams = sizeof myri_fabric_link_params / sizeof myri_fabric_link_params[0];

const myri_param myri_fabric_switch_params[] = {
    {"ports", MYRI_P_INT, NULL, "8", "4", "32",
     "default port count of generated switches: 4, 8, 16 or 32 (seed 002)", OFF(switch_ports), NULL},
    {"latency", MYRI_P_TIME, "ns", "550ns", "1ps", "1ms",
     "path formation: route byte received to first byte out (seed 002: 550 ns worst case, "
     "8 ports)",
     OFF(switch_latency_ps), NULL},
    {"addressing", MYRI_P_ENUM, NULL, "absolute", NULL, NULL,
     "route byte = 0x80|port (absolute) or 0x80|(out-in) (relative, facts 1.3 hypothesis)",
     OFF(addressing), "absolute|relative"},
};
const size_t myri_fabric_switch_nparams = sizeof myri_fabric_switch_params / sizeof myri_fabric_switch_params[0];

const myri_param myri_fabric_packet_params[] = {
    {"crc_poly", MYRI_P_INT, NULL, "7", "1", "255",
     "CRC-8 polynomial without the x^8 term (ASSUMPTION: 0x07 = x^8+x^2+x+1, facts 1.4 [U])",
     OFF(crc_poly), NULL},
    {"type_bytes", MYRI_P_INT, "B", "4", "2", "4",
     "packet type length: 4 (ANSI/VITA 26 types page) or 2 (GM 'packet magic'), facts 1.3",
     OFF(type_bytes), NULL},
};
const size_t myri_fabric_packet_nparams = sizeof myri_fabric_packet_params / sizeof myri_fabric_packet_params[0];

const myri_param myri_fabric_top_params[] = {
    {"model", MYRI_P_ENUM, NULL, "fast", NULL, NULL,
     "fabric model: fast (events per packet and hop) or reference (event per character)",
     OFF(model), "fast|reference"},
};
const size_t myri_fabric_top_nparams = sizeof myri_fabric_top_params / sizeof myri_fabric_top_params[0];

size_t myri_fabric_psets(myri_fabric_params *p, myri_pset out[4])
{
    out[0] = (myri_pset){"link", myri_fabric_link_params, myri_fabric_link_nparams, p};
    out[1] = (myri_pset){"switch", myri_fabric_switch_params, myri_fabric_switch_nparams, p};
    out[2] = (myri_pset){"packet", myri_fabric_packet_params, myri_fabric_packet_nparams, p};
    out[3] = (myri_pset){"", myri_fabric_top_params, myri_fabric_top_nparams, p};
    return 4;
}

void myri_fabric_params_default(myri_fabric_params *p)
{
    memset(p, 0, sizeof *p);
    myri_pset set[4];
    myri_fabric_psets(p, set);
    myri_error err;
    if (myri_params_load(set, 4, NULL, NULL, &err) != MYRI_OK) {
        /* The defaults are constants of this file; failing here is a bug. */
        fprintf(stderr, "myri: fabric parameter defaults rejected: %s\n", err.msg);
        abort();
    }
}

static myri_status fab__perr(myri_error *err, const char *msg)
{
    if (err) snprintf(err->msg, sizeof err->msg, "%s", msg);
    return MYRI_EINPUT;
}

myri_status myri_fabric_params_check(myri_fabric_params *p, myri_error *err)
{
    static const double preset_bps[] = {0, 640e6, 1280e6, 2000e6};
    if (p->preset > 0 && p->preset < 4) p->rate_bps = preset_bps[p->preset];
    if (!(p->rate_bps > 0)) return fab__perr(err, "link.rate: must be positive; expected a rate such as 640Mb/s");
    double tc = 8e12 / p->rate_bps;
    if (tc < 1 || fabs(tc - floor(tc + 0.5)) > 1e-6)
        return fab__perr(err, "link.rate: must give a whole number of picoseconds per character; "
                              "expected a rate whose 8-bit character time is exact, e.g. 640Mb/s = 12500 ps");
    if (p->slack_stop_bytes > p->slack_size_bytes)
        return fab__perr(err, "link.slack.stop: above link.slack.size; expected a STOP line within the buffer");
    if (p->slack_go_bytes >= p->slack_stop_bytes)
        return fab__perr(err, "link.slack.go: not below link.slack.stop; expected a GO line under the STOP line");
    if (p->switch_ports != 4 && p->switch_ports != 8 && p->switch_ports != 16 && p->switch_ports != 32)
        return fab__perr(err, "switch.ports: unsupported port count; expected 4, 8, 16 or 32");
    if (p->type_bytes != 2 && p->type_bytes != 4)
        return fab__perr(err, "packet.type_bytes: unsupported length; expected 2 or 4");
    if (p->crc_poly < 1 || p->crc_poly > 255) return fab__perr(err, "packet.crc_poly: out of range; expected 1 to 255");
    if (p->prop_speed_c <= 0 || p->prop_speed_c > 1)
        return fab__perr(err, "link.prop_speed: out of range; expected a fraction of c in (0, 1]");
    return MYRI_OK;
}

uint64_t myri_fabric_char_ps(const myri_fabric_params *p)
{
    return (uint64_t)floor(8e12 / p->rate_bps + 0.5);
}

const char *myri_fabric_drop_name(myri_fabric_drop_reason r)
{
    static const char *const names[] = {"crc", "to_host_byte_at_switch", "unconnected_port",
                                        "misrouted", "timeout", "link_down"};
    return (unsigned)r < MYRI_FABRIC_DROP_NREASONS ? names[r] : "?";
}

/* ---- agenda ------------------------------------------------------------------------ */

#define KEY_T(k) ((uint64_t)((k) >> 64))
#define KEY_PHASE(k) ((unsigned)((uint64_t)(k) >> 61))
#define KEY_SLOT(k) ((uint32_t)((uint64_t)(k) & 0xffffffu))

static void fab__schedule_tick(myri_fabric *f, uint64_t t)
{
    if (f->tick_at != MYRI_TIME_NEVER && f->tick_at <= t) return;
    /* At most one tick is pending: an earlier one replaces a later one. */
    if (f->tick_at != MYRI_TIME_NEVER) myri_sim_cancel(f->sim, f->tick_id);
    myri_event ev = {.target = f->comp, .kind = 1};
    f->tick_id = myri_sim_schedule(f->sim, t, &ev);
    if (!f->tick_id) myri_panic(f->comp, "cannot schedule fabric tick");
    f->tick_at = t;
}

static uint32_t fab__slot(myri_fabric *f)
{
    if (f->nfree) return f->pfree[--f->nfree];
    if (f->npool >= (1u << 24)) myri_panic(f->comp, "more than 2^24 pending fabric events");
    if ((f->npool & (f->npool - 1)) == 0 || f->npool == 0) {
        size_t nc = f->npool ? 2 * f->npool : 1024;
        fab_ev *np = realloc(f->pool, nc * sizeof *np);
        uint32_t *nf = realloc(f->pfree, nc * sizeof *nf);
        if (!np || !nf) myri_panic(f->comp, "out of memory (agenda)");
        f->pool = np;
        f->pfree = nf;
    }
    return (uint32_t)f->npool++;
}

static void fab__heap_push(myri_fabric *f, fab_key **hp, size_t *np, size_t *capp, fab_key k)
{
    if (*np == *capp) {
        size_t nc = *capp ? 2 * *capp : 1024;
        fab_key *nh = realloc(*hp, nc * sizeof *nh);
        if (!nh) myri_panic(f->comp, "out of memory (agenda)");
        *hp = nh;
        *capp = nc;
    }
    fab_key *h = *hp;
    size_t i = (*np)++;
    while (i > 0) {
        size_t parent = (i - 1) / 4;
        if (h[parent] <= k) break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = k;
}

/* Inserts slot (key k) into calendar bucket bk (absolute number, within the
 * ring), keeping the bucket's list in key order. */
static void fab__cal_insert(myri_fabric *f, uint64_t bk, uint32_t slot, fab_key k)
{
    uint32_t r = (uint32_t)(bk & (FAB_CAL_N - 1));
    uint32_t *at = &f->cal_head[r];
    while (*at != UINT32_MAX && ((fab_key)f->pool[*at].time << 64 | f->pool[*at].key) < k) at = &f->pool[*at].next;
    f->pool[slot].next = *at;
    *at = slot;
    f->cal_bits[r / 64] |= 1ull << (r % 64);
    if (f->caln++ == 0 || bk < f->cal_cur) f->cal_cur = bk;
}

/* Takes the first event of the calendar's first bucket; finds the next
 * non-empty bucket if that one is now empty. */
static uint32_t fab__cal_pop(myri_fabric *f)
{
    uint32_t r = (uint32_t)(f->cal_cur & (FAB_CAL_N - 1));
    uint32_t slot = f->cal_head[r];
    f->cal_head[r] = f->pool[slot].next;
    f->cal_base = f->cal_cur;
    if (--f->caln == 0) {
        f->cal_bits[r / 64] &= ~(1ull << (r % 64));
        return slot;
    }
    if (f->cal_head[r] != UINT32_MAX) return slot;
    f->cal_bits[r / 64] &= ~(1ull << (r % 64));
    /* The next set bit after r, cyclically (some bucket is not empty). */
    uint32_t w = r / 64;
    uint64_t m = f->cal_bits[w] & ~((2ull << (r % 64)) - 1); /* bits above r in its word */
    if (r % 64 == 63) m = 0;
    uint32_t step = 0;
    while (!m) {
        w = (w + 1) & (FAB_CAL_N / 64 - 1);
        step++;
        m = f->cal_bits[w];
    }
    uint32_t nr = w * 64 + (uint32_t)__builtin_ctzll(m);
    f->cal_cur += (uint64_t)((nr - r) & (FAB_CAL_N - 1));
    (void)step;
    return slot;
}

void fab_push(myri_fabric *f, uint64_t t, fab_phase ph, uint32_t kind, uint32_t a, uint64_t b,
              void *p)
{
    uint64_t now = fab_now(f);
    MYRI_ASSERT(f->comp, t >= now, "event in the past (%llu < %llu)", (unsigned long long)t,
                (unsigned long long)now);
    MYRI_ASSERT(f->comp, !(f->in_tick && t == now && (uint64_t)ph < f->now_phase),
                "event for an earlier phase of the current instant (kind %u)", kind);
    if (f->in_tick && t == f->now) { /* this instant: FIFO of its phase */
        uint32_t slot = fab__slot(f);
        f->pool[slot] = (fab_ev){t, 0, kind, a, b, p, UINT32_MAX};
        __typeof__(f->fifo[0]) *q = &f->fifo[ph];
        if (q->head + q->n == q->cap) {
            if (q->head) {
                memmove(q->slot, q->slot + q->head, q->n * sizeof *q->slot);
                q->head = 0;
            } else {
                size_t nc = q->cap ? 2 * q->cap : 64;
                uint32_t *ns = realloc(q->slot, nc * sizeof *ns);
                if (!ns) myri_panic(f->comp, "out of memory (agenda)");
                q->slot = ns;
                q->cap = nc;
            }
        }
        q->slot[q->head + q->n++] = slot;
        f->fifo_mask |= 1u << ph;
        return;
    }
    uint32_t slot = fab__slot(f);
    f->pool[slot] = (fab_ev){t, 0, kind, a, b, p, UINT32_MAX};
    fab_key k = ((fab_key)t << 64) |
                (((uint64_t)ph << 61) | ((f->seq++ & ((1ull << 37) - 1)) << 24) | slot);
    uint64_t bk = t >> f->cal_shift;
    if (kind == EV_TIMEOUT) {
        fab__heap_push(f, &f->far, &f->fn, &f->fcap, k);
    } else if (bk >= f->cal_base && bk - f->cal_base < FAB_CAL_N) {
        f->pool[slot].key = (uint64_t)k;
        fab__cal_insert(f, bk, slot, k);
    } else {
        fab__heap_push(f, &f->heap, &f->hn, &f->hcap, k);
    }
    if (!f->in_tick) fab__schedule_tick(f, t); /* else: at the end of the handler */
}

static inline fab_key fab__slot_key(const myri_fabric *f, uint32_t slot)
{
    return ((fab_key)f->pool[slot].time << 64) | f->pool[slot].key;
}

/* Where the smallest key of the agenda is (*top): 0 the heap, 1 the far
 * heap, 2 the calendar; -1 if the agenda is empty. */
static inline int fab__which(const myri_fabric *f, fab_key *top)
{
    int w = -1;
    fab_key best = 0;
    if (f->caln) {
        best = fab__slot_key(f, f->cal_head[f->cal_cur & (FAB_CAL_N - 1)]);
        w = 2;
    }
    if (f->hn && (w < 0 || f->heap[0] < best)) {
        best = f->heap[0];
        w = 0;
    }
    if (f->fn && (w < 0 || f->far[0] < best)) {
        best = f->far[0];
        w = 1;
    }
    *top = best;
    return w;
}

/* Removes the smallest key of heap h (n > 0 keys). */
static fab_key fab__heap_pop(fab_key *h, size_t *np)
{
    fab_key top = h[0];
    fab_key last = h[--*np];
    size_t i = 0, n = *np;
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best = c;
        fab_key bv = h[c];
        size_t end = c + 4 < n ? c + 4 : n;
        for (size_t j = c + 1; j < end; j++)
            if (h[j] < bv) {
                bv = h[j];
                best = j;
            }
        if (bv >= last) break;
        h[i] = bv;
        i = best;
    }
    if (n) h[i] = last;
    return top;
}

/* Removes the smallest key, which is in source w (fab__which). */
static fab_ev fab__pop(myri_fabric *f, int w)
{
    uint32_t slot;
    if (w == 2) {
        slot = fab__cal_pop(f);
    } else {
        fab_key top = w == 1 ? fab__heap_pop(f->far, &f->fn) : fab__heap_pop(f->heap, &f->hn);
        slot = KEY_SLOT(top);
        uint64_t bk = KEY_T(top) >> f->cal_shift;
        if (bk > f->cal_base) f->cal_base = bk; /* nothing is scheduled before it any more */
    }
    f->pfree[f->nfree++] = slot;
    return f->pool[slot];
}

/* ---- the predicted-check queue (indexed binary heap of inputs) ---- */

static bool cq__less(const myri_fabric *f, uint32_t a, uint32_t b)
{
    uint64_t ta = f->ch[a].pred_at, tb = f->ch[b].pred_at;
    return ta < tb || (ta == tb && a < b);
}

static void cq__place(myri_fabric *f, size_t i, uint32_t c)
{
    f->cq[i] = c;
    f->cq_pos[c] = (int32_t)i;
}

static void cq__sift(myri_fabric *f, size_t i)
{
    uint32_t c = f->cq[i];
    while (i > 0 && cq__less(f, c, f->cq[(i - 1) / 2])) {
        cq__place(f, i, f->cq[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        uint32_t bc = c;
        if (l < f->cqn && cq__less(f, f->cq[l], bc)) { best = l; bc = f->cq[l]; }
        if (l + 1 < f->cqn && cq__less(f, f->cq[l + 1], bc)) { best = l + 1; bc = f->cq[l + 1]; }
        if (best == i) break;
        cq__place(f, i, bc);
        i = best;
    }
    cq__place(f, i, c);
}

void fab_cq_set(myri_fabric *f, uint32_t c, uint64_t t)
{
    f->ch[c].pred_at = t;
    if (f->cq_pos[c] < 0) {
        cq__place(f, f->cqn++, c);
    }
    cq__sift(f, (size_t)f->cq_pos[c]);
    f->cq_top_at = f->ch[f->cq[0]].pred_at;
}

void fab_cq_remove(myri_fabric *f, uint32_t c)
{
    int32_t i = f->cq_pos[c];
    if (i < 0) return;
    f->cq_pos[c] = -1;
    f->ch[c].pred_at = MYRI_TIME_NEVER;
    uint32_t last = f->cq[--f->cqn];
    if ((size_t)i != f->cqn) {
        cq__place(f, (size_t)i, last);
        cq__sift(f, (size_t)i);
    }
    f->cq_top_at = f->cqn ? f->ch[f->cq[0]].pred_at : UINT64_MAX;
}

static void fab__dispatch(myri_fabric *f, const fab_ev *ev);

static void fab__callback(myri_fabric *f, fab_cbrec *r);

/* One engine event: the fabric's instants from the engine's time up to the
 * next event of any other component (or the end of the run), each instant
 * in phase order.  Kind 2 is a deferred callback. */
static void fab__handle(myri_component *self, const myri_event *ev)
{
    myri_fabric *f = self->state;
    if (ev->kind == 2) {
        fab__callback(f, ev->ptr);
        return;
    }
    if (ev->kind == 3) return; /* the engine's clock catching up with the fabric's */
    uint64_t now = myri_sim_now(f->sim);
    f->tick_at = MYRI_TIME_NEVER; /* this is the pending tick */
    /* The same-instant rule: at any time t the fabric's pass of instant t
     * comes after every other event at t (so what a device does at t is seen
     * by that pass whichever component's event came first): if another event
     * is pending now, run again behind it. */
    if (myri_sim_next_time(f->sim) == now) {
        fab__schedule_tick(f, now);
        return;
    }
    f->in_tick = true;
    f->now = now;
    f->now_phase = 0;
    /* The fabric processes its instants strictly before the next event of
     * anybody else (nxt, recomputed after callbacks, which may schedule
     * events of other components), and not beyond the end of the run (hz). */
    uint64_t hz = myri_sim_horizon(f->sim), nxt = myri_sim_next_time(f->sim);
    f->lim_stale = false;
    for (;;) {
        fab_key top;
        int w = fab__which(f, &top);
        unsigned hp = (w >= 0 && KEY_T(top) == f->now) ? KEY_PHASE(top) : 99u;
        unsigned fm = f->fifo_mask >> f->now_phase;
        unsigned fp = fm ? (unsigned)f->now_phase + (unsigned)__builtin_ctz(fm) : 99u;
        unsigned np = hp < fp ? hp : fp;
        if ((f->ndirty || (f->cqn && fab_cq_top_time(f) == f->now)) && np > PH_CHECK) {
            /* the end of the instant: changed and predicted slack checks */
            f->now_phase = PH_CHECK;
            if (f->ndirty) {
                fab_fast_flush(f);
            } else {
                f->ctr.events++;
                fab_fast_check_due(f, f->cq[0]);
            }
            continue;
        }
        if (np == 99u) { /* the instant is over: the next one, if nobody else comes first */
            if (w < 0 && !f->cqn) break;
            uint64_t t = w >= 0 ? KEY_T(top) : UINT64_MAX;
            if (fab_cq_top_time(f) < t) t = fab_cq_top_time(f);
            if (f->lim_stale) {
                nxt = myri_sim_next_time(f->sim);
                f->lim_stale = false;
            }
            if (t > hz || t >= nxt) break;
            f->now = t;
            f->now_phase = 0;
            continue;
        }
        fab_ev e;
        if (hp <= fp) {
            e = fab__pop(f, w);
        } else {
            uint32_t slot = f->fifo[fp].slot[f->fifo[fp].head++];
            if (--f->fifo[fp].n == 0) {
                f->fifo[fp].head = 0;
                f->fifo_mask &= ~(1u << fp);
            }
            f->pfree[f->nfree++] = slot;
            e = f->pool[slot];
        }
        f->now_phase = np;
        f->ctr.events++;
        fab__dispatch(f, &e);
    }
    f->in_tick = false;
    f->now_phase = 0;
    fab_key top;
    if (fab__which(f, &top) >= 0) fab__schedule_tick(f, KEY_T(top));
    if (f->cqn) fab__schedule_tick(f, fab_cq_top_time(f));
    /* Ran ahead of every other event: let the engine's clock reach the last
     * instant processed, so that results read after the run are consistent. */
    if (f->now > now && myri_sim_next_time(f->sim) > f->now) {
        myri_event cu = {.target = f->comp, .kind = 3};
        if (!myri_sim_schedule(f->sim, f->now, &cu)) myri_panic(f->comp, "cannot schedule");
    }
}

/* ---- packets ----------------------------------------------------------------------- */

fab_pkt *fab_pkt_alloc(myri_fabric *f)
{
    if (!f->free_pkts) {
        size_t n = 1024;
        fab_pkt *blk = calloc(n, sizeof *blk);
        fab_pkt **nb = realloc(f->blocks, (f->nblocks + 1) * sizeof *nb);
        if (!blk || !nb) {
            free(blk);
            if (nb) f->blocks = nb;
            return NULL;
        }
        f->blocks = nb;
        f->blocks[f->nblocks++] = blk;
        for (size_t i = 0; i < n; i++) {
            blk[i].next = f->free_pkts;
            f->free_pkts = &blk[i];
        }
    }
    fab_pkt *p = f->free_pkts;
    f->free_pkts = p->next;
    memset(p, 0, sizeof *p);
    f->live_pkts++;
    return p;
}

void fab_pkt_hdr_fill(fab_pkt *pkt)
{
    uint32_t n = pkt->hdr_lazy;
    for (uint32_t i = 0; i < pkt->payload_bytes && n < FAB_HDR; i++)
        pkt->hdr[n++] = myri_packet_payload_byte(pkt->id, i);
    pkt->hdr_lazy = 0;
}

void fab_pkt_unref(myri_fabric *f, fab_pkt *pkt)
{
    MYRI_ASSERT(f->comp, pkt->refs > 0, "packet %llu released too often", (unsigned long long)pkt->id);
    if (--pkt->refs) return;
    if (!pkt->delivered && !pkt->dropped)
        myri_panic(f->comp, "packet %llu vanished without being delivered or dropped",
                   (unsigned long long)pkt->id);
    free(pkt->bytes);
    free(pkt->payload_copy);
    pkt->bytes = pkt->payload_copy = NULL;
    pkt->next = f->free_pkts;
    f->free_pkts = pkt;
    f->live_pkts--;
}

void fab_host_drop_down(myri_fabric *f, fab_chan *c)
{
    while (c->down && c->hq_head) {
        fab_pkt *pkt = c->hq_head;
        c->hq_head = pkt->next;
        if (!c->hq_head) c->hq_tail = NULL;
        fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
        fab_pkt_unref(f, pkt);
    }
}

uint64_t fab_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static fab_cbrec *fab__cbrec(myri_fabric *f)
{
    fab_cbrec *r = f->cb_free;
    if (r) {
        f->cb_free = r->next;
        return r;
    }
    r = malloc(sizeof *r);
    fab_cbrec **na = f->ncb_all == f->capcb_all
                         ? realloc(f->cb_all, (f->capcb_all ? 2 * f->capcb_all : 64) * sizeof *na)
                         : f->cb_all;
    if (!r || !na) myri_panic(f->comp, "out of memory (callbacks)");
    if (na != f->cb_all || f->ncb_all == f->capcb_all) {
        f->cb_all = na;
        f->capcb_all = f->capcb_all ? 2 * f->capcb_all : 64;
    }
    f->cb_all[f->ncb_all++] = r;
    return r;
}

/* Hands a callback due at time t (ahead of the engine) to an engine event. */
static void fab__defer(myri_fabric *f, fab_cbrec *r, uint64_t t)
{
    f->lim_stale = true;
    myri_event ev = {.target = f->comp, .kind = 2, .ptr = r};
    if (!myri_sim_schedule(f->sim, t, &ev)) myri_panic(f->comp, "cannot schedule a callback");
}

void fab_drop(myri_fabric *f, fab_pkt *pkt, myri_fabric_drop_reason r)
{
    if (pkt->dropped || pkt->delivered) return;
    pkt->dropped = true;
    uint64_t now = fab_now(f);
    f->ctr.dropped[r]++;
    f->ctr.dropped_total++;
    /* Order-independent (sum) so that same-instant callbacks may come in any order. */
    f->ctr.result_hash += fab_mix(pkt->id * 31 + 7 * (uint64_t)r + 0x51ed);
    if (!f->cb.dropped) return;
    if (now == myri_sim_now(f->sim)) {
        f->lim_stale = true;
        f->cb.dropped(f->cb.ctx, pkt->id, r, now);
        return;
    }
    fab_cbrec *rec = fab__cbrec(f);
    rec->delivered = false;
    rec->id = pkt->id;
    rec->reason = r;
    fab__defer(f, rec, now);
}

void fab_deliver(myri_fabric *f, fab_pkt *pkt, uint32_t dst_node)
{
    if (pkt->dropped || pkt->delivered) return;
    pkt->delivered = true;
    uint64_t now = fab_now(f) + f->skew_ps;
    f->ctr.delivered++;
    f->ctr.delivered_payload_bytes += pkt->payload_bytes;
    f->ctr.result_hash += fab_mix(pkt->id ^ fab_mix(now + 0x9e37));
    if (f->cb.delivered) {
        myri_fabric_delivery d = {
            .id = pkt->id, .src_host = pkt->src_host,
            .dst_host = (uint32_t)f->node[dst_node].host_index, .payload_bytes = pkt->payload_bytes,
            .type = pkt->type, .queued_ps = pkt->queued_ps, .head_sent_ps = pkt->head_ps,
            .tail_ps = now, .crc_ok = true};
        if (fab_now(f) == myri_sim_now(f->sim)) {
            f->lim_stale = true;
            f->cb.delivered(f->cb.ctx, &d);
        } else {
            fab_cbrec *rec = fab__cbrec(f);
            rec->delivered = true;
            rec->d = d;
            fab__defer(f, rec, fab_now(f));
        }
    }
}

static void fab__callback(myri_fabric *f, fab_cbrec *r)
{
    if (r->delivered) f->cb.delivered(f->cb.ctx, &r->d);
    else f->cb.dropped(f->cb.ctx, r->id, r->reason, myri_sim_now(f->sim));
    r->next = f->cb_free;
    f->cb_free = r;
}

/* Bit errors: the error positions of packet `pkt` on channel c come from a
 * random stream keyed by (seed, packet id, channel), so that both models (and
 * any event order) see the same errors.  Bits are skipped geometrically. */
uint32_t fab_corruptions(myri_fabric *f, const fab_pkt *pkt, uint32_t c, uint32_t nbytes,
                         fab_corr *out)
{
    uint32_t n = 0;
    for (size_t i = 0; i < f->nscripts && n < FAB_MAX_CORR; i++) {
        const fab_script *s = &f->scripts[i];
        if (s->id == pkt->id && s->channel == c && s->index < nbytes)
            out[n++] = (fab_corr){s->index, s->mask};
    }
    if (f->p.ber > 0) {
        uint64_t st = f->ber_seed ^ fab_mix(pkt->id * 0x100000001b3ull + c);
        double lq = log1p(-f->p.ber);
        uint64_t bit = 0, nbits = (uint64_t)nbytes * 8;
        for (;;) {
            double u = (double)(myri_splitmix64(&st) >> 11) * 0x1.0p-53;
            double skip = floor(log1p(-u) / lq);
            if (skip >= (double)(nbits - bit)) break;
            bit += (uint64_t)skip;
            if (n < FAB_MAX_CORR) out[n++] = (fab_corr){(uint32_t)(bit / 8), (uint8_t)(0x80u >> (bit % 8))};
            bit++;
            if (bit >= nbits) break;
        }
    }
    return n;
}

/* ---- switch inputs: packets present, decoding, arbitration ------------------------ */

fab_rxent *fab_rx_front(fab_chan *c) { return c->rxcount ? &c->rxq[c->rxhead] : NULL; }

fab_rxent *fab_rx_push(myri_fabric *f, fab_chan *c)
{
    if (c->rxcount == c->rxcap) {
        uint32_t nc = c->rxcap ? 2 * c->rxcap : 4;
        fab_rxent *nq = malloc(nc * sizeof *nq);
        if (!nq) myri_panic(f->comp, "out of memory (input queue)");
        for (uint32_t i = 0; i < c->rxcount; i++) nq[i] = c->rxq[(c->rxhead + i) & (c->rxcap - 1)];
        free(c->rxq);
        c->rxq = nq;
        c->rxcap = nc;
        c->rxhead = 0;
    }
    fab_rxent *e = &c->rxq[(c->rxhead + c->rxcount++) & (c->rxcap - 1)];
    memset(e, 0, sizeof *e);
    return e;
}

fab_rxent *fab_rx_find(fab_chan *c, const fab_pkt *pkt)
{
    for (uint32_t i = 0; i < c->rxcount; i++) {
        fab_rxent *e = &c->rxq[(c->rxhead + i) & (c->rxcap - 1)];
        if (e->pkt == pkt) return e;
    }
    return NULL;
}

void fab_rx_recheck(myri_fabric *f, fab_chan *c)
{
    if (c->dst_host) return;
    fab_push(f, fab_now(f), PH_CHECK, f->fast ? EV_F_CHECK : EV_R_CHECK, c->id, 0, NULL);
}

void fab_rx_pop(fab_chan *c)
{
    c->rxhead = (c->rxhead + 1) & (c->rxcap - 1);
    c->rxcount--;
}

static void fab__sink(myri_fabric *f, fab_chan *in)
{
    if (f->fast) fab_fast_track(f, in);
    in->front = FR_SINK;
    if (f->fast) fab_fast_sink(f, in);
    else fab_ref_sink(f, in);
}

void fab_front_begin(myri_fabric *f, fab_chan *c)
{
    fab_rxent *e = fab_rx_front(c);
    if (!e) {
        c->front = FR_NONE;
        return;
    }
    if (e->fres) { /* truncated before it got a path: discard what is here */
        fab__sink(f, c);
        return;
    }
    c->front = FR_DECODE;
    /* An entry made in advance by the fast model may not have arrived yet:
     * decoding starts L after the later of its arrival and now. */
    c->ready_at = (e->arrive_at > fab_now(f) ? e->arrive_at : fab_now(f)) + f->L;
    fab_push(f, c->ready_at, PH_DECODE, EV_DECODE, c->id, ++c->dec_gen, NULL);
}

void fab_front_done(myri_fabric *f, fab_chan *c)
{
    fab_rxent *e = fab_rx_front(c);
    fab_pkt *pkt = e->pkt;
    fab_rx_pop(c);
    c->front = FR_NONE;
    c->want_out = -1;
    fab_pkt_unref(f, pkt);
    fab_front_begin(f, c);
}

static void fab__decode(myri_fabric *f, fab_chan *in)
{
    fab_rxent *e = fab_rx_front(in);
    fab_pkt *pkt = e->pkt;
    /* The leading byte as it arrived.  When the route is exhausted it is the
     * first type byte (MSB 0).  A packet with nothing left behind the byte
     * (only the trailer) and bytes beyond FAB_HDR (a packet wandering more
     * than 64 switches on corrupted bytes) are dropped as to-host bytes. */
    uint8_t b = (e->hop < FAB_HDR && e->n > 2) ? fab_hdr_byte(pkt, e->hop) : 0;
    const fab_node *sw = &f->node[in->dst_node];
    if (!(b & 0x80u)) {
        fab_drop(f, pkt, MYRI_FABRIC_DROP_TO_HOST_BYTE);
        fab__sink(f, in);
        return;
    }
    int port = myri_route_decode(b, in->dst_port, sw->nports, (myri_route_encoding)f->p.addressing);
    if (port < 0 || sw->out_ch[port] < 0) {
        fab_drop(f, pkt, MYRI_FABRIC_DROP_UNCONNECTED_PORT);
        fab__sink(f, in);
        return;
    }
    in->front = FR_WAIT;
    in->want_out = sw->out_ch[port];
    in->in_route_byte = b;
    f->ch[in->want_out].nreq++;
    f->ch[in->want_out].req_ports |= 1u << in->dst_port;
    fab_push(f, fab_now(f), PH_ARB, EV_ARB, (uint32_t)in->want_out, 0, NULL);
}

static void fab__abandon(myri_fabric *f, fab_chan *c);

/* Does the sender of c hold a packet that a STOP blocks?  A packet in
 * progress, or at a switch output a granted packet not begun yet.  A host
 * takes its next packet only when it can send its head: a host that is
 * stopped before that holds nothing (the packet waits in its queue). */
static bool fab__holds(const fab_chan *c) { return c->in_progress || (c->cur && !c->src_host); }

/* Since when the packet of c (stopped, fab__holds) has been blocked: the
 * later of the STOP's arrival and the grant (docs/FABRIC.md). */
static uint64_t fab__blocked_since(const fab_chan *c)
{
    if (c->src_host || c->granted_at < c->stopped_since) return c->stopped_since;
    return c->granted_at;
}

/* One long-period timer per channel at most: it re-arms itself while stopped. */
static void fab__arm_timer(myri_fabric *f, fab_chan *c, uint64_t from)
{
    if (c->timer_at) return;
    c->timer_at = from + f->p.timeout_ps;
    fab_push(f, c->timer_at, PH_TIMEOUT, EV_TIMEOUT, c->id, 0, NULL);
}

void fab_release(myri_fabric *f, fab_chan *o, uint64_t t)
{
    if (o->nreq == 0 || o->arb_at == t + 1) return;
    o->arb_at = t + 1;
    fab_push(f, t, PH_ARB, EV_ARB, o->id, 0, NULL);
}

static void fab__arbitrate(myri_fabric *f, fab_chan *o)
{
    uint64_t now = fab_now(f);
    if (o->arb_at == now + 1) o->arb_at = 0;
    if (o->cur || o->nreq == 0) return;
    if (o->free_at > now) { /* still in its last slot: again when it ends */
        fab_release(f, o, o->free_at);
        return;
    }
    const fab_node *sw = &f->node[o->src_node];
    {
        /* Round robin: the first requesting port after the one served last. */
        uint32_t start = o->rr + 1 < sw->nports ? o->rr + 1 : 0, above = o->req_ports >> start << start;
        uint32_t port = (uint32_t)__builtin_ctz(above ? above : o->req_ports);
        int32_t ic = sw->in_ch[port];
        fab_chan *in = &f->ch[ic];
        MYRI_ASSERT(f->comp, in->front == FR_WAIT && in->want_out == (int32_t)o->id,
                    "output %u: port %u requests without waiting", o->id, port);
        fab_rxent *e = fab_rx_front(in);
        o->rr = port;
        o->nreq--;
        o->req_ports &= ~(1u << port);
        in->front = FR_GRANT;
        o->cur = e->pkt;
        o->cur_hop = e->hop + 1;
        o->cur_n = e->n - 1;
        o->cur_next = 0;
        o->src_in = ic;
        o->strip_byte = in->in_route_byte;
        o->granted_at = now;
        o->ncorr = fab_corruptions(f, e->pkt, o->id, o->cur_n - 1, o->corr);
        if (o->down) { /* into a cut cable: dropped at once */
            fab__abandon(f, o);
            return;
        }
        if (f->fast) fab_fast_granted(f, in, o);
        else fab_ref_granted(f, in, o);
        /* Granted while stopped: blocked from now on (the long-period timer). */
        if (o->cur && o->stopped) fab__arm_timer(f, o, now);
        return;
    }
}

/* ---- STOP / GO / timeouts / FRES --------------------------------------------------- */

void fab_emit_ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
#ifdef FAB_DEBUG
    if (FAB_DEBUG < 0 || c->id == (uint32_t)FAB_DEBUG)
        fprintf(stderr, "%c %llu ch %u emit %s\n", f->fast ? 'F' : 'R', (unsigned long long)fab_now(f), c->id, stop ? "STOP" : "GO");
#endif
    c->stop_sent = stop;
    if (stop) c->st.stops++;
    else c->st.gos++;
    fab_push(f, fab_now(f) + c->q_ps, PH_CTRL, EV_CTRL, c->id, (c->epoch << 1) | (stop ? 1u : 0u), NULL);
}

static void fab__ctrl(myri_fabric *f, fab_chan *c, bool stop)
{
    uint64_t now = fab_now(f);
    if (f->fast) fab_fast_ctrl(f, c, stop);
    if (stop) {
        if (c->stopped) return;
        c->stopped = true;
        c->stopped_since = now;
        if (fab__holds(c)) fab__arm_timer(f, c, now);
    } else {
        if (!c->stopped) return;
        c->stopped = false;
        uint64_t from = c->stopped_since > c->win_start ? c->stopped_since : c->win_start;
        if (now > from) c->st.stopped_ps += now - from;
        if (f->fast) fab_fast_wake(f, c);
        else fab_ref_wake(f, c);
    }
}

/* After the packet on channel c was cut short (timeout or dead cable): a
 * host sender moves on to its next packet; a switch output drains what is
 * left of the packet at its input and is released at t_ps. */
static void fab__free_path(myri_fabric *f, fab_chan *c, uint64_t t_ps)
{
    if (c->src_host) {
        if (f->fast) fab_fast_wake(f, c);
        else fab_ref_wake(f, c);
    } else {
        fab_chan *in = &f->ch[c->src_in];
        c->src_in = -1;
        fab__sink(f, in);
        fab_release(f, c, t_ps);
    }
}

/* The packet held by the sender of c has been blocked by STOP for the whole
 * long period: it is dropped, the rest of it is discarded where it comes
 * from, and the output is free again (seed 002).  FRES goes forward only if
 * the packet had begun on c: the receiver has seen nothing of a packet
 * granted but not begun (and holds no reference to it). */
static void fab__timeout(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = c->cur;
    uint64_t now = fab_now(f);
    bool begun = c->in_progress;
#ifdef FAB_DEBUG
    fprintf(stderr, "%c %llu timeout ch %u pkt %llu begun %d\n", f->fast ? 'F' : 'R', (unsigned long long)now, c->id, (unsigned long long)pkt->id, (int)begun);
#endif
    fab_drop(f, pkt, MYRI_FABRIC_DROP_TIMEOUT);
    if (begun) {
        c->st.truncated++;
        fab_tap_done(f, c, c->cur_next, true);
    }
    c->tap_on = false; /* (the fast model copies a tapped packet's bytes at the grant) */
    if (f->fast) fab_fast_timeout(f, c);
    else fab_ref_timeout(f, c);
    uint64_t t = c->free_at > now ? c->free_at : now;
    if (begun) { /* FRES is a character: it takes the next slot (STOP does not hold it back) */
        fab_push(f, t + c->d_ps, PH_ARRIVE, EV_FRES, c->id, c->epoch << 1, pkt);
        c->free_at = t + f->T;
        t = c->free_at;
    }
    c->in_progress = false;
    c->cur = NULL;
    fab__free_path(f, c, t);
}

/* FRES reaches the receiver of c: the packet it terminates has no more
 * characters coming on this channel. */
static void fab__fres(myri_fabric *f, fab_chan *c, fab_pkt *pkt)
{
    if (c->dst_host) {
        if (c->hpkt == pkt) c->hpkt = NULL;
        for (int i = 0; i < 2; i++)
            if (c->hh[i].pkt == pkt) c->hh[i].term = true;
        fab_pkt_unref(f, pkt); /* the channel's reference */
        return;
    }
    /* At a switch input the channel's reference is the packet's presence
     * there, released when it leaves the front. */
    fab_rxent *e = fab_rx_find(c, pkt);
    if (!e) return;
    if (f->fast) e->got = fab_fast_got(f, c, e);
    e->fres = true;
    if (e != fab_rx_front(c)) return; /* handled when it reaches the front */
    switch (c->front) {
    case FR_DECODE:
        c->dec_gen++;
        fab__sink(f, c);
        break;
    case FR_WAIT:
        f->ch[c->want_out].nreq--;
        f->ch[c->want_out].req_ports &= ~(1u << c->dst_port);
        fab__sink(f, c);
        break;
    case FR_GRANT:
    case FR_SINK:
        if (f->fast) fab_fast_fres(f, c, pkt);
        else fab_ref_fres(f, c, pkt);
        break;
    default:
        break;
    }
}

/* The sender of c gives up its packet (cut cable): dropped "link_down", the
 * rest discarded where it comes from, the output free again. */
static void fab__abandon(myri_fabric *f, fab_chan *c)
{
    fab_pkt *pkt = c->cur;
    uint64_t now = fab_now(f);
    fab_drop(f, pkt, MYRI_FABRIC_DROP_LINK_DOWN);
    if (c->in_progress) {
        c->st.truncated++;
        fab_tap_done(f, c, c->cur_next, true);
    }
    c->in_progress = false;
    c->cur = NULL;
    c->tap_on = false;
    fab__free_path(f, c, c->free_at > now ? c->free_at : now);
}

static void fab__cut(myri_fabric *f, size_t link)
{
    uint64_t now = fab_now(f);
    for (size_t d = 0; d < 2; d++) {
        fab_chan *c = &f->ch[2 * link + d];
        if (c->down) continue;
        c->down = true;
        c->epoch++;
        if (c->stopped) { /* no STOP/GO will come from a dead receiver */
            uint64_t from = c->stopped_since > c->win_start ? c->stopped_since : c->win_start;
            if (now > from) c->st.stopped_ps += now - from;
            c->stopped = false;
        }
        if (f->fast) fab_fast_cut_sender(f, c);
        if (c->cur) fab__abandon(f, c);
        else if (f->fast) fab_fast_wake(f, c); /* queued packets go into the dead cable */
        else fab_ref_wake(f, c);
        fab_pkt *partial = f->fast ? fab_fast_cut_wire(f, c) : fab_ref_cut_wire(f, c);
        if (partial) {
            /* The receiver notices the dead cable after the non-idle period and
             * terminates the packet as a FRES would. */
            fab_drop(f, partial, MYRI_FABRIC_DROP_LINK_DOWN);
            fab_push(f, now + f->p.nonidle_period_ps, PH_ARRIVE, EV_FRES, c->id, 1, partial);
        }
    }
}

static void fab__restore(myri_fabric *f, size_t link)
{
    for (size_t d = 0; d < 2; d++) {
        fab_chan *c = &f->ch[2 * link + d];
        if (!c->down) continue;
        c->down = false;
        c->epoch++;
        c->stop_sent = false; /* flow control restarts from GO */
        fab_rx_recheck(f, c);
        if (f->fast) fab_fast_wake(f, c);
        else fab_ref_wake(f, c);
    }
}

static void fab__dispatch(myri_fabric *f, const fab_ev *ev)
{
    fab_chan *c = &f->ch[ev->a];
    switch (ev->kind) {
    case EV_CTRL: /* lost if the cable was cut (or restored) since it was sent */
        if (!c->down && (ev->b >> 1) == c->epoch) fab__ctrl(f, c, (ev->b & 1) != 0);
        break;
    case EV_TIMEOUT:
        c->timer_at = 0;
        if (!c->stopped || !fab__holds(c)) break;
        if (fab_now(f) - fab__blocked_since(c) >= f->p.timeout_ps) fab__timeout(f, c);
        else fab__arm_timer(f, c, fab__blocked_since(c));
        break;
    case EV_DECODE:
        if (ev->b == c->dec_gen && c->front == FR_DECODE) fab__decode(f, c);
        break;
    case EV_ARB: fab__arbitrate(f, c); break;
    case EV_FRES:
        if ((ev->b & 1) || (!c->down && (ev->b >> 1) == c->epoch)) fab__fres(f, c, ev->p);
        break;
    case EV_CUT: fab__cut(f, (size_t)ev->a); break;
    case EV_RESTORE: fab__restore(f, (size_t)ev->a); break;
    default:
        if (f->fast) fab_fast_handle(f, ev);
        else fab_ref_handle(f, ev);
    }
}

/* ---- construction ------------------------------------------------------------------ */

static void fab__destroy(myri_component *self)
{
    myri_fabric *f = self->state;
    if (!f) return;
    if (f->fast) fab_fast_free(f);
    for (size_t i = 0; i < f->nchan; i++) {
        fab_chan *c = &f->ch[i];
        free(c->rxq);
        free(c->buf);
        free(c->wire);
        free(c->runs);
        free(c->tap_buf);
    }
    for (size_t b = 0; b < f->nblocks; b++) {
        for (size_t i = 0; i < 1024; i++) {
            free(f->blocks[b][i].bytes);
            free(f->blocks[b][i].payload_copy);
        }
        free(f->blocks[b]);
    }
    for (size_t i = 0; i < f->nnodes; i++) {
        free(f->node[i].in_ch);
        free(f->node[i].out_ch);
        free(f->node_name[i]);
    }
    free(f->node_name);
    free(f->blocks);
    free(f->node);
    free(f->ch);
    free(f->host_node);
    free(f->heap);
    free(f->far);
    free(f->cal_head);
    free(f->cq);
    free(f->cq_pos);
    free(f->pool);
    free(f->pfree);
    for (int q = 0; q < 8; q++) free(f->fifo[q].slot);
    free(f->dirty);
    for (size_t i = 0; i < f->ncb_all; i++) free(f->cb_all[i]);
    free(f->cb_all);
    free(f->scripts);
    free(f->taps);
    free(f);
    self->state = NULL;
}

static myri_status fab__create_cb(myri_component *self, const void *config)
{
    self->state = (void *)config;
    ((myri_fabric *)config)->comp = self;
    return MYRI_OK;
}

static void fab__report_cb(myri_component *self, myri_json *out) { myri_fabric_report(self->state, out); }

const myri_component_ops myri_fabric_ops = {
    .type = "fabric",
    .help = "Myrinet links, switches and packets (seed 002)",
    .create = fab__create_cb,
    .handle = fab__handle,
    .report = fab__report_cb,
    .destroy = fab__destroy,
};

static myri_status fab__topo_err(myri_error *err, const char *fmt, const char *name)
{
    if (err) snprintf(err->msg, sizeof err->msg, fmt, name);
    return MYRI_EINPUT;
}

/* Seed 002: the part of the slack buffer above the STOP line prevents
 * overrun.  After the buffer reaches STOP, the sender goes on until STOP
 * reaches it: the receiver's control delay plus the propagation back, while
 * the characters already on the cable (one propagation delay) keep arriving,
 * plus the character in progress and one being decoded.  A configuration
 * whose headroom is smaller than that for some cable would overflow, which
 * is an input error here rather than a broken invariant during the run. */
static myri_status fab__check_headroom(const myri_fabric *f, uint64_t prop_ps, double len_m, myri_error *err)
{
    uint64_t in_flight_ps = f->p.ctrl_delay_ps + 2 * prop_ps;
    uint64_t need = (in_flight_ps + f->T - 1) / f->T + 2;
    uint64_t have = f->p.slack_size_bytes - f->p.slack_stop_bytes;
    if (have >= need) return MYRI_OK;
    if (err)
        snprintf(err->msg, sizeof err->msg,
                 "link.slack.stop: %llu characters above the STOP line cannot absorb the %llu that arrive "
                 "after STOP on a %.3g m cable; expected link.slack.size - link.slack.stop >= %llu",
                 (unsigned long long)have, (unsigned long long)need, len_m, (unsigned long long)need);
    return MYRI_EINPUT;
}

static myri_status fab__build(myri_fabric *f, const myri_topo *t, myri_error *err)
{
    f->nnodes = t->nnodes;
    f->nchan = 2 * t->nlinks;
    f->nhosts = t->nhosts;
    f->node = calloc(t->nnodes ? t->nnodes : 1, sizeof *f->node);
    f->node_name = calloc(t->nnodes ? t->nnodes : 1, sizeof *f->node_name);
    f->ch = calloc(f->nchan ? f->nchan : 1, sizeof *f->ch);
    f->host_node = calloc(t->nhosts ? t->nhosts : 1, sizeof *f->host_node);
    f->taps = calloc(f->nchan ? f->nchan : 1, sizeof *f->taps);
    if (!f->node || !f->ch || !f->host_node || !f->taps || !f->node_name) return MYRI_ENOMEM;
    for (size_t i = 0; i < t->nnodes; i++) {
        const myri_topo_node *tn = &t->node[i];
        fab_node *n = &f->node[i];
        n->host = tn->kind == MYRI_TOPO_HOST;
        n->nports = tn->nports;
        n->host_index = tn->host_index;
        f->node_name[i] = strdup(tn->name ? tn->name : "?");
        if (!f->node_name[i]) return MYRI_ENOMEM;
        if (n->host ? tn->nports != 1
                    : (tn->nports != 4 && tn->nports != 8 && tn->nports != 16 && tn->nports != 32))
            return fab__topo_err(err, "node '%s': hosts have 1 port, switches 4, 8, 16 or 32",
                                 f->node_name[i]);
        n->in_ch = malloc(tn->nports * sizeof *n->in_ch);
        n->out_ch = malloc(tn->nports * sizeof *n->out_ch);
        if (!n->in_ch || !n->out_ch) return MYRI_ENOMEM;
        for (uint32_t p = 0; p < tn->nports; p++) n->in_ch[p] = n->out_ch[p] = -1;
    }
    for (size_t h = 0; h < t->nhosts; h++) f->host_node[h] = t->host_node[h];
    for (size_t l = 0; l < t->nlinks; l++) {
        const myri_topo_link *lk = &t->link[l];
        if (lk->a_node >= t->nnodes || lk->b_node >= t->nnodes ||
            lk->a_port >= f->node[lk->a_node].nports || lk->b_port >= f->node[lk->b_node].nports)
            return fab__topo_err(err, "link %s: end point out of range", "?");
        double len = lk->length_m > 0 ? lk->length_m : f->p.length_m;
        /* Propagation: length / (prop_speed * c), c = 299 792 458 m/s. */
        uint64_t prop = (uint64_t)floor(len / (f->p.prop_speed_c * 299792458.0) * 1e12 + 0.5);
        for (int dir = 0; dir < 2; dir++) {
            fab_chan *c = &f->ch[2 * l + (size_t)dir];
            c->id = (uint32_t)(2 * l + (size_t)dir);
            c->src_node = dir ? lk->b_node : lk->a_node;
            c->src_port = dir ? lk->b_port : lk->a_port;
            c->dst_node = dir ? lk->a_node : lk->b_node;
            c->dst_port = dir ? lk->a_port : lk->b_port;
            c->src_host = f->node[c->src_node].host;
            c->dst_host = f->node[c->dst_node].host;
            c->prop_ps = prop;
            c->d_ps = f->T + prop;
            c->q_ps = f->p.ctrl_delay_ps + prop;
            c->src_in = -1;
            c->want_out = -1;
            f->node[c->src_node].out_ch[c->src_port] = (int32_t)c->id;
            f->node[c->dst_node].in_ch[c->dst_port] = (int32_t)c->id;
        }
        myri_status st = fab__check_headroom(f, prop, len, err);
        if (st) return st;
    }
    return MYRI_OK;
}

myri_status myri_fabric_create(myri_sim *sim, const myri_topo *topo, const myri_fabric_params *p,
                               const myri_fabric_callbacks *cb, myri_fabric **out, myri_error *err)
{
    if (!sim || !topo || !p || !out) return MYRI_EINVAL;
    *out = NULL;
    myri_fabric *f = calloc(1, sizeof *f);
    if (!f) return MYRI_ENOMEM;
    f->p = *p;
    myri_status st = myri_fabric_params_check(&f->p, err);
    if (st) {
        free(f);
        return st;
    }
    f->sim = sim;
    if (cb) f->cb = *cb;
    myri_crc8_init(&f->crc, (uint8_t)f->p.crc_poly);
    f->T = myri_fabric_char_ps(&f->p);
    f->T_inv = UINT64_MAX / f->T;
    /* Calendar buckets of about half a character time (< T). */
    while ((2ull << f->cal_shift) <= f->T && f->cal_shift < 40) f->cal_shift++;
    if (f->cal_shift) f->cal_shift--;
    f->L = f->p.switch_latency_ps;
    f->type_bytes = (uint32_t)f->p.type_bytes;
    f->fast = f->p.model == MYRI_FABRIC_FAST;
    if (f->fast && !fab_fast_available()) {
        free(f);
        return fab__perr(err, "model: the fast model is not built yet; use model: reference");
    }
    f->tick_at = MYRI_TIME_NEVER;
    uint64_t s = myri_sim_seed(sim) ^ 0xfab1c5eedull;
    f->ber_seed = myri_splitmix64(&s);
    /* Register first so that the component owns f (freed by myri_sim_destroy). */
    st = myri_sim_add(sim, &myri_fabric_ops, "fabric", f, NULL);
    if (st) {
        free(f);
        return st;
    }
    st = fab__build(f, topo, err);
    if (st) return st; /* f is freed with the simulation */
    f->cal_head = malloc(FAB_CAL_N * sizeof *f->cal_head);
    if (!f->cal_head) return MYRI_ENOMEM;
    memset(f->cal_head, 0xff, FAB_CAL_N * sizeof *f->cal_head);
    f->dirty = calloc(f->nchan ? f->nchan : 1, sizeof *f->dirty);
    f->cq = calloc(f->nchan ? f->nchan : 1, sizeof *f->cq);
    f->cq_pos = malloc((f->nchan ? f->nchan : 1) * sizeof *f->cq_pos);
    f->cq_top_at = UINT64_MAX;
    if (!f->dirty || !f->cq || !f->cq_pos) return MYRI_ENOMEM;
    for (size_t i = 0; i < f->nchan; i++) {
        f->ch[i].pred_at = MYRI_TIME_NEVER;
        f->cq_pos[i] = -1;
    }
    *out = f;
    return MYRI_OK;
}

/* ---- API ------------------------------------------------------------------------------ */

myri_status myri_fabric_send(myri_fabric *f, const myri_fabric_packet *pk)
{
    if (!f || !pk || pk->src_host >= f->nhosts || pk->route_len > 32 || (pk->route_len && !pk->route))
        return MYRI_EINVAL;
    uint32_t hn = f->host_node[pk->src_host];
    if (f->node[hn].out_ch[0] < 0) return MYRI_EINVAL;
    fab_pkt *pkt = fab_pkt_alloc(f);
    if (!pkt) return MYRI_ENOMEM;
    pkt->id = pk->id;
    pkt->src_host = pk->src_host;
    pkt->type = pk->type;
    pkt->payload_bytes = pk->payload_bytes;
    pkt->route_len = pk->route_len;
    {
        size_t n = 0;
        for (; n < pk->route_len && n < FAB_HDR; n++) pkt->hdr[n] = pk->route[n];
        for (uint32_t k = 0; k < f->type_bytes && n < FAB_HDR; k++)
            pkt->hdr[n++] = (uint8_t)(pk->type >> (8 * (f->type_bytes - 1 - k)));
        if (pk->payload)
            for (uint32_t i = 0; i < pk->payload_bytes && n < FAB_HDR; i++) pkt->hdr[n++] = pk->payload[i];
        else if (pk->payload_bytes && n < FAB_HDR)
            pkt->hdr_lazy = (uint8_t)n; /* > 0: type_bytes >= 2 */
    }
    pkt->nbytes0 = pk->route_len + f->type_bytes + pk->payload_bytes + 1;
    pkt->queued_ps = fab_now(f);
    pkt->refs = 1; /* the host channel's reference, until GAP or FRES reaches its receiver */
    if (!f->fast || f->any_tap) {
        pkt->bytes = malloc(pkt->nbytes0);
        if (!pkt->bytes) return MYRI_ENOMEM;
        myri_packet_build(&f->crc, pk->id, pk->route, pk->route_len, pk->type, f->type_bytes,
                          pk->payload, pk->payload_bytes, pkt->bytes);
    }
    fab_chan *c = &f->ch[f->node[hn].out_ch[0]];
    if (c->hq_tail) c->hq_tail->next = pkt;
    else c->hq_head = pkt;
    c->hq_tail = pkt;
    f->ctr.injected++;
    if (c->cur) return MYRI_OK; /* taken after the packet being sent */
    if (f->fast) fab_fast_wake(f, c);
    else fab_ref_wake(f, c);
    return MYRI_OK;
}

myri_status myri_fabric_cut_link(myri_fabric *f, size_t link, myri_time_ps at_ps)
{
    if (!f || 2 * link >= f->nchan || at_ps < fab_now(f) || at_ps == MYRI_TIME_NEVER) return MYRI_EINVAL;
    fab_push(f, at_ps, PH_LINK, EV_CUT, (uint32_t)link, 0, NULL);
    return MYRI_OK;
}

myri_status myri_fabric_restore_link(myri_fabric *f, size_t link, myri_time_ps at_ps)
{
    if (!f || 2 * link >= f->nchan || at_ps < fab_now(f) || at_ps == MYRI_TIME_NEVER) return MYRI_EINVAL;
    fab_push(f, at_ps, PH_LINK, EV_RESTORE, (uint32_t)link, 0, NULL);
    return MYRI_OK;
}

myri_status myri_fabric_corrupt(myri_fabric *f, uint64_t id, size_t channel, uint32_t index,
                                uint8_t mask)
{
    if (!f || channel >= f->nchan || mask == 0) return MYRI_EINVAL;
    if (f->nscripts == f->capscripts) {
        size_t nc = f->capscripts ? 2 * f->capscripts : 8;
        fab_script *ns = realloc(f->scripts, nc * sizeof *ns);
        if (!ns) return MYRI_ENOMEM;
        f->scripts = ns;
        f->capscripts = nc;
    }
    f->scripts[f->nscripts++] = (fab_script){id, (uint32_t)channel, index, mask};
    return MYRI_OK;
}

myri_status myri_fabric_set_tap(myri_fabric *f, size_t channel, myri_fabric_tap_fn fn, void *ctx)
{
    if (!f || channel >= f->nchan) return MYRI_EINVAL;
    f->taps[channel] = (fab_tap){fn, ctx};
    if (fn) f->any_tap = true;
    return MYRI_OK;
}

bool fab_tap_reserve(fab_chan *c, size_t n)
{
    if (n <= c->tap_cap) return true;
    size_t nc = c->tap_cap ? c->tap_cap : 256;
    while (nc < n) nc *= 2;
    uint8_t *nb = realloc(c->tap_buf, nc);
    if (!nb) return false;
    c->tap_buf = nb;
    c->tap_cap = nc;
    return true;
}

void fab_tap_done(myri_fabric *f, fab_chan *c, size_t nbytes, bool truncated)
{
    fab_tap *t = &f->taps[c->id];
    if (c->tap_on && t->fn) t->fn(t->ctx, c->id, c->tap_first, c->tap_buf, nbytes, truncated);
    c->tap_on = false;
}

void myri_fabric_get_counters(const myri_fabric *f, myri_fabric_counters *out)
{
    if (!f || !out) return;
    *out = f->ctr;
    out->in_flight = f->ctr.injected - f->ctr.delivered - f->ctr.dropped_total;
}

size_t myri_fabric_channel_count(const myri_fabric *f) { return f ? f->nchan : 0; }

myri_status myri_fabric_get_channel_stats(const myri_fabric *f, size_t channel,
                                          myri_fabric_channel_stats *out)
{
    if (!f || !out || channel >= f->nchan) return MYRI_EINVAL;
    if (f->fast) fab_fast_finish_stats((myri_fabric *)f);
    const fab_chan *c = &f->ch[channel];
    *out = c->st;
    if (f->fast) out->chars += fab_fast_extra_chars(f, c);
    out->busy_ps = out->chars * f->T;
    if (c->stopped) {
        uint64_t now = fab_now(f);
        uint64_t from = c->stopped_since > c->win_start ? c->stopped_since : c->win_start;
        if (now > from) out->stopped_ps += now - from;
    }
    return MYRI_OK;
}

void myri_fabric_reset_stats(myri_fabric *f)
{
    if (!f) return;
    if (f->fast) fab_fast_finish_stats(f);
    uint64_t now = fab_now(f);
    for (size_t i = 0; i < f->nchan; i++) {
        memset(&f->ch[i].st, 0, sizeof f->ch[i].st);
        f->ch[i].win_start = now;
        if (!f->fast) f->ch[i].st.max_slack_bytes = f->ch[i].occ;
    }
    if (f->fast) fab_fast_reset_window(f);
}

uint64_t myri_fabric_char_time_ps(const myri_fabric *f) { return f ? f->T : 0; }

void myri_fabric__test_skew(myri_fabric *f, myri_time_ps extra_ps)
{
    if (f) f->skew_ps = extra_ps;
}

static void fab__report_dir(myri_fabric *f, myri_json *j, const char *key, size_t ch, uint64_t win)
{
    myri_fabric_channel_stats s;
    myri_fabric_get_channel_stats(f, ch, &s);
    myri_json_key(j, key);
    myri_json_obj_begin(j);
    myri_json_knum(j, "utilisation", win ? (double)s.busy_ps / (double)win : 0.0);
    myri_json_knum(j, "stopped_fraction", win ? (double)s.stopped_ps / (double)win : 0.0);
    myri_json_kuint(j, "chars", s.chars);
    myri_json_kuint(j, "stops", s.stops);
    myri_json_kuint(j, "gos", s.gos);
    myri_json_kuint(j, "max_slack_bytes", s.max_slack_bytes);
    myri_json_kuint(j, "truncated", s.truncated);
    myri_json_obj_end(j);
}

void myri_fabric_report(myri_fabric *f, myri_json *j)
{
    if (!f || !j) return;
    uint64_t now = fab_now(f);
    myri_json_key(j, "links");
    myri_json_arr_begin(j);
    for (size_t l = 0; 2 * l < f->nchan; l++) {
        fab_chan *ab = &f->ch[2 * l];
        uint64_t win = now > ab->win_start ? now - ab->win_start : 0;
        myri_json_obj_begin(j);
        myri_json_kuint(j, "link", l);
        myri_json_kstr(j, "a", f->node_name[ab->src_node]);
        myri_json_kstr(j, "b", f->node_name[ab->dst_node]);
        fab__report_dir(f, j, "ab", 2 * l, win);
        fab__report_dir(f, j, "ba", 2 * l + 1, win);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "dropped");
    myri_json_obj_begin(j);
    for (int r = 0; r < MYRI_FABRIC_DROP_NREASONS; r++)
        myri_json_kuint(j, myri_fabric_drop_name((myri_fabric_drop_reason)r), f->ctr.dropped[r]);
    myri_json_obj_end(j);
}
