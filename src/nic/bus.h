/* bus.h -- the host's I/O bus (PCI, SBus) between host memory, the host CPU
 * and the NIC: one transfer at a time, booked in the order asked for.
 *
 * Two users share it: the NIC's host DMA (in bursts of bus.burst bytes at
 * bus.dma_rate, after bus.dma_setup per transfer) and the host CPU's PIO
 * reads and writes of the NIC's SRAM: a read (bus.pio_read per 4-byte word)
 * holds the bus for its round trip and the CPU waits; writes are posted: the
 * CPU's write buffer merges consecutive stores into aligned blocks of
 * bus.pio_merge bytes, each one burst of bus.pio_write + bus.pio_word per
 * further word, and the CPU waits only when bus.pio_posted of them are under
 * way (host.c books them and lands the bytes when the bus has carried them).  A DMA books one burst at a time, when the previous one ends, so a
 * PIO read asked for during a burst goes next and the DMA's following burst
 * waits for it: this is the interference seed 001 describes ("the host's
 * rapid polling of SRAM ... was interfering with DMA from the host to the
 * SRAM"), which its DMA receive notification avoids.
 *
 * Time unit: picoseconds.  The bus is passive: it has no events of its own.
 */
#ifndef MYRI_NIC_BUS_H
#define MYRI_NIC_BUS_H

#include <stddef.h>
#include <stdint.h>

#include "myri/config.h"
#include "myri/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_bus_params {
    double dma_rate_Bps;        /* bus.dma_rate: bytes/s while a DMA burst moves */
    uint64_t burst_bytes;       /* bus.burst: bytes per DMA burst (one booking) */
    myri_time_ps dma_setup_ps;  /* bus.dma_setup: from the DMA_CTR write to the first burst */
    myri_time_ps pio_read_ps;   /* bus.pio_read: one 4-byte PIO read, round trip (the CPU waits) */
    myri_time_ps pio_write_ps;  /* bus.pio_write: a one-word PIO write burst */
    myri_time_ps pio_word_ps;   /* bus.pio_word: each further word of a merged write burst */
    uint64_t pio_merge_bytes;   /* bus.pio_merge: bytes merged into one write burst (0 or 4: none) */
    uint64_t pio_posted;        /* bus.pio_posted: write bursts under way before the CPU waits (0: it waits for each) */
} myri_bus_params;

enum { MYRI_BUS_PIO_MERGE_MAX = 256, MYRI_BUS_PIO_POSTED_MAX = 16 };

extern const myri_param myri_bus_param_table[];
extern const size_t myri_bus_nparams;

typedef enum myri_bus_user {
    MYRI_BUS_DMA_E2L = 0, /* host DMA host -> SRAM */
    MYRI_BUS_DMA_L2E = 1, /* host DMA SRAM -> host */
    MYRI_BUS_PIO_READ = 2,
    MYRI_BUS_PIO_WRITE = 3,
    MYRI_BUS_NUSERS = 4
} myri_bus_user;

typedef struct myri_bus_stats {
    myri_time_ps busy_ps[MYRI_BUS_NUSERS];  /* time the bus carried each user */
    myri_time_ps wait_ps[MYRI_BUS_NUSERS];  /* time bookings waited for the bus */
    uint64_t bookings[MYRI_BUS_NUSERS];
    uint64_t bytes[MYRI_BUS_NUSERS];
} myri_bus_stats;

typedef struct myri_bus myri_bus;

/* NULL on bad parameters (rate <= 0, burst 0) or no memory. */
myri_bus *myri_bus_create(const myri_bus_params *p);
void myri_bus_destroy(myri_bus *b);
const myri_bus_params *myri_bus_params_of(const myri_bus *b);

/* Books the bus for dur_ps at the earliest time >= at_ps when it is free
 * (after every booking made before); returns that start time.  `bytes` only
 * feeds the statistics.  Bookings are asked for in time order (at_ps never
 * decreases).  Callers book at the simulated now, or ahead of it when no
 * other booking can be asked for before at_ps (host.c's PIO reads, issue 24):
 * such a booking counts in the statistics only once the clock reaches at_ps. */
myri_time_ps myri_bus_book(myri_bus *b, myri_bus_user who, myri_time_ps at_ps, myri_time_ps dur_ps,
                           uint64_t bytes);
/* Time to move n bytes at the DMA rate (rounded up to a whole ps). */
myri_time_ps myri_bus_dma_ps(const myri_bus *b, uint64_t bytes);
/* The bytes a PIO write burst merges (bus.pio_merge in whole words, 4 to 256). */
uint32_t myri_bus_pio_merge(const myri_bus *b);
/* The write bursts under way before the CPU waits (bus.pio_posted, at most 16). */
uint32_t myri_bus_pio_posted(const myri_bus *b);
/* Bus time of one PIO write burst of `bytes` (1 .. pio_merge): bus.pio_write
 * for its first word, bus.pio_word for each further one. */
myri_time_ps myri_bus_pio_write_ps(const myri_bus *b, uint32_t bytes);
/* The time the bus is booked until. */
myri_time_ps myri_bus_free_at(const myri_bus *b);
/* The clock the statistics are taken by (myri_lanai_create sets its own). */
void myri_bus_set_clock(myri_bus *b, const myri_sim *sim);
/* The statistics up to now_ps: busy_ps and wait_ps count only the part of
 * each booking before now_ps (a booking reaches into the future as soon as
 * it is made); bookings and bytes count every booking made.  MYRI_EINVAL
 * without b or out, or with now_ps before the last booking was asked for;
 * MYRI_ENOMEM if a booking could not be remembered (the figures then count
 * it whole). */
myri_status myri_bus_get_stats_at(const myri_bus *b, myri_time_ps now_ps, myri_bus_stats *out);
/* The same at the clock's now; without a clock, every booking whole. */
myri_status myri_bus_get_stats(const myri_bus *b, myri_bus_stats *out);

#ifdef __cplusplus
}
#endif

#endif
