/* fw.c -- the firmware interpreter: runs the state-machine tables of a
 * firmware (firmware.h) on a LANai's CPU.  See docs/FIRMWARE.md.
 *
 * One CPU step (myri_lanai_cpu_ops.step) does two things:
 *   1. applies the rule chosen by the previous step (its action runs and its
 *      machine changes state): a rule's effects take place at the end of the
 *      cycles charged for it;
 *   2. chooses the next rule and returns its cycles (plus, in user context,
 *      the cycles of the polling that found it), or 0 if none is enabled.
 *
 * System context: the system machines' rules are tried in table order (the
 * interrupt vector goes straight to them: no polling cost); 0 = punt.
 * User context: the main loop visits the user machines in table order and,
 * in each, tests the events of the rules leaving its current state (one poll
 * per distinct event, poll_cycles each).  Instead of an engine event per loop
 * iteration, the loop sleeps while nothing it tests can change (the LANai
 * wakes it on an ISR bit, a host write or myri_lanai_wake) and, on waking,
 * is charged from the position the spinning loop would have reached at that
 * time (its phase, counted from when it went idle in whole passes) to the
 * end of the poll that sees the change.  A test is taken to happen at the
 * end of its poll cycles.  After a rule fires the loop goes on with the next
 * machine.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/firmware.h"
#include "firmware/mcp.h"
#include "firmware/fw_elf.h"
#include "firmware/viafw.h"

#define FW_LOG_MAX 24

typedef bool (*fw__pred)(void *fw, myri_lanai *l);

/* A rule as the compiled dispatch tries it: its event's test (system
 * machines), its guard's (NULL: true) and its index in its machine. */
typedef struct fw__cand {
    fw__pred event, guard;
    uint16_t rule;
} fw__cand;

/* One poll of the user loop in a state: an event (or the machine's visit,
 * FW_VISIT), its cycles, its tests and the rules it may choose. */
typedef struct fw__slot {
    uint8_t event;
    uint32_t cycles;
    fw__pred test, live;
    uint32_t cand, ncand;     /* fi->cand[cand ..]: the state's rules with this event, in table order */
} fw__slot;

/* A state of a machine, compiled. */
typedef struct fw__cstate {
    uint32_t leave, nleave;   /* fi->cand[leave ..]: the rules leaving it, in table order */
    uint32_t slot, nslot;     /* fi->slot[slot ..]: its polls (user machines; none for system ones) */
    uint64_t pass_cycles;     /* the cycles of those polls: its share of one pass of the loop */
    bool live;                /* one of its polls has a live predicate */
} fw__cstate;

struct myri_fw_inst {
    const myri_fw_def *def;
    myri_error *create_err;   /* while def->create runs: where myri_fw_fail writes (NULL: stderr) */
    void *fw;
    myri_lanai *l;
    uint8_t *state;           /* per machine */
    uint32_t *rule_base;      /* first flat rule index per machine */
    uint32_t *state_base;     /* first flat state index per machine */
    uint64_t *fired;          /* per flat rule */
    myri_time_ps *state_ps;   /* per flat state */
    myri_time_ps *since_ps;   /* per machine: entered its current state */
    int32_t *vars;
    uint64_t *counters;
    myri_fw_qstat *q;         /* per queue: occupancy from puts and gets */
    /* the tables compiled to direct dispatch (fw__compile) */
    fw__cstate *cstate;       /* per flat state */
    fw__slot *slot;
    fw__cand *cand;
    uint8_t *user, *sys;      /* the user machines, the system machines, in table order */
    uint8_t *ufrom;           /* per machine m: the index in user of the first user machine at or after m (cyclic) */
    uint8_t nuser, nsys;
    /* the chosen rule, applied at the next step */
    bool pend;
    uint8_t pend_m;
    uint16_t pend_r;
    /* the user loop */
    uint8_t next_m;           /* machine the loop visits next */
    bool idle;
    myri_time_ps idle_ps;     /* the loop started its idle spinning at next_m then */
    myri_time_ps follow_ps;
    myri_fw_stats st;
    /* checking */
    bool check, trace_on, logging;
    uint32_t dir;
    myri_fw_effect log[FW_LOG_MAX];
    uint32_t nlog;
    myri_fw_check ck;
};

