/* mcp_map.c -- the mapping firmware's state, SRAM layout and actions; the
 * tables are in mcp_map_tables.c.  See mcp_map.h and docs/MAPPING.md.
 *
 * SRAM after the MCP's layout (mcp.c): the map control block (16 bytes, the
 * host writes its unique ID and level), the out ring (MCPM_NOUT entries:
 * 32 bytes for the route, right-aligned, then the frame), the route table
 * (map.max_hosts entries of 44 bytes: unique ID, length, route bytes), and
 * the map this NIC distributes when it is the mapper (one frame).
 */
#include <stdlib.h>
#include <string.h>

#include "firmware/mcp_map_int.h"

/* ---- helpers ------------------------------------------------------------------------------ */

static int32_t mcpm__role(const mcpm *s) { return myri_fw_get(s->m.fi, MYRI_MCPM_V_ROLE); }
static void mcpm__reg(mcpm *s, uint32_t reg, uint32_t v) { (void)myri_lanai_write(s->m.l, reg, v); }

const uint8_t *myri_mcpm_head(mcpm *s, uint32_t *n)
{
    uint32_t k = 0;
    const uint8_t *f = myri_mcp_rx_head(&s->m, &k);
    if (!f || myri_mcp_rx_verdict(&s->m, f, k) != MYRI_MCP_VERDICT_MAP) return NULL;
    *n = k - 1; /* without the CRC byte */
    return f;
}

bool myri_mcpm_out_room(const mcpm *s) { return (s->out_tail + 1) % MCPM_NOUT != s->out_head; }

void myri_mcpm_timer(mcpm *s, myri_time_ps ps)
{
    /* the interrupt timer counts RTC ticks (nic.rtc_tick); rounded up so that
     * it never fires early */
    myri_time_ps t = s->cfg.rtc_tick_ps ? s->cfg.rtc_tick_ps : 1;
    uint64_t ticks = ps ? (ps + t - 1) / t : 0;
    mcpm__reg(s, MYRI_LANAI_IT, ticks > UINT32_MAX ? UINT32_MAX : (uint32_t)ticks);
}

/* A candidate's wait after boot or after its mapper fell silent: start_delay,
 * then, below the top level 255, (1 + the ID's low 4 bits inverted) ID steps:
 * of equal levels the highest ID usually starts first and its scouts make
 * the others defer (the levels themselves are settled by deferring). */
myri_time_ps myri_mcpm_start_delay(const mcpm *s)
{
    if (s->level == 255) return s->cfg.start_delay_ps;
    return s->cfg.start_delay_ps + (myri_time_ps)(1u + (uint32_t)(~s->my_id & 0xfu)) * s->cfg.id_step_ps;
}

static void mcpm__watchdog(mcpm *s)
{
    if (s->level > 0) myri_mcpm_timer(s, s->cfg.mapper_timeout_ps);
}

static void mcpm__note(mcpm *s, const char *what, uint64_t a, uint64_t b)
{
    if (s->lib.note) s->lib.note(s->lib.ctx, what, a, b);
}

/* Reserves the out ring's tail entry: the frame area (SRAM) for fl bytes
 * after a route of rl bytes copied from route. */
static uint8_t *mcpm__out(mcpm *s, const uint8_t *route, uint32_t rl, uint32_t fl)
{
    uint32_t e = s->out_base + s->out_tail * s->out_bytes;
    uint8_t *p = myri_lanai_sram(s->m.l, e, MCPM_ROUTE_AREA + fl);
    if (!p) return NULL;
    if (rl) memcpy(p + MCPM_ROUTE_AREA - rl, route, rl);
    s->out[s->out_tail] = (mcpm_out){rl, fl};
    return p + MCPM_ROUTE_AREA;
}

static void mcpm__out_commit(mcpm *s)
{
    s->out_tail = (s->out_tail + 1) % MCPM_NOUT;
    myri_fw_q_put(s->m.fi, MYRI_MCPM_Q_OUT);
}

