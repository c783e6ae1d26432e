/* system_map.c -- the system job with `mapping: on` (system_map.h,
 * docs/MAPPING.md). */
#include "app/system_map.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "firmware/mcp_map.h"
#include "map/map.h"
#include "nic/lanai.h"
#include "topo/topo.h"

#define SM_MAX_NOTES 512

#define OFF(f) offsetof(myri_sysmap_cfg, f)
const myri_param myri_sysmap_params[] = {
    {"level", MYRI_P_INT, NULL, "1", "0", "255",
     "mapping level of every host (0 = never maps); the highest (level, unique ID) maps (seed 002: the mapper is "
     "chosen automatically); assumption: every host may map",
     OFF(level), NULL},
    {"levels", MYRI_P_NODE, NULL, "", NULL, NULL, "per-host levels, {HOST: LEVEL, ...}, over map.level", OFF(levels),
     NULL},
    {"mapper", MYRI_P_STRING, NULL, "", NULL, NULL,
     "manual choice of the mapper (seed 002: \"the network manager intervenes to manually select the mapper\"): "
     "this host gets level 255; if it dies the others elect one",
     OFF(mapper), NULL},
    {"probe_timeout", MYRI_P_TIME, "us", "50us", "1us", "10ms",
     "a batch of probes is answered within this, or what did not answer is taken as absent (a verification probe is "
     "tried three times); assumption (no source gives the mapper's time-out): many times a probe's unloaded round "
     "trip over a few switches (about 3 us), since a loaded NIC answers only after the packets before the scout in "
     "its rx pool; most batches wait it out (an empty port never answers), so mapping time grows with it "
     "(docs/MAPPING.md)",
     OFF(probe_timeout_ps), NULL},
    {"verify_period", MYRI_P_TIME, "us", "100us", "1us", "10s",
     "the mapper verifies every link of its map this often (seed 002: continuous monitoring); assumption",
     OFF(verify_period_ps), NULL},
    {"remap_every", MYRI_P_INT, NULL, "10", "0", "1000000",
     "every this many verifications the mapper explores the whole network again, finding what was added or "
     "restored (0: never); assumption",
     OFF(remap_every), NULL},
    {"start_delay", MYRI_P_TIME, "us", "50us", "0ns", "10s",
     "a candidate waits this long after boot (or after its mapper fell silent) before mapping; below level 255 "
     "also 1 + (the low 4 bits of its ID, inverted) map.id_step, so that of equal levels the highest ID usually "
     "starts first and the others defer to its scouts; assumption",
     OFF(start_delay_ps), NULL},
    {"id_step", MYRI_P_TIME, "us", "20us", "0ns", "1s",
     "start delay per ID step; assumption: longer than a first batch of scouts (a probe time-out)",
     OFF(id_step_ps), NULL},
    {"mapper_timeout", MYRI_P_TIME, "us", "20ms", "1us", "100s",
     "a follower with level > 0 that hears no scout or map of its mapper this long stands for election (seed 002: "
     "if the mapper's host is turned off a new mapper is selected); assumption: several verification periods, and longer than an exploration (3 ms for 16 hosts and 8 switches)",
     OFF(mapper_timeout_ps), NULL},
    {"ports", MYRI_P_INT, NULL, "8", "2", "32",
     "largest switch the mapper probes for (offsets -(ports-1) .. ports-1); seed 002: 4- and 8-port switches ship",
     OFF(ports), NULL},
    {"max_hosts", MYRI_P_INT, NULL, "128", "2", "4096",
     "route table entries of each NIC (44 bytes of SRAM each); assumption: above Mainwaring's 100 hosts",
     OFF(max_hosts), NULL},
    {"election", MYRI_P_BOOL, NULL, "true", NULL, NULL,
     "false: every candidate maps, none defers (to show two mappers at once)", OFF(election), NULL},
};
const size_t myri_sysmap_nparams = sizeof myri_sysmap_params / sizeof myri_sysmap_params[0];

/* `mapping` is a key of the system job's top level (an int in the job's cfg). */
const myri_param myri_sysmap_top_params[] = {
    {"mapping", MYRI_P_ENUM, NULL, "off", NULL, NULL,
     "on: the NICs map the network (seed 002) and programs' routes come from the map (docs/MAPPING.md); off: the "
     "routes computed from the known topology",
     0, "off|on"},
};
const size_t myri_sysmap_ntop = 1;

