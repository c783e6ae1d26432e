/* bus.h -- the host's I/O bus (PCI, SBus) between host memory, the host CPU
 * and the NIC: one transfer at a time, booked in the order asked for.
 *
 * Two users share it: the NIC's host DMA (in bursts of bus.burst bytes at
 * bus.dma_rate, after bus.dma_setup per transfer) and the host CPU's PIO
 * reads and writes of the NIC's SRAM (bus.pio_read / bus.pio_write per 4-byte
 * word).  A DMA books one burst at a time, when the previous one ends, so a
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
    myri_time_ps pio_write_ps;  /* bus.pio_write: one 4-byte PIO write */
} myri_bus_params;

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
 * feeds the statistics. */
myri_time_ps myri_bus_book(myri_bus *b, myri_bus_user who, myri_time_ps at_ps, myri_time_ps dur_ps,
                           uint64_t bytes);
/* Time to move n bytes at the DMA rate (rounded up to a whole ps). */
myri_time_ps myri_bus_dma_ps(const myri_bus *b, uint64_t bytes);
/* The time the bus is booked until. */
myri_time_ps myri_bus_free_at(const myri_bus *b);
myri_status myri_bus_get_stats(const myri_bus *b, myri_bus_stats *out);

#ifdef __cplusplus
}
#endif

#endif
