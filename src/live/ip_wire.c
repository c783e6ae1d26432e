/* ip_wire.c -- the in-process test transport (see ip_wire.h). */
#define _GNU_SOURCE
#include "live/ip_wire.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/hcb.h"

/* A message: host (destination on the way to the wire, source on the way
 * out), the time it was sent, then the Myrinet frame: header and IP packet. */
typedef struct wire_hdr {
    uint32_t host;
    uint32_t pad;
    uint64_t sent_ns;
    uint8_t frame[MYRI_FRAME_HDR_BYTES];
} wire_hdr;

typedef struct wire_port {
    myri_ipwire *w;
    uint32_t host;
    int drv_fd, wire_fd;
    pthread_t thread;
    int started;
} wire_port;

struct myri_ipwire {
    uint32_t nhosts;
    uint64_t delay_ns;
    size_t mtu_bytes;
    wire_port *ports;
};

static uint64_t wire__now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void wire__sleep_until(uint64_t ns)
{
    struct timespec t = {.tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) continue;
}

/* The wire of one host: what its driver sends, delayed, to the destination. */
static void *wire__thread(void *arg)
{
    wire_port *p = arg;
    myri_ipwire *w = p->w;
    size_t cap = sizeof(wire_hdr) + w->mtu_bytes;
    uint8_t *msg = malloc(cap);
    /* The delay is tens of microseconds: without this the kernel may add its
     * default 50 us of timer slack to every sleep. */
    (void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    while (msg) {
        ssize_t n = recv(p->wire_fd, msg, cap, 0);
        if (n <= 0) break; /* the driver's end shut down */
        wire_hdr h;
        if ((size_t)n < sizeof h) continue;
        memcpy(&h, msg, sizeof h);
        if (h.host >= w->nhosts) continue; /* the port's send refuses these */
        uint32_t dst = h.host;
        if (w->delay_ns) wire__sleep_until(h.sent_ns + w->delay_ns);
        h.host = p->host;
        memcpy(msg, &h, sizeof h);
        if (send(w->ports[dst].wire_fd, msg, (size_t)n, MSG_NOSIGNAL) < 0 && errno == EPIPE) continue;
    }
    free(msg);
    return NULL;
}

static int wire__send(void *ctx, uint32_t dst_host, const uint8_t *bytes, size_t len)
{
    wire_port *p = ctx;
    if (dst_host >= p->w->nhosts || len > p->w->mtu_bytes) return -1;
    wire_hdr h = {.host = dst_host, .sent_ns = wire__now_ns(),
                  .frame = {MYRI_FRAME_TYPE_CRL >> 8, MYRI_FRAME_TYPE_CRL & 255u, MYRI_FRAME_SUBTYPE_API0_DATA,
                            MYRI_IP_CHANNEL}};
    struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof h}, {.iov_base = (void *)bytes, .iov_len = len}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
    ssize_t k;
    do k = sendmsg(p->drv_fd, &m, MSG_NOSIGNAL);
    while (k < 0 && errno == EINTR);
    return k == (ssize_t)(sizeof h + len) ? 0 : -1;
}

static long wire__recv(void *ctx, uint8_t *buf, size_t cap)
{
    wire_port *p = ctx;
    wire_hdr h;
    struct iovec iov[2] = {{.iov_base = &h, .iov_len = sizeof h}, {.iov_base = buf, .iov_len = cap}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
    ssize_t n = recvmsg(p->drv_fd, &m, MSG_DONTWAIT);
    if (n <= 0) return 0;
    if (m.msg_flags & MSG_TRUNC) return -MYRI_IPDRV_RX_TOO_LONG;
    /* what seed 001's MCP checks before it puts a packet into a channel */
    if ((size_t)n < sizeof h || h.frame[0] != (MYRI_FRAME_TYPE_CRL >> 8) ||
        h.frame[1] != (MYRI_FRAME_TYPE_CRL & 255u) || h.frame[2] != MYRI_FRAME_SUBTYPE_API0_DATA ||
        h.frame[3] != MYRI_IP_CHANNEL)
        return -MYRI_IPDRV_RX_FRAME;
    return (long)((size_t)n - sizeof h);
}

static int wire__wait_fd(void *ctx) { return ((wire_port *)ctx)->drv_fd; }

const myri_ip_ops myri_ipwire_ops = {
    .name = "wire", .send = wire__send, .recv = wire__recv, .wait_fd = wire__wait_fd};

myri_ipwire *myri_ipwire_new(uint32_t nhosts, uint64_t delay_ns, size_t mtu_bytes, char *err, size_t errlen)
{
    myri_ipwire *w = calloc(1, sizeof *w);
    if (w) w->ports = calloc(nhosts ? nhosts : 1u, sizeof *w->ports);
    if (!w || !w->ports) {
        free(w);
        snprintf(err, errlen, "ip wire: out of memory");
        return NULL;
    }
    w->nhosts = nhosts;
    w->delay_ns = delay_ns;
    w->mtu_bytes = mtu_bytes;
    for (uint32_t i = 0; i < nhosts; i++) w->ports[i].drv_fd = w->ports[i].wire_fd = -1;
    for (uint32_t i = 0; i < nhosts; i++) {
        wire_port *p = &w->ports[i];
        int sv[2];
        p->w = w;
        p->host = i;
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
            snprintf(err, errlen, "ip wire: socketpair: %s", strerror(errno));
            myri_ipwire_free(w);
            return NULL;
        }
        p->drv_fd = sv[0];
        p->wire_fd = sv[1];
    }
    for (uint32_t i = 0; i < nhosts; i++) {
        if (pthread_create(&w->ports[i].thread, NULL, wire__thread, &w->ports[i]) != 0) {
            snprintf(err, errlen, "ip wire: cannot start a wire thread");
            myri_ipwire_free(w);
            return NULL;
        }
        w->ports[i].started = 1;
    }
    return w;
}

void *myri_ipwire_port(myri_ipwire *w, uint32_t host) { return host < w->nhosts ? &w->ports[host] : NULL; }

void myri_ipwire_free(myri_ipwire *w)
{
    if (!w) return;
    for (uint32_t i = 0; i < w->nhosts; i++)
        if (w->ports[i].drv_fd >= 0) shutdown(w->ports[i].drv_fd, SHUT_RDWR);
    for (uint32_t i = 0; i < w->nhosts; i++)
        if (w->ports[i].started) pthread_join(w->ports[i].thread, NULL);
    for (uint32_t i = 0; i < w->nhosts; i++) {
        if (w->ports[i].drv_fd >= 0) close(w->ports[i].drv_fd);
        if (w->ports[i].wire_fd >= 0) close(w->ports[i].wire_fd);
    }
    free(w->ports);
    free(w);
}
