/* via_programs.c -- built-in programs for the VIA firmwares (lcp, myricom),
 * written as a user would write them: only <myri/via.h> and <myri/prog.h>.
 *
 * Each runs on the two hosts its entry names (myri_prog_group), the first
 * called host 0 below, the second host 1.
 *
 *   via-stream   count messages of size bytes from host 0 (VI 0) to host 1
 *                (VI 0) with up to `window` sends posted, then a 4-byte ack
 *                back (VI 1); bandwidth = bytes / time until the ack; the
 *                receiver reports steady_MBps = the bytes of messages 2..count
 *                / the time between the first and the last completion (seed
 *                000 section 4's large-message throughput).
 *   via-poisson  host 0 rings send doorbells at Poisson times, `rate`
 *                messages per microsecond, count messages of size bytes to
 *                host 1 (seed 004 section 3's doorbell arrivals); reports the
 *                time-averaged number of messages in the NIC (posted, not
 *                completed: Little's L), those waiting (L - P(N > 0)), the
 *                mean response time, and arrivals held back because 64 were
 *                outstanding (the NIC saturated).
 *
 *   via-duplex   hosts 0 and 1 send count messages of size bytes to each other
 *                at once (count <= 32 receives posted first, up to `window`
 *                sends outstanding, after settle_us, default 500; host 1
 *                stagger_us later, default 50); frames arrive while sends
 *                leave.
 *
 *   via-selftest misuse of the API (every call returns its code) and frames
 *                the firmware must drop and count (no receive posted, too
 *                long for the posted buffer), between hosts 0 and 1.
 *
 * Arguments: key=value words, unit=0, timeout_us (per wait, default 1 s).
 * Every byte is a pattern of (sender, sequence, offset) and checked by the
 * receiver; errors (wrong bytes, lengths, statuses, time-outs) are reported
 * as NAME.errors; exit 0 without errors, 1 with, 2 for bad arguments or setup.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri/prog.h"
#include "myri/via.h"

#define VP_MAXQ 32 /* receives kept posted / sends outstanding at most (below the 63 usable ring slots) */

typedef struct vp_env {
    int unit, me, peer;
    int role;              /* 0 or 1: this host's place in its entry's two hosts (myri_prog_group) */
    double timeout_us;
    long errors;
    const char *tag;
} vp_env;

static double vp_num(int argc, char **argv, const char *key, double def)
{
    size_t k = strlen(key);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], key, k) == 0 && argv[i][k] == '=') {
            char *end;
            double d = strtod(argv[i] + k + 1, &end);
            return end != argv[i] + k + 1 && *end == '\0' ? d : -1;
        }
    return def;
}

static uint8_t vp_byte(uint32_t seq, uint32_t i)
{
    uint32_t x = seq * 0x85ebca6bu ^ i * 0xc2b2ae35u ^ 0x9e3779b1u;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    return (uint8_t)(x >> 24);
}

static void vp_report_err(const vp_env *e, const char *what, int rc)
{
    char key[64];
    snprintf(key, sizeof key, "%s.setup_error", e->tag);
    (void)what;
    myri_prog_report(key, rc);
}

/* open, routes to the peer; 0 or the failing code */
static int vp_setup(vp_env *e, int argc, char **argv, const char *tag)
{
    e->tag = tag;
    e->unit = (int)vp_num(argc, argv, "unit", 0);
    e->timeout_us = vp_num(argc, argv, "timeout_us", 1e6);
    e->me = myri_prog_host();
    e->errors = 0;
    int g[2];
    if (myri_prog_group(g, 2) != 2 || (g[0] != e->me && g[1] != e->me)) return MYRI_VIA_EINVAL; /* two hosts */
    e->role = g[1] == e->me;
    e->peer = g[!e->role];
    if (e->unit < 0 || !(e->timeout_us > 0)) return MYRI_VIA_EINVAL;
    int rc = myri_via_open(e->unit);
    char r[64];
    int rl = rc ? -1 : myri_prog_route(e->peer, r, (int)sizeof r);
    if (!rc && rl < 0) rc = MYRI_VIA_ENOROUTE;
    if (!rc) rc = myri_via_set_route(e->unit, e->peer, r, rl);
    if (rc) vp_report_err(e, "setup", rc);
    return rc;
}

