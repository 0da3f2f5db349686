// SPDX-License-Identifier: GPL-2.0-only
/*
 * RFC 6479 replay window: a ring of words indexed by counter / word bits,
 * cleared word by word as the greatest counter advances (no shifting).
 */
#include <string.h>

#include "daemon/core/messages.h"
#include "daemon/core/replay.h"

void replay_counter_init(struct replay_counter *r)
{
	memset(r, 0, sizeof(*r));
}

/*
 * Internally counters are shifted by one (c = counter + 1) so that
 * r->next == 0 means "nothing accepted yet" without a separate flag: bit c
 * of the ring stands for counter c - 1.
 */
bool replay_counter_validate(struct replay_counter *r, uint64_t counter)
{
	uint64_t c, word, top_word, i, steps;
	unsigned long bit;

	if (counter >= REJECT_AFTER_MESSAGES)
		return false;
	c = counter + 1;	/* cannot overflow: counter < 2^64 - 2^13 - 1 */
	/* Older than the window: its bit may already stand for a newer counter. */
	if (c + REPLAY_WINDOW < r->next)
		return false;

	word = c / REPLAY_BITS_PER_WORD;
	if (c > r->next) {
		/*
		 * Advance: clear the words strictly after the old top word up
		 * to and including the new one; at most the whole ring.
		 */
		top_word = r->next / REPLAY_BITS_PER_WORD;
		steps = word - top_word;
		if (steps > REPLAY_WORDS)
			steps = REPLAY_WORDS;
		for (i = 1; i <= steps; i++)
			r->ring[(top_word + i) % REPLAY_WORDS] = 0;
		r->next = c;
	}
	bit = 1UL << (c % REPLAY_BITS_PER_WORD);
	word %= REPLAY_WORDS;
	if (r->ring[word] & bit)
		return false;
	r->ring[word] |= bit;
	return true;
}
