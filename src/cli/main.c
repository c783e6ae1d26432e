/* main.c -- the `myri` program: dispatch to subcommands. */
#define _GNU_SOURCE 1 /* RTLD_NEXT */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "myri/json.h"
#include "myri/proc.h"

#include "app/ranks.h"
#include "cli/cli.h"

static int cmd_help(int argc, char **argv);

static const myri_cmd commands[] = {
    {"help", "list the subcommands, or show one's help",
     "usage: myri help [SUBCOMMAND] [--json]\n\nLists the subcommands, or shows the help of one (as myri SUBCOMMAND --help);\n--json: the subcommands (or one) with their summaries and the exit codes as one JSON object.\n",
     cmd_help},
    {"run", "run a scenario file (or the built-in default scenario)", NULL, myri_cmd_run},
    {"bench", "built-in benchmarks: engine (hold model); pingpong, latency, stream (seed 001)", NULL, myri_cmd_bench},
    {"topo", "describe a topology, or write it as Graphviz DOT", NULL, myri_cmd_topo},
    {"map", "map a scenario's network from its NICs (seed 002): the map, its check, the routes", NULL, myri_cmd_map},
    {"verify", "model-check a firmware's own tables with SPIN (seed 000): 1A..2B, mutex, deadlock, overflow, progress",
     NULL, myri_cmd_verify},
    {"qna", "solve an open multi-class queueing network with Whitt's QNA", NULL, myri_cmd_qna},
    {"nicsim", "simulate the seed-004 NIC queueing models (pooled or polling LANai)", NULL, myri_cmd_nicsim},
    {"reproduce", "reproduce a paper's published results side by side with ours", NULL, myri_cmd_reproduce},
    {"live", "run a system scenario in real time; real processes (libmyri-live) attach to its live hosts", NULL,
     myri_cmd_live},
    {"lanai", "run C compiled with clang --target=lanai on the LANai CPU alone, or disassemble it", NULL,
     myri_cmd_lanai},
};
static const size_t ncommands = sizeof commands / sizeof commands[0];

static const myri_cmd *find_cmd(const char *name)
{
    for (size_t i = 0; i < ncommands; i++)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    return NULL;
}

static void usage(FILE *out)
{
    fprintf(out, "myri %s -- the Myrinet gigabit LAN, simulated and analysed\n\n", MYRI_VERSION);
    fprintf(out, "usage: myri SUBCOMMAND [OPTIONS]\n       myri SUBCOMMAND --help\n       myri --version\n\n");
    fprintf(out, "subcommands:\n");
    for (size_t i = 0; i < ncommands; i++) fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\ncommon options: --help, --json (one JSON object on stdout)\n");
    fprintf(out, "  --set key=value (repeatable): run, topo, map, qna FILE, bench pingpong/latency/stream (they read a file)\n");
    fprintf(out, "  --seed N (0 .. 18446744073709551615): run, bench, nicsim, reproduce\n");
    fprintf(out, "exit codes: 0 success, 1 failure of the run, 2 bad input or usage\n");
}

/* `myri help --json`: the subcommands, or one, as one JSON object. */
static int help__json(const myri_cmd *only)
{
    myri_json *j = myri_json_create(stdout, false);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "version", MYRI_VERSION);
    myri_json_key(j, "subcommands");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < ncommands; i++) {
        if (only && only != &commands[i]) continue;
        myri_json_obj_begin(j);
        myri_json_kstr(j, "name", commands[i].name);
        myri_json_kstr(j, "summary", commands[i].summary);
        char help[96];
        snprintf(help, sizeof help, "myri %s --help", commands[i].name);
        myri_json_kstr(j, "help", help);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "exit_codes");
    myri_json_obj_begin(j);
    myri_json_kstr(j, "0", "success");
    myri_json_kstr(j, "1", "failure of the run");
    myri_json_kstr(j, "2", "bad input or usage");
    myri_json_obj_end(j);
    myri_json_obj_end(j);
    return myri_json_finish(j) == MYRI_OK ? MYRI_EXIT_OK : MYRI_EXIT_FAIL;
}