/* ---- registry ------------------------------------------------------------------ */

static const myri_fw_def *const fw__defs[] = {&myri_mcp_def, &myri_lcp_def, &myri_myricom_def, &myri_fw_elf_def};

size_t myri_fw_ndefs(void) { return sizeof fw__defs / sizeof fw__defs[0]; }

const myri_fw_def *myri_fw_at(size_t i) { return i < myri_fw_ndefs() ? fw__defs[i] : NULL; }

const myri_fw_def *myri_fw_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < myri_fw_ndefs(); i++)
        if (strcmp(fw__defs[i]->name, name) == 0) return fw__defs[i];
    return NULL;
}

/* ---- logged operations ------------------------------------------------------------ */

static void fw__log(myri_fw_inst *fi, uint8_t op, uint32_t a, int32_t b)
{
    if (!fi->logging) return;
    if (op == MYRI_FW_PIO_SEND && a == 0 && fi->nlog > 0 && fi->log[fi->nlog - 1].op == MYRI_FW_PIO_SEND &&
        fi->log[fi->nlog - 1].a == 0)
        return; /* a run of SB/SH/SW is one effect */
    if (fi->nlog < FW_LOG_MAX) fi->log[fi->nlog] = (myri_fw_effect){op, a, b};
    fi->nlog++;
}

/* Occupancy of queue q moves by d at the current time: the time-weighted
 * integral is brought up to now first. */
static void fw__q_move(myri_fw_inst *fi, uint32_t q, int d)
{
    if (!fi->q || q >= fi->def->nqueues) return;
    myri_fw_qstat *s = &fi->q[q];
    myri_time_ps now = myri_lanai_now(fi->l);
    if (now > s->since_ps) s->area += (double)s->len * (double)(now - s->since_ps);
    s->since_ps = now;
    if (d > 0) s->puts++;
    else s->gets++;
    s->len += d;
    if (s->len > s->max) s->max = s->len;
}

void myri_fw_q_put(myri_fw_inst *fi, uint32_t q) { myri_fw_q_put_v(fi, q, 0); }

void myri_fw_q_put_v(myri_fw_inst *fi, uint32_t q, int32_t value)
{
    fw__log(fi, MYRI_FW_Q_PUT, q, value);
    fw__q_move(fi, q, +1);
}

void myri_fw_q_get(myri_fw_inst *fi, uint32_t q)
{
    fw__log(fi, MYRI_FW_Q_GET, q, 0);
    fw__q_move(fi, q, -1);
}

myri_status myri_fw_queue_stats(const myri_fw_inst *fi, uint32_t q, myri_fw_qstat *out)
{
    if (!fi || !out || !fi->q || q >= fi->def->nqueues) return MYRI_EINVAL;
    *out = fi->q[q];
    myri_time_ps now = myri_lanai_now(fi->l);
    if (now > out->since_ps) out->area += (double)out->len * (double)(now - out->since_ps);
    out->since_ps = now;
    return MYRI_OK;
}

void myri_fw_set(myri_fw_inst *fi, uint32_t var, int32_t value)
{
    if (var >= fi->def->nvars) return;
    fi->vars[var] = value;
    fw__log(fi, MYRI_FW_SET, var, value);
}

int32_t myri_fw_get(const myri_fw_inst *fi, uint32_t var) { return var < fi->def->nvars ? fi->vars[var] : 0; }

void myri_fw_count(myri_fw_inst *fi, uint32_t counter)
{
    if (counter >= fi->def->ncounters) return;
    fi->counters[counter]++;
    fw__log(fi, MYRI_FW_COUNT, counter, 0);
}

