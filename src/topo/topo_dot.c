/* topo_dot.c -- myri_topo_write_dot: a topology as a Graphviz drawing.
 *
 * Two layouts:
 *  - a grid (`layout=neato`, every node pinned with pos="x,y!") when the
 *    switches form a 2-D mesh in the mesh generator's port convention
 *    (ports 0 = +x, 1 = -x, 2 = +y, 3 = -y between switches): switches on
 *    their grid points, their hosts just beside them;
 *  - otherwise levels (`layout=dot`): switches ranked by their hop distance
 *    from the up*-then-down* roots (the topology's roots, or the switch of
 *    least eccentricity, lowest index on ties: the rule of
 *    myri_routes_updown), one `rank=same` row per level, roots at the top,
 *    hosts in the bottom row; each edge is written from its upper end.
 * Labels the same on every edge or switch (cable length, port count) are
 * left out of them and said once in the graph's label; port numbers stay. */
#include "topo/topo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* DOT identifiers are quoted; node names are restricted by the reader but
 * quotes and backslashes are escaped anyway. */
static void dot__name(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static bool dot__is_switch(const myri_topo *t, int32_t n) { return n >= 0 && t->node[n].kind == MYRI_TOPO_SWITCH; }

/* Hop distances between switches from the sources q[0..nq-1] (d = 0 there). */
static void dot__bfs(const myri_topo *t, int32_t *d, uint32_t *q, size_t nq)
{
    for (size_t head = 0; head < nq;) {
        uint32_t u = q[head++];
        for (uint32_t p = 0; p < t->node[u].nports; p++) {
            int32_t v = t->node[u].port[p].peer_node;
            if (!dot__is_switch(t, v) || d[v] >= 0) continue;
            d[v] = d[u] + 1;
            q[nq++] = (uint32_t)v;
        }
    }
}

static void dot__from(const myri_topo *t, int32_t *d, uint32_t *q, const uint32_t *src, size_t n)
{
    for (size_t i = 0; i < t->nnodes; i++) d[i] = -1;
    for (size_t i = 0; i < n; i++) {
        d[src[i]] = 0;
        q[i] = src[i];
    }
    dot__bfs(t, d, q, n);
}

/* Levels of the switches (d[node], -1 for hosts); returns the deepest. */
static int32_t dot__levels(const myri_topo *t, int32_t *d, uint32_t *q)
{
    if (t->nroots) {
        dot__from(t, d, q, t->root, t->nroots);
    } else {
        int32_t best_ecc = INT32_MAX;
        uint32_t best = 0;
        for (uint32_t s = 0; s < t->nnodes; s++) {
            if (t->node[s].kind != MYRI_TOPO_SWITCH) continue;
            dot__from(t, d, q, &s, 1);
            int32_t ecc = 0;
            for (size_t i = 0; i < t->nnodes; i++)
                if (d[i] > ecc) ecc = d[i];
            if (ecc < best_ecc) {
                best_ecc = ecc;
                best = s;
            }
        }
        if (best_ecc == INT32_MAX) {
            for (size_t i = 0; i < t->nnodes; i++) d[i] = -1;
            return -1;
        }
        dot__from(t, d, q, &best, 1);
    }
    int32_t deepest = -1;
    for (size_t i = 0; i < t->nnodes; i++) {
        if (d[i] < 0 && t->node[i].kind == MYRI_TOPO_SWITCH) d[i] = 0; /* unreachable: top row */
        if (d[i] > deepest) deepest = d[i];
    }
    return deepest;
}

/* Grid coordinates of the switches (x[node], y[node]) when every switch link
 * joins port 0 to port 1 (x) or port 2 to port 3 (y), the switches are
 * connected and no two get the same point; false otherwise. */
static bool dot__grid(const myri_topo *t, int32_t *x, int32_t *y, uint32_t *q)
{
    static const int dx[4] = {1, -1, 0, 0}, dy[4] = {0, 0, 1, -1};
    size_t nq = 0, nsw = 0, links = 0;
    for (size_t i = 0; i < t->nnodes; i++) x[i] = INT32_MIN;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (t->node[i].kind != MYRI_TOPO_SWITCH) continue;
        if (nsw++ == 0) {
            x[i] = y[i] = 0;
            q[nq++] = i;
        }
    }
    for (size_t head = 0; head < nq;) {
        uint32_t u = q[head++];
        for (uint32_t p = 0; p < t->node[u].nports; p++) {
            const myri_topo_port *pp = &t->node[u].port[p];
            if (!dot__is_switch(t, pp->peer_node)) continue;
            if (p > 3 || (uint32_t)pp->peer_port != (p ^ 1u)) return false;
            links++;
            int32_t v = pp->peer_node, vx = x[u] + dx[p], vy = y[u] + dy[p];
            if (x[v] == INT32_MIN) {
                x[v] = vx;
                y[v] = vy;
                q[nq++] = (uint32_t)v;
            } else if (x[v] != vx || y[v] != vy) {
                return false;
            }
        }
    }
    if (nq != nsw || links == 0) return false;
    for (size_t i = 0; i < nq; i++) /* distinct points */
        for (size_t j = i + 1; j < nq; j++)
            if (x[q[i]] == x[q[j]] && y[q[i]] == y[q[j]]) return false;
    return true;
}

