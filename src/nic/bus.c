/* bus.c -- the host's I/O bus: bookings in the order asked for (see bus.h
 * and docs/NIC.md, "The I/O bus"). */
#include "nic/bus.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const myri_param myri_bus_param_table[] = {
    {"dma_rate", MYRI_P_DOUBLE, "B/s", "120e6", "1", "1e12",
     "bytes/s while a host-DMA burst moves (120MB/s, 960Mb/s, or a plain number in bytes/s, not bits); assumption: 32-bit/33 MHz PCI peaks at 132 MB/s "
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
     "bus time of a one-word posted PIO write of SRAM (address, one data phase, turnaround); assumption: "
     "about 4 cycles of 33 MHz PCI (4 x 30 ns); the CPU waits for it only when its write buffer is full "
     "(bus.pio_posted)",
     offsetof(myri_bus_params, pio_write_ps), NULL},
    {"pio_word", MYRI_P_TIME, "ns", "30ns", "0ns", "1ms",
     "bus time of each further 4-byte word of a merged PIO write burst: one PCI data phase, one clock at "
     "33 MHz (32-bit/33 MHz PCI, myrinet-facts 3.3), so a 32-byte burst holds the bus 120 + 7 x 30 = 330 ns",
     offsetof(myri_bus_params, pio_word_ps), NULL},
    {"pio_merge", MYRI_P_SIZE, "B", "32B", "4B", "256B",
     "bytes of consecutive PIO stores the host CPU's write buffer merges into one bus burst (an aligned block, "
     "rounded down to whole words; 4B: no merging). Alpha 21164: non-cached writes merge in the write buffer's 32-byte entries and a PCI "
     "dense-space write is at most a burst of 8 longwords = 32 bytes (Digital 21164PC Hardware Reference "
     "Manual 4.3.4; AlphaPC 164 / 21171-CIA specification, \"PCI Dense Memory Space\")",
     offsetof(myri_bus_params, pio_merge_bytes), NULL},
    {"pio_posted", MYRI_P_UINT, NULL, "6", "0", "16",
     "merged PIO writes the host CPU may have under way before a store waits (its write buffer entries); "
     "0: the CPU waits for every write to land (no write buffer). Alpha 21164: six 32-byte write-buffer "
     "entries (21164PC Hardware Reference Manual 2.7.4: the first entry and up to five more in processing); "
     "the host bridge's own write buffers (four on the CIA) are not counted (assumption: the AlphaServer "
     "1200's bridge behaves alike, conservatively)",
     offsetof(myri_bus_params, pio_posted), NULL},
};
const size_t myri_bus_nparams = sizeof myri_bus_param_table / sizeof myri_bus_param_table[0];

/* A booking that may still reach past the time the statistics are taken. */
typedef struct bus__open {
    myri_time_ps at_ps, start_ps, end_ps;
    uint64_t bytes;
    myri_bus_user who;
} bus__open;

struct myri_bus {
    myri_bus_params p;
    myri_time_ps free_at;   /* the end of the last booking */
    myri_time_ps last_at;   /* when the last booking was asked for */
    myri_bus_stats st;      /* every booking counted whole */
    const myri_sim *clock;
    bus__open *open;        /* open[head .. nopen): bookings ending after last_at, in time order */
    size_t head, nopen, capopen;
    bool lost;              /* a booking could not be remembered */
};

myri_bus *myri_bus_create(const myri_bus_params *p)
{
    if (!p || !(p->dma_rate_Bps > 0) || !isfinite(p->dma_rate_Bps) || p->burst_bytes == 0) return NULL;
    myri_bus *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->p = *p;
    return b;
}

void myri_bus_destroy(myri_bus *b)
{
    if (!b) return;
    free(b->open);
    free(b);
}

void myri_bus_set_clock(myri_bus *b, const myri_sim *sim)
{
    if (b) b->clock = sim;
}

/* Remembers a booking that ends after it was asked for; forgets those over
 * by `over` (its time, or now for a booking asked for ahead of the clock). */
