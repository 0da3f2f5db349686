// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core's random source (daemon/core/random.h) is the only one it uses:
 * with fixed identities, a fixed timestamp and a seeded source, two runs
 * give the same initiation, response and cookie reply byte for byte, and a
 * different seed gives different ones; the ephemeral key and the sender
 * index are the source's first bytes.  A source that fails, at each draw in
 * turn, makes each operation fail with an error and leave nothing behind;
 * a source that repeats itself runs out of fresh indices, and says so.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/core/cookie.h"
#include "daemon/core/noise.h"
#include "daemon/core/random.h"
#include "daemon/core/ratelimiter.h"
#include "tests/core/coretest.h"

#define NOW WG_SECONDS(1000)

/* A seeded stream that fails from its fail_at-th fill on (never if negative). */
struct seeded {
	struct tu_rng rng;
	int fills;
	int fail_at;
	bool constant;		/* the same bytes every time */
};

static bool seeded_fill(void *ctx, void *buf, size_t len)
{
	struct seeded *s = ctx;

	if (s->fail_at >= 0 && s->fills >= s->fail_at) {
		memset(buf, 0xa5, len);		/* garbage the core must not use */
		return false;
	}
	s->fills++;
	if (s->constant)
		memset(buf, 0x5a, len);
	else
		tu_rng_fill(&s->rng, buf, len);
	return true;
}

static struct core_random source(struct seeded *s, uint64_t seed, int fail_at)
{
	memset(s, 0, sizeof(*s));
	tu_rng_seed(&s->rng, seed);
	s->fail_at = fail_at;
	return (struct core_random){ .fill = seeded_fill, .ctx = s };
}

struct dev {
	struct noise_local local;
	struct noise_remote remote;
	struct seeded src;
};

static struct noise_remote *lookup(void *ctx, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct dev *d = ctx;

	return memcmp(d->remote.public_key, public_key, NOISE_PUBLIC_KEY_LEN) ? NULL : &d->remote;
}

/* Two devices with fixed identities, each knowing the other, each with a seeded source. */
static void pair_init(struct dev *a, struct dev *b, uint64_t seed, int a_fail_at, int b_fail_at)
{
	uint8_t ka[32], kb[32];
	struct core_random ra, rb;

	memset(ka, 0x11, sizeof(ka));
	memset(kb, 0x22, sizeof(kb));
	noise_local_init(&a->local, lookup, a);
	noise_local_init(&b->local, lookup, b);
	ra = source(&a->src, seed, a_fail_at);
	rb = source(&b->src, seed ^ 0x5eed, b_fail_at);
	noise_local_set_random(&a->local, &ra);
	noise_local_set_random(&b->local, &rb);
	CHECK(noise_local_set_private(&a->local, ka) && noise_local_set_private(&b->local, kb));
	noise_remote_init(&a->remote, &a->local, b->local.public_key);
	noise_remote_init(&b->remote, &b->local, a->local.public_key);
}

static void pair_clear(struct dev *a, struct dev *b)
{
	noise_remote_clear(&a->remote);
	noise_remote_clear(&b->remote);
	noise_local_clear(&a->local);
	noise_local_clear(&b->local);
}

struct run {
	uint8_t m1[MESSAGE_INITIATION_LEN], m2[MESSAGE_RESPONSE_LEN], reply[MESSAGE_COOKIE_LEN];
	uint8_t send_key[NOISE_SYMMETRIC_KEY_LEN];
};

/* One handshake and one cookie reply with everything fixed but the seed. */
static void run(uint64_t seed, struct run *out)
{
	static const uint8_t src[18] = { 192, 0, 2, 1, 0x12, 0x34 };
	struct dev *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint8_t ts[NOISE_TIMESTAMP_LEN];
	struct noise_remote *r;

	if (!a || !b)
		exit(99);
	memset(out, 0, sizeof(*out));
	pair_init(a, b, seed, -1, -1);
	noise_tai64n(ts, WG_SECONDS(1700000000));
	CHECK_EQ(noise_create_initiation(&a->remote, out->m1, ts, NOW), NOISE_OK);
	CHECK_EQ(cookie_checker_validate(&b->local.cookie, out->m1, sizeof(out->m1), src, sizeof(src), true, NOW),
		 COOKIE_SEND_REPLY);
	CHECK(cookie_checker_create_reply(&b->local.cookie, out->reply, out->m1, sizeof(out->m1), src,
					  sizeof(src), NOW));
	CHECK_EQ(noise_consume_initiation(&b->local, out->m1, NOW, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&b->remote, out->m2, NOW), NOISE_OK);
	CHECK_EQ(noise_consume_response(&a->local, out->m2, NOW, &r), NOISE_OK);
	if (a->remote.current)
		memcpy(out->send_key, a->remote.current->send_key, sizeof(out->send_key));
	pair_clear(a, b);
	free(a);
	free(b);
}

