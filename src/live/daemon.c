/* daemon.c -- `myri live FILE` (live.h, docs/LIVE.md): the system scenario's
 * network with simulated time paced to the wall clock; real processes attach
 * to its `program: live` hosts through a Unix socket per host and shared
 * memory (shm.h); their PIO writes enter through a command ring, are copied
 * out once, checked, and applied at the paced simulated time through the
 * host's PIO path (myri_host_pio_external).  With --record every external
 * input is logged; --replay runs a log as a plain simulation.
 */
#define _GNU_SOURCE
#include "live/live.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "app/system_int.h"
#include "firmware/mcp.h"
#include "myri/json.h"
#include "live/shm.h"

enum { LIVE__MAX_CONN = 64, LIVE__SEG_BYTES = 1 << 20 };

typedef struct live__host {
    uint32_t index;
    bool live;
    int sram_fd, mem_fd, seg_fd, lsock;
    uint8_t *sram, *mem, *seg;
    uint64_t sram_bytes, mem_bytes;
    int nconn;
    uint64_t dma_gen;
    char path[160];
    struct live__d *d;
} live__host;

typedef struct live__conn {
    bool used;
    int sock, bell, wake, ctl_fd;
    uint32_t host;
    myri_live_ctl *ctl;
    uint32_t tail, landed;
    uint64_t dma_gen_seen;
    int pid;
} live__conn;

typedef struct live__d {
    myri_sys_cfg c;
    myri_sys_run r;
    myri_live_params p;
    const myri_live_opts *o;
    live__host *h;
    uint32_t nh;
    live__conn conn[LIVE__MAX_CONN];
    FILE *rec;
    const uint8_t *log;   /* replay: the whole log */
    size_t logn, logpos;
    uint64_t diverged;    /* replay: records that did not match the run */
    uint64_t wall0_ns;
    int sigfd;
    char dir[128];
    bool made_dir;
    myri_live_result *res;
    bool ip_started;      /* --ip: the IP side's start ran (its stop is due) */
} live__d;

const myri_param myri_live_param_table[] = {
    {"speed", MYRI_P_DOUBLE, NULL, "1.0", "1e-6", "1e6",
     "simulated seconds per wall-clock second in `myri live` (1: real time); assumption: real time by default "
     "(issue 21), lower it when the daemon lags",
     offsetof(myri_live_params, speed), NULL},
    {"policy", MYRI_P_ENUM, NULL, "best-effort", NULL, NULL,
     "what `myri live` does when the simulation falls behind the wall clock: best-effort (go on, report the lag) "
     "or hard-limit (stop once the lag passes live.max_lag); ns-3's RealtimeSimulatorImpl policies",
     offsetof(myri_live_params, policy), "best-effort|hard-limit"},
    {"max_lag", MYRI_P_TIME, "ms", "100ms", "1us", "1000s",
     "wall-clock lag at which live.policy hard-limit stops the run; assumption: 100 ms, well above a scheduler "
     "time slice (a loaded machine) and below what a person notices",
     offsetof(myri_live_params, max_lag_ps), NULL},
    {"spin", MYRI_P_TIME, "us", "50us", "0us", "10ms",
     "wall time before its next event at which the daemon stops sleeping and spins (sleep wake-up latency is "
     "tens of microseconds on Linux); assumption, measured by bench/bench_live.sh",
     offsetof(myri_live_params, spin_ps), NULL},
    {"allow", MYRI_P_STRING, NULL, "", NULL, NULL,
     "users (names or uids, comma separated) allowed to attach besides the daemon's own user (SO_PEERCRED)",
     offsetof(myri_live_params, allow), NULL},
    {"ip_channel", MYRI_P_INT, NULL, "7", "0", "255",
     "receive channel of every host's IP driver under `myri live --ip` (the sender names the receiver's channel, "
     "so it is the same on all hosts); assumption: 7, the highest of the default mcp.nchan (8), so that programs "
     "taking MYRI_API0_ANY_CHAN (the lowest free) do not collide with it; checked against mcp.nchan",
     offsetof(myri_live_params, ip_channel), NULL},
};
const size_t myri_live_nparams = sizeof myri_live_param_table / sizeof myri_live_param_table[0];

/* ---- clocks ------------------------------------------------------------------------------ */

static uint64_t live__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
/* The simulated time due at wall time w, and the wall time simulated time t is due. */
static myri_time_ps live__sim_of(const live__d *d, uint64_t w)
{
    return w <= d->wall0_ns ? 0 : (myri_time_ps)((double)(w - d->wall0_ns) * 1000.0 * d->p.speed);
}
static uint64_t live__wall_of(const live__d *d, myri_time_ps t)
{
    return d->wall0_ns + (uint64_t)((double)t / 1000.0 / d->p.speed);
}

/* ---- recording and replay ---------------------------------------------------------------- */

static void live__record_at(live__d *d, uint32_t kind, uint32_t host, uint32_t addr, const uint8_t *data,
                           uint32_t len, myri_time_ps t)
{
    if (!d->rec) return;
    myri_live_rec r = {.kind = kind, .host = host, .addr = addr, .len = len, .data = data, .time_ps = t};
    (void)myri_live_rec_write(d->rec, &r);
}
static void live__record(live__d *d, uint32_t kind, uint32_t host, uint32_t addr, const uint8_t *data, uint32_t len)
{
    live__record_at(d, kind, host, addr, data, len, myri_sim_now(d->r.sim));
}