static void mcpm__hdr(mcpm *s, uint8_t *f, uint8_t sub, uint32_t tag)
{
    memset(f, 0, MYRI_MAPW_HDR_BYTES);
    myri_mapw_put16(f + MYRI_MAPW_OFF_TYPE, MYRI_MAPW_TYPE);
    f[MYRI_MAPW_OFF_SUB] = sub;
    myri_be32_put(f + MYRI_MAPW_OFF_TAG, tag);
    myri_mapw_put48(f + MYRI_MAPW_OFF_ID, s->my_id);
    f[MYRI_MAPW_OFF_LEVEL] = s->level;
    f[MYRI_MAPW_OFF_ROLE] = (uint8_t)mcpm__role(s);
}

static void mcpm__take(mcpm *s)
{
    s->m.rx_head = (s->m.rx_head + 1) % s->m.nrx;
    myri_fw_q_get(s->m.fi, MYRI_MCP_Q_RX);
}

/* ---- actions: the mapper machine -------------------------------------------------------------- */

void myri_mcpm_a_stand(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_mcpm_read_mcb(s);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_CANDIDATE);
    myri_mcpm_timer(s, myri_mcpm_start_delay(s));
}

void myri_mcpm_a_follow(void *fw, myri_lanai *l)
{
    (void)l;
    myri_mcpm_read_mcb(fw);
    myri_fw_set(MCPM(fw)->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_FOLLOWER);
}

void myri_mcpm_a_explore(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_MAPPING);
    s->disturbed = false;
    s->rescouts = 0;
    mcpm__note(s, "explore", s->my_id, s->level);
    s->lib.begin(s->lib.ctx, s->my_id, s->level, false);
}

/* Another NIC was mapping while this one explored (this NIC answered one of
 * its scouts): while both sent probes, a scout of this NIC to it may have
 * been dropped (its out ring full of its own probes) or answered after the
 * batch's time-out, and the map may lack its host.  The other has yielded
 * since (it heard this NIC's reply): the ports found empty are scouted again
 * (lib.rescout; much cheaper than exploring again), at most MCPM_RESCOUT_MAX
 * times in a row. */
void myri_mcpm_a_rescout(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    s->disturbed = false;
    s->rescouts++;
    myri_fw_count(s->m.fi, MYRI_MCPM_C_RESCOUTS);
    mcpm__note(s, "rescout", s->my_id, s->rescouts);
    s->lib.rescout(s->lib.ctx);
}

/* The same at a verification sweep's time: a full exploration instead. */
void myri_mcpm_a_rescout_timer(void *fw, myri_lanai *l)
{
    mcpm__reg(fw, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    myri_mcpm_a_rescout(fw, l);
}

void myri_mcpm_a_stand_again(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_CANDIDATE);
    mcpm__note(s, "mapper_silent", s->mapper_id, 0);
    myri_mcpm_timer(s, myri_mcpm_start_delay(s));
}

void myri_mcpm_a_time_ignored(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm__reg(fw, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
}

/* Stopped mapping (a higher mapper): the timer becomes the watchdog. */
void myri_mcpm_a_abort(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_mcpm_timer(s, 0);
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    mcpm__watchdog(s);
    mcpm__note(s, "yield", s->mapper_id, 0);
}

void myri_mcpm_a_abort_timer(void *fw, myri_lanai *l) { myri_mcpm_a_abort(fw, l); }

void myri_mcpm_a_send_probe(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_mcp_map_probe p;
    s->lib.next(s->lib.ctx, &p);
    uint32_t fl = MYRI_MAPW_HDR_BYTES + (p.kind == MYRI_MAPW_SCOUT ? 1u + p.ret_len : 0u);
    uint8_t *f = mcpm__out(s, p.route, p.len, fl);
    if (f) {
        mcpm__hdr(s, f, p.kind, p.tag);
        if (p.kind == MYRI_MAPW_SCOUT) {
            f[MYRI_MAPW_HDR_BYTES] = p.ret_len;
            memcpy(f + MYRI_MAPW_HDR_BYTES + 1, p.ret, p.ret_len);
        }
    }
    mcpm__out_commit(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_SCOUTS);
}

void myri_mcpm_a_collect(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    myri_mcpm_timer(s, s->cfg.probe_timeout_ps);
}

void myri_mcpm_a_batch_done(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_mcpm_timer(s, 0);
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
}

void myri_mcpm_a_batch_timeout(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_TIMEOUTS);
    s->lib.timeout(s->lib.ctx);
}

