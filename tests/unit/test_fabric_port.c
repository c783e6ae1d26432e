/* test_fabric_port.c -- ports (src/fabric/port.h): what a device attached at
 * a host's end of a link relies on, in both fabric models, with identical
 * notices (content and times) from both:
 *   a hotspot onto a port that re-arms slowly (nothing lost, STOP paces the
 *   senders); a port never armed (STOP back, long-period timeout, FRES, then
 *   TRUNC once armed); overlapped sends (bytes made ready progressively,
 *   underruns delay the tail by the wait); windows smaller than the packet
 *   (BUFF, continuation); CRC errors handed over with their verdict; link
 *   notices, a packet cut by a dead cable, a send cut at the host; rx_count
 *   while a packet flows, in an event and in a notice; misrouted packets;
 *   misuse returning error codes; the same-instant rule for an arm at the
 *   head's arrival time.  The device is in fabric_port_testlib.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric_port_testlib.h"

/* ---- 1. hotspot onto a port that re-arms slowly ------------------------------------- */

#define HOT_N 20
#define HOT_PAY 200
#define HOT_D (20 * MYRI_PS_PER_US)

static dev *hotspot_run(int model, myri_sim **simp, myri_fabric **fp, myri_topo **tp)
{
    myri_topo *t = *tp = ft_star8();
    myri_sim *sim = *simp = myri_sim_create(1);
    myri_fabric *f = *fp = mk(sim, t, model, NULL);
    dev *d = dv_new(sim, f, 0, 1024, true);
    d->rearm_ps = HOT_D;
    d->exp_payload = HOT_PAY;
    uint64_t id = 1;
    for (uint32_t k = 0; k < HOT_N; k++)
        for (uint32_t h = 1; h < 8; h++) send_ideal(f, h, 0x80, id++, HOT_PAY);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    return d;
}

static void test_hotspot_slow_port(void **state)
{
    (void)state;
    dev *d[2];
    for (int model = 0; model < 2; model++) {
        myri_sim *sim;
        myri_fabric *f;
        myri_topo *t;
        d[model] = hotspot_run(model, &sim, &f, &t);
        const uint64_t npk = 7 * HOT_N, bytes = 4 + HOT_PAY + 1;
        /* every packet reached the device intact, none lost */
        assert_int_equal(d[model]->good, npk);
        assert_int_equal(d[model]->bad, 0);
        assert_int_equal(count_kind(d[model], 1), npk);
        myri_fabric_counters c = ctrs(f);
        assert_int_equal(c.injected, npk);
        assert_int_equal(c.delivered, npk);
        assert_int_equal(c.dropped_total, 0);
        assert_int_equal(c.in_flight, 0);
        /* the port's receiving channel: STOP and GO once per packet it waited
         * for (all but the first), its slack never beyond its size */
        myri_fabric_channel_stats in = chst(f, 1);
        assert_true(in.stops >= npk - 1);
        assert_int_equal(in.gos, in.stops);
        assert_true(in.max_slack_bytes <= 80);
        assert_true(in.max_slack_bytes >= 52);
        assert_true(in.stopped_ps > 0); /* the switch output to h0 */
        assert_int_equal(in.chars, npk * (bytes + 1));
        uint64_t host_stopped = 0;
        for (uint32_t h = 1; h < 8; h++) {
            myri_fabric_channel_stats s = chst(f, 2 * h);
            host_stopped += s.stopped_ps;
            assert_true(s.max_slack_bytes <= 80);
        }
        assert_true(host_stopped > 0);
        /* the port paces: consecutive tails at least D + a packet apart; in
         * all about N*7*D */
        const rec *r = d[model]->r;
        for (size_t i = 1; i < d[model]->n; i++)
            assert_true(r[i].at >= r[i - 1].at + HOT_D + (bytes - 1) * T_PS);
        uint64_t end = r[d[model]->n - 1].at;
        assert_true(end >= (npk - 1) * HOT_D);
        assert_true(end <= npk * (HOT_D + 2 * (bytes + 1) * T_PS));
        myri_port_stats ps;
        assert_int_equal(myri_port_get_stats(d[model]->port, &ps), MYRI_OK);
        assert_int_equal(ps.rx_tail, npk);
        assert_int_equal(ps.rx_buff + ps.rx_trunc, 0);
        assert_int_equal(ps.rx_bytes, npk * bytes);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
}

/* ---- 2. a port never armed ------------------------------------------------------------ */

static void test_never_armed(void **state)
{
    (void)state;
    dev *d[2];
    for (int model = 0; model < 2; model++) {
        myri_topo *t = line1();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric_params p;
        myri_fabric_params_default(&p);
        p.timeout_ps = 50 * MYRI_PS_PER_US;
        myri_fabric *f = mk(sim, t, model, &p);
        dev *dv = d[model] = dv_new(sim, f, 1, 1024, false);
        dv->rearm_ps = 0;
        dv->exp_payload = 200;
        send_ideal(f, 0, 0x81, 1, 200);
        myri_sim_run(sim, 40 * MYRI_PS_PER_US, 0);
        /* the packet stays in the network: STOP from the port stopped s0 -> h1 */
        myri_fabric_counters c = ctrs(f);
        assert_int_equal(c.delivered + c.dropped_total, 0);
        assert_int_equal(c.in_flight, 1);
        myri_fabric_channel_stats s = chst(f, 2);
        assert_int_equal(s.stops, 1);
        assert_int_equal(s.gos, 0);
        assert_true(s.max_slack_bytes >= 52 && s.max_slack_bytes <= 80);
        assert_int_equal(dv->n, 0);
        /* after link.timeout it is dropped upstream (timeout) and FRES goes down */
        myri_sim_run(sim, 90 * MYRI_PS_PER_US, 0);
        c = ctrs(f);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_TIMEOUT], 1);
        assert_int_equal(c.dropped_total, 1);
        assert_int_equal(g_log.n, 1);
        assert_true(g_log.rec[0].t >= 50 * MYRI_PS_PER_US && g_log.rec[0].t < 55 * MYRI_PS_PER_US);
        s = chst(f, 2);
        assert_int_equal(s.truncated, 1);
        assert_true(s.stopped_ps >= 50 * MYRI_PS_PER_US);
        assert_int_equal(dv->n, 0); /* nothing to the device while unarmed */
        /* armed: the device gets what was in its slack, cut short (TRUNC) */
        dv_later(dv, EV_ARM, 100 * MYRI_PS_PER_US);
        myri_sim_run(sim, 150 * MYRI_PS_PER_US, 0);
        assert_int_equal(dv->n, 1);
        const rec *r = &dv->r[0];
        assert_int_equal(r->kind, 1);
        assert_int_equal(r->id, 1);
        assert_int_equal(r->end, MYRI_PORT_RX_TRUNC);
        assert_int_equal(r->crc_ok, 0);
        assert_int_equal(r->bytes, r->pkt_bytes);
        assert_true(r->bytes >= 52 - 1 && r->bytes <= 80);
        uint8_t want[512];
        expect(1, 200, want);
        assert_memory_equal(dv->last, want, r->bytes); /* a true prefix of the packet */
        assert_true(r->at >= 100 * MYRI_PS_PER_US && r->at <= 100 * MYRI_PS_PER_US + 81 * T_PS);
        /* the port works again: the next packet arrives whole */
        send_ideal(f, 0, 0x81, 2, 200);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        assert_int_equal(dv->n, 2);
        assert_int_equal(dv->r[1].end, MYRI_PORT_RX_TAIL);
        assert_int_equal(dv->good, 1);
        c = ctrs(f);
        assert_int_equal(c.delivered, 1);
        assert_int_equal(c.in_flight, 0);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
}

