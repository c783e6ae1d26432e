/* topo_gen.c -- topology generators.
 *
 * Every generator adds the hosts first (nodes 0..H-1, named h0..), then the
 * switches (named s0..), then the links, so node indices, names and port
 * numbers are a fixed function of the parameters.  Port layouts are given
 * with each generator and in docs/TOPOLOGY.md. */
#include "topo/topo.h"

#include <stdlib.h>

const char *myri_topo_generator_name(myri_topo_generator g)
{
    switch (g) {
    case MYRI_GEN_NONE: return "none";
    case MYRI_GEN_BACK_TO_BACK: return "back-to-back";
    case MYRI_GEN_STAR: return "star";
    case MYRI_GEN_MESH: return "mesh";
    case MYRI_GEN_FAT_TREE: return "fat-tree";
    case MYRI_GEN_CLOS: return "clos";
    case MYRI_GEN_RING: return "ring";
    }
    return "?";
}

/* Picks the port count: the given one if it is a legal count >= need, or the
 * smallest legal count >= need when nports is 0.  0 if impossible. */
static uint32_t gen__ports(uint32_t nports, uint64_t need, myri_error *err)
{
    if (nports) {
        if (!myri_topo_ports_ok(nports)) {
            myri_error_at(err, NULL, "switch port count %u is not 4, 8, 16 or 32", nports);
            return 0;
        }
        if (need > nports) {
            myri_error_at(err, NULL, "the generator needs %llu ports per switch but switches have %u",
                          (unsigned long long)need, nports);
            return 0;
        }
        return nports;
    }
    for (uint32_t p = 4; p <= MYRI_TOPO_MAX_PORTS; p *= 2)
        if (p >= need) return p;
    myri_error_at(err, NULL, "the generator needs %llu ports per switch; the largest switch has %u",
                  (unsigned long long)need, MYRI_TOPO_MAX_PORTS);
    return 0;
}

/* Adds `nh` hosts and `ns` switches of `ports` ports.  Limits the size of a
 * generated network to 65536 nodes. */
static myri_status gen__nodes(myri_topo *t, uint64_t nh, uint64_t ns, uint32_t ports, myri_error *err)
{
    if (nh > MYRI_TOPO_MAX_HOSTS) {
        myri_error_at(err, NULL, "the generated network would have %llu hosts; at most %u are allowed",
                      (unsigned long long)nh, MYRI_TOPO_MAX_HOSTS);
        return MYRI_EINVAL;
    }
    if (nh + ns > 65536) {
        myri_error_at(err, NULL, "the generated network would have %llu nodes; at most 65536 are allowed",
                      (unsigned long long)(nh + ns));
        return MYRI_EINVAL;
    }
    char name[32];
    for (uint64_t h = 0; h < nh; h++) {
        snprintf(name, sizeof name, "h%llu", (unsigned long long)h);
        myri_status st = myri_topo_add_host(t, name, NULL);
        if (st) return st;
    }
    for (uint64_t s = 0; s < ns; s++) {
        snprintf(name, sizeof name, "s%llu", (unsigned long long)s);
        myri_status st = myri_topo_add_switch(t, name, ports, NULL);
        if (st) return st;
    }
    return MYRI_OK;
}

/* k-ary n-tree (Petrini and Vanneschi 1997): k^n hosts, n levels of k^(n-1)
 * switches with 2k ports.  Switch (level l, index i) is node H + l*k^(n-1) + i
 * (leaves are level 0).  Ports 0..k-1 go down, k..2k-1 up.  Host p is on
 * leaf p/k, port p%k.  Up port k+j of (l, i) goes to (l+1, i with base-k
 * digit l replaced by j), arriving on its down port (digit l of i).  The top
 * level's up ports are unconnected; the top level is the root set. */
