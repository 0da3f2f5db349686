/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When to resolve a peer's Endpoint host name again, and whether to take
 * the answer (daemon/bringup/dnsnames.c does the resolving).  Pure: times are
 * passed in (whole seconds: nothing here needs more, and 32-bit
 * arithmetic is what a router's CPU does best), nothing is read, logged or
 * allocated.
 *
 * A peer is stale when it has completed no handshake for stale_s seconds,
 * or never.  135 s by default: a session in use is renewed after
 * Rekey-After-Time (120 s, WP §6.1), allowing three Rekey-Timeouts (5 s
 * each) of retries, so that a peer in use is not stale.
 *
 * A name is queried at once when given (start, reload: stale or not, one
 * query out at a time), and again while its peer is stale; at most once
 * per interval (stale_s / 4, at least 1 s: 33 s by default, so that a peer
 * that never answers costs two lookups a minute).  A failed query is
 * retried after retry (5 s, or the interval if shorter), doubled at each
 * failure in a row up to the interval.  The loop checks every tick (the
 * retry time), so a query comes up to a tick after it is due.
 *
 * An answer becomes the peer's endpoint when it differs from the endpoint
 * the peer has and either it is the name's first answer since the name was
 * given, or the peer is stale.  So roaming wins: a peer whose authenticated
 * packets moved it keeps handshaking and is never moved back, while one
 * that has gone silent is pointed where the name now says.
 */
#ifndef WGD_DNSPOLICY_H
#define WGD_DNSPOLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/config/config.h"

#define DNSPOLICY_STALE_S 135
#define DNSPOLICY_STALE_MAX_S 86400

struct dnspolicy {
	uint32_t stale_s;
	uint32_t interval_s;
	uint32_t retry_s;	/* also the tick */
};

/* One name's state.  Zeroed: never queried, due at once. */
struct dnspolicy_name {
	uint32_t next_s;	/* no query before (the caller's clock) */
	bool answered;		/* an answer was taken since the name was given */
	bool now;		/* query when no other is out (start, reload) */
	bool pending;		/* a query is out */
	uint8_t fails;		/* failures in a row, while the wait doubles */
};

/* stale_s from a decimal string (WGD_RERESOLVE_SECONDS), 1..DNSPOLICY_STALE_MAX_S;
 * NULL gives the default.  false (and the default) if s is not valid. */
bool dnspolicy_init(struct dnspolicy *p, const char *s);

bool dnspolicy_stale(const struct dnspolicy *p, int64_t handshake_sec, int64_t now_sec);

/* Whether to query the name now; stale tells about its peer. */
bool dnspolicy_due(const struct dnspolicy_name *n, bool stale, uint32_t now);
/* The query was handed out. */
void dnspolicy_sent(struct dnspolicy_name *n);
/* It failed. */
void dnspolicy_failed(const struct dnspolicy *p, struct dnspolicy_name *n, uint32_t now);
/* It answered: whether to set the answer as the peer's endpoint (current:
 * the peer's now, sa_family AF_UNSPEC if none). */
bool dnspolicy_answered(const struct dnspolicy *p, struct dnspolicy_name *n, bool stale,
			const union config_endpoint *answer, const union config_endpoint *current,
			uint32_t now);

bool dnspolicy_endpoint_equal(const union config_endpoint *a, const union config_endpoint *b);

#endif