/* The NIC of a live host reads host memory: recorded (live), put back (replay). */
static void live__fetch(void *ctx, uint64_t bus_addr, uint32_t bytes)
{
    live__host *h = ctx;
    live__d *d = h->d;
    if (!h->live || bus_addr > h->mem_bytes || bytes > h->mem_bytes - bus_addr) return;
    d->res->fetches++;
    if (!d->log) {
        live__record(d, MYRI_LIVE_REC_FETCH, h->index, (uint32_t)bus_addr, h->mem + bus_addr, bytes);
        return;
    }
    myri_live_rec r;
    size_t pos = d->logpos;
    if (myri_live_rec_next(d->log, d->logn, &pos, &r) == 1 && r.kind == MYRI_LIVE_REC_FETCH && r.host == h->index &&
        r.addr == bus_addr && r.len == bytes) {
        memcpy(h->mem + bus_addr, r.data, bytes);
        d->logpos = pos;
    } else {
        d->diverged++;
    }
}

static void live__dma(void *ctx, uint64_t bus_addr, uint32_t bytes)
{
    (void)bus_addr;
    (void)bytes;
    ((live__host *)ctx)->dma_gen++;
}

/* ---- shared memory ----------------------------------------------------------------------- */

static int live__memfd(const char *name, uint64_t bytes, uint8_t **map)
{
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)bytes) != 0) {
        close(fd);
        return -1;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return -1;
    }
    /* no client can shrink it under the daemon's mapping (SIGBUS) */
    (void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
    *map = p;
    return fd;
}

static myri_status live__board_mem(void *ctx, uint32_t i, uint64_t sram_bytes, uint64_t mem_bytes, uint8_t **sram,
                                   uint8_t **mem)
{
    live__d *d = ctx;
    live__host *h = &d->h[i];
    h->sram_bytes = sram_bytes;
    h->mem_bytes = mem_bytes;
    if (d->log) { /* a replay shares nothing */
        h->sram = calloc(1, sram_bytes);
        h->mem = calloc(1, mem_bytes);
        h->sram_fd = h->mem_fd = -1;
    } else {
        h->sram_fd = live__memfd("myri-sram", sram_bytes, &h->sram);
        h->mem_fd = live__memfd("myri-mem", mem_bytes, &h->mem);
        h->seg_fd = live__memfd("myri-seg", LIVE__SEG_BYTES, &h->seg);
        /* the client maps SRAM read-only: only the ring writes it */
        if (h->sram_fd >= 0) (void)fcntl(h->sram_fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE);
    }
    if (!h->sram || !h->mem || (!d->log && (h->sram_fd < 0 || h->mem_fd < 0 || h->seg_fd < 0))) return MYRI_ENOMEM;
    *sram = h->sram;
    *mem = h->mem;
    return MYRI_OK;
}

static void live__host_free(live__host *h, bool replay)
{
    if (replay) {
        free(h->sram);
        free(h->mem);
        return;
    }
    if (h->sram) munmap(h->sram, h->sram_bytes);
    if (h->mem) munmap(h->mem, h->mem_bytes);
    if (h->seg) munmap(h->seg, LIVE__SEG_BYTES);
    if (h->sram_fd >= 0) close(h->sram_fd);
    if (h->mem_fd >= 0) close(h->mem_fd);
    if (h->seg_fd >= 0) close(h->seg_fd);
    if (h->lsock >= 0) {
        close(h->lsock);
        unlink(h->path);
    }
}

/* ---- connections ------------------------------------------------------------------------- */

static void live__detach(live__d *d, live__conn *c)
{
    if (!c->used) return;
    live__record(d, MYRI_LIVE_REC_DETACH, c->host, (uint32_t)c->pid, NULL, 0);
    d->res->detaches++;
    d->h[c->host].nconn--;
    if (d->o->log) fprintf(d->o->log, "myri live: client %d left %s\n", c->pid, d->h[c->host].path);
    munmap(c->ctl, sizeof *c->ctl);
    close(c->ctl_fd);
    close(c->sock);
    close(c->bell);
    close(c->wake);
    memset(c, 0, sizeof *c);
}

/* The peer's uid is ours or in live.allow. */
static bool live__allowed(const live__d *d, uid_t uid)
{
    if (uid == geteuid()) return true;
    const char *a = d->p.allow ? d->p.allow : "";
    while (*a) {
        size_t n = strcspn(a, ",");
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name - 1 ? n : sizeof name - 1), a);
        char *end;
        unsigned long v = strtoul(name, &end, 10);
        if (end != name && *end == '\0' && (uid_t)v == uid) return true;
        struct passwd *pw = getpwnam(name);
        if (pw && pw->pw_uid == uid) return true;
        a += n;
        if (*a == ',') a++;
    }
    return false;
}

static void live__routes(const live__d *d, uint32_t from, myri_live_ctl *ctl)
{
    for (uint32_t to = 0; to < d->nh && to < MYRI_LIVE_MAX_HOSTS; to++) {
        myri_route buf;
        const myri_route *rt = myri_routes_get(&d->r.b.routes, from, to, &buf);
        if (!rt || rt->len == MYRI_ROUTE_NONE || rt->len > MYRI_LIVE_ROUTE_MAX) continue;
        ctl->route[to].known = 1;
        ctl->route[to].len = rt->len;
        memcpy(ctl->route[to].byte, rt->byte, rt->len);
    }
}

