/* system_job.c -- the `system` job: hosts, programs, API, LANai NICs with
 * their firmware, on the fabric (system_job.h, docs/SYSTEM.md). */
#include "app/system_job.h"

#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/presets.h"
#include "app/system_int.h"
#include "app/system_vcd.h"
#include "fabric/fabric.h"
#include "firmware/firmware.h"
#include "firmware/fw_elf.h"
#include "firmware/mcp_map.h"
#include "host/host.h"
#include "nic/bus.h"
#include "nic/lanai.h"

/* ---- configuration ---------------------------------------------------------- */

static const myri_param sys__top_params[] = {
    {"preset", MYRI_P_STRING, NULL, "alpha-pci-1998", NULL, NULL,
     "system preset: alpha-pci-1998 (seed 001), sparc2-sbus-1994 (seed 002) or seed004 (seed 004's Table 2); its "
     "values replace the defaults "
     "of keys the scenario does not set (myri run --help lists them with their sources)",
     offsetof(myri_sys_cfg, preset), NULL},
    {"firmware", MYRI_P_STRING, NULL, "mcp", NULL, NULL,
     "firmware every NIC runs (its parameters under FIRMWARE.*): mcp = seed 001's MCP (programs pingpong, latency, "
     "stream, traffic); lcp = Berkeley VIA's LCP, myricom = Myricom's MCP as seed 000 models it (VIA programs "
     "via-stream, via-poisson); elf = C compiled for the LANai (elf.objects, docs/LANAI.md)",
     offsetof(myri_sys_cfg, firmware), NULL},
    {"programs", MYRI_P_NODE, NULL, "", NULL, NULL,
     "list of {program, hosts, args, start}: which program runs on which hosts", offsetof(myri_sys_cfg, programs),
     NULL},
    {"check_firmware", MYRI_P_BOOL, NULL, "false", NULL, NULL,
     "compare every firmware action with its table row's effects (docs/FIRMWARE.md); the results count the "
     "actions checked and the mismatches per NIC (nic.fw_checked, nic.fw_mismatches)",
     offsetof(myri_sys_cfg, check_firmware), NULL},
};

typedef struct sys__prog {
    const char *program;
    const myri_node *hosts, *args;
    uint64_t start_ps;
    const char *after;
} sys__prog;

static const myri_param sys__prog_params[] = {
    {"program", MYRI_P_STRING, NULL, NULL, NULL, NULL,
     "a built-in program (pingpong, latency, stream, traffic; via-stream, via-poisson, via-selftest with lcp or "
     "myricom) or `user` (the --program FILE.so)",
     offsetof(sys__prog, program), NULL},
    {"hosts", MYRI_P_NODE, NULL, "all", NULL, NULL, "`all`, a host name, or a list of host names",
     offsetof(sys__prog, hosts), NULL},
    {"args", MYRI_P_NODE, NULL, "", NULL, NULL, "the program's arguments: a list of key=value words",
     offsetof(sys__prog, args), NULL},
    {"start", MYRI_P_TIME, "us", "0us", "0ns", NULL,
     "when the program starts (with `after`: how long after that entry's programs have all returned)",
     offsetof(sys__prog, start_ps), NULL},
    {"after", MYRI_P_STRING, NULL, "", NULL, NULL,
     "the program of an earlier entry: this entry starts when every instance of it has returned",
     offsetof(sys__prog, after), NULL},
};

/* The keys every scenario has, with the system job's own `duration`: a
 * limit, 10 s by default (the run ends when the last program returns). */
static const myri_param sys__common_params[] = {
    {"seed", MYRI_P_UINT, "", "1", "0", "18446744073709551615", "seed of all random streams of the run",
     offsetof(myri_scenario_common, seed), NULL},
    {"duration", MYRI_P_TIME, "ns", "10s", "1ps", NULL,
     "a limit: the run ends when the last program returns, or here (programs still running fail the run)",
     offsetof(myri_scenario_common, duration_ps), NULL},
    {"warmup", MYRI_P_TIME, "ns", "0", "0", NULL, "not used by the system job (programs measure what they report)",
     offsetof(myri_scenario_common, warmup_ps), NULL},
    {"job", MYRI_P_STRING, "", "", NULL, NULL, "what `myri run` does with the scenario: system here",
     offsetof(myri_scenario_common, job), NULL},
};

