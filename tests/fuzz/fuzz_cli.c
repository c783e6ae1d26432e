/* fuzz_cli.c -- fuzz target for the subcommands' argument parsing
 * (src/cli/args.c and src/cli/cli.c): the first byte of the input picks a
 * subcommand, the rest is split at NUL and newline bytes into an argv
 * vector (at most 64 arguments, each in its own allocation so that the
 * sanitizers see reads past an argument).  The vector goes to that
 * subcommand's own parse function (myri_cmd_NAME_parse, which its main
 * calls before running anything), so every check of the arguments is
 * reached.  A parse must return 0 or 2; on success (without --help) the
 * target checks what the parser promises: strings point into argv, the
 * numbers are in their ranges, options that exclude each other are not
 * both set, the nicsim model passes myri_qsim_net_check; and the --set
 * assignments are applied to a small scenario (myri_cli_apply_sets).
 * Nothing is run; error messages go to stderr. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "fuzz_argv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAX_ARGS 64
#define FZ_CHECK(c) \
    do {            \
        if (!(c)) __builtin_trap(); \
    } while (0)

typedef struct fz__argv {
    char **v;
    int c;
} fz__argv;

static bool fz__in(const char *s, fz__argv a)
{
    if (!s) return true;
    for (int i = 0; i < a.c; i++)
        if (s >= a.v[i] && s <= a.v[i] + strlen(a.v[i])) return true;
    return false;
}

/* The common options, and the --set assignments applied to a scenario. */
static void fz__cli(const myri_cli *cli, fz__argv a)
{
    FZ_CHECK(cli->npositional <= 8 && cli->nsets <= 64);
    for (size_t i = 0; i < cli->npositional; i++) FZ_CHECK(fz__in(cli->positional[i], a));
    for (size_t i = 0; i < cli->nsets; i++) FZ_CHECK(fz__in(cli->sets[i], a));
    static const char doc[] = "seed: 1\nlink:\n  rate: 640Mb/s\nnetwork:\n  arrivals:\n    - rate: 0.01\n";
    myri_node *root = NULL;
    myri_error err;
    FZ_CHECK(myri_doc_parse("fuzz.yaml", doc, sizeof doc - 1, &root, &err) == MYRI_OK);
    (void)myri_cli_apply_sets(cli, root);
    myri_node_free(root);
}

static int fz__run(fz__argv a)
{
    myri_cmd_run_args r;
    int rc = myri_cmd_run_parse(a.c, a.v, &r);
    if (rc || r.cli.help) return rc;
    FZ_CHECK(fz__in(r.file, a) && fz__in(r.pcap, a) && fz__in(r.vcd, a));
    FZ_CHECK(r.nprograms <= 16);
    for (size_t k = 0; k < r.nprograms; k++) FZ_CHECK(fz__in(r.programs[k], a));
    FZ_CHECK(r.cli.npositional == (r.file != NULL));
    fz__cli(&r.cli, a);
    return rc;
}

static int fz__bench(fz__argv a)
{
    myri_cmd_bench_args b;
    int rc = myri_cmd_bench_parse(a.c, a.v, &b);
    if (rc || b.cli.help) return rc;
    FZ_CHECK(fz__in(b.system, a) && fz__in(b.file, a));
    if (b.system) {
        FZ_CHECK(b.cli.npositional <= 2 && b.runs >= 1 && b.runs <= 100); /* --runs N: 1..100 */
    } else {
        FZ_CHECK(b.pending >= 1 && b.pending <= 16000000 && b.events >= 1 && b.mean >= 1 && b.cli.nsets == 0);
    }
    fz__cli(&b.cli, a);
    return rc;
}

static int fz__topo(fz__argv a)
{
    myri_cmd_topo_args t;
    int rc = myri_cmd_topo_parse(a.c, a.v, &t);
    if (rc || t.cli.help) return rc;
    FZ_CHECK(t.file && fz__in(t.file, a) && fz__in(t.route, a) && !t.cli.have_seed);
    FZ_CHECK(!(t.dot && (t.cli.json || t.route)));
    fz__cli(&t.cli, a);
    return rc;
}

static int fz__map(fz__argv a)
{
    myri_cmd_map_args m;
    int rc = myri_cmd_map_parse(a.c, a.v, &m);
    if (rc || m.cli.help) return rc;
    FZ_CHECK(m.file && fz__in(m.file, a) && m.cli.npositional == 1);
    FZ_CHECK(!(m.dot && m.cli.json));
    fz__cli(&m.cli, a);
    return rc;
}

static int fz__verify(fz__argv a)
{
    myri_cmd_verify_args v;
    int rc = myri_cmd_verify_parse(a.c, a.v, &v);
    if (rc || v.cli.help) return rc;
    FZ_CHECK(v.fw && fz__in(v.fw, a) && fz__in(v.prop, a) && myri_verify_props(v.fw, NULL));
    FZ_CHECK(v.b.sends >= 1 && v.b.sends <= 8 && v.b.frames <= 8 && v.b.small_ticks <= 4);
    FZ_CHECK(v.b.time_limit_s >= 1 && v.b.time_limit_s <= 3600);
    FZ_CHECK(!(v.model && (v.timed || v.prop || v.paper || v.cli.json)) && !(v.timed && (v.prop || v.paper)));
    FZ_CHECK(!v.replay || (v.prop && !v.paper && !v.model && !v.timed && !v.cli.json));
    FZ_CHECK(!v.paper || !strcmp(v.fw, "lcp") || !strcmp(v.fw, "myricom"));
    return rc;
}

