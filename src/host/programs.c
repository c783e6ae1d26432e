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
enum { PROGRAMS__TALLY = 2 };           /* programs__send's hdr: a closing tally (traffic), not data */
#define PROGRAMS__TALLY_BIT 0x80000000u /* in the tally's source word */
/* traffic's closing rounds: a host sends its tally of round k before it waits for the tally of round k - 4, so
 * about 4 tallies at a time wait at a receiver, well below the MCP's receive pool (mcp.rx_pool, 16 buffers by
 * default); assumption, chosen so that 64 hosts close in a few hundred us instead of 63 round trips */
enum { PROGRAMS__TALLY_AHEAD = 4 };

typedef struct programs__env {
    int unit, chan, me, n;
    int mtu;               /* the board's largest payload (myri_api0_mtu once, at setup) */
    int *group, ngroup;    /* the hosts of this program's entry (myri_prog_group) */
    double timeout_us;
    long sent, received;   /* packets sent; packets received whole and right */
    long lost, corrupted;  /* packets that never came (by sequence number or time-out); wrong bytes or length */
    long errors;           /* API calls that failed */
    bool whole;            /* stream sender: the ack said every packet came whole */
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
/* The fill and the check are about 5 % of a system run's instructions
 * (bench_system, 512-byte payloads); on x86-64 they are also compiled for
 * AVX2 (eight lanes of the 32-bit multiply instead of SSE2's emulated four),
 * chosen at load time where the CPU has it: the same bytes either way. */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
#define PROGRAMS__CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PROGRAMS__CLONES
#endif
PROGRAMS__CLONES static void programs__fill(uint8_t *p, int len, uint32_t src, uint32_t seq, int from)
{
    for (int i = from; i < len; i++) p[i] = programs__byte(src, seq, (uint32_t)i);
}
/* The number of bytes of p that differ from the pattern. */
PROGRAMS__CLONES static long programs__check(const uint8_t *p, int len, uint32_t src, uint32_t seq, int from)
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
    e->sent = e->received = e->lost = e->corrupted = e->errors = 0;
    e->whole = false;
    if (e->unit < 0 || e->chan < 0 || !(e->timeout_us > 0) || e->me < 0) return -1;
    e->ngroup = myri_prog_group(NULL, 0);
    e->group = e->ngroup > 0 ? myri_prog_alloc((size_t)e->ngroup * sizeof *e->group) : NULL;
    if (!e->group || myri_prog_group(e->group, e->ngroup) != e->ngroup) return -1;
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
        uint32_t w[4] = {(uint32_t)e->me | (hdr == PROGRAMS__TALLY ? PROGRAMS__TALLY_BIT : 0), seq,
                         (uint32_t)(now >> 32), (uint32_t)now};
        memcpy(p, w, sizeof w);
        from = PROGRAMS__HDR;
    }
    programs__fill(p, len, (uint32_t)e->me, seq, from);
    while ((rc = myri_api0_send_route_l(e->unit, e->chan, buf, len, route)) == MYRI_API0_QUEUE_FULL)
        if (myri_prog_now_ps() - t0 > limit) break;
    int frc = myri_api0_free_send_l(e->unit, buf);
    if (!rc) e->sent++;
    return rc ? rc : frc;
}

/* Waits for one packet and checks it against (src, seq); len < 0: any length.
 * Returns 0 (received or corrupted, counted), or -1 at the time-out (a loss,
 * counted) or when the API fails (an error). */
static int programs__recv(programs__env *e, int src, uint32_t seq, int len)
{
    int rc = myri_prog_recv_wait(e->unit, e->chan, e->timeout_us);
    if (rc <= 0) {
        if (rc == 0) e->lost++;
        else e->errors++;
        return -1;
    }
    void *buf;
    int got;
    if (myri_api0_recv(e->unit, e->chan, &buf, &got) != 0) {
        e->errors++;
        return -1;
    }
    if ((len >= 0 && got != len) || programs__check(buf, got, (uint32_t)src, seq, 0) != 0) e->corrupted++;
    else e->received++;
    if (myri_api0_free_recv(e->unit, e->chan, buf) != 0) e->errors++;
    return 0;
}

/* The counts every program reports, and its exit code: 0 when every packet
 * came whole and no call failed, else 1. */
