/* api0.h -- the Myrinet API of seed 001 (DEC CRL's myri_api0, Appendix A):
 * the 17 functions with the seed's names and argument lists, the non-locking
 * variants the seed names, and the API's return codes (negative, stable).
 *
 * Programming model (seed 001, "API Programming Model"):
 *   1. myri_api0_init; myri_api0_add_route for each destination;
 *      receiver: myri_api0_get_chan, then myri_api0_init_recv_chan.
 *   2. sender: get_send_buffer -> fill -> send_route -> free_send.
 *   3. receiver: recv -> use the data in place -> free_recv.
 *
 * The board (unit) is shared by every program of the host: the first user
 * initialises it (optionally loading the MCP), later users attach (seed 001,
 * "Host Communications Block": a counting semaphore; when all users have gone
 * the next one is first again).  There is one send channel, shared and
 * protected by the send-channel lock (the _l functions take it; the plain
 * variants do not), and MYRI_API0_NUM_CHANNELS at most receive channels, each
 * owned by one program (get_chan / rele_chan) and never locked.
 *
 * Buffers live in the board's DMA region in host memory: send buffers are
 * given out by get_send_buffer; received packets are returned as pointers
 * into the receive channel's slot (no copy) until free_recv.  A freed send
 * buffer is not given out again before the MCP has sent it (busy list).
 *
 * Misuse never crashes: every function checks its arguments and state and
 * returns one of the negative MYRI_API0_E* codes below (myri_api0_strerror
 * names it).  Every call charges host CPU time and every access to the
 * board's SRAM crosses the I/O bus (docs/HOST.md gives the costs).
 *
 * These functions may be called only from a program running on a host (a
 * simulated program, or a live process): elsewhere they return
 * MYRI_API0_ENOHOST.
 */
#ifndef MYRI_API0_H
#define MYRI_API0_H

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ---------------------------------------------------------- */
/* The most receive channels the API supports on a board (the board's own
 * number, chosen by the MCP, is at most this; seed 001: myri_api0_k.h). */
#define MYRI_API0_NUM_CHANNELS 64
/* get_chan: any free channel. */
#define MYRI_API0_ANY_CHAN (-1)
/* add_route: the lowest route id not yet used (ids start at 1; 0 is the
 * zero route, "no route at all, a point-to-point link", set by init). */
#define MYRI_API0_NEXT_ROUTE (-1)
/* The most boards (units) per host. */
#define MYRI_API0_MAX_UNITS 8

/* ---- return codes (stable: add at the end only) ---------------------------- */
#define MYRI_API0_OK 0
#define MYRI_API0_EBADUNIT (-1)       /* unit_num out of range or no such board */
#define MYRI_API0_ENOTINIT (-2)       /* this program has not called myri_api0_init on the unit */
#define MYRI_API0_EALREADY (-3)       /* init again without force_init */
#define MYRI_API0_EINVAL (-4)         /* NULL pointer, negative length, bad argument */
#define MYRI_API0_EBADCHAN (-5)       /* channel number out of range for the board */
#define MYRI_API0_CHAN_IN_USE (-6)    /* get_chan / init_recv_chan: the channel belongs to another program */
#define MYRI_API0_NO_CHANS (-7)       /* get_chan(ANY): every channel is taken */
#define MYRI_API0_CHAN_NOT_IN_USE (-8)/* the calling program has not got this channel */
#define MYRI_API0_ECHANINIT (-9)      /* recv on a channel not initialised by init_recv_chan */
#define MYRI_API0_EBADBUF (-10)       /* not a buffer of this board (or not a buffer's start) */
#define MYRI_API0_ENOTOWNED (-11)     /* send buffer not given out (freed twice, never got) */
#define MYRI_API0_ETOOLONG (-12)      /* length over the board's MTU */
#define MYRI_API0_EBADROUTE (-13)     /* route id out of range or not added */
#define MYRI_API0_EROUTE (-14)        /* add_route: route too long, or a byte without its MSB set */
#define MYRI_API0_NO_ROUTES (-15)     /* add_route(NEXT_ROUTE): every id is used */
#define MYRI_API0_NO_BUFFERS (-16)    /* get_send_buffer: no free buffer (all held or still busy) */
#define MYRI_API0_QUEUE_FULL (-17)    /* send: the send channel is full (the MCP has not taken entries) */
#define MYRI_API0_EMPTY (-18)         /* recv: no packet in the channel */
#define MYRI_API0_ELOCKED (-19)       /* lock: the caller holds the lock already */
#define MYRI_API0_ENOTLOCKED (-20)    /* unlock: the caller does not hold the lock */
#define MYRI_API0_ELOCKTIMEOUT (-21)  /* the lock stayed with another program past the lock time-out */
#define MYRI_API0_ETIMEOUT (-22)      /* the MCP did not answer (HCB pointer, state, handshake) in time */
#define MYRI_API0_EBADHCB (-23)       /* signature or geometry of the HCB wrong (API and MCP mismatched) */
#define MYRI_API0_ENOMCP (-24)        /* the MCP code named could not be loaded */
#define MYRI_API0_ENOHOST (-25)       /* not called from a program running on a host */
#define MYRI_API0_EIO (-26)           /* an SRAM or host-memory access failed (out of range) */
#define MYRI_API0_ENOTRECV (-27)      /* free_recv: not a buffer received from this channel, or freed twice */
#define MYRI_API0_ENOMEM (-28)        /* the DMA region or the shared segment is too small for the board */
#define MYRI_API0_NCODES 29

