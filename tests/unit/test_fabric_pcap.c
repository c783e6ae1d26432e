/* test_fabric_pcap.c -- `myri run --pcap`: the file reads back with libpcap
 * as DLT_USER0 with nanosecond timestamps; each record is the 8-byte
 * pseudo-header (channel, flags) and the packet exactly as on the channel:
 * route bytes still ahead, type, payload, and a CRC-8 trailer that makes the
 * remainder zero (seed 002; polynomial 0x07, the fabric's default). */
#define _DEFAULT_SOURCE 1 /* libpcap's BSD types */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pcap/pcap.h>

#include "fabric/fabric_pcap.h"
#include "common/packet.h"

typedef struct capture {
    size_t records, truncated, per_channel[64];
    uint64_t last_ns[64];
    bool ordered;
} capture;

/* Runs `myri run SCENARIO --pcap FILE` with extra --set options and reads the
 * file back, checking every record. */
static void capture_of(const char *scenario, const char *sets, size_t route_bytes_first_hop,
                       size_t payload, capture *cap)
{
    char path[] = "/tmp/myri_pcap_XXXXXX", cmd[2048];
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    snprintf(cmd, sizeof cmd, "%s run %s/scenarios/%s %s --pcap %s > /dev/null", MYRI_BINARY,
             MYRI_SOURCE_DIR, scenario, sets, path);
    assert_int_equal(system(cmd), 0);
    char errbuf[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
    assert_non_null(p);
    assert_int_equal(pcap_datalink(p), MYRI_FPCAP_DLT);
    myri_crc8 crc;
    myri_crc8_init(&crc, 0x07);
    memset(cap, 0, sizeof *cap);
    cap->ordered = true;
    struct pcap_pkthdr *h;
    const u_char *data;
    while (pcap_next_ex(p, &h, &data) == 1) {
        assert_true(h->caplen >= MYRI_FPCAP_HEADER_BYTES && h->caplen == h->len);
        uint32_t ch = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
        assert_true(ch < 64);
        /* bytes 5, 6: the run's packet.type_bytes and packet.crc_poly (both scenarios: defaults) */
        assert_int_equal(data[5], 4);
        assert_int_equal(data[6], 0x07);
        assert_int_equal(data[7], 0);
        const uint8_t *pkt = data + MYRI_FPCAP_HEADER_BYTES;
        size_t len = h->caplen - MYRI_FPCAP_HEADER_BYTES;
        if (data[4] & 1) {
            cap->truncated++;
        } else {
            /* remainder of the whole packet (trailer included) is zero */
            assert_int_equal(myri_crc8_update(&crc, 0, pkt, len), 0);
            if (ch % 2 == 0 && route_bytes_first_hop != SIZE_MAX) /* host -> switch direction */
                assert_int_equal(len, route_bytes_first_hop + 4 + payload + 1);
            size_t k = 0;
            while (k < len && (pkt[k] & 0x80)) k++; /* route bytes still ahead */
            assert_int_equal(pkt[k] & 0x80, 0);     /* the type's first byte: MSB 0 */
        }
        uint64_t ns = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
        if (cap->per_channel[ch] && ns < cap->last_ns[ch]) cap->ordered = false;
        cap->last_ns[ch] = ns;
        cap->per_channel[ch]++;
        cap->records++;
    }
    pcap_close(p);
    remove(path);
}

/* Back-to-back ping-pong: both directions of the one link, 64-byte payloads,
 * no route bytes; per channel the records come in time order. */
static void test_back_to_back(void **state)
{
    (void)state;
    capture cap;
    capture_of("back-to-back.yaml", "", 0, 64, &cap);
    assert_true(cap.records > 100);
    assert_true(cap.per_channel[0] > 50 && cap.per_channel[1] > 50);
    assert_int_equal(cap.per_channel[0] + cap.per_channel[1], cap.records);
    assert_int_equal(cap.truncated, 0);
    assert_true(cap.ordered);
}

/* One switch port chosen with pcap.links: only that link's two channels
 * appear; packets towards the hot host carry no route bytes any more. */
static void test_chosen_link(void **state)
{
    (void)state;
    capture cap;
    capture_of("hotspot8.yaml", "--set duration=200us --set pcap.links=s0.0", SIZE_MAX, 256, &cap);
    assert_true(cap.per_channel[1] > 10); /* link 0 is h0 -- s0; h0 only receives */
    assert_int_equal(cap.per_channel[0], 0);
    assert_int_equal(cap.per_channel[0] + cap.per_channel[1], cap.records);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_back_to_back),
        cmocka_unit_test(test_chosen_link),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
