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
#ifndef MYRI_TOPO_TOPO_H
#define MYRI_TOPO_TOPO_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "myri/config.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- generators -------------------------------------------------------------
 * All cables get length_m.  nports = 0 picks the smallest of 4, 8, 16, 32 that
 * fits.  Names: hosts "h0".."hN-1" in host order, switches "s0".."sM-1".
 * Return MYRI_EINVAL with a reason in err when parameters do not fit. */
typedef enum myri_topo_generator {
    MYRI_GEN_NONE = 0,     /* explicit topology */
    MYRI_GEN_BACK_TO_BACK, /* two hosts, one cable */
    MYRI_GEN_STAR,         /* one switch, `per_switch` hosts */
    MYRI_GEN_MESH,         /* x-by-y 2-D mesh of switches, `per_switch` hosts each */
    MYRI_GEN_FAT_TREE,     /* k-ary n-tree of 2k-port switches */
    MYRI_GEN_CLOS,         /* folded 3-stage Clos: leaves x spines, `per_switch` hosts per leaf */
    MYRI_GEN_RING          /* ring of n switches, `per_switch` hosts each */
} myri_topo_generator;

typedef struct myri_topo_gen_params {
    myri_topo_generator gen;
    uint32_t k, n;         /* fat-tree arity and levels; ring: n switches */
    uint32_t x, y;         /* mesh dimensions */
    uint32_t leaves, spines; /* clos */
    uint32_t per_switch;   /* hosts per (leaf) switch; 0 = generator default */
    uint32_t nports;       /* switch ports; 0 = smallest that fits */
    double length_m;
} myri_topo_gen_params;

typedef struct myri_topo {
    size_t nnodes;
    myri_topo_node *node;
    size_t nlinks;
    myri_topo_link *link;
    size_t nhosts;
    uint32_t *host_node;  /* host index -> node index */
    /* Extension: switches a generator designates as up*-then-down* roots (the top
     * level of a fat tree, the spines of a Clos); 0 = choose automatically. */
    size_t nroots;
    uint32_t *root;       /* node indices */
    /* Internal capacities (owned by topo.c). */
    size_t cap_nodes, cap_links, cap_hosts;
    /* Extension: the node names' hash set (node index + 1, 0 = empty; topo.c),
     * so that myri_topo_find and the duplicate check cost O(1), not a strcmp
     * per node. */
    uint32_t *name_slot;
    size_t name_nslots;
    /* Extension: the parameters myri_topo_generate made this topology from,
     * kept only while the topology is exactly the generator's output: adding
     * a node, a link or a new root sets made_by.gen to MYRI_GEN_NONE.  Routes
     * of a regular generated network are then computed arithmetically
     * (topo_routes.c). */
    myri_topo_gen_params made_by;
} myri_topo;

/* A source route from one host to another: the route bytes a packet carries
 * (MSB 1 each), one per switch crossed, in order. */
#define MYRI_ROUTE_NONE 0xffu /* myri_route.len of a pair without a route (src == dst) */
typedef struct myri_route {
    uint8_t len;          /* number of route bytes (0 = back-to-back hosts) */
    uint8_t byte[32];
} myri_route;

typedef enum myri_route_encoding {
    MYRI_ROUTE_ABSOLUTE = 0, /* byte = 0x80 | output port */
    MYRI_ROUTE_RELATIVE = 1  /* byte = 0x80 | ((out - in) & 0x3f) (myrinet-facts 1.3, [U]) */
} myri_route_encoding;

/* Routes for every ordered pair of hosts, stored compactly (topo_routes.c):
 * distinct routes are kept once, and the hosts attached to one switch share
 * one row of nhosts 32-bit references (their routes differ at most in the
 * first byte, which is re-encoded for each host's entry port on lookup).
 * Read it with myri_routes_get / myri_routes_len; the other fields are
 * internal. */
typedef enum myri_routes_kind {
    MYRI_ROUTES_TABLE = 0,    /* the compact store below */
    MYRI_ROUTES_FAT_TREE = 1, /* arithmetic (topo_routes.c): k-ary n-tree, d-mod-k up/down */
    MYRI_ROUTES_CLOS = 2,     /* arithmetic: folded Clos, spine d mod S */
    MYRI_ROUTES_MESH_XY = 3   /* arithmetic: dimension order on a mesh */
} myri_routes_kind;

