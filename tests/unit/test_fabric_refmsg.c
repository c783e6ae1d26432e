/* test_fabric_refmsg.c -- the reference model's characters and STOP/GO are
 * messages between the two ends of a cable (docs/PARTITION.md rows 9 and 13,
 * src/fabric/fabric_msg.c): a flat record that comes back as it was sent; a
 * character sent before a cut of its cable is lost by epoch even when the
 * cable is up again when it arrives; the packets whose characters were all
 * on the cable at the cut are dropped "link_down" at the cut, in both models,
 * and nothing is left behind (no message record, no packet). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/fabric_int.h"
#include "fabric_testlib.h"

#define NPKT 12
#define PAYLOAD 8

static ft_log g_log[2];

/* h0 - s0 (10 m) - h1 (200 m): the last cable holds ~90 characters, several
 * of these short packets at once. */
static const double g_len[2] = {10, 200};

/* The default parameters with a slack buffer whose headroom absorbs what
 * arrives after STOP on the 200 m cable (fab__check_headroom: ~183 characters). */
static myri_fabric_params params(void)
{
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.slack_size_bytes = 512;
    p.slack_stop_bytes = 256;
    p.slack_go_bytes = 200;
    return p;
}

static uint64_t prop_ps(const myri_fabric_params *p, double m)
{
    return (uint64_t)floor(m / (p->prop_speed_c * 299792458.0) * 1e12 + 0.5);
}

/* Runs NPKT packets h0 -> h1 sent at 0 with model `model`, the s0 - h1 link
 * cut at cut_ps (none if 0) and restored at up_ps (none if 0), then NPKT more
 * sent at more_ps (none if 0); the log sorted. */
static void run(int model, uint64_t cut_ps, uint64_t up_ps, uint64_t more_ps, ft_log *log)
{
    myri_topo *t = ft_line(1, 8, g_len);
    myri_sim *sim = myri_sim_create(7);
    myri_fabric_params p = params();
    myri_fabric *f = ft_make(sim, t, model, &p, log);
    assert_non_null(f);
    uint8_t route = 0x81;
    for (uint64_t i = 0; i < NPKT; i++) {
        myri_fabric_packet pk = {.id = 1 + i, .route_len = 1, .route = &route, .type = 5, .payload_bytes = PAYLOAD};
        assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
    }
    if (cut_ps) assert_int_equal(myri_fabric_cut_link(f, 1, cut_ps), MYRI_OK);
    if (up_ps) assert_int_equal(myri_fabric_restore_link(f, 1, up_ps), MYRI_OK);
    if (more_ps) {
        myri_sim_run(sim, more_ps, 0);
        for (uint64_t i = 0; i < NPKT; i++) {
            myri_fabric_packet pk = {.id = 100 + i, .route_len = 1, .route = &route, .type = 5,
                                     .payload_bytes = PAYLOAD};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK);
        }
    }
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    /* every message taken; the reference model gives back every packet's
     * record (a lost head's reference too).  (The fast model keeps one after
     * a cut here, freed with the fabric: not this test's subject.) */
    assert_int_equal(fab_msg_pending(f), 0);
    if (model == MYRI_FABRIC_REFERENCE) assert_int_equal(f->live_pkts, 0);
    ft_sort(log);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

/* Uncut run: packet k's head and GAP arrival at h1 and the cable's delay D. */
typedef struct flight { uint64_t head_at[NPKT], gap_at[NPKT], d_ps; } flight;

static void uncut(flight *fl)
{
    myri_fabric_params p = params();
    uint64_t T = myri_fabric_char_ps(&p);
    fl->d_ps = T + prop_ps(&p, g_len[1]);
    run(MYRI_FABRIC_REFERENCE, 0, 0, 0, &g_log[0]);
    assert_int_equal(g_log[0].n, NPKT);
    uint64_t n = (uint64_t)p.type_bytes + PAYLOAD + 2; /* on the last hop: type, payload, trailer, GAP */
    for (size_t k = 0; k < NPKT; k++) {
        assert_int_equal(g_log[0].rec[k].reason, -1);
        fl->gap_at[k] = g_log[0].rec[k].t;
        fl->head_at[k] = fl->gap_at[k] - (n - 1) * T;
    }
}

/* Which packets a cut at tc catches all on the cable (GAP sent, head not arrived). */
static int all_on_cable(const flight *fl, uint64_t tc, bool *on)
{
    int n = 0;
    for (size_t k = 0; k < NPKT; k++) {
        on[k] = fl->gap_at[k] - fl->d_ps < tc && fl->head_at[k] > tc;
        n += on[k];
    }
    return n;
}

