/* fabric_pcap.h -- packets seen on chosen links, written as a pcap file.
 *
 * Link type: DLT_USER0 (147).  Timestamps have nanosecond precision (the
 * file's magic is 0xa1b23c4d) and give the simulated time at which the
 * packet's first character was sent on the channel.  Each record is an
 * 8-byte pseudo-header followed by the packet's bytes exactly as they were on
 * that channel (route bytes still ahead, type, payload, CRC-8 trailer; the
 * GAP is not a byte and is not recorded):
 *   bytes 0-3  channel number, big-endian (2*link for a->b, 2*link+1 for b->a,
 *              as in topo.h and `myri topo --json`)
 *   byte  4    flags: bit 0 = packet truncated (timeout, cut link)
 *   byte  5    packet.type_bytes of the run (2 or 4); 0 in captures written
 *              before this byte was defined (then the reader must be told)
 *   byte  6    packet.crc_poly of the run (the CRC-8 polynomial, x^8 implied)
 *   byte  7    zero
 * Scenario key pcap.links chooses the links (both directions of each). */
#ifndef MYRI_FABRIC_PCAP_H
#define MYRI_FABRIC_PCAP_H

#include <stdint.h>

#include "fabric/fabric.h"
#include "topo/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MYRI_FPCAP_DLT 147 /* DLT_USER0 */
#define MYRI_FPCAP_HEADER_BYTES 8

typedef struct myri_fpcap_config {
    const myri_node *links; /* list of "HOST" or "SWITCH.PORT"; NULL = every host link */
    uint8_t type_bytes;     /* written into every record (byte 5): set by the caller */
    uint8_t crc_poly;       /* written into every record (byte 6): set by the caller */
} myri_fpcap_config;
extern const myri_param myri_fpcap_params[];
extern const size_t myri_fpcap_nparams;

typedef struct myri_fpcap myri_fpcap;

/* Opens `path` and taps the chosen links of `f` (named as endpoints:
 * myri_topo_endpoint_link in topo/topo.h).  Bad link names give
 * MYRI_EINPUT with FILE:LINE:COL; an unwritable file MYRI_EINPUT too. */
myri_status myri_fpcap_open(const char *path, const myri_topo *t, const myri_fpcap_config *c,
                            myri_fabric *f, myri_fpcap **out, myri_error *err);
/* Flushes and closes; returns the number of packets written.  NULL allowed.
 * Write errors are not reported: use myri_fpcap_finish for that. */
uint64_t myri_fpcap_close(myri_fpcap *p);
/* Flushes, checks every write and closes (p is freed in every case):
 * MYRI_OK with *packets set, or MYRI_EIO with "cannot write pcap file
 * 'PATH': REASON" in err when a write failed (disk full, I/O error). */
myri_status myri_fpcap_finish(myri_fpcap *p, uint64_t *packets, myri_error *err);

#ifdef __cplusplus
}
#endif

#endif
