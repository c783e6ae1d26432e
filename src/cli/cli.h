/* cli.h -- the `myri` program's subcommands (internal to the program).
 *
 * Every subcommand is one entry of the table in src/cli/main.c:
 * name, one-line summary, usage text and a main function.  The common
 * options are parsed by myri_cli_parse so that every subcommand spells them
 * the same way:
 *   --json          one JSON object on stdout
 *   --seed N        override the scenario's seed
 *   --set key=value override a scenario value by its dotted path (repeatable)
 *   --help, -h      the subcommand's help
 * Exit codes: 0 success, 1 failure of the run, 2 bad input or usage.
 */
#ifndef MYRI_CLI_H
#define MYRI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { MYRI_EXIT_OK = 0, MYRI_EXIT_FAIL = 1, MYRI_EXIT_INPUT = 2 };

typedef struct myri_cmd {
    const char *name;
    const char *summary; /* one line for `myri help` */
    const char *usage;   /* full help text for `myri NAME --help` */
    int (*main)(int argc, char **argv);
} myri_cmd;

/* A subcommand-specific option: "--name" taking a value or a flag. */
typedef struct myri_cli_opt {
    const char *name;   /* without the dashes, e.g. "pending" */
    bool takes_value;
    const char **value; /* OUT: the value (or "1" for a flag); NULL if absent */
} myri_cli_opt;

typedef struct myri_cli {
    bool json, help, have_seed;
    uint64_t seed;
    const char *sets[512]; /* --set assignments in order (an echo of every key fits) */
    size_t nsets;
    const char *positional[8];
    size_t npositional;
} myri_cli;

/* Parses argv[1..] (argv[0] is the subcommand name) into *cli and the
 * subcommand's own options.  Unknown options, missing values and too many
 * positional arguments print "myri NAME: ..." to stderr and return 2;
 * success returns 0. */
int myri_cli_parse(const char *cmd, int argc, char **argv, myri_cli *cli,
                   const myri_cli_opt *opts, size_t nopts);
/* Parses an unsigned integer option value; prints an error and returns 2 on
 * failure, 0 on success. */
int myri_cli_uint(const char *cmd, const char *opt, const char *text, uint64_t *out);
int myri_cli_double(const char *cmd, const char *opt, const char *text, double *out);
/* Applies cli->sets to a document root; on error prints err and returns 2. */
int myri_cli_apply_sets(const myri_cli *cli, myri_node *root);
/* Prints an error message "myri: MESSAGE" and returns 2. */
int myri_cli_input_error(const myri_error *err);
/* The exit code of a library status: MYRI_OK -> 0; MYRI_EINPUT -> prints
 * err (myri_cli_input_error) and 2; any other status -> 1. */
int myri_cli_exit(myri_status st, const myri_error *err);

/* Flushes and closes stdout; on a write error (now or earlier) prints
 * "myri: cannot write ...: REASON" and returns 1 if rc was 0, else rc. */
int myri_cli_finish(int rc);

/* A claim of a paper checked by `myri reproduce` (claim.c).  Every claim is
 * printed with the paper's value, ours, their difference, the tolerance
 * stated beforehand and one verdict:
 *   holds         ours is within the tolerance of the paper's value;
 *   differs       it is not;
 *   calibrated    the number was fitted (fitted names the parameter): agreement proves nothing;
 *   not modelled  Myri does not model what decides it (note says why).
 * The tolerance is relative (tol_rel, a fraction of the paper's value) or, when
 * tol_rel is 0, absolute (tol_abs, in unit); a claim with lo_only (or hi_only)
 * holds when ours exceeds paper - tolerance (is below paper + tolerance). */
typedef enum myri_cli_verdict {
    MYRI_CLI_HOLDS,
    MYRI_CLI_DIFFERS,
    MYRI_CLI_CALIBRATED,
    MYRI_CLI_NOT_MODELLED
} myri_cli_verdict;

typedef struct myri_cli_claim {
    const char *id;     /* short key for JSON, e.g. "crossover" */
    const char *text;   /* the paper's claim in words, with where it says so */
    const char *unit;   /* "us", "B", "%", "MB/s" ... */
    double paper;       /* the paper's value */
    double ours;        /* measured on the runs just made (NAN: not measured -> differs) */
    double tol_rel;     /* relative tolerance (0.25 = 25 %), or 0 */
    double tol_abs;     /* absolute tolerance in unit when tol_rel is 0 */
    bool lo_only, hi_only; /* one-sided claims ("at least", "at most") */
    const char *fitted; /* non-NULL: the parameter fitted to this number ("fitted to ...") */
    bool not_modelled;  /* Myri does not model what decides it */
    const char *note;   /* one more line (optional) */
} myri_cli_claim;

