// SPDX-License-Identifier: GPL-2.0-only
/*
 * When host-name endpoints are resolved again and when an answer is taken
 * (daemon/bringup/dnspolicy.h), with fake times: the staleness setting and its
 * bounds; the staleness of a handshake age, exactly at the limit; a name
 * queried at once when given, stale or not, one query out at a time;
 * failures retried with a doubling wait up to the interval; a fresh peer
 * never queried again, a stale one once per interval; the first answer
 * taken, later ones only for a stale peer and only when they differ (so a
 * peer that roamed and keeps handshaking stays where it roamed); and the
 * number of lookups in a day for a peer that never answers and for a name
 * that never resolves.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "daemon/bringup/dnspolicy.h"

#define S 1u		/* the policy counts whole seconds */

static unsigned int failures;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond); \
		failures++; \
	} \
} while (0)

static union config_endpoint v4(const char *a, uint16_t port)
{
	union config_endpoint e = { .in = { .sin_family = AF_INET, .sin_port = htons(port) } };

	inet_pton(AF_INET, a, &e.in.sin_addr);
	return e;
}

static union config_endpoint v6(const char *a, uint16_t port, uint32_t scope)
{
	union config_endpoint e = { .in6 = { .sin6_family = AF_INET6, .sin6_port = htons(port),
					     .sin6_scope_id = scope } };

	inet_pton(AF_INET6, a, &e.in6.sin6_addr);
	return e;
}

static void test_init(void)
{
	static const struct { const char *s; bool ok; uint32_t stale; uint32_t interval, retry; } t[] = {
		{ NULL, true, 135, 33 * S, 5 * S },
		{ "135", true, 135, 33 * S, 5 * S },
		{ "10", true, 10, 2 * S, 2 * S },
		{ "4", true, 4, 1 * S, 1 * S },
		{ "3", true, 3, 1 * S, 1 * S },
		{ "1", true, 1, 1 * S, 1 * S },
		{ "86400", true, 86400, 21600 * S, 5 * S },
		{ "86401", false, 135, 33 * S, 5 * S },
		{ "0", false, 135, 33 * S, 5 * S },
		{ "-5", false, 135, 33 * S, 5 * S },
		{ "", false, 135, 33 * S, 5 * S },
		{ "10s", false, 135, 33 * S, 5 * S },
		{ "abc", false, 135, 33 * S, 5 * S },
		{ "99999999999999999999", false, 135, 33 * S, 5 * S },
	};
	struct dnspolicy p;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		bool ok = dnspolicy_init(&p, t[i].s);

		CHECK(ok == t[i].ok);
		CHECK(p.stale_s == t[i].stale);
		CHECK(p.interval_s == t[i].interval);
		CHECK(p.retry_s == t[i].retry);
	}
}

static void test_stale(void)
{
	struct dnspolicy p;

	dnspolicy_init(&p, NULL);
	CHECK(dnspolicy_stale(&p, 0, 1700000000));		/* never */
	CHECK(!dnspolicy_stale(&p, 1700000000, 1700000000));
	CHECK(!dnspolicy_stale(&p, 1700000000, 1700000134));
	CHECK(dnspolicy_stale(&p, 1700000000, 1700000135));
	CHECK(dnspolicy_stale(&p, 1700000000, 1800000000));
	CHECK(!dnspolicy_stale(&p, 1700000100, 1700000000));	/* clock set back */
}

static void test_equal(void)
{
	union config_endpoint a = v4("192.0.2.2", 51820), none = { .addr.sa_family = AF_UNSPEC };
	union config_endpoint b;

	b = v4("192.0.2.2", 51820);
	CHECK(dnspolicy_endpoint_equal(&a, &b));
	b = v4("192.0.2.3", 51820);
	CHECK(!dnspolicy_endpoint_equal(&a, &b));
	b = v4("192.0.2.2", 51821);
	CHECK(!dnspolicy_endpoint_equal(&a, &b));
	CHECK(!dnspolicy_endpoint_equal(&a, &none));
	CHECK(dnspolicy_endpoint_equal(&none, &none));
	a = v6("fe80::1", 51820, 2);
	b = v6("fe80::1", 51820, 2);
	CHECK(dnspolicy_endpoint_equal(&a, &b));
	b = v6("fe80::1", 51820, 3);
	CHECK(!dnspolicy_endpoint_equal(&a, &b));
	b = v6("fe80::2", 51820, 2);
	CHECK(!dnspolicy_endpoint_equal(&a, &b));
	b = v4("192.0.2.2", 51820);
	CHECK(!dnspolicy_endpoint_equal(&a, &b));
}

