/* fabric_pcap.c -- `--pcap FILE`: packets seen on chosen links, as a libpcap
 * file (see fabric_pcap.h and docs/TOPOLOGY.md for the record format). */
/* libpcap's headers use the BSD types u_char/u_int, which glibc declares
 * only with _DEFAULT_SOURCE (the build defines _POSIX_C_SOURCE). */
#define _DEFAULT_SOURCE 1

#include "fabric/fabric_pcap.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct myri_fpcap {
    pcap_t *dead;
    pcap_dumper_t *dump;
    uint64_t packets;
    uint8_t type_bytes, crc_poly; /* bytes 5 and 6 of every record */
    int write_errno;              /* the first write error seen (0: none) */
    char path[256];
};

const myri_param myri_fpcap_params[] = {
    {"links", MYRI_P_NODE, NULL, "", NULL, NULL,
     "links captured with --pcap: list (or comma-separated) of HOST and NODE.PORT; hosts: every host link "
     "(the default); all: every link",
     offsetof(myri_fpcap_config, links), NULL},
};
const size_t myri_fpcap_nparams = sizeof myri_fpcap_params / sizeof myri_fpcap_params[0];

static void fpcap__tap(void *ctx, size_t channel, myri_time_ps first_ps, const uint8_t *bytes,
                       size_t len, bool truncated)
{
    myri_fpcap *p = ctx;
    uint8_t buf[MYRI_FPCAP_HEADER_BYTES + 65536];
    size_t n = len > 65536 ? 65536 : len;
    buf[0] = (uint8_t)(channel >> 24);
    buf[1] = (uint8_t)(channel >> 16);
    buf[2] = (uint8_t)(channel >> 8);
    buf[3] = (uint8_t)channel;
    buf[4] = truncated ? 1 : 0;
    buf[5] = p->type_bytes;
    buf[6] = p->crc_poly;
    buf[7] = 0;
    memcpy(buf + MYRI_FPCAP_HEADER_BYTES, bytes, n);
    struct pcap_pkthdr h;
    uint64_t ns = first_ps / 1000u;
    h.ts.tv_sec = (time_t)(ns / 1000000000u);
    h.ts.tv_usec = (suseconds_t)(ns % 1000000000u); /* nanoseconds: file opened with NANO precision */
    h.caplen = (bpf_u_int32)(n + MYRI_FPCAP_HEADER_BYTES);
    h.len = (bpf_u_int32)(len + MYRI_FPCAP_HEADER_BYTES);
    FILE *f = pcap_dump_file(p->dump);
    errno = 0;
    pcap_dump((u_char *)p->dump, &h, buf);
    if (!p->write_errno && f && ferror(f)) p->write_errno = errno ? errno : EIO;
    if (!p->write_errno) p->packets++;
}

static myri_status fpcap__want(const myri_topo *t, const myri_fpcap_config *c, bool *want,
                               myri_error *err)
{
    const char *word = c->links && c->links->kind == MYRI_NODE_SCALAR ? c->links->scalar : NULL;
    if (word && !strcmp(word, "all")) {
        for (size_t l = 0; l < t->nlinks; l++) want[l] = true;
        return MYRI_OK;
    }
    if (!c->links || (word && !strcmp(word, "hosts"))) {
        for (size_t h = 0; h < t->nhosts; h++) {
            int32_t l = t->node[t->host_node[h]].port[0].link;
            if (l >= 0) want[l] = true;
        }
        return MYRI_OK;
    }
    if (c->links->kind == MYRI_NODE_SCALAR) { /* "h0,s0.3" (as --set gives it) */
        char spec[80];
        for (const char *p = c->links->scalar; *p;) {
            size_t n = strcspn(p, ",");
            int64_t l = -1;
            if (n < sizeof spec) {
                memcpy(spec, p, n);
                spec[n] = '\0';
                l = myri_topo_endpoint_link(t, spec, NULL);
            }
            if (l < 0)
                return myri_error_at(err, c->links,
                                     "pcap.links: expected host names or SWITCH.PORT of connected ports, separated by commas, "
                                     "or hosts, or all");
            want[l] = true;
            p += n + (p[n] == ',');
        }
        return MYRI_OK;
    }
    if (c->links->kind != MYRI_NODE_SEQ)
        return myri_error_at(err, c->links, "pcap.links must be a list of HOST or SWITCH.PORT names");
    for (size_t i = 0; i < c->links->n; i++) {
        const myri_node *it = c->links->item[i];
        int64_t l = it->kind == MYRI_NODE_SCALAR ? myri_topo_endpoint_link(t, it->scalar, NULL) : -1;
        if (l < 0)
            return myri_error_at(err, it, "pcap.links: expected a host name or SWITCH.PORT of a connected port");
        want[l] = true;
    }
    return MYRI_OK;
}

myri_status myri_fpcap_open(const char *path, const myri_topo *t, const myri_fpcap_config *c,
                            myri_fabric *f, myri_fpcap **out, myri_error *err)
{
    *out = NULL;
    bool *want = calloc(t->nlinks + 1, sizeof(bool));
    if (!want) return MYRI_ENOMEM;
    myri_status st = fpcap__want(t, c, want, err);
    myri_fpcap *p = st ? NULL : calloc(1, sizeof *p);
    if (!st && !p) st = MYRI_ENOMEM;
    if (!st) {
        p->dead = pcap_open_dead_with_tstamp_precision(MYRI_FPCAP_DLT, 65536 + MYRI_FPCAP_HEADER_BYTES,
                                                       PCAP_TSTAMP_PRECISION_NANO);
        p->dump = p->dead ? pcap_dump_open(p->dead, path) : NULL;
        if (!p->dump) st = myri_error_at(err, NULL, "cannot write pcap file '%s': %s", path, strerror(errno));
        p->type_bytes = c->type_bytes;
        p->crc_poly = c->crc_poly;
        snprintf(p->path, sizeof p->path, "%s", path);
    }
    for (size_t l = 0; l < t->nlinks && !st; l++) {
        if (!want[l]) continue;
        if (myri_fabric_set_tap(f, 2 * l, fpcap__tap, p) || myri_fabric_set_tap(f, 2 * l + 1, fpcap__tap, p))
            st = myri_error_at(err, NULL, "cannot tap link %zu", l);
    }
    free(want);
    if (st) {
        myri_fpcap_close(p);
        return st == MYRI_ENOMEM ? st : MYRI_EINPUT;
    }
    *out = p;
    return MYRI_OK;
}

uint64_t myri_fpcap_close(myri_fpcap *p)
{
    if (!p) return 0;
    uint64_t n = p->packets;
    if (p->dump) pcap_dump_close(p->dump);
    if (p->dead) pcap_close(p->dead);
    free(p);
    return n;
}

myri_status myri_fpcap_finish(myri_fpcap *p, uint64_t *packets, myri_error *err)
{
    *packets = 0;
    if (!p) return MYRI_OK;
    int e = p->write_errno;
    if (!e && p->dump) {
        /* pcap_dump_close ignores fclose's result: flush and check first */
        FILE *f = pcap_dump_file(p->dump);
        errno = 0;
        if (pcap_dump_flush(p->dump) != 0 || (f && ferror(f))) e = errno ? errno : EIO;
    }
    char path[sizeof p->path];
    memcpy(path, p->path, sizeof path);
    uint64_t n = myri_fpcap_close(p);
    if (e) {
        myri_error_at(err, NULL, "cannot write pcap file '%s': %s", path, strerror(e));
        return MYRI_EIO;
    }
    *packets = n;
    return MYRI_OK;
}
