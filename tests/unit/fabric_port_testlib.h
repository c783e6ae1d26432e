/* fabric_port_testlib.h -- a scriptable test device on a fabric port and
 * small fabrics for tests/unit/test_fabric_port.c (header only; include
 * cmocka.h first).  The device records every notice and probe (struct rec),
 * checks each packet it receives against the bytes its sender gave, re-arms
 * after a set delay, and sends with bytes made ready in steps from its own
 * events. */
#ifndef MYRI_FABRIC_PORT_TESTLIB_H
#define MYRI_FABRIC_PORT_TESTLIB_H

#include <math.h>

#include "common/packet.h"
#include "fabric/port.h"
#include "fabric_testlib.h"

static ft_log g_log;    /* the fabric's delivered/dropped callbacks (mk) */
static myri_crc8 g_crc;  /* the fabric's CRC-8, for the expected trailers */

#define T_PS 12500ull /* character time at 640 Mb/s */
#define MAXREC 1024
#define PTYPE 0x0005u

/* ---- a test device ------------------------------------------------------------------ */

/* Everything a device saw, one record per notice or probe; all fields are
 * uint64_t (no padding), so two runs compare with memcmp. */
typedef struct rec {
    uint64_t kind;  /* 0 tx, 1 rx, 2 link, 3 probe */
    uint64_t now;   /* engine time when seen */
    uint64_t id, end, bytes, pkt_bytes, crc_ok, crc_rem, head, at, misrouted;
    /* tx: end = sent, bytes = reason, pkt_bytes = rx_count then; link: end = up;
     * probe: bytes = rx_count */
} rec;

enum { EV_ARM = 1, EV_MORE = 2, EV_PROBE = 3, EV_CHAIN = 4 };

typedef struct dev {
    myri_port *port;
    myri_component *comp;
    uint32_t win_max;          /* window length armed */
    uint64_t rearm_ps;         /* re-arm this long after each rx notice (NEVER: not again) */
    uint32_t exp_payload;      /* payload length of the packets it receives */
    uint8_t win[4096];
    uint8_t acc[8192];         /* the current packet's windows, concatenated */
    uint32_t nacc;
    uint8_t last[8192];        /* the previous packet's bytes (TAIL or TRUNC) */
    uint32_t nlast;
    uint64_t good, bad;        /* TAIL packets whose bytes were / were not as sent */
    size_t n;
    rec r[MAXREC];
    /* sending */
    myri_fabric_packet pk;
    uint8_t route[4], payload[4096];
    uint32_t data, ready, step;
    uint64_t step_ps;
} dev;

static inline uint8_t pay(uint64_t id, uint32_t i) { return (uint8_t)(id * 31u + i * 7u + 3u); }

/* The bytes of packet `id` on its last hop: type, payload, CRC trailer. */
static inline uint32_t expect(uint64_t id, uint32_t payload_bytes, uint8_t *out)
{
    uint8_t p[4096];
    for (uint32_t i = 0; i < payload_bytes; i++) p[i] = pay(id, i);
    return (uint32_t)myri_packet_build(&g_crc, id, NULL, 0, PTYPE, 4, p, payload_bytes, out);
}

static inline void dv_log(dev *d, uint64_t kind, uint64_t id, uint64_t end, uint64_t bytes, uint64_t pkt_bytes,
                   uint64_t ok, uint64_t rem, uint64_t head, uint64_t at)
{
    assert_true(d->n < MAXREC);
    d->r[d->n++] = (rec){kind, myri_sim_now(d->comp->sim), id, end, bytes, pkt_bytes, ok, rem, head, at, 0};
}

static inline void dv_later(dev *d, uint32_t kind, myri_time_ps at)
{
    myri_event e = {.target = d->comp, .kind = kind};
    assert_int_not_equal(myri_sim_schedule(d->comp->sim, at, &e), 0);
}

