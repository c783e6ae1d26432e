/* args.c -- the subcommands' argument parsers (see args.h).  The messages
 * and their order are those the subcommands have always printed
 * (the scripts in tests/scenario check many of them). */
#include "cli/args.h"
#include "verify/verify.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define ARGS_N(a) (sizeof(a) / sizeof((a)[0]))

/* The value of a repeatable option at argv[*i] (--NAME VALUE or --NAME=VALUE), NULL if argv[*i] is another
 * word; *bad on a missing value. */
static const char *args__repeat(int argc, char **argv, int *i, const char *name, const char *what, bool *bad)
{
    size_t k = strlen(name);
    const char *a = argv[*i];
    if (*i == 0 || strncmp(a, "--", 2) || strncmp(a + 2, name, k)) return NULL;
    if (a[2 + k] == '=') return a + 3 + k;
    if (a[2 + k]) return NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "myri run: option '--%s' needs a value (%s)\n", name, what);
        *bad = true;
        return NULL;
    }
    return argv[++*i];
}

/* --program (one per user program) and --firmware (one per LANai object) are
 * repeatable: taken out of argv before the common parser. */
static int args__run_programs(int argc, char **argv, myri_cmd_run_args *out, int *rest_argc)
{
    int n = 0;
    for (int i = 0; i < argc; i++) {
        bool bad = false;
        const char *f = args__repeat(argc, argv, &i, "firmware", "a LANai object FILE.o", &bad);
        if (bad) return MYRI_EXIT_INPUT;
        if (f) {
            if (out->nfirmware == ARGS_N(out->firmware)) {
                fprintf(stderr, "myri run: --firmware given more than %zu times\n", ARGS_N(out->firmware));
                return MYRI_EXIT_INPUT;
            }
            out->firmware[out->nfirmware++] = f;
            continue;
        }
        const char *v = args__repeat(argc, argv, &i, "program", "FILE.so or NAME=FILE.so", &bad);
        if (bad) return MYRI_EXIT_INPUT;
        if (v) {
            if (out->nprograms == ARGS_N(out->programs)) {
                fprintf(stderr, "myri run: --program given more than %zu times\n", ARGS_N(out->programs));
                return MYRI_EXIT_INPUT;
            }
            out->programs[out->nprograms++] = v;
        } else if (n < (int)ARGS_N(out->argv_rest) - 1) {
            out->argv_rest[n++] = argv[i];
        } else {
            fprintf(stderr, "myri run: too many arguments\n");
            return MYRI_EXIT_INPUT;
        }
    }
    out->argv_rest[n] = NULL;
    *rest_argc = n;
    return MYRI_EXIT_OK;
}

int myri_cmd_run_parse(int argc, char **argv, myri_cmd_run_args *out)
{
    memset(out, 0, sizeof *out);
    int rest = 0;
    if (args__run_programs(argc, argv, out, &rest)) return MYRI_EXIT_INPUT;
    myri_cli_opt opts[] = {{"pcap", true, &out->pcap}, {"vcd", true, &out->vcd},
                           {"partitions", true, &out->partitions}, {"partition", true, &out->partition}};
    if (myri_cli_parse("run", rest, out->argv_rest, &out->cli, opts, ARGS_N(opts))) return MYRI_EXIT_INPUT;
    if (out->cli.help) return MYRI_EXIT_OK;
    if (out->cli.npositional > 1) {
        fprintf(stderr, "myri run: expected at most one scenario FILE (see 'myri run --help')\n");
        return MYRI_EXIT_INPUT;
    }
    out->file = out->cli.npositional ? out->cli.positional[0] : NULL;
    return MYRI_EXIT_OK;
}

