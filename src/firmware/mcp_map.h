/* mcp_map.h -- seed 001's MCP with seed 002's mapping: the MCP's six
 * machines plus four mapping machines (map_rx, map_tx, mapper and their
 * tables in mcp_map_tables.c), as one firmware definition used when a
 * system scenario says `mapping: on` (docs/MAPPING.md).  With mapping off the
 * plain MCP (mcp.h) runs, unchanged.
 *
 * What the firmware does by itself: answers scouts from the unique ID and
 * level its host set in SRAM (the map control block), sends and receives
 * mapping packets on the send and receive DMA between the MCP's packets,
 * runs the election, drives the exploration and verification probes with
 * their time-outs (the interrupt timer), distributes the map, installs the
 * routes it computes in its route table (SRAM) and rewrites the HCB route
 * entries the host added, so that hosts' addresses keep translating to
 * working routes after a remap.
 *
 * The mapper's data-structure work -- the partial map and the choice of the
 * next probes, and the up*-down* routes on a map -- is done inside the
 * actions through a library (myri_mcp_map_lib, set by the job; src/map/
 * implements it with src/topo's route code), so this firmware includes no
 * topology code (dependency rule e) and its tables stay exportable: to a
 * model checker the library is a nondeterministic choice of the next probe.
 */
#ifndef MYRI_FIRMWARE_MCP_MAP_H
#define MYRI_FIRMWARE_MCP_MAP_H

#include "common/mapwire.h"
#include "firmware/mcp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The firmware definition: "mcp" (same parameters), with mapping. */
const myri_fw_def *myri_mcp_map_def(void);

/* A probe the library asks the firmware to send. */
typedef struct myri_mcp_map_probe {
    uint8_t kind;                          /* MYRI_MAPW_SCOUT or MYRI_MAPW_LOOP */
    uint8_t len;                           /* route bytes */
    uint8_t route[MYRI_MAPW_ROUTE_MAX];
    uint8_t ret_len;                       /* SCOUT: the return route */
    uint8_t ret[MYRI_MAPW_ROUTE_MAX];
    uint32_t tag;
} myri_mcp_map_probe;

/* What a probe brought back (a REPLY, or the LOOP itself). */
typedef struct myri_mcp_map_answer {
    uint8_t kind;                          /* MYRI_MAPW_REPLY or MYRI_MAPW_LOOP */
    uint32_t tag;
    uint64_t id;                           /* REPLY: the replier */
    uint8_t level, role;
} myri_mcp_map_answer;

/* The mapping library, one instance per NIC (ctx). */
typedef struct myri_mcp_map_lib {
    void *ctx;
    /* Begins a full exploration (verify false) or a verification sweep of
     * the current map; my_id/level are this NIC's. */
    void (*begin)(void *ctx, uint64_t my_id, uint8_t level, bool verify);
    /* After an exploration: scouts again every port the explored switches
     * showed empty (another NIC was mapping meanwhile); then as begin. */
    void (*rescout)(void *ctx);
    /* What next would do: 1 (a probe of the current batch), 0 (the batch is
     * sent: wait for its answers or time-out), -1 (finished). */
    int (*peek)(void *ctx);
    /* The next probe of the current batch (after peek gave 1). */
    void (*next)(void *ctx, myri_mcp_map_probe *p);
    /* Whether an answer with this tag belongs to the current batch, and the answer itself. */
    bool (*expects)(void *ctx, uint32_t tag);
    void (*answer)(void *ctx, const myri_mcp_map_answer *a);
    bool (*batch_answered)(void *ctx);     /* every probe of the batch answered */
    void (*timeout)(void *ctx);            /* the batch's time-out: the rest found nothing */
    /* After -1: 1 if the map changed (explore: always), 0 if a sweep found it
     * as it was, -1 if a sweep found a fault (explore again). */
    int (*changed)(void *ctx);
    /* The highest (level, id) host of the map (level 0 hosts included). */
    void (*best)(void *ctx, uint8_t *level, uint64_t *id);
    /* The map body (mapwire.h) into buf; its length, 0 if it does not fit. */
    uint32_t (*encode)(void *ctx, uint8_t *buf, uint32_t max);
    /* Host i (0 ..) of the map other than this one to send the map to: its
     * route from this NIC; 0 when there is none. */
    int (*dest)(void *ctx, uint32_t i, myri_mcp_map_probe *p);
    /* Computes this NIC's routes from a map body: the number of hosts
     * reachable, or -1 (bad map, or this NIC is not in it).  Then route(i)
     * gives host i's unique ID and route. */
    int (*routes)(void *ctx, const uint8_t *map, uint32_t n, uint64_t my_id);
    int (*route)(void *ctx, uint32_t i, uint64_t *id, uint8_t *bytes); /* length or -1 */
    /* Cycles the work of the last call costs (assumptions, docs/MAPPING.md). */
    uint32_t (*cycles)(void *ctx);
    /* Notes an event for the run's timeline (may be NULL). */
    void (*note)(void *ctx, const char *what, uint64_t a, uint64_t b);
} myri_mcp_map_lib;

