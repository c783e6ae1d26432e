/* ipns.c -- address plan, namespaces and TUN devices (see ipns.h).
 *
 * A namespace is made and deleted with `ip netns add|del NAME` (fork + exec,
 * no shell) so that it sits where `ip netns exec NAME` looks.  Everything
 * inside it (TUN device, addresses, flags, MTU, offloads, sysctl) is set up
 * by a short-lived thread that enters the namespace with setns(2): setns
 * changes the calling thread's namespace only, so the caller's threads
 * never leave their own namespace, and the TUN device is born in the target
 * namespace (never in the caller's one).
 */
#define _GNU_SOURCE
#include "live/ipns.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static void ipns__err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* ---- address plan ------------------------------------------------------------ */

int myri_ip_plan_parse(myri_ip_plan *p, const char *cidr, uint32_t nhosts, char *err, size_t errlen)
{
    if (!cidr) cidr = MYRI_IP_PREFIX_DEFAULT;
    char a[32];
    const char *slash = strchr(cidr, '/');
    if (!slash || (size_t)(slash - cidr) >= sizeof a) {
        ipns__err(err, errlen, "ip prefix '%s': expected A.B.C.D/LEN such as %s", cidr, MYRI_IP_PREFIX_DEFAULT);
        return -1;
    }
    memcpy(a, cidr, (size_t)(slash - cidr));
    a[slash - cidr] = 0;
    struct in_addr in;
    char *end = NULL;
    errno = 0;
    long len = strtol(slash + 1, &end, 10);
    if (inet_pton(AF_INET, a, &in) != 1 || !isdigit((unsigned char)slash[1]) || *end || errno) {
        ipns__err(err, errlen, "ip prefix '%s': expected A.B.C.D/LEN such as %s", cidr, MYRI_IP_PREFIX_DEFAULT);
        return -1;
    }
    if (len < 8 || len > 30) {
        ipns__err(err, errlen, "ip prefix '%s': length %ld outside 8..30", cidr, len);
        return -1;
    }
    uint32_t net = ntohl(in.s_addr), mask = ~UINT32_C(0) << (32 - len);
    if (net & ~mask) {
        ipns__err(err, errlen, "ip prefix '%s': host bits set (the network is %u.%u.%u.%u/%ld)", cidr,
                  (net & mask) >> 24, (net & mask) >> 16 & 255u, (net & mask) >> 8 & 255u, net & mask & 255u, len);
        return -1;
    }
    if ((net >> 24) == 0 || (net >> 24) == 127 || (net >> 29) == 7) {
        ipns__err(err, errlen, "ip prefix '%s': in 0/8, 127/8 or 224/3 (this host, loopback, multicast, reserved)",
                  cidr);
        return -1;
    }
    uint64_t usable = (UINT64_C(1) << (32 - len)) - 2; /* without network and broadcast */
    if (nhosts < 1 || nhosts > MYRI_IP_MAX_HOSTS || nhosts > usable) {
        ipns__err(err, errlen, "ip prefix '%s' holds %llu host addresses; %u hosts (at most %u) do not fit", cidr,
                  (unsigned long long)usable, nhosts, MYRI_IP_MAX_HOSTS);
        return -1;
    }
    p->net = net;
    p->prefix_len = (unsigned)len;
    p->nhosts = nhosts;
    return 0;
}

uint32_t myri_ip_plan_addr(const myri_ip_plan *p, uint32_t host) { return p->net + 1u + host; }

bool myri_ip_plan_contains(const myri_ip_plan *p, uint32_t addr)
{
    uint32_t mask = ~UINT32_C(0) << (32 - p->prefix_len);
    return (addr & mask) == p->net;
}

long myri_ip_plan_host(const myri_ip_plan *p, uint32_t addr)
{
    if (!myri_ip_plan_contains(p, addr) || addr <= p->net) return -1;
    uint32_t i = addr - p->net - 1u;
    return i < p->nhosts ? (long)i : -1;
}

void myri_ip_addr_str(uint32_t addr, char *buf, size_t len)
{
    snprintf(buf, len, "%u.%u.%u.%u", addr >> 24, addr >> 16 & 255u, addr >> 8 & 255u, addr & 255u);
}

/* ---- helpers: ip(8), owner files ------------------------------------------------ */