/* The engine benchmark's values: defaults, ranges. */
static int args__bench_engine(myri_cmd_bench_args *out, const char *pending_s, const char *events_s,
                              const char *mean_s)
{
    const myri_cli *cli = &out->cli;
    if (cli->npositional != 1 || strcmp(cli->positional[0], "engine") != 0) {
        fprintf(stderr, "myri bench: expected a benchmark name: engine, pingpong, latency or stream "
                        "(see 'myri bench --help')\n");
        return MYRI_EXIT_INPUT;
    }
    if (cli->nsets) {
        fprintf(stderr, "myri bench: --set is not used by benchmarks\n");
        return MYRI_EXIT_INPUT;
    }
    out->pending = 10000, out->events = 0, out->mean = 1000000, out->seed = cli->have_seed ? cli->seed : 1;
    if (pending_s && myri_cli_uint("bench", "pending", pending_s, &out->pending)) return MYRI_EXIT_INPUT;
    if (events_s && myri_cli_uint("bench", "events", events_s, &out->events)) return MYRI_EXIT_INPUT;
    if (mean_s && myri_cli_uint("bench", "mean", mean_s, &out->mean)) return MYRI_EXIT_INPUT;
    if (events_s && out->events == 0) {
        fprintf(stderr, "myri bench: --events expects a positive number of events, got '%s' "
                        "(leave --events out for the default)\n", events_s);
        return MYRI_EXIT_INPUT;
    }
    if (out->pending < 1 || out->pending > 16000000 || out->mean < 1) {
        fprintf(stderr, "myri bench: --pending must be in 1..16000000 and --mean at least 1 ps\n");
        return MYRI_EXIT_INPUT;
    }
    if (!events_s) out->events = out->pending * 10 > 20000000 ? out->pending * 10 : 20000000;
    return MYRI_EXIT_OK;
}

int myri_cmd_bench_parse(int argc, char **argv, myri_cmd_bench_args *out)
{
    memset(out, 0, sizeof *out);
    const char *pending_s, *events_s, *mean_s, *runs_s;
    myri_cli_opt opts[] = {{"pending", true, &pending_s}, {"events", true, &events_s}, {"mean", true, &mean_s},
                           {"runs", true, &runs_s}};
    myri_cli *cli = &out->cli;
    if (myri_cli_parse("bench", argc, argv, cli, opts, ARGS_N(opts))) return MYRI_EXIT_INPUT;
    if (cli->npositional >= 1 && (!strcmp(cli->positional[0], "pingpong") || !strcmp(cli->positional[0], "latency") ||
                                  !strcmp(cli->positional[0], "stream"))) {
        out->system = cli->positional[0];
        if (pending_s || events_s || mean_s) {
            fprintf(stderr, "myri bench %s: --pending, --events and --mean belong to 'myri bench engine'\n",
                    out->system);
            return MYRI_EXIT_INPUT;
        }
        if (cli->help) return MYRI_EXIT_OK;
        if (cli->npositional > 2) {
            fprintf(stderr, "myri bench %s: expected at most one scenario FILE\n", out->system);
            return MYRI_EXIT_INPUT;
        }
        out->file = cli->npositional == 2 ? cli->positional[1] : NULL;
        out->seed = cli->have_seed ? cli->seed : 1;
        out->runs = 1;
        if (runs_s && (myri_cli_uint("bench", "runs", runs_s, &out->runs) || out->runs < 1 || out->runs > 100)) {
            fprintf(stderr, "myri bench %s: --runs expects 1 to 100 runs (seeds S, S+1, ...), got '%s'\n",
                    out->system, runs_s);
            return MYRI_EXIT_INPUT;
        }
        return MYRI_EXIT_OK;
    }
    if (cli->help) return MYRI_EXIT_OK;
    if (runs_s) {
        fprintf(stderr, "myri bench: --runs belongs to 'myri bench pingpong|latency|stream'\n");
        return MYRI_EXIT_INPUT;
    }
    return args__bench_engine(out, pending_s, events_s, mean_s);
}

