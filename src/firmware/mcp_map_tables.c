/* mcp_map_tables.c -- the mapping machines as tables, and the firmware
 * definition that puts them after the MCP's six machines (mcp_map.h,
 * docs/MAPPING.md).
 *
 *   map_rx   takes the mapping packets off the rx pool (the MCP's host-DMA
 *            machine leaves them there): answers scouts from the unique ID
 *            and level its host set, defers to a higher mapper, gives the
 *            answers of the current batch to the mapper, installs maps;
 *   map_tx   sends the out ring's packets on the send DMA when the MCP's
 *            send-DMA machine is idle (and holds it off meanwhile: map_tx);
 *   mapper   the election (start delay by level and ID, the watchdog of a
 *            follower), the exploration and verification in batches of
 *            probes with a time-out, the distribution of the map.
 *
 * Cycle costs (LANai cycles; assumptions like the MCP's, counted as the
 * instructions each step needs, mcp_tables.c): a poll of a word 4, of an ISR
 * bit 3; answering a scout 40 (parse, copy a return route of up to 8 words,
 * 4 header stores, queue step); preparing a probe 40; taking an answer 30;
 * starting a send 14; a timer or role change 8; installing a map by its size
 * (mcp_map.c: mcpm__route_cost).  The mapping machines have no service-call
 * cost of their own (their tests are taken to be inlined in the loop).
 */
#include <pthread.h>
#include <string.h>

#include "firmware/mcp_map_int.h"

enum { C_POLL = 4, C_POLL_ISR = 3, C_SCOUT = 40, C_PROBE = 40, C_ANSWER = 30, C_SEND = 14, C_STEP = 8,
       C_BEGIN = 40 };

#define S(fw) MCPM(fw)
#define ROLE(fw) myri_fw_get(S(fw)->m.fi, MYRI_MCPM_V_ROLE)

/* ---- events ------------------------------------------------------------------------------- */
enum { EM_BOOT = MYRI_MCP_NEVENTS, EM_TIME, EM_MAPPING, EM_YIELDED, EM_ANSWERED, EM_MAP_RX, EM_OUT_PEND,
       EM_SEND_INT, EM_END };
#define EM_N (EM_END - MYRI_MCP_NEVENTS)

static bool ev_boot(void *fw, myri_lanai *l)
{
    return (void)l, myri_fw_get(S(fw)->m.fi, MYRI_MCP_V_STATE) == MYRI_HCB_STATE_READY && S(fw)->attached;
}
static bool ev_time(void *fw, myri_lanai *l) { return (void)fw, (myri_lanai_read(l, MYRI_LANAI_ISR) & MYRI_LANAI_TIME_INT) != 0; }
static bool ev_mapping(void *fw, myri_lanai *l) { return (void)l, ROLE(fw) == MYRI_MAPW_ROLE_MAPPING; }
static bool ev_yielded(void *fw, myri_lanai *l) { return (void)l, ROLE(fw) != MYRI_MAPW_ROLE_MAPPING; }
static bool ev_answered(void *fw, myri_lanai *l) { return (void)l, S(fw)->lib.batch_answered(S(fw)->lib.ctx); }
static bool ev_map_rx(void *fw, myri_lanai *l)
{
    uint32_t n;
    return (void)l, myri_mcpm_head(S(fw), &n) != NULL;
}
static bool ev_out_pend(void *fw, myri_lanai *l) { return (void)l, S(fw)->out_head != S(fw)->out_tail; }
static bool ev_send_int(void *fw, myri_lanai *l) { return (void)fw, (myri_lanai_read(l, MYRI_LANAI_ISR) & MYRI_LANAI_SEND_INT) != 0; }