/* A static one-line description of rc (never NULL; "unknown" for others). */
const char *myri_api0_strerror(int rc);
/* The code's name, such as "MYRI_API0_ETIMEOUT" (never NULL). */
const char *myri_api0_strname(int rc);

/* ---- initialisation --------------------------------------------------------- */
/* Initialises the API on board unit_num for the calling program (seed 001).
 * A counting semaphore tells whether the caller is the board's first user:
 * if so (or force_init), full initialisation: load the MCP named by mcp_code
 * (NULL or "" = do not load), wait until the MCP has stored the HCB pointer
 * at SRAM 0xC and set its state to READY, handshake, check the HCB's three
 * signatures and read its geometry, initialise the shared segment, the send
 * channel and the route table, add the zero route (id 0).  Otherwise attach
 * to the board as already initialised (waiting while the first user is still
 * initialising).  in_id: board id, not used (seed: "not really used").
 * Returns 0, or MYRI_API0_EBADUNIT, EALREADY (already initialised by this
 * program and force_init is 0), ENOMCP, ETIMEOUT, EBADHCB, ENOMEM, EIO. */
int myri_api0_init(int unit_num, int in_id, int force_init, char *mcp_code);

/* Initialises receive channel chan_num (which the caller must have got with
 * myri_api0_get_chan): its slots in the DMA region, its poll word, the
 * channel's words in the HCB; packets queued before are discarded.  Receive
 * channels are not shared (seed 001).  0, or ENOTINIT, EBADCHAN,
 * CHAN_NOT_IN_USE. */
int myri_api0_init_recv_chan(int unit_num, int chan_num);

/* ---- send ------------------------------------------------------------------- */
/* Gets a send buffer (MTU bytes, in the DMA region) into *buf.  Reaps sent
 * buffers first when none is free.  0, or NO_BUFFERS, EINVAL (buf NULL),
 * ENOTINIT.  The _l version takes the send-channel lock. */
int myri_api0_get_send_buffer_l(int unit_num, void **buf);
int myri_api0_get_send_buffer(int unit_num, void **buf);

/* Frees a send buffer.  A freed buffer that the MCP has not sent yet goes on
 * the busy list and is not given out again until sent.  Unlike the seed (which
 * makes no check), the buffer must be one of this board's send buffers given
 * out and not yet freed: else EBADBUF / ENOTOWNED. */
int myri_api0_free_send_l(int unit_num, char *buf);
int myri_api0_free_send(int unit_num, char *buf);

/* Queues buf (a send buffer of this board, holding buf_len bytes) on the
 * board's single send channel, to arrive in receive channel chan_num of the
 * host at the end of route route_id.  Payloads of at most the board's PIO
 * size are copied into the entry's PIO buffer in SRAM by the host CPU;
 * larger ones are taken by the MCP's host DMA.  The buffer must not be
 * changed until buffer_busy_p says it is no longer busy; it may be freed at
 * once.  The head of the queue is shadowed in host memory and re-read from
 * SRAM only when the queue looks full.  0, or ENOTINIT, EINVAL, EBADCHAN,
 * EBADBUF, ENOTOWNED, ETOOLONG, EBADROUTE, QUEUE_FULL.  The _l version takes
 * the send-channel lock (exclusion with get_send_buffer and free_send). */
