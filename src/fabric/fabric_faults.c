/* fabric_faults.c -- the scenario's `faults:` list: parsed, checked against
 * the topology and scheduled on the fabric (see fabric_faults.h and
 * docs/TOPOLOGY.md). */
#include "fabric/fabric_faults.h"

#include <stdlib.h>
#include <string.h>

#include "common/packet.h"

const myri_param myri_ffaults_params[] = {
    {"faults", MYRI_P_NODE, NULL, "", NULL, NULL,
     "scripted faults: list of {at, action: cut|restore|corrupt, link, ...} (docs/TOPOLOGY.md)",
     offsetof(myri_ffaults_config, faults), NULL},
};
const size_t myri_ffaults_nparams = sizeof myri_ffaults_params / sizeof myri_ffaults_params[0];

enum { FF_CUT = 0, FF_RESTORE = 1, FF_CORRUPT = 2 };
static const char *const ff__action_name[] = {"cut", "restore", "corrupt"};

/* One item as read from the scenario (myri_params_load_map writes it). */
typedef struct ff__item_cfg {
    uint64_t at_ps;
    int action;
    const char *link;
    const char *from;
    int64_t packet;
    const char *source;
    int64_t seq;
    int64_t byte;
    int64_t mask;
} ff__item_cfg;

/* Packet sequence numbers have 40 bits (common/packet.h: myri_packet_id). */
_Static_assert(MYRI_PACKET_ID_SEQ_MAX == 1099511627775u, "the maximum of key 'seq' below");
static const myri_param ff__item_params[] = {
    {"at", MYRI_P_TIME, "ns", "0", "0", NULL, "cut/restore: absolute simulated time (warm-up included)",
     offsetof(ff__item_cfg, at_ps), NULL},
    {"action", MYRI_P_ENUM, "", NULL, NULL, NULL, "what happens", offsetof(ff__item_cfg, action),
     "cut|restore|corrupt"},
    {"link", MYRI_P_STRING, "", NULL, NULL, NULL, "the link: HOST (its link) or NODE.PORT",
     offsetof(ff__item_cfg, link), NULL},
    {"from", MYRI_P_STRING, "", "", NULL, NULL, "corrupt: the node sending on the channel (an end of the link)",
     offsetof(ff__item_cfg, from), NULL},
    {"packet", MYRI_P_INT, "", "0", "0", NULL, "corrupt: packet id ((source host index << 40) | seq)",
     offsetof(ff__item_cfg, packet), NULL},
    {"source", MYRI_P_STRING, "", "", NULL, NULL, "corrupt: the host that sent the packet (with seq)",
     offsetof(ff__item_cfg, source), NULL},
    {"seq", MYRI_P_INT, "", "0", "0", "1099511627775", "corrupt: the source's packet number, from 0",
     offsetof(ff__item_cfg, seq), NULL},
    {"byte", MYRI_P_INT, "", "0", "0", "4294967295",
     "corrupt: character index on that channel (0 = first, route bytes included)", offsetof(ff__item_cfg, byte),
     NULL},
    {"mask", MYRI_P_INT, "", "1", "1", "255", "corrupt: bits flipped (XOR) in that character",
     offsetof(ff__item_cfg, mask), NULL},
};
#define FF_NITEM_PARAMS (sizeof ff__item_params / sizeof ff__item_params[0])

typedef struct ff__item {
    int action;
    myri_time_ps at_ps;
    size_t link, channel;
    uint64_t packet;
    uint32_t byte;
    uint8_t mask;
    char link_name[80];  /* as written in the scenario */
    char packet_name[96];/* "h1#3" */
    /* fate of the packet (corrupt only) */
    int fate;            /* -3 misdelivered, -2 not finished, -1 delivered, else drop reason */
    myri_time_ps fate_ps;
    size_t order;        /* position in the list */
} ff__item;

struct myri_ffaults {
    size_t n;
    ff__item *item;
};

/* The channel of `link` leaving node `from` (NODE, or NODE.PORT); -1 if
 * `from` is not an end of the link. */
static int64_t ff__channel(const myri_topo *t, size_t link, const char *from)
{
    const myri_topo_link *L = &t->link[link];
    uint32_t node = 0, port = MYRI_TOPO_NO_PORT;
    if (myri_topo_parse_endpoint(t, from, &node, &port, NULL)) return -1;
    if (port != MYRI_TOPO_NO_PORT) { /* NODE.PORT: must be one end of this link */
        if (t->node[node].port[port].link != (int32_t)link) return -1;
        return node == L->a_node && port == L->a_port ? 2 * (int64_t)link : 2 * (int64_t)link + 1;
    }
    if (node == L->a_node) return 2 * (int64_t)link;
    if (node == L->b_node) return 2 * (int64_t)link + 1;
    return -1;
}

