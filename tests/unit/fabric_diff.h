/* fabric_diff.h -- randomised differential cases for the two fabric models
 * (used by tests/unit/test_fabric_diff.c and bench/bench_fabric_diff.c). */
#ifndef MYRI_FABRIC_DIFF_H
#define MYRI_FABRIC_DIFF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric.h"
#include "fabric/port.h"
#include "topo/topo.h"
#include "myri/rng.h"
#include "myri/sim.h"

typedef struct fd_rec {
    uint64_t id, t;
    int reason; /* -1 delivered */
    uint32_t dst;
} fd_rec;

typedef struct fd_out {
    size_t n, cap;
    fd_rec *rec;
    size_t nch;
    myri_fabric_channel_stats ch[128];
    myri_fabric_counters ctr;
    uint64_t tap_hash;   /* sum over tapped packets of a hash of what the tap saw */
    uint64_t taps;
    uint64_t dev_hash;   /* what the devices saw, in order (fabric_diff_dev.h) */
    uint64_t dev_notices;
    myri_port_stats dev;  /* the ports' counters, summed */
} fd_out;

static inline void fd_tap(void *ctx, size_t channel, myri_time_ps first, const uint8_t *bytes,
                          size_t len, bool truncated)
{
    fd_out *o = ctx;
    uint64_t h = 1469598103934665603ull ^ channel ^ (first << 8) ^ ((uint64_t)truncated << 63);
    for (size_t i = 0; i < len; i++) h = (h ^ bytes[i]) * 1099511628211ull;
    o->tap_hash += h ^ len;
    o->taps++;
}

static inline void fd_deliv(void *ctx, const myri_fabric_delivery *d)
{
    fd_out *o = ctx;
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 256;
        o->rec = realloc(o->rec, o->cap * sizeof *o->rec);
    }
    o->rec[o->n++] = (fd_rec){d->id, d->tail_ps, -1, d->dst_host};
}

static inline void fd_drop(void *ctx, uint64_t id, myri_fabric_drop_reason r, myri_time_ps t)
{
    fd_out *o = ctx;
    (void)t;
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 256;
        o->rec = realloc(o->rec, o->cap * sizeof *o->rec);
    }
    o->rec[o->n++] = (fd_rec){id, 0, (int)r, 0};
}

static inline int fd_cmp(const void *a, const void *b)
{
    const fd_rec *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->reason - y->reason;
}

/* One random case: topology, parameters and traffic from `seed`. */
typedef struct fd_case {
    myri_topo *topo;
    myri_fabric_params p;
    size_t npk;
    struct { uint64_t at; myri_fabric_packet pk; uint8_t route[32]; } *pk;
    size_t ncorr;
    struct { uint64_t id; uint32_t ch, idx; uint8_t mask; } corr[4];
    size_t ncut;
    struct { uint32_t link; uint64_t at, until; } cut[2];
    bool small;   /* a ring with small packets in bursts */
    uint32_t devmask;   /* hosts with a device on their port (fabric_diff_dev.h) */
    uint64_t devseed;
    uint64_t window_at; /* a statistics window begins then (myri_fabric_reset_stats), 0: none */
} fd_case;

#include "fabric_diff_dev.h" /* (uses fd_case) */

