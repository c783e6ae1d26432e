/* ip_api0.c -- the IP driver's transport over seed 001's API (see ip_api0.h). */
#include "live/ip_api0.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "myri/api0.h"
#include "myri/prog.h"

static int ip_api0__fail(char *err, size_t errlen, const char *what, int rc)
{
    snprintf(err, errlen, "ip driver: %s: %s (%s)", what, myri_api0_strname(rc), myri_api0_strerror(rc));
    return -1;
}

int myri_ip_api0_open(myri_ip_api0 *t, int unit, uint32_t self, uint32_t nhosts, const uint8_t *const *routes,
                      const int *route_lens, char *err, size_t errlen)
{
    return myri_ip_api0_open_chan(t, unit, self, nhosts, routes, route_lens, MYRI_IP_CHANNEL, err, errlen);
}

int myri_ip_api0_open_chan(myri_ip_api0 *t, int unit, uint32_t self, uint32_t nhosts, const uint8_t *const *routes,
                           const int *route_lens, int ip_chan, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->ip_chan = ip_chan;
    t->wait_fd = -1;
    t->unit = unit;
    t->self = self;
    t->nhosts = nhosts;
    t->chan = -1;
    int rc = myri_api0_init(unit, 0, 0, NULL);
    if (rc < 0 && rc != MYRI_API0_EALREADY) return ip_api0__fail(err, errlen, "myri_api0_init", rc);
    rc = myri_api0_get_chan(unit, ip_chan);
    if (rc < 0) return ip_api0__fail(err, errlen, "myri_api0_get_chan (the IP channel)", rc);
    t->chan = rc;
    rc = myri_api0_init_recv_chan(unit, t->chan);
    if (rc < 0) {
        myri_ip_api0_close(t);
        return ip_api0__fail(err, errlen, "myri_api0_init_recv_chan", rc);
    }
    t->route_ids = calloc(nhosts ? nhosts : 1u, sizeof *t->route_ids);
    if (!t->route_ids) {
        myri_ip_api0_close(t);
        snprintf(err, errlen, "ip driver: out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < nhosts; i++) {
        if (i == self) continue;
        rc = myri_api0_add_route(unit, MYRI_API0_NEXT_ROUTE, (char *)routes[i], route_lens[i]);
        if (rc < 0) {
            myri_ip_api0_close(t);
            return ip_api0__fail(err, errlen, "myri_api0_add_route", rc);
        }
        t->route_ids[i] = rc;
    }
    return 0;
}

int myri_ip_api0_mtu(const myri_ip_api0 *t) { return myri_api0_mtu(t->unit); }

void myri_ip_api0_close(myri_ip_api0 *t)
{
    if (t->chan >= 0) (void)myri_api0_rele_chan(t->unit, t->chan);
    t->chan = -1;
    free(t->route_ids);
    t->route_ids = NULL;
}

/* Backs off before try k+1 of a send that found no buffer or a full queue. */
static void ip_api0__backoff(int k)
{
    double us = MYRI_IP_API0_BACKOFF_US * (double)(1u << (k < 16 ? k : 16));
    myri_prog_sleep_us(us < MYRI_IP_API0_BACKOFF_MAX_US ? us : MYRI_IP_API0_BACKOFF_MAX_US);
}

static int ip_api0__send(void *ctx, uint32_t dst_host, const uint8_t *bytes, size_t len)
{
    myri_ip_api0 *t = ctx;
    if (dst_host >= t->nhosts || dst_host == t->self || len > (size_t)myri_api0_mtu(t->unit)) return -1;
    void *buf = NULL;
    int rc = MYRI_API0_NO_BUFFERS;
    for (int k = 0; k < MYRI_IP_API0_RETRIES && rc == MYRI_API0_NO_BUFFERS; k++) {
        if (k > 1) ip_api0__backoff(k - 2); /* the first retry follows a reap at once */
        rc = myri_api0_get_send_buffer_l(t->unit, &buf);
        if (rc == MYRI_API0_NO_BUFFERS) (void)myri_api0_reap_sent_l(t->unit);
    }
    if (rc < 0) return rc;
    memcpy(buf, bytes, len);
    rc = MYRI_API0_QUEUE_FULL;
    for (int k = 0; k < MYRI_IP_API0_RETRIES && rc == MYRI_API0_QUEUE_FULL; k++) {
        if (k > 0) ip_api0__backoff(k - 1);
        rc = myri_api0_send_route_l(t->unit, t->ip_chan, buf, (int)len, t->route_ids[dst_host]);
    }
    int frc = myri_api0_free_send_l(t->unit, buf); /* a queued buffer waits on the busy list until sent */
    return rc < 0 ? rc : frc;
}

static long ip_api0__recv(void *ctx, uint8_t *buf, size_t cap)
{
    myri_ip_api0 *t = ctx;
    void *in = NULL;
    int len = 0;
    if (t->wait_fd >= 0) { /* drained before looking: a later arrival makes it readable again */
        uint64_t v;
        while (read(t->wait_fd, &v, sizeof v) < 0 && errno == EINTR) {
        }
    }
    int rc = myri_api0_recv(t->unit, t->chan, &in, &len);
    if (rc == MYRI_API0_EMPTY) return 0;
    if (rc < 0) return -MYRI_IPDRV_RX_FRAME;
    long out = len < 0 || (size_t)len > cap ? -MYRI_IPDRV_RX_TOO_LONG : (long)len;
    if (out > 0) memcpy(buf, in, (size_t)len);
    if (out == 0) out = -MYRI_IPDRV_RX_SHORT; /* an empty packet is no IP packet */
    (void)myri_api0_free_recv(t->unit, t->chan, in);
    return out;
}

/* libmyri-live's wake-up eventfd when the driver set it (ip_driver.c), else
 * -1: the driver then polls every MYRI_IPDRV_POLL_MS (the simulated test). */
static int ip_api0__wait_fd(void *ctx) { return ((myri_ip_api0 *)ctx)->wait_fd; }

const myri_ip_ops myri_ip_api0_ops = {
    .name = "api0", .send = ip_api0__send, .recv = ip_api0__recv, .wait_fd = ip_api0__wait_fd};
