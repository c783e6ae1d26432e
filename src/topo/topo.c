/* topo.c -- topology construction, validation and DOT output.
 *
 * Arrays grow by doubling; node names are copied.  Nothing here allocates per
 * query, so the fabric may keep a pointer to a topology for a whole run. */
#include "topo/topo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool myri_topo_ports_ok(uint32_t nports)
{
    return nports == 4 || nports == 8 || nports == 16 || nports == 32;
}

myri_topo *myri_topo_create(void) { return calloc(1, sizeof(myri_topo)); }

void myri_topo_destroy(myri_topo *t)
{
    if (!t) return;
    for (size_t i = 0; i < t->nnodes; i++) {
        free(t->node[i].name);
        free(t->node[i].port);
    }
    free(t->node);
    free(t->link);
    free(t->host_node);
    free(t->root);
    free(t->name_slot);
    free(t);
}

static bool topo__grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return true;
    size_t nc = *cap ? *cap * 2 : 16;
    while (nc < need) nc *= 2;
    void *p = realloc(*arr, nc * elem);
    if (!p) return false;
    *arr = p;
    *cap = nc;
    return true;
}

static uint64_t topo__name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h ^ (h >> 31);
}

/* The slot of name in the hash set: its node's, or the empty one where it
 * would go.  name_nslots is a power of two above the node count. */
static size_t topo__name_slot(const myri_topo *t, const char *name)
{
    size_t mask = t->name_nslots - 1, j = topo__name_hash(name) & mask;
    while (t->name_slot[j] && strcmp(t->node[t->name_slot[j] - 1].name, name) != 0) j = (j + 1) & mask;
    return j;
}

/* Room for one more name (load at most one half). */
static bool topo__name_grow(myri_topo *t)
{
    if (2 * (t->nnodes + 1) <= t->name_nslots) return true;
    size_t n = t->name_nslots ? 2 * t->name_nslots : 64;
    uint32_t *old = t->name_slot;
    size_t nold = t->name_nslots;
    if (!(t->name_slot = calloc(n, sizeof *t->name_slot))) {
        t->name_slot = old;
        return false;
    }
    t->name_nslots = n;
    for (size_t i = 0; i < nold; i++)
        if (old[i]) t->name_slot[topo__name_slot(t, t->node[old[i] - 1].name)] = old[i];
    free(old);
    return true;
}

int32_t myri_topo_find(const myri_topo *t, const char *name)
{
    if (!t || !name || !t->name_nslots) return -1;
    uint32_t v = t->name_slot[topo__name_slot(t, name)];
    return v ? (int32_t)(v - 1) : -1;
}

static myri_status topo__add_node(myri_topo *t, const char *name, myri_topo_kind kind,
                                  uint32_t nports, uint32_t *out_node)
{
    if (!t || !name || !*name || t->nnodes >= INT32_MAX) return MYRI_EINVAL;
    if (myri_topo_find(t, name) >= 0) return MYRI_EINVAL;
    if (!topo__grow((void **)&t->node, &t->cap_nodes, t->nnodes + 1, sizeof(myri_topo_node)))
        return MYRI_ENOMEM;
    if (kind == MYRI_TOPO_HOST && t->nhosts >= MYRI_TOPO_MAX_HOSTS) return MYRI_EINVAL;
    if (kind == MYRI_TOPO_HOST &&
        !topo__grow((void **)&t->host_node, &t->cap_hosts, t->nhosts + 1, sizeof(uint32_t)))
        return MYRI_ENOMEM;
    if (!topo__name_grow(t)) return MYRI_ENOMEM;
    myri_topo_node nd = {.kind = kind, .nports = nports, .host_index = -1};
    nd.name = malloc(strlen(name) + 1);
    nd.port = malloc(nports * sizeof(myri_topo_port));
    if (!nd.name || !nd.port) {
        free(nd.name);
        free(nd.port);
        return MYRI_ENOMEM;
    }
    strcpy(nd.name, name);
    for (uint32_t p = 0; p < nports; p++) nd.port[p] = (myri_topo_port){-1, -1, -1};
    uint32_t idx = (uint32_t)t->nnodes;
    if (kind == MYRI_TOPO_HOST) {
        nd.host_index = (int32_t)t->nhosts;
        t->host_node[t->nhosts++] = idx;
    }
    t->node[t->nnodes++] = nd;
    t->name_slot[topo__name_slot(t, name)] = idx + 1;
    t->made_by.gen = MYRI_GEN_NONE;
    if (out_node) *out_node = idx;
    return MYRI_OK;
}

myri_status myri_topo_add_host(myri_topo *t, const char *name, uint32_t *out_node)
{
    return topo__add_node(t, name, MYRI_TOPO_HOST, 1, out_node);
}

myri_status myri_topo_add_switch(myri_topo *t, const char *name, uint32_t nports,
                                 uint32_t *out_node)
{
    if (!myri_topo_ports_ok(nports)) return MYRI_EINVAL;
    return topo__add_node(t, name, MYRI_TOPO_SWITCH, nports, out_node);
}