/* The length of every cable if they are all the same, else -1. */
static double dot__common_length(const myri_topo *t)
{
    for (size_t l = 1; l < t->nlinks; l++)
        if (t->link[l].length_m != t->link[0].length_m) return -1;
    return t->nlinks ? t->link[0].length_m : -1;
}

/* The port count of every switch if they are all the same, else 0. */
static uint32_t dot__common_ports(const myri_topo *t)
{
    uint32_t n = 0;
    for (size_t i = 0; i < t->nnodes; i++) {
        if (t->node[i].kind != MYRI_TOPO_SWITCH) continue;
        if (n && t->node[i].nports != n) return 0;
        n = t->node[i].nports;
    }
    return n;
}

static void dot__node(FILE *out, const myri_topo *t, size_t i, uint32_t ports, const char *pos)
{
    const myri_topo_node *n = &t->node[i];
    fputs("  ", out);
    dot__name(out, n->name);
    if (n->kind == MYRI_TOPO_HOST)
        fprintf(out, " [shape=box%s%s];\n", pos ? ", " : "", pos ? pos : "");
    else if (ports)
        fprintf(out, " [shape=circle%s%s];\n", pos ? ", " : "", pos ? pos : "");
    else
        fprintf(out, " [shape=circle, xlabel=\"%u ports\"%s%s];\n", n->nports, pos ? ", " : "", pos ? pos : "");
}

/* Edges, each from its upper end (level[] smaller; hosts are below all). */
static void dot__edges(FILE *out, const myri_topo *t, const int32_t *level, double len)
{
    for (size_t l = 0; l < t->nlinks; l++) {
        const myri_topo_link *lk = &t->link[l];
        bool swap = false;
        if (level) {
            int32_t la = t->node[lk->a_node].kind == MYRI_TOPO_HOST ? INT32_MAX : level[lk->a_node];
            int32_t lb = t->node[lk->b_node].kind == MYRI_TOPO_HOST ? INT32_MAX : level[lk->b_node];
            swap = lb < la;
        }
        uint32_t u = swap ? lk->b_node : lk->a_node, v = swap ? lk->a_node : lk->b_node;
        uint32_t pu = swap ? lk->b_port : lk->a_port, pv = swap ? lk->a_port : lk->b_port;
        fputs("  ", out);
        dot__name(out, t->node[u].name);
        fputs(" -- ", out);
        dot__name(out, t->node[v].name);
        fprintf(out, " [taillabel=\"%u\", headlabel=\"%u\"", pu, pv);
        if (len < 0) fprintf(out, ", label=\"%gm\"", lk->length_m);
        fputs("];\n", out);
    }
}

/* Hosts beside their switch on the grid (its x, y scaled by 3 inches). */
static void dot__write_grid(FILE *out, const myri_topo *t, const int32_t *x, const int32_t *y, uint32_t ports)
{
    char pos[64];
    uint32_t *k = calloc(t->nnodes, sizeof *k); /* hosts placed per switch */
    for (size_t i = 0; i < t->nnodes; i++) {
        const myri_topo_node *n = &t->node[i];
        int32_t s = n->kind == MYRI_TOPO_HOST ? n->port[0].peer_node : (int32_t)i;
        if (n->kind == MYRI_TOPO_HOST && !dot__is_switch(t, s)) { /* a host on a host: not pinned */
            dot__node(out, t, i, ports, NULL);
            continue;
        }
        double px = 3.0 * x[s], py = 3.0 * y[s];
        if (n->kind == MYRI_TOPO_HOST) {
            uint32_t q = k ? k[s]++ : 0;
            px += 1.1;
            py += 0.9 - 0.55 * q;
        }
        snprintf(pos, sizeof pos, "pos=\"%g,%g!\"", px, py);
        dot__node(out, t, i, ports, pos);
    }
    free(k);
}