static void vp_put(const vp_env *e, const char *key, double v)
{
    char k[64];
    snprintf(k, sizeof k, "%s.%s", e->tag, key);
    myri_prog_report(k, v);
}

/* Receives count messages of size bytes on VI vi, keeping up to nq posted;
 * checks every byte; returns the time of the last completion (ps) and in
 * *first that of the first. */
static uint64_t vp_receive(vp_env *e, int vi, long count, int size, int nq, uint64_t *first)
{
    uint8_t *buf[VP_MAXQ];
    myri_via_desc *d[VP_MAXQ];
    long posted = 0, got = 0;
    uint64_t last = 0;
    for (int i = 0; i < nq; i++) buf[i] = myri_via_alloc(e->unit, (size_t)size);
    for (int i = 0; i < nq && posted < count; i++, posted++)
        if (!buf[i] || myri_via_post_recv(e->unit, vi, buf[i], (size_t)size, &d[i])) return e->errors++, 0;
    while (got < count) {
        int i = (int)(got % nq);
        myri_via_done dn;
        if (myri_via_wait(d[i], e->timeout_us, &dn)) return e->errors++, last;
        last = myri_prog_now_ps();
        if (got == 0 && first) *first = last;
        if (dn.status != 1 || dn.bytes != (uint32_t)size || dn.src_host != e->peer) e->errors++;
        else
            for (int k = 0; k < size; k++) e->errors += buf[i][k] != vp_byte((uint32_t)got, (uint32_t)k);
        got++;
        if (posted < count) {
            if (myri_via_post_recv(e->unit, vi, buf[i], (size_t)size, &d[i])) return e->errors++, last;
            posted++;
        }
    }
    return last;
}

static void vp_fill(uint8_t *p, int size, uint32_t seq)
{
    for (int k = 0; k < size; k++) p[k] = vp_byte(seq, (uint32_t)k);
}

static int vp_stream(int argc, char **argv)
{
    vp_env e;
    long count = (long)vp_num(argc, argv, "count", 64);
    int size = (int)vp_num(argc, argv, "size", 32768), window = (int)vp_num(argc, argv, "window", 4);
    if (count < 1 || size < 1 || window < 1 || window > VP_MAXQ) return 2;
    if (vp_setup(&e, argc, argv, "via-stream")) return 2;
    if (size > myri_via_mtu(e.unit)) return 2;
    if (e.role == 1) { /* receiver: count messages, then the ack */
        uint64_t t1 = 0, tn = vp_receive(&e, 0, count, size, window < VP_MAXQ ? window + 1 : VP_MAXQ, &t1);
        if (count > 1 && tn > t1) /* steady state: the messages after the first, between completions */
            vp_put(&e, "steady_MBps", (double)(count - 1) * size / ((double)(tn - t1) * 1e-6));
        uint8_t *ack = myri_via_alloc(e.unit, 4);
        myri_via_desc *d;
        myri_via_done dn;
        if (!ack || myri_via_post_send(e.unit, 1, e.peer, 1, ack, 4, &d) || myri_via_wait(d, e.timeout_us, &dn))
            e.errors++;
        vp_put(&e, "errors", (double)e.errors);
        return e.errors ? 1 : 0;
    }
    uint8_t *ack = myri_via_alloc(e.unit, 4), *buf[VP_MAXQ];
    myri_via_desc *ad, *d[VP_MAXQ];
    if (!ack || myri_via_post_recv(e.unit, 1, ack, 4, &ad)) return 2;
    for (int i = 0; i < window; i++)
        if (!(buf[i] = myri_via_alloc(e.unit, (size_t)size))) return 2;
    uint64_t t0 = myri_prog_now_ps();
    for (long s = 0; s < count; s++) {
        int i = (int)(s % window);
        myri_via_done dn;
        if (s >= window && (myri_via_wait(d[i], e.timeout_us, &dn) || dn.status != 1)) e.errors++;
        vp_fill(buf[i], size, (uint32_t)s);
        if (myri_via_post_send(e.unit, 0, e.peer, 0, buf[i], (size_t)size, &d[i])) return e.errors++, 1;
    }
    for (long s = count > window ? count - window : 0; s < count; s++) {
        myri_via_done dn;
        if (myri_via_wait(d[s % window], e.timeout_us, &dn) || dn.status != 1) e.errors++;
    }
    myri_via_done dn;
    if (myri_via_wait(ad, e.timeout_us, &dn) || dn.status != 1) e.errors++;
    double us = (double)(myri_prog_now_ps() - t0) * 1e-6;
    vp_put(&e, "time_us", us);
    vp_put(&e, "bandwidth_MBps", (double)count * size / us);
    vp_put(&e, "errors", (double)e.errors);
    return e.errors ? 1 : 0;
}