void myri_fw_count_add(myri_fw_inst *fi, uint32_t counter, uint64_t n)
{
    if (counter < fi->def->ncounters) fi->counters[counter] += n;
}

uint64_t myri_fw_counter(const myri_fw_inst *fi, uint32_t counter)
{
    return counter < fi->def->ncounters ? fi->counters[counter] : 0;
}

void myri_fw_set_follow(myri_fw_inst *fi, myri_time_ps follow_ps) { fi->follow_ps = follow_ps; }

/* Register writes seen through the LANai's trace, as effects. */
static void fw__trace(void *ctx, const myri_lanai *l, myri_time_ps t, myri_lanai_ev ev, uint32_t a, uint32_t b)
{
    (void)l;
    (void)t;
    myri_fw_inst *fi = ctx;
    if (ev != MYRI_LANAI_EV_REG || !fi->check) return;
    switch (a) {
    case MYRI_LANAI_DMA_DIR: fi->dir = b; break;
    case MYRI_LANAI_DMA_CTR: fw__log(fi, MYRI_FW_START_HDMA, fi->dir, 0); break;
    case MYRI_LANAI_SML: fw__log(fi, MYRI_FW_START_SDMA, 0, 0); break;
    case MYRI_LANAI_SMLT: fw__log(fi, MYRI_FW_START_SDMA, 1, 0); break;
    case MYRI_LANAI_RML: fw__log(fi, MYRI_FW_ARM_RDMA, 0, 0); break;
    case MYRI_LANAI_ISR: fw__log(fi, MYRI_FW_CLEAR_ISR, b, 0); break;
    case MYRI_LANAI_IMR: fw__log(fi, MYRI_FW_SET_IMR, b, 0); break;
    case MYRI_LANAI_SB:
    case MYRI_LANAI_SH:
    case MYRI_LANAI_SW: fw__log(fi, MYRI_FW_PIO_SEND, 0, 0); break;
    case MYRI_LANAI_ST: fw__log(fi, MYRI_FW_PIO_SEND, 1, 0); break;
    default: break; /* operands of the writes above (EAR, LAR, SMP, SA, RMP) */
    }
}

static const char *const fw__op_names[MYRI_FW_NOPS] = {"NOP",  "START_HDMA", "START_SDMA", "ARM_RDMA",
                                                       "CLEAR_ISR", "SET_IMR", "PIO_SEND", "Q_PUT",
                                                       "Q_GET", "SET", "COUNT"};

static bool fw__eff_eq(const myri_fw_effect *want, const myri_fw_effect *got)
{
    if (want->op != got->op || (want->a != got->a && want->a != (uint32_t)MYRI_FW_ANY)) return false;
    if (want->op != MYRI_FW_SET && want->op != MYRI_FW_Q_PUT) return true;
    return want->b == MYRI_FW_ANY || want->b == got->b; /* a SET's value, a put's value */
}

static void fw__compare(myri_fw_inst *fi, uint8_t m, const myri_fw_rule *r)
{
    uint32_t n = 0;
    while (n < MYRI_FW_MAX_EFF && r->eff[n].op != MYRI_FW_NOP) n++;
    fi->ck.actions++;
    bool ok = fi->nlog == n;
    uint32_t bad = 0;
    for (uint32_t i = 0; ok && i < n; i++)
        if (!fw__eff_eq(&r->eff[i], &fi->log[i])) ok = false, bad = i;
    if (ok) return;
    if (fi->ck.mismatches++ == 0) {
        const myri_fw_effect *g = bad < fi->nlog && bad < FW_LOG_MAX ? &fi->log[bad] : NULL;
        snprintf(fi->ck.first, sizeof fi->ck.first,
                 "%s.%s: declared %u effects, did %u; first difference at %u: did %s(%u, %d)",
                 fi->def->machines[m].name, r->name, n, fi->nlog, bad, g ? fw__op_names[g->op] : "-",
                 g ? g->a : 0, g ? g->b : 0);
    }
}

