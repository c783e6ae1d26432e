/* fw_elf.c -- the firmware kind `elf`: C compiled for the LANai, run by the
 * LANai CPU (src/cpu/) over the NIC's SRAM (fw_elf.h, docs/LANAI.md).
 *
 * The CPU runs in steps: the LANai asks for a step whenever the CPU is free,
 * the step runs the program for at most elf.quantum cycles and returns the
 * cycles it used, which the LANai turns into busy time with nic.clock.  The
 * CPU's register accesses are in step with the simulation's clock
 * (myri_cpu_set_mmio_sync): a step ends before any instruction that reaches
 * the register window, and the next step starts with it, so every register
 * read or write happens at the instant its cycle comes.  SRAM words the
 * program reads between two register accesses are those of the step's start
 * (a write by the host or a DMA engine lands at most one quantum late for the
 * program; the CPU's predecoded words are forgotten at once through the
 * LANai's SRAM watch).
 *
 * The only file of src/firmware/ that includes cpu/ (scripts/check-deps.sh,
 * rule e).
 */
#include "firmware/fw_elf.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/hcb.h"
#include "cpu/cpu.h"
#include "firmware/mcp.h"

/* The runtime objects (generated/lanai_runtime.c, empty without clang). */
extern const myri_cpu_object myri_lanai_runtime_objects[];
extern const size_t myri_lanai_runtime_count;
/* Seed 001's MCP in C (firmware/lanai/mcp/, generated/lanai_mcp.c): the objects when elf.objects names none. */
extern const myri_cpu_object myri_lanai_mcp_objects[];
extern const size_t myri_lanai_mcp_count;

/* The program is linked from SRAM 0x10 up: the words below stay the host's and
 * firmware's fixed places, 0xC the HCB pointer (seed 001's crt0 keeps
 * `_hcb_ptr` there; common/lanai_regs.h MYRI_LANAI_HCB_PTR_ADDR). */
#define ELF__BASE 0x10u

typedef struct elf__params {
    const myri_node *objects;
    const char *entry;
    int64_t quantum_cycles;
    bool fast_forward;
    const char *profile;
    const myri_node *symbols;
    bool sram_contention;
    /* not keys of elf.*: the parsed mcp.* for the built-in C MCP (myri_fw_elf_use_mcp) */
    const myri_mcp_params *mcp;
    const myri_node *mcp_at;
} elf__params;

static const myri_param elf__param_table[] = {
    {"objects", MYRI_P_NODE, NULL, "", NULL, NULL,
     "the relocatable LANai objects (clang --target=lanai -c) linked into every NIC's SRAM, a list of paths "
     "relative to the working directory; the runtime (start-up code, compiler helpers) is linked after them; "
     "none given: seed 001's MCP in C (firmware/lanai/mcp/mcp.c, built into myri), which the host API and the "
     "programs pingpong, latency, stream and traffic run on",
     offsetof(elf__params, objects), NULL},
    {"entry", MYRI_P_STRING, NULL, "main", NULL, NULL, "the function the start-up code calls",
     offsetof(elf__params, entry), NULL},
    {"quantum", MYRI_P_INT, "cycles", "64", "1", "1000000",
     "most cycles the CPU runs between two looks at the simulation's clock; register accesses are always exact, "
     "SRAM written by the host or a DMA engine is seen by the program up to this late (assumption: 64 cycles, "
     "about 2 us at 33 MHz, below one packet's time on the link)",
     offsetof(elf__params, quantum_cycles), NULL},
    {"fast_forward", MYRI_P_BOOL, NULL, "true", NULL, NULL,
     "a loop that only reads ISR and comes back to the same state idles the CPU until something can change ISR "
     "or SRAM, its passes charged exactly (docs/LANAI.md); false runs every pass",
     offsetof(elf__params, fast_forward), NULL},
    {"profile", MYRI_P_STRING, NULL, "", NULL, NULL,
     "a file name: each NIC writes FILE.NIC (FILE.nic.h0, ...) at the end of the run, one line per instruction "
     "word its CPU executed: address, executions, cycles, function+offset (polling passes the fast-forward "
     "skipped are not executed, so not there); empty: no profile",
     offsetof(elf__params, profile), NULL},
    {"symbols", MYRI_P_NODE, NULL, "", NULL, NULL,
     "a map {NAME: NUMBER}: each NAME, a global word of the program (4 bytes or more), is set to NUMBER (0 to "
     "4294967295, or -2147483648 to -1; decimal or 0x...) before it starts: the program's own parameters "
     "(examples/firmware/echo.c: echo_rounds)",
     offsetof(elf__params, symbols), NULL},
    {"sram_contention", MYRI_P_BOOL, NULL, "true", NULL, NULL,
     "the CPU's loads and stores wait for the SRAM cycles the send and receive DMA take (seed 002: the SRAM is "
     "accessed once per clock by the processor or the packet interface): a step's waits are min(its SRAM "
     "accesses, the packet interface's words in it) (docs/LANAI.md, Costs); false: no waits",
     offsetof(elf__params, sram_contention), NULL},
};

