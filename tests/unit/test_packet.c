/* test_packet.c -- the shared packet definitions of src/common/packet.h:
 * packet ids (host and sequence number both ways, at the field limits), the
 * packet-type rule of seed 002 (first type byte has MSB 0) for every type
 * length, and that a built packet carries its type big-endian after the
 * route with a CRC trailer that leaves remainder 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/packet.h"

static void test_packet_id_round_trip(void **state)
{
    (void)state;
    const uint32_t hosts[] = {0, 1, 63, 4095, MYRI_PACKET_ID_HOST_MAX};
    const uint64_t seqs[] = {0, 1, 3, 1000000, MYRI_PACKET_ID_SEQ_MAX};
    for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++)
        for (size_t j = 0; j < sizeof seqs / sizeof seqs[0]; j++) {
            uint64_t id = myri_packet_id(hosts[i], seqs[j]);
            assert_int_equal(myri_packet_id_host(id), hosts[i]);
            assert_int_equal(myri_packet_id_seq(id), seqs[j]);
        }
    /* The layout written in scenarios and docs: (host << 40) | seq. */
    assert_int_equal(myri_packet_id(1, 0), 1ull << 40);
    assert_int_equal(myri_packet_id(1, 1), (1ull << 40) | 1);
    assert_int_equal(myri_packet_id(3, 7), (3ull << 40) | 7);
    assert_int_equal(myri_packet_id_host(0xffffffffffffffffull), 0xffffffu);
    assert_int_equal(myri_packet_id_seq(0xffffffffffffffffull), (1ull << 40) - 1);
}

static void test_packet_type_valid(void **state)
{
    (void)state;
    /* 2-byte types (GM): below 0x8000. */
    assert_true(myri_packet_type_valid(0, 2));
    assert_true(myri_packet_type_valid(MYRI_PACKET_TYPE_MYRI_DATA, 2));
    assert_true(myri_packet_type_valid(MYRI_PACKET_TYPE_GM_MAPPING, 2));
    assert_true(myri_packet_type_valid(0x7fff, 2));
    assert_false(myri_packet_type_valid(0x8000, 2));
    assert_false(myri_packet_type_valid(0xffff, 2));
    assert_false(myri_packet_type_valid(0x10000, 2)); /* does not fit */
    /* 4-byte types (VITA 26): below 0x80000000. */
    assert_true(myri_packet_type_valid(0xffff, 4));
    assert_true(myri_packet_type_valid(0x7fffffffu, 4));
    assert_false(myri_packet_type_valid(0x80000000u, 4));
    assert_false(myri_packet_type_valid(0xffffffffu, 4));
    /* 1 and 3 bytes follow the same rule; 0 and 5 bytes are not type lengths. */
    assert_true(myri_packet_type_valid(0x7f, 1));
    assert_false(myri_packet_type_valid(0x80, 1));
    assert_true(myri_packet_type_valid(0x7fffff, 3));
    assert_false(myri_packet_type_valid(0x800000, 3));
    assert_false(myri_packet_type_valid(0, 0));
    assert_false(myri_packet_type_valid(0, 5));
}

static void test_packet_build_layout(void **state)
{
    (void)state;
    myri_crc8 c;
    myri_crc8_init(&c, 0x07);
    const uint8_t route[] = {0x83, 0x85};
    const uint8_t payload[] = {1, 2, 3};
    uint8_t out[16];
    for (size_t tb = 2; tb <= 4; tb += 2) {
        size_t n = myri_packet_build(&c, myri_packet_id(2, 9), route, sizeof route, MYRI_PACKET_TYPE_GM_MAPPING, tb,
                                     payload, sizeof payload, out);
        assert_int_equal(n, sizeof route + tb + sizeof payload + 1);
        assert_int_equal(out[0], 0x83);
        assert_int_equal(out[1], 0x85);
        assert_int_equal(out[2 + tb - 2], 0x70); /* big-endian, high bytes zero */
        assert_int_equal(out[2 + tb - 1], 0x0f);
        assert_int_equal(out[2] & 0x80u, 0);     /* first type byte: MSB 0 */
        assert_int_equal(out[2 + tb], 1);
        assert_int_equal(myri_crc8_update(&c, 0, out, n), 0); /* good packet: remainder 0 */
    }
}

/* The CRC-8 of any byte string, any split into pieces, eight bytes a step
 * (slicing) equals the bit-by-bit polynomial remainder of the definition
 * (MSB first, rem(crc * x^(8 len) + bytes)), for the default and other
 * polynomials. */
static uint8_t crc_bits(uint8_t poly, uint8_t crc, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 7; k >= 0; k--) {
            unsigned top = crc & 0x80u;
            crc = (uint8_t)((crc << 1) | ((b[i] >> k) & 1u));
            if (top) crc ^= poly;
        }
    return crc;
}

static void test_crc8_slicing(void **state)
{
    (void)state;
    static const uint8_t polys[] = {7, 0x31, 0x9b, 0xd5};
    uint8_t buf[300];
    uint64_t x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        buf[i] = (uint8_t)(x >> 56);
    }
    for (size_t p = 0; p < sizeof polys; p++) {
        myri_crc8 c;
        myri_crc8_init(&c, polys[p]);
        for (size_t n = 0; n <= sizeof buf; n += n < 40 ? 1 : 37)
            for (size_t cut = 0; cut <= n; cut += 1 + n / 5) {
                uint8_t want = crc_bits(polys[p], 0, buf, n);
                uint8_t got = myri_crc8_update(&c, myri_crc8_update(&c, 0, buf, cut), buf + cut, n - cut);
                assert_int_equal(got, want);
                assert_int_equal(myri_crc8_update(&c, 0x5a, buf, n), crc_bits(polys[p], 0x5a, buf, n));
            }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_packet_id_round_trip),
        cmocka_unit_test(test_packet_type_valid),
        cmocka_unit_test(test_packet_build_layout),
        cmocka_unit_test(test_crc8_slicing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