/* N(t), the messages in the NIC (posted, not completed), integrated exactly:
 * its area, and the time with N > 0. */
typedef struct vp_occ {
    uint64_t last_ps;
    long n;
    double area_ps, busy_ps;
} vp_occ;
static void vp_occ_step(vp_occ *o, int dn)
{
    uint64_t now = myri_prog_now_ps();
    o->area_ps += (double)o->n * (double)(now - o->last_ps);
    if (o->n > 0) o->busy_ps += (double)(now - o->last_ps);
    o->last_ps = now;
    o->n += dn;
}

/* An exponential gap of mean 1/rate us, in whole picoseconds (at least 1). */
static uint64_t vp_gap_ps(double rate)
{
    double ps = myri_prog_random_exp(1.0 / rate) * 1e6;
    return ps < 1.0 ? 1 : (uint64_t)(ps + 0.5);
}

/* Sends at Poisson times; waits on the oldest outstanding send until the next
 * arrival, so each completion is seen when its DMA lands. */
static int vp_poisson(int argc, char **argv)
{
    vp_env e;
    long count = (long)vp_num(argc, argv, "count", 1000);
    int size = (int)vp_num(argc, argv, "size", 4096);
    double rate = vp_num(argc, argv, "rate", 0.005); /* messages per us */
    if (count < 1 || size < 1 || !(rate > 0)) return 2;
    if (vp_setup(&e, argc, argv, "via-poisson")) return 2;
    if (size > myri_via_mtu(e.unit)) return 2;
    if (e.role == 1) {
        vp_receive(&e, 0, count, size, VP_MAXQ, NULL);
        vp_put(&e, "errors", (double)e.errors);
        return e.errors ? 1 : 0;
    }
    uint8_t *buf[VP_MAXQ];
    myri_via_desc *d[VP_MAXQ];
    for (int i = 0; i < VP_MAXQ; i++)
        if (!(buf[i] = myri_via_alloc(e.unit, (size_t)size))) return 2;
    long head = 0, tail = 0, held = 0; /* outstanding: [head, tail); held: arrivals that found VP_MAXQ outstanding */
    bool marked = false;
    uint64_t t0 = myri_prog_now_ps();
    vp_occ o = {t0, 0, 0, 0};
    uint64_t t_next = t0 + vp_gap_ps(rate);
    while (head < count) {
        if (tail < count && myri_prog_now_ps() >= t_next) {
            if (tail - head == VP_MAXQ) {
                if (!marked) held++, marked = true; /* this arrival waits for room */
            } else {
                marked = false;
                int i = (int)(tail % VP_MAXQ);
                vp_fill(buf[i], size, (uint32_t)tail);
                if (myri_via_post_send(e.unit, 0, e.peer, 0, buf[i], (size_t)size, &d[i])) return e.errors++, 1;
                vp_occ_step(&o, +1);
                tail++;
                t_next += vp_gap_ps(rate);
                continue;
            }
        }
        if (head == tail) { /* nothing outstanding: sleep until the next arrival */
            uint64_t now = myri_prog_now_ps();
            if (t_next > now) myri_prog_sleep_us((double)(t_next - now) * 1e-6);
            continue;
        }
        int i = (int)(head % VP_MAXQ);
        uint64_t now = myri_prog_now_ps();
        double left = tail < count && tail - head < VP_MAXQ && t_next > now ? (double)(t_next - now) * 1e-6 : 0;
        myri_via_done dn;
        int rc = myri_via_wait(d[i], left > 0 ? left : e.timeout_us, &dn);
        if (rc == MYRI_VIA_ETIMEOUT && left > 0) continue; /* the next arrival came first */
        if (rc || dn.status != 1) e.errors++;
        vp_occ_step(&o, -1);
        head++;
    }
    double t_ps = (double)(myri_prog_now_ps() - t0), us = t_ps * 1e-6;
    vp_put(&e, "messages", (double)count);
    vp_put(&e, "time_us", us);
    vp_put(&e, "mean_in_nic", o.area_ps / t_ps);
    vp_put(&e, "mean_waiting", (o.area_ps - o.busy_ps) / t_ps); /* L - P(N > 0) */
    vp_put(&e, "busy_fraction", o.busy_ps / t_ps);
    vp_put(&e, "mean_response_us", o.area_ps * 1e-6 / (double)count);
    vp_put(&e, "throughput_per_us", (double)count / us);
    vp_put(&e, "held_arrivals", (double)held);
    vp_put(&e, "errors", (double)e.errors);
    return e.errors ? 1 : 0;
}