/* The device's next packet: sent when it is due and the previous one is over. */
static void fd_dev_send_next(fd_dev *d)
{
    const fd_case *c = d->c;
    uint64_t now = myri_sim_now(d->comp->sim);
    if (d->data || d->qhead >= d->nq) return;
    size_t k = d->queue[d->qhead];
    if (c->pk[k].at > now) {
        myri_event e = {.target = d->comp, .kind = 0};
        myri_sim_schedule(d->comp->sim, c->pk[k].at, &e);
        return;
    }
    d->qhead++;
    myri_fabric_packet pk = c->pk[k].pk;
    pk.route = c->pk[k].route;
    for (uint32_t i = 0; i < pk.payload_bytes; i++) d->payload[i] = (uint8_t)(pk.id * 31 + i * 7);
    pk.payload = d->payload;
    d->data = pk.route_len + (uint32_t)c->p.type_bytes + pk.payload_bytes;
    pk.payload_bytes = sizeof d->payload; /* the room: the port learns the length at the tail only */
    d->ready = myri_rng_below(&d->rng, 2) ? d->data : (uint32_t)myri_rng_below(&d->rng, d->data + 1);
    d->late = (pk.id & 3) == 0; /* one packet in four: the tail after the last byte, in a later step */
    d->tailed = d->ready == d->data && !d->late;
    if (myri_port_send(d->port, &pk, d->ready, d->tailed) != MYRI_OK) abort();
    if (!d->tailed) fd_dev_later(d, FD_EV_MORE, myri_rng_below(&d->rng, 2000000));
}

static inline uint64_t fd_below(myri_rng *r, uint64_t n) { return myri_rng_below(r, n); }

/* Shortest path (BFS, random tie order) from host src to host dst: route bytes. */
static inline int fd_route(const myri_topo *t, myri_rng *r, uint32_t src, uint32_t dst, uint8_t *out)
{
    size_t n = t->nnodes;
    int32_t *prev = malloc(n * sizeof *prev), *prevport = malloc(n * sizeof *prevport);
    uint32_t *q = malloc(n * sizeof *q);
    for (size_t i = 0; i < n; i++) prev[i] = -2;
    size_t qh = 0, qt = 0;
    q[qt++] = src;
    prev[src] = -1;
    uint32_t off = (uint32_t)fd_below(r, 32);
    while (qh < qt) {
        uint32_t u = q[qh++];
        if (u == dst) break;
        if (t->node[u].kind == MYRI_TOPO_HOST && u != src) continue;
        for (uint32_t k = 0; k < t->node[u].nports; k++) {
            uint32_t p = (k + off) % t->node[u].nports;
            int32_t v = t->node[u].port[p].peer_node;
            if (v < 0 || prev[v] != -2) continue;
            prev[v] = (int32_t)u;
            prevport[v] = (int32_t)p;
            q[qt++] = (uint32_t)v;
        }
    }
    int len = -1;
    if (prev[dst] != -2) {
        uint32_t path[64];
        int np = 0;
        for (int32_t v = (int32_t)dst; prev[v] >= 0; v = prev[v]) path[np++] = (uint32_t)v;
        len = 0;
        for (int i = np - 1; i >= 1; i--) { /* nodes from first switch to dst */
            uint32_t sw = path[i];
            out[len++] = (uint8_t)(0x80u | (uint32_t)prevport[path[i - 1]]);
            (void)sw;
        }
    }
    free(prev);
    free(prevport);
    free(q);
    return len;
}

