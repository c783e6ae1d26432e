/* ip_wire.h -- a transport for the IP driver that needs no Myrinet: the
 * hosts' drivers connected in-process, each host by a SOCK_SEQPACKET
 * socketpair to a wire thread that holds every packet for a fixed delay
 * (constant, so packets stay in order) and hands it to the destination's
 * socket.  Each message carries the frame header an API packet of seed
 * 001's MCP would (type 0x0370, subtype FST_API0_DATA, channel
 * MYRI_IP_CHANNEL), checked on arrival as the MCP would.  For tests
 * (tests/ip_bridge.c) and for measuring the IP stack without the simulator.
 */
#ifndef MYRI_LIVE_IP_WIRE_H
#define MYRI_LIVE_IP_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "live/ipdrv.h"

typedef struct myri_ipwire myri_ipwire;

/* nhosts ports, one-way delay delay_ns (0: none), packets up to mtu_bytes.
 * NULL with the reason in err. */
myri_ipwire *myri_ipwire_new(uint32_t nhosts, uint64_t delay_ns, size_t mtu_bytes, char *err, size_t errlen);
/* The ctx to give myri_ipwire_ops for host i's driver (one driver per port). */
void *myri_ipwire_port(myri_ipwire *w, uint32_t host);
/* Stops the wire threads and frees everything (drivers stopped first). */
void myri_ipwire_free(myri_ipwire *w);

extern const myri_ip_ops myri_ipwire_ops;

#endif