static const myri_fw_event mcpm__events[EM_N] = {
    [EM_BOOT - MYRI_MCP_NEVENTS] = {"map_boot", "mcp_state == READY", C_POLL, ev_boot, NULL},
    [EM_TIME - MYRI_MCP_NEVENTS] = {"time_int", "(ISR & TIME_INT) != 0", C_POLL_ISR, ev_time, NULL},
    [EM_MAPPING - MYRI_MCP_NEVENTS] = {"mapping", "map_role == MAPPING", C_POLL, ev_mapping, NULL},
    [EM_YIELDED - MYRI_MCP_NEVENTS] = {"yielded", "map_role != MAPPING", C_POLL, ev_yielded, NULL},
    [EM_ANSWERED - MYRI_MCP_NEVENTS] = {"batch_answered", "answers == probes", C_POLL, ev_answered, NULL},
    [EM_MAP_RX - MYRI_MCP_NEVENTS] = {"map_rx", "rx_head != rx_tail && rx_type[rx_head] == MYRI_MAP", 2 * C_POLL,
                                      ev_map_rx, NULL},
    [EM_OUT_PEND - MYRI_MCP_NEVENTS] = {"map_out_pending", "out_head != out_tail", C_POLL, ev_out_pend, NULL},
    [EM_SEND_INT - MYRI_MCP_NEVENTS] = {"map_send_int", "(ISR & SEND_INT) != 0", C_POLL_ISR, ev_send_int, NULL},
};

/* ---- guards -------------------------------------------------------------------------------- */
enum { GM_CANDIDATE = MYRI_MCP_NGUARDS, GM_START, GM_STAND_AGAIN, GM_PROBE_READY, GM_BATCH_SENT, GM_DONE_DISTURBED, GM_DISTURBED, GM_DONE_BEST,
       GM_DONE_NOT_BEST, GM_VERIFIED, GM_FAULT, GM_MORE_DEST, GM_NO_DEST, GM_SCOUT_HIGHER, GM_SCOUT, GM_SCOUT_FULL,
       GM_REPLY_HIGHER, GM_ANSWER, GM_STALE, GM_MAP_OK, GM_MAP_IGNORED, GM_SEND_FREE, GM_END };
#define GM_N (GM_END - MYRI_MCP_NGUARDS)

static bool g_candidate(void *fw, myri_lanai *l)
{
    return (void)l, myri_mcp_rd(&S(fw)->m, S(fw)->mcb + MYRI_MCP_MCB_LEVEL) > 0;
}
static bool g_start(void *fw, myri_lanai *l) { return (void)l, ROLE(fw) == MYRI_MAPW_ROLE_CANDIDATE; }
static bool g_stand_again(void *fw, myri_lanai *l)
{
    return (void)l, ROLE(fw) == MYRI_MAPW_ROLE_FOLLOWER && S(fw)->level > 0;
}
static int peek(void *fw) { return S(fw)->lib.peek(S(fw)->lib.ctx); }
/* A probe may take the out ring's last-but-one slot, never the last: a
 * mapping NIC can always answer a scout. */
static bool probe_room(const mcpm *s) { return (s->out_tail + 2) % MCPM_NOUT != s->out_head && myri_mcpm_out_room(s); }
static bool g_probe_ready(void *fw, myri_lanai *l) { return (void)l, probe_room(S(fw)) && peek(fw) == 1; }
/* The batch's time-out runs from when its last probe has left the NIC (the
 * out ring is empty), not from when it was queued: a batch of 14 or 30
 * probes takes 50 to 200 us to go out, longer than map.probe_timeout. */
static bool g_batch_sent(void *fw, myri_lanai *l)
{
    return (void)l, S(fw)->out_head == S(fw)->out_tail && peek(fw) == 0;
}
static int changed(void *fw) { return peek(fw) == -1 ? S(fw)->lib.changed(S(fw)->lib.ctx) : 2; }
static bool me_best(mcpm *s)
{
    uint8_t lv;
    uint64_t id;
    s->lib.best(s->lib.ctx, &lv, &id);
    return !s->cfg.election || (lv == s->level && id == s->my_id);
}
static bool disturbed(const mcpm *s) { return s->disturbed && s->rescouts < MCPM_RESCOUT_MAX; }
static bool g_disturbed(void *fw, myri_lanai *l) { return (void)l, disturbed(S(fw)); }
static bool g_done_disturbed(void *fw, myri_lanai *l)
{
    return (void)l, disturbed(S(fw)) && changed(fw) == 1 && me_best(S(fw));
}
static bool g_done_best(void *fw, myri_lanai *l) { return (void)l, changed(fw) == 1 && me_best(S(fw)); }
static bool g_done_not_best(void *fw, myri_lanai *l) { return (void)l, changed(fw) == 1; }
static bool g_verified(void *fw, myri_lanai *l) { return (void)l, changed(fw) == 0; }
static bool g_fault(void *fw, myri_lanai *l) { return (void)l, changed(fw) == -1; }
/* The next host to send the map to (hosts the map no longer has, kind 0, skipped). */
static bool has_dest(void *fw)
{
    myri_mcp_map_probe p;
    while (S(fw)->lib.dest(S(fw)->lib.ctx, S(fw)->dest_i, &p) == 1) {
        if (p.kind == MYRI_MAPW_MAP) return true;
        S(fw)->dest_i++;
    }
    return false;
}
static bool g_more_dest(void *fw, myri_lanai *l) { return (void)l, myri_mcpm_out_room(S(fw)) && has_dest(fw); }
static bool g_no_dest(void *fw, myri_lanai *l) { return (void)l, !has_dest(fw); }