/* Builds the parameter sets (the firmware's table under its name). */
static void sys__psets(myri_sys_cfg *c)
{
    size_t n = 0;
    c->ps[n++] = (myri_pset){"", sys__common_params, sizeof sys__common_params / sizeof sys__common_params[0],
                             &c->common};
    c->ps[n++] = (myri_pset){"", sys__top_params, sizeof sys__top_params / sizeof sys__top_params[0], c};
    n += myri_fabric_psets(&c->fp, c->ps + n);
    c->ps[n++] = (myri_pset){"topology", myri_topo_params, myri_topo_nparams, &c->topo};
    c->ps[n++] = (myri_pset){"nic", myri_lanai_param_table, myri_lanai_nparams, &c->nic};
    c->ps[n++] = (myri_pset){"bus", myri_bus_param_table, myri_bus_nparams, &c->bus};
    c->ps[n++] = (myri_pset){"host", myri_host_param_table, myri_host_nparams, &c->host};
    c->ps[n++] = (myri_pset){"", myri_ffaults_params, myri_ffaults_nparams, &c->faults};
    if (c->fw) c->ps[n++] = (myri_pset){c->fw->name, c->fw->params, c->fw->nparams, c->fwp};
    if (c->fw == &myri_fw_elf_def) c->ps[n++] = (myri_pset){"mcp", myri_mcp_param_table, myri_mcp_nparams, &c->elf_mcp};
    c->ps[n++] = (myri_pset){"", myri_sysmap_top_params, myri_sysmap_ntop, &c->mapping};
    c->ps[n++] = (myri_pset){"map", myri_sysmap_params, myri_sysmap_nparams, &c->map};
    c->ps[n++] = (myri_pset){"pcap", myri_fpcap_params, myri_fpcap_nparams, &c->pcap};
    c->ps[n++] = (myri_pset){"sweep", myri_sweep_params, myri_sweep_nparams, &c->sweep};
    c->ps[n++] = (myri_pset){"live", myri_live_param_table, myri_live_nparams, &c->live};
    c->nps = n;
}

void myri_sys_cfg_free(myri_sys_cfg *c)
{
    if (!c) return;
    free(c->fwp);
    c->fwp = NULL;
}

/* The firmware named by the document (before the tables are loaded). */
static myri_status sys__firmware(myri_sys_cfg *c, const myri_node *root, myri_error *err)
{
    const myri_node *n = root ? myri_node_get(root, "firmware") : NULL;
    const char *name = "mcp";
    if (n) {
        if (n->kind != MYRI_NODE_SCALAR) return myri_error_at(err, n, "firmware: expected a firmware name"), MYRI_EINPUT;
        name = n->scalar;
    }
    c->fw = myri_fw_find(name);
    if (!c->fw) {
        char names[256] = "";
        for (size_t i = 0; i < myri_fw_ndefs(); i++) {
            if (i) strncat(names, ", ", sizeof names - strlen(names) - 1);
            strncat(names, myri_fw_at(i)->name, sizeof names - strlen(names) - 1);
        }
        myri_error_at(err, n, "unknown firmware '%s'; expected one of: %s", name, names);
        myri_error_set_key(err, "firmware");
        return MYRI_EINPUT;
    }
    c->fwp = calloc(1, c->fw->params_size ? c->fw->params_size : 1);
    if (!c->fwp) return MYRI_ENOMEM;
    if (c->fw->params_default) c->fw->params_default(c->fwp);
    myri_mcp_params_default(&c->elf_mcp);
    if (c->fw == &myri_fw_elf_def) myri_fw_elf_use_mcp(c->fwp, &c->elf_mcp, root ? myri_node_get(root, "mcp") : NULL);
    return MYRI_OK;
}

myri_status myri_sys_cfg_load(myri_sys_cfg *c, const myri_node *root, myri_error *err)
{
    memset(c, 0, sizeof *c);
    myri_status st = sys__firmware(c, root, err);
    if (st) return st;
    sys__psets(c);
    if ((st = myri_params_load(c->ps, c->nps, root, NULL, err)) != MYRI_OK) return st;
    const myri_preset *p = myri_preset_find(c->preset);
    if (!p) {
        myri_error_at(err, root ? myri_node_get(root, "preset") : NULL, "unknown preset '%s'; expected one of: %s",
                      c->preset, myri_preset_names());
        myri_error_set_key(err, "preset");
        return MYRI_EINPUT;
    }
    if ((st = myri_preset_apply(p, c->ps, c->nps, root, err)) != MYRI_OK) return st;
    c->fw_named = c->fw;
    /* topology.length not given: the cables are link.length long, and the echo says so (running the echo
     * runs the same; an explicit 0 m stays an error) */
    c->topo_len_follows = c->topo.length_m <= 0 && !(root && myri_node_path(root, "topology.length"));
    return myri_sys_cfg_derive(c, root, err);
}

myri_status myri_sys_cfg_derive(myri_sys_cfg *c, const myri_node *root, myri_error *err)
{
    myri_status st;
    if (!root || !myri_node_path(root, "link.slack")) myri_fabric_preset_slack(&c->fp);
    if ((st = myri_fabric_params_check(&c->fp, err)) != MYRI_OK) return st;
    /* mapping on: the MCP with mapping (same parameters) */
    c->fw = c->mapping && c->fw_named == &myri_mcp_def ? myri_mcp_map_def() : c->fw_named;
    /* explicit hosts/switches/links without a generator: generator none, as the fabric job echoes it */
    if ((c->topo.hosts || c->topo.switches || c->topo.links) && !(root && myri_node_path(root, "topology.generator")))
        c->topo.generator = MYRI_GEN_NONE;
    if (c->topo_len_follows) c->topo.length_m = c->fp.length_m;
    c->nic.type_bytes = c->fp.type_bytes;
    c->nic.link_char_ps = myri_fabric_char_ps(&c->fp);
    if (c->fp.type_bytes != 2) {
        myri_error_at(err, root ? myri_node_path(root, "packet.type_bytes") : NULL,
                      "packet.type_bytes: the firmwares' frames have a two-byte type (0x0370, VIA 0x0005); expected 2");
        myri_error_set_key(err, "packet.type_bytes");
        return MYRI_EINPUT;
    }
    return MYRI_OK;
}

