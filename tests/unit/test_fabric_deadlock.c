/* test_fabric_deadlock.c -- the long-period timeout breaks every deadlock,
 * also one among small packets that sit entirely in slack buffers, where no
 * sender is stopped in the middle of a packet: the switch outputs of the
 * cycle hold a granted packet whose head they could never send.  Topology and
 * routes of scenarios/cyclic-deadlock.yaml: a ring of four 4-port switches,
 * two hosts per switch, every host sends ten packets two switches clockwise,
 * one every microsecond (staggered between hosts).  For several packet sizes
 * and both models: the ring deadlocks, the timeouts break it again and again
 * until every packet is delivered or dropped, packets keep being delivered
 * after the first timeouts, the drops are counted as timeouts, and both
 * models give the same result. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_testlib.h"

#define TIMEOUT_PS (1 * MYRI_PS_PER_MS)
#define END_PS (30 * TIMEOUT_PS)
#define NHOSTS 8u
#define PER_HOST 10u
#define GAP_PS (MYRI_PS_PER_US / NHOSTS) /* one packet of one host after the other */
#define MAX_ID (NHOSTS * PER_HOST)

typedef struct dl_run {
    myri_fabric *f;
    uint32_t payload;
    uint64_t next_id;
    uint8_t route[NHOSTS][3];
    uint8_t *seen;              /* per packet id: 1 delivered, 2 dropped */
    uint64_t delivered_after;   /* delivered after the first timeout */
    uint64_t delivered_cb, dropped_cb, timeout_cb, twice;
    uint64_t first_timeout_ps, last_delivery_ps;
} dl_run;

static void dl_delivered(void *ctx, const myri_fabric_delivery *d)
{
    dl_run *r = ctx;
    if (r->seen[d->id]) r->twice++;
    r->seen[d->id] = 1;
    r->delivered_cb++;
    if (r->timeout_cb) r->delivered_after++;
    r->last_delivery_ps = d->tail_ps;
}

static void dl_dropped(void *ctx, uint64_t id, myri_fabric_drop_reason why, myri_time_ps t)
{
    dl_run *r = ctx;
    if (r->seen[id]) r->twice++;
    r->seen[id] = 2;
    r->dropped_cb++;
    if (why == MYRI_FABRIC_DROP_TIMEOUT) {
        if (!r->timeout_cb++) r->first_timeout_ps = t;
    }
}

/* Every GAP_PS the next host (round robin) queues one packet. */
static void dl_inj_handle(myri_component *self, const myri_event *ev)
{
    (void)ev;
    dl_run *r = self->state;
    uint32_t h = (uint32_t)((r->next_id - 1) % NHOSTS);
    myri_fabric_packet pk = {.id = r->next_id++, .src_host = h, .route_len = 3,
                             .route = r->route[h], .type = 5, .payload_bytes = r->payload};
    assert_int_equal(myri_fabric_send(r->f, &pk), MYRI_OK);
    myri_event e = {.target = self};
    if (r->next_id <= MAX_ID) myri_sim_schedule_in(self->sim, GAP_PS, &e);
}

static myri_status dl_inj_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}

static const myri_component_ops dl_inj_ops = {.type = "dlinj", .help = "", .create = dl_inj_create,
                                              .handle = dl_inj_handle};

/* The ring of cyclic-deadlock.yaml: switch i port 0 -> switch i+1 port 1
 * (20 m), hosts 2i and 2i+1 on ports 2 and 3 of switch i (10 m).  Host 2i+k
 * sends to host 2(i+2)+k: ports 0, 0, 2+k. */
static myri_topo *dl_ring(dl_run *r)
{
    myri_topo *t = myri_topo_create();
    uint32_t s[4], h;
    char name[8];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "s%d", i);
        myri_topo_add_switch(t, name, 4, &s[i]);
    }
    for (int i = 0; i < 4; i++) myri_topo_connect(t, s[i], 0, s[(i + 1) % 4], 1, 20.0, NULL);
    for (uint32_t i = 0; i < NHOSTS; i++) {
        snprintf(name, sizeof name, "h%u", i);
        myri_topo_add_host(t, name, &h);
        myri_topo_connect(t, h, 0, s[i / 2], 2 + i % 2, 10.0, NULL);
        r->route[i][0] = 0x80;
        r->route[i][1] = 0x80;
        r->route[i][2] = (uint8_t)(0x80 | (2 + i % 2));
    }
    return t;
}

