/* lanai.h -- the LANai 4.x network interface: SRAM, the register file, the
 * three DMA engines (host DMA over the I/O bus, send DMA and receive DMA on
 * the fabric port) and the CPU's two contexts.  See docs/NIC.md.
 *
 * The LANai knows nothing of any firmware.  A firmware (src/firmware/) drives
 * it through the register file (myri_lanai_read / myri_lanai_write at the
 * offsets of common/lanai_regs.h) and SRAM (myri_lanai_sram), and gives it
 * a CPU step function: the LANai calls it whenever the CPU is free, in the
 * context the CPU is in, and keeps the CPU busy for the cycles it returns.
 *
 * Engines (each really copies bytes):
 *   host DMA   EAR, LAR, DMA_DIR, then DMA_CTR (bytes) starts it: after
 *              bus.dma_setup, bursts of bus.burst bytes booked on the bus one
 *              at a time; 4-byte granularity (a count is rounded up to a
 *              whole word); LAR, EAR and DMA_CTR are live (updated at the
 *              end of each burst, when its bytes land); DMA_INT at the end.
 *              One transfer at a time, one direction at a time.
 *   send DMA   SMP, SA, then SML (no tail) or SMLT (tail): sends
 *              [SMP + SA, limit).  PIO sends SB/SH/SW/ST add bytes directly.
 *              A packet starts with its first byte staged; its length is
 *              what was staged at the tail write (SMLT, ST).  Its head goes
 *              to the port once its route bytes (leading bytes with MSB 1)
 *              and its type are present, and the
 *              port sends each byte once it is there (an SML chunk after an
 *              underrun restarts the flow: overlapped send).  SEND_INT: for
 *              SML when its bytes have been read out of SRAM at the link's
 *              byte rate (the engine's FIFO feeds the link); for SMLT when
 *              the port says the tail left (or dropped it).  A STOP stalls it.
 *   receive    RMP then RML arms the window [RMP, RML) on the port.  RECV_INT
 *   DMA        at the tail: the stored trailer byte is the CRC remainder,
 *              0 for a good packet (myrinet-facts 1.4).  BUFF_INT when a
 *              byte of the packet comes after the window is full (the next
 *              window continues the packet; a GAP there is RECV_INT).
 *              A packet cut short (FRES, dead cable) ends with RECV_INT and a
 *              non-zero trailer byte.  RMP is live.  Unarmed, the port's
 *              slack fills and STOP goes into the network.
 *   CPU        user context (interruptible) and system context (not).  The
 *              CPU starts in system context (reset), the firmware's first
 *              `punt` (its step returning 0 in system context) enters user
 *              context.  Between two user steps, if (ISR & IMR) != 0 the CPU
 *              switches to system context and calls the step function there
 *              until it returns 0 (punt).  A user step returning 0 idles the
 *              CPU until something the firmware may test changes: an ISR bit
 *              set, a host write into SRAM or the register file, or
 *              myri_lanai_wake.
 *
 * Time unit: picoseconds; CPU cost in cycles of nic.clock.
 */
#ifndef MYRI_NIC_LANAI_H
#define MYRI_NIC_LANAI_H

#include <stdbool.h>
#include <stdint.h>

#include "common/lanai_regs.h"
#include "fabric/port.h"
#include "myri/config.h"
#include "myri/sim.h"
#include "nic/bus.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_lanai myri_lanai;

typedef struct myri_lanai_params {
    uint64_t sram_bytes;       /* nic.sram */
    double clock_hz;           /* nic.clock: the CPU clock */
    myri_time_ps rtc_tick_ps;  /* nic.rtc_tick: one RTC / IT tick */
    int64_t type_bytes;        /* copied from packet.type_bytes by the job (not a nic.* key) */
    myri_time_ps link_char_ps; /* the link's byte time, myri_fabric_char_ps(&fabric params), copied by
                                * the job (not a nic.* key); 0 = the alpha-pci-1998 link, 1.28 Gb/s */
} myri_lanai_params;

extern const myri_param myri_lanai_param_table[];
extern const size_t myri_lanai_nparams;

typedef enum myri_lanai_ctx { MYRI_LANAI_USER = 0, MYRI_LANAI_SYSTEM = 1 } myri_lanai_ctx;