/* ---- programs ------------------------------------------------------------------ */

/* The host index named `name`, or -1. */
static int64_t sys__host_by_name(const myri_topo *t, const char *name)
{
    for (size_t i = 0; i < t->nhosts; i++)
        if (!strcmp(t->node[t->host_node[i]].name, name)) return (int64_t)i;
    return -1;
}

/* Marks the hosts an entry names in `on` (nhosts flags). */
static myri_status sys__prog_hosts(const myri_topo *t, const myri_node *hosts, bool *on, myri_error *err)
{
    if (!hosts || (hosts->kind == MYRI_NODE_SCALAR && !strcmp(hosts->scalar, "all"))) {
        for (size_t i = 0; i < t->nhosts; i++) on[i] = true;
        return MYRI_OK;
    }
    size_t n = hosts->kind == MYRI_NODE_SEQ ? hosts->n : 1;
    if (hosts->kind == MYRI_NODE_MAP)
        return myri_error_at(err, hosts, "hosts: expected `all`, a host name or a list of host names"), MYRI_EINPUT;
    for (size_t k = 0; k < n; k++) {
        const myri_node *h = hosts->kind == MYRI_NODE_SEQ ? hosts->item[k] : hosts;
        int64_t i = h->kind == MYRI_NODE_SCALAR ? sys__host_by_name(t, h->scalar) : -1;
        if (i < 0)
            return myri_error_at(err, h, "hosts: '%s' is not a host of the topology; expected a host name such as '%s'",
                                 h->kind == MYRI_NODE_SCALAR ? h->scalar : "(not a name)",
                                 t->nhosts ? t->node[t->host_node[0]].name : "h0"),
                   MYRI_EINPUT;
        on[i] = true;
    }
    return MYRI_OK;
}

/* The argument words of an entry (pointers into the document). */
static myri_status sys__prog_args(const myri_node *args, const char **argv, int *argc, myri_error *err)
{
    *argc = 0;
    if (!args || (args->kind == MYRI_NODE_SCALAR && !args->scalar[0])) return MYRI_OK;
    if (args->kind != MYRI_NODE_SEQ)
        return myri_error_at(err, args, "args: expected a list of key=value words"), MYRI_EINPUT;
    if (args->n > MYRI_SYS_MAX_ARGS)
        return myri_error_at(err, args, "args: %zu words; expected at most %d", args->n, MYRI_SYS_MAX_ARGS),
               MYRI_EINPUT;
    for (size_t k = 0; k < args->n; k++) {
        if (args->item[k]->kind != MYRI_NODE_SCALAR)
            return myri_error_at(err, args->item[k], "args: expected a word (key=value)"), MYRI_EINPUT;
        argv[(*argc)++] = args->item[k]->scalar;
    }
    return MYRI_OK;
}

/* The --program options: "FILE.so" (the program `user`) or "NAME=FILE.so", into r->user. */
static myri_status sys__user_list(myri_sys_run *r, const myri_run_opts *opts, myri_error *err)
{
    const char *one[1];
    const char *const *list = opts ? opts->programs : NULL;
    size_t n = opts ? opts->nprograms : 0;
    if (!n && opts && opts->program_path) one[0] = opts->program_path, list = one, n = 1;
    if (n > MYRI_SYS_MAX_USER)
        return myri_error_at(err, NULL, "--program given %zu times; expected at most %d", n, MYRI_SYS_MAX_USER),
               MYRI_EINPUT;
    for (size_t k = 0; k < n; k++) {
        struct myri_sys_user *u = &r->user[r->nuser];
        const char *eq = strchr(list[k], '=');
        size_t len = eq ? (size_t)(eq - list[k]) : 4;
        if (eq && (len == 0 || len >= sizeof u->name || strchr(list[k], '/') < eq))
            return myri_error_at(err, NULL, "--program %s: expected FILE.so or NAME=FILE.so (NAME: 1 to 31 "
                                            "characters, no '/')", list[k]), MYRI_EINPUT;
        snprintf(u->name, sizeof u->name, "%.*s", (int)len, eq ? list[k] : "user");
        u->path = eq ? eq + 1 : list[k];
        for (size_t d = 0; d < r->nuser; d++)
            if (!strcmp(r->user[d].name, u->name))
                return myri_error_at(err, NULL, "--program: two programs named '%s'; expected one each", u->name),
                       MYRI_EINPUT;
        r->nuser++;
    }
    return MYRI_OK;
}