static int programs__finish(const programs__env *e)
{
    char key[64];
    const struct {
        const char *what;
        long v;
    } f[5] = {{"sent", e->sent}, {"received", e->received}, {"lost", e->lost}, {"corrupted", e->corrupted},
              {"errors", e->errors}};
    for (int i = 0; i < 5; i++) {
        snprintf(key, sizeof key, "%s.%s", e->tag, f[i].what);
        myri_prog_report(key, (double)f[i].v);
    }
    return e->lost || e->corrupted || e->errors ? 1 : 0;
}

/* The peer of a two-host program: `peer=` if given, else the other host of
 * its entry (which must name two); -1 if none. */
static int programs__peer(const programs__env *e, int argc, char **argv)
{
    if (programs__arg(argc, argv, "peer")) {
        int peer = (int)programs__num(argc, argv, "peer", -1);
        return peer < 0 || peer >= e->n || peer == e->me ? -1 : peer;
    }
    if (e->ngroup != 2 || (e->group[0] != e->me && e->group[1] != e->me)) return -1;
    return e->group[0] == e->me ? e->group[1] : e->group[0];
}

static void programs__report(const programs__env *e, const char *what, int size, double v)
{
    char key[64];
    if (size >= 0) snprintf(key, sizeof key, "%s.%d.%s", e->tag, size, what);
    else snprintf(key, sizeof key, "%s.%s", e->tag, what);
    myri_prog_report(key, v);
}

/* ---- pingpong / latency --------------------------------------------------------------- */

/* One size of a ping-pong: warm + reps round trips; true when every packet
 * of them came whole and every send was taken (what a latency needs). */
static bool programs__pingpong_size(programs__env *e, int route, int peer, bool ping, int size, int warm, int reps,
                                    uint32_t *seq, uint64_t *t0)
{
    long bad0 = e->lost + e->corrupted + e->errors;
    for (int r = 0; r < warm + reps; r++, (*seq)++) {
        if (r == warm) *t0 = myri_prog_now_ps();
        if (ping && programs__send(e, route, size, *seq, 0)) e->errors++;
        if (programs__recv(e, peer, *seq, size)) break;
        if (!ping && programs__send(e, route, size, *seq, 0)) e->errors++;
    }
    return e->lost + e->corrupted + e->errors == bad0;
}

