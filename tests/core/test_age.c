// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one age rule (wg_age_reached(), daemon/core/messages.h): a table of
 * births and nows around the limit, including a now before the birth; then
 * each use in the core at a now before the birth, which must take the safe
 * reading: keys and cookies expired, rekeys due, the initiation spacing met.
 * Also the core's 64-bit division by small constants (wg_divmod_small(),
 * wg_ns_to_sec()) against the compiler's own, at the edges and at random.
 */
#include <string.h>

#include "crypto/util.h"
#include "daemon/core/cookie.h"
#include "daemon/core/timers.h"
#include "tests/core/coretest.h"

#define S(x) WG_SECONDS(x)

static void test_table(void)
{
	static const struct {
		uint64_t birth, now, limit;
		bool reached;
	} cases[] = {
		{ 1000, 999, 10, true },		/* now < birth: unknown age, reached */
		{ 1000, 0, 10, true },
		{ UINT64_MAX, 0, UINT64_MAX, true },
		{ 1000, 1000, 10, false },		/* equal: age 0 */
		{ 1000, 1000, 0, true },		/* a zero limit is reached at once */
		{ 1000, 1009, 10, false },		/* limit - 1 */
		{ 1000, 1010, 10, true },		/* limit */
		{ 1000, 1011, 10, true },
		{ 0, UINT64_MAX, UINT64_MAX, true },	/* the largest age */
		{ 1, UINT64_MAX, UINT64_MAX, false },
		{ S(5), S(5) + S(180) - 1, S(180), false },
		{ S(5), S(5) + S(180), S(180), true },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tu_check(wg_age_reached(cases[i].birth, cases[i].now, cases[i].limit) == cases[i].reached,
			 "case %zu: birth %llu now %llu limit %llu: want %s", i,
			 (unsigned long long)cases[i].birth, (unsigned long long)cases[i].now,
			 (unsigned long long)cases[i].limit, cases[i].reached ? "reached" : "not reached");
}

/* A keypair born after `now` can neither send nor receive (WP §6.1 Reject-After-Time). */
static void test_keypair_from_the_future(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t buf[64];
	struct noise_remote *r;
	enum noise_result res;
	uint64_t born;
	size_t n;

	CHECK(ct_handshake(p, &p->a));
	born = p->now;
	n = ct_seal(p, &p->a, buf, (const uint8_t *)"0123456789abcdef", 16, &res);
	CHECK_EQ(res, NOISE_OK);
	CHECK_EQ(noise_open(&p->b.local, buf, n, born - 1, &r), NOISE_DROP_EXPIRED);
	CHECK_EQ(noise_seal(&p->a.remote, buf, 16, born - 1), NOISE_ERR_NO_KEYPAIR);
	CHECK_EQ(noise_seal(&p->a.remote, buf, 16, born), NOISE_OK);
	ct_pair_free(p);
}

/* The rekey rules (WP §6.2) fire for a session of unknown age. */
static void test_rekey_from_the_future(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct timers t;
	uint64_t born;

	timers_init(&t);
	CHECK(ct_handshake(p, &p->a));
	born = p->now;
	CHECK(!timers_rekey_on_send(&p->a.remote, born));
	CHECK(timers_rekey_on_send(&p->a.remote, born - 1));
	CHECK(!timers_rekey_on_receive(&t, &p->a.remote, born));
	CHECK(timers_rekey_on_receive(&t, &p->a.remote, born - 1));
	/* still once per session */
	CHECK(!timers_rekey_on_receive(&t, &p->a.remote, born - 1));
	ct_pair_free(p);
}

/*
 * The initiation spacing (WP §5.1, 1/50 s): after a backward jump one
 * initiation passes and the spacing then holds from the new time.
 */
static void test_initiation_spacing_from_the_future(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[MESSAGE_INITIATION_LEN], ts[NOISE_TIMESTAMP_LEN];
	struct noise_remote *r;
	uint64_t t0 = p->now;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, t0), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, t0, &r), NOISE_OK);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, t0), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, t0 - S(1), &r), NOISE_OK);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, t0), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, t0 - S(1), &r), NOISE_DROP_FLOOD);
	ct_pair_free(p);
}

/*
 * A cookie secret drawn after `now` is redrawn (WP §5.4.7), and a cookie
 * received after `now` is not used for mac2.
 */