static int cmd_help(int argc, char **argv)
{
    bool json = false;
    const char *name = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(commands[0].usage, stdout);
            return MYRI_EXIT_OK;
        }
        if (!strcmp(argv[i], "--json")) json = true;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "myri help: unknown option '%s'; expected --json or a SUBCOMMAND\n", argv[i]);
            return MYRI_EXIT_INPUT;
        } else if (name) {
            fprintf(stderr, "myri help: expected at most one SUBCOMMAND (see 'myri help --help')\n");
            return MYRI_EXIT_INPUT;
        } else name = argv[i];
    }
    const myri_cmd *c = name ? find_cmd(name) : NULL;
    if (name && !c) {
        fprintf(stderr, "myri help: unknown subcommand '%s'\n", name);
        return MYRI_EXIT_INPUT;
    }
    if (json) return help__json(c);
    if (!c) {
        usage(stdout);
        return MYRI_EXIT_OK;
    }
    if (c->usage) {
        fputs(c->usage, stdout);
        return MYRI_EXIT_OK;
    }
    char *args[] = {argv[1], "--help", NULL};
    args[0] = (char *)c->name;
    return c->main(2, args);
}

/* A program loaded with --program runs in this process: its exit() must end
 * that program, not myri.  `myri` exports its symbols (ENABLE_EXPORTS), so a
 * loaded object's calls to exit() bind to this definition; inside a process
 * it ends the process (proc.h), anywhere else it is the C library's exit. */
typedef void (*main__exit_fn)(int) __attribute__((noreturn));
void exit(int code)
{
    myri_proc_exit_current(code); /* returns only outside a process */
    static main__exit_fn real;
    if (!real) {
        void *sym = dlsym(RTLD_NEXT, "exit");
        if (sym) memcpy(&real, &sym, sizeof real);
    }
    if (real) real(code);
    _Exit(code);
}

/* An installed myri (PREFIX/bin/myri) finds the shipped scenarios, example
 * programs and tools in PREFIX/share/myri: say where, when they are there. */
static void main__print_share(void)
{
    char exe[4096], dir[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return;
    *slash = '\0'; /* PREFIX/bin */
    snprintf(dir, sizeof dir, "%s/../share/myri/scenarios", exe);
    if (access(dir, R_OK) != 0) return;
    char *real = realpath(dir, NULL);
    if (!real) return;
    real[strlen(real) - strlen("/scenarios")] = '\0';
    printf("shipped scenarios, example programs and tools: %s\n", real);
    free(real);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MYRI_EXIT_INPUT;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("myri %s\n", MYRI_VERSION);
        printf("mpi ranks: %s\n", myri_ranks_built()
                                       ? "yes (mpirun -n R myri run FILE spreads a sweep or cuts a fabric run, "
                                         "docs/RANKS.md)"
                                       : "no (built without MPI, docs/RANKS.md)");
        main__print_share();
        return MYRI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return MYRI_EXIT_OK;
    }
    const myri_cmd *c = find_cmd(argv[1]);
    if (!c) {
        fprintf(stderr, "myri: unknown subcommand '%s'; expected one of:", argv[1]);
        for (size_t i = 0; i < ncommands; i++) fprintf(stderr, " %s", commands[i].name);
        fprintf(stderr, " (see 'myri help')\n");
        return MYRI_EXIT_INPUT;
    }
    long ranks = myri_ranks_env_size(); /* mpirun -n R: only `myri run` with a sweep shares the work (docs/RANKS.md) */
    if (ranks != 0 && ranks != 1 && strcmp(c->name, "run") != 0 && strcmp(c->name, "help") != 0) {
        if (myri_ranks_env_first())
            fprintf(stderr, "myri %s: started by an MPI launcher as several ranks, but only `myri run` spreads work "
                            "over ranks (a scenario's sweep, docs/RANKS.md); run myri %s without mpirun (or with "
                            "mpirun -n 1) rather than the same work on every rank\n", c->name, c->name);
        return MYRI_EXIT_INPUT;
    }
    return myri_cli_finish(c->main(argc - 1, argv + 1));
}
