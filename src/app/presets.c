/* presets.c -- named system parameter sets with their sources (presets.h). */
#include "app/presets.h"
#include "firmware/firmware.h"

#include <stdio.h>
#include <string.h>

/* seed 001: two AlphaServer 1200 (533 MHz), PCI Myrinet cards with the LANai
 * 4.x, one 8-port switch, 160 MB/s per direction. */
static const myri_preset_value preset__alpha[] = {
    {"link.preset", "1280", "seed 001: \"160 MB/s in each direction\"; with that rate's slack (docs/FABRIC.md)",
     "link.rate"},
    {"packet.type_bytes", "2", "seed 001, figure 2: the type field is two bytes (CRL type 0x0370)", NULL},
    {"switch.ports", "8", "seed 001: the two machines \"were connected through a Myrinet 8-way switch\"", NULL},
    {"nic.clock", "33e6", "seed 001: \"the LANai processor, a 33MHz pipelined 32-bit microprocessor\"", NULL},
    {"nic.sram", "1MiB", "myrinet-facts 3.3: 1 MB on LANai 4.x PCI cards (USENIX NT'99, Chen et al.)", NULL},
    {"bus.burst", "256B", "myrinet-facts 3.3: GM's default PCI burst of 256 bytes (SISSA notes)", NULL},
    {"bus.dma_rate", "120e6", "assumption: 90 % of the 132 MB/s 32-bit/33 MHz PCI ceiling (myrinet-facts 3.3)", NULL},
    {"bus.dma_setup", "500ns", "assumption, no source gives it: about 16 LANai cycles at 33 MHz from the DMA_CTR write "
                               "to the first burst", NULL},
    {"bus.pio_read", "1us",
     "assumption: a read of SRAM crosses the host bridge and PCI both ways and holds the bus meanwhile; seed 001 says "
     "only that access to SRAM \"is relatively slow\"; decides the cost of polling SRAM (reproduce seed001: "
     "notification's DMA-rate gain)", NULL},
    {"bus.pio_write", "120ns", "assumption: a one-word posted write holds 33 MHz PCI about 4 cycles", NULL},
    {"bus.pio_word", "30ns", "one PCI data phase at 33 MHz per further word of a burst (myrinet-facts 3.3)", NULL},
    {"bus.pio_merge", "32B",
     "Alpha 21164: non-cached stores merge in 32-byte write-buffer entries; a PCI dense-space write is a burst of "
     "at most 8 longwords (21164PC Hardware Reference Manual 4.3.4; AlphaPC 164 CIA specification)", NULL},
    {"bus.pio_posted", "6", "Alpha 21164: six write-buffer entries (21164PC Hardware Reference Manual 2.7.4); seed "
                            "001: the 4100's gain \"is made in the areas where the processor writes across the PCI "
                            "bus in a PIO fashion\"", NULL},
    {"host.api_call", "300ns", "assumption: about 160 instructions at 533 MHz a call (seed 001 gives no figure)", NULL},
    {"mcp.pio_bytes", "256B",
     "assumption: seed 001 gives only \"a compile time constant\"; PIO still wins at 256 B and loses by 512 B with "
     "bus.pio_* above (myri bench latency --set mcp.pio_bytes=0 or =1024)", NULL},
};

/* seed 002, Table 1: SPARC-2 with a 20 MHz SBus, 16-word bursts, the
 * first-generation 640 Mb/s channel and the 128 KB SBus board. */