/* ---- stepping -------------------------------------------------------------------------- */

static void fw__enter(myri_fw_inst *fi, uint8_t m, uint8_t to)
{
    myri_time_ps now = myri_lanai_now(fi->l);
    uint32_t sb = fi->state_base[m];
    fi->state_ps[sb + fi->state[m]] += now - fi->since_ps[m];
    fi->since_ps[m] = now;
    if (to == fi->state[m]) return;
    fi->state[m] = to;
    myri_lanai_trace(fi->l, MYRI_LANAI_EV_FW, m, to);
}

static void fw__apply(myri_fw_inst *fi)
{
    uint8_t m = fi->pend_m;
    const myri_fw_rule *r = &fi->def->machines[m].rules[fi->pend_r];
    fi->pend = false;
    fi->fired[fi->rule_base[m] + fi->pend_r]++;
    fi->logging = fi->check;
    fi->nlog = 0;
    if (r->act) r->act(fi->fw, fi->l);
    fi->logging = false;
    if (fi->check) fw__compare(fi, m, r);
    fw__enter(fi, m, r->to);
}

/* The tables compiled to direct dispatch (at creation, fw__compile): per
 * state of every machine, its poll slots (user machines) and the rules
 * leaving it (system machines), each with the function pointers it calls,
 * so that a step never scans a machine's rule table.  The order of the slots,
 * of the candidate rules and of every event, guard and live test is the
 * tables' own: the compiled form changes no result, only the cost of finding
 * the next rule (docs/FIRMWARE.md, "Interpreter semantics"). */
#define FW_VISIT 0xFFu /* the pseudo-slot of a machine's visit cost */

static fw__cstate *fw__cs(const myri_fw_inst *fi, uint8_t m)
{
    return &fi->cstate[fi->state_base[m] + fi->state[m]];
}

/* The first enabled candidate of a slot whose event tested true, or -1. */
static int fw__first_enabled(myri_fw_inst *fi, const fw__slot *sl)
{
    for (uint32_t k = 0; k < sl->ncand; k++) {
        const fw__cand *c = &fi->cand[sl->cand + k];
        if (!c->guard || c->guard(fi->fw, fi->l)) return c->rule;
    }
    return -1;
}

static uint32_t fw__pick(myri_fw_inst *fi, uint8_t m, uint16_t r)
{
    const myri_fw_rule *ru = &fi->def->machines[m].rules[r];
    uint32_t c = ru->cycles + (ru->extra ? ru->extra(fi->fw, fi->l) : 0);
    fi->pend = true;
    fi->pend_m = m;
    fi->pend_r = r;
    fi->st.steps++;
    fi->st.rule_cycles += c;
    return c;
}

static uint32_t fw__system(myri_fw_inst *fi)
{
    for (uint8_t k = 0; k < fi->nsys; k++) {
        uint8_t m = fi->sys[k];
        const fw__cstate *cs = fw__cs(fi, m);
        for (uint32_t i = 0; i < cs->nleave; i++) {
            const fw__cand *c = &fi->cand[cs->leave + i];
            if (!c->event(fi->fw, fi->l) || (c->guard && !c->guard(fi->fw, fi->l))) continue;
            uint32_t cyc = fw__pick(fi, m, c->rule);
            if (fi->idle) fi->idle_ps += (myri_time_ps)cyc * myri_lanai_cycle_ps(fi->l); /* the loop pauses */
            return cyc;
        }
    }
    return 0;
}

typedef struct fw__scan {
    uint64_t skip;     /* cycles of the pass already spun through (phase) */
    uint64_t charged;  /* cycles charged so far */
    int rule;          /* found */
} fw__scan;