static inline void fd_case_make(fd_case *c, uint64_t seed)
{
    myri_rng r;
    myri_rng_seed(&r, seed);
    memset(c, 0, sizeof *c);
    myri_topo *t = myri_topo_create();
    bool ring = fd_below(&r, 3) == 0;
    uint32_t nsw = ring ? 3 + (uint32_t)fd_below(&r, 2) : 1 + (uint32_t)fd_below(&r, 4);
    static const uint32_t ports[] = {4, 8};
    uint32_t sw[8];
    char name[16];
    for (uint32_t i = 0; i < nsw; i++) {
        snprintf(name, sizeof name, "s%u", i);
        myri_topo_add_switch(t, name, ports[fd_below(&r, 2)], &sw[i]);
    }
    uint32_t used[8] = {0};
    if (ring) {
        /* ring: port 0 -> next switch, port 1 <- previous, host on port 2 */
        for (uint32_t i = 0; i < nsw; i++)
            myri_topo_connect(t, sw[i], 0, sw[(i + 1) % nsw], 1, 0.5 + (double)fd_below(&r, 30), NULL);
        for (uint32_t i = 0; i < nsw; i++) used[i] = 2;
    }
    /* a spanning tree plus random extra links (cycles allowed) */
    for (uint32_t i = 1; i < nsw && !ring; i++) {
        uint32_t j = (uint32_t)fd_below(&r, i);
        if (used[i] < t->node[sw[i]].nports && used[j] < t->node[sw[j]].nports)
            myri_topo_connect(t, sw[j], used[j]++, sw[i], used[i]++, 0.5 + (double)fd_below(&r, 30), NULL);
    }
    uint32_t extra = ring ? 0 : (uint32_t)fd_below(&r, 3);
    for (uint32_t e = 0; e < extra && nsw > 1; e++) {
        uint32_t a = (uint32_t)fd_below(&r, nsw), b = (uint32_t)fd_below(&r, nsw);
        if (a == b || used[a] >= t->node[sw[a]].nports || used[b] >= t->node[sw[b]].nports) continue;
        myri_topo_connect(t, sw[a], used[a]++, sw[b], used[b]++, 0.5 + (double)fd_below(&r, 30), NULL);
    }
    uint32_t nh = 0;
    for (uint32_t i = 0; i < nsw; i++) {
        uint32_t want = ring ? 1 : 1 + (uint32_t)fd_below(&r, 3);
        for (uint32_t k = 0; k < want && used[i] < t->node[sw[i]].nports; k++) {
            uint32_t h;
            snprintf(name, sizeof name, "h%u", nh++);
            myri_topo_add_host(t, name, &h);
            myri_topo_connect(t, h, 0, sw[i], used[i]++, 0.5 + (double)fd_below(&r, 30), NULL);
        }
    }
    c->topo = t;
    myri_fabric_params_default(&c->p);
    c->p.slack_size_bytes = 8 + fd_below(&r, 80);
    c->p.slack_stop_bytes = 2 + fd_below(&r, c->p.slack_size_bytes - 1);
    if (c->p.slack_stop_bytes > c->p.slack_size_bytes) c->p.slack_stop_bytes = c->p.slack_size_bytes;
    c->p.slack_go_bytes = fd_below(&r, c->p.slack_stop_bytes);
    /* enough room above STOP for the round trip of the longest cable */
    uint64_t room = 2 * (25000 + 160000) / 12500 + 6;
    if (c->p.slack_size_bytes < c->p.slack_stop_bytes + room) c->p.slack_size_bytes = c->p.slack_stop_bytes + room;
    c->p.switch_latency_ps = 1 + fd_below(&r, 600000);
    /* the route time (input occupancy) anywhere from 1 ps to the whole latency */
    c->p.switch_route_ps = fd_below(&r, 2) ? fd_below(&r, c->p.switch_latency_ps + 1)
                                           : (c->p.switch_latency_ps < 12500 ? c->p.switch_latency_ps : 12500);
    if (c->p.switch_route_ps == 0) c->p.switch_route_ps = 1; /* at least 1 ps (switch.route_time) */
    c->p.ctrl_delay_ps = 1 + fd_below(&r, 25000);
    c->p.timeout_ps = 20000000 + fd_below(&r, 20000000); /* 20-40 us: deadlocks break quickly */
    c->p.type_bytes = fd_below(&r, 2) ? 2 : 4;
    if (fd_below(&r, 4) == 0) c->p.ber = 1e-5;
    c->npk = 5 + fd_below(&r, 60);
    c->pk = calloc(c->npk, sizeof *c->pk);
    /* Half the rings carry small packets in bursts: worms that fit in a slack
     * buffer deadlock with no sender stopped mid-packet, and the timeout drops
     * packets granted at stopped switch outputs before their first character. */
    bool small = c->small = ring && fd_below(&r, 2) == 0;
    uint64_t t0 = 0;
    for (size_t i = 0; i < c->npk; i++) {
        uint32_t src = (uint32_t)fd_below(&r, t->nhosts), dst = (uint32_t)fd_below(&r, t->nhosts);
        if (dst == src && t->nhosts > 1) dst = (src + 1 + (uint32_t)fd_below(&r, t->nhosts - 1)) % (uint32_t)t->nhosts;
        if (fd_below(&r, 3)) t0 += fd_below(&r, small ? 100000 : 2000000);
        c->pk[i].at = t0;
        int len;
        if (ring) { /* always clockwise, two switches ahead: a cyclic route set */
            uint32_t hops = 1 + (uint32_t)fd_below(&r, nsw);
            for (uint32_t k = 0; k + 1 < hops; k++) c->pk[i].route[k] = 0x80;
            c->pk[i].route[hops - 1] = 0x82;
            len = (int)hops;
        } else {
            len = fd_route(t, &r, t->host_node[src], t->host_node[dst], c->pk[i].route);
        }
        if (len < 0) len = 0;
        uint32_t kind = (uint32_t)fd_below(&r, 40);
        if (kind == 0 && len > 0) c->pk[i].route[fd_below(&r, (uint64_t)len)] &= 0x7f; /* to-host byte */
        if (kind == 1 && len > 0) c->pk[i].route[fd_below(&r, (uint64_t)len)] = 0x80 | 31; /* bad port */
        if (kind == 2 && len > 0) len--; /* too short */
        c->pk[i].pk = (myri_fabric_packet){.id = i + 1, .src_host = src, .route_len = (uint8_t)len,
                                           .type = 0x0005, .payload_bytes = (uint32_t)fd_below(&r, small ? 40 : (fd_below(&r, 4) && !ring) ? 64 : 600)};
    }
    c->ncorr = fd_below(&r, 3);
    for (size_t k = 0; k < c->ncorr; k++) {
        c->corr[k].id = 1 + fd_below(&r, c->npk);
        c->corr[k].ch = (uint32_t)fd_below(&r, 2 * t->nlinks);
        c->corr[k].idx = (uint32_t)fd_below(&r, 12);
        c->corr[k].mask = (uint8_t)(1u << fd_below(&r, 8));
    }
    c->ncut = fd_below(&r, 4) == 0 ? 1 + fd_below(&r, 2) : 0;
    for (size_t k = 0; k < c->ncut; k++) {
        c->cut[k].link = (uint32_t)fd_below(&r, t->nlinks);
        c->cut[k].at = fd_below(&r, t0 + 2000000);
        c->cut[k].until = fd_below(&r, 2) ? c->cut[k].at + fd_below(&r, 3000000) : 0;
    }
    /* Devices on half the cases' ports (a stream of their own, so that the
     * rest of the case is what it was without them). */
    myri_rng dr;
    myri_rng_seed(&dr, seed ^ 0xde71cedull);
    if (fd_below(&dr, 2)) {
        for (uint32_t h = 0; h < t->nhosts && h < 32; h++)
            if (fd_below(&dr, 3)) c->devmask |= 1u << h;
        c->devseed = myri_rng_next(&dr);
    }
    /* A statistics window that begins mid-run in half the cases (a stream of
     * its own too): the window's counters are computed differently by the
     * two models (the fast one from its runs). */
    myri_rng wr;
    myri_rng_seed(&wr, seed ^ 0x3a11d0ull);
    if (fd_below(&wr, 2)) c->window_at = 1 + fd_below(&wr, c->pk[c->npk - 1].at + 1000000);
}

