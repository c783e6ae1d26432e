/* live_client.c -- libmyri-live: the client side of live mode (docs/LIVE.md).
 *
 * A program written for simulation (`int myri_main(int argc, char **argv)`,
 * <myri/api0.h> and <myri/prog.h>) links this library instead of being
 * loaded with `myri run --program`: its main() takes --myri-host NAME and
 * --myri-dir DIR (or MYRI_HOST, MYRI_DIR), connects to DIR/NAME.sock of a
 * running `myri live`, maps the host's board (shm.h) and calls myri_main
 * with the remaining arguments.  The API is the same src/host/api0.c, over
 * the host interface below:
 *   pio_read   reads the shared SRAM mapping (read-only) directly, after the
 *              daemon has landed this client's earlier writes (a read after a
 *              write sees it, as on the bus);
 *   pio_write  puts {SRAM offset, length, bytes} entries in the command ring
 *              and rings the doorbell; the daemon applies them at the paced
 *              simulated time through the simulated host's PIO path;
 *   wait_dma   spins briefly, then sleeps on the wake-up eventfd until the
 *              daemon says the NIC wrote host memory;
 *   spend      sleeps the time (scaled by live.speed): the API's poll and
 *              lock-spin gaps; an API call's own cost is the real CPU's;
 *   now        the simulated time the wall clock stands for (live.speed).
 * Everything a simulated run charges in simulated time costs real time here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "host/hostif.h"
#include "live/shm.h"
#include "myri/api0.h"
#include "myri/prog.h"

int myri_main(int argc, char **argv);

/* Spin before sleeping on the eventfd: 20 us by default (assumption: about one wake-up latency of a
 * sleeping process), MYRI_LIVE_SPIN_US to change it (0: sleep at once). */
static uint64_t lc__spin_ns = 20000;

typedef struct lc__state {
    int sock, bell, wake;
    myri_live_hello hello;
    const uint8_t *sram;
    uint8_t *mem, *seg;
    myri_live_ctl *ctl;
    uint32_t head;          /* entries this client published */
    uint64_t dma_seen;      /* dma_gen at the last wait_dma return */
    bool attached;
    void (*on_leave)(void *seg, int id);
    double speed;
    uint64_t wall0_ns;
    uint64_t rng;
    myri_hostif hi;
    myri_hostif_costs costs;
    bool up;
} lc__state;

static lc__state lc;

/* ---- clocks and waiting ------------------------------------------------------------------ */

static uint64_t lc__mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t lc__wall_ns(uint64_t sim_ps) { return (uint64_t)((double)sim_ps / 1000.0 / lc.speed); }

static uint32_t lc__tail(void) { return atomic_load_explicit((_Atomic uint32_t *)&lc.ctl->tail, memory_order_acquire); }
static uint32_t lc__landed(void)
{
    return atomic_load_explicit((_Atomic uint32_t *)&lc.ctl->landed, memory_order_acquire);
}
static uint64_t lc__dma_gen(void)
{
    return atomic_load_explicit((_Atomic uint64_t *)&lc.ctl->dma_gen, memory_order_acquire);
}

static bool lc__ring_room(void) { return lc.head - lc__tail() < MYRI_LIVE_RING; }
static bool lc__all_landed(void) { return lc__landed() == lc.head; }
static bool lc__dma_new(void) { return lc__dma_gen() != lc.dma_seen; }

/* Waits until cond() or for max_ns of wall time: a short spin, then sleeps on
 * the wake-up eventfd (the daemon writes it after publishing).  True when
 * cond() holds. */