static void elf__params_default(void *p)
{
    elf__params *e = p;
    e->objects = NULL;
    e->entry = "main";
    e->quantum_cycles = 64;
    e->fast_forward = true;
    e->profile = "";
    e->symbols = NULL;
    e->sram_contention = true;
    e->mcp = NULL;
    e->mcp_at = NULL;
}

void myri_fw_elf_use_mcp(void *elf_params, const myri_mcp_params *mcp, const myri_node *at)
{
    elf__params *e = elf_params;
    e->mcp = mcp;
    e->mcp_at = at;
}

typedef struct elf__fw {
    myri_cpu *cpu;
    myri_cpu_image img;
    myri_lanai *l;
    myri_fw_inst *rt;
    uint32_t quantum;
    bool started, halted;
    bool contention;            /* elf.sram_contention */
    /* interrupts (elf__isr_*): lanai_isr called when ISR & IMR != 0 */
    uint32_t isr_fn;            /* lanai_isr's address (0: the program has none, IMR stays 0) */
    bool in_isr, isr_returned;
    myri_cpu_snapshot isr_saved; /* the interrupted state */
    /* the busy-wait fast-forward (elf__ff_*) */
    bool ff;                    /* elf.fast_forward */
    uint32_t acc_reads, acc_writes, acc_off, acc_val; /* this step's register accesses (the first's offset, value) */
    bool prev_ok;               /* prev describes the last step */
    uint32_t prev_pc, prev_val;
    myri_cpu_snapshot prev_end;
    myri_cpu_counts pass;       /* one pass of the loop: the last step's counts */
    bool armed;                 /* two equal passes: the next with the same ISR idles */
    bool idle;                  /* idling in the loop since idle_ps */
    myri_time_ps idle_ps, resume_ps;
    uint32_t pub_pc, fn_lo, fn_hi, fn_entry; /* the last pc published and its function's [lo, hi) */
    uint64_t *prof;             /* elf.profile: executions and cycles per word of the program */
    uint32_t prof_words;
    char *prof_path;
    char prof_nic[64];          /* the NIC's name (the LANai is gone when the profile is written) */
    uint8_t *prof_code;         /* the program's words as loaded, for the profile's disassembly */
    char line[128];  /* the console's current line */
    size_t nline;
} elf__fw;

/* ---- the register window ---------------------------------------------------------- */

static void elf__console(elf__fw *e, uint32_t v)
{
    char c = (char)(v & 0xff);
    if (c != '\n' && e->nline < sizeof e->line - 1) {
        e->line[e->nline++] = c;
        return;
    }
    e->line[e->nline] = 0;
    fprintf(stderr, "elf firmware: %s\n", e->line);
    e->nline = 0;
}

static int elf__mmio(void *ctx, uint32_t off, bool wr, uint32_t *v, unsigned size)
{
    elf__fw *e = ctx;
    if (size != 4) return 1; /* the registers are words */
    switch (off) {
    case MYRI_FW_ELF_ISR: off = MYRI_LANAI_ISR; break;
    case MYRI_FW_ELF_IMR:
        if (wr && *v != 0 && !e->isr_fn) return 1; /* no handler: interrupts cannot be taken (docs/LANAI.md) */
        off = MYRI_LANAI_IMR;
        break;
    case MYRI_FW_ELF_COUNT:
        e->acc_writes++;
        if (!wr || *v >= MYRI_FW_ELF_C_INSNS) return 1;
        myri_fw_count(e->rt, *v);
        return 0;
    case MYRI_CPU_CONSOLE_OFFSET:
        e->acc_writes++;
        if (!wr) return 1;
        elf__console(e, *v);
        return 0;
    case MYRI_CPU_EXIT_OFFSET:
        if (!wr) return 1;
        myri_cpu_stop(e->cpu, *v);
        return 0;
    default: break;
    }
    if (e->acc_reads + e->acc_writes == 0) {
        e->acc_off = off;
        e->acc_val = wr ? 0 : myri_lanai_read(e->l, off);
    }
    if (wr) e->acc_writes++;
    else e->acc_reads++;
    if (!wr) {
        *v = myri_lanai_read(e->l, off);
        return 0;
    }
    myri_status st = myri_lanai_write(e->l, off, *v);
    return st == MYRI_EINVAL ? 1 : 0; /* an unknown register faults; misuse of an engine is the NIC's fault count */
}

static void elf__sram_written(void *ctx, uint32_t addr, uint32_t bytes)
{
    elf__fw *e = ctx;
    myri_cpu_invalidate(e->cpu, addr, bytes);
    if (e->idle) myri_lanai_wake(e->l, myri_lanai_now(e->l)); /* what the loop reads may have changed */
    /* Not idle: the last pass read SRAM before this write, so the next pass is
     * not known to be the same; it runs (a loop reading SRAM words besides ISR,
     * as the C MCP's does, would otherwise idle past the host's write). */
    e->armed = false;
    e->prev_ok = false;
}

/* ---- stepping ---------------------------------------------------------------------------- */

