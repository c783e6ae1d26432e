/* run.c -- `myri run [FILE]`: load a scenario, apply --set, run its job. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/args.h"
#include "app/partition.h"
#include "app/ranks.h"
#include "app/registry.h"

static int run__main(int argc, char **argv);

static void run__usage(FILE *out)
{
    fprintf(out,
            "usage: myri run [FILE] [--json] [--seed N] [--set key=value]... [--pcap FILE]\n"
            "                [--vcd FILE] [--program [NAME=]FILE.so]... [--firmware FILE.o]...\n"
            "                [--partitions N [--partition leaf|block|random:SEED]]\n\n"
            "Runs the scenario in FILE (YAML), or the built-in default scenario when no FILE is\n"
            "given.  The scenario's `job:` key says what to run (default: %s).  --set overrides a\n"
            "scenario value by its dotted path, e.g. --set link.rate=1.28Gb/s.  The effective\n"
            "configuration is echoed at the top of the results.  A progress line is shown on a\n"
            "terminal.\n"
            "--vcd FILE (system job): a timeline of each NIC's engines, CPU context and firmware\n"
            "states, for GTKWave.  --program FILE.so (system job): the program of the `programs:`\n"
            "entries that say `program: user`, a shared object with `int myri_main(int, char **)`\n"
            "built against the installed library (examples/programs/); --program NAME=FILE.so\n"
            "(repeatable, up to 16): the program of the entries that say `program: NAME`.\n"
            "--firmware FILE.o (system job, repeatable, up to 32): run firmware: elf with these LANai\n"
            "objects (clang --target=lanai -c) as elf.objects (docs/LANAI.md).\n"
            "mpirun -n R myri run FILE: the scenario's sweep spread over R MPI ranks, one report from\n"
            "rank 0 (the plain run's); without a sweep, a fabric run is cut into R partitions, one per\n"
            "rank (as --partitions R; a system run is refused: docs/RANKS.md).\n"
            "--partitions N (fabric and system jobs): the run cut into N partitions (1..%u) inside this process,\n"
            "synchronised in windows of the smallest lookahead of a cut cable; the report is the\n"
            "whole run's, plus the cut (sizes, cut cables, L, windows, messages).  --partition: leaf\n"
            "(hosts with their leaf switch, the default), block (nodes by index) or random:SEED\n"
            "(tests).  A NIC's packet (with its bytes) that crosses a cut cable stops a system run\n"
            "until packet bytes travel with the messages (docs/PARTITION.md step 9).\n\njobs:\n",
            myri_job_default(), MYRI_PART_MAX);
    for (const myri_job *const *j = myri_jobs(); *j; j++) fprintf(out, "  %-10s %s\n", (*j)->name, (*j)->help);
    fprintf(out, "\ncomponent types (created by name through the registry):\n");
    for (const myri_component_ops *const *c = myri_component_types(); *c; c++) {
        /* the help wrapped at 100 columns, continued under its first word */
        int col = fprintf(out, "  %-16s", (*c)->type);
        for (const char *w = (*c)->help ? (*c)->help : ""; *w;) {
            size_t n = strcspn(w, " ");
            if (col + 1 + (int)n > 100) col = fprintf(out, "\n%18s", "");
            if (n) col += fprintf(out, " %.*s", (int)n, w);
            w += n + (w[n] == ' ');
        }
        fputc('\n', out);
    }
    for (const myri_job *const *j = myri_jobs(); *j; j++) {
        fprintf(out, "\nkeys of job '%s':\n", (*j)->name);
        if ((*j)->help_params) (*j)->help_params(out);
    }
}

/* Finds the job named by the scenario's `job:` key (or the default). */
static const myri_job *run__job(const myri_node *root, myri_error *err)
{
    const myri_node *jn = myri_node_get(root, "job");
    const char *name = myri_job_default();
    if (jn) {
        if (jn->kind != MYRI_NODE_SCALAR) {
            myri_error_at(err, jn, "bad value for job: expected a job name");
            return NULL;
        }
        name = jn->scalar;
    }
    const myri_job *job = myri_job_find(name);
    if (!job) {
        char list[256] = "";
        for (const myri_job *const *j = myri_jobs(); *j; j++) {
            if (list[0]) strncat(list, ", ", sizeof list - strlen(list) - 1);
            strncat(list, (*j)->name, sizeof list - strlen(list) - 1);
        }
        myri_error_at(err, jn, "unknown job '%s'; expected one of: %s", name, list);
    }
    return job;
}

/* The programs of a system run are C code in this process: what they print
 * with printf must not mix with the report (a --json object above all).
 * While the job runs, the process's standard output (fd 1) is standard
 * error, and the report goes to the real standard output through a stream
 * of its own; NULL (and the report on stdout) if that cannot be set up. */
