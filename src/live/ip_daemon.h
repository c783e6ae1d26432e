/* ip_daemon.h -- `myri live FILE --ip`: the daemon's IP side (ip_daemon.c),
 * given to the daemon as hooks (live.h, myri_live_ip_hooks).  In myri_ip,
 * linked into the `myri` executable (not libmyri).  docs/LIVE.md "IP". */
#ifndef MYRI_LIVE_IP_DAEMON_H
#define MYRI_LIVE_IP_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "live/ipns.h"
#include "live/live.h"

typedef struct myri_ip_daemon {
    const char *prefix;  /* --ip-prefix (NULL: MYRI_IP_PREFIX_DEFAULT) */
    char driver[512];    /* the myri-ip-driver executable */
    myri_ipns ns;
    bool made;
    uint32_t nh;
    pid_t *pid;          /* per host: its driver process, 0 if none */
} myri_ip_daemon;

/* Before anything starts: root, /dev/net/tun, `ip` (myri_ipns_check) and the
 * driver executable (MYRI_IP_DRIVER, or myri-ip-driver beside `myri`).  0, or
 * -1 with the reason in err: the caller exits 2. */
int myri_ip_daemon_check(myri_ip_daemon *ipd, char *err, size_t errlen);
/* The hooks the daemon calls (ipd must outlive the run). */
void myri_ip_daemon_hooks(myri_ip_daemon *ipd, myri_live_ip_hooks *hooks);

#endif
