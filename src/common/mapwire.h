/* mapwire.h -- the mapping packets on the wire (docs/MAPPING.md): what the
 * firmware's mapping machines (src/firmware/mcp_map*.c) and the mapper's
 * exploration and route code (src/map/) share.
 *
 * Type: MYRI_PACKET_TYPE_MYRI_MAP = 0x0006, the old Myricom MCP's mapping type
 * (myrinet-facts 1.3, [V] Cplant MCP.h).  Why this value: seed 001's MCP
 * sends a two-byte type, so GM-2's 0x700f is possible too, but 0x0006 is the
 * mapping type of the Myricom MCPs of seed 001's and 002's time; its only
 * neighbour conflict is 0x0008 (Cplant's MyriOption = GM's data type), which
 * we do not use; 0x0005 (MyriData) is the fabric job's traffic type and
 * 0x0370 seed 001's data type, so no packet of the simulator is mistaken for
 * a mapping packet.  The first type byte has MSB 0 (seed 002's rule).
 *
 * Frame after the route bytes (big-endian fields):
 *   0  type (2)            0x0006
 *   2  subtype (1)         MYRI_MAPW_SCOUT / REPLY / LOOP / MAP
 *   3  flags (1)           0
 *   4  tag (4)             SCOUT, LOOP: the probe's tag; REPLY: the scout's tag;
 *                          MAP: the map's epoch
 *   8  id (6)              SCOUT, LOOP, MAP: the mapper's unique ID; REPLY: the
 *                          replier's unique ID
 *   14 level (1)           the sender's mapping level (0 = never maps)
 *   15 role (1)            the sender's role (MYRI_MAPW_ROLE_*)
 *   16 ...                 SCOUT: return route length (1), return route bytes;
 *                          MAP: the map (below); REPLY, LOOP: nothing
 * The CRC-8 trailer follows, as on every packet.
 *
 * Map body (MAP, from byte 16): hosts (2), switches (2), links (2), 2 bytes
 * 0; then per host its unique ID (6), level (1), 0 (1); then per link its two
 * ends, each node (2: hosts 0..H-1, then switches H..) and port (1: the
 * switch's port in the mapper's numbering; 0 for a host).
 */
#ifndef MYRI_COMMON_MAPWIRE_H
#define MYRI_COMMON_MAPWIRE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MYRI_MAPW_TYPE 0x0006u     /* MyriMap (myrinet-facts 1.3) */
enum { MYRI_MAPW_SCOUT = 1, MYRI_MAPW_REPLY = 2, MYRI_MAPW_LOOP = 3, MYRI_MAPW_MAP = 4 };
/* Roles: FOLLOWER (has, or waits for, a mapper), CANDIDATE (level > 0, waits
 * for its turn), MAPPING (exploring or verifying), MAPPER (holds the map). */
enum { MYRI_MAPW_ROLE_FOLLOWER = 0, MYRI_MAPW_ROLE_CANDIDATE = 1, MYRI_MAPW_ROLE_MAPPING = 2 };

enum {
    MYRI_MAPW_OFF_TYPE = 0,
    MYRI_MAPW_OFF_SUB = 2,
    MYRI_MAPW_OFF_TAG = 4,
    MYRI_MAPW_OFF_ID = 8,
    MYRI_MAPW_OFF_LEVEL = 14,
    MYRI_MAPW_OFF_ROLE = 15,
    MYRI_MAPW_HDR_BYTES = 16,
    MYRI_MAPW_HOST_BYTES = 8,
    MYRI_MAPW_LINK_BYTES = 6,
    MYRI_MAPW_MAP_HDR_BYTES = 8
};
#define MYRI_MAPW_ROUTE_MAX 32u    /* route bytes a packet may carry (the fabric's limit) */
#define MYRI_MAPW_ID_MASK UINT64_C(0xffffffffffff) /* unique IDs are 48 bits (6 bytes) */

static inline void myri_mapw_put48(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 6; i++) p[i] = (uint8_t)(v >> (8 * (5 - i)));
}
static inline uint64_t myri_mapw_get48(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 6; i++) v = v << 8 | p[i];
    return v;
}
static inline void myri_mapw_put16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline uint32_t myri_mapw_get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }

/* A route offset of relative addressing as a route byte, and back
 * (docs/TOPOLOGY.md: 0x80 | ((out - in) & 0x3f), 6-bit two's complement). */
static inline uint8_t myri_mapw_rel(int d) { return (uint8_t)(0x80u | ((unsigned)d & 0x3fu)); }
static inline int myri_mapw_off(uint8_t b) { return (b & 0x20u) ? (int)(b & 0x3fu) - 64 : (int)(b & 0x3fu); }

/* (level, id) ordering of the election: the higher level wins, the higher
 * unique ID breaks ties. */
static inline int myri_mapw_cmp(uint8_t la, uint64_t ia, uint8_t lb, uint64_t ib)
{
    if (la != lb) return la < lb ? -1 : 1;
    return ia < ib ? -1 : ia > ib ? 1 : 0;
}

#ifdef __cplusplus
}
#endif

#endif