/* The head mapping packet's subtype, sender and its order against this NIC. */
static const uint8_t *head(void *fw, uint32_t *n) { return myri_mcpm_head(S(fw), n); }
static int sub(void *fw)
{
    uint32_t n;
    const uint8_t *f = head(fw, &n);
    return f && n >= MYRI_MAPW_HDR_BYTES ? f[MYRI_MAPW_OFF_SUB] : -1;
}
static int sender_cmp(void *fw)
{
    uint32_t n;
    const uint8_t *f = head(fw, &n);
    if (!f || n < MYRI_MAPW_HDR_BYTES) return 0;
    return myri_mapw_cmp(f[MYRI_MAPW_OFF_LEVEL], myri_mapw_get48(f + MYRI_MAPW_OFF_ID), S(fw)->level, S(fw)->my_id);
}
static bool g_scout_higher(void *fw, myri_lanai *l)
{
    (void)l;
    return sub(fw) == MYRI_MAPW_SCOUT && S(fw)->cfg.election && ROLE(fw) != MYRI_MAPW_ROLE_FOLLOWER &&
           sender_cmp(fw) > 0 && myri_mcpm_out_room(S(fw));
}
static bool g_scout(void *fw, myri_lanai *l) { return (void)l, sub(fw) == MYRI_MAPW_SCOUT && myri_mcpm_out_room(S(fw)); }
static bool g_scout_full(void *fw, myri_lanai *l) { return (void)l, sub(fw) == MYRI_MAPW_SCOUT; }
static bool g_reply_higher(void *fw, myri_lanai *l)
{
    (void)l;
    uint32_t n;
    const uint8_t *f = head(fw, &n);
    return sub(fw) == MYRI_MAPW_REPLY && S(fw)->cfg.election && ROLE(fw) == MYRI_MAPW_ROLE_MAPPING &&
           f[MYRI_MAPW_OFF_ROLE] != MYRI_MAPW_ROLE_FOLLOWER && f[MYRI_MAPW_OFF_LEVEL] > 0 && sender_cmp(fw) > 0;
}
static bool is_answer(void *fw) { return sub(fw) == MYRI_MAPW_REPLY || sub(fw) == MYRI_MAPW_LOOP; }
static bool g_answer(void *fw, myri_lanai *l)
{
    (void)l;
    uint32_t n;
    const uint8_t *f = head(fw, &n);
    return is_answer(fw) && ROLE(fw) == MYRI_MAPW_ROLE_MAPPING &&
           S(fw)->lib.expects(S(fw)->lib.ctx, myri_be32_get(f + MYRI_MAPW_OFF_TAG));
}
static bool g_stale(void *fw, myri_lanai *l) { return (void)l, is_answer(fw); }
static bool map_mine(void *fw)
{
    uint32_t n;
    const uint8_t *f = head(fw, &n);
    return sub(fw) == MYRI_MAPW_MAP && myri_mcpm_map_has_me(S(fw), f, n);
}
static bool g_map_ok(void *fw, myri_lanai *l)
{
    (void)l;
    bool refuse = ROLE(fw) == MYRI_MAPW_ROLE_MAPPING && (!S(fw)->cfg.election || sender_cmp(fw) < 0);
    return map_mine(fw) && !refuse;
}
static bool g_map_ignored(void *fw, myri_lanai *l) { return (void)l, map_mine(fw); }
/* The MCP's send-DMA machine is idle: the send DMA is free. */
static bool g_send_free(void *fw, myri_lanai *l)
{
    return (void)l, myri_fw_machine_state(S(fw)->m.fi, MYRI_MCP_M_SDMA) == 0;
}

