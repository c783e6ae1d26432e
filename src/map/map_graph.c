/* map_graph.c -- a discovered map: wire form, as a topology, output, and
 * the check against the true network (map.h, docs/MAPPING.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/hcb.h"
#include "map/map.h"

void myri_map_init(myri_map *m) { memset(m, 0, sizeof *m); }

void myri_map_free(myri_map *m)
{
    if (!m) return;
    free(m->id);
    free(m->level);
    free(m->sw_ports);
    free(m->link);
    memset(m, 0, sizeof *m);
}

static myri_status map__alloc(myri_map *m, uint32_t h, uint32_t s, uint32_t l)
{
    m->id = calloc(h ? h : 1, sizeof *m->id);
    m->level = calloc(h ? h : 1, 1);
    m->sw_ports = calloc(s ? s : 1, sizeof *m->sw_ports);
    m->link = calloc(l ? l : 1, sizeof *m->link);
    if (!m->id || !m->level || !m->sw_ports || !m->link) return MYRI_ENOMEM;
    m->cap_hosts = h;
    m->cap_switches = s;
    m->cap_links = l;
    return MYRI_OK;
}

myri_status myri_map_copy(myri_map *dst, const myri_map *src)
{
    myri_map_init(dst);
    if (map__alloc(dst, src->nhosts, src->nswitches, src->nlinks) != MYRI_OK) {
        myri_map_free(dst);
        return MYRI_ENOMEM;
    }
    dst->nhosts = src->nhosts;
    dst->nswitches = src->nswitches;
    dst->nlinks = src->nlinks;
    memcpy(dst->id, src->id, src->nhosts * sizeof *dst->id);
    memcpy(dst->level, src->level, src->nhosts);
    memcpy(dst->sw_ports, src->sw_ports, src->nswitches * sizeof *dst->sw_ports);
    memcpy(dst->link, src->link, src->nlinks * sizeof *dst->link);
    return MYRI_OK;
}

uint32_t myri_map_encode(const myri_map *m, uint8_t *buf, uint32_t max)
{
    uint64_t n = MYRI_MAPW_MAP_HDR_BYTES + (uint64_t)m->nhosts * MYRI_MAPW_HOST_BYTES +
                 (uint64_t)m->nlinks * MYRI_MAPW_LINK_BYTES;
    if (n > max || m->nhosts > 0xffff || m->nswitches > 0xffff || m->nlinks > 0xffff) return 0;
    memset(buf, 0, (size_t)n);
    myri_mapw_put16(buf, m->nhosts);
    myri_mapw_put16(buf + 2, m->nswitches);
    myri_mapw_put16(buf + 4, m->nlinks);
    uint8_t *p = buf + MYRI_MAPW_MAP_HDR_BYTES;
    for (uint32_t i = 0; i < m->nhosts; i++, p += MYRI_MAPW_HOST_BYTES) {
        myri_mapw_put48(p, m->id[i]);
        p[6] = m->level[i];
    }
    for (uint32_t k = 0; k < m->nlinks; k++, p += MYRI_MAPW_LINK_BYTES) {
        myri_mapw_put16(p, m->link[k].a);
        p[2] = (uint8_t)m->link[k].pa;
        myri_mapw_put16(p + 3, m->link[k].b);
        p[5] = (uint8_t)m->link[k].pb;
    }
    return (uint32_t)n;
}

myri_status myri_map_decode(myri_map *m, const uint8_t *buf, uint32_t n)
{
    myri_map_init(m);
    if (!buf || n < MYRI_MAPW_MAP_HDR_BYTES) return MYRI_EINVAL;
    uint32_t h = myri_mapw_get16(buf), s = myri_mapw_get16(buf + 2), l = myri_mapw_get16(buf + 4);
    if (h == 0 || MYRI_MAPW_MAP_HDR_BYTES + (uint64_t)h * MYRI_MAPW_HOST_BYTES + (uint64_t)l * MYRI_MAPW_LINK_BYTES > n)
        return MYRI_EINVAL;
    if (map__alloc(m, h, s, l) != MYRI_OK) {
        myri_map_free(m);
        return MYRI_ENOMEM;
    }
    const uint8_t *p = buf + MYRI_MAPW_MAP_HDR_BYTES;
    for (uint32_t i = 0; i < h; i++, p += MYRI_MAPW_HOST_BYTES) {
        m->id[i] = myri_mapw_get48(p);
        m->level[i] = p[6];
    }
    uint32_t *maxp = calloc(s ? s : 1, sizeof *maxp);
    if (!maxp) {
        myri_map_free(m);
        return MYRI_ENOMEM;
    }
    for (uint32_t k = 0; k < l; k++, p += MYRI_MAPW_LINK_BYTES) {
        myri_map_link *o = &m->link[k];
        *o = (myri_map_link){myri_mapw_get16(p), myri_mapw_get16(p + 3), p[2], p[5]};
        bool bad = o->a >= h + s || o->b >= h + s || (o->a < h && o->pa) || (o->b < h && o->pb) || o->pa > 31 ||
                   o->pb > 31;
        if (bad) {
            free(maxp);
            myri_map_free(m);
            return MYRI_EINVAL;
        }
        if (o->a >= h && o->pa + 1 > maxp[o->a - h]) maxp[o->a - h] = o->pa + 1;
        if (o->b >= h && o->pb + 1 > maxp[o->b - h]) maxp[o->b - h] = o->pb + 1;
    }
    for (uint32_t j = 0; j < s; j++) {
        uint32_t p2 = 4;
        while (p2 < maxp[j] && p2 < 32) p2 *= 2;
        m->sw_ports[j] = p2;
    }
    free(maxp);
    m->nhosts = h;
    m->nswitches = s;
    m->nlinks = l;
    return MYRI_OK;
}

myri_status myri_map_to_topo(const myri_map *m, myri_topo **out, myri_error *err)
{
    *out = NULL;
    myri_topo *t = myri_topo_create();
    if (!t) return MYRI_ENOMEM;
    myri_status st = MYRI_OK;
    char name[32];
    for (uint32_t i = 0; i < m->nhosts && !st; i++) {
        snprintf(name, sizeof name, "id%012" PRIx64, m->id[i]);
        st = myri_topo_add_host(t, name, NULL);
    }
    for (uint32_t j = 0; j < m->nswitches && !st; j++) {
        snprintf(name, sizeof name, "m%u", j);
        st = myri_topo_add_switch(t, name, m->sw_ports[j], NULL);
    }
    for (uint32_t k = 0; k < m->nlinks && !st; k++)
        st = myri_topo_connect(t, m->link[k].a, m->link[k].pa, m->link[k].b, m->link[k].pb, 1.0, NULL);
    if (!st) st = myri_topo_validate(t, err);
    if (st) {
        myri_topo_destroy(t);
        return st;
    }
    *out = t;
    return MYRI_OK;
}

/* ---- output -------------------------------------------------------------------------------- */