static const myri_preset_value preset__sparc2[] = {
    {"link.preset", "1995", "seed 002: 640 Mb/s per channel (myrinet-facts 3.4)", "link.rate"},
    {"packet.type_bytes", "2", "assumption: seed 001's MCP frame (two-byte type) run on this board", NULL},
    {"switch.ports", "8", "seed 002: 4- and 8-port switches in 1995", NULL},
    {"nic.sram", "128KiB", "seed 002: 32K x 32 SRAM on the SBus board (myrinet-facts 3.3)", NULL},
    {"nic.clock", "25e6", "assumption: no source gives this LANai's clock; slower than the 33 MHz LANai 4", NULL},
    {"bus.dma_rate", "55.5e6",
     "fitted to seed 002 Table 1's DMA data rate, 444 Mb/s = 55.5 MB/s (so `myri reproduce seed002` reports that "
     "row as calibrated)", NULL},
    {"bus.burst", "64B", "seed 002, Table 1: 16-word SBus bursts", NULL},
    {"bus.pio_posted", "0", "assumption: no source gives the SPARC-2's store buffer; its CPU waits for every PIO "
                            "word (the model before issue 20, whose figures docs/SYSTEM.md gives)", NULL},
    {"bus.pio_merge", "4B", "assumption, as bus.pio_posted: no merging of PIO stores into SBus bursts", NULL},
    {"host.api_call", "3us", "assumption: a SPARC-2 (~28 MIPS) is ~10x slower than alpha-pci-1998's Alpha", NULL},
    {"bus.pio_read", "500ns",
     "assumption: ten 20 MHz SBus cycles for a single-word read of the board (translation, slave latency); "
     "the raw speed-test row of seed 002 Table 1 depends on it (myri reproduce seed002)", NULL},
    {"mcp.packet_cycles", "3800",
     "fitted to seed 002 Table 1: the Myrinet API reaches 250 Mb/s with 8 KB packets, \"limited by the number "
     "of instructions the interface's processor executes to handle each packet\" (152 us at 25 MHz; "
     "`myri reproduce seed002` reports that row as calibrated)", NULL},
    {"mcp.rx_pool", "8",
     "seed 002: the board's 128 KB SRAM (myrinet-facts 3.3) holds the HCB, 4 tx and 8 rx buffers of 8 KB; "
     "assumption on the split", NULL},
};

/* Seed 004's NIC: the costs are Table 2's measured service times (4 KB
 * blocks) on a LANai 4 running the lcp with VIA. */
static const myri_preset_value preset__seed004[] = {
    {"link.preset", "1995", "assumption: seed 004 gives NSDMA's time, not the link; a 640 Mb/s-generation link", NULL},
    {"link.rate", "623.4Mb/s",
     "fitted to seed 004 Table 2: NSDMA 52.6887 us per 4 KB block = 4106 bytes on the wire (route 1, VIA header "
     "8, data 4096, CRC 1) at 77.93 MB/s", NULL},
    {"packet.type_bytes", "2", "the VIA frame's two-byte type (common/via.h)", NULL},
    {"switch.ports", "8", "assumption: one 8-port switch between sender and receiver", NULL},
    {"nic.clock", "33e6", "LANai 4 at 33 MHz (myrinet-facts 3.3); seed 004 gives times, not the clock", NULL},
    {"bus.dma_setup", "20.627us",
     "fitted to seed 004 Table 2 (two equations, solved exactly): HDMA 21 us per doorbell (fetching its 32-byte "
     "descriptor) and 68.3154 us per descriptor (fetching its 4 KB): setup + 32 B / rate = 21 us and "
     "setup + 4096 B / rate = 68.3154 us; it also prices the 16-byte completion (20.81 us), which Table 2 leaves "
     "out", NULL},
    {"bus.dma_rate", "85.891e6", "fitted to seed 004 Table 2, as bus.dma_setup: 4064 B / 47.3154 us", NULL},
    {"bus.pio_posted", "0", "assumption: seed 004 gives no host; its CPU waits for every PIO word (the model "
                            "before issue 20)", NULL},
    {"bus.pio_merge", "4B", "assumption, as bus.pio_posted: no merging of PIO stores", NULL},
    {"lcp.db_cycles", "716", "seed 004 Table 2: LANai 22 us per doorbell = 726 cycles at 33 MHz, less the rule's "
                             "fixed 10", NULL},
    {"lcp.desc_cycles", "0", "seed 004 Table 2: LANai 0.12 us per descriptor = 4 cycles, about the rule's fixed 6",
     NULL},
    {"lcp.sdma_cycles", "326", "seed 004 Table 2: LANai 10 us to program NSDMA = 330 cycles at 33 MHz, less the "
                               "rule's fixed 4", NULL},
    {"myricom.db_cycles", "716", "seed 004 Table 2: LANai 22 us per doorbell = 726 cycles at 33 MHz, less the "
                                 "rule's fixed 10 (take_doorbell)", NULL},
    {"myricom.desc_cycles", "0", "seed 004 Table 2: LANai 0.12 us per descriptor = 4 cycles; the rule's fixed 20 "
                                 "(0.6 us) already exceeds it", NULL},
    {"myricom.sdma_cycles", "320", "seed 004 Table 2: LANai 10 us to program NSDMA = 330 cycles at 33 MHz, less the "
                                   "rule's fixed 10 (netSend's send)", NULL},
};