static const myri_fw_guard mcpm__guards[GM_N] = {
#define G(x) [GM_##x - MYRI_MCP_NGUARDS]
    G(CANDIDATE) = {"map_candidate", "mcb_level > 0", g_candidate},
    G(START) = {"role_candidate", "map_role == CANDIDATE", g_start},
    G(STAND_AGAIN) = {"follower_may_map", "map_role == FOLLOWER && level > 0", g_stand_again},
    G(PROBE_READY) = {"probe_ready", "out_free >= 2 && lib_next == PROBE", g_probe_ready},
    G(BATCH_SENT) = {"batch_sent", "out_head == out_tail && lib_next == WAIT", g_batch_sent},
    G(DONE_DISTURBED) = {"explored_disturbed", "lib_next == DONE && changed && best == me && disturbed && "
                                               "rescouts < MAX", g_done_disturbed},
    G(DISTURBED) = {"disturbed", "disturbed && rescouts < MAX", g_disturbed},
    G(DONE_BEST) = {"explored_best", "lib_next == DONE && changed && (!ELECTION || best == me)", g_done_best},
    G(DONE_NOT_BEST) = {"explored_not_best", "lib_next == DONE && changed", g_done_not_best},
    G(VERIFIED) = {"verified", "lib_next == DONE && unchanged", g_verified},
    G(FAULT) = {"fault_found", "lib_next == DONE && fault", g_fault},
    G(MORE_DEST) = {"more_dest", "out_room && dest_i < map_hosts", g_more_dest},
    G(NO_DEST) = {"all_sent", "dest_i == map_hosts", g_no_dest},
    G(SCOUT_HIGHER) = {"scout_from_higher", "sub == SCOUT && ELECTION && map_role != FOLLOWER && sender > me && "
                                            "out_room", g_scout_higher},
    G(SCOUT) = {"scout", "sub == SCOUT && out_room", g_scout},
    G(SCOUT_FULL) = {"scout_out_full", "sub == SCOUT", g_scout_full},
    G(REPLY_HIGHER) = {"reply_from_higher", "sub == REPLY && ELECTION && map_role == MAPPING && sender_role != "
                                            "FOLLOWER && sender_level > 0 && sender > me", g_reply_higher},
    G(ANSWER) = {"answer", "(sub == REPLY || sub == LOOP) && map_role == MAPPING && tag in batch", g_answer},
    G(STALE) = {"stale_answer", "sub == REPLY || sub == LOOP", g_stale},
    G(MAP_OK) = {"map_for_me", "sub == MAP && me in map && !(map_role == MAPPING && (!ELECTION || sender < me))",
                 g_map_ok},
    G(MAP_IGNORED) = {"map_refused", "sub == MAP && me in map", g_map_ignored},
    G(SEND_FREE) = {"send_dma_idle", "send_dma == IDLE", g_send_free},
#undef G
};

/* ---- machines -------------------------------------------------------------------------------- */
#define EF(op, a, b) {MYRI_FW_##op, (a), (b)}
#define CLR(bit) EF(CLEAR_ISR, MYRI_LANAI_##bit, 0)
#define QP EF(Q_PUT, MYRI_MCPM_Q_OUT, 0)
#define QG EF(Q_GET, MYRI_MCPM_Q_OUT, 0)
#define QG_RX EF(Q_GET, MYRI_MCP_Q_RX, 0)
#define ROLEV(x) EF(SET, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_##x)
#define CNT(k) EF(COUNT, MYRI_MCPM_C_##k, 0)
#define NONE EF(NOP, 0, 0)
#define R(from, to, ev, g, act, cyc, x, name, ...) {from, to, ev, g, {__VA_ARGS__}, myri_mcpm_a_##act, cyc, x, name}

