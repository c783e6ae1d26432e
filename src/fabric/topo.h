/* topo.h -- a Myrinet topology: hosts, switches, links; and source routes.
 *
 * OWNERSHIP: the topology helper owns this module (topo.c, generators, routes,
 * DOT output); the fabric simulation reads these structures.  The data layout
 * below is the agreed contract between the two; extend it, don't change it.
 *
 * Nodes are hosts (one port, port 0) or switches (4, 8, 16 or 32 ports).
 * A link joins (node a, port pa) and (node b, port pb) and is two independent
 * channels, a->b and b->a.  Channel c of link l: 2*l for a->b, 2*l+1 for b->a.
 */
#ifndef MYRI_FABRIC_TOPO_H
#define MYRI_FABRIC_TOPO_H

#include <stddef.h>
#include <stdint.h>

#include "myri/config.h"

typedef enum myri_topo_kind { MYRI_TOPO_HOST = 0, MYRI_TOPO_SWITCH = 1 } myri_topo_kind;

typedef struct myri_topo_port {
    int32_t link;      /* link index, or -1 if unconnected */
    int32_t peer_node; /* node at the other end, or -1 */
    int32_t peer_port; /* port at the other end, or -1 */
} myri_topo_port;

typedef struct myri_topo_node {
    myri_topo_kind kind;
    char *name;           /* unique, e.g. "h0", "s3" */
    uint32_t nports;      /* 1 for a host */
    myri_topo_port *port; /* nports entries */
    int32_t host_index;   /* index among hosts, or -1 for a switch */
} myri_topo_node;

typedef struct myri_topo_link {
    uint32_t a_node, a_port, b_node, b_port;
    double length_m;      /* cable length in metres */
} myri_topo_link;

typedef struct myri_topo {
    size_t nnodes;
    myri_topo_node *node;
    size_t nlinks;
    myri_topo_link *link;
    size_t nhosts;
    uint32_t *host_node;  /* host index -> node index */
} myri_topo;

/* A source route from one host to another: the route bytes a packet carries
 * (MSB 1 each), one per switch crossed, in order. */
typedef struct myri_route {
    uint8_t len;          /* number of route bytes (0 = back-to-back hosts) */
    uint8_t byte[32];
} myri_route;

/* Routes for every ordered pair of hosts: route[src * nhosts + dst]. */
typedef struct myri_routes {
    size_t nhosts;
    myri_route *route;
} myri_routes;

#endif