/* Misuse of the API must return its code; the firmware's drops must be
 * counted.  Host 0: every misuse below, then three sends to host 1: to VI 5
 * (no receive posted there: dropped, drop_no_desc), 256 bytes to VI 0 whose
 * first posted buffer takes 64 (completed TRUNC there, drop_too_long), and 64
 * bytes to VI 0 (delivered).  Host 1 posts the two VI 0 buffers and checks
 * their statuses.  Every unexpected result is an error. */
static long vp_expect(int got, int want) { return got != want; }
static long vp_misuse(vp_env *e)
{
    long bad = 0;
    myri_via_desc *d = NULL;
    uint8_t stack_buf[8];
    bad += vp_expect(myri_via_open(-1), MYRI_VIA_EBADUNIT);
    bad += vp_expect(myri_via_open(7), MYRI_VIA_EBADUNIT);
    bad += vp_expect(myri_via_mtu(1), MYRI_VIA_ENOTINIT);
    bad += vp_expect(myri_via_post_recv(e->unit, 0, NULL, 4, &d), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_post_recv(e->unit, 0, stack_buf, 4, &d), MYRI_VIA_EINVAL); /* not DMA memory */
    uint8_t *b = myri_via_alloc(e->unit, 64);
    bad += b == NULL;
    if (!b) return bad;
    bad += vp_expect(myri_via_post_recv(e->unit, -1, b, 4, &d), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_post_recv(e->unit, myri_via_nvi(e->unit), b, 4, &d), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_post_recv(e->unit, 0, b + 1, 4, &d), MYRI_VIA_EINVAL);  /* unaligned */
    bad += vp_expect(myri_via_post_send(e->unit, 0, e->peer, 0, b, 0, &d), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_post_send(e->unit, 0, e->peer, 0, b, (size_t)myri_via_mtu(e->unit) + 1, &d),
                     MYRI_VIA_ETOOLONG);
    bad += vp_expect(myri_via_post_send(e->unit, 0, 200, 0, b, 4, &d), MYRI_VIA_ENOROUTE);
    bad += vp_expect(myri_via_post_send(e->unit, 0, e->peer, 0, b, 4, NULL), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_set_route(e->unit, -1, "x", 1), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_set_route(e->unit, 1, NULL, 3), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_wait(NULL, 1, NULL), MYRI_VIA_EINVAL);
    bad += vp_expect(myri_via_test((myri_via_desc *)stack_buf, NULL), MYRI_VIA_EBADDESC);
    bad += myri_via_alloc(e->unit, (size_t)1 << 40) != NULL;
    bad += myri_via_strerror(12345)[0] == '\0' || myri_via_strerror(MYRI_VIA_EFULL)[0] == '\0';
    return bad;
}

