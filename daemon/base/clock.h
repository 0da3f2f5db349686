/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clocks, read in one place.
 *
 * Protocol time is CLOCK_BOOTTIME: every age and deadline the core
 * compares (Reject-After-Time, Rekey-After-Time, the 540 s key zeroing,
 * cookie secrets, initiation spacing, WP §5.4.7, §6) and the loop's one
 * deadline.  Unlike CLOCK_MONOTONIC it goes on counting while the system
 * is suspended, so a session is as old after a sleep as its peer, which
 * did not sleep, takes it to be.  The log's rate limit stays on
 * CLOCK_MONOTONIC; last-handshake times and TAI64N timestamps are
 * CLOCK_REALTIME.
 *
 * The boot clock runs ahead of the monotonic one only while the system
 * sleeps (both are slewed alike by NTP), so the growth of their difference
 * between two wakeups of the loop is the time spent suspended:
 * clock_suspend_check() is that comparison, pure, for the loop to call.
 */
#ifndef WGD_CLOCK_H
#define WGD_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "crypto/util.h"

/* A suspend shorter than this is not told apart from reading jitter. */
#define CLOCK_SUSPEND_MIN_NS (3ull * 1000000000ull)

static WGD_OUT_OF_LINE uint64_t clock_read_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t clock_boot_ns(void)
{
	return clock_read_ns(CLOCK_BOOTTIME);
}

static inline uint64_t clock_mono_ns(void)
{
	return clock_read_ns(CLOCK_MONOTONIC);
}

static inline uint64_t clock_real_ns(void)
{
	return clock_read_ns(CLOCK_REALTIME);
}

/* The largest boot - monotonic difference seen so far. */
struct clock_suspend {
	uint64_t offset;
	bool primed;
};

/*
 * boot and mono read in this order, one right after the other.  Returns
 * how long the system slept since the previous call if that is more than
 * CLOCK_SUSPEND_MIN_NS, else 0 (also on the first call).
 *
 * Reading boot first means a delay between the two reads (preemption)
 * makes the difference smaller, never larger, than it really is; keeping
 * the largest difference seen means such a delay cannot show up as a
 * suspend at the next call either.  So a result is never more than the
 * time really slept.
 */
static inline uint64_t clock_suspend_check(struct clock_suspend *s, uint64_t boot, uint64_t mono)
{
	uint64_t offset = boot > mono ? boot - mono : 0;
	uint64_t slept = 0;

	if (s->primed && offset > s->offset)
		slept = offset - s->offset;
	if (!s->primed || offset > s->offset)
		s->offset = offset;
	s->primed = true;
	return slept > CLOCK_SUSPEND_MIN_NS ? slept : 0;
}

#endif