static int programs__pingpong_run(int argc, char **argv, const char *tag, const char *defsizes)
{
    programs__env e;
    int sizes[PROGRAMS__MAX_SIZES];
    const char *st = programs__arg(argc, argv, "sizes");
    int ns = programs__sizes(st ? st : defsizes, sizes);
    int reps = (int)programs__num(argc, argv, "reps", 100), warm = (int)programs__num(argc, argv, "warmup", 2);
    if (ns <= 0 || reps < 1 || warm < 0 || programs__setup(&e, argc, argv, tag)) return 2;
    int peer = programs__peer(&e, argc, argv);
    if (peer < 0) return 2;
    int route = programs__route(&e, peer);
    if (route < 0) return 2;
    bool ping = e.me < peer;
    uint32_t seq = 0;
    for (int s = 0; s < ns; s++) {
        if (sizes[s] > e.mtu) { /* both sides skip it: the board refuses it (reported with its code) */
            programs__report(&e, "error", sizes[s], MYRI_API0_ETOOLONG);
            e.errors++;
            continue;
        }
        uint64_t t0 = 0;
        bool whole = programs__pingpong_size(&e, route, peer, ping, sizes[s], warm, reps, &seq, &t0);
        if (!ping) continue;
        if (!whole) { /* no figure made of time-outs: the size is named as failed */
            programs__report(&e, "failed", sizes[s], 1);
            continue;
        }
        double t_us = (double)(myri_prog_now_ps() - t0) / 1e6;
        programs__report(&e, "latency_us", sizes[s], t_us / (2.0 * reps));
        /* seed 001: total bytes sent (both ways) / 2 / total time */
        programs__report(&e, "bandwidth_MBps", sizes[s], t_us > 0 ? 2.0 * reps * sizes[s] / 2.0 / t_us : 0);
    }
    return programs__finish(&e);
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

/* The stream's receiver: takes packets until the last sequence number or a
 * time-out; a gap in the sequence numbers is a loss, a packet with wrong
 * bytes or length is corrupted (each packet carries its number in its
 * header).  Then the ack: (me, count, received, lost, corrupted). */
static void programs__stream_recv(programs__env *e, int peer, int route, int count, int size)
{
    uint32_t next = 0;
    while (next < (uint32_t)count) {
        int rc = myri_prog_recv_wait(e->unit, e->chan, e->timeout_us);
        if (rc <= 0) {
            if (rc < 0) e->errors++;
            break;
        }
        void *buf;
        int got;
        if (myri_api0_recv(e->unit, e->chan, &buf, &got) != 0) {
            e->errors++;
            break;
        }
        uint32_t w[4] = {0, 0, 0, 0};
        if (got >= PROGRAMS__HDR) memcpy(w, buf, sizeof w);
        if (got != size || w[0] != (uint32_t)peer || w[1] >= (uint32_t)count || w[1] < next) {
            e->corrupted++; /* not a packet of this stream we still expect: its number is not to be trusted */
        } else {
            e->lost += w[1] - next;
            next = w[1] + 1;
            if (programs__check(buf, got, (uint32_t)peer, w[1], PROGRAMS__HDR)) e->corrupted++;
            else e->received++;
        }
        if (myri_api0_free_recv(e->unit, e->chan, buf) != 0) e->errors++;
    }
    e->lost += (uint32_t)count - next; /* never came before the time-out */
    void *ack;
    if (myri_api0_get_send_buffer_l(e->unit, &ack) != 0) {
        e->errors++;
        return;
    }
    uint32_t a[5] = {(uint32_t)e->me, (uint32_t)count, (uint32_t)e->received, (uint32_t)e->lost,
                     (uint32_t)e->corrupted};
    memcpy(ack, a, sizeof a);
    int rc;
    uint64_t t0 = myri_prog_now_ps();
    while ((rc = myri_api0_send_route_l(e->unit, e->chan, ack, (int)sizeof a, route)) == MYRI_API0_QUEUE_FULL)
        if (myri_prog_now_ps() - t0 > (uint64_t)(e->timeout_us * 1e6)) break;
    if (rc) e->errors++;
    else e->sent++;
    if (myri_api0_free_send_l(e->unit, ack) != 0) e->errors++;
}

/* The stream's sender: count packets with up to `window` pending, then the
 * receiver's ack.  The bandwidth is printed only when the ack says every
 * packet came whole; else the receiver's losses are reported as such. */
static void programs__stream_send(programs__env *e, int peer, int route, int count, int size, int window)
{
    uint64_t t0 = myri_prog_now_ps();
    for (int i = 0; i < count; i++) {
        int pending;
        while ((pending = myri_api0_num_pending(e->unit)) >= window)
            if (myri_prog_now_ps() - t0 > (uint64_t)(e->timeout_us * 1e6)) break;
        if (pending < 0 || programs__send(e, route, size, (uint32_t)i, 1)) e->errors++;
    }
    /* the receiver waits up to timeout_us after its last packet: wait for the ack twice that */
    int rc = myri_prog_recv_wait(e->unit, e->chan, 2 * e->timeout_us);
    uint32_t a[5] = {0, 0, 0, 0, 0};
    void *buf;
    int got = 0;
    if (rc <= 0 || myri_api0_recv(e->unit, e->chan, &buf, &got) != 0) {
        e->lost++; /* the ack */
        return;
    }
    if (got == (int)sizeof a) memcpy(a, buf, sizeof a);
    if (myri_api0_free_recv(e->unit, e->chan, buf) != 0) e->errors++;
    if (got != (int)sizeof a || a[0] != (uint32_t)peer || a[1] != (uint32_t)count) {
        e->corrupted++;
        return;
    }
    e->received++;
    double t_us = (double)(myri_prog_now_ps() - t0) / 1e6;
    e->whole = a[2] == (uint32_t)count;
    if (e->whole && !e->errors) {
        programs__report(e, "time_us", -1, t_us);
        programs__report(e, "bandwidth_MBps", -1, t_us > 0 ? (double)count * size / t_us : 0);
    } else { /* the packets the receiver did not get, as it counted them */
        programs__report(e, "peer_received", -1, a[2]);
        programs__report(e, "peer_lost", -1, a[3]);
        programs__report(e, "peer_corrupted", -1, a[4]);
    }
}

static int programs__stream(int argc, char **argv)
{
    programs__env e;
    int count = (int)programs__num(argc, argv, "count", 200), size = (int)programs__num(argc, argv, "size", 8192);
    int window = (int)programs__num(argc, argv, "window", 8);
    if (count < 1 || size < PROGRAMS__HDR || window < 1 || programs__setup(&e, argc, argv, "stream")) return 2;
    int peer = programs__peer(&e, argc, argv);
    if (peer < 0) return 2;
    int route = programs__route(&e, peer);
    if (route < 0) return 2;
    if (size > e.mtu) {
        programs__report(&e, "error", -1, MYRI_API0_ETOOLONG);
        return 2;
    }
    if (e.me < peer) programs__stream_send(&e, peer, route, count, size, window);
    else programs__stream_recv(&e, peer, route, count, size);
    int rc = programs__finish(&e);
    return rc ? rc : e.me < peer && !e.whole ? 1 : 0;
}

/* ---- traffic ------------------------------------------------------------------------------ */

typedef struct programs__tstate {
    programs__env e;
    int *route;           /* per peer: route id, 0 unknown, -1 none */
    uint32_t *send_seq;   /* per peer: the next sequence number of the pair (me, peer) */
    uint32_t *next_seq;   /* per source: one past the highest sequence number received from it */
    uint8_t *tally_seen;  /* per source: its closing tally came */
    long reordered, data_received;
    double lat_sum_us, lat_max_us;
} programs__tstate;


/* Checks one packet of source w[0] number w[1]: a gap in the pair's numbers
 * is a loss (taken back if the packet comes later: reordered); a tally
 * (the count the source sent to me) closes the pair. */
static void programs__traffic_take(programs__tstate *t, const uint8_t *buf, int len)
{
    programs__env *e = &t->e;
    uint32_t w[4];
    memcpy(w, buf, sizeof w);
    uint32_t src = w[0] & ~PROGRAMS__TALLY_BIT;
    if (src >= (uint32_t)e->n || (!(w[0] & PROGRAMS__TALLY_BIT) && programs__check(buf, len, src, w[1], PROGRAMS__HDR))) {
        e->corrupted++;
        return;
    }
    e->received++;
    if (w[0] & PROGRAMS__TALLY_BIT) { /* w[1]: how many data packets src sent me */
        if (w[1] > t->next_seq[src]) e->lost += w[1] - t->next_seq[src];
        t->next_seq[src] = w[1];
        t->tally_seen[src] = 1;
        return;
    }
    t->data_received++;
    uint64_t sent_ps = (uint64_t)w[2] << 32 | w[3];
    double lat = (double)(myri_prog_now_ps() - sent_ps) / 1e6;
    t->lat_sum_us += lat;
    if (lat > t->lat_max_us) t->lat_max_us = lat;
    if (w[1] < t->next_seq[src]) { /* a later one of this pair came first: counted lost then, here now */
        t->reordered++;
        e->lost--;
    } else {
        e->lost += w[1] - t->next_seq[src];
        t->next_seq[src] = w[1] + 1;
    }
}

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
        if (len < PROGRAMS__HDR) e->corrupted++;
        else programs__traffic_take(t, buf, len);
        if (myri_api0_free_recv(e->unit, e->chan, buf) != 0) e->errors++;
    }
    if (n < 0) e->errors++;
}

