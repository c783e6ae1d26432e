/* bus.c -- the host's I/O bus: bookings in the order asked for (see bus.h
 * and docs/NIC.md, "The I/O bus"). */
#include "nic/bus.h"

#include <math.h>
#include <stdlib.h>

const myri_param myri_bus_param_table[] = {
    {"dma_rate", MYRI_P_DOUBLE, "B/s", "120e6", "1", "1e12",
     "bytes/s (a plain number: the field is in bytes, not bits) while a host-DMA burst moves; assumption: 32-bit/33 MHz PCI peaks at 132 MB/s "
     "(myrinet-facts 3.3); a 256-byte burst also pays its address phase, target latency and turnaround "
     "(about 6 of 70 bus cycles), so 120 MB/s is taken for the burst's data phase",
     offsetof(myri_bus_params, dma_rate_Bps), NULL},
    {"burst", MYRI_P_SIZE, "B", "256B", "4B", "1MiB",
     "bytes per DMA burst (one bus booking; a PIO access asked for during a burst waits for its end); "
     "256 B is GM's default PCI burst (myrinet-facts 3.3)",
     offsetof(myri_bus_params, burst_bytes), NULL},
    {"dma_setup", MYRI_P_TIME, "ns", "500ns", "0ns", "1ms",
     "from the DMA_CTR write to the first burst (the engine's start, the bus request and grant); "
     "assumption, no source gives it: about 16 LANai cycles at 33 MHz",
     offsetof(myri_bus_params, dma_setup_ps), NULL},
    {"pio_read", MYRI_P_TIME, "ns", "1us", "0ns", "1ms",
     "one 4-byte PIO read of SRAM by the host CPU, round trip (the CPU waits); assumption: a read "
     "crosses the host bridge and PCI both ways, about 1 us on 1998 Alpha/PCI systems (no source in the "
     "seeds; seed 001 only says that polling SRAM interferes with host DMA)",
     offsetof(myri_bus_params, pio_read_ps), NULL},
    {"pio_write", MYRI_P_TIME, "ns", "120ns", "0ns", "1ms",
     "one 4-byte PIO write of SRAM; assumption: a posted write occupies PCI for about 4 cycles at 33 MHz "
     "(address, data, turnaround: 4 x 30 ns), the CPU does not wait for it",
     offsetof(myri_bus_params, pio_write_ps), NULL},
};
const size_t myri_bus_nparams = sizeof myri_bus_param_table / sizeof myri_bus_param_table[0];

struct myri_bus {
    myri_bus_params p;
    myri_time_ps free_at;   /* the end of the last booking */
    myri_bus_stats st;
};

myri_bus *myri_bus_create(const myri_bus_params *p)
{
    if (!p || !(p->dma_rate_Bps > 0) || !isfinite(p->dma_rate_Bps) || p->burst_bytes == 0) return NULL;
    myri_bus *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->p = *p;
    return b;
}

void myri_bus_destroy(myri_bus *b) { free(b); }

const myri_bus_params *myri_bus_params_of(const myri_bus *b) { return b ? &b->p : NULL; }

myri_time_ps myri_bus_book(myri_bus *b, myri_bus_user who, myri_time_ps at_ps, myri_time_ps dur_ps,
                           uint64_t bytes)
{
    if (!b) return at_ps;
    myri_time_ps start = at_ps > b->free_at ? at_ps : b->free_at;
    b->free_at = start + dur_ps;
    if ((unsigned)who < MYRI_BUS_NUSERS) {
        b->st.busy_ps[who] += dur_ps;
        b->st.wait_ps[who] += start - at_ps;
        b->st.bookings[who]++;
        b->st.bytes[who] += bytes;
    }
    return start;
}

myri_time_ps myri_bus_dma_ps(const myri_bus *b, uint64_t bytes)
{
    if (!b || bytes == 0) return 0;
    /* bytes / (bytes/s) in ps, rounded up to a whole ps */
    double ps = (double)bytes * 1e12 / b->p.dma_rate_Bps;
    myri_time_ps r = (myri_time_ps)ceil(ps - 1e-6);
    return r;
}

myri_time_ps myri_bus_free_at(const myri_bus *b) { return b ? b->free_at : 0; }

myri_status myri_bus_get_stats(const myri_bus *b, myri_bus_stats *out)
{
    if (!b || !out) return MYRI_EINVAL;
    *out = b->st;
    return MYRI_OK;
}