static inline void fd_case_free(fd_case *c)
{
    myri_topo_destroy(c->topo);
    free(c->pk);
}

typedef struct fd_inject {
    myri_fabric *f;
    fd_case *c;
    size_t next;
} fd_inject;

static void fd_inj_handle(myri_component *self, const myri_event *ev)
{
    fd_inject *in = self->state;
    (void)ev;
    while (in->next < in->c->npk && in->c->pk[in->next].at == myri_sim_now(self->sim)) {
        myri_fabric_packet pk = in->c->pk[in->next].pk;
        pk.route = in->c->pk[in->next].route;
        if (!(in->c->devmask >> pk.src_host & 1)) myri_fabric_send(in->f, &pk); /* else its device sends it */
        in->next++;
    }
    if (in->next < in->c->npk) {
        myri_event e = {.target = self};
        myri_sim_schedule(self->sim, in->c->pk[in->next].at, &e);
    }
}

static myri_status fd_inj_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}

static const myri_component_ops fd_inj_ops = {.type = "diffinj", .help = "", .create = fd_inj_create,
                                              .handle = fd_inj_handle};

/* Runs the case with `model`; skew adds ps to delivery times (fault check). */
static inline void fd_run(fd_case *c, int model, uint64_t seed, uint64_t skew, fd_out *o)
{
    memset(o, 0, sizeof *o);
    myri_sim *sim = myri_sim_create(seed);
    myri_fabric_params p = c->p;
    p.model = model;
    myri_fabric_callbacks cb = {fd_deliv, fd_drop, o};
    myri_fabric *f = NULL;
    if (myri_fabric_create(sim, c->topo, &p, &cb, &f, NULL) != MYRI_OK) abort();
    myri_fabric__test_skew(f, skew);
    for (size_t k = 0; k < c->ncorr; k++)
        myri_fabric_corrupt(f, c->corr[k].id, c->corr[k].ch, c->corr[k].idx, c->corr[k].mask);
    for (size_t ch = 0; ch < myri_fabric_channel_count(f); ch++) myri_fabric_set_tap(f, ch, fd_tap, o);
    for (size_t k = 0; k < c->ncut; k++) {
        myri_fabric_cut_link(f, c->cut[k].link, c->cut[k].at);
        if (c->cut[k].until) myri_fabric_restore_link(f, c->cut[k].link, c->cut[k].until);
    }
    fd_dev *dev[32] = {0};
    for (uint32_t h = 0; h < 32; h++) {
        if (!(c->devmask >> h & 1)) continue;
        fd_dev *d = dev[h] = calloc(1, sizeof *d);
        char name[16];
        snprintf(name, sizeof name, "dev%u", h);
        myri_sim_add(sim, &fd_dev_comp_ops, name, d, &d->comp);
        d->port = myri_fabric_port(f, h);
        d->hash = &o->dev_hash;
        d->notices = &o->dev_notices;
        d->c = c;
        myri_rng_seed(&d->rng, c->devseed ^ (h * 0x9e3779b97f4a7c15ull));
        d->queue = calloc(c->npk, sizeof *d->queue);
        for (size_t k = 0; k < c->npk; k++)
            if (c->pk[k].pk.src_host == h) d->queue[d->nq++] = k;
        if (myri_port_attach(d->port, &fd_dev_ops, d) != MYRI_OK) abort();
    }
    for (uint32_t h = 0; h < 32; h++) { /* (attached first: no attaching after a send) */
        if (!dev[h]) continue;
        fd_dev_plan_arm(dev[h]);
        fd_dev_send_next(dev[h]);
    }
    fd_inject in = {f, c, 0};
    myri_component *comp;
    myri_sim_add(sim, &fd_inj_ops, "inj", &in, &comp);
    myri_event e = {.target = comp};
    myri_sim_schedule(sim, c->pk[0].at, &e);
    /* A fixed end, the same for both models: statistics of channels still
     * stopped at the end (a deadlock the timeout cannot break) run to it. */
    uint64_t end = c->pk[c->npk - 1].at + 10 * MYRI_PS_PER_MS;
    for (size_t k = 0; k < c->ncut; k++) {
        if (c->cut[k].at + 10 * MYRI_PS_PER_MS > end) end = c->cut[k].at + 10 * MYRI_PS_PER_MS;
        if (c->cut[k].until + 10 * MYRI_PS_PER_MS > end) end = c->cut[k].until + 10 * MYRI_PS_PER_MS;
    }
    if (c->window_at && c->window_at < end) {
        myri_sim_run(sim, c->window_at, 0);
        myri_fabric_reset_stats(f);
    }
    myri_sim_run(sim, end, 0);
    qsort(o->rec, o->n, sizeof *o->rec, fd_cmp);
    o->nch = myri_fabric_channel_count(f);
    if (o->nch > 128) o->nch = 128;
    for (size_t ch = 0; ch < o->nch; ch++) myri_fabric_get_channel_stats(f, ch, &o->ch[ch]);
    myri_fabric_get_counters(f, &o->ctr);
    for (uint32_t h = 0; h < 32; h++) {
        myri_port_stats ps;
        if (!dev[h] || myri_port_get_stats(dev[h]->port, &ps) != MYRI_OK) continue;
        o->dev.tx_packets += ps.tx_packets;
        o->dev.tx_dropped += ps.tx_dropped;
        o->dev.rx_tail += ps.rx_tail;
        o->dev.rx_buff += ps.rx_buff;
        o->dev.rx_trunc += ps.rx_trunc;
        o->dev.rx_bytes += ps.rx_bytes;
    }
    myri_sim_destroy(sim);
    for (uint32_t h = 0; h < 32; h++) {
        if (!dev[h]) continue;
        free(dev[h]->queue);
        free(dev[h]);
    }
}