/* Unarmed until FRES is in the slack, then small windows: BUFFs, then TRUNC;
 * the windows hold the same prefix as one large window; misrouted packets
 * are handed over with their verdict. */
static void test_trunc_windows_and_misrouted(void **state)
{
    (void)state;
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    p.timeout_ps = 50 * MYRI_PS_PER_US;
    for (int model = 0; model < 2; model++) {
        uint64_t total[2] = {0, 0};
        for (int small = 0; small < 2; small++) {
            myri_topo *t = line1();
            myri_sim *sim = myri_sim_create(1);
            myri_fabric *f = mk(sim, t, model, &p);
            dev *d = dv_new(sim, f, 1, small ? 16 : 1024, false);
            d->rearm_ps = 0;
            d->exp_payload = 200;
            send_ideal(f, 0, 0x81, 1, 200);
            dv_later(d, EV_ARM, 100 * MYRI_PS_PER_US);
            myri_sim_run(sim, 150 * MYRI_PS_PER_US, 0);
            assert_true(d->n >= 1);
            for (size_t i = 0; i + 1 < d->n; i++) {
                assert_int_equal(d->r[i].end, MYRI_PORT_RX_BUFF);
                assert_int_equal(d->r[i].bytes, 16);
            }
            assert_int_equal(d->r[d->n - 1].end, MYRI_PORT_RX_TRUNC);
            total[small] = d->r[d->n - 1].pkt_bytes;
            uint8_t want[256], route[2] = {0x81, 0x85};
            expect(1, 200, want);
            assert_memory_equal(d->last, want, total[small]);
            myri_fabric_packet pk = {.id = 5, .route_len = 2, .route = route, .type = PTYPE, .payload_bytes = 10};
            assert_int_equal(myri_fabric_send(f, &pk), MYRI_OK); /* one route byte too many */
            size_t n0 = d->n;
            myri_sim_run(sim, MYRI_TIME_NEVER, 0);
            const rec *r = &d->r[d->n - 1];
            assert_int_equal(r->id, 5);
            assert_int_equal(r->end, MYRI_PORT_RX_TAIL);
            assert_int_equal(r->misrouted, 1);
            assert_int_equal(r->pkt_bytes, 1 + 4 + 10 + 1);
            assert_int_equal(d->n - n0, 1);
            assert_int_equal(ctrs(f).dropped[MYRI_FABRIC_DROP_MISROUTED], 1);
            myri_sim_destroy(sim);
            myri_topo_destroy(t);
            free(d);
        }
        assert_int_equal(total[0], total[1]);
    }
}

/* ---- 3. overlapped send ----------------------------------------------------------------- */

#define OV_PAY 400u
#define OV_DATA (1u + 4u + OV_PAY) /* route, type, payload */

typedef struct ov_out {
    uint64_t tx_at, rx_at, head;
    uint64_t ch0, ch2; /* characters on h0 -> s0, s0 -> h1 */
    dev rxd;           /* what the receiving device saw */
} ov_out;

/* h0's device sends one packet with `ready` bytes ready, `step` more every
 * step_ps; h1's device receives it.  Returns the times and counts. */
static void ov_run(int model, uint32_t ready, uint32_t step, uint64_t step_ps, ov_out *o)
{
    myri_topo *t = line1();
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = mk(sim, t, model, NULL);
    dev *tx = dv_new(sim, f, 0, 16, false), *rx = dv_new(sim, f, 1, 4096, true);
    rx->rearm_ps = MYRI_TIME_NEVER;
    rx->exp_payload = OV_PAY;
    dv_send(tx, 7, 0x81, OV_PAY, ready, step, step_ps);
    assert_int_equal(myri_sim_run(sim, MYRI_TIME_NEVER, 0), MYRI_OK);
    assert_int_equal(tx->n, 1);
    assert_int_equal(tx->r[0].kind, 0);
    assert_int_equal(tx->r[0].id, 7);
    assert_int_equal(tx->r[0].end, 1); /* sent */
    assert_int_equal(rx->n, 1);
    assert_int_equal(rx->good, 1); /* the exact bytes, CRC right */
    assert_int_equal(rx->r[0].pkt_bytes, OV_DATA); /* type + payload + trailer */
    myri_fabric_counters c = ctrs(f);
    assert_int_equal(c.delivered, 1);
    assert_int_equal(c.dropped_total, 0);
    myri_port_stats ps;
    myri_port_get_stats(tx->port, &ps);
    assert_int_equal(ps.tx_packets, 1);
    assert_int_equal(ps.tx_dropped, 0);
    o->tx_at = tx->r[0].at;
    o->rx_at = rx->r[0].at;
    o->head = rx->r[0].head;
    o->ch0 = chst(f, 0).chars;
    o->ch2 = chst(f, 2).chars;
    o->rxd = *rx;
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
    free(tx);
    free(rx);
}

