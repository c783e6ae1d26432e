/* programs.c -- built-in host programs, found by name (host.h:
 * myri_program_find).  They are written as users of the API would write
 * them: only <myri/api0.h> and <myri/prog.h>.
 *
 *   pingpong  seed 001 "Single Packets, up to 8K": one packet back and forth
 *             between two hosts; per size: latency (half the round trip) and
 *             bandwidth = bytes sent / 2 / time (seed 001's definition).
 *   latency   the same with small sizes (seed 001 "Small Packet Latencies").
 *   stream    seed 001 "Multiple 8K Packets": count x size one way with up
 *             to `window` sends pending, then one ack from the receiver;
 *             bandwidth = bytes / time until the ack arrives.
 *   traffic   a generator: messages of `size` bytes to uniformly drawn peers
 *             with exponential gaps of mean interval_us, while receiving and
 *             checking; one-way latency from a timestamp in the payload.
 *             Each (sender, receiver) pair has its own sequence numbers;
 *             `reordered` counts packets that arrive after a later packet of
 *             the same pair (a gap, a packet lost, is not reordering).
 *
 * Arguments are key=value words (argv[1..]); common ones: unit=0, chan=1
 * (the receive channel used on every host), mcp=NAME (loaded by init when
 * given), timeout_us (per receive wait).  Every payload byte comes from a
 * deterministic pattern of (sender, sequence number, offset) and the
 * receiver checks every byte; mismatches, wrong lengths and time-outs are
 * counted and reported as NAME.errors; the exit code is 0 without errors,
 * 1 with, 2 for bad arguments or a failed setup.  Filling and checking the
 * pattern is verification, not the program's modelled work: it costs no
 * simulated time.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "myri/api0.h"
#include "myri/prog.h"

enum { PROGRAMS__MAX_SIZES = 32, PROGRAMS__HDR = 16 };

typedef struct programs__env {
    int unit, chan, me, n;
    int mtu;               /* the board's largest payload (myri_api0_mtu once, at setup) */
    double timeout_us;
    long errors;
    const char *tag;
} programs__env;

/* ---- arguments ------------------------------------------------------------------- */

static const char *programs__arg(int argc, char **argv, const char *key)
{
    size_t k = strlen(key);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], key, k) == 0 && argv[i][k] == '=') return argv[i] + k + 1;
    return NULL;
}

static double programs__num(int argc, char **argv, const char *key, double def)
{
    const char *v = programs__arg(argc, argv, key);
    if (!v) return def;
    char *end;
    double d = strtod(v, &end);
    return end != v && *end == '\0' ? d : -1; /* a malformed number: -1, refused by the range checks */
}

/* A comma-separated list of sizes (bytes >= 0); returns the count or -1. */
static int programs__sizes(const char *text, int *out)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > (1L << 24) || n == PROGRAMS__MAX_SIZES) return -1;
        out[n++] = (int)v;
        p = end;
        if (*p == ',') p++;
        else if (*p) return -1;
    }
    return n;
}

/* ---- payloads ---------------------------------------------------------------------- */

static uint8_t programs__byte(uint32_t src, uint32_t seq, uint32_t i)
{
    uint32_t x = src * 0x9e3779b1u ^ seq * 0x85ebca6bu ^ i * 0xc2b2ae35u;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    return (uint8_t)(x >> 24);
}
static void programs__fill(uint8_t *p, int len, uint32_t src, uint32_t seq, int from)
{
    for (int i = from; i < len; i++) p[i] = programs__byte(src, seq, (uint32_t)i);
}
/* The number of bytes of p that differ from the pattern. */
static long programs__check(const uint8_t *p, int len, uint32_t src, uint32_t seq, int from)
{
    long bad = 0;
    for (int i = from; i < len; i++) bad += p[i] != programs__byte(src, seq, (uint32_t)i);
    return bad;
}

/* ---- API helpers --------------------------------------------------------------------- */

