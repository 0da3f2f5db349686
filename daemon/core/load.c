// SPDX-License-Identifier: GPL-2.0-only
/* The handshake backlog and the under-load decision (see load.h). */
#include <string.h>

#include "daemon/core/load.h"
#include "daemon/core/messages.h"

void load_init(struct load *l)
{
	memset(l, 0, sizeof(*l));
}

bool load_note_read(struct load *l, unsigned int queue, unsigned int handshakes, bool full,
		    uint64_t now)
{
	unsigned int *b;

	if (queue >= LOAD_QUEUES)
		return load_is_under(l, now);
	b = &l->backlog[queue];
	/* Saturate rather than wrap: a longer backlog changes nothing. */
	*b = handshakes > UNDER_LOAD_QUEUE_LEN - *b ? UNDER_LOAD_QUEUE_LEN : *b + handshakes;
	/*
	 * Only a read that brought handshake work renews the state: data
	 * that keeps the socket busy after a flood is no handshake backlog.
	 */
	if (handshakes && *b >= UNDER_LOAD_QUEUE_LEN)
		l->until = now + WG_SECONDS(UNDER_LOAD_AFTER_TIME);
	/* A short read drained the socket: the backlog is worked off. */
	if (!full)
		*b = 0;
	return load_is_under(l, now);
}

bool load_is_under(const struct load *l, uint64_t now)
{
	return now < l->until;
}