static void test_reproducible(void)
{
	struct run x, y, z;
	struct seeded s;
	struct core_random rnd = source(&s, 42, -1);
	uint8_t priv[32], pub[32], index[4];

	run(42, &x);
	run(42, &y);
	run(43, &z);
	tu_check_mem(y.m1, x.m1, sizeof(x.m1), "same seed, same initiation");
	tu_check_mem(y.m2, x.m2, sizeof(x.m2), "same seed, same response");
	tu_check_mem(y.reply, x.reply, sizeof(x.reply), "same seed, same cookie reply");
	tu_check_mem(y.send_key, x.send_key, sizeof(x.send_key), "same seed, same session");
	CHECK(memcmp(z.m1 + MESSAGE_INITIATION_EPHEMERAL, x.m1 + MESSAGE_INITIATION_EPHEMERAL, 32) != 0);
	CHECK(memcmp(z.m1, x.m1, sizeof(x.m1)) != 0);
	CHECK(memcmp(z.m2, x.m2, sizeof(x.m2)) != 0);
	CHECK(memcmp(z.reply, x.reply, sizeof(x.reply)) != 0);

	/* the initiator's first draw is its ephemeral key, the second its index */
	CHECK(core_random_fill(&rnd, priv, sizeof(priv)) && core_random_fill(&rnd, index, sizeof(index)));
	x25519_clamp(priv);
	CHECK(x25519_public(pub, priv));
	tu_check_mem(x.m1 + MESSAGE_INITIATION_EPHEMERAL, pub, 32, "ephemeral from the source");
	tu_check_mem(x.m1 + MESSAGE_INITIATION_SENDER, index, 4, "sender index from the source");
	crypto_wipe(priv, sizeof(priv));
}

/* The initiator's source fails at its first draw (ephemeral), then its second (index). */
static void test_failing_initiator(void)
{
	static const uint8_t zero[MESSAGE_INITIATION_LEN];
	uint8_t m1[MESSAGE_INITIATION_LEN], ts[NOISE_TIMESTAMP_LEN];
	struct dev *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	int fail_at;

	if (!a || !b)
		exit(99);
	noise_tai64n(ts, WG_SECONDS(1700000000));
	for (fail_at = 0; fail_at < 2; fail_at++) {
		pair_init(a, b, 7, fail_at, -1);
		CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, NOW), NOISE_ERR_RANDOM);
		tu_check_mem(m1, zero, sizeof(m1), "fail_at %d: nothing to send", fail_at);
		CHECK_EQ(a->remote.handshake.state, NOISE_HANDSHAKE_ZEROED);
		CHECK(!a->remote.handshake.index.live);
		CHECK(crypto_is_zero(a->remote.handshake.ephemeral_private, NOISE_PUBLIC_KEY_LEN));
		CHECK(crypto_is_zero(a->remote.handshake.chaining_key, NOISE_HASH_LEN));
		/* back to the system's source: the handshake works */
		noise_local_set_random(&a->local, NULL);
		CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, NOW), NOISE_OK);
		pair_clear(a, b);
	}
	free(a);
	free(b);
}

/* The responder's source fails at its ephemeral, then at its index: no session. */
static void test_failing_responder(void)
{
	static const uint8_t zero[MESSAGE_RESPONSE_LEN];
	uint8_t m1[MESSAGE_INITIATION_LEN], m2[MESSAGE_RESPONSE_LEN], ts[NOISE_TIMESTAMP_LEN];
	struct dev *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct noise_remote *r;
	int fail_at;

	if (!a || !b)
		exit(99);
	noise_tai64n(ts, WG_SECONDS(1700000000));
	for (fail_at = 0; fail_at < 2; fail_at++) {
		pair_init(a, b, 8, -1, fail_at);
		CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, NOW), NOISE_OK);
		CHECK_EQ(noise_consume_initiation(&b->local, m1, NOW, &r), NOISE_OK);
		CHECK_EQ(noise_create_response(&b->remote, m2, NOW), NOISE_ERR_RANDOM);
		tu_check_mem(m2, zero, sizeof(m2), "fail_at %d: nothing to send", fail_at);
		CHECK(b->remote.next == NULL && b->remote.current == NULL);
		CHECK_EQ(b->remote.handshake.state, NOISE_HANDSHAKE_ZEROED);
		CHECK(!b->remote.handshake.index.live);
		CHECK(crypto_is_zero(b->remote.handshake.chaining_key, NOISE_HASH_LEN));
		pair_clear(a, b);
	}
	free(a);
	free(b);
}