/* The HCB route entries the host added: each keeps its destination (found
 * by its bytes in the table being replaced), and gets that host's new
 * route, or an invalid length (sends on it are dropped and counted
 * tx_dropped by the MCP) when the new map has none.  Resolved afresh at
 * every install: the host reuses entries for other destinations (a program
 * that exits frees its routes, the next one adds its own in the same
 * entries), and an entry kept resolved to its old destination was rewritten
 * with that destination's route: packets went to the wrong host.  Only an
 * entry the MCP made invalid keeps its destination from before. */
static void mcpm__rt_resolve(mcpm *s)
{
    const myri_hcb_geom *g = &s->m.g;
    for (uint32_t r = 1; r < g->nroutes; r++) {
        uint32_t off = myri_hcb_route_off(g, r), len = myri_mcp_hcb(&s->m, off);
        if (len == g->route_max + 1 && s->hcb_dest[r]) continue; /* invalid since the last install */
        s->hcb_dest[r] = 0;
        if (len == 0 || len > g->route_max || len > MYRI_MAPW_ROUTE_MAX) continue;
        const uint8_t *b = myri_lanai_sram(s->m.l, s->m.hcb + off + 4 + myri_hcb_round4(len) - len, len);
        for (uint32_t i = 0; b && i < s->nrt; i++) {
            uint32_t e = s->rt_base + i * MCPM_RT_BYTES;
            const uint8_t *rb = myri_lanai_sram(s->m.l, e + 12, MYRI_MAPW_ROUTE_MAX);
            if (myri_mcp_rd(&s->m, e + 8) == len && rb && memcmp(rb, b, len) == 0) {
                s->hcb_dest[r] = ((uint64_t)myri_mcp_rd(&s->m, e) << 32 | myri_mcp_rd(&s->m, e + 4)) + 1;
                break;
            }
        }
    }
}

static void mcpm__rt_rewrite(mcpm *s)
{
    const myri_hcb_geom *g = &s->m.g;
    for (uint32_t r = 1; r < g->nroutes; r++) {
        if (!s->hcb_dest[r]) continue;
        uint8_t b[MYRI_MAPW_ROUTE_MAX];
        int len = myri_mcp_map_route(s->m.fi, s->hcb_dest[r] - 1, b);
        uint32_t off = myri_hcb_route_off(g, r);
        if (len < 0 || (uint32_t)len > g->route_max) {
            myri_mcp_hcb_wr(&s->m, off, g->route_max + 1); /* no route: the MCP drops and counts sends on it */
            continue;
        }
        uint32_t r4 = myri_hcb_round4((uint32_t)len);
        uint8_t *p = myri_lanai_sram(s->m.l, s->m.hcb + off + 4, r4);
        if (!p) continue;
        memset(p, 0, r4);
        memcpy(p + r4 - (uint32_t)len, b, (size_t)len);
        myri_mcp_hcb_wr(&s->m, off, (uint32_t)len);
    }
}

/* Installs the routes of a map body: the route table, then the HCB entries. */
static void mcpm__install(mcpm *s, const uint8_t *body, uint32_t n)
{
    mcpm__rt_resolve(s);
    int nh = s->lib.routes(s->lib.ctx, body, n, s->my_id);
    uint32_t k = 0;
    for (int i = 0; i < nh && k < s->cfg.max_hosts; i++) {
        uint64_t id;
        uint8_t b[MYRI_MAPW_ROUTE_MAX];
        int len = s->lib.route(s->lib.ctx, (uint32_t)i, &id, b);
        if (len < 0) continue;
        uint32_t e = s->rt_base + k++ * MCPM_RT_BYTES;
        uint8_t *p = myri_lanai_sram(s->m.l, e, MCPM_RT_BYTES);
        if (!p) break;
        memset(p, 0, MCPM_RT_BYTES);
        myri_be32_put(p, (uint32_t)(id >> 32));
        myri_be32_put(p + 4, (uint32_t)id);
        myri_be32_put(p + 8, (uint32_t)len);
        memcpy(p + 12, b, (size_t)len);
    }
    s->nrt = k;
    s->installs++;
    mcpm__rt_rewrite(s);
    mcpm__note(s, "installed", s->mapper_id, k);
}