static void elf__halt(elf__fw *e, myri_cpu_status st)
{
    e->halted = true;
    if (st == MYRI_CPU_STOPPED) return; /* the program returned (or wrote the exit word): the CPU stops */
    uint32_t pc = myri_cpu_fault_pc(e->cpu), off = 0;
    const char *fn = myri_cpu_image_function(&e->img, pc, &off);
    char t[32];
    myri_format_time(myri_lanai_now(e->l), t, sizeof t);
    fprintf(stderr, "%s: elf firmware stopped: %s at pc 0x%08x (in %s+0x%x), address 0x%08x, at %s\n",
            myri_lanai_component(e->l)->name, myri_cpu_fault_text(e->cpu), pc, fn ? fn : "?", off,
            myri_cpu_fault_addr(e->cpu), t);
}

static void elf__charge(elf__fw *e, myri_cpu_counts d, uint64_t times)
{
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_INSNS, d.instructions * times);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_CYCLES, d.cycles * times);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_STALLS, d.stalls * times);
}

/* A polling pass that found nothing: one whole pass of a loop (the step
 * started and ended at the same pc) whose only register access was a read of
 * ISR and which stored nothing.  Its instructions and cycles are counted apart
 * (cpu_poll_*), so that cpu_cycles - cpu_poll_cycles is the firmware's work. */
static void elf__charge_poll(elf__fw *e, myri_cpu_counts d, uint64_t times)
{
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_POLL_INSNS, d.instructions * times);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_POLL_CYCLES, d.cycles * times);
}

/* Idling in a polling loop, woken at now: charges the passes that ran
 * meanwhile (pass j starts at idle_ps + j x pass time and reads ISR) and
 * resumes at the first pass boundary at or after now.  Returns true when the
 * CPU runs now, false when it waits (a wake is asked for the boundary). */
static bool elf__ff_wake(elf__fw *e)
{
    myri_time_ps now = myri_lanai_now(e->l);
    if (e->idle) {
        myri_time_ps pass_ps = (myri_time_ps)e->pass.cycles * myri_lanai_cycle_ps(e->l);
        uint64_t j = (now - e->idle_ps + pass_ps - 1) / pass_ps;
        elf__charge(e, e->pass, j);
        elf__charge_poll(e, e->pass, j);
        myri_fw_count_add(e->rt, MYRI_FW_ELF_C_STEPS, j);
        e->idle = false;
        e->resume_ps = e->idle_ps + j * pass_ps;
    }
    if (now >= e->resume_ps) return true;
    myri_lanai_wake(e->l, e->resume_ps); /* woken early again (another ISR bit, a host write): keep the boundary */
    return false;
}

/* After a step: two steps in a row that started at the same pc with one
 * register access, a read of ISR giving the same value, wrote nothing and
 * ended in the same state are a fixed point while ISR and SRAM stay. */
static void elf__ff_note(elf__fw *e, uint32_t pc0, myri_cpu_counts d)
{
    myri_cpu_snapshot end;
    myri_cpu_snap(e->cpu, &end);
    bool poll = e->acc_reads == 1 && e->acc_writes == 0 && e->acc_off == MYRI_LANAI_ISR && d.sram_stores == 0;
    poll = poll && myri_lanai_read(e->l, MYRI_LANAI_IMR) == 0; /* interrupts on: every pass runs (docs/LANAI.md) */
    e->armed = poll && e->prev_ok && e->prev_pc == pc0 && e->prev_val == e->acc_val &&
               memcmp(&end, &e->prev_end, sizeof end) == 0 && d.cycles == e->pass.cycles;
    e->prev_ok = poll;
    e->prev_pc = pc0;
    e->prev_val = e->acc_val;
    e->prev_end = end;
    e->pass = d;
}

/* Publishes the pc (and, when it changed, its function's entry) for the VCD;
 * the function is looked up only when the pc leaves the last one's extent. */
static void elf__publish_pc(elf__fw *e, uint32_t pc)
{
    if (pc == e->pub_pc) return;
    e->pub_pc = pc;
    myri_lanai_trace(e->l, MYRI_LANAI_EV_FW, 0, pc);
    if (pc >= e->fn_lo && pc < e->fn_hi) return;
    uint32_t off = 0, entry = 0;
    e->fn_lo = e->fn_hi = 0;
    for (size_t i = 0; i < e->img.nsyms; i++) { /* the function holding pc, as myri_cpu_image_function */
        const myri_cpu_symbol *s = &e->img.syms[i];
        if (s->func && s->addr <= pc && (!s->size || pc < s->addr + s->size)) {
            entry = s->addr, off = pc - s->addr;
            e->fn_lo = s->addr, e->fn_hi = s->size ? s->addr + s->size : pc + 1;
        }
    }
    (void)off;
    if (entry != e->fn_entry) myri_lanai_trace(e->l, MYRI_LANAI_EV_FW, 1, entry);
    e->fn_entry = entry;
}

/* SRAM contention of a work step (docs/LANAI.md, Costs): the packet interface
 * takes B SRAM cycles within the step's d.cycles (booked by the NIC model);
 * it goes first (the link cannot wait), and each of its cycles holds up one
 * of the CPU's m loads and stores while the CPU has one left: min(m, B) cycles
 * of waiting, added to the step.  Polling passes that found nothing are not
 * charged (the caller): their waits would only move the next look at ISR by
 * a few cycles, and the fast-forward charges them exactly only so. */
