/* live.h -- live mode (docs/LIVE.md): a system scenario's network run with
 * simulated time paced to the wall clock, its `program: live` hosts driven by
 * real processes that attach through a Unix socket per host (shm.h) and link
 * libmyri-live; every external input recorded (--record) and replayable as a
 * plain simulation with the same result hash.
 *
 * Time unit: picoseconds (simulated); wall-clock figures are named _wall_ns.
 */
#ifndef MYRI_LIVE_LIVE_H
#define MYRI_LIVE_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"
#include "myri/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The live.* keys of a system scenario (myri run/live --help lists them). */
typedef struct myri_live_params {
    double speed;          /* live.speed: simulated seconds per wall-clock second */
    int policy;            /* live.policy: 0 best-effort, 1 hard-limit */
    uint64_t max_lag_ps;   /* live.max_lag: wall-clock lag past which hard-limit stops (as ps of wall time) */
    uint64_t spin_ps;      /* live.spin: wall time before an event the daemon stops sleeping and spins */
    const char *allow;     /* live.allow: user names or uids besides the daemon's own, comma separated */
    int64_t ip_channel;    /* live.ip_channel: the receive channel of every host's IP driver (--ip) */
} myri_live_params;

extern const myri_param myri_live_param_table[];
extern const size_t myri_live_nparams;

/* --ip (docs/LIVE.md "IP"): what the daemon hands the IP side once its
 * sockets listen.  The IP side (src/live/ip_daemon.c, in myri_ip, linked into
 * the `myri` executable, not into libmyri) makes the namespaces and TUN
 * devices and starts one IP driver process per host in `on`, an ordinary
 * libmyri-live client of that host. */
typedef struct myri_live_ip_setup {
    uint32_t nhosts;
    const bool *on;               /* per host: it gets an IP driver */
    const char *const *names;     /* per host: its name (h0, ...) */
    const char *dir;              /* the session folder (DIR/NAME.sock) */
    uint32_t mtu_bytes;           /* mcp.mtu: the largest IP packet of one API packet */
    int channel;                  /* live.ip_channel */
} myri_live_ip_setup;
typedef struct myri_live_ip_hooks {
    /* Creates the namespaces (stale ones cleaned first) and starts the
     * drivers.  0, or -1 with the reason in err (the daemon exits 2). */
    int (*start)(void *ctx, const myri_live_ip_setup *s, FILE *log, char *err, size_t errlen);
    /* Stops the drivers (their counters on log), removes the namespaces and
     * says so on log.  Safe when start failed or never ran. */
    void (*stop)(void *ctx, FILE *log);
    void *ctx;
} myri_live_ip_hooks;

typedef struct myri_live_opts {
    const char *dir;          /* --dir: the session folder (NULL: a private one made and removed) */
    const char *record_path;  /* --record FILE */
    const char *replay_path;  /* --replay FILE: no sockets, no pacing, the log's inputs */
    const char *program_path; /* --program [NAME=]FILE.so: a user program on simulated hosts (as myri run) */
    double duration_s;        /* --duration: wall-clock bound (0: none) */
    bool ip;                  /* --ip: IP hosts (program: live, or all without programs) get an IP driver */
    const myri_live_ip_hooks *ip_hooks; /* --ip of a live run (NULL in a replay: no namespaces) */
    bool json;
    FILE *out;                /* the report */
    FILE *log;                /* where it says what it does (stderr), may be NULL */
} myri_live_opts;

/* What a live run (or its replay) measured. */
typedef struct myri_live_result {
    uint64_t hash, events, sim_ps;
    double wall_s;
    double lag_max_ns, lag_mean_ns;  /* wall-clock lag of the simulation (live runs) */
    uint64_t lag_samples;
    uint64_t inputs, fetches, attaches, detaches, refused, bad_cmds;
    double cpu_s;                    /* the daemon's CPU time (user + system) */
    bool hard_limit_hit, stopped_by_signal;
    bool log_cut;                    /* replay: the log ends before its end record (a killed run, a cut file) */
    int worst_exit;                  /* built-in programs' largest exit code (of those that returned) */
    uint64_t running;                /* built-in programs still running at the end */
    char fw_counters[768];           /* the firmware's non-zero counters summed over NICs ("rx_good 12 ...") */
} myri_live_result;

/* Runs the scenario `root` live (or replays opts->replay_path).  Returns
 * MYRI_EINPUT with err for bad input; MYRI_OK otherwise (res filled). */
myri_status myri_live_run(const myri_node *root, const myri_live_opts *opts, myri_live_result *res, myri_error *err);
/* Prints the result as text or as one JSON object. */
void myri_live_print(const myri_live_result *r, const myri_live_opts *opts, const char *file);

/* ---- the record log (record.c) ---------------------------------------------------- */
enum {
    MYRI_LIVE_REC_RUN = 1,    /* the simulation ran until time_ps */
    MYRI_LIVE_REC_PIO = 2,    /* a PIO write of host `host` entered at time_ps: addr, bytes */
    MYRI_LIVE_REC_FETCH = 3,  /* the NIC of host read host memory at bus address addr: bytes */
    MYRI_LIVE_REC_ATTACH = 4, /* a client attached to host (addr: its pid) */
    MYRI_LIVE_REC_DETACH = 5, /* ... detached */
    MYRI_LIVE_REC_END = 6     /* the live run ended at time_ps: a log without it was cut short */
};
typedef struct myri_live_rec {
    uint32_t kind, host, addr, len;
    uint64_t time_ps;
    const uint8_t *data;      /* len bytes (into the log's buffer) */
} myri_live_rec;

/* Appends one record (a 24-byte header, then len bytes).  0 or -1. */
int myri_live_rec_write(FILE *f, const myri_live_rec *r);
/* Writes / checks the file header ("MYRILOG1", the scenario's hash of text). */
int myri_live_rec_header(FILE *f);
/* Parses the record at buf[*pos .. n): 1 and advances *pos, 0 at the end,
 * -1 for a malformed record (never reads past n). */
int myri_live_rec_next(const uint8_t *buf, size_t n, size_t *pos, myri_live_rec *r);
/* Checks the header at the start of buf; the offset of the first record, or -1. */
long myri_live_rec_start(const uint8_t *buf, size_t n);

#ifdef __cplusplus
}
#endif

#endif
