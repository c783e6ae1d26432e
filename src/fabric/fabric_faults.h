/* fabric_faults.h -- scripted faults of the `fabric` scenario job (issue 3):
 * links cut and restored at given times, and a chosen packet corrupted on a
 * chosen channel.  The scenario key is a top-level list:
 *
 *   faults:
 *     - {at: 100us, action: cut, link: s0.4}
 *     - {at: 300us, action: restore, link: s0.4}
 *     - {action: corrupt, link: h1, from: h1, source: h1, seq: 3, byte: 8, mask: 0x01}
 *
 * `link` names a link as pcap.links does: HOST (the host's link) or
 * NODE.PORT.  Times are absolute simulated times (warm-up included), at most
 * warmup + duration.  A corrupt item names no time: it XORs `mask` into
 * character number `byte` of the packet as it is on the channel leaving
 * `from` (0 = first character on that channel, the route bytes still ahead
 * of it), whenever it crosses that channel.  The packet is `packet: ID` or
 * `source: HOST` + `seq: N` (ids are (host index << 40) | N, N counting the
 * host's packets from 0: myri_packet_id in common/packet.h).  docs/TOPOLOGY.md
 * has the rules.
 *
 * Cuts and restores go into the fabric's own agenda at their exact times
 * (myri_fabric_cut_link / _restore_link take the time); corruptions are
 * registered with myri_fabric_corrupt.  The module also records, for each
 * corrupt item, what became of its packet, for the report.
 */
#ifndef MYRI_FABRIC_FAULTS_H
#define MYRI_FABRIC_FAULTS_H

#include <stdint.h>
#include <stdio.h>

#include "fabric/fabric.h"
#include "topo/topo.h"
#include "myri/config.h"
#include "myri/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_ffaults_config {
    const myri_node *faults; /* the `faults:` list, NULL when absent */
} myri_ffaults_config;
/* Table for prefix "": the key `faults` (MYRI_P_NODE, default absent). */
extern const myri_param myri_ffaults_params[];
extern const size_t myri_ffaults_nparams;

typedef struct myri_ffaults myri_ffaults;

/* myri_ffaults_note's reason for a packet that reached another host with a
 * good CRC (myri_fabric_callbacks.misdelivered): fate "misdelivered". */
#define MYRI_FFAULTS_MISDELIVERED (-3)
/* Validates every item against topology t (link names, directions, hosts,
 * times <= end_ps, cut/restore order per link) and schedules the faults on
 * f.  Returns MYRI_OK with *out set (NULL when there are no faults), or
 * MYRI_EINPUT with FILE:LINE:COL of the offending item or key, or
 * MYRI_ENOMEM.  The caller frees *out with myri_ffaults_free. */
myri_status myri_ffaults_apply(const myri_ffaults_config *c, const myri_topo *t, myri_fabric *f,
                               myri_time_ps end_ps, myri_ffaults **out, myri_error *err);
/* Records the fate of a packet (call from the fabric's callbacks): delivered
 * (reason < 0) or dropped with `reason`, at time t.  NULL ff is a no-op. */
void myri_ffaults_note(myri_ffaults *ff, uint64_t id, int reason, myri_time_ps t);
/* A cut run's partitions each note the fates they see (docs/PARTITION.md
 * step 9), and the gathering merges them, in one process or across ranks:
 * myri_ffaults_pack writes the fates as 2 words per item (fate, fate_ps) into
 * w when cap_words allows, and returns the words needed (0 for NULL ff);
 * myri_ffaults_merge_packed takes such words' fate of every item dst has none
 * for (both made from the same `faults:` list; a packet noted in both is
 * settled by the gathering's first claim, myri_ffaults_note again).
 * MYRI_EINVAL, dst unchanged, if nw is not 2 x dst's items or a fate is out of
 * range (the words came from another process: untrusted). */
size_t myri_ffaults_pack(const myri_ffaults *ff, uint64_t *w, size_t cap_words);
myri_status myri_ffaults_merge_packed(myri_ffaults *dst, const uint64_t *w, size_t nw);
/* Number of fault items (0 for NULL). */
size_t myri_ffaults_count(const myri_ffaults *ff);
/* Writes "faults": [ ... ] as a member of the current JSON object: per item
 * its action, time (at_ps), link number and name, and for corrupt items the
 * channel, packet id, byte, mask and the packet's "fate" ("delivered",
 * a drop reason, or "not_finished": not delivered nor dropped by the end,
 * which includes never sent).  Writes nothing for NULL. */
void myri_ffaults_report_json(const myri_ffaults *ff, myri_json *j);
/* One text line per item ("faults       cut s0.4 (link 12) at 100us"). */
void myri_ffaults_report_text(const myri_ffaults *ff, FILE *out);
void myri_ffaults_free(myri_ffaults *ff);

#ifdef __cplusplus
}
#endif

#endif
