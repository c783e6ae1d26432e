/* test_lanai_net.c -- two LANais on a small fabric (h0 - s0 - h1), driven by
 * a tiny test firmware: the sender DMAs the route byte (SA skips the first
 * three bytes of its word, SML), then the type and payload with SMLT; the
 * receiver arms windows and takes the packet: every byte as sent, trailer
 * byte 0, RECV_INT (as an interrupt); a corrupted packet leaves a non-zero
 * trailer byte; a window shorter than the packet gives BUFF_INT and the
 * next continues it; a receiver that arms late fills the slack, the sender
 * stalls, nothing is lost; PIO sends (SB, SW, ST); SML chunks ended by SMLT
 * (no length is given before a packet: issue 22). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fabric_port_testlib.h"
#include "nic/lanai.h"
#include "nic_testlib.h"

#define TXBUF 0x1000u /* the route byte at TXBUF + 3, the type at TXBUF + 4 */
#define RXBUF 0x4000u

typedef struct tfw {
    int role;            /* 0 sender (DMA), 1 receiver, 2 sender (PIO), 3 sender (DMA chunks) */
    uint32_t pos;        /* role 3: the next payload byte to stage */
    int state;
    uint32_t payload;    /* payload bytes */
    uint32_t win;        /* receiver window bytes */
    myri_time_ps arm_at; /* receiver: first arm not before this */
    /* results */
    myri_time_ps sent_ps, route_int_ps, recv_ps;
    uint32_t end;        /* RMP after the tail */
    uint32_t buffs, recvs, irqs;
} tfw;

static uint32_t sender_step(tfw *f, myri_lanai *l)
{
    uint32_t isr = myri_lanai_read(l, MYRI_LANAI_ISR);
    switch (f->state) {
    case 0:
        myri_lanai_write(l, MYRI_LANAI_SMP, TXBUF);
        myri_lanai_write(l, MYRI_LANAI_SA, 3);
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SML, TXBUF + 4), MYRI_OK);
        f->state = 1;
        return 10;
    case 1:
        if (!(isr & MYRI_LANAI_SEND_INT)) return 0;
        f->route_int_ps = myri_lanai_now(l);
        myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
        myri_lanai_write(l, MYRI_LANAI_SMP, TXBUF + 4);
        myri_lanai_write(l, MYRI_LANAI_SA, 0);
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SMLT, TXBUF + 8 + f->payload), MYRI_OK);
        f->state = 2;
        return 10;
    case 2:
        if (!(isr & MYRI_LANAI_SEND_INT)) return 0;
        f->sent_ps = myri_lanai_now(l);
        myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
        f->state = 3;
        return 5;
    default: return 0;
    }
}

/* PIO: the route byte with SB, the type with SW, the payload with SW and
 * the last byte with ST (payload = 4k + 1). */
static uint32_t pio_sender_step(tfw *f, myri_lanai *l)
{
    if (f->state == 0) {
        const uint8_t *b = myri_lanai_sram(l, TXBUF + 3, 5 + f->payload);
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SB, b[0]), MYRI_OK);
        for (uint32_t i = 1; i + 4 <= 5 + f->payload; i += 4) {
            uint32_t w = (uint32_t)b[i] << 24 | (uint32_t)b[i + 1] << 16 | (uint32_t)b[i + 2] << 8 | b[i + 3];
            assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SW, w), MYRI_OK);
        }
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_ST, b[4 + f->payload]), MYRI_OK);
        f->state = 1;
        return 40;
    }
    if (f->state == 1 && (myri_lanai_read(l, MYRI_LANAI_ISR) & MYRI_LANAI_SEND_INT)) {
        f->sent_ps = myri_lanai_now(l);
        myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
        f->state = 2;
        return 5;
    }
    return 0;
}

/* DMA in chunks, the length known only at the tail: the route by SML (SA
 * 3), then the type and payload in SML chunks of CHUNK bytes, each after the
 * previous one's SEND_INT, the last one (whatever its size) by SMLT. */
