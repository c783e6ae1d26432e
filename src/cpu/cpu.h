/* cpu.h -- the LANai CPU as LLVM's Lanai backend emits code for it: an
 * instruction-set simulator (predecoded, with delay slots, flags and a
 * load-use stall), its disassembler (llvm-objdump's syntax) and a loader
 * that links relocatable ELF objects into SRAM (docs/LANAI.md).
 *
 * The CPU is driven from outside: myri_cpu_run executes until a cycle budget
 * is spent, the program stops (myri_cpu_stop, e.g. from a memory-mapped
 * register) or a fault.  Memory is an SRAM array the caller may own (the NIC
 * model's SRAM) plus a hook for the LANai 4 register window 0xFFFFFF00 +
 * offset (src/common/lanai_regs.h); any other address faults.  Whoever
 * writes SRAM behind the CPU's back (host, DMA) calls myri_cpu_invalidate so
 * that predecoded instructions are decoded again.
 *
 * Includes only cpu/, common/ and myri/ headers (scripts/check-deps.sh, rule j).
 */
#ifndef MYRI_CPU_CPU_H
#define MYRI_CPU_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The memory-mapped register window of LANai 4 (lanai_regs.h offsets). */
#define MYRI_CPU_MMIO_BASE 0xFFFFFF00u
/* Simulator-only words of that window used by `myri lanai` (SRAM-only
 * runs; not LANai 4 registers): a store to CONSOLE prints its low byte, a
 * store to EXIT stops the CPU with the stored value as the exit value. */
#define MYRI_CPU_CONSOLE_OFFSET 0xf0u
#define MYRI_CPU_EXIT_OFFSET 0xf4u

/* Register numbers of LLVM's dialect (docs/LANAI.md). */
enum {
    MYRI_CPU_R0 = 0,  /* reads 0, writes ignored */
    MYRI_CPU_R1 = 1,  /* reads 0xffffffff, writes ignored */
    MYRI_CPU_PC = 2,  /* reads the address of the current instruction; a write jumps */
    MYRI_CPU_SP = 4,
    MYRI_CPU_FP = 5,
    MYRI_CPU_RV = 8,  /* return value */
    MYRI_CPU_RCA = 15 /* return address of a call */
};

/* Flag bits of the status word (myri_cpu_flags). */
#define MYRI_CPU_FLAG_C 1u
#define MYRI_CPU_FLAG_V 2u
#define MYRI_CPU_FLAG_N 4u
#define MYRI_CPU_FLAG_Z 8u

typedef enum myri_cpu_status {
    MYRI_CPU_RUNNING = 0, /* the cycle budget was spent */
    MYRI_CPU_STOPPED,     /* myri_cpu_stop was called (e.g. the EXIT word) */
    MYRI_CPU_ILLEGAL,     /* an instruction word that decodes to nothing */
    MYRI_CPU_BADMEM,      /* a fetch, load or store outside SRAM and the register window */
    MYRI_CPU_MMIOFAULT    /* the register hook refused an access */
} myri_cpu_status;

/* The register-window hook: offset is addr - MYRI_CPU_MMIO_BASE, size_bytes
 * 1, 2 or 4.  A read stores into *value; a write reads it.  Returns 0, or
 * non-zero to fault the CPU (MYRI_CPU_MMIOFAULT). */
typedef int (*myri_cpu_mmio_fn)(void *ctx, uint32_t offset, bool write, uint32_t *value,
                                unsigned size_bytes);

typedef struct myri_cpu myri_cpu;

typedef struct myri_cpu_counts {
    uint64_t instructions; /* executed, delay slots included */
    uint64_t cycles;       /* instructions + stalls */
    uint64_t stalls;       /* load-use stalls (one cycle each) */
    uint64_t sram_stores;  /* stores into SRAM (not the register window) */
    uint64_t sram_loads;   /* loads from SRAM (not the register window; instruction fetches not counted) */
} myri_cpu_counts;

/* The whole architectural state (registers, flags, the fetch queue with its
 * delay slots, the register loaded by the last instruction): two equal
 * snapshots continue identically over the same memory. */
typedef struct myri_cpu_snapshot {
    uint32_t r[32];
    uint32_t flags, pc, n1, n2, load_mask;
} myri_cpu_snapshot;
void myri_cpu_snap(const myri_cpu *cpu, myri_cpu_snapshot *out);
/* Puts a snapshot back (counts kept) and lets a stopped or faulted CPU run
 * again: the NIC's interrupt entry and return (firmware kind elf). */
void myri_cpu_restore(myri_cpu *cpu, const myri_cpu_snapshot *in);

/* A CPU over sram[0, sram_bytes) (a multiple of 4, at most 0xFFFFFF00).
 * sram NULL: the CPU allocates zeroed SRAM it owns.  Returns NULL on a bad
 * size or no memory.  predecode false gives the plain fetch-decode-execute
 * loop (the benchmark's reference; same results, slower). */
myri_cpu *myri_cpu_new(uint8_t *sram, uint32_t sram_bytes, bool predecode);
void myri_cpu_free(myri_cpu *cpu);
uint8_t *myri_cpu_sram(myri_cpu *cpu);
uint32_t myri_cpu_sram_bytes(const myri_cpu *cpu);
void myri_cpu_set_mmio(myri_cpu *cpu, myri_cpu_mmio_fn fn, void *ctx);
/* Register accesses in step with an outside clock (the NIC model): with it
 * on, an instruction that reaches the register window and is not the first
 * of a myri_cpu_run call ends that run before it executes (status RUNNING,
 * nothing of it done, its stall not counted); the next run executes it
 * first.  So the driver calls the hook at the instant the access happens
 * (the start of a run, after the cycles before it were charged). */
