/* cmd_live.c -- `myri live FILE`: the live daemon (src/live/, docs/LIVE.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "live/live.h"
#ifdef MYRI_HAVE_IP
#include "live/ip_daemon.h"
#endif

static const char live__usage[] =
    "usage: myri live FILE [--dir DIR] [--duration SECONDS] [--record LOG] [--program [NAME=]P.so]\n"
    "                 [--ip [--ip-prefix A.B.C.D/LEN]] [--set key=value]... [--json]\n"
    "       myri live FILE --replay LOG [--program [NAME=]P.so] [--json]\n\n"
    "Runs the system scenario FILE with simulated time paced to the wall clock (live.speed simulated seconds\n"
    "per second).  Hosts whose programs: entry is `program: live` are driven by real processes linked with\n"
    "libmyri-live (`prog --myri-host h0 --myri-dir DIR`); the other hosts run their built-in programs.  A\n"
    "Unix socket per live host (DIR/NAME.sock) takes clients of the daemon's user (or live.allow).  Stops on\n"
    "SIGINT/SIGTERM, at --duration seconds of wall time or at the scenario's duration of simulated time, and\n"
    "reports the lag behind the wall clock (max, mean), its CPU time and the result hash.\n\n"
    "  --dir DIR         session folder (made with mode 0700 if missing; default: a private one under\n"
    "                    $XDG_RUNTIME_DIR or /tmp, printed on stderr and removed at the end)\n"
    "  --duration S      stop after S seconds of wall-clock time\n"
    "  --record LOG      log every external input (PIO writes, host-memory reads by the NICs, attaches) with\n"
    "                    its simulated time\n"
    "  --program P.so    a user program (myri_main) for the simulated hosts' `program: user` entries, as\n"
    "                    myri run takes it: the same source can run simulated on one host and live on another\n"
    "  --ip              the IP interface (root): a network namespace per host with a TUN device myri0\n"
    "                    (198.18.0.0/15: h0 198.18.0.1, h1 198.18.0.2, ...) and per program: live host (every\n"
    "                    host if the scenario has no programs) an IP driver on channel live.ip_channel:\n"
    "                    `ip netns exec NAME ping 198.18.0.2`; namespaces removed at the end (docs/LIVE.md)\n"
    "  --ip-prefix P     the IPv4 prefix of the hosts' addresses (default 198.18.0.0/15)\n"
    "  --replay LOG      run LOG's inputs as a plain simulation (no sockets, no pacing): same hash as the run\n"
    "                    that recorded it\n"
    "live.* keys (--set or in FILE): speed, policy (best-effort|hard-limit), max_lag, spin, allow, ip_channel; see\n"
    "myri run --help.  Exit: 0, 1 (live.max_lag passed under hard-limit, a built-in program failed, or a\n"
    "replay that did not match), 2 bad input.\n";

int myri_cmd_live(int argc, char **argv)
{
    myri_cli cli;
    const char *dir = NULL, *dur = NULL, *rec = NULL, *rep = NULL, *prog = NULL, *ip = NULL, *ip_prefix = NULL;
    const myri_cli_opt opts[] = {{"dir", true, &dir},       {"duration", true, &dur}, {"record", true, &rec},
                                 {"replay", true, &rep},    {"program", true, &prog}, {"ip", false, &ip},
                                 {"ip-prefix", true, &ip_prefix}};
    if (myri_cli_parse("live", argc, argv, &cli, opts, sizeof opts / sizeof opts[0])) return MYRI_EXIT_INPUT;
    if (cli.help) {
        fputs(live__usage, stdout);
        return MYRI_EXIT_OK;
    }
    if (cli.npositional != 1) {
        fprintf(stderr, "myri live: expected one scenario FILE\n%s", live__usage);
        return MYRI_EXIT_INPUT;
    }
    myri_live_opts o = {.dir = dir, .record_path = rec, .replay_path = rep, .program_path = prog, .json = cli.json,
                        .out = stdout, .log = stderr};
    if (dur && (myri_cli_double("live", "duration", dur, &o.duration_s) || !(o.duration_s > 0))) {
        fprintf(stderr, "myri live: --duration %s: expected seconds > 0\n", dur);
        return MYRI_EXIT_INPUT;
    }
    if (rep && rec) {
        fprintf(stderr, "myri live: --record and --replay together; expected one\n");
        return MYRI_EXIT_INPUT;
    }
    if (ip_prefix && !ip) {
        fprintf(stderr, "myri live: --ip-prefix without --ip\n");
        return MYRI_EXIT_INPUT;
    }
    o.ip = ip != NULL;
#ifdef MYRI_HAVE_IP
    myri_ip_daemon ipd = {.prefix = ip_prefix};
    myri_live_ip_hooks hooks;
    if (o.ip && !rep) { /* before anything starts: root, /dev/net/tun, ip, the driver */
        char why[600];
        if (myri_ip_daemon_check(&ipd, why, sizeof why) != 0) {
            fprintf(stderr, "myri live: --ip: %s\n", why);
            return MYRI_EXIT_INPUT;
        }
        myri_ip_daemon_hooks(&ipd, &hooks);
        o.ip_hooks = &hooks;
    }
#else
    if (o.ip && !rep) {
        fprintf(stderr, "myri live: --ip: this build has no IP interface (Linux only)\n");
        return MYRI_EXIT_INPUT;
    }
#endif
    myri_error err = {0};
    myri_node *root = NULL;
    if (myri_doc_load(cli.positional[0], &root, &err) != MYRI_OK) return myri_cli_input_error(&err);
    int rc = myri_cli_apply_sets(&cli, root);
    if (!rc && cli.have_seed) {
        char set[64];
        snprintf(set, sizeof set, "seed=%llu", (unsigned long long)cli.seed);
        if (myri_node_set(root, set, &err) != MYRI_OK) rc = myri_cli_input_error(&err);
    }
    myri_live_result res;
    if (!rc) {
        myri_status st = myri_live_run(root, &o, &res, &err);
        if (st != MYRI_OK) rc = myri_cli_exit(st, &err);
    }
    if (!rc) {
        myri_live_print(&res, &o, cli.positional[0]);
        if (res.hard_limit_hit) fprintf(stderr, "myri live: the lag passed live.max_lag: stopped (live.policy hard-limit)\n");
        rc = res.hard_limit_hit || res.worst_exit > 0 || (rep && res.bad_cmds) ? MYRI_EXIT_FAIL : MYRI_EXIT_OK;
    }
    myri_node_free(root);
    return rc;
}