#define CHUNK 300u
static uint32_t chunk_sender_step(tfw *f, myri_lanai *l)
{
    uint32_t isr = myri_lanai_read(l, MYRI_LANAI_ISR);
    if (f->state == 0) {
        myri_lanai_write(l, MYRI_LANAI_SMP, TXBUF);
        myri_lanai_write(l, MYRI_LANAI_SA, 3);
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SML, TXBUF + 4), MYRI_OK);
        f->pos = TXBUF + 4;
        f->state = 1;
        return 10;
    }
    if (f->state == 1) {
        if (!(isr & MYRI_LANAI_SEND_INT)) return 0;
        myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
        uint32_t end = TXBUF + 8 + f->payload, to = f->pos + CHUNK < end ? f->pos + CHUNK : end;
        myri_lanai_write(l, MYRI_LANAI_SMP, f->pos);
        myri_lanai_write(l, MYRI_LANAI_SA, 0);
        assert_int_equal(myri_lanai_write(l, to == end ? MYRI_LANAI_SMLT : MYRI_LANAI_SML, to), MYRI_OK);
        f->pos = to;
        if (to == end) f->state = 2;
        return 10;
    }
    if (f->state == 2 && (isr & MYRI_LANAI_SEND_INT)) {
        f->sent_ps = myri_lanai_now(l);
        myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
        /* bytes after the tail while the packet is over: a new packet may begin (no fault); the
         * first SB would begin one, so only check that a 0-byte SMLT with no packet is refused */
        myri_lanai_write(l, MYRI_LANAI_SMP, TXBUF + 8);
        assert_int_equal(myri_lanai_write(l, MYRI_LANAI_SMLT, TXBUF + 8), MYRI_ESTATE);
        f->state = 3;
        return 5;
    }
    return 0;
}

static void arm(tfw *f, myri_lanai *l, uint32_t at)
{
    myri_lanai_write(l, MYRI_LANAI_RMP, at);
    assert_int_equal(myri_lanai_write(l, MYRI_LANAI_RML, at + f->win), MYRI_OK);
}

/* Receiver: RECV_INT and BUFF_INT handled in system context (interrupts). */
static uint32_t receiver_step(tfw *f, myri_lanai *l, myri_lanai_ctx ctx)
{
    if (ctx == MYRI_LANAI_SYSTEM) {
        if (f->state == 0) {
            myri_lanai_write(l, MYRI_LANAI_IMR, MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT);
            f->state = 1;
            return 0;
        }
        uint32_t isr = myri_lanai_read(l, MYRI_LANAI_ISR);
        if (isr & MYRI_LANAI_BUFF_INT) { /* the next window continues the packet */
            f->irqs++;
            f->buffs++;
            myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_BUFF_INT);
            arm(f, l, myri_lanai_read(l, MYRI_LANAI_RMP));
            return 12;
        }
        if (isr & MYRI_LANAI_RECV_INT) {
            f->irqs++;
            f->recvs++;
            f->recv_ps = myri_lanai_now(l);
            f->end = myri_lanai_read(l, MYRI_LANAI_RMP);
            myri_lanai_write(l, MYRI_LANAI_ISR, MYRI_LANAI_RECV_INT);
            return 12;
        }
        return 0; /* punt */
    }
    if (f->state == 1) {
        if (myri_lanai_now(l) < f->arm_at) {
            myri_lanai_wake(l, f->arm_at);
            return 0;
        }
        arm(f, l, RXBUF);
        f->state = 2;
        return 8;
    }
    return 0;
}

static uint32_t tstep(void *fwp, myri_lanai *l, myri_lanai_ctx ctx)
{
    tfw *f = fwp;
    if (f->role == 1) return receiver_step(f, l, ctx);
    if (ctx == MYRI_LANAI_SYSTEM) return 0;
    return f->role == 0 ? sender_step(f, l) : f->role == 3 ? chunk_sender_step(f, l) : pio_sender_step(f, l);
}
static const myri_lanai_cpu_ops tops = {tstep};

typedef struct net {
    myri_sim *sim;
    myri_topo *t;
    myri_fabric *f;
    myri_fabric_params fp;
    myri_bus *bus[2];
    myri_lanai *l[2];
    tfw fw[2];
} net;

static myri_time_ps g_send_int_ps; /* the first SEND_INT set on nic0 */
/* busy intervals seen by the observers: [nic][0 hdma, 1 sdma, 2 rdma] */
static myri_time_ps g_from[2][3], g_to[2][3];
static uint8_t g_host_mem[2][8192];

static void tracer(void *ctx, const myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a, uint32_t b)
{
    (void)ctx;
    (void)l;
    (void)b;
    if (ev == MYRI_LANAI_EV_ISR && (a & MYRI_LANAI_SEND_INT) && g_send_int_ps == MYRI_TIME_NEVER) g_send_int_ps = t;
    int k = ev == MYRI_LANAI_EV_HDMA ? 0 : ev == MYRI_LANAI_EV_SDMA ? 1 : ev == MYRI_LANAI_EV_RDMA ? 2 : -1;
    int h = ctx != NULL;
    if (k >= 0 && a == 1) g_from[h][k] = t;
    if (k >= 0 && a == 0) g_to[h][k] = t;
}

