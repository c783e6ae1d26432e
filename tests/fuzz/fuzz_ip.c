/* fuzz_ip.c -- libFuzzer target for the IP driver's validation of what
 * arrives from the network (src/live/ipdrv.c, issue 21).
 *
 * Input: byte 0 picks the mode and the receiving host, the rest is a packet
 * as a transport would deliver it.  Mode bit 7 set: the rest (up to 40
 * bytes, made a string) is parsed as an address prefix instead.  The
 * inbound and outbound checks and the checksum run on the packet for a
 * 4-host plan in 198.18.0.0/15 and for a /30; a packet the inbound check
 * accepts must be one the TUN device can take: IPv4, header in bounds, total
 * length equal to the packet's, within the MTU, to the receiving host's
 * address -- else abort().  Crashes and sanitizer reports are bugs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "live/ipdrv.h"
#include "live/ipns.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fz_packet(const myri_ip_plan *plan, uint32_t self, size_t mtu, const uint8_t *p, size_t len)
{
    myri_ipdrv_reason r = myri_ipdrv_check_inbound(plan, self, mtu, p, len);
    if (r < MYRI_IPDRV_OK || r >= MYRI_IPDRV_NREASONS) abort();
    if (r == MYRI_IPDRV_OK) {
        size_t ihl = (size_t)(p[0] & 15u) * 4u;
        uint32_t dst = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19];
        if (len < 20 || len > mtu || p[0] >> 4 != 4 || ihl < 20 || ihl > len ||
            ((size_t)p[2] << 8 | p[3]) != len || dst != myri_ip_plan_addr(plan, self))
            abort();
    }
    uint32_t to = UINT32_MAX;
    r = myri_ipdrv_check_outbound(plan, self, mtu, true, p, len, &to);
    if (r == MYRI_IPDRV_OK && (to >= plan->nhosts || to == self)) abort();
    (void)myri_ip_csum_ok(p, len);
    if (strcmp(myri_ipdrv_reason_name((int)r), "unknown") == 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    char err[256];
    if (data[0] & 0x80u) {
        char s[41];
        size_t n = size - 1 < 40 ? size - 1 : 40;
        memcpy(s, data + 1, n);
        s[n] = 0;
        myri_ip_plan p;
        if (myri_ip_plan_parse(&p, s, (data[0] & 0x7fu) + 1u, err, sizeof err) == 0) {
            for (uint32_t i = 0; i < p.nhosts; i++)
                if (myri_ip_plan_host(&p, myri_ip_plan_addr(&p, i)) != (long)i) abort();
        }
        return 0;
    }
    myri_ip_plan a, b;
    if (myri_ip_plan_parse(&a, NULL, 4, err, sizeof err) < 0 ||
        myri_ip_plan_parse(&b, "198.19.255.252/30", 2, err, sizeof err) < 0)
        abort();
    fz_packet(&a, data[0] & 3u, 8192, data + 1, size - 1);
    fz_packet(&a, data[0] & 3u, 576, data + 1, size - 1);
    fz_packet(&b, data[0] & 1u, 8192, data + 1, size - 1);
    return 0;
}