/* Sends `size` bytes to a peer drawn uniformly from the entry's other hosts,
 * or (tally) the count sent so far to peer `to`. */
static int programs__traffic_send(programs__tstate *t, int size, int to)
{
    programs__env *e = &t->e;
    int peer = to;
    if (peer < 0) {
        int k = (int)myri_prog_random_below((uint64_t)e->ngroup - 1);
        peer = e->group[k];
        if (peer == e->me) peer = e->group[e->ngroup - 1]; /* me is in the group: skip it */
    }
    if (t->route[peer] == 0) t->route[peer] = programs__route(e, peer);
    if (t->route[peer] < 0) return -1;
    if (to >= 0) return programs__send(e, t->route[peer], PROGRAMS__HDR, t->send_seq[peer], PROGRAMS__TALLY);
    return programs__send(e, t->route[peer], size, t->send_seq[peer]++, 1);
}

/* The closing tallies to every other host of the entry, then the drain;
 * a tally that never came means at least one packet lost.  The tallies go
 * in rounds, as an all-to-all exchange does: in round k host number i of the
 * entry sends its tally to number i + k (mod the entry's size), then takes
 * packets until the tally of round k - PROGRAMS__TALLY_AHEAD, from number
 * i - k + PROGRAMS__TALLY_AHEAD, has come (or `drain` has passed).  Each host
 * so receives about one tally a round and a few at a time.  Sent at once (every host's
 * tallies to hosts 0, 1, ... back to back), they overflowed the receive pools
 * of the 64-host fat tree: 2 000 and more drop_pool_full whatever the
 * duration or load, counted as losses. */