/* init, the receive channel, a report of any failure. */
static int programs__setup(programs__env *e, int argc, char **argv, const char *tag)
{
    e->tag = tag;
    e->unit = (int)programs__num(argc, argv, "unit", 0);
    e->chan = (int)programs__num(argc, argv, "chan", 1);
    e->timeout_us = programs__num(argc, argv, "timeout_us", 100000);
    e->me = myri_prog_host();
    e->n = myri_prog_nhosts();
    e->errors = 0;
    if (e->unit < 0 || e->chan < 0 || !(e->timeout_us > 0) || e->me < 0) return -1;
    const char *mcp = programs__arg(argc, argv, "mcp");
    char mcpbuf[64] = "";
    if (mcp) snprintf(mcpbuf, sizeof mcpbuf, "%s", mcp);
    int rc = myri_api0_init(e->unit, 0, 0, mcpbuf);
    if (rc == 0) rc = e->mtu = myri_api0_mtu(e->unit);
    if (rc > 0) rc = myri_api0_get_chan(e->unit, e->chan);
    if (rc >= 0) rc = myri_api0_init_recv_chan(e->unit, e->chan);
    if (rc < 0) {
        char key[64];
        snprintf(key, sizeof key, "%s.setup_error", tag);
        myri_prog_report(key, rc);
        return -1;
    }
    return 0;
}

/* A route id to host `to` (added to the board). */
static int programs__route(const programs__env *e, int to)
{
    char r[64];
    int len = myri_prog_route(to, r, (int)sizeof r);
    if (len < 0) return -1;
    int id = myri_api0_add_route(e->unit, MYRI_API0_NEXT_ROUTE, r, len);
    return id > 0 ? id : -1;
}

/* Sends len bytes: header words (src, seq, time) when hdr, the pattern after.
 * Retries while the board has no buffer or queue room (each try costs its
 * API time), up to the time-out. */
static int programs__send(programs__env *e, int route, int len, uint32_t seq, int hdr)
{
    uint64_t t0 = myri_prog_now_ps(), limit = (uint64_t)(e->timeout_us * 1e6);
    void *buf = NULL;
    int rc;
    while ((rc = myri_api0_get_send_buffer_l(e->unit, &buf)) == MYRI_API0_NO_BUFFERS)
        if (myri_prog_now_ps() - t0 > limit) break;
    if (rc) return rc;
    if (len > e->mtu) { /* never write past the buffer: the send would be refused anyway */
        myri_api0_free_send_l(e->unit, buf);
        return MYRI_API0_ETOOLONG;
    }
    uint8_t *p = buf;
    int from = 0;
    if (hdr && len >= PROGRAMS__HDR) {
        uint64_t now = myri_prog_now_ps();
        uint32_t w[4] = {(uint32_t)e->me, seq, (uint32_t)(now >> 32), (uint32_t)now};
        memcpy(p, w, sizeof w);
        from = PROGRAMS__HDR;
    }
    programs__fill(p, len, (uint32_t)e->me, seq, from);
    while ((rc = myri_api0_send_route_l(e->unit, e->chan, buf, len, route)) == MYRI_API0_QUEUE_FULL)
        if (myri_prog_now_ps() - t0 > limit) break;
    int frc = myri_api0_free_send_l(e->unit, buf);
    return rc ? rc : frc;
}

/* Waits for one packet and checks it against (src, seq); len < 0: any length.
 * Returns 0, or -1 at the time-out (counted). */
static int programs__recv(programs__env *e, int src, uint32_t seq, int len)
{
    int rc = myri_prog_recv_wait(e->unit, e->chan, e->timeout_us);
    if (rc <= 0) {
        e->errors++;
        return -1;
    }
    void *buf;
    int got;
    if (myri_api0_recv(e->unit, e->chan, &buf, &got) != 0) {
        e->errors++;
        return -1;
    }
    if (len >= 0 && got != len) e->errors++;
    else if (programs__check(buf, got, (uint32_t)src, seq, 0) != 0) e->errors++;
    if (myri_api0_free_recv(e->unit, e->chan, buf) != 0) e->errors++;
    return 0;
}

static void programs__report(const programs__env *e, const char *what, int size, double v)
{
    char key[64];
    if (size >= 0) snprintf(key, sizeof key, "%s.%d.%s", e->tag, size, what);
    else snprintf(key, sizeof key, "%s.%s", e->tag, what);
    myri_prog_report(key, v);
}

/* ---- pingpong / latency --------------------------------------------------------------- */