static void test_overlapped_send(void **state)
{
    (void)state;
    static ov_out o[2][4];
    for (int model = 0; model < 2; model++) {
        ov_run(model, OV_DATA, 0, 0, &o[model][0]);                  /* all ready at once */
        ov_run(model, 105, 100, 100 * T_PS, &o[model][1]);           /* always ahead: no underrun */
        ov_run(model, 205, 200, 400 * T_PS, &o[model][2]);           /* one underrun of 195 T */
        ov_run(model, 5, 1, 2 * T_PS, &o[model][3]);                 /* a byte every 2 T */
        const ov_out *a = &o[model][0];
        /* the GAP is character OV_DATA + 1 (after the trailer): it leaves at (OV_DATA + 1) T */
        assert_int_equal(a->tx_at, (OV_DATA + 1) * T_PS);
        for (int k = 0; k < 4; k++) { /* no byte lost on any hop */
            assert_int_equal(o[model][k].ch0, OV_DATA + 2);
            assert_int_equal(o[model][k].ch2, OV_DATA + 1);
            assert_int_equal(o[model][k].head, a->head); /* the head is never late */
        }
        /* ready before needed: exactly as all at once */
        assert_int_equal(o[model][1].tx_at, a->tx_at);
        assert_int_equal(o[model][1].rx_at, a->rx_at);
        /* char 205 waited from 205 T to 400 T: the GAP leaves 195 T later.  At
         * the receiver the tail is later by the whole wait: every character
         * falls through the switch in the same max(L, T) - T after it arrived
         * (the pipelined switch: nothing to catch up) */
        const uint64_t lag = 0;
        assert_int_equal(o[model][2].tx_at, a->tx_at + 195 * T_PS);
        assert_int_equal(o[model][2].rx_at, a->rx_at + 195 * T_PS - lag);
        /* byte j (>= 5) ready at 2 (j - 4) T: the last data byte at 800 T, the
         * trailer at 801 T, the GAP at 802 T */
        assert_int_equal(o[model][3].tx_at, 802 * T_PS);
        assert_int_equal(o[model][3].rx_at, a->rx_at + (802 - (OV_DATA + 1)) * T_PS - lag);
    }
    for (int k = 0; k < 4; k++) same_recs(&o[0][k].rxd, &o[1][k].rxd);
    for (int k = 0; k < 4; k++) assert_int_equal(o[0][k].tx_at, o[1][k].tx_at);
}

/* ---- 4. windows smaller than the packet (BUFF) --------------------------------------------- */

static void buff_check(const dev *d, uint32_t w, uint32_t n)
{
    uint32_t nwin = (n + w - 1) / w; /* a window that ends with the last byte ends in TAIL */
    assert_int_equal(d->n, nwin);
    for (uint32_t k = 0; k < nwin; k++) {
        const rec *r = &d->r[k];
        assert_int_equal(r->kind, 1);
        assert_int_equal(r->id, 3);
        if (k + 1 < nwin) {
            assert_int_equal(r->end, MYRI_PORT_RX_BUFF);
            assert_int_equal(r->bytes, w);
            assert_int_equal(r->pkt_bytes, (k + 1) * w);
        } else {
            assert_int_equal(r->end, MYRI_PORT_RX_TAIL);
            assert_int_equal(r->bytes, n - k * w);
            assert_int_equal(r->pkt_bytes, n);
            assert_int_equal(r->crc_ok, 1);
            assert_int_equal(r->crc_rem, 0);
        }
        assert_int_equal(r->head, d->r[0].head); /* the same packet throughout */
    }
    assert_int_equal(d->good, 1); /* the windows concatenated are the packet's bytes */
    assert_int_equal(d->nlast, n);
}

static void test_buff_windows(void **state)
{
    (void)state;
    static const uint32_t wins[] = {1, 5, 41, 64, 204, 205, 206, 4096};
    const uint32_t pay_len = 200, n = 4 + pay_len + 1;
    for (size_t wi = 0; wi < sizeof wins / sizeof wins[0]; wi++)
        for (int slow = 0; slow < 2; slow++) {
            dev *d[2];
            for (int model = 0; model < 2; model++) {
                myri_topo *t = line1();
                myri_sim *sim = myri_sim_create(1);
                myri_fabric *f = mk(sim, t, model, NULL);
                d[model] = dv_new(sim, f, 1, wins[wi], true);
                d[model]->rearm_ps = slow ? 3 * MYRI_PS_PER_US : 0; /* at once, from the notice, or later */
                d[model]->exp_payload = pay_len;
                send_ideal(f, 0, 0x81, 3, pay_len);
                myri_sim_run(sim, MYRI_TIME_NEVER, 0);
                buff_check(d[model], wins[wi], n);
                myri_fabric_counters c = ctrs(f);
                assert_int_equal(c.delivered, 1);
                assert_int_equal(c.dropped_total, 0);
                myri_port_stats ps;
                myri_port_get_stats(d[model]->port, &ps);
                assert_int_equal(ps.rx_buff, d[model]->n - 1);
                assert_int_equal(ps.rx_bytes, n);
                assert_true(chst(f, 2).max_slack_bytes <= 80);
                myri_sim_destroy(sim);
                myri_topo_destroy(t);
            }
            same_recs(d[0], d[1]);
            free(d[0]);
            free(d[1]);
        }
}

/* ---- 5. CRC error ---------------------------------------------------------------------------- */

