/* test_ipdrv.c -- the IP driver of live mode (src/live/ipdrv.c, ipns.c's
 * address plan, ip_wire.c; issue 21), without root or TUN: the plan (h0 =
 * 198.18.0.1, refusals of bad or too small prefixes), the Internet checksum
 * against a known header, every inbound drop reason, the outbound mapping of
 * a destination to a host and its drop reasons, and two drivers joined by the
 * in-process wire carrying a UDP packet byte for byte (socketpairs stand in
 * for the TUN devices), with drops counted, never silent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/ip_wire.h"
#include "live/ipdrv.h"
#include "live/ipns.h"

#define H0 0xc6120001u /* 198.18.0.1 */
#define H1 0xc6120002u /* 198.18.0.2 */

static void put16(uint8_t *p, unsigned v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static void put32(uint8_t *p, uint32_t v)
{
    put16(p, v >> 16);
    put16(p + 2, v & 0xffffu);
}

/* A UDP packet src -> dst with n payload bytes and right checksums; its length. */
static size_t make_udp(uint8_t *p, uint32_t src, uint32_t dst, size_t n)
{
    size_t len = 28 + n;
    memset(p, 0, len);
    p[0] = 0x45;
    put16(p + 2, (unsigned)len);
    p[8] = 64;
    p[9] = 17;
    put32(p + 12, src);
    put32(p + 16, dst);
    put16(p + 10, (unsigned)(~myri_ip_csum_add(0, p, 20) & 0xffffu));
    put16(p + 20, 5001);
    put16(p + 22, 5201);
    put16(p + 24, (unsigned)(8 + n));
    for (size_t i = 0; i < n; i++) p[28 + i] = (uint8_t)(i * 7 + 1);
    uint8_t ph[12];
    memcpy(ph, p + 12, 8);
    ph[8] = 0;
    ph[9] = 17;
    put16(ph + 10, (unsigned)(8 + n));
    unsigned c = ~myri_ip_csum_add(myri_ip_csum_add(0, ph, 12), p + 20, 8 + n) & 0xffffu;
    put16(p + 26, c ? c : 0xffffu);
    return len;
}

static void test_plan(void **state)
{
    (void)state;
    myri_ip_plan p;
    char err[256];
    assert_int_equal(myri_ip_plan_parse(&p, NULL, 16, err, sizeof err), 0);
    assert_int_equal(p.prefix_len, 15);
    assert_int_equal(myri_ip_plan_addr(&p, 0), H0);
    assert_int_equal(myri_ip_plan_addr(&p, 1), H1);
    assert_int_equal(myri_ip_plan_host(&p, H1), 1);
    assert_int_equal(myri_ip_plan_host(&p, 0xc6120000u), -1);  /* the network address */
    assert_int_equal(myri_ip_plan_host(&p, 0xc6120011u), -1);  /* h16 of 16 hosts: none */
    assert_int_equal(myri_ip_plan_host(&p, 0x0a000001u), -1);  /* 10.0.0.1: outside */
    char a[16];
    myri_ip_addr_str(myri_ip_plan_addr(&p, 15), a, sizeof a);
    assert_string_equal(a, "198.18.0.16");
    assert_int_equal(myri_ip_plan_parse(&p, "198.18.0.1/15", 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "host bits set"));
    assert_int_equal(myri_ip_plan_parse(&p, "198.19.255.252/30", 3, err, sizeof err), -1);
    assert_non_null(strstr(err, "do not fit"));
    assert_int_equal(myri_ip_plan_parse(&p, "198.19.255.252/30", 2, err, sizeof err), 0);
    assert_int_equal(myri_ip_plan_parse(&p, "127.0.0.0/8", 2, err, sizeof err), -1);
    assert_int_equal(myri_ip_plan_parse(&p, "224.0.0.0/8", 2, err, sizeof err), -1);
    assert_int_equal(myri_ip_plan_parse(&p, "198.18.0.0", 2, err, sizeof err), -1);
    assert_int_equal(myri_ip_plan_parse(&p, "198.18.0.0/31", 2, err, sizeof err), -1);
    assert_int_equal(myri_ip_plan_parse(&p, "198.18.0.0/15x", 2, err, sizeof err), -1);
}

static void test_checksum(void **state)
{
    (void)state;
    /* RFC 1071's worked example: 0001 f203 f4f5 f6f7 sums to ddf2. */
    const uint8_t v[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    assert_int_equal(myri_ip_csum_add(0, v, sizeof v), 0xddf2u);
    uint8_t p[100];
    size_t n = make_udp(p, H0, H1, 40);
    assert_true(myri_ip_csum_ok(p, n));
    p[40] ^= 1; /* a payload byte: the UDP checksum catches it */
    assert_false(myri_ip_csum_ok(p, n));
}

static void test_inbound_reasons(void **state)
{
    (void)state;
    myri_ip_plan plan;
    char err[256];
    assert_int_equal(myri_ip_plan_parse(&plan, NULL, 2, err, sizeof err), 0);
    uint8_t p[100], q[100];
    size_t n = make_udp(p, H0, H1, 40);
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, p, n), MYRI_IPDRV_OK);
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 0, 8192, p, n), MYRI_IPDRV_RX_NOT_FOR_US);
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, p, 19), MYRI_IPDRV_RX_SHORT);
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 60, p, n), MYRI_IPDRV_RX_TOO_LONG);
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, p, n - 1), MYRI_IPDRV_RX_BAD_LENGTH);
    memcpy(q, p, n);
    q[0] = 0x65;
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, q, n), MYRI_IPDRV_RX_NOT_IPV4);
    q[0] = 0x44;
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, q, n), MYRI_IPDRV_RX_BAD_IHL);
    memcpy(q, p, n);
    q[8] = 63; /* TTL changed, header checksum not */
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, q, n), MYRI_IPDRV_RX_BAD_CSUM);
    n = make_udp(q, 0x0a000001u, H1, 40);
    assert_int_equal(myri_ipdrv_check_inbound(&plan, 1, 8192, q, n), MYRI_IPDRV_RX_BAD_SOURCE);
    for (int r = 0; r < MYRI_IPDRV_NREASONS; r++) assert_string_not_equal(myri_ipdrv_reason_name(r), "unknown");
}

