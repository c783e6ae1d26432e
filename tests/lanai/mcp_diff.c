/* mcp_diff.c -- a user program (myri run --program) for the differential test
 * of the two MCPs (tests/scenario/lanai_mcp.sh): every host sends
 * MCP_DIFF_N messages, peer and size drawn from a generator of its own
 * seeded by its host index (so the traffic is the same on every firmware
 * and every timing: sizes from 2 to 3000 bytes, PIO and DMA sends), and
 * takes what comes on channel 1.  Every host knows every host's plan, so it
 * knows in which order the packets of each source must come and what they
 * hold; it reports per source the count received, an FNV-1a digest of the
 * payloads in their order of arrival, and whether that digest is the one of
 * the plan (diff.from<S>.in_order = 1). */
#include <myri/api0.h>
#include <myri/prog.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MCP_DIFF_N 40
#define MCP_DIFF_MAX_HOSTS 16

static uint32_t diff__next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* Message k of host h: its peer and size. */
static void diff__plan(int h, int n, int k, int *peer, int *size)
{
    uint32_t s = 0x9e3779b9u ^ (uint32_t)(h + 1) * 2654435761u;
    for (int i = 0; i <= k; i++) {
        uint32_t a = diff__next(&s), b = diff__next(&s);
        int p = (int)(a % (uint32_t)(n - 1));
        *peer = p >= h ? p + 1 : p;
        *size = 2 + (int)(b % 2999u); /* room for [src][k] */
    }
}

static uint8_t diff__byte(int src, int k, int i) { return (uint8_t)(src * 31 + k * 7 + i * 13 + (i >> 8)); }

static uint32_t diff__fnv(uint32_t h, const uint8_t *p, int len)
{
    for (int i = 0; i < len; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

int myri_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    int me = myri_prog_host(), n = myri_prog_nhosts();
    if (n < 2 || n > MCP_DIFF_MAX_HOSTS) return 2;
    if (myri_api0_init(0, 0, 0, "") || myri_api0_get_chan(0, 1) != 1 || myri_api0_init_recv_chan(0, 1)) return 2;
    int route[MCP_DIFF_MAX_HOSTS] = {0}, expect[MCP_DIFF_MAX_HOSTS] = {0}, got[MCP_DIFF_MAX_HOSTS] = {0};
    uint32_t digest[MCP_DIFF_MAX_HOSTS], want[MCP_DIFF_MAX_HOSTS];
    for (int s = 0; s < n; s++) {
        digest[s] = want[s] = 2166136261u;
        for (int k = 0; k < MCP_DIFF_N; k++) {
            int peer, size;
            diff__plan(s, n, k, &peer, &size);
            if (peer != me) continue;
            uint8_t b[4] = {(uint8_t)s, (uint8_t)k, (uint8_t)(size >> 8), (uint8_t)size};
            want[s] = diff__fnv(want[s], b, 4);
            expect[s]++;
        }
    }
    int total = 0, errors = 0, k = 0;
    double stop = myri_prog_now_us() + 200000;
    while (myri_prog_now_us() < stop) {
        void *buf;
        int len;
        while (myri_api0_recv(0, 1, &buf, &len) == 0) { /* the payload: [src][k][bytes...] checked */
            const uint8_t *p = buf;
            int src = len >= 2 ? p[0] : 0, kk = len >= 2 ? p[1] : 0;
            for (int i = 2; i < len; i++)
                if (p[i] != diff__byte(src, kk, i)) errors++;
            uint8_t b[4] = {(uint8_t)src, (uint8_t)kk, (uint8_t)(len >> 8), (uint8_t)len};
            if (src < n) digest[src] = diff__fnv(digest[src], b, 4), got[src]++;
            total++;
            if (myri_api0_free_recv(0, 1, buf)) errors++;
        }
        int all = 1;
        for (int s = 0; s < n; s++) all &= got[s] >= expect[s];
        if (all && k == MCP_DIFF_N) break;
        if (k < MCP_DIFF_N) {
            int peer, size;
            diff__plan(me, n, k, &peer, &size);
            char r[64];
            if (!route[peer]) {
                int rl = myri_prog_route(peer, r, (int)sizeof r);
                route[peer] = rl < 0 ? -1 : myri_api0_add_route(0, MYRI_API0_NEXT_ROUTE, r, rl);
            }
            void *sb;
            if (route[peer] > 0 && myri_api0_get_send_buffer(0, &sb) == 0) {
                uint8_t *p = sb;
                p[0] = (uint8_t)me, p[1] = (uint8_t)k;
                for (int i = 2; i < size; i++) p[i] = diff__byte(me, k, i);
                int rc = myri_api0_send_route(0, 1, sb, size, route[peer]);
                myri_api0_free_send(0, sb);
                if (rc == 0) k++;
                else if (rc != MYRI_API0_QUEUE_FULL) errors++, k++;
            }
        } else {
            myri_prog_recv_wait(0, 1, 100);
        }
    }
    char key[64];
    for (int s = 0; s < n; s++) {
        if (s == me) continue;
        snprintf(key, sizeof key, "diff.from%d.count", s);
        myri_prog_report(key, got[s]);
        snprintf(key, sizeof key, "diff.from%d.digest_hi", s); /* in halves: a report shows 6 digits */
        myri_prog_report(key, digest[s] >> 16);
        snprintf(key, sizeof key, "diff.from%d.digest_lo", s);
        myri_prog_report(key, digest[s] & 0xffffu);
        snprintf(key, sizeof key, "diff.from%d.in_order", s);
        myri_prog_report(key, got[s] == expect[s] && digest[s] == want[s]);
    }
    myri_prog_report("diff.sent", k);
    myri_prog_report("diff.errors", errors);
    return errors || total == 0 ? 1 : 0;
}
