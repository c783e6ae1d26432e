/* misbehave.c -- a user program that misbehaves on purpose, for
 * tests/scenario/program_faults.sh: its first argument says how (segv,
 * abort, exit, stack, busy, alloc) on host 0, or on every host when the
 * second is `all`; the other hosts behave. */
#include <myri/prog.h>
#include <stdlib.h>
#include <string.h>

static int misbehave__deep(volatile char *prev, int n)
{
    volatile char frame[1024];
    frame[0] = (char)n;
    if (prev) frame[1] = prev[0];
    return misbehave__deep(frame, n + 1) + frame[1];
}

int myri_main(int argc, char **argv)
{
    if (argc < 2 || (myri_prog_host() != 0 && !(argc > 2 && !strcmp(argv[2], "all")))) return 0; /* others behave */
    const char *how = argv[1];
    if (!strcmp(how, "segv")) {
        volatile int *p = (int *)(uintptr_t)16;
        return *p;
    }
    if (!strcmp(how, "abort")) abort();
    if (!strcmp(how, "exit")) exit(3);
    if (!strcmp(how, "stack")) return misbehave__deep(NULL, 0);
    if (!strcmp(how, "busy")) {
        for (volatile unsigned long i = 0;; i++) {
        }
    }
    if (!strcmp(how, "alloc")) {
        size_t total = 0;
        while (myri_prog_alloc(1 << 20)) total += 1 << 20;
        myri_prog_report("alloc.bytes", (double)total);
        return 0;
    }
    return 2;
}
