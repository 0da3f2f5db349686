// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cryptography's jobs (crypt.h): a ring of jobs, each taken by a
 * compare-and-swap of its own state, and two counters; no lock.
 *
 * What a hand-off costs decides the shape.  Each cache line that moves
 * between two cores costs about 0.1-0.3 us (more in a virtual machine),
 * about what sealing 200 bytes takes.  So the owner keeps the jobs it fills
 * to itself until they are worth handing out (CRYPT_SHARE_BYTES of
 * messages): a single small packet never leaves its thread.  A job is
 * taken through its own line, which its taker reads anyway; the counters
 * each have a line of their own.  And a thread holds one job at a time:
 * a worker the scheduler preempts keeps the owner waiting for one job, not
 * for a share of the batch.
 */
#include "daemon/datapath/crypt.h"

#include <stdatomic.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/core/messages.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/state.h"

/*
 * The owner's wait for a job a worker holds.  A job takes a microsecond or
 * two, so it spins: giving the CPU away (io.relax(), sched_yield()) on a
 * busy machine costs it a whole time slice of some other process.  Only a
 * wait that lasts CRYPT_SPINS_STALL spins (tens of microseconds: the worker
 * was preempted) relaxes, every CRYPT_SPINS spins; and then the owner
 * keeps every job to itself for a few joins, twice as many after each
 * stall that follows a stall, up to CRYPT_BACKOFF_MAX, and half as many
 * after each join that did not stall: on a machine too busy to run a
 * worker when it is needed, one thread is the faster way, while a single
 * preemption costs a join or two of sharing, not hundreds
 * (doc/architecture.md, "Threads").
 */
#define CRYPT_SPINS 256
#define CRYPT_SPINS_STALL 16384
#define CRYPT_BACKOFF_MAX 256

void crypt_init(struct crypt_queue *q)
{
	memset(q, 0, sizeof(*q));
	atomic_store_explicit(&q->ring, CRYPT_RING_ONE, memory_order_relaxed);
}

static struct crypt_job *crypt_job(struct crypt_queue *q, uint32_t seq)
{
	return crypt_job_at(q, seq);
}

/* One job's work: it writes its message (and ok) only. */
static void crypt_run(struct crypt_job *j)
{
	switch (j->kind) {
	case CRYPT_SEGMENT: {
		uint8_t *inner = j->msg + MESSAGE_DATA_HEADER_LEN;
		size_t n = gso_split_segment(j->split, j->seg, inner, j->len);

		memset(inner + n, 0, j->len - n);
		noise_crypt_seal(&j->c, j->msg, j->len);
		break;
	}
	case CRYPT_SEAL:
		noise_crypt_seal(&j->c, j->msg, j->len);
		break;
	case CRYPT_OPEN:
		j->ok = noise_crypt_open(&j->c, j->msg, j->len);
		break;
	case CRYPT_NONE:
	default:
		break;
	}
	/* the key is not needed again; the rest is the owner's to read */
	crypto_wipe(j->c.key, sizeof(j->c.key));
	atomic_store_explicit(&j->state, CRYPT_DONE, memory_order_release);
}

/* Runs j if it is ready and this thread is the one that takes it. */
static bool crypt_take(struct crypt_job *j)
{
	uint8_t ready = CRYPT_READY;

	if (atomic_load_explicit(&j->state, memory_order_relaxed) != CRYPT_READY ||
	    !atomic_compare_exchange_strong_explicit(&j->state, &ready, CRYPT_TAKEN, memory_order_acquire,
						     memory_order_relaxed))
		return false;
	crypt_run(j);
	return true;
}

/*
 * A worker: the oldest job handed out and not yet taken.  front only
 * approximates it (a stale one just skips jobs taken or done); a job is
 * run by whoever swaps its state, whichever number front had.
 */
bool device_work(struct device *d)
{
	struct crypt_queue *q = &d->crypt;
	uint32_t f = atomic_load_explicit(&q->front, memory_order_relaxed);
	uint32_t p = atomic_load_explicit(&q->published, memory_order_acquire);

	/* (front may pass a published it reads stale: neither is ever behind by 2^31) */
	while ((int32_t)(p - f) > 0) {
		bool ran = crypt_take(crypt_job(q, f));

		if (!atomic_compare_exchange_strong_explicit(&q->front, &f, f + 1, memory_order_relaxed,
							     memory_order_relaxed))
			p = atomic_load_explicit(&q->published, memory_order_acquire);	/* f reloaded */
		else
			f++;
		if (ran)
			return true;
	}
	return false;
}

bool device_work_pending(struct device *d)
{
	uint32_t f = atomic_load_explicit(&d->crypt.front, memory_order_relaxed);

	return (int32_t)(atomic_load_explicit(&d->crypt.published, memory_order_acquire) - f) > 0;
}

void device_set_workers(struct device *d, unsigned int n, size_t share_bytes)
{
	crypt_workers(&d->crypt, &d->io, n > 0, share_bytes);
}

void crypt_workers(struct crypt_queue *q, const struct device_io *io, bool on, size_t share_bytes)
{
	/* no job in flight: the slots may be numbered anew */
	crypt_join(q, io);
	q->workers = on;
	atomic_store_explicit(&q->ring, on ? CRYPT_RING : CRYPT_RING_ONE, memory_order_relaxed);
	q->share_bytes = share_bytes ? share_bytes : CRYPT_SHARE_BYTES;
}