typedef struct myri_lanai_cpu_ops {
    /* The CPU is free at the current time in context ctx: do one step and
     * return its cycles (> 0; the CPU is busy for them, then asked again),
     * or 0: nothing to do (user: idle until woken; system: punt). */
    uint32_t (*step)(void *fw, myri_lanai *l, myri_lanai_ctx ctx);
} myri_lanai_cpu_ops;

/* The LANai's component type ("lanai"): myri_lanai_create adds one. */
extern const myri_component_ops myri_lanai_ops;

/* Creates a LANai named `name` on `port` (may be NULL: no network, for
 * tests), sharing `bus` with the host.  The port is attached here. */
myri_status myri_lanai_create(myri_sim *sim, const char *name, const myri_lanai_params *p, myri_bus *bus,
                              myri_port *port, myri_lanai **out);
void myri_lanai_destroy(myri_lanai *l);
myri_component *myri_lanai_component(myri_lanai *l);
myri_time_ps myri_lanai_cycle_ps(const myri_lanai *l);
/* The earliest time the host-DMA engine can next book the board's bus (its
 * pending event's time while a transfer runs, else now + bus.dma_setup): a
 * PIO read asked for before it is booked before any burst (host.c). */
myri_time_ps myri_lanai_hdma_next_book_ps(const myri_lanai *l);
myri_time_ps myri_lanai_now(const myri_lanai *l);

/* Host memory reached by the host DMA: bus address a is base[a]. */
myri_status myri_lanai_set_host_mem(myri_lanai *l, uint8_t *base, uint64_t bytes);
/* Called after every to-host DMA lands (the host's waiting programs look). */
myri_status myri_lanai_set_host_notify(myri_lanai *l, void (*fn)(void *ctx, uint64_t bus_addr, uint32_t bytes),
                                       void *ctx);

/* Called before every from-host DMA burst copies host memory [bus_addr,
 * bus_addr + bytes) into SRAM (live mode records what the NIC reads of a
 * real process's memory, and a replay puts it back).  NULL removes it. */
myri_status myri_lanai_set_host_fetch(myri_lanai *l, void (*fn)(void *ctx, uint64_t bus_addr, uint32_t bytes),
                                      void *ctx);
/* Makes `mem` (sram_bytes, the caller's, e.g. a shared mapping; it must
 * outlive the LANai) the SRAM: the current contents are copied into it.
 * Live mode shares the SRAM with real processes this way. */
myri_status myri_lanai_use_sram(myri_lanai *l, uint8_t *mem);

/* ---- firmware side ---------------------------------------------------- */
myri_status myri_lanai_set_cpu(myri_lanai *l, const myri_lanai_cpu_ops *ops, void *fw);
/* Resets the CPU into system context and starts stepping at the current
 * time (the firmware's crt0).  Registers and ISR are cleared, IMR is 0. */
myri_status myri_lanai_start(myri_lanai *l);
/* Register read/write at a lanai_regs.h offset.  Unknown offset: 0 /
 * MYRI_EINVAL; starting an engine that is busy, or a transfer outside SRAM
 * or host memory: MYRI_ESTATE / MYRI_ERANGE, counted as a firmware fault
 * (myri_lanai_stats.faults) -- the model never crashes on a firmware bug. */
uint32_t myri_lanai_read(myri_lanai *l, uint32_t reg);
myri_status myri_lanai_write(myri_lanai *l, uint32_t reg, uint32_t v);
/* SRAM bytes [addr, addr + len), NULL if out of range. */
uint8_t *myri_lanai_sram(myri_lanai *l, uint32_t addr, uint32_t len);
uint32_t myri_lanai_sram_bytes(const myri_lanai *l);
/* Told of every SRAM write the CPU does not make itself (the host's PIO,
 * the host DMA from the host, the receive DMA's window and trailer byte):
 * a CPU that predecodes SRAM (firmware kind elf) forgets what it decoded
 * there.  One watcher; NULL removes it. */
myri_status myri_lanai_set_sram_watch(myri_lanai *l, void (*fn)(void *ctx, uint32_t addr, uint32_t bytes),
                                      void *ctx);
/* The SRAM cycles the packet interface (send and receive DMA) takes in
 * [now, now + dur_ps), in words (one SRAM cycle each): seed 002's SRAM is
 * accessed twice per clock, once by the E-bus (host DMA, PIO) and once by
 * the processor OR the packet interface, so these are the cycles the CPU's
 * loads and stores contend for.  The send DMA's read-out is booked at the
 * link's byte rate when SML/SMLT is written (chunks back to back); a packet
 * flowing into the armed receive window is taken to go on at the link's
 * rate, up to the window's end (docs/NIC.md, "SRAM cycles"). */