/* The entry point of the user program entries call `name`, loaded on first use; NULL fn if none has that name. */
static myri_status sys__user_main(myri_sys_run *r, const char *name, myri_prog_main *fn, myri_error *err)
{
    *fn = NULL;
    struct myri_sys_user *u = NULL;
    for (size_t k = 0; k < r->nuser && !u; k++)
        if (!strcmp(r->user[k].name, name)) u = &r->user[k];
    if (!u) return MYRI_OK;
    u->used = true;
    if (!u->main) {
        char local[4096];
        const char *path = u->path;
        if (!strchr(path, '/')) { /* a bare name is a file here, not a library on the search path */
            snprintf(local, sizeof local, "./%s", path);
            path = local;
        }
        u->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!u->dl) return myri_error_at(err, NULL, "--program %s: cannot load: %s", path, dlerror()), MYRI_EINPUT;
        void *sym = dlsym(u->dl, "myri_main");
        if (!sym)
            return myri_error_at(err, NULL, "--program %s: no function `int myri_main(int argc, char **argv)`",
                                 path), MYRI_EINPUT;
        /* POSIX: a function pointer is converted through the object pointer dlsym returns */
        memcpy(&u->main, &sym, sizeof u->main);
    }
    *fn = u->main;
    return MYRI_OK;
}

/* Starts every instance of entry k at now + its start (after an entry) or at its start. */
static myri_status sys__start_entry(myri_sys_run *r, size_t k)
{
    myri_sys_entry *e = &r->entry[k];
    const myri_topo *t = r->b.topo;
    myri_time_ps at = e->start_ps + (e->after >= 0 ? myri_sim_now(r->sim) : 0);
    e->started = true;
    uint32_t *group = calloc(t->nhosts ? t->nhosts : 1, sizeof *group); /* the entry's hosts, told to each */
    size_t ng = 0;
    if (!group) return MYRI_ENOMEM;
    for (size_t h = 0; h < t->nhosts; h++)
        if (e->on[h]) group[ng++] = (uint32_t)h;
    for (size_t h = 0; h < t->nhosts; h++) {
        if (!e->on[h]) continue;
        if (r->host_owner && r->host_owner[h] != r->part_me) { /* another partition's: its process's id */
            myri_status st = myri_sim_reserve(r->sim, 1);
            if (st) {
                free(group);
                return st;
            }
            continue;
        }
        myri_program *pg = NULL;
        myri_status st = myri_host_run(r->nic[h].host, e->program, e->fn, e->argc, e->argv, at, &pg);
        if (!st) st = myri_program_set_group(pg, group, ng);
        if (st) {
            free(group);
            return st;
        }
        r->prog_of[r->nstarted] = pg;
        r->entry_of[r->nstarted++] = k;
        e->running++;
    }
    free(group);
    return MYRI_OK;
}

/* Entry k's instances have all returned: start the entries that follow it. */
static myri_status sys__entry_done(myri_sys_run *r, size_t k)
{
    myri_status st = MYRI_OK;
    for (size_t d = 0; d < r->nentry && !st; d++)
        if (r->entry[d].after == (int)k && !r->entry[d].started) st = sys__start_entry(r, d);
    return st;
}

/* `after: NAME` names the program of an earlier entry (the latest such). */
static myri_status sys__entry_after(myri_sys_run *r, size_t k, const char *after, const myri_node *at,
                                    myri_error *err)
{
    r->entry[k].after = -1;
    if (!after || !after[0]) return MYRI_OK;
    for (size_t d = k; d-- > 0;)
        if (!strcmp(r->entry[d].program, after)) {
            r->entry[k].after = (int)d;
            return MYRI_OK;
        }
    myri_error_at(err, at, "after: '%s' is not the program of an earlier entry; expected the name of a program "
                           "listed before this one", after);
    return MYRI_EINPUT;
}

/* A built-in program checks its hosts, arguments and firmware before the run (docs/HOST.md). */
static myri_status sys__check_entry(const myri_sys_run *r, const myri_sys_entry *x, const sys__prog *e,
                                    const myri_node *item, const char *fw, myri_error *err)
{
    size_t ng = 0;
    for (size_t h = 0; h < r->b.topo->nhosts; h++) ng += x->on[h];
    char why[256];
    int bad = -1;
    if (myri_program_check(x->program, fw, ng, x->argc, x->argv, &bad, why, sizeof why) == 0) return MYRI_OK;
    const myri_node *at = bad >= 0 && e->args && e->args->kind == MYRI_NODE_SEQ && (size_t)bad < e->args->n
                              ? e->args->item[bad]
                              : myri_node_get(item, strstr(why, "host") ? "hosts" : "program");
    myri_error_at(err, at ? at : item, "program %s: %s", x->program, why);
    return MYRI_EINPUT;
}

/* `program: live`: its hosts are driven by real processes (myri live,
 * docs/LIVE.md); it starts nothing and no run waits for it. */
static myri_status sys__live_entry(myri_sys_run *r, const myri_node *item, const sys__prog *e, myri_sys_entry *x,
                                   myri_error *err)
{
    if (!r->live_ok)
        return myri_error_at(err, myri_node_get(item, "program"), "program: live is for `myri live` (real processes "
                             "attach to its hosts, docs/LIVE.md); expected a built-in program or `user` here"),
               MYRI_EINPUT;
    x->on = calloc(r->b.topo->nhosts ? r->b.topo->nhosts : 1, sizeof *x->on);
    if (!x->on) return MYRI_ENOMEM;
    myri_status st = sys__prog_hosts(r->b.topo, e->hosts, x->on, err);
    if (st) return st;
    if (e->args && e->args->kind == MYRI_NODE_SEQ && e->args->n)
        return myri_error_at(err, e->args, "program: live takes no args (the real process has its own)"),
               MYRI_EINPUT;
    if (!r->live && !(r->live = calloc(r->b.topo->nhosts ? r->b.topo->nhosts : 1, sizeof *r->live)))
        return MYRI_ENOMEM;
    x->after = -1;
    x->started = true; /* nothing to start */
    for (size_t h = 0; h < r->b.topo->nhosts; h++)
        if (x->on[h]) r->live[h] = true;
    return MYRI_OK;
}

