// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/bringup/dnspolicy.h"

#include <stdlib.h>
#include <string.h>

#include "daemon/datapath/endpoint.h"

#define DNSPOLICY_RETRY_S 5

bool dnspolicy_init(struct dnspolicy *p, const char *s)
{
	unsigned long v = DNSPOLICY_STALE_S;
	bool ok = true;
	char *end;

	if (s) {
		v = strtoul(s, &end, 10);
		if (end == s || *end || *s == '-' || v < 1 || v > DNSPOLICY_STALE_MAX_S) {
			v = DNSPOLICY_STALE_S;
			ok = false;
		}
	}
	p->stale_s = (uint32_t)v;
	p->interval_s = v >= 4 ? p->stale_s / 4 : 1;
	p->retry_s = p->interval_s < DNSPOLICY_RETRY_S ? p->interval_s : DNSPOLICY_RETRY_S;
	return ok;
}

bool dnspolicy_stale(const struct dnspolicy *p, int64_t handshake_sec, int64_t now_sec)
{
	/* A handshake "in the future" (the wall clock was set back) is fresh. */
	return handshake_sec == 0 || now_sec - handshake_sec >= (int64_t)p->stale_s;
}

bool dnspolicy_due(const struct dnspolicy_name *n, bool stale, uint32_t now)
{
	if (n->pending)
		return false;
	return n->now || (now >= n->next_s && (!n->answered || stale));
}

void dnspolicy_sent(struct dnspolicy_name *n)
{
	n->pending = true;
	n->now = false;
}

void dnspolicy_failed(const struct dnspolicy *p, struct dnspolicy_name *n, uint32_t now)
{
	uint32_t wait = p->retry_s << n->fails;

	n->pending = false;
	if (wait >= p->interval_s)
		wait = p->interval_s;
	else
		n->fails++;
	n->next_s = now + wait;
}

bool dnspolicy_answered(const struct dnspolicy *p, struct dnspolicy_name *n, bool stale,
			const union config_endpoint *answer, const union config_endpoint *current,
			uint32_t now)
{
	bool first = !n->answered;

	n->pending = false;
	n->answered = true;
	n->fails = 0;
	n->next_s = now + p->interval_s;
	return (first || stale) && !dnspolicy_endpoint_equal(answer, current);
}

_Static_assert(sizeof(union config_endpoint) == sizeof(union udp_addr), "one address shape");

/* The data path's comparison (address, port, IPv6 scope), on the model's type. */
bool dnspolicy_endpoint_equal(const union config_endpoint *a, const union config_endpoint *b)
{
	struct endpoint x, y;

	memcpy(&x.addr, a, sizeof(x.addr));
	memcpy(&y.addr, b, sizeof(y.addr));
	return endpoint_addr_equal(&x, &y);
}