static void test_cookies_from_the_future(void)
{
	static const uint8_t zero[COOKIE_LEN];
	struct ct_pair *p = ct_pair_new(NULL);
	struct cookie_checker *c = &p->b.local.cookie;
	uint8_t m1[MESSAGE_INITIATION_LEN], ts[NOISE_TIMESTAMP_LEN], reply[MESSAGE_COOKIE_LEN];
	uint8_t first[NOISE_HASH_LEN];
	uint64_t t0 = p->now;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, t0), NOISE_OK);
	CHECK_EQ(cookie_checker_validate(c, m1, sizeof(m1), p->a.src, sizeof(p->a.src), true, t0),
		 COOKIE_SEND_REPLY);
	CHECK(c->has_secret && c->secret_birth == t0);
	memcpy(first, c->secret, sizeof(first));
	CHECK(cookie_checker_create_reply(c, reply, m1, sizeof(m1), p->a.src, sizeof(p->a.src), t0));
	CHECK(c->secret_birth == t0);
	CHECK_EQ(cookie_maker_consume_reply(&p->a.remote.cookie, reply, t0), COOKIE_REPLY_OK);

	/* the maker uses its cookie at t0, not before */
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, t0), NOISE_OK);
	CHECK(memcmp(m1 + MESSAGE_INITIATION_MAC2, zero, COOKIE_LEN) != 0);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, t0 - 1), NOISE_OK);
	tu_check_mem(m1 + MESSAGE_INITIATION_MAC2, zero, COOKIE_LEN, "no mac2 from a cookie of unknown age");

	/* the checker redraws a secret of unknown age */
	CHECK_EQ(cookie_checker_validate(c, m1, sizeof(m1), p->a.src, sizeof(p->a.src), true, t0 - 1),
		 COOKIE_SEND_REPLY);
	CHECK(c->secret_birth == t0 - 1);
	CHECK(memcmp(first, c->secret, sizeof(first)) != 0);
	crypto_wipe(first, sizeof(first));
	ct_pair_free(p);
}

static void check_divmod(uint64_t n, uint32_t d)
{
	uint32_t rem = UINT32_MAX;
	uint64_t q = wg_divmod_small(n, d, &rem);

	tu_check(q == n / d && rem == n % d, "wg_divmod_small(%llu, %u) = %llu rem %u", (unsigned long long)n, d,
		 (unsigned long long)q, rem);
	rem = UINT32_MAX;
	q = wg_ns_to_sec(n, &rem);
	tu_check(q == n / WG_NSEC_PER_SEC && rem == n % WG_NSEC_PER_SEC, "wg_ns_to_sec(%llu) = %llu rem %u",
		 (unsigned long long)n, (unsigned long long)q, rem);
}

static void test_divmod(void)
{
	/* 1953125: 10^9 / 2^9; 2609375: the timer jitter's 334 ms / 2^7; the largest allowed */
	static const uint32_t divisors[] = { 1, 3, 1000, 1953125, 2609375, (1u << 22) - 1 };
	static const uint64_t edges[] = { 0, 1, 1023, 1024, 999999999, WG_NSEC_PER_SEC, 0xffffffffull,
					  0x100000000ull, 1ull << 54, (1ull << 60) - 1, UINT64_MAX - 1, UINT64_MAX };
	struct tu_rng rng;
	size_t i, j;
	uint64_t n;

	tu_rng_seed(&rng, 11);
	for (i = 0; i < sizeof(divisors) / sizeof(divisors[0]); i++) {
		for (j = 0; j < sizeof(edges) / sizeof(edges[0]); j++) {
			check_divmod(edges[j], divisors[i]);
			check_divmod(edges[j] - (edges[j] ? 1 : 0) + divisors[i], divisors[i]);
		}
		for (j = 0; j < 2000; j++) {
			n = tu_rng_next(&rng) >> tu_rng_below(&rng, 64);
			check_divmod(n, divisors[i]);
		}
	}
}

int main(void)
{
	test_divmod();
	test_table();
	test_keypair_from_the_future();
	test_rekey_from_the_future();
	test_initiation_spacing_from_the_future();
	test_cookies_from_the_future();
	return ct_exit("core-age");
}