/* Polls machine m's slots in its current state, in order, from the phase:
 * true when one finds a rule (s->rule). */
static bool fw__poll(myri_fw_inst *fi, uint8_t m, fw__scan *s)
{
    const fw__cstate *cs = fw__cs(fi, m);
    for (uint32_t i = 0; i < cs->nslot; i++) {
        const fw__slot *sl = &fi->slot[cs->slot + i];
        uint64_t c = sl->cycles;
        if (s->skip >= c && c > 0) { /* this poll ended before the change */
            s->skip -= c;
            continue;
        }
        s->charged += c > s->skip ? c - s->skip : 0; /* the rest of the poll in progress, or a whole one (a 0-cycle poll: none) */
        s->skip = 0;
        if (sl->event == FW_VISIT || !sl->test(fi->fw, fi->l)) continue;
        s->rule = fw__first_enabled(fi, sl);
        if (s->rule >= 0) return true;
    }
    return false;
}

/* Some slot of machine m's current state follows a live pointer that moved. */
static bool fw__any_live(myri_fw_inst *fi, uint8_t m)
{
    const fw__cstate *cs = fw__cs(fi, m);
    if (!cs->live) return false;
    for (uint32_t i = 0; i < cs->nslot; i++) {
        const fw__slot *sl = &fi->slot[cs->slot + i];
        if (sl->live && sl->live(fi->fw, fi->l)) return true;
    }
    return false;
}

static uint32_t fw__user(myri_fw_inst *fi)
{
    const myri_fw_def *d = fi->def;
    uint64_t pass = 0;
    for (uint8_t k = 0; k < fi->nuser; k++) pass += fw__cs(fi, fi->user[k])->pass_cycles;
    fw__scan s = {0, 0, -1};
    if (fi->idle && pass > 0) {
        uint64_t spun = (myri_lanai_now(fi->l) - fi->idle_ps) / myri_lanai_cycle_ps(fi->l);
        s.skip = spun % pass;
    }
    /* From the phase, up to one whole pass: two rounds of the user machines,
     * from the first at or after next_m (fi->ufrom).  The second round only
     * has to reach the polls the first one skipped (those that ended before
     * the phase): the machines after the one where the phase ran out were
     * tested whole with nothing found, and a test of unchanged state gives
     * the same answer again (tests read state; the one that caches,
     * has_dest in mcp_map_tables.c, caches what it would find again). */
    uint32_t limit = 2u * fi->nuser;
    for (uint32_t k = 0, u = fi->ufrom[fi->next_m]; k < limit; k++, u = u + 1 < fi->nuser ? u + 1 : 0) {
        if (s.skip == 0 && limit == 2u * fi->nuser) limit = fi->nuser + k; /* round 2: positions 0 .. k-1 */
        if (k >= limit) break;
        uint8_t m = fi->user[u];
        if (!fw__poll(fi, m, &s)) continue;
        fi->idle = false;
        fi->next_m = (uint8_t)((m + 1) % d->nmachines);
        fi->st.poll_cycles += s.charged;
        uint64_t c = s.charged + fw__pick(fi, m, (uint16_t)s.rule);
        return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
    }
    /* Nothing: the loop spins on (from next_m, since idle_ps if already idle). */
    if (fi->idle) fi->st.idle_wakes++;
    else {
        fi->idle = true;
        fi->idle_ps = myri_lanai_now(fi->l);
    }
    bool live = false;
    for (uint8_t k = 0; k < fi->nuser && !live; k++) live = fw__any_live(fi, fi->user[k]);
    if (live && fi->follow_ps > 0) myri_lanai_wake(fi->l, myri_lanai_now(fi->l) + fi->follow_ps);
    return 0;
}

static uint32_t fw__step(void *p, myri_lanai *l, myri_lanai_ctx ctx)
{
    myri_fw_inst *fi = p;
    (void)l;
    if (fi->pend) fw__apply(fi);
    return ctx == MYRI_LANAI_SYSTEM ? fw__system(fi) : fw__user(fi);
}