/* Loads entry k of the list: its program, hosts, arguments, start and `after`. */
static myri_status sys__load_entry(myri_sys_run *r, const myri_node *item, size_t k, const char *fw,
                                   myri_error *err)
{
    sys__prog e;
    myri_status st = myri_params_load_map(sys__prog_params, sizeof sys__prog_params / sizeof sys__prog_params[0],
                                          item, &e, err);
    if (st) return st;
    myri_sys_entry *x = &r->entry[k];
    x->program = e.program;
    if (!strcmp(e.program, "live")) return sys__live_entry(r, item, &e, x, err);
    x->start_ps = e.start_ps;
    if ((st = sys__user_main(r, e.program, &x->fn, err)) != MYRI_OK) return st;
    if (!x->fn && !strcmp(e.program, "user"))
        return myri_error_at(err, myri_node_get(item, "program"), "a programs entry names `user`: give the program "
                                                                  "with --program FILE.so"), MYRI_EINPUT;
    if (!x->fn && !(x->fn = myri_program_find(e.program))) {
        myri_error_at(err, myri_node_get(item, "program"), "unknown program '%s'; expected one of: %s|user, or a "
                      "name given with --program NAME=FILE.so", e.program, myri_program_names());
        return MYRI_EINPUT;
    }
    x->on = calloc(r->b.topo->nhosts ? r->b.topo->nhosts : 1, sizeof *x->on);
    if (!x->on) return MYRI_ENOMEM;
    bool builtin = myri_program_find(e.program) == x->fn;
    if ((st = sys__prog_hosts(r->b.topo, e.hosts, x->on, err)) || (st = sys__prog_args(e.args, x->argv, &x->argc, err)))
        return st;
    if (builtin && (st = sys__check_entry(r, x, &e, item, fw, err))) return st;
    if ((st = sys__entry_after(r, k, e.after, myri_node_get(item, "after"), err))) return st;
    for (size_t h = 0; h < r->b.topo->nhosts; h++) r->nprograms += x->on[h];
    return MYRI_OK;
}

/* Loads every entry of the `programs:` list, then starts those that follow no other. */
static myri_status sys__start_programs(myri_sys_run *r, const myri_sys_cfg *c, const myri_run_opts *opts,
                                       myri_error *err)
{
    const myri_node *list = c->programs;
    myri_status st = sys__user_list(r, opts, err);
    if (st) return st;
    if (!list || (list->kind == MYRI_NODE_SCALAR && !list->scalar[0])) {
        if (r->nuser)
            return myri_error_at(err, NULL, "--program: the scenario has no `programs:` entry with program: %s",
                                 r->user[0].name),
                   MYRI_EINPUT;
        return MYRI_OK;
    }
    if (list->kind != MYRI_NODE_SEQ)
        return myri_error_at(err, list, "programs: expected a list of {program, hosts, args, start, after}"),
               MYRI_EINPUT;
    r->entry = calloc(list->n ? list->n : 1, sizeof *r->entry);
    if (!r->entry) return MYRI_ENOMEM;
    for (size_t k = 0; k < list->n && !st; k++) {
        r->nentry = k + 1;
        st = sys__load_entry(r, list->item[k], k, c->fw->name, err);
    }
    for (size_t u = 0; u < r->nuser && !st; u++)
        if (!r->user[u].used)
            st = (myri_error_at(err, list, "--program: no `programs:` entry has program: %s", r->user[u].name),
                  MYRI_EINPUT);
    if (st) return st;
    r->prog_of = calloc(r->nprograms ? r->nprograms : 1, sizeof *r->prog_of);
    r->entry_of = calloc(r->nprograms ? r->nprograms : 1, sizeof *r->entry_of);
    if (!r->prog_of || !r->entry_of) return MYRI_ENOMEM;
    for (size_t k = 0; k < r->nentry && !st; k++)
        if (r->entry[k].after < 0 && !r->entry[k].started) st = sys__start_entry(r, k);
    /* an entry that follows one on no host, or a chain of such, starts at once */
    for (size_t k = 0; k < r->nentry && !st; k++)
        if (r->entry[k].started && !r->entry[k].running) st = sys__entry_done(r, k);
    return st;
}

/* ---- building and running -------------------------------------------------------------- */

static int sys__route(void *ctx, uint32_t from, uint32_t to, uint8_t *bytes, int max)
{
    const myri_sys_run *r = ctx;
    if (r->map) return myri_sysmap_route(r->map, r->nic[from].fw, to, bytes, max); /* the NIC's route table */
    myri_route buf;
    const myri_route *rt = max < 0 ? NULL : myri_routes_get(&r->b.routes, from, to, &buf);
    if (!rt || rt->len == MYRI_ROUTE_NONE || rt->len > (unsigned)max) return -1;
    memcpy(bytes, rt->byte, rt->len);
    return rt->len;
}

