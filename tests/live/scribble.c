/* scribble.c -- a live client gone wrong, for tests/scenario/live_scribble.sh:
 * built with libmyri-live like any program, it initialises the API on its
 * host, then writes random bytes over the shared memory the daemon gave it
 * (found by name in /proc/self/maps: the control region with the command
 * ring, the API segment, the host memory).  First it publishes random ring
 * entries with a well-formed ring index (the daemon must drop them one by
 * one), then scribbles over everything, the ring index included (the daemon
 * must disconnect it), and keeps the API busy for a while.  Arguments:
 * seed=N (default 1), ms=N how long it scribbles (default 500). */
#include <myri/api0.h>
#include <myri/prog.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>

#include "live/shm.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* The first writable shared mapping whose name contains `what`, and its length. */
static uint8_t *find(const char *what, size_t *len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return NULL;
    char line[512];
    uint8_t *p = NULL;
    while (!p && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perm[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) != 3 || !strstr(line, what) || perm[1] != 'w') continue;
        p = (uint8_t *)lo;
        *len = hi - lo;
    }
    fclose(f);
    return p;
}

static int scribble(const char *what)
{
    size_t len = 0;
    uint8_t *p = find(what, &len);
    for (size_t i = 0; p && i < len; i++) p[i] = (uint8_t)next();
    return p != NULL;
}

int myri_main(int argc, char **argv)
{
    long ms = 500;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "seed=", 5)) rng ^= strtoull(argv[i] + 5, NULL, 10) * 0x9e3779b97f4a7c15ull;
        if (!strncmp(argv[i], "ms=", 3)) ms = strtol(argv[i] + 3, NULL, 10);
    }
    int rc = myri_api0_init(0, 0, 0, NULL);
    printf("scribble: init %s\n", myri_api0_strname(rc));
    /* the SRAM mapping cannot be made writable (sealed F_SEAL_FUTURE_WRITE) */
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (!strstr(line, "myri-sram") || sscanf(line, "%lx-%lx", &lo, &hi) != 2) continue;
        printf("scribble: sram %s\n", mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE) == 0 ? "WRITABLE" : "stays read-only");
    }
    if (f) fclose(f);
    /* random entries behind a well-formed index: dropped one by one */
    size_t len = 0;
    myri_live_ctl *ctl = (myri_live_ctl *)find("myri-ctl", &len);
    if (!ctl || len < sizeof *ctl) return 2;
    for (size_t i = 0; i < sizeof ctl->cmd; i++) ((uint8_t *)ctl->cmd)[i] = (uint8_t)next();
    uint32_t head = __atomic_load_n(&ctl->head, __ATOMIC_RELAXED);
    __atomic_store_n(&ctl->head, head + MYRI_LIVE_RING / 2, __ATOMIC_RELEASE);
    myri_prog_sleep_us(50000);
    /* then everything, the index included */
    int regions = scribble("myri-seg") + scribble("myri-mem") + scribble("myri-ctl");
    printf("scribble: %d regions scribbled\n", regions);
    myri_api0_handshake(0); /* goes nowhere: the daemon has let this client go */
    myri_prog_sleep_us((double)ms * 1000.0);
    fflush(stdout);
    return regions == 3 ? 0 : 1;
}