typedef struct sm_note {
    myri_time_ps t;
    uint32_t host;
    char what[16];
    uint64_t a, b;
} sm_note;

typedef struct sm_nic {
    myri_sysmap *m;
    uint32_t host;
} sm_nic;

struct myri_sysmap {
    myri_sysmap_cfg cfg;
    myri_sim *sim;
    const myri_topo *topo;
    uint32_t n;
    uint64_t *id;
    uint8_t *level;
    myri_map_explorer **x;
    sm_nic *nc;
    myri_time_ps rtc_tick_ps;
    sm_note notes[SM_MAX_NOTES];
    uint32_t nnotes, notes_dropped;
    int32_t mapper, last_complete_mapper;
    uint64_t mapper_id;
    uint32_t need, got, maps_complete;
    myri_map last;
    bool have_last, stop;
    myri_time_ps explore_ps, mapped_ps, map_time_ps;
    myri_time_ps *last_explore;    /* per host: when it last began exploring */
};

const myri_sysmap_paper myri_sysmap_mainwaring[2] = {{36, 13, 64, 248.0}, {100, 40, 193, 981.0}};

uint64_t myri_sysmap_id(uint32_t h) { return UINT64_C(0x0060dd000000) | (uint64_t)(h + 1); }

static void sm__add(myri_sysmap *m, uint32_t host, const char *what, uint64_t a, uint64_t b)
{
    if (m->nnotes >= SM_MAX_NOTES) {
        m->notes_dropped++;
        return;
    }
    sm_note *e = &m->notes[m->nnotes++];
    e->t = myri_sim_now(m->sim);
    e->host = host;
    snprintf(e->what, sizeof e->what, "%s", what);
    e->a = a;
    e->b = b;
}

static void sm__note(void *ctx, const char *what, uint64_t a, uint64_t b)
{
    sm_nic *c = ctx;
    myri_sysmap *m = c->m;
    if (!strcmp(what, "installed")) {
        if (m->mapper >= 0 && a == m->mapper_id && ++m->got == m->need) {
            m->maps_complete++;
            sm__add(m, (uint32_t)m->mapper, "complete", m->need, 0);
            if (!m->mapped_ps) {
                m->mapped_ps = myri_sim_now(m->sim);
                m->map_time_ps = m->mapped_ps - m->last_explore[m->mapper];
            }
            const myri_map *mp = myri_map_explorer_map(m->x[m->mapper]);
            if (mp) {
                myri_map_free(&m->last);
                m->have_last = myri_map_copy(&m->last, mp) == MYRI_OK;
                m->last_complete_mapper = m->mapper;
            }
            if (m->stop) myri_sim_stop(m->sim);
        }
        return;
    }
    if (!strcmp(what, "mapped")) {
        const myri_map *mp = myri_map_explorer_map(m->x[c->host]);
        m->mapper = (int32_t)c->host;
        m->mapper_id = m->id[c->host];
        m->need = mp ? mp->nhosts : 1;
        m->got = 0;
    }
    if (!strcmp(what, "explore")) {
        if (!m->explore_ps) m->explore_ps = myri_sim_now(m->sim);
        m->last_explore[c->host] = myri_sim_now(m->sim);
    }
    sm__add(m, c->host, what, a, b);
}

static int64_t sm__host(const myri_topo *t, const char *name)
{
    int64_t n = myri_topo_find(t, name);
    return n >= 0 && t->node[n].kind == MYRI_TOPO_HOST ? t->node[n].host_index : -1;
}

/* Levels: map.level, then map.levels, then the manual mapper at 255. */
static myri_status sm__levels(myri_sysmap *m, const myri_node *root, myri_error *err)
{
    for (uint32_t i = 0; i < m->n; i++) m->level[i] = (uint8_t)m->cfg.level;
    const myri_node *lv = m->cfg.levels;
    if (lv && !(lv->kind == MYRI_NODE_SCALAR && !lv->scalar[0])) {
        if (lv->kind != MYRI_NODE_MAP)
            return myri_error_at(err, lv, "map.levels: expected a mapping {HOST: LEVEL, ...}"), MYRI_EINPUT;
        for (size_t k = 0; k < lv->n; k++) {
            const myri_node *v = lv->item[k];
            int64_t h = sm__host(m->topo, lv->key[k]);
            char *end = NULL;
            long x = v->kind == MYRI_NODE_SCALAR ? strtol(v->scalar, &end, 10) : -1;
            if (h < 0)
                return myri_error_at(err, v, "map.levels: '%s' is not a host of the topology; expected a host name",
                                     lv->key[k]), MYRI_EINPUT;
            if (!end || *end || x < 0 || x > 255)
                return myri_error_at(err, v, "map.levels: expected a level from 0 to 255"), MYRI_EINPUT;
            m->level[h] = (uint8_t)x;
        }
    }
    if (m->cfg.mapper && m->cfg.mapper[0]) {
        int64_t h = sm__host(m->topo, m->cfg.mapper);
        if (h < 0) {
            myri_error_at(err, root ? myri_node_path(root, "map.mapper") : NULL,
                          "map.mapper: '%s' is not a host of the topology; expected a host name", m->cfg.mapper);
            myri_error_set_key(err, "map.mapper");
            return MYRI_EINPUT;
        }
        m->level[h] = 255;
    }
    return MYRI_OK;
}