int myri_api0_send_route_l(int unit_num, int chan_num, void *buf, int buf_len, int route_id);
int myri_api0_send_route(int unit_num, int chan_num, void *buf, int buf_len, int route_id);

/* Sweeps the list of sent buffers: every buffer the MCP has sent since (its
 * sent count in the HCB against the API's enqueue count; the MCP keeps the
 * queue's order) stops being busy; freed ones return to the free list.
 * 0, or ENOTINIT. */
int myri_api0_reap_sent_l(int unit_num);
int myri_api0_reap_sent(int unit_num);

/* 1 if buf (a send buffer of this board) is queued and not yet sent, 0 if
 * not; or ENOTINIT, EBADBUF. */
int myri_api0_buffer_busy_p(int unit_num, void *buf);

/* Extension (not in seed 001, where the buffer size is the compile-time
 * constant of myri_api0_k.h): the largest payload a buffer of board unit_num
 * holds, in bytes (the MCP's mtu, read from the HCB at init).
 * Returns > 0, or < 0: see the return codes (ENOTINIT before init). */
int myri_api0_mtu(int unit_num);

/* The number of packets queued on the send channel and not yet sent (never
 * fewer than really are: the MCP's count is read afresh, and can only grow
 * after the read). */
int myri_api0_num_pending(int unit_num);

/* ---- receive ----------------------------------------------------------------- */
/* Takes the next packet of receive channel chan_num: *buf points at its
 * payload in the channel's slot, *buf_len is its length.  EMPTY when there is
 * none (never blocks).  With DMA notification the API looks at the channel's
 * poll word in host memory (no bus crossing), else it reads the channel's
 * count in SRAM.  ENOTINIT, EBADCHAN, CHAN_NOT_IN_USE, ECHANINIT, EINVAL. */
int myri_api0_recv(int unit_num, int chan_num, void **buf, int *buf_len);

/* The number of packets ready in the channel (>= 0) without taking any. */
int myri_api0_recv_poll(int unit_num, int chan_num);

/* Gives a received buffer back to the MCP.  Buffers may be freed in any
 * order; the MCP is told (RC_FREED) as soon as the oldest ones are free.
 * ENOTRECV for a buffer not handed out by recv on this channel. */
int myri_api0_free_recv(int unit_num, int chan_num, void *buf);

/* ---- channels ------------------------------------------------------------------ */
/* Gets receive channel chan_num (0 <= chan_num < the board's channels) or,
 * with MYRI_API0_ANY_CHAN, the lowest free one.  Returns the channel number
 * (>= 0: unlike the seed's ">0", channel 0 is a channel), or CHAN_IN_USE
 * (specific channel taken, also by the caller itself), NO_CHANS (none free),
 * EBADCHAN, ENOTINIT.  A program's channels are released when it ends. */
int myri_api0_get_chan(int unit_num, int chan_num);

/* Releases a channel the caller got (disables it in the HCB: later packets
 * for it are dropped by the MCP).  CHAN_NOT_IN_USE if the caller has not got
 * it. */
int myri_api0_rele_chan(int unit_num, int chan_num);

/* ---- routes ---------------------------------------------------------------------- */
/* Writes `route` (len bytes, each with its MSB set: to-switch bytes) into the
 * HCB's route table under route_id (1 .. routes - 1) or, with
 * MYRI_API0_NEXT_ROUTE, the lowest id not yet used.  Routes are shared by
 * every user of the board; overwriting an id is allowed (seed 001).  len 0 is
 * a point-to-point link.  Returns the route id (> 0), or EBADROUTE (id out of
 * range, or 0), EROUTE (len over the table's route size, bad byte), NO_ROUTES,
 * EINVAL (route NULL with len > 0, len < 0), ENOTINIT. */
int myri_api0_add_route(int unit_num, int route_id, char *route, int len);

/* ---- lock and handshake ------------------------------------------------------------ */
/* Takes the send-channel lock (waits while another program holds it, up to
 * the host's lock time-out).  While a program holds it, its _l calls do not
 * take it again, so a group of calls can be made atomic.  ELOCKED if the
 * caller holds it already; ELOCKTIMEOUT. */
int myri_api0_lock(int unit_num);
/* Releases it; ENOTLOCKED if the caller does not hold it. */
int myri_api0_unlock(int unit_num);

/* Handshakes with the MCP: writes a new token into the HCB and waits until
 * the MCP copies it back.  0, ETIMEOUT, ENOTINIT. */
int myri_api0_handshake(int unit_num);

#ifdef __cplusplus
}
#endif

#endif
