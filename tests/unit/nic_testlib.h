/* nic_testlib.h -- the bus and LANai parameters the NIC tests build with
 * (the alpha-pci-1998 values of the parameter tables, spelled out so that a
 * change of a default does not silently change what a test checks). */
#ifndef MYRI_TEST_NIC_TESTLIB_H
#define MYRI_TEST_NIC_TESTLIB_H

#include "fabric/fabric.h"
#include "nic/bus.h"
#include "nic/lanai.h"

static inline myri_bus_params nt_bus_params(void)
{
    return (myri_bus_params){.dma_rate_Bps = 120e6, .burst_bytes = 256, .dma_setup_ps = 500000,
                             .pio_read_ps = 1000000, .pio_write_ps = 120000};
}

/* 1 MiB of SRAM, 33 MHz, a 500 ns RTC tick, and the fabric's type length and character time. */
static inline myri_lanai_params nt_lanai_params(const myri_fabric_params *fp)
{
    return (myri_lanai_params){.sram_bytes = 1 << 20, .clock_hz = 33e6, .rtc_tick_ps = 500000,
                               .type_bytes = fp->type_bytes, .link_char_ps = myri_fabric_char_ps(fp)};
}

#endif
