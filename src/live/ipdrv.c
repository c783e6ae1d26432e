/* ipdrv.c -- the IP driver of one host (see ipdrv.h). */
#include "live/ipdrv.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IPV4_MIN_HDR_BYTES 20u
#define IP_PROTO_ICMP 1u
#define IP_PROTO_TCP 6u
#define IP_PROTO_UDP 17u

static const char *const ipdrv__names[MYRI_IPDRV_NREASONS] = {
    [MYRI_IPDRV_OK] = "ok",
    [MYRI_IPDRV_TX_NOT_IPV4] = "tx_not_ipv4",
    [MYRI_IPDRV_TX_MALFORMED] = "tx_malformed",
    [MYRI_IPDRV_TX_TOO_LONG] = "tx_too_long",
    [MYRI_IPDRV_TX_NO_HOST] = "tx_no_host",
    [MYRI_IPDRV_TX_SELF] = "tx_self",
    [MYRI_IPDRV_TX_BAD_CSUM] = "tx_bad_csum",
    [MYRI_IPDRV_TX_TRANSPORT] = "tx_transport",
    [MYRI_IPDRV_RX_FRAME] = "rx_frame",
    [MYRI_IPDRV_RX_SHORT] = "rx_short",
    [MYRI_IPDRV_RX_TOO_LONG] = "rx_too_long",
    [MYRI_IPDRV_RX_NOT_IPV4] = "rx_not_ipv4",
    [MYRI_IPDRV_RX_BAD_IHL] = "rx_bad_ihl",
    [MYRI_IPDRV_RX_BAD_LENGTH] = "rx_bad_length",
    [MYRI_IPDRV_RX_BAD_CSUM] = "rx_bad_csum",
    [MYRI_IPDRV_RX_BAD_SOURCE] = "rx_bad_source",
    [MYRI_IPDRV_RX_NOT_FOR_US] = "rx_not_for_us",
    [MYRI_IPDRV_RX_TUN_WRITE] = "rx_tun_write",
};

const char *myri_ipdrv_reason_name(int reason)
{
    return reason >= 0 && reason < MYRI_IPDRV_NREASONS ? ipdrv__names[reason] : "unknown";
}

static uint32_t ipdrv__be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned ipdrv__be16(const uint8_t *p) { return (unsigned)p[0] << 8 | p[1]; }

uint32_t myri_ip_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
    uint64_t s = sum;
    size_t i = 0;
    for (; i + 1 < len; i += 2) s += ipdrv__be16(p + i);
    if (i < len) s += (uint32_t)p[i] << 8;
    while (s >> 16) s = (s & 0xffffu) + (s >> 16);
    return (uint32_t)s;
}

bool myri_ip_csum_ok(const uint8_t *p, size_t len)
{
    if (len < IPV4_MIN_HDR_BYTES) return false;
    size_t ihl = (size_t)(p[0] & 15u) * 4u, total = ipdrv__be16(p + 2);
    if (ihl < IPV4_MIN_HDR_BYTES || ihl > len || total != len) return false;
    if (myri_ip_csum_add(0, p, ihl) != 0xffffu) return false;
    bool fragment = (ipdrv__be16(p + 6) & 0x3fffu) != 0; /* MF set or offset non-zero */
    unsigned proto = p[9];
    const uint8_t *l4 = p + ihl;
    size_t l4_len = len - ihl;
    if (fragment) return true; /* the transport checksum covers the whole datagram: the receiver checks it */
    if (proto == IP_PROTO_ICMP) return l4_len >= 4 && myri_ip_csum_add(0, l4, l4_len) == 0xffffu;
    if (proto != IP_PROTO_TCP && proto != IP_PROTO_UDP) return true;
    if (l4_len < (proto == IP_PROTO_TCP ? 20u : 8u)) return false;
    if (proto == IP_PROTO_UDP && ipdrv__be16(l4 + 6) == 0) return true; /* UDP without checksum */
    uint8_t pseudo[12];
    memcpy(pseudo, p + 12, 8); /* source, destination */
    pseudo[8] = 0;
    pseudo[9] = (uint8_t)proto;
    pseudo[10] = (uint8_t)(l4_len >> 8);
    pseudo[11] = (uint8_t)l4_len;
    return myri_ip_csum_add(myri_ip_csum_add(0, pseudo, sizeof pseudo), l4, l4_len) == 0xffffu;
}

