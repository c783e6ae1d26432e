/* lanai_dma.c -- the LANai's three DMA engines: host DMA over the I/O bus
 * (bursts booked one at a time), send DMA and PIO sends to the fabric port,
 * receive DMA from the port into armed windows.  See lanai.h, docs/NIC.md. */
#include "nic/lanai_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/packet.h"

/* A DMA register took value v (observation: the VCD's register lanes). */
static void lanai__reg_trace(myri_lanai *l, uint32_t reg, uint32_t v)
{
    myri_lanai__trace_at(l, myri_sim_now(l->sim), MYRI_LANAI_EV_DMAREG, reg, v);
}

/* ---- host DMA ------------------------------------------------------------------------------ */

static myri_bus_user lanai__bus_user(uint32_t dir)
{
    return dir == MYRI_LANAI_DIR_E2L ? MYRI_BUS_DMA_E2L : MYRI_BUS_DMA_L2E;
}

static void lanai__hdma_at(myri_lanai *l, myri_time_ps at, uint32_t phase, uint32_t bytes)
{
    myri_event ev = {.target = l->comp, .kind = LANAI_EV_HDMA, .arg32 = phase, .arg = bytes};
    myri_sim_schedule(l->sim, at, &ev);
    l->hdma_ev_at = at;
}

/* The host-DMA engine books the bus only in its events: while busy at the
 * pending one (the setup's end or a burst's end), else no sooner than a
 * transfer started now would (now + bus.dma_setup). */
myri_time_ps myri_lanai_hdma_next_book_ps(const myri_lanai *l)
{
    if (!l) return 0;
    if (l->hdma_busy) return l->hdma_ev_at;
    return myri_sim_now(l->sim) + myri_bus_params_of(l->bus)->dma_setup_ps;
}

/* Books the next burst on the bus, from now; its bytes land at its end. */
static void lanai__hdma_burst(myri_lanai *l)
{
    uint64_t burst = myri_bus_params_of(l->bus)->burst_bytes;
    uint32_t b = l->hdma_left < burst ? l->hdma_left : (uint32_t)burst;
    myri_time_ps dur = myri_bus_dma_ps(l->bus, b);
    myri_time_ps start = myri_bus_book(l->bus, lanai__bus_user(l->dir), myri_sim_now(l->sim), dur, b);
    lanai__hdma_at(l, start + dur, 1, b);
}

static myri_status lanai__hdma_start(myri_lanai *l, uint32_t count)
{
    if (l->hdma_busy) {
        myri_lanai__fault(l);
        return MYRI_ESTATE;
    }
    uint32_t n = count > UINT32_MAX - 3 ? UINT32_MAX & ~3u : (count + 3u) & ~3u; /* whole words */
    bool sram_ok = l->lar <= l->sram_bytes && n <= l->sram_bytes - l->lar;
    bool host_ok = l->ear <= l->hmem_bytes && n <= l->hmem_bytes - l->ear;
    if (!sram_ok || !host_ok || (l->lar & 3u) || (l->ear & 3u)) {
        myri_lanai__fault(l);
        return MYRI_ERANGE;
    }
    myri_time_ps now = myri_sim_now(l->sim);
    myri_lanai__acct(l);
    l->ctr = n;
    l->hdma_left = n;
    l->hdma_total = n;
    l->hdma_ear0 = l->ear;
    l->hdma_busy = true;
    l->hdma_start = now;
    l->st.hdma_ops[l->dir]++;
    lanai__reg_trace(l, MYRI_LANAI_DMA_CTR, n);
    myri_lanai__trace_at(l, now, MYRI_LANAI_EV_HDMA, 1, l->dir);
    lanai__hdma_at(l, now + myri_bus_params_of(l->bus)->dma_setup_ps, 0, 0);
    return MYRI_OK;
}