/* Runs `ip netns VERB NAME` quietly; its exit status (or -1). */
static int ipns__ip(const char *verb, const char *name)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execlp("ip", "ip", "netns", verb, name, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Field 22 of /proc/PID/stat (start time in clock ticks), or 0 if none. */
static unsigned long long ipns__start_time(long pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *s = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!s) return 0;
    unsigned long long v = 0;
    for (int field = 2; s && field < 22; field++) s = strchr(s + 1, ' ');
    if (s) v = strtoull(s + 1, NULL, 10);
    return v;
}

static void ipns__owner_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", MYRI_IPNS_OWNER_DIR, name);
}

static bool ipns__netns_exists(const char *name)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", MYRI_IPNS_NETNS_DIR, name);
    return access(path, F_OK) == 0;
}

/* A name we could have made: MYRI_IPNS_PREFIX, then [A-Za-z0-9_-] only. */
static bool ipns__our_name(const char *name)
{
    size_t k = strlen(MYRI_IPNS_PREFIX);
    if (strncmp(name, MYRI_IPNS_PREFIX, k) || !name[k] || strlen(name) > 63) return false;
    for (const char *c = name + k; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '-') return false;
    return true;
}

/* 1 if the owner file names a live process (same pid, same start time),
 * 0 if stale, -1 if unreadable (left alone). */
static int ipns__owner_alive(const char *name)
{
    char path[PATH_MAX];
    ipns__owner_path(name, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long pid = 0;
    unsigned long long start = 0;
    int n = fscanf(f, "pid %ld start %llu", &pid, &start);
    fclose(f);
    if (n != 2 || pid <= 0) return -1;
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
    return ipns__start_time(pid) == start ? 1 : 0;
}

int myri_ipns_clean_stale(FILE *log)
{
    DIR *d = opendir(MYRI_IPNS_OWNER_DIR);
    if (!d) return 0;
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ipns__our_name(e->d_name) || ipns__owner_alive(e->d_name) != 0) continue;
        if (ipns__netns_exists(e->d_name) && ipns__ip("del", e->d_name) != 0) {
            if (log) fprintf(log, "ip: stale namespace %s could not be deleted\n", e->d_name);
            continue;
        }
        char path[PATH_MAX];
        ipns__owner_path(e->d_name, path, sizeof path);
        unlink(path);
        if (log) fprintf(log, "ip: removed stale namespace %s (its creator no longer runs)\n", e->d_name);
        removed++;
    }
    closedir(d);
    return removed;
}

int myri_ipns_check(char *err, size_t errlen)
{
    if (geteuid() != 0) {
        ipns__err(err, errlen, "--ip needs root (network namespaces and TUN devices); this process runs as uid %u",
                  (unsigned)geteuid());
        return -1;
    }
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        ipns__err(err, errlen, "--ip needs /dev/net/tun: %s", strerror(errno));
        return -1;
    }
    close(fd);
    pid_t pid = fork();
    if (pid == 0) {
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) {
            dup2(nul, 1);
            dup2(nul, 2);
        }
        execlp("ip", "ip", "-V", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        ipns__err(err, errlen, "--ip needs the `ip` program (iproute2) in PATH");
        return -1;
    }
    return 0;
}

/* ---- inside the namespace --------------------------------------------------------- */

typedef struct ipns_setup {
    const char *name;
    uint32_t addr, mask, mtu_bytes;
    int tun_fd;
    char err[256];
} ipns_setup;

static int ipns__flags_up(int sock, const char *ifname, char *err, size_t errlen)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", ifname);
    if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0) goto fail;
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(sock, SIOCSIFFLAGS, &ifr) < 0) goto fail;
    return 0;
fail:
    ipns__err(err, errlen, "bringing %s up: %s", ifname, strerror(errno));
    return -1;
}

static int ipns__set_addr(int sock, unsigned long req, uint32_t addr, const char *what, char *err, size_t errlen)
{
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", MYRI_IP_IFNAME);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(addr)};
    memcpy(&ifr.ifr_addr, &sin, sizeof sin);
    if (ioctl(sock, req, &ifr) == 0) return 0;
    ipns__err(err, errlen, "setting the %s of %s: %s", what, MYRI_IP_IFNAME, strerror(errno));
    return -1;
}

/* Turns one offload off with the legacy SIOCETHTOOL commands and reads it
 * back: an offload that stays on is an error (the stack could hand over
 * half-done work: unsegmented TSO/GSO super-packets, checksums left partial). */
