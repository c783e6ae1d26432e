/* args.h -- the subcommands' argument parsers (internal to the program).
 *
 * Each subcommand's main first calls its parse function, which reads the
 * command line (myri_cli_parse with the subcommand's option table) and makes
 * every check of the arguments that needs no file and no run: values that
 * are not numbers or out of range, options that exclude each other, the
 * number of FILEs.  A parse function prints "myri NAME ..." to stderr and
 * returns MYRI_EXIT_INPUT (2) on bad usage, MYRI_EXIT_OK (0) otherwise.
 * With --help (out->cli.help) it returns 0 as soon as the checks that come
 * before the help text are done; the other fields are then unspecified.
 * The string fields point into argv.  The parsers are compiled into the
 * fuzz target tests/fuzz/fuzz_cli.c (with src/cli/cli.c), so they must not
 * run anything or read files.
 */
#ifndef MYRI_CLI_ARGS_H
#define MYRI_CLI_ARGS_H

#include "cli/cli.h"
#include "analysis/qna/qna.h"
#include "analysis/qsim/qsim.h"
#include "verify/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* myri run [FILE] */
typedef struct myri_cmd_run_args {
    myri_cli cli;
    const char *file; /* NULL: the built-in default scenario */
    const char *pcap, *vcd;
    const char *partitions, *partition; /* --partitions N, --partition MODE (checked by run.c) */
    const char *programs[16]; /* --program FILE.so or NAME=FILE.so, repeatable */
    size_t nprograms;
    const char *firmware[32]; /* --firmware FILE.o, repeatable: firmware: elf with these elf.objects */
    size_t nfirmware;
    char *argv_rest[256];     /* argv without the --program and --firmware options (for the common parser) */
} myri_cmd_run_args;
int myri_cmd_run_parse(int argc, char **argv, myri_cmd_run_args *out);

/* myri bench engine | pingpong|latency|stream [FILE] */
typedef struct myri_cmd_bench_args {
    myri_cli cli;
    const char *system; /* "pingpong", "latency" or "stream" (bench_system.c); NULL: engine */
    const char *file;   /* the system benchmarks' FILE; NULL: the built-in two-host system */
    uint64_t pending, events, mean, seed; /* engine: checked, defaults filled in */
    uint64_t runs;                        /* pingpong|latency|stream --runs: independent seeds (1..100) */
} myri_cmd_bench_args;
int myri_cmd_bench_parse(int argc, char **argv, myri_cmd_bench_args *out);
/* bench_system.c: runs a->system (seed 001's experiment) on its system; a as
 * filled by myri_cmd_bench_parse with a->system set. */
int myri_cmd_bench_system(const myri_cmd_bench_args *a);

/* myri topo FILE [--dot | --json | --route SRC:DST] */
typedef struct myri_cmd_topo_args {
    myri_cli cli;
    const char *file;
    bool dot;
    const char *route; /* NULL: no --route (the hosts are checked against the topology later) */
} myri_cmd_topo_args;
int myri_cmd_topo_parse(int argc, char **argv, myri_cmd_topo_args *out);

/* myri map FILE [--dot | --json] */
typedef struct myri_cmd_map_args {
    myri_cli cli;
    const char *file;
    bool dot;
} myri_cmd_map_args;
int myri_cmd_map_parse(int argc, char **argv, myri_cmd_map_args *out);

/* myri verify FIRMWARE [--property NAME] [--sends N] [--frames N] [--model | --paper | --timed | --replay] */
typedef struct myri_cmd_verify_args {
    myri_cli cli;
    const char *fw, *prop;
    bool model, timed, paper, replay;
    myri_verify_bounds b;
} myri_cmd_verify_args;
int myri_cmd_verify_parse(int argc, char **argv, myri_cmd_verify_args *out);

/* myri qna FILE | --model nic-seed004 --lambda RATE | --search-seed004 */
typedef struct myri_cmd_qna_args {
    myri_cli cli;
    bool search;        /* --search-seed004: nothing else is checked */
    const char *model;  /* "nic-seed004", or NULL: FILE */
    const char *file;   /* with no --model */
    const char *lambda_text; /* --lambda as given (for the messages) */
    double lambda;      /* with --model (its range is checked by the model) */
    bool cond;          /* --paper-conditions (only with --model) */
    bool have_sweeps;   /* --sweeps given (else --paper-conditions sets the sweeps) */
    myri_qna_options opt;
} myri_cmd_qna_args;
int myri_cmd_qna_parse(int argc, char **argv, myri_cmd_qna_args *out);

/* myri nicsim --model M --lambda RATE ... */
typedef struct myri_cmd_nicsim_args {
    myri_cli cli;
    const char *model, *lambda, *blocking, *disc; /* as given (for the output); blocking, disc may be NULL */
    myri_qsim_net net;   /* the seed-004 model built from the options */
    myri_qsim_opts opts; /* seed, precision or arrivals, warm-up, cap, estimator */
} myri_cmd_nicsim_args;
int myri_cmd_nicsim_parse(int argc, char **argv, myri_cmd_nicsim_args *out);

/* myri reproduce seed000 | seed001 | seed002 | seed004 | seed004-sendrecv */
typedef enum myri_cmd_paper {
    MYRI_PAPER_SEED000,
    MYRI_PAPER_SEED001,
    MYRI_PAPER_SEED002,
    MYRI_PAPER_SEED004,
    MYRI_PAPER_SEED004_SENDRECV
} myri_cmd_paper;
typedef struct myri_cmd_reproduce_args {
    myri_cli cli;
    myri_cmd_paper paper;
    const char *figures; /* NULL: no figures */
    double precision;
    unsigned threads;
    bool plain;
    myri_qsim_blocking blocking;
    myri_qsim_discipline disc;
    uint64_t seed; /* --seed, or 1 */
    int messages;  /* seed000 --messages: per run (default 64) */
    bool messages_given;
    bool system;   /* seed004 --system: add the register-level NIC's column */
} myri_cmd_reproduce_args;
int myri_cmd_reproduce_parse(int argc, char **argv, myri_cmd_reproduce_args *out);

/* myri lanai run FILE.o... [--entry SYMBOL] [--max-cycles N] [--sram BYTES] [--json] | disasm FILE.o
 * (the files are named, not read: cmd_lanai.c reads them).  help: --help or -h
 * (usage on stdout, exit 0), or no action at all (usage on stderr, exit 2). */
typedef struct myri_cmd_lanai_args {
    bool help, disasm, json;
    const char *entry;            /* default main */
    uint64_t max_cycles, sram;    /* defaults 10^9 cycles, 1 MiB */
    const char *paths[64];        /* run: the objects in order; disasm: the one object */
    size_t npaths;
} myri_cmd_lanai_args;
int myri_cmd_lanai_parse(int argc, char **argv, myri_cmd_lanai_args *out);

#ifdef __cplusplus
}
#endif

#endif
