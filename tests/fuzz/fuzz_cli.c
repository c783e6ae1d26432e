/* fuzz_cli.c -- fuzz target for the subcommands' option parsing
 * (src/cli/cli.c): the first byte of the input picks a subcommand, the rest
 * is split at NUL and newline bytes into an argv vector (at most 64
 * arguments, each in its own allocation so that the sanitizers see reads
 * past an argument).  The vector goes to myri_cli_parse with that
 * subcommand's option table; on success the values are checked to point
 * into argv (or be the flag value "1"), every value taken goes through the
 * numeric option parsers (myri_cli_uint, myri_cli_double), and the --set
 * assignments are applied to a small scenario (myri_cli_apply_sets).
 *
 * The subcommands' tables live inside their main functions (src/cli/),
 * which also run the job, so the tables below are copies of them: keep them
 * in step (tests/fuzz/README.md says what a separable parser would need).
 * Nothing is run; error messages go to stderr. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_ARGS 64
#define FZ_MAX_OPTS 10

typedef struct fz__cmd {
    const char *name;
    const char *opt[FZ_MAX_OPTS]; /* "name" takes a value, "!name" is a flag */
} fz__cmd;

static const fz__cmd fz__cmds[] = {
    {"run", {"pcap"}},
    {"bench", {"pending", "events", "mean"}},
    {"topo", {"!dot", "route"}},
    {"qna", {"model", "lambda", "sweeps", "wq", "split", "!paper-conditions", "!search-seed004"}},
    {"nicsim",
     {"model", "lambda", "rx-lambda", "arrivals", "precision", "discipline", "blocking", "warmup", "max-arrivals",
      "!plain"}},
    {"reproduce", {"figures", "precision", "threads", "!plain", "blocking", "discipline"}},
};

static bool fz__in_argv(const char *v, char **argv, int argc)
{
    for (int i = 0; i < argc; i++)
        if (v >= argv[i] && v <= argv[i] + strlen(argv[i])) return true;
    return false;
}

static void fz__check(const fz__cmd *c, const myri_cli *cli, const myri_cli_opt *opts, size_t nopts,
                      char **argv, int argc)
{
    if (cli->npositional > 8 || cli->nsets > 64) __builtin_trap();
    for (size_t i = 0; i < cli->npositional; i++)
        if (!fz__in_argv(cli->positional[i], argv, argc)) __builtin_trap();
    for (size_t i = 0; i < cli->nsets; i++)
        if (!fz__in_argv(cli->sets[i], argv, argc)) __builtin_trap();
    for (size_t k = 0; k < nopts; k++) {
        const char *v = *opts[k].value;
        if (!v) continue;
        if (!opts[k].takes_value) {
            if (strcmp(v, "1") != 0) __builtin_trap();
            continue;
        }
        if (!fz__in_argv(v, argv, argc)) __builtin_trap();
        uint64_t u;
        double d;
        (void)myri_cli_uint(c->name, opts[k].name, v, &u);
        (void)myri_cli_double(c->name, opts[k].name, v, &d);
    }
    static const char doc[] = "seed: 1\nlink:\n  rate: 640Mb/s\nnetwork:\n  arrivals:\n    - rate: 0.01\n";
    myri_node *root = NULL;
    myri_error err;
    if (myri_doc_parse("fuzz.yaml", doc, sizeof doc - 1, &root, &err) != MYRI_OK) __builtin_trap();
    (void)myri_cli_apply_sets(cli, root);
    myri_node_free(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    const fz__cmd *c = &fz__cmds[data[0] % (sizeof fz__cmds / sizeof fz__cmds[0])];
    char *argv[FZ_MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = strdup(c->name);
    size_t start = 1;
    for (size_t i = 1; i <= size && argc < FZ_MAX_ARGS; i++) {
        if (i < size && data[i] != '\0' && data[i] != '\n') continue;
        char *a = malloc(i - start + 1);
        if (!a) break;
        memcpy(a, data + start, i - start);
        a[i - start] = '\0';
        argv[argc++] = a;
        start = i + 1;
    }
    argv[argc] = NULL;
    const char *values[FZ_MAX_OPTS];
    myri_cli_opt opts[FZ_MAX_OPTS];
    size_t nopts = 0;
    for (; nopts < FZ_MAX_OPTS && c->opt[nopts]; nopts++) {
        bool flag = c->opt[nopts][0] == '!';
        opts[nopts] = (myri_cli_opt){c->opt[nopts] + flag, !flag, &values[nopts]};
    }
    myri_cli cli;
    if (argv[0] && myri_cli_parse(c->name, argc, argv, &cli, opts, nopts) == 0)
        fz__check(c, &cli, opts, nopts, argv, argc);
    for (int i = 0; i < argc; i++) free(argv[i]);
    return 0;
}