static myri_time_ps overlap(int h, int x, int y)
{
    myri_time_ps a = g_from[h][x] > g_from[h][y] ? g_from[h][x] : g_from[h][y];
    myri_time_ps b = g_to[h][x] < g_to[h][y] ? g_to[h][x] : g_to[h][y];
    return b > a ? b - a : 0;
}

static void net_up(net *n, int model, uint32_t payload, uint32_t win, int sender_role)
{
    memset(n, 0, sizeof *n);
    n->t = line1();
    n->sim = myri_sim_create(1);
    myri_fabric_params_default(&n->fp);
    n->f = mk(n->sim, n->t, model, &n->fp);
    myri_bus_params bp = nt_bus_params();
    myri_lanai_params np = nt_lanai_params(&n->fp);
    for (uint32_t h = 0; h < 2; h++) {
        n->bus[h] = myri_bus_create(&bp);
        char name[16];
        snprintf(name, sizeof name, "nic%u", h);
        assert_int_equal(myri_lanai_create(n->sim, name, &np, n->bus[h], myri_fabric_port(n->f, h), &n->l[h]),
                         MYRI_OK);
        n->fw[h] = (tfw){.role = h == 0 ? sender_role : 1, .payload = payload, .win = win};
        assert_int_equal(myri_lanai_set_cpu(n->l[h], &tops, &n->fw[h]), MYRI_OK);
    }
    g_send_int_ps = MYRI_TIME_NEVER;
    assert_int_equal(myri_lanai_add_trace(n->l[0], tracer, NULL), MYRI_OK);
    assert_int_equal(myri_lanai_add_trace(n->l[1], tracer, n), MYRI_OK);
    memset(g_from, 0, sizeof g_from);
    memset(g_to, 0, sizeof g_to);
    for (uint32_t i = 0; i < sizeof g_host_mem[1]; i++) g_host_mem[1][i] = (uint8_t)(i * 7u + 1u);
    for (uint32_t h = 0; h < 2; h++)
        assert_int_equal(myri_lanai_set_host_mem(n->l[h], g_host_mem[h], sizeof g_host_mem[h]), MYRI_OK);
    /* the sender's packet in SRAM: route byte right-aligned in its word, type, payload */
    uint8_t *b = myri_lanai_sram(n->l[0], TXBUF, 8 + payload);
    memset(b, 0xEE, 3); /* skipped by SA */
    b[3] = 0x81;        /* h0 -> h1 through s0 */
    b[4] = 0;
    b[5] = 0;
    b[6] = (uint8_t)(PTYPE >> 8);
    b[7] = (uint8_t)PTYPE;
    for (uint32_t i = 0; i < payload; i++) b[8 + i] = pay(myri_packet_id(0, 0), i);
}

static void net_run(net *n)
{
    for (uint32_t h = 0; h < 2; h++) assert_int_equal(myri_lanai_start(n->l[h]), MYRI_OK);
    assert_int_equal(myri_sim_run(n->sim, MYRI_TIME_NEVER, 0), MYRI_OK);
}

static void net_down(net *n)
{
    for (uint32_t h = 0; h < 2; h++) {
        myri_lanai_destroy(n->l[h]);
        myri_bus_destroy(n->bus[h]);
    }
    myri_sim_destroy(n->sim);
    myri_topo_destroy(n->t);
}

/* The receiver's bytes: type, payload, then the trailer byte. */
static void check_bytes(net *n, uint32_t payload, uint8_t trailer)
{
    assert_int_equal(n->fw[1].end, RXBUF + 4 + payload + 1);
    const uint8_t *rx = myri_lanai_sram(n->l[1], RXBUF, 4 + payload + 1);
    const uint8_t *tx = myri_lanai_sram(n->l[0], TXBUF + 4, 4 + payload);
    assert_int_equal(memcmp(rx, tx, 4 + payload), 0);
    if (trailer == 0) assert_int_equal(rx[4 + payload], 0);
    else assert_int_not_equal(rx[4 + payload], 0);
}

