/* pingpong.c -- a tiny firmware for Myri's simulated NIC, in C compiled for
 * the LANai (clang --target=lanai; docs/LANAI.md "On the NIC").
 *
 * Host 0's NIC sends a small packet to host 1 and waits for it to come
 * back, PINGPONG_ROUNDS times, counting each round trip (counter `app`);
 * every other NIC echoes every packet it receives to the NIC that sent it.
 * A packet is the type 0x0370, one word (sender << 16 | sequence number)
 * and one tail byte; sent by PIO (SB route bytes, SH, SW, ST: the tail),
 * received by the receive DMA into a window, its CRC checked by the
 * trailer byte the DMA stores (0: good). */
#include "lanai_nic.h"

#ifndef PINGPONG_ROUNDS
#define PINGPONG_ROUNDS 100
#endif

unsigned myri_node_index;
unsigned myri_nhosts;
unsigned char myri_routes[64][8];

static unsigned rx_buf[16];
unsigned pingpong_rounds_done; /* read by tests through the counters */

static void wait_isr(unsigned bits)
{
    while (!(LANAI_ISR & bits)) {
    }
}

static void send_to(unsigned to, unsigned word)
{
    const unsigned char *r = myri_routes[to];
    unsigned n = r[0];
    for (unsigned i = 1; i <= n; i++) LANAI_REG(MYRI_LANAI_SB) = r[i];
    LANAI_REG(MYRI_LANAI_SH) = 0x0370;
    LANAI_REG(MYRI_LANAI_SW) = word;
    LANAI_REG(MYRI_LANAI_ST) = 0;
    wait_isr(MYRI_LANAI_SEND_INT); /* the tail left */
    LANAI_ISR = MYRI_LANAI_SEND_INT;
    LANAI_COUNT = LANAI_COUNT_TX_SENT;
}

/* Waits for one packet; returns its word, or 0xffffffff for a bad one. */
static unsigned receive(void)
{
    for (;;) {
        LANAI_REG(MYRI_LANAI_RMP) = (unsigned)rx_buf;
        LANAI_REG(MYRI_LANAI_RML) = (unsigned)rx_buf + sizeof rx_buf;
        wait_isr(MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT);
        unsigned isr = LANAI_ISR;
        LANAI_ISR = MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT;
        unsigned len = LANAI_REG(MYRI_LANAI_RMP) - (unsigned)rx_buf;
        const unsigned char *b = (const unsigned char *)rx_buf;
        if (!(isr & MYRI_LANAI_RECV_INT) || len != 8) {
            LANAI_COUNT = LANAI_COUNT_RX_OTHER; /* not one of ours: too long or short */
            continue;
        }
        if (b[len - 1] != 0) {
            LANAI_COUNT = LANAI_COUNT_RX_CRC;
            continue;
        }
        LANAI_COUNT = LANAI_COUNT_RX_GOOD;
        return (unsigned)b[2] << 24 | (unsigned)b[3] << 16 | (unsigned)b[4] << 8 | b[5];
    }
}

int main(void)
{
    unsigned me = myri_node_index;
    if (myri_nhosts < 2) return -1;
    if (me == 0) {
        for (unsigned seq = 0; seq < PINGPONG_ROUNDS; seq++) {
            send_to(1, seq);
            unsigned w;
            do
                w = receive();
            while ((w & 0xffffu) != seq);
            pingpong_rounds_done++;
            LANAI_COUNT = LANAI_COUNT_APP;
        }
        return (int)pingpong_rounds_done;
    }
    for (;;) {
        unsigned w = receive();
        unsigned from = w >> 16;
        if (from < myri_nhosts) send_to(from, (me << 16) | (w & 0xffffu));
    }
}