uint32_t myri_mcpm_x_lib(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm *s = fw;
    return s->lib.cycles ? s->lib.cycles(s->lib.ctx) : 0;
}

/* Cycles of installing a map (assumption, docs/MAPPING.md): the route
 * computation visits every node and link once per destination host (4
 * cycles each: load, compare, branch, store), then 8 cycles per route
 * table word written. */
static uint32_t mcpm__route_cost(const uint8_t *body, uint32_t n)
{
    if (n < MYRI_MAPW_MAP_HDR_BYTES) return 0;
    uint64_t h = myri_mapw_get16(body), sw = myri_mapw_get16(body + 2), ln = myri_mapw_get16(body + 4);
    uint64_t c = h * (h + sw + ln) * 4 + h * (MCPM_RT_BYTES / 4) * 8;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

uint32_t myri_mcpm_x_map_done(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm *s = fw;
    uint8_t *body = myri_lanai_sram(s->m.l, s->rt_base + s->cfg.max_hosts * MCPM_RT_BYTES, s->frame_max);
    uint32_t n = body ? s->lib.encode(s->lib.ctx, body, s->frame_max - MYRI_MAPW_HDR_BYTES) : 0;
    s->map_len = n;
    return mcpm__route_cost(body, n) + n / 4 * 2; /* and one store per word of the map */
}

void myri_mcpm_a_map_done(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    s->epoch++;
    s->dest_i = 0;
    s->rescouts = 0;
    s->mapper_id = s->my_id;
    s->mapper_level = s->level;
    myri_fw_count(s->m.fi, MYRI_MCPM_C_MAPS_GOT);
    const uint8_t *body = myri_lanai_sram(s->m.l, s->rt_base + s->cfg.max_hosts * MCPM_RT_BYTES, s->map_len);
    mcpm__note(s, "mapped", s->epoch, s->map_len);
    if (body && s->map_len) mcpm__install(s, body, s->map_len);
}

void myri_mcpm_a_yield_to_best(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_fw_count(s->m.fi, MYRI_MCPM_C_YIELD);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_FOLLOWER);
    uint8_t lv;
    uint64_t id;
    s->lib.best(s->lib.ctx, &lv, &id);
    mcpm__note(s, "yield", id, lv);
    mcpm__watchdog(s);
}

void myri_mcpm_a_verified(void *fw, myri_lanai *l)
{
    (void)l;
    myri_mcpm_timer(fw, MCPM(fw)->cfg.verify_period_ps);
}

void myri_mcpm_a_remap(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_fw_count(s->m.fi, MYRI_MCPM_C_REMAPS);
    mcpm__note(s, "fault", s->my_id, 0);
    s->lib.begin(s->lib.ctx, s->my_id, s->level, false);
}

void myri_mcpm_a_send_map(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    myri_mcp_map_probe p;
    (void)s->lib.dest(s->lib.ctx, s->dest_i++, &p);
    const uint8_t *body = myri_lanai_sram(s->m.l, s->rt_base + s->cfg.max_hosts * MCPM_RT_BYTES, s->map_len);
    uint8_t *f = mcpm__out(s, p.route, p.len, MYRI_MAPW_HDR_BYTES + s->map_len);
    if (f && body) {
        mcpm__hdr(s, f, MYRI_MAPW_MAP, s->epoch);
        memcpy(f + MYRI_MAPW_HDR_BYTES, body, s->map_len);
    }
    mcpm__out_commit(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_MAPS_SENT);
}

void myri_mcpm_a_distributed(void *fw, myri_lanai *l)
{
    (void)l;
    myri_mcpm_timer(fw, MCPM(fw)->cfg.verify_period_ps);
}

void myri_mcpm_a_verify(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_TIME_INT);
    s->lib.begin(s->lib.ctx, s->my_id, s->level, true);
}

/* ---- actions: the receive machine ------------------------------------------------------------------ */