static FILE *run__isolate_stdout(int *saved)
{
    fflush(stdout);
    *saved = dup(STDOUT_FILENO);
    if (*saved < 0) return NULL;
    int rep = dup(*saved);
    FILE *out = rep >= 0 ? fdopen(rep, "w") : NULL;
    if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        if (out) fclose(out);
        else if (rep >= 0) close(rep);
        close(*saved);
        *saved = -1;
        return NULL;
    }
    return out;
}

/* Puts the real standard output back; a report that could not be written fails the run. */
static int run__restore_stdout(FILE *out, int saved, int rc)
{
    fflush(stdout); /* what the programs printed, to standard error */
    errno = 0;
    bool bad = fflush(out) != 0 || ferror(out);
    int e = errno;
    if (fclose(out) != 0 && !bad) bad = true, e = errno;
    dup2(saved, STDOUT_FILENO);
    close(saved);
    if (!bad) return rc;
    fprintf(stderr, "myri: cannot write the results to standard output: %s\n", e ? strerror(e) : "write error");
    return rc == MYRI_EXIT_OK ? MYRI_EXIT_FAIL : rc;
}

/* --firmware FILE.o...: firmware: elf with elf.objects [FILE.o, ...] (after --set, so it wins). */
static int run__firmware(const myri_cmd_run_args *a, myri_node *root)
{
    char list[8192] = "elf.objects=[";
    size_t n = strlen(list);
    for (size_t i = 0; i < a->nfirmware; i++) {
        const char *f = a->firmware[i];
        if (!f[0] || strpbrk(f, ",[]{}\"'#") || isspace((unsigned char)f[0]) ||
            isspace((unsigned char)f[strlen(f) - 1])) {
            fprintf(stderr, "myri run: --firmware '%s': expected a LANai object file name without , [ ] { } quotes "
                            "or # (or give elf.objects in the scenario)\n", f);
            return MYRI_EXIT_INPUT;
        }
        FILE *probe = fopen(f, "rb");
        if (!probe) {
            fprintf(stderr, "myri run: --firmware %s: cannot read: %s\n", f, strerror(errno));
            return MYRI_EXIT_INPUT;
        }
        fclose(probe);
        int w = snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", f);
        if (w < 0 || (size_t)w >= sizeof list - n - 2) {
            fprintf(stderr, "myri run: --firmware: the file names are too long together (at most %zu bytes)\n",
                    sizeof list - 16);
            return MYRI_EXIT_INPUT;
        }
        n += (size_t)w;
    }
    strcat(list, "]");
    myri_error err = {0};
    if (myri_node_set(root, "firmware=elf", &err) != MYRI_OK || myri_node_set(root, list, &err) != MYRI_OK)
        return myri_cli_input_error(&err);
    return 0;
}

/* Under mpirun (docs/RANKS.md): ranks other than 0 print nothing (rank 0
 * prints the one report and every message); a scenario with a sweep has its
 * runs spread, a fabric scenario without one is cut into one partition per
 * rank (docs/PARTITION.md step 10), and a system run cannot be cut yet. */
static int run__ranks_check(const myri_node *root, const myri_job *job)
{
    int n = myri_ranks_size();
    if (n < 2) return 0;
    /* a sweep: sweep.key (fabric and system jobs), or sweep.runs alone (system job: the scenario N times) */
    const myri_node *k = myri_node_path(root, "sweep.key"), *r = myri_node_path(root, "sweep.runs");
    bool sweep = (k && k->kind == MYRI_NODE_SCALAR && k->scalar[0]) ||
                 (!strcmp(job->name, "system") && r && r->kind == MYRI_NODE_SCALAR && strcmp(r->scalar, "1") != 0);
    if (sweep || !strcmp(job->name, "fabric")) return 0;
    fprintf(stderr, "myri run: started as %d MPI ranks, but this scenario has no sweep and its job is '%s': only a "
                    "fabric run is cut across ranks yet (its hosts, NICs, firmware and programs are not units whose "
                    "ids and events stay the same whatever the cut: docs/PARTITION.md step 9), and myri does not run "
                    "the same job %d times.\n"
                    "  Give the scenario a `sweep:` (its runs are spread over the ranks), or run it with mpirun -n 1 "
                    "or without mpirun (docs/RANKS.md).\n", n, job->name, n);
    return MYRI_EXIT_INPUT;
}