/* Hands out the jobs filled so far; a worker that sleeps is woken. */
void crypt_share(struct crypt_queue *q, const struct device_io *io)
{
	uint32_t i, p = atomic_load_explicit(&q->published, memory_order_relaxed);

	if (p == q->filled)
		return;
	for (i = p; i != q->filled; i++)
		atomic_store_explicit(&crypt_job(q, i)->state, CRYPT_READY, memory_order_release);
	atomic_store_explicit(&q->published, q->filled, memory_order_seq_cst);
	q->unshared_bytes = 0;
	io->kick(io->ctx);
}

/* Waits until job seq is done (its taker holds it: one job at a time). */
static void crypt_wait_one(struct crypt_queue *q, const struct device_io *io, uint32_t seq, unsigned int *spins)
{
	while (atomic_load_explicit(&crypt_job(q, seq)->state, memory_order_acquire) != CRYPT_DONE) {
		if (++*spins < CRYPT_SPINS_STALL)
			continue;
		q->stalled = true;
		if (*spins % CRYPT_SPINS == 0)
			io->relax(io->ctx);
	}
}

/* After a join: how many joins to go without handing out (see CRYPT_SPINS_STALL). */
static void crypt_pace(struct crypt_queue *q)
{
	if (q->stalled) {
		q->stalled = false;
		q->backoff = q->penalty ? q->penalty : 1;
		q->penalty = q->backoff < CRYPT_BACKOFF_MAX ? q->backoff * 2 : CRYPT_BACKOFF_MAX;
	} else if (q->backoff) {
		q->backoff--;
	} else {
		q->penalty /= 2;
	}
}

void crypt_join(struct crypt_queue *q, const struct device_io *io)
{
	uint32_t p = atomic_load_explicit(&q->published, memory_order_relaxed), i;
	unsigned int spins = 0;

	/* what was never handed out, then the rest, newest first: the workers start from the oldest */
	for (i = q->filled; i != q->joined; i--) {
		struct crypt_job *j = crypt_job(q, i - 1);

		if ((int32_t)(i - 1 - p) >= 0)
			crypt_run(j);
		else
			crypt_take(j);
	}
	/* what workers hold: one job each */
	for (i = q->joined; i != p; i++)
		crypt_wait_one(q, io, i, &spins);
	/* all done: workers find nothing until the next hand-out */
	atomic_store_explicit(&q->published, q->filled, memory_order_relaxed);
	atomic_store_explicit(&q->front, q->filled, memory_order_relaxed);
	q->unshared_bytes = 0;
	q->joined = q->filled;
	crypt_pace(q);
}

void crypt_wait(struct crypt_queue *q, const struct device_io *io, uint32_t first, uint32_t end)
{
	uint32_t p = atomic_load_explicit(&q->published, memory_order_relaxed), i;
	unsigned int spins = 0;
	bool oldest;

	if ((int32_t)(q->joined - end) >= 0)
		return;		/* joined since */
	if ((int32_t)(end - p) > 0) {
		/* some never handed out: the owner runs the whole batch */
		crypt_join(q, io);
		return;
	}
	oldest = (int32_t)(q->joined - first) >= 0;
	if (oldest)
		first = q->joined;
	for (i = end; i != first; i--)
		crypt_take(crypt_job(q, i - 1));
	for (i = first; i != end; i++)
		crypt_wait_one(q, io, i, &spins);
	if (oldest) {
		/* every job before end is done: a join of its own */
		q->joined = end;
		crypt_pace(q);
	}
}

struct crypt_job *crypt_slot(struct crypt_queue *q, const struct device_io *io)
{
	struct crypt_job *j;

	if (q->filled - q->joined >= atomic_load_explicit(&q->ring, memory_order_relaxed))
		crypt_join(q, io);
	j = crypt_job(q, q->filled);
	atomic_store_explicit(&j->state, CRYPT_FILLED, memory_order_relaxed);
	return j;
}

void crypt_publish(struct crypt_queue *q, const struct device_io *io)
{
	struct crypt_job *j = crypt_job(q, q->filled);

	q->filled++;
	if (!q->workers) {
		/*
		 * One thread: the job now, as the path without jobs would.  Its
		 * slot is the owner's until the join all the same (crypt_room()):
		 * a receive run reads its results there.
		 */
		crypt_run(j);
		atomic_store_explicit(&q->published, q->filled, memory_order_relaxed);
		atomic_store_explicit(&q->front, q->filled, memory_order_relaxed);
		return;
	}
	q->unshared_bytes += j->len;
	if (q->unshared_bytes >= q->share_bytes && !q->backoff)
		crypt_share(q, io);
}

unsigned int crypt_room(const struct crypt_queue *q)
{
	return atomic_load_explicit(&q->ring, memory_order_relaxed) - (q->filled - q->joined);
}

uint32_t crypt_seq(const struct crypt_queue *q)
{
	return q->filled;
}

bool crypt_finished(const struct crypt_queue *q, uint32_t first, uint32_t end)
{
	uint32_t i;

	/* every job before joined is done, and its slot may be reused */
	if ((int32_t)(q->joined - end) >= 0)
		return true;
	for (i = (int32_t)(q->joined - first) > 0 ? q->joined : first; i != end; i++) {
		if (atomic_load_explicit(&q->job[i % atomic_load_explicit(&q->ring, memory_order_relaxed)].state, memory_order_acquire) != CRYPT_DONE)
			return false;
	}
	return true;
}
