/* ip_api0_prog.c -- the IP driver's transport over seed 001's API
 * (src/live/ip_api0.c) run over the SIMULATED Myrinet: a user program
 * (myri_main, loaded with `myri run SCENARIO --program FILE.so`) on h0 and
 * h1, each with a full IP driver (src/live/ipdrv.c) whose "TUN device" is
 * one end of a socketpair.  h0 writes IPv4 UDP packets of 20 B (header
 * only) up to the board's MTU into its TUN stand-in; its driver reads each
 * and sends it as ONE API packet to channel MYRI_IP_CHANNEL of h1; h1's
 * driver takes it from the channel, validates it and writes it into h1's
 * stand-in, where it is compared byte for byte.  A packet one byte over the
 * MTU is refused by the driver (tx_too_long), one to a host outside the
 * plan too (tx_no_host), both counted.  Run by tests/scenario/ip_api0.sh.
 * Figures: ip_api0.mtu_bytes, ip_api0.sent, ip_api0.delivered,
 * ip_api0.errors.  Exit 0 when every packet arrived intact, 1 otherwise,
 * 2 when the setup failed.
 */
#include <myri/api0.h>
#include <myri/prog.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/ip_api0.h"
#include "live/ipdrv.h"

enum { MAX_ROUTE = 64, NSIZES = 8 };

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Packet k of len bytes (>= 20) from h0 to dst: IPv4, UDP when there is room
 * for its header (else protocol 253, "for experimentation", RFC 3692),
 * a payload that differs per packet and byte, right checksums. */
static void make_packet(uint8_t *p, size_t len, uint32_t k, uint32_t src, uint32_t dst)
{
    memset(p, 0, len);
    p[0] = 0x45;
    put16(p + 2, (unsigned)len);
    put16(p + 4, k);
    p[8] = 64;
    p[9] = len >= 28 ? 17 : 253;
    for (int i = 0; i < 4; i++) {
        p[12 + i] = (uint8_t)(src >> (24 - 8 * i));
        p[16 + i] = (uint8_t)(dst >> (24 - 8 * i));
    }
    put16(p + 10, (unsigned)(~myri_ip_csum_add(0, p, 20) & 0xffffu));
    if (len < 28) return;
    put16(p + 20, 5001);
    put16(p + 22, 5201);
    put16(p + 24, (unsigned)(len - 20));
    for (size_t i = 28; i < len; i++) p[i] = (uint8_t)((k + 1) * 131u + i * 7u + (i >> 8));
    uint8_t ph[12];
    memcpy(ph, p + 12, 8);
    ph[8] = 0;
    ph[9] = 17;
    put16(ph + 10, (unsigned)(len - 20));
    unsigned c = ~myri_ip_csum_add(myri_ip_csum_add(0, ph, 12), p + 20, len - 20) & 0xffffu;
    put16(p + 26, c ? c : 0xffffu);
}

typedef struct prog {
    int me, tun[2], mtu;
    myri_ip_plan plan;
    myri_ip_api0 t;
    myri_ipdrv d;
    uint8_t *pkt, *got;
} prog;

static int setup(prog *g)
{
    char err[256], route[2][MAX_ROUTE];
    const uint8_t *routes[2] = {(const uint8_t *)route[0], (const uint8_t *)route[1]};
    int lens[2] = {0, 0};
    int peer = 1 - g->me;
    lens[peer] = myri_prog_route(peer, route[peer], MAX_ROUTE);
    if (lens[peer] < 0 || myri_ip_plan_parse(&g->plan, NULL, 2, err, sizeof err) < 0 ||
        myri_ip_api0_open(&g->t, 0, (uint32_t)g->me, 2, routes, lens, err, sizeof err) < 0) {
        fprintf(stderr, "ip_api0_prog h%d: %s\n", g->me, lens[peer] < 0 ? "no route" : err);
        return -1;
    }
    g->mtu = myri_ip_api0_mtu(&g->t);
    g->pkt = malloc((size_t)g->mtu + 2);
    g->got = malloc((size_t)g->mtu + 2);
    if (g->mtu < 576 || !g->pkt || !g->got || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, g->tun) < 0)
        return -1;
    return myri_ipdrv_init(&g->d, &g->plan, (uint32_t)g->me, g->tun[0], (size_t)g->mtu, &myri_ip_api0_ops, &g->t,
                           err, sizeof err);
}