/* The reply to the head scout, queued in the out ring. */
static void mcpm__reply(mcpm *s)
{
    uint32_t n = 0;
    const uint8_t *f = myri_mcpm_head(s, &n);
    uint8_t rl = f && n > MYRI_MAPW_HDR_BYTES ? f[MYRI_MAPW_HDR_BYTES] : 0;
    if (rl > MYRI_MAPW_ROUTE_MAX || MYRI_MAPW_HDR_BYTES + 1u + rl > n) rl = 0;
    uint32_t tag = f ? myri_be32_get(f + MYRI_MAPW_OFF_TAG) : 0;
    uint8_t *o = mcpm__out(s, f ? f + MYRI_MAPW_HDR_BYTES + 1 : NULL, rl, MYRI_MAPW_HDR_BYTES);
    if (o) mcpm__hdr(s, o, MYRI_MAPW_REPLY, tag);
}

/* The head packet's sender (id, level). */
static void mcpm__sender(mcpm *s, uint64_t *id, uint8_t *level)
{
    uint32_t n = 0;
    const uint8_t *f = myri_mcpm_head(s, &n);
    *id = f ? myri_mapw_get48(f + MYRI_MAPW_OFF_ID) : 0;
    *level = f ? f[MYRI_MAPW_OFF_LEVEL] : 0;
}

void myri_mcpm_a_defer(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__sender(s, &s->mapper_id, &s->mapper_level);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_FOLLOWER);
    mcpm__reply(s);
    mcpm__take(s);
    mcpm__out_commit(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_REPLIES);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_YIELD);
    mcpm__watchdog(s);
    mcpm__note(s, "defer", s->mapper_id, s->mapper_level);
}

void myri_mcpm_a_answer(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    uint64_t id;
    uint8_t lv;
    mcpm__sender(s, &id, &lv);
    uint32_t n = 0;
    const uint8_t *f = myri_mcpm_head(s, &n);
    if (f && s->cfg.election && mcpm__role(s) == MYRI_MAPW_ROLE_MAPPING && lv > 0 &&
        f[MYRI_MAPW_OFF_ROLE] == MYRI_MAPW_ROLE_MAPPING)
        s->disturbed = true; /* a lower NIC is exploring too (it yields when it gets this reply) */
    mcpm__reply(s);
    mcpm__take(s);
    mcpm__out_commit(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_REPLIES);
    if (mcpm__role(s) == MYRI_MAPW_ROLE_FOLLOWER &&
        (!s->mapper_id || id == s->mapper_id || myri_mapw_cmp(lv, id, s->mapper_level, s->mapper_id) > 0)) {
        s->mapper_id = id;
        s->mapper_level = lv;
        mcpm__watchdog(s);
    }
}

void myri_mcpm_a_scout_busy(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm__take(fw);
    myri_fw_count(MCPM(fw)->m.fi, MYRI_MCPM_C_OUT_FULL);
}

void myri_mcpm_a_yield_reply(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__sender(s, &s->mapper_id, &s->mapper_level);
    mcpm__take(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_YIELD);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_FOLLOWER);
}

void myri_mcpm_a_take_answer(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    uint32_t n = 0;
    const uint8_t *f = myri_mcpm_head(s, &n);
    myri_mcp_map_answer a = {0};
    if (f) {
        a.kind = f[MYRI_MAPW_OFF_SUB];
        a.tag = myri_be32_get(f + MYRI_MAPW_OFF_TAG);
        a.id = myri_mapw_get48(f + MYRI_MAPW_OFF_ID);
        a.level = f[MYRI_MAPW_OFF_LEVEL];
        a.role = f[MYRI_MAPW_OFF_ROLE];
    }
    mcpm__take(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_ANSWERS);
    if (f) s->lib.answer(s->lib.ctx, &a);
}

void myri_mcpm_a_stale(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm__take(fw);
    myri_fw_count(MCPM(fw)->m.fi, MYRI_MCPM_C_STALE);
}

uint32_t myri_mcpm_x_install(void *fw, myri_lanai *l)
{
    (void)l;
    uint32_t n = 0;
    const uint8_t *f = myri_mcpm_head(fw, &n);
    return f && n > MYRI_MAPW_HDR_BYTES ? mcpm__route_cost(f + MYRI_MAPW_HDR_BYTES, n - MYRI_MAPW_HDR_BYTES) : 0;
}

