/* lanai_nic.h -- C names for the LANai 4 registers as firmware of the kind
 * `elf` reaches them on Myri's simulated NIC (src/firmware/fw_elf.h,
 * docs/LANAI.md "On the NIC"): the register window 0xFFFFFF00 + the offsets
 * of src/common/lanai_regs.h, with ISR and IMR (processor registers on the
 * LANai 4) at window offsets 0xe0 and 0xe4, and the simulator-only COUNT
 * word (0xe8) through which the program counts by role for the report. */
#ifndef MYRI_LANAI_NIC_H
#define MYRI_LANAI_NIC_H

#include "common/lanai_regs.h"
#include "lanai.h"

#define LANAI_REG(off) (*(volatile unsigned *)(0xFFFFFF00u + (unsigned)(off)))
#define LANAI_ISR LANAI_REG(0xe0)
#define LANAI_IMR LANAI_REG(0xe4)
#define LANAI_COUNT LANAI_REG(0xe8)

/* Counter indices of LANAI_COUNT (MYRI_FW_ELF_C_* of fw_elf.h). */
#define LANAI_COUNT_RX_GOOD 0u
#define LANAI_COUNT_RX_CRC 1u
#define LANAI_COUNT_RX_OTHER 2u
#define LANAI_COUNT_TX_SENT 3u
#define LANAI_COUNT_APP 4u

/* Filled by the simulator before the program starts, when it defines them. */
extern unsigned myri_node_index;          /* this NIC's host index */
extern unsigned myri_nhosts;              /* hosts in the network (rows of myri_routes filled) */
extern unsigned char myri_routes[][8];    /* [host]: byte 0 the route's length, then its bytes */

#endif