static int vp_selftest(int argc, char **argv)
{
    vp_env e;
    if (vp_setup(&e, argc, argv, "via-selftest")) return 2;
    e.errors += vp_misuse(&e);
    myri_via_done dn;
    myri_via_desc *d[3];
    uint8_t *b[3];
    for (int i = 0; i < 3; i++)
        if (!(b[i] = myri_via_alloc(e.unit, 256))) return 2;
    if (e.role == 1) {
        if (myri_via_post_recv(e.unit, 0, b[0], 64, &d[0]) || myri_via_post_recv(e.unit, 0, b[1], 64, &d[1]))
            return 2;
        e.errors += myri_via_wait(d[0], e.timeout_us, &dn) || dn.status != 2 || dn.bytes != 0; /* truncated */
        e.errors += myri_via_wait(d[1], e.timeout_us, &dn) || dn.status != 1 || dn.bytes != 64 ||
                    dn.src_host != e.peer || dn.src_vi != 3;
        for (int k = 0; k < 64; k++) e.errors += b[1][k] != vp_byte(7, (uint32_t)k);
    } else if (e.role == 0) {
        myri_prog_sleep_us(50); /* the receiver posts first */
        vp_fill(b[0], 16, 5);
        vp_fill(b[1], 256, 6);
        vp_fill(b[2], 64, 7);
        if (myri_via_post_send(e.unit, 0, e.peer, 5, b[0], 16, &d[0]) ||
            myri_via_post_send(e.unit, 1, e.peer, 0, b[1], 256, &d[1]) ||
            myri_via_post_send(e.unit, 3, e.peer, 0, b[2], 64, &d[2]))
            return 2;
        for (int i = 0; i < 3; i++) e.errors += myri_via_wait(d[i], e.timeout_us, &dn) || dn.status != 1;
    }
    vp_put(&e, "errors", (double)e.errors);
    return e.errors ? 1 : 0;
}

/* Both hosts send count messages to each other at once (all receives posted first, up to `window` sends
 * outstanding): frames come in while sends go out, the case seed 000's 1-A asks about. */
static int vp_duplex(int argc, char **argv)
{
    vp_env e;
    long count = (long)vp_num(argc, argv, "count", 8);
    int size = (int)vp_num(argc, argv, "size", 32768), window = (int)vp_num(argc, argv, "window", 4);
    if (count < 1 || count > VP_MAXQ || size < 1 || window < 1 || window > VP_MAXQ) return 2;
    if (vp_setup(&e, argc, argv, "via-duplex")) return 2;
    if (size > myri_via_mtu(e.unit)) return 2;
    uint8_t *rb[VP_MAXQ], *sb[VP_MAXQ];
    myri_via_desc *rd[VP_MAXQ], *sd[VP_MAXQ];
    myri_via_done dn;
    for (long i = 0; i < count; i++)
        if (!(rb[i] = myri_via_alloc(e.unit, (size_t)size)) || myri_via_post_recv(e.unit, 0, rb[i], (size_t)size, &rd[i]))
            return 2;
    for (int i = 0; i < window; i++)
        if (!(sb[i] = myri_via_alloc(e.unit, (size_t)size))) return 2;
    /* Until both NICs took the receive doorbells: the lcp's main takes them only when no send doorbell waits
     * (docs/VERIFY.md, replay), so frames sent earlier would find no descriptor. */
    myri_prog_sleep_us(vp_num(argc, argv, "settle_us", 500));
    if (e.role == 1) myri_prog_sleep_us(vp_num(argc, argv, "stagger_us", 50)); /* not in lockstep with host 0 */
    uint64_t t0 = myri_prog_now_ps();
    for (long s = 0; s < count; s++) {
        int i = (int)(s % window);
        if (s >= window && (myri_via_wait(sd[i], e.timeout_us, &dn) || dn.status != 1)) e.errors++;
        vp_fill(sb[i], size, (uint32_t)s);
        if (myri_via_post_send(e.unit, 0, e.peer, 0, sb[i], (size_t)size, &sd[i])) return e.errors++, 1;
    }
    for (long s = count > window ? count - window : 0; s < count; s++)
        if (myri_via_wait(sd[s % window], e.timeout_us, &dn) || dn.status != 1) e.errors++;
    for (long i = 0; i < count; i++) {
        if (myri_via_wait(rd[i], e.timeout_us, &dn) || dn.status != 1 || dn.bytes != (uint32_t)size) {
            e.errors++;
            continue;
        }
        for (int k = 0; k < size; k++) e.errors += rb[i][k] != vp_byte((uint32_t)i, (uint32_t)k);
    }
    double us = (double)(myri_prog_now_ps() - t0) * 1e-6;
    vp_put(&e, "bandwidth_MBps", 2.0 * (double)count * size / us);
    vp_put(&e, "errors", (double)e.errors);
    return e.errors ? 1 : 0;
}

int myri_program_via_stream(int argc, char **argv) { return vp_stream(argc, argv); }
int myri_program_via_duplex(int argc, char **argv) { return vp_duplex(argc, argv); }
int myri_program_via_selftest(int argc, char **argv) { return vp_selftest(argc, argv); }
int myri_program_via_poisson(int argc, char **argv) { return vp_poisson(argc, argv); }
