/* fabric_params.c -- the fabric's parameter tables, their defaults and checks,
 * and the names of drop reasons.  See docs/FABRIC.md, "Parameters".
 */
#include "fabric/fabric_int.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parameters ---------------------------------------------------------------- */

#define OFF(f) offsetof(myri_fabric_params, f)

const myri_param myri_fabric_link_params[] = {
    {"preset", MYRI_P_ENUM, NULL, "none", NULL, NULL,
     "link generation: none (use link.rate), 1995 = 640 Mb/s (seed 002), 1280 = 1.28 Gb/s, "
     "2000 = 2 Gb/s (myrinet-facts 3.4); overrides link.rate; in a scenario it also brings slack "
     "values for its rate unless link.slack is given (assumption: docs/FABRIC.md)",
     OFF(preset), "none|1995|1280|2000"},
    {"rate", MYRI_P_RATE, "b/s", "640Mb/s", "1Mb/s", "100Gb/s",
     "data rate per channel: 80 M characters/s x 8 bits (seed 002)", OFF(rate_bps), NULL},
    {"length", MYRI_P_LENGTH, "m", "10m", "1mm", "100km",
     "cable length where the topology gives none (seed 002: <= 25 m copper)", OFF(length_m), NULL},
    {"prop_speed", MYRI_P_DOUBLE, NULL, "0.6", "0.01", "1",
     "propagation speed as a fraction of c (seed 002: ~0.6 c)", OFF(prop_speed_c), NULL},
    {"slack.size", MYRI_P_SIZE, "B", "80B", "2B", "1MB",
     "receiver slack buffer (NO SOURCE; 80 B as in the unverified UPV/UCLM model, facts 1.2)",
     OFF(slack_size_bytes), NULL},
    /* The unverified UPV/UCLM model (facts 1.2) puts STOP at 56 B of 80: that
     * leaves 24 characters, fewer than the 27 a 25 m cable needs at 12.5 ns per
     * character with our 25 ns control delay (seed 002: about 23 characters in
     * transit on a 25 m round trip).  52 B leaves 28. */
    {"slack.stop", MYRI_P_SIZE, "B", "52B", "1B", "1MB",
     "STOP line (NO SOURCE; 80 B buffer minus room for a 25 m round trip)", OFF(slack_stop_bytes), NULL},
    {"slack.go", MYRI_P_SIZE, "B", "40B", "0B", "1MB",
     "GO line (NO SOURCE; 40 B, facts 1.2 [U])", OFF(slack_go_bytes), NULL},
    {"ctrl_delay", MYRI_P_TIME, "ns", "25ns", "1ps", "1ms",
     "STOP/GO/FRES generation + decoding delay (seed 002: 'several character periods'; "
     "assumption: 2 x 12.5 ns)",
     OFF(ctrl_delay_ps), NULL},
    {"nonidle_period", MYRI_P_TIME, "us", "10us", "1ns", "1s",
     "a live sender emits a non-IDLE character at least this often; a cut link is noticed "
     "after it (seed 002 gives no value: assumption)",
     OFF(nonidle_period_ps), NULL},
    {"timeout", MYRI_P_TIME, "ms", "50ms", "1us", "100s",
     "long-period timeout for a blocked packet (seed 002: ~50 ms)", OFF(timeout_ps), NULL},
    {"ber", MYRI_P_DOUBLE, NULL, "0", "0", "0.01",
     "bit error rate per data bit (seed 002: well below 1e-15 on 25 m cables)", OFF(ber), NULL},
};
const size_t myri_fabric_link_nparams = sizeof myri_fabric_link_params / sizeof myri_fabric_link_params[0];

const myri_param myri_fabric_switch_params[] = {
    {"ports", MYRI_P_INT, NULL, "8", "4", "32",
     "default port count of generated switches: 4, 8, 16 or 32 (seed 002)", OFF(switch_ports), NULL},
    {"latency", MYRI_P_TIME, "ns", "550ns", "1ps", "1ms",
     "unloaded latency, route byte received to first byte out = route_time + fall-through (seed 002: "
     "550 ns worst-case path formation, 8 ports; pipelined crossbar: only route_time occupies the input)",
     OFF(switch_latency_ps), NULL},
    {"route_time", MYRI_P_TIME, "ns", "12.5ns", "1ps", "1ms",
     "route decision + arbitration per header, the part of switch.latency that occupies the input "
     "(ASSUMPTION: one 12.5 ns character clock of seed 002's pipelined crossbar; no source gives it); "
     "at least 1 ps: a decision takes time, and both models decode a packet strictly after the previous "
     "one's GAP left the input",
     OFF(switch_route_ps), NULL},
    {"addressing", MYRI_P_ENUM, NULL, "absolute", NULL, NULL,
     "route byte = 0x80|port (absolute) or 0x80|(out-in) (relative, facts 1.3 hypothesis)",
     OFF(addressing), "absolute|relative"},
};
const size_t myri_fabric_switch_nparams = sizeof myri_fabric_switch_params / sizeof myri_fabric_switch_params[0];

const myri_param myri_fabric_packet_params[] = {
    {"crc_poly", MYRI_P_INT, NULL, "7", "1", "255",
     "CRC-8 polynomial without the x^8 term (ASSUMPTION: 0x07 = x^8+x^2+x+1, facts 1.4 [U])",
     OFF(crc_poly), NULL},
    {"type_bytes", MYRI_P_INT, "B", "4", "2", "4",
     "packet type length: 4 (ANSI/VITA 26 types page) or 2 (GM 'packet magic'), facts 1.3",
     OFF(type_bytes), NULL},
};
const size_t myri_fabric_packet_nparams = sizeof myri_fabric_packet_params / sizeof myri_fabric_packet_params[0];