static const char *const ff__corrupt_keys[] = {"from", "packet", "source", "seq", "byte", "mask"};

/* Checks which keys the action allows; fills the packet of a corrupt item. */
static myri_status ff__keys(const myri_node *it, const ff__item_cfg *ic, const myri_topo *t, ff__item *o,
                            myri_error *err)
{
    const myri_node *at = myri_node_get(it, "at");
    if (ic->action != FF_CORRUPT) {
        if (!at)
            return myri_error_at(err, it, "faults: missing required key 'at' for action %s; expected a time "
                                          "(absolute simulated time, warm-up included)",
                                 ff__action_name[ic->action]);
        for (size_t k = 0; k < sizeof ff__corrupt_keys / sizeof ff__corrupt_keys[0]; k++) {
            const myri_node *x = myri_node_get(it, ff__corrupt_keys[k]);
            if (x)
                return myri_error_at(err, x, "faults: key '%s' belongs to action corrupt, not %s; expected at, "
                                             "action, link", ff__corrupt_keys[k], ff__action_name[ic->action]);
        }
        return MYRI_OK;
    }
    if (at)
        return myri_error_at(err, at, "faults: a corrupt item names a packet, not a time; remove 'at' (the "
                                      "packet is corrupted whenever it crosses the channel)");
    if (!myri_node_get(it, "from"))
        return myri_error_at(err, it, "faults: missing required key 'from' for action corrupt; expected the "
                                      "node sending on the channel (an end of the link)");
    const myri_node *pk = myri_node_get(it, "packet"), *src = myri_node_get(it, "source"),
                    *seq = myri_node_get(it, "seq");
    if (!myri_node_get(it, "byte"))
        return myri_error_at(err, it, "faults: missing required key 'byte' for action corrupt; expected the "
                                      "index of the character on that channel (0 = first)");
    if (pk && (src || seq))
        return myri_error_at(err, src ? src : seq, "faults: give either 'packet' or 'source' with 'seq', not both");
    if (pk) {
        o->packet = (uint64_t)ic->packet;
        uint32_t h = myri_packet_id_host(o->packet);
        if (h < t->nhosts)
            snprintf(o->packet_name, sizeof o->packet_name, "%s#%llu", t->node[t->host_node[h]].name,
                     (unsigned long long)myri_packet_id_seq(o->packet));
        else
            snprintf(o->packet_name, sizeof o->packet_name, "%llu", (unsigned long long)o->packet);
        return MYRI_OK;
    }
    if (!src || !seq)
        return myri_error_at(err, src ? src : seq ? seq : it, "faults: a corrupt item needs the packet: "
                                                               "'packet: ID' or 'source: HOST' with 'seq: N'");
    int32_t hn = myri_topo_find(t, ic->source);
    if (hn < 0 || t->node[hn].kind != MYRI_TOPO_HOST)
        return myri_error_at(err, src, "faults: source '%s' is not a host of the topology; expected a host name",
                             ic->source);
    o->packet = myri_packet_id((uint32_t)t->node[hn].host_index, (uint64_t)ic->seq);
    snprintf(o->packet_name, sizeof o->packet_name, "%s#%lld", ic->source, (long long)ic->seq);
    return MYRI_OK;
}

/* Reads item `i` into *o (no scheduling). */
static myri_status ff__item_read(const myri_node *it, const myri_topo *t, myri_time_ps end_ps, ff__item *o,
                                 myri_error *err)
{
    if (it->kind != MYRI_NODE_MAP)
        return myri_error_at(err, it, "faults: expected a mapping {at, action, link, ...}");
    ff__item_cfg ic;
    memset(&ic, 0, sizeof ic);
    if (myri_params_load_map(ff__item_params, FF_NITEM_PARAMS, it, &ic, err)) return MYRI_EINPUT;
    memset(o, 0, sizeof *o);
    o->action = ic.action;
    o->at_ps = ic.at_ps;
    o->fate = -2;
    myri_status st = ff__keys(it, &ic, t, o, err);
    if (st) return st;
    const myri_node *ln = myri_node_get(it, "link");
    int64_t l = myri_topo_endpoint_link(t, ic.link, NULL);
    if (l < 0)
        return myri_error_at(err, ln, "faults: link '%s' is not a link of the topology; expected a host name "
                                      "or NODE.PORT of a connected port", ic.link);
    o->link = (size_t)l;
    snprintf(o->link_name, sizeof o->link_name, "%s", ic.link);
    if (o->at_ps > end_ps) {
        char a[40], e[40];
        myri_format_time(o->at_ps, a, sizeof a);
        myri_format_time(end_ps, e, sizeof e);
        return myri_error_at(err, myri_node_get(it, "at"), "faults: at %s is after the end of the run; expected "
                                                           "a time in [0, %s] (warmup + duration)", a, e);
    }
    if (o->action == FF_CORRUPT) {
        int64_t ch = ff__channel(t, o->link, ic.from);
        if (ch < 0)
            return myri_error_at(err, myri_node_get(it, "from"), "faults: '%s' is not an end of link '%s'; "
                                 "expected the name of the node sending on the channel", ic.from, ic.link);
        o->channel = (size_t)ch;
        o->byte = (uint32_t)ic.byte;
        o->mask = (uint8_t)ic.mask;
    }
    return MYRI_OK;
}