static uint64_t elf__sram_waits(elf__fw *e, myri_cpu_counts d)
{
    uint64_t m = d.sram_loads + d.sram_stores;
    if (!m || !d.cycles) return 0;
    uint64_t words = myri_lanai_sram_dma_words(e->l, (myri_time_ps)d.cycles * myri_lanai_cycle_ps(e->l));
    uint64_t waits = e->contention ? (m < words ? m : words) : 0;
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_SRAM_ACC, m);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_DMA_WORDS, words);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_SRAM_WAITS, waits);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_CYCLES, waits);
    return waits;
}

/* An interrupt: the interrupted state is saved, a return address the CPU
 * cannot fetch (ELF__ISR_RET) is pushed as a caller's call sequence pushes
 * %rca, and lanai_isr starts as a called function; its return (ld -4[%fp],
 * %pc) fetches ELF__ISR_RET, and the state is put back. */
#define ELF__ISR_RET (MYRI_CPU_MMIO_BASE - 4u)
static void elf__isr_enter(elf__fw *e)
{
    myri_cpu_snapshot s;
    myri_cpu_snap(e->cpu, &s);
    e->isr_saved = s;
    uint32_t sp = s.r[MYRI_CPU_SP] - 4;
    uint8_t *w = sp + 4 <= myri_cpu_sram_bytes(e->cpu) ? myri_cpu_sram(e->cpu) + sp : NULL;
    if (w) {
        w[0] = (uint8_t)(ELF__ISR_RET >> 24), w[1] = (uint8_t)(ELF__ISR_RET >> 16);
        w[2] = (uint8_t)(ELF__ISR_RET >> 8), w[3] = (uint8_t)ELF__ISR_RET;
        myri_cpu_invalidate(e->cpu, sp, 4);
    }
    s.r[MYRI_CPU_SP] = sp; /* a bad %sp faults at the handler's first store, naming it */
    s.pc = e->isr_fn, s.n1 = e->isr_fn + 4, s.n2 = e->isr_fn + 8, s.load_mask = 0;
    myri_cpu_restore(e->cpu, &s);
    e->in_isr = true;
    e->armed = e->prev_ok = false;
}

/* The system context: the handler runs until it returns, then a punt. */
static bool elf__isr_step(elf__fw *e, uint32_t *out)
{
    *out = 0;
    if (e->isr_returned) {
        e->isr_returned = false;
        return true;
    }
    if (!e->in_isr) {
        if (!e->isr_fn) return true;
        elf__isr_enter(e);
    }
    return false;
}

static uint32_t elf__step(void *p, myri_lanai *l, myri_lanai_ctx ctx)
{
    elf__fw *e = p;
    if (ctx == MYRI_LANAI_SYSTEM && !e->started) return 0; /* reset: punt into the user context */
    e->started = true;
    if (e->halted) return 0;
    uint32_t ret;
    if (ctx == MYRI_LANAI_SYSTEM && elf__isr_step(e, &ret)) return ret;
    if (ctx == MYRI_LANAI_USER && (e->idle || e->resume_ps > myri_lanai_now(l)) && !elf__ff_wake(e)) return 0;
    if (ctx == MYRI_LANAI_USER && e->armed && myri_cpu_pc(e->cpu) == e->prev_pc &&
        myri_lanai_read(l, MYRI_LANAI_ISR) == e->prev_val) {
        e->armed = false; /* the next pass would be the same: idle until ISR or SRAM can change */
        e->idle = true;
        e->idle_ps = myri_lanai_now(l);
        return 0;
    }
    uint32_t pc0 = myri_cpu_pc(e->cpu);
    elf__publish_pc(e, pc0);
    e->acc_reads = e->acc_writes = 0;
    myri_cpu_counts a = myri_cpu_get_counts(e->cpu);
    myri_cpu_status st = myri_cpu_run(e->cpu, e->quantum);
    myri_cpu_counts b = myri_cpu_get_counts(e->cpu);
    myri_cpu_counts d = {b.instructions - a.instructions, b.cycles - a.cycles, b.stalls - a.stalls,
                         b.sram_stores - a.sram_stores, b.sram_loads - a.sram_loads};
    if (e->in_isr && st == MYRI_CPU_BADMEM && myri_cpu_fault_pc(e->cpu) == ELF__ISR_RET) {
        myri_cpu_restore(e->cpu, &e->isr_saved); /* lanai_isr returned */
        e->in_isr = false;
        e->isr_returned = true;
        st = MYRI_CPU_RUNNING;
    }
    bool poll = ctx == MYRI_LANAI_USER && e->acc_reads == 1 && e->acc_writes == 0 && e->acc_off == MYRI_LANAI_ISR &&
                d.sram_stores == 0 && st == MYRI_CPU_RUNNING && myri_cpu_pc(e->cpu) == pc0;
    uint64_t waits = poll ? 0 : elf__sram_waits(e, d);
    elf__charge(e, d, 1);
    if (poll) elf__charge_poll(e, d, 1);
    myri_fw_count_add(e->rt, MYRI_FW_ELF_C_STEPS, 1);
    if (st != MYRI_CPU_RUNNING) elf__halt(e, st);
    else if (e->ff && d.cycles > 0 && ctx == MYRI_LANAI_USER) elf__ff_note(e, pc0, d);
    if (d.cycles + waits == 0) return e->halted ? 0 : 1;
    return (uint32_t)(d.cycles + waits);
}

