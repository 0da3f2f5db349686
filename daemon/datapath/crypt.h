/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data messages' cryptography as jobs, so that it may run on several
 * threads while one thread keeps all protocol state (STYLE.md principle 19).
 *
 * The thread that owns the device (the owner: the one that calls its entry
 * points) does the protocol's part of each message in order, in a first
 * pass: route, keypair, counter (noise_seal_prepare(), noise_open_prepare()),
 * a slot; then it publishes a job that holds a copy of the key and points
 * at the message.  A job is the AEAD over one message, and for a segment of
 * a TCP super-packet the segment's copy and checksums too: it touches only
 * its own message and its job.  Workers (threads the shell starts, which
 * call device_work(), defined in crypt.c) and the owner take jobs in any order; the owner joins
 * (crypt_join(): takes jobs itself, then waits for those in flight) and then
 * uses the results in the order it published them: sends the batch, or
 * finishes each opened message (replay window, timers, TUN).  Without
 * workers each job runs as it is published, so one thread runs today's
 * path; and as a job's result does not depend on who ran it, the device's
 * behaviour is byte for byte the same for any number of workers.
 *
 * Synchronisation is three counters of jobs, ever: published (the owner's
 * release store), claimed (a compare-and-swap by whoever takes one), done
 * (an increment with release when finished).  A job's slot is written by
 * the owner only once every job before it in the ring was joined; each
 * finished job also sets its own flag, so that the owner can tell that the
 * jobs reading a buffer are over without joining the rest.  No lock, no
 * allocation; memory is the ring.
 */
#ifndef WGD_CRYPT_H
#define WGD_CRYPT_H

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
	bool ok;		/* CRYPT_OPEN: the tag verified */
	_Atomic bool finished;	/* set last, with release */
} __attribute__((aligned(64)));

struct crypt_queue {
	struct crypt_job job[CRYPT_RING];
	_Atomic uint32_t published;	/* jobs ever handed out; the owner writes it */
	_Atomic uint32_t claimed;	/* ... taken by a thread */
	_Atomic uint32_t done;		/* ... finished */
	uint32_t joined;		/* the owner's: every job before it is finished */
	bool workers;			/* jobs wait for a worker or the join */
};

void crypt_init(struct crypt_queue *q);

/* Jobs that may be published before crypt_slot() must join. */
unsigned int crypt_room(const struct crypt_queue *q);

/*
 * The owner's side.  crypt_slot(): the next job to fill (joins first if the
 * ring is full); crypt_publish() hands it out (and io.kick()s, for a
 * worker that may sleep), or runs it at once without workers; crypt_join() returns
 * once every published job is finished.  crypt_seq() is the number the
 * next published job gets, crypt_finished() whether every job numbered
 * from first up to (not including) end is finished.
 */
struct crypt_job *crypt_slot(struct crypt_queue *q, const struct device_io *io);
void crypt_publish(struct crypt_queue *q, const struct device_io *io);
void crypt_join(struct crypt_queue *q, const struct device_io *io);
uint32_t crypt_seq(const struct crypt_queue *q);
bool crypt_finished(const struct crypt_queue *q, uint32_t first, uint32_t end);

/* Any thread takes jobs through device_work() (device.h), defined here. */

#endif
