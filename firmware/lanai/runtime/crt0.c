/* crt0.c -- start-up code for `myri lanai run`: sets the stack pointer from
 * __lanai_stack_top, calls the entry through __lanai_entry (both words are
 * filled by the loader), stores the return value in __lanai_result, then
 * halts by writing it to the simulator's exit word. */
#include "lanai.h"

unsigned __lanai_stack_top = 0;     /* set by the loader: one past the last SRAM byte */
int (*__lanai_entry)(void) = 0;     /* set by the loader: the entry function */
volatile int __lanai_result;

void __lanai_start_c(void);

void __lanai_start_c(void)
{
    int r = __lanai_entry();
    __lanai_result = r;
    LANAI_EXIT = (unsigned)r;
    for (;;) {
    }
}

/* _start: the first instruction run.  %sp <- __lanai_stack_top, then a call
 * of __lanai_start_c as clang makes calls (return address pushed: the
 * callee's frame pointer is then the 8-aligned stack top); it never returns. */
__asm__(".text\n"
        ".globl _start\n"
        ".type _start,@function\n"
        "_start:\n"
        "  mov hi(__lanai_stack_top), %r9\n"
        "  or %r9, lo(__lanai_stack_top), %r9\n"
        "  ld 0[%r9], %sp\n"
        "  add %sp, 0x0, %fp\n"
        "  add %pc, 0x10, %rca\n"
        "  st %rca, [--%sp]\n"
        "  bt __lanai_start_c\n"
        "  nop\n"
        "1:\n"
        "  bt 1b\n"
        "  nop\n");

void lanai_putchar(int c)
{
    LANAI_CONSOLE = (unsigned)(c & 0xff);
}

void lanai_puts(const char *s)
{
    while (*s) lanai_putchar(*s++);
}

void lanai_put_uint(unsigned long long v)
{
    char buf[24];
    int n = 0;
    do {
        unsigned long long q = v / 10u;
        buf[n++] = (char)('0' + (int)(v - q * 10u));
        v = q;
    } while (v);
    while (n) lanai_putchar(buf[--n]);
}

void lanai_put_int(long long v)
{
    if (v < 0) {
        lanai_putchar('-');
        lanai_put_uint(0ull - (unsigned long long)v);
    } else {
        lanai_put_uint((unsigned long long)v);
    }
}

void lanai_put_hex(unsigned long long v)
{
    char buf[17];
    int n = 0;
    do {
        unsigned d = (unsigned)(v & 15u);
        buf[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v >>= 4;
    } while (v);
    lanai_puts("0x");
    while (n) lanai_putchar(buf[--n]);
}
