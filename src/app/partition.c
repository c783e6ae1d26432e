/* partition.c -- the partitioner of a cut run (partition.h; docs/PARTITION.md
 * section 4 "Partitioner").  leaf: every host goes with the switch its cable
 * reaches (a host whose cable reaches no switch is a group of its own); the
 * groups, in the order of their switch (or host) in the topology, are cut
 * into n contiguous blocks of about equal host count, so that only
 * switch-switch cables are cut; the switches with no host (a fat tree's
 * upper levels) are spread so that each partition gets at most
 * ceil(bare / n) of them, each, in breadth-first order from the host groups,
 * to the partition most of its switches already placed are in
 * (part__bare; before: all in the last block, which then ran most of the
 * events: docs/RANKS.md's projection).  block: nodes by index in n blocks.
 * random:SEED: every node to a partition drawn from SEED (host cables cut
 * too; for tests). */
#include "app/partition.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "myri/rng.h"

myri_status myri_part_mode_parse(const char *s, myri_part_mode *out, myri_error *err)
{
    if (!s || !out) return MYRI_EINVAL;
    *out = (myri_part_mode){.kind = MYRI_PART_LEAF};
    if (!strcmp(s, "leaf")) return MYRI_OK;
    if (!strcmp(s, "block")) {
        out->kind = MYRI_PART_BLOCK;
        return MYRI_OK;
    }
    if (!strncmp(s, "random:", 7) && s[7] >= '0' && s[7] <= '9') {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(s + 7, &end, 10);
        if (!errno && end && !*end) {
            out->kind = MYRI_PART_RANDOM;
            out->seed = v;
            return MYRI_OK;
        }
    }
    return myri_error_key(err, "--partition",
                          "'%s' is not a partitioning: expected leaf (hosts with their leaf switch, the default), "
                          "block (nodes by index) or random:SEED (SEED a decimal number; tests only)",
                          s);
}

void myri_part_mode_name(const myri_part_mode *m, char *buf, size_t len)
{
    if (!m || !buf || !len) return;
    if (m->kind == MYRI_PART_RANDOM) snprintf(buf, len, "random:%" PRIu64, m->seed);
    else snprintf(buf, len, "%s", m->kind == MYRI_PART_BLOCK ? "block" : "leaf");
}

/* The group head of node i for leaf: itself for a switch or a host whose
 * cable reaches no switch, else the switch its cable reaches. */
static uint32_t part__head(const myri_topo *t, uint32_t i)
{
    const myri_topo_node *nd = &t->node[i];
    if (nd->kind != MYRI_TOPO_HOST || nd->nports == 0) return i;
    int32_t peer = nd->port[0].peer_node;
    if (peer < 0 || (size_t)peer >= t->nnodes || t->node[peer].kind != MYRI_TOPO_SWITCH) return i;
    return (uint32_t)peer;
}

/* Switch i (no host) to the partition, under its quota, holding most of its
 * neighbours placed so far (ties: the least loaded, then the lowest). */
static void part__place(const myri_topo *t, uint32_t n, uint32_t i, uint64_t quota, uint64_t *load,
                        const uint8_t *done, uint32_t *owner)
{
    uint64_t cnt[MYRI_PART_MAX] = {0};
    for (uint32_t p = 0; p < t->node[i].nports; p++) {
        int32_t peer = t->node[i].port[p].peer_node;
        if (peer < 0 || (size_t)peer >= t->nnodes) continue;
        uint32_t hd = part__head(t, (uint32_t)peer);
        if (done[hd]) cnt[owner[hd]]++;
    }
    uint32_t best = n;
    for (uint32_t p = 0; p < n; p++)
        if (load[p] < quota &&
            (best == n || cnt[p] > cnt[best] || (cnt[p] == cnt[best] && load[p] < load[best])))
            best = p;
    owner[i] = best < n ? best : n - 1;
    load[owner[i]]++;
}

/* The switches without hosts (w[i] == 0), breadth first from the groups
 * with hosts, placed by part__place; those no host reaches last.  Leaves
 * owner as it is when memory runs out. */
static void part__bare(const myri_topo *t, uint32_t n, const uint64_t *w, uint64_t bare, uint32_t *owner)
{
    size_t nn = t->nnodes, h = 0, tl = 0;
    uint32_t *q = malloc((nn ? nn : 1) * sizeof *q);
    uint8_t *done = calloc(nn ? nn : 1, 2); /* done[i]: placed; seen = done + nn: queued */
    uint64_t load[MYRI_PART_MAX] = {0}, quota = (bare + n - 1) / n;
    if (q && done) {
        uint8_t *seen = done + nn;
        for (uint32_t i = 0; i < nn; i++)
            if (part__head(t, i) == i && w[i]) done[i] = seen[i] = 1, q[tl++] = i;
        for (uint32_t i = 0; i <= nn; i++) {
            while (h < tl) {
                uint32_t x = q[h++];
                if (!done[x]) part__place(t, n, x, quota, load, done, owner), done[x] = 1;
                for (uint32_t p = 0; p < t->node[x].nports; p++) {
                    int32_t y = t->node[x].port[p].peer_node;
                    if (y >= 0 && (size_t)y < nn && part__head(t, (uint32_t)y) == (uint32_t)y && !seen[y])
                        seen[y] = 1, q[tl++] = (uint32_t)y;
                }
            }
            if (i < nn && part__head(t, i) == i && !seen[i]) seen[i] = 1, q[tl++] = i; /* not reached */
        }
    }
    free(q);
    free(done);
}

