/* via.h -- the VIA API of Myri's `lcp` and `myricom` firmwares: a host
 * program posts send and receive descriptors and rings doorbells; the NIC
 * fetches each descriptor and its data by DMA, and writes the completion back
 * into the descriptor (seed 004 section 3; seed 000's Berkeley VIA).  The
 * contract with the firmware is src/common/via.h.
 *
 * Programming model:
 *   1. myri_via_open(unit); myri_via_set_route(unit, host, bytes, len) for each
 *      destination (myri_prog_route gives the bytes).
 *   2. buffers from myri_via_alloc (the board's DMA region; word aligned).
 *   3. receiver: myri_via_post_recv for each buffer; sender:
 *      myri_via_post_send; both then myri_via_wait (or myri_via_test) on the
 *      descriptor, which returns it to the pool.
 *
 * A VI is a number below the firmware's nvi (8 by default); a send names the
 * destination host (its index) and VI.  Misuse never crashes: every function
 * returns one of the negative MYRI_VIA_E* codes (myri_via_strerror names it).
 * Every call charges host CPU time; every SRAM access (doorbells, routes)
 * crosses the I/O bus by PIO; writing descriptors is host memory (no bus).
 * Only programs running on a host may call them (else MYRI_VIA_ENOHOST). */
#ifndef MYRI_VIA_H
#define MYRI_VIA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    MYRI_VIA_OK = 0,
    MYRI_VIA_EINVAL = -1,     /* a bad argument (NULL, negative, VI out of range, unaligned) */
    MYRI_VIA_ENOHOST = -2,    /* not called from a program on a host */
    MYRI_VIA_EBADUNIT = -3,   /* no such board */
    MYRI_VIA_ENOTINIT = -4,   /* myri_via_open not called (or failed) on this board */
    MYRI_VIA_ETIMEOUT = -5,   /* the firmware did not come up, or a wait timed out */
    MYRI_VIA_EFULL = -6,      /* the doorbell ring or the descriptor pool is full: wait for completions */
    MYRI_VIA_ETOOLONG = -7,   /* longer than the firmware's MTU */
    MYRI_VIA_ENOMEM = -8,     /* the DMA region is exhausted */
    MYRI_VIA_EFIRMWARE = -9,  /* the board runs no VIA firmware (no VCB) */
    MYRI_VIA_EIO = -10,       /* a board access failed */
    MYRI_VIA_ENOROUTE = -11,  /* no route to that host was set */
    MYRI_VIA_EBADDESC = -12,  /* not a descriptor of this board, or not posted */
    MYRI_VIA_NCODES = 13
};
const char *myri_via_strerror(int code);

/* The completion of a descriptor (myri_via_wait / myri_via_test). */
typedef struct myri_via_done {
    int status;        /* 1 done, 2 truncated (receive: longer than the buffer), 3 bad descriptor, 4 no route */
    uint32_t bytes;    /* sent / received */
    int src_host;      /* receive: the sender's host index and VI */
    int src_vi;
} myri_via_done;

typedef struct myri_via_desc myri_via_desc; /* a posted descriptor (opaque) */

int myri_via_open(int unit);
int myri_via_set_route(int unit, int host, const char *route, int len);
/* Word-aligned memory in the board's DMA region (NULL when exhausted);
 * freed when the last program using the board leaves. */
void *myri_via_alloc(int unit, size_t bytes);
int myri_via_mtu(int unit);
int myri_via_nvi(int unit);
/* Posts a send of len bytes at buf (from myri_via_alloc) from VI vi to
 * (dest_host, dest_vi); *d is the descriptor to wait on. */
int myri_via_post_send(int unit, int vi, int dest_host, int dest_vi, const void *buf, size_t len, myri_via_desc **d);
/* Posts a receive buffer of len bytes for VI vi. */
int myri_via_post_recv(int unit, int vi, void *buf, size_t len, myri_via_desc **d);
/* Waits until the descriptor completes (timeout_us <= 0: no limit) and
 * returns it to the pool: MYRI_VIA_OK with *out, or MYRI_VIA_ETIMEOUT (the
 * descriptor stays posted). */
int myri_via_wait(myri_via_desc *d, double timeout_us, myri_via_done *out);
/* 1 and *out when complete (the descriptor returns to the pool), 0 if not. */
int myri_via_test(myri_via_desc *d, myri_via_done *out);

#ifdef __cplusplus
}
#endif

#endif
