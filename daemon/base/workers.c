// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE	/* pthread_setname_np */
/*
 * Worker threads (workers.h): spin, then sleep on a futex.
 *
 * The sleep is safe against a lost wake-up by the order of two sequentially
 * consistent operations on each side: a worker counts itself in sleepers,
 * then looks for a pending job; a publisher makes its job visible, then
 * looks at sleepers.  One of the two sees the other.  The futex word seq
 * is read before the worker counts itself, so a wake between its look and
 * its wait makes the wait return at once.
 */
#include "daemon/base/workers.h"

#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"

static uint64_t workers_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void workers_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Spins while nothing is pending, for spin_ns at most; true if work came. */
static bool workers_spin(struct workers *w)
{
	uint64_t until = workers_now() + w->spin_ns;
	unsigned int i = 0;

	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		if (w->pending(w->ctx))
			return true;
		workers_pause();
		if (++i % 64 == 0 && workers_now() >= until)
			return false;
	}
	return false;
}

static void workers_sleep(struct workers *w)
{
	uint32_t seq;

	/*
	 * A wake marked in flight is over by now: the worker it was for is
	 * this one, or went back to work.  Left marked, it would refuse every
	 * kick while this worker sleeps (a publisher that saw the worker
	 * counted just before it found work and left can mark it after the
	 * worker's clear below: a worker asleep for good, tests/base).
	 */
	atomic_store(&w->waking, 0);
	seq = atomic_load(&w->seq);

	atomic_fetch_add(&w->sleepers, 1);
	if (!w->pending(w->ctx) && !atomic_load(&w->stop))
		syscall(SYS_futex, &w->seq, FUTEX_WAIT_PRIVATE, seq, NULL, NULL, 0);
	atomic_fetch_sub(&w->sleepers, 1);
	atomic_store(&w->waking, 0);
}

static void *workers_main(void *arg)
{
	struct workers *w = arg;
	unsigned long jobs = 0;

	while (!atomic_load_explicit(&w->stop, memory_order_relaxed)) {
		if (w->work(w->ctx)) {
			jobs++;
			/* more than this one takes: let another sleeper help */
			if (w->pending(w->ctx))
				workers_kick(w);
			continue;
		}
		if (!workers_spin(w))
			workers_sleep(w);
	}
	atomic_fetch_add(&w->jobs, jobs);
	return NULL;
}

void workers_kick(struct workers *w)
{
	if (!atomic_load(&w->sleepers) || atomic_exchange(&w->waking, 1))
		return;
	atomic_fetch_add(&w->seq, 1);
	syscall(SYS_futex, &w->seq, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

WGD_COLD int workers_start(struct workers *w, unsigned int n, bool (*work)(void *ctx), bool (*pending)(void *ctx),
		  void *ctx, uint64_t spin_ns)
{
	sigset_t all, old;
	char name[16];
	int ret = 0;

	memset(w, 0, sizeof(*w));
	if (n > WORKERS_MAX)
		return -EINVAL;
	w->work = work;
	w->pending = pending;
	w->ctx = ctx;
	w->spin_ns = spin_ns ? spin_ns : WORKERS_SPIN_NS;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (w->n = 0; w->n < n; w->n++) {
		ret = -pthread_create(&w->threads[w->n], NULL, workers_main, w);
		if (ret)
			break;
		snprintf(name, sizeof(name), "wgd-work/%u", w->n + 1);
		pthread_setname_np(w->threads[w->n], name);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		workers_stop(w);
	return ret;
}

WGD_COLD unsigned long workers_stop(struct workers *w)
{
	unsigned int i;

	atomic_store(&w->stop, true);
	atomic_fetch_add(&w->seq, 1);
	syscall(SYS_futex, &w->seq, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
	for (i = 0; i < w->n; i++)
		pthread_join(w->threads[i], NULL);
	w->n = 0;
	return atomic_load(&w->jobs);
}