myri_ipdrv_reason myri_ipdrv_check_inbound(const myri_ip_plan *plan, uint32_t self, size_t mtu_bytes,
                                           const uint8_t *p, size_t len)
{
    if (len < IPV4_MIN_HDR_BYTES) return MYRI_IPDRV_RX_SHORT;
    if (len > mtu_bytes) return MYRI_IPDRV_RX_TOO_LONG;
    if (p[0] >> 4 != 4) return MYRI_IPDRV_RX_NOT_IPV4;
    size_t ihl = (size_t)(p[0] & 15u) * 4u;
    if (ihl < IPV4_MIN_HDR_BYTES || ihl > len) return MYRI_IPDRV_RX_BAD_IHL;
    if (ipdrv__be16(p + 2) != len) return MYRI_IPDRV_RX_BAD_LENGTH;
    if (myri_ip_csum_add(0, p, ihl) != 0xffffu) return MYRI_IPDRV_RX_BAD_CSUM;
    if (!myri_ip_plan_contains(plan, ipdrv__be32(p + 12))) return MYRI_IPDRV_RX_BAD_SOURCE;
    if (ipdrv__be32(p + 16) != myri_ip_plan_addr(plan, self)) return MYRI_IPDRV_RX_NOT_FOR_US;
    return MYRI_IPDRV_OK;
}

myri_ipdrv_reason myri_ipdrv_check_outbound(const myri_ip_plan *plan, uint32_t self, size_t mtu_bytes,
                                            bool verify_csum, const uint8_t *p, size_t len, uint32_t *dst)
{
    if (len < 1 || p[0] >> 4 != 4) return MYRI_IPDRV_TX_NOT_IPV4;
    if (len > mtu_bytes) return MYRI_IPDRV_TX_TOO_LONG;
    size_t ihl = (size_t)(p[0] & 15u) * 4u;
    if (len < IPV4_MIN_HDR_BYTES || ihl < IPV4_MIN_HDR_BYTES || ihl > len || ipdrv__be16(p + 2) != len)
        return MYRI_IPDRV_TX_MALFORMED;
    long host = myri_ip_plan_host(plan, ipdrv__be32(p + 16));
    if (host < 0) return MYRI_IPDRV_TX_NO_HOST;
    if ((uint32_t)host == self) return MYRI_IPDRV_TX_SELF;
    if (verify_csum && !myri_ip_csum_ok(p, len)) return MYRI_IPDRV_TX_BAD_CSUM;
    *dst = (uint32_t)host;
    return MYRI_IPDRV_OK;
}

int myri_ipdrv_init(myri_ipdrv *d, const myri_ip_plan *plan, uint32_t self, int tun_fd, size_t mtu_bytes,
                    const myri_ip_ops *ops, void *ctx, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->tun_fd = -1;
    if (self >= plan->nhosts || !ops || !ops->send || !ops->recv || mtu_bytes < IPV4_MIN_HDR_BYTES ||
        mtu_bytes > MYRI_IP_MAX_MTU_BYTES) {
        snprintf(err, errlen, "ip driver: host %u of %u, MTU %zu bytes or transport invalid", self, plan->nhosts,
                 mtu_bytes);
        return -1;
    }
    d->buf = malloc(mtu_bytes + 1u);
    if (!d->buf) {
        snprintf(err, errlen, "ip driver: out of memory");
        return -1;
    }
    d->plan = *plan;
    d->self = self;
    d->self_addr = myri_ip_plan_addr(plan, self);
    d->tun_fd = tun_fd;
    d->mtu_bytes = mtu_bytes;
    d->verify_csum = true;
    d->ops = ops;
    d->ctx = ctx;
    return 0;
}

void myri_ipdrv_free(myri_ipdrv *d)
{
    free(d->buf);
    d->buf = NULL;
}