static myri_status gen__fat_tree(myri_topo *t, const myri_topo_gen_params *p, myri_error *err)
{
    uint32_t k = p->k, n = p->n;
    if (k < 2 || n < 1 || n > 8) {
        myri_error_at(err, NULL, "fat-tree needs k >= 2 and 1 <= n <= 8 (got k=%u, n=%u)", k, n);
        return MYRI_EINVAL;
    }
    uint32_t ports = gen__ports(p->nports, 2ull * k, err);
    if (!ports) return MYRI_EINVAL;
    uint64_t per = 1;
    for (uint32_t i = 0; i + 1 < n; i++) {
        per *= k;
        if (per > 65536) break;
    }
    uint64_t nh = per * k, ns = per * n;
    myri_status st = gen__nodes(t, nh, ns, ports, err);
    if (st) return st;
    for (uint64_t h = 0; h < nh; h++) {
        st = myri_topo_connect(t, (uint32_t)h, 0, (uint32_t)(nh + h / k), (uint32_t)(h % k),
                               p->length_m, NULL);
        if (st) return st;
    }
    uint64_t weight = 1; /* k^l */
    for (uint32_t l = 0; l + 1 < n; l++, weight *= k) {
        for (uint64_t i = 0; i < per; i++) {
            uint64_t digit = (i / weight) % k;
            for (uint32_t j = 0; j < k; j++) {
                uint64_t up = i - digit * weight + j * weight;
                uint32_t lower = (uint32_t)(nh + l * per + i);
                uint32_t upper = (uint32_t)(nh + (l + 1) * per + up);
                st = myri_topo_connect(t, lower, k + j, upper, (uint32_t)digit, p->length_m, NULL);
                if (st) return st;
            }
        }
    }
    for (uint64_t i = 0; i < per; i++) {
        st = myri_topo_add_root(t, (uint32_t)(nh + (n - 1) * per + i));
        if (st) return st;
    }
    return MYRI_OK;
}

/* One switch; hosts on ports 0..H-1 (H = per_switch, default the port count,
 * or 8 hosts when neither is given). */
static myri_status gen__star(myri_topo *t, const myri_topo_gen_params *p, myri_error *err)
{
    uint32_t h = p->per_switch ? p->per_switch : (p->nports ? p->nports : 8);
    uint32_t ports = gen__ports(p->nports, h, err);
    if (!ports) return MYRI_EINVAL;
    myri_status st = gen__nodes(t, h, 1, ports, err);
    for (uint32_t i = 0; i < h && !st; i++) st = myri_topo_connect(t, i, 0, h, i, p->length_m, NULL);
    return st;
}

/* x-by-y mesh; switch (i, j) is s(j*x + i).  Ports 0 = +x, 1 = -x, 2 = +y,
 * 3 = -y (unconnected at the edges), hosts on ports 4..4+H-1 (H default 1);
 * host number = switch number * H + local index. */
static myri_status gen__mesh(myri_topo *t, const myri_topo_gen_params *p, myri_error *err)
{
    uint32_t x = p->x, y = p->y, h = p->per_switch ? p->per_switch : 1;
    if (x < 1 || y < 1 || (uint64_t)x * y > 16384) {
        myri_error_at(err, NULL, "mesh needs 1 <= x, y and x*y <= 16384 (got x=%u, y=%u)", x, y);
        return MYRI_EINVAL;
    }
    uint32_t ports = gen__ports(p->nports, 4ull + h, err);
    if (!ports) return MYRI_EINVAL;
    uint64_t ns = (uint64_t)x * y, nh = ns * h;
    myri_status st = gen__nodes(t, nh, ns, ports, err);
    for (uint64_t s = 0; s < ns && !st; s++) {
        uint32_t sw = (uint32_t)(nh + s), i = (uint32_t)(s % x), j = (uint32_t)(s / x);
        for (uint32_t q = 0; q < h && !st; q++)
            st = myri_topo_connect(t, (uint32_t)(s * h + q), 0, sw, 4 + q, p->length_m, NULL);
        if (!st && i + 1 < x) st = myri_topo_connect(t, sw, 0, sw + 1, 1, p->length_m, NULL);
        if (!st && j + 1 < y) st = myri_topo_connect(t, sw, 2, sw + x, 3, p->length_m, NULL);
    }
    return st;
}

/* Ring of n >= 3 switches: port 0 to the next switch (clockwise), port 1 to
 * the previous; hosts on ports 2..2+H-1 (H default 1). */