static const myri_lanai_cpu_ops elf__cpu_ops = {.step = elf__step};

/* ---- loading ---------------------------------------------------------------------------- */

static void elf__poke(uint8_t *sram, uint32_t addr, uint32_t v)
{
    sram[addr] = (uint8_t)(v >> 24);
    sram[addr + 1] = (uint8_t)(v >> 16);
    sram[addr + 2] = (uint8_t)(v >> 8);
    sram[addr + 3] = (uint8_t)v;
}

/* Reads every file of the objects list into objs[] (data malloc'd). */
static myri_status elf__read(myri_fw_inst *rt, const myri_node *list, myri_cpu_object *objs, size_t *n,
                             size_t max)
{
    *n = 0;
    if (!list || (list->kind == MYRI_NODE_SCALAR && !list->scalar[0]) || (list->kind == MYRI_NODE_SEQ && !list->n)) {
        if (!myri_lanai_mcp_count) {
            return myri_fw_fail(rt, list, "myri: firmware elf: elf.objects names no object, and this myri was built "
                                          "without the C MCP (no clang with the Lanai target at build time)");
        }
        for (size_t i = 0; i < myri_lanai_mcp_count && *n < max; i++) { /* the C MCP, copied: freed as files are */
            uint8_t *d = malloc(myri_lanai_mcp_objects[i].size);
            if (!d) return MYRI_ENOMEM;
            memcpy(d, myri_lanai_mcp_objects[i].data, myri_lanai_mcp_objects[i].size);
            objs[(*n)++] = (myri_cpu_object){myri_lanai_mcp_objects[i].name, d, myri_lanai_mcp_objects[i].size};
        }
        return MYRI_OK;
    }
    size_t count = list->kind == MYRI_NODE_SEQ ? list->n : 1;
    for (size_t i = 0; i < count; i++) {
        const myri_node *it = list->kind == MYRI_NODE_SEQ ? list->item[i] : list;
        if (it->kind != MYRI_NODE_SCALAR || *n >= max) {
            return myri_fw_fail(rt, it, "elf.objects: expected at most %zu file names", max);
        }
        char why[200];
        if (myri_cpu_object_read(it->scalar, &objs[*n], why, sizeof why)) {
            return myri_fw_fail(rt, it, "elf.objects: %s", why);
        }
        (*n)++;
    }
    return MYRI_OK;
}

/* The symbol's size, or 0 when the program does not define it. */
static uint32_t elf__sym(const elf__fw *e, const char *name, uint32_t *addr)
{
    for (size_t i = 0; i < e->img.nsyms; i++)
        if (!strcmp(e->img.syms[i].name, name)) {
            *addr = e->img.syms[i].addr;
            return e->img.syms[i].size;
        }
    return 0;
}

/* elf.symbols: each NAME, a global word of the program, set to its NUMBER. */
static myri_status elf__symbols(elf__fw *e, const myri_node *map, uint8_t *sram)
{
    if (!map || (map->kind == MYRI_NODE_SCALAR && !map->scalar[0])) return MYRI_OK;
    if (map->kind != MYRI_NODE_MAP) return myri_fw_fail(e->rt, map, "elf.symbols: expected a map {NAME: NUMBER}");
    for (size_t i = 0; i < map->n; i++) {
        const myri_node *v = map->item[i];
        uint32_t addr = 0;
        if (elf__sym(e, map->key[i], &addr) < 4)
            return myri_fw_fail(e->rt, map->keynode ? map->keynode[i] : map,
                                "elf.symbols: '%s' is not a global word of the program (defined, 4 bytes or more)",
                                map->key[i]);
        char *end = NULL;
        long long x = v->kind == MYRI_NODE_SCALAR ? strtoll(v->scalar, &end, 0) : 0;
        if (!end || end == v->scalar || *end || x < -2147483648LL || x > 4294967295LL)
            return myri_fw_fail(e->rt, v, "elf.symbols.%s: expected a number from -2147483648 to 4294967295",
                                map->key[i]);
        elf__poke(sram, addr, (uint32_t)x);
    }
    return MYRI_OK;
}

static bool elf__builtin(const myri_node *list)
{
    return !list || (list->kind == MYRI_NODE_SCALAR && !list->scalar[0]) || (list->kind == MYRI_NODE_SEQ && !list->n);
}

