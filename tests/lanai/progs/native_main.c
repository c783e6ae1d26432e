/* native_main.c -- runs a test program's test_main natively and prints its
 * return value as `myri lanai run` does. */
#include <stdio.h>

int test_main(void);

int main(void)
{
    int r = test_main();
    fflush(stdout);
    printf("return value: %d (0x%08x)\n", r, (unsigned)r);
    return 0;
}