static void map__node(const myri_map *m, uint32_t n, char *buf, size_t len)
{
    if (n < m->nhosts) snprintf(buf, len, "host %012" PRIx64, m->id[n]);
    else snprintf(buf, len, "switch m%u", n - m->nhosts);
}

void myri_map_write_text(const myri_map *m, FILE *out)
{
    for (uint32_t i = 0; i < m->nhosts; i++)
        fprintf(out, "  host %012" PRIx64 "  level %u%s\n", m->id[i], m->level[i], i == 0 ? "  (mapper)" : "");
    for (uint32_t j = 0; j < m->nswitches; j++) fprintf(out, "  switch m%u  %u ports\n", j, m->sw_ports[j]);
    for (uint32_t k = 0; k < m->nlinks; k++) {
        char a[48], b[48];
        map__node(m, m->link[k].a, a, sizeof a);
        map__node(m, m->link[k].b, b, sizeof b);
        fprintf(out, "  link %s port %u -- %s port %u\n", a, m->link[k].pa, b, m->link[k].pb);
    }
}

void myri_map_write_dot(const myri_map *m, FILE *out)
{
    fprintf(out, "graph map {\n  label=\"discovered map: %u hosts, %u switches, %u links\";\n", m->nhosts,
            m->nswitches, m->nlinks);
    for (uint32_t i = 0; i < m->nhosts; i++)
        fprintf(out, "  n%u [shape=box,label=\"%012" PRIx64 "\"];\n", i, m->id[i]);
    for (uint32_t j = 0; j < m->nswitches; j++) fprintf(out, "  n%u [shape=circle,label=\"m%u\"];\n", m->nhosts + j, j);
    for (uint32_t k = 0; k < m->nlinks; k++)
        fprintf(out, "  n%u -- n%u [taillabel=\"%u\",headlabel=\"%u\"];\n", m->link[k].a, m->link[k].b, m->link[k].pa,
                m->link[k].pb);
    fprintf(out, "}\n");
}