static const myri_lanai_cpu_ops fw__cpu_ops = {fw__step};

/* ---- life ----------------------------------------------------------------------------------- */

/* Compiles state s of machine m: the rules leaving it, and (user machine)
 * its polls in the order fw__user makes them -- the visit when the state has
 * rules, then one poll per run of consecutive rules with the same event, whose
 * candidates are all the state's rules with that event. */
static void fw__compile_state(myri_fw_inst *fi, uint8_t m, uint8_t s, uint32_t *nslot, uint32_t *ncand)
{
    const myri_fw_def *d = fi->def;
    const myri_fw_machine *mc = &d->machines[m];
    fw__cstate *cs = &fi->cstate[fi->state_base[m] + s];
    cs->leave = *ncand;
    for (uint16_t i = 0; i < mc->nrules; i++)
        if (mc->rules[i].from == s)
            fi->cand[(*ncand)++] = (fw__cand){d->events[mc->rules[i].event].test, d->guards[mc->rules[i].guard].test, i};
    cs->nleave = *ncand - cs->leave;
    cs->slot = *nslot;
    if (mc->ctx == MYRI_LANAI_USER) {
        if (mc->visit_cycles > 0 && cs->nleave > 0)
            fi->slot[(*nslot)++] = (fw__slot){FW_VISIT, mc->visit_cycles, NULL, NULL, 0, 0};
        int prev = -1;
        for (uint16_t i = 0; i < mc->nrules; i++) {
            const myri_fw_rule *r = &mc->rules[i];
            if (r->from != s || r->event == prev) continue;
            prev = r->event;
            const myri_fw_event *e = &d->events[r->event];
            fw__slot *sl = &fi->slot[(*nslot)++];
            *sl = (fw__slot){r->event, e->poll_cycles, e->test, e->live, *ncand, 0};
            for (uint16_t j = 0; j < mc->nrules; j++) /* all of them, as fw__rule_for searched before */
                if (mc->rules[j].from == s && mc->rules[j].event == r->event)
                    fi->cand[(*ncand)++] = (fw__cand){e->test, d->guards[mc->rules[j].guard].test, j};
            sl->ncand = *ncand - sl->cand;
            cs->live = cs->live || e->live;
        }
    }
    cs->nslot = *nslot - cs->slot;
    for (uint32_t k = 0; k < cs->nslot; k++) cs->pass_cycles += fi->slot[cs->slot + k].cycles;
}

static myri_status fw__compile(myri_fw_inst *fi)
{
    const myri_fw_def *d = fi->def;
    size_t ns = 0, nslot = 0, ncand = 0;
    for (uint8_t m = 0; m < d->nmachines; m++) {
        const myri_fw_machine *mc = &d->machines[m];
        ns += mc->nstates;
        for (uint8_t s = 0; s < mc->nstates; s++) {
            size_t from = 0;
            for (uint16_t i = 0; i < mc->nrules; i++) from += mc->rules[i].from == s;
            nslot += from + 1;
            ncand += from + from * from; /* the rules leaving it, and each poll's candidates (at most all) */
        }
    }
    fi->cstate = calloc(ns + 1, sizeof *fi->cstate);
    fi->slot = calloc(nslot + 1, sizeof *fi->slot);
    fi->cand = calloc(ncand + 1, sizeof *fi->cand);
    fi->user = calloc(d->nmachines + 1u, 1);
    fi->sys = calloc(d->nmachines + 1u, 1);
    fi->ufrom = calloc(d->nmachines + 1u, 1);
    if (!fi->cstate || !fi->slot || !fi->cand || !fi->user || !fi->sys || !fi->ufrom) return MYRI_ENOMEM;
    uint32_t at_slot = 0, at_cand = 0;
    for (uint8_t m = 0; m < d->nmachines; m++) {
        if (d->machines[m].ctx == MYRI_LANAI_USER) fi->user[fi->nuser++] = m;
        else fi->sys[fi->nsys++] = m;
        for (uint8_t s = 0; s < d->machines[m].nstates; s++) fw__compile_state(fi, m, s, &at_slot, &at_cand);
    }
    for (uint8_t m = 0; m < d->nmachines; m++) {
        uint8_t u = 0;
        while (u < fi->nuser && fi->user[u] < m) u++;
        fi->ufrom[m] = u < fi->nuser ? u : 0;
    }
    return MYRI_OK;
}