static void test_crc_error(void **state)
{
    (void)state;
    /* character 10 of packet 1 on h0 -> s0 (route byte first) or character 9 on
     * s0 -> h1 (the port's own channel): both are window byte 9 */
    static const struct { size_t ch; uint32_t idx; } where[] = {{0, 10}, {2, 9}};
    for (size_t k = 0; k < 2; k++) {
        dev *d[2];
        for (int model = 0; model < 2; model++) {
            myri_topo *t = line1();
            myri_sim *sim = myri_sim_create(1);
            myri_fabric *f = mk(sim, t, model, NULL);
            dev *dv = d[model] = dv_new(sim, f, 1, 4096, true);
            dv->rearm_ps = 0;
            dv->exp_payload = 100;
            assert_int_equal(myri_fabric_corrupt(f, 1, where[k].ch, where[k].idx, 0x04), MYRI_OK);
            send_ideal(f, 0, 0x81, 1, 100);
            myri_sim_run(sim, 20 * MYRI_PS_PER_US, 0);
            assert_int_equal(dv->n, 1);
            const rec *r = &dv->r[0];
            assert_int_equal(r->end, MYRI_PORT_RX_TAIL);
            assert_int_equal(r->crc_ok, 0);
            assert_int_not_equal(r->crc_rem, 0);
            assert_int_equal(r->pkt_bytes, 105);
            uint8_t want[256];
            expect(1, 100, want);
            want[9] ^= 0x04; /* handed over as it arrived */
            assert_memory_equal(dv->last, want, 105);
            assert_int_equal(r->crc_rem, myri_crc8_update(&g_crc, 0, dv->last, 105));
            send_ideal(f, 0, 0x81, 2, 100); /* the next one is good */
            myri_sim_run(sim, MYRI_TIME_NEVER, 0);
            assert_int_equal(dv->n, 2);
            assert_int_equal(dv->good, 1);
            myri_fabric_counters c = ctrs(f);
            assert_int_equal(c.dropped[MYRI_FABRIC_DROP_CRC], 1);
            assert_int_equal(c.dropped_total, 1);
            assert_int_equal(c.delivered, 1);
            ft_sort(&g_log);
            assert_int_equal(g_log.rec[0].id, 1);
            assert_int_equal(g_log.rec[0].reason, MYRI_FABRIC_DROP_CRC);
            myri_sim_destroy(sim);
            myri_topo_destroy(t);
        }
        same_recs(d[0], d[1]);
        free(d[0]);
        free(d[1]);
    }
}

/* ---- 6. link notices ------------------------------------------------------------------------ */

/* Head of a packet sent by h0 at 0 reaching h1 through s0 (FABRIC.md,
 * unloaded latency): T + P + max(L, T) at the switch, then T + P. */
static uint64_t line1_head_ps(void)
{
    myri_fabric_params p;
    myri_fabric_params_default(&p);
    uint64_t prop = (uint64_t)floor(10.0 / (p.prop_speed_c * 299792458.0) * 1e12 + 0.5);
    uint64_t l = p.switch_latency_ps > T_PS ? p.switch_latency_ps : T_PS;
    return (T_PS + prop + l) + (T_PS + prop);
}

/* Packet 1 (2000 B, 25 us) flows to h1's device; link s0-h1 is cut at 10 us
 * and restored at `restore`; packet 2 is sent at 50 us. */
static dev *cut_run(int model, uint64_t restore, uint64_t arm_at)
{
    myri_topo *t = line1();
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = mk(sim, t, model, NULL);
    dev *d = dv_new(sim, f, 1, 4096, arm_at == 0);
    if (arm_at) dv_later(d, EV_ARM, arm_at);
    d->rearm_ps = 0;
    d->exp_payload = 2000;
    assert_int_equal(myri_fabric_cut_link(f, 1, 10 * MYRI_PS_PER_US), MYRI_OK);
    assert_int_equal(myri_fabric_restore_link(f, 1, restore), MYRI_OK);
    send_ideal(f, 0, 0x81, 1, 2000);
    myri_sim_run(sim, 50 * MYRI_PS_PER_US, 0);
    send_ideal(f, 0, 0x81, 2, 2000);
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    myri_fabric_counters c = ctrs(f);
    assert_int_equal(c.dropped[MYRI_FABRIC_DROP_LINK_DOWN], 1);
    assert_int_equal(c.delivered, 1);
    assert_int_equal(c.in_flight, 0);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
    return d;
}

/* The TRUNC of packet 1: a true prefix, about what arrived before the cut. */
static void cut_check_trunc(const rec *r)
{
    assert_int_equal(r->kind, 1);
    assert_int_equal(r->id, 1);
    assert_int_equal(r->end, MYRI_PORT_RX_TRUNC);
    assert_int_equal(r->crc_ok, 0);
    assert_int_equal(r->bytes, r->pkt_bytes);
    uint64_t arrived = (10 * MYRI_PS_PER_US - line1_head_ps()) / T_PS;
    assert_true(r->bytes + 2 >= arrived && r->bytes <= arrived + 2);
}

