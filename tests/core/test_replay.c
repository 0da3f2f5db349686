// SPDX-License-Identifier: GPL-2.0-only
/*
 * The replay window: a table of cases (window edges, reordering, far jumps,
 * the counter limit), then long random sequences against a naive reference
 * that remembers every counter it accepted.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/core/messages.h"
#include "daemon/core/replay.h"
#include "tests/core/coretest.h"

#define W ((uint64_t)REPLAY_WINDOW)
#define LIMIT REJECT_AFTER_MESSAGES

struct replay_case {
	uint64_t counter;
	bool accept;
};

static void run_table(const char *name, const struct replay_case *cases, size_t n)
{
	struct replay_counter r;
	size_t i;

	replay_counter_init(&r);
	for (i = 0; i < n; i++)
		tu_check(replay_counter_validate(&r, cases[i].counter) == cases[i].accept,
			 "%s case %zu: counter %llu should be %s", name, i, (unsigned long long)cases[i].counter,
			 cases[i].accept ? "accepted" : "rejected");
}

static void test_tables(void)
{
	static const struct replay_case basic[] = {
		{ 0, true },  { 1, true },  { 1, false }, { 9, true },  { 8, true },   { 7, true },
		{ 7, false }, { 0, false }, { 2, true },  { 3, true },  { 10, true },  { 10, false },
		{ 5, true },  { 6, true },  { 4, true },  { 4, false }, { 11, true },  { 12, true },
	};
	/* the oldest counter still in the window is exactly W behind the greatest */
	static const struct replay_case edges[] = {
		{ 0, true },	     { W, true },	  { 0, false },	  /* seen */
		{ 1, true },	     { W + 1, true },	  { 1, false },	  /* now W behind but seen */
		{ 2, true },	     /* W - 1 behind: in */
		{ W + 3, true },     { 2, false },	  /* W + 1 behind: too old */
		{ 3, true },	     /* exactly W behind */
		{ W + 2, true },     { W + 2, false },
	};
	/* jumps farther than the whole ring clear it completely */
	static const struct replay_case jumps[] = {
		{ 5, true },
		{ 10 * W, true },
		{ 10 * W - 1, true },
		{ 9 * W, true },	    /* W behind */
		{ 9 * W - 1, false },	    /* W + 1 behind */
		{ 9 * W + 5, true },
		{ 10 * W, false },
		{ 10 * W + 64, true },	    /* next word */
		{ 10 * W + 63, true },
		{ 20 * W + 8191, true },
		{ 20 * W + 8191 - W, true },
		{ 20 * W + 8190 - W, false },
		{ 20 * W + 8192, true },    /* ring position wraps to the start */
		{ 20 * W + 8191 - W, false },
		{ 20 * W + 8192 - W, true },
	};
	/*
	 * A jump of a whole ring (or several) lands on the ring word of old
	 * counters: that word must be cleared too, or the new counter would
	 * look seen.
	 */
	static const struct replay_case wrap1[] = {
		{ 0, true }, { REPLAY_BITS_TOTAL, true }, { 2 * REPLAY_BITS_TOTAL + 1, true },
		{ 2 * REPLAY_BITS_TOTAL + 1 - REPLAY_BITS_PER_WORD, true },
	};
	static const struct replay_case wrap3[] = {
		{ 0, true }, { 1, true }, { 3 * REPLAY_BITS_TOTAL, true }, { 3 * REPLAY_BITS_TOTAL + 1, true },
	};
	/* REJECT_AFTER_MESSAGES and beyond are never accepted (WP §6.1) */
	static const struct replay_case limits[] = {
		{ LIMIT, false },	{ LIMIT + 1, false },	{ UINT64_MAX, false }, { UINT64_MAX - 1, false },
		{ LIMIT - 1, true },	{ LIMIT - 1, false },	{ LIMIT, false },      { LIMIT - 2, true },
		{ LIMIT - 1 - W, true }, { LIMIT - 2 - W, false }, { 0, false },
	};

	run_table("basic", basic, sizeof(basic) / sizeof(basic[0]));
	run_table("edges", edges, sizeof(edges) / sizeof(edges[0]));
	run_table("jumps", jumps, sizeof(jumps) / sizeof(jumps[0]));
	run_table("wrap1", wrap1, sizeof(wrap1) / sizeof(wrap1[0]));
	run_table("wrap3", wrap3, sizeof(wrap3) / sizeof(wrap3[0]));
	run_table("limits", limits, sizeof(limits) / sizeof(limits[0]));
	CHECK_EQ(REPLAY_WINDOW, REPLAY_BITS_TOTAL - sizeof(unsigned long) * 8);
	CHECK(REPLAY_WINDOW >= 8128);
}