int myri_cmd_topo_parse(int argc, char **argv, myri_cmd_topo_args *out)
{
    memset(out, 0, sizeof *out);
    const char *dot = NULL;
    myri_cli_opt opts[] = {{"dot", false, &dot}, {"route", true, &out->route}};
    int rc = myri_cli_parse("topo", argc, argv, &out->cli, opts, ARGS_N(opts));
    if (rc) return rc;
    out->dot = dot != NULL;
    if (out->cli.help) return MYRI_EXIT_OK;
    if (out->dot && (out->cli.json || out->route)) {
        fprintf(stderr, "myri topo: --dot cannot be combined with %s; expected one of --dot, --json, --route "
                        "(--route with --json gives the route as JSON)\n", out->cli.json ? "--json" : "--route");
        return MYRI_EXIT_INPUT;
    }
    if (out->cli.npositional != 1) {
        fprintf(stderr, "myri topo: expected one FILE (a scenario or network file with a topology: section)\n");
        return MYRI_EXIT_INPUT;
    }
    out->file = out->cli.positional[0];
    return MYRI_EXIT_OK;
}

int myri_cmd_map_parse(int argc, char **argv, myri_cmd_map_args *out)
{
    memset(out, 0, sizeof *out);
    const char *dot = NULL;
    myri_cli_opt opts[] = {{"dot", false, &dot}};
    int rc = myri_cli_parse("map", argc, argv, &out->cli, opts, ARGS_N(opts));
    if (rc) return rc;
    out->dot = dot != NULL;
    if (out->cli.help) return MYRI_EXIT_OK;
    if (out->cli.have_seed) {
        fprintf(stderr, "myri map: --seed is not taken; expected the scenario's seed (--set seed=N)\n");
        return MYRI_EXIT_INPUT;
    }
    if (out->dot && out->cli.json) {
        fprintf(stderr, "myri map: --dot cannot be combined with --json; expected one of them\n");
        return MYRI_EXIT_INPUT;
    }
    if (out->cli.npositional != 1) {
        fprintf(stderr, "myri map: expected one FILE (a scenario with a topology: section)\n");
        return MYRI_EXIT_INPUT;
    }
    out->file = out->cli.positional[0];
    return MYRI_EXIT_OK;
}

/* --sweeps, --wq, --split into out->opt; returns 0 or 2. */
static int args__qna_options(myri_cmd_qna_args *out, const char *sweeps, const char *wq, const char *split)
{
    myri_qna_options *opt = &out->opt;
    myri_qna_options_default(opt);
    if (sweeps) {
        uint64_t n;
        if (myri_cli_uint("qna", "sweeps", sweeps, &n)) return MYRI_EXIT_INPUT;
        if (n < 1 || n > 1000000) {
            fprintf(stderr, "myri qna: --sweeps expects 1 to 1000000, got '%s'\n", sweeps);
            return MYRI_EXIT_INPUT;
        }
        opt->sweeps = (int)n;
        out->have_sweeps = true;
    }
    if (wq && strcmp(wq, "whitt") && strcmp(wq, "paper")) {
        fprintf(stderr, "myri qna: --wq expects whitt or paper, got '%s'\n", wq);
        return MYRI_EXIT_INPUT;
    }
    if (wq) opt->wq = strcmp(wq, "paper") == 0 ? QNA_WQ_PAPER : QNA_WQ_WHITT;
    if (split && strcmp(split, "class") && strcmp(split, "aggregate")) {
        fprintf(stderr, "myri qna: --split expects class or aggregate, got '%s'\n", split);
        return MYRI_EXIT_INPUT;
    }
    if (split) opt->split = strcmp(split, "aggregate") == 0 ? QNA_SPLIT_AGGREGATE : QNA_SPLIT_CLASS;
    return MYRI_EXIT_OK;
}

/* --model nic-seed004 with --lambda; returns 0 or 2. */
static int args__qna_model(myri_cmd_qna_args *out)
{
    const char *lambda = out->lambda_text;
    if (strcmp(out->model, "nic-seed004") != 0) {
        fprintf(stderr, "myri qna: unknown model '%s'; expected nic-seed004\n", out->model);
        return MYRI_EXIT_INPUT;
    }
    if (out->cli.npositional || out->cli.nsets) {
        fprintf(stderr, "myri qna: --model takes no FILE and no --set (see 'myri qna --help')\n");
        return MYRI_EXIT_INPUT;
    }
    if (!lambda) {
        fprintf(stderr, "myri qna: --model nic-seed004 needs --lambda RATE (per microsecond)\n");
        return MYRI_EXIT_INPUT;
    }
    return myri_cli_double("qna", "lambda", lambda, &out->lambda) ? MYRI_EXIT_INPUT : MYRI_EXIT_OK;
}

