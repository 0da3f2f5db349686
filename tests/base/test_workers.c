// SPDX-License-Identifier: GPL-2.0-only
/*
 * Worker threads (daemon/base/workers.c) against lost wake-ups: one job at
 * a time is published and kicked, and the test waits for a worker to run
 * it, with a spin of one microsecond, so that the worker is caught at every
 * point of its way to sleep and back.  A job not taken within a second is
 * a wake-up lost: the worker sleeps with work pending, as a daemon's worker
 * would, for good.  Two rounds: one worker, then three (one kick wakes one;
 * the woken one wakes the next when more is pending).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "daemon/base/workers.h"
#include "tests/lib/testutil.h"


static _Atomic unsigned int published, taken;
static unsigned int rounds = 200000;	/* argv[1]: fewer under qemu-user */

static bool t_work(void *ctx)
{
	unsigned int t = atomic_load(&taken);

	(void)ctx;
	return t != atomic_load(&published) && atomic_compare_exchange_strong(&taken, &t, t + 1);
}

static bool t_pending(void *ctx)
{
	(void)ctx;
	return atomic_load(&taken) != atomic_load(&published);
}

static uint64_t t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A pause of up to a few microseconds, different each time, between jobs. */
static void t_pause(struct tu_rng *rng)
{
	unsigned int i, n = (unsigned int)tu_rng_below(rng, 4000);

	for (i = 0; i < n; i++)
		atomic_signal_fence(memory_order_seq_cst);
}

static bool t_round(unsigned int n, struct tu_rng *rng)
{
	struct workers w;
	unsigned int i, lost = 0;

	atomic_store(&published, 0);
	atomic_store(&taken, 0);
	if (workers_start(&w, n, t_work, t_pending, NULL, 1000) < 0)
		return tu_check(false, "cannot start %u workers", n);
	for (i = 0; i < rounds && !lost; i++) {
		uint64_t until = t_now() + 1000000000ull;

		atomic_fetch_add(&published, 1);
		workers_kick(&w);
		while (atomic_load(&taken) != i + 1 && t_now() < until)
			;
		if (atomic_load(&taken) != i + 1)
			lost = i + 1;
		t_pause(rng);
	}
	workers_stop(&w);
	return tu_check(!lost, "%u workers: job %u of %u taken within a second", n, lost ? lost : i, rounds);
}

int main(int argc, char **argv)
{
	struct tu_rng rng;
	bool ok = true;

	if (argc > 1)
		rounds = (unsigned int)atoi(argv[1]);
	tu_rng_seed(&rng, tu_seed("workers", 1));
	ok &= t_round(1, &rng);
	ok &= t_round(3, &rng);
	return tu_exit_status("workers") + !ok;
}
