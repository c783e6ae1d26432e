/* locker.c -- two processes of one host and the API's send-channel lock, for
 * tests/scenario/live_lock.sh.  hold: takes the lock (myri_api0_lock) and
 * sleeps with it; take: tries a locked call while the holder lives (expects
 * MYRI_API0_ELOCKTIMEOUT after host.lock_timeout), waits wait_ms (the test
 * kills the holder meanwhile), then tries again (expects the dead holder's
 * lock recovered: MYRI_API0_OK).  Prints what each call returned. */
#include <myri/api0.h>
#include <myri/prog.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int myri_main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    long wait_ms = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
    int rc = myri_api0_init(0, 0, 0, NULL);
    printf("locker %s: init %s\n", mode, myri_api0_strname(rc));
    fflush(stdout);
    if (rc) return 2;
    if (!strcmp(mode, "hold")) {
        printf("locker hold: lock %s\n", myri_api0_strname(myri_api0_lock(0)));
        fflush(stdout);
        myri_prog_sleep_us(60e6);
        return 0;
    }
    void *buf = NULL;
    int first = myri_api0_get_send_buffer_l(0, &buf);
    printf("locker take: while the holder lives %s\n", myri_api0_strname(first));
    fflush(stdout);
    myri_prog_sleep_us((double)wait_ms * 1000.0);
    double t0 = myri_prog_now_us();
    int second = myri_api0_get_send_buffer_l(0, &buf);
    printf("locker take: after the holder died %s in %.0f us\n", myri_api0_strname(second), myri_prog_now_us() - t0);
    return first == MYRI_API0_ELOCKTIMEOUT && second == MYRI_API0_OK ? 0 : 1;
}