int myri_cmd_qna_parse(int argc, char **argv, myri_cmd_qna_args *out)
{
    memset(out, 0, sizeof *out);
    const char *lambda, *sweeps, *wq, *split, *cond, *search;
    const myri_cli_opt opts[] = {
        {"model", true, &out->model}, {"lambda", true, &lambda}, {"sweeps", true, &sweeps},
        {"wq", true, &wq},            {"split", true, &split},   {"paper-conditions", false, &cond},
        {"search-seed004", false, &search},
    };
    int rc = myri_cli_parse("qna", argc, argv, &out->cli, opts, ARGS_N(opts));
    if (rc) return rc;
    out->cond = cond != NULL;
    out->search = search != NULL;
    out->lambda_text = lambda;
    if (out->cli.help || out->search) return MYRI_EXIT_OK;
    if ((rc = args__qna_options(out, sweeps, wq, split)) != 0) return rc;
    if (out->cond && !out->model) {
        fprintf(stderr, "myri qna: --paper-conditions applies to --model nic-seed004\n");
        return MYRI_EXIT_INPUT;
    }
    if (lambda && !out->model) {
        fprintf(stderr, "myri qna: --lambda applies to --model nic-seed004; with a FILE, set the "
                        "arrival rates in the file or with --set network.arrivals.N.rate=RATE\n");
        return MYRI_EXIT_INPUT;
    }
    if (out->model) return args__qna_model(out);
    if (out->cli.npositional != 1) {
        fprintf(stderr, "myri qna: expected one network FILE or --model (see 'myri qna --help')\n");
        return MYRI_EXIT_INPUT;
    }
    out->file = out->cli.positional[0];
    return MYRI_EXIT_OK;
}

static int args__choice(const char *opt, const char *v, const char *const *names, int n, int *out)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = i;
            return 0;
        }
    fprintf(stderr, "myri nicsim: --%s expects one of", opt);
    for (int i = 0; i < n; i++) fprintf(stderr, "%s%s", i ? ", " : " ", names[i]);
    fprintf(stderr, "; got '%s'\n", v);
    return MYRI_EXIT_INPUT;
}

static int args__rate(const char *opt, const char *text, double *out)
{
    if (myri_cli_double("nicsim", opt, text, out)) return MYRI_EXIT_INPUT;
    if (!(*out > 0.0) || !isfinite(*out)) {
        fprintf(stderr, "myri nicsim: --%s expects a positive rate per microsecond, got '%s'\n", opt, text);
        return MYRI_EXIT_INPUT;
    }
    return 0;
}

typedef struct args__nicsim_text {
    const char *rx, *arrivals, *precision, *warmup, *maxarr, *plain;
} args__nicsim_text;

/* The run options (out->opts) from the text; returns 0 or 2. */
static int args__nicsim_opts(myri_cmd_nicsim_args *out, const args__nicsim_text *t)
{
    myri_qsim_opts *o = &out->opts;
    memset(o, 0, sizeof *o);
    o->seed = out->cli.have_seed ? out->cli.seed : 1;
    o->precision = 0.02;
    o->plain_batch_means = t->plain != NULL;
    if (t->arrivals && t->precision) {
        fprintf(stderr, "myri nicsim: give either --arrivals or --precision, not both\n");
        return MYRI_EXIT_INPUT;
    }
    if (t->arrivals && (myri_cli_uint("nicsim", "arrivals", t->arrivals, &o->arrivals) || o->arrivals < 1000)) {
        fprintf(stderr, "myri nicsim: --arrivals expects an integer >= 1000\n");
        return MYRI_EXIT_INPUT;
    }
    if (t->precision && (myri_cli_double("nicsim", "precision", t->precision, &o->precision) ||
                         !(o->precision > 0.0 && o->precision < 1.0))) {
        fprintf(stderr, "myri nicsim: --precision expects a relative half-width in (0, 1), e.g. 0.02\n");
        return MYRI_EXIT_INPUT;
    }
    if (t->warmup && myri_cli_uint("nicsim", "warmup", t->warmup, &o->warmup_arrivals)) return MYRI_EXIT_INPUT;
    if (t->maxarr && myri_cli_uint("nicsim", "max-arrivals", t->maxarr, &o->max_arrivals)) return MYRI_EXIT_INPUT;
    return MYRI_EXIT_OK;
}

