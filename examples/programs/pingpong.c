/* pingpong.c -- a ping-pong between two hosts, written as a user of Myri
 * writes their own program: it includes only <myri/api0.h> (seed 001's
 * Myrinet API) and <myri/prog.h> (who am I, routes, time, reports), and its
 * entry function is myri_main instead of main.
 *
 * Build it against the installed library into a shared object (do NOT link
 * libmyri into it: its calls resolve against the `myri` program that loads
 * it), and run it on the hosts a scenario names with `program: user`:
 *
 *   cc -std=c11 -shared -fPIC $(pkg-config --cflags myri) -o pingpong.so pingpong.c
 *   myri run scenarios/pingpong-user.yaml --program ./pingpong.so
 *
 * Host 0 pings host 1: for each size it sends one packet, host 1 sends it
 * back, `reps` times (after `warmup` untimed rounds); latency is half the
 * round trip, averaged.  Both hosts check every byte they receive against
 * the pattern the sender wrote.  Figures reported (myri_prog_report):
 *   user_pingpong.SIZE.latency_us   (host 0 only)
 *   user_pingpong.errors            (both hosts: wrong bytes, wrong lengths,
 *                                    lost packets, failed API calls)
 * Exit code: 0 when every byte of every packet matched, 1 otherwise, 2 for
 * bad arguments or a failed setup.
 *
 * Arguments (the scenario's `args:`, key=value words):
 *   sizes=4,64,1024   payload sizes in bytes (default 4,64,256,1024,4096,8192)
 *   mtu=N             the board's largest payload in bytes, the size of a send
 *                     buffer (default 8192: the MCP's mcp.mtu default); no
 *                     size may exceed it
 *   reps=N            timed round trips per size (default 10)
 *   warmup=N          untimed round trips per size first (default 2)
 *   chan=N            the receive channel both hosts use (default 1)
 *   timeout_us=T      how long to wait for each packet (default 100000 us)
 */
#include <myri/api0.h>
#include <myri/prog.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { UNIT = 0, MAX_SIZES = 16, MAX_ROUTE = 64 };

/* ---- arguments ------------------------------------------------------------ */

/* The value of "key=value" among argv[1..], or NULL. */
static const char *arg(int argc, char **argv, const char *key)
{
    size_t k = strlen(key);
    for (int i = 1; i < argc; i++)
        if (strncmp(argv[i], key, k) == 0 && argv[i][k] == '=') return argv[i] + k + 1;
    return NULL;
}

/* A non-negative integer argument, def when absent, -1 when malformed. */
static long arg_long(int argc, char **argv, const char *key, long def)
{
    const char *v = arg(argc, argv, key);
    if (!v) return def;
    char *end;
    long n = strtol(v, &end, 10);
    return end != v && *end == '\0' && n >= 0 ? n : -1;
}

/* "4,64,1024" into sizes[]; the count, or -1 when malformed. */
static int parse_sizes(const char *text, int *sizes)
{
    int n = 0;
    while (*text) {
        char *end;
        long v = strtol(text, &end, 10);
        if (end == text || v < 0 || v > 1L << 20 || n == MAX_SIZES) return -1;
        sizes[n++] = (int)v;
        text = end;
        if (*text == ',') text++;
        else if (*text) return -1;
    }
    return n;
}

/* ---- the payload pattern ---------------------------------------------------- */

/* Byte i of packet number seq: differs from packet to packet and along the
 * packet (not periodic within 8 KiB), so a lost, repeated or reordered
 * packet or a misplaced block is seen. */
static uint8_t pattern(uint32_t seq, uint32_t i)
{
    uint32_t x = (seq + 1) * 2654435761u ^ (i + 1) * 40503u;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    return (uint8_t)(x >> 24);
}

/* ---- one send, one receive ------------------------------------------------- */

/* Sends len bytes of packet seq along route to the peer's channel chan:
 * get a send buffer, fill it, queue it, free it (the API keeps a freed
 * buffer busy until the NIC has sent it).  While the board has no free
 * buffer or no queue room, waits a microsecond and tries again, for at most
 * timeout_us.  0, or a negative MYRI_API0_E* code. */
static int send_packet(int chan, int route, int len, uint32_t seq, double timeout_us)
{
    double deadline_us = myri_prog_now_us() + timeout_us;
    void *buf = NULL;
    int rc;
    while ((rc = myri_api0_get_send_buffer_l(UNIT, &buf)) == MYRI_API0_NO_BUFFERS &&
           myri_prog_now_us() < deadline_us)
        myri_prog_sleep_us(1);
    if (rc != 0) return rc;
    uint8_t *p = buf; /* MTU bytes in the board's DMA region */
    for (int i = 0; i < len; i++) p[i] = pattern(seq, (uint32_t)i);
    while ((rc = myri_api0_send_route_l(UNIT, chan, buf, len, route)) == MYRI_API0_QUEUE_FULL &&
           myri_prog_now_us() < deadline_us)
        myri_prog_sleep_us(1);
    int frc = myri_api0_free_send_l(UNIT, buf);
    return rc != 0 ? rc : frc;
}