static inline void dv_rx(void *dv, myri_port *p, const myri_port_rx *r)
{
    dev *d = dv;
    assert_ptr_equal(p, d->port);
    assert_int_equal(r->at_ps, myri_sim_now(d->comp->sim));
    dv_log(d, 1, r->id, r->end, r->bytes, r->pkt_bytes, r->crc_ok, r->crc_rem, r->head_ps, r->at_ps);
    d->r[d->n - 1].misrouted = r->misrouted;
    assert_true(d->nacc + r->bytes <= sizeof d->acc);
    memcpy(d->acc + d->nacc, d->win, r->bytes);
    d->nacc += r->bytes;
    if (r->end != MYRI_PORT_RX_BUFF) {
        uint8_t want[8192];
        uint32_t n = expect(r->id, d->exp_payload, want);
        bool same = r->end == MYRI_PORT_RX_TAIL && r->crc_ok && d->nacc == n && r->pkt_bytes == n &&
                    memcmp(d->acc, want, n) == 0;
        if (same) d->good++;
        else d->bad++;
        memcpy(d->last, d->acc, d->nacc);
        d->nlast = d->nacc;
        d->nacc = 0;
    }
    if (d->rearm_ps == 0) assert_int_equal(myri_port_rx_arm(d->port, d->win, d->win_max), MYRI_OK);
    else if (d->rearm_ps != MYRI_TIME_NEVER) dv_later(d, EV_ARM, myri_sim_now(d->comp->sim) + d->rearm_ps);
}

static inline void dv_tx(void *dv, myri_port *p, const myri_port_tx *t)
{
    dev *d = dv;
    (void)p;
    dv_log(d, 0, t->id, t->sent, (uint64_t)t->reason, myri_port_rx_count(d->port), 0, 0, 0, t->at_ps);
    d->data = 0;
}

static inline void dv_link(void *dv, myri_port *p, bool up)
{
    dev *d = dv;
    (void)p;
    dv_log(d, 2, 0, up, 0, 0, 0, 0, 0, myri_sim_now(d->comp->sim));
}

static const myri_port_ops dv_ops = {dv_rx, dv_tx, dv_link};

static inline void dv_handle(myri_component *self, const myri_event *ev)
{
    dev *d = self->state;
    myri_time_ps now = myri_sim_now(self->sim);
    if (ev->kind == EV_ARM) {
        assert_int_equal(myri_port_rx_arm(d->port, d->win, d->win_max), MYRI_OK);
    } else if (ev->kind == EV_CHAIN) {
        dv_later(d, EV_ARM, now); /* an arm scheduled at t by an event at t */
    } else if (ev->kind == EV_PROBE) {
        dv_log(d, 3, 0, 0, myri_port_rx_count(d->port), 0, 0, 0, 0, now);
    } else if (ev->kind == EV_MORE && d->data) {
        d->ready = d->ready + d->step > d->data ? d->data : d->ready + d->step;
        assert_int_equal(myri_port_send_more(d->port, d->ready, d->ready == d->data), MYRI_OK);
        if (d->ready < d->data) dv_later(d, EV_MORE, now + d->step_ps);
    }
}

static inline myri_status dv_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}

static const myri_component_ops dv_comp_ops = {.type = "porttestdev", .help = "", .create = dv_create,
                                               .handle = dv_handle};

/* A device on host h's port; armed at once with a window of win_max bytes if
 * arm_now (else it arms when told). */
static inline dev *dv_new(myri_sim *sim, myri_fabric *f, uint32_t h, uint32_t win_max, bool arm_now)
{
    dev *d = calloc(1, sizeof *d);
    assert_non_null(d);
    char name[16];
    snprintf(name, sizeof name, "dev%u", h);
    assert_int_equal(myri_sim_add(sim, &dv_comp_ops, name, d, &d->comp), MYRI_OK);
    d->port = myri_fabric_port(f, h);
    assert_non_null(d->port);
    d->win_max = win_max;
    assert_int_equal(myri_port_attach(d->port, &dv_ops, d), MYRI_OK);
    if (arm_now) assert_int_equal(myri_port_rx_arm(d->port, d->win, win_max), MYRI_OK);
    return d;
}