/* The model (out->net) and the run options from the text; returns 0 or 2. */
static int args__nicsim_setup(myri_cmd_nicsim_args *out, const args__nicsim_text *t)
{
    static const char *const models[] = {"pooled", "polling", "sendrecv"};
    static const char *const discs[] = {"limited", "gated", "exhaustive"};
    static const char *const blocks[] = {"hold", "skip"};
    int model = 0, disc = 0, blk = 0;
    double lambda = 0.0, rx = 0.0;
    if (!out->model || !out->lambda) {
        fprintf(stderr, "myri nicsim: --model and --lambda are required (see 'myri nicsim --help')\n");
        return MYRI_EXIT_INPUT;
    }
    if (args__choice("model", out->model, models, 3, &model) || args__rate("lambda", out->lambda, &lambda))
        return MYRI_EXIT_INPUT;
    if (out->disc && args__choice("discipline", out->disc, discs, 3, &disc)) return MYRI_EXIT_INPUT;
    if (out->blocking && args__choice("blocking", out->blocking, blocks, 2, &blk)) return MYRI_EXIT_INPUT;
    rx = lambda;
    if (t->rx && args__rate("rx-lambda", t->rx, &rx)) return MYRI_EXIT_INPUT;
    if (t->rx && model != MYRI_QSIM_SENDRECV) {
        fprintf(stderr, "myri nicsim: --rx-lambda only applies to --model sendrecv\n");
        return MYRI_EXIT_INPUT;
    }
    if (args__nicsim_opts(out, t)) return MYRI_EXIT_INPUT;
    if (myri_qsim_net_seed004(&out->net, (myri_qsim_model)model, lambda, model == MYRI_QSIM_SENDRECV ? rx : 0.0,
                              (myri_qsim_discipline)disc, (myri_qsim_blocking)blk) != MYRI_OK) {
        fprintf(stderr, "myri nicsim: invalid model parameters\n");
        return MYRI_EXIT_INPUT;
    }
    return MYRI_EXIT_OK;
}

int myri_cmd_nicsim_parse(int argc, char **argv, myri_cmd_nicsim_args *out)
{
    memset(out, 0, sizeof *out);
    args__nicsim_text t;
    const myri_cli_opt opts[] = {
        {"model", true, &out->model},     {"lambda", true, &out->lambda},
        {"rx-lambda", true, &t.rx},       {"arrivals", true, &t.arrivals},
        {"precision", true, &t.precision}, {"discipline", true, &out->disc},
        {"blocking", true, &out->blocking}, {"warmup", true, &t.warmup},
        {"max-arrivals", true, &t.maxarr}, {"plain", false, &t.plain},
    };
    int rc = myri_cli_parse("nicsim", argc, argv, &out->cli, opts, ARGS_N(opts));
    if (rc) return rc;
    if (out->cli.help) return MYRI_EXIT_OK;
    if (out->cli.npositional || out->cli.nsets) {
        fprintf(stderr, "myri nicsim: takes no FILE and no --set (see 'myri nicsim --help')\n");
        return MYRI_EXIT_INPUT;
    }
    return args__nicsim_setup(out, &t);
}