myri_status myri_lanai__hdma_write(myri_lanai *l, uint32_t reg, uint32_t v)
{
    if (reg == MYRI_LANAI_DMA_CTR) return lanai__hdma_start(l, v);
    if (l->hdma_busy) { /* the live registers belong to the running transfer */
        myri_lanai__fault(l);
        return MYRI_ESTATE;
    }
    if (reg == MYRI_LANAI_DMA_DIR) {
        if (v != MYRI_LANAI_DIR_E2L && v != MYRI_LANAI_DIR_L2E) {
            myri_lanai__fault(l);
            return MYRI_EINVAL;
        }
        l->dir = v;
    } else if (reg == MYRI_LANAI_EAR) {
        l->ear = v;
        lanai__reg_trace(l, reg, v);
    } else {
        l->lar = v;
        lanai__reg_trace(l, reg, v);
    }
    return MYRI_OK;
}

/* Remembers a finished host-DMA interval for the receive-DMA overlap. */
static void lanai__span_add(myri_lanai *l, myri_time_ps from, myri_time_ps to)
{
    if (!l->armed) return; /* only an armed window's notice can overlap it */
    if (l->nspans == l->capspans) {
        size_t cap = l->capspans ? 2 * l->capspans : 16;
        lanai__span *s = realloc(l->spans, cap * sizeof *s);
        if (!s) return; /* the overlap statistic loses this interval */
        l->spans = s;
        l->capspans = cap;
    }
    l->spans[l->nspans++] = (lanai__span){from, to};
}

static void lanai__hdma_done(myri_lanai *l)
{
    myri_time_ps now = myri_sim_now(l->sim);
    myri_lanai__acct(l);
    l->hdma_busy = false;
    l->st.hdma_ps[l->dir] += now - l->hdma_start;
    l->st.hdma_bytes[l->dir] += l->hdma_total;
    lanai__span_add(l, l->hdma_start, now);
    myri_lanai__trace_at(l, now, MYRI_LANAI_EV_HDMA, 0, l->dir);
    myri_lanai__set_isr(l, MYRI_LANAI_DMA_INT);
    if (l->dir == MYRI_LANAI_DIR_L2E && l->notify) l->notify(l->notify_ctx, l->hdma_ear0, l->hdma_total);
}

void myri_lanai__hdma_event(myri_lanai *l, const myri_event *ev)
{
    if (!l->hdma_busy) return;
    if (ev->arg32 == 1) { /* a burst landed: copy its bytes, advance the live registers */
        uint32_t b = (uint32_t)ev->arg;
        if (l->dir == MYRI_LANAI_DIR_E2L) {
            if (l->fetch) l->fetch(l->fetch_ctx, l->ear, b);
            memcpy(l->sram + l->lar, l->hmem + l->ear, b);
            myri_lanai__sram_written(l, l->lar, b);
        } else {
            memcpy(l->hmem + l->ear, l->sram + l->lar, b);
        }
        l->lar += b;
        l->ear += b;
        l->ctr -= b;
        l->hdma_left -= b;
        lanai__reg_trace(l, MYRI_LANAI_LAR, l->lar);
        lanai__reg_trace(l, MYRI_LANAI_EAR, l->ear);
        lanai__reg_trace(l, MYRI_LANAI_DMA_CTR, l->ctr);
    }
    if (l->hdma_left > 0) lanai__hdma_burst(l);
    else lanai__hdma_done(l);
}

/* ---- send DMA -------------------------------------------------------------------------------- */

static void lanai__send_flag(myri_lanai *l, bool on)
{
    myri_time_ps now = myri_sim_now(l->sim);
    myri_lanai__acct(l);
    if (on) {
        l->on_port = true;
        l->sdma_start = now;
        myri_lanai__trace_at(l, now, MYRI_LANAI_EV_SDMA, 1, l->have);
    } else {
        l->on_port = false;
        l->st.sdma_ps += now - l->sdma_start;
        myri_lanai__trace_at(l, now, MYRI_LANAI_EV_SDMA, 0, l->have);
    }
}

/* The packet's head goes to the port once its route bytes and type are
 * staged; after that, the port is told of every byte staged.  Its length is
 * what has been staged when the tail write (SMLT, ST) comes: the port sends
 * the CRC and the GAP after it, as on the hardware. */
