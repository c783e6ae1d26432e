/* cli.c -- option parsing shared by all subcommands (see cli.h). */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int cli__err(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "myri %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see 'myri %s --help')\n", cmd);
    return MYRI_EXIT_INPUT;
}

int myri_cli_uint(const char *cmd, const char *opt, const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!text || !*text || *text == '-') goto bad;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end) goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "myri %s: --%s expects a non-negative integer, got '%s'\n", cmd, opt, text ? text : "");
    return MYRI_EXIT_INPUT;
}

int myri_cli_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    if (!text || !*text) goto bad;
    double v = strtod(text, &end);
    if (errno || *end || v != v) goto bad;
    *out = v;
    return 0;
bad:
    fprintf(stderr, "myri %s: --%s expects a number, got '%s'\n", cmd, opt, text ? text : "");
    return MYRI_EXIT_INPUT;
}

/* Handles one "--name[=value]" option; returns 0, or 2 on error. */
static int cli__option(const char *cmd, int argc, char **argv, int *i, myri_cli *cli, const myri_cli_opt *opts,
                       size_t nopts)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *value = eq ? eq + 1 : NULL;
    bool common_value = (len == 4 && !strncmp(arg, "seed", 4)) || (len == 3 && !strncmp(arg, "set", 3));
    const myri_cli_opt *o = NULL;
    for (size_t k = 0; k < nopts; k++)
        if (strlen(opts[k].name) == len && !strncmp(opts[k].name, arg, len)) o = &opts[k];
    bool takes = common_value || (o && o->takes_value);
    if (takes && !value) {
        if (*i + 1 >= argc) return cli__err(cmd, "option '%s' needs a value", argv[*i]);
        value = argv[++*i];
    }
    if (!takes && value) return cli__err(cmd, "option '%s' takes no value", argv[*i]);
    if (len == 4 && !strncmp(arg, "json", 4) && !o) {
        cli->json = true;
    } else if (len == 4 && !strncmp(arg, "help", 4)) {
        cli->help = true;
    } else if (len == 4 && !strncmp(arg, "seed", 4)) {
        if (myri_cli_uint(cmd, "seed", value, &cli->seed)) return MYRI_EXIT_INPUT;
        cli->have_seed = true;
    } else if (len == 3 && !strncmp(arg, "set", 3)) {
        if (cli->nsets == sizeof cli->sets / sizeof cli->sets[0])
            return cli__err(cmd, "too many --set options (at most 512)%s", "");
        cli->sets[cli->nsets++] = value;
    } else if (o) {
        if (*o->value) return cli__err(cmd, "option '--%s' given twice; expected it once", o->name);
        *o->value = o->takes_value ? value : "1";
    } else {
        return cli__err(cmd, "unknown option '%s'", argv[*i]);
    }
    return 0;
}

int myri_cli_parse(const char *cmd, int argc, char **argv, myri_cli *cli, const myri_cli_opt *opts, size_t nopts)
{
    memset(cli, 0, sizeof *cli);
    for (size_t k = 0; k < nopts; k++) *opts[k].value = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h")) {
            cli->help = true;
        } else if (a[0] == '-' && a[1] == '-' && a[2]) {
            if (cli__option(cmd, argc, argv, &i, cli, opts, nopts)) return MYRI_EXIT_INPUT;
        } else if (a[0] == '-' && a[1]) {
            return cli__err(cmd, "unknown option '%s'", a);
        } else {
            if (cli->npositional == sizeof cli->positional / sizeof cli->positional[0])
                return cli__err(cmd, "too many arguments ('%s')", a);
            cli->positional[cli->npositional++] = a;
        }
    }
    /* the subcommands that draw no random numbers refuse --seed rather than ignore it */
    if (cli->have_seed && (!strcmp(cmd, "topo") || !strcmp(cmd, "qna") || !strcmp(cmd, "verify")))
        return cli__err(cmd, "--seed is not used: myri %s draws no random numbers", cmd);
    return 0;
}

int myri_cli_apply_sets(const myri_cli *cli, myri_node *root)
{
    for (size_t i = 0; i < cli->nsets; i++) {
        myri_error err = {0};
        if (myri_node_set(root, cli->sets[i], &err) != MYRI_OK) return myri_cli_input_error(&err);
    }
    return 0;
}

int myri_cli_input_error(const myri_error *err)
{
    fprintf(stderr, "%s\n", err->msg);
    return MYRI_EXIT_INPUT;
}

int myri_cli_exit(myri_status st, const myri_error *err)
{
    if (st == MYRI_OK) return MYRI_EXIT_OK;
    if (st == MYRI_EINPUT) return myri_cli_input_error(err);
    /* a failed run always says why */
    if (err && err->msg[0]) fprintf(stderr, "myri: %s\n", err->msg);
    else fprintf(stderr, "myri: the run failed: %s\n", myri_strerror(st));
    return MYRI_EXIT_FAIL;
}

int myri_cli_finish(int rc)
{
    errno = 0;
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int e = errno;
    if (bad && !e) {
        /* stdio failed in an earlier write and kept no reason: the output is
         * already incomplete, so one more byte tells why */
        clearerr(stdout);
        errno = 0;
        if (fputc('\n', stdout) == EOF || fflush(stdout) != 0) e = errno;
    }
    errno = 0;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        e = errno;
    }
    if (!bad) return rc;
    fprintf(stderr, "myri: cannot write the results to standard output: %s\n", e ? strerror(e) : "write error");
    return rc == MYRI_EXIT_OK ? MYRI_EXIT_FAIL : rc;
}