static const myri_preset presets[] = {
    {"alpha-pci-1998", "seed 001's AlphaServer 1200 + 32-bit/33 MHz PCI + LANai 4.x (33 MHz, 1 MiB) + 1.28 Gb/s",
     preset__alpha, sizeof preset__alpha / sizeof preset__alpha[0]},
    {"sparc2-sbus-1994", "seed 002's SPARC-2 + 20 MHz SBus + 128 KiB LANai board + 640 Mb/s", preset__sparc2,
     sizeof preset__sparc2 / sizeof preset__sparc2[0]},
    {"seed004", "seed 004's NIC: Table 2's service times as the costs of a LANai 4 running the lcp with VIA",
     preset__seed004, sizeof preset__seed004 / sizeof preset__seed004[0]},
};

const myri_preset *myri_preset_find(const char *name)
{
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
        if (!strcmp(presets[i].name, name)) return &presets[i];
    return NULL;
}

const myri_preset *myri_preset_at(size_t i) { return i < sizeof presets / sizeof presets[0] ? &presets[i] : NULL; }

const char *myri_preset_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0; myri_preset_at(i); i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? "|" : "", presets[i].name);
    return names;
}

/* The table and parameter of a dotted key, or false. */
static bool preset__lookup(const myri_pset *set, size_t nset, const char *key, const myri_pset **s,
                           const myri_param **p)
{
    for (size_t i = 0; i < nset; i++) {
        size_t pl = strlen(set[i].prefix);
        if (pl && (strncmp(key, set[i].prefix, pl) != 0 || key[pl] != '.')) continue;
        const char *rest = pl ? key + pl + 1 : key;
        for (size_t k = 0; k < set[i].n; k++)
            if (!strcmp(set[i].params[k].name, rest)) {
                *s = &set[i];
                *p = &set[i].params[k];
                return true;
            }
    }
    return false;
}

/* True if key is FIRMWARE.name for a firmware of the registry. */
static bool preset__other_firmware(const char *key)
{
    const char *dot = strchr(key, '.');
    char fw[32];
    if (!dot || (size_t)(dot - key) >= sizeof fw) return false;
    memcpy(fw, key, (size_t)(dot - key));
    fw[dot - key] = '\0';
    return myri_fw_find(fw) != NULL;
}

myri_status myri_preset_apply(const myri_preset *p, const myri_pset *set, size_t nset, const myri_node *root,
                              myri_error *err)
{
    if (!p) return MYRI_OK;
    for (size_t i = 0; i < p->n; i++) {
        const myri_preset_value *v = &p->values[i];
        if (root && myri_node_path(root, v->key)) continue; /* the document wins */
        if (root && v->unless && myri_node_path(root, v->unless)) continue;
        const myri_pset *s;
        const myri_param *prm;
        if (!preset__lookup(set, nset, v->key, &s, &prm)) {
            if (preset__other_firmware(v->key)) continue; /* a firmware's key, and another firmware runs */
            if (err) myri_error_key(err, v->key, "preset %s sets a key no table has", p->name);
            return MYRI_EINPUT;
        }
        myri_node n = {.kind = MYRI_NODE_SCALAR, .file = "preset", .scalar = (char *)v->value};
        myri_status st = myri_param_parse(prm, &n, s->out, err);
        if (st) {
            if (err) myri_error_set_key(err, v->key);
            return MYRI_EINPUT;
        }
    }
    return MYRI_OK;
}

void myri_preset_print(const myri_preset *p, FILE *out)
{
    if (!p) return;
    fprintf(out, "preset %s:\n  %s\n", p->name, p->summary);
    for (size_t i = 0; i < p->n; i++) {
        fprintf(out, "  %-18s = %s\n", p->values[i].key, p->values[i].value);
        /* the source in parentheses, wrapped at word boundaries within 100 columns */
        const char *src = p->values[i].source;
        size_t len = strlen(src), pos = 0;
        while (pos < len) {
            size_t n = len - pos;
            if (n > 90) {
                n = 90;
                while (n > 0 && src[pos + n] != ' ') n--;
                if (n == 0) n = 90;
            }
            fprintf(out, "      %s%.*s%s\n", pos ? " " : "(", (int)n, src + pos, pos + n >= len ? ")" : "");
            pos += n;
            while (pos < len && src[pos] == ' ') pos++;
        }
    }
}