static myri_status lanai__send_push(myri_lanai *l)
{
    if (!l->port) {
        myri_lanai__fault(l);
        l->staging = false; /* nowhere to send it */
        return MYRI_ESTATE;
    }
    if (l->on_port) return myri_port_send_more(l->port, l->have, l->tail);
    uint32_t rl = 0;
    while (rl < l->have && (l->stage[rl] & 0x80u)) rl++;
    uint32_t tb = (uint32_t)l->p.type_bytes;
    if (rl > 32 || (l->tail && (rl == l->have || l->have < rl + tb))) {
        myri_lanai__fault(l); /* a route the fabric cannot carry, or a tail inside the route or type */
        l->staging = false;
        return MYRI_EINVAL;
    }
    if (rl == l->have || l->have < rl + tb) return MYRI_OK; /* not yet */
    uint32_t type = 0;
    for (uint32_t i = 0; i < tb; i++) type = type << 8 | l->stage[rl + i];
    uint32_t room = l->stage_cap - rl - tb; /* the payload's room: the length comes with the tail */
    l->pkt = (myri_fabric_packet){.id = myri_packet_id(l->host, l->seq), .src_host = l->host,
                                  .route_len = (uint8_t)rl, .route = l->stage, .type = type,
                                  .payload_bytes = room, .payload = room ? l->stage + rl + tb : NULL};
    myri_status st = myri_port_send(l->port, &l->pkt, l->have, l->tail);
    if (st) {
        myri_lanai__fault(l);
        l->staging = false;
        return st;
    }
    l->seq++;
    lanai__send_flag(l, true);
    return MYRI_OK;
}

/* Stages n bytes of the current packet (a DMA chunk or a PIO send); the
 * first byte begins a packet.  Misuse is a fault: bytes or a tail after the
 * tail while that packet is still on the port, bytes beyond the SRAM's size
 * (cut), a tail with no packet. */
static myri_status lanai__stage(myri_lanai *l, const uint8_t *src, uint32_t n, bool tail)
{
    if (l->discard) { /* the rest of a packet dropped before its tail (link down, timeout) */
        if (tail) l->discard = l->staging = false;
        return MYRI_OK;
    }
    if (l->tail || (!l->staging && n == 0)) { /* the last packet is not over, or a tail with no bytes */
        myri_lanai__fault(l);
        return MYRI_ESTATE;
    }
    if (!l->stage) {
        l->stage = malloc(l->sram_bytes);
        if (!l->stage) return MYRI_ENOMEM;
        l->stage_cap = (uint32_t)l->sram_bytes;
    }
    if (!l->staging) {
        l->staging = true;
        l->have = 0;
    }
    myri_status st = MYRI_OK;
    if (n > l->stage_cap - l->have) { /* longer than the SRAM: cut */
        myri_lanai__fault(l);
        st = MYRI_ERANGE;
        n = l->stage_cap - l->have;
    }
    memcpy(l->stage + l->have, src, n);
    l->have += n;
    if (tail) l->tail = true;
    myri_status ps = lanai__send_push(l);
    if (!l->staging) l->tail = false; /* refused: the next byte begins a new packet */
    return st ? st : ps;
}

/* Books the read-out of n bytes of SRAM by the send DMA at the link's byte
 * rate, after the chunks before it (the SRAM cycles of the packet interface,
 * myri_lanai_sram_dma_words). */
static void lanai__ro_book(myri_lanai *l, uint32_t n)
{
    myri_time_ps now = myri_sim_now(l->sim);
    if (l->ro_until < now) l->ro_from = l->ro_until = now;
    l->ro_until += (myri_time_ps)n * l->char_ps;
}

uint64_t myri_lanai_sram_dma_words(myri_lanai *l, myri_time_ps dur_ps)
{
    if (!l || !l->char_ps) return 0;
    myri_time_ps now = myri_sim_now(l->sim), end = now + dur_ps;
    myri_time_ps a = l->ro_from > now ? l->ro_from : now, b = l->ro_until < end ? l->ro_until : end;
    myri_time_ps tx = b > a ? (b - a) / l->char_ps : 0, rx = 0;
    if (l->armed && l->port) { /* a packet flowing into the window goes on at the link's rate, up to its end */
        uint32_t have = myri_port_rx_count(l->port), room = l->rml - l->win_base;
        if (have > 0 && have < room) {
            rx = dur_ps / l->char_ps;
            if (rx > room - have) rx = room - have;
        }
    }
    return (tx + 3) / 4 + (rx + 3) / 4;
}

