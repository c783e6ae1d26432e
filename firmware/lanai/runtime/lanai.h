/* lanai.h -- the runtime of C programs run by `myri lanai run` (compiled
 * with clang --target=lanai; docs/LANAI.md).  The console and exit words
 * are simulator-only words of the LANai 4 register window (src/cpu/cpu.h). */
#ifndef MYRI_LANAI_RUNTIME_H
#define MYRI_LANAI_RUNTIME_H

#define LANAI_CONSOLE (*(volatile unsigned *)0xFFFFFFF0u)
#define LANAI_EXIT (*(volatile unsigned *)0xFFFFFFF4u)

void lanai_putchar(int c);
void lanai_puts(const char *s);          /* no newline added */
void lanai_put_int(long long v);         /* decimal */
void lanai_put_uint(unsigned long long v);
void lanai_put_hex(unsigned long long v); /* 0x..., lower case */

#endif
