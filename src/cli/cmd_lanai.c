/* cmd_lanai.c -- `myri lanai run|disasm`: the LANai CPU on its own (SRAM
 * only, no NIC): link objects compiled by clang --target=lanai with the
 * runtime, run a function, print its result and the counts; or disassemble
 * an object as llvm-objdump does (docs/LANAI.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/cli.h"
#include "cpu/cpu.h"
#include "myri/json.h"

/* The runtime objects embedded at build time (generated/lanai_runtime.c). */
extern const myri_cpu_object myri_lanai_runtime_objects[];
extern const size_t myri_lanai_runtime_count;

static const char lanai__usage[] =
    "usage: myri lanai run FILE.o... [--entry SYMBOL] [--max-cycles N] [--sram BYTES] [--json]\n"
    "       myri lanai disasm FILE.o\n"
    "\n"
    "run: links the objects (compiled with clang --target=lanai) with the runtime\n"
    "(start-up code, __mulsi3 and the other helpers, lanai_putchar; a program's own\n"
    "definitions win) into an SRAM-only LANai, calls the entry and prints its return\n"
    "value, instructions, cycles and load-use stalls; what the program prints with\n"
    "lanai_putchar comes first.\n"
    "  --entry SYMBOL   the function called (default main)\n"
    "  --max-cycles N   stop with exit 1 after N cycles (default 1000000000)\n"
    "  --sram BYTES     SRAM size, a multiple of 4 from 4096 to 33554432 (default 1048576)\n"
    "  --json           one JSON object: return_value, instructions, cycles, stalls, console\n"
    "disasm: the executable sections of one object in llvm-objdump -d's syntax.\n"
    "Exit: 0 done; 1 the program ran past --max-cycles, executed an illegal\n"
    "instruction or accessed memory outside SRAM (the program counter is named);\n"
    "2 bad input (not ELF, wrong machine, truncated, undefined symbols, ...).\n";

typedef struct lanai_files {
    myri_cpu_object obj[64];
    size_t n;
} lanai_files;

static int lanai__read(const char *path, myri_cpu_object *o)
{
    char err[200];
    if (myri_cpu_object_read(path, o, err, sizeof err)) {
        fprintf(stderr, "myri lanai: %s\n", err);
        return MYRI_EXIT_INPUT;
    }
    if (myri_cpu_elf_check(o->data, o->size, err, sizeof err)) {
        fprintf(stderr, "myri lanai: %s: %s\n", path, err);
        return MYRI_EXIT_INPUT;
    }
    return 0;
}

static void lanai__free(lanai_files *fs)
{
    for (size_t i = 0; i < fs->n; i++) free((void *)fs->obj[i].data);
    fs->n = 0;
}

/* The console: printed as it comes (text) or collected (JSON). */
typedef struct lanai_console {
    bool json;
    char *buf;
    size_t len, cap;
    myri_cpu *cpu;
} lanai_console;

static int lanai__mmio(void *ctx, uint32_t off, bool write, uint32_t *v, unsigned size)
{
    lanai_console *con = ctx;
    (void)size;
    if (off == MYRI_CPU_CONSOLE_OFFSET && write) {
        char ch = (char)(*v & 0xff);
        if (!con->json) {
            putchar(ch);
        } else if (con->len + 1 < 1u << 20) {
            if (con->len + 1 >= con->cap) {
                size_t cap = con->cap ? con->cap * 2 : 256;
                char *nb = realloc(con->buf, cap);
                if (!nb) return -1;
                con->buf = nb;
                con->cap = cap;
            }
            con->buf[con->len++] = ch;
            con->buf[con->len] = 0;
        }
        return 0;
    }
    if (off == MYRI_CPU_EXIT_OFFSET && write) {
        myri_cpu_stop(con->cpu, *v);
        return 0;
    }
    return -1; /* no NIC here: every LANai register access is refused */
}

typedef struct lanai_run_opts {
    const char *entry;
    uint64_t max_cycles, sram;
    bool json;
} lanai_run_opts;

static void lanai__where(const myri_cpu_image *img, uint32_t pc, char *buf, size_t n)
{
    uint32_t off;
    const char *fn = myri_cpu_image_function(img, pc, &off);
    if (fn)
        snprintf(buf, n, "pc 0x%08x (in %s+0x%x)", pc, fn, off);
    else
        snprintf(buf, n, "pc 0x%08x", pc);
}