/* A program returned: the entries that follow its entry start when its last
 * instance has; when the last program has returned, the run is over. */
static void sys__exit(void *ctx, const myri_program *p)
{
    myri_sys_run *r = ctx;
    for (size_t i = 0; i < r->nstarted; i++)
        if (r->prog_of[i] == p) {
            size_t k = r->entry_of[i];
            if (--r->entry[k].running == 0 && sys__entry_done(r, k) != MYRI_OK)
                myri_sim_stop(r->sim); /* cannot start what follows (out of memory): stop, all_done stays false */
            break;
        }
    r->last_exit_ps = myri_sim_now(r->sim);
    if (++r->nexited == r->nprograms && !r->host_owner) myri_sim_stop(r->sim); /* a cut run: the harness ends it */
}

/* The firmware is already running on the board (the driver loaded it at
 * boot): loading the same firmware again by name is accepted as a no-op. */
static myri_status sys__load_mcp(void *ctx, int unit, const char *name)
{
    const myri_sys_nic *n = ctx;
    if (unit != 0 || !name) return MYRI_EINVAL;
    return strcmp(name, myri_fw_def_of(n->fw)->name) == 0 ? MYRI_OK : MYRI_ENOTFOUND;
}

/* One host: its bus, LANai with the firmware started, the host with the board. */
static myri_status sys__add_host(myri_sys_run *r, const myri_sys_cfg *c, uint32_t i, myri_error *err)
{
    myri_sys_nic *n = &r->nic[i];
    const char *hname = r->b.topo->node[r->b.topo->host_node[i]].name;
    char name[96];
    n->bus = myri_bus_create(&c->bus);
    if (!n->bus) return MYRI_ENOMEM;
    snprintf(name, sizeof name, "nic.%s", hname);
    myri_status st = myri_lanai_create(r->sim, name, &c->nic, n->bus, myri_fabric_port(r->fabric, i), &n->lanai);
    if (st) return st;
    /* host i's unit: its port notices run as its LANai (docs/PARTITION.md section 3) */
    if ((st = myri_fabric_set_host_unit(r->fabric, i, (uint32_t)myri_lanai_component(n->lanai)->id)) != MYRI_OK)
        return st;
    if ((st = myri_fw_create_err(c->fw, c->fwp, n->lanai, &n->fw, err)) != MYRI_OK) return st; /* why: in err */
    if (c->check_firmware && (st = myri_fw_set_check(n->fw, true)) != MYRI_OK) return st;
    if (c->fw == &myri_fw_elf_def && (st = myri_fw_elf_setup(n->fw, i, (uint32_t)r->b.topo->nhosts, sys__route, r)))
        return st;
    if (r->map && (st = myri_sysmap_nic(r->map, i, n->fw, n->lanai)) != MYRI_OK) return st;
    if ((st = myri_lanai_start(n->lanai)) != MYRI_OK) return st;
    myri_host_env env = {.nhosts = (uint32_t)r->b.topo->nhosts, .route = sys__route, .ctx = r,
                          .exit = sys__exit, .end_ps = r->live_ok ? 0 : c->common.duration_ps};
    if ((st = myri_host_create(r->sim, hname, i, &c->host, &env, &n->host)) != MYRI_OK) return st;
    if (r->board_mem) {
        uint8_t *sram = NULL, *mem = NULL;
        if ((st = r->board_mem(r->board_mem_ctx, i, myri_lanai_sram_bytes(n->lanai), myri_host_board_mem_bytes(n->host),
                               &sram, &mem)) != MYRI_OK ||
            (st = myri_lanai_use_sram(n->lanai, sram)) != MYRI_OK)
            return st;
        st = myri_host_add_board_mem(n->host, 0, n->lanai, n->bus, mem);
    } else {
        st = myri_host_add_board(n->host, 0, n->lanai, n->bus);
    }
    if (st != MYRI_OK) return st;
    return myri_host_set_mcp_loader(n->host, sys__load_mcp, n);
}

myri_status myri_system_build_topo(const myri_node *root, myri_topo_built *out, myri_error *err)
{
    if (!root || !out) return MYRI_EINVAL;
    myri_sys_cfg c;
    myri_status st = myri_sys_cfg_load(&c, root, err);
    if (!st) {
        myri_topo_env env = {.length_m = c.fp.length_m, .encoding = (myri_route_encoding)c.fp.addressing, .at = root};
        env.ports = (uint32_t)c.fp.switch_ports;
        if (myri_topo_build(&c.topo, myri_node_get(root, "topology"), &env, out, err)) st = MYRI_EINPUT;
    }
    myri_sys_cfg_free(&c);
    return st;
}

/* A firmware's route table of 0 entries (mcp.nroutes = 0, the default) is
 * sized from the network: one entry per host, so that every host can hold a
 * route to each of its peers (entry 0 is "no route").  More hosts than the
 * table's maximum: an error naming the key. */
