/* fw_elf.h -- the firmware kind `elf`: a program compiled for the LANai
 * (clang --target=lanai), linked from relocatable objects into the NIC's own
 * SRAM and run instruction by instruction by the LANai CPU (src/cpu/) on the
 * simulated NIC.  See docs/LANAI.md, "On the NIC".
 *
 * Scenario keys: `firmware: elf`, `elf.objects: [a.o, b.o]` (paths as given,
 * relative to the working directory), `elf.entry` (default main),
 * `elf.quantum` (cycles the CPU runs at most between two looks at the
 * simulation's clock).
 *
 * The register window 0xFFFFFF00 + offset reaches the LANai register file at
 * the offsets of common/lanai_regs.h; ISR and IMR (processor registers on
 * LANai 4, pseudo-offsets 0x100/0x104 in lanai_regs.h) sit at the
 * MYRI_FW_ELF_ISR/IMR offsets of the window, and simulator-only words let
 * the program count by role (MYRI_FW_ELF_COUNT) and print (the runtime's
 * console word).  firmware/lanai/runtime/lanai_nic.h gives C names for all.
 */
#ifndef MYRI_FIRMWARE_FW_ELF_H
#define MYRI_FIRMWARE_FW_ELF_H

#include <stdint.h>

#include "firmware/firmware.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Window offsets of the processor registers and simulator-only words. */
#define MYRI_FW_ELF_ISR 0xe0u   /* ISR: read; a store of 1 bits clears them */
#define MYRI_FW_ELF_IMR 0xe4u   /* IMR: non-zero only with a lanai_isr (called when ISR & IMR != 0) */
#define MYRI_FW_ELF_COUNT 0xe8u /* a store of k bumps counter k of the kind (MYRI_FW_ELF_C_*) */

/* The counters of the kind, by index (the first ones are stored by the
 * program through MYRI_FW_ELF_COUNT; the cpu_* ones by the simulator). */
enum {
    MYRI_FW_ELF_C_RX_GOOD = 0, /* a packet received with a good CRC and taken */
    MYRI_FW_ELF_C_RX_CRC,      /* a packet received with a bad CRC and dropped */
    MYRI_FW_ELF_C_RX_OTHER,    /* a packet received and dropped for another reason */
    MYRI_FW_ELF_C_TX_SENT,     /* a packet sent */
    MYRI_FW_ELF_C_APP,         /* the program's own count (e.g. round trips) */
    MYRI_FW_ELF_C_INSNS,       /* simulator: instructions executed */
    MYRI_FW_ELF_C_CYCLES,      /* simulator: CPU cycles (instructions + stalls + SRAM waits) */
    MYRI_FW_ELF_C_STALLS,      /* simulator: load-use stalls */
    MYRI_FW_ELF_C_STEPS,       /* simulator: CPU steps (runs between looks at the clock) */
    MYRI_FW_ELF_C_POLL_INSNS,  /* simulator: instructions of polling passes that found nothing (below) */
    MYRI_FW_ELF_C_POLL_CYCLES, /* simulator: their cycles; the rest of cpu_cycles is the firmware's work */
    MYRI_FW_ELF_C_SRAM_ACC,    /* simulator: the CPU's loads and stores of SRAM in work steps */
    MYRI_FW_ELF_C_DMA_WORDS,   /* simulator: SRAM cycles the packet interface took during work steps */
    MYRI_FW_ELF_C_SRAM_WAITS,  /* simulator: cycles the CPU waited for SRAM (elf.sram_contention) */
    MYRI_FW_ELF_NCOUNTERS
};

extern const myri_fw_def myri_fw_elf_def;

/* Tells the program where it is, before myri_lanai_start: the words
 * `myri_node_index` and `myri_nhosts` and the table
 * `unsigned char myri_routes[N][8]` (byte 0 the route's length, then its
 * bytes) are filled when the program defines them.  route(ctx, from, to,
 * bytes, max) returns a route's length or -1.  MYRI_EINVAL if fi is not of
 * this kind. */
myri_status myri_fw_elf_setup(myri_fw_inst *fi, uint32_t node, uint32_t nhosts,
                              int (*route)(void *ctx, uint32_t from, uint32_t to, uint8_t *bytes, int max),
                              void *ctx);

/* The built-in C MCP (elf.objects empty) takes the parsed mcp.* of the
 * scenario (myri_mcp_params, firmware/mcp.h): its geometry words are filled
 * at load, recv_mode when `at` (the document's mcp section) gives it; keys it
 * cannot honour, user objects with an mcp section, or buffers that do not
 * fit in SRAM are refused at load, at the node.  elf_params: the kind's
 * parameter struct (myri_sys_cfg's fwp); mcp must outlive the firmware. */
struct myri_mcp_params;
void myri_fw_elf_use_mcp(void *elf_params, const struct myri_mcp_params *mcp, const myri_node *at);

#ifdef __cplusplus
}
#endif

#endif
