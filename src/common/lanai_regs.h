/* lanai_regs.h -- the LANai 4.x register file as the firmware and the host
 * see it: offsets, ISR/IMR bits, DMA directions.  Shared by the NIC model
 * (src/nic/), the firmwares (src/firmware/) and the tools that name them
 * (VCD, Promela export).
 *
 * Source: myrinet-facts 3.1 (GM's lanai4 header, [V]), which matches seeds
 * 000 and 001.  On LANai 4 the memory-mapped registers sit at
 * 0xFFFFFF00 + offset; ISR and IMR are processor registers, given here
 * pseudo-offsets above 0x100 so that one read/write call reaches them all.
 *
 * Address-limit semantics (LANai 4): SMP/RMP are SRAM pointers, SML/SMLT/RML
 * are SRAM *limit addresses* (one past the last byte); writing the limit
 * starts the transfer.  The host DMA is EAR (host bus address), LAR (SRAM
 * address), DMA_DIR, then DMA_CTR (a byte count; writing it starts).  While a
 * transfer runs the pointers are live: LAR/EAR advance and DMA_CTR counts down
 * as bursts complete; RMP advances as the receive DMA writes (overlapped
 * send and receive follow these live pointers, seed 001).
 */
#ifndef MYRI_COMMON_LANAI_REGS_H
#define MYRI_COMMON_LANAI_REGS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Memory-mapped register offsets (from 0xFFFFFF00), myrinet-facts 3.1 table. */
enum myri_lanai_reg {
    MYRI_LANAI_IT = 0x30,      /* interrupt timer: counts down in RTC ticks; TIME_INT at 0 */
    MYRI_LANAI_RTC = 0x34,     /* real-time clock (read) */
    MYRI_LANAI_EAR = 0x3c,     /* host DMA: external (host bus) address */
    MYRI_LANAI_LAR = 0x40,     /* host DMA: LANai (SRAM) address */
    MYRI_LANAI_DMA_CTR = 0x44, /* host DMA: byte count; writing it starts the transfer */
    MYRI_LANAI_RMP = 0x48,     /* receive DMA pointer (live) */
    MYRI_LANAI_RML = 0x4c,     /* receive DMA limit; writing it arms the window [RMP, RML) */
    MYRI_LANAI_SMP = 0x50,     /* send DMA pointer */
    MYRI_LANAI_SML = 0x54,     /* send DMA limit; writing it sends [SMP+SA, SML) without ending the packet */
    MYRI_LANAI_SMLT = 0x58,    /* send DMA limit with tail: sends and ends the packet (CRC appended) */
    MYRI_LANAI_SA = 0x6c,      /* send align: leading bytes of the first word not sent */
    MYRI_LANAI_SB = 0x70,      /* single send of a byte (PIO route bytes) */
    MYRI_LANAI_SH = 0x74,      /* single send of a half-word (big-endian) */
    MYRI_LANAI_SW = 0x78,      /* single send of a word (big-endian) */
    MYRI_LANAI_ST = 0x7c,      /* single send of a byte ending the packet (tail) */
    MYRI_LANAI_DMA_DIR = 0x80, /* MYRI_LANAI_DIR_E2L or MYRI_LANAI_DIR_L2E */
    MYRI_LANAI_TIMEOUT = 0x88, /* NRES period selection (accepted, no effect in the model) */
    MYRI_LANAI_MYRINET = 0x8c, /* NRES_ENABLE 0x1, CRC_ENABLE 0x2 (accepted, no effect) */
    /* (0xa0 held a simulator-only register until issue 22; a packet's length
     * is now what was staged when its tail is written: 0xa0 is unknown, a fault) */
    /* Processor registers on LANai 4, given pseudo-offsets. */
    MYRI_LANAI_ISR = 0x100,    /* interrupt status; the firmware writing a 1 clears that bit (HOST_SIG
                                * too: it acknowledges the host's signal); the host raises HOST_SIG
                                * with myri_lanai_host_signal (nic/lanai.h) */
    MYRI_LANAI_IMR = 0x104     /* interrupt mask: an ISR bit also set here interrupts the user context */
};

/* ISR / IMR bits on LANai 4 (myrinet-facts 3.1; seed 000 bit numbers). */
#define MYRI_LANAI_HOST_SIG 0x40000000u /* the host signals the LANai */
#define MYRI_LANAI_TIME_INT 0x00000020u /* bit 5: the interrupt timer reached 0 */
#define MYRI_LANAI_DMA_INT 0x00000010u  /* bit 4: the host DMA finished */
#define MYRI_LANAI_SEND_INT 0x00000008u /* bit 3: the send DMA finished (SMLT: the tail left) */
#define MYRI_LANAI_BUFF_INT 0x00000004u /* bit 2: the receive window filled before the tail */
#define MYRI_LANAI_RECV_INT 0x00000002u /* bit 1: a packet's tail was received */

/* DMA_DIR values (GAM-lcp; GM-lanai9 uses the same encoding). */
#define MYRI_LANAI_DIR_L2E 0u /* SRAM -> host memory (to-host DMA) */
#define MYRI_LANAI_DIR_E2L 1u /* host memory -> SRAM (from-host DMA) */

/* Where the host finds the HCB pointer (seed 001, crt0.s: `_hcb_ptr` at SRAM 0xC). */
#define MYRI_LANAI_HCB_PTR_ADDR 0xCu
/* CRL crt0 puts the stack top at 0x40000 (seed 001): firmware data below it. */
#define MYRI_LANAI_STACK_TOP 0x40000u

#ifdef __cplusplus
}
#endif

#endif
