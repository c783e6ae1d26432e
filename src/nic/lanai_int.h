/* lanai_int.h -- the LANai model's inside, shared by lanai.c (registers,
 * CPU, timer, observation) and lanai_dma.c (the three DMA engines).  Not part
 * of the API. */
#ifndef MYRI_NIC_LANAI_INT_H
#define MYRI_NIC_LANAI_INT_H

#include "nic/lanai.h"

/* Engine events of the LANai component (myri_event.kind). */
enum {
    LANAI_EV_CPU = 1,     /* the CPU is free (a step ended, or a wake) */
    LANAI_EV_HDMA = 2,    /* host DMA: setup over (arg32 0) or a burst landed (arg32 1, arg = bytes) */
    LANAI_EV_SML = 3,     /* send DMA: an SML chunk read out of SRAM */
    LANAI_EV_TIMER = 4    /* IT reached 0 */
};

/* A host-DMA busy interval, kept for the receive-DMA overlap (the receive
 * DMA's interval is known only at its notice). */
typedef struct lanai__span {
    myri_time_ps from, to;
} lanai__span;

struct myri_lanai {
    myri_sim *sim;
    myri_component *comp;
    myri_lanai_params p;
    myri_time_ps cycle_ps;       /* one CPU cycle */
    myri_time_ps char_ps;        /* one link byte */
    myri_bus *bus;
    myri_port *port;
    uint32_t host;               /* the port's host index (packet ids) */
    uint8_t *sram;
    uint8_t *sram_own;           /* the array the LANai allocated (freed with it; sram may be the caller's) */
    uint32_t sram_bytes;
    uint8_t *hmem;               /* host memory seen by the host DMA */
    uint64_t hmem_bytes;
    void (*notify)(void *ctx, uint64_t bus_addr, uint32_t bytes);
    void *notify_ctx;
    void (*fetch)(void *ctx, uint64_t bus_addr, uint32_t bytes); /* before a from-host burst is copied */
    void *fetch_ctx;
    uint32_t isr, imr;
    uint32_t timeout_reg, myrinet_reg;
    myri_time_ps rtc_base_ps;    /* RTC = (now - rtc_base) / tick */
    /* CPU */
    const myri_lanai_cpu_ops *ops;
    void *fw;
    bool started, stepping, idle;
    myri_lanai_ctx ctx;
    myri_event_id cpu_ev;        /* the one pending CPU event (0: none) */
    myri_time_ps cpu_ev_at;
    myri_time_ps wake_at;        /* a wake asked for while the CPU was not idle (NEVER: none) */
    myri_time_ps step_start_ps;  /* the last step charged to st.cpu_ps (when it started, ended) */
    myri_time_ps step_end_ps;
    myri_lanai_ctx step_ctx;     /* the context it was charged to */
    /* interrupt timer */
    myri_event_id it_ev;
    myri_time_ps it_at;
    /* host DMA */
    uint32_t ear, lar, ctr, dir; /* live registers */
    bool hdma_busy;
    uint32_t hdma_left;          /* bytes not yet landed (whole words) */
    uint64_t hdma_ear0;          /* the transfer's first host address (notify) */
    uint32_t hdma_total;
    myri_time_ps hdma_start;
    myri_time_ps hdma_ev_at;     /* when the pending host-DMA event runs (while busy) */
    lanai__span *spans;          /* finished host-DMA intervals not older than the armed window */
    size_t nspans, capspans;
    /* send DMA */
    uint32_t smp, sa;
    uint8_t *stage;              /* the packet's bytes: route, type, payload (sram_bytes, made once:
                                  * the port reads them in place) */
    uint32_t stage_cap, have;    /* have: bytes staged of the current packet (its length at the tail) */
    bool staging, on_port, tail, sml_busy; /* staging: a packet has begun (first byte) and is not over */
    bool discard;                /* the port dropped the packet before its tail: its later bytes go nowhere */
    myri_time_ps sml_free_at;    /* the FIFO's read-out of SML chunks */
    myri_time_ps ro_from, ro_until; /* the send DMA's SRAM read-out booked (SML and SMLT chunks, link rate) */
    uint64_t seq;
    myri_fabric_packet pkt;
    myri_time_ps sdma_start;
    /* receive DMA */
    uint32_t rmp, rml, win_base;
    bool armed;
    myri_time_ps arm_ps;
    int64_t last_byte;           /* SRAM address of the last byte written (-1: none) */
    /* SRAM writes not made by the CPU (myri_lanai_set_sram_watch) */
    void (*sram_watch)(void *ctx, uint32_t addr, uint32_t bytes);
    void *sram_watch_ctx;
    /* observation */
    myri_lanai_trace_fn tr[4];
    void *tr_ctx[4];
    unsigned ntr;
    myri_lanai_stats st;
    myri_time_ps start_ps, acct_ps;
};

/* lanai.c */
void myri_lanai__fault(myri_lanai *l);
void myri_lanai__set_isr(myri_lanai *l, uint32_t bits);
void myri_lanai__wake_now(myri_lanai *l);
void myri_lanai__trace_at(myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a, uint32_t b);
/* Brings the send/host-DMA overlap counters up to now (call before a busy flag changes). */
void myri_lanai__acct(myri_lanai *l);

/* Tells the SRAM watcher (if any) of a write by the host or a DMA engine. */
static inline void myri_lanai__sram_written(myri_lanai *l, uint32_t addr, uint32_t bytes)
{
    if (l->sram_watch && bytes) l->sram_watch(l->sram_watch_ctx, addr, bytes);
}

/* lanai_dma.c */
myri_status myri_lanai__hdma_write(myri_lanai *l, uint32_t reg, uint32_t v);
void myri_lanai__hdma_event(myri_lanai *l, const myri_event *ev);
myri_status myri_lanai__send_write(myri_lanai *l, uint32_t reg, uint32_t v);
void myri_lanai__sml_event(myri_lanai *l);
myri_status myri_lanai__recv_write(myri_lanai *l, uint32_t reg, uint32_t v);
uint32_t myri_lanai__rmp(myri_lanai *l);
extern const myri_port_ops myri_lanai__port_ops;
void myri_lanai__dma_free(myri_lanai *l);

#endif