static myri_status gen__ring(myri_topo *t, const myri_topo_gen_params *p, myri_error *err)
{
    uint32_t n = p->n, h = p->per_switch ? p->per_switch : 1;
    if (n < 3 || n > 16384) {
        myri_error_at(err, NULL, "ring needs 3 <= n <= 16384 switches (got n=%u)", n);
        return MYRI_EINVAL;
    }
    uint32_t ports = gen__ports(p->nports, 2ull + h, err);
    if (!ports) return MYRI_EINVAL;
    uint64_t nh = (uint64_t)n * h;
    myri_status st = gen__nodes(t, nh, n, ports, err);
    for (uint32_t s = 0; s < n && !st; s++) {
        uint32_t sw = (uint32_t)(nh + s), next = (uint32_t)(nh + (s + 1) % n);
        for (uint32_t q = 0; q < h && !st; q++)
            st = myri_topo_connect(t, (uint32_t)(s * h + q), 0, sw, 2 + q, p->length_m, NULL);
        if (!st) st = myri_topo_connect(t, sw, 0, next, 1, p->length_m, NULL);
    }
    return st;
}

/* Folded three-stage Clos (leaf-spine): `leaves` leaf switches with H hosts
 * each (H default = spines: full bisection) on ports 0..H-1 and one link to
 * every spine on ports H..H+S-1; spine s's port i goes to leaf i.  Leaf
 * switches are s0..sL-1, spines sL..; the spines are the root set. */
static myri_status gen__clos(myri_topo *t, const myri_topo_gen_params *p, myri_error *err)
{
    uint32_t nl = p->leaves, ns = p->spines, h = p->per_switch ? p->per_switch : p->spines;
    if (nl < 1 || ns < 1 || h < 1) {
        myri_error_at(err, NULL, "clos needs leaves >= 1, spines >= 1 and hosts per leaf >= 1");
        return MYRI_EINVAL;
    }
    uint64_t need = (uint64_t)h + ns > nl ? (uint64_t)h + ns : nl;
    uint32_t ports = gen__ports(p->nports, need, err);
    if (!ports) return MYRI_EINVAL;
    uint64_t nh = (uint64_t)nl * h;
    myri_status st = gen__nodes(t, nh, (uint64_t)nl + ns, ports, err);
    for (uint32_t l = 0; l < nl && !st; l++) {
        uint32_t leaf = (uint32_t)(nh + l);
        for (uint32_t q = 0; q < h && !st; q++)
            st = myri_topo_connect(t, (uint32_t)(l * h + q), 0, leaf, q, p->length_m, NULL);
        for (uint32_t s = 0; s < ns && !st; s++)
            st = myri_topo_connect(t, leaf, h + s, (uint32_t)(nh + nl + s), l, p->length_m, NULL);
    }
    for (uint32_t s = 0; s < ns && !st; s++) st = myri_topo_add_root(t, (uint32_t)(nh + nl + s));
    return st;
}

myri_status myri_topo_generate(const myri_topo_gen_params *p, myri_topo **out, myri_error *err)
{
    if (!p || !out) return MYRI_EINVAL;
    *out = NULL;
    myri_topo *t = myri_topo_create();
    if (!t) return MYRI_ENOMEM;
    myri_status st = MYRI_EINVAL;
    if (!(p->length_m > 0)) {
        myri_error_at(err, NULL, "cable length must be positive");
    } else {
        switch (p->gen) {
        case MYRI_GEN_BACK_TO_BACK:
            st = gen__nodes(t, 2, 0, 4, err);
            if (!st) st = myri_topo_connect(t, 0, 0, 1, 0, p->length_m, NULL);
            break;
        case MYRI_GEN_STAR: st = gen__star(t, p, err); break;
        case MYRI_GEN_MESH: st = gen__mesh(t, p, err); break;
        case MYRI_GEN_FAT_TREE: st = gen__fat_tree(t, p, err); break;
        case MYRI_GEN_CLOS: st = gen__clos(t, p, err); break;
        case MYRI_GEN_RING: st = gen__ring(t, p, err); break;
        case MYRI_GEN_NONE: myri_error_at(err, NULL, "no generator given"); break;
        }
    }
    if (st == MYRI_ENOMEM) myri_error_at(err, NULL, "out of memory");
    if (st) {
        myri_topo_destroy(t);
        return st;
    }
    /* The record of what made it (myri_topo.made_by): cleared by any change. */
    t->made_by = *p;
    *out = t;
    return MYRI_OK;
}
