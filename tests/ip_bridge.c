/* ip_bridge.c -- the IP interface without Myri (issue 21, docs/LIVE-IP.md):
 * one network namespace per host with its TUN device myri0 (src/live/ipns.c),
 * one IP driver thread per host (src/live/ipdrv.c), all connected by the
 * in-process wire (src/live/ip_wire.c) with a fixed one-way delay.  Runs
 * until SIGINT, SIGTERM, SIGHUP or SIGQUIT, then prints every driver's counters and removes
 * the namespaces.  Run by tests/scenario/ip_bridge.sh.
 *
 * usage: ip_bridge [--hosts N] [--prefix A.B.C.D/LEN] [--delay-us US]
 *                  [--mtu BYTES] [--session NAME]
 * Prints "ready NS0 ADDR0 NS1 ADDR1 ..." once the drivers run.
 * The MTU defaults to the MCP's mcp.mtu default (myri_mcp_params_default):
 * the largest payload of one API packet, which is the whole IP packet.
 * Exit 0; 2 with the reason on bad arguments, without root, /dev/net/tun or
 * `ip`, or when the namespaces cannot be made.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/mcp.h"
#include "live/ip_wire.h"
#include "live/ipdrv.h"
#include "live/ipns.h"

typedef struct bridge_opts {
    uint32_t hosts;
    const char *prefix, *session;
    uint64_t delay_us;
    uint32_t mtu_bytes;
} bridge_opts;

static atomic_bool bridge_stop;

static void *bridge__driver(void *arg)
{
    myri_ipdrv *d = arg;
    if (myri_ipdrv_run(d, &bridge_stop) < 0) fprintf(stderr, "ip_bridge: driver of host %u failed\n", d->self);
    return NULL;
}

static int bridge__args(int argc, char **argv, bridge_opts *o)
{
    myri_mcp_params mcp;
    myri_mcp_params_default(&mcp);
    *o = (bridge_opts){.hosts = 2, .mtu_bytes = (uint32_t)mcp.mtu};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!v) goto usage;
        if (!strcmp(a, "--hosts")) o->hosts = (uint32_t)strtoul(v, &end, 10);
        else if (!strcmp(a, "--delay-us")) o->delay_us = strtoull(v, &end, 10);
        else if (!strcmp(a, "--mtu")) o->mtu_bytes = (uint32_t)strtoul(v, &end, 10);
        else if (!strcmp(a, "--prefix")) o->prefix = v;
        else if (!strcmp(a, "--session")) o->session = v;
        else goto usage;
        if (end && *end) goto usage;
        i++;
    }
    if (o->hosts >= 2 && o->delay_us <= 1000000u) return 0;
usage:
    fprintf(stderr, "usage: ip_bridge [--hosts N>=2] [--prefix A.B.C.D/LEN] [--delay-us US<=1000000] "
                    "[--mtu BYTES] [--session NAME]\n");
    return -1;
}

static int bridge__run(const bridge_opts *o, myri_ipns *ns, myri_ipdrv *drv, pthread_t *thr)
{
    char err[300];
    myri_ipwire *w = myri_ipwire_new(o->hosts, o->delay_us * 1000u, o->mtu_bytes, err, sizeof err);
    if (!w) {
        fprintf(stderr, "ip_bridge: %s\n", err);
        return 2;
    }
    uint32_t started = 0;
    for (; started < o->hosts; started++) {
        uint32_t i = started;
        if (myri_ipdrv_init(&drv[i], &ns->plan, i, ns->hosts[i].tun_fd, o->mtu_bytes, &myri_ipwire_ops,
                            myri_ipwire_port(w, i), err, sizeof err) < 0 ||
            pthread_create(&thr[i], NULL, bridge__driver, &drv[i]) != 0)
            break;
    }
    int rc = 0;
    if (started == o->hosts) {
        printf("ready");
        for (uint32_t i = 0; i < o->hosts; i++) {
            char a[16];
            myri_ip_addr_str(myri_ip_plan_addr(&ns->plan, i), a, sizeof a);
            printf(" %s %s", ns->hosts[i].name, a);
        }
        printf("\n");
        fflush(stdout);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
        sigaddset(&set, SIGQUIT);
        int sig = 0;
        sigwait(&set, &sig);
    } else {
        fprintf(stderr, "ip_bridge: cannot start the driver of host %u\n", started);
        rc = 2;
    }
    atomic_store(&bridge_stop, true);
    for (uint32_t i = 0; i < started; i++) pthread_join(thr[i], NULL);
    myri_ipwire_free(w);
    for (uint32_t i = 0; i < started; i++) {
        char who[16];
        snprintf(who, sizeof who, "h%u", i);
        myri_ipdrv_report(&drv[i], who, stdout);
        myri_ipdrv_free(&drv[i]);
    }
    return rc;
}

int main(int argc, char **argv)
{
    bridge_opts o;
    if (bridge__args(argc, argv, &o) < 0) return 2;
    char err[300];
    myri_ip_plan plan;
    if (myri_ip_plan_parse(&plan, o.prefix, o.hosts, err, sizeof err) < 0 || myri_ipns_check(err, sizeof err) < 0) {
        fprintf(stderr, "ip_bridge: %s\n", err);
        return 2;
    }
    /* Signals wait for sigwait in the main thread: every thread inherits the mask. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    myri_ipns_clean_stale(stderr);
    myri_ipns ns;
    if (myri_ipns_create(&ns, &plan, o.mtu_bytes, o.session, err, sizeof err) < 0) {
        fprintf(stderr, "ip_bridge: %s\n", err);
        return 2;
    }
    myri_ipdrv *drv = calloc(o.hosts, sizeof *drv);
    pthread_t *thr = calloc(o.hosts, sizeof *thr);
    int rc = drv && thr ? bridge__run(&o, &ns, drv, thr) : 2;
    free(drv);
    free(thr);
    myri_ipns_destroy(&ns);
    return rc;
}