typedef struct myri_routes {
    size_t nhosts;
    myri_route_encoding enc; /* encoding the first bytes are stored for */
    /* Extension: TABLE (the store below), or a route set computed on each
     * lookup from the generator's parameters a..d (fat tree: k, n; Clos:
     * leaves, spines, hosts per leaf; mesh: x, y, hosts per switch), which
     * holds no table.  myri_routes_set turns it into a TABLE first. */
    myri_routes_kind kind;
    uint32_t arith_a, arith_b, arith_c;
    uint32_t *host_row;    /* per host: its row */
    uint8_t *host_in;      /* per host: the port it enters its switch on (0: no switch) */
    uint32_t *row_users;   /* per row: hosts sharing it */
    size_t nrows;
    uint32_t **row;        /* per row: nhosts pool offsets, one per destination */
    uint8_t *pool;         /* distinct routes: length, then bytes (byte 0 as for entry port 0) */
    size_t pool_len, pool_cap;
    uint32_t *slot;        /* hash set of pool offsets + 1 (0 = empty) */
    size_t nslots, ndistinct;
} myri_routes;

/* ---- construction ---------------------------------------------------------
 * A topology is built by adding nodes and links; node and link indices are
 * assigned in order of addition.  Functions return MYRI_OK, MYRI_EINVAL (NULL,
 * bad port count, port out of range, port already used, a link from a node to
 * itself, duplicate name) or MYRI_ENOMEM; on error the topology is unchanged. */

/* Port counts a switch may have (seed 002: 4- and 8-port switches shipping,
 * 16- and 32-port in development). */
#define MYRI_TOPO_MAX_PORTS 32u
/* Hosts per topology (the route set covers every ordered pair: 19 MB for a
 * 4-ary 6-tree at this limit, at most 4 bytes per pair). */
#define MYRI_TOPO_MAX_HOSTS 4096u
bool myri_topo_ports_ok(uint32_t nports); /* 4, 8, 16 or 32 */

myri_topo *myri_topo_create(void);          /* empty; NULL on ENOMEM */
void myri_topo_destroy(myri_topo *t);       /* NULL allowed */
/* Adds a host (one port, port 0); *out_node (may be NULL) gets its index. */
myri_status myri_topo_add_host(myri_topo *t, const char *name, uint32_t *out_node);
/* Adds a switch with nports ports (myri_topo_ports_ok). */
myri_status myri_topo_add_switch(myri_topo *t, const char *name, uint32_t nports,
                                 uint32_t *out_node);
/* Joins (a, pa) and (b, pb) with a cable of length_m metres (> 0, finite). */
myri_status myri_topo_connect(myri_topo *t, uint32_t a, uint32_t pa, uint32_t b, uint32_t pb,
                              double length_m, uint32_t *out_link);
/* Node index by name, or -1. */
int32_t myri_topo_find(const myri_topo *t, const char *name);
/* Marks a switch as an up*-then-down* root (myri_topo.root). */
myri_status myri_topo_add_root(myri_topo *t, uint32_t node);
/* Checks that the topology is usable: at least one host, every host
 * connected, all nodes connected to each other.  On failure returns
 * MYRI_EINVAL and writes a one-line reason into err (no position; err->node
 * names the node at fault when there is one). */
myri_status myri_topo_validate(const myri_topo *t, myri_error *err);
/* Number of switches. */
size_t myri_topo_nswitches(const myri_topo *t);


/* Builds the topology described by *p into a new *out. */
myri_status myri_topo_generate(const myri_topo_gen_params *p, myri_topo **out, myri_error *err);
/* Name of a generator as used in scenarios ("fat-tree"), "none" for explicit. */
const char *myri_topo_generator_name(myri_topo_generator g);

/* ---- routes -----------------------------------------------------------------
 * Up*-then-down* (Autonet; Schroeder et al. 1991, as in GM's simple_routes):
 *  - roots: myri_topo.root if set, else the switch of least eccentricity
 *    (largest hop distance to any other switch), ties to the lowest index;
 *  - rank of a switch: its hop distance from the nearest root;
 *  - a switch-to-switch hop u->v goes "up" when (rank[v], v) < (rank[u], u),
 *    else "down"; a legal route is up* then down* (never down then up);
 *  - the route of each host pair is a shortest legal path; among next hops
 *    that stay on a shortest legal path (listed in port order, c of them) the
 *    route takes number (v mod c) and continues with v = v / c, where v
 *    starts as the destination host index (destination-digit spreading, which
 *    is d-mod-k routing on a fat tree).
 * Route bytes use `encoding`.  Returns MYRI_OK, MYRI_EINVAL (no legal route
 * for some pair: reason in err; a route longer than 32 bytes) or ENOMEM. */

myri_status myri_routes_updown(const myri_topo *t, myri_route_encoding enc, myri_routes *out,
                               myri_error *err);
/* The same routes.  myri_routes_updown gives a generated fat tree or Clos
 * (myri_topo.made_by set) an arithmetic route set, O(1) to build and to read,
 * equal pair by pair to the table; myri_routes_updown_table always builds
 * the table by breadth-first search and walks (the path of every other
 * network, kept callable for tests and bench_routes). */
