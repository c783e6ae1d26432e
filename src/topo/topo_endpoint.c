/* topo_endpoint.c -- the `NODE` / `NODE.PORT` endpoint syntax of scenarios
 * (see topo.h), read by the scripted faults and the pcap capture. */
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

/* Longest node name that can be looked up, plus one (node names are 1 to 64
 * characters, docs/TOPOLOGY.md). */
#define TOPO__NAME_BYTES 80u

myri_status myri_topo_parse_endpoint(const myri_topo *t, const char *s, uint32_t *node, uint32_t *port,
                                     myri_error *err)
{
    if (!t || !s || !node || !port) return MYRI_EINVAL;
    char name[TOPO__NAME_BYTES];
    const char *dot = strrchr(s, '.');
    size_t n = dot ? (size_t)(dot - s) : strlen(s);
    int32_t found = -1;
    if (n < sizeof name) {
        memcpy(name, s, n);
        name[n] = '\0';
        found = myri_topo_find(t, name);
    }
    if (found < 0)
        return myri_error_at(err, NULL, "'%.*s' is not a node of the topology; expected NODE or NODE.PORT with a "
                                        "host or switch name", (int)(n < 64 ? n : 64), s);
    const myri_topo_node *nd = &t->node[found];
    *node = (uint32_t)found;
    *port = MYRI_TOPO_NO_PORT;
    if (!dot) return MYRI_OK;
    char *end;
    long p = strtol(dot + 1, &end, 10);
    if (*end || end == dot + 1)
        return myri_error_at(err, NULL, "port '%s' of '%s' is not a whole number; expected NODE.PORT", dot + 1,
                             nd->name);
    if (p < 0 || p >= (long)nd->nports)
        return myri_error_at(err, NULL, "port %ld of '%s' is out of range; expected 0 to %u", p, nd->name,
                             nd->nports - 1);
    *port = (uint32_t)p;
    return MYRI_OK;
}

int64_t myri_topo_endpoint_link(const myri_topo *t, const char *s, myri_error *err)
{
    uint32_t node = 0, port = MYRI_TOPO_NO_PORT;
    if (myri_topo_parse_endpoint(t, s, &node, &port, err)) return -1;
    const myri_topo_node *nd = &t->node[node];
    if (port == MYRI_TOPO_NO_PORT) {
        if (nd->kind != MYRI_TOPO_HOST) {
            myri_error_at(err, NULL, "'%s' is a switch, which has a link on each port; expected %s.PORT", nd->name,
                          nd->name);
            return -1;
        }
        port = 0;
    }
    int32_t link = nd->port[port].link;
    if (link < 0)
        myri_error_at(err, NULL, "port %u of '%s' is not connected; expected a connected port", port, nd->name);
    return link;
}
