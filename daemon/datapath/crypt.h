/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data messages' cryptography as jobs, so that it may run on several
 * threads while one thread keeps all protocol state (STYLE.md principle 19).
 *
 * The thread that owns the device (the owner: the one that calls its entry
 * points) does the protocol's part of each message in order: route,
 * keypair, counter (noise_seal_prepare(), noise_open_prepare()), a slot;
 * then it fills a job that holds a copy of the key and points at the
 * message.  A job is the AEAD over one message, and for a segment of a TCP
 * super-packet the segment's copy and checksums too: it touches only its
 * own message and its job.  Workers (threads the shell starts, which call
 * device_work(), defined in crypt.c) take the jobs the owner hands out,
 * oldest first; at its join (crypt_join()) the owner takes what is left,
 * newest first, so that the two meet, waits for the jobs workers hold (one
 * each), and then uses the results in the order it filled them: sends the
 * batch, or finishes each opened message (replay window, timers, TUN).
 * Without workers each job runs as it is filled, so one thread runs today's
 * path; and as a job's result does not depend on who ran it, the device's
 * behaviour is byte for byte the same for any number of workers.
 *
 * A job is taken by one compare-and-swap of its state (ready -> taken),
 * and finished by a release store (done); the owner hands out by setting
 * the jobs ready and moving published.  No lock, no allocation; memory is
 * the ring.
 */
#ifndef WGD_CRYPT_H
#define WGD_CRYPT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/core/noise.h"
#include "daemon/datapath/endpoint.h"
#include "daemon/datapath/gso.h"
#include "daemon/datapath/io.h"

/*
 * Jobs in flight at most: a send batch is 64, a receive run up to this
 * many data messages (a read of UDP GRO runs holds more: the run is cut).
 */
#define CRYPT_RING 256
/*
 * The slots used without workers: a job runs as it is filled and only a
 * receive run keeps its results, so a quarter of the ring does, and the
 * rest of it is never touched (resident memory on a router: 24 KiB).
 */
#define CRYPT_RING_ONE 64

enum crypt_kind {
	CRYPT_NONE = 0,		/* nothing to run: the owner keeps a result in order */
	CRYPT_SEAL,		/* len bytes of padded plaintext after the header */
	CRYPT_SEGMENT,		/* segment seg of *split, then zeros to len, then seal */
	CRYPT_OPEN,		/* a data message of len bytes */
};

struct crypt_job {
	struct noise_crypt c;
	uint8_t *msg;
	size_t len;
	const struct gso_split *split;
	unsigned int seg;
	struct endpoint *from;	/* the owner's, for a received message */
	uint8_t kind;
	uint8_t res;		/* the owner's: enum noise_result of the prepare */
	uint8_t tos;		/* CRYPT_OPEN: the datagram's outer TOS (ip.h's ECN) */
	bool ok;		/* CRYPT_OPEN: the tag verified */
	_Atomic uint8_t state;	/* enum crypt_state */
} __attribute__((aligned(64)));

enum crypt_state {
	CRYPT_FILLED = 0,	/* the owner's, not handed out */
	CRYPT_READY,		/* handed out: whoever swaps it to taken runs it */
	CRYPT_TAKEN,
	CRYPT_DONE,		/* stored with release after the work */
};

/*
 * Work the owner keeps to itself before it hands it out: a batch smaller
 * than this never leaves its thread (see crypt.c).
 */
#define CRYPT_SHARE_BYTES 12000

struct crypt_queue {
	struct crypt_job job[CRYPT_RING];
	/* each counter on a cache line of its own; jobs are numbered from 0, ever */
	_Atomic uint32_t published __attribute__((aligned(64)));	/* handed out: below it */
	_Atomic uint32_t front __attribute__((aligned(64)));	/* workers: the oldest maybe ready */
	/* the owner's */
	uint32_t filled __attribute__((aligned(64)));	/* jobs filled, handed out or not */
	uint32_t joined;		/* every job before it is done */
	size_t unshared_bytes;		/* of the jobs filled and not handed out */
	size_t share_bytes;		/* handed out from this much (device_set_workers()) */
	unsigned int backoff;		/* joins to go without handing out (a worker stalled) */
	unsigned int penalty;		/* the next stall's backoff, halved by each join without one */
	bool stalled;			/* a wait for a worker stalled since the last join */
	bool workers;			/* jobs are handed out, else run at once */
	/* slots in use: CRYPT_RING, or CRYPT_RING_ONE without workers; changed at a join only */
	_Atomic unsigned int ring;
};

void crypt_init(struct crypt_queue *q);
/*
 * Workers on or off (device_set_workers()): joins, then hands jobs out
 * from share_bytes (0: CRYPT_SHARE_BYTES) if on.
 */
void crypt_workers(struct crypt_queue *q, const struct device_io *io, bool on, size_t share_bytes);

/* The job numbered seq (crypt_seq()). */
static inline struct crypt_job *crypt_job_at(struct crypt_queue *q, uint32_t seq)
{
	/* a worker may read it stale: then it finds no job ready where it looks, or a ready one, which is as good */
	return &q->job[seq % atomic_load_explicit(&q->ring, memory_order_relaxed)];
}

/* Jobs that may be published before crypt_slot() must join. */
unsigned int crypt_room(const struct crypt_queue *q);

/*
 * The owner's side.  crypt_slot(): the next job to fill (joins first if the
 * ring is full); crypt_publish() adds it to the batch, which is handed out
 * (and io.kick()ed, for a worker that may sleep) once it holds
 * CRYPT_SHARE_BYTES, or runs it at once without workers; crypt_share()
 * hands out what the batch holds now; crypt_join() returns
 * once every job filled is done, crypt_wait() once those numbered from
 * first up to (not including) end are (taking them itself, newest first:
 * the others are left to the workers).  crypt_seq() is the number the next job
 * filled gets, crypt_finished() whether every job numbered from first up
 * to (not including) end is done.
 */
struct crypt_job *crypt_slot(struct crypt_queue *q, const struct device_io *io);
void crypt_publish(struct crypt_queue *q, const struct device_io *io);
void crypt_share(struct crypt_queue *q, const struct device_io *io);
void crypt_join(struct crypt_queue *q, const struct device_io *io);
void crypt_wait(struct crypt_queue *q, const struct device_io *io, uint32_t first, uint32_t end);
uint32_t crypt_seq(const struct crypt_queue *q);
bool crypt_finished(const struct crypt_queue *q, uint32_t first, uint32_t end);

/* Any thread takes jobs through device_work() (device.h), defined here. */

#endif