/* No secret can be drawn, then no nonce: the checker reports it and sends nothing. */
static void test_failing_cookie(void)
{
	static const uint8_t src[18] = { 198, 51, 100, 7 };
	static const uint8_t zero[MESSAGE_COOKIE_LEN];
	uint8_t m1[MESSAGE_INITIATION_LEN], reply[MESSAGE_COOKIE_LEN], ts[NOISE_TIMESTAMP_LEN];
	struct dev *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct core_random rnd;
	struct seeded s;

	if (!a || !b)
		exit(99);
	pair_init(a, b, 9, -1, 0);
	noise_tai64n(ts, WG_SECONDS(1700000000));
	CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, NOW), NOISE_OK);
	CHECK_EQ(cookie_checker_validate(&b->local.cookie, m1, sizeof(m1), src, sizeof(src), true, NOW),
		 COOKIE_ERR_RANDOM);
	CHECK(!b->local.cookie.has_secret && crypto_is_zero(b->local.cookie.secret, NOISE_HASH_LEN));
	memset(reply, 0xff, sizeof(reply));
	CHECK(!cookie_checker_create_reply(&b->local.cookie, reply, m1, sizeof(m1), src, sizeof(src), NOW));
	tu_check_mem(reply, zero, sizeof(reply), "no cookie reply without a nonce");
	/* not under load the source is not needed */
	CHECK_EQ(cookie_checker_validate(&b->local.cookie, m1, sizeof(m1), src, sizeof(src), false, NOW),
		 COOKIE_PROCEED);

	/* the secret drawn, then the nonce fails */
	rnd = source(&s, 10, 1);
	cookie_checker_set_random(&b->local.cookie, &rnd);
	CHECK_EQ(cookie_checker_validate(&b->local.cookie, m1, sizeof(m1), src, sizeof(src), true, NOW),
		 COOKIE_SEND_REPLY);
	CHECK(!cookie_checker_create_reply(&b->local.cookie, reply, m1, sizeof(m1), src, sizeof(src), NOW));
	tu_check_mem(reply, zero, sizeof(reply), "no cookie reply without a nonce");
	pair_clear(a, b);
	free(a);
	free(b);
}

/* A source that repeats itself cannot give a second live index: NOISE_ERR_INDEX, not a duplicate. */
static void test_repeating_source(void)
{
	uint8_t m1[MESSAGE_INITIATION_LEN], ts[NOISE_TIMESTAMP_LEN], other[32];
	struct dev *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct noise_remote *second = calloc(1, sizeof(*second));

	if (!a || !b || !second)
		exit(99);
	pair_init(a, b, 11, -1, -1);
	a->src.constant = true;
	memset(other, 0x33, sizeof(other));
	CHECK(x25519_public(other, other));
	noise_remote_init(second, &a->local, other);
	noise_tai64n(ts, WG_SECONDS(1700000000));
	CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, NOW), NOISE_OK);
	CHECK_EQ(noise_create_initiation(second, m1, ts, NOW), NOISE_ERR_INDEX);
	CHECK(!second->handshake.index.live && second->handshake.state == NOISE_HANDSHAKE_ZEROED);
	CHECK(noise_remote_by_index(&a->local, a->remote.handshake.index.id) == &a->remote);
	noise_remote_clear(second);
	free(second);
	pair_clear(a, b);
	free(a);
	free(b);
}

static void test_ratelimiter(void)
{
	struct ratelimiter *rl = malloc(sizeof(*rl));
	uint8_t want[16];
	struct core_random rnd, check;
	struct seeded s, t;

	if (!rl)
		exit(99);
	rnd = source(&s, 12, -1);
	check = source(&t, 12, -1);
	CHECK(ratelimiter_init_with(rl, &rnd));
	CHECK(core_random_fill(&check, want, sizeof(want)));
	tu_check_mem(rl->hash_key, want, sizeof(want), "hash key from the source");
	rnd = source(&s, 12, 0);
	CHECK(!ratelimiter_init_with(rl, &rnd));
	CHECK(crypto_is_zero(rl->hash_key, sizeof(rl->hash_key)));
	ratelimiter_clear(rl);
	free(rl);
}

int main(void)
{
	if (!x25519_init())
		return 99;
	test_reproducible();
	test_failing_initiator();
	test_failing_responder();
	test_failing_cookie();
	test_repeating_source();
	test_ratelimiter();
	return ct_exit("core-random");
}