static int live__send_hello(int sock, const myri_live_hello *hello, const int *fds, int nfds)
{
    struct iovec iov = {.iov_base = (void *)hello, .iov_len = sizeof *hello};
    union {
        char buf[CMSG_SPACE(sizeof(int) * MYRI_LIVE_NFDS)];
        struct cmsghdr align;
    } u;
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds > 0) {
        memset(&u, 0, sizeof u);
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
        memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
    }
    return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)sizeof *hello ? 0 : -1;
}

static void live__hello_base(const live__d *d, const live__host *h, myri_live_hello *m)
{
    memset(m, 0, sizeof *m);
    m->magic = MYRI_LIVE_MAGIC;
    m->version = MYRI_LIVE_VERSION;
    m->host = h->index;
    m->nhosts = d->nh;
    m->sram_bytes = h->sram_bytes;
    m->mem_bytes = h->mem_bytes;
    m->seg_bytes = LIVE__SEG_BYTES;
    m->ctl_bytes = sizeof(myri_live_ctl);
    m->init_timeout_ps = d->c.host.init_timeout_ps;
    m->lock_timeout_ps = d->c.host.lock_timeout_ps;
    m->poll_gap_ps = d->c.host.poll_gap_ps;
    m->lock_spin_ps = d->c.host.lock_spin_ps;
    snprintf(m->firmware, sizeof m->firmware, "%s", d->c.fw->name);
}

static void live__refuse(int sock, const live__d *d, const live__host *h, const char *why)
{
    myri_live_hello m;
    live__hello_base(d, h, &m);
    m.status = 1;
    snprintf(m.firmware, sizeof m.firmware, "%s", why);
    (void)live__send_hello(sock, &m, NULL, 0);
    close(sock);
}

static void live__accept(live__d *d, live__host *h)
{
    int s = accept4(h->lsock, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (s < 0) return;
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl) != 0 || !live__allowed(d, cr.uid)) {
        d->res->refused++;
        live__refuse(s, d, h, "refused: not the daemon's user nor in live.allow");
        return;
    }
    if (!h->live) {
        d->res->refused++;
        live__refuse(s, d, h, "refused: this host runs a built-in program (not program: live)");
        return;
    }
    live__conn *c = NULL;
    for (int i = 0; i < LIVE__MAX_CONN && !c; i++)
        if (!d->conn[i].used) c = &d->conn[i];
    if (!c) {
        d->res->refused++;
        live__refuse(s, d, h, "refused: too many clients");
        return;
    }
    uint8_t *ctl = NULL;
    c->ctl_fd = live__memfd("myri-ctl", sizeof(myri_live_ctl), &ctl);
    c->bell = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    c->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (c->ctl_fd < 0 || c->bell < 0 || c->wake < 0) {
        if (ctl) munmap(ctl, sizeof(myri_live_ctl));
        if (c->ctl_fd >= 0) close(c->ctl_fd);
        if (c->bell >= 0) close(c->bell);
        if (c->wake >= 0) close(c->wake);
        memset(c, 0, sizeof *c);
        live__refuse(s, d, h, "refused: out of memory or descriptors");
        return;
    }
    c->used = true;
    c->sock = s;
    c->host = h->index;
    c->pid = cr.pid;
    c->ctl = (myri_live_ctl *)ctl;
    *c->ctl = (myri_live_ctl){.magic = MYRI_LIVE_MAGIC, .version = MYRI_LIVE_VERSION, .ring = MYRI_LIVE_RING,
                              .cmd_data = MYRI_LIVE_CMD_DATA, .wall0_ns = d->wall0_ns,
                              .speed_milli = (uint64_t)llround(d->p.speed * 1000.0)};
    live__routes(d, h->index, c->ctl);
    c->dma_gen_seen = h->dma_gen;
    myri_live_hello m;
    live__hello_base(d, h, &m);
    m.first = h->nconn == 0;
    if (m.first) memset(h->seg, 0, LIVE__SEG_BYTES); /* nobody uses it: what a dead client left goes */
    h->nconn++;
    int fds[MYRI_LIVE_NFDS] = {h->sram_fd, h->mem_fd, h->seg_fd, c->ctl_fd, c->bell, c->wake};
    d->res->attaches++;
    live__record(d, MYRI_LIVE_REC_ATTACH, h->index, (uint32_t)c->pid, NULL, 0);
    if (d->o->log) fprintf(d->o->log, "myri live: client %d attached to %s\n", c->pid, h->path);
    if (live__send_hello(s, &m, fds, MYRI_LIVE_NFDS) != 0) live__detach(d, c);
}