/* Compares two runs; returns 0 if identical, else prints the first
 * difference into msg and returns 1. */
static inline int fd_compare(const fd_out *a, const fd_out *b, char *msg, size_t len)
{
    if (a->n != b->n) {
        snprintf(msg, len, "record count %zu vs %zu", a->n, b->n);
        return 1;
    }
    for (size_t i = 0; i < a->n; i++) {
        const fd_rec *x = &a->rec[i], *y = &b->rec[i];
        if (x->id != y->id || x->t != y->t || x->reason != y->reason || x->dst != y->dst) {
            snprintf(msg, len, "packet %llu: t %llu/%llu reason %d/%d dst %u/%u",
                     (unsigned long long)x->id, (unsigned long long)x->t, (unsigned long long)y->t,
                     x->reason, y->reason, x->dst, y->dst);
            return 1;
        }
    }
    for (size_t c = 0; c < a->nch; c++) {
        const myri_fabric_channel_stats *x = &a->ch[c], *y = &b->ch[c];
        if (x->chars != y->chars || x->stops != y->stops || x->gos != y->gos ||
            x->max_slack_bytes != y->max_slack_bytes || x->stopped_ps != y->stopped_ps ||
            x->truncated != y->truncated || x->fres != y->fres) {
            snprintf(msg, len,
                     "channel %zu: chars %llu/%llu stops %llu/%llu gos %llu/%llu max %llu/%llu "
                     "stopped %llu/%llu trunc %llu/%llu fres %llu/%llu",
                     c, (unsigned long long)x->chars, (unsigned long long)y->chars,
                     (unsigned long long)x->stops, (unsigned long long)y->stops,
                     (unsigned long long)x->gos, (unsigned long long)y->gos,
                     (unsigned long long)x->max_slack_bytes, (unsigned long long)y->max_slack_bytes,
                     (unsigned long long)x->stopped_ps, (unsigned long long)y->stopped_ps,
                     (unsigned long long)x->truncated, (unsigned long long)y->truncated,
                     (unsigned long long)x->fres, (unsigned long long)y->fres);
            return 1;
        }
    }
    if (a->taps != b->taps || a->tap_hash != b->tap_hash) {
        snprintf(msg, len, "taps differ: %llu vs %llu packets seen", (unsigned long long)a->taps,
                 (unsigned long long)b->taps);
        return 1;
    }
    if (a->dev_notices != b->dev_notices || a->dev_hash != b->dev_hash) {
        snprintf(msg, len, "devices differ: %llu vs %llu notices", (unsigned long long)a->dev_notices,
                 (unsigned long long)b->dev_notices);
        return 1;
    }
    if (a->ctr.hops != b->ctr.hops) {
        snprintf(msg, len, "packet-hops differ: %llu vs %llu", (unsigned long long)a->ctr.hops,
                 (unsigned long long)b->ctr.hops);
        return 1;
    }
    if (a->ctr.result_hash != b->ctr.result_hash) {
        snprintf(msg, len, "result hash differs");
        return 1;
    }
    return 0;
}

#endif