enum { P_BOOT, P_WAIT, P_PROBE, P_COLLECT, P_SEND_MAP, P_VERIFY };
static const char *const mcpm__mapper_states[] = {"BOOT", "WAIT", "PROBE", "COLLECT", "SEND_MAP", "VERIFY"};
static const myri_fw_rule mcpm__mapper_rules[] = {
    R(P_BOOT, P_WAIT, EM_BOOT, GM_CANDIDATE, stand, 20, NULL, "stand", ROLEV(CANDIDATE)),
    R(P_BOOT, P_WAIT, EM_BOOT, 0, follow, 12, NULL, "follow", ROLEV(FOLLOWER)),
    R(P_WAIT, P_PROBE, EM_TIME, GM_START, explore, C_BEGIN, NULL, "explore", CLR(TIME_INT), ROLEV(MAPPING)),
    R(P_WAIT, P_WAIT, EM_TIME, GM_STAND_AGAIN, stand_again, C_STEP, NULL, "stand_again", CLR(TIME_INT),
      ROLEV(CANDIDATE)),
    R(P_WAIT, P_WAIT, EM_TIME, 0, time_ignored, C_STEP, NULL, "time_ignored", CLR(TIME_INT)),
    R(P_PROBE, P_WAIT, EM_YIELDED, 0, abort, C_STEP, NULL, "stop_probing", CLR(TIME_INT)),
    R(P_PROBE, P_PROBE, EM_MAPPING, GM_PROBE_READY, send_probe, C_PROBE, NULL, "send_probe", QP, CNT(SCOUTS)),
    R(P_PROBE, P_COLLECT, EM_MAPPING, GM_BATCH_SENT, collect, C_STEP, NULL, "collect", CLR(TIME_INT)),
    R(P_PROBE, P_PROBE, EM_MAPPING, GM_DONE_DISTURBED, rescout, C_BEGIN, NULL, "rescout", CNT(RESCOUTS)),
    R(P_PROBE, P_SEND_MAP, EM_MAPPING, GM_DONE_BEST, map_done, C_BEGIN, myri_mcpm_x_map_done, "map_done",
      CNT(MAPS_GOT)),
    R(P_PROBE, P_WAIT, EM_MAPPING, GM_DONE_NOT_BEST, yield_to_best, C_STEP, NULL, "yield_to_best", CNT(YIELD),
      ROLEV(FOLLOWER)),
    R(P_PROBE, P_VERIFY, EM_MAPPING, GM_VERIFIED, verified, C_STEP, NULL, "verified", NONE),
    R(P_PROBE, P_PROBE, EM_MAPPING, GM_FAULT, remap, C_BEGIN, NULL, "remap", CNT(REMAPS)),
    R(P_COLLECT, P_WAIT, EM_YIELDED, 0, abort_timer, C_STEP, NULL, "stop_collecting", CLR(TIME_INT)),
    R(P_COLLECT, P_PROBE, EM_ANSWERED, 0, batch_done, C_STEP, NULL, "batch_answered", CLR(TIME_INT)),
    R(P_COLLECT, P_PROBE, EM_TIME, 0, batch_timeout, C_STEP + 12, NULL, "batch_timeout", CLR(TIME_INT),
      CNT(TIMEOUTS)),
    R(P_SEND_MAP, P_WAIT, EM_YIELDED, 0, abort, C_STEP, NULL, "stop_sending", CLR(TIME_INT)),
    R(P_SEND_MAP, P_SEND_MAP, EM_MAPPING, GM_MORE_DEST, send_map, C_PROBE, NULL, "send_map", QP, CNT(MAPS_SENT)),
    R(P_SEND_MAP, P_VERIFY, EM_MAPPING, GM_NO_DEST, distributed, C_STEP, NULL, "distributed", NONE),
    R(P_VERIFY, P_WAIT, EM_YIELDED, 0, abort, C_STEP, NULL, "stop_verifying", CLR(TIME_INT)),
    R(P_VERIFY, P_PROBE, EM_TIME, GM_DISTURBED, rescout_timer, C_BEGIN, NULL, "rescout_sweep", CLR(TIME_INT),
      CNT(RESCOUTS)),
    R(P_VERIFY, P_PROBE, EM_TIME, 0, verify, C_BEGIN, NULL, "verify", CLR(TIME_INT)),
};