static void test_outbound_reasons(void **state)
{
    (void)state;
    myri_ip_plan plan;
    char err[256];
    assert_int_equal(myri_ip_plan_parse(&plan, NULL, 4, err, sizeof err), 0);
    uint8_t p[100];
    uint32_t dst = 99;
    size_t n = make_udp(p, H0, 0xc6120004u, 40); /* to h3 */
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, true, p, n, &dst), MYRI_IPDRV_OK);
    assert_int_equal(dst, 3);
    n = make_udp(p, H0, H0, 40);
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, true, p, n, &dst), MYRI_IPDRV_TX_SELF);
    n = make_udp(p, H0, 0xc613ffffu, 40); /* the prefix's broadcast */
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, true, p, n, &dst), MYRI_IPDRV_TX_NO_HOST);
    n = make_udp(p, H0, 0xe0000001u, 40); /* multicast */
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, true, p, n, &dst), MYRI_IPDRV_TX_NO_HOST);
    n = make_udp(p, H0, H1, 40);
    p[27] ^= 0x55; /* UDP checksum half-done */
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, true, p, n, &dst), MYRI_IPDRV_TX_BAD_CSUM);
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, false, p, n, &dst), MYRI_IPDRV_OK);
    p[0] = 0x60;
    assert_int_equal(myri_ipdrv_check_outbound(&plan, 0, 8192, true, p, n, &dst), MYRI_IPDRV_TX_NOT_IPV4);
}

/* Waits until fd is readable (at most 2 s). */
static void wait_readable(int fd)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    assert_int_equal(poll(&pf, 1, 2000), 1);
}

static void test_two_drivers_over_the_wire(void **state)
{
    (void)state;
    myri_ip_plan plan;
    char err[256];
    assert_int_equal(myri_ip_plan_parse(&plan, NULL, 2, err, sizeof err), 0);
    int tun0[2], tun1[2]; /* [0] the driver's "TUN device", [1] the kernel's side */
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, tun0), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, tun1), 0);
    myri_ipwire *w = myri_ipwire_new(2, 1000, 8192, err, sizeof err); /* 1 us one way */
    assert_non_null(w);
    myri_ipdrv d0, d1;
    assert_int_equal(myri_ipdrv_init(&d0, &plan, 0, tun0[0], 8192, &myri_ipwire_ops, myri_ipwire_port(w, 0), err,
                                     sizeof err), 0);
    assert_int_equal(myri_ipdrv_init(&d1, &plan, 1, tun1[0], 8192, &myri_ipwire_ops, myri_ipwire_port(w, 1), err,
                                     sizeof err), 0);
    static uint8_t p[8192 + 1], got[8192 + 1];
    size_t n = make_udp(p, H0, H1, 8192 - 28); /* the largest packet of the MTU */
    assert_int_equal(write(tun0[1], p, n), (ssize_t)n);
    assert_int_equal(myri_ipdrv_from_tun(&d0), 1);
    wait_readable(myri_ipwire_ops.wait_fd(myri_ipwire_port(w, 1)));
    assert_int_equal(myri_ipdrv_from_transport(&d1), 1);
    assert_int_equal(read(tun1[1], got, sizeof got), (ssize_t)n);
    assert_memory_equal(got, p, n);
    assert_int_equal(d0.c.tx_packets, 1);
    assert_int_equal(d1.c.rx_packets, 1);
    assert_int_equal(d1.c.rx_bytes, n);
    /* a packet for the wrong host is not written: counted by reason */
    n = make_udp(p, H1, 0xc6120009u, 10);
    assert_int_equal(myri_ipdrv_deliver(&d1, p, n), MYRI_IPDRV_RX_NOT_FOR_US);
    assert_int_equal(d1.c.drops[MYRI_IPDRV_RX_NOT_FOR_US], 1);
    /* one byte over the MTU from the stack: too long, not cut */
    memset(p, 0x45, 8193);
    assert_int_equal(write(tun0[1], p, 8193), 8193);
    assert_int_equal(myri_ipdrv_from_tun(&d0), 1);
    assert_int_equal(d0.c.drops[MYRI_IPDRV_TX_TOO_LONG], 1);
    assert_int_equal(myri_ipdrv_from_tun(&d0), 0); /* nothing more */
    myri_ipwire_free(w);
    myri_ipdrv_free(&d0);
    myri_ipdrv_free(&d1);
    for (int k = 0; k < 2; k++) {
        close(tun0[k]);
        close(tun1[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_checksum),
        cmocka_unit_test(test_inbound_reasons),
        cmocka_unit_test(test_outbound_reasons),
        cmocka_unit_test(test_two_drivers_over_the_wire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