static int programs__pingpong_run(int argc, char **argv, const char *tag, const char *defsizes)
{
    programs__env e;
    int sizes[PROGRAMS__MAX_SIZES];
    const char *st = programs__arg(argc, argv, "sizes");
    int ns = programs__sizes(st ? st : defsizes, sizes);
    int reps = (int)programs__num(argc, argv, "reps", 100), warm = (int)programs__num(argc, argv, "warmup", 2);
    if (ns <= 0 || reps < 1 || warm < 0 || programs__setup(&e, argc, argv, tag)) return 2;
    int peer = (int)programs__num(argc, argv, "peer", e.me == 0 ? 1 : 0);
    if (peer < 0 || peer >= e.n || peer == e.me) return 2;
    int route = programs__route(&e, peer);
    if (route < 0) return 2;
    bool ping = e.me < peer;
    uint32_t seq = 0;
    for (int s = 0; s < ns; s++) {
        uint64_t t0 = 0;
        for (int r = 0; r < warm + reps; r++, seq++) {
            if (r == warm) t0 = myri_prog_now_ps();
            if (ping) {
                if (programs__send(&e, route, sizes[s], seq, 0)) e.errors++;
                if (programs__recv(&e, peer, seq, sizes[s])) break;
            } else {
                if (programs__recv(&e, peer, seq, sizes[s])) break;
                if (programs__send(&e, route, sizes[s], seq, 0)) e.errors++;
            }
        }
        if (!ping) continue;
        double t_us = (double)(myri_prog_now_ps() - t0) / 1e6;
        programs__report(&e, "latency_us", sizes[s], t_us / (2.0 * reps));
        /* seed 001: total bytes sent (both ways) / 2 / total time */
        programs__report(&e, "bandwidth_MBps", sizes[s], t_us > 0 ? 2.0 * reps * sizes[s] / 2.0 / t_us : 0);
    }
    programs__report(&e, "errors", -1, (double)e.errors);
    return e.errors ? 1 : 0;
}

static int programs__pingpong(int argc, char **argv)
{
    return programs__pingpong_run(argc, argv, "pingpong", "4,64,256,1024,2048,4096,8192");
}
static int programs__latency(int argc, char **argv)
{
    return programs__pingpong_run(argc, argv, "latency", "4,16,64,128,256,512,1024");
}

/* ---- stream ---------------------------------------------------------------------------- */

static int programs__stream(int argc, char **argv)
{
    programs__env e;
    int count = (int)programs__num(argc, argv, "count", 200), size = (int)programs__num(argc, argv, "size", 8192);
    int window = (int)programs__num(argc, argv, "window", 8);
    if (count < 1 || size < 0 || window < 1 || programs__setup(&e, argc, argv, "stream")) return 2;
    int peer = (int)programs__num(argc, argv, "peer", e.me == 0 ? 1 : 0);
    if (peer < 0 || peer >= e.n || peer == e.me) return 2;
    int route = programs__route(&e, peer);
    if (route < 0) return 2;
    if (e.me < peer) {
        uint64_t t0 = myri_prog_now_ps();
        for (int i = 0; i < count; i++) {
            int pending;
            while ((pending = myri_api0_num_pending(e.unit)) >= window)
                if (myri_prog_now_ps() - t0 > (uint64_t)(e.timeout_us * 1e6)) break;
            if (pending < 0 || programs__send(&e, route, size, (uint32_t)i, 0)) e.errors++;
        }
        programs__recv(&e, peer, (uint32_t)count, 4); /* the ack */
        double t_us = (double)(myri_prog_now_ps() - t0) / 1e6;
        programs__report(&e, "time_us", -1, t_us);
        programs__report(&e, "bandwidth_MBps", -1, t_us > 0 ? (double)count * size / t_us : 0);
    } else {
        for (int i = 0; i < count; i++)
            if (programs__recv(&e, peer, (uint32_t)i, size)) break;
        if (programs__send(&e, route, 4, (uint32_t)count, 0)) e.errors++;
    }
    programs__report(&e, "errors", -1, (double)e.errors);
    return e.errors ? 1 : 0;
}

/* ---- traffic ------------------------------------------------------------------------------ */

typedef struct programs__tstate {
    programs__env e;
    int *route;           /* per peer: route id, 0 unknown, -1 none */
    uint32_t *send_seq;   /* per peer: the next sequence number of the pair (me, peer) */
    uint32_t *next_seq;   /* per source: one past the highest sequence number received from it */
    long sent, received, reordered;
    double lat_sum_us, lat_max_us;
} programs__tstate;

