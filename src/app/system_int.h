/* system_int.h -- inside the system job: its configuration and one run
 * (system_job.c builds and runs, system_report.c writes the results). */
#ifndef MYRI_APP_SYSTEM_INT_H
#define MYRI_APP_SYSTEM_INT_H

#include "app/system_job.h"
#include "app/part.h"
#include "app/sweep.h"
#include "app/system_map.h"
#include "app/system_vcd.h"
#include "fabric/fabric.h"
#include "fabric/fabric_faults.h"
#include "fabric/fabric_pcap.h"
#include "firmware/firmware.h"
#include "firmware/mcp.h"
#include "host/host.h"
#include "live/live.h"
#include "nic/bus.h"
#include "nic/lanai.h"
#include "topo/topo.h"

#define MYRI_SYS_MAX_PSETS 20
#define MYRI_SYS_MAX_ARGS 64
#define MYRI_SYS_MAX_MACHINES 32
#define MYRI_SYS_MAX_COUNTERS 64
#define MYRI_SYS_MAX_USER 16       /* --program options */

typedef struct myri_sys_cfg {
    myri_scenario_common common;
    const char *preset, *firmware;
    bool check_firmware;
    const myri_node *programs;
    myri_fabric_params fp;
    myri_topo_config topo;
    myri_lanai_params nic;
    myri_bus_params bus;
    myri_host_params host;
    myri_ffaults_config faults;
    myri_fpcap_config pcap;    /* pcap.links: what --pcap captures */
    const myri_fw_def *fw;
    const myri_fw_def *fw_named; /* the firmware the document names (fw: with mapping, its mapping variant) */
    void *fwp;                 /* the firmware's parameter struct */
    myri_mcp_params elf_mcp;   /* firmware elf, the built-in C MCP: its mcp.* (fw_elf.h) */
    myri_pset ps[MYRI_SYS_MAX_PSETS];
    size_t nps;
    int mapping;               /* `mapping: off|on` (docs/MAPPING.md) */
    myri_sysmap_cfg map;       /* map.* */
    bool map_stop;             /* stop the run once the first map is installed (myri map) */
    bool topo_len_follows;     /* topology.length not given: it follows link.length (sweeps too) */
    myri_sweep sweep;          /* sweep.* (system_sweep.c) */
    myri_live_params live;     /* live.* (myri live, docs/LIVE.md) */
} myri_sys_cfg;

typedef struct myri_sys_nic {
    myri_bus *bus;
    myri_lanai *lanai;
    myri_fw_inst *fw;
    myri_host *host;
} myri_sys_nic;

/* One entry of `programs:` (system_job.c): its instances start at `start`, or,
 * with `after`, `start` after every instance of that earlier entry returned. */
typedef struct myri_sys_entry {
    const char *program;
    myri_prog_main fn;
    int argc;
    const char *argv[MYRI_SYS_MAX_ARGS]; /* pointers into the document */
    bool *on;                            /* the hosts it runs on (nhosts flags) */
    myri_time_ps start_ps;
    int after;                           /* the entry it follows, or -1 */
    size_t running;                      /* instances started and not yet returned */
    bool started;
} myri_sys_entry;

typedef struct myri_sys_run {
    myri_topo_built b;
    bool have_b;
    myri_sim *sim;
    myri_fabric *fabric;
    myri_sys_nic *nic;
    uint32_t nnic;
    myri_vcd *vcd;
    myri_ffaults *faults;          /* scripted faults (NULL: none) */
    myri_fpcap *pcap;              /* --pcap (NULL: none) */
    uint64_t pcap_packets;         /* packets it wrote */
    myri_sysmap *map;              /* mapping: on (NULL: off) */
    struct myri_sys_user {         /* the --program shared objects, by the name entries give them */
        char name[32];
        const char *path;
        void *dl;
        myri_prog_main main;
        bool used;
    } user[MYRI_SYS_MAX_USER];
    size_t nuser;
    const char *machine_names[MYRI_SYS_MAX_MACHINES];
    bool no_advance;               /* opts->no_advance */
    size_t nprograms, nexited;     /* programs to run / returned: the run stops when all returned */
    myri_sys_entry *entry;         /* the `programs:` entries */
    size_t nentry;
    const myri_program **prog_of;  /* every instance started ... */
    size_t *entry_of;              /* ... and its entry */
    size_t nstarted;
    myri_time_ps end_ps;
    double wall_s;
    /* live mode (src/live/, docs/LIVE.md), set by the caller before myri_sys_run_prepare: */
    bool live_ok;                  /* `program: live` entries allowed (else refused) */
    bool *live;                    /* per host (nnic): driven by a real process (allocated when an entry says so) */
    /* gives host i's SRAM (sram_bytes) and host memory (mem_bytes), the caller's, outliving the run (NULL: allocated) */
    myri_status (*board_mem)(void *ctx, uint32_t host, uint64_t sram_bytes, uint64_t mem_bytes, uint8_t **sram,
                             uint8_t **mem);
    void *board_mem_ctx;
    /* a run cut into partitions (system_part.c, docs/PARTITION.md step 9), set before myri_sys_run_prepare:
     * this partition builds only the hosts host_owner[] gives it (the others' engine ids reserved) */
    const uint32_t *host_owner, *node_owner; /* NULL: a whole run */
    uint32_t part_me;
    myri_fabric_outbox_fn part_out;
    void *part_ctx;
    myri_time_ps last_exit_ps;     /* when its last program returned (a cut run does not stop itself) */
    /* a cut run's report: the figures summed over the partitions (NULL: this run's own) */
    const myri_fabric_counters *fc_sum;
    uint64_t events_sum;
    uint64_t event_hash;           /* with fc_sum: the fold of every LP's hash, each from its partition */
    const struct myri_sys_partinfo *part;
} myri_sys_run;