/* The tunables of the mapping machines (times in ps; the job's map.* keys). */
typedef struct myri_mcp_map_cfg {
    myri_time_ps start_delay_ps;    /* a candidate waits this long, plus (below level 255) */
    myri_time_ps id_step_ps;        /*   1 + (the ID's low 4 bits inverted) of these */
    myri_time_ps probe_timeout_ps;  /* a batch of probes is answered within this */
    myri_time_ps verify_period_ps;  /* the mapper verifies its map this often */
    myri_time_ps mapper_timeout_ps; /* a follower that hears no mapper this long stands */
    bool election;                  /* false: every candidate maps (no deferring) */
    uint32_t max_hosts;             /* route table entries */
    myri_time_ps rtc_tick_ps;       /* the LANai's RTC tick (nic.rtc_tick): the interrupt timer's unit */
} myri_mcp_map_cfg;

/* Attaches the library and tunables to a firmware instance made from
 * myri_mcp_map_def(), before myri_lanai_start.  MYRI_EINVAL otherwise. */
myri_status myri_mcp_map_attach(myri_fw_inst *fi, const myri_mcp_map_cfg *cfg, const myri_mcp_map_lib *lib);
/* The SRAM address of the map control block: the host writes its unique ID
 * and level there (words, big-endian: MCB_ID_HI (16 bits), MCB_ID_LO,
 * MCB_LEVEL) before the LANai starts.  0 for another firmware. */
uint32_t myri_mcp_map_mcb_addr(const myri_fw_inst *fi);
enum { MYRI_MCP_MCB_MAGIC = 0, MYRI_MCP_MCB_ID_HI = 4, MYRI_MCP_MCB_ID_LO = 8, MYRI_MCP_MCB_LEVEL = 12,
       MYRI_MCP_MCB_BYTES = 16 };
#define MYRI_MCP_MCB_SIG 0x4d415031u /* "MAP1" */

/* The route table as the driver reads it: the route to the host of unique ID
 * id (bytes into out, at least 32): its length, or -1 (no route installed). */
int myri_mcp_map_route(const myri_fw_inst *fi, uint64_t id, uint8_t *out);
/* State for reports: role (MYRI_MAPW_ROLE_*), the mapper this NIC follows
 * (its id, 0 if none), maps installed. */
typedef struct myri_mcp_map_state {
    int role;
    uint64_t mapper_id;
    uint64_t installs, epoch;
    int hosts_routed;
} myri_mcp_map_state;
void myri_mcp_map_get_state(const myri_fw_inst *fi, myri_mcp_map_state *out);

/* Indices of the mapping machines, queue, variables and counters (after the
 * MCP's). */
enum { MYRI_MCPM_M_RX = MYRI_MCP_NMACHINES, MYRI_MCPM_M_TX, MYRI_MCPM_M_MAPPER, MYRI_MCPM_NMACHINES };
enum { MYRI_MCPM_Q_OUT = MYRI_MCP_NQUEUES, MYRI_MCPM_NQUEUES };
enum { MYRI_MCPM_V_ROLE = MYRI_MCP_NVARS, MYRI_MCPM_V_TX, MYRI_MCPM_NVARS };
enum {
    MYRI_MCPM_C_SCOUTS = MYRI_HCB_NCOUNT, /* probes sent (scouts and loops) */
    MYRI_MCPM_C_REPLIES,                  /* replies sent */
    MYRI_MCPM_C_ANSWERS,                  /* answers taken by the mapper */
    MYRI_MCPM_C_STALE,                    /* answers too late for their batch */
    MYRI_MCPM_C_TIMEOUTS,                 /* batches ended by their time-out */
    MYRI_MCPM_C_MAPS_SENT,
    MYRI_MCPM_C_MAPS_GOT,                 /* maps installed */
    MYRI_MCPM_C_BAD_MAP,                  /* maps that gave no routes (not in it, malformed) */
    MYRI_MCPM_C_YIELD,                    /* times this NIC stopped mapping for a higher one */
    MYRI_MCPM_C_OUT_FULL,                 /* scouts not answered: the out ring was full */
    MYRI_MCPM_C_REMAPS,                   /* sweeps that found a fault */
    MYRI_MCPM_C_RESCOUTS,                 /* empty ports scouted again: another NIC was mapping meanwhile */
    MYRI_MCPM_NCOUNT
};

#ifdef __cplusplus
}
#endif

#endif