static int ipns__offload_off(int sock, uint32_t set_cmd, uint32_t get_cmd, const char *what, char *err,
                             size_t errlen)
{
    struct ifreq ifr;
    struct ethtool_value ev = {.cmd = set_cmd, .data = 0};
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", MYRI_IP_IFNAME);
    ifr.ifr_data = (char *)&ev;
    (void)ioctl(sock, SIOCETHTOOL, &ifr); /* refused when not changeable: the read-back decides */
    ev.cmd = get_cmd;
    ev.data = 1;
    if (ioctl(sock, SIOCETHTOOL, &ifr) < 0) {
        if (errno == EOPNOTSUPP) return 0; /* the device has no such offload at all */
        ipns__err(err, errlen, "reading %s of %s: %s", what, MYRI_IP_IFNAME, strerror(errno));
        return -1;
    }
    if (ev.data) {
        ipns__err(err, errlen, "%s of %s stays on", what, MYRI_IP_IFNAME);
        return -1;
    }
    return 0;
}

static void ipns__ipv6_off(void)
{
    /* /proc/sys/net is the calling thread's namespace at open time. */
    int fd = open("/proc/sys/net/ipv6/conf/" MYRI_IP_IFNAME "/disable_ipv6", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return; /* no IPv6 in this kernel: nothing to turn off */
    ssize_t k = write(fd, "1\n", 2);
    (void)k;
    close(fd);
}

static int ipns__tun_open(ipns_setup *s)
{
    int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        ipns__err(s->err, sizeof s->err, "opening /dev/net/tun in %s: %s", s->name, strerror(errno));
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TUN | IFF_NO_PI; /* no IFF_VNET_HDR: the kernel never hands us GSO frames */
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", MYRI_IP_IFNAME);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        ipns__err(s->err, sizeof s->err, "TUNSETIFF %s in %s: %s", MYRI_IP_IFNAME, s->name, strerror(errno));
        close(fd);
        return -1;
    }
    s->tun_fd = fd;
    return 0;
}

static int ipns__configure(ipns_setup *s, int sock)
{
    char *e = s->err;
    size_t el = sizeof s->err;
    if (ipns__flags_up(sock, "lo", e, el) < 0) return -1;
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", MYRI_IP_IFNAME);
    ifr.ifr_mtu = (int)s->mtu_bytes;
    if (ioctl(sock, SIOCSIFMTU, &ifr) < 0) {
        ipns__err(e, el, "setting the MTU of %s to %u: %s", MYRI_IP_IFNAME, s->mtu_bytes, strerror(errno));
        return -1;
    }
    ipns__ipv6_off();
    if (ipns__offload_off(sock, ETHTOOL_STSO, ETHTOOL_GTSO, "TSO", e, el) < 0 ||
        ipns__offload_off(sock, ETHTOOL_SGSO, ETHTOOL_GGSO, "GSO", e, el) < 0 ||
        ipns__offload_off(sock, ETHTOOL_SGRO, ETHTOOL_GGRO, "GRO", e, el) < 0 ||
        ipns__offload_off(sock, ETHTOOL_STXCSUM, ETHTOOL_GTXCSUM, "TX checksum offload", e, el) < 0)
        return -1;
    if (ipns__set_addr(sock, SIOCSIFADDR, s->addr, "address", e, el) < 0 ||
        ipns__set_addr(sock, SIOCSIFNETMASK, s->mask, "netmask", e, el) < 0)
        return -1;
    return ipns__flags_up(sock, MYRI_IP_IFNAME, e, el);
}

static void *ipns__setup_thread(void *arg)
{
    ipns_setup *s = arg;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", MYRI_IPNS_NETNS_DIR, s->name);
    int nsfd = open(path, O_RDONLY | O_CLOEXEC);
    if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
        ipns__err(s->err, sizeof s->err, "entering namespace %s: %s", s->name, strerror(errno));
        if (nsfd >= 0) close(nsfd);
        return NULL;
    }
    close(nsfd);
    if (ipns__tun_open(s) < 0) return NULL;
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) {
        ipns__err(s->err, sizeof s->err, "socket in %s: %s", s->name, strerror(errno));
    } else {
        if (ipns__configure(s, sock) == 0) s->err[0] = 0;
        close(sock);
    }
    if (s->err[0]) {
        close(s->tun_fd);
        s->tun_fd = -1;
    }
    return NULL; /* the thread ends: its namespace goes with it */
}

/* ---- create / destroy ---------------------------------------------------------------- */