/* seed004's --blocking and --discipline; returns 0 or 2. */
static int args__reproduce_seed004(myri_cmd_reproduce_args *out, const char *blocking, const char *disc)
{
    if (blocking && strcmp(blocking, "hold") && strcmp(blocking, "skip")) {
        fprintf(stderr, "myri reproduce: --blocking expects hold or skip, got '%s'\n", blocking);
        return MYRI_EXIT_INPUT;
    }
    out->blocking = blocking && !strcmp(blocking, "skip") ? MYRI_QSIM_SKIP : MYRI_QSIM_HOLD;
    static const char *const discs[] = {"limited", "gated", "exhaustive"};
    out->disc = MYRI_QSIM_LIMITED;
    if (disc) {
        int i = 0;
        while (i < 3 && strcmp(disc, discs[i])) i++;
        if (i == 3) {
            fprintf(stderr, "myri reproduce: --discipline expects limited, gated or exhaustive, got '%s'\n", disc);
            return MYRI_EXIT_INPUT;
        }
        out->disc = (myri_qsim_discipline)i;
    }
    return MYRI_EXIT_OK;
}

/* Which paper, and the options that paper takes; returns 0 or 2. */
static int args__reproduce_paper(myri_cmd_reproduce_args *out, const char *precision, const char *threads,
                                 const char *blocking, const char *disc)
{
    const char *paper = out->cli.positional[0];
    if (!strcmp(paper, "seed001")) {
        out->paper = MYRI_PAPER_SEED001;
        if (precision || threads || out->plain || blocking || disc || out->system || out->messages_given) {
            fprintf(stderr, "myri reproduce: seed001 takes only --json, --seed, --figures DIR\n");
            return MYRI_EXIT_INPUT;
        }
        return MYRI_EXIT_OK;
    }
    if (!strcmp(paper, "seed000")) {
        out->paper = MYRI_PAPER_SEED000;
        if (out->figures || precision || threads || out->plain || blocking || disc || out->system) {
            fprintf(stderr, "myri reproduce: seed000 takes only --json, --seed, --messages N\n");
            return MYRI_EXIT_INPUT;
        }
        return MYRI_EXIT_OK;
    }
    if (out->messages_given) {
        fprintf(stderr, "myri reproduce: --messages is taken by seed000 only\n");
        return MYRI_EXIT_INPUT;
    }
    if (!strcmp(paper, "seed002")) {
        out->paper = MYRI_PAPER_SEED002;
        if (out->figures || precision || threads || out->plain || blocking || disc || out->system) {
            fprintf(stderr, "myri reproduce: seed002 takes only --json, --seed\n");
            return MYRI_EXIT_INPUT;
        }
        return MYRI_EXIT_OK;
    }
    if (!strcmp(paper, "seed004")) {
        out->paper = MYRI_PAPER_SEED004;
        return args__reproduce_seed004(out, blocking, disc);
    }
    if (!strcmp(paper, "seed004-sendrecv")) {
        out->paper = MYRI_PAPER_SEED004_SENDRECV;
        if (out->figures || out->plain || blocking || disc || out->system) {
            fprintf(stderr, "myri reproduce: seed004-sendrecv takes only --json, --seed, --precision, --threads\n");
            return MYRI_EXIT_INPUT;
        }
        return MYRI_EXIT_OK;
    }
    fprintf(stderr, "myri reproduce: unknown paper '%s'; expected seed000, seed001, seed002, seed004 or seed004-sendrecv\n", paper);
    return MYRI_EXIT_INPUT;
}