/* h0: every size into the TUN stand-in, then through the driver. */
static long run_sender(prog *g, const size_t *sizes)
{
    long errors = 0;
    uint32_t h0 = myri_ip_plan_addr(&g->plan, 0), h1 = myri_ip_plan_addr(&g->plan, 1);
    for (uint32_t k = 0; k < NSIZES; k++) {
        make_packet(g->pkt, sizes[k], k, h0, h1);
        errors += write(g->tun[1], g->pkt, sizes[k]) != (ssize_t)sizes[k];
        errors += myri_ipdrv_from_tun(&g->d) != 1;
    }
    make_packet(g->pkt, (size_t)g->mtu + 1, 99, h0, h1); /* one byte over: refused */
    errors += write(g->tun[1], g->pkt, (size_t)g->mtu + 1) != g->mtu + 1 || myri_ipdrv_from_tun(&g->d) != 1;
    make_packet(g->pkt, 100, 98, h0, myri_ip_plan_addr(&g->plan, 5)); /* h5: no such host */
    errors += write(g->tun[1], g->pkt, 100) != 100 || myri_ipdrv_from_tun(&g->d) != 1;
    errors += g->d.c.tx_packets != NSIZES;
    errors += g->d.c.drops[MYRI_IPDRV_TX_TOO_LONG] != 1 || g->d.c.drops[MYRI_IPDRV_TX_NO_HOST] != 1;
    myri_prog_report("ip_api0.sent", (double)g->d.c.tx_packets);
    return errors;
}

/* h1: each packet from the channel through the driver into the stand-in. */
static long run_receiver(prog *g, const size_t *sizes)
{
    long errors = 0;
    uint32_t h0 = myri_ip_plan_addr(&g->plan, 0), h1 = myri_ip_plan_addr(&g->plan, 1);
    for (uint32_t k = 0; k < NSIZES; k++) {
        if (myri_prog_recv_wait(0, MYRI_IP_CHANNEL, 1e5) <= 0 || myri_ipdrv_from_transport(&g->d) != 1) {
            errors++;
            break;
        }
        make_packet(g->pkt, sizes[k], k, h0, h1);
        ssize_t n = read(g->tun[1], g->got, (size_t)g->mtu + 1);
        errors += n != (ssize_t)sizes[k] || memcmp(g->got, g->pkt, sizes[k]) != 0;
    }
    long dropped = 0;
    for (int r = 1; r < MYRI_IPDRV_NREASONS; r++) dropped += (long)g->d.c.drops[r];
    myri_prog_report("ip_api0.delivered", (double)g->d.c.rx_packets);
    return errors + dropped;
}

int myri_main(int argc, char **argv)
{
    (void)argc;
    (void)argv; /* the scenario's args are the ping-pong's: not used */
    prog g;
    memset(&g, 0, sizeof g);
    g.me = myri_prog_host();
    g.tun[0] = g.tun[1] = -1;
    if ((g.me != 0 && g.me != 1) || setup(&g) < 0) return 2;
    size_t sizes[NSIZES] = {20, 28, 84, 576, 1500, 4096, (size_t)g.mtu - 1, (size_t)g.mtu};
    for (int k = 0; k < NSIZES; k++)
        if (sizes[k] > (size_t)g.mtu) sizes[k] = (size_t)g.mtu; /* a smaller mcp.mtu: every size fits */
    long errors = g.me == 0 ? run_sender(&g, sizes) : run_receiver(&g, sizes);
    myri_prog_report("ip_api0.mtu_bytes", g.mtu);
    myri_prog_report("ip_api0.errors", (double)errors);
    char who[8];
    snprintf(who, sizeof who, "h%d", g.me);
    myri_ipdrv_report(&g.d, who, stderr);
    myri_ipdrv_free(&g.d);
    myri_ip_api0_close(&g.t);
    close(g.tun[0]);
    close(g.tun[1]);
    free(g.pkt);
    free(g.got);
    return errors ? 1 : 0;
}