static void bus__remember(myri_bus *b, myri_bus_user who, myri_time_ps at_ps, myri_time_ps start_ps,
                          myri_time_ps end_ps, uint64_t bytes, myri_time_ps over)
{
    /* bookings end in the order they are made (each starts at or after the
     * last one's end), so those over are a prefix */
    while (b->head < b->nopen && b->open[b->head].end_ps <= over) b->head++;
    if (b->head == b->nopen) b->head = b->nopen = 0;
    if (end_ps <= at_ps) return;
    if (b->nopen == b->capopen && b->head > 0) {
        memmove(b->open, b->open + b->head, (b->nopen - b->head) * sizeof *b->open);
        b->nopen -= b->head;
        b->head = 0;
    }
    if (b->nopen == b->capopen) {
        size_t cap = b->capopen ? 2 * b->capopen : 8;
        bus__open *n = realloc(b->open, cap * sizeof *n);
        if (!n) {
            b->lost = true;
            return;
        }
        b->open = n;
        b->capopen = cap;
    }
    b->open[b->nopen++] = (bus__open){at_ps, start_ps, end_ps, bytes, who};
}

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
        /* a booking asked for ahead of the clock (host.c: a PIO read booked
         * when no other booking can come before it) counts from its time on */
        myri_time_ps now = b->clock ? myri_sim_now(b->clock) : at_ps, asked = now < at_ps ? now : at_ps;
        if (asked > b->last_at) b->last_at = asked;
        bus__remember(b, who, at_ps, start, start + dur_ps, bytes, asked);
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

uint32_t myri_bus_pio_merge(const myri_bus *b)
{
    uint64_t m = b ? b->p.pio_merge_bytes & ~(uint64_t)3 : 4;
    return m < 4 ? 4 : m > MYRI_BUS_PIO_MERGE_MAX ? MYRI_BUS_PIO_MERGE_MAX : (uint32_t)m;
}

uint32_t myri_bus_pio_posted(const myri_bus *b)
{
    uint64_t n = b ? b->p.pio_posted : 0;
    return n > MYRI_BUS_PIO_POSTED_MAX ? MYRI_BUS_PIO_POSTED_MAX : (uint32_t)n;
}

myri_time_ps myri_bus_pio_write_ps(const myri_bus *b, uint32_t bytes)
{
    if (!b || bytes == 0) return 0;
    myri_time_ps words = (bytes + 3) / 4;
    return b->p.pio_write_ps + (words - 1) * b->p.pio_word_ps;
}

myri_time_ps myri_bus_free_at(const myri_bus *b) { return b ? b->free_at : 0; }

myri_status myri_bus_get_stats_at(const myri_bus *b, myri_time_ps now_ps, myri_bus_stats *out)
{
    if (!b || !out || now_ps < b->last_at) return MYRI_EINVAL;
    *out = b->st;
    for (size_t k = b->head; k < b->nopen; k++) { /* the part of each booking after now_ps is not over yet */
        const bus__open *o = &b->open[k];
        if (o->end_ps > now_ps) out->busy_ps[o->who] -= o->end_ps - (o->start_ps > now_ps ? o->start_ps : now_ps);
        if (o->start_ps > now_ps) out->wait_ps[o->who] -= o->start_ps - (o->at_ps > now_ps ? o->at_ps : now_ps);
        if (o->at_ps > now_ps) { /* asked for ahead of the clock: not asked yet at now_ps */
            out->bookings[o->who]--;
            out->bytes[o->who] -= o->bytes;
        }
    }
    return b->lost ? MYRI_ENOMEM : MYRI_OK;
}

myri_status myri_bus_get_stats(const myri_bus *b, myri_bus_stats *out)
{
    if (!b || !out) return MYRI_EINVAL;
    if (!b->clock) {
        *out = b->st;
        return MYRI_OK;
    }
    return myri_bus_get_stats_at(b, myri_sim_now(b->clock), out);
}