static void test_link_notices(void **state)
{
    (void)state;
    const uint64_t nonidle = 10 * MYRI_PS_PER_US;
    dev *d[2];
    for (int model = 0; model < 2; model++) {
        dev *dv = d[model] = cut_run(model, 40 * MYRI_PS_PER_US, 0);
        assert_int_equal(dv->n, 4);
        /* noticed link.nonidle_period after the cut: the packet ends (TRUNC), then
         * the link notice (rx before link at one instant) */
        cut_check_trunc(&dv->r[0]);
        assert_int_equal(dv->r[0].at, 10 * MYRI_PS_PER_US + nonidle);
        assert_int_equal(dv->r[1].kind, 2);
        assert_int_equal(dv->r[1].end, 0); /* down */
        assert_int_equal(dv->r[1].now, 10 * MYRI_PS_PER_US + nonidle);
        assert_int_equal(dv->r[2].kind, 2);
        assert_int_equal(dv->r[2].end, 1); /* up, at the restore */
        assert_int_equal(dv->r[2].now, 40 * MYRI_PS_PER_US);
        assert_int_equal(dv->r[3].kind, 1); /* the link works again */
        assert_int_equal(dv->r[3].id, 2);
        assert_int_equal(dv->good, 1);
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
    /* restored before the receiver could notice: no link notice, but the
     * packet the cut truncated still ends in TRUNC */
    for (int model = 0; model < 2; model++) {
        dev *dv = d[model] = cut_run(model, 15 * MYRI_PS_PER_US, 0);
        assert_int_equal(count_kind(dv, 2), 0);
        assert_int_equal(dv->n, 2);
        cut_check_trunc(&dv->r[0]);
        assert_int_equal(dv->r[1].id, 2);
        assert_int_equal(dv->good, 1);
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
    /* unarmed at the cut: the prefix waits in the slack, ended as by FRES;
     * armed at 45 us, the device gets it (TRUNC) after the link notices */
    for (int model = 0; model < 2; model++) {
        dev *dv = d[model] = cut_run(model, 40 * MYRI_PS_PER_US, 45 * MYRI_PS_PER_US);
        assert_int_equal(dv->n, 4);
        assert_int_equal(dv->r[0].kind, 2);
        assert_int_equal(dv->r[0].now, 20 * MYRI_PS_PER_US);
        assert_int_equal(dv->r[1].kind, 2);
        assert_int_equal(dv->r[1].now, 40 * MYRI_PS_PER_US);
        assert_int_equal(dv->r[2].kind, 1);
        assert_int_equal(dv->r[2].end, MYRI_PORT_RX_TRUNC);
        assert_true(dv->r[2].bytes >= 51 && dv->r[2].bytes <= 80);
        assert_true(dv->r[2].now > 45 * MYRI_PS_PER_US && dv->r[2].now < 50 * MYRI_PS_PER_US);
        assert_int_equal(dv->r[3].id, 2);
        assert_int_equal(dv->good, 1);
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
}

/* The device's sending link is cut while it sends: tx notice (not sent,
 * link_down) at the cut; a send while the cable is down is dropped at once;
 * the same device hears of its receiving side going down and up. */
static void test_send_link_cut(void **state)
{
    (void)state;
    dev *d[2];
    for (int model = 0; model < 2; model++) {
        myri_topo *t = line1();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model, NULL);
        dev *tx = d[model] = dv_new(sim, f, 0, 64, false);
        dev *rx = dv_new(sim, f, 1, 4096, true);
        rx->rearm_ps = 0;
        rx->exp_payload = 2000;
        assert_int_equal(myri_fabric_cut_link(f, 0, 10 * MYRI_PS_PER_US), MYRI_OK);
        assert_int_equal(myri_fabric_restore_link(f, 0, 40 * MYRI_PS_PER_US), MYRI_OK);
        dv_send(tx, 1, 0x81, 2000, 1 + 4 + 2000, 0, 0);
        myri_sim_run(sim, 30 * MYRI_PS_PER_US, 0);
        dv_send(tx, 2, 0x81, 2000, 1 + 4 + 2000, 0, 0); /* the cable is down */
        myri_sim_run(sim, 50 * MYRI_PS_PER_US, 0);
        dv_send(tx, 3, 0x81, 2000, 1 + 4 + 2000, 0, 0); /* restored */
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        static const uint64_t kind[] = {0, 2, 0, 2, 0}, id[] = {1, 0, 2, 0, 3}, end[] = {0, 0, 0, 1, 1};
        const uint64_t at[] = {10 * MYRI_PS_PER_US, 20 * MYRI_PS_PER_US, 30 * MYRI_PS_PER_US,
                               40 * MYRI_PS_PER_US, 50 * MYRI_PS_PER_US + (1 + 4 + 2000 + 1) * T_PS};
        assert_int_equal(tx->n, 5);
        for (size_t i = 0; i < 5; i++) {
            assert_int_equal(tx->r[i].kind, kind[i]);
            assert_int_equal(tx->r[i].id, id[i]);
            assert_int_equal(tx->r[i].end, end[i]);
            assert_int_equal(tx->r[i].now, at[i]);
            if (kind[i] == 0 && !end[i]) assert_int_equal(tx->r[i].bytes, MYRI_FABRIC_DROP_LINK_DOWN);
        }
        myri_port_stats ps;
        myri_port_get_stats(tx->port, &ps);
        assert_int_equal(ps.tx_packets, 1);
        assert_int_equal(ps.tx_dropped, 2);
        assert_int_equal(rx->good, 1); /* packet 3 */
        assert_int_equal(count_kind(rx, 1), 2); /* packet 1's head part ended in TRUNC */
        assert_int_equal(rx->r[0].end, MYRI_PORT_RX_TRUNC);
        myri_fabric_counters c = ctrs(f);
        assert_int_equal(c.dropped[MYRI_FABRIC_DROP_LINK_DOWN], 2);
        assert_int_equal(c.delivered, 1);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
        free(rx);
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
}

/* ---- 7. rx_count while a packet flows --------------------------------------------------------- */

#define RC_PAY 1000u

/* h0 sends a 1000 B packet to h1's device (armed at 0, once); the device
 * probes rx_count at head + offs[i]. */
static dev *rc_run(int model, uint64_t head, const int64_t *offs, size_t n)
{
    myri_topo *t = line1();
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = mk(sim, t, model, NULL);
    dev *d = dv_new(sim, f, 1, 4096, true);
    d->rearm_ps = MYRI_TIME_NEVER;
    d->exp_payload = RC_PAY;
    for (size_t i = 0; i < n; i++) dv_later(d, EV_PROBE, (uint64_t)((int64_t)head + offs[i]));
    send_ideal(f, 0, 0x81, 1, RC_PAY);
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    assert_int_equal(d->good, 1);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
    return d;
}

static void test_rx_count(void **state)
{
    (void)state;
    const uint32_t n = 4 + RC_PAY + 1;
    const uint64_t head = line1_head_ps();
    int64_t offs[200];
    size_t no = 0;
    offs[no++] = -(int64_t)T_PS;
    for (int64_t k = 0; k < 60; k++) { /* on the character grid, just after, half way */
        offs[no++] = k * (int64_t)T_PS;
        offs[no++] = k * (int64_t)T_PS + 1;
        offs[no++] = k * (int64_t)T_PS + (int64_t)T_PS / 2;
    }
    offs[no++] = (int64_t)(n - 1) * (int64_t)T_PS;      /* the last byte moves now: not yet */
    offs[no++] = (int64_t)(n - 1) * (int64_t)T_PS + 1;  /* every byte, the GAP not yet */
    offs[no++] = (int64_t)(n + 50) * (int64_t)T_PS;     /* the window is over: unarmed, 0 */
    dev *d[2];
    for (int model = 0; model < 2; model++) {
        d[model] = rc_run(model, head, offs, no);
        const dev *dv = d[model];
        assert_int_equal(dv->n, no + 1);
        size_t pi = 0;
        for (size_t i = 0; i < dv->n; i++) {
            const rec *r = &dv->r[i];
            if (r->kind == 1) {
                assert_int_equal(r->head, head); /* armed before: the head moves as it arrives */
                assert_int_equal(r->at, head + (uint64_t)n * T_PS);
                continue;
            }
            int64_t off = offs[pi++];
            uint64_t want = off <= 0 ? 0 : ((uint64_t)off + T_PS - 1) / T_PS; /* moved before t */
            if (want > n) want = n;
            if ((uint64_t)off >= (uint64_t)(n + 50) * T_PS) want = 0;
            if (r->bytes != want)
                fail_msg("model %d: probe at head%+lld ps: rx_count %llu, expected %llu", model, (long long)off,
                         (unsigned long long)r->bytes, (unsigned long long)want);
        }
    }
    same_recs(d[0], d[1]);
    free(d[0]);
    free(d[1]);
}

/* In a notice at t the characters moved at t count; in an event at t not yet.
 * Cables of P = 4 T put the head (2 T + 2 P + L = 54 T) on the character grid,
 * so h1's own tx notice at (k + 6) T falls on a character's instant. */
static void test_rx_count_in_notice(void **state)
{
    (void)state;
    const double len[2] = {0.05e-6 * 0.6 * 299792458.0, 0.05e-6 * 0.6 * 299792458.0};
    static const uint32_t ks[] = {48, 60, 100, 500};
    for (size_t ki = 0; ki < 4; ki++) {
        uint64_t seen[2][2];
        for (int model = 0; model < 2; model++) {
            myri_topo *t = ft_line(1, 8, len);
            myri_sim *sim = myri_sim_create(1);
            myri_fabric *f = mk(sim, t, model, NULL);
            dev *d = dv_new(sim, f, 1, 4096, true);
            d->rearm_ps = MYRI_TIME_NEVER;
            d->exp_payload = RC_PAY;
            const uint64_t tx_at = (ks[ki] + 6) * T_PS; /* route, type, payload, CRC, then the GAP */
            dv_later(d, EV_PROBE, tx_at);
            send_ideal(f, 0, 0x81, 1, RC_PAY);
            dv_send(d, 9, 0x80, ks[ki], 1 + 4 + ks[ki], 0, 0);
            myri_sim_run(sim, MYRI_TIME_NEVER, 0);
            assert_int_equal(d->good, 1);
            for (size_t i = 0; i < d->n; i++) {
                if (d->r[i].kind == 1) assert_int_equal(d->r[i].head, 54 * T_PS);
                if (d->r[i].kind == 0) {
                    assert_int_equal(d->r[i].at, tx_at);
                    seen[model][0] = d->r[i].pkt_bytes; /* rx_count in the tx notice */
                }
                if (d->r[i].kind == 3) seen[model][1] = d->r[i].bytes; /* in its own event */
            }
            assert_int_equal(seen[model][0], ks[ki] + 6 - 54 + 1);
            assert_int_equal(seen[model][1], ks[ki] + 6 - 54);
            myri_sim_destroy(sim);
            myri_topo_destroy(t);
            free(d);
        }
    }
}

/* ---- 8. misuse ------------------------------------------------------------------------------------ */

static void misuse_before_send(myri_fabric *f, myri_port *p0, myri_port *p1, dev *d)
{
    uint8_t buf[16];
    assert_null(myri_fabric_port(f, 8));
    assert_null(myri_fabric_port(NULL, 0));
    assert_int_equal(myri_port_host(p1), 1);
    /* no device yet */
    assert_int_equal(myri_port_rx_arm(p0, buf, 16), MYRI_ESTATE);
    myri_fabric_packet pk = {.id = 1, .src_host = 0, .route_len = 1, .route = (const uint8_t *)"\x81", .type = 5};
    assert_int_equal(myri_port_send(p0, &pk, 0, false), MYRI_ESTATE);
    assert_int_equal(myri_port_send_more(p0, 0, false), MYRI_ESTATE);
    assert_int_equal(myri_port_attach(NULL, &dv_ops, d), MYRI_EINVAL);
    assert_int_equal(myri_port_attach(p0, NULL, d), MYRI_EINVAL);
    assert_int_equal(myri_port_attach(p0, &dv_ops, d), MYRI_OK);
    assert_int_equal(myri_port_attach(p0, &dv_ops, d), MYRI_ESTATE); /* twice */
    assert_int_equal(myri_port_attach(p1, &dv_ops, d), MYRI_ESTATE); /* (dv_new attached it) */
    /* receive window */
    assert_int_equal(myri_port_rx_count(p0), 0); /* unarmed */
    assert_int_equal(myri_port_rx_count(NULL), 0);
    assert_false(myri_port_rx_armed(p0));
    assert_false(myri_port_rx_armed(NULL));
    assert_int_equal(myri_port_rx_arm(NULL, buf, 16), MYRI_EINVAL);
    assert_int_equal(myri_port_rx_arm(p0, NULL, 16), MYRI_EINVAL);
    assert_int_equal(myri_port_rx_arm(p0, buf, 0), MYRI_EINVAL);
    assert_false(myri_port_rx_armed(p0));
    myri_port_stats st;
    assert_int_equal(myri_port_get_stats(NULL, &st), MYRI_EINVAL);
    assert_int_equal(myri_port_get_stats(p0, NULL), MYRI_EINVAL);
    assert_int_equal(myri_port_send_more(NULL, 1, false), MYRI_EINVAL);
    assert_int_equal(myri_port_send_more(p0, 1, false), MYRI_ESTATE); /* nothing in flight */
}

static void misuse_send_args(myri_fabric *f, myri_port *p0)
{
    static const uint8_t route = 0x81, payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    myri_fabric_packet pk = {.id = 1, .src_host = 0, .route_len = 1, .route = &route, .type = 5,
                             .payload_bytes = 8, .payload = payload};
    assert_int_equal(myri_fabric_send(f, &pk), MYRI_ESTATE); /* the device owns host 0 */
    assert_int_equal(myri_port_send(NULL, &pk, 0, false), MYRI_EINVAL);
    assert_int_equal(myri_port_send(p0, NULL, 0, false), MYRI_EINVAL);
    assert_int_equal(myri_port_send(p0, &pk, 1 + 4 + 8 + 1, false), MYRI_EINVAL); /* more ready than bytes */
    pk.src_host = 1;
    assert_int_equal(myri_port_send(p0, &pk, 0, false), MYRI_EINVAL); /* another host's packet */
    pk.src_host = 0;
    pk.payload = NULL;
    assert_int_equal(myri_port_send(p0, &pk, 0, false), MYRI_EINVAL);
    pk.payload = payload;
    pk.route = NULL;
    assert_int_equal(myri_port_send(p0, &pk, 0, false), MYRI_EINVAL);
    pk.route = &route;
    pk.route_len = 33;
    assert_int_equal(myri_port_send(p0, &pk, 0, false), MYRI_EINVAL);
    myri_fabric_counters c = ctrs(f);
    assert_int_equal(c.injected, 0); /* nothing refused was injected */
}

static void test_misuse(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model, NULL);
        dev *d = dv_new(sim, f, 1, 64, false); /* h1's device; it also gets h0's tx notices */
        d->rearm_ps = MYRI_TIME_NEVER;
        myri_port *p0 = myri_fabric_port(f, 0), *p1 = myri_fabric_port(f, 1), *p2 = myri_fabric_port(f, 2);
        misuse_before_send(f, p0, p1, d);
        misuse_send_args(f, p0);
        assert_int_equal(myri_port_rx_arm(p1, d->win, 64), MYRI_OK);
        assert_int_equal(myri_port_rx_arm(p1, d->win, 64), MYRI_ESTATE); /* armed already */
        assert_true(myri_port_rx_armed(p1));
        assert_int_equal(myri_port_rx_count(p1), 0);
        static const uint8_t route = 0x81, payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        myri_fabric_packet pk = {.id = 1, .src_host = 0, .route_len = 1, .route = &route, .type = 5,
                                 .payload_bytes = 8, .payload = payload};
        assert_int_equal(myri_port_send(p0, &pk, 2, false), MYRI_OK);
        assert_int_equal(myri_port_send(p0, &pk, 13, false), MYRI_ESTATE);            /* one at a time */
        assert_int_equal(myri_port_send_more(p0, 14, false), MYRI_EINVAL);            /* beyond the room */
        assert_int_equal(myri_port_send_more(p0, 4, true), MYRI_EINVAL);              /* a tail inside route + type */
        assert_int_equal(myri_port_send_more(p0, 1, false), MYRI_OK);                 /* (never decreases) */
        assert_int_equal(myri_port_attach(p2, &dv_ops, d), MYRI_ESTATE);      /* after the first packet */
        assert_int_equal(myri_port_send_more(p0, 13, true), MYRI_OK);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        assert_int_equal(myri_port_send_more(p0, 13, true), MYRI_ESTATE); /* over */
        assert_int_equal(d->n, 2);                                  /* tx on h0, rx on h1 */
        assert_int_equal(d->r[0].kind, 0);
        assert_int_equal(d->r[0].end, 1);
        assert_int_equal(d->r[1].kind, 1);
        assert_int_equal(d->r[1].end, MYRI_PORT_RX_TAIL);
        assert_int_equal(d->r[1].pkt_bytes, 4 + 8 + 1);
        assert_int_equal(d->r[1].crc_ok, 1);
        assert_int_equal(myri_port_send(p0, &pk, 13, true), MYRI_OK); /* the next one may go */
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        assert_int_equal(ctrs(f).delivered, 1); /* p1 was not re-armed: the second waits */
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
        free(d);
    }
}

/* Every byte ready but no tail: the trailer and the GAP wait for the tail, as
 * on the LANai (SMLT, ST); the bytes before them have arrived. */
static void test_tail_later(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        myri_topo *t = ft_star8();
        myri_sim *sim = myri_sim_create(1);
        myri_fabric *f = mk(sim, t, model, NULL);
        dev *d0 = dv_new(sim, f, 0, 64, false), *d = dv_new(sim, f, 1, 64, true);
        d->rearm_ps = d0->rearm_ps = MYRI_TIME_NEVER;
        myri_port *p0 = myri_fabric_port(f, 0), *p1 = myri_fabric_port(f, 1);
        static const uint8_t route = 0x81, payload[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        myri_fabric_packet pk = {.id = 1, .src_host = 0, .route_len = 1, .route = &route, .type = 5,
                                 .payload_bytes = 8, .payload = payload};
        assert_int_equal(myri_port_send(p0, &pk, 13, false), MYRI_OK); /* route, type, payload: no tail */
        myri_sim_run(sim, 10 * MYRI_PS_PER_US, 0);
        assert_int_equal(d0->n + d->n, 0);              /* no tx notice, no rx notice */
        assert_int_equal(myri_port_rx_count(p1), 4 + 8); /* type and payload arrived, not the trailer */
        assert_int_equal(myri_port_send_more(p0, 13, true), MYRI_OK);
        myri_sim_run(sim, MYRI_TIME_NEVER, 0);
        assert_int_equal(d0->n, 1); /* tx on h0 */
        assert_int_equal(d0->r[0].kind, 0);
        assert_int_equal(d0->r[0].end, 1);
        assert_int_equal(d->n, 1); /* rx on h1 */
        assert_int_equal(d->r[0].end, MYRI_PORT_RX_TAIL);
        assert_int_equal(d->r[0].pkt_bytes, 4 + 8 + 1);
        assert_int_equal(d->r[0].crc_ok, 1);
        assert_true(d0->r[0].at >= 10 * MYRI_PS_PER_US && d->r[0].at >= 10 * MYRI_PS_PER_US);
        myri_sim_destroy(sim);
        myri_topo_destroy(t);
        free(d0);
        free(d);
    }
}

/* The port learns a packet's length at its tail only: the payload room
 * given with myri_port_send is 64 bytes, the tail comes after 6.  A window
 * that the packet fills to its last byte (the trailer) ends with the GAP
 * (TAIL), not BUFF; one byte smaller, BUFF when the trailer arrives, and the
 * next window gets the trailer and the GAP.  Both models. */
static void test_length_at_tail(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++)
        for (uint32_t win = 10; win <= 11; win++) {
            myri_topo *t = ft_star8();
            myri_sim *sim = myri_sim_create(1);
            myri_fabric *f = mk(sim, t, model, NULL);
            dev *d0 = dv_new(sim, f, 0, 64, false), *d = dv_new(sim, f, 1, win, true);
            d0->rearm_ps = MYRI_TIME_NEVER;
            d->rearm_ps = 0;
            myri_port *p0 = myri_fabric_port(f, 0);
            static const uint8_t route = 0x81;
            static uint8_t payload[64] = {9, 8, 7, 6, 5, 4};
            myri_fabric_packet pk = {.id = 1, .src_host = 0, .route_len = 1, .route = &route, .type = 5,
                                     .payload_bytes = sizeof payload, .payload = payload};
            assert_int_equal(myri_port_send(p0, &pk, 2, false), MYRI_OK);
            myri_sim_run(sim, 1 * MYRI_PS_PER_US, 0);
            assert_int_equal(myri_port_send_more(p0, 8, false), MYRI_OK);
            myri_sim_run(sim, 2 * MYRI_PS_PER_US, 0);
            assert_int_equal(myri_port_send_more(p0, 11, true), MYRI_OK); /* 6 payload bytes: the length now */
            myri_sim_run(sim, MYRI_TIME_NEVER, 0);
            assert_int_equal(ctrs(f).delivered, 1);
            assert_int_equal(d0->n, 1);
            assert_int_equal(d0->r[0].end, 1); /* sent */
            uint32_t k = win == 11 ? 1 : 2;
            assert_int_equal(d->n, k);
            if (k == 2) {
                assert_int_equal(d->r[0].end, MYRI_PORT_RX_BUFF);
                assert_int_equal(d->r[0].bytes, 10);
            }
            assert_int_equal(d->r[k - 1].end, MYRI_PORT_RX_TAIL);
            assert_int_equal(d->r[k - 1].pkt_bytes, 4 + 6 + 1);
            assert_int_equal(d->r[k - 1].crc_ok, 1);
            myri_sim_destroy(sim);
            myri_topo_destroy(t);
            free(d0);
            free(d);
        }
}

