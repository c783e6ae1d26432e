/* system_vcd.h -- a timeline of each NIC as a Value Change Dump (IEEE 1364
 * VCD, readable in GTKWave): per NIC the host DMA (0 idle, 1 to host, 2 from
 * host), the send DMA and the receive DMA (busy bits), the CPU (0 idle,
 * 1 user context, 2 system context), the ISR, the DMA registers (EAR, LAR,
 * DMA_CTR, SMP, SML, SMLT, RMP, RML: 32-bit vectors, see
 * MYRI_LANAI_EV_DMAREG for when they change), and the state of each firmware
 * state machine.  Fed by the LANai's trace observers (src/nic/lanai.h).
 * The receive DMA is busy from its packet's first byte (or its window's arm,
 * if later) to the window's end, though the LANai tells that interval only
 * at its end: changes wait in a buffer until no earlier one can come.
 * Timescale 1 ps (simulated time). */
#ifndef MYRI_APP_SYSTEM_VCD_H
#define MYRI_APP_SYSTEM_VCD_H

#include <stddef.h>

#include "myri/config.h"
#include "nic/lanai.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_vcd myri_vcd;

/* Opens `path` for writing (MYRI_EIO with the reason in err). */
myri_status myri_vcd_open(const char *path, myri_vcd **out, myri_error *err);
/* Declares a NIC (before myri_vcd_begin): its scope name (letters, digits,
 * '_' and '-' kept, others replaced) and its firmware's machine names (the
 * strings must outlive the writer).  Subscribes to the LANai's trace. */
myri_status myri_vcd_add_nic(myri_vcd *v, myri_lanai *l, const char *name, const char *const *machines,
                             size_t nmachines);
/* Writes the header and the initial values (all zero) at time 0. */
myri_status myri_vcd_begin(myri_vcd *v);
/* Writes the final time stamp, closes the file and frees the writer (NULL is
 * allowed).  MYRI_EIO if a write failed at any point. */
myri_status myri_vcd_close(myri_vcd *v, myri_time_ps end_ps, myri_error *err);

#ifdef __cplusplus
}
#endif

#endif