static myri_status fw__alloc(myri_fw_inst *fi)
{
    const myri_fw_def *d = fi->def;
    size_t nr = 0, ns = 0;
    for (uint8_t m = 0; m < d->nmachines; m++) nr += d->machines[m].nrules, ns += d->machines[m].nstates;
    fi->state = calloc(d->nmachines + 1u, 1);
    fi->rule_base = calloc(d->nmachines + 1u, sizeof *fi->rule_base);
    fi->state_base = calloc(d->nmachines + 1u, sizeof *fi->state_base);
    fi->since_ps = calloc(d->nmachines + 1u, sizeof *fi->since_ps);
    fi->fired = calloc(nr + 1, sizeof *fi->fired);
    fi->state_ps = calloc(ns + 1, sizeof *fi->state_ps);
    fi->vars = calloc(d->nvars + 1u, sizeof *fi->vars);
    fi->counters = calloc(d->ncounters + 1u, sizeof *fi->counters);
    fi->q = calloc(d->nqueues + 1u, sizeof *fi->q);
    if (!fi->state || !fi->rule_base || !fi->state_base || !fi->since_ps || !fi->fired || !fi->state_ps ||
        !fi->vars || !fi->counters || !fi->q)
        return MYRI_ENOMEM;
    uint32_t rb = 0, sb = 0;
    for (uint8_t m = 0; m < d->nmachines; m++) {
        fi->rule_base[m] = rb;
        fi->state_base[m] = sb;
        rb += d->machines[m].nrules;
        sb += d->machines[m].nstates;
    }
    return fw__compile(fi);
}

