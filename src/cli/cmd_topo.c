/* cmd_topo.c -- `myri topo FILE [--dot] [--json]`: reads the topology section
 * of a scenario or network file, builds it and its routes, and prints a
 * summary (text or JSON) or the Graphviz DOT drawing. */
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "app/fabric_job.h"
#include "app/system_job.h"
#include "app/registry.h"
#include "topo/topo.h"
#include "myri/json.h"

typedef struct topo__stats {
    size_t pairs;
    double mean_switches;
    unsigned max_switches;
    size_t hist[34]; /* pairs by number of switches crossed */
} topo__stats;

static void topo__route_stats(const myri_topo_built *b, topo__stats *s)
{
    memset(s, 0, sizeof *s);
    double sum = 0;
    for (size_t i = 0; i < b->routes.nhosts * b->routes.nhosts; i++) {
        unsigned len = myri_routes_len(&b->routes, i / b->routes.nhosts, i % b->routes.nhosts);
        if (len == MYRI_ROUTE_NONE) continue;
        s->pairs++;
        sum += len;
        if (len > s->max_switches) s->max_switches = len;
        s->hist[len < 33 ? len : 33]++;
    }
    s->mean_switches = s->pairs ? sum / (double)s->pairs : 0;
}

static void topo__text(const char *file, const myri_topo_built *b, FILE *out)
{
    const myri_topo *t = b->topo;
    topo__stats s;
    topo__route_stats(b, &s);
    fprintf(out, "topology %s\n", file);
    fprintf(out, "  hosts            %zu\n", t->nhosts);
    fprintf(out, "  switches         %zu\n", myri_topo_nswitches(t));
    fprintf(out, "  links            %zu\n", t->nlinks);
    fprintf(out, "  diameter         %d links between hosts\n", myri_topo_host_diameter(t));
    fprintf(out, "  route encoding   %s\n",
            b->encoding == MYRI_ROUTE_RELATIVE ? "relative" : "absolute");
    if (b->routing == 1) {
        fprintf(out, "  routing          dimension order (x then y)");
    } else {
        fprintf(out, "  up/down roots   ");
        if (t->nroots == 0) fprintf(out, " (automatic: least eccentric switch)");
        for (size_t i = 0; i < t->nroots; i++) fprintf(out, " %s", t->node[t->root[i]].name);
    }
    fprintf(out, "\n  routes           %zu host pairs, %.3f switches crossed on average, at most %u\n",
            s.pairs, s.mean_switches, s.max_switches);
    for (unsigned l = 0; l < 34; l++)
        if (s.hist[l]) fprintf(out, "    %2u switch%s  %zu pairs\n", l, l == 1 ? "  " : "es", s.hist[l]);
    fprintf(out, "  deadlock-free    %s%s%s\n", b->deadlock_free ? "yes" : "NO",
            b->deadlock_free ? "" : ": ", b->deadlock_free ? "" : b->deadlock_msg);
}

