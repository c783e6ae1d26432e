/* verify_replay.c -- `myri verify FIRMWARE --property NAME --replay`: a
 * counterexample of SPIN played on the simulated NIC (docs/VERIFY.md).
 *
 * The model's NIC sends and receives at once; the simulator runs the same
 * firmware on two hosts that do the same (via-duplex for lcp and myricom,
 * stream for mcp, with the firmware check on), writes their timelines (VCD)
 * and reads them back: the first time the property's state holds on a NIC,
 * and whether the counterexample's firmware steps (the machines' state
 * changes) happen there in the same order. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/system_job.h"
#include "cli/cli.h"
#include "firmware/firmware.h"
#include "verify/verify.h"

#define RP_MAXM 8
#define RP_MAXNIC 2

/* A state to find: machine states (equal), and engine activity (-1: any). */
typedef struct rp_target {
    const char *fw, *prop;
    const char *machine[3], *state[3];
    int hdma;  /* 0 idle, 1 to host, 2 from host (the VCD's values) */
    int sdma;  /* 1 sending */
} rp_target;

static const rp_target rp__targets[] = {
    {"lcp", "1A", {"lcpTx", "hostDma"}, {"LcpTxInvokeRx", "HostDmaBusy"}, -1, -1},
    {"lcp", "1B", {"lcpRx", "hostDma"}, {"LcpRxReady", "HostDmaBusy"}, -1, -1},
    {"myricom", "2A", {"hostSend", "netSend"}, {"HostSendDma", "NetSendBusy"}, -1, -1},
    {"myricom", "2B", {"hostReceive", "netReceive"}, {"HostReceiveDma", "NetReceiveDma"}, -1, -1},
    /* the engines; the data transfer is the one of the module's Dma state */
    {"myricom", "2A-engine", {"hostSend"}, {"HostSendDma"}, 2, 1},
    {"myricom", "2B-engine", {"hostReceive", "netReceive"}, {"HostReceiveDma", "NetReceiveDma"}, 1, -1},
    {"mcp", "2A-engine", {"host_dma"}, {"FROM_HOST"}, 2, 1},
    {"mcp", "2B-engine", {"host_dma", "recv_dma_int"}, {"TO_HOST", "ARMED"}, 1, -1},
};

typedef struct rp_nic {
    char name[16];
    char id_hdma[8], id_sdma[8], id_m[RP_MAXM][8];
    int hdma, sdma, m[RP_MAXM];
    size_t step;          /* trail steps seen in order so far */
} rp_nic;

typedef struct rp_state {
    const rp_target *t;
    const myri_fw_def *d;
    rp_nic nic[RP_MAXNIC];
    size_t nnic;
    int want_m[3], want_s[3];
    /* the trail's firmware steps: machine index, state entered */
    int step_m[256], step_s[256];
    size_t nsteps;
    double found_us;
    int found_nic;
} rp_state;

static int rp__machine(const myri_fw_def *d, const char *name)
{
    for (uint8_t m = 0; m < d->nmachines && m < RP_MAXM; m++)
        if (!strcmp(d->machines[m].name, name)) return m;
    return -1;
}

static int rp__state(const myri_fw_def *d, int m, const char *name, size_t len)
{
    for (uint8_t s = 0; m >= 0 && s < d->machines[m].nstates; s++)
        if (strlen(d->machines[m].states[s]) == len && !strncmp(d->machines[m].states[s], name, len)) return s;
    return -1;
}

