/* fuzz_lanai_cli.c -- fuzz target for the option parser of `myri lanai`
 * (myri_cmd_lanai_parse, src/cli/args.c): the input is split at NUL and
 * newline bytes into argv[1..] (at most 64 arguments, each in its own
 * allocation so that the sanitizers see reads past an argument) after
 * argv[0] = "lanai".  The parse must return 0 or 2, and on success what it
 * promises holds: help alone, or disasm with exactly one path, or run with
 * 1..64 paths, each a pointer into argv that does not start with "--", an
 * entry pointing into argv (or the default "main"), --sram a multiple of 4
 * from 4096 to 32 MiB.  Nothing is read or run; messages go to stderr. */
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

static bool fz__in(const char *s, char **v, int c)
{
    for (int i = 0; i < c; i++)
        if (s >= v[i] && s <= v[i] + strlen(v[i])) return true;
    return false;
}

static void fz__check(const myri_cmd_lanai_args *a, char **v, int c)
{
    if (a->help) return;
    FZ_CHECK(a->npaths >= 1 && a->npaths <= 64);
    if (a->disasm) FZ_CHECK(a->npaths == 1 && c == 3);
    for (size_t i = 0; i < a->npaths; i++) FZ_CHECK(fz__in(a->paths[i], v, c) && strncmp(a->paths[i], "--", 2));
    FZ_CHECK(!strcmp(a->entry, "main") || fz__in(a->entry, v, c));
    FZ_CHECK(a->sram >= 4096 && a->sram <= (1u << 25) && a->sram % 4 == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    char *argv[FZ_MAX_ARGS + 1];
    /* no bytes: no word at all (argv is "lanai" alone) */
    int argc = fz_argv_split(data, size, 0, "lanai", argv, size ? FZ_MAX_ARGS : 1);
    if (argv[0]) {
        myri_cmd_lanai_args a;
        int rc = myri_cmd_lanai_parse(argc, argv, &a);
        FZ_CHECK(rc == MYRI_EXIT_OK || rc == MYRI_EXIT_INPUT);
        if (rc == MYRI_EXIT_OK) fz__check(&a, argv, argc);
    }
    fz_argv_free(argv, argc);
    return 0;
}