/* SML / SMLT: the bytes [SMP + SA, limit) of SRAM. */
static myri_status lanai__send_dma(myri_lanai *l, uint32_t limit, bool tail)
{
    if (l->sml_busy) {
        myri_lanai__fault(l);
        return MYRI_ESTATE;
    }
    uint32_t from = l->smp + l->sa;
    if (l->sa > 3 || from < l->smp || from > limit || limit > l->sram_bytes) {
        myri_lanai__fault(l);
        return MYRI_ERANGE;
    }
    uint32_t n = limit - from;
    lanai__reg_trace(l, tail ? MYRI_LANAI_SMLT : MYRI_LANAI_SML, limit);
    myri_status st = lanai__stage(l, l->sram + from, n, tail);
    if (st && st != MYRI_ERANGE) return st;
    lanai__ro_book(l, n);
    if (!tail) { /* SEND_INT once the chunk is read out at the link's byte rate */
        myri_time_ps now = myri_sim_now(l->sim);
        myri_time_ps s = l->sml_free_at > now ? l->sml_free_at : now;
        l->sml_free_at = s + (myri_time_ps)n * l->char_ps;
        l->sml_busy = true;
        myri_event ev = {.target = l->comp, .kind = LANAI_EV_SML};
        myri_sim_schedule(l->sim, l->sml_free_at, &ev);
    }
    return st;
}

void myri_lanai__sml_event(myri_lanai *l)
{
    if (!l->sml_busy) return;
    l->sml_busy = false;
    myri_lanai__set_isr(l, MYRI_LANAI_SEND_INT);
}

myri_status myri_lanai__send_write(myri_lanai *l, uint32_t reg, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
    switch (reg) {
    case MYRI_LANAI_SMP:
        l->smp = v;
        lanai__reg_trace(l, reg, v);
        return MYRI_OK;
    case MYRI_LANAI_SA:
        if (v > 3) {
            myri_lanai__fault(l);
            return MYRI_ERANGE;
        }
        l->sa = v;
        return MYRI_OK;
    case MYRI_LANAI_SML: return lanai__send_dma(l, v, false);
    case MYRI_LANAI_SMLT: return lanai__send_dma(l, v, true);
    case MYRI_LANAI_SB: return lanai__stage(l, b + 3, 1, false);
    case MYRI_LANAI_SH: return lanai__stage(l, b + 2, 2, false);
    case MYRI_LANAI_SW: return lanai__stage(l, b, 4, false);
    case MYRI_LANAI_ST: return lanai__stage(l, b + 3, 1, true);
    default: return MYRI_EINVAL;
    }
}

/* The port's tx notice: the packet's tail left (or it was dropped). */
static void lanai__port_tx(void *dev, myri_port *p, const myri_port_tx *t)
{
    myri_lanai *l = dev;
    (void)p;
    if (!l || !l->on_port || t->id != l->pkt.id) return;
    lanai__send_flag(l, false);
    l->st.sdma_packets++;
    l->st.sdma_bytes += l->have;
    l->discard = !l->tail; /* dropped before its tail: the firmware's remaining bytes are swallowed */
    l->staging = l->discard;
    l->tail = false;
    /* SMLT / ST: SEND_INT when the tail left (a packet leaves only after its tail), or it was dropped. */
    myri_lanai__set_isr(l, MYRI_LANAI_SEND_INT);
}

/* ---- receive DMA ------------------------------------------------------------------------------ */

uint32_t myri_lanai__rmp(myri_lanai *l)
{
    if (!l->armed || !l->port) return l->rmp;
    uint32_t v = l->win_base + myri_port_rx_count(l->port);
    lanai__reg_trace(l, MYRI_LANAI_RMP, v); /* the live pointer as the firmware saw it */
    return v;
}

myri_time_ps myri_lanai_rx_pending_ps(myri_lanai *l)
{
    if (!l || !l->armed || !l->port) return MYRI_TIME_NEVER;
    if (myri_port_rx_count(l->port) == 0) return myri_sim_now(l->sim); /* the head is still to come */
    return l->arm_ps;
}