/* "lcpTx take_doorbell: LcpTxIdle -> LcpTxGotASend" -> (machine, entered state). */
static void rp__steps(rp_state *st, const char *trail)
{
    for (const char *p = trail; *p && st->nsteps < 256;) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        const char *sp = memchr(p, ' ', n), *ar = strstr(p, "-> "), *co = strstr(p, ": ");
        /* a step that stays in its state (from == to) leaves no trace in the timeline: skipped */
        bool self = co && ar && co < ar && (size_t)(ar - 1 - (co + 2)) == (size_t)(p + n - (ar + 3)) &&
                    !strncmp(co + 2, ar + 3, (size_t)(p + n - (ar + 3)));
        if (sp && ar && ar < p + n && !self) {
            char mname[64];
            snprintf(mname, sizeof mname, "%.*s", (int)(sp - p), p);
            int m = rp__machine(st->d, mname);
            int s = rp__state(st->d, m, ar + 3, (size_t)(p + n - (ar + 3)));
            if (m >= 0 && s >= 0) st->step_m[st->nsteps] = m, st->step_s[st->nsteps++] = s;
        }
        p += n + (e ? 1 : 0);
    }
}

static bool rp__holds(const rp_state *st, const rp_nic *n)
{
    for (int k = 0; k < 3 && st->t->machine[k]; k++)
        if (st->want_m[k] < 0 || n->m[st->want_m[k]] != st->want_s[k]) return false;
    return (st->t->hdma < 0 || n->hdma == st->t->hdma) && (st->t->sdma < 0 || n->sdma == st->t->sdma);
}

static void rp__var(rp_state *st, const char *line)
{
    char id[8], name[64];
    unsigned w;
    if (sscanf(line, "$var wire %u %7s %63s", &w, id, name) != 3 || st->nnic == 0) return;
    rp_nic *n = &st->nic[st->nnic - 1];
    if (!strcmp(name, "host_dma")) snprintf(n->id_hdma, sizeof n->id_hdma, "%s", id);
    else if (!strcmp(name, "send_dma")) snprintf(n->id_sdma, sizeof n->id_sdma, "%s", id);
    else if (!strncmp(name, "fw_", 3)) {
        int m = rp__machine(st->d, name + 3);
        if (m >= 0) snprintf(n->id_m[m], sizeof n->id_m[m], "%s", id);
    }
}

static void rp__change(rp_state *st, const char *id, unsigned v)
{
    for (size_t i = 0; i < st->nnic; i++) {
        rp_nic *n = &st->nic[i];
        if (!strcmp(id, n->id_hdma)) n->hdma = (int)v;
        else if (!strcmp(id, n->id_sdma)) n->sdma = (int)v;
        for (int m = 0; m < RP_MAXM; m++) {
            if (!n->id_m[m][0] || strcmp(id, n->id_m[m]) || n->m[m] == (int)v) continue;
            n->m[m] = (int)v;
            if (n->step < st->nsteps && st->step_m[n->step] == m && st->step_s[n->step] == (int)v) n->step++;
        }
    }
}

static unsigned rp__bits(const char *b)
{
    unsigned v = 0;
    for (; *b == '0' || *b == '1'; b++) v = v * 2u + (unsigned)(*b - '0');
    return v;
}

/* Reads the VCD; stops at the first time the target holds on a NIC (after all changes at that time). */
static void rp__scan(rp_state *st, FILE *f)
{
    char line[256];
    double now_us = 0;
    bool defs = true;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (defs) {
            if (!strncmp(line, "$scope module h", 15) && st->nnic < RP_MAXNIC) {
                rp_nic *n = &st->nic[st->nnic++];
                memset(n, 0, sizeof *n);
                sscanf(line + 14, "%15s", n->name);
            } else if (!strncmp(line, "$var", 4)) rp__var(st, line);
            else if (!strncmp(line, "$enddefinitions", 15)) defs = false;
            continue;
        }
        if (line[0] == '#') {
            for (size_t i = 0; i < st->nnic && st->found_nic < 0; i++)
                if (now_us > 0 && rp__holds(st, &st->nic[i])) st->found_nic = (int)i, st->found_us = now_us;
            if (st->found_nic >= 0) return;
            now_us = strtod(line + 1, NULL) * 1e-6;
        } else if (line[0] == 'b') {
            char *sp = strchr(line, ' ');
            if (sp) rp__change(st, sp + 1, rp__bits(line + 1));
        } else if (line[0] == '0' || line[0] == '1') {
            rp__change(st, line + 1, (unsigned)(line[0] - '0'));
        }
    }
    for (size_t i = 0; i < st->nnic && st->found_nic < 0; i++)
        if (rp__holds(st, &st->nic[i])) st->found_nic = (int)i, st->found_us = now_us;
}

