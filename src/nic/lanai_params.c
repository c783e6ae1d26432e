/* lanai_params.c -- the nic.* parameter table (alpha-pci-1998 defaults). */
#include <stddef.h>

#include "nic/lanai.h"

const myri_param myri_lanai_param_table[] = {
    {"sram", MYRI_P_SIZE, "B", "1MiB", "64B", "2GiB",
     "the NIC's SRAM (MCP, HCB, packet buffers); 1 MB on LANai 4.x PCI cards (myrinet-facts 3.3)",
     offsetof(myri_lanai_params, sram_bytes), NULL},
    {"clock", MYRI_P_DOUBLE, "Hz", "33e6", "1e3", "1e12",
     "the LANai CPU clock (33MHz, or a plain number in Hz): a firmware step of c cycles keeps the CPU busy for "
     "c / clock; 33 MHz LANai 4.x (seed 001)",
     offsetof(myri_lanai_params, clock_hz), NULL},
    {"rtc_tick", MYRI_P_TIME, "ns", "500ns", "1ps", "1s",
     "one RTC count and one interrupt-timer (IT) count; assumption, the seeds and facts give no LANai 4 "
     "RTC period: 0.5 us, the RTC unit GM's firmware works in as we recall it (not verified)",
     offsetof(myri_lanai_params, rtc_tick_ps), NULL},
};
const size_t myri_lanai_nparams = sizeof myri_lanai_param_table / sizeof myri_lanai_param_table[0];