myri_cli_verdict myri_cli_claim_verdict(const myri_cli_claim *c);
const char *myri_cli_verdict_name(myri_cli_verdict v);
/* Two lines or three: the claim, "paper X, ours Y, difference D, tolerance T: VERDICT", the note. */
void myri_cli_claim_print(FILE *out, const myri_cli_claim *c);
struct myri_json;
/* {"id":..,"claim":..,"unit":..,"paper":..,"ours":..,"difference":..,"tolerance":..,"verdict":..,
 *  "fitted":..,"note":..} */
void myri_cli_claim_json(struct myri_json *j, const myri_cli_claim *c);

/* The subcommands (each in its own file under src/cli/). */
int myri_cmd_run(int argc, char **argv);
int myri_cmd_verify(int argc, char **argv); /* cmd_verify.c */
/* bench_system.c: seed 001's experiments (pingpong, latency, stream) on a system. */
typedef struct myri_bsys_point {
    long bytes;
    double latency_us, bandwidth_MBps;
} myri_bsys_point;
struct myri_system_result;
struct myri_run_opts;
/* reproduce_seed001.c */
int myri_cmd_reproduce_seed001(bool json, const char *figures, bool have_seed, uint64_t seed);
/* reproduce_seed000.c: count messages per run */
int myri_cmd_reproduce_seed000(bool json, bool have_seed, uint64_t seed, int count);
/* reproduce_seed004_system.c: `reproduce seed004 --system`: seed 004's NIC on
 * the register-level model with Myricom's MCP (engines overlapped) and, as
 * the contrast, seed 000's serialising LCP, both on the seed004 preset. */
enum { MYRI_REP4_MYRICOM, MYRI_REP4_LCP, MYRI_REP4_NFW };
typedef struct myri_rep4_fw {
    double util[3], util_hw[3];  /* LANai, HDMA, NSDMA */
    double waiting, waiting_hw;  /* messages waiting in the NIC, 95 % half-width */
    double throughput;           /* messages per us served */
    double hdma_us_per_msg;      /* host-DMA busy time per message served */
    double lanai_us_per_msg;     /* LANai busy time per message served */
    bool saturated;              /* arrivals were held back */
} myri_rep4_fw;
typedef struct myri_rep4_sys {
    double lambda;
    myri_rep4_fw fw[MYRI_REP4_NFW];
} myri_rep4_sys;
extern const char *const myri_rep4_fw_names[MYRI_REP4_NFW];
struct myri_qna_seed004_row;
struct myri_qsim_seed004;
struct myri_json;
myri_status myri_rep4_system_run(uint64_t seed, int count, myri_rep4_sys out[6], uint64_t *hash, myri_error *err);
void myri_rep4_system_print(const myri_rep4_sys *s, const struct myri_qna_seed004_row *q,
                            const struct myri_qsim_seed004 *sim, int count);
void myri_rep4_system_json(struct myri_json *j, const myri_rep4_sys *s, uint64_t hash);
/* reproduce_seed002.c */
int myri_cmd_reproduce_seed002(bool json, bool have_seed, uint64_t seed);
myri_status myri_bsys_run(const char *which, const myri_node *root, const struct myri_run_opts *ro,
                          struct myri_system_result *res, myri_error *err);
size_t myri_bsys_points(const char *which, const struct myri_system_result *r, myri_bsys_point *pt, size_t max);
int myri_cmd_bench(int argc, char **argv);
int myri_cmd_topo(int argc, char **argv);
int myri_cmd_map(int argc, char **argv);
int myri_cmd_qna(int argc, char **argv);
int myri_cmd_nicsim(int argc, char **argv);
int myri_cmd_reproduce(int argc, char **argv);
/* `myri lanai run|disasm` (cmd_lanai.c): the LANai CPU on its own. */
int myri_cmd_lanai(int argc, char **argv);
int myri_cmd_live(int argc, char **argv); /* cmd_live.c */
/* `myri reproduce seed004-sendrecv` (reproduce_sendrecv.c): the
 * send-and-receive NIC, QNA (built programmatically) next to simulation at
 * the six paper rates split evenly between sending and receiving.  Prints
 * text or one JSON object to stdout; returns a process exit code (0, 1). */
int myri_cmd_reproduce_sendrecv(bool json, uint64_t seed, double precision, unsigned threads);

#ifdef __cplusplus
}
#endif

#endif