myri_status myri_routes_updown_table(const myri_topo *t, myri_route_encoding enc, myri_routes *out,
                                     myri_error *err);
/* True when r is an arithmetic route set (not a TABLE): up/down on a fat
 * tree or Clos with its generator's roots, or dimension order on a mesh,
 * deadlock-free by construction (docs/TOPOLOGY.md says why), so the channel
 * dependency check is not needed. */
bool myri_routes_by_construction(const myri_routes *r);
/* An arithmetic route set for t (kind not TABLE, parameters a, b, c as in
 * myri_routes), used by myri_routes_updown and myri_routes_mesh_xy, which
 * check that t is that network.  EINVAL for NULL, TABLE, no host. */
myri_status myri_routes_init_arith(myri_routes *r, const myri_topo *t, myri_route_encoding enc,
                                   myri_routes_kind kind, uint32_t a, uint32_t b, uint32_t c);
/* Sum of myri_routes_len(r, src, d) over every d != src (closed form for the
 * arithmetic kinds); 0 when misused. */
uint64_t myri_routes_len_sum(const myri_routes *r, size_t src);
void myri_routes_free(myri_routes *r); /* frees what r holds (NULL allowed); r itself is the caller's */
/* Dimension-order (x then y) routes on a network made by the `mesh` generator
 * with these parameters (seed 002, Figure 1: "the x-then-y dimension-order
 * routing illustrated eliminates cyclic dependencies").  EINVAL (reason in
 * msg) if the topology is not that mesh or a route is longer than 32 bytes. */
myri_status myri_routes_mesh_xy(const myri_topo *t, uint32_t x, uint32_t y, uint32_t per_switch,
                                myri_route_encoding enc, myri_routes *out, myri_error *err);
/* An empty route set for t (every pair without a route), first bytes
 * encoded with enc.  EINVAL (NULL, no host, more than MYRI_TOPO_MAX_HOSTS)
 * or ENOMEM, *r then empty. */
myri_status myri_routes_init(myri_routes *r, const myri_topo *t, myri_route_encoding enc);
/* Copies the route from host index src to dst into *buf and returns buf;
 * the pair (h, h) has none (len MYRI_ROUTE_NONE).  NULL if an argument is
 * NULL or an index out of range. */
const myri_route *myri_routes_get(const myri_routes *r, size_t src, size_t dst, myri_route *buf);
/* Its length alone (MYRI_ROUTE_NONE too when misused). */
uint8_t myri_routes_len(const myri_routes *r, size_t src, size_t dst);
/* Replaces the route of the pair (src, dst) alone (len MYRI_ROUTE_NONE:
 * no route).  EINVAL for src == dst, an index out of range, len above 32;
 * ENOMEM. */
myri_status myri_routes_set(myri_routes *r, size_t src, size_t dst, const myri_route *rt);
/* Route builders: sets the route to dst of every host that shares src's row
 * (after myri_routes_init: the hosts on src's switch), its first byte
 * re-encoded for each host's entry port.  Errors as myri_routes_set. */
myri_status myri_routes_set_switch(myri_routes *r, size_t src, size_t dst, const myri_route *rt);
/* Bytes of memory the route set holds. */
size_t myri_routes_memory(const myri_routes *r);
/* Output port selected by route byte b at a switch entered on port in_port
 * (of nports); -1 if the byte is not a to-switch byte. */
int myri_route_decode(uint8_t b, uint32_t in_port, uint32_t nports, myri_route_encoding enc);
uint8_t myri_route_encode(uint32_t in_port, uint32_t out_port, myri_route_encoding enc);
/* Builds route bytes from the list of output ports taken at each switch,
 * starting at host src.  Fails (EINVAL, reason in err) when a port is out of
 * range, unconnected, or the path does not end at host dst. */
myri_status myri_route_from_ports(const myri_topo *t, myri_route_encoding enc, uint32_t src_host,
                                  uint32_t dst_host, const uint32_t *ports, size_t nports,
                                  myri_route *out, myri_error *err);
/* Follows a route from host src: fills the channels crossed (channel numbers
 * 2*link or 2*link+1, at most 33) into chan, the count into *nchan, and the
 * host reached into *dst_host.  EINVAL (reason in err) if the route leaves
 * the topology, uses an unconnected port, ends at a switch or runs into a
 * host early. */
myri_status myri_route_walk(const myri_topo *t, myri_route_encoding enc, uint32_t src_host,
                            const myri_route *r, uint32_t *chan, size_t *nchan,
                            uint32_t *dst_host, myri_error *err);
/* Channel dependency graph of a route set (Dally and Seitz): true if it has
 * no cycle, i.e. the routes cannot deadlock.  Pairs with len == 0xff are
 * skipped (no route).  On a cycle, err->msg names one channel on it. */
