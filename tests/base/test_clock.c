// SPDX-License-Identifier: GPL-2.0-only
/*
 * Suspend detection (daemon/base/clock.h): clock_suspend_check() over a table
 * of wakeups, each a pair of clock readings (boot, then monotonic) and the
 * sleep it must report.  The cases: the first call only primes; idle time
 * (both clocks advance alike) is no suspend, however long; a gain of the
 * boot clock up to CLOCK_SUSPEND_MIN_NS is not reported, one beyond it is,
 * exactly; a delay between the two reads (the monotonic one read late)
 * shrinks the difference and must not show up as a suspend at the next
 * wakeup; consecutive suspends are reported one by one.
 */
#include <stdio.h>

#include "daemon/base/clock.h"

#define S 1000000000ull

struct wakeup {
	uint64_t boot, mono;	/* as read, in this order */
	uint64_t slept;		/* expected result */
};

struct table {
	const char *name;
	struct wakeup w[8];
	unsigned int n;
};

static const struct table tables[] = {
	{ "first call primes, even far apart", {
		{ 10000 * S, 5 * S, 0 },
		{ 10000 * S + 1, 5 * S + 1, 0 },
	}, 2 },
	{ "idle for hours: both clocks advance alike", {
		{ 100 * S, 100 * S, 0 },
		{ 7300 * S, 7300 * S, 0 },
		{ 90000 * S, 90000 * S, 0 },
	}, 3 },
	{ "threshold: up to the minimum is not reported, beyond it is", {
		{ 100 * S, 100 * S, 0 },
		{ 103 * S, 100 * S, 0 },			/* exactly 3 s */
		{ 106 * S + 1, 100 * S, 3 * S + 1 },		/* 3 s + 1 ns more */
		{ 106 * S + 2, 100 * S + 1, 0 },
	}, 4 },
	{ "two hours of suspend", {
		{ 50 * S, 40 * S, 0 },
		{ 7260 * S, 50 * S, 7200 * S },
		{ 7261 * S, 51 * S, 0 },
	}, 3 },
	{ "a late monotonic read is not a suspend, before or after", {
		{ 150 * S, 100 * S, 0 },	/* 50 s slept before we started */
		{ 250 * S, 205 * S, 0 },	/* preempted 5 s between the reads */
		{ 350 * S, 300 * S, 0 },	/* back to the true difference */
		{ 450 * S, 404 * S, 0 },
		{ 550 * S, 500 * S, 0 },
		{ 654 * S, 600 * S, 4 * S },	/* a real 4 s suspend still counts */
	}, 6 },
	{ "consecutive suspends, each reported once", {
		{ 10 * S, 10 * S, 0 },
		{ 30 * S, 20 * S, 10 * S },
		{ 30 * S, 20 * S, 0 },
		{ 90 * S, 21 * S, 59 * S },
		{ 92 * S, 21 * S, 0 },		/* 2 s more: below the minimum */
		{ 96 * S, 23 * S, 0 },		/* 2 s more again: each wakeup alone */
	}, 6 },
	{ "boot behind monotonic (never on Linux) counts as no difference", {
		{ 5 * S, 10 * S, 0 },
		{ 6 * S, 11 * S, 0 },
		{ 20 * S, 12 * S, 8 * S },	/* 8 s gained over a difference of 0 */
	}, 3 },
};

int main(void)
{
	unsigned int t, i, failures = 0, checks = 0;

	for (t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		const struct table *tb = &tables[t];
		struct clock_suspend s = { 0 };

		for (i = 0; i < tb->n; i++) {
			const struct wakeup *w = &tb->w[i];
			uint64_t got = clock_suspend_check(&s, w->boot, w->mono);

			checks++;
			if (got != w->slept) {
				printf("FAIL %s, wakeup %u: slept %llu ns, expected %llu\n", tb->name, i,
				       (unsigned long long)got, (unsigned long long)w->slept);
				failures++;
			}
		}
	}
	/* The real clocks, read twice in a row: no suspend in between. */
	{
		struct clock_suspend s = { 0 };
		uint64_t boot = clock_boot_ns();

		clock_suspend_check(&s, boot, clock_mono_ns());
		boot = clock_boot_ns();
		checks++;
		if (clock_suspend_check(&s, boot, clock_mono_ns())) {
			printf("FAIL the real clocks show a suspend between two reads\n");
			failures++;
		}
	}
	printf("%u checks, %u failures\n", checks, failures);
	return failures ? 1 : 0;
}