/* --partitions N and --partition MODE: checked here (exit 2), the fabric and system jobs only. */
static int run__partitions(const myri_cmd_run_args *a, const myri_job *job, uint32_t *n)
{
    *n = 0;
    if (!a->partitions && !a->partition) return 0;
    if (!a->partitions && myri_ranks_size() < 2) { /* under mpirun -n R the number is R */
        fprintf(stderr, "myri run: --partition %s needs --partitions N (the number of partitions)\n", a->partition);
        return MYRI_EXIT_INPUT;
    }
    uint64_t v = (uint64_t)myri_ranks_size();
    if (a->partitions && myri_cli_uint("run", "partitions", a->partitions, &v)) return MYRI_EXIT_INPUT;
    if (v < 1 || v > MYRI_PART_MAX) {
        fprintf(stderr, "myri run: %llu partitions (--partitions or mpirun -n): expected 1 to %u\n",
                (unsigned long long)v, MYRI_PART_MAX);
        return MYRI_EXIT_INPUT;
    }
    myri_part_mode m;
    myri_error err = {0};
    if (a->partition && myri_part_mode_parse(a->partition, &m, &err)) {
        fprintf(stderr, "myri run: %s\n", err.msg);
        return MYRI_EXIT_INPUT;
    }
    if (strcmp(job->name, "fabric") != 0 && strcmp(job->name, "system") != 0) {
        fprintf(stderr, "myri run: --partitions cuts fabric and system jobs only; this scenario's job is '%s'; run "
                        "it whole (docs/PARTITION.md step 9).\n",
                job->name);
        return MYRI_EXIT_INPUT;
    }
    *n = a->partitions ? (uint32_t)v : 0;
    return 0;
}

/* Ranks other than 0 write nothing: their standard output and error go to /dev/null. */
static void run__quiet_rank(void)
{
    if (myri_ranks_rank() == 0) return;
    fflush(stdout);
    fflush(stderr);
    if (!freopen("/dev/null", "w", stdout)) return;
    if (!freopen("/dev/null", "w", stderr)) return;
}

int myri_cmd_run(int argc, char **argv)
{
    int rc0 = run__main(argc, argv);
    myri_ranks_stop();
    return rc0;
}

static int run__main(int argc, char **argv)
{
    myri_cmd_run_args a;
    if (myri_cmd_run_parse(argc, argv, &a)) return MYRI_EXIT_INPUT;
    if (a.cli.help) {
        run__usage(stdout);
        return MYRI_EXIT_OK;
    }
    if (myri_ranks_start() != 0) return MYRI_EXIT_INPUT;
    run__quiet_rank();
    myri_error err = {0};
    myri_node *root = NULL;
    const char *file = a.file ? a.file : "(built-in default scenario)";
    myri_status st;
    if (a.file) {
        st = myri_doc_load(file, &root, &err);
    } else {
        const char *text = myri_default_scenario();
        st = myri_doc_parse(file, text, strlen(text), &root, &err);
    }
    if (st != MYRI_OK) return myri_cli_input_error(&err);
    int rc = myri_cli_apply_sets(&a.cli, root);
    if (!rc && a.nfirmware) rc = run__firmware(&a, root);
    const myri_job *job = rc ? NULL : run__job(root, &err);
    if (!rc && !job) rc = myri_cli_input_error(&err);
    if (!rc) rc = run__ranks_check(root, job);
    if (!rc && (a.vcd || a.nprograms || a.nfirmware) && strcmp(job->name, "system") != 0) {
        fprintf(stderr, "myri run: %s is taken by the system job only; this scenario's job is '%s'\n",
                a.vcd ? "--vcd" : a.nprograms ? "--program" : "--firmware", job->name);
        rc = MYRI_EXIT_INPUT;
    }
    uint32_t nparts = 0;
    if (!rc) rc = run__partitions(&a, job, &nparts);
    if (!rc) {
        int saved = -1;
        FILE *out = strcmp(job->name, "system") ? stdout : run__isolate_stdout(&saved);
        myri_run_opts ro = {.json = a.cli.json, .have_seed = a.cli.have_seed, .seed = a.cli.seed,
                            .out = out ? out : stdout, .progress = isatty(fileno(stderr)) ? stderr : NULL,
                            .pcap_path = a.pcap, .vcd_path = a.vcd,
                            .programs = a.programs, .nprograms = a.nprograms, .ranks = myri_ranks_hook(),
                            .partitions = nparts, .partition = a.partition};
        const char *fault = getenv("MYRI_PART_TEST_FAULT_PS"); /* tests only: messages delivered early */
        if ((nparts || myri_ranks_size() > 1) && fault) ro.part_test_fault_ps = strtoull(fault, NULL, 10);
        ro.part_test_one_pass = nparts && getenv("MYRI_PART_TEST_ONE_PASS"); /* tests only: the end's fault */
        rc = myri_cli_exit(job->run(root, file, &ro, &err), &err);
        if (out && out != stdout) rc = run__restore_stdout(out, saved, rc);
    }
    myri_node_free(root);
    return rc;
}