static void test_send_receive(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        net n;
        net_up(&n, model, 1000, 4096, 0);
        net_run(&n);
        assert_int_equal(n.fw[1].recvs, 1);
        assert_int_equal(n.fw[1].buffs, 0);
        assert_int_equal(n.fw[1].irqs, 1);
        check_bytes(&n, 1000, 0);
        /* SEND_INT for the route chunk: 1 byte read out at the link byte rate; the CPU sees it
         * when its 10-cycle step ends */
        assert_int_equal(g_send_int_ps, T_PS);
        assert_int_equal(n.fw[0].route_int_ps, 10 * myri_lanai_cycle_ps(n.l[0]));
        assert_true(n.fw[0].sent_ps > n.fw[0].route_int_ps + 1005 * T_PS);
        assert_true(n.fw[1].recv_ps > n.fw[0].route_int_ps);
        myri_lanai_stats s0, s1;
        assert_int_equal(myri_lanai_get_stats(n.l[0], &s0), MYRI_OK);
        assert_int_equal(myri_lanai_get_stats(n.l[1], &s1), MYRI_OK);
        assert_int_equal(s0.sdma_packets, 1);
        assert_int_equal(s0.sdma_bytes, 1005);
        assert_int_equal(s1.rdma_windows, 1);
        assert_int_equal(s1.rdma_bytes, 1005);
        assert_true(s1.rdma_ps >= 1005 * T_PS);
        assert_int_equal(s0.faults + s1.faults, 0);
        assert_int_equal(s1.interrupts, 1);
        myri_fabric_counters c = ctrs(n.f);
        assert_int_equal(c.delivered, 1);
        net_down(&n);
    }
}

static void test_pio_send(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        net n;
        net_up(&n, model, 401, 4096, 2);
        net_run(&n);
        assert_int_equal(n.fw[1].recvs, 1);
        check_bytes(&n, 401, 0);
        assert_true(n.fw[0].sent_ps > 0);
        myri_lanai_stats s0;
        assert_int_equal(myri_lanai_get_stats(n.l[0], &s0), MYRI_OK);
        assert_int_equal(s0.sdma_bytes, 1 + 4 + 401); /* the length: what was staged at ST */
        assert_int_equal(s0.faults, 0);
        net_down(&n);
    }
}

/* Issue 22: no length is given before the packet; SML chunks, the last by
 * SMLT, and the packet that arrives is exactly the bytes staged (both
 * models; a chunk boundary in the middle of the payload, one at its end). */
static void test_chunked_send(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++)
        for (uint32_t payload = 896; payload <= 1000; payload += 104) {
            net n;
            net_up(&n, model, payload, 4096, 3);
            net_run(&n);
            assert_int_equal(n.fw[1].recvs, 1);
            check_bytes(&n, payload, 0);
            assert_int_equal(n.fw[0].state, 3);
            myri_lanai_stats s0;
            assert_int_equal(myri_lanai_get_stats(n.l[0], &s0), MYRI_OK);
            assert_int_equal(s0.sdma_packets, 1);
            assert_int_equal(s0.sdma_bytes, 1 + 4 + payload);
            assert_int_equal(s0.faults, 1); /* the 0-byte SMLT with no packet */
            assert_int_equal(ctrs(n.f).delivered, 1);
            net_down(&n);
        }
}

static void test_corrupted(void **state)
{
    (void)state;
    net n;
    net_up(&n, 0, 300, 4096, 0);
    assert_int_equal(myri_fabric_corrupt(n.f, myri_packet_id(0, 0), 0, 20, 0x10), MYRI_OK);
    net_run(&n);
    assert_int_equal(n.fw[1].recvs, 1);
    assert_int_equal(n.fw[1].end, RXBUF + 4 + 300 + 1);
    const uint8_t *rx = myri_lanai_sram(n.l[1], RXBUF, 305);
    assert_int_not_equal(rx[304], 0);
    /* the corrupted byte (channel index 20 = packet byte 19 after the route byte) */
    assert_int_equal(rx[19] ^ *myri_lanai_sram(n.l[0], TXBUF + 4 + 19, 1), 0x10);
    net_down(&n);
}

static void test_buff_continues(void **state)
{
    (void)state;
    for (int model = 0; model < 2; model++) {
        net n;
        net_up(&n, model, 1000, 256, 0);
        net_run(&n);
        assert_int_equal(n.fw[1].buffs, 1005 / 256); /* 3 full windows, the tail in the 4th */
        assert_int_equal(n.fw[1].recvs, 1);
        check_bytes(&n, 1000, 0);
        myri_lanai_stats s1;
        assert_int_equal(myri_lanai_get_stats(n.l[1], &s1), MYRI_OK);
        assert_int_equal(s1.rdma_windows, 4);
        assert_int_equal(s1.rdma_bytes, 1005);
        net_down(&n);
    }
}