/* ---- 9. same-instant rule ------------------------------------------------------------------------------ */

/* h1's device arms at `arm` (ps), the arm event scheduled: 0 at the start
 * (before the fabric's events), 1 by an event 1 ps earlier, 2 by an event at
 * `arm` itself (after the fabric's own engine event for that instant). */
static dev *si_run(int model, uint64_t arm, int order)
{
    myri_topo *t = line1();
    myri_sim *sim = myri_sim_create(1);
    myri_fabric *f = mk(sim, t, model, NULL);
    dev *d = dv_new(sim, f, 1, 64, false);
    d->rearm_ps = 0;
    d->exp_payload = 150;
    if (order == 0) dv_later(d, EV_ARM, arm);
    send_ideal(f, 0, 0x81, 1, 150);
    send_ideal(f, 0, 0x81, 2, 150);
    if (order == 1) {
        myri_sim_run(sim, arm - 1, 0);
        dv_later(d, EV_ARM, arm);
    } else if (order == 2) {
        dv_later(d, EV_CHAIN, arm);
    }
    myri_sim_run(sim, MYRI_TIME_NEVER, 0);
    assert_int_equal(d->good, 2);
    assert_int_equal(d->bad, 0);
    myri_sim_destroy(sim);
    myri_topo_destroy(t);
    return d;
}

