/* mcp_map_int.h -- the mapping firmware's state and actions, shared by
 * mcp_map.c (state, actions) and mcp_map_tables.c (events, guards, rules,
 * the combined definition).  Internal. */
#ifndef MYRI_FIRMWARE_MCP_MAP_INT_H
#define MYRI_FIRMWARE_MCP_MAP_INT_H

#include "firmware/mcp_int.h"
#include "firmware/mcp_map.h"

#define MCPM_NOUT 8u              /* out ring entries (assumption: replies and a few probes in flight) */
#define MCPM_ROUTE_AREA 32u       /* route bytes before the frame in an out entry */
#define MCPM_RESCOUT_MAX 2u        /* re-scouts in a row at most (then the map goes out as it is) */
#define MCPM_RT_BYTES 44u         /* route table entry: id hi, id lo, length, 32 route bytes */

typedef struct mcpm_out {
    uint32_t rl, fl;              /* route and frame bytes */
} mcpm_out;

typedef struct mcpm {
    mcp m;                        /* first: the MCP's actions take a mcpm as a mcp */
    myri_mcp_map_cfg cfg;
    myri_mcp_map_lib lib;
    bool attached;
    uint32_t mcb;                 /* SRAM: the map control block */
    uint32_t out_base, out_bytes, out_head, out_tail;
    mcpm_out out[MCPM_NOUT];
    uint32_t rt_base, nrt;        /* SRAM route table, entries installed */
    uint32_t frame_max;           /* largest mapping frame (the receivers' rx window) */
    uint64_t my_id;
    uint8_t level;
    uint64_t mapper_id;           /* the mapper this NIC follows (0: none yet) */
    uint8_t mapper_level;
    uint32_t epoch, dest_i;       /* map epoch; next host to send the map to */
    uint64_t installs;
    bool disturbed;               /* this mapper answered a scout of another mapping NIC (election on) */
    uint32_t rescouts;            /* re-scouts in a row because of that */
    uint64_t *hcb_dest;           /* per HCB route entry: destination id + 1 (0: not resolved) */
    uint8_t *map;                 /* the map body this NIC distributes (mapper) */
    uint32_t map_len;
} mcpm;

#define MCPM(fw) ((mcpm *)(fw))

/* The frame of the rx pool's head packet if it is a mapping packet (NULL
 * otherwise) and its bytes without the CRC byte. */
const uint8_t *myri_mcpm_head(mcpm *s, uint32_t *n);
bool myri_mcpm_out_room(const mcpm *s);
/* Arms the interrupt timer for `ps` (0: stops it). */
void myri_mcpm_timer(mcpm *s, myri_time_ps ps);
myri_time_ps myri_mcpm_start_delay(const mcpm *s);
bool myri_mcpm_map_has_me(mcpm *s, const uint8_t *f, uint32_t n);
void myri_mcpm_read_mcb(mcpm *s);

#define MCPM__ACT(n) void myri_mcpm_a_##n(void *fw, myri_lanai *l);
MCPM__ACT(stand) MCPM__ACT(follow) MCPM__ACT(explore) MCPM__ACT(stand_again) MCPM__ACT(time_ignored)
MCPM__ACT(abort) MCPM__ACT(abort_timer) MCPM__ACT(send_probe) MCPM__ACT(collect) MCPM__ACT(map_done)
MCPM__ACT(yield_to_best) MCPM__ACT(verified) MCPM__ACT(remap) MCPM__ACT(batch_done) MCPM__ACT(batch_timeout)
MCPM__ACT(send_map) MCPM__ACT(distributed) MCPM__ACT(verify) MCPM__ACT(rescout) MCPM__ACT(rescout_timer)
MCPM__ACT(defer) MCPM__ACT(answer) MCPM__ACT(scout_busy) MCPM__ACT(yield_reply) MCPM__ACT(take_answer)
MCPM__ACT(stale) MCPM__ACT(install) MCPM__ACT(map_ignored) MCPM__ACT(drop_other)
MCPM__ACT(map_send) MCPM__ACT(map_sent)
#undef MCPM__ACT
uint32_t myri_mcpm_x_install(void *fw, myri_lanai *l);
uint32_t myri_mcpm_x_map_done(void *fw, myri_lanai *l);
uint32_t myri_mcpm_x_lib(void *fw, myri_lanai *l);

myri_status myri_mcpm_create(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out);
void myri_mcpm_destroy(void *fw);

#endif