myri_status myri_sysmap_create(const myri_sysmap_cfg *c, int mapping, int addressing, const char *firmware,
                               const myri_topo *t, myri_sim *sim, const myri_node *root, const myri_param *nic_tick,
                               myri_time_ps rtc_tick_ps, myri_sysmap **out, myri_error *err)
{
    (void)nic_tick;
    *out = NULL;
    if (!mapping) return MYRI_OK;
    if (strcmp(firmware, "mcp") != 0) {
        myri_error_at(err, root ? myri_node_get(root, "mapping") : NULL,
                      "mapping: on runs in seed 001's MCP; expected firmware: mcp (not %s)", firmware);
        myri_error_set_key(err, "mapping");
        return MYRI_EINPUT;
    }
    if (addressing != 1) {
        myri_error_at(err, root ? (myri_node_path(root, "switch.addressing") ? myri_node_path(root, "switch.addressing")
                                                                              : myri_node_get(root, "mapping"))
                                : NULL,
                      "mapping: on needs switch.addressing: relative (the mapper sends replies back by the reversed "
                      "route with negated offsets, and finds switches by reflecting probes with offset 0)");
        myri_error_set_key(err, "switch.addressing");
        return MYRI_EINPUT;
    }
    if (t->nhosts > (size_t)c->max_hosts) {
        myri_error_at(err, root ? myri_node_path(root, "map.max_hosts") : NULL,
                      "map.max_hosts: %lld route table entries for %zu hosts; expected at least the number of hosts",
                      (long long)c->max_hosts, t->nhosts);
        myri_error_set_key(err, "map.max_hosts");
        return MYRI_EINPUT;
    }
    myri_sysmap *m = calloc(1, sizeof *m);
    if (!m) return MYRI_ENOMEM;
    m->cfg = *c;
    m->sim = sim;
    m->topo = t;
    m->n = (uint32_t)t->nhosts;
    m->rtc_tick_ps = rtc_tick_ps;
    m->mapper = m->last_complete_mapper = -1;
    myri_map_init(&m->last);
    m->id = calloc(m->n, sizeof *m->id);
    m->level = calloc(m->n, 1);
    m->x = calloc(m->n, sizeof *m->x);
    m->nc = calloc(m->n, sizeof *m->nc);
    m->last_explore = calloc(m->n, sizeof *m->last_explore);
    if (!m->id || !m->level || !m->x || !m->nc || !m->last_explore) {
        myri_sysmap_destroy(m);
        return MYRI_ENOMEM;
    }
    for (uint32_t i = 0; i < m->n; i++) m->id[i] = myri_sysmap_id(i);
    myri_status st = sm__levels(m, root, err);
    if (st) {
        myri_sysmap_destroy(m);
        return st;
    }
    *out = m;
    return MYRI_OK;
}

void myri_sysmap_destroy(myri_sysmap *m)
{
    if (!m) return;
    for (uint32_t i = 0; m->x && i < m->n; i++) myri_map_explorer_destroy(m->x[i]);
    free(m->x);
    free(m->nc);
    free(m->last_explore);
    free(m->id);
    free(m->level);
    myri_map_free(&m->last);
    free(m);
}