static bool lc__wait(bool (*cond)(void), uint64_t max_ns)
{
    uint64_t t0 = lc__mono_ns(), end = max_ns > UINT64_MAX - t0 ? UINT64_MAX : t0 + max_ns;
    while (lc__mono_ns() - t0 < lc__spin_ns)
        if (cond()) return true;
    for (;;) {
        uint64_t v;
        (void)!read(lc.wake, &v, sizeof v); /* drained before the check: a later publish still wakes us */
        if (cond()) return true;
        uint64_t now = lc__mono_ns();
        if (now >= end) return false;
        uint64_t dt = end - now > 100000000u ? 100000000u : end - now; /* look again at least every 0.1 s */
        struct timespec ts = {(time_t)(dt / 1000000000u), (long)(dt % 1000000000u)};
        struct pollfd pf[2] = {{.fd = lc.wake, .events = POLLIN}, {.fd = lc.sock, .events = POLLIN}};
        int rc = ppoll(pf, 2, &ts, NULL);
        if (rc > 0 && (pf[1].revents & (POLLHUP | POLLERR | POLLIN))) {
            char b;
            if (recv(lc.sock, &b, 1, MSG_DONTWAIT | MSG_PEEK) == 0) return cond(); /* the daemon is gone */
        }
    }
}

static void lc__sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- the host interface ------------------------------------------------------------------ */

static myri_status lc__pio_read(void *h, int unit, uint32_t addr, void *dst, size_t n)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    if (!dst || addr > lc.hello.sram_bytes || n > lc.hello.sram_bytes - addr) return MYRI_ERANGE;
    if (!lc__all_landed()) {
        uint64_t one = 1;
        (void)!write(lc.bell, &one, sizeof one);
        (void)lc__wait(lc__all_landed, 1000000000u);
    }
    uint8_t *d = dst;
    size_t i = 0;
    for (; i < n && ((addr + i) & 3); i++) d[i] = atomic_load_explicit((_Atomic uint8_t *)(lc.sram + addr + i),
                                                                        memory_order_relaxed);
    for (; i + 4 <= n; i += 4) { /* whole SRAM words: one relaxed 32-bit load each (no torn word) */
        uint32_t w = atomic_load_explicit((_Atomic uint32_t *)(lc.sram + addr + i), memory_order_relaxed);
        memcpy(d + i, &w, 4);
    }
    for (; i < n; i++) d[i] = atomic_load_explicit((_Atomic uint8_t *)(lc.sram + addr + i), memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    return MYRI_OK;
}

static myri_status lc__pio_write(void *h, int unit, uint32_t addr, const void *src, size_t n)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    if (!src || addr > lc.hello.sram_bytes || n > lc.hello.sram_bytes - addr) return MYRI_ERANGE;
    const uint8_t *p = src;
    uint64_t one = 1;
    while (n > 0) {
        if (!lc__ring_room()) {
            (void)!write(lc.bell, &one, sizeof one);
            if (!lc__wait(lc__ring_room, 1000000000u)) return MYRI_ETIMEDOUT;
        }
        uint32_t k = n > MYRI_LIVE_CMD_DATA ? MYRI_LIVE_CMD_DATA : (uint32_t)n;
        myri_live_cmd *c = &lc.ctl->cmd[lc.head & (MYRI_LIVE_RING - 1)];
        c->kind = MYRI_LIVE_CMD_PIO_WRITE;
        c->unit = 0;
        c->sram_off = addr;
        c->len = k;
        memcpy(c->data, p, k);
        lc.head++;
        atomic_store_explicit((_Atomic uint32_t *)&lc.ctl->head, lc.head, memory_order_release);
        addr += k;
        p += k;
        n -= k;
    }
    (void)!write(lc.bell, &one, sizeof one);
    return MYRI_OK;
}

static myri_status lc__dma_region(void *h, int unit, uint8_t **base, uint64_t *bus_addr, uint64_t *bytes)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    *base = lc.mem + 4096;
    *bus_addr = 4096;
    *bytes = lc.hello.mem_bytes - 4096;
    return MYRI_OK;
}

static myri_status lc__wait_dma(void *h, myri_time_ps max_ps)
{
    (void)h;
    bool got = lc__wait(lc__dma_new, lc__wall_ns(max_ps));
    lc.dma_seen = lc__dma_gen();
    return got ? MYRI_OK : MYRI_ETIMEDOUT;
}

