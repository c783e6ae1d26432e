/* host.h -- the simulated host: host memory with one DMA region per board,
 * the host interface (hostif.h) over the LANai model and the I/O bus, and
 * programs (`int main(int argc, char **argv)`, include/myri/prog.h) run as
 * processes in simulated time.  See docs/HOST.md.
 *
 * Costs: every PIO read books the board's bus (bus.pio_read a 4-byte word)
 * and the program waits for it; PIO writes are posted in merged bursts
 * (bus.pio_merge, bus.pio_write + bus.pio_word) and the program waits only
 * when bus.pio_posted of them are under way; waiting on host memory
 * (myri_prog_recv_wait, hostif wait_dma) books nothing and is fast-forwarded
 * to the next write of host memory by the NIC's host DMA; API calls and
 * program computation spend host CPU time (host.* parameters).
 *
 * Time unit: picoseconds.
 */
#ifndef MYRI_HOST_HOST_H
#define MYRI_HOST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/hostif.h"
#include "myri/config.h"
#include "myri/sim.h"
#include "nic/bus.h"
#include "nic/lanai.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_host_params {
    myri_time_ps api_call_ps;     /* host.api_call */
    double copy_Bps;              /* host.copy_rate (bytes/s) */
    uint64_t dma_bytes;           /* host.dma_region */
    myri_time_ps poll_gap_ps;     /* host.init_poll */
    myri_time_ps init_timeout_ps; /* host.init_timeout */
    myri_time_ps lock_spin_ps;    /* host.lock_spin */
    myri_time_ps lock_timeout_ps; /* host.lock_timeout */
    uint64_t stack_bytes;         /* host.stack */
    myri_time_ps wall_limit_ps;   /* host.wall_limit: wall-clock time a program may run without yielding */
    uint64_t alloc_limit_bytes;   /* host.alloc_limit: myri_prog_alloc bytes per host */
} myri_host_params;

extern const myri_param myri_host_param_table[];
extern const size_t myri_host_nparams;
/* The table's defaults (the alpha-pci-1998 preset). */
void myri_host_params_default(myri_host_params *p);

typedef struct myri_host myri_host;
typedef struct myri_program myri_program;
typedef int (*myri_prog_main)(int argc, char **argv);

/* What the job tells every program (prog.h): the number of hosts, the route
 * bytes between two hosts (returns the count, or -1), where reports go
 * (optional: they are also kept with the program). */
typedef struct myri_host_env {
    uint32_t nhosts;
    int (*route)(void *ctx, uint32_t from, uint32_t to, uint8_t *bytes, int max);
    void (*report)(void *ctx, const myri_program *p, const char *key, double value);
    void *ctx;
    /* optional: called when a program's main has returned (its end time set) */
    void (*exit)(void *ctx, const myri_program *p);
    /* optional (0: the running myri_sim_run's horizon): the end of the whole run, up to which a PIO read
     * may be booked ahead; a run cut into partitions runs in windows whose horizons must not decide it */
    myri_time_ps end_ps;
} myri_host_env;

/* Creates host number `index` named `name` (a component of sim, destroyed
 * with it).  The env is copied (may be NULL: one host, no routes). */
myri_status myri_host_create(myri_sim *sim, const char *name, uint32_t index, const myri_host_params *p,
                             const myri_host_env *env, myri_host **out);
/* Puts board `unit` (0 .. MYRI_API0_MAX_UNITS - 1) in the host: its LANai and
 * the bus they share.  Allocates the board's host memory (a 4 KiB guard,
 * then the DMA region of host.dma_region bytes at bus address 4096), gives it
 * to the LANai's host DMA and takes its host-write notices. */
myri_status myri_host_add_board(myri_host *h, int unit, myri_lanai *l, myri_bus *bus);
/* The same with the board's host memory given by the caller: `mem` holds
 * myri_host_board_mem_bytes(h) bytes (the guard, then the DMA region at bus
 * address 4096 = MYRI_HOST_DMA_BUS) and outlives the host (live mode: a
 * mapping shared with a real process). */
myri_status myri_host_add_board_mem(myri_host *h, int unit, myri_lanai *l, myri_bus *bus, uint8_t *mem);
uint64_t myri_host_board_mem_bytes(const myri_host *h);
#define MYRI_HOST_DMA_BUS 4096u
/* Told of every write of host memory by the NIC's host DMA (after the
 * host's waiting programs are woken).  One listener; NULL removes it. */
myri_status myri_host_set_dma_listener(myri_host *h, void (*fn)(void *ctx, uint64_t bus_addr, uint32_t bytes),
                                       void *ctx);
