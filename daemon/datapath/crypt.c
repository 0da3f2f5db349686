// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cryptography's jobs (crypt.h): a ring, three counters, no lock.
 */
#include "daemon/datapath/crypt.h"

#include <stdatomic.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/core/messages.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/state.h"

/* Spins of the owner's wait for a job in flight before it asks io.relax(). */
#define CRYPT_SPINS 256

void crypt_init(struct crypt_queue *q)
{
	memset(q, 0, sizeof(*q));
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
	atomic_store_explicit(&j->finished, true, memory_order_release);
}

/* Takes and runs one published job; false if there was none. */
static bool crypt_take(struct crypt_queue *q)
{
	uint32_t c = atomic_load_explicit(&q->claimed, memory_order_relaxed);
	struct crypt_job *j;

	do {
		if (c == atomic_load_explicit(&q->published, memory_order_acquire))
			return false;
	} while (!atomic_compare_exchange_weak_explicit(&q->claimed, &c, c + 1, memory_order_acq_rel,
							memory_order_relaxed));
	j = &q->job[c % CRYPT_RING];
	crypt_run(j);
	atomic_fetch_add_explicit(&q->done, 1, memory_order_release);
	return true;
}

bool device_work(struct device *d)
{
	return crypt_take(&d->crypt);
}

bool device_work_pending(struct device *d)
{
	return atomic_load_explicit(&d->crypt.claimed, memory_order_relaxed) !=
	       atomic_load_explicit(&d->crypt.published, memory_order_acquire);
}

void device_set_workers(struct device *d, unsigned int n)
{
	crypt_join(&d->crypt, &d->io);
	d->crypt.workers = n > 0;
}

void crypt_join(struct crypt_queue *q, const struct device_io *io)
{
	uint32_t published = atomic_load_explicit(&q->published, memory_order_relaxed);
	unsigned int spins = 0;

	while (crypt_take(q))
		;
	/* what workers still hold: at most one job each */
	while (atomic_load_explicit(&q->done, memory_order_acquire) != published) {
		if (++spins % CRYPT_SPINS == 0)
			io->relax(io->ctx);
	}
	q->joined = published;
}

struct crypt_job *crypt_slot(struct crypt_queue *q, const struct device_io *io)
{
	uint32_t seq = atomic_load_explicit(&q->published, memory_order_relaxed);
	struct crypt_job *j;

	if (seq - q->joined >= CRYPT_RING)
		crypt_join(q, io);
	j = &q->job[seq % CRYPT_RING];
	atomic_store_explicit(&j->finished, false, memory_order_relaxed);
	return j;
}

void crypt_publish(struct crypt_queue *q, const struct device_io *io)
{
	uint32_t seq = atomic_load_explicit(&q->published, memory_order_relaxed);

	if (!q->workers) {
		/* one thread: the job now, as the path without jobs would */
		crypt_run(&q->job[seq % CRYPT_RING]);
		atomic_store_explicit(&q->claimed, seq + 1, memory_order_relaxed);
		atomic_store_explicit(&q->done, seq + 1, memory_order_relaxed);
		atomic_store_explicit(&q->published, seq + 1, memory_order_relaxed);
		q->joined = seq + 1;
		return;
	}
	atomic_store_explicit(&q->published, seq + 1, memory_order_seq_cst);
	/* a worker may be asleep: the shell wakes one if so (cheap if not) */
	io->kick(io->ctx);
}

unsigned int crypt_room(const struct crypt_queue *q)
{
	return CRYPT_RING - (atomic_load_explicit(&q->published, memory_order_relaxed) - q->joined);
}

uint32_t crypt_seq(const struct crypt_queue *q)
{
	return atomic_load_explicit(&q->published, memory_order_relaxed);
}

bool crypt_finished(const struct crypt_queue *q, uint32_t first, uint32_t end)
{
	uint32_t i;

	/* every job before joined is finished, and its slot may be reused */
	if ((int32_t)(q->joined - end) >= 0)
		return true;
	for (i = (int32_t)(q->joined - first) > 0 ? q->joined : first; i != end; i++) {
		if (!atomic_load_explicit(&q->job[i % CRYPT_RING].finished, memory_order_acquire))
			return false;
	}
	return true;
}