static void test_same_instant_arm(void **state)
{
    (void)state;
    const uint64_t head = line1_head_ps();
    const uint64_t arms[] = {head - T_PS, head - 1, head, head + 1, head + T_PS / 2, head + T_PS, head + 60 * T_PS};
    for (size_t ai = 0; ai < sizeof arms / sizeof arms[0]; ai++) {
        dev *ref = NULL;
        for (int model = 0; model < 2; model++)
            for (int order = 0; order < 3; order++) {
                dev *d = si_run(model, arms[ai], order);
                /* the first byte enters the window when both the head is there and the window is */
                uint64_t h = arms[ai] > head ? arms[ai] : head;
                assert_int_equal(d->r[0].head, h);
                if (!ref) {
                    ref = d;
                    continue;
                }
                same_recs(ref, d);
                free(d);
            }
        free(ref);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hotspot_slow_port), cmocka_unit_test(test_never_armed),
        cmocka_unit_test(test_overlapped_send),   cmocka_unit_test(test_buff_windows),
        cmocka_unit_test(test_crc_error),         cmocka_unit_test(test_link_notices),
        cmocka_unit_test(test_rx_count),          cmocka_unit_test(test_misuse),           cmocka_unit_test(test_tail_later), cmocka_unit_test(test_length_at_tail),
        cmocka_unit_test(test_same_instant_arm),  cmocka_unit_test(test_rx_count_in_notice),
        cmocka_unit_test(test_send_link_cut),     cmocka_unit_test(test_trunc_windows_and_misrouted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
