// SPDX-License-Identifier: GPL-2.0-only
/*
 * mac1, mac2 and cookie replies (WP §5.3, §5.4.7, §6.6): the round trip
 * under load for an initiation and for a response, the have_sent_mac1 rule,
 * the cookie's age limit on the sender, the secret's rotation on the
 * receiver, every byte of a cookie reply flipped, and the outcome table.
 */
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/util.h"
#include "tests/core/coretest.h"

static const uint8_t zero16[16];

/* What the shell does with a cookie reply: find the peer by index, hand it over. */
static enum cookie_reply_result deliver_reply(struct ct_peer *to, const uint8_t *reply, uint64_t now,
					      bool *found)
{
	struct noise_remote *r;

	*found = false;
	if (message_classify(reply, MESSAGE_COOKIE_LEN) != MESSAGE_HANDSHAKE_COOKIE)
		return COOKIE_REPLY_DROP_BAD_TAG;
	r = noise_remote_by_index(&to->local, le32_load(reply + MESSAGE_COOKIE_RECEIVER));
	if (!r)
		return COOKIE_REPLY_DROP_BAD_TAG;
	*found = true;
	return cookie_maker_consume_reply(&r->cookie, reply, now);
}

static void test_outcomes(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct cookie_checker *ck = &p->b.local.cookie;
	uint8_t m1[148], ts[12];

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, false, p->now), COOKIE_PROCEED);
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, true, p->now), COOKIE_SEND_REPLY);
	CHECK_EQ(cookie_checker_validate(ck, m1, 147, p->a.src, 18, false, p->now), COOKIE_DROP_BAD_MAC1);
	CHECK_EQ(cookie_checker_validate(ck, m1, 92, p->a.src, 18, false, p->now), COOKIE_DROP_BAD_MAC1);
	m1[MESSAGE_INITIATION_MAC1] ^= 1;
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, false, p->now), COOKIE_DROP_BAD_MAC1);
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, true, p->now), COOKIE_DROP_BAD_MAC1);
	/* a message for someone else's key */
	m1[MESSAGE_INITIATION_MAC1] ^= 1;
	CHECK_EQ(cookie_checker_validate(&p->a.local.cookie, m1, 148, p->b.src, 18, false, p->now),
		 COOKIE_DROP_BAD_MAC1);
	ct_pair_free(p);
}

/*
 * Under load: initiation with a valid mac1 and no mac2 -> cookie reply ->
 * consumed -> the retransmitted initiation carries a valid mac2 -> processed.
 */
static void test_round_trip_initiation(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], ts[12], reply[64], reply2[64];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	bool found;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	tu_check_mem(m1 + MESSAGE_INITIATION_MAC2, zero16, 16, "no cookie: mac2 is zero");
	CHECK(ct_receive_initiation(p, &p->b, m1, 148, true, &verdict, &r) != NOISE_OK);
	CHECK_EQ(verdict, COOKIE_SEND_REPLY);
	CHECK(cookie_checker_create_reply(&p->b.local.cookie, reply, m1, 148, p->a.src, 18, p->now));
	CHECK_EQ(message_classify(reply, 64), MESSAGE_HANDSHAKE_COOKIE);
	CHECK_EQ(le32_load(reply + MESSAGE_COOKIE_RECEIVER), le32_load(m1 + MESSAGE_INITIATION_SENDER));
	/* no amplification: the reply is smaller than what provoked it */
	CHECK(MESSAGE_COOKIE_LEN < MESSAGE_RESPONSE_LEN && MESSAGE_RESPONSE_LEN < MESSAGE_INITIATION_LEN);
	memcpy(reply2, reply, 64);

	p->now += WG_SECONDS(1);
	CHECK_EQ(deliver_reply(&p->a, reply, p->now, &found), COOKIE_REPLY_OK);
	CHECK(found);
	/* a second copy: no mac1 was sent since (have_sent_mac1) */
	CHECK_EQ(deliver_reply(&p->a, reply2, p->now, &found), COOKIE_REPLY_DROP_UNEXPECTED);

	/* the retransmission (new ephemeral, new timestamp) now carries mac2 */
	p->now += WG_SECONDS(REKEY_TIMEOUT);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK(!crypto_equal(m1 + MESSAGE_INITIATION_MAC2, zero16, 16));
	CHECK_EQ(ct_receive_initiation(p, &p->b, m1, 148, true, &verdict, &r), NOISE_OK);
	CHECK_EQ(verdict, COOKIE_PROCEED_RATELIMITED);
	CHECK(r == &p->b.remote);
	/* mac2 is bound to the source address: from elsewhere it is not valid */
	CHECK_EQ(cookie_checker_validate(&p->b.local.cookie, m1, 148, p->b.src, 18, true, p->now),
		 COOKIE_SEND_REPLY);

	/* the handshake completes; the response too may be asked for a cookie (next test) */
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK_EQ(ct_receive_response(p, &p->a, m2, 92, false, &verdict, &r), NOISE_OK);
	ct_pair_free(p);
}

