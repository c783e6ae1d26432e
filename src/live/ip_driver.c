/* ip_driver.c -- `myri-ip-driver`: the IP driver of one host under `myri live
 * FILE --ip` (docs/LIVE.md "IP", docs/LIVE-IP.md).  An ordinary client of
 * libmyri-live: the daemon starts it with --myri-host NAME --myri-dir DIR
 * (the same socket and shared memory as any client), its TUN device already
 * open on descriptor tun_fd (inherited across exec).  It opens the IP channel
 * of seed 001's API, adds a route to every other host (the daemon's routes,
 * myri_prog_route) and runs the driver of ipdrv.c until SIGTERM or SIGINT,
 * sleeping on libmyri-live's wake-up eventfd and the TUN device; then it
 * prints its counters on stderr.
 *
 * arguments (after libmyri-live's own): tun_fd=N prefix=A.B.C.D/LEN channel=C
 * exit: 0; 2 bad arguments or the API refused (the reason on stderr).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/ip_api0.h"
#include "live/ipdrv.h"
#include "live/shm.h"
#include "myri/api0.h"
#include "myri/prog.h"

int myri_main(int argc, char **argv);

static atomic_bool ipd__stop;

static void ipd__on_signal(int sig)
{
    (void)sig;
    atomic_store(&ipd__stop, true);
}

static const char *ipd__arg(int argc, char **argv, const char *key)
{
    size_t n = strlen(key);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], key, n) && argv[i][n] == '=') return argv[i] + n + 1;
    return NULL;
}

/* The routes from this host to every other (the daemon's, up to 32 bytes). */
static int ipd__routes(uint32_t self, uint32_t nh, uint8_t (*bytes)[MYRI_LIVE_ROUTE_MAX], const uint8_t **routes,
                       int *lens)
{
    for (uint32_t j = 0; j < nh; j++) {
        routes[j] = bytes[j];
        lens[j] = 0;
        if (j == self) continue;
        lens[j] = myri_prog_route((int)j, (char *)bytes[j], MYRI_LIVE_ROUTE_MAX);
        if (lens[j] < 0) {
            fprintf(stderr, "myri-ip-driver: h%u: no route to h%u from the daemon\n", self, j);
            return -1;
        }
    }
    return 0;
}

static int ipd__run(uint32_t self, uint32_t nh, int tun_fd, const char *prefix, int chan)
{
    char err[256];
    myri_ip_plan plan;
    if (myri_ip_plan_parse(&plan, prefix, nh, err, sizeof err) != 0) {
        fprintf(stderr, "myri-ip-driver: %s\n", err);
        return 2;
    }
    uint8_t (*bytes)[MYRI_LIVE_ROUTE_MAX] = calloc(nh, sizeof *bytes);
    const uint8_t **routes = calloc(nh, sizeof *routes);
    int *lens = calloc(nh, sizeof *lens);
    myri_ip_api0 t = {.chan = -1, .wait_fd = -1};
    myri_ipdrv d;
    memset(&d, 0, sizeof d);
    int rc = 2;
    if (!bytes || !routes || !lens || ipd__routes(self, nh, bytes, routes, lens) != 0) goto out;
    if (myri_ip_api0_open_chan(&t, 0, self, nh, routes, lens, chan, err, sizeof err) != 0) {
        fprintf(stderr, "myri-ip-driver: h%u: %s\n", self, err);
        goto out;
    }
    t.wait_fd = myri_live_wake_fd();
    int mtu = myri_ip_api0_mtu(&t);
    if (mtu <= 0 || myri_ipdrv_init(&d, &plan, self, tun_fd, (size_t)mtu, &myri_ip_api0_ops, &t, err, sizeof err)) {
        fprintf(stderr, "myri-ip-driver: h%u: %s\n", self, mtu <= 0 ? "myri_api0_mtu failed" : err);
        goto out;
    }
    char a[16];
    myri_ip_addr_str(myri_ip_plan_addr(&plan, self), a, sizeof a);
    fprintf(stderr, "myri live: ip h%u driver up (%s, channel %d, mtu %d, pid %d)\n", self, a, chan, mtu, (int)getpid());
    fflush(stderr);
    rc = myri_ipdrv_run(&d, &ipd__stop) == 0 ? 0 : 1;
    char who[32];
    snprintf(who, sizeof who, "myri live: ip h%u", self);
    char *line = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&line, &len); /* one write: the drivers' lines do not interleave */
    if (m) {
        myri_ipdrv_report(&d, who, m);
        fclose(m);
        if (line) (void)!write(2, line, len);
        free(line);
    }
    myri_ipdrv_free(&d);
out:
    if (t.chan >= 0) myri_ip_api0_close(&t);
    free(bytes);
    free(routes);
    free(lens);
    return rc;
}

int myri_main(int argc, char **argv)
{
    struct sigaction sa = {.sa_handler = ipd__on_signal}; /* no SA_RESTART: poll returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    const char *fd_s = ipd__arg(argc, argv, "tun_fd"), *prefix = ipd__arg(argc, argv, "prefix"),
               *chan_s = ipd__arg(argc, argv, "channel");
    char *e1 = NULL, *e2 = NULL;
    long fd = fd_s ? strtol(fd_s, &e1, 10) : -1, chan = chan_s ? strtol(chan_s, &e2, 10) : -1;
    if (fd < 0 || *e1 || chan < 0 || chan > 255 || *e2 || !prefix) {
        fprintf(stderr, "usage: myri-ip-driver --myri-host H --myri-dir D tun_fd=N prefix=A.B.C.D/LEN channel=C\n"
                        "  (started by `myri live FILE --ip`, docs/LIVE.md)\n");
        return 2;
    }
    int self = myri_prog_host(), nh = myri_prog_nhosts();
    if (self < 0 || nh <= 0) return 2;
    return ipd__run((uint32_t)self, (uint32_t)nh, (int)fd, prefix, (int)chan);
}
