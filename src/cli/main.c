/* main.c -- the `myri` program: dispatch to subcommands. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static int cmd_help(int argc, char **argv);

static const myri_cmd commands[] = {
    {"help", "list the subcommands, or show one's help",
     "usage: myri help [SUBCOMMAND]\n\nLists the subcommands, or shows the help of one (as myri SUBCOMMAND --help).\n",
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

static int cmd_help(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(commands[0].usage, stdout);
        return MYRI_EXIT_OK;
    }
    if (argc > 2) {
        fprintf(stderr, "myri help: expected at most one SUBCOMMAND (see 'myri help --help')\n");
        return MYRI_EXIT_INPUT;
    }
    if (argc < 2) {
        usage(stdout);
        return MYRI_EXIT_OK;
    }
    const myri_cmd *c = find_cmd(argv[1]);
    if (!c) {
        fprintf(stderr, "myri help: unknown subcommand '%s'\n", argv[1]);
        return MYRI_EXIT_INPUT;
    }
    if (c->usage) {
        fputs(c->usage, stdout);
        return MYRI_EXIT_OK;
    }
    char *args[] = {argv[1], "--help", NULL};
    return c->main(2, args);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return MYRI_EXIT_INPUT;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("myri %s\n", MYRI_VERSION);
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
    return myri_cli_finish(c->main(argc - 1, argv + 1));
}