myri_status myri_sysmap_nic(myri_sysmap *m, uint32_t i, myri_fw_inst *fw, myri_lanai *l)
{
    myri_map_cfg xc = {(uint32_t)m->cfg.ports, (uint32_t)m->cfg.remap_every};
    m->x[i] = myri_map_explorer_create(&xc);
    if (!m->x[i]) return MYRI_ENOMEM;
    m->nc[i] = (sm_nic){m, i};
    myri_map_explorer_set_note(m->x[i], sm__note, &m->nc[i]);
    myri_mcp_map_lib lib;
    myri_map_explorer_lib(m->x[i], &lib);
    myri_mcp_map_cfg fc = {.start_delay_ps = m->cfg.start_delay_ps, .id_step_ps = m->cfg.id_step_ps, .probe_timeout_ps = m->cfg.probe_timeout_ps,
                           .verify_period_ps = m->cfg.verify_period_ps, .mapper_timeout_ps = m->cfg.mapper_timeout_ps,
                           .election = m->cfg.election, .max_hosts = (uint32_t)m->cfg.max_hosts,
                           .rtc_tick_ps = m->rtc_tick_ps};
    myri_status st = myri_mcp_map_attach(fw, &fc, &lib);
    if (st) return st;
    /* the host (its driver, at boot) sets its unique ID and level in the NIC */
    uint32_t a = myri_mcp_map_mcb_addr(fw);
    uint8_t *p = myri_lanai_sram(l, a, MYRI_MCP_MCB_BYTES);
    if (!p) return MYRI_ERANGE;
    myri_be32_put(p + MYRI_MCP_MCB_MAGIC, MYRI_MCP_MCB_SIG);
    myri_be32_put(p + MYRI_MCP_MCB_ID_HI, (uint32_t)(m->id[i] >> 32));
    myri_be32_put(p + MYRI_MCP_MCB_ID_LO, (uint32_t)m->id[i]);
    myri_be32_put(p + MYRI_MCP_MCB_LEVEL, m->level[i]);
    return MYRI_OK;
}

int myri_sysmap_route(const myri_sysmap *m, myri_fw_inst *fw_from, uint32_t to, uint8_t *bytes, int max)
{
    if (!m || to >= m->n || max < 0) return -1;
    uint8_t b[MYRI_MAPW_ROUTE_MAX];
    int len = myri_mcp_map_route(fw_from, m->id[to], b);
    if (len < 0 || len > max) return -1;
    memcpy(bytes, b, (size_t)len);
    return len;
}

void myri_sysmap_stop_when_mapped(myri_sysmap *m, bool on)
{
    if (m) m->stop = on;
}

const myri_map *myri_sysmap_map(const myri_sysmap *m) { return m && m->have_last ? &m->last : NULL; }

const myri_map *myri_sysmap_map_of(const myri_sysmap *m, uint32_t h)
{
    return m && h < m->n && m->x[h] ? myri_map_explorer_map(m->x[h]) : NULL;
}

void myri_sysmap_get_summary(const myri_sysmap *m, myri_fw_inst *const *fw, uint32_t n, myri_sysmap_summary *out)
{
    memset(out, 0, sizeof *out);
    out->mapper = -1;
    if (!m) return;
    out->mapper = m->last_complete_mapper >= 0 ? m->last_complete_mapper : m->mapper;
    out->mapper_id = out->mapper >= 0 ? m->id[out->mapper] : 0;
    out->explore_ps = m->explore_ps;
    out->mapped_ps = m->mapped_ps;
    out->map_time_ps = m->map_time_ps;
    out->maps_complete = m->maps_complete;
    out->probe_timeout_ps = m->cfg.probe_timeout_ps;
    if (out->mapper >= 0 && (uint32_t)out->mapper < n)
        out->mapper_timeouts = myri_fw_counter(fw[out->mapper], MYRI_MCPM_C_TIMEOUTS);
    for (uint32_t i = 0; i < n; i++)
        out->packets += myri_fw_counter(fw[i], MYRI_MCPM_C_SCOUTS) + myri_fw_counter(fw[i], MYRI_MCPM_C_REPLIES) +
                        myri_fw_counter(fw[i], MYRI_MCPM_C_MAPS_SENT);
}

static const char *sm__name(const myri_sysmap *m, uint32_t h) { return m->topo->node[m->topo->host_node[h]].name; }