/* In order, then every one again; then the window backwards from its top. */
static void test_sequences(void)
{
	struct replay_counter r;
	uint64_t i;
	unsigned long accepted = 0, rejected = 0;

	replay_counter_init(&r);
	for (i = 0; i < 3 * REPLAY_BITS_TOTAL; i++)
		accepted += replay_counter_validate(&r, i);
	for (i = 0; i < 3 * REPLAY_BITS_TOTAL; i++)
		rejected += !replay_counter_validate(&r, i);
	CHECK_EQ(accepted, 3 * REPLAY_BITS_TOTAL);
	CHECK_EQ(rejected, 3 * REPLAY_BITS_TOTAL);

	replay_counter_init(&r);
	accepted = 0;
	for (i = 0; i <= W + 10; i++)
		accepted += replay_counter_validate(&r, W + 10 - i);
	CHECK_EQ(accepted, W + 1);
}

/* ---- random sequences against a naive reference ---- */

#define SEEN_SLOTS (1u << 18)

struct naive {
	uint64_t *slots;	/* open addressing; stores counter + 1, 0 = empty */
	uint64_t greatest;
	bool any;
};

static bool naive_seen(const struct naive *nv, uint64_t c)
{
	uint64_t h = (c * 0x9e3779b97f4a7c15ULL) >> 46;
	uint32_t n;

	for (n = 0; n < SEEN_SLOTS; n++, h = (h + 1) & (SEEN_SLOTS - 1)) {
		if (!nv->slots[h])
			return false;
		if (nv->slots[h] == c + 1)
			return true;
	}
	return false;
}

static void naive_add(struct naive *nv, uint64_t c)
{
	uint64_t h = (c * 0x9e3779b97f4a7c15ULL) >> 46;

	while (nv->slots[h])
		h = (h + 1) & (SEEN_SLOTS - 1);
	nv->slots[h] = c + 1;
}

/* Accept iff below the limit, not more than W behind the greatest, and new. */
static bool naive_validate(struct naive *nv, uint64_t c)
{
	if (c >= LIMIT)
		return false;
	if (nv->any && c + W < nv->greatest)
		return false;
	if (naive_seen(nv, c))
		return false;
	naive_add(nv, c);
	if (!nv->any || c > nv->greatest)
		nv->greatest = c;
	nv->any = true;
	return true;
}

static void test_random(uint64_t seed)
{
	struct tu_rng rng;
	struct replay_counter r;
	struct naive nv = { 0 };
	uint64_t c, base, step;
	unsigned long round, i, mismatches = 0;

	nv.slots = calloc(SEEN_SLOTS, sizeof(uint64_t));
	CHECK(nv.slots != NULL);
	if (!nv.slots)
		return;
	tu_rng_seed(&rng, seed);
	for (round = 0; round < 4; round++) {
		replay_counter_init(&r);
		memset(nv.slots, 0, SEEN_SLOTS * sizeof(uint64_t));
		nv.any = false;
		nv.greatest = 0;
		/* start near 0 or near the limit */
		base = round == 3 ? LIMIT - 40000 : tu_rng_below(&rng, 1000);
		for (i = 0; i < 40000; i++) {
			step = tu_rng_below(&rng, 100);
			if (step < 70)	/* around the top of the window, both sides */
				c = base + tu_rng_below(&rng, W + 200) - (W + 100);
			else if (step < 97)	/* ahead a little */
				c = base + tu_rng_below(&rng, 300);
			else		/* a far jump */
				c = base + tu_rng_below(&rng, 4 * W);
			if (c > base && c - base < 2 * W)
				base = c;
			if (replay_counter_validate(&r, c) != naive_validate(&nv, c))
				mismatches++;
		}
	}
	tu_check(mismatches == 0, "replay vs naive reference: %lu mismatches (seed %llu)", mismatches,
		 (unsigned long long)seed);
	free(nv.slots);
}

int main(void)
{
	test_tables();
	test_sequences();
	test_random(tu_seed("core-replay", 0x7265706c6179ULL));
	return ct_exit("core-replay");
}
