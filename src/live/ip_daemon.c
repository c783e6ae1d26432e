/* ip_daemon.c -- the daemon's side of `myri live FILE --ip` (ip_daemon.h,
 * docs/LIVE.md "IP"): stale namespaces cleaned, a namespace with its TUN
 * device per host (ipns.c), and per IP host a driver PROCESS
 * (`myri-ip-driver`, ip_driver.c), an ordinary libmyri-live client of its
 * host.
 *
 * Why a process and not a thread of the daemon: libmyri-live is one host per
 * process (its connection, mappings and the API's state are the process's),
 * and the daemon itself links the simulator's API (libmyri), so a thread
 * could not be "an ordinary client" without a second, per-thread client
 * library.  A process also keeps the daemon's rule that a client can harm
 * only its own host.  The TUN descriptor is inherited across exec (dup2 to
 * descriptor 3, the only one without close-on-exec), so the driver never
 * enters a namespace itself.  It dies with the daemon (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include "live/ip_daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "live/ipns.h"

int myri_ip_daemon_check(myri_ip_daemon *ipd, char *err, size_t errlen)
{
    if (myri_ipns_check(err, errlen) != 0) return -1;
    const char *drv = getenv("MYRI_IP_DRIVER");
    if (drv && drv[0]) {
        snprintf(ipd->driver, sizeof ipd->driver, "%s", drv);
    } else {
        char self[sizeof ipd->driver - 32];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return snprintf(err, errlen, "cannot find the myri executable (/proc/self/exe)"), -1;
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) *slash = '\0';
        snprintf(ipd->driver, sizeof ipd->driver, "%s/myri-ip-driver", self);
    }
    if (access(ipd->driver, X_OK) != 0)
        return snprintf(err, errlen, "the IP driver %s: %s (MYRI_IP_DRIVER names another)", ipd->driver,
                        strerror(errno)), -1;
    return 0;
}

/* The child: default signals, unblocked; dies with the daemon; TUN on fd 3. */
static void ipd__exec(const myri_ip_daemon *ipd, const myri_live_ip_setup *s, uint32_t i, int tun_fd)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    (void)prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (tun_fd != 3 && dup2(tun_fd, 3) != 3) _exit(127);
    (void)fcntl(3, F_SETFD, 0);
    char chan[32], pre[64];
    snprintf(chan, sizeof chan, "channel=%d", s->channel);
    snprintf(pre, sizeof pre, "prefix=%s", ipd->prefix ? ipd->prefix : MYRI_IP_PREFIX_DEFAULT);
    char *argv[] = {(char *)ipd->driver, "--myri-host", (char *)s->names[i], "--myri-dir", (char *)s->dir,
                    "tun_fd=3", pre, chan, NULL};
    execv(ipd->driver, argv);
    fprintf(stderr, "myri live: ip: cannot run %s: %s\n", ipd->driver, strerror(errno));
    _exit(127);
}

static int ipd__start(void *ctx, const myri_live_ip_setup *s, FILE *log, char *err, size_t errlen)
{
    myri_ip_daemon *ipd = ctx;
    myri_ip_plan plan;
    if (myri_ip_plan_parse(&plan, ipd->prefix, s->nhosts, err, errlen) != 0) return -1;
    (void)myri_ipns_clean_stale(log);
    if (myri_ipns_create(&ipd->ns, &plan, s->mtu_bytes, NULL, err, errlen) != 0) return -1;
    ipd->made = true;
    ipd->nh = s->nhosts;
    if (!(ipd->pid = calloc(s->nhosts ? s->nhosts : 1, sizeof *ipd->pid)))
        return snprintf(err, errlen, "out of memory"), -1;
    if (log) fflush(log);
    fflush(stdout);
    for (uint32_t i = 0; i < s->nhosts; i++) {
        char a[16];
        myri_ip_addr_str(myri_ip_plan_addr(&plan, i), a, sizeof a);
        if (log)
            fprintf(log, "myri live: ip %s %s namespace %s%s\n", s->names[i], a, ipd->ns.hosts[i].name,
                    s->on[i] ? "" : " (no driver: the host is not program: live)");
        if (!s->on[i]) continue;
        if (log) fflush(log);
        pid_t p = fork();
        if (p < 0) return snprintf(err, errlen, "fork: %s", strerror(errno)), -1;
        if (p == 0) ipd__exec(ipd, s, i, ipd->ns.hosts[i].tun_fd);
        ipd->pid[i] = p;
    }
    if (log) {
        fprintf(log, "myri live: ip ready:");
        for (uint32_t i = 0; i < s->nhosts; i++) fprintf(log, " %s", ipd->ns.hosts[i].name);
        fprintf(log, " (ip netns exec NAME CMD)\n");
        fflush(log);
    }
    return 0;
}

/* Waits for pid up to max_ms; its wait status, or -1 if it still runs. */
static int ipd__reap(pid_t pid, int max_ms)
{
    for (int k = 0; k <= max_ms; k++) {
        int st = 0;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD)) return r == pid ? st : 0;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static void ipd__stop(void *ctx, FILE *log)
{
    myri_ip_daemon *ipd = ctx;
    for (uint32_t i = 0; ipd->pid && i < ipd->nh; i++)
        if (ipd->pid[i] > 0) kill(ipd->pid[i], SIGTERM);
    for (uint32_t i = 0; ipd->pid && i < ipd->nh; i++) {
        if (ipd->pid[i] <= 0) continue;
        int st = ipd__reap(ipd->pid[i], 2000); /* assumption: 2 s, far above a driver's exit (its counters) */
        if (st < 0) {
            kill(ipd->pid[i], SIGKILL);
            st = ipd__reap(ipd->pid[i], 1000);
            if (log) fprintf(log, "myri live: ip: the driver of h%u did not stop on SIGTERM: killed\n", i);
        } else if (log && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            fprintf(log, "myri live: ip: the driver of h%u ended with %s %d\n", i,
                    WIFEXITED(st) ? "exit code" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        }
        ipd->pid[i] = 0;
    }
    free(ipd->pid);
    ipd->pid = NULL;
    if (ipd->made) {
        uint32_t n = ipd->ns.plan.nhosts;
        char first[64] = "";
        if (n && ipd->ns.hosts) snprintf(first, sizeof first, "%s", ipd->ns.hosts[0].name);
        myri_ipns_destroy(&ipd->ns);
        if (log) fprintf(log, "myri live: ip: removed %u namespaces (%s ...) and their TUN devices\n", n, first);
        ipd->made = false;
    }
    if (log) fflush(log);
}

void myri_ip_daemon_hooks(myri_ip_daemon *ipd, myri_live_ip_hooks *hooks)
{
    *hooks = (myri_live_ip_hooks){.start = ipd__start, .stop = ipd__stop, .ctx = ipd};
}