myri_status myri_topo_connect(myri_topo *t, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb,
                              double length_m, uint32_t *out_link)
{
    if (!t || a >= t->nnodes || b >= t->nnodes || a == b) return MYRI_EINVAL;
    if (pa >= t->node[a].nports || pb >= t->node[b].nports) return MYRI_EINVAL;
    if (t->node[a].port[pa].link >= 0 || t->node[b].port[pb].link >= 0) return MYRI_EINVAL;
    if (!(length_m > 0) || !isfinite(length_m) || t->nlinks >= INT32_MAX) return MYRI_EINVAL;
    if (!topo__grow((void **)&t->link, &t->cap_links, t->nlinks + 1, sizeof(myri_topo_link)))
        return MYRI_ENOMEM;
    int32_t l = (int32_t)t->nlinks++;
    t->link[l] = (myri_topo_link){a, pa, b, pb, length_m};
    t->node[a].port[pa] = (myri_topo_port){l, (int32_t)b, (int32_t)pb};
    t->node[b].port[pb] = (myri_topo_port){l, (int32_t)a, (int32_t)pa};
    t->made_by.gen = MYRI_GEN_NONE;
    if (out_link) *out_link = (uint32_t)l;
    return MYRI_OK;
}

myri_status myri_topo_add_root(myri_topo *t, uint32_t node)
{
    if (!t || node >= t->nnodes || t->node[node].kind != MYRI_TOPO_SWITCH) return MYRI_EINVAL;
    for (size_t i = 0; i < t->nroots; i++)
        if (t->root[i] == node) return MYRI_OK;
    uint32_t *r = realloc(t->root, (t->nroots + 1) * sizeof(uint32_t));
    if (!r) return MYRI_ENOMEM;
    t->root = r;
    t->root[t->nroots++] = node;
    t->made_by.gen = MYRI_GEN_NONE;
    return MYRI_OK;
}

size_t myri_topo_nswitches(const myri_topo *t)
{
    return t ? t->nnodes - t->nhosts : 0;
}

int64_t myri_topo_out_channel(const myri_topo *t, uint32_t node, uint32_t port)
{
    if (!t || node >= t->nnodes || port >= t->node[node].nports) return -1;
    int32_t l = t->node[node].port[port].link;
    if (l < 0) return -1;
    const myri_topo_link *lk = &t->link[l];
    bool from_a = lk->a_node == node && lk->a_port == port;
    return 2 * (int64_t)l + (from_a ? 0 : 1);
}

/* Breadth-first hop distances from `src` over all nodes; hosts are not
 * crossed (a host forwards nothing).  dist[] gets -1 for unreachable nodes. */
static void topo__bfs(const myri_topo *t, uint32_t src, int32_t *dist, uint32_t *queue)
{
    for (size_t i = 0; i < t->nnodes; i++) dist[i] = -1;
    size_t head = 0, tail = 0;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        uint32_t u = queue[head++];
        if (u != src && t->node[u].kind == MYRI_TOPO_HOST) continue;
        for (uint32_t p = 0; p < t->node[u].nports; p++) {
            int32_t v = t->node[u].port[p].peer_node;
            if (v < 0 || dist[v] >= 0) continue;
            dist[v] = dist[u] + 1;
            queue[tail++] = (uint32_t)v;
        }
    }
}

myri_status myri_topo_validate(const myri_topo *t, myri_error *err)
{
    if (!t) return MYRI_EINVAL;
    if (t->nhosts == 0) {
        myri_error_at(err, NULL, "the topology has no host");
        return MYRI_EINVAL;
    }
    for (size_t h = 0; h < t->nhosts; h++) {
        const myri_topo_node *n = &t->node[t->host_node[h]];
        if (n->port[0].link < 0) {
            myri_error_at(err, NULL, "host '%s' is not connected to anything", n->name);
            myri_error_set_node(err, n->name);
            return MYRI_EINVAL;
        }
    }
    int32_t *dist = malloc(t->nnodes * sizeof(int32_t));
    uint32_t *queue = malloc(t->nnodes * sizeof(uint32_t));
    if (!dist || !queue) {
        free(dist);
        free(queue);
        return MYRI_ENOMEM;
    }
    /* Connectivity: from the first host's switch (or the host itself) every
     * node must be reachable without crossing a host. */
    uint32_t start = t->host_node[0];
    int32_t sw = t->node[start].port[0].peer_node;
    if (t->node[sw].kind == MYRI_TOPO_SWITCH) start = (uint32_t)sw;
    topo__bfs(t, start, dist, queue);
    myri_status st = MYRI_OK;
    for (size_t i = 0; i < t->nnodes && st == MYRI_OK; i++) {
        if (dist[i] < 0) {
            myri_error_at(err, NULL, "node '%s' cannot be reached from '%s': the topology must be connected",
                          t->node[i].name, t->node[start].name);
            myri_error_set_node(err, t->node[i].name);
            st = MYRI_EINVAL;
        }
    }
    free(dist);
    free(queue);
    return st;
}

int myri_topo_host_diameter(const myri_topo *t)
{
    if (!t || t->nhosts == 0) return -1;
    int32_t *dist = malloc(t->nnodes * sizeof(int32_t));
    uint32_t *queue = malloc(t->nnodes * sizeof(uint32_t));
    int diam = 0;
    if (!dist || !queue) diam = -1;
    for (size_t h = 0; h < t->nhosts && diam >= 0; h++) {
        topo__bfs(t, t->host_node[h], dist, queue);
        for (size_t g = 0; g < t->nhosts; g++) {
            int32_t d = dist[t->host_node[g]];
            if (d < 0) {
                diam = -1;
                break;
            }
            if (d > diam) diam = d;
        }
    }
    free(dist);
    free(queue);
    return diam;
}