bool myri_routes_deadlock_free(const myri_topo *t, myri_route_encoding enc,
                               const myri_routes *r, myri_error *err);
/* The channel number of node `node` sending on its port `port` (-1 if
 * unconnected). */
int64_t myri_topo_out_channel(const myri_topo *t, uint32_t node, uint32_t port);

/* ---- output ------------------------------------------------------------------ */
/* Graphviz DOT: hosts as boxes, switches as circles, one edge per link
 * labelled with its two port numbers and length. */
void myri_topo_write_dot(const myri_topo *t, FILE *out);
/* Hop diameter between hosts (switches crossed + 1), -1 if disconnected. */
int myri_topo_host_diameter(const myri_topo *t);

/* ---- scenario keys (topo_yaml.c) -----------------------------------------------
 * The `topology:` section of a scenario or network file; see docs/TOPOLOGY.md.
 * Either a generator with its parameters, or explicit hosts, switches and
 * links; optional up/down roots and explicit routes that replace the
 * computed route of their pair. */
typedef struct myri_topo_config {
    int generator;             /* myri_topo_generator */
    int64_t k, n, x, y, leaves, spines, hosts_per_switch;
    int routing;               /* 0 up-down, 1 dimension-order (mesh only) */
    double length_m;           /* 0 = the default cable length passed to the builder */
    const myri_node *hosts;    /* explicit: list of names, or a count */
    const myri_node *switches; /* explicit: list of {name, ports} */
    const myri_node *links;    /* explicit: list of {a, b, length} */
    const myri_node *roots;    /* optional list of switch names */
    const myri_node *routes;   /* optional list of {from, to, ports} */
} myri_topo_config;
extern const myri_param myri_topo_params[];
extern const size_t myri_topo_nparams;

/* The result of building a topology section. */
typedef struct myri_topo_built {
    myri_topo *topo;
    myri_routes routes;
    myri_route_encoding encoding;
    int routing;               /* myri_topo_config.routing that made the routes */
    bool deadlock_free;        /* the route set's channel dependency graph is acyclic */
    char deadlock_msg[256];    /* why not, when !deadlock_free */
} myri_topo_built;

/* What the topology takes from the rest of the scenario. */
typedef struct myri_topo_env {
    double length_m;              /* link.length: cable length when topology.length is 0 */
    uint32_t ports;               /* switch.ports if given, else 0 (generators pick) */
    myri_route_encoding encoding; /* switch.addressing */
    const myri_node *at;          /* error position when there is no topology section */
} myri_topo_env;

/* Builds the topology and its routes from a loaded section.  `section` is the
 * `topology` node (may be NULL when everything is defaulted; used for error
 * positions).  Errors
 * (unknown node, port out of range or used twice, duplicate name, bad
 * generator parameters, disconnected network, no legal route) return
 * MYRI_EINPUT with FILE:LINE:COL in err, and leave *out empty. */
myri_status myri_topo_build(const myri_topo_config *cfg, const myri_node *section,
                            const myri_topo_env *env, myri_topo_built *out, myri_error *err);
/* Loads the `topology` section of a document (other top-level keys are
 * ignored) and builds it, taking link.length (default 10 m), switch.ports
 * and switch.addressing from the document when present. */
myri_status myri_topo_load_doc(const myri_node *root, myri_topo_built *out, myri_error *err);
void myri_topo_built_free(myri_topo_built *b); /* frees topo and routes; b itself is the caller's */

/* ---- endpoints (topo_endpoint.c) -----------------------------------------------
 * How scenarios name a node or one of its ports (faults: `link`, `from`;
 * pcap.links): `NODE`, or `NODE.PORT` with PORT a decimal port number of that
 * node (node names have no '.', so the last '.' splits).  Failures return
 * MYRI_EINPUT and, when err is not NULL, a message without position naming
 * what was expected (the caller adds FILE:LINE:COL, or its own message). */
#define MYRI_TOPO_NO_PORT UINT32_MAX /* *port of an endpoint written without one */
/* Parses `s`: *node (OUT) gets the node index, *port (OUT) the port number,
 * checked against the node's port count, or MYRI_TOPO_NO_PORT for a bare
 * NODE.  MYRI_EINVAL if an argument is NULL. */
myri_status myri_topo_parse_endpoint(const myri_topo *t, const char *s, uint32_t *node, uint32_t *port,
                                     myri_error *err);
/* The link an endpoint names: NODE.PORT of a connected port, or a bare host
 * name (its port 0).  Returns the link index, or -1 (a bare switch name, an
 * unconnected port, or a parse failure; reason in err when not NULL). */
int64_t myri_topo_endpoint_link(const myri_topo *t, const char *s, myri_error *err);

#ifdef __cplusplus
}
#endif

#endif