/* Takes every packet ready; checks it; one-way latency from its timestamp. */
static void programs__traffic_drain(programs__tstate *t)
{
    programs__env *e = &t->e;
    int n;
    while ((n = myri_api0_recv_poll(e->unit, e->chan)) > 0) {
        void *buf;
        int len;
        if (myri_api0_recv(e->unit, e->chan, &buf, &len) != 0) {
            e->errors++;
            return;
        }
        uint32_t w[4];
        if (len < PROGRAMS__HDR) {
            e->errors++;
        } else {
            memcpy(w, buf, sizeof w);
            if (w[0] >= (uint32_t)e->n || programs__check(buf, len, w[0], w[1], PROGRAMS__HDR)) {
                e->errors++;
            } else {
                uint64_t sent_ps = (uint64_t)w[2] << 32 | w[3];
                double lat = (double)(myri_prog_now_ps() - sent_ps) / 1e6;
                t->lat_sum_us += lat;
                if (lat > t->lat_max_us) t->lat_max_us = lat;
                if (w[1] < t->next_seq[w[0]]) t->reordered++; /* a later one of this pair came first */
                else t->next_seq[w[0]] = w[1] + 1;
                t->received++;
            }
        }
        if (myri_api0_free_recv(e->unit, e->chan, buf) != 0) e->errors++;
    }
    if (n < 0) e->errors++;
}

static int programs__traffic_send(programs__tstate *t, int size)
{
    programs__env *e = &t->e;
    int peer = (int)myri_prog_random_below((uint64_t)e->n - 1);
    if (peer >= e->me) peer++;
    if (t->route[peer] == 0) t->route[peer] = programs__route(e, peer);
    if (t->route[peer] < 0) return -1;
    if (programs__send(e, t->route[peer], size, t->send_seq[peer]++, 1)) return -1;
    t->sent++;
    return 0;
}

static int programs__traffic(int argc, char **argv)
{
    programs__tstate t;
    memset(&t, 0, sizeof t);
    int size = (int)programs__num(argc, argv, "size", 256);
    double gap = programs__num(argc, argv, "interval_us", 50), dur = programs__num(argc, argv, "duration_us", 1000);
    double drain = programs__num(argc, argv, "drain_us", 500);
    if (size < PROGRAMS__HDR || !(gap > 0) || dur < 0 || drain < 0) return 2;
    if (programs__setup(&t.e, argc, argv, "traffic") || t.e.n < 2) return 2;
    t.route = myri_prog_alloc((size_t)t.e.n * sizeof *t.route);
    t.send_seq = myri_prog_alloc((size_t)t.e.n * sizeof *t.send_seq);
    t.next_seq = myri_prog_alloc((size_t)t.e.n * sizeof *t.next_seq);
    if (!t.route || !t.send_seq || !t.next_seq) {
        return 2;
    }
    double start = myri_prog_now_us(), end = start + dur, next = start + myri_prog_random_exp(gap);
    while (myri_prog_now_us() < end) {
        programs__traffic_drain(&t);
        double now = myri_prog_now_us();
        if (now >= next) {
            if (programs__traffic_send(&t, size)) t.e.errors++;
            next += myri_prog_random_exp(gap);
        } else {
            double until = next < end ? next : end;
            (void)myri_prog_recv_wait(t.e.unit, t.e.chan, until - now);
        }
    }
    double stop = myri_prog_now_us() + drain;
    while (myri_prog_now_us() < stop) {
        if (myri_prog_recv_wait(t.e.unit, t.e.chan, stop - myri_prog_now_us()) <= 0) break;
        programs__traffic_drain(&t);
    }
    programs__report(&t.e, "sent", -1, (double)t.sent);
    programs__report(&t.e, "received", -1, (double)t.received);
    programs__report(&t.e, "reordered", -1, (double)t.reordered);
    programs__report(&t.e, "latency_mean_us", -1, t.received ? t.lat_sum_us / (double)t.received : 0);
    programs__report(&t.e, "latency_max_us", -1, t.lat_max_us);
    programs__report(&t.e, "errors", -1, (double)t.e.errors);
    return t.e.errors ? 1 : 0;
}

/* ---- the table --------------------------------------------------------------------------- */

static const struct {
    const char *name;
    myri_prog_main main;
} programs__table[] = {
    {"pingpong", programs__pingpong},
    {"latency", programs__latency},
    {"stream", programs__stream},
    {"traffic", programs__traffic},
    {"via-stream", myri_program_via_stream},   /* via_programs.c */
    {"via-poisson", myri_program_via_poisson},
    {"via-duplex", myri_program_via_duplex},
    {"via-selftest", myri_program_via_selftest},
};

myri_prog_main myri_program_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof programs__table / sizeof programs__table[0]; i++)
        if (strcmp(programs__table[i].name, name) == 0) return programs__table[i].main;
    return NULL;
}

const char *myri_program_names(void) { return "pingpong|latency|stream|traffic|via-stream|via-poisson|via-selftest"; }