/* Copies the published entries out once, checks them, applies them now. */
static void live__drain(live__d *d, live__conn *c)
{
    live__host *h = &d->h[c->host];
    myri_host *host = d->r.nic[c->host].host;
    uint32_t head = atomic_load_explicit((_Atomic uint32_t *)&c->ctl->head, memory_order_acquire);
    uint32_t n = head - c->tail;
    if (n > MYRI_LIVE_RING) { /* a client that scribbled over its ring: it goes, nobody else notices */
        d->res->bad_cmds++;
        if (d->o->log) fprintf(d->o->log, "myri live: client %d: ring index out of range; disconnected\n", c->pid);
        live__detach(d, c);
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        myri_live_cmd cmd;
        memcpy(&cmd, &c->ctl->cmd[c->tail & (MYRI_LIVE_RING - 1)], sizeof cmd);
        c->tail++;
        if (myri_live_cmd_check(&cmd, h->sram_bytes) != 0) {
            d->res->bad_cmds++;
            continue;
        }
        if (myri_host_pio_external(host, 0, cmd.sram_off, cmd.data, cmd.len) == MYRI_OK) {
            d->res->inputs++;
            live__record(d, MYRI_LIVE_REC_PIO, c->host, cmd.sram_off, cmd.data, cmd.len);
        }
    }
    atomic_store_explicit((_Atomic uint32_t *)&c->ctl->tail, c->tail, memory_order_release);
}

/* Publishes what changed and wakes the client if anything did. */
static void live__publish(live__d *d, live__conn *c)
{
    live__host *h = &d->h[c->host];
    bool changed = false;
    if (c->landed != c->tail && myri_host_pio_pending(d->r.nic[c->host].host, 0) == 0) {
        c->landed = c->tail;
        atomic_store_explicit((_Atomic uint32_t *)&c->ctl->landed, c->landed, memory_order_release);
        changed = true;
    }
    if (c->dma_gen_seen != h->dma_gen) {
        c->dma_gen_seen = h->dma_gen;
        atomic_store_explicit((_Atomic uint64_t *)&c->ctl->dma_gen, h->dma_gen, memory_order_release);
        changed = true;
    }
    atomic_store_explicit((_Atomic uint64_t *)&c->ctl->sim_now_ps, myri_sim_now(d->r.sim), memory_order_release);
    if (changed) {
        uint64_t one = 1;
        (void)!write(c->wake, &one, sizeof one);
    }
}

/* ---- the session folder and sockets -------------------------------------------------------- */

static myri_status live__dir(live__d *d, myri_error *err)
{
    if (d->o->dir) {
        snprintf(d->dir, sizeof d->dir, "%s", d->o->dir);
        if (mkdir(d->dir, 0700) == 0) d->made_dir = true;
        struct stat sb;
        if (stat(d->dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() || (sb.st_mode & 0077))
            return myri_error_at(err, NULL, "--dir %s: expected a folder of ours with mode 0700 (or none: it is made)",
                                 d->dir), MYRI_EINPUT;
        return MYRI_OK;
    }
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (!base || !base[0] || access(base, W_OK) != 0) base = "/tmp";
    snprintf(d->dir, sizeof d->dir, "%s/myri-live-XXXXXX", base);
    if (!mkdtemp(d->dir)) return myri_error_at(err, NULL, "cannot make a session folder under %s: %s", base,
                                               strerror(errno)), MYRI_EINPUT;
    d->made_dir = true;
    return MYRI_OK;
}

static myri_status live__listen(live__d *d, live__host *h, myri_error *err)
{
    const char *hname = d->r.b.topo->node[d->r.b.topo->host_node[h->index]].name;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int n = snprintf(h->path, sizeof h->path, "%s/%s.sock", d->dir, hname);
    if (n < 0 || (size_t)n >= sizeof a.sun_path)
        return myri_error_at(err, NULL, "socket path %s/%s.sock too long", d->dir, hname), MYRI_EINPUT;
    memcpy(a.sun_path, h->path, (size_t)n + 1);
    unlink(h->path);
    h->lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (h->lsock < 0 || bind(h->lsock, (struct sockaddr *)&a, sizeof a) != 0 || listen(h->lsock, 8) != 0)
        return myri_error_at(err, NULL, "cannot listen on %s: %s", h->path, strerror(errno)), MYRI_EINPUT;
    chmod(h->path, 0600);
    return MYRI_OK;
}

/* ---- the paced loop ------------------------------------------------------------------------ */

/* Waits for the sockets, doorbells and signals until wall time `until_ns`:
 * sleeps (ppoll) until live.spin before it, then spins on the rings.  Returns
 * false when a signal asks to stop. */
static bool live__wait(live__d *d, uint64_t until_ns)
{
    struct pollfd pf[1 + 256 + 2 * LIVE__MAX_CONN];
    void *who[sizeof pf / sizeof pf[0]];
    int kind[sizeof pf / sizeof pf[0]];
    nfds_t n = 0;
    pf[n] = (struct pollfd){.fd = d->sigfd, .events = POLLIN}, kind[n++] = 0;
    for (uint32_t i = 0; i < d->nh && n < 257; i++)
        if (d->h[i].lsock >= 0) pf[n] = (struct pollfd){.fd = d->h[i].lsock, .events = POLLIN}, who[n] = &d->h[i],
                                kind[n++] = 1;
    for (int i = 0; i < LIVE__MAX_CONN; i++)
        if (d->conn[i].used) {
            pf[n] = (struct pollfd){.fd = d->conn[i].sock, .events = POLLIN}, who[n] = &d->conn[i], kind[n++] = 2;
            pf[n] = (struct pollfd){.fd = d->conn[i].bell, .events = POLLIN}, who[n] = &d->conn[i], kind[n++] = 3;
        }
    uint64_t now = live__mono_ns(), spin_ns = d->p.spin_ps / 1000;
    struct timespec ts = {0, 0};
    if (until_ns > now + spin_ns) {
        uint64_t dt = until_ns - now - spin_ns;
        ts.tv_sec = (time_t)(dt / 1000000000u);
        ts.tv_nsec = (long)(dt % 1000000000u);
    }
    int rc = ppoll(pf, n, until_ns == UINT64_MAX ? NULL : &ts, NULL);
    if (rc == 0 && until_ns != UINT64_MAX) { /* close to the event: spin, watching the rings */
        for (bool rung = false; !rung && live__mono_ns() < until_ns;)
            for (int i = 0; i < LIVE__MAX_CONN && !rung; i++)
                rung = d->conn[i].used && atomic_load_explicit((_Atomic uint32_t *)&d->conn[i].ctl->head,
                                                               memory_order_relaxed) != d->conn[i].tail;
        return true;
    }
    for (nfds_t k = 0; rc > 0 && k < n; k++) {
        if (!pf[k].revents) continue;
        if (kind[k] == 0) {
            struct signalfd_siginfo si;
            (void)!read(d->sigfd, &si, sizeof si);
            d->res->stopped_by_signal = true;
            return false;
        }
        if (kind[k] == 1) live__accept(d, who[k]);
        if (kind[k] == 3) {
            uint64_t v;
            (void)!read(((live__conn *)who[k])->bell, &v, sizeof v);
        }
        if (kind[k] == 2) {
            char b[64];
            live__conn *c = who[k];
            ssize_t got = c->used ? recv(c->sock, b, sizeof b, MSG_DONTWAIT) : -1;
            if (c->used && (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))) {
                live__drain(d, c); /* what it published before it left still enters (a send in flight) */
                if (c->used) live__detach(d, c);
            }
        }
    }
    return true;
}