static void programs__traffic_close(programs__tstate *t, double drain)
{
    int self = 0, n = t->e.ngroup;
    for (int k = 0; k < n; k++)
        if (t->e.group[k] == t->e.me) self = k;
    for (int k = 1; k < n + PROGRAMS__TALLY_AHEAD; k++) {
        if (k < n && programs__traffic_send(t, 0, t->e.group[(self + k) % n])) t->e.errors++;
        if (k < PROGRAMS__TALLY_AHEAD + 1 || k - PROGRAMS__TALLY_AHEAD >= n) continue;
        int from = t->e.group[(self - (k - PROGRAMS__TALLY_AHEAD) + n) % n];
        double until = myri_prog_now_us() + drain;
        while (!t->tally_seen[from] && myri_prog_now_us() < until) {
            if (myri_prog_recv_wait(t->e.unit, t->e.chan, until - myri_prog_now_us()) <= 0) break;
            programs__traffic_drain(t);
        }
    }
    double stop = myri_prog_now_us() + drain;
    while (myri_prog_now_us() < stop) {
        if (myri_prog_recv_wait(t->e.unit, t->e.chan, stop - myri_prog_now_us()) <= 0) break;
        programs__traffic_drain(t);
    }
    for (int k = 0; k < t->e.ngroup; k++)
        if (t->e.group[k] != t->e.me && !t->tally_seen[t->e.group[k]]) t->e.lost++;
}

static int programs__traffic(int argc, char **argv)
{
    programs__tstate t;
    memset(&t, 0, sizeof t);
    int size = (int)programs__num(argc, argv, "size", 256);
    double gap = programs__num(argc, argv, "interval_us", 50), dur = programs__num(argc, argv, "duration_us", 1000);
    double drain = programs__num(argc, argv, "drain_us", 500);
    if (size < PROGRAMS__HDR || !(gap > 0) || dur < 0 || drain < 0) return 2;
    if (programs__setup(&t.e, argc, argv, "traffic") || t.e.ngroup < 2) return 2;
    t.route = myri_prog_alloc((size_t)t.e.n * sizeof *t.route);
    t.send_seq = myri_prog_alloc((size_t)t.e.n * sizeof *t.send_seq);
    t.next_seq = myri_prog_alloc((size_t)t.e.n * sizeof *t.next_seq);
    t.tally_seen = myri_prog_alloc((size_t)t.e.n);
    if (!t.route || !t.send_seq || !t.next_seq || !t.tally_seen) return 2;
    double start = myri_prog_now_us(), end = start + dur, next = start + myri_prog_random_exp(gap);
    while (myri_prog_now_us() < end) {
        programs__traffic_drain(&t);
        double now = myri_prog_now_us();
        if (now >= next) {
            if (programs__traffic_send(&t, size, -1)) t.e.errors++;
            next += myri_prog_random_exp(gap);
        } else {
            double until = next < end ? next : end;
            (void)myri_prog_recv_wait(t.e.unit, t.e.chan, until - now);
        }
    }
    programs__traffic_close(&t, drain);
    programs__report(&t.e, "reordered", -1, (double)t.reordered);
    if (t.data_received) { /* over the data packets that came (not the tallies) */
        programs__report(&t.e, "latency_mean_us", -1, t.lat_sum_us / (double)t.data_received);
        programs__report(&t.e, "latency_max_us", -1, t.lat_max_us);
    }
    return programs__finish(&t.e);
}

/* ---- the table --------------------------------------------------------------------------- */

enum { PROGRAMS__ANY_HOSTS = 0, PROGRAMS__TWO_HOSTS = 2 }; /* hosts an entry needs: 2 exactly, or >= 2 */

static const struct {
    const char *name;
    myri_prog_main main;
    bool via;            /* for the VIA firmwares (lcp, myricom); else for the MCP */
    int hosts;           /* PROGRAMS__TWO_HOSTS, or PROGRAMS__ANY_HOSTS (two or more) */
    const char *keys;    /* its argument keys besides the common ones, space-separated */
} programs__table[] = {
    {"pingpong", programs__pingpong, false, PROGRAMS__TWO_HOSTS, "sizes reps warmup peer"},
    {"latency", programs__latency, false, PROGRAMS__TWO_HOSTS, "sizes reps warmup peer"},
    {"stream", programs__stream, false, PROGRAMS__TWO_HOSTS, "count size window peer"},
    {"traffic", programs__traffic, false, PROGRAMS__ANY_HOSTS, "size interval_us duration_us drain_us"},
    {"via-stream", myri_program_via_stream, true, PROGRAMS__TWO_HOSTS, "count size window"}, /* via_programs.c */
    {"via-poisson", myri_program_via_poisson, true, PROGRAMS__TWO_HOSTS, "count size rate"},
    {"via-duplex", myri_program_via_duplex, true, PROGRAMS__TWO_HOSTS, "count size window settle_us stagger_us"},
    {"via-selftest", myri_program_via_selftest, true, PROGRAMS__TWO_HOSTS, ""},
};
#define PROGRAMS__N (sizeof programs__table / sizeof programs__table[0])