int myri_ipdrv_from_tun(myri_ipdrv *d)
{
    /* One byte more than the MTU: a longer packet shows as too long, not cut. */
    ssize_t n = read(d->tun_fd, d->buf, d->mtu_bytes + 1u);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    if (n == 0) return 0;
    uint32_t dst = 0;
    myri_ipdrv_reason r =
        myri_ipdrv_check_outbound(&d->plan, d->self, d->mtu_bytes, d->verify_csum, d->buf, (size_t)n, &dst);
    if (r == MYRI_IPDRV_OK && d->ops->send(d->ctx, dst, d->buf, (size_t)n) < 0) r = MYRI_IPDRV_TX_TRANSPORT;
    if (r != MYRI_IPDRV_OK) {
        d->c.drops[r]++;
    } else {
        d->c.tx_packets++;
        d->c.tx_bytes += (uint64_t)n;
    }
    return 1;
}

myri_ipdrv_reason myri_ipdrv_deliver(myri_ipdrv *d, const uint8_t *bytes, size_t len)
{
    myri_ipdrv_reason r = myri_ipdrv_check_inbound(&d->plan, d->self, d->mtu_bytes, bytes, len);
    if (r == MYRI_IPDRV_OK) {
        ssize_t k;
        do k = write(d->tun_fd, bytes, len);
        while (k < 0 && errno == EINTR);
        if (k != (ssize_t)len) r = MYRI_IPDRV_RX_TUN_WRITE;
    }
    if (r != MYRI_IPDRV_OK) {
        d->c.drops[r]++;
    } else {
        d->c.rx_packets++;
        d->c.rx_bytes += len;
    }
    return r;
}

int myri_ipdrv_from_transport(myri_ipdrv *d)
{
    long n = d->ops->recv(d->ctx, d->buf, d->mtu_bytes + 1u);
    if (n == 0) return 0;
    if (n < 0) {
        long reason = -n;
        d->c.drops[reason > 0 && reason < MYRI_IPDRV_NREASONS ? reason : MYRI_IPDRV_RX_FRAME]++;
        return 1;
    }
    (void)myri_ipdrv_deliver(d, d->buf, (size_t)n);
    return 1;
}

int myri_ipdrv_run(myri_ipdrv *d, atomic_bool *stop)
{
    int tfd = d->ops->wait_fd ? d->ops->wait_fd(d->ctx) : -1;
    struct pollfd pf[2] = {{.fd = d->tun_fd, .events = POLLIN}, {.fd = tfd, .events = POLLIN}};
    bool more = false; /* a burst stopped at its bound: look again without sleeping */
    while (!atomic_load(stop)) {
        int k = poll(pf, tfd >= 0 ? 2u : 1u, more ? 0 : tfd >= 0 ? 100 : MYRI_IPDRV_POLL_MS);
        if (k < 0 && errno != EINTR) return -1;
        int i = 0;
        for (; i < MYRI_IPDRV_BURST; i++) {
            int r = myri_ipdrv_from_tun(d);
            if (r < 0) return -1;
            if (r == 0) break;
        }
        more = i == MYRI_IPDRV_BURST;
        /* the transport last: its final look (empty) comes after every send, so
         * whatever arrives later makes the wait fd readable */
        for (i = 0; i < MYRI_IPDRV_BURST && myri_ipdrv_from_transport(d) > 0; i++) continue;
        more |= i == MYRI_IPDRV_BURST;
    }
    return 0;
}

void myri_ipdrv_report(const myri_ipdrv *d, const char *who, FILE *out)
{
    char a[16];
    myri_ip_addr_str(d->self_addr, a, sizeof a);
    fprintf(out, "%s (%s): sent %" PRIu64 " packets %" PRIu64 " bytes, received %" PRIu64 " packets %" PRIu64
                 " bytes",
            who, a, d->c.tx_packets, d->c.tx_bytes, d->c.rx_packets, d->c.rx_bytes);
    uint64_t total = 0;
    for (int r = 1; r < MYRI_IPDRV_NREASONS; r++) total += d->c.drops[r];
    fprintf(out, ", dropped %" PRIu64, total);
    for (int r = 1; r < MYRI_IPDRV_NREASONS; r++)
        if (d->c.drops[r]) fprintf(out, " %s=%" PRIu64, ipdrv__names[r], d->c.drops[r]);
    fputc('\n', out);
}