void myri_cpu_set_mmio_sync(myri_cpu *cpu, bool on);

/* A profile (NULL: off, the default): each instruction executed at a pc
 * below 4 x words adds 1 at prof[2 * (pc / 4)] and its cycles (1, or 2 with
 * a load-use stall) at prof[2 * (pc / 4) + 1]; the array holds 2 x words
 * counts.  The run loop with a profile is a separate instance: without one
 * the CPU's speed is unchanged. */
void myri_cpu_set_profile(myri_cpu *cpu, uint64_t *prof, uint32_t words);

/* Registers cleared, flags cleared, execution starts at pc; counts zeroed;
 * predecoded words are kept (they follow SRAM through the invalidations). */
void myri_cpu_reset(myri_cpu *cpu, uint32_t pc);
uint32_t myri_cpu_reg(const myri_cpu *cpu, unsigned r);
void myri_cpu_set_reg(myri_cpu *cpu, unsigned r, uint32_t value);
uint32_t myri_cpu_pc(const myri_cpu *cpu); /* the next instruction to execute */
unsigned myri_cpu_flags(const myri_cpu *cpu);
void myri_cpu_set_flags(myri_cpu *cpu, unsigned flags);
myri_cpu_counts myri_cpu_get_counts(const myri_cpu *cpu);

/* Runs until max_cycles more cycles are spent (returns MYRI_CPU_RUNNING;
 * the last instruction may overshoot by its stall), or the CPU stops or
 * faults.  After a stop or fault, further calls return the same status. */
myri_cpu_status myri_cpu_run(myri_cpu *cpu, uint64_t max_cycles);
/* Stops the CPU after the current instruction (from the register hook). */
void myri_cpu_stop(myri_cpu *cpu, uint32_t exit_value);
uint32_t myri_cpu_exit_value(const myri_cpu *cpu);
/* After a fault: the program counter of the faulting instruction, the
 * address it accessed (BADMEM/MMIOFAULT) and a one-line description. */
uint32_t myri_cpu_fault_pc(const myri_cpu *cpu);
uint32_t myri_cpu_fault_addr(const myri_cpu *cpu);
const char *myri_cpu_fault_text(const myri_cpu *cpu);
const char *myri_cpu_status_name(myri_cpu_status st);

/* SRAM [addr, addr + bytes) was written by someone else than the CPU. */
void myri_cpu_invalidate(myri_cpu *cpu, uint32_t addr, uint32_t bytes);

/* The disassembly of one instruction word at address addr, as llvm-objdump
 * prints it after the bytes ("add\t%r3, 0x4, %r3"; "<unknown>" when LLVM
 * decodes nothing).  *target is set to the branch target for BR and BRR
 * forms (objdump's symbolic annotation) and *has_target to whether it is. */
void myri_cpu_disasm(uint32_t word, char *buf, size_t bufsize, uint32_t *target, bool *has_target);
/* Whether the simulator executes the word (the words LLVM decodes). */
bool myri_cpu_legal(uint32_t word);

/* ---- Relocatable ELF objects (loader.c) ---- */

/* One input object: its name (for messages), its bytes. */
typedef struct myri_cpu_object {
    const char *name;
    const uint8_t *data;
    size_t size;
} myri_cpu_object;

/* Reads the object file at path into o (o->name = path, o->data malloc'd:
 * free it).  A file above MYRI_CPU_OBJECT_MAX bytes is refused (no LANai
 * SRAM holds it; reading /dev/zero must not exhaust memory).  0, or -1 with
 * the reason in err. */
#define MYRI_CPU_OBJECT_MAX (64u << 20)
int myri_cpu_object_read(const char *path, myri_cpu_object *o, char *err, size_t errlen);

typedef struct myri_cpu_symbol {
    char *name;
    uint32_t addr;
    uint32_t size;
    bool func;
    bool global;
} myri_cpu_symbol;

/* The linked program: its global symbols (sorted by address) and extent. */
typedef struct myri_cpu_image {
    myri_cpu_symbol *syms;
    size_t nsyms;
    uint32_t end; /* one past the last byte placed */
} myri_cpu_image;

/* Links objs[0..nobjs) then runtime[0..nruntime) into sram starting at
 * base: sections placed in order (text, read-only data, data, bss, each
 * aligned), relocations applied with overflow checks; a definition in objs
 * wins over one of the same name in runtime; two in objs is an error.
 * Returns 0, or -1 with a message naming file, section, offset and symbol
 * in err (never crashes on malformed input). */
int myri_cpu_link(const myri_cpu_object *objs, size_t nobjs, const myri_cpu_object *runtime,
                  size_t nruntime, uint8_t *sram, uint32_t sram_bytes, uint32_t base,
                  myri_cpu_image *img, char *err, size_t errlen);
void myri_cpu_image_free(myri_cpu_image *img);
/* The address of a global symbol; false if absent. */
bool myri_cpu_image_lookup(const myri_cpu_image *img, const char *name, uint32_t *addr);
/* The function containing addr (NULL if none); *offset from its start. */
const char *myri_cpu_image_function(const myri_cpu_image *img, uint32_t addr, uint32_t *offset);

/* Checks that data is a 32-bit big-endian relocatable ELF object for the
 * Lanai (EM_LANAI); on failure writes the reason to err and returns -1. */
int myri_cpu_elf_check(const uint8_t *data, size_t size, char *err, size_t errlen);
/* The disassembly of every executable section of an object, in
 * llvm-objdump -d's format (file name in the header line); a malloc'd
 * string, or NULL with err set for a bad object. */
char *myri_cpu_disasm_object(const char *name, const uint8_t *data, size_t size, char *err,
                             size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