static int ipns__write_owner(const char *name, char *err, size_t errlen)
{
    if (mkdir(MYRI_IPNS_OWNER_DIR, 0755) < 0 && errno != EEXIST) {
        ipns__err(err, errlen, "creating %s: %s", MYRI_IPNS_OWNER_DIR, strerror(errno));
        return -1;
    }
    char path[PATH_MAX];
    ipns__owner_path(name, path, sizeof path);
    FILE *f = fopen(path, "wx");
    if (!f) {
        ipns__err(err, errlen, "owner file %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(f, "pid %ld start %llu\n", (long)getpid(), ipns__start_time((long)getpid()));
    return fclose(f) == 0 ? 0 : -1;
}

static int ipns__make_host(myri_ipns *ns, uint32_t i, char *err, size_t errlen)
{
    myri_ipns_host *h = &ns->hosts[i];
    snprintf(h->name, sizeof h->name, "%s%s-h%u", MYRI_IPNS_PREFIX, ns->session, i);
    if (ipns__netns_exists(h->name)) {
        ipns__err(err, errlen, "namespace %s exists already (another run? it is not ours to remove)", h->name);
        return -1;
    }
    if (ipns__write_owner(h->name, err, errlen) < 0) return -1;
    h->created = true; /* from here on destroy removes the owner file (and the namespace) */
    if (ipns__ip("add", h->name) != 0) {
        ipns__err(err, errlen, "`ip netns add %s` failed", h->name);
        return -1;
    }
    ipns_setup s = {.name = h->name, .addr = myri_ip_plan_addr(&ns->plan, i),
                    .mask = ~UINT32_C(0) << (32 - ns->plan.prefix_len), .mtu_bytes = ns->mtu_bytes, .tun_fd = -1,
                    .err = "setup thread did not run"};
    pthread_t t;
    if (pthread_create(&t, NULL, ipns__setup_thread, &s) != 0 || pthread_join(t, NULL) != 0) {
        ipns__err(err, errlen, "%s: cannot start the setup thread", h->name);
        return -1;
    }
    if (s.err[0]) {
        ipns__err(err, errlen, "%s", s.err);
        return -1;
    }
    h->tun_fd = s.tun_fd;
    return 0;
}

int myri_ipns_create(myri_ipns *ns, const myri_ip_plan *plan, uint32_t mtu_bytes, const char *session,
                     char *err, size_t errlen)
{
    memset(ns, 0, sizeof *ns);
    if (session) {
        size_t n = strlen(session);
        bool ok = n >= 1 && n <= 16;
        for (size_t k = 0; ok && k < n; k++) ok = isalnum((unsigned char)session[k]) || session[k] == '_';
        if (!ok) {
            ipns__err(err, errlen, "ip session '%s': 1 to 16 letters, digits or '_'", session);
            return -1;
        }
        snprintf(ns->session, sizeof ns->session, "%s", session);
    } else {
        snprintf(ns->session, sizeof ns->session, "%ld", (long)getpid());
    }
    if (mtu_bytes < MYRI_IP_MIN_MTU_BYTES || mtu_bytes > MYRI_IP_MAX_MTU_BYTES) {
        ipns__err(err, errlen, "ip MTU %u outside %u..%u bytes", mtu_bytes, MYRI_IP_MIN_MTU_BYTES,
                  MYRI_IP_MAX_MTU_BYTES);
        return -1;
    }
    ns->plan = *plan;
    ns->mtu_bytes = mtu_bytes;
    ns->hosts = calloc(plan->nhosts, sizeof *ns->hosts);
    if (!ns->hosts) {
        ipns__err(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < plan->nhosts; i++) ns->hosts[i].tun_fd = -1;
    for (uint32_t i = 0; i < plan->nhosts; i++) {
        if (ipns__make_host(ns, i, err, errlen) < 0) {
            myri_ipns_destroy(ns);
            return -1;
        }
    }
    return 0;
}

void myri_ipns_destroy(myri_ipns *ns)
{
    if (!ns->hosts) return;
    for (uint32_t i = 0; i < ns->plan.nhosts; i++) {
        myri_ipns_host *h = &ns->hosts[i];
        if (h->tun_fd >= 0) close(h->tun_fd);
        h->tun_fd = -1;
        if (!h->created) continue;
        if (ipns__netns_exists(h->name)) (void)ipns__ip("del", h->name);
        char path[PATH_MAX];
        ipns__owner_path(h->name, path, sizeof path);
        unlink(path);
        h->created = false;
    }
    free(ns->hosts);
    ns->hosts = NULL;
}