myri_prog_main myri_program_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < PROGRAMS__N; i++)
        if (strcmp(programs__table[i].name, name) == 0) return programs__table[i].main;
    return NULL;
}

const char *myri_program_names(void)
{
    return "pingpong|latency|stream|traffic|via-stream|via-poisson|via-duplex|via-selftest";
}

/* Whether `key` (len characters) is a word of the space-separated list. */
static bool programs__in(const char *list, const char *key, size_t len)
{
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, " ");
        if (n == len && strncmp(p, key, len) == 0) return true;
        p += n;
        while (*p == ' ') p++;
    }
    return false;
}

/* One argument word: a known key with a well-formed value. */
static int programs__check_arg(const char *keys, const char *word, char *why, size_t why_bytes)
{
    const char *eq = strchr(word, '=');
    if (!eq || eq == word) {
        snprintf(why, why_bytes, "argument '%s': expected key=value; keys: %s", word, keys);
        return -1;
    }
    size_t k = (size_t)(eq - word);
    if (!programs__in(keys, word, k)) {
        snprintf(why, why_bytes, "unknown argument '%.*s'; expected one of: %s", (int)k, word, keys);
        return -1;
    }
    const char *v = eq + 1;
    if (k == 3 && !strncmp(word, "mcp", 3)) return 0; /* a firmware name */
    if (k == 5 && !strncmp(word, "sizes", 5)) {
        int sz[PROGRAMS__MAX_SIZES];
        if (programs__sizes(v, sz) > 0) return 0;
        snprintf(why, why_bytes, "sizes=%s: expected 1 to %d comma-separated byte counts (0 .. %ld), such as "
                                 "sizes=4,64,1024", v, PROGRAMS__MAX_SIZES, 1L << 24);
        return -1;
    }
    char *end;
    double d = strtod(v, &end);
    if (end == v || *end || !(d >= 0) || d > 1e15) {
        snprintf(why, why_bytes, "%.*s=%s: expected a number >= 0", (int)k, word, v);
        return -1;
    }
    return 0;
}

int myri_program_check(const char *name, const char *firmware, size_t ngroup, int argc, const char *const *argv,
                       int *bad_arg, char *why, size_t why_bytes)
{
    *bad_arg = -1;
    size_t i = 0;
    while (i < PROGRAMS__N && strcmp(programs__table[i].name, name ? name : "")) i++;
    if (i == PROGRAMS__N) return snprintf(why, why_bytes, "not a built-in program"), -1;
    bool via_fw = firmware && (!strcmp(firmware, "lcp") || !strcmp(firmware, "myricom"));
    if (programs__table[i].via != via_fw) {
        snprintf(why, why_bytes, "runs on %s, not on firmware %s; use %s", programs__table[i].via ? "the VIA "
                 "firmwares (lcp, myricom)" : "the MCP (firmware mcp)", firmware ? firmware : "(none)",
                 via_fw ? "via-stream, via-poisson, via-duplex or via-selftest" : "pingpong, latency, stream or traffic");
        return -1;
    }
    char keys[160];
    snprintf(keys, sizeof keys, "%s%s%s", programs__table[i].via ? "unit timeout_us" : "unit chan mcp timeout_us",
             programs__table[i].keys[0] ? " " : "", programs__table[i].keys);
    bool peer = false;
    for (int a = 0; a < argc; a++) {
        if (programs__check_arg(keys, argv[a], why, why_bytes)) return *bad_arg = a, -1;
        peer |= !strncmp(argv[a], "peer=", 5);
    }
    if (programs__table[i].hosts == PROGRAMS__TWO_HOSTS && ngroup != 2 && !(peer && ngroup >= 1)) {
        snprintf(why, why_bytes, "runs between two hosts; its entry names %zu (give hosts: [A, B], or peer=N "
                 "on an entry of one host)", ngroup);
        return -1;
    }
    if (programs__table[i].hosts == PROGRAMS__ANY_HOSTS && ngroup < 2) {
        snprintf(why, why_bytes, "sends among the hosts of its entry; it names %zu: give two or more", ngroup);
        return -1;
    }
    return 0;
}