static void live__loop(live__d *d)
{
    myri_sim *sim = d->r.sim;
    myri_time_ps end_ps = d->c.common.duration_ps;
    uint64_t wall_end = d->o->duration_s > 0 ? d->wall0_ns + (uint64_t)(d->o->duration_s * 1e9) : UINT64_MAX;
    double lag_sum = 0;
    for (;;) {
        uint64_t w = live__mono_ns();
        if (w >= wall_end) { /* the simulated time reaches the wall clock's, then the run ends */
            myri_time_ps t = live__sim_of(d, wall_end);
            t = t > end_ps ? end_ps : t < myri_sim_now(sim) ? myri_sim_now(sim) : t;
            live__record_at(d, MYRI_LIVE_REC_RUN, 0, 0, NULL, 0, t);
            myri_sim_run(sim, t, 0);
            break;
        }
        myri_time_ps target = live__sim_of(d, w);
        if (target < myri_sim_now(sim)) target = myri_sim_now(sim);
        if (target > end_ps) target = end_ps;
        uint64_t ev0 = myri_sim_events(sim);
        /* recorded first: the fetches the run makes follow it in the log; a replay stops where this run did */
        live__record_at(d, MYRI_LIVE_REC_RUN, 0, 0, NULL, 0, target);
        myri_sim_run(sim, target, 0);
        if (myri_sim_events(sim) != ev0) {
            uint64_t due = live__wall_of(d, target), after = live__mono_ns();
            double lag = after > due ? (double)(after - due) : 0;
            lag_sum += lag;
            d->res->lag_samples++;
            if (lag > d->res->lag_max_ns) d->res->lag_max_ns = lag;
            if (d->p.policy == 1 && lag * 1000.0 > (double)d->p.max_lag_ps) {
                d->res->hard_limit_hit = true;
                break;
            }
        }
        if (myri_sim_now(sim) >= end_ps) break;
        for (int i = 0; i < LIVE__MAX_CONN; i++)
            if (d->conn[i].used) live__drain(d, &d->conn[i]);
        for (int i = 0; i < LIVE__MAX_CONN; i++)
            if (d->conn[i].used) live__publish(d, &d->conn[i]);
        myri_time_ps next = myri_sim_next_time(sim);
        uint64_t until = next == MYRI_TIME_NEVER ? UINT64_MAX : live__wall_of(d, next);
        if (until > wall_end) until = wall_end;
        if (!live__wait(d, until)) break;
    }
    d->res->lag_mean_ns = d->res->lag_samples ? lag_sum / (double)d->res->lag_samples : 0;
}

/* Runs the log's records: the simulation's runs, the PIO writes at their
 * times; the fetches are put back by live__fetch as the NIC makes them. */