/* The first mcp.* key the document gives that the C MCP cannot honour (its value not the default), and why. */
static const char *elf__mcp_refused(const myri_mcp_params *m, const myri_node *at, const char **why)
{
    myri_mcp_params d;
    myri_mcp_params_default(&d);
    static const char *const names[] = {"policy", "route_send", "ovl_recv", "rearm", "hcb_addr", "follow",
                                        "packet_cycles"};
    const bool differs[] = {m->policy != d.policy, m->route_send != d.route_send, m->ovl_recv != d.ovl_recv,
                            m->rearm != d.rearm, m->hcb_addr != d.hcb_addr, m->follow_ps != d.follow_ps,
                            m->packet_cycles != d.packet_cycles};
    static const char *const whys[] = {
        "the C MCP has only the policy \"new\"", "the C MCP sends the route by the send DMA (sa) only",
        "the C MCP has no overlapped receive", "the C MCP always re-arms the receive DMA",
        "the C MCP's HCB is placed after the program in SRAM", "the C MCP follows a live DMA pointer by polling "
        "it on the CPU, its instructions timed", "the C MCP's cycles are its instructions'"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (differs[i] && myri_node_get(at, names[i])) {
            *why = whys[i];
            return names[i];
        }
    return NULL;
}

/* mcp.* with the built-in C MCP: its words mcp_* filled from the parsed
 * parameters (as elf.symbols), after the checks: user objects, keys it
 * cannot honour, and room in SRAM for its HCB, pools and tables. */
static myri_status elf__mcp(elf__fw *e, const elf__params *p, uint8_t *sram)
{
    const myri_mcp_params *m = p->mcp;
    if (!m) return MYRI_OK;
    bool given = p->mcp_at && p->mcp_at->kind == MYRI_NODE_MAP && p->mcp_at->n;
    if (!elf__builtin(p->objects)) {
        if (!given) return MYRI_OK;
        return myri_fw_fail(e->rt, p->mcp_at, "mcp: the mcp.* keys set the built-in C MCP, and elf.objects names "
                            "objects of your own; give their parameters in elf.symbols");
    }
    const char *why = NULL, *key = given ? elf__mcp_refused(m, p->mcp_at, &why) : NULL;
    if (key) return myri_fw_fail(e->rt, myri_node_get(p->mcp_at, key), "mcp.%s: %s (firmware elf)", key, why);
    uint64_t nr = m->nroutes ? (uint64_t)m->nroutes : 1024u; /* 0: sized from the network at boot, at most 1024 */
    uint64_t mtu4 = (m->mtu + 3u) & ~3ull, rxb = 4u + ((MYRI_FRAME_HDR_BYTES + m->mtu + 1u + 3u) & ~3ull);
    uint64_t hcb = MYRI_HCB_HDR_BYTES + MYRI_HCB_SQ_HDR_BYTES +
                   (uint64_t)m->send_q * (MYRI_HCB_SE_BYTES + ((m->pio_bytes + 3u) & ~3ull)) + 4u +
                   (uint64_t)m->nchan * MYRI_HCB_RCHAN_BYTES + nr * (4u + (((uint64_t)m->route_max + 3u) & ~3ull)) +
                   4u * MYRI_HCB_NCOUNT + 4u;
    uint64_t need = hcb + (uint64_t)m->tx_pool * mtu4 + (uint64_t)m->rx_pool * rxb + 16u; /* tables: in the image */
    uint64_t room = myri_lanai_sram_bytes(e->l) - ((e->img.end + 3u) & ~3u), stack = 4096; /* assumption: 4 KiB */
    if (need + stack > room)
        return myri_fw_fail(e->rt, p->mcp_at, "mcp: the C MCP's HCB and pools take %llu bytes (mcp.mtu x "
                            "(tx_pool + rx_pool) mostly), more than the %llu bytes of nic.sram after the program and "
                            "its stack", (unsigned long long)need, (unsigned long long)(room > stack ? room - stack : 0));
    const struct { const char *name; uint64_t v; } w[] = {
        {"mcp_nchan", (uint64_t)m->nchan}, {"mcp_send_q", (uint64_t)m->send_q}, {"mcp_recv_q", (uint64_t)m->recv_q},
        {"mcp_nroutes", (uint64_t)m->nroutes}, {"mcp_route_max", (uint64_t)m->route_max},
        {"mcp_pio_bytes", m->pio_bytes}, {"mcp_mtu", m->mtu}, {"mcp_tx_pool", (uint64_t)m->tx_pool},
        {"mcp_rx_pool", (uint64_t)m->rx_pool}, {"mcp_ovl_send", m->ovl_send}, {"mcp_ovl_send_thr", m->ovl_send_thr},
        {"mcp_dma_notify", m->dma_notify}};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
        uint32_t a;
        if (elf__sym(e, w[i].name, &a) < 4)
            return myri_fw_fail(e->rt, p->mcp_at, "myri: firmware elf: the built-in C MCP lacks the word %s", w[i].name);
        elf__poke(sram, a, (uint32_t)w[i].v);
    }
    uint32_t a;
    /* mcp.recv_mode given: interrupt (the table MCP's default) or polled; not given: the C MCP's polled default */
    if (given && myri_node_get(p->mcp_at, "recv_mode") && elf__sym(e, "mcp_rx_interrupt", &a) >= 4)
        elf__poke(sram, a, m->recv_mode == 0);
    return MYRI_OK;
}

