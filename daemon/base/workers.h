/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Worker threads that run jobs someone else publishes (the data path's
 * cryptography, datapath/crypt.h): each calls work() until it returns
 * false, spins for a while in case more comes (a wake-up costs the
 * publisher a system call and the worker several microseconds), then
 * sleeps until workers_kick().  A publisher kicks after each job it
 * publishes: when no worker sleeps that is one atomic load; otherwise one
 * futex wake at a time is in flight, and a worker that wakes to find more
 * than it takes wakes the next.
 *
 * Threads are started with every signal blocked (the process takes its
 * signals through a signalfd on the event loop) and named "wgd-work/N";
 * start them after the privilege drop, so that they hold what the process
 * holds then and nothing more (capabilities are per thread).
 */
#ifndef WGD_WORKERS_H
#define WGD_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "crypto/util.h"

#define WORKERS_MAX 63

struct workers {
	bool (*work)(void *ctx);	/* runs one job; false if there was none */
	bool (*pending)(void *ctx);	/* a job waits to be taken */
	void *ctx;
	uint64_t spin_ns;		/* how long an idle worker spins before it sleeps */
	unsigned int n;
	_Atomic uint32_t seq;		/* the futex word: bumped by each wake */
	_Atomic uint32_t sleepers;
	_Atomic uint32_t waking;	/* a wake is in flight */
	_Atomic bool stop;
	_Atomic unsigned long jobs;	/* run by the workers, added up as each stops */
	pthread_t threads[WORKERS_MAX];
};

/*
 * Starts n (at most WORKERS_MAX) threads calling work(ctx) as above; spin_ns
 * 0 means WORKERS_SPIN_NS.  0, or -errno with the threads started so far
 * stopped again.
 */
/*
 * 20 us: long enough to catch the next batch's hand-out while the owner
 * is in a system call, short enough not to hold a CPU that the kernel's
 * own network work wants (tools/onesided, --threads 2 against 1: 1.11x
 * throughput at 1.54x CPU per GB with 50 us, 1.35x at 1.21x with 20 us;
 * doc/performance.md, "Threads").
 */
#define WORKERS_SPIN_NS 20000ull
WGD_COLD int workers_start(struct workers *w, unsigned int n, bool (*work)(void *ctx), bool (*pending)(void *ctx),
			   void *ctx, uint64_t spin_ns);
/* A job was published: wake a sleeping worker, if any. */
void workers_kick(struct workers *w);
/*
 * Stops and joins the threads (each finishes the job it holds); returns how
 * many jobs they ran in all.
 */
WGD_COLD unsigned long workers_stop(struct workers *w);

#endif
