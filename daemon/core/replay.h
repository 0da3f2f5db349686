/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The receive-counter replay window of a keypair (WP §5.4.6; RFC 6479).
 *
 * A ring of REPLAY_BITS_TOTAL = 8192 bits in words of unsigned long, plus
 * the greatest counter accepted so far.  Moving the window forward clears
 * whole words instead of shifting, so the cost is bounded by the ring size
 * however far the counter jumps.  Because the word that holds the newest
 * counter may be shared with the oldest bits of the ring, only
 *   REPLAY_WINDOW = 8192 - bits per long  (8128 on 64-bit, 8160 on 32-bit)
 * counters behind the greatest are guaranteed to be remembered; anything
 * older is rejected.  The size is wgd's policy, the value the Linux kernel
 * uses (doc/protocol.md §6), and not visible on the wire.
 *
 * Invariants: counters >= REJECT_AFTER_MESSAGES are always rejected; a
 * counter is accepted at most once; replay_counter_validate() must be
 * called only after the packet authenticated (an unauthenticated counter
 * must never move the window).  Pure: no allocation, no clock.
 */
#ifndef WGD_DAEMON_CORE_REPLAY_H
#define WGD_DAEMON_CORE_REPLAY_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#define REPLAY_BITS_TOTAL	8192
#define REPLAY_BITS_PER_WORD	((unsigned int)(sizeof(unsigned long) * CHAR_BIT))
#define REPLAY_WORDS		(REPLAY_BITS_TOTAL / REPLAY_BITS_PER_WORD)
#define REPLAY_WINDOW		(REPLAY_BITS_TOTAL - REPLAY_BITS_PER_WORD)

struct replay_counter {
	/* greatest accepted counter + 1; 0 while nothing was accepted */
	uint64_t next;
	unsigned long ring[REPLAY_WORDS];
};

/* Empty window: every counter below REJECT_AFTER_MESSAGES is acceptable. */
void replay_counter_init(struct replay_counter *r);

/*
 * Test-and-set: true if `counter` is new (not seen, not older than the
 * window, below REJECT_AFTER_MESSAGES) and marks it seen; false otherwise,
 * leaving the window unchanged.
 */
bool replay_counter_validate(struct replay_counter *r, uint64_t counter);

/* The greatest accepted counter + 1 (0 if none): for the receive-side limit. */
static inline uint64_t replay_counter_next(const struct replay_counter *r)
{
	return r->next;
}

#endif