/* A name as dnsnames_update gives it: nothing known, wanted now. */
static struct dnspolicy_name given(void)
{
	struct dnspolicy_name n = { .now = true };

	return n;
}

static void test_first(void)
{
	union config_endpoint a = v4("192.0.2.2", 51820), b = v4("192.0.2.12", 51820);
	union config_endpoint none = { .addr.sa_family = AF_UNSPEC };
	struct dnspolicy p;
	struct dnspolicy_name n = given();
	uint32_t t = 1000 * S;

	dnspolicy_init(&p, NULL);
	/* Due at once, fresh peer or not; one query out at a time. */
	CHECK(dnspolicy_due(&n, false, t));
	dnspolicy_sent(&n);
	CHECK(!dnspolicy_due(&n, true, t + 3600 * S));
	/* The first answer is taken, even for a peer that is not stale. */
	CHECK(dnspolicy_answered(&p, &n, false, &a, &none, t));
	/* A fresh peer is not asked about again, however long. */
	CHECK(!dnspolicy_due(&n, false, t + 86400 * S));
	/* A reload asks at once, stale or not, and takes only what a stale peer needs. */
	n.now = true;
	CHECK(dnspolicy_due(&n, false, t + 1));
	dnspolicy_sent(&n);
	CHECK(!dnspolicy_answered(&p, &n, false, &b, &a, t + 2));	/* roamed or not: kept */
	n.now = true;
	dnspolicy_sent(&n);
	CHECK(dnspolicy_answered(&p, &n, true, &b, &a, t + 3));	/* stale: moved */
	/* A reload that comes while the query is out waits for it, then asks again at once. */
	n.now = true;
	dnspolicy_sent(&n);
	n.now = true;
	CHECK(!dnspolicy_due(&n, true, t + 4));
	CHECK(!dnspolicy_answered(&p, &n, true, &b, &b, t + 5));	/* same: nothing to set */
	CHECK(dnspolicy_due(&n, false, t + 5));

	/* A changed Endpoint is a new name: its first answer equal to the current endpoint sets nothing. */
	n = given();
	dnspolicy_sent(&n);
	CHECK(!dnspolicy_answered(&p, &n, false, &a, &a, t));
}

static void test_failures(void)
{
	static const uint32_t waits[] = { 5, 10, 20, 33, 33, 33 };
	union config_endpoint a = v4("192.0.2.2", 51820), none = { .addr.sa_family = AF_UNSPEC };
	struct dnspolicy p;
	struct dnspolicy_name n = given();
	uint32_t t = 50 * S;
	size_t i;

	dnspolicy_init(&p, NULL);
	for (i = 0; i < sizeof(waits) / sizeof(waits[0]); i++) {
		CHECK(dnspolicy_due(&n, false, t));
		dnspolicy_sent(&n);
		dnspolicy_failed(&p, &n, t);
		CHECK(!dnspolicy_due(&n, true, t + waits[i] * S - 1));
		t += waits[i] * S;
	}
	/* It resolves at last: taken (first answer), and the wait starts over. */
	CHECK(dnspolicy_due(&n, false, t));
	dnspolicy_sent(&n);
	CHECK(dnspolicy_answered(&p, &n, false, &a, &none, t));
	CHECK(!dnspolicy_due(&n, true, t + 33 * S - 1));
	CHECK(dnspolicy_due(&n, true, t + 33 * S));
	dnspolicy_sent(&n);
	dnspolicy_failed(&p, &n, t + 33 * S);
	CHECK(!dnspolicy_due(&n, true, t + 38 * S - 1));
	CHECK(dnspolicy_due(&n, true, t + 38 * S));
}

/*
 * The whole cycle against a simulated peer, one tick (retry_s) at a time
 * for a day: how many lookups it makes, where the peer's endpoint ends up.
 * hs_every: the peer completes a handshake every so many seconds (0: never);
 * resolves: whether the name resolves; move_at: the second from which it
 * resolves to b instead of a; roam_at: the second at which authenticated
 * packets move the peer to r.
 */