static int ff__by_time(const void *x, const void *y)
{
    const ff__item *a = *(const ff__item *const *)x, *b = *(const ff__item *const *)y;
    if (a->at_ps != b->at_ps) return a->at_ps < b->at_ps ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Cuts and restores in time order (list order at equal times): a cut of a
 * cut link or a restore of a working one is an input error. */
static myri_status ff__check_order(const myri_ffaults *ff, const myri_node *list, size_t nlinks,
                                   myri_error *err)
{
    ff__item **ord = malloc((ff->n + 1) * sizeof *ord);
    bool *down = calloc(nlinks + 1, sizeof *down);
    myri_status st = ord && down ? MYRI_OK : MYRI_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < ff->n && !st; i++)
        if (ff->item[i].action != FF_CORRUPT) ord[m++] = &ff->item[i];
    if (!st) qsort(ord, m, sizeof *ord, ff__by_time);
    for (size_t i = 0; i < m && !st; i++) {
        ff__item *it = ord[i];
        bool cut = it->action == FF_CUT;
        if (down[it->link] == cut) {
            char a[40];
            myri_format_time(it->at_ps, a, sizeof a);
            st = myri_error_at(err, list->item[it->order], "faults: link '%s' is %s at %s; expected a %s",
                               it->link_name, cut ? "already cut" : "not cut", a,
                               cut ? "restore before cutting it again" : "cut before the restore");
        }
        down[it->link] = cut;
    }
    free(ord);
    free(down);
    return st;
}

myri_status myri_ffaults_apply(const myri_ffaults_config *c, const myri_topo *t, myri_fabric *f,
                               myri_time_ps end_ps, myri_ffaults **out, myri_error *err)
{
    if (!out) return MYRI_EINVAL;
    *out = NULL;
    if (!c || !c->faults) return MYRI_OK;
    if (!t || !f) return MYRI_EINVAL;
    const myri_node *list = c->faults;
    if (list->kind == MYRI_NODE_SCALAR && (strcmp(list->scalar, "none") == 0 || strcmp(list->scalar, "[]") == 0))
        return MYRI_OK; /* --set faults=none (or =[]) turns the scenario's faults off */
    if (list->kind != MYRI_NODE_SEQ)
        return myri_error_at(err, list, "faults must be a list of mappings {at, action, link, ...} (or none)");
    myri_ffaults *ff = calloc(1, sizeof *ff);
    if (!ff) return MYRI_ENOMEM;
    ff->item = calloc(list->n + 1, sizeof *ff->item);
    if (!ff->item) {
        free(ff);
        return MYRI_ENOMEM;
    }
    myri_status st = MYRI_OK;
    for (size_t i = 0; i < list->n && !st; i++) {
        st = ff__item_read(list->item[i], t, end_ps, &ff->item[i], err);
        ff->item[i].order = i;
        ff->n = i + 1;
    }
    if (!st) st = ff__check_order(ff, list, t->nlinks, err);
    for (size_t i = 0; i < ff->n && !st; i++) {
        const ff__item *it = &ff->item[i];
        if (it->action == FF_CUT) st = myri_fabric_cut_link(f, it->link, it->at_ps);
        else if (it->action == FF_RESTORE) st = myri_fabric_restore_link(f, it->link, it->at_ps);
        else st = myri_fabric_corrupt(f, it->packet, it->channel, it->byte, it->mask);
        if (st && st != MYRI_ENOMEM)
            st = myri_error_at(err, list->item[i], "faults: the fabric refused this item (it must be scheduled "
                                                   "before the run starts)");
    }
    if (st) {
        myri_ffaults_free(ff);
        return st == MYRI_ENOMEM ? st : MYRI_EINPUT;
    }
    *out = ff;
    return MYRI_OK;
}

void myri_ffaults_note(myri_ffaults *ff, uint64_t id, int reason, myri_time_ps t)
{
    if (!ff) return;
    for (size_t i = 0; i < ff->n; i++) {
        ff__item *it = &ff->item[i];
        if (it->action != FF_CORRUPT || it->packet != id) continue;
        it->fate = reason == MYRI_FFAULTS_MISDELIVERED ? reason : reason < 0 ? -1 : reason;
        it->fate_ps = t;
    }
}

