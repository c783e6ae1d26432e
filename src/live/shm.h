/* shm.h -- what the live daemon (daemon.c) and a live client (libmyri-live,
 * src/live/client/) share: the hello message on the host's Unix socket and
 * the layout of the control region (docs/LIVE.md, "Shared memory").
 *
 * Per connection the daemon passes six descriptors (SCM_RIGHTS), in order:
 *   0 sram   the board's SRAM, sealed against writes (F_SEAL_FUTURE_WRITE):
 *            the client maps it read-only and reads it directly (PIO reads);
 *   1 mem    the host memory of the board: a 4 KiB guard, then the DMA region
 *            at bus address MYRI_HOST_DMA_BUS (read and written by both);
 *   2 seg    the API's shared segment of this host (one per host, every client
 *            of the host maps the same; api0.c's api0__seg);
 *   3 ctl    this connection's control region (struct myri_live_ctl);
 *   4 bell   an eventfd the client writes after publishing ring entries;
 *   5 wake   an eventfd the daemon writes when it published something the
 *            client may wait for (ring room, writes landed, host memory written).
 * Every region is sealed against shrinking and growing (a client cannot make
 * the daemon's mapping fault).  Nothing in shared memory is a pointer; every
 * index is masked; the daemon copies a ring entry out once, then checks it,
 * then uses its copy (myri_live_cmd_check), and never reads back what it
 * publishes.
 *
 * Ordering, per field (C11 atomics on the shared words, docs/LIVE.md):
 *   head      written by the client with a release store after it has filled
 *             the entry; read by the daemon with an acquire load.
 *   tail      written by the daemon (release) after it has copied entries out;
 *             the client reads it (acquire) to find room.
 *   landed    the ring index up to which PIO writes have landed in SRAM
 *             (release by the daemon); the client waits for it before a PIO
 *             read, so that a read after a write sees the write, as on the bus.
 *   dma_gen   bumped (release) after the NIC's host DMA wrote host memory; the
 *             client's wait for the NIC compares it (acquire).
 *   sim_now_ps the simulated time the daemon has reached (release; a hint).
 *   SRAM and host memory bytes: plain bytes ordered by those words (the
 *             daemon's release store of landed/dma_gen after its writes, the
 *             client's acquire load before its reads); the client reads SRAM
 *             words with relaxed 32-bit atomic loads.
 */
#ifndef MYRI_LIVE_SHM_H
#define MYRI_LIVE_SHM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MYRI_LIVE_MAGIC 0x4d594c56u /* "MYLV" */
#define MYRI_LIVE_VERSION 1u
#define MYRI_LIVE_RING 256u         /* ring entries (a power of two) */
#define MYRI_LIVE_CMD_DATA 240u     /* bytes of one PIO write entry; longer writes take several */
#define MYRI_LIVE_ROUTE_MAX 32u     /* route bytes kept per peer */
#define MYRI_LIVE_MAX_HOSTS 256u    /* peers whose routes the control region holds */
#define MYRI_LIVE_NFDS 6

enum { MYRI_LIVE_CMD_PIO_WRITE = 1 };

/* One ring entry: a PIO write of len bytes at SRAM offset sram_off of board unit. */
typedef struct myri_live_cmd {
    uint32_t kind, unit, sram_off, len;
    uint8_t data[MYRI_LIVE_CMD_DATA];
} myri_live_cmd;

typedef struct myri_live_route {
    uint32_t len; /* 0: point-to-point or none (see known) */
    uint32_t known;
    uint8_t byte[MYRI_LIVE_ROUTE_MAX];
} myri_live_route;

/* The control region of one connection. */
typedef struct myri_live_ctl {
    /* written once by the daemon before the hand-over */
    uint32_t magic, version, ring, cmd_data;
    uint64_t wall0_ns;     /* CLOCK_MONOTONIC at simulated time 0 */
    uint64_t speed_milli;  /* live.speed x 1000 (simulated seconds per wall second) */
    _Alignas(64) uint32_t head;   /* client: entries published (mod 2^32) */
    _Alignas(64) uint32_t tail;   /* daemon: entries copied out */
    uint32_t landed;              /* daemon: entries whose bytes are in SRAM */
    uint64_t dma_gen;             /* daemon: host-memory writes by the NIC */
    uint64_t sim_now_ps;          /* daemon: simulated time reached */
    _Alignas(64) myri_live_route route[MYRI_LIVE_MAX_HOSTS];
    _Alignas(64) myri_live_cmd cmd[MYRI_LIVE_RING];
} myri_live_ctl;

/* The daemon's hello, sent with the descriptors. */
typedef struct myri_live_hello {
    uint32_t magic, version;
    uint32_t host, nhosts;
    uint32_t first;        /* 1: no other client is attached to this host (the segment was cleared) */
    uint32_t status;       /* 0 ok; else the connection is refused (reason in `firmware`) */
    uint64_t sram_bytes, mem_bytes, seg_bytes, ctl_bytes;
    uint64_t init_timeout_ps, lock_timeout_ps, poll_gap_ps, lock_spin_ps;
    char firmware[64];
} myri_live_hello;

/* Checks a ring entry copied out of shared memory against a board of
 * sram_bytes: 0 when it is a PIO write inside SRAM of unit 0, else -1. */
int myri_live_cmd_check(const myri_live_cmd *c, uint64_t sram_bytes);

/* libmyri-live (client side): the wake-up eventfd of this process's
 * connection (readable after the daemon published something this client may
 * wait for: a host-memory write by the NIC, landed PIO writes), or -1 before
 * it attached.  For a client that waits in its own poll loop (the IP driver,
 * src/live/ip_driver.c): drain it before looking, then sleep on it. */
int myri_live_wake_fd(void);

#ifdef __cplusplus
}
#endif

#endif