struct sim {
	uint32_t hs_every, move_at, roam_at;
	bool resolves;
	unsigned int lookups;
	union config_endpoint ep;
};

static void simulate(struct sim *s, const char *stale_s, uint32_t seconds)
{
	union config_endpoint a = v4("192.0.2.2", 51820), b = v4("192.0.2.12", 51820);
	union config_endpoint r = v4("203.0.113.7", 40000);
	const int64_t wall0 = 1700000000;
	struct dnspolicy p;
	struct dnspolicy_name n = given();
	int64_t hs = 0;
	uint32_t t;

	dnspolicy_init(&p, stale_s);
	memset(&s->ep, 0, sizeof(s->ep));
	s->lookups = 0;
	for (t = 0; t <= seconds * S; t += p.retry_s) {
		uint32_t sec = t / S;
		bool stale;

		/* The first handshake one tick after the endpoint is known. */
		if (s->hs_every && s->ep.addr.sa_family && (!hs || sec % s->hs_every == 0))
			hs = wall0 + (int64_t)sec;
		if (s->roam_at && sec >= s->roam_at && sec < s->roam_at + p.retry_s / S)
			s->ep = r;
		stale = dnspolicy_stale(&p, hs, wall0 + (int64_t)sec);
		if (!dnspolicy_due(&n, stale, t))
			continue;
		dnspolicy_sent(&n);
		s->lookups++;
		if (!s->resolves)
			dnspolicy_failed(&p, &n, t);
		else if (dnspolicy_answered(&p, &n, stale, s->move_at && sec >= s->move_at ? &b : &a,
					    &s->ep, t))
			s->ep = s->move_at && sec >= s->move_at ? b : a;
	}
}

static void test_simulated(void)
{
	union config_endpoint a = v4("192.0.2.2", 51820), b = v4("192.0.2.12", 51820);
	union config_endpoint r = v4("203.0.113.7", 40000);
	struct sim s;

	/* A peer in use (handshakes every 2 minutes): one lookup in a day. */
	s = (struct sim){ .hs_every = 120, .resolves = true };
	simulate(&s, NULL, 86400);
	CHECK(s.lookups == 1);
	CHECK(dnspolicy_endpoint_equal(&s.ep, &a));
	/* A peer that never answers: one lookup per interval (33 s, seen at the next 5 s tick). */
	s = (struct sim){ .resolves = true };
	simulate(&s, NULL, 86400);
	CHECK(s.lookups == 86400 / 35 + 1);
	/* A name that never resolves: after 5, 10, 20 s, then every interval. */
	s = (struct sim){ .resolves = false };
	simulate(&s, NULL, 86400);
	CHECK(s.lookups == 3 + (86400 - 35) / 35 + 1);
	/* The name moves while the peer is in use: the peer stays until it goes silent ... */
	s = (struct sim){ .hs_every = 120, .resolves = true, .move_at = 1000 };
	simulate(&s, NULL, 86400);
	CHECK(s.lookups == 1);
	CHECK(dnspolicy_endpoint_equal(&s.ep, &a));
	/* ... and a peer that answers no more follows the name within staleness + interval. */
	s = (struct sim){ .resolves = true, .move_at = 1000 };
	simulate(&s, NULL, 1000 + 135 + 33);
	CHECK(dnspolicy_endpoint_equal(&s.ep, &b));
	/* A peer that roamed and keeps handshaking is never moved back, even when stale_s is short. */
	s = (struct sim){ .hs_every = 4, .resolves = true, .roam_at = 100 };
	simulate(&s, "10", 86400);
	CHECK(dnspolicy_endpoint_equal(&s.ep, &r));
	/* One that roamed and then went silent is pointed back where the name says. */
	s = (struct sim){ .resolves = true, .roam_at = 100 };
	simulate(&s, "10", 200);
	CHECK(dnspolicy_endpoint_equal(&s.ep, &a));
}

int main(void)
{
	test_init();
	test_stale();
	test_equal();
	test_first();
	test_failures();
	test_simulated();
	if (failures) {
		fprintf(stderr, "%u checks failed\n", failures);
		return 1;
	}
	printf("dnspolicy: all checks passed\n");
	return 0;
}
