/* verify_run.c -- SPIN on a generated model: spin -a, the C compiler, pan,
 * and pan's report read back (pan exits 0 even when it finds an error, so
 * the verdict comes from its "errors:" line).  See docs/VERIFY.md. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "verify/verify_int.h"

static const myri_vabs *const vrun__abs[] = {&myri_vabs_lcp, &myri_vabs_myricom, &myri_vabs_mcp};
#define VRUN_NABS (sizeof vrun__abs / sizeof vrun__abs[0])

size_t myri_verify_nfirmwares(void) { return VRUN_NABS; }
const char *myri_verify_firmware(size_t i) { return i < VRUN_NABS ? vrun__abs[i]->firmware : NULL; }

static const myri_vabs *vrun__find(const char *fw)
{
    for (size_t i = 0; fw && i < VRUN_NABS; i++)
        if (!strcmp(vrun__abs[i]->firmware, fw)) return vrun__abs[i];
    return NULL;
}

const myri_verify_prop *myri_verify_props(const char *fw, size_t *n)
{
    const myri_vabs *a = vrun__find(fw);
    if (n) *n = a ? a->nprops : 0;
    return a ? a->props : NULL;
}

void myri_verify_bounds_default(myri_verify_bounds *b)
{
    /* Two sends let a second send's host DMA meet the first one's send DMA; one frame lets a receive meet
     * them.  Ticks (timed variant): a/b = 1 of seed 000 with 4 KiB messages as 4 ticks each way, and a
     * descriptor or completion transfer as 1 (assumption: about a quarter of a 4 KiB transfer, which is
     * mostly the DMA's setup, seed 004 Table 2). */
    *b = (myri_verify_bounds){.sends = 2, .frames = 1, .timed = false, .hdma_ticks = 4, .sdma_ticks = 4,
                              .small_ticks = 1, .time_limit_s = 60};
}

static myri_status vrun__check_bounds(const myri_verify_bounds *b)
{
    if (!b || b->sends < 1 || b->sends > 8 || b->frames > 8) return MYRI_ERANGE;
    if (b->timed && (b->hdma_ticks < 1 || b->sdma_ticks < 1 || b->small_ticks > 1000 || b->hdma_ticks > 1000 ||
                     b->sdma_ticks > 1000))
        return MYRI_ERANGE;
    return MYRI_OK;
}

myri_status myri_verify_model(const char *fw, const myri_verify_bounds *b, FILE *out, char *err, size_t errlen)
{
    const myri_vabs *a = vrun__find(fw);
    if (!a) {
        snprintf(err, errlen, "unknown firmware '%s'; expected lcp, myricom or mcp", fw ? fw : "(null)");
        return MYRI_ERANGE;
    }
    if (vrun__check_bounds(b)) {
        snprintf(err, errlen, "bounds out of range: sends 1..8, frames 0..8, ticks 1..1000");
        return MYRI_ERANGE;
    }
    return myri_vgen_write(a, b, out, err, errlen);
}

/* ---- running the tools --------------------------------------------------------------------------- */

static double vrun__now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Starts argv in dir with stdout and stderr to file out (NULL: /dev/null); the child's pid or -1. */
/* env: the value of MYRI_TBOUND in the child (the timed run), or NULL; limit_s: seconds before SIGALRM ends it
 * (0: none) */
