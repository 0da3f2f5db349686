// SPDX-License-Identifier: GPL-2.0-only
/*
 * The job ring (daemon/datapath/crypt.c) by itself: jobs without
 * cryptography (CRYPT_NONE), a seam that counts its kicks and relaxes, and
 * the test as a worker that takes a job and holds it, so that the owner's
 * wait stalls, in the open:
 *
 *   - without workers a job runs as it is published;
 *   - with workers jobs are handed out from share_bytes, and a join leaves
 *     every job done and nothing handed out;
 *   - a stall (a worker preempted with a job) makes the owner keep its jobs
 *     for one join, twice as many after each stall at the first join that
 *     shares again, and each join that shares without a stall halves that:
 *     one preemption costs a join or two of sharing, not hundreds.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/datapath/crypt.h"
#include "tests/lib/testutil.h"

static struct crypt_queue q;
static unsigned int kicks, relaxes;

static void t_kick(void *ctx)
{
	(void)ctx;
	kicks++;
}

static void t_relax(void *ctx)
{
	(void)ctx;
	relaxes++;
}

static const struct device_io io = { .kick = t_kick, .relax = t_relax };

static void t_publish(size_t len)
{
	struct crypt_job *j = crypt_slot(&q, &io);

	j->kind = CRYPT_NONE;
	j->len = len;
	crypt_publish(&q, &io);
}

static uint8_t t_state(uint32_t seq)
{
	return atomic_load(&crypt_job_at(&q, seq)->state);
}

static uint32_t t_published(void)
{
	return atomic_load(&q.published);
}

/* The worker the scheduler preempted: done some milliseconds later. */
static void *t_late(void *arg)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	atomic_store_explicit((_Atomic uint8_t *)arg, CRYPT_DONE, memory_order_release);
	return NULL;
}

/* Two jobs handed out; the oldest taken by a worker that stalls; then the join. */
static bool t_stalled_join(void)
{
	uint32_t first = crypt_seq(&q);
	uint8_t ready = CRYPT_READY;
	unsigned int before = relaxes;
	pthread_t late;
	bool ok;

	t_publish(100);
	t_publish(100);
	ok = tu_check(t_published() == first + 2, "both jobs handed out before the stall");
	ok &= tu_check(atomic_compare_exchange_strong(&crypt_job_at(&q, first)->state, &ready, CRYPT_TAKEN),
		       "the test takes the oldest job as a worker would");
	if (pthread_create(&late, NULL, t_late, &crypt_job_at(&q, first)->state))
		return tu_check(false, "cannot start the late worker");
	crypt_join(&q, &io);
	pthread_join(late, NULL);
	ok &= tu_check(relaxes > before, "the owner relaxed while the worker held its job");
	ok &= tu_check(t_state(first) == CRYPT_DONE && t_state(first + 1) == CRYPT_DONE, "the join left both done");
	return ok;
}

/* After the join just made: the next n joins keep their jobs to the owner. */
static bool t_keeps_for(unsigned int n)
{
	bool ok = true;
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint32_t p = t_published();

		t_publish(100);
		ok &= tu_check(t_published() == p, "join %u of %u after the stall keeps its job", i + 1, n);
		crypt_join(&q, &io);
	}
	return ok;
}

/* A join that shares and does not stall. */
static bool t_shares(void)
{
	bool ok;

	t_publish(100);
	ok = tu_check(t_published() == crypt_seq(&q), "the job is handed out");
	crypt_join(&q, &io);
	return ok;
}

int main(void)
{
	bool ok = true;
	uint32_t seq;

	crypt_init(&q);
	t_publish(100);
	ok &= tu_check(t_state(0) == CRYPT_DONE && kicks == 0, "without workers a job runs as it is published");
	/*
	 * and keeps its slot until the join: a receive run of more than the
	 * ring's jobs (8 reads of 45 datagrams) overwrote the results of its
	 * first ones, finishing the later twice and the earlier never
	 */
	ok &= tu_check(crypt_room(&q) == CRYPT_RING_ONE - 1, "the job run at once holds its slot until the join");
	crypt_join(&q, &io);
	ok &= tu_check(crypt_room(&q) == CRYPT_RING_ONE, "the join frees it");
	/* one thread touches only CRYPT_RING_ONE slots (a router's resident memory) */
	for (seq = 0; seq < 3 * CRYPT_RING; seq++) {
		if (!crypt_room(&q))
			crypt_join(&q, &io);
		t_publish(100);
	}
	crypt_join(&q, &io);
	ok &= tu_check(atomic_load(&q.job[CRYPT_RING_ONE].state) == 0 && q.job[CRYPT_RING - 1].len == 0,
		       "without workers the slots past CRYPT_RING_ONE are never used");

	crypt_workers(&q, &io, true, 250);
	seq = crypt_seq(&q);
	t_publish(100);
	t_publish(100);
	ok &= tu_check(t_published() == seq && t_state(seq) == CRYPT_FILLED, "200 bytes are kept (share from 250)");
	t_publish(100);
	ok &= tu_check(t_published() == seq + 3 && t_state(seq) == CRYPT_READY && kicks == 1,
		       "the third job hands out all three, with one kick");
	crypt_join(&q, &io);
	ok &= tu_check(t_state(seq) == CRYPT_DONE && t_state(seq + 2) == CRYPT_DONE, "the join ran them");
	ok &= tu_check(crypt_room(&q) == CRYPT_RING && crypt_finished(&q, seq, seq + 3), "all finished after the join");

	crypt_workers(&q, &io, true, 1);
	/* each stall at the first join that shares again: 1, 2, 4 joins kept */
	ok &= t_stalled_join();
	ok &= t_keeps_for(1);
	ok &= t_stalled_join();
	ok &= t_keeps_for(2);
	ok &= t_stalled_join();
	ok &= t_keeps_for(4);
	/* two joins without a stall halve it twice (8 -> 2) */
	ok &= t_shares();
	ok &= t_shares();
	ok &= t_stalled_join();
	ok &= t_keeps_for(2);
	ok &= t_shares();
	return tu_exit_status("crypt") + !ok;
}