static myri_status rp__simulate(const char *fw, const char *vcd, myri_system_result *res, myri_error *err)
{
    char text[1024];
    bool via = strcmp(fw, "mcp") != 0;
    snprintf(text, sizeof text,
             "job: system\npreset: alpha-pci-1998\nseed: 1\nfirmware: %s\ncheck_firmware: true\n"
             "topology: {generator: star, hosts_per_switch: 2}\n"
             "programs:\n  - {program: %s, hosts: [h0, h1], args: [%s]}\n",
             fw, via ? "via-duplex" : "stream", via ? "count=8, size=32768, window=4" : "count=16, size=8192, window=8");
    myri_node *root = NULL;
    myri_status s = myri_doc_parse("replay.yaml", text, strlen(text), &root, err);
    myri_run_opts ro = {0};
    ro.vcd_path = vcd;
    if (!s) s = myri_system_run_doc(root, NULL, &ro, res, err);
    myri_node_free(root);
    return s;
}

int myri_verify_replay(const char *fw, const myri_verify_result *r, FILE *out)
{
    rp_state st;
    memset(&st, 0, sizeof st);
    st.found_nic = -1;
    for (size_t i = 0; i < sizeof rp__targets / sizeof rp__targets[0]; i++)
        if (!strcmp(rp__targets[i].fw, fw) && !strcmp(rp__targets[i].prop, r->prop->name)) st.t = &rp__targets[i];
    st.d = myri_fw_find(fw);
    if (!st.t || !st.d || !r->error) {
        fprintf(out, "\nreplay: %s has no counterexample to replay%s\n", r->prop->name,
                r->error ? " (no simulator target for it: the reachability properties 1A, 1B, 2A, 2B and the "
                           "engine ones are replayed)" : "");
        return MYRI_EXIT_OK;
    }
    for (int k = 0; k < 3 && st.t->machine[k]; k++) {
        st.want_m[k] = rp__machine(st.d, st.t->machine[k]);
        st.want_s[k] = rp__state(st.d, st.want_m[k], st.t->state[k], strlen(st.t->state[k]));
    }
    rp__steps(&st, r->trail);
    char vcd[] = "/tmp/myri-replay-XXXXXX";
    int fd = mkstemp(vcd);
    if (fd < 0) return MYRI_EXIT_FAIL;
    close(fd);
    myri_system_result res;
    myri_error err = {.msg = ""};
    myri_status s = rp__simulate(fw, vcd, &res, &err);
    FILE *f = s ? NULL : fopen(vcd, "r");
    if (f) {
        rp__scan(&st, f);
        fclose(f);
    }
    remove(vcd);
    if (s || !f) {
        fprintf(stderr, "myri verify: the replay's simulation failed: %s\n", s ? err.msg : "no timeline");
        if (!s) myri_system_result_free(&res);
        return MYRI_EXIT_FAIL;
    }
    double checked = myri_system_figure_get(&res, "nic.fw_checked"), bad = myri_system_figure_get(&res, "nic.fw_mismatches");
    fprintf(out, "\nreplay of %s on the simulated NIC (%s on h0 and h1, the firmware check on: %.0f actions, %.0f "
                 "mismatches):\n", r->prop->name, strcmp(fw, "mcp") ? "via-duplex" : "stream", checked, bad);
    if (st.found_nic < 0) fprintf(out, "  the state never held in the simulated run\n");
    else {
        const rp_nic *n = &st.nic[st.found_nic];
        fprintf(out, "  the state holds on %s at %.3f us\n", n->name, st.found_us);
        fprintf(out, "  the counterexample's %zu firmware steps: the first %zu happen on %s in the same order\n",
                st.nsteps, n->step, n->name);
    }
    myri_system_result_free(&res);
    return st.found_nic >= 0 ? MYRI_EXIT_OK : MYRI_EXIT_FAIL;
}