static myri_status sys__size_routes(const myri_sys_cfg *c, uint32_t nhosts, myri_error *err)
{
    for (size_t k = 0; k < c->fw->nparams; k++) {
        const myri_param *q = &c->fw->params[k];
        if (strcmp(q->name, "nroutes") != 0 || q->type != MYRI_P_INT) continue;
        int64_t *v = (int64_t *)((char *)c->fwp + q->offset);
        long long max = q->max ? strtoll(q->max, NULL, 10) : INT64_MAX;
        if (*v != 0) return MYRI_OK;
        char key[64];
        snprintf(key, sizeof key, "%s.nroutes", c->fw->name);
        if ((long long)nhosts > max)
            return myri_error_key(err, key, "0 (the default) sizes the route table from the network, one entry per "
                                  "host: %u hosts need %u entries, more than the %lld it can hold",
                                  nhosts, nhosts, max);
        *v = nhosts > 1 ? nhosts : 2; /* entry 0 is "no route": at least one usable entry */
    }
    return MYRI_OK;
}

/* The firmware's data does not fit (MYRI_ERANGE) or its parameters do not
 * go together (MYRI_EINVAL): say which limit holds.  Firmware data lies
 * below the LANai stack top (0x40000, fixed by seed 001's crt0) and inside
 * nic.sram, so past 256 KiB a larger nic.sram does not help. */
static void sys__fit_error(const myri_sys_cfg *c, myri_status st, myri_error *err)
{
    const char *fw = c->fw->name;
    unsigned long long sram = (unsigned long long)c->nic.sram_bytes;
    if (st == MYRI_EINVAL)
        myri_error_key(err, fw, "firmware %s cannot run with these parameters (%s): see myri run --help for %s.*",
                       fw, myri_strerror(st), fw);
    else if (c->nic.sram_bytes >= MYRI_LANAI_STACK_TOP)
        myri_error_key(err, fw,
                       "firmware %s's data (its control block, buffers and pools) does not fit below the LANai "
                       "stack top at 0x%x (%u KiB, fixed: the firmware's stack starts there, seed 001), whatever "
                       "nic.sram (%llu bytes): make its buffers or pools smaller (%s.*: pools, mtu, queues)",
                       fw, MYRI_LANAI_STACK_TOP, MYRI_LANAI_STACK_TOP / 1024, sram, fw);
    else
        myri_error_key(err, "nic.sram",
                       "firmware %s's data (its control block, buffers and pools) does not fit in nic.sram = %llu "
                       "bytes: make its buffers or pools smaller (%s.*) or nic.sram larger (up to 0x%x = %u KiB, "
                       "the LANai stack top, below which firmware data must lie)",
                       fw, sram, fw, MYRI_LANAI_STACK_TOP, MYRI_LANAI_STACK_TOP / 1024);
}

static myri_status sys__build(myri_sys_run *r, const myri_sys_cfg *c, const myri_node *root, myri_error *err)
{
    myri_topo_env env = {.length_m = c->fp.length_m, .encoding = (myri_route_encoding)c->fp.addressing, .at = root};
    env.ports = (uint32_t)c->fp.switch_ports; /* given, or the preset's switch (seed 001: 8 ports) */
    if (myri_topo_build(&c->topo, root ? myri_node_get(root, "topology") : NULL, &env, &r->b, err))
        return MYRI_EINPUT;
    r->have_b = true;
    r->sim = myri_sim_create(c->common.seed);
    if (!r->sim) return MYRI_ENOMEM;
    myri_sim_set_advance(r->sim, !r->no_advance);
    myri_status st = myri_fabric_create(r->sim, r->b.topo, &c->fp, NULL, &r->fabric, err);
    if (!st && r->host_owner) st = myri_fabric_set_partition(r->fabric, r->node_owner, r->part_me, r->part_out, r->part_ctx);
    if (st) return st;
    if ((st = myri_sysmap_create(&c->map, c->mapping, c->fp.addressing, c->fw->name, r->b.topo, r->sim, root, NULL,
                                 c->nic.rtc_tick_ps, &r->map, err)) != MYRI_OK)
        return st;
    myri_sysmap_stop_when_mapped(r->map, c->map_stop);
    r->nnic = (uint32_t)r->b.topo->nhosts;
    r->nic = calloc(r->nnic ? r->nnic : 1, sizeof *r->nic);
    if (!r->nic) return MYRI_ENOMEM;
    if ((st = sys__size_routes(c, r->nnic, err)) != MYRI_OK) return st;
    size_t base = myri_sim_component_count(r->sim);
    for (uint32_t i = 0; i < r->nnic && !st; i++) {
        /* host i's ids: a block of MYRI_SYS_HOST_IDS, created or (another partition's host) reserved */
        size_t at = base + (size_t)i * MYRI_SYS_HOST_IDS;
        if ((st = myri_sim_reserve(r->sim, at - myri_sim_component_count(r->sim))) != MYRI_OK) break;
        if (r->host_owner && r->host_owner[i] != r->part_me) continue;
        st = sys__add_host(r, c, i, err);
        if (!st && myri_sim_component_count(r->sim) > at + MYRI_SYS_HOST_IDS)
            return myri_error_at(err, root, "host %u made more than %u components (MYRI_SYS_HOST_IDS)", i,
                                 MYRI_SYS_HOST_IDS), MYRI_EINPUT;
    }
    if (!st) st = myri_sim_reserve(r->sim, base + (size_t)r->nnic * MYRI_SYS_HOST_IDS - myri_sim_component_count(r->sim));
    if (st == MYRI_ERANGE || st == MYRI_EINVAL) { /* the firmware's layout or parameters do not fit this NIC */
        sys__fit_error(c, st, err);
        st = MYRI_EINPUT;
    }
    if (!st) st = myri_ffaults_apply(&c->faults, r->b.topo, r->fabric, c->common.duration_ps, &r->faults, err);
    return st;
}

