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
/* Between tries the sender backs off (myri_prog_sleep_us: simulated time in a
 * simulation, real time live) from MYRI_IP_API0_BACKOFF_US doubling up to
 * MYRI_IP_API0_BACKOFF_MAX_US.  Assumptions: 2 us, below a 4-byte API
 * packet's simulated one-way time (16 us, bench/bench_live.sh); 200 us,
 * above an 8 KB packet's (159 us), the longest a buffer stays busy when the
 * NIC is merely slow.  At most about 12 ms then before the drop. */
#define MYRI_IP_API0_BACKOFF_US 2.0
#define MYRI_IP_API0_BACKOFF_MAX_US 200.0

typedef struct myri_ip_api0 {
    int unit, chan;
    int ip_chan;    /* the IP channel (the same on every host; MYRI_IP_CHANNEL or live.ip_channel) */
    int wait_fd;    /* libmyri-live's wake-up eventfd (myri_live_wake_fd), or -1: the driver polls */
    uint32_t self, nhosts;
    int *route_ids; /* per destination host: the API's route id (0 for self) */
} myri_ip_api0;

/* Attaches to board unit (myri_api0_init without loading an MCP: the daemon
 * runs it), takes receive channel MYRI_IP_CHANNEL, initialises it, adds
 * routes[i] (route_lens[i] bytes) for every host i != self.  0, or -1 with
 * the API's reason in err. */
int myri_ip_api0_open(myri_ip_api0 *t, int unit, uint32_t self, uint32_t nhosts, const uint8_t *const *routes,
                      const int *route_lens, char *err, size_t errlen);
/* The same with IP channel ip_chan (live.ip_channel) instead of MYRI_IP_CHANNEL. */
int myri_ip_api0_open_chan(myri_ip_api0 *t, int unit, uint32_t self, uint32_t nhosts, const uint8_t *const *routes,
                           const int *route_lens, int ip_chan, char *err, size_t errlen);
/* The largest IP packet one API packet carries: the MCP's mtu (bytes), the
 * MTU to give myri_ipns_create.  < 0: the API's code. */
int myri_ip_api0_mtu(const myri_ip_api0 *t);
/* Releases the channel and the routes' memory. */
void myri_ip_api0_close(myri_ip_api0 *t);

extern const myri_ip_ops myri_ip_api0_ops;

#endif