static void dl_one(uint32_t payload, int model, myri_fabric_counters *c)
{
    dl_run r = {.payload = payload, .next_id = 1};
    r.seen = calloc(MAX_ID + 1, 1);
    assert_non_null(r.seen);
    myri_topo *t = dl_ring(&r);
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.model = model;
    p.timeout_ps = TIMEOUT_PS;
    myri_fabric_callbacks cb = {dl_delivered, dl_dropped, &r};
    assert_int_equal(myri_fabric_create(sim, t, &p, &cb, &r.f, NULL), MYRI_OK);
    myri_component *comp;
    assert_int_equal(myri_sim_add(sim, &dl_inj_ops, "inj", &r, &comp), MYRI_OK);
    myri_event e = {.target = comp};
    myri_sim_schedule(sim, 0, &e);
    myri_sim_run(sim, END_PS, 0);
    myri_fabric_get_counters(r.f, c);
    print_message("%2u B %-9s: delivered %llu (%llu after the first timeout, the last at %.3f ms), "
                  "timeout %llu (the first at %.3f ms)\n",
                  payload, model == MYRI_FABRIC_FAST ? "fast" : "reference", (unsigned long long)c->delivered,
                  (unsigned long long)r.delivered_after, (double)r.last_delivery_ps / 1e9,
                  (unsigned long long)c->dropped[MYRI_FABRIC_DROP_TIMEOUT], (double)r.first_timeout_ps / 1e9);
    assert_int_equal(c->injected, MAX_ID);
    /* deadlocked, broken by the timeouts, and packets keep getting through:
     * not only right after the first timeout */
    assert_true(c->dropped[MYRI_FABRIC_DROP_TIMEOUT] > 0);
    assert_true(r.first_timeout_ps >= TIMEOUT_PS);
    assert_true(r.delivered_after > 0);
    assert_true(r.last_delivery_ps >= 5 * TIMEOUT_PS);
    /* every deadlock broken: nothing stuck at the end */
    assert_int_equal(c->in_flight, 0);
    /* only timeouts drop packets here, each packet once, none lost uncounted */
    assert_int_equal(c->dropped_total, c->dropped[MYRI_FABRIC_DROP_TIMEOUT]);
    assert_int_equal(r.twice, 0);
    assert_int_equal(r.delivered_cb, c->delivered);
    assert_int_equal(r.dropped_cb, c->dropped_total);
    assert_int_equal(c->injected, c->delivered + c->dropped_total + c->in_flight);
    for (uint64_t id = 1; id <= MAX_ID; id++) assert_true(r.seen[id] != 0);
    /* every timeout sends FRES forward (seed 002), also for a packet granted
     * at a stopped output and not begun (most of them with small packets) */
    size_t nch = myri_fabric_channel_count(r.f);
    myri_fabric_channel_stats *st = calloc(nch, sizeof *st);
    assert_non_null(st);
    assert_int_equal(myri_fabric_get_all_channel_stats(r.f, st, nch), MYRI_OK);
    uint64_t fres = 0;
    for (size_t i = 0; i < nch; i++) fres += st[i].fres;
    free(st);
    assert_true(fres >= c->dropped[MYRI_FABRIC_DROP_TIMEOUT]);
    free(r.seen);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

static void test_deadlock_small_packets(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {8, 20, 24, 32, 48};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        myri_fabric_counters ref, fast;
        dl_one(sizes[i], MYRI_FABRIC_REFERENCE, &ref);
        dl_one(sizes[i], MYRI_FABRIC_FAST, &fast);
        assert_int_equal(ref.delivered, fast.delivered);
        assert_int_equal(ref.dropped_total, fast.dropped_total);
        assert_int_equal(ref.result_hash, fast.result_hash);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deadlock_small_packets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
