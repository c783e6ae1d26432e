/* ip_api0.h -- the IP driver's transport over seed 001's API (<myri/api0.h>):
 * for an IP driver that is an ordinary client of libmyri-live (issue 21).
 * Each IP packet is one API packet: a send buffer filled and sent with
 * myri_api0_send_route_l to receive channel MYRI_IP_CHANNEL of the
 * destination; arrivals taken from that channel of this host with
 * myri_api0_recv, copied out and given back with myri_api0_free_recv.
 * Built into a library of its own (not into `myri`): it needs a live
 * implementation of the API to run (docs/LIVE-IP.md).
 */
#ifndef MYRI_LIVE_IP_API0_H
#define MYRI_LIVE_IP_API0_H

#include <stddef.h>
#include <stdint.h>

#include "live/ipdrv.h"

#define MYRI_IP_API0_RETRIES 64 /* assumption: tries of a full send queue / no free buffer before a drop */

typedef struct myri_ip_api0 {
    int unit, chan;
    uint32_t self, nhosts;
    int *route_ids; /* per destination host: the API's route id (0 for self) */
} myri_ip_api0;

/* Attaches to board unit (myri_api0_init without loading an MCP: the daemon
 * runs it), takes receive channel MYRI_IP_CHANNEL, initialises it, adds
 * routes[i] (route_lens[i] bytes) for every host i != self.  0, or -1 with
 * the API's reason in err. */
int myri_ip_api0_open(myri_ip_api0 *t, int unit, uint32_t self, uint32_t nhosts, const uint8_t *const *routes,
                      const int *route_lens, char *err, size_t errlen);
/* The largest IP packet one API packet carries: the MCP's mtu (bytes), the
 * MTU to give myri_ipns_create.  < 0: the API's code. */
int myri_ip_api0_mtu(const myri_ip_api0 *t);
/* Releases the channel and the routes' memory. */
void myri_ip_api0_close(myri_ip_api0 *t);

extern const myri_ip_ops myri_ip_api0_ops;

#endif
