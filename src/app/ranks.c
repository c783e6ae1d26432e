/* ranks.c -- the rank layer of the `myri` program (ranks.h, docs/RANKS.md):
 * Open MPI (or any MPI) when built with MYRI_HAVE_MPI, one rank otherwise.
 * Compiled into the program only, never into libmyri. */
#include "app/ranks.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MYRI_HAVE_MPI
#include <mpi.h>
#endif

static struct {
    int rank, size;
    bool started;
    myri_run_ranks hook;
} ranks__g = {0, 1, false, {0, 1, NULL, NULL, NULL, NULL}};

bool myri_ranks_built(void)
{
#ifdef MYRI_HAVE_MPI
    return true;
#else
    return false;
#endif
}

/* A whole number from the environment, or -1 if the variable is absent or not one. */
static long ranks__env_long(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v) return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return *end || n < 0 ? -1 : n;
}

/* What launchers set: Open MPI's mpirun (OMPI_COMM_WORLD_*), MPICH's and Intel MPI's Hydra (PMI_*), PMIx
 * launchers (PMIX_RANK). */
static const char *const ranks__size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
static const char *const ranks__rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
#define RANKS__N(a) (sizeof a / sizeof *a)

long myri_ranks_env_size(void)
{
    for (size_t i = 0; i < RANKS__N(ranks__size_vars); i++) {
        long n = ranks__env_long(ranks__size_vars[i]);
        if (n >= 0) return n;
    }
    for (size_t i = 0; i < RANKS__N(ranks__rank_vars); i++)
        if (getenv(ranks__rank_vars[i])) return -1;
    return 0;
}

bool myri_ranks_env_first(void)
{
    for (size_t i = 0; i < RANKS__N(ranks__rank_vars); i++) {
        long r = ranks__env_long(ranks__rank_vars[i]);
        if (r >= 0) return r == 0;
    }
    return true;
}

int myri_ranks_rank(void) { return ranks__g.rank; }
int myri_ranks_size(void) { return ranks__g.size; }

const myri_run_ranks *myri_ranks_hook(void)
{
    return ranks__g.started && ranks__g.size > 1 ? &ranks__g.hook : NULL;
}

void myri_ranks_stop(void)
{
#ifdef MYRI_HAVE_MPI
    int done = 0;
    if (!ranks__g.started) return;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
#endif
}

#ifdef MYRI_HAVE_MPI

/* myri_run_ranks.gather: the lengths to rank 0 (MPI_Gather), then the bytes (MPI_Gatherv). */
static int ranks__gather(const myri_run_ranks *self, const void *mine, size_t len, unsigned char **all,
                         size_t *lens)
{
    int n = self->size, root = self->rank == 0;
    *all = NULL;
    unsigned long long mylen = len, *l = root ? calloc((size_t)n, sizeof *l) : NULL;
    int *counts = root ? calloc((size_t)n, sizeof *counts) : NULL, *displs = root ? calloc((size_t)n, sizeof *displs)
                                                                              : NULL;
    if (root && (!l || !counts || !displs)) { /* without them rank 0 cannot even take part in the exchange */
        fprintf(stderr, "myri: rank 0 is out of memory for the sweep's %d ranks\n", n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int bad = 0;
    /* every rank takes part in every exchange, whatever failed here (else the others would wait for ever):
     * the lengths, rank 0's word whether the bytes can come (a log over 2 GiB cannot), then the bytes */
    if (len > (size_t)INT_MAX) mylen = ~0ull;
    if (MPI_Gather(&mylen, 1, MPI_UNSIGNED_LONG_LONG, l, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        bad = 1;
    unsigned long long total = 0;
    for (int r = 0; root && r < n && !bad; r++) {
        if (l[r] > (unsigned long long)INT_MAX - total) bad = 1;
        else counts[r] = (int)l[r], displs[r] = (int)total, total += l[r];
        if (lens) lens[r] = (size_t)l[r];
    }
    unsigned char *buf = root && !bad ? malloc(total ? (size_t)total : 1) : NULL;
    if (root && !bad && !buf) bad = 1;
    if (MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS) bad = 1;
    static unsigned char none[1];
    if (!bad && MPI_Gatherv(len ? mine : none, (int)len, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0,
                            MPI_COMM_WORLD) != MPI_SUCCESS)
        bad = 1;
    free(l), free(counts), free(displs);
    if (bad) {
        free(buf);
        return -1;
    }
    *all = buf;
    return 0;
}

/* myri_run_ranks.alltoall: k words per pair (MPI_Alltoall). */
static int ranks__alltoall(const myri_run_ranks *self, const uint64_t *send, uint64_t *recv, int k)
{
    (void)self;
    return MPI_Alltoall(send, k, MPI_UINT64_T, recv, k, MPI_UINT64_T, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}

/* myri_run_ranks.alltoallv: bytes per pair (MPI_Alltoallv), counts and displacements as int. */
static int ranks__alltoallv(const myri_run_ranks *self, const void *send, const size_t *scount, void *recv,
                            const size_t *rcount)
{
    int n = self->size, bad = 0;
    int *c = calloc(4 * (size_t)n, sizeof *c);
    if (!c) return -1; /* never seen; the other ranks then wait: MPI_Abort rather than hang */
    size_t so = 0, ro = 0;
    for (int r = 0; r < n; r++) {
        if (scount[r] > (size_t)INT_MAX - so || rcount[r] > (size_t)INT_MAX - ro) bad = 1;
        if (bad) break;
        c[r] = (int)scount[r], c[n + r] = (int)so, c[2 * n + r] = (int)rcount[r], c[3 * n + r] = (int)ro;
        so += scount[r], ro += rcount[r];
    }
    static unsigned char none[1];
    int rc = bad ? -1
                 : MPI_Alltoallv(so ? send : none, c, c + n, MPI_BYTE, ro ? recv : none, c + 2 * n, c + 3 * n,
                                 MPI_BYTE, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
    free(c);
    if (rc) {
        fprintf(stderr, "myri: a window's exchange between ranks failed (over 2 GiB, or MPI)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

static int ranks__bcast(const myri_run_ranks *self, void *buf, size_t len, int root)
{
    (void)self;
    if (len > (size_t)INT_MAX) return -1;
    return MPI_Bcast(buf, (int)len, MPI_BYTE, root, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -1;
}
#endif

int myri_ranks_start(void)
{
    long env = myri_ranks_env_size();
    if (env == 0 || ranks__g.started) return 0;
#ifdef MYRI_HAVE_MPI
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "myri: started by an MPI launcher, but MPI_Init failed\n");
        return -1;
    }
    atexit(myri_ranks_stop);
    MPI_Comm_rank(MPI_COMM_WORLD, &ranks__g.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks__g.size);
    ranks__g.started = true;
    ranks__g.hook = (myri_run_ranks){ranks__g.rank, ranks__g.size, ranks__gather, ranks__alltoall,
                                     ranks__alltoallv, ranks__bcast};
    return 0;
#else
    if (env == 1) return 0; /* one rank: the run is the plain run */
    char n[24] = "several";
    if (env > 0) snprintf(n, sizeof n, "%ld", env);
    if (myri_ranks_env_first())
        fprintf(stderr,
                "myri: started by an MPI launcher (mpirun) as one of %s ranks, but this myri was built without MPI, "
                "so it cannot share a sweep between ranks (and will not run the same job on each).\n"
                "  Install Open MPI (scripts/deps.sh, or apt-get install libopenmpi-dev openmpi-bin), rebuild "
                "(make: CMake finds MPI), and run mpirun again; or run myri without mpirun.\n",
                n);
    return -1;
#endif
}
