/* hold.c -- the classic hold model (see hold.h).
 *
 * Workload of the engine benchmark: N events pending; each executed event
 * schedules one successor at now + Exp(mean), rounded to whole ps.
 */
#include "app/hold.h"
#include "app/run_opts.h"
#include "app/scenario_check.h"

#include <stdlib.h>
#include <time.h>

#include "myri/json.h"

typedef struct hold_state {
    myri_hold_config cfg;
} hold_state;

static uint64_t hold__delay(myri_component *self, uint64_t mean_ps)
{
    return (uint64_t)(myri_rng_exponential(&self->rng, (double)mean_ps) + 0.5);
}

static myri_status hold__create(myri_component *self, const void *config)
{
    const myri_hold_config *cfg = config;
    if (!cfg || cfg->pending < 1 || cfg->mean_ps == 0) return MYRI_EINVAL;
    hold_state *st = malloc(sizeof *st);
    if (!st) return MYRI_ENOMEM;
    st->cfg = *cfg;
    self->state = st;
    myri_event ev = {.target = self};
    for (int64_t i = 0; i < cfg->pending; i++) {
        ev.arg = (uint64_t)i;
        if (!myri_sim_schedule_in(self->sim, hold__delay(self, cfg->mean_ps), &ev)) {
            free(st);
            self->state = NULL;
            return MYRI_ENOMEM;
        }
    }
    return MYRI_OK;
}

static void hold__handle(myri_component *self, const myri_event *ev)
{
    hold_state *st = self->state;
    myri_event next = *ev;
    if (!myri_sim_schedule_in(self->sim, hold__delay(self, st->cfg.mean_ps), &next))
        myri_panic(self, "could not schedule the successor event (out of memory)");
}

static void hold__destroy(myri_component *self) { free(self->state); }

const myri_component_ops myri_hold_ops = {
    .type = "hold",
    .help = "hold model: every event schedules one successor after an exponential delay",
    .create = hold__create,
    .handle = hold__handle,
    .destroy = hold__destroy,
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

myri_status myri_hold_bench(uint64_t seed, uint64_t pending, uint64_t events, uint64_t mean_ps,
                            myri_hold_result *out)
{
    if (!out || pending == 0 || pending > (1u << 24) - 1 || mean_ps == 0) return MYRI_EINVAL;
    myri_sim *sim = myri_sim_create(seed);
    if (!sim) return MYRI_ENOMEM;
    myri_hold_config cfg = {(int64_t)pending, mean_ps};
    myri_status st = myri_sim_add(sim, &myri_hold_ops, "hold", &cfg, NULL);
    if (st == MYRI_OK) {
        double c0 = cpu_s(), t0 = now_s();
        st = myri_sim_run(sim, MYRI_TIME_NEVER, events);
        double t1 = now_s();
        out->cpu_s = cpu_s() - c0;
        out->events = myri_sim_events(sim);
        out->pending = myri_sim_pending(sim);
        out->hash = myri_sim_hash(sim);
        out->wall_s = t1 - t0;
        out->events_per_sec = out->wall_s > 0 ? (double)out->events / out->wall_s : 0;
    }
    myri_sim_destroy(sim);
    return st;
}

/* ---- the `hold` job of `myri run` ------------------------------------------------ */
static const myri_param hold_params[] = {
    {"pending", MYRI_P_INT, "", "1000", "1", "16000000", "events kept pending",
     offsetof(myri_hold_config, pending), NULL},
    {"mean", MYRI_P_TIME, "ns", "1us", "1ps", NULL, "mean of the exponential hold time",
     offsetof(myri_hold_config, mean_ps), NULL},
};

static void hold__psets(myri_pset set[2], myri_scenario_common *common, myri_hold_config *cfg)
{
    set[0] = (myri_pset){"", myri_scenario_params, myri_scenario_nparams, common};
    set[1] = (myri_pset){"hold", hold_params, sizeof hold_params / sizeof hold_params[0], cfg};
}

static void hold__help(FILE *out)
{
    myri_scenario_common common;
    myri_hold_config cfg;
    myri_pset set[2];
    hold__psets(set, &common, &cfg);
    myri_params_help(set, 2, out);
}

static myri_status hold__run(const myri_node *root, const char *file, const myri_run_opts *opts, myri_error *err)
{
    (void)file;
    myri_scenario_common common;
    myri_hold_config cfg;
    myri_pset set[2];
    hold__psets(set, &common, &cfg);
    if (myri_params_load(set, 2, root, NULL, err) != MYRI_OK) return MYRI_EINPUT;
    if (myri_scenario_check_times(&common, root, err)) return MYRI_EINPUT;
    if (!common.job || !*common.job) common.job = "hold";
    if (opts->have_seed) common.seed = opts->seed;
    myri_sim *sim = myri_sim_create(common.seed);
    if (!sim) return MYRI_ENOMEM;
    myri_status added = myri_sim_add(sim, &myri_hold_ops, "hold", &cfg, NULL);
    if (added != MYRI_OK) {
        myri_sim_destroy(sim);
        return added == MYRI_EINPUT ? MYRI_EINVAL : added;
    }
    myri_time_ps end = common.warmup_ps + common.duration_ps;
    if (opts->progress) myri_sim_set_progress(sim, opts->progress, end);
    double t0 = now_s();
    myri_status st = myri_sim_run(sim, end, 0);
    double wall = now_s() - t0;
    myri_sim_finish(sim);
    uint64_t events = myri_sim_events(sim);
    if (opts->json) {
        myri_json *j = myri_json_create(opts->out, true);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "job", "hold");
        myri_json_key(j, "config");
        myri_json_obj_begin(j);
        myri_params_echo_json(set, 2, j);
        myri_json_obj_end(j);
        myri_json_kuint(j, "events", events);
        myri_json_kuint(j, "pending", myri_sim_pending(sim));
        myri_json_kuint(j, "sim_time_ps", myri_sim_now(sim));
        myri_json_knum(j, "wall_s", wall);
        myri_json_knum(j, "events_per_sec", wall > 0 ? (double)events / wall : 0);
        myri_json_key(j, "hash");
        myri_json_hash(j, myri_sim_hash(sim));
        myri_json_obj_end(j);
        myri_json_finish(j);
    } else {
        fprintf(opts->out, "# hold model (job: hold)\n");
        myri_params_echo_text(set, 2, opts->out);
        fprintf(opts->out, "\nevents        %llu\npending       %zu\nsim time      %.9f s\n",
                (unsigned long long)events, myri_sim_pending(sim), (double)myri_sim_now(sim) * 1e-12);
        fprintf(opts->out, "wall time     %.3f s\nevents/s      %.3e\nhash          0x%016llx\n", wall,
                wall > 0 ? (double)events / wall : 0, (unsigned long long)myri_sim_hash(sim));
    }
    myri_sim_destroy(sim);
    return st == MYRI_EINPUT ? MYRI_EINVAL : st;
}

const myri_job myri_hold_job = {
    .name = "hold",
    .help = "the engine's hold model: N pending events, each replaced after an exponential delay",
    .help_params = hold__help,
    .run = hold__run,
};