static void live__replay(live__d *d)
{
    myri_live_rec r;
    long start = myri_live_rec_start(d->log, d->logn);
    d->logpos = start < 0 ? d->logn : (size_t)start;
    if (start < 0) d->diverged++;
    for (;;) {
        size_t pos = d->logpos;
        int k = myri_live_rec_next(d->log, d->logn, &pos, &r);
        if (k <= 0) { /* the end record ends a whole log: without it the log was cut short */
            d->res->log_cut = true;
            d->diverged++;
            break;
        }
        d->logpos = pos;
        if (r.kind == MYRI_LIVE_REC_END) {
            if (r.time_ps != myri_sim_now(d->r.sim) || pos != d->logn) d->diverged++; /* bytes after the end */
            break;
        }
        switch (r.kind) {
        case MYRI_LIVE_REC_RUN: myri_sim_run(d->r.sim, r.time_ps, 0); break;
        case MYRI_LIVE_REC_PIO:
            if (r.host >= d->nh || !d->h[r.host].live || r.time_ps != myri_sim_now(d->r.sim) ||
                myri_host_pio_external(d->r.nic[r.host].host, 0, r.addr, r.data, r.len) != MYRI_OK)
                d->diverged++;
            else
                d->res->inputs++;
            break;
        case MYRI_LIVE_REC_ATTACH: d->res->attaches++; break;
        case MYRI_LIVE_REC_DETACH: d->res->detaches++; break;
        default: d->diverged++; break; /* a fetch the run did not make */
        }
    }
    d->res->bad_cmds = d->diverged;
}

/* ---- the run ------------------------------------------------------------------------------- */

static myri_status live__load_log(live__d *d, const char *path, myri_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return myri_error_at(err, NULL, "--replay %s: %s", path, strerror(errno)), MYRI_EINPUT;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            uint8_t *b = realloc(buf, cap = cap ? 2 * cap : 65536);
            if (!b) break;
            buf = b;
        }
        size_t k = fread(buf + n, 1, cap - n, f);
        if (k == 0) break;
        n += k;
    }
    fclose(f);
    if (!buf || myri_live_rec_start(buf, n) < 0) {
        free(buf);
        return myri_error_at(err, NULL, "--replay %s: not a record log of myri live (no MYRILOG1 header)", path),
               MYRI_EINPUT;
    }
    d->log = buf;
    d->logn = n;
    return MYRI_OK;
}

/* --ip: the IP hosts are the program: live hosts; a scenario without
 * programs gives every host to IP.  Seed 001's MCP only (libmyri-live has its
 * API only); live.ip_channel below mcp.nchan. */
static myri_status live__ip_hosts(live__d *d, const myri_node *root, myri_error *err)
{
    const myri_node *lv = myri_node_get(root, "live"), *chk = lv ? myri_node_get(lv, "ip_channel") : NULL;
    if (strcmp(d->c.fw->name, "mcp") != 0)
        return myri_error_at(err, myri_node_get(root, "firmware"), "--ip needs firmware: mcp (the IP driver is a "
                             "client of seed 001's API); this scenario runs %s", d->c.fw->name), MYRI_EINPUT;
    const myri_mcp_params *mp = d->c.fwp;
    if (d->p.ip_channel >= mp->nchan)
        return myri_error_at(err, chk ? chk : root, "live.ip_channel %lld: expected a channel below mcp.nchan (%lld)",
                             (long long)d->p.ip_channel, (long long)mp->nchan), MYRI_EINPUT;
    bool any = false;
    for (uint32_t i = 0; d->r.live && i < d->r.nnic; i++) any |= d->r.live[i];
    if (any) return MYRI_OK;
    const myri_node *pl = d->c.programs;
    if (pl && pl->kind == MYRI_NODE_SEQ && pl->n > 0)
        return myri_error_at(err, pl, "--ip: no programs entry is `program: live` (IP runs on the program: live hosts; "
                             "a scenario without programs gives IP to every host)"), MYRI_EINPUT;
    if (!d->r.live && !(d->r.live = calloc(d->r.nnic ? d->r.nnic : 1, sizeof *d->r.live))) return MYRI_ENOMEM;
    for (uint32_t i = 0; i < d->r.nnic; i++) d->r.live[i] = true;
    return MYRI_OK;
}

static myri_status live__ip_start(live__d *d, myri_error *err)
{
    const myri_live_ip_hooks *hk = d->o->ip_hooks;
    const char **names = calloc(d->nh ? d->nh : 1, sizeof *names);
    if (!names) return MYRI_ENOMEM;
    for (uint32_t i = 0; i < d->nh; i++) names[i] = d->r.b.topo->node[d->r.b.topo->host_node[i]].name;
    myri_live_ip_setup s = {.nhosts = d->nh, .on = d->r.live, .names = names, .dir = d->dir,
                            .mtu_bytes = (uint32_t)((const myri_mcp_params *)d->c.fwp)->mtu,
                            .channel = (int)d->p.ip_channel};
    char why[512] = "";
    d->ip_started = true;
    int rc = hk->start(hk->ctx, &s, d->o->log, why, sizeof why);
    free(names);
    return rc ? (myri_error_at(err, NULL, "--ip: %s", why), MYRI_EINPUT) : MYRI_OK;
}

static void live__ip_stop(live__d *d)
{
    if (d->ip_started && d->o->ip_hooks) d->o->ip_hooks->stop(d->o->ip_hooks->ctx, d->o->log);
    d->ip_started = false;
}