/* Waits for the next packet on chan, checks that it holds len bytes of
 * packet seq, gives the buffer back.  Returns the number of errors found
 * (0: all bytes matched); *lost is set when nothing came in time. */
static long recv_packet(int chan, int len, uint32_t seq, double timeout_us, int *lost)
{
    *lost = 0;
    /* Polls the channel; with DMA notification the simulator skips the empty
     * polls instead of simulating each one. */
    int ready = myri_prog_recv_wait(UNIT, chan, timeout_us);
    if (ready <= 0) {
        *lost = 1;
        return 1;
    }
    void *buf;
    int got;
    if (myri_api0_recv(UNIT, chan, &buf, &got) != 0) return 1;
    long errors = 0;
    if (got != len) {
        errors++;
    } else {
        const uint8_t *p = buf; /* the packet in place, in the channel's slot: no copy */
        for (int i = 0; i < got; i++) errors += p[i] != pattern(seq, (uint32_t)i);
    }
    if (myri_api0_free_recv(UNIT, chan, buf) != 0) errors++;
    return errors;
}

/* ---- setup -------------------------------------------------------------------- */

/* Initialises the board, takes receive channel chan and adds the route to
 * peer.  Returns the route id (> 0), or a negative MYRI_API0_E* code (or -1
 * when the job knows no route to peer). */
static int setup(int chan, int peer)
{
    int rc = myri_api0_init(UNIT, 0, 0, NULL); /* NULL: the scenario's `firmware:` has loaded the MCP */
    if (rc != 0) return rc;
    rc = myri_api0_get_chan(UNIT, chan);
    if (rc < 0) return rc;
    rc = myri_api0_init_recv_chan(UNIT, chan);
    if (rc != 0) return rc;
    char route[MAX_ROUTE];
    int len = myri_prog_route(peer, route, (int)sizeof route); /* the switch bytes, from the job */
    if (len < 0) return -1;
    return myri_api0_add_route(UNIT, MYRI_API0_NEXT_ROUTE, route, len);
}

/* ---- the program --------------------------------------------------------------- */

int myri_main(int argc, char **argv)
{
    int sizes[MAX_SIZES];
    const char *st = arg(argc, argv, "sizes");
    int nsizes = parse_sizes(st ? st : "4,64,256,1024,4096,8192", sizes);
    long reps = arg_long(argc, argv, "reps", 10), warmup = arg_long(argc, argv, "warmup", 2);
    long chan = arg_long(argc, argv, "chan", 1), timeout = arg_long(argc, argv, "timeout_us", 100000);
    long mtu = arg_long(argc, argv, "mtu", 8192);
    int me = myri_prog_host();
    for (int s = 0; s < nsizes; s++)
        if (sizes[s] > mtu) return 2; /* would not fit in a send buffer */
    if (nsizes <= 0 || mtu < 1 || reps < 1 || reps > 1000000 || warmup < 0 || warmup > 1000000 || chan < 0 ||
        chan >= MYRI_API0_NUM_CHANNELS || timeout < 1)
        return 2;
    if (me != 0 && me != 1) return 2; /* this ping-pong is between hosts 0 and 1 */
    int peer = 1 - me;
    int route = setup((int)chan, peer);
    if (route <= 0) {
        myri_prog_report("user_pingpong.setup_error", route);
        return 2;
    }

    long errors = 0;
    int lost = 0;   /* a packet did not come: the hosts no longer agree on seq */
    uint32_t seq = 0; /* packet number: both hosts count the same packets */
    for (int s = 0; s < nsizes && !lost; s++) {
        double t0_us = 0;
        long errors_before = errors;
        for (long r = 0; r < warmup + reps && !lost; r++, seq++) {
            if (r == warmup) t0_us = myri_prog_now_us();
            if (me == 0) { /* ping, then wait for the pong */
                if (send_packet((int)chan, route, sizes[s], seq, (double)timeout) != 0) errors++;
                errors += recv_packet((int)chan, sizes[s], seq, (double)timeout, &lost);
            } else { /* wait for the ping, send it back */
                errors += recv_packet((int)chan, sizes[s], seq, (double)timeout, &lost);
                if (!lost && send_packet((int)chan, route, sizes[s], seq, (double)timeout) != 0) errors++;
            }
        }
        if (me == 0 && !lost && errors == errors_before) {
            /* half the round trip, averaged over the timed rounds */
            char key[64];
            snprintf(key, sizeof key, "user_pingpong.%d.latency_us", sizes[s]);
            myri_prog_report(key, (myri_prog_now_us() - t0_us) / (2.0 * (double)reps));
        }
    }
    myri_prog_report("user_pingpong.errors", (double)errors);
    return errors == 0 ? 0 : 1;
}
