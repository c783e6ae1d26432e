/* ranks.h -- the rank layer of the `myri` program (docs/RANKS.md): whether
 * this process is one of several started by an MPI launcher (mpirun), and
 * the hook through which a sweep spreads its runs over them
 * (myri_run_ranks, app/run_opts.h).  Not part of libmyri: src/app/ranks.c
 * is compiled into the program only, with MPI when CMake found it
 * (MYRI_HAVE_MPI), else as a single-process layer (one rank, launches
 * refused); the library never calls MPI (docs/ARCHITECTURE.md, rule (l)). */
#ifndef MYRI_APP_RANKS_H
#define MYRI_APP_RANKS_H

#include <stdbool.h>

#include "app/run_opts.h"

/* True if this program was built with MPI. */
bool myri_ranks_built(void);

/* What the environment says about ranks, without calling MPI: 0 when no MPI
 * launcher started this process (plain `myri`), else the number of ranks the
 * launcher names (OMPI_COMM_WORLD_SIZE, PMI_SIZE), or -1 when it started this
 * process without naming how many (PMIX_RANK, PMI_RANK alone). */
long myri_ranks_env_size(void);

/* True unless the environment names this process's rank as other than 0
 * (then another process of the same launch prints the messages). */
bool myri_ranks_env_first(void);

/* Starts the rank layer for `myri run`: nothing at all when no launcher
 * started the process (one rank, as fast as ever); MPI_Init when one did and
 * MPI is built in (MPI_Finalize at exit).  Without MPI built in under a
 * launcher of several ranks (or an unknown number): says on standard error
 * that this myri was built without MPI and how to get it, and returns -1
 * (the caller exits 2).  0 otherwise. */
int myri_ranks_start(void);

/* MPI_Finalize if started (also registered with atexit). */
void myri_ranks_stop(void);

/* This process's rank and the number of ranks (0 and 1 before or without start). */
int myri_ranks_rank(void);
int myri_ranks_size(void);

/* The hook a sweep uses to spread its runs (myri_run_opts.ranks), or NULL
 * with one rank. */
const myri_run_ranks *myri_ranks_hook(void);

#endif