static myri_status live__start(live__d *d, const myri_node *root, myri_error *err)
{
    d->r.live_ok = true;
    d->r.board_mem = live__board_mem;
    d->r.board_mem_ctx = d;
    myri_run_opts ro = {.program_path = d->o->program_path};
    myri_status st = myri_sys_run_prepare(&d->r, &d->c, root, &ro, err);
    if (st) return st;
    d->nh = d->r.nnic;
    if (d->o->ip && (st = live__ip_hosts(d, root, err)) != MYRI_OK) return st;
    for (uint32_t i = 0; i < d->nh; i++) {
        live__host *h = &d->h[i];
        h->live = d->r.live && d->r.live[i];
        if (!h->live) continue;
        (void)myri_lanai_set_host_fetch(d->r.nic[i].lanai, live__fetch, h);
        (void)myri_host_set_dma_listener(d->r.nic[i].host, live__dma, h);
        if (!d->log && (st = live__listen(d, h, err)) != MYRI_OK) return st;
    }
    if (d->o->ip && !d->log && d->o->ip_hooks) return live__ip_start(d, err);
    return MYRI_OK;
}

static int live__signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    /* a daemon started in the background of a script inherits SIGINT ignored, and an ignored signal never
     * reaches the signalfd: blocked, the default disposition keeps it pending for the signalfd instead */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void live__finish(live__d *d)
{
    for (int i = 0; i < LIVE__MAX_CONN; i++) live__detach(d, &d->conn[i]);
    if (d->r.sim) live__record(d, MYRI_LIVE_REC_END, 0, 0, NULL, 0); /* the log is whole */
    myri_live_result *res = d->res;
    if (d->r.sim) {
        myri_error e;
        (void)myri_sys_run_close(&d->r, &e);
        res->hash = myri_sim_hash(d->r.sim);
        res->events = myri_sim_events(d->r.sim);
        res->sim_ps = myri_sim_now(d->r.sim);
        const myri_fw_def *fd = d->r.nnic ? myri_fw_def_of(d->r.nic[0].fw) : NULL;
        size_t at = 0;
        for (uint32_t k = 0; fd && k < fd->ncounters; k++) { /* where packets went (drops by reason) */
            uint64_t v = 0;
            for (uint32_t i = 0; i < d->r.nnic; i++) v += myri_fw_counter(d->r.nic[i].fw, k);
            int n = v ? snprintf(res->fw_counters + at, sizeof res->fw_counters - at, "%s%s %llu", at ? " " : "",
                                 fd->counters[k].name, (unsigned long long)v) : 0;
            if (n > 0 && (size_t)n < sizeof res->fw_counters - at) at += (size_t)n;
        }
        for (size_t k = 0; k < d->r.nstarted; k++) { /* still running when stopped: not a failure here */
            if (!myri_program_done(d->r.prog_of[k])) {
                res->running++;
                continue;
            }
            int rc = myri_program_exit_code(d->r.prog_of[k]);
            if (rc > res->worst_exit) res->worst_exit = rc;
        }
    }
}

static void live__free(live__d *d)
{
    myri_sys_run_free(&d->r); /* before the memory the LANais and hosts use */
    for (uint32_t i = 0; d->h && i < d->nh; i++) live__host_free(&d->h[i], d->log != NULL);
    free(d->h);
    if (d->made_dir) rmdir(d->dir);
    if (d->sigfd >= 0) close(d->sigfd);
    free((void *)d->log);
    myri_sys_cfg_free(&d->c);
}