static void test_in_flight_dropped_at_cut(void **state)
{
    (void)state;
    flight fl;
    uncut(&fl);
    /* the middle of packet 4's flight: it and its neighbours are on the cable */
    uint64_t tc = fl.gap_at[4] - fl.d_ps + (fl.head_at[4] - (fl.gap_at[4] - fl.d_ps)) / 2;
    bool on[NPKT];
    assert_true(all_on_cable(&fl, tc, on) >= 2);
    for (int model = 0; model < 2; model++) {
        run(model, tc, 0, 0, &g_log[model]);
        ft_log *l = &g_log[model];
        assert_int_equal(l->n, NPKT);
        for (size_t k = 0; k < NPKT; k++) {
            if (fl.gap_at[k] <= tc) { /* arrived before the cut */
                assert_int_equal(l->rec[k].reason, -1);
                assert_int_equal(l->rec[k].t, fl.gap_at[k]);
            } else { /* on the cable, partly received, or not sent yet: link_down */
                assert_int_equal(l->rec[k].reason, MYRI_FABRIC_DROP_LINK_DOWN);
            }
            if (on[k]) assert_int_equal(l->rec[k].t, tc); /* at the cut, not when its characters would arrive */
        }
    }
    assert_memory_equal(g_log[0].rec, g_log[1].rec, NPKT * sizeof g_log[0].rec[0]);
}

/* Cut and up again before what was on the cable arrives: still lost (the
 * characters carry the epoch of before the cut), and what is sent after the
 * restore arrives. */
static void test_lost_by_epoch_across_restore(void **state)
{
    (void)state;
    flight fl;
    uncut(&fl);
    uint64_t tc = fl.gap_at[4] - fl.d_ps + (fl.head_at[4] - (fl.gap_at[4] - fl.d_ps)) / 2;
    uint64_t up = tc + 100 * MYRI_PS_PER_NS;
    uint64_t more = up + 10 * MYRI_PS_PER_US;
    bool on[NPKT];
    assert_true(all_on_cable(&fl, tc, on) >= 2);
    assert_true(up < fl.head_at[4]); /* packet 4's head would arrive on a cable up again */
    for (int model = 0; model < 2; model++) {
        run(model, tc, up, more, &g_log[model]);
        ft_log *l = &g_log[model];
        assert_int_equal(l->n, 2 * NPKT);
        for (size_t k = 0; k < NPKT; k++) {
            if (on[k]) {
                assert_int_equal(l->rec[k].reason, MYRI_FABRIC_DROP_LINK_DOWN);
                assert_int_equal(l->rec[k].t, tc);
            }
            assert_int_equal(l->rec[NPKT + k].reason, -1); /* the second batch, after the restore */
            assert_true(l->rec[NPKT + k].t > more);
        }
    }
    assert_memory_equal(g_log[0].rec, g_log[1].rec, 2 * NPKT * sizeof g_log[0].rec[0]);
}

/* The records come back from their events as they were sent: a character
 * through the slab (its index freed when taken), STOP/GO inline. */
static void test_record_round_trip(void **state)
{
    (void)state;
    myri_topo *t = ft_line(1, 8, g_len);
    myri_sim *sim = myri_sim_create(1);
    myri_fabric_params p = params();
    myri_fabric *f = ft_make(sim, t, MYRI_FABRIC_REFERENCE, &p, &g_log[0]);
    assert_non_null(f);
    fab_chan *c = &f->ch[2];
    fab_msg ch = {.pkt_id = 0x123456789aull, .pix = 77, .j = 5, .hop = 1, .byte = 0xa5, .gap = 0, .epoch = 3};
    myri_fab_msg(f, c, 1000, PH_ARRIVE, MSG_CHAR, &ch);
    fab_msg ctl = {.epoch = 9, .stop = 1};
    myri_fab_msg(f, c, 2000, PH_CTRL, MSG_CTRL, &ctl);
    assert_int_equal(fab_msg_pending(f), 1); /* the character's record; STOP fits its event */
    fab_ev ev;
    assert_true(myri_fab_agenda_test_take(f, &ev));
    assert_int_equal(ev.kind, EV_R_ARRIVE);
    assert_int_equal(ev.time, 1000);
    fab_msg got = myri_fab_msg_take(f, &ev);
    assert_int_equal(fab_msg_pending(f), 0);
    assert_memory_equal(&got, &ch, sizeof got);
    assert_int_equal(got.kind, MSG_CHAR);
    assert_int_equal(got.ch, 2);
    assert_int_equal(got.phase, PH_ARRIVE);
    assert_true(myri_fab_agenda_test_take(f, &ev));
    assert_int_equal(ev.kind, EV_CTRL);
    got = myri_fab_msg_take(f, &ev);
    assert_memory_equal(&got, &ctl, sizeof got);
    assert_int_equal(got.t, 2000);
    assert_false(myri_fab_agenda_test_take(f, &ev));
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_flight_dropped_at_cut),
        cmocka_unit_test(test_lost_by_epoch_across_restore),
        cmocka_unit_test(test_record_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