void myri_sys_run_free(myri_sys_run *r)
{
    if (!r) return;
    myri_vcd_close(r->vcd, 0, NULL);
    r->vcd = NULL;
    myri_fpcap_close(r->pcap);
    r->pcap = NULL;
    /* the LANais first (their pending events are then ignored), then the
     * simulation with its hosts and programs, then what the LANais used */
    for (uint32_t i = 0; r->nic && i < r->nnic; i++) myri_lanai_destroy(r->nic[i].lanai);
    myri_sim_destroy(r->sim);
    for (uint32_t i = 0; r->nic && i < r->nnic; i++) {
        myri_fw_destroy(r->nic[i].fw);
        myri_bus_destroy(r->nic[i].bus);
    }
    free(r->nic);
    myri_sysmap_destroy(r->map);
    myri_ffaults_free(r->faults);
    if (r->have_b) myri_topo_built_free(&r->b);
    for (size_t u = 0; u < r->nuser; u++)
        if (r->user[u].dl) dlclose(r->user[u].dl);
    for (size_t k = 0; r->entry && k < r->nentry; k++) free(r->entry[k].on);
    free(r->entry);
    free(r->prog_of);
    free(r->entry_of);
    free(r->live);
    memset(r, 0, sizeof *r);
}

static double sys__now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static myri_status sys__vcd(myri_sys_run *r, const myri_sys_cfg *c, const char *path, myri_error *err)
{
    myri_status st = myri_vcd_open(path, &r->vcd, err);
    size_t nm = c->fw->nmachines < MYRI_SYS_MAX_MACHINES ? c->fw->nmachines : MYRI_SYS_MAX_MACHINES;
    for (uint32_t i = 0; i < r->nnic && !st; i++) {
        const char *hname = r->b.topo->node[r->b.topo->host_node[i]].name;
        st = myri_vcd_add_nic(r->vcd, r->nic[i].lanai, hname, r->machine_names, nm);
    }
    return st ? st : myri_vcd_begin(r->vcd);
}

myri_status myri_sys_run_prepare(myri_sys_run *r, const myri_sys_cfg *c, const myri_node *root,
                                 const myri_run_opts *opts, myri_error *err)
{
    r->no_advance = opts && opts->no_advance;
    myri_status st = sys__build(r, c, root, err);
    for (size_t m = 0; !st && m < c->fw->nmachines && m < MYRI_SYS_MAX_MACHINES; m++)
        r->machine_names[m] = c->fw->machines[m].name;
    if (!st) st = sys__start_programs(r, c, opts, err);
    if (!st && opts && opts->vcd_path) st = sys__vcd(r, c, opts->vcd_path, err);
    if (!st && opts && opts->pcap_path) {
        myri_fpcap_config pc = c->pcap;
        pc.type_bytes = (uint8_t)c->fp.type_bytes;
        pc.crc_poly = (uint8_t)c->fp.crc_poly;
        st = myri_fpcap_open(opts->pcap_path, r->b.topo, &pc, r->fabric, &r->pcap, err);
    }
    return st;
}

myri_status myri_sys_run_close(myri_sys_run *r, myri_error *err)
{
    myri_status st = MYRI_OK;
    r->end_ps = myri_sim_now(r->sim);
    myri_sim_finish(r->sim);
    if (r->vcd) {
        st = myri_vcd_close(r->vcd, r->end_ps, err);
        r->vcd = NULL;
    }
    if (r->pcap) {
        myri_status ps = myri_fpcap_finish(r->pcap, &r->pcap_packets, st ? NULL : err);
        r->pcap = NULL;
        if (!st) st = ps;
    }
    return st;
}

myri_status myri_sys_run_cfg(myri_sys_run *r, const myri_sys_cfg *c, const myri_node *root,
                             const myri_run_opts *opts, bool progress, myri_error *err)
{
    memset(r, 0, sizeof *r);
    myri_status st = myri_sys_run_prepare(r, c, root, opts, err);
    if (st) return st;
    if (progress && opts && opts->progress) myri_sim_set_progress(r->sim, opts->progress, c->common.duration_ps);
    double t0 = sys__now_s();
    myri_sim_run(r->sim, c->common.duration_ps, 0);
    /* The last program returned at T (sys__exit stopped the run in its
     * event): the run ends at the end of that instant, every event at T run
     * (the fabric's pass over T too), none after it, so that the end does not
     * depend on the order of one instant's events between hosts (a cut run
     * ends so: docs/PARTITION.md step 9). */
    if (r->nprograms && r->nexited == r->nprograms) myri_sim_run(r->sim, myri_sim_now(r->sim), 0);
    r->wall_s = sys__now_s() - t0;
    return myri_sys_run_close(r, err);
}