void myri_mcpm_a_install(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    uint32_t n = 0;
    const uint8_t *f = myri_mcpm_head(s, &n);
    uint8_t copy[MYRI_MAPW_HDR_BYTES];
    if (f) memcpy(copy, f, sizeof copy);
    if (f) {
        s->mapper_id = myri_mapw_get48(f + MYRI_MAPW_OFF_ID);
        s->mapper_level = f[MYRI_MAPW_OFF_LEVEL];
        s->epoch = myri_be32_get(f + MYRI_MAPW_OFF_TAG);
        mcpm__install(s, f + MYRI_MAPW_HDR_BYTES, n - MYRI_MAPW_HDR_BYTES);
    }
    mcpm__take(s);
    myri_fw_count(s->m.fi, MYRI_MCPM_C_MAPS_GOT);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_ROLE, MYRI_MAPW_ROLE_FOLLOWER);
    mcpm__watchdog(s);
}

void myri_mcpm_a_map_ignored(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm__take(fw);
    myri_fw_count(MCPM(fw)->m.fi, MYRI_MCPM_C_STALE);
}

void myri_mcpm_a_drop_other(void *fw, myri_lanai *l)
{
    (void)l;
    mcpm__take(fw);
    myri_fw_count(MCPM(fw)->m.fi, MYRI_MCPM_C_BAD_MAP);
}

/* The map body names this NIC's unique ID among its hosts. */
bool myri_mcpm_map_has_me(mcpm *s, const uint8_t *f, uint32_t n)
{
    if (n < MYRI_MAPW_HDR_BYTES + MYRI_MAPW_MAP_HDR_BYTES) return false;
    const uint8_t *b = f + MYRI_MAPW_HDR_BYTES;
    uint32_t h = myri_mapw_get16(b);
    if (MYRI_MAPW_HDR_BYTES + MYRI_MAPW_MAP_HDR_BYTES + h * MYRI_MAPW_HOST_BYTES > n) return false;
    for (uint32_t i = 0; i < h; i++)
        if (myri_mapw_get48(b + MYRI_MAPW_MAP_HDR_BYTES + i * MYRI_MAPW_HOST_BYTES) == s->my_id) return true;
    return false;
}

/* ---- actions: the transmit machine ------------------------------------------------------------------- */

void myri_mcpm_a_map_send(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    const mcpm_out *o = &s->out[s->out_head];
    uint32_t e = s->out_base + s->out_head * s->out_bytes, first = e + MCPM_ROUTE_AREA - o->rl;
    myri_fw_set(s->m.fi, MYRI_MCPM_V_TX, 1);
    mcpm__reg(s, MYRI_LANAI_SMP, first & ~3u);
    mcpm__reg(s, MYRI_LANAI_SA, first & 3u);
    mcpm__reg(s, MYRI_LANAI_SMLT, e + MCPM_ROUTE_AREA + o->fl);
}

void myri_mcpm_a_map_sent(void *fw, myri_lanai *l)
{
    mcpm *s = fw;
    (void)l;
    mcpm__reg(s, MYRI_LANAI_ISR, MYRI_LANAI_SEND_INT);
    s->out_head = (s->out_head + 1) % MCPM_NOUT;
    myri_fw_q_get(s->m.fi, MYRI_MCPM_Q_OUT);
    myri_fw_set(s->m.fi, MYRI_MCPM_V_TX, 0);
}

/* ---- life ---------------------------------------------------------------------------------------------- */

myri_status myri_mcpm_create(const void *params, myri_lanai *l, myri_fw_inst *fi, void **out)
{
    mcpm *s = calloc(1, sizeof *s);
    if (!s) return MYRI_ENOMEM;
    myri_status st = myri_mcp_init(&s->m, params, l, fi);
    s->m.map_on = true;
    s->cfg.max_hosts = 128; /* until attached */
    s->frame_max = s->m.rx_win - 4;
    s->mcb = myri_hcb_round4(myri_mcp_sram_end(&s->m));
    s->out_base = s->mcb + MYRI_MCP_MCB_BYTES;
    s->out_bytes = MCPM_ROUTE_AREA + myri_hcb_round4(s->frame_max);
    s->rt_base = s->out_base + MCPM_NOUT * s->out_bytes;
    if (st == MYRI_OK) {
        s->hcb_dest = calloc(s->m.g.nroutes, sizeof *s->hcb_dest);
        if (!s->hcb_dest) st = MYRI_ENOMEM;
    }
    if (st != MYRI_OK) {
        myri_mcpm_destroy(s);
        return st;
    }
    *out = s;
    return MYRI_OK;
}