static const char *const mcpm__rx_states[] = {"IDLE"};
static const myri_fw_rule mcpm__rx_rules[] = {
    R(0, 0, EM_MAP_RX, GM_SCOUT_HIGHER, defer, C_SCOUT + C_STEP, NULL, "defer", ROLEV(FOLLOWER), QG_RX, QP,
      CNT(REPLIES), CNT(YIELD)),
    R(0, 0, EM_MAP_RX, GM_SCOUT, answer, C_SCOUT, NULL, "answer_scout", QG_RX, QP, CNT(REPLIES)),
    R(0, 0, EM_MAP_RX, GM_SCOUT_FULL, scout_busy, C_STEP, NULL, "scout_out_full", QG_RX, CNT(OUT_FULL)),
    R(0, 0, EM_MAP_RX, GM_REPLY_HIGHER, yield_reply, C_ANSWER, NULL, "yield_to_reply", QG_RX, CNT(YIELD),
      ROLEV(FOLLOWER)),
    R(0, 0, EM_MAP_RX, GM_ANSWER, take_answer, C_ANSWER, NULL, "take_answer", QG_RX, CNT(ANSWERS)),
    R(0, 0, EM_MAP_RX, GM_STALE, stale, C_STEP, NULL, "stale_answer", QG_RX, CNT(STALE)),
    R(0, 0, EM_MAP_RX, GM_MAP_OK, install, C_BEGIN, myri_mcpm_x_install, "install_map", QG_RX, CNT(MAPS_GOT),
      ROLEV(FOLLOWER)),
    R(0, 0, EM_MAP_RX, GM_MAP_IGNORED, map_ignored, C_STEP, NULL, "map_refused", QG_RX, CNT(STALE)),
    R(0, 0, EM_MAP_RX, 0, drop_other, C_STEP, NULL, "drop_map_other", QG_RX, CNT(BAD_MAP)),
};

