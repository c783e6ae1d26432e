/* cmd_map.c -- `myri map FILE [--dot | --json]`: the network of a scenario
 * (its topology: section, links and switches) as a system whose NICs run
 * seed 001's MCP with mapping (docs/MAPPING.md), run until the first map is
 * installed on every host of it; prints the map, its check against the true
 * topology minus what cannot be mapped, the mapper, its routes, the mapping
 * packets sent and the simulated time. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app/system_int.h"
#include "cli/args.h"
#include "firmware/mcp_map.h"
#include "map/map.h"
#include "myri/json.h"

/* Keys of the document the mapping run keeps (the others belong to other
 * jobs: traffic, programs, faults ...). */
static bool map__keep(const char *k)
{
    static const char *const keep[] = {"job", "seed", "duration", "link", "switch", "packet", "topology", "preset",
                                       "nic", "bus", "host", "firmware", "mcp", "mapping", "map", "model"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        if (!strcmp(k, keep[i])) return true;
    return false;
}

/* Moves the kept keys first and returns how many; the others stay behind
 * (n is restored before the tree is freed). */
static size_t map__filter(myri_node *root)
{
    size_t k = 0;
    for (size_t i = 0; i < root->n; i++) {
        if (!map__keep(root->key[i])) continue;
        char *kk = root->key[k];
        myri_node *it = root->item[k], *kn = root->keynode ? root->keynode[k] : NULL;
        root->key[k] = root->key[i], root->item[k] = root->item[i];
        root->key[i] = kk, root->item[i] = it;
        if (root->keynode) root->keynode[k] = root->keynode[i], root->keynode[i] = kn;
        k++;
    }
    return k;
}

static int64_t map__host_of_id(void *ctx, uint64_t id)
{
    const myri_topo *t = ctx;
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (myri_sysmap_id(h) == id) return h;
    return -1;
}

static const char *map__host_name(const myri_topo *t, uint64_t id)
{
    int64_t h = map__host_of_id((void *)t, id);
    return h >= 0 ? t->node[t->host_node[h]].name : "?";
}

static void map__route_text(const uint8_t *b, int len, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = 0;
    for (int i = 0; i < len && o + 8 < n; i++) o += (size_t)snprintf(buf + o, n - o, "%s%+d", i ? " " : "", myri_mapw_off(b[i]));
    if (len == 0) snprintf(buf, n, "(none: back to back)");
}

typedef struct map__out {
    const myri_sys_run *r;
    const myri_map *m;
    const myri_map_check *ck;
    myri_sysmap_summary s;
} map__out;

/* The Mainwaring size this map has (index), or -1. */
static int map__paper_size(const myri_map *m)
{
    for (int i = 0; i < 2; i++) {
        const myri_sysmap_paper *p = &myri_sysmap_mainwaring[i];
        if (m->nhosts == p->hosts && m->nswitches == p->switches && m->nlinks == p->links) return i;
    }
    return -1;
}

/* The time the mapper's batches spent waiting out the probe time-out. */
static double map__timeout_ms(const map__out *o)
{
    return (double)o->s.mapper_timeouts * (double)o->s.probe_timeout_ps / 1e9;
}

/* Mapping time beside Mainwaring's measured times, with what it rests on. */
static void map__paper_text(const map__out *o, FILE *f)
{
    const myri_sysmap_paper *p = myri_sysmap_mainwaring;
    fprintf(f, "         %" PRIu64 " probe batches of the mapper waited out map.probe_timeout (%.0f us): %.3f ms "
               "of it\n", o->s.mapper_timeouts, (double)o->s.probe_timeout_ps / 1e6, map__timeout_ms(o));
    fprintf(f, "paper    Mainwaring et al. 1997: %.0f ms (%u hosts, %u switches, %u links), %.0f ms "
               "(%u, %u, %u)\n", p[0].ms, p[0].hosts, p[0].switches, p[0].links, p[1].ms, p[1].hosts, p[1].switches,
            p[1].links);
    int k = map__paper_size(o->m);
    if (k >= 0)
        fprintf(f, "         this network has their size: %.3f ms here against their %.0f ms\n",
                (double)o->s.map_time_ps / 1e9, p[k].ms);
    else
        fprintf(f, "         this network (%u, %u, %u) is of neither size: %.3f ms here\n", o->m->nhosts,
                o->m->nswitches, o->m->nlinks, (double)o->s.map_time_ps / 1e9);
    fprintf(f, "caveat   map.probe_timeout is an assumption (no source gives the mapper's time-out) and their\n"
               "         mapper ran on the hosts over 1997 Myrinet: compare orders, not values (docs/MAPPING.md)\n");
}

/* Whether host h of the topology is in the map. */
static bool map__has_host(const myri_map *m, uint32_t h)
{
    for (uint32_t i = 0; i < m->nhosts; i++)
        if (m->id[i] == myri_sysmap_id(h)) return true;
    return false;
}

/* The hosts that explored as mappers (each built a map), by name after `lead`; their number. */
static uint32_t map__mappers(const map__out *o, FILE *f, const char *lead)
{
    const myri_topo *t = o->r->b.topo;
    uint32_t n = 0;
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (myri_sysmap_map_of(o->r->map, h)) {
            if (f) fprintf(f, "%s%s", n ? " " : lead, t->node[t->host_node[h]].name);
            n++;
        }
    return n;
}

/* The mapper line: the mapper whose map is shown, and the others when several explored. */
static void map__mapper_text(const map__out *o, FILE *f)
{
    const myri_topo *t = o->r->b.topo;
    const myri_map *m = o->m;
    fprintf(f, "map      %u hosts, %u switches, %u links; mapper %s", m->nhosts, m->nswitches, m->nlinks,
            t->node[t->host_node[o->s.mapper]].name);
    uint32_t n = map__mappers(o, NULL, "");
    if (n > 1) {
        fprintf(f, " (the map shown is its; %u hosts explored as mappers:", n);
        map__mappers(o, f, " ");
        fprintf(f, ")");
    }
    fprintf(f, "\n");
}

/* Whether host h could be mapped but is not in the map. */
static bool map__missing(const map__out *o, uint32_t h)
{
    const myri_topo *t = o->r->b.topo;
    for (uint32_t i = 0; i < o->ck->unmappable_n; i++)
        if (o->ck->unmappable[i] == t->host_node[h]) return false;
    return !map__has_host(o->m, h);
}

/* The mappable hosts the map lacks (a map that is not the whole mappable network). */
static void map__missing_text(const map__out *o, FILE *f)
{
    const myri_topo *t = o->r->b.topo;
    uint32_t miss = 0;
    for (uint32_t h = 0; h < t->nhosts; h++) miss += map__missing(o, h);
    if (!miss) return;
    fprintf(f, "missing  %u of %zu hosts could be mapped but are not in the map:", miss, t->nhosts);
    for (uint32_t h = 0, k = 0; h < t->nhosts; h++)
        if (map__missing(o, h) && k++ < 16) fprintf(f, " %s", t->node[t->host_node[h]].name);
    fprintf(f, "%s\n", miss > 16 ? " ..." : "");
}

static void map__text(const map__out *o, FILE *f)
{
    const myri_topo *t = o->r->b.topo;
    const myri_map *m = o->m;
    map__mapper_text(o, f);
    for (uint32_t i = 0; i < m->nhosts; i++)
        fprintf(f, "  host   %012" PRIx64 " = %s, level %u\n", m->id[i], map__host_name(t, m->id[i]), m->level[i]);
    for (uint32_t j = 0; j < m->nswitches; j++)
        fprintf(f, "  switch m%u = %s, %u ports\n", j, o->ck->sw_true[j] != UINT32_MAX ? t->node[o->ck->sw_true[j]].name : "?",
                m->sw_ports[j]);
    myri_map_write_text(m, f);
    fprintf(f, "check    %s the true topology minus what cannot be mapped (%u hosts, %u switches, %u links)%s%s\n",
            o->ck->isomorphic ? "isomorphic to" : "NOT isomorphic to", o->ck->true_hosts, o->ck->true_switches,
            o->ck->true_links, o->ck->isomorphic ? "" : ": ", o->ck->isomorphic ? "" : o->ck->why);
    map__missing_text(o, f);
    fprintf(f, "unmappable");
    if (!o->ck->unmappable_n)
        fprintf(f, " none (every switch within %u hops of the mapper's)%s", MYRI_MAP_REACH,
                o->ck->isomorphic ? "" : ": what is missing could have been mapped");
    for (uint32_t i = 0; i < o->ck->unmappable_n; i++) fprintf(f, " %s", t->node[o->ck->unmappable[i]].name);
    fprintf(f, "\n         Mainwaring's F (switches beyond a switch-bridge reaching no host): %u, mapped here by "
               "reflection\n", o->ck->mainwaring_n);
    fprintf(f, "routes   from the mapper %s (relative offsets, up*/down* on the map):\n",
            t->node[t->host_node[o->s.mapper]].name);
    for (uint32_t h = 0; h < t->nhosts; h++) {
        uint8_t b[MYRI_MAPW_ROUTE_MAX];
        char txt[200];
        if ((int32_t)h == o->s.mapper) continue;
        int len = myri_mcp_map_route(o->r->nic[o->s.mapper].fw, myri_sysmap_id(h), b);
        if (len < 0) snprintf(txt, sizeof txt, map__has_host(m, h) ? "(no route)" : "(no route: not in the map)");
        else map__route_text(b, len, txt, sizeof txt);
        fprintf(f, "  to %-8s %s\n", t->node[t->host_node[h]].name, txt);
    }
    fprintf(f, "packets  %" PRIu64 " mapping packets sent (probes, replies, maps)\n", o->s.packets);
    char on[64];
    if (m->nhosts == t->nhosts) snprintf(on, sizeof on, "every host");
    else snprintf(on, sizeof on, "the map's %u hosts (of %zu)", m->nhosts, t->nhosts);
    fprintf(f, "time     %.3f ms from the mapper's start of exploration to routes on %s; %.3f ms from boot "
               "(election included)\n", (double)o->s.map_time_ps / 1e9, on, (double)o->s.mapped_ps / 1e9);
    map__paper_text(o, f);
}

static void map__json(const map__out *o, FILE *f)
{
    const myri_topo *t = o->r->b.topo;
    const myri_map *m = o->m;
    myri_json *j = myri_json_create(f, false);
    myri_json_obj_begin(j);
    myri_json_kstr(j, "mapper", t->node[t->host_node[o->s.mapper]].name);
    myri_json_key(j, "mappers"); /* every host that explored as a mapper */
    myri_json_arr_begin(j);
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (myri_sysmap_map_of(o->r->map, h)) myri_json_str(j, t->node[t->host_node[h]].name);
    myri_json_arr_end(j);
    myri_json_key(j, "missing_hosts"); /* mappable hosts of the topology not in the map */
    myri_json_arr_begin(j);
    for (uint32_t h = 0; h < t->nhosts; h++)
        if (map__missing(o, h)) myri_json_str(j, t->node[t->host_node[h]].name);
    myri_json_arr_end(j);
    myri_json_key(j, "hosts");
    myri_json_arr_begin(j);
    char id[24];
    for (uint32_t i = 0; i < m->nhosts; i++) {
        myri_json_obj_begin(j);
        snprintf(id, sizeof id, "%012" PRIx64, m->id[i]);
        myri_json_kstr(j, "id", id);
        myri_json_kstr(j, "host", map__host_name(t, m->id[i]));
        myri_json_kuint(j, "level", m->level[i]);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "switches");
    myri_json_arr_begin(j);
    for (uint32_t s = 0; s < m->nswitches; s++) {
        myri_json_obj_begin(j);
        snprintf(id, sizeof id, "m%u", s);
        myri_json_kstr(j, "name", id);
        myri_json_kstr(j, "true", o->ck->sw_true[s] != UINT32_MAX ? t->node[o->ck->sw_true[s]].name : "");
        myri_json_kuint(j, "ports", m->sw_ports[s]);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "links");
    myri_json_arr_begin(j);
    for (uint32_t k = 0; k < m->nlinks; k++) {
        myri_json_obj_begin(j);
        myri_json_kuint(j, "a", m->link[k].a);
        myri_json_kuint(j, "a_port", m->link[k].pa);
        myri_json_kuint(j, "b", m->link[k].b);
        myri_json_kuint(j, "b_port", m->link[k].pb);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_kbool(j, "isomorphic", o->ck->isomorphic);
    if (!o->ck->isomorphic) myri_json_kstr(j, "why", o->ck->why);
    myri_json_key(j, "unmappable");
    myri_json_arr_begin(j);
    for (uint32_t i = 0; i < o->ck->unmappable_n; i++) myri_json_str(j, t->node[o->ck->unmappable[i]].name);
    myri_json_arr_end(j);
    myri_json_kuint(j, "mainwaring_f", o->ck->mainwaring_n);
    myri_json_knum(j, "simulated_ms", (double)o->s.map_time_ps / 1e9);
    myri_json_knum(j, "simulated_from_boot_ms", (double)o->s.mapped_ps / 1e9);
    myri_json_kuint(j, "packets", o->s.packets);
    myri_json_knum(j, "probe_timeout_us", (double)o->s.probe_timeout_ps / 1e6);
    myri_json_kstr(j, "probe_timeout_source", "assumption: no source gives the mapper's time-out (docs/MAPPING.md)");
    myri_json_kuint(j, "probe_timeouts", o->s.mapper_timeouts);
    myri_json_knum(j, "probe_timeout_wait_ms", map__timeout_ms(o));
    myri_json_key(j, "mainwaring");
    myri_json_arr_begin(j);
    for (int i = 0; i < 2; i++) {
        const myri_sysmap_paper *p = &myri_sysmap_mainwaring[i];
        myri_json_obj_begin(j);
        myri_json_kuint(j, "hosts", p->hosts);
        myri_json_kuint(j, "switches", p->switches);
        myri_json_kuint(j, "links", p->links);
        myri_json_knum(j, "measured_ms", p->ms);
        myri_json_kbool(j, "same_size", map__paper_size(o->m) == i);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_knum(j, "wall_s", o->r->wall_s);
    myri_json_obj_end(j);
    (void)myri_json_finish(j);
}

static int map__usage(void)
{
    printf("usage: myri map FILE [--dot | --json] [--set key=value]...\n\n"
           "Runs mapping (docs/MAPPING.md) on the network of FILE's topology: section: every host's NIC runs\n"
           "seed 001's MCP with mapping, a mapper is elected (map.level, map.levels, map.mapper), explores\n"
           "the network with scouts and loop probes, and distributes the map; the run stops when the\n"
           "first map is installed on all its hosts.  Prints the map, whether it is isomorphic to the true\n"
           "topology minus what cannot be mapped (named), the mapper's routes, the mapping packets sent\n"
           "and the simulated time.  Keys of other jobs (traffic, programs, faults ...) are ignored;\n"
           "switch.addressing is set to relative when FILE does not say (the method needs it), and\n"
           "packet.type_bytes to 2 (seed 001's frame).\n"
           "  --dot   the discovered map as Graphviz DOT\n"
           "  --json  keys hosts, switches, links, isomorphic, unmappable, simulated_ms, packets, mapper,\n"
           "          probe_timeout_us, probe_timeouts, probe_timeout_wait_ms, mainwaring\n"
           "The time is printed beside Mainwaring et al.'s measured 248 ms and 981 ms, with its caveat:\n"
           "map.probe_timeout (50 us) is an assumption, and most probe batches wait it out.\n");
    return MYRI_EXIT_OK;
}

/* The keys a mapping run needs. */
static int map__sets(myri_node *root)
{
    myri_error err = {.msg = ""};
    static const char *const sets[] = {"job=system", "mapping=on", "duration=10s"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        if (myri_node_set(root, sets[i], &err)) return myri_cli_input_error(&err);
    if (!myri_node_path(root, "switch.addressing") && myri_node_set(root, "switch.addressing=relative", &err))
        return myri_cli_input_error(&err);
    if (!myri_node_path(root, "packet.type_bytes") && myri_node_set(root, "packet.type_bytes=2", &err))
        return myri_cli_input_error(&err);
    return MYRI_EXIT_OK;
}

static int map__run(const myri_cmd_map_args *a, myri_node *root)
{
    myri_error err = {.msg = ""};
    myri_sys_cfg c;
    myri_status st = myri_sys_cfg_load(&c, root, &err);
    if (st) {
        myri_sys_cfg_free(&c);
        return myri_cli_exit(st, &err);
    }
    c.map_stop = true;
    myri_sys_run r;
    myri_run_opts opts = {0};
    st = myri_sys_run_cfg(&r, &c, root, &opts, false, &err);
    int rc = MYRI_EXIT_OK;
    map__out o = {.r = &r};
    if (!st) {
        myri_fw_inst **fws = malloc((r.nnic ? r.nnic : 1) * sizeof *fws);
        for (uint32_t i = 0; fws && i < r.nnic; i++) fws[i] = r.nic[i].fw;
        myri_sysmap_get_summary(r.map, fws, r.nnic, &o.s);
        free(fws);
        o.m = myri_sysmap_map(r.map);
    }
    if (st) {
        rc = myri_cli_exit(st, &err);
    } else if (!o.m || o.s.mapper < 0) {
        fprintf(stderr, "myri map: no map was installed on every host within 10 s of simulated time\n");
        rc = MYRI_EXIT_FAIL;
    } else {
        myri_map_check ck;
        myri_map_check_topo(o.m, r.b.topo, (uint32_t)o.s.mapper, MYRI_MAP_REACH, map__host_of_id, r.b.topo, &ck);
        o.ck = &ck;
        if (a->dot) myri_map_write_dot(o.m, stdout);
        else if (a->cli.json) map__json(&o, stdout);
        else map__text(&o, stdout);
        if (!ck.isomorphic) rc = MYRI_EXIT_FAIL;
        myri_map_check_free(&ck);
    }
    myri_sys_run_free(&r);
    myri_sys_cfg_free(&c);
    return rc;
}

int myri_cmd_map(int argc, char **argv)
{
    myri_cmd_map_args a;
    int rc = myri_cmd_map_parse(argc, argv, &a);
    if (rc) return rc;
    if (a.cli.help) return map__usage();
    myri_error err = {.msg = ""};
    myri_node *root = NULL;
    if (myri_doc_load(a.file, &root, &err)) return myri_cli_input_error(&err);
    if (myri_cli_apply_sets(&a.cli, root)) {
        myri_node_free(root);
        return MYRI_EXIT_INPUT;
    }
    if (!myri_node_get(root, "topology")) {
        myri_node_free(root);
        fprintf(stderr, "%s: no topology: section; expected a scenario with a topology\n", a.file);
        return MYRI_EXIT_INPUT;
    }
    rc = map__sets(root);
    if (rc) {
        myri_node_free(root);
        return rc;
    }
    size_t n = root->n;
    root->n = map__filter(root);
    rc = map__run(&a, root);
    root->n = n;
    myri_node_free(root);
    return rc;
}