static pid_t vrun__spawn_env(const char *dir, char *const argv[], const char *out, const char *env, uint32_t limit_s)
{
    pid_t p = fork();
    if (p == 0) {
        if (chdir(dir) != 0 || (env && setenv("MYRI_TBOUND", env, 1) != 0)) _exit(127);
        if (limit_s) alarm(limit_s);
        if (!freopen(out ? out : "/dev/null", "w", stdout) || !freopen("/dev/null", "r", stdin)) _exit(127);
        if (dup2(fileno(stdout), 2) < 0) _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    return p;
}

static pid_t vrun__spawn(const char *dir, char *const argv[], const char *out)
{
    return vrun__spawn_env(dir, argv, out, NULL, 0);
}

#define VRUN_TIMED_OUT (-2)

/* The child's exit status, VRUN_TIMED_OUT if its time limit ended it, -1 otherwise. */
static int vrun__wait(pid_t p)
{
    int st = 0;
    if (p < 0) return -1;
    while (waitpid(p, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) return VRUN_TIMED_OUT;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs argv in dir with stdout and stderr to file out (NULL: /dev/null); returns the exit status or -1. */
static int vrun__exec(const char *dir, char *const argv[], const char *out)
{
    return vrun__wait(vrun__spawn(dir, argv, out));
}

bool myri_verify_have_spin(char *why, size_t whylen)
{
    char *spin[] = {"spin", "-V", NULL}, *cc[] = {"cc", "--version", NULL};
    if (vrun__exec("/", spin, NULL) != 0) {
        snprintf(why, whylen, "spin is not installed (Debian package 'spin'; make deps installs it)");
        return false;
    }
    if (vrun__exec("/", cc, NULL) != 0) {
        snprintf(why, whylen, "no C compiler 'cc' to build SPIN's verifier");
        return false;
    }
    return true;
}

static char *vrun__slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    for (int c; s && (c = fgetc(f)) != EOF;) {
        if (n + 2 > cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) break;
            s = t;
        }
        s[n++] = (char)c;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

static uint64_t vrun__num_before(const char *text, const char *label)
{
    const char *p = strstr(text, label);
    if (!p) return 0;
    while (p > text && p[-1] == ' ') p--;
    while (p > text && ((p[-1] >= '0' && p[-1] <= '9') || p[-1] == '.')) p--;
    return (uint64_t)strtod(p, NULL);
}

/* Reads pan's report into r. */
static myri_status vrun__parse(const char *text, myri_verify_result *r)
{
    const char *e = strstr(text, "errors: ");
    if (!e) return MYRI_EIO;
    r->error = strtoul(e + 8, NULL, 10) > 0;
    r->states = vrun__num_before(text, "states, stored");
    r->transitions = vrun__num_before(text, "transitions (= ");
    const char *m = strstr(text, "total actual memory usage");
    if (m) {
        const char *p = m;
        while (p > text && p[-1] != '\n') p--;
        r->memory_mb = strtod(p, NULL);
    }
    r->depth_limited = strstr(text, "max search depth too small") != NULL;
    return MYRI_OK;
}

/* The counterexample: the MSC lines of SPIN's replay of the trail. */
static void vrun__trail(const char *dir, const char *claim, myri_verify_result *r)
{
    char out[512], path[512];
    r->trail[0] = 0;
    /* SPIN replays with the model's first claim: a copy with only this one. */
    snprintf(path, sizeof path, "%s/model.pml", dir);
    char *model = vrun__slurp(path);
    snprintf(path, sizeof path, "%s/replay.pml", dir);
    FILE *f = model ? fopen(path, "w") : NULL;
    char prefix[96];
    snprintf(prefix, sizeof prefix, "ltl %s ", claim);
    for (char *line = model, *next; f && line && *line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        if (strncmp(line, "ltl ", 4) || !strncmp(line, prefix, strlen(prefix))) fprintf(f, "%s\n", line);
    }
    free(model);
    if (!f || fclose(f) != 0) return;
    snprintf(out, sizeof out, "%s/trail.txt", dir);
    char *argv[] = {"spin", "-t", "-k", "model.pml.trail", "replay.pml", NULL};
    if (vrun__exec(dir, argv, out) != 0) return;
    char *t = vrun__slurp(out);
    if (!t) return;
    size_t n = 0;
    bool msc = strstr(t, "MSC: ") != NULL;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        /* The generated models print each step (MSC lines); for the paper's, the last values of the
         * *_state variables and the interrupt bits. */
        char *m = strstr(line, "MSC: ");
        const char *what = m ? m + 5 : NULL;
        if (!msc && line[0] == '\t' && (strstr(line, "_state = ") || strstr(line, "_int = "))) {
            while (*line == '\t') line++;
            what = line;
        }
        if (!what) continue;
        int w = snprintf(r->trail + n, sizeof r->trail - n, "%s%s\n", msc ? "" : "at the end: ", what);
        if (w < 0 || (size_t)w >= sizeof r->trail - n) break;
        n += (size_t)w;
    }
    free(t);
}

static void vrun__claim_id(const char *name, char *id, size_t n)
{
    size_t k = snprintf(id, n, "p_");
    for (const char *c = name; *c && k + 1 < n; c++) id[k++] = *c == '-' ? '_' : *c;
    id[k] = 0;
}

static myri_status vrun__prop(const char *dir, const myri_verify_prop *p, uint32_t limit_s, myri_verify_result *r,
                              char *err, size_t errlen)
{
    char id[64], out[512];
    vrun__claim_id(p->name, id, sizeof id);
    snprintf(out, sizeof out, "%s/pan_%s.txt", dir, id);
    char *safety[] = {"./pan", "-m200000", "-w18", "-N", id, NULL};
    char *live[] = {"./pan_live", "-m200000", "-w18", "-a", "-f", "-N", id, NULL};
    memset(r, 0, sizeof *r);
    r->prop = p;
    r->why = "";
    double t0 = vrun__now();
    int rc = vrun__wait(vrun__spawn_env(dir, p->kind == MYRI_VERIFY_LIVE ? live : safety, out, NULL, limit_s));
    r->seconds = vrun__now() - t0;
    if (rc == VRUN_TIMED_OUT) {
        r->verdict = "unknown", r->why = "time limit";
        return MYRI_OK;
    }
    char *text = vrun__slurp(out);
    if (rc < 0 || !text || vrun__parse(text, r)) {
        snprintf(err, errlen, "pan failed on %s (exit %d); its report is %s", p->name, rc, out);
        free(text);
        return MYRI_EIO;
    }
    bool memory = strstr(text, "-DMEMLIM bound") || strstr(text, "out of memory");
    free(text);
    if (p->kind == MYRI_VERIFY_REACH) r->verdict = r->error ? "reachable" : "unreachable";
    else r->verdict = r->error ? "violated" : "holds";
    if (r->error) vrun__trail(dir, id, r);
    else if (memory || r->depth_limited) /* the search stopped short: no error found is no proof */
        r->verdict = "unknown", r->why = memory ? "memory limit" : "depth limit";
    return MYRI_OK;
}

static myri_status vrun__cc(const char *dir, const char *exe, const char *flag, char *err, size_t errlen);

/* Writes the model text into a fresh directory, runs spin -a there and, flag not NULL, compiles pan with it
 * (-DNOCLAIM for the timed run). */
static myri_status vrun__build(const char *text, const char *flag, char *dir, char *err, size_t errlen)
{
    if (!myri_verify_have_spin(err, errlen)) return MYRI_ENOTFOUND;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, 256, "%s/myri-verify-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot make a directory for SPIN: %s", strerror(errno));
        dir[0] = 0;
        return MYRI_EIO;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/model.pml", dir);
    FILE *f = fopen(path, "w");
    if (!f) return MYRI_EIO;
    fputs(text, f);
    if (fclose(f) != 0) return MYRI_EIO;
    char *spin[] = {"spin", "-a", "model.pml", NULL};
    char log[512];
    snprintf(log, sizeof log, "%s/spin.txt", dir);
    if (vrun__exec(dir, spin, log) != 0) {
        snprintf(err, errlen, "spin -a rejected the model (see %s)", log);
        return MYRI_EIO;
    }
    return flag ? vrun__cc(dir, "pan", flag, err, errlen) : MYRI_OK; /* flag NULL: the caller compiles */
}

/* Compiles SPIN's pan.c in dir into exe, with flag (or NULL), and (exe2 not NULL) at once into exe2 with
 * flag2: the two compilers run side by side. */
static myri_status vrun__cc2(const char *dir, const char *exe, const char *flag, const char *exe2, const char *flag2,
                             char *err, size_t errlen)
{
    char log[512], log2[512];
    snprintf(log, sizeof log, "%s/cc_%s.txt", dir, exe);
    char *cc[] = {"cc", "-O0", "-w", "-DVECTORSZ=4096", "-DMEMLIM=4096", "-DNFAIR=16", "-o", (char *)exe, "pan.c",
                  (char *)flag, NULL};
    pid_t a = vrun__spawn(dir, cc, log), b = -1;
    if (exe2) {
        snprintf(log2, sizeof log2, "%s/cc_%s.txt", dir, exe2);
        char *cc2[] = {"cc", "-O0", "-w", "-DVECTORSZ=4096", "-DMEMLIM=4096", "-DNFAIR=16", "-o", (char *)exe2,
                       "pan.c", (char *)flag2, NULL};
        b = vrun__spawn(dir, cc2, log2);
    }
    int ra = vrun__wait(a), rb = exe2 ? vrun__wait(b) : 0;
    if (ra != 0 || rb != 0) {
        snprintf(err, errlen, "the C compiler failed on SPIN's pan.c (see %s)", ra != 0 ? log : log2);
        return MYRI_EIO;
    }
    return MYRI_OK;
}

static myri_status vrun__cc(const char *dir, const char *exe, const char *flag, char *err, size_t errlen)
{
    return vrun__cc2(dir, exe, flag, NULL, NULL, err, errlen);
}

/* The generated model of fw as text (malloc'd). */
static myri_status vrun__text(const myri_vabs *a, const myri_verify_bounds *b, char **text, char *err,
                              size_t errlen)
{
    size_t len = 0;
    *text = NULL;
    FILE *f = open_memstream(text, &len);
    if (!f) return MYRI_ENOMEM;
    myri_status s = vrun__check_bounds(b) ? MYRI_ERANGE : myri_vgen_write(a, b, f, err, errlen);
    if (s == MYRI_ERANGE && !*err) snprintf(err, errlen, "bounds out of range: sends 1..8, frames 0..8");
    if (fclose(f) != 0 && !s) s = MYRI_EIO;
    if (s) {
        free(*text);
        *text = NULL;
    }
    return s;
}

static void vrun__clean(const char *dir)
{
    const char *keep = getenv("MYRI_VERIFY_KEEP");
    if (keep && *keep) {
        fprintf(stderr, "myri verify: kept %s\n", dir);
        return;
    }
    char *rm[] = {"rm", "-rf", (char *)dir, NULL};
    vrun__exec("/", rm, NULL);
}

myri_status myri_vrun_props(const char *text, bool noreduce, uint32_t limit_s, const myri_verify_prop *props,
                            size_t nprops, const char *only, myri_verify_result *out, size_t max, size_t *n, char *err,
                            size_t errlen)
{
    *n = 0;
    char dir[256] = "";
    /* Safety and reachability breadth first (the shortest counterexample); liveness needs the nested depth-first
     * search (-a), built when a liveness property is asked for. */
    bool live = false;
    for (size_t i = 0; i < nprops; i++) live |= props[i].kind == MYRI_VERIFY_LIVE && (!only || !strcmp(props[i].name, only));
    myri_status s = vrun__build(text, NULL, dir, err, errlen);
    if (!s) s = vrun__cc2(dir, "pan", "-DBFS", live ? "pan_live" : NULL, noreduce ? "-DNOREDUCE" : NULL, err, errlen);
    for (size_t i = 0; !s && i < nprops && *n < max; i++) {
        if (only && strcmp(props[i].name, only)) continue;
        s = vrun__prop(dir, &props[i], limit_s, &out[*n], err, errlen);
        if (!s) (*n)++;
    }
    if (dir[0] && strstr(dir, "myri-verify-")) vrun__clean(dir);
    return s;
}

static myri_status vrun__only(const myri_verify_prop *props, size_t n, const char *fw, const char *only, char *err,
                              size_t errlen)
{
    bool found = !only;
    for (size_t i = 0; only && i < n; i++) found |= !strcmp(props[i].name, only);
    if (!found) snprintf(err, errlen, "%s has no property '%s'", fw, only);
    return found ? MYRI_OK : MYRI_ERANGE;
}

myri_status myri_vrun_abs(const myri_vabs *a, const myri_verify_bounds *b, const char *only, myri_verify_result *out,
                          size_t max, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    myri_status s = vrun__only(a->props, a->nprops, a->firmware, only, err, errlen);
    char *text = NULL;
    if (!s) s = vrun__text(a, b, &text, err, errlen);
    if (!s) s = myri_vrun_props(text, false, b->time_limit_s, a->props, a->nprops, only, out, max, n, err, errlen);
    free(text);
    return s;
}

myri_status myri_verify_run(const char *fw, const myri_verify_bounds *b, const char *only, myri_verify_result *out,
                            size_t max, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    const myri_vabs *a = vrun__find(fw);
    if (!a) {
        snprintf(err, errlen, "unknown firmware '%s'; expected lcp, myricom or mcp", fw ? fw : "(null)");
        return MYRI_ERANGE;
    }
    return myri_vrun_abs(a, b, only, out, max, n, err, errlen);
}

myri_status myri_verify_paper(const char *fw, const myri_verify_bounds *b, const char *only, myri_verify_result *out,
                              size_t max, size_t *n, char *err, size_t errlen)
{
    *n = 0;
    size_t np = 0;
    const char *model = NULL;
    const myri_verify_prop *props = myri_vpaper_props(fw, &np, &model);
    if (!props) {
        snprintf(err, errlen, "the paper gives Promela for lcp and myricom only, not '%s'", fw ? fw : "(null)");
        return MYRI_ERANGE;
    }
    myri_status s = vrun__only(props, np, fw, only, err, errlen);
    if (s) return s;
    if (vrun__check_bounds(b)) {
        snprintf(err, errlen, "bounds out of range: sends 1..8, frames 0..8");
        return MYRI_ERANGE;
    }
    char head[96];
    snprintf(head, sizeof head, "#define NSEND %" PRIu32 "\n#define NFRAME %" PRIu32 "\n", b->sends, b->frames);
    char *text = malloc(strlen(head) + strlen(model) + 1);
    if (!text) return MYRI_ENOMEM;
    strcpy(text, head);
    strcat(text, model);
    s = myri_vrun_props(text, true, b->time_limit_s, props, np, only, out, max, n, err, errlen);
    free(text);
    return s;
}

/* Can all sends be sent by `bound` ticks?  (SPIN finds the stopwatch's assertion violated.) */
static myri_status vrun__by(const char *dir, uint32_t bound, uint32_t limit_s, bool *yes, char *err, size_t errlen)
{
    char out[512], env[64];
    snprintf(out, sizeof out, "%s/pan_time_%" PRIu32 ".txt", dir, bound);
    snprintf(env, sizeof env, "%" PRIu32, bound);
    char *argv[] = {"./pan", "-m200000", "-w20", "-E", NULL};
    myri_verify_result r;
    memset(&r, 0, sizeof r);
    int rc = vrun__wait(vrun__spawn_env(dir, argv, out, env, limit_s));
    if (rc == VRUN_TIMED_OUT) {
        snprintf(err, errlen, "SPIN reached the time limit (%" PRIu32 " s) on the timed model", limit_s);
        return MYRI_ETIMEDOUT;
    }
    char *report = rc < 0 ? NULL : vrun__slurp(out);
    myri_status s = MYRI_OK;
    if (!report || vrun__parse(report, &r)) {
        snprintf(err, errlen, "pan failed on the timed model (its report: %s)", out);
        s = MYRI_EIO;
    }
    *yes = r.error;
    free(report);
    return s;
}

myri_status myri_verify_min_time(const char *fw, const myri_verify_bounds *b, uint32_t *ticks, double *seconds,
                                 char *err, size_t errlen)
{
    myri_verify_bounds t = *b;
    t.timed = true;
    t.frames = 0;
    *ticks = 0;
    double t0 = vrun__now();
    const myri_vabs *a = vrun__find(fw);
    char *text = NULL;
    myri_status s = a ? vrun__text(a, &t, &text, err, errlen) : MYRI_ERANGE;
    char dir[256] = "";
    if (!s) s = vrun__build(text, "-DNOCLAIM", dir, err, errlen);
    /* Bisection between 0 and the serial time (every transfer one after the other, with room to spare). */
    uint32_t lo = 0, hi = t.sends * (t.hdma_ticks + t.sdma_ticks + 4 * t.small_ticks) + 1;
    bool yes = false;
    if (!s) s = vrun__by(dir, hi, t.time_limit_s, &yes, err, errlen);
    if (!s && yes) {
        while (!s && hi - lo > 1) { /* none by lo, some by hi */
            uint32_t mid = lo + (hi - lo) / 2;
            s = vrun__by(dir, mid, t.time_limit_s, &yes, err, errlen);
            if (yes) hi = mid;
            else lo = mid;
        }
        if (!s) *ticks = hi;
    }
    if (dir[0] && strstr(dir, "myri-verify-")) vrun__clean(dir);
    free(text);
    *seconds = vrun__now() - t0;
    return s;
}