/*
 * The initiator is under load when the response arrives: it answers with a
 * cookie reply addressed to the responder's sender index, which by then
 * belongs to the responder's `next` keypair; the responder must find it.
 */
static void test_round_trip_response(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], ts[12], reply[64];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	bool found;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(ct_receive_initiation(p, &p->b, m1, 148, false, &verdict, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK(ct_receive_response(p, &p->a, m2, 92, true, &verdict, &r) != NOISE_OK);
	CHECK_EQ(verdict, COOKIE_SEND_REPLY);
	CHECK(cookie_checker_create_reply(&p->a.local.cookie, reply, m2, 92, p->b.src, 18, p->now));
	CHECK_EQ(deliver_reply(&p->b, reply, p->now, &found), COOKIE_REPLY_OK);
	CHECK(found);
	CHECK(p->b.remote.cookie.has_cookie);
	/* b's next response to a (after a new initiation) carries a valid mac2 */
	p->now += WG_SECONDS(1);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(ct_receive_initiation(p, &p->b, m1, 148, false, &verdict, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK_EQ(ct_receive_response(p, &p->a, m2, 92, true, &verdict, &r), NOISE_OK);
	CHECK_EQ(verdict, COOKIE_PROCEED_RATELIMITED);
	ct_pair_free(p);
}

/* Cookie replies authenticate with the mac1 we sent: every byte matters. */
static void test_flip_reply(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], ts[12], reply[64], bad[64];
	enum cookie_reply_result res;
	bool found;
	size_t i;
	unsigned int mask;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK(cookie_checker_create_reply(&p->b.local.cookie, reply, m1, 148, p->a.src, 18, p->now));
	for (i = 0; i < sizeof(reply); i++) {
		for (mask = 1; mask <= 0x80; mask <<= 1) {
			memcpy(bad, reply, sizeof(bad));
			bad[i] ^= (uint8_t)mask;
			res = deliver_reply(&p->a, bad, p->now, &found);
			tu_check(res != COOKIE_REPLY_OK, "cookie reply byte %zu ^ %#x accepted", i, mask);
		}
	}
	CHECK(!p->a.remote.cookie.has_cookie);
	/* the genuine one still works after all the failures */
	CHECK_EQ(deliver_reply(&p->a, reply, p->now, &found), COOKIE_REPLY_OK);

	/* a reply to an older initiation (other mac1) does not authenticate */
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK(cookie_checker_create_reply(&p->b.local.cookie, reply, m1, 148, p->a.src, 18, p->now));
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	le32_store(reply + MESSAGE_COOKIE_RECEIVER, le32_load(m1 + MESSAGE_INITIATION_SENDER));
	CHECK_EQ(deliver_reply(&p->a, reply, p->now, &found), COOKIE_REPLY_DROP_BAD_TAG);
	ct_pair_free(p);
}

/*
 * The sender uses a cookie only while it is younger than 120 - 5 s; the
 * receiver's secret is redrawn every 120 s, so an old cookie stops working
 * and a new reply gives a working one.
 */
static void test_rotation(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct cookie_checker *ck = &p->b.local.cookie;
	uint8_t m1[148], ts[12], reply[64], secret[32];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	uint64_t t0;
	bool found;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	t0 = p->now;
	CHECK(cookie_checker_create_reply(ck, reply, m1, 148, p->a.src, 18, t0));
	memcpy(secret, ck->secret, 32);
	CHECK_EQ(deliver_reply(&p->a, reply, t0, &found), COOKIE_REPLY_OK);

	/* sender side: 115 s is the limit */
	memset(m1 + MESSAGE_INITIATION_MAC2, 0, 16);
	cookie_maker_add_macs(&p->a.remote.cookie, m1, 148, t0 + WG_SECONDS(115) - 1);
	CHECK(!crypto_equal(m1 + MESSAGE_INITIATION_MAC2, zero16, 16));
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, true, t0 + WG_SECONDS(115) - 1),
		 COOKIE_PROCEED_RATELIMITED);
	cookie_maker_add_macs(&p->a.remote.cookie, m1, 148, t0 + WG_SECONDS(115));
	tu_check_mem(m1 + MESSAGE_INITIATION_MAC2, zero16, 16, "a cookie of 115 s is no longer used");

	/* receiver side: a mac2 made with the old cookie fails once the secret rotated */
	cookie_maker_add_macs(&p->a.remote.cookie, m1, 148, t0 + WG_SECONDS(100));
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, true, t0 + WG_SECONDS(120) - 1),
		 COOKIE_PROCEED_RATELIMITED);
	CHECK(crypto_equal(secret, ck->secret, 32));
	CHECK_EQ(cookie_checker_validate(ck, m1, 148, p->a.src, 18, true, t0 + WG_SECONDS(120)),
		 COOKIE_SEND_REPLY);
	CHECK(!crypto_equal(secret, ck->secret, 32));
	CHECK_EQ(ck->secret_birth, t0 + WG_SECONDS(120));

	/* a fresh reply under the new secret works again, end to end */
	p->now = t0 + WG_SECONDS(121);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(ct_receive_initiation(p, &p->b, m1, 148, true, &verdict, &r), NOISE_DROP_BAD_TAG);
	CHECK_EQ(verdict, COOKIE_SEND_REPLY);
	CHECK(cookie_checker_create_reply(ck, reply, m1, 148, p->a.src, 18, p->now));
	CHECK_EQ(deliver_reply(&p->a, reply, p->now, &found), COOKIE_REPLY_OK);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(ct_receive_initiation(p, &p->b, m1, 148, true, &verdict, &r), NOISE_OK);
	CHECK_EQ(verdict, COOKIE_PROCEED_RATELIMITED);
	crypto_wipe(secret, sizeof(secret));
	ct_pair_free(p);
}

