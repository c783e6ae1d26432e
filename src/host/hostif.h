/* hostif.h -- the host interface the API (api0.c) is written against: what a
 * program on a host can do to reach its Myrinet board.  The simulated host
 * (host.c) implements it over the LANai model and the I/O bus; a live mode
 * can implement it over mapped memory.  api0.c includes only this header,
 * common/hcb.h, common/lanai_regs.h and include/myri headers.
 *
 * Every call is made by the running program (the one whose hostif
 * myri_hostif_current returns) and may take simulated time: the program is
 * suspended and resumed in later engine events.
 *
 * Time unit: picoseconds.
 */
#ifndef MYRI_HOST_HOSTIF_H
#define MYRI_HOST_HOSTIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "myri/sim.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Host CPU costs the API charges (the host.* parameters, docs/HOST.md). */
typedef struct myri_hostif_costs {
    myri_time_ps call_ps;       /* every API call: entry, checks, bookkeeping */
    myri_time_ps poll_gap_ps;   /* init/handshake polling loops: time between two SRAM reads */
    myri_time_ps init_timeout_ps; /* how long init and handshake wait for the MCP */
    myri_time_ps lock_spin_ps;  /* one turn of the lock's spin loop */
    myri_time_ps lock_timeout_ps; /* how long lock waits for another program */
} myri_hostif_costs;

typedef struct myri_hostif_ops {
    /* PIO: copy n bytes of board unit's SRAM at sram_addr into dst / from
     * src.  Crosses the I/O bus (booked, the program waits until its access
     * is done).  MYRI_ERANGE outside SRAM, MYRI_ENOTFOUND no such unit. */
    myri_status (*pio_read)(void *h, int unit, uint32_t sram_addr, void *dst, size_t n);
    myri_status (*pio_write)(void *h, int unit, uint32_t sram_addr, const void *src, size_t n);
    /* The board's DMA-able region in host memory: *base (host pointer),
     * *bus_addr (the address the NIC's host DMA uses for base[0]), *bytes. */
    myri_status (*dma_region)(void *h, int unit, uint8_t **base, uint64_t *bus_addr, uint64_t *bytes);
    /* Waits until the NIC writes host memory (a to-host DMA lands) or max_ps
     * passes: MYRI_OK when something was written, MYRI_ETIMEDOUT.  Waiting on
     * host memory costs no bus time. */
    myri_status (*wait_dma)(void *h, myri_time_ps max_ps);
    /* Spends ps of host CPU time (the program runs for it). */
    void (*spend)(void *h, myri_time_ps ps);
    myri_time_ps (*now)(void *h);
    /* The running program's id (> 0, unique on the host while it runs). */
    int (*self)(void *h);
    /* Attaches the running program to board unit's shared segment of `bytes`
     * (zero-filled when created): *seg; *first = true when no other program
     * is attached (the counting semaphore).  When the program ends, its
     * attachments are undone: on_leave(seg, id) is called first (in the
     * program, may do PIO), and the segment is freed with its last user.
     * MYRI_ENOTFOUND: no such board; MYRI_ESTATE: attached already (*seg is
     * set, *first false); MYRI_EINVAL: bytes differs from the segment's. */
    myri_status (*seg_attach)(void *h, int unit, size_t bytes, void (*on_leave)(void *seg, int id), void **seg,
                              bool *first);
    /* The segment of board unit if the running program is attached, else NULL. */
    void *(*seg_find)(void *h, int unit);
    /* Loads the MCP named `name` into board unit and starts it (the board's
     * SRAM is rewritten: the HCB pointer reads 0 until the MCP sets it).
     * MYRI_ENOTFOUND: no MCP of that name. */
    myri_status (*load_mcp)(void *h, int unit, const char *name);
    /* Optional (NULL: every id is alive): whether the program of id still
     * runs.  Live mode (real processes: ids are pids) answers it, so that the
     * API recovers the lock of a process that died holding it. */
    bool (*alive)(void *h, int id);
    /* Optional (NULL: nothing to do): before the API reads host memory that
     * the NIC writes (a DMA-notified count, a VIA descriptor's status), lets
     * the CPU time spent so far pass, so that the read happens at the
     * program's own time (the simulated host sleeps its CPU time lazily). */
    void (*sync)(void *h);
} myri_hostif_ops;

typedef struct myri_hostif {
    const myri_hostif_ops *ops;
    void *h;                          /* the implementation's state, passed to every op */
    const myri_hostif_costs *costs;
} myri_hostif;

/* The hostif of the running program, or NULL when called from outside any
 * program.  The implementation in use installs its provider. */
myri_hostif *myri_hostif_current(void);
/* Installs the provider (NULL: none, myri_hostif_current returns NULL). */
void myri_hostif_set_provider(myri_hostif *(*fn)(void));

#ifdef __cplusplus
}
#endif

#endif