static void lc__spend(void *h, myri_time_ps ps)
{
    (void)h;
    lc__sleep_ns(lc__wall_ns(ps));
}

static myri_time_ps lc__now(void *h)
{
    (void)h;
    uint64_t w = lc__mono_ns();
    return w <= lc.wall0_ns ? 0 : (myri_time_ps)((double)(w - lc.wall0_ns) * 1000.0 * lc.speed);
}

static int lc__self(void *h)
{
    (void)h;
    return (int)getpid();
}

static myri_status lc__seg_attach(void *h, int unit, size_t bytes, void (*on_leave)(void *, int), void **seg,
                                  bool *first)
{
    (void)h;
    if (unit != 0) return MYRI_ENOTFOUND;
    *first = false;
    if (bytes > lc.hello.seg_bytes) return MYRI_EINVAL;
    *seg = lc.seg;
    if (lc.attached) return MYRI_ESTATE;
    lc.attached = true;
    lc.on_leave = on_leave;
    *first = lc.hello.first != 0;
    return MYRI_OK;
}

static void *lc__seg_find(void *h, int unit)
{
    (void)h;
    return unit == 0 && lc.attached ? lc.seg : NULL;
}

/* The daemon's NICs run their firmware from the start: loading the same one is accepted. */
static myri_status lc__load_mcp(void *h, int unit, const char *name)
{
    (void)h;
    return unit == 0 && name && !strcmp(name, lc.hello.firmware) ? MYRI_OK : MYRI_ENOTFOUND;
}

static bool lc__alive(void *h, int id)
{
    (void)h;
    return id > 0 && (kill((pid_t)id, 0) == 0 || errno == EPERM);
}

static const myri_hostif_ops lc__ops = {lc__pio_read, lc__pio_write, lc__dma_region, lc__wait_dma,
                                        lc__spend,    lc__now,       lc__self,       lc__seg_attach,
                                        lc__seg_find, lc__load_mcp,  lc__alive,   NULL};

int myri_live_wake_fd(void) { return lc.up ? lc.wake : -1; }

static myri_hostif *lc__provider(void) { return lc.up ? &lc.hi : NULL; }

/* ---- <myri/prog.h> in real time ------------------------------------------------------------ */

int myri_prog_host(void) { return lc.up ? (int)lc.hello.host : -1; }
int myri_prog_nhosts(void) { return lc.up ? (int)lc.hello.nhosts : -1; }

/* Live: every host of the scenario (the live entry's peers are not told apart). */
int myri_prog_group(int *hosts, int max)
{
    if (!lc.up) return -1;
    for (int i = 0; i < (int)lc.hello.nhosts && i < max; i++) hosts[i] = i;
    return (int)lc.hello.nhosts;
}

int myri_prog_route(int to, char *route, int max)
{
    if (!lc.up || to < 0 || (uint32_t)to >= lc.hello.nhosts || to >= (int)MYRI_LIVE_MAX_HOSTS || max < 0) return -1;
    myri_live_route r = lc.ctl->route[to];
    if (!r.known || r.len > MYRI_LIVE_ROUTE_MAX || (int)r.len > max) return -1;
    memcpy(route, r.byte, r.len);
    return (int)r.len;
}

uint64_t myri_prog_now_ps(void) { return lc.up ? lc__now(NULL) : 0; }
double myri_prog_now_us(void) { return (double)myri_prog_now_ps() / 1e6; }

void myri_prog_sleep_us(double us)
{
    if (lc.up && us > 0 && isfinite(us)) lc__sleep_ns((uint64_t)(us * 1000.0 / lc.speed));
}

/* Computing is the real CPU's time: the simulated time it stands for passes busy. */
void myri_prog_compute_us(double us)
{
    if (!lc.up || !(us > 0) || !isfinite(us)) return;
    uint64_t end = lc__mono_ns() + (uint64_t)(us * 1000.0 / lc.speed);
    while (lc__mono_ns() < end) {
    }
}