void myri_mcpm_destroy(void *fw)
{
    mcpm *s = fw;
    if (!s) return;
    free(s->hcb_dest);
    myri_mcp_fini(&s->m);
    free(s);
}

static mcpm *mcpm__of(const myri_fw_inst *fi)
{
    return fi && myri_fw_def_of(fi) == myri_mcp_map_def() ? myri_fw_state((myri_fw_inst *)fi) : NULL;
}

myri_status myri_mcp_map_attach(myri_fw_inst *fi, const myri_mcp_map_cfg *cfg, const myri_mcp_map_lib *lib)
{
    mcpm *s = mcpm__of(fi);
    if (!s || !cfg || !lib || !lib->begin || !lib->rescout || !lib->peek || !lib->next || !lib->expects ||
        !lib->answer || !lib->batch_answered || !lib->timeout || !lib->changed || !lib->best || !lib->encode ||
        !lib->dest || !lib->routes || !lib->route || cfg->max_hosts == 0 || cfg->max_hosts > 65535)
        return MYRI_EINVAL;
    uint64_t end = (uint64_t)s->rt_base + (uint64_t)cfg->max_hosts * MCPM_RT_BYTES + s->frame_max;
    uint64_t top = myri_lanai_sram_bytes(s->m.l);
    if (top > MYRI_LANAI_STACK_TOP) top = MYRI_LANAI_STACK_TOP;
    if (end > top) return MYRI_ERANGE;
    s->cfg = *cfg;
    s->lib = *lib;
    s->attached = true;
    return MYRI_OK;
}

uint32_t myri_mcp_map_mcb_addr(const myri_fw_inst *fi)
{
    const mcpm *s = mcpm__of(fi);
    return s ? s->mcb : 0;
}

int myri_mcp_map_route(const myri_fw_inst *fi, uint64_t id, uint8_t *out)
{
    mcpm *s = mcpm__of(fi);
    if (!s || !out) return -1;
    for (uint32_t i = 0; i < s->nrt; i++) {
        uint32_t e = s->rt_base + i * MCPM_RT_BYTES;
        uint64_t eid = (uint64_t)myri_mcp_rd(&s->m, e) << 32 | myri_mcp_rd(&s->m, e + 4);
        if (eid != id) continue;
        uint32_t len = myri_mcp_rd(&s->m, e + 8);
        const uint8_t *b = myri_lanai_sram(s->m.l, e + 12, MYRI_MAPW_ROUTE_MAX);
        if (len > MYRI_MAPW_ROUTE_MAX || !b) return -1;
        memcpy(out, b, len);
        return (int)len;
    }
    return -1;
}

void myri_mcp_map_get_state(const myri_fw_inst *fi, myri_mcp_map_state *out)
{
    mcpm *s = mcpm__of(fi);
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!s) return;
    out->role = mcpm__role(s);
    out->mapper_id = s->mapper_id;
    out->installs = s->installs;
    out->epoch = s->epoch;
    out->hosts_routed = (int)s->nrt;
}

/* Reads the map control block the host wrote (at boot). */
void myri_mcpm_read_mcb(mcpm *s)
{
    uint32_t hi = myri_mcp_rd(&s->m, s->mcb + MYRI_MCP_MCB_ID_HI), lo = myri_mcp_rd(&s->m, s->mcb + MYRI_MCP_MCB_ID_LO);
    s->my_id = ((uint64_t)(hi & 0xffffu) << 32 | lo) & MYRI_MAPW_ID_MASK;
    uint32_t lv = myri_mcp_rd(&s->m, s->mcb + MYRI_MCP_MCB_LEVEL);
    s->level = (uint8_t)(lv > 255 ? 255 : lv);
}