static int fz__qna(fz__argv a)
{
    myri_cmd_qna_args q;
    int rc = myri_cmd_qna_parse(a.c, a.v, &q);
    if (rc || q.cli.help || q.search) return rc;
    FZ_CHECK(!q.cli.have_seed && q.opt.sweeps >= 0 && q.opt.sweeps <= 1000000);
    FZ_CHECK((q.model != NULL) != (q.file != NULL) && fz__in(q.file, a) && fz__in(q.model, a));
    if (q.model) FZ_CHECK(q.lambda_text && q.cli.npositional == 0 && q.cli.nsets == 0 && !isnan(q.lambda));
    else FZ_CHECK(!q.cond && !q.lambda_text);
    fz__cli(&q.cli, a);
    return rc;
}

static int fz__nicsim(fz__argv a)
{
    myri_cmd_nicsim_args n;
    int rc = myri_cmd_nicsim_parse(a.c, a.v, &n);
    if (rc || n.cli.help) return rc;
    FZ_CHECK(n.cli.npositional == 0 && n.cli.nsets == 0 && fz__in(n.model, a) && fz__in(n.lambda, a));
    FZ_CHECK(n.opts.precision > 0.0 && n.opts.precision < 1.0);
    FZ_CHECK(n.opts.arrivals == 0 || n.opts.arrivals >= 1000);
    FZ_CHECK(myri_qsim_net_check(&n.net) == MYRI_OK);
    for (unsigned i = 0; i < n.net.nsources; i++)
        FZ_CHECK(n.net.src[i].rate_per_us > 0.0 && isfinite(n.net.src[i].rate_per_us));
    /* --rx-lambda (the option: as the value of another option it fails) is for sendrecv only */
    for (int i = 1; i < a.c; i++)
        if (!strcmp(a.v[i], "--rx-lambda") || !strncmp(a.v[i], "--rx-lambda=", 12)) FZ_CHECK(n.net.nsources > 1);
    char why[400];
    (void)myri_qsim_check(&n.net, &n.opts, why, sizeof why);
    return rc;
}

static int fz__reproduce(fz__argv a)
{
    myri_cmd_reproduce_args r;
    int rc = myri_cmd_reproduce_parse(a.c, a.v, &r);
    if (rc || r.cli.help) return rc;
    FZ_CHECK(r.cli.npositional == 1 && r.cli.nsets == 0 && fz__in(r.figures, a));
    FZ_CHECK(r.precision > 0.0 && r.precision < 1.0 && r.threads >= 1 && r.threads <= 16);
    FZ_CHECK(r.paper == MYRI_PAPER_SEED000 || r.paper == MYRI_PAPER_SEED001 || r.paper == MYRI_PAPER_SEED002 ||
             r.paper == MYRI_PAPER_SEED004 || r.paper == MYRI_PAPER_SEED004_SENDRECV);
    FZ_CHECK(r.messages >= 4 && r.messages <= 100000);
    if (r.system) FZ_CHECK(r.paper == MYRI_PAPER_SEED004);                /* --system: seed004 only */
    if (r.messages_given) FZ_CHECK(r.paper == MYRI_PAPER_SEED000);        /* --messages: seed000 only */
    if (r.paper == MYRI_PAPER_SEED000 || r.paper == MYRI_PAPER_SEED002) FZ_CHECK(!r.figures && !r.plain);
    FZ_CHECK(r.blocking == MYRI_QSIM_HOLD || r.blocking == MYRI_QSIM_SKIP);
    FZ_CHECK(r.disc <= MYRI_QSIM_EXHAUSTIVE);
    if (r.paper == MYRI_PAPER_SEED004_SENDRECV) FZ_CHECK(!r.figures && !r.plain);
    return rc;
}

static const struct {
    const char *name;
    int (*parse)(fz__argv a);
} fz__cmds[] = {
    {"run", fz__run}, {"bench", fz__bench}, {"topo", fz__topo},
    {"qna", fz__qna}, {"nicsim", fz__nicsim}, {"reproduce", fz__reproduce}, {"map", fz__map},
    {"verify", fz__verify},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096) return 0;
    unsigned k = data[0] % (sizeof fz__cmds / sizeof fz__cmds[0]);
    char *argv[FZ_MAX_ARGS + 1];
    int argc = fz_argv_split(data, size, 1, fz__cmds[k].name, argv, FZ_MAX_ARGS);
    if (argv[0]) {
        int rc = fz__cmds[k].parse((fz__argv){argv, argc});
        FZ_CHECK(rc == MYRI_EXIT_OK || rc == MYRI_EXIT_INPUT);
    }
    fz_argv_free(argv, argc);
    return 0;
}