/* Engine ids of one host's components (its LANai, host, ...): a block of
 * MYRI_SYS_HOST_IDS from the first host's, whatever the partition (ids fixed
 * by the topology, not by what a partition creates: docs/PARTITION.md
 * section 1 "Stable ids").  32: an assumption with room, a host makes 2 today. */
#define MYRI_SYS_HOST_IDS 32u

/* How a cut run was cut, and what its windows carried (the report's `partitions`). */
typedef struct myri_sys_partinfo {
    uint32_t n, cut_links;
    char mode[32];
    uint32_t hosts[64], nodes[64]; /* hosts and nodes per partition (MYRI_PART_MAX at most) */
    uint64_t lookahead_ps;         /* L; meaningless when cut_links is 0 */
    myri_part_stats st;            /* the reported pass's windows and messages */
    uint64_t passes;
} myri_sys_partinfo;

/* Loads the configuration (firmware chosen first, then every table, then
 * the preset for the keys the document leaves out). */
myri_status myri_sys_cfg_load(myri_sys_cfg *c, const myri_node *root, myri_error *err);
void myri_sys_cfg_free(myri_sys_cfg *c);
/* The values that follow others (the cables' length, the NIC's view of the
 * link, the mapping firmware), again after a sweep wrote its value. */
myri_status myri_sys_cfg_derive(myri_sys_cfg *c, const myri_node *root, myri_error *err);
/* Builds and runs; r is filled even on error (free it with myri_sys_run_free). */
myri_status myri_sys_run_cfg(myri_sys_run *r, const myri_sys_cfg *c, const myri_node *root,
                             const myri_run_opts *opts, bool progress, myri_error *err);
void myri_sys_run_free(myri_sys_run *r);
/* The two halves of myri_sys_run_cfg for a caller that runs the simulation
 * itself (live mode): prepare builds and starts the programs (r zeroed by the
 * caller, its live fields set); close finishes (end time, VCD, pcap). */
myri_status myri_sys_run_prepare(myri_sys_run *r, const myri_sys_cfg *c, const myri_node *root,
                                 const myri_run_opts *opts, myri_error *err);
myri_status myri_sys_run_close(myri_sys_run *r, myri_error *err);
/* The JSON members of a run (programs, nics, fabric, times). */
typedef struct myri_json myri_json;
/* What a run measured (the figures, the hash); free with myri_system_result_free. */
myri_status myri_sys_collect(const myri_sys_run *r, myri_system_result *out);
/* A scenario with a `sweep:` (or sweep.runs > 1): every value, every run, then
 * the table of means with 95 % confidence intervals (system_sweep.c). */
myri_status myri_sys_sweep(const myri_node *root, const char *file, const myri_run_opts *opts, myri_error *err);
void myri_sys_json_body(const myri_sys_run *r, const myri_system_result *res, myri_json *j);
/* Writes a run's report (text or JSON, opts); MYRI_EMODEL when a program failed (system_report.c). */
myri_status myri_sys_print(const myri_sys_cfg *c, const myri_sys_run *r, const myri_run_opts *opts, const char *file);
/* A run cut into opts->partitions partitions inside this process, reported
 * as one run (system_part.c).  Refused (MYRI_EINPUT, why in err) where a cut
 * run cannot be the whole run yet. */
myri_status myri_sys_run_parts(const myri_sys_cfg *c, const myri_node *root, const myri_run_opts *opts,
                               const char *file, myri_error *err);

#endif