static void topo__json(const char *file, const myri_topo_built *b, FILE *out)
{
    const myri_topo *t = b->topo;
    topo__stats s;
    topo__route_stats(b, &s);
    myri_json *j = myri_json_create(out, true);
    if (!j) return;
    myri_json_obj_begin(j);
    myri_json_kstr(j, "file", file);
    myri_json_kuint(j, "hosts", t->nhosts);
    myri_json_kuint(j, "switches", myri_topo_nswitches(t));
    myri_json_kuint(j, "links", t->nlinks);
    myri_json_kint(j, "diameter_links", myri_topo_host_diameter(t));
    myri_json_kstr(j, "encoding", b->encoding == MYRI_ROUTE_RELATIVE ? "relative" : "absolute");
    myri_json_kstr(j, "routing", b->routing == 1 ? "dimension-order" : "up-down");
    myri_json_key(j, "roots");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < t->nroots; i++) myri_json_str(j, t->node[t->root[i]].name);
    myri_json_arr_end(j);
    myri_json_key(j, "routes");
    myri_json_obj_begin(j);
    myri_json_kuint(j, "pairs", s.pairs);
    myri_json_knum(j, "mean_switches", s.mean_switches);
    myri_json_kuint(j, "max_switches", s.max_switches);
    myri_json_kbool(j, "deadlock_free", b->deadlock_free);
    if (!b->deadlock_free) myri_json_kstr(j, "cycle", b->deadlock_msg);
    myri_json_obj_end(j);
    myri_json_key(j, "nodes");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < t->nnodes; i++) {
        myri_json_obj_begin(j);
        myri_json_kstr(j, "name", t->node[i].name);
        myri_json_kstr(j, "kind", t->node[i].kind == MYRI_TOPO_HOST ? "host" : "switch");
        myri_json_kuint(j, "ports", t->node[i].nports);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_key(j, "link_list");
    myri_json_arr_begin(j);
    for (size_t l = 0; l < t->nlinks; l++) {
        const myri_topo_link *lk = &t->link[l];
        myri_json_obj_begin(j);
        myri_json_kstr(j, "a", t->node[lk->a_node].name);
        myri_json_kuint(j, "a_port", lk->a_port);
        myri_json_kstr(j, "b", t->node[lk->b_node].name);
        myri_json_kuint(j, "b_port", lk->b_port);
        myri_json_knum(j, "length_m", lk->length_m);
        myri_json_kuint(j, "channel_ab", 2 * l); /* channel numbers as in --pcap records */
        myri_json_kuint(j, "channel_ba", 2 * l + 1);
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
    myri_json_obj_end(j);
    myri_json_finish(j);
}

/* Finds the two hosts of "SRC:DST"; returns 0, or 2 (with a message). */
static int topo__route_ends(const myri_topo *t, const char *spec, int32_t *s, int32_t *d)
{
    char from[80];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : 0;
    *s = *d = -1;
    if (colon && n < sizeof from) {
        memcpy(from, spec, n);
        from[n] = '\0';
        *s = myri_topo_find(t, from);
        *d = myri_topo_find(t, colon + 1);
    }
    if (*s < 0 || *d < 0 || t->node[*s].kind != MYRI_TOPO_HOST || t->node[*d].kind != MYRI_TOPO_HOST || *s == *d) {
        fprintf(stderr, "myri topo: --route expects SRC:DST, two different host names (got '%s')\n", spec);
        return MYRI_EXIT_INPUT;
    }
    return MYRI_EXIT_OK;
}

/* Prints the route from host `a` to host `b` ("h0:h5"), as text or one JSON
 * object: the route bytes and every node and port on the way.  Returns 0,
 * or 2 for an unknown pair. */
static int topo__print_route(const myri_topo_built *b, const char *spec, bool json, FILE *out)
{
    const myri_topo *t = b->topo;
    int32_t s, d;
    if (topo__route_ends(t, spec, &s, &d)) return MYRI_EXIT_INPUT;
    uint32_t sh = (uint32_t)t->node[s].host_index, dh = (uint32_t)t->node[d].host_index;
    myri_route rb;
    const myri_route *r = myri_routes_get(&b->routes, sh, dh, &rb);
    uint32_t chan[40];
    size_t nc = 0;
    myri_error e;
    bool works = myri_route_walk(t, b->encoding, sh, r, chan, &nc, NULL, &e) == MYRI_OK;
    myri_json *j = json ? myri_json_create(out, true) : NULL;
    if (json && !j) return MYRI_EXIT_FAIL;
    if (j) {
        myri_json_obj_begin(j);
        myri_json_kstr(j, "from", t->node[s].name);
        myri_json_kstr(j, "to", t->node[d].name);
        myri_json_key(j, "route_bytes");
        myri_json_arr_begin(j);
        for (unsigned i = 0; i < r->len; i++) myri_json_uint(j, r->byte[i]);
        myri_json_arr_end(j);
        myri_json_kbool(j, "works", works);
        if (!works) myri_json_kstr(j, "error", e.msg);
        myri_json_key(j, "hops");
        myri_json_arr_begin(j);
    } else {
        fprintf(out, "route %s -> %s: %u route byte%s", t->node[s].name, t->node[d].name, r->len,
                r->len == 1 ? "" : "s");
        for (unsigned i = 0; i < r->len; i++) fprintf(out, " 0x%02x", r->byte[i]);
        fprintf(out, "\n");
        if (!works) fprintf(out, "  the route does not work: %s\n", e.msg);
    }
    for (size_t i = 0; works && i < nc; i++) {
        const myri_topo_link *lk = &t->link[chan[i] / 2];
        bool ab = chan[i] % 2 == 0;
        const char *fn = t->node[ab ? lk->a_node : lk->b_node].name, *tn = t->node[ab ? lk->b_node : lk->a_node].name;
        unsigned fp = ab ? lk->a_port : lk->b_port, tp = ab ? lk->b_port : lk->a_port;
        if (!j) {
            fprintf(out, "  %s port %u -> %s port %u  (channel %u, %gm)\n", fn, fp, tn, tp, chan[i], lk->length_m);
            continue;
        }
        myri_json_obj_begin(j);
        myri_json_kstr(j, "from", fn);
        myri_json_kuint(j, "from_port", fp);
        myri_json_kstr(j, "to", tn);
        myri_json_kuint(j, "to_port", tp);
        myri_json_kuint(j, "channel", chan[i]);
        myri_json_knum(j, "length_m", lk->length_m);
        myri_json_obj_end(j);
    }
    if (j) {
        myri_json_arr_end(j);
        myri_json_obj_end(j);
        myri_json_finish(j);
    }
    return MYRI_EXIT_OK;
}

/* A fabric scenario must have a topology: section, and every key of it
 * known, exactly as `myri run` checks it (no silent default network); a
 * system scenario is checked and built as its run builds it. */
static myri_status topo__check(const myri_node *root, myri_error *err)
{
    const myri_node *jn = myri_node_get(root, "job");
    const char *job = jn && jn->kind == MYRI_NODE_SCALAR ? jn->scalar : myri_job_default();
    if (strcmp(job, "fabric") != 0)
        return myri_error_at(err, jn ? jn : root, "job '%s' has no network; expected a fabric or system scenario "
                                                  "(job: fabric or system, or no job: key)", job);
    if (myri_fabric_check_doc(root, err)) return MYRI_EINPUT;
    if (!myri_node_get(root, "topology"))
        return myri_error_at(err, root, "no topology: section; expected one (for example 'topology:' "
                                        "then '  generator: fat-tree'), or --set topology.generator=...");
    return MYRI_OK;
}

int myri_cmd_topo(int argc, char **argv)
{
    myri_cmd_topo_args a;
    int rc = myri_cmd_topo_parse(argc, argv, &a);
    if (rc) return rc;
    if (a.cli.help) {
        printf("usage: myri topo FILE [--dot | --json | --route SRC:DST [--json]] [--set key=value]...\n\n"
               "Reads the topology: section of a scenario or network file (generators, explicit\n"
               "hosts/switches/links, roots, explicit routes; see docs/TOPOLOGY.md), builds it and its\n"
               "up/down routes, and prints a summary: nodes, links, diameter, route lengths, and\n"
               "whether the route set is deadlock-free (acyclic channel dependency graph).\n"
               "  --dot   write the topology as Graphviz DOT instead (hosts as boxes, switches as\n"
               "          circles, edges labelled with their port numbers and cable length)\n"
               "  --json  the summary as one JSON object, with every node and link (and its channel\n"
               "          numbers, as used in --pcap records)\n"
               "  --route SRC:DST  the route between two hosts: its bytes, and each link it crosses\n"
               "          (as one JSON object with --json)\n"
               "The file is checked as `myri run` checks it: unknown keys are errors, and it must\n"
               "have a topology: section (or --set topology....).  --dot takes neither --json nor\n"
               "--route.\n");
        return MYRI_EXIT_OK;
    }
    const char *file = a.file;
    myri_error err = {.msg = ""};
    myri_node *root = NULL;
    if (myri_doc_load(file, &root, &err)) return myri_cli_input_error(&err);
    myri_topo_built b;
    const myri_node *jn = myri_node_get(root, "job");
    bool sys = jn && jn->kind == MYRI_NODE_SCALAR && !strcmp(jn->scalar, "system");
    if (myri_cli_apply_sets(&a.cli, root) ||
        (sys ? myri_system_build_topo(root, &b, &err) != MYRI_OK
             : (topo__check(root, &err) || myri_topo_load_doc(root, &b, &err)))) {
        myri_node_free(root);
        return err.msg[0] ? myri_cli_input_error(&err) : MYRI_EXIT_INPUT;
    }
    if (a.route)
        rc = topo__print_route(&b, a.route, a.cli.json, stdout);
    else if (a.dot)
        myri_topo_write_dot(b.topo, stdout);
    else if (a.cli.json)
        topo__json(file, &b, stdout);
    else
        topo__text(file, &b, stdout);
    myri_topo_built_free(&b);
    myri_node_free(root);
    return rc;
}