typedef struct dot__key {
    double bary;
    uint32_t node;
} dot__key;

static int dot__key_cmp(const void *pa, const void *pb)
{
    const dot__key *x = pa, *y = pb;
    if (x->bary != y->bary) return x->bary < y->bary ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* x of the switches of level r: sorted by the mean x of their neighbours
 * below (hosts or level r + 1), then spread evenly over the width. */
static void dot__place_level(const myri_topo *t, const int32_t *level, int32_t r, double *px, dot__key *k, double width)
{
    size_t n = 0;
    for (uint32_t i = 0; i < t->nnodes; i++) {
        if (t->node[i].kind != MYRI_TOPO_SWITCH || level[i] != r) continue;
        double sum = 0;
        unsigned cnt = 0;
        for (uint32_t p = 0; p < t->node[i].nports; p++) {
            int32_t v = t->node[i].port[p].peer_node;
            if (v < 0 || (dot__is_switch(t, v) && level[v] != r + 1)) continue;
            sum += px[v];
            cnt++;
        }
        k[n++] = (dot__key){cnt ? sum / cnt : (double)i, i};
    }
    qsort(k, n, sizeof *k, dot__key_cmp);
    for (size_t j = 0; j < n; j++) px[k[j].node] = n > 1 ? width * (double)j / (double)(n - 1) : width / 2;
}

/* Levels with pinned positions: hosts in a row at the bottom in host order,
 * each level of switches in a row above the one below it. */
static void dot__write_levels(FILE *out, const myri_topo *t, const int32_t *level, int32_t deepest, uint32_t ports)
{
    double *px = calloc(t->nnodes, sizeof *px);
    dot__key *k = malloc(t->nnodes * sizeof *k);
    size_t widest = t->nhosts;
    for (int32_t r = 0; r <= deepest; r++) {
        size_t c = 0;
        for (size_t i = 0; i < t->nnodes; i++) c += t->node[i].kind == MYRI_TOPO_SWITCH && level[i] == r;
        if (c > widest) widest = c;
    }
    double width = widest > 1 ? 0.9 * (double)(widest - 1) : 1.0; /* boxes 0.75 in wide */
    for (size_t h = 0; px && h < t->nhosts; h++)
        px[t->host_node[h]] = t->nhosts > 1 ? width * (double)h / (double)(t->nhosts - 1) : width / 2;
    for (int32_t r = deepest; px && k && r >= 0; r--) dot__place_level(t, level, r, px, k, width);
    char pos[64];
    for (size_t i = 0; i < t->nnodes; i++) {
        bool host = t->node[i].kind == MYRI_TOPO_HOST;
        double y = host ? 0.0 : 1.6 * (double)(deepest - level[i] + 1);
        snprintf(pos, sizeof pos, "pos=\"%.3f,%.3f!\"", px ? px[i] : 0.0, y);
        dot__node(out, t, i, ports, px && k ? pos : NULL);
    }
    free(px);
    free(k);
}

void myri_topo_write_dot(const myri_topo *t, FILE *out)
{
    if (!t || !out) return;
    size_t n = t->nnodes ? t->nnodes : 1;
    int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    uint32_t *q = malloc(n * sizeof *q);
    double len = dot__common_length(t);
    uint32_t ports = dot__common_ports(t);
    bool grid = a && b && q && dot__grid(t, a, b, q);
    fprintf(out, "graph myrinet {\n  layout=neato; splines=false; outputorder=edgesfirst;\n");
    fprintf(out, "  labelloc=t; label=\"%zu hosts, %zu switches%s", t->nhosts, myri_topo_nswitches(t),
            grid ? " (grid: +x right, +y up)" : " (levels from the up*/down* roots, hosts at the bottom)");
    if (ports) fprintf(out, "; every switch %u ports", ports);
    if (len >= 0) fprintf(out, "; every cable %gm", len);
    fprintf(out, "\";\n  node [fontsize=10]; edge [fontsize=8, labelfontsize=8];\n");
    if (grid) {
        dot__write_grid(out, t, a, b, ports);
        dot__edges(out, t, NULL, len);
    } else if (a && q) {
        int32_t deepest = dot__levels(t, a, q);
        dot__write_levels(out, t, a, deepest, ports);
        dot__edges(out, t, a, len);
    }
    fprintf(out, "}\n");
    free(a);
    free(b);
    free(q);
}