myri_status myri_fw_fail(myri_fw_inst *fi, const myri_node *at, const char *fmt, ...)
{
    char msg[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (fi && fi->create_err) return myri_error_at(fi->create_err, at, "%s", msg);
    if (at && at->file) fprintf(stderr, "%s:%u:%u: %s\n", at->file, at->line, at->col, msg);
    else fprintf(stderr, "%s\n", msg);
    return MYRI_EINPUT;
}

myri_status myri_fw_create(const myri_fw_def *def, const void *params, myri_lanai *l, myri_fw_inst **out)
{
    return myri_fw_create_err(def, params, l, out, NULL);
}

myri_status myri_fw_create_err(const myri_fw_def *def, const void *params, myri_lanai *l, myri_fw_inst **out,
                               myri_error *err)
{
    if (!def || !l || !out || def->nguards == 0 || !def->create) return MYRI_EINVAL;
    *out = NULL;
    myri_fw_inst *fi = calloc(1, sizeof *fi);
    if (!fi) return MYRI_ENOMEM;
    fi->def = def;
    fi->l = l;
    myri_status st = fw__alloc(fi);
    void *pdef = NULL;
    if (st == MYRI_OK && !params && def->params_size) {
        pdef = calloc(1, def->params_size);
        if (!pdef) st = MYRI_ENOMEM;
        else def->params_default(pdef);
        params = pdef;
    }
    fi->create_err = err;
    if (st == MYRI_OK) st = def->create(params, l, fi, &fi->fw);
    fi->create_err = NULL;
    free(pdef);
    if (st == MYRI_OK) st = def->cpu ? myri_lanai_set_cpu(l, def->cpu, fi->fw) : myri_lanai_set_cpu(l, &fw__cpu_ops, fi);
    if (st != MYRI_OK) {
        myri_fw_destroy(fi);
        return st;
    }
    *out = fi;
    return MYRI_OK;
}

void myri_fw_destroy(myri_fw_inst *fi)
{
    if (!fi) return;
    if (fi->fw && fi->def->destroy) fi->def->destroy(fi->fw);
    free(fi->state);
    free(fi->rule_base);
    free(fi->state_base);
    free(fi->since_ps);
    free(fi->fired);
    free(fi->state_ps);
    free(fi->vars);
    free(fi->counters);
    free(fi->q);
    free(fi->cstate);
    free(fi->slot);
    free(fi->cand);
    free(fi->user);
    free(fi->sys);
    free(fi->ufrom);
    free(fi);
}

void *myri_fw_state(myri_fw_inst *fi) { return fi ? fi->fw : NULL; }
const myri_fw_def *myri_fw_def_of(const myri_fw_inst *fi) { return fi ? fi->def : NULL; }

uint8_t myri_fw_machine_state(const myri_fw_inst *fi, uint8_t m)
{
    return fi && m < fi->def->nmachines ? fi->state[m] : 0;
}

myri_status myri_fw_set_check(myri_fw_inst *fi, bool on)
{
    if (!fi) return MYRI_EINVAL;
    if (on && !fi->trace_on) {
        myri_status st = myri_lanai_add_trace(fi->l, fw__trace, fi);
        if (st != MYRI_OK) return st;
        fi->trace_on = true;
    }
    fi->check = on;
    return MYRI_OK;
}

void myri_fw_get_check(const myri_fw_inst *fi, myri_fw_check *out)
{
    if (fi && out) *out = fi->ck;
}

uint64_t myri_fw_fired(const myri_fw_inst *fi, uint8_t m, uint16_t r)
{
    if (!fi || m >= fi->def->nmachines || r >= fi->def->machines[m].nrules) return 0;
    return fi->fired[fi->rule_base[m] + r];
}

void myri_fw_get_stats(const myri_fw_inst *fi, myri_fw_stats *out)
{
    if (fi && out) *out = fi->st;
}

myri_time_ps myri_fw_state_ps(const myri_fw_inst *fi, uint8_t m, uint8_t s)
{
    if (!fi || m >= fi->def->nmachines || s >= fi->def->machines[m].nstates) return 0;
    myri_time_ps t = fi->state_ps[fi->state_base[m] + s];
    if (fi->state[m] == s) t += myri_lanai_now(fi->l) - fi->since_ps[m];
    return t;
}

void myri_fw_report(const myri_fw_inst *fi, FILE *out)
{
    if (!fi || !out) return;
    const myri_fw_def *d = fi->def;
    fprintf(out, "firmware %s: %" PRIu64 " rules fired, %" PRIu64 " rule cycles, %" PRIu64 " poll cycles\n",
            d->name, fi->st.steps, fi->st.rule_cycles, fi->st.poll_cycles);
    for (uint8_t c = 0; c < d->ncounters; c++)
        fprintf(out, "  counter %-16s %" PRIu64 "\n", d->counters[c].name, fi->counters[c]);
    for (uint8_t m = 0; m < d->nmachines; m++) {
        const myri_fw_machine *mc = &d->machines[m];
        for (uint8_t s = 0; s < mc->nstates; s++)
            fprintf(out, "  machine %s state %-10s %" PRIu64 " ps\n", mc->name, mc->states[s],
                    (uint64_t)myri_fw_state_ps(fi, m, s));
        for (uint16_t r = 0; r < mc->nrules; r++)
            fprintf(out, "  machine %s rule %-22s fired %" PRIu64 "\n", mc->name, mc->rules[r].name,
                    fi->fired[fi->rule_base[m] + r]);
    }
}
