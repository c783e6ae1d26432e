/* ipns.h -- the network side of live mode's IP interface (`myri live FILE
 * --ip`, issue 21): the address plan, and per host a network namespace with a
 * TUN device `myri0` in it (docs/LIVE-IP.md).
 *
 * Safety: everything is created inside namespaces this module creates itself
 * (named MYRI_IPNS_PREFIX<session>-h<i>, each with an owner file under
 * MYRI_IPNS_OWNER_DIR holding the creator's pid and start time); the
 * caller's own namespace, its interfaces and routes are never touched; a
 * namespace is removed only if its owner file names a process that no
 * longer runs (stale, from a crashed run) or is this process.
 *
 * Addresses: host i gets net + 1 + i of the plan's prefix (198.18.0.0/15 by
 * default: RFC 2544's range for network benchmarking, so h0 = 198.18.0.1,
 * h1 = 198.18.0.2); every address handed out lies inside the prefix the user
 * gave, and a plan whose hosts do not fit (network and broadcast addresses
 * excluded) is refused.  Routing: the address is set with the prefix's
 * netmask, so the kernel installs one on-link route for the whole prefix via
 * myri0 (a TUN device has no link layer, so on-link needs no neighbour
 * resolution); no route per peer is needed.
 *
 * Requires root (CAP_NET_ADMIN and CAP_SYS_ADMIN), /dev/net/tun and `ip`
 * (iproute2) to create and delete namespaces the way `ip netns exec NAME`
 * finds them (/run/netns/NAME).
 */
#ifndef MYRI_LIVE_IPNS_H
#define MYRI_LIVE_IPNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MYRI_IP_PREFIX_DEFAULT "198.18.0.0/15" /* RFC 2544 (network benchmarking) */
#define MYRI_IP_IFNAME "myri0"
#define MYRI_IPNS_PREFIX "myri-"
#define MYRI_IPNS_OWNER_DIR "/run/myri-ip"
#define MYRI_IPNS_NETNS_DIR "/run/netns" /* where `ip netns` keeps its names */
#define MYRI_IP_MAX_HOSTS 4096u          /* assumption: far above the 16-host fat tree of the issue */
#define MYRI_IP_MIN_MTU_BYTES 576u       /* RFC 791: every host must accept 576-byte datagrams */
#define MYRI_IP_MAX_MTU_BYTES 65535u     /* RFC 791: the total-length field */

/* The address plan: host i has address net + 1 + i (host byte order). */
typedef struct myri_ip_plan {
    uint32_t net;        /* network address, host byte order, host bits 0 */
    unsigned prefix_len; /* 8 .. 30 */
    uint32_t nhosts;     /* 1 .. MYRI_IP_MAX_HOSTS */
} myri_ip_plan;

/* Parses "A.B.C.D/LEN" (NULL: MYRI_IP_PREFIX_DEFAULT) for nhosts hosts.
 * Refuses a malformed prefix, host bits set, LEN outside 8..30, a prefix in
 * 0/8, 127/8 or 224/3 (this host, loopback, multicast and reserved), and a
 * prefix too small for nhosts.  0, or -1 with the reason in err. */
int myri_ip_plan_parse(myri_ip_plan *p, const char *cidr, uint32_t nhosts, char *err, size_t errlen);
/* Address of host i (host byte order). */
uint32_t myri_ip_plan_addr(const myri_ip_plan *p, uint32_t host);
/* Host index of an address (host byte order), or -1 if it is no host of the plan. */
long myri_ip_plan_host(const myri_ip_plan *p, uint32_t addr);
/* True if addr lies in the plan's prefix. */
bool myri_ip_plan_contains(const myri_ip_plan *p, uint32_t addr);
/* "198.18.0.1" into buf (16 bytes at least). */
void myri_ip_addr_str(uint32_t addr, char *buf, size_t len);

typedef struct myri_ipns_host {
    char name[64]; /* the namespace: MYRI_IPNS_PREFIX<session>-h<i> */
    int tun_fd;    /* the TUN device myri0 in it (O_NONBLOCK), -1 if none */
    bool created;  /* this process made the namespace (and its owner file) */
} myri_ipns_host;

typedef struct myri_ipns {
    char session[24];
    myri_ip_plan plan;
    uint32_t mtu_bytes;
    myri_ipns_host *hosts; /* plan.nhosts */
} myri_ipns;

/* Can this process create namespaces and TUN devices?  0, or -1 with the
 * reason (not root, no /dev/net/tun, no `ip`) in err: the caller exits 2. */
int myri_ipns_check(char *err, size_t errlen);

/* Removes the namespaces (and owner files) of earlier runs whose creator no
 * longer runs; leaves every namespace without an owner file of ours alone.
 * Says what it removed on log (may be NULL).  Returns the number removed. */
int myri_ipns_clean_stale(FILE *log);

/* Creates, for every host of plan, the namespace, lo up, the TUN device
 * myri0 (IFF_TUN | IFF_NO_PI) opened from inside it, MTU mtu_bytes, the
 * host's address with the prefix's netmask, IPv6 off on myri0, TSO, GSO, GRO
 * and TX checksum offload off (checked back).  session: letters, digits
 * and '_' only, at most 16 (NULL: the pid).  On failure everything made so
 * far is removed; -1 with the reason in err. */
int myri_ipns_create(myri_ipns *ns, const myri_ip_plan *plan, uint32_t mtu_bytes, const char *session,
                     char *err, size_t errlen);
/* Closes the TUN devices, deletes the namespaces this process created and
 * their owner files.  Safe on a zeroed or half-made myri_ipns. */
void myri_ipns_destroy(myri_ipns *ns);

#endif