myri_status myri_live_run(const myri_node *root, const myri_live_opts *opts, myri_live_result *res, myri_error *err)
{
    memset(res, 0, sizeof *res);
    live__d *d = calloc(1, sizeof *d);
    if (!d) return MYRI_ENOMEM;
    d->o = opts;
    d->res = res;
    d->sigfd = -1;
    const myri_node *job = root ? myri_node_get(root, "job") : NULL;
    myri_status st = MYRI_OK;
    if (!job || job->kind != MYRI_NODE_SCALAR || strcmp(job->scalar, "system") != 0)
        st = (myri_error_at(err, job ? job : root, "myri live runs system scenarios (job: system, docs/LIVE.md); expected "
                                      "job: system"), MYRI_EINPUT);
    if (!st) st = myri_sys_cfg_load(&d->c, root, err);
    d->p = d->c.live;
    if (!st && opts->replay_path) st = live__load_log(d, opts->replay_path, err);
    if (!st && !opts->replay_path) st = live__dir(d, err);
    if (!st) {
        myri_topo_built b;
        if ((st = myri_system_build_topo(root, &b, err)) == MYRI_OK) {
            d->nh = (uint32_t)b.topo->nhosts;
            myri_topo_built_free(&b);
        }
    }
    if (!st && !(d->h = calloc(d->nh ? d->nh : 1, sizeof *d->h))) st = MYRI_ENOMEM;
    for (uint32_t i = 0; !st && i < d->nh; i++)
        d->h[i] = (live__host){.index = i, .sram_fd = -1, .mem_fd = -1, .seg_fd = -1, .lsock = -1, .d = d};
    if (!st && opts->record_path) {
        if (!(d->rec = fopen(opts->record_path, "wb")) || myri_live_rec_header(d->rec) != 0)
            st = (myri_error_at(err, NULL, "--record %s: %s", opts->record_path, strerror(errno)), MYRI_EINPUT);
    }
    /* SIGINT/SIGTERM held from before the sockets, namespaces and drivers exist: one that comes while
     * they are made stops the run at its first step, with the cleanup, instead of killing the daemon */
    if (!st && !opts->replay_path) d->sigfd = live__signals();
    if (!st) st = live__start(d, root, err);
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    uint64_t t0 = live__mono_ns();
    if (!st && d->log) {
        live__replay(d);
    } else if (!st) {
        (void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* ppoll wakes within ~1 ns of asked, not 50 us */
        if (opts->log) {
            fprintf(opts->log, "myri live: session %s; speed %g; hosts:", d->dir, d->p.speed);
            for (uint32_t i = 0; i < d->nh; i++)
                fprintf(opts->log, " %s%s", d->r.b.topo->node[d->r.b.topo->host_node[i]].name,
                        d->h[i].live ? "(live)" : "");
            fprintf(opts->log, "\n");
            fflush(opts->log);
        }
        d->wall0_ns = live__mono_ns();
        live__loop(d);
        live__ip_stop(d); /* the drivers leave before the daemon detaches its clients */
    }
    live__ip_stop(d);     /* a start that failed half-way */
    res->wall_s = (double)(live__mono_ns() - t0) / 1e9;
    getrusage(RUSAGE_SELF, &ru1);
    res->cpu_s = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec + ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                 1e-6 * (double)(ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec + ru1.ru_stime.tv_usec -
                                 ru0.ru_stime.tv_usec);
    if (!st) live__finish(d);
    if (d->rec) fclose(d->rec);
    live__free(d);
    free(d);
    return st;
}

void myri_live_print(const myri_live_result *r, const myri_live_opts *o, const char *file)
{
    FILE *f = o->out ? o->out : stdout;
    const char *mode = o->replay_path ? "replay" : "live";
    double sim_us = (double)r->sim_ps / 1e6;
    double cpu_per_us = sim_us > 0 ? r->cpu_s / sim_us : 0;
    if (o->json) {
        myri_json *j = myri_json_create(f, false);
        if (!j) return;
        myri_json_obj_begin(j);
        myri_json_kstr(j, "scenario", file);
        myri_json_kstr(j, "mode", mode);
        myri_json_key(j, "hash");
        myri_json_hash(j, r->hash);
        myri_json_kuint(j, "events", r->events);
        myri_json_kuint(j, "sim_time_ps", r->sim_ps);
        myri_json_knum(j, "wall_s", r->wall_s);
        myri_json_knum(j, "cpu_s", r->cpu_s);
        myri_json_knum(j, "cpu_s_per_sim_us", cpu_per_us);
        myri_json_knum(j, "lag_max_ns", r->lag_max_ns);
        myri_json_knum(j, "lag_mean_ns", r->lag_mean_ns);
        myri_json_kuint(j, "lag_samples", r->lag_samples);
        myri_json_kbool(j, "hard_limit_hit", r->hard_limit_hit);
        myri_json_kbool(j, "stopped_by_signal", r->stopped_by_signal);
        if (o->replay_path) myri_json_kbool(j, "log_cut", r->log_cut);
        myri_json_kuint(j, "inputs", r->inputs);
        myri_json_kuint(j, "fetches", r->fetches);
        myri_json_kuint(j, "attaches", r->attaches);
        myri_json_kuint(j, "detaches", r->detaches);
        myri_json_kuint(j, "refused", r->refused);
        myri_json_kuint(j, "bad_inputs", r->bad_cmds);
        myri_json_kint(j, "worst_exit", r->worst_exit);
        myri_json_kuint(j, "programs_running", r->running);
        myri_json_kstr(j, "firmware_counters", r->fw_counters);
        myri_json_obj_end(j);
        (void)myri_json_finish(j);
        return;
    }
    fprintf(f, "%s %s: %.6f s simulated in %.3f s wall, %llu events\n", mode, file, (double)r->sim_ps / 1e12,
            r->wall_s, (unsigned long long)r->events);
    if (!o->replay_path) {
        fprintf(f, "lag behind the wall clock: max %.1f us, mean %.1f us over %llu steps%s\n", r->lag_max_ns / 1e3,
                r->lag_mean_ns / 1e3, (unsigned long long)r->lag_samples,
                r->hard_limit_hit ? " -- live.max_lag passed: stopped (live.policy hard-limit)" : "");
        fprintf(f, "daemon CPU: %.3f s (%.2f %% of a core; %.3e s per simulated us)\n", r->cpu_s,
                r->wall_s > 0 ? 100.0 * r->cpu_s / r->wall_s : 0.0, cpu_per_us);
        fprintf(f, "clients: %llu attached, %llu left, %llu refused; %s\n", (unsigned long long)r->attaches,
                (unsigned long long)r->detaches, (unsigned long long)r->refused,
                r->stopped_by_signal ? "stopped by a signal" : "stopped at its bound");
    }
    fprintf(f, "inputs: %llu PIO writes, %llu host-memory reads by the NICs, %llu %s\n",
            (unsigned long long)r->inputs, (unsigned long long)r->fetches, (unsigned long long)r->bad_cmds,
            o->replay_path ? "records that did not match the run" : "bad ring entries dropped");
    if (r->log_cut)
        fprintf(f, "the log ends before its end record: cut short (a live run killed, or a truncated file); "
                   "replayed up to there\n");
    if (r->worst_exit || r->running)
        fprintf(f, "built-in programs: largest exit code %d, %llu still running at the end\n", r->worst_exit,
                (unsigned long long)r->running);
    if (r->fw_counters[0]) fprintf(f, "firmware counters (all NICs): %s\n", r->fw_counters);
    fprintf(f, "hash %016llx\n", (unsigned long long)r->hash);
}
