/* system_map.h -- the system job with `mapping: on` (docs/MAPPING.md): the
 * map.* keys, the unique IDs and levels the hosts set in their NICs, one
 * explorer (src/map/) per NIC as the mapping firmware's library, the routes
 * programs get from their NIC's route table, the run's mapping timeline.
 * Internal to the system job. */
#ifndef MYRI_APP_SYSTEM_MAP_H
#define MYRI_APP_SYSTEM_MAP_H

#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"
#include "myri/json.h"
#include "myri/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct myri_sysmap_cfg {
    int64_t level;
    const myri_node *levels;       /* {host: level, ...} */
    const char *mapper;            /* manual choice: "" or a host name */
    uint64_t probe_timeout_ps, verify_period_ps, start_delay_ps, id_step_ps, mapper_timeout_ps;
    int64_t ports, remap_every, max_hosts;
    bool election;
} myri_sysmap_cfg;

extern const myri_param myri_sysmap_params[];
extern const size_t myri_sysmap_nparams;
extern const myri_param myri_sysmap_top_params[]; /* `mapping: off|on` (into an int) */
extern const size_t myri_sysmap_ntop;

/* The unique ID of host index h (docs/MAPPING.md: Myricom's OUI 00:60:dd,
 * then the host's number; an assumption). */
uint64_t myri_sysmap_id(uint32_t h);

typedef struct myri_sysmap myri_sysmap;
typedef struct myri_lanai myri_lanai;
typedef struct myri_fw_inst myri_fw_inst;
typedef struct myri_topo myri_topo;

/* Checks the configuration against the network and creates the state (NULL
 * out when mapping is off).  MYRI_EINPUT with err for bad input. */
myri_status myri_sysmap_create(const myri_sysmap_cfg *c, int mapping, int addressing, const char *firmware,
                               const myri_topo *t, myri_sim *sim, const myri_node *root, const myri_param *nic_tick,
                               myri_time_ps rtc_tick_ps, myri_sysmap **out, myri_error *err);
void myri_sysmap_destroy(myri_sysmap *m);
/* The NIC of host i after its firmware is created, before the LANai starts:
 * attaches the explorer, writes the map control block. */
myri_status myri_sysmap_nic(myri_sysmap *m, uint32_t i, myri_fw_inst *fw, myri_lanai *l);
/* Route bytes from host `from` to host `to` out of from's NIC (-1: none yet). */
int myri_sysmap_route(const myri_sysmap *m, myri_fw_inst *fw_from, uint32_t to, uint8_t *bytes, int max);
/* Stop the simulation once the first map is installed on every host of it. */
void myri_sysmap_stop_when_mapped(myri_sysmap *m, bool on);

typedef struct myri_sysmap_summary {
    int32_t mapper;                /* host index of the last mapper, -1 none */
    uint64_t mapper_id;
    myri_time_ps explore_ps;       /* the elected mapper began exploring */
    myri_time_ps mapped_ps;        /* the first map was installed on all its hosts (0: never) */
    myri_time_ps map_time_ps;      /* from its mapper's start of exploration to then */
    uint64_t packets;              /* mapping packets sent (probes, replies, maps) */
    uint32_t maps_complete;        /* maps installed on all their hosts */
    uint64_t mapper_timeouts;      /* the mapper's probe batches that ended by map.probe_timeout */
    myri_time_ps probe_timeout_ps; /* map.probe_timeout (an assumption, docs/MAPPING.md) */
} myri_sysmap_summary;

/* Mainwaring et al., "System Area Network Mapping" (SPAA 1997, myrinet-facts
 * section 2): their mapper on a NOW of UltraSPARCs, measured. */
typedef struct myri_sysmap_paper {
    uint32_t hosts, switches, links;
    double ms;
} myri_sysmap_paper;
extern const myri_sysmap_paper myri_sysmap_mainwaring[2];
void myri_sysmap_get_summary(const myri_sysmap *m, myri_fw_inst *const *fw, uint32_t n, myri_sysmap_summary *out);
/* The last complete map (the mapper's), or NULL. */
const struct myri_map *myri_sysmap_map(const myri_sysmap *m);
/* The last map host h's NIC built as a mapper (its explorer's), or NULL:
 * with several parts or a re-election, each mapper's own. */
const struct myri_map *myri_sysmap_map_of(const myri_sysmap *m, uint32_t h);
/* Timeline and figures, text and JSON (fw: every NIC's firmware). */
void myri_sysmap_text(const myri_sysmap *m, myri_fw_inst *const *fw, uint32_t n, const myri_topo *t, FILE *o);
void myri_sysmap_json(const myri_sysmap *m, myri_fw_inst *const *fw, uint32_t n, const myri_topo *t, myri_json *j);

#ifdef __cplusplus
}
#endif

#endif
