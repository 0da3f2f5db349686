// SPDX-License-Identifier: GPL-2.0-only
/* The timers' actions (see expiry.h; the rules are WP §6, timers.h). */
#include "daemon/datapath/expiry.h"

#include "daemon/base/log.h"
#include "daemon/datapath/send.h"

/* What is due for one peer at now; returns its next deadline. */
static uint64_t expiry_peer(struct peer *p, uint64_t now)
{
	uint64_t next;
	unsigned int act;

	if (timers_next_deadline(&p->timers) > now)
		return timers_next_deadline(&p->timers);
	act = timers_expire(&p->timers, now, &next);
	if (act & TIMERS_GIVE_UP) {
		log_packet(LOG_LEVEL_VERBOSE, "handshake did not complete after %u attempts, giving up",
			   MAX_TIMER_HANDSHAKES + 2);
		peer_drop_staged(p);
	}
	if (act & TIMERS_ZERO_KEYS) {
		log_packet(LOG_LEVEL_DEBUG, "zeroing keys of an idle session");
		noise_remote_clear_keys(&p->remote);
	}
	if (act & TIMERS_CLEAR_SRC)
		endpoint_clear_src(&p->endpoint);
	if (act & TIMERS_SEND_INITIATION)
		send_initiation(p, now);
	if (act & TIMERS_SEND_KEEPALIVE)
		send_keepalive(p, now);
	return timers_next_deadline(&p->timers);
}

uint64_t expiry_run(struct device *d, uint64_t now)
{
	uint64_t next = UINT64_MAX, n;
	struct peer *p;

	for (p = d->peers; p; p = p->next) {
		n = expiry_peer(p, now);
		if (n < next)
			next = n;
	}
	return next;
}