const myri_param myri_fabric_top_params[] = {
    {"model", MYRI_P_ENUM, NULL, "fast", NULL, NULL,
     "fabric model: fast (events per packet and hop) or reference (event per character)",
     OFF(model), "fast|reference"},
};
const size_t myri_fabric_top_nparams = sizeof myri_fabric_top_params / sizeof myri_fabric_top_params[0];

size_t myri_fabric_psets(myri_fabric_params *p, myri_pset out[4])
{
    out[0] = (myri_pset){"link", myri_fabric_link_params, myri_fabric_link_nparams, p};
    out[1] = (myri_pset){"switch", myri_fabric_switch_params, myri_fabric_switch_nparams, p};
    out[2] = (myri_pset){"packet", myri_fabric_packet_params, myri_fabric_packet_nparams, p};
    out[3] = (myri_pset){"", myri_fabric_top_params, myri_fabric_top_nparams, p};
    return 4;
}

void myri_fabric_params_default(myri_fabric_params *p)
{
    memset(p, 0, sizeof *p);
    myri_pset set[4];
    myri_fabric_psets(p, set);
    myri_error err;
    if (myri_params_load(set, 4, NULL, NULL, &err) != MYRI_OK) {
        /* The defaults are constants of this file; failing here is a bug. */
        fprintf(stderr, "myri: fabric parameter defaults rejected: %s\n", err.msg);
        abort();
    }
}

myri_status myri_fab_perr(myri_error *err, const char *key, const char *msg)
{
    if (err) myri_error_key(err, key, "%s", msg);
    return MYRI_EINPUT;
}

myri_status myri_fabric_params_check(myri_fabric_params *p, myri_error *err)
{
    static const double preset_bps[] = {0, 640e6, 1280e6, 2000e6};
    if (p->preset > 0 && p->preset < 4) p->rate_bps = preset_bps[p->preset];
    if (!(p->rate_bps > 0)) return myri_fab_perr(err, "link.rate", "must be positive; expected a rate such as 640Mb/s");
    double tc = 8e12 / p->rate_bps;
    if (tc < 1 || fabs(tc - floor(tc + 0.5)) > 1e-6)
        return myri_fab_perr(err, "link.rate", "must give a whole number of picoseconds per character; "
                              "expected a rate whose 8-bit character time is exact, e.g. 640Mb/s = 12500 ps");
    if (p->slack_stop_bytes > p->slack_size_bytes)
        return myri_fab_perr(err, "link.slack.stop", "above link.slack.size; expected a STOP line within the buffer");
    if (p->slack_go_bytes >= p->slack_stop_bytes)
        return myri_fab_perr(err, "link.slack.go", "not below link.slack.stop; expected a GO line under the STOP line");
    if (p->switch_ports != 4 && p->switch_ports != 8 && p->switch_ports != 16 && p->switch_ports != 32)
        return myri_fab_perr(err, "switch.ports", "unsupported port count; expected 4, 8, 16 or 32");
    if (p->switch_route_ps > p->switch_latency_ps)
        return myri_fab_perr(err, "switch.route_time", "above switch.latency; expected the route decision to be "
                              "part of the switch's latency (route_time <= latency)");
    if (p->type_bytes != 2 && p->type_bytes != 4)
        return myri_fab_perr(err, "packet.type_bytes", "unsupported length; expected 2 or 4");
    if (p->crc_poly < 1 || p->crc_poly > 255) return myri_fab_perr(err, "packet.crc_poly", "out of range; expected 1 to 255");
    if (p->prop_speed_c <= 0 || p->prop_speed_c > 1)
        return myri_fab_perr(err, "link.prop_speed", "out of range; expected a fraction of c in (0, 1]");
    return MYRI_OK;
}

/* NO SOURCE gives the slack buffers of the 1.28 and 2 Gb/s links: these are
 * an ASSUMPTION.  The 80/52/40 B layout of the defaults (the unverified
 * UPV/UCLM model, facts 1.2) is multiplied by the smallest whole factor that
 * leaves room above STOP for what arrives after STOP (fabric_core.c: control
 * delay + 2 propagation delays, in characters, + 2) on a 25 m cable (seed
 * 002's copper limit) or link.length if longer: 1995: x1 (80/52/40 B), 1280:
 * x2 (160/104/80 B), 2000: x3 (240/156/120 B) with the default control delay
 * and propagation speed. */
void myri_fabric_preset_slack(myri_fabric_params *p)
{
    static const double preset_bps[] = {0, 640e6, 1280e6, 2000e6};
    if (!p || p->preset <= 0 || p->preset > 3) return;
    double len = p->length_m > 25.0 ? p->length_m : 25.0;
    double T = 8e12 / preset_bps[p->preset];
    double prop_ps = len / (p->prop_speed_c * 299792458.0) * 1e12;
    double need = ceil(((double)p->ctrl_delay_ps + 2.0 * prop_ps) / T) + 2.0;
    double k = ceil(need / 28.0); /* 28 = 80 - 52, the defaults' room above STOP */
    if (k < 1) k = 1;
    if (k > 1000) k = 1000;
    p->slack_size_bytes = (uint64_t)(80 * k);
    p->slack_stop_bytes = (uint64_t)(52 * k);
    p->slack_go_bytes = (uint64_t)(40 * k);
}

uint64_t myri_fabric_char_ps(const myri_fabric_params *p)
{
    return (uint64_t)floor(8e12 / p->rate_bps + 0.5);
}

const char *myri_fabric_drop_name(myri_fabric_drop_reason r)
{
    static const char *const names[] = {"crc", "to_host_byte_at_switch", "unconnected_port",
                                        "misrouted", "timeout", "link_down"};
    return (unsigned)r < MYRI_FABRIC_DROP_NREASONS ? names[r] : "?";
}