static int lanai__report(const lanai_run_opts *o, myri_cpu *cpu, const myri_cpu_image *img, myri_cpu_status st,
                         lanai_console *con)
{
    myri_cpu_counts n = myri_cpu_get_counts(cpu);
    char where[160] = "", why[200] = "";
    if (st != MYRI_CPU_STOPPED) {
        uint32_t pc = st == MYRI_CPU_RUNNING ? myri_cpu_pc(cpu) : myri_cpu_fault_pc(cpu);
        lanai__where(img, pc, where, sizeof where);
        if (st == MYRI_CPU_RUNNING)
            snprintf(why, sizeof why, "stopped after --max-cycles %llu cycles at %s", (unsigned long long)o->max_cycles,
                     where);
        else if (st == MYRI_CPU_ILLEGAL)
            snprintf(why, sizeof why, "illegal instruction at %s", where);
        else
            snprintf(why, sizeof why, "%s (address 0x%08x) at %s", myri_cpu_fault_text(cpu), myri_cpu_fault_addr(cpu),
                     where);
    }
    int32_t rv = (int32_t)myri_cpu_exit_value(cpu);
    if (o->json) {
        myri_json *j = myri_json_create(stdout, false);
        myri_json_obj_begin(j);
        myri_json_kstr(j, "entry", o->entry);
        myri_json_kstr(j, "status", st == MYRI_CPU_STOPPED ? "returned"
                                    : st == MYRI_CPU_RUNNING ? "max_cycles" : myri_cpu_status_name(st));
        myri_json_key(j, "return_value");
        if (st == MYRI_CPU_STOPPED) myri_json_int(j, rv); else myri_json_null(j);
        myri_json_key(j, "instructions");
        myri_json_uint(j, n.instructions);
        myri_json_key(j, "cycles");
        myri_json_uint(j, n.cycles);
        myri_json_key(j, "stalls");
        myri_json_uint(j, n.stalls);
        myri_json_key(j, "sram_bytes");
        myri_json_uint(j, o->sram);
        myri_json_kstr(j, "console", con->buf ? con->buf : "");
        if (*why) myri_json_kstr(j, "error", why);
        myri_json_obj_end(j);
        myri_json_finish(j);
    } else {
        fflush(stdout);
        if (st == MYRI_CPU_STOPPED) printf("return value: %d (0x%08x)\n", rv, (unsigned)rv);
        printf("instructions: %llu\ncycles: %llu\nstalls: %llu\n", (unsigned long long)n.instructions,
               (unsigned long long)n.cycles, (unsigned long long)n.stalls);
    }
    if (*why) fprintf(stderr, "myri lanai run: %s\n", why);
    return *why ? MYRI_EXIT_FAIL : MYRI_EXIT_OK;
}

static void lanai__poke(uint8_t *sram, uint32_t addr, uint32_t v)
{
    sram[addr] = (uint8_t)(v >> 24);
    sram[addr + 1] = (uint8_t)(v >> 16);
    sram[addr + 2] = (uint8_t)(v >> 8);
    sram[addr + 3] = (uint8_t)v;
}

static int lanai__run(const lanai_run_opts *o, lanai_files *fs)
{
    if (!myri_lanai_runtime_count) {
        fprintf(stderr, "myri lanai run: this myri was built without the LANai runtime "
                        "(no clang with the Lanai target at build time; install clang and rebuild)\n");
        return MYRI_EXIT_FAIL;
    }
    myri_cpu *cpu = myri_cpu_new(NULL, (uint32_t)o->sram, true);
    if (!cpu) {
        fprintf(stderr, "myri lanai run: out of memory\n");
        return MYRI_EXIT_FAIL;
    }
    myri_cpu_image img;
    char err[400];
    uint8_t *sram = myri_cpu_sram(cpu);
    int rc = MYRI_EXIT_INPUT;
    uint32_t start, entry, stack_word, entry_word;
    if (myri_cpu_link(fs->obj, fs->n, myri_lanai_runtime_objects, myri_lanai_runtime_count, sram, (uint32_t)o->sram,
                      0, &img, err, sizeof err)) {
        fprintf(stderr, "myri lanai run: %s\n", err);
        goto out_cpu;
    }
    if (!myri_cpu_image_lookup(&img, o->entry, &entry)) {
        fprintf(stderr, "myri lanai run: no function '%s' in the objects (--entry)\n", o->entry);
        goto out;
    }
    if (!myri_cpu_image_lookup(&img, "_start", &start) || !myri_cpu_image_lookup(&img, "__lanai_stack_top", &stack_word) ||
        !myri_cpu_image_lookup(&img, "__lanai_entry", &entry_word)) {
        fprintf(stderr, "myri lanai run: the runtime lacks _start, __lanai_stack_top or __lanai_entry\n");
        goto out;
    }
    lanai__poke(sram, stack_word, (uint32_t)o->sram);
    lanai__poke(sram, entry_word, entry);
    lanai_console con = {.json = o->json, .cpu = cpu};
    myri_cpu_reset(cpu, start);
    myri_cpu_set_mmio(cpu, lanai__mmio, &con);
    myri_cpu_status st = myri_cpu_run(cpu, o->max_cycles);
    rc = lanai__report(o, cpu, &img, st, &con);
    free(con.buf);
out:
    myri_cpu_image_free(&img);
out_cpu:
    myri_cpu_free(cpu);
    return rc;
}

static int lanai__disasm(const char *path)
{
    myri_cpu_object o = {0};
    int rc = lanai__read(path, &o);
    if (rc) {
        free((void *)o.data);
        return rc;
    }
    char err[200];
    char *text = myri_cpu_disasm_object(path, o.data, o.size, err, sizeof err);
    free((void *)o.data);
    if (!text) {
        fprintf(stderr, "myri lanai disasm: %s: %s\n", path, err);
        return MYRI_EXIT_INPUT;
    }
    fputs(text, stdout);
    free(text);
    return MYRI_EXIT_OK;
}

int myri_cmd_lanai(int argc, char **argv)
{
    myri_cmd_lanai_args a;
    int rc = myri_cmd_lanai_parse(argc, argv, &a);
    if (a.help) {
        fputs(lanai__usage, rc ? stderr : stdout);
        return rc;
    }
    if (rc) return rc;
    if (a.disasm) return lanai__disasm(a.paths[0]);
    lanai_run_opts o = {.entry = a.entry, .max_cycles = a.max_cycles, .sram = a.sram, .json = a.json};
    lanai_files fs = {.n = 0};
    for (size_t i = 0; i < a.npaths && !rc; i++) {
        rc = lanai__read(a.paths[i], &fs.obj[fs.n]);
        if (fs.obj[fs.n].data) fs.n++;
    }
    if (!rc) rc = lanai__run(&o, &fs);
    lanai__free(&fs);
    return rc;
}
