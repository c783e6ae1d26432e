/* default_scenario.c -- the built-in scenario of `myri run` (and `make run`):
 * the whole system of seed 001 -- two AlphaServers with LANai 4 cards running
 * seed 001's MCP, through one 8-port switch -- running seed 001's ping-pong
 * and then its pipelined stream through the API, every byte checked, with
 * each NIC's bottleneck named.  (The fabric sweep that was the default before
 * is scenarios/fattree64-sweep.yaml.) */
#include "app/registry.h"

const char *myri_default_scenario(void)
{
    return "# built-in default scenario: seed 001's system and two of its experiments\n"
           "# two hosts (AlphaServer 1200, 32-bit/33 MHz PCI, LANai 4.x at 33 MHz, 1 MiB SRAM)\n"
           "# through one 8-port switch at 1.28 Gb/s, running seed 001's MCP; a ping-pong up to\n"
           "# 8 KiB, then, when it has ended, 200 x 8 KiB pipelined with up to 8 in flight and one ack.\n"
           "job: system\n"
           "preset: alpha-pci-1998\n"
           "seed: 1\n"
           "topology:\n  generator: star\n  hosts_per_switch: 2\n"
           "firmware: mcp\n"
           "programs:\n"
           "  - program: pingpong\n    hosts: [h0, h1]\n"
           "    args: [\"sizes=4,64,512,1024,4096,8192\", reps=10, chan=1]\n"
           "  - program: stream\n    hosts: [h0, h1]\n    after: pingpong\n"
           "    args: [count=200, size=8192, window=8, chan=2]\n";
}
