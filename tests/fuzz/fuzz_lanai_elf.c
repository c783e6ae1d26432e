/* fuzz_lanai_elf.c -- libFuzzer target for the LANai ELF loader and the
 * object disassembler (src/cpu/loader.c, elfdis.c).
 *
 * The input is one relocatable object: it is checked, linked alone and
 * twice (a symbol defined twice), linked as the runtime under a second copy
 * of itself, into a 64 KiB SRAM, disassembled, and when it links, run for
 * 2000 cycles on the CPU (predecoded).  Error returns are expected; any
 * crash, leak or sanitizer report is a bug.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu/cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256];
    (void)myri_cpu_elf_check(data, size, err, sizeof err);
    myri_cpu_object o[2] = {{"in.o", data, size}, {"in2.o", data, size}};
    myri_cpu *cpu = myri_cpu_new(NULL, 65536, true);
    if (!cpu) return 0;
    myri_cpu_image img;
    if (myri_cpu_link(o, 1, NULL, 0, myri_cpu_sram(cpu), 65536, 0, &img, err, sizeof err) == 0) {
        uint32_t start = 0, off;
        if (img.nsyms) start = img.syms[0].addr & ~3u;
        (void)myri_cpu_image_function(&img, start, &off);
        myri_cpu_reset(cpu, start);
        (void)myri_cpu_run(cpu, 2000);
        myri_cpu_image_free(&img);
    }
    if (myri_cpu_link(o, 2, NULL, 0, myri_cpu_sram(cpu), 65536, 0, &img, err, sizeof err) == 0)
        myri_cpu_image_free(&img);
    if (myri_cpu_link(o, 1, o + 1, 1, myri_cpu_sram(cpu), 65536, 16, &img, err, sizeof err) == 0)
        myri_cpu_image_free(&img);
    myri_cpu_free(cpu);
    char *text = myri_cpu_disasm_object("in.o", data, size, err, sizeof err);
    free(text);
    return 0;
}