uint64_t myri_lanai_sram_dma_words(myri_lanai *l, myri_time_ps dur_ps);
/* The idle user context looks again at at_ps (>= now): for polling loops
 * that must notice a time (the firmware's own timer) or a position. */
void myri_lanai_wake(myri_lanai *l, myri_time_ps at_ps);
/* The current context, and whether the CPU is idle. */
myri_lanai_ctx myri_lanai_context(const myri_lanai *l);

/* ---- host side (PIO): raw SRAM access; the caller books the bus ---------- */
myri_status myri_lanai_host_read(myri_lanai *l, uint32_t addr, void *dst, uint32_t n);
/* Writes SRAM and wakes an idle CPU. */
myri_status myri_lanai_host_write(myri_lanai *l, uint32_t addr, const void *src, uint32_t n);
/* The host raises HOST_SIG (ISR bit 30). */
void myri_lanai_host_signal(myri_lanai *l);

/* ---- observation ----------------------------------------------------------- */
typedef enum myri_lanai_ev {
    MYRI_LANAI_EV_REG = 0,      /* a register write: a = offset, b = value */
    MYRI_LANAI_EV_HDMA = 1,     /* host DMA: a = 1 start / 0 end, b = DMA_DIR */
    MYRI_LANAI_EV_SDMA = 2,     /* send DMA: a = 1 start / 0 end, b = bytes */
    MYRI_LANAI_EV_RDMA = 3,     /* receive DMA: a = 1 bytes flowing / 0 window over, b = bytes */
    MYRI_LANAI_EV_ISR = 4,      /* ISR changed: a = new ISR */
    MYRI_LANAI_EV_CPU = 5,      /* a = 0 idle / 1 user / 2 system */
    MYRI_LANAI_EV_FW = 6,       /* published by the firmware: a = machine, b = state */
    MYRI_LANAI_EV_DMAREG = 7,   /* a DMA register took a value: a = offset (EAR, LAR, DMA_CTR, SMP, SML,
                                 * SMLT, RMP, RML), b = the value.  On every write the engine accepted,
                                 * and as the engines move them: EAR, LAR, DMA_CTR at each host-DMA
                                 * burst's landing; RMP when the firmware reads the live pointer and
                                 * at each receive window's end */
    MYRI_LANAI_NEVS = 8
} myri_lanai_ev;
typedef void (*myri_lanai_trace_fn)(void *ctx, const myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a,
                                    uint32_t b);
/* Up to 4 observers (VCD writer, tests, reports); MYRI_EFULL beyond. */
myri_status myri_lanai_add_trace(myri_lanai *l, myri_lanai_trace_fn fn, void *ctx);
void myri_lanai_trace(myri_lanai *l, myri_lanai_ev ev, uint32_t a, uint32_t b);
/* The receive DMA's busy interval is traced (EV_RDMA 1 at its start) only
 * when its window ends, since the port tells of a packet's head only then.
 * For observers that must write in time order (the VCD): the earliest start
 * such a trace can still carry -- MYRI_TIME_NEVER with no window armed, now
 * while the armed window has no byte yet, else the window's arm time. */
myri_time_ps myri_lanai_rx_pending_ps(myri_lanai *l);

typedef struct myri_lanai_stats {
    myri_time_ps cpu_ps[2];          /* busy per context (user, system) */
    myri_time_ps hdma_ps[2];         /* host DMA busy, by direction (L2E, E2L): from DMA_CTR to DMA_INT */
    myri_time_ps sdma_ps, rdma_ps;   /* send DMA: first byte given to end; receive: head to window end */
    myri_time_ps hdma_sdma_ps;       /* host DMA and send DMA busy at once */
    myri_time_ps hdma_rdma_ps;       /* host DMA and receive DMA busy at once */
    uint64_t hdma_ops[2], hdma_bytes[2];
    uint64_t sdma_packets, sdma_bytes, rdma_windows, rdma_bytes;
    uint64_t interrupts;             /* switches to system context */
    uint64_t faults;                 /* firmware misuse of the hardware (see myri_lanai_write) */
    myri_time_ps elapsed_ps;         /* since myri_lanai_start */
} myri_lanai_stats;
myri_status myri_lanai_get_stats(myri_lanai *l, myri_lanai_stats *out);

#ifdef __cplusplus
}
#endif

#endif