/* Live: copying costs the real CPU's own time; nothing to charge. */
void myri_prog_copy_cost(size_t bytes) { (void)bytes; }

int myri_prog_recv_wait(int unit, int chan, double timeout_us)
{
    if (!lc.up) return -1;
    uint64_t t0 = lc__mono_ns(), max_ns = timeout_us > 0 ? (uint64_t)(timeout_us * 1000.0 / lc.speed) : 0;
    for (;;) {
        uint64_t gen = lc__dma_gen();
        int rc = myri_api0_recv_poll(unit, chan);
        if (rc != 0) return rc;
        uint64_t el = lc__mono_ns() - t0;
        if (el >= max_ns) return 0;
        lc.dma_seen = gen; /* wait for a host-memory write after this poll */
        (void)lc__wait_dma(NULL, (myri_time_ps)((double)(max_ns - el) * 1000.0 * lc.speed));
    }
}

/* A stream keyed by the host (splitmix64): deterministic per host, not the simulator's. */
uint64_t myri_prog_random(void)
{
    uint64_t z = (lc.rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
uint64_t myri_prog_random_below(uint64_t n) { return n ? myri_prog_random() % n : 0; }
double myri_prog_random_exp(double mean)
{
    double u = ((double)(myri_prog_random() >> 11) + 1.0) / 9007199254740993.0;
    return -mean * log(u);
}

/* Live: plain zeroed memory, freed when the process exits. */
void *myri_prog_alloc(size_t bytes) { return lc.up && bytes ? calloc(1, bytes) : NULL; }

/* Live: printed on stdout as "myri-live: HOST KEY = VALUE". */
int myri_prog_report(const char *key, double value)
{
    if (!lc.up || !key || !key[0] || strlen(key) > 64) return -1;
    printf("myri-live: h%u %s = %.6g\n", lc.hello.host, key, value);
    fflush(stdout);
    return 0;
}

/* ---- connecting and main ------------------------------------------------------------------- */

static int lc__recv_hello(int s, int *fds)
{
    union {
        char buf[CMSG_SPACE(sizeof(int) * MYRI_LIVE_NFDS)];
        struct cmsghdr align;
    } u;
    struct iovec iov = {.iov_base = &lc.hello, .iov_len = sizeof lc.hello};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    ssize_t got;
    while ((got = recvmsg(s, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    if (got != (ssize_t)sizeof lc.hello || lc.hello.magic != MYRI_LIVE_MAGIC || lc.hello.version != MYRI_LIVE_VERSION)
        return -1;
    lc.hello.firmware[sizeof lc.hello.firmware - 1] = '\0';
    if (lc.hello.status != 0) return -2;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int) * MYRI_LIVE_NFDS)) return -1;
    memcpy(fds, CMSG_DATA(cm), sizeof(int) * MYRI_LIVE_NFDS);
    return 0;
}

static void *lc__map(int fd, uint64_t bytes, int prot)
{
    void *p = mmap(NULL, bytes, prot, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? NULL : p;
}

/* Connects to DIR/HOST.sock and maps the board.  0, or -1 with a message printed. */
static int lc__connect(const char *dir, const char *host)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int n = snprintf(a.sun_path, sizeof a.sun_path, "%s/%s.sock", dir, host);
    if (n < 0 || (size_t)n >= sizeof a.sun_path) {
        fprintf(stderr, "myri-live: %s/%s.sock: path too long\n", dir, host);
        return -1;
    }
    lc.sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lc.sock < 0 || connect(lc.sock, (struct sockaddr *)&a, sizeof a) != 0) {
        fprintf(stderr, "myri-live: cannot connect to %s: %s (is `myri live` running with --dir %s?)\n", a.sun_path,
                strerror(errno), dir);
        return -1;
    }
    int fds[MYRI_LIVE_NFDS];
    int rc = lc__recv_hello(lc.sock, fds);
    if (rc != 0) {
        fprintf(stderr, "myri-live: %s: %s\n", a.sun_path,
                rc == -2 ? lc.hello.firmware : "not a myri live daemon of this version");
        return -1;
    }
    lc.sram = lc__map(fds[0], lc.hello.sram_bytes, PROT_READ);
    lc.mem = lc__map(fds[1], lc.hello.mem_bytes, PROT_READ | PROT_WRITE);
    lc.seg = lc__map(fds[2], lc.hello.seg_bytes, PROT_READ | PROT_WRITE);
    lc.ctl = lc__map(fds[3], sizeof(myri_live_ctl), PROT_READ | PROT_WRITE);
    lc.bell = fds[4];
    lc.wake = fds[5];
    if (!lc.sram || !lc.mem || !lc.seg || !lc.ctl || lc.hello.mem_bytes <= 4096 ||
        lc.hello.ctl_bytes != sizeof(myri_live_ctl) || lc.ctl->magic != MYRI_LIVE_MAGIC) {
        fprintf(stderr, "myri-live: %s: cannot map the board's memory\n", a.sun_path);
        return -1;
    }
    lc.head = atomic_load_explicit((_Atomic uint32_t *)&lc.ctl->head, memory_order_relaxed);
    lc.dma_seen = lc__dma_gen();
    lc.wall0_ns = lc.ctl->wall0_ns;
    lc.speed = lc.ctl->speed_milli ? (double)lc.ctl->speed_milli / 1000.0 : 1.0;
    lc.costs = (myri_hostif_costs){.call_ps = 0, .poll_gap_ps = lc.hello.poll_gap_ps,
                                   .init_timeout_ps = lc.hello.init_timeout_ps, .lock_spin_ps = lc.hello.lock_spin_ps,
                                   .lock_timeout_ps = lc.hello.lock_timeout_ps};
    lc.hi = (myri_hostif){.ops = &lc__ops, .h = &lc, .costs = &lc.costs};
    lc.rng = 0x6d797269ull ^ ((uint64_t)lc.hello.host << 32);
    lc.up = true;
    myri_hostif_set_provider(lc__provider);
    return 0;
}

/* Takes --myri-host NAME and --myri-dir DIR (also as --opt=value) out of argv. */
static int lc__args(int *argc, char **argv, const char **host, const char **dir)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char **slot = !strncmp(argv[i], "--myri-host", 11) ? host : !strncmp(argv[i], "--myri-dir", 10) ? dir : NULL;
        const char *eq = strchr(argv[i], '=');
        size_t len = strlen(slot == host ? "--myri-host" : "--myri-dir");
        if (!slot || (argv[i][len] != '\0' && argv[i][len] != '=')) {
            argv[out++] = argv[i];
            continue;
        }
        if (eq) *slot = eq + 1;
        else if (i + 1 < *argc) *slot = argv[++i];
        else return -1;
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

int main(int argc, char **argv)
{
    const char *host = getenv("MYRI_HOST"), *dir = getenv("MYRI_DIR");
    if (lc__args(&argc, argv, &host, &dir) != 0 || !host || !host[0] || !dir || !dir[0]) {
        fprintf(stderr, "usage: %s --myri-host HOST --myri-dir DIR [program arguments]\n"
                        "  (or MYRI_HOST, MYRI_DIR): attach to HOST of `myri live ... --dir DIR` (docs/LIVE.md)\n",
                argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    const char *spin = getenv("MYRI_LIVE_SPIN_US");
    if (spin && spin[0]) lc__spin_ns = (uint64_t)(strtod(spin, NULL) * 1000.0 > 0 ? strtod(spin, NULL) * 1000.0 : 0);
    if (lc__connect(dir, host) != 0) return 2;
    int rc = myri_main(argc, argv);
    if (lc.attached && lc.on_leave) lc.on_leave(lc.seg, lc__self(NULL));
    lc.up = false;
    close(lc.sock);
    return rc;
}