size_t myri_ffaults_pack(const myri_ffaults *ff, uint64_t *w, size_t cap_words)
{
    size_t n = ff ? 2 * ff->n : 0;
    if (w && cap_words >= n)
        for (size_t i = 0; i < n / 2; i++) {
            w[2 * i] = (uint64_t)(int64_t)ff->item[i].fate;
            w[2 * i + 1] = ff->item[i].fate_ps;
        }
    return n;
}

myri_status myri_ffaults_merge_packed(myri_ffaults *dst, const uint64_t *w, size_t nw)
{
    if (!dst || (nw && !w) || nw != 2 * dst->n) return MYRI_EINVAL;
    for (size_t i = 0; i < dst->n; i++) { /* checked whole before anything is taken */
        int64_t f = (int64_t)w[2 * i];
        if (f < MYRI_FFAULTS_MISDELIVERED || f >= MYRI_FABRIC_DROP_NREASONS) return MYRI_EINVAL;
    }
    for (size_t i = 0; i < dst->n; i++)
        if (dst->item[i].fate == -2 && (int64_t)w[2 * i] != -2) {
            dst->item[i].fate = (int)(int64_t)w[2 * i];
            dst->item[i].fate_ps = w[2 * i + 1];
        }
    return MYRI_OK;
}

size_t myri_ffaults_count(const myri_ffaults *ff)
{
    return ff ? ff->n : 0;
}

static const char *ff__fate(const ff__item *it)
{
    if (it->fate == -2) return "not_finished";
    if (it->fate == -1) return "delivered";
    if (it->fate == MYRI_FFAULTS_MISDELIVERED) return "misdelivered";
    return myri_fabric_drop_name((myri_fabric_drop_reason)it->fate);
}

void myri_ffaults_report_json(const myri_ffaults *ff, myri_json *j)
{
    if (!ff) return;
    myri_json_key(j, "faults");
    myri_json_arr_begin(j);
    for (size_t i = 0; i < ff->n; i++) {
        const ff__item *it = &ff->item[i];
        myri_json_obj_begin(j);
        myri_json_kstr(j, "action", ff__action_name[it->action]);
        myri_json_kstr(j, "link_name", it->link_name);
        myri_json_kuint(j, "link", it->link);
        if (it->action != FF_CORRUPT) {
            myri_json_kuint(j, "at_ps", it->at_ps);
        } else {
            myri_json_kuint(j, "channel", it->channel);
            myri_json_kuint(j, "packet", it->packet);
            myri_json_kstr(j, "packet_name", it->packet_name);
            myri_json_kuint(j, "byte", it->byte);
            myri_json_kuint(j, "mask", it->mask);
            myri_json_kstr(j, "fate", ff__fate(it));
            if (it->fate != -2) myri_json_kuint(j, "fate_ps", it->fate_ps);
        }
        myri_json_obj_end(j);
    }
    myri_json_arr_end(j);
}

void myri_ffaults_report_text(const myri_ffaults *ff, FILE *out)
{
    if (!ff) return;
    for (size_t i = 0; i < ff->n; i++) {
        const ff__item *it = &ff->item[i];
        char a[40];
        myri_format_time(it->at_ps, a, sizeof a);
        if (it->action != FF_CORRUPT) {
            fprintf(out, "fault        %s link %s (link %zu) at %s\n", ff__action_name[it->action], it->link_name,
                    it->link, a);
            continue;
        }
        fprintf(out, "fault        corrupt packet %s (id %llu) on channel %zu (link %s), byte %u, mask 0x%02x: ",
                it->packet_name, (unsigned long long)it->packet, it->channel, it->link_name, (unsigned)it->byte,
                (unsigned)it->mask);
        if (it->fate == -2) {
            fprintf(out, "not delivered nor dropped by the end (or never sent)\n");
        } else {
            myri_format_time(it->fate_ps, a, sizeof a);
            bool plain = it->fate == -1 || it->fate == MYRI_FFAULTS_MISDELIVERED; /* not a drop */
            fprintf(out, "%s%s at %s%s\n", plain ? "" : "dropped ", ff__fate(it), a,
                    it->fate == -1                          ? " (corruption not applied or not detected)"
                    : it->fate == MYRI_FFAULTS_MISDELIVERED ? " (at another host, the CRC-8 did not see it)"
                                                            : "");
        }
    }
}

void myri_ffaults_free(myri_ffaults *ff)
{
    if (!ff) return;
    free(ff->item);
    free(ff);
}