/* A PIO write of n bytes at SRAM addr made by no simulated program (live
 * mode: a real process's write, entering now): booked on the board's bus in
 * the blocks the write buffer merges, landing at their ends, as posted
 * writes do.  MYRI_ENOTFOUND no board, MYRI_ERANGE outside SRAM. */
myri_status myri_host_pio_external(myri_host *h, int unit, uint32_t addr, const uint8_t *src, uint32_t n);
/* Posted PIO write blocks of board unit not yet landed in SRAM. */
size_t myri_host_pio_pending(const myri_host *h, int unit);
/* How myri_api0_init's mcp_code is loaded on this host (the job's firmware
 * registry); without one, loading fails with MYRI_API0_ENOMCP. */
myri_status myri_host_set_mcp_loader(myri_host *h, myri_status (*load)(void *ctx, int unit, const char *name),
                                     void *ctx);

/* Starts program `main` named `name` on host h at at_ps (>= now) with
 * argv[0] = name followed by the argc strings of args (copied).  Several
 * programs may run on one host: they share its boards (the first user
 * initialises).  *out (optional) stays valid until the simulation is destroyed. */
myri_status myri_host_run(myri_host *h, const char *name, myri_prog_main main, int argc, const char *const *args,
                          myri_time_ps at_ps, myri_program **out);

/* The hosts program p's entry runs on (myri_prog_group), copied; every host
 * by default.  MYRI_EINVAL for a host out of range. */
myri_status myri_program_set_group(myri_program *p, const uint32_t *hosts, size_t n);

/* n bytes of board unit's SRAM at addr as the host's writes leave them:
 * with the posted PIO writes still on their way (at the end of a run)
 * applied.  Reads nothing through the bus and costs no time. */
myri_status myri_host_sram_view(const myri_host *h, int unit, uint32_t addr, uint8_t *out, uint32_t n);

uint32_t myri_host_index(const myri_host *h);
size_t myri_host_nprograms(const myri_host *h);
myri_program *myri_host_program(const myri_host *h, size_t i);

/* A program: whether it returned, its exit code, its reports in order. */
bool myri_program_done(const myri_program *p);
/* Why the program was ended without returning (a fault, exit(), the
 * wall-clock guard), in words; NULL if main returned. */
const char *myri_program_fault(const myri_program *p);
int myri_program_exit_code(const myri_program *p);
/* The time main returned (0 while it runs). */
myri_time_ps myri_program_end_ps(const myri_program *p);
const char *myri_program_name(const myri_program *p);
myri_host *myri_program_host(const myri_program *p);
size_t myri_program_nreports(const myri_program *p);
myri_status myri_program_report(const myri_program *p, size_t i, const char **key, double *value);
/* The last report under key (MYRI_ENOTFOUND if none). */
myri_status myri_program_report_get(const myri_program *p, const char *key, double *value);

typedef struct myri_host_stats {
    uint64_t pio_reads, pio_writes;       /* PIO accesses (calls) */
    uint64_t pio_read_bytes, pio_write_bytes;
    myri_time_ps pio_ps;                  /* program time spent in PIO (bus wait + transfer) */
    myri_time_ps cpu_ps;                  /* API calls and computation */
    uint64_t dma_wakes;                   /* host-memory writes by the NIC that woke a waiting program */
    uint64_t fast_polls;                  /* empty polls not simulated one by one (recv_wait) */
} myri_host_stats;
myri_status myri_host_get_stats(const myri_host *h, myri_host_stats *out);

/* Built-in programs (src/host/programs.c) by name: pingpong, latency,
 * stream, traffic.  NULL if unknown; myri_program_names lists them. */
myri_prog_main myri_program_find(const char *name);
/* The VIA programs (via_programs.c), for the lcp and myricom firmwares. */
int myri_program_via_stream(int argc, char **argv);
int myri_program_via_poisson(int argc, char **argv);
int myri_program_via_duplex(int argc, char **argv);
int myri_program_via_selftest(int argc, char **argv);
const char *myri_program_names(void);
/* Checks, before the run, that built-in program `name` can run as an entry
 * of `ngroup` hosts with these argument words on firmware `firmware` (mcp,
 * lcp, myricom...): known keys, well-formed values, the host count the
 * program needs.  0, or -1 with the reason in why (for a FILE:LINE:COL
 * message); `*bad_arg` the index of the word at fault, or -1. */
int myri_program_check(const char *name, const char *firmware, size_t ngroup, int argc, const char *const *argv,
                       int *bad_arg, char *why, size_t why_bytes);

#ifdef __cplusplus
}
#endif

#endif
