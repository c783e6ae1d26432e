/* echo.c -- a tiny firmware of your own for Myri's simulated NIC: every NIC
 * but host 0's echoes every packet back to the host that sent it; host 0's
 * NIC sends echo_rounds packets (50 unless the scenario sets it:
 * elf.symbols: {echo_rounds: N}) of 8 to 200 bytes to host 1 and checks each
 * echo byte for byte (counter `app`: echoes that came back whole).
 *
 * Build against the installed headers and run (README, "Your own firmware"):
 *   clang --target=lanai -O2 -ffreestanding -fno-builtin -I$PREFIX/include/myri/lanai -c echo.c
 *   myri run $PREFIX/share/myri/scenarios/pingpong.yaml --firmware echo.o
 *
 * A packet: the route bytes (SB), the type 0x0370 (SH), then the payload by
 * the send DMA from SRAM (SMP, SA, SMLT: the CRC is appended); its first
 * word is sender << 16 | sequence number.  Received into a window by the
 * receive DMA: type, payload, and the CRC byte the DMA stores (0: good). */
#include "lanai_nic.h"

unsigned echo_rounds = 50; /* a parameter: elf.symbols sets it before the program starts */

unsigned myri_node_index;
unsigned myri_nhosts;
unsigned char myri_routes[64][8];

static unsigned rx_buf[64], tx_buf[64];

static void wait_isr(unsigned bits)
{
    while (!(LANAI_ISR & bits)) {
    }
}

/* Sends the len bytes at data (SA: leading bytes of its first word skipped) to host `to`. */
static void send_to(unsigned to, unsigned data, unsigned sa, unsigned len)
{
    const unsigned char *r = myri_routes[to];
    for (unsigned i = 1; i <= r[0]; i++) LANAI_REG(MYRI_LANAI_SB) = r[i];
    LANAI_REG(MYRI_LANAI_SH) = 0x0370;
    LANAI_REG(MYRI_LANAI_SMP) = data;
    LANAI_REG(MYRI_LANAI_SA) = sa;
    LANAI_REG(MYRI_LANAI_SMLT) = data + sa + len;
    wait_isr(MYRI_LANAI_SEND_INT);
    LANAI_ISR = MYRI_LANAI_SEND_INT;
    LANAI_COUNT = LANAI_COUNT_TX_SENT;
}

/* Waits for a good packet; returns its payload's bytes (at rx_buf + 2). */
static unsigned receive(void)
{
    for (;;) {
        LANAI_REG(MYRI_LANAI_RMP) = (unsigned)rx_buf;
        LANAI_REG(MYRI_LANAI_RML) = (unsigned)rx_buf + sizeof rx_buf;
        wait_isr(MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT);
        unsigned isr = LANAI_ISR;
        LANAI_ISR = MYRI_LANAI_RECV_INT | MYRI_LANAI_BUFF_INT;
        unsigned n = LANAI_REG(MYRI_LANAI_RMP) - (unsigned)rx_buf;
        const unsigned char *b = (const unsigned char *)rx_buf;
        if (!(isr & MYRI_LANAI_RECV_INT) || n < 7) LANAI_COUNT = LANAI_COUNT_RX_OTHER;
        else if (b[n - 1] != 0) LANAI_COUNT = LANAI_COUNT_RX_CRC;
        else return LANAI_COUNT = LANAI_COUNT_RX_GOOD, n - 3;
    }
}

int main(void)
{
    const unsigned char *p = (const unsigned char *)rx_buf + 2;
    if (myri_nhosts < 2) return -1;
    if (myri_node_index != 0) {
        for (;;) { /* echo: the sender is in the payload's first word */
            unsigned len = receive();
            unsigned from = (unsigned)p[0] << 8 | p[1];
            if (from < myri_nhosts) send_to(from, (unsigned)rx_buf, 2, len);
        }
    }
    unsigned good = 0;
    for (unsigned seq = 0; seq < echo_rounds; seq++) {
        unsigned len = 8 + (seq * 12) % 196, same = 1;
        unsigned char *t = (unsigned char *)tx_buf;
        tx_buf[0] = seq;
        for (unsigned i = 4; i < len; i++) t[i] = (unsigned char)(seq + 3 * i);
        send_to(1, (unsigned)tx_buf, 0, len);
        unsigned got = receive();
        for (unsigned i = 0; i < len && got == len; i++) same &= p[i] == t[i];
        if (got == len && same) good++, LANAI_COUNT = LANAI_COUNT_APP;
    }
    return (int)good;
}