/* A note in words. */
static void sm__say(const myri_sysmap *m, const sm_note *e, char *buf, size_t len)
{
    const char *h = sm__name(m, e->host);
    if (!strcmp(e->what, "explore")) snprintf(buf, len, "%s starts exploring (level %llu)", h, (unsigned long long)e->b);
    else if (!strcmp(e->what, "explored"))
        snprintf(buf, len, "%s explored: %llu hosts, %llu switches", h, (unsigned long long)e->a, (unsigned long long)e->b);
    else if (!strcmp(e->what, "mapped")) snprintf(buf, len, "%s is the mapper: map epoch %llu (%llu bytes) distributed", h,
                                                 (unsigned long long)e->a, (unsigned long long)e->b);
    else if (!strcmp(e->what, "complete"))
        snprintf(buf, len, "routes from %s's map installed on all %llu hosts", h, (unsigned long long)e->a);
    else if (!strcmp(e->what, "defer")) snprintf(buf, len, "%s defers to a higher mapper %012llx", h, (unsigned long long)e->a);
    else if (!strcmp(e->what, "yield")) snprintf(buf, len, "%s stops mapping (higher: %012llx)", h, (unsigned long long)e->a);
    else if (!strcmp(e->what, "verify_fault")) snprintf(buf, len, "%s: verification found a fault (item %llu)", h, (unsigned long long)e->a);
    else if (!strcmp(e->what, "fault")) snprintf(buf, len, "%s remaps the network", h);
    else if (!strcmp(e->what, "rescout"))
        snprintf(buf, len, "%s scouts the empty ports again: another NIC was mapping at the same time", h);
    else if (!strcmp(e->what, "rescouted"))
        snprintf(buf, len, "%s scouted again: %llu hosts, %llu switches", h, (unsigned long long)e->a,
                 (unsigned long long)e->b);
    else if (!strcmp(e->what, "mapper_silent"))
        snprintf(buf, len, "%s heard no mapper for map.mapper_timeout: stands for election", h);
    else snprintf(buf, len, "%s %s %llu %llu", h, e->what, (unsigned long long)e->a, (unsigned long long)e->b);
}

void myri_sysmap_text(const myri_sysmap *m, myri_fw_inst *const *fw, uint32_t n, const myri_topo *t, FILE *o)
{
    (void)t;
    if (!m) return;
    myri_sysmap_summary s;
    myri_sysmap_get_summary(m, fw, n, &s);
    fprintf(o, "mapping  mapper %s, %u complete maps, %llu mapping packets sent; the mapper's probe batches "
               "that waited out map.probe_timeout (%.0f us, an assumption): %llu\n",
            s.mapper >= 0 ? sm__name(m, (uint32_t)s.mapper) : "(none)", s.maps_complete, (unsigned long long)s.packets,
            (double)s.probe_timeout_ps / 1e6, (unsigned long long)s.mapper_timeouts);
    char buf[160];
    for (uint32_t k = 0; k < m->nnotes; k++) {
        const sm_note *e = &m->notes[k];
        sm__say(m, e, buf, sizeof buf);
        fprintf(o, "  at %12.3f us  %s\n", (double)e->t / 1e6, buf);
    }
    if (m->notes_dropped) fprintf(o, "  (%u later events not listed)\n", m->notes_dropped);
}

void myri_sysmap_json(const myri_sysmap *m, myri_fw_inst *const *fw, uint32_t n, const myri_topo *t, myri_json *j)
{
    (void)t;
    if (!m) return;
    myri_sysmap_summary s;
    myri_sysmap_get_summary(m, fw, n, &s);
    myri_json_key(j, "mapping");
    myri_json_obj_begin(j);
    myri_json_kstr(j, "mapper", s.mapper >= 0 ? sm__name(m, (uint32_t)s.mapper) : "");
    myri_json_kuint(j, "maps_complete", s.maps_complete);
    myri_json_kuint(j, "packets", s.packets);
    myri_json_knum(j, "first_map_us", (double)s.mapped_ps / 1e6);
    myri_json_knum(j, "probe_timeout_us", (double)s.probe_timeout_ps / 1e6);
    myri_json_kuint(j, "mapper_probe_timeouts", s.mapper_timeouts);
    myri_json_key(j, "events");
    myri_json_arr_begin(j);
    char buf[160];
    for (uint32_t k = 0; k < m->nnotes; k++) {
        sm__say(m, &m->notes[k], buf, sizeof buf);
        myri_json_obj_begin(j);
        myri_json_knum(j, "at_us", (double)m->notes[k].t / 1e6);
        myri_json_kstr(j, "host", sm__name(m, m->notes[k].host));
        myri_json_kstr(j, "event", m->notes[k].what);
        myri_json_kstr(j, "text", buf);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_obj_end(j);
}