/* Links the objects into the LANai's SRAM and points the CPU at _start. */
static myri_status elf__load(elf__fw *e, const elf__params *p)
{
    myri_cpu_object objs[32];
    size_t n = 0;
    char err[400];
    myri_status st = elf__read(e->rt, p->objects, objs, &n, sizeof objs / sizeof objs[0]);
    uint32_t bytes = myri_lanai_sram_bytes(e->l), start, entry, stack_word, entry_word;
    uint8_t *sram = myri_lanai_sram(e->l, 0, bytes);
    if (st == MYRI_OK && !myri_lanai_runtime_count) {
        st = myri_fw_fail(e->rt, NULL, "myri: firmware elf: this myri was built without the LANai runtime (no clang "
                                        "with the Lanai target at build time)");
    }
    if (st == MYRI_OK && myri_cpu_link(objs, n, myri_lanai_runtime_objects, myri_lanai_runtime_count, sram, bytes, ELF__BASE,
                                       &e->img, err, sizeof err)) {
        st = myri_fw_fail(e->rt, NULL, "myri: firmware elf: %s", err);
    }
    for (size_t i = 0; i < n; i++) free((void *)objs[i].data);
    if (st) return st;
    if (!myri_cpu_image_lookup(&e->img, p->entry, &entry)) {
        return myri_fw_fail(e->rt, NULL, "myri: firmware elf: no function '%s' in elf.objects (elf.entry)", p->entry);
    }
    if (!myri_cpu_image_lookup(&e->img, "_start", &start) ||
        !myri_cpu_image_lookup(&e->img, "__lanai_stack_top", &stack_word) ||
        !myri_cpu_image_lookup(&e->img, "__lanai_entry", &entry_word)) {
        return myri_fw_fail(e->rt, NULL, "myri: firmware elf: the runtime lacks _start, __lanai_stack_top or "
                                         "__lanai_entry");
    }
    elf__poke(sram, stack_word, bytes);
    elf__poke(sram, entry_word, entry);
    uint32_t a;
    if (elf__sym(e, "myri_sram_free", &a) >= 4) elf__poke(sram, a, (e->img.end + 3u) & ~3u);
    if ((st = elf__mcp(e, p, sram)) != MYRI_OK) return st;
    if ((st = elf__symbols(e, p->symbols, sram)) != MYRI_OK) return st;
    if (!myri_cpu_image_lookup(&e->img, "lanai_isr", &e->isr_fn)) e->isr_fn = 0;
    e->cpu = myri_cpu_new(sram, bytes, true);
    if (!e->cpu) return MYRI_ENOMEM;
    myri_cpu_set_mmio(e->cpu, elf__mmio, e);
    myri_cpu_set_mmio_sync(e->cpu, true);
    myri_cpu_reset(e->cpu, start);
    return myri_lanai_set_sram_watch(e->l, elf__sram_written, e);
}

/* elf.profile: FILE.NIC, one line per word executed. */
static void elf__write_profile(elf__fw *e)
{
    char path[600];
    snprintf(path, sizeof path, "%s.%s", e->prof_path, e->prof_nic);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: elf.profile: cannot write %s\n", e->prof_nic, path);
        return;
    }
    fprintf(f, "# address executions cycles function+offset, then the word's disassembly (myri elf.profile)\n");
    const uint8_t *sram = e->prof_code; /* the program as loaded (the LANai's SRAM is gone by now) */
    for (uint32_t w = 0; w < e->prof_words; w++) {
        if (!e->prof[2 * w]) continue;
        uint32_t off = 0, t;
        bool has;
        char dis[96];
        const uint8_t *b = sram + 4 * w;
        myri_cpu_disasm((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3], dis, sizeof dis, &t,
                        &has);
        const char *fn = myri_cpu_image_function(&e->img, 4 * w, &off);
        fprintf(f, "0x%08x %llu %llu %s+0x%x\t%s\n", 4 * w, (unsigned long long)e->prof[2 * w],
                (unsigned long long)e->prof[2 * w + 1], fn ? fn : "?", off, dis);
    }
    if (fclose(f) != 0) fprintf(stderr, "%s: elf.profile: writing %s failed\n", e->prof_nic, path);
}

static void elf__destroy(void *p)
{
    elf__fw *e = p;
    if (!e) return;
    if (e->prof && e->prof_path && e->prof_code && e->started) elf__write_profile(e);
    free(e->prof);
    free(e->prof_path);
    free(e->prof_code);
    myri_cpu_free(e->cpu);
    myri_cpu_image_free(&e->img);
    free(e);
}

static myri_status elf__create(const void *params, myri_lanai *l, myri_fw_inst *rt, void **out)
{
    const elf__params *p = params;
    elf__fw *e = calloc(1, sizeof *e);
    if (!e) return MYRI_ENOMEM;
    e->l = l;
    e->rt = rt;
    e->quantum = (uint32_t)p->quantum_cycles;
    e->ff = p->fast_forward;
    e->contention = p->sram_contention;
    myri_status st = elf__load(e, p);
    if (st == MYRI_OK && p->profile && p->profile[0]) { /* the words of the linked program */
        e->prof_words = (e->img.end + 3) / 4;
        e->prof = calloc(2 * (size_t)e->prof_words + 2, sizeof *e->prof);
        e->prof_path = malloc(strlen(p->profile) + 1);
        e->prof_code = malloc(4 * (size_t)e->prof_words);
        if (!e->prof || !e->prof_path || !e->prof_code) st = MYRI_ENOMEM;
        else strcpy(e->prof_path, p->profile), myri_cpu_set_profile(e->cpu, e->prof, e->prof_words),
             memcpy(e->prof_code, myri_cpu_sram(e->cpu), 4 * (size_t)e->prof_words);
        snprintf(e->prof_nic, sizeof e->prof_nic, "%s", myri_lanai_component(l)->name);
    }
    if (st) {
        myri_lanai_set_sram_watch(l, NULL, NULL);
        elf__destroy(e);
        return st;
    }
    *out = e;
    return MYRI_OK;
}

