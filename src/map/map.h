/* map.h -- network mapping (seed 002; Mainwaring et al. 1997): the mapper's
 * exploration, the discovered map, routes on it, and the check of a map
 * against the true topology.  See docs/MAPPING.md.
 *
 * The explorer is the library the mapping firmware calls
 * (firmware/mcp_map.h, myri_mcp_map_lib): it chooses the probes, records
 * what they found, and builds the map; the same object computes a NIC's
 * up*-down* routes on a map it received (src/topo's route code).
 *
 * Method (relative addressing, switch.addressing: relative, is required: a
 * route byte is an offset out - in, so the way back of any route is the
 * reversed route with the offsets negated, and offset 0 reflects a packet
 * back out of the port it came in by):
 *  - the mapper's switch is reached with the empty route, entered on its
 *    "frame port" 0; each switch is known in a frame of its own (ports
 *    relative to the port it was first entered by);
 *  - at a switch reached by route R: a batch of host probes (scouts) R.d for
 *    every offset d != 0 (a host answers with its unique ID), then a batch of
 *    loop probes R.d.0.(-d).R^-1 for the offsets without a host (they come
 *    back if a switch is at d);
 *  - identity: a switch with a host is the switch that host is on (hosts
 *    have one port); a switch without hosts is compared with the known
 *    host-less switches whose occupied ports match its own up to a shift p,
 *    by a loop test R.(-p).Rt^-1 that returns to the mapper only if it is
 *    that switch entered on frame port p (walks of relative offsets are
 *    invertible: two walks with the same offsets that end at the same host
 *    started at the same switch and port).
 *  - limits: every probe route has at most 32 bytes, so a switch more than
 *    14 hops from the mapper's switch is not explored (unmappable); absolute
 *    port numbers are not known (a switch's ports are numbered from its
 *    lowest used port).
 */
#ifndef MYRI_MAP_MAP_H
#define MYRI_MAP_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "firmware/mcp_map.h"
#include "myri/config.h"
#include "topo/topo.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MYRI_MAP_MAX_SWITCHES 1024u
#define MYRI_MAP_MAX_HOSTS 4096u
#define MYRI_MAP_OFFSETS 63       /* frame ports -31 .. 31 */
#define MYRI_MAP_NO_LINK (-1)

/* A discovered map: hosts 0..nhosts-1 (host 0 = the mapper), switches after;
 * a link joins (node, port) pairs, node = host index or nhosts + switch. */
typedef struct myri_map_link {
    uint32_t a, b;
    uint32_t pa, pb;
} myri_map_link;

typedef struct myri_map {
    uint32_t nhosts, nswitches, nlinks;
    uint64_t *id;              /* per host: unique ID */
    uint8_t *level;            /* per host */
    uint32_t *sw_ports;        /* per switch: port count (4, 8, 16, 32) */
    myri_map_link *link;
    size_t cap_hosts, cap_switches, cap_links;
} myri_map;

void myri_map_init(myri_map *m);
void myri_map_free(myri_map *m);
myri_status myri_map_copy(myri_map *dst, const myri_map *src);
/* Wire form (common/mapwire.h map body): encode returns the bytes written,
 * 0 if they do not fit in max; decode: MYRI_EINVAL for a malformed body. */
uint32_t myri_map_encode(const myri_map *m, uint8_t *buf, uint32_t max);
myri_status myri_map_decode(myri_map *m, const uint8_t *buf, uint32_t n);
/* The map as a topology (hosts named by their IDs in hex, "id0060dd000003";
 * switches "m0", "m1" ...). */
myri_status myri_map_to_topo(const myri_map *m, myri_topo **out, myri_error *err);

/* ---- the explorer (one per NIC) ------------------------------------------------------------ */
typedef struct myri_map_cfg {
    uint32_t ports;            /* largest switch port count the mapper probes for (map.ports) */
    uint32_t remap_every;      /* a full exploration every this many verification sweeps (0: never) */
} myri_map_cfg;

typedef struct myri_map_explorer myri_map_explorer;
myri_map_explorer *myri_map_explorer_create(const myri_map_cfg *cfg);
void myri_map_explorer_destroy(myri_map_explorer *x);
/* The library the mapping firmware calls, on this explorer. */
void myri_map_explorer_lib(myri_map_explorer *x, myri_mcp_map_lib *lib);
/* Notes go to fn (may be NULL). */
void myri_map_explorer_set_note(myri_map_explorer *x, void (*fn)(void *ctx, const char *what, uint64_t a, uint64_t b),
                                void *ctx);
/* The last map this explorer built (as mapper), or NULL. */
const myri_map *myri_map_explorer_map(const myri_map_explorer *x);
typedef struct myri_map_xstats {
    uint64_t probes, batches, timeouts, explorations, sweeps, faults;
    uint32_t unexplored;       /* switches found but not explored (route too long) */
} myri_map_xstats;
void myri_map_explorer_stats(const myri_map_explorer *x, myri_map_xstats *out);

/* ---- checking a map against the true network -------------------------------------------------- */
typedef struct myri_map_check {
    bool isomorphic;           /* every mappable node and link matched, one to one, nothing extra */
    uint32_t true_hosts, true_switches, true_links;   /* the mappable part of the true network */
    uint32_t unmappable_n;
    uint32_t *unmappable;      /* true node indices that cannot be mapped (malloc'd) */
    uint32_t *sw_true;         /* per map switch: the true switch node index (malloc'd) */
    uint32_t mainwaring_n;     /* switches beyond a switch-bridge that reaches no host (Mainwaring's F) */
    char why[256];             /* the first difference, when not isomorphic */
} myri_map_check;
/* Compares map m, made by the mapper on host `mapper_host` of topology t,
 * with t minus what cannot be mapped from there (switches more than `reach`
 * switch hops from the mapper's switch, their hosts and links).  host_of_id
 * gives the true host index of a unique ID (-1 if none). */
myri_status myri_map_check_topo(const myri_map *m, const myri_topo *t, uint32_t mapper_host, uint32_t reach,
                                int64_t (*host_of_id)(void *ctx, uint64_t id), void *ctx, myri_map_check *out);
/* The same against the network with some links cut: link_dead[l] for each
 * true link l (NULL: none).  What the mapper cannot reach over live links is
 * unmappable (a host whose cable is cut, a part split off), and a map link on
 * a dead link is a difference.  (A dead host is its cut cable.) */
myri_status myri_map_check_live(const myri_map *m, const myri_topo *t, const bool *link_dead, uint32_t mapper_host,
                                uint32_t reach, int64_t (*host_of_id)(void *ctx, uint64_t id), void *ctx,
                                myri_map_check *out);
void myri_map_check_free(myri_map_check *c);
#define MYRI_MAP_REACH 14u         /* switch hops a loop probe can explore (2 x 14 + 3 + ... <= 32 route bytes) */

/* Text (one line per host, switch and link), JSON members, DOT. */
void myri_map_write_text(const myri_map *m, FILE *out);
void myri_map_write_dot(const myri_map *m, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