int myri_cmd_reproduce_parse(int argc, char **argv, myri_cmd_reproduce_args *out)
{
    memset(out, 0, sizeof *out);
    const char *precision, *threads, *plain, *blocking, *disc, *messages, *system;
    const myri_cli_opt opts[] = {
        {"figures", true, &out->figures}, {"precision", true, &precision}, {"threads", true, &threads},
        {"plain", false, &plain},         {"blocking", true, &blocking},   {"discipline", true, &disc},
        {"messages", true, &messages},    {"system", false, &system},
    };
    int rc = myri_cli_parse("reproduce", argc, argv, &out->cli, opts, ARGS_N(opts));
    if (rc) return rc;
    if (out->cli.help) return MYRI_EXIT_OK;
    if (out->cli.npositional != 1 || out->cli.nsets) {
        fprintf(stderr, "myri reproduce: expected one paper name (seed000, seed001, seed002, seed004 or seed004-sendrecv)\n");
        return MYRI_EXIT_INPUT;
    }
    out->plain = plain != NULL;
    out->system = system != NULL;
    out->messages = 64;
    out->messages_given = messages != NULL;
    uint64_t nm = 0;
    if (messages && (myri_cli_uint("reproduce", "messages", messages, &nm) || nm < 4 || nm > 100000)) {
        fprintf(stderr, "myri reproduce: --messages expects 4 to 100000\n");
        return MYRI_EXIT_INPUT;
    }
    if (messages) out->messages = (int)nm;
    out->seed = out->cli.have_seed ? out->cli.seed : 1;
    out->precision = 0.02;
    if (precision && (myri_cli_double("reproduce", "precision", precision, &out->precision) ||
                      !(out->precision > 0.0 && out->precision < 1.0))) {
        fprintf(stderr, "myri reproduce: --precision expects a relative half-width in (0, 1)\n");
        return MYRI_EXIT_INPUT;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t nthreads = ncpu >= 2 ? 2 : 1;
    if (threads && (myri_cli_uint("reproduce", "threads", threads, &nthreads) || nthreads < 1 || nthreads > 16)) {
        fprintf(stderr, "myri reproduce: --threads expects 1 to 16\n");
        return MYRI_EXIT_INPUT;
    }
    out->threads = (unsigned)nthreads;
    return args__reproduce_paper(out, precision, threads, blocking, disc);
}

/* --NAME TEXT (NULL: absent, *out kept) as an integer in lo..hi; 0 or 2 with a message. */
static int args__verify_bound(const char *name, const char *text, uint64_t lo, uint64_t hi, uint32_t *out)
{
    uint64_t v;
    if (!text) return MYRI_EXIT_OK;
    if (myri_cli_uint("verify", name, text, &v)) return MYRI_EXIT_INPUT;
    if (v < lo || v > hi) {
        fprintf(stderr, "myri verify: --%s %s is out of range; expected %" PRIu64 " to %" PRIu64 "\n", name, text, lo,
                hi);
        return MYRI_EXIT_INPUT;
    }
    *out = (uint32_t)v;
    return MYRI_EXIT_OK;
}

int myri_cmd_verify_parse(int argc, char **argv, myri_cmd_verify_args *a)
{
    memset(a, 0, sizeof *a);
    myri_verify_bounds_default(&a->b);
    const char *model = NULL, *timed = NULL, *sends = NULL, *frames = NULL, *paper = NULL, *small = NULL, *replay = NULL,
               *limit = NULL;
    myri_cli_opt opts[] = {{"property", true, &a->prop}, {"model", false, &model}, {"timed", false, &timed},
                           {"paper", false, &paper}, {"small-ticks", true, &small}, {"replay", false, &replay},
                           {"time-limit", true, &limit},
                           {"sends", true, &sends}, {"frames", true, &frames}};
    int rc = myri_cli_parse("verify", argc, argv, &a->cli, opts, sizeof opts / sizeof opts[0]);
    if (rc || a->cli.help) return rc;
    if (args__verify_bound("sends", sends, 1, 8, &a->b.sends) || args__verify_bound("frames", frames, 0, 8, &a->b.frames) ||
        args__verify_bound("small-ticks", small, 0, 4, &a->b.small_ticks) ||
        args__verify_bound("time-limit", limit, 1, 3600, &a->b.time_limit_s))
        return MYRI_EXIT_INPUT;
    a->model = model != NULL, a->timed = timed != NULL, a->paper = paper != NULL, a->replay = replay != NULL;
    if (a->cli.nsets) {
        fprintf(stderr, "myri verify: --set is not taken: verify reads no scenario (the firmware's own tables)\n");
        return MYRI_EXIT_INPUT;
    }
    if (small && !a->timed) {
        fprintf(stderr, "myri verify: --small-ticks is taken with --timed only\n");
        return MYRI_EXIT_INPUT;
    }
    if (a->cli.npositional != 1) {
        fprintf(stderr, "myri verify: expected one FIRMWARE (lcp, myricom or mcp)\n");
        return MYRI_EXIT_INPUT;
    }
    a->fw = a->cli.positional[0];
    if (!myri_verify_props(a->fw, NULL)) {
        fprintf(stderr, "myri verify: unknown firmware '%s'; expected lcp, myricom or mcp\n", a->fw);
        return MYRI_EXIT_INPUT;
    }
    if (a->replay && (!a->prop || a->paper || a->model || a->timed || a->cli.json)) {
        fprintf(stderr, "myri verify: --replay needs --property NAME (and goes without --paper, --model, --timed, "
                        "--json)\n");
        return MYRI_EXIT_INPUT;
    }
    if (a->paper && strcmp(a->fw, "lcp") && strcmp(a->fw, "myricom")) {
        fprintf(stderr, "myri verify: --paper: the paper gives Promela for lcp and myricom, not '%s'\n", a->fw);
        return MYRI_EXIT_INPUT;
    }
    if ((a->model && (a->timed || a->prop || a->cli.json || a->paper)) || (a->timed && (a->prop || a->paper))) {
        fprintf(stderr, "myri verify: --model, --timed and --property go alone (--json with --timed or a check)\n");
        return MYRI_EXIT_INPUT;
    }
    return MYRI_EXIT_OK;
}

/* ---- myri lanai ------------------------------------------------------------------------- */

static int args__lanai_run(int argc, char **argv, myri_cmd_lanai_args *out)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--json")) {
            out->json = true;
        } else if (!strcmp(a, "--entry") && has_value) {
            out->entry = argv[++i];
        } else if (!strcmp(a, "--max-cycles") && has_value) {
            if (myri_cli_uint("lanai", a, argv[++i], &out->max_cycles)) return MYRI_EXIT_INPUT;
        } else if (!strcmp(a, "--sram") && has_value) {
            if (myri_cli_uint("lanai", a, argv[++i], &out->sram)) return MYRI_EXIT_INPUT;
            if (out->sram < 4096 || out->sram > (1u << 25) || out->sram % 4) {
                fprintf(stderr, "myri lanai: --sram %s: expected a multiple of 4 from 4096 to 33554432\n", argv[i]);
                return MYRI_EXIT_INPUT;
            }
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "myri lanai: unknown option or missing value: %s (see 'myri lanai --help')\n", a);
            return MYRI_EXIT_INPUT;
        } else if (out->npaths == ARGS_N(out->paths)) {
            fprintf(stderr, "myri lanai: too many objects (at most %zu)\n", ARGS_N(out->paths));
            return MYRI_EXIT_INPUT;
        } else {
            out->paths[out->npaths++] = a;
        }
    }
    if (!out->npaths) {
        fprintf(stderr, "myri lanai run: expected at least one FILE.o (see 'myri lanai --help')\n");
        return MYRI_EXIT_INPUT;
    }
    return MYRI_EXIT_OK;
}

int myri_cmd_lanai_parse(int argc, char **argv, myri_cmd_lanai_args *out)
{
    memset(out, 0, sizeof *out);
    out->entry = "main";
    out->max_cycles = 1000000000ull;
    out->sram = 1u << 20;
    if (argc < 2) return out->help = true, MYRI_EXIT_INPUT;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return out->help = true, MYRI_EXIT_OK;
    if (!strcmp(argv[1], "disasm")) {
        if (argc != 3 || argv[2][0] == '-') {
            fprintf(stderr, "myri lanai disasm: expected one FILE.o (see 'myri lanai --help')\n");
            return MYRI_EXIT_INPUT;
        }
        out->disasm = true;
        out->paths[out->npaths++] = argv[2];
        return MYRI_EXIT_OK;
    }
    if (strcmp(argv[1], "run")) {
        fprintf(stderr, "myri lanai: unknown action '%s'; expected run or disasm\n", argv[1]);
        return MYRI_EXIT_INPUT;
    }
    return args__lanai_run(argc, argv, out);
}