static void part__leaf(const myri_topo *t, uint32_t n, uint32_t *owner)
{
    size_t nn = t->nnodes;
    uint64_t *w = calloc(nn ? nn : 1, sizeof *w); /* hosts of the group headed by node i */
    if (!w) return;
    uint64_t total = 0, bare = 0, k = 0; /* bare: groups without a host */
    for (uint32_t i = 0; i < nn; i++)
        if (t->node[i].kind == MYRI_TOPO_HOST) {
            w[part__head(t, i)]++;
            total++;
        }
    for (uint32_t i = 0; i < nn; i++) bare += part__head(t, i) == i && !w[i];
    uint64_t cum = 0;
    for (uint32_t i = 0; i < nn; i++) {
        if (part__head(t, i) != i) continue;
        uint64_t p;
        if (!w[i]) /* a switch with no host: the k-th of `bare`, in n blocks */
            p = k++ * n / bare;
        else /* the block holding the middle of the group's hosts */
            p = (2 * cum + w[i]) * n / (2 * total);
        owner[i] = p < n ? (uint32_t)p : n - 1;
        cum += w[i];
    }
    if (bare) part__bare(t, n, w, bare, owner);
    for (uint32_t i = 0; i < nn; i++) owner[i] = owner[part__head(t, i)];
    free(w);
}

myri_status myri_partition_make(const myri_topo *t, uint32_t n, const myri_part_mode *m,
                                const uint64_t *link_lookahead_ps, myri_partition *out, myri_error *err)
{
    if (!t || !m || !out) return MYRI_EINVAL;
    memset(out, 0, sizeof *out);
    if (n < 1 || n > MYRI_PART_MAX)
        return myri_error_key(err, "--partitions", "%u partitions: expected 1 to %u", n, MYRI_PART_MAX);
    out->n = n;
    out->nnodes = t->nnodes;
    out->nhosts = t->nhosts;
    out->nlinks = t->nlinks;
    out->owner = calloc(t->nnodes ? t->nnodes : 1, sizeof *out->owner);
    out->host_owner = calloc(t->nhosts ? t->nhosts : 1, sizeof *out->host_owner);
    out->cut = calloc(t->nlinks ? t->nlinks : 1, sizeof *out->cut);
    out->nodes = calloc(n, sizeof *out->nodes);
    out->hosts = calloc(n, sizeof *out->hosts);
    if (!out->owner || !out->host_owner || !out->cut || !out->nodes || !out->hosts) {
        myri_partition_free(out);
        return MYRI_ENOMEM;
    }
    if (n > 1) {
        if (m->kind == MYRI_PART_LEAF) {
            part__leaf(t, n, out->owner);
        } else if (m->kind == MYRI_PART_BLOCK) {
            for (size_t i = 0; i < t->nnodes; i++) out->owner[i] = (uint32_t)((uint64_t)i * n / t->nnodes);
        } else {
            uint64_t s = m->seed;
            for (size_t i = 0; i < t->nnodes; i++) out->owner[i] = (uint32_t)(myri_splitmix64(&s) % n);
        }
    }
    for (size_t i = 0; i < t->nnodes; i++) out->nodes[out->owner[i]]++;
    for (size_t h = 0; h < t->nhosts; h++) {
        out->host_owner[h] = out->owner[t->host_node[h]];
        out->hosts[out->host_owner[h]]++;
    }
    out->lookahead_ps = UINT64_MAX;
    for (size_t l = 0; l < t->nlinks; l++) {
        if (out->owner[t->link[l].a_node] == out->owner[t->link[l].b_node]) continue;
        out->cut[out->ncut++] = (uint32_t)l;
        uint64_t la = link_lookahead_ps ? link_lookahead_ps[l] : 0;
        if (la < out->lookahead_ps) out->lookahead_ps = la;
    }
    return MYRI_OK;
}

void myri_partition_free(myri_partition *p)
{
    if (!p) return;
    free(p->owner);
    free(p->host_owner);
    free(p->cut);
    free(p->nodes);
    free(p->hosts);
    memset(p, 0, sizeof *p);
}