myri_status myri_lanai__recv_write(myri_lanai *l, uint32_t reg, uint32_t v)
{
    if (l->armed) { /* the window belongs to the receive DMA until its notice */
        myri_lanai__fault(l);
        return MYRI_ESTATE;
    }
    if (reg == MYRI_LANAI_RMP) {
        l->rmp = v;
        lanai__reg_trace(l, reg, v);
        return MYRI_OK;
    }
    if (v <= l->rmp || v > l->sram_bytes) {
        myri_lanai__fault(l);
        return MYRI_ERANGE;
    }
    if (!l->port) {
        myri_lanai__fault(l);
        return MYRI_ESTATE;
    }
    myri_status st = myri_port_rx_arm(l->port, l->sram + l->rmp, v - l->rmp);
    if (st) {
        myri_lanai__fault(l);
        return st;
    }
    l->rml = v;
    l->win_base = l->rmp;
    l->armed = true;
    lanai__reg_trace(l, MYRI_LANAI_RML, v);
    l->arm_ps = myri_sim_now(l->sim);
    l->nspans = 0; /* host DMAs that ended before this window cannot overlap its bytes */
    return MYRI_OK;
}

/* Host-DMA busy time within [from, to): finished intervals and the running one. */
static myri_time_ps lanai__hdma_within(const myri_lanai *l, myri_time_ps from, myri_time_ps to)
{
    myri_time_ps sum = 0;
    for (size_t i = 0; i < l->nspans; i++) {
        myri_time_ps a = l->spans[i].from > from ? l->spans[i].from : from;
        myri_time_ps b = l->spans[i].to < to ? l->spans[i].to : to;
        if (b > a) sum += b - a;
    }
    if (l->hdma_busy) {
        myri_time_ps a = l->hdma_start > from ? l->hdma_start : from;
        if (to > a) sum += to - a;
    }
    return sum;
}

static void lanai__port_rx(void *dev, myri_port *p, const myri_port_rx *r)
{
    myri_lanai *l = dev;
    (void)p;
    if (!l || !l->armed) return;
    myri_time_ps now = myri_sim_now(l->sim);
    myri_time_ps from = r->head_ps > l->arm_ps ? r->head_ps : l->arm_ps;
    if (r->bytes) {
        l->st.rdma_ps += now - from;
        l->st.hdma_rdma_ps += lanai__hdma_within(l, from, now);
        myri_lanai__trace_at(l, from, MYRI_LANAI_EV_RDMA, 1, r->bytes);
        l->last_byte = (int64_t)l->win_base + r->bytes - 1;
        myri_lanai__sram_written(l, l->win_base, r->bytes); /* the trailer byte is within */
    }
    myri_lanai__trace_at(l, now, MYRI_LANAI_EV_RDMA, 0, r->bytes);
    l->armed = false;
    l->nspans = 0;
    l->rmp = l->win_base + r->bytes;
    lanai__reg_trace(l, MYRI_LANAI_RMP, l->rmp);
    l->st.rdma_windows++;
    l->st.rdma_bytes += r->bytes;
    if (r->end == MYRI_PORT_RX_BUFF) {
        myri_lanai__set_isr(l, MYRI_LANAI_BUFF_INT);
        return;
    }
    /* the trailer byte's place holds the CRC remainder: 0 for a good packet */
    uint8_t rem = r->end == MYRI_PORT_RX_TAIL ? r->crc_rem : (r->crc_rem ? r->crc_rem : 0xFFu);
    if (l->last_byte >= 0 && (uint64_t)l->last_byte < l->sram_bytes) l->sram[l->last_byte] = rem;
    l->last_byte = -1;
    myri_lanai__set_isr(l, MYRI_LANAI_RECV_INT);
}

const myri_port_ops myri_lanai__port_ops = {.rx = lanai__port_rx, .tx = lanai__port_tx, .link = NULL};

void myri_lanai__dma_free(myri_lanai *l)
{
    free(l->stage);
    free(l->spans);
    l->stage = NULL;
    l->spans = NULL;
}