/* The receiver arms 200 us late: the slack fills, STOP holds the sender,
 * then every byte arrives. */
static void test_unarmed_stalls(void **state)
{
    (void)state;
    myri_time_ps sent[2];
    for (int late = 0; late < 2; late++) {
        net n;
        net_up(&n, 0, 2000, 4096, 0);
        n.fw[1].arm_at = late ? 200 * MYRI_PS_PER_US : 0;
        net_run(&n);
        assert_int_equal(n.fw[1].recvs, 1);
        check_bytes(&n, 2000, 0);
        sent[late] = n.fw[0].sent_ps;
        if (late) {
            assert_true(n.fw[0].sent_ps > 200 * MYRI_PS_PER_US);       /* the sender waited */
            assert_true(n.fw[1].recv_ps > 200 * MYRI_PS_PER_US);
            assert_true(chst(n.f, 2).stops >= 1);                       /* s0 -> h1 stopped */
        }
        myri_fabric_counters c = ctrs(n.f);
        assert_int_equal(c.dropped_total, 0);
        net_down(&n);
    }
    assert_true(sent[1] > sent[0]);
}

typedef struct kick {
    myri_lanai *l;
} kick;
static void kick_handle(myri_component *self, const myri_event *ev)
{
    kick *k = self->state;
    myri_lanai_write(k->l, MYRI_LANAI_EAR, 0);
    myri_lanai_write(k->l, MYRI_LANAI_LAR, 0x20000);
    myri_lanai_write(k->l, MYRI_LANAI_DMA_DIR, MYRI_LANAI_DIR_E2L);
    assert_int_equal(myri_lanai_write(k->l, MYRI_LANAI_DMA_CTR, (uint32_t)ev->arg), MYRI_OK);
}
static myri_status kick_create(myri_component *self, const void *cfg)
{
    self->state = (void *)cfg;
    return MYRI_OK;
}
static const myri_component_ops kick_ops = {.type = "kick", .help = "", .create = kick_create,
                                            .handle = kick_handle};

/* A host DMA on each NIC while the packet flows: the overlap statistics are
 * the intersections of the intervals the observers saw. */
static void test_overlap_stats(void **state)
{
    (void)state;
    net n;
    net_up(&n, 0, 3000, 8192, 0);
    kick k[2] = {{n.l[0]}, {n.l[1]}};
    myri_component *c[2];
    assert_int_equal(myri_sim_add(n.sim, &kick_ops, "kick0", &k[0], &c[0]), MYRI_OK);
    assert_int_equal(myri_sim_add(n.sim, &kick_ops, "kick1", &k[1], &c[1]), MYRI_OK);
    myri_event e0 = {.target = c[0], .kind = 1, .arg = 4096}, e1 = {.target = c[1], .kind = 1, .arg = 8192};
    myri_sim_schedule(n.sim, 5 * MYRI_PS_PER_US, &e0);  /* during the send */
    myri_sim_schedule(n.sim, 15 * MYRI_PS_PER_US, &e1); /* during the receive */
    net_run(&n);
    check_bytes(&n, 3000, 0);
    myri_lanai_stats s0, s1;
    assert_int_equal(myri_lanai_get_stats(n.l[0], &s0), MYRI_OK);
    assert_int_equal(myri_lanai_get_stats(n.l[1], &s1), MYRI_OK);
    assert_true(overlap(0, 0, 1) > 0);
    assert_int_equal(s0.hdma_sdma_ps, overlap(0, 0, 1));
    assert_int_equal(s0.sdma_ps, g_to[0][1] - g_from[0][1]);
    assert_true(overlap(1, 0, 2) > 0);
    assert_int_equal(s1.hdma_rdma_ps, overlap(1, 0, 2));
    assert_int_equal(s1.rdma_ps, g_to[1][2] - g_from[1][2]);
    assert_int_equal(s1.hdma_ps[MYRI_LANAI_DIR_E2L], g_to[1][0] - g_from[1][0]);
    assert_int_equal(s0.hdma_rdma_ps + s1.hdma_sdma_ps, 0);
    assert_int_equal(memcmp(myri_lanai_sram(n.l[1], 0x20000, 8192), g_host_mem[1], 8192), 0);
    net_down(&n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_send_receive), cmocka_unit_test(test_pio_send), cmocka_unit_test(test_chunked_send),
        cmocka_unit_test(test_corrupted),    cmocka_unit_test(test_buff_continues),
        cmocka_unit_test(test_unarmed_stalls), cmocka_unit_test(test_overlap_stats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