myri_status myri_fw_elf_setup(myri_fw_inst *fi, uint32_t node, uint32_t nhosts,
                              int (*route)(void *ctx, uint32_t from, uint32_t to, uint8_t *bytes, int max), void *ctx)
{
    if (!fi || myri_fw_def_of(fi) != &myri_fw_elf_def) return MYRI_EINVAL;
    elf__fw *e = myri_fw_state(fi);
    uint8_t *sram = myri_cpu_sram(e->cpu);
    uint32_t a, sz;
    if (elf__sym(e, "myri_node_index", &a) >= 4) elf__poke(sram, a, node);
    sz = elf__sym(e, "myri_routes", &a);
    uint32_t fit = sz / 8 < nhosts ? sz / 8 : nhosts;
    for (uint32_t to = 0; route && to < fit; to++) {
        int len = to == node ? 0 : route(ctx, node, to, sram + a + 8 * to + 1, 7);
        sram[a + 8 * to] = (uint8_t)(len < 0 ? 0 : len);
    }
    if (elf__sym(e, "myri_nhosts", &a) >= 4) elf__poke(sram, a, sz ? fit : nhosts);
    myri_cpu_invalidate(e->cpu, 0, myri_cpu_sram_bytes(e->cpu));
    return MYRI_OK;
}

/* ---- the kind ---------------------------------------------------------------------------- */

/* No state machines: two lanes the kind publishes for the VCD (--vcd): the
 * program counter at each step's start (machine 0, "pc") and the entry
 * address of the function it is in (machine 1, "function"; 0 outside any),
 * 32-bit lanes (system_vcd.c) to read beside `myri lanai disasm`. */
static const char *const elf__states[] = {"run"};
static const myri_fw_machine elf__machines[] = {
    {.name = "pc", .ctx = MYRI_LANAI_USER, .states = elf__states, .nstates = 1, .rules = NULL, .nrules = 0},
    {.name = "function", .ctx = MYRI_LANAI_USER, .states = elf__states, .nstates = 1, .rules = NULL, .nrules = 0},
};
static const myri_fw_guard elf__guards[] = {{"true", "true", NULL}};
static const myri_fw_name elf__counters[MYRI_FW_ELF_NCOUNTERS] = {
    [MYRI_FW_ELF_C_RX_GOOD] = {"rx_good", "packets the program took with a good CRC", MYRI_FW_ROLE_RX_GOOD},
    [MYRI_FW_ELF_C_RX_CRC] = {"rx_crc", "packets the program dropped for a bad CRC", MYRI_FW_ROLE_DROP_CRC},
    [MYRI_FW_ELF_C_RX_OTHER] = {"rx_other", "packets the program dropped for another reason",
                                MYRI_FW_ROLE_DROP_OTHER},
    [MYRI_FW_ELF_C_TX_SENT] = {"tx_sent", "packets the program sent", MYRI_FW_ROLE_TX_SENT},
    [MYRI_FW_ELF_C_APP] = {"app", "the program's own count", MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_INSNS] = {"cpu_instructions", "instructions the CPU executed", MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_CYCLES] = {"cpu_cycles", "CPU cycles (instructions, load-use stalls, SRAM waits)",
                              MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_STALLS] = {"cpu_stalls", "load-use stalls", MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_STEPS] = {"cpu_steps", "CPU steps (runs between two looks at the clock)", MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_POLL_INSNS] = {"cpu_poll_instructions", "instructions of polling passes that found nothing",
                                  MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_POLL_CYCLES] = {"cpu_poll_cycles", "cycles of polling passes that found nothing (the rest of "
                                   "cpu_cycles is work)", MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_SRAM_ACC] = {"cpu_sram_accesses", "the CPU's SRAM loads and stores in work steps",
                                MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_DMA_WORDS] = {"cpu_dma_words", "SRAM cycles the send and receive DMA took during work steps",
                                 MYRI_FW_ROLE_NONE},
    [MYRI_FW_ELF_C_SRAM_WAITS] = {"cpu_sram_waits", "cycles the CPU waited for SRAM taken by the DMA engines",
                                  MYRI_FW_ROLE_NONE},
};

const myri_fw_def myri_fw_elf_def = {
    .name = "elf",
    .summary = "C compiled for the LANai (clang --target=lanai), run instruction by instruction",
    .params = elf__param_table,
    .nparams = sizeof elf__param_table / sizeof elf__param_table[0],
    .params_size = sizeof(elf__params),
    .params_default = elf__params_default,
    .machines = elf__machines,
    .nmachines = 2,
    .guards = elf__guards,
    .nguards = 1,
    .counters = elf__counters,
    .ncounters = MYRI_FW_ELF_NCOUNTERS,
    .create = elf__create,
    .destroy = elf__destroy,
    .cpu = &elf__cpu_ops,
};