/* The device sends packet `id` (one route byte) with `ready` bytes ready, then
 * `step` more every `step_ps` from its own events. */
static inline void dv_send(dev *d, uint64_t id, uint8_t route, uint32_t payload_bytes, uint32_t ready, uint32_t step,
                    uint64_t step_ps)
{
    for (uint32_t i = 0; i < payload_bytes; i++) d->payload[i] = pay(id, i);
    d->route[0] = route;
    d->pk = (myri_fabric_packet){.id = id, .src_host = myri_port_host(d->port), .route_len = 1, .route = d->route,
                                 .type = PTYPE, .payload_bytes = payload_bytes, .payload = d->payload};
    d->data = 1 + 4 + payload_bytes;
    d->ready = ready;
    d->step = step;
    d->step_ps = step_ps;
    assert_int_equal(myri_port_send(d->port, &d->pk, ready, ready == d->data), MYRI_OK);
    if (ready < d->data) dv_later(d, EV_MORE, myri_sim_now(d->comp->sim) + step_ps);
}

/* ---- fabrics -------------------------------------------------------------------------- */

static inline myri_fabric *mk(myri_sim *sim, myri_topo *t, int model, const myri_fabric_params *pp)
{
    myri_fabric_params p;
    if (pp) p = *pp;
    else myri_fabric_params_default(&p);
    p.model = model;
    memset(&g_log, 0, sizeof g_log);
    myri_crc8_init(&g_crc, (uint8_t)p.crc_poly);
    myri_fabric_callbacks cb = {ft_delivered, ft_dropped, &g_log};
    myri_fabric *f = NULL;
    assert_int_equal(myri_fabric_create(sim, t, &p, &cb, &f, NULL), MYRI_OK);
    assert_int_equal(myri_fabric_char_time_ps(f), T_PS);
    return f;
}

/* h0 - s0 - h1, 10 m cables.  Channels: 0 h0->s0, 1 s0->h0, 2 s0->h1, 3 h1->s0;
 * route h0 -> h1 is 0x81. */
static inline myri_topo *line1(void)
{
    static const double len[2] = {10, 10};
    return ft_line(1, 8, len);
}

/* An ideal host (no device) sends packet id with its explicit payload. */
static inline void send_ideal(myri_fabric *f, uint32_t src, uint8_t route, uint64_t id, uint32_t payload_bytes)
{
    uint8_t p[4096];
    for (uint32_t i = 0; i < payload_bytes; i++) p[i] = pay(id, i);
    myri_fabric_packet pk = {.id = id, .src_host = src, .route_len = 1, .route = &route, .type = PTYPE,
                             .payload_bytes = payload_bytes, .payload = p};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
}

static inline myri_fabric_channel_stats chst(myri_fabric *f, size_t ch)
{
    myri_fabric_channel_stats s;
    assert_int_equal(myri_fabric_get_channel_stats(f, ch, &s), MYRI_OK);
    return s;
}

static inline myri_fabric_counters ctrs(myri_fabric *f)
{
    myri_fabric_counters c;
    myri_fabric_get_counters(f, &c);
    return c;
}

/* Both models saw the same notices at the same times. */
static inline void same_recs(const dev *a, const dev *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        if (memcmp(&a->r[i], &b->r[i], sizeof a->r[i]) != 0)
            fail_msg("notice %zu differs: kind %llu/%llu at %llu/%llu id %llu/%llu bytes %llu/%llu", i,
                     (unsigned long long)a->r[i].kind, (unsigned long long)b->r[i].kind,
                     (unsigned long long)a->r[i].now, (unsigned long long)b->r[i].now,
                     (unsigned long long)a->r[i].id, (unsigned long long)b->r[i].id,
                     (unsigned long long)a->r[i].bytes, (unsigned long long)b->r[i].bytes);
    }
}

static inline size_t count_kind(const dev *d, uint64_t kind)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += d->r[i].kind == kind;
    return n;
}

#endif