/* mac1 and the reply by the whitepaper formulas, independently of cookie.c. */
static void test_reference(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], ts[12], reply[64], key[32], mac[16], label_pub[40], cookie[16], want_cookie[16];
	bool found;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	memcpy(label_pub, "cookie--", 8);
	memcpy(label_pub + 8, p->b.local.public_key, 32);
	blake2s(key, 32, label_pub, 40, NULL, 0);
	CHECK(cookie_checker_create_reply(&p->b.local.cookie, reply, m1, 148, p->a.src, 18, p->now));
	/* enc_cookie = XAEAD(HASH("cookie--" || S_b.pub), nonce, MAC(R, src), AD = mac1) */
	CHECK(xchacha20poly1305_decrypt(cookie, reply + 32, 32, m1 + MESSAGE_INITIATION_MAC1, 16, reply + 8, key));
	blake2s(want_cookie, 16, p->a.src, 18, p->b.local.cookie.secret, 32);
	tu_check_mem(cookie, want_cookie, 16, "cookie = MAC(R, source)");
	CHECK_EQ(deliver_reply(&p->a, reply, p->now, &found), COOKIE_REPLY_OK);
	/* mac2 = MAC(cookie, msg[0:132]) */
	cookie_maker_add_macs(&p->a.remote.cookie, m1, 148, p->now);
	blake2s(mac, 16, m1, MESSAGE_INITIATION_MAC2, cookie, 16);
	tu_check_mem(m1 + MESSAGE_INITIATION_MAC2, mac, 16, "mac2 = MAC(cookie, msg up to mac2)");
	ct_pair_free(p);
}

int main(void)
{
	test_outcomes();
	test_round_trip_initiation();
	test_round_trip_response();
	test_flip_reply();
	test_rotation();
	test_reference();
	return ct_exit("core-cookie");
}