enum { T_IDLE, T_SENDING };
static const char *const mcpm__tx_states[] = {"IDLE", "SENDING"};
static const myri_fw_rule mcpm__tx_rules[] = {
    R(T_IDLE, T_SENDING, EM_OUT_PEND, GM_SEND_FREE, map_send, C_SEND, NULL, "map_send", EF(SET, MYRI_MCPM_V_TX, 1),
      EF(START_SDMA, 1, 0)),
    R(T_SENDING, T_IDLE, EM_SEND_INT, 0, map_sent, C_STEP, NULL, "map_sent", CLR(SEND_INT), QG,
      EF(SET, MYRI_MCPM_V_TX, 0)),
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define MACH(name, st, ru) {name, MYRI_LANAI_USER, st, (uint8_t)NELEM(st), ru, (uint16_t)NELEM(ru), 0}
static const myri_fw_machine mcpm__own_machines[] = {
    MACH("map_rx", mcpm__rx_states, mcpm__rx_rules),
    MACH("map_tx", mcpm__tx_states, mcpm__tx_rules),
    MACH("mapper", mcpm__mapper_states, mcpm__mapper_rules),
};
_Static_assert(NELEM(mcpm__own_machines) == MYRI_MCPM_NMACHINES - MYRI_MCP_NMACHINES, "machines");

static const myri_fw_name mcpm__own_queues[] = {
    {"map_out", "mapping packets waiting for the send DMA (replies, probes, maps)", 0},
};
static const myri_fw_name mcpm__own_vars[] = {
    {"map_role", "FOLLOWER, CANDIDATE or MAPPING (mapwire.h)", 0},
    {"map_tx", "the send DMA is sending a mapping packet (the MCP's send-DMA machine waits)", 0},
};
static const myri_fw_name mcpm__own_counters[] = {
    {"map_probes", "scouts and loops sent by the mapper", 0},
    {"map_replies", "scouts answered", 0},
    {"map_answers", "answers taken by the mapper", 0},
    {"map_stale", "answers after their batch, maps refused", 0},
    {"map_timeouts", "batches ended by their time-out", 0},
    {"map_maps_sent", "maps sent", 0},
    {"map_installs", "maps installed (own ones included)", 0},
    {"map_bad", "mapping packets dropped: unknown, or a map without this NIC", 0},
    {"map_yields", "times this NIC stopped mapping for a higher one", 0},
    {"map_out_full", "scouts dropped: the out ring was full", 0},
    {"map_remaps", "verification sweeps that found a fault", 0},
    {"map_rescouts", "empty ports scouted again: another NIC was mapping at the same time", 0},
};

/* ---- the combined definition ---------------------------------------------------------------------- */
static myri_fw_machine mcpm__machines[MYRI_MCPM_NMACHINES];
static myri_fw_event mcpm__all_events[EM_END];
static myri_fw_guard mcpm__all_guards[GM_END];
static myri_fw_name mcpm__queues[MYRI_MCPM_NQUEUES], mcpm__vars[MYRI_MCPM_NVARS], mcpm__counters[MYRI_MCPM_NCOUNT];
static myri_fw_def mcpm__def;
static pthread_once_t mcpm__once = PTHREAD_ONCE_INIT;

static void mcpm__build(void)
{
    const myri_fw_def *b = &myri_mcp_def;
    memcpy(mcpm__machines, b->machines, sizeof(myri_fw_machine) * MYRI_MCP_NMACHINES);
    memcpy(mcpm__machines + MYRI_MCP_NMACHINES, mcpm__own_machines, sizeof mcpm__own_machines);
    memcpy(mcpm__all_events, b->events, sizeof(myri_fw_event) * MYRI_MCP_NEVENTS);
    memcpy(mcpm__all_events + MYRI_MCP_NEVENTS, mcpm__events, sizeof mcpm__events);
    memcpy(mcpm__all_guards, b->guards, sizeof(myri_fw_guard) * MYRI_MCP_NGUARDS);
    memcpy(mcpm__all_guards + MYRI_MCP_NGUARDS, mcpm__guards, sizeof mcpm__guards);
    memcpy(mcpm__queues, b->queues, sizeof(myri_fw_name) * MYRI_MCP_NQUEUES);
    memcpy(mcpm__queues + MYRI_MCP_NQUEUES, mcpm__own_queues, sizeof mcpm__own_queues);
    memcpy(mcpm__vars, b->vars, sizeof(myri_fw_name) * MYRI_MCP_NVARS);
    memcpy(mcpm__vars + MYRI_MCP_NVARS, mcpm__own_vars, sizeof mcpm__own_vars);
    memcpy(mcpm__counters, b->counters, sizeof(myri_fw_name) * MYRI_HCB_NCOUNT);
    memcpy(mcpm__counters + MYRI_HCB_NCOUNT, mcpm__own_counters, sizeof mcpm__own_counters);
    mcpm__def = *b;
    mcpm__def.summary = "seed 001's MCP with seed 002's mapping: scouts answered by the firmware, election by "
                        "level and unique ID, exploration, map distribution, up*/down* routes installed, "
                        "verification and remapping";
    mcpm__def.machines = mcpm__machines;
    mcpm__def.nmachines = MYRI_MCPM_NMACHINES;
    mcpm__def.events = mcpm__all_events;
    mcpm__def.nevents = EM_END;
    mcpm__def.guards = mcpm__all_guards;
    mcpm__def.nguards = GM_END;
    mcpm__def.queues = mcpm__queues;
    mcpm__def.nqueues = MYRI_MCPM_NQUEUES;
    mcpm__def.vars = mcpm__vars;
    mcpm__def.nvars = MYRI_MCPM_NVARS;
    mcpm__def.counters = mcpm__counters;
    mcpm__def.ncounters = MYRI_MCPM_NCOUNT;
    mcpm__def.create = myri_mcpm_create;
    mcpm__def.destroy = myri_mcpm_destroy;
}
_Static_assert(NELEM(mcpm__own_counters) == MYRI_MCPM_NCOUNT - MYRI_HCB_NCOUNT, "counters");
_Static_assert(NELEM(mcpm__own_vars) == MYRI_MCPM_NVARS - MYRI_MCP_NVARS, "vars");

const myri_fw_def *myri_mcp_map_def(void)
{
    pthread_once(&mcpm__once, mcpm__build);
    return &mcpm__def;
}
