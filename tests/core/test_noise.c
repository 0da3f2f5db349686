// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handshake and transport data between two in-memory peers: a reference
 * recomputation of both messages straight from the whitepaper formulas,
 * handshakes with and without a PSK, data both ways, every byte of every
 * message flipped, replayed initiations, key confirmation, keypair
 * rotation, expiry by time and by messages, and wiping.
 */
#include <stdlib.h>
#include <string.h>

#include "crypto/blake2s.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/util.h"
#include "crypto/x25519.h"
#include "tests/core/coretest.h"

/* ---- a naive reference of WP §5.4, written independently of noise.c ---- */

static const char CONSTRUCTION[] = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";
static const char IDENTIFIER[] = "WireGuard v1 zx2c4 Jason@zx2c4.com";

static void ref_hash2(uint8_t out[32], const void *a, size_t alen, const void *b, size_t blen)
{
	uint8_t buf[256];

	memcpy(buf, a, alen);
	memcpy(buf + alen, b, blen);
	blake2s(out, 32, buf, alen + blen, NULL, 0);
}

/* KDFn by the whitepaper's definition, with the HMAC primitive directly. */
static void ref_kdf(uint8_t *t1, uint8_t *t2, uint8_t *t3, const uint8_t c[32], const uint8_t *in, size_t len)
{
	uint8_t t0[32], o1[32], o2[32], o3[32], buf[33];

	blake2s_hmac(t0, in, len, c, 32);
	buf[0] = 1;
	blake2s_hmac(o1, buf, 1, t0, 32);
	memcpy(buf, o1, 32);
	buf[32] = 2;
	blake2s_hmac(o2, buf, 33, t0, 32);
	memcpy(buf, o2, 32);
	buf[32] = 3;
	blake2s_hmac(o3, buf, 33, t0, 32);
	if (t1)
		memcpy(t1, o1, 32);
	if (t2)
		memcpy(t2, o2, 32);
	if (t3)
		memcpy(t3, o3, 32);
}

static void ref_dh(uint8_t out[32], const uint8_t priv[32], const uint8_t pub[32])
{
	CHECK(x25519(out, priv, pub));
}

static void ref_mac(uint8_t out[16], const char *label, const uint8_t pub[32], const uint8_t *msg, size_t len)
{
	uint8_t key[32];

	ref_hash2(key, label, 8, pub, 32);
	blake2s(out, 16, msg, len, key, 32);
}

static void test_constants(void)
{
	static const uint8_t c0_want[32] = {
		0x60, 0xe2, 0x6d, 0xae, 0xf3, 0x27, 0xef, 0xc0, 0x2e, 0xc3, 0x35, 0xe2, 0xa0, 0x25, 0xd2, 0xd0,
		0x16, 0xeb, 0x42, 0x06, 0xf8, 0x72, 0x77, 0xf5, 0x2d, 0x38, 0xd1, 0x98, 0x8b, 0x78, 0xcd, 0x36,
	};
	uint8_t c0[32], h0[32];

	blake2s(c0, 32, (const uint8_t *)CONSTRUCTION, strlen(CONSTRUCTION), NULL, 0);
	tu_check_mem(c0, c0_want, 32, "C0 = HASH(Construction)");
	ref_hash2(h0, c0, 32, IDENTIFIER, strlen(IDENTIFIER));
	CHECK(h0[0] == 0x22 && h0[31] == 0xf3);

	CHECK_EQ(MESSAGE_INITIATION_LEN, 148);
	CHECK_EQ(MESSAGE_INITIATION_MAC1, 116);
	CHECK_EQ(MESSAGE_INITIATION_MAC2, 132);
	CHECK_EQ(MESSAGE_RESPONSE_LEN, 92);
	CHECK_EQ(MESSAGE_RESPONSE_MAC1, 60);
	CHECK_EQ(MESSAGE_COOKIE_LEN, 64);
	CHECK_EQ(MESSAGE_DATA_MIN_LEN, 32);
	CHECK_EQ(MAX_TIMER_HANDSHAKES, 18);
	CHECK(REJECT_AFTER_MESSAGES == 18446744073709543423ULL);
}

static void test_classify(void)
{
	static const struct {
		uint8_t type[4];
		size_t len;
		enum message_type want;
	} cases[] = {
		{ { 1, 0, 0, 0 }, 148, MESSAGE_HANDSHAKE_INITIATION },
		{ { 1, 0, 0, 0 }, 147, MESSAGE_INVALID },
		{ { 1, 0, 0, 0 }, 149, MESSAGE_INVALID },
		{ { 1, 0, 0, 1 }, 148, MESSAGE_INVALID },
		{ { 2, 0, 0, 0 }, 92, MESSAGE_HANDSHAKE_RESPONSE },
		{ { 2, 0, 0, 0 }, 93, MESSAGE_INVALID },
		{ { 2, 1, 0, 0 }, 92, MESSAGE_INVALID },
		{ { 3, 0, 0, 0 }, 64, MESSAGE_HANDSHAKE_COOKIE },
		{ { 3, 0, 0, 0 }, 63, MESSAGE_INVALID },
		{ { 4, 0, 0, 0 }, 32, MESSAGE_DATA },
		{ { 4, 0, 0, 0 }, 31, MESSAGE_INVALID },
		{ { 4, 0, 0, 0 }, 1500, MESSAGE_DATA },
		{ { 4, 0, 1, 0 }, 64, MESSAGE_INVALID },
		{ { 0, 0, 0, 0 }, 148, MESSAGE_INVALID },
		{ { 5, 0, 0, 0 }, 148, MESSAGE_INVALID },
		{ { 1, 0, 0, 0 }, 3, MESSAGE_INVALID },
		{ { 4, 0, 0, 0 }, 0, MESSAGE_INVALID },
	};
	uint8_t buf[1500];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 0x5a, sizeof(buf));
		memcpy(buf, cases[i].type, 4);
		tu_check(message_classify(buf, cases[i].len) == cases[i].want, "classify case %zu", i);
	}
	/* padding: multiple of 16, capped by the MTU, keepalive stays empty */
	CHECK_EQ(message_data_padded_len(0, 1420), 0);
	CHECK_EQ(message_data_padded_len(1, 1420), 16);
	CHECK_EQ(message_data_padded_len(16, 1420), 16);
	CHECK_EQ(message_data_padded_len(17, 1420), 32);
	CHECK_EQ(message_data_padded_len(1410, 1420), 1420);
	CHECK_EQ(message_data_padded_len(1419, 1420), 1420);
	CHECK_EQ(message_data_padded_len(1420, 1420), 1420);
	CHECK_EQ(message_data_padded_len(1500, 1420), 1500);
}

static void test_tai64n(void)
{
	static const uint8_t epoch[12] = { 0x40, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0 };
	static const uint8_t t2[12] = { 0x40, 0, 0, 0, 0, 0, 0, 0x0b, 0x01, 0, 0, 0 };
	uint8_t out[12];

	noise_tai64n(out, 0);
	tu_check_mem(out, epoch, 12, "TAI64N of the epoch");
	noise_tai64n(out, (1u << 24) - 1);
	tu_check_mem(out, epoch, 12, "nanoseconds below 2^24 round down");
	noise_tai64n(out, WG_NSEC_PER_SEC + (1u << 24) + 12345);
	tu_check_mem(out, t2, 12, "1 s + 2^24 ns");
}

/*
 * Recompute message 1 and message 2 from the whitepaper with the
 * responder's and the initiator's secrets, and check that the derived
 * transport keys are the ones the two keypairs hold.
 */
static void test_reference(const uint8_t *psk)
{
	static const uint8_t zero[32];
	struct ct_pair *p = ct_pair_new(psk);
	struct ct_peer *a = &p->a, *b = &p->b;
	uint8_t m1[148], m2[92], ts[12], c[32], h[32], k[32], dh[32], plain[32], e_i_priv[32];
	uint8_t tau[32], t1[32], t2[32], mac[16], data[64];
	struct noise_remote *r;
	enum noise_result res;
	size_t n;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, p->now), NOISE_OK);
	memcpy(e_i_priv, a->remote.handshake.ephemeral_private, 32);

	/* responder side of message 1 */
	blake2s(c, 32, (const uint8_t *)CONSTRUCTION, strlen(CONSTRUCTION), NULL, 0);
	ref_hash2(h, c, 32, IDENTIFIER, strlen(IDENTIFIER));
	ref_hash2(h, h, 32, b->local.public_key, 32);
	CHECK_EQ(le32_load(m1), 1);
	ref_kdf(c, NULL, NULL, c, m1 + 8, 32);
	ref_hash2(h, h, 32, m1 + 8, 32);
	ref_dh(dh, b->local.private_key, m1 + 8);
	ref_kdf(c, k, NULL, c, dh, 32);
	CHECK(chacha20poly1305_decrypt(plain, m1 + 40, 48, h, 32, 0, k));
	tu_check_mem(plain, a->local.public_key, 32, "reference: encrypted static is the initiator's key");
	ref_hash2(h, h, 32, m1 + 40, 48);
	ref_dh(dh, b->local.private_key, a->local.public_key);
	ref_kdf(c, k, NULL, c, dh, 32);
	CHECK(chacha20poly1305_decrypt(plain, m1 + 88, 28, h, 32, 0, k));
	tu_check_mem(plain, ts, 12, "reference: encrypted timestamp");
	ref_hash2(h, h, 32, m1 + 88, 28);
	ref_mac(mac, "mac1----", b->local.public_key, m1, 116);
	tu_check_mem(m1 + 116, mac, 16, "reference: mac1 of message 1");
	tu_check_mem(m1 + 132, zero, 16, "mac2 is zero without a cookie");

	CHECK_EQ(ct_receive_initiation(p, b, m1, sizeof(m1), false, &(enum cookie_mac_result){ 0 }, &r),
		 NOISE_OK);
	CHECK_EQ(noise_create_response(&b->remote, m2, p->now), NOISE_OK);

	/* initiator side of message 2 */
	CHECK_EQ(le32_load(m2), 2);
	CHECK_EQ(le32_load(m2 + 8), le32_load(m1 + 4));
	ref_kdf(c, NULL, NULL, c, m2 + 12, 32);
	ref_hash2(h, h, 32, m2 + 12, 32);
	ref_dh(dh, e_i_priv, m2 + 12);
	ref_kdf(c, NULL, NULL, c, dh, 32);
	ref_dh(dh, a->local.private_key, m2 + 12);
	ref_kdf(c, NULL, NULL, c, dh, 32);
	ref_kdf(c, tau, k, c, psk ? psk : zero, 32);
	ref_hash2(h, h, 32, tau, 32);
	CHECK(chacha20poly1305_decrypt(plain, m2 + 44, 16, h, 32, 0, k));
	ref_mac(mac, "mac1----", a->local.public_key, m2, 60);
	tu_check_mem(m2 + 60, mac, 16, "reference: mac1 of message 2");
	ref_kdf(t1, t2, NULL, c, c, 0);

	CHECK_EQ(ct_receive_response(p, a, m2, sizeof(m2), false, &(enum cookie_mac_result){ 0 }, &r), NOISE_OK);
	CHECK(a->remote.current != NULL && b->remote.next != NULL);
	if (a->remote.current && b->remote.next) {
		tu_check_mem(a->remote.current->send_key, t1, 32, "initiator sends with T1");
		tu_check_mem(a->remote.current->recv_key, t2, 32, "initiator receives with T2");
		tu_check_mem(b->remote.next->send_key, t2, 32, "responder sends with T2");
		tu_check_mem(b->remote.next->recv_key, t1, 32, "responder receives with T1");
		CHECK_EQ(b->remote.next->index.id, le32_load(m2 + 4));
		CHECK_EQ(a->remote.current->remote_index, le32_load(m2 + 4));
	}
	/* the handshake state is wiped once the session began, on both sides */
	CHECK(crypto_is_zero(a->remote.handshake.ephemeral_private, 32));
	CHECK(crypto_is_zero(a->remote.handshake.chaining_key, 32));
	CHECK(crypto_is_zero(b->remote.handshake.chaining_key, 32));
	CHECK(crypto_is_zero(b->remote.handshake.hash, 32));

	/* a data message opens with T1 and counter 0 by the reference AEAD */
	memcpy(data + 16, "0123456789abcdef", 16);
	n = ct_seal(p, a, data, (const uint8_t *)"0123456789abcdef", 16, &res);
	CHECK_EQ(n, 48);
	CHECK_EQ(le32_load(data), 4);
	CHECK_EQ(le64_load(data + 8), 0);
	CHECK(chacha20poly1305_decrypt(plain, data + 16, 32, NULL, 0, 0, t1));
	tu_check_mem(plain, "0123456789abcdef", 16, "reference: data plaintext");
	ct_pair_free(p);
}

static void fill_pattern(uint8_t *buf, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 7);
}

/* Send len bytes from x to the other side and check they arrive intact. */
static void transfer(struct ct_pair *p, struct ct_peer *from, size_t len, enum noise_result want_open)
{
	struct ct_peer *to = ct_other(p, from);
	uint8_t plain[1500], msg[1500 + MESSAGE_DATA_OVERHEAD];
	struct noise_remote *r;
	enum noise_result res;
	size_t n;

	fill_pattern(plain, len, (uint8_t)len);
	n = ct_seal(p, from, msg, plain, len, &res);
	tu_check(n == len + 32 && res == NOISE_OK, "seal %zu bytes: %s", len, noise_result_str(res));
	if (!n)
		return;
	CHECK(message_classify(msg, n) == MESSAGE_DATA);
	res = noise_open(&to->local, msg, n, p->now, &r);
	tu_check(res == want_open, "open %zu bytes: %s", len, noise_result_str(res));
	CHECK(r == &to->remote);
	tu_check_mem(msg + MESSAGE_DATA_HEADER_LEN, plain, len, "data of %zu bytes", len);
}

static void test_handshake_and_data(const uint8_t *psk)
{
	struct ct_pair *p = ct_pair_new(psk);
	size_t len;

	CHECK(ct_handshake(p, &p->a));
	for (len = 0; len <= 80; len++) {
		transfer(p, &p->a, len, NOISE_OK);
		transfer(p, &p->b, len, NOISE_OK);
	}
	transfer(p, &p->a, 1420, NOISE_OK);
	transfer(p, &p->b, 1500, NOISE_OK);
	/* the other direction initiates the next session */
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, &p->b));
	transfer(p, &p->a, 100, NOISE_OK);
	transfer(p, &p->b, 100, NOISE_OK);
	ct_pair_free(p);
}

static void test_psk_mismatch(void)
{
	static const uint8_t psk[32] = { 1, 2, 3 };
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], ts[12];
	struct noise_remote *r;

	noise_remote_set_preshared_key(&p->a.remote, psk);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_response(&p->a.local, m2, p->now, &r), NOISE_DROP_BAD_TAG);
	CHECK(p->a.remote.current == NULL);
	CHECK(p->a.remote.handshake.state == NOISE_HANDSHAKE_CREATED_INITIATION);
	ct_pair_free(p);
}

/*
 * Key confirmation (doc/protocol.md §7): the responder has the new keys in `next`
 * and keeps sending on its old current keypair (or cannot send at all)
 * until the initiator's first data message arrives on the new one.
 */
static void test_responder_waits(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct ct_peer *a = &p->a, *b = &p->b;
	uint8_t m1[148], m2[92], ts[12], msg[64];
	struct noise_keypair *old;
	struct noise_remote *r;
	enum noise_result res;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&b->local, m1, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&b->remote, m2, p->now), NOISE_OK);
	CHECK(ct_seal(p, b, msg, (const uint8_t *)"x", 1, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);
	CHECK(b->remote.current == NULL && b->remote.next != NULL);
	CHECK_EQ(noise_consume_response(&a->local, m2, p->now, &r), NOISE_OK);
	CHECK(ct_seal(p, b, msg, (const uint8_t *)"x", 1, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);
	transfer(p, a, 0, NOISE_OK_CONFIRMED);
	CHECK(b->remote.current != NULL && b->remote.next == NULL);
	transfer(p, b, 10, NOISE_OK);
	transfer(p, a, 10, NOISE_OK);

	/* A second session, again initiated by a: b keeps using the old one */
	p->now += WG_SECONDS(10);
	old = b->remote.current;
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&a->remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&b->local, m1, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&b->remote, m2, p->now), NOISE_OK);
	CHECK(b->remote.current == old && b->remote.next != NULL);
	CHECK(ct_seal(p, b, msg, (const uint8_t *)"y", 1, &res) == 33 && res == NOISE_OK);
	CHECK_EQ(le32_load(msg + 4), old->remote_index);
	/* a has not seen the response yet: that message opens on its current */
	CHECK_EQ(noise_open(&a->local, msg, 33, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_consume_response(&a->local, m2, p->now, &r), NOISE_OK);
	transfer(p, b, 5, NOISE_OK);		/* b still on the old keypair, a has it as previous */
	transfer(p, a, 5, NOISE_OK_CONFIRMED);
	transfer(p, b, 5, NOISE_OK);
	CHECK(b->remote.previous == old);
	ct_check_indices(a);
	ct_check_indices(b);
	ct_pair_free(p);
}

/* A handshake initiated by init, without the confirming data message. */
static bool handshake_unconfirmed(struct ct_pair *p, struct ct_peer *init)
{
	struct ct_peer *resp = ct_other(p, init);
	uint8_t m1[MESSAGE_INITIATION_LEN], m2[MESSAGE_RESPONSE_LEN], ts[NOISE_TIMESTAMP_LEN];
	struct noise_remote *r;

	ct_timestamp(p, ts);
	return noise_create_initiation(&init->remote, m1, ts, p->now) == NOISE_OK &&
	       noise_consume_initiation(&resp->local, m1, p->now, &r) == NOISE_OK &&
	       noise_create_response(&resp->remote, m2, p->now) == NOISE_OK &&
	       noise_consume_response(&init->local, m2, p->now, &r) == NOISE_OK;
}

static bool slots_are(const struct ct_peer *x, const struct noise_keypair *previous,
		      const struct noise_keypair *current, const struct noise_keypair *next)
{
	return x->remote.previous == previous && x->remote.current == current && x->remote.next == next;
}

/*
 * The exact slot moves of doc/protocol.md §7, with the storage each
 * session occupies tracked by pointer and its index by id: a freed
 * keypair's index must be gone.
 */
static void test_slot_table(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct ct_peer *a = &p->a, *b = &p->b;
	struct noise_keypair *a1, *b1, *a2, *b2, *a3, *b3, *a4, *b4;
	uint32_t id_a1, id_b1, id_a2, id_b2;
	uint8_t late[64];
	struct noise_remote *r;
	enum noise_result res;

	/* 1: a initiates, confirmed: one session, current on both sides */
	CHECK(ct_handshake(p, a));
	a1 = a->remote.current;
	b1 = b->remote.current;
	CHECK(slots_are(a, NULL, a1, NULL) && slots_are(b, NULL, b1, NULL));
	CHECK(a1 && a1->is_initiator && b1 && !b1->is_initiator);
	if (!a1 || !b1)
		goto out;
	id_a1 = a1->index.id;
	id_b1 = b1->index.id;

	/* 2: a again: the old current becomes previous on both sides */
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, a));
	a2 = a->remote.current;
	b2 = b->remote.current;
	CHECK(slots_are(a, a1, a2, NULL) && slots_are(b, b1, b2, NULL));
	id_a2 = a2->index.id;
	id_b2 = b2->index.id;

	/*
	 * 3: a again, unconfirmed.  The responder puts the session in next,
	 * keeps current and empties previous; the initiator's previous is
	 * its old current, and its old previous is gone.
	 */
	p->now += WG_SECONDS(1);
	CHECK(handshake_unconfirmed(p, a));
	a3 = a->remote.current;
	b3 = b->remote.next;
	CHECK(slots_are(a, a2, a3, NULL));
	CHECK(slots_are(b, NULL, b2, b3));
	CHECK(noise_remote_by_index(&a->local, id_a1) == NULL);
	CHECK(noise_remote_by_index(&b->local, id_b1) == NULL);
	CHECK(ct_seal(p, a, late, (const uint8_t *)"late", 4, &res) == 36);	/* on session 3 */

	/*
	 * 4: now b initiates while its session 3 is still unconfirmed: that
	 * next becomes previous (late messages on it still open), the old
	 * current (session 2) is freed.  a, the responder, puts session 4 in
	 * next and frees its previous (session 2).
	 */
	p->now += WG_SECONDS(1);
	CHECK(handshake_unconfirmed(p, b));
	b4 = b->remote.current;
	a4 = a->remote.next;
	CHECK(slots_are(b, b3, b4, NULL));
	CHECK(slots_are(a, NULL, a3, a4));
	CHECK(noise_remote_by_index(&b->local, id_b2) == NULL);
	CHECK(noise_remote_by_index(&a->local, id_a2) == NULL);
	ct_check_indices(a);
	ct_check_indices(b);

	/* the message a sealed on session 3 opens on b's previous, confirming nothing */
	CHECK_EQ(noise_open(&b->local, late, 36, p->now, &r), NOISE_OK);
	CHECK(slots_are(b, b3, b4, NULL));
	/* b's first data on session 4 confirms it at a: next -> current -> previous */
	transfer(p, b, 8, NOISE_OK_CONFIRMED);
	CHECK(slots_are(a, a3, a4, NULL));
	transfer(p, a, 8, NOISE_OK);
	ct_check_indices(a);
	ct_check_indices(b);
out:
	ct_pair_free(p);
}

/* ---- mutations: flip every byte and expect rejection ---- */

static void test_flip_initiation(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], bad[148], ts[12];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	enum noise_result res;
	size_t i;
	unsigned int mask;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	for (i = 0; i < sizeof(m1); i++) {
		for (mask = 1; mask <= 0x80; mask <<= 1) {
			memcpy(bad, m1, sizeof(m1));
			bad[i] ^= (uint8_t)mask;
			res = ct_receive_initiation(p, &p->b, bad, sizeof(bad), false, &verdict, &r);
			/* mac2 is only looked at under load (WP §5.3) */
			if (i >= MESSAGE_INITIATION_MAC2)
				tu_check(res == NOISE_OK || res == NOISE_DROP_FLOOD ||
					 res == NOISE_DROP_REPLAYED_TIMESTAMP,
					 "initiation mac2 byte %zu ignored when not under load", i);
			else
				tu_check(res != NOISE_OK, "initiation byte %zu ^ %#x accepted", i, mask);
		}
	}
	ct_pair_free(p);

	/*
	 * Behind a valid mac1 (an attacker who knows the responder's public
	 * key can compute it): the AEADs and DHs must still reject every
	 * change.  The sender index is not covered by Noise by design; a
	 * changed one only misdirects the response (checked below).
	 */
	p = ct_pair_new(NULL);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	for (i = MESSAGE_INITIATION_EPHEMERAL; i < MESSAGE_INITIATION_MAC1; i++) {
		memcpy(bad, m1, sizeof(m1));
		bad[i] ^= 0x04;
		cookie_maker_add_macs(&p->a.remote.cookie, bad, sizeof(bad), p->now);
		res = ct_receive_initiation(p, &p->b, bad, sizeof(bad), false, &verdict, &r);
		tu_check(verdict == COOKIE_PROCEED, "remac'd initiation byte %zu passes the edge", i);
		tu_check(res == NOISE_DROP_BAD_TAG || res == NOISE_DROP_BAD_DH,
			 "remac'd initiation byte %zu: %s", i, noise_result_str(res));
	}
	/* the genuine message is still accepted after all that */
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	ct_pair_free(p);
}

static void test_initiation_sender_misdirects(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], ts[12];
	struct noise_remote *r;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	m1[MESSAGE_INITIATION_SENDER] ^= 0x01;
	cookie_maker_add_macs(&p->a.remote.cookie, m1, sizeof(m1), p->now);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_response(&p->a.local, m2, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	ct_pair_free(p);
}

static void test_flip_response(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], bad[92], ts[12];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	enum noise_result res;
	size_t i;
	unsigned int mask;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	for (i = 0; i < MESSAGE_RESPONSE_MAC2; i++) {
		for (mask = 1; mask <= 0x80; mask <<= 1) {
			memcpy(bad, m2, sizeof(m2));
			bad[i] ^= (uint8_t)mask;
			res = ct_receive_response(p, &p->a, bad, sizeof(bad), false, &verdict, &r);
			tu_check(res != NOISE_OK, "response byte %zu ^ %#x accepted", i, mask);
		}
	}
	/* behind a valid mac1: the Noise part must reject all but the sender index */
	for (i = MESSAGE_RESPONSE_RECEIVER; i < MESSAGE_RESPONSE_MAC1; i++) {
		memcpy(bad, m2, sizeof(m2));
		bad[i] ^= 0x10;
		cookie_maker_add_macs(&p->b.remote.cookie, bad, sizeof(bad), p->now);
		res = ct_receive_response(p, &p->a, bad, sizeof(bad), false, &verdict, &r);
		tu_check(verdict == COOKIE_PROCEED, "remac'd response byte %zu passes the edge", i);
		tu_check(res == NOISE_DROP_BAD_TAG || res == NOISE_DROP_BAD_DH || res == NOISE_DROP_UNKNOWN_INDEX,
			 "remac'd response byte %zu: %s", i, noise_result_str(res));
	}
	/* failures left the handshake intact: the real response still works */
	CHECK_EQ(ct_receive_response(p, &p->a, m2, sizeof(m2), false, &verdict, &r), NOISE_OK);
	/* and a replay of it finds no handshake any more */
	CHECK_EQ(noise_consume_response(&p->a.local, m2, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	transfer(p, &p->a, 0, NOISE_OK_CONFIRMED);
	ct_pair_free(p);
}

static void test_flip_data(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t plain[100], msg[132], bad[132];
	struct noise_remote *r;
	enum noise_result res;
	size_t i, n;
	unsigned int mask;

	CHECK(ct_handshake(p, &p->a));
	fill_pattern(plain, sizeof(plain), 3);
	n = ct_seal(p, &p->a, msg, plain, sizeof(plain), &res);
	CHECK_EQ(n, sizeof(msg));
	for (i = 0; i < n; i++) {
		for (mask = 1; mask <= 0x80; mask <<= 1) {
			memcpy(bad, msg, n);
			bad[i] ^= (uint8_t)mask;
			if (message_classify(bad, n) != MESSAGE_DATA)
				continue;	/* dropped at the edge */
			res = noise_open(&p->b.local, bad, n, p->now, &r);
			tu_check(res != NOISE_OK && res != NOISE_OK_CONFIRMED && r == NULL,
				 "data byte %zu ^ %#x accepted", i, mask);
		}
	}
	/* truncated by one byte, or extended: the tag no longer matches */
	memcpy(bad, msg, n);
	CHECK(noise_open(&p->b.local, bad, n - 1, p->now, &r) == NOISE_DROP_BAD_TAG);
	/* the genuine message still opens once, then is a replay */
	memcpy(bad, msg, n);
	CHECK_EQ(noise_open(&p->b.local, bad, n, p->now, &r), NOISE_OK);
	tu_check_mem(bad + 16, plain, sizeof(plain), "data after flips");
	memcpy(bad, msg, n);
	CHECK_EQ(noise_open(&p->b.local, bad, n, p->now, &r), NOISE_DROP_REPLAY);
	ct_pair_free(p);
}

/* A forged message with a huge counter must not move the window (WP §5.4.6). */
static void test_forged_counter(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t first[48], forged[48];
	struct noise_remote *r;
	enum noise_result res;

	CHECK(ct_handshake(p, &p->a));
	CHECK_EQ(ct_seal(p, &p->a, first, (const uint8_t *)"0123456789abcdef", 16, &res), 48);
	memcpy(forged, first, 48);
	le64_store(forged + 8, 1000000);
	CHECK_EQ(noise_open(&p->b.local, forged, 48, p->now, &r), NOISE_DROP_BAD_TAG);
	CHECK_EQ(noise_open(&p->b.local, first, 48, p->now, &r), NOISE_OK);
	ct_pair_free(p);
}

/* ---- replayed initiations and floods (WP §5.1) ---- */

static void test_replayed_initiation(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m1b[148], copy[148], m2[92], ts[12], old_ts[12];
	struct noise_remote *r;

	ct_timestamp(p, ts);
	memcpy(old_ts, ts, 12);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	memcpy(copy, m1, sizeof(m1));
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	p->now += WG_SECONDS(1);
	CHECK_EQ(noise_consume_initiation(&p->b.local, copy, p->now, &r), NOISE_DROP_REPLAYED_TIMESTAMP);
	CHECK(r == NULL);
	/* still replayed after the responder answered and the session began */
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_response(&p->a.local, m2, p->now, &r), NOISE_OK);
	transfer(p, &p->a, 0, NOISE_OK_CONFIRMED);
	CHECK_EQ(noise_consume_initiation(&p->b.local, copy, p->now, &r), NOISE_DROP_REPLAYED_TIMESTAMP);
	/* an older timestamp in a fresh message is a replay too */
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1b, old_ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1b, p->now, &r), NOISE_DROP_REPLAYED_TIMESTAMP);
	/* the session was not disturbed by any of this */
	transfer(p, &p->b, 20, NOISE_OK);

	/* flood: a newer initiation within 1/50 s of the last accepted one */
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	p->now += WG_NSEC_PER_SEC / 50 - 1;
	memcpy(copy, m1, sizeof(m1));
	CHECK_EQ(noise_consume_initiation(&p->b.local, copy, p->now, &r), NOISE_DROP_FLOOD);
	p->now += 1;
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	ct_pair_free(p);
}

/* ---- odd states ---- */

static void test_unknown_and_no_identity(void)
{
	struct ct_pair *p = ct_pair_new(NULL), *q = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], ts[12], msg[32];
	struct noise_remote *r;
	enum noise_result res;

	/* q.a initiates to q.b's key, but we hand the message to p.b: mac1 and the DH do not fit */
	ct_timestamp(q, ts);
	CHECK_EQ(noise_create_initiation(&q->a.remote, m1, ts, q->now), NOISE_OK);
	CHECK(noise_consume_initiation(&p->b.local, m1, p->now, &r) != NOISE_OK);

	/* a stranger who knows p.b's public key but is not its peer */
	noise_remote_clear(&q->a.remote);
	noise_remote_init(&q->a.remote, &q->a.local, p->b.local.public_key);
	CHECK_EQ(noise_create_initiation(&q->a.remote, m1, ts, q->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_DROP_UNKNOWN_PEER);
	CHECK(r == NULL);
	/* a lookup that answers with a remote of another device is not trusted */
	p->b.local.lookup_ctx = &q->b;	/* q.b's remote has q.a's key */
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_DROP_UNKNOWN_PEER);
	p->b.local.lookup_ctx = &p->b;

	/* a response nobody asked for */
	memset(m2, 0, sizeof(m2));
	le32_store(m2, 2);
	CHECK_EQ(noise_consume_response(&p->a.local, m2, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	CHECK_EQ(noise_create_response(&p->a.remote, m2, p->now), NOISE_ERR_WRONG_STATE);
	/* data with no session */
	memset(msg, 0, sizeof(msg));
	le32_store(msg, 4);
	CHECK_EQ(noise_open(&p->a.local, msg, sizeof(msg), p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	CHECK(ct_seal(p, &p->a, msg, NULL, 0, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);

	/* without a private key every handshake is dropped */
	CHECK(noise_local_set_private(&p->b.local, NULL));
	noise_remote_update_local(&p->b.remote);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_DROP_NO_IDENTITY);
	CHECK_EQ(cookie_checker_validate(&p->b.local.cookie, m1, sizeof(m1), p->a.src, 18, false, p->now),
		 COOKIE_DROP_BAD_MAC1);
	CHECK_EQ(noise_create_initiation(&p->b.remote, m1, ts, p->now), NOISE_DROP_NO_IDENTITY);
	ct_pair_free(p);
	ct_pair_free(q);
}

/* A public key of small order gives an all-zero DH: refused, not used. */
static void test_small_order_key(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	static const uint8_t zero_point[32];
	uint8_t m1[148], ts[12];
	struct noise_remote *r;

	noise_remote_clear(&p->a.remote);
	noise_remote_init(&p->a.remote, &p->a.local, zero_point);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_DROP_BAD_DH);
	CHECK(p->a.remote.static_static_valid && !p->a.remote.static_static_ok);
	CHECK(crypto_is_zero(p->a.remote.static_static, sizeof(p->a.remote.static_static)));

	/* an initiation whose ephemeral is the zero point */
	CHECK_EQ(noise_create_initiation(&p->b.remote, m1, ts, p->now), NOISE_OK);
	memset(m1 + MESSAGE_INITIATION_EPHEMERAL, 0, 32);
	CHECK_EQ(noise_consume_initiation(&p->a.local, m1, p->now, &r), NOISE_DROP_BAD_DH);
	ct_pair_free(p);
}

/* ---- keypair slots and lifetimes ---- */

static void test_rotation(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t plain[20], s1[52], s2[52], s3[52];
	struct noise_remote *r;
	enum noise_result res;

	memset(plain, 7, sizeof(plain));
	CHECK(ct_handshake(p, &p->a));
	CHECK_EQ(ct_seal(p, &p->b, s1, plain, 20, &res), 52);		/* on session 1 */
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, &p->b));
	CHECK_EQ(ct_seal(p, &p->b, s2, plain, 20, &res), 52);		/* on session 2 */
	CHECK(p->a.remote.previous != NULL && p->b.remote.previous != NULL);
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, &p->a));
	CHECK_EQ(ct_seal(p, &p->b, s3, plain, 20, &res), 52);		/* on session 3 */
	/* a keeps sessions 3 (current) and 2 (previous); session 1 is gone */
	CHECK_EQ(noise_open(&p->a.local, s3, 52, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_open(&p->a.local, s2, 52, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_open(&p->a.local, s1, 52, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	CHECK(noise_remote_by_index(&p->a.local, p->a.remote.current->index.id) == &p->a.remote);
	CHECK(noise_remote_by_index(&p->a.local, p->a.remote.previous->index.id) == &p->a.remote);

	ct_check_indices(&p->a);
	ct_check_indices(&p->b);
	/* clearing keys wipes every slot and unregisters the indices */
	noise_remote_clear_keys(&p->a.remote);
	ct_check_indices(&p->a);
	CHECK(!p->a.remote.previous && !p->a.remote.current && !p->a.remote.next);
	CHECK(p->a.remote.keypair_storage == NULL);	/* wiped and freed */
	CHECK(ct_seal(p, &p->a, s1, plain, 20, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);
	CHECK_EQ(ct_seal(p, &p->b, s1, plain, 20, &res), 52);
	CHECK_EQ(noise_open(&p->a.local, s1, 52, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	/* a fresh handshake recovers */
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, &p->a));
	transfer(p, &p->b, 9, NOISE_OK);
	ct_pair_free(p);
}

static void test_reject_after_time(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t msg[64];
	struct noise_remote *r;
	enum noise_result res;
	uint64_t born = p->now;

	CHECK(ct_handshake(p, &p->a));
	p->now = born + WG_SECONDS(REJECT_AFTER_TIME) - 1;
	transfer(p, &p->a, 16, NOISE_OK);
	CHECK_EQ(ct_seal(p, &p->b, msg, (const uint8_t *)"late but fine", 13, &res), 45);
	p->now = born + WG_SECONDS(REJECT_AFTER_TIME);
	CHECK(ct_seal(p, &p->a, msg, NULL, 0, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);
	CHECK_EQ(noise_open(&p->a.local, msg, 45, p->now, &r), NOISE_DROP_EXPIRED);
	ct_pair_free(p);
}

static void test_reject_after_messages(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t msg[48], last[48];
	struct noise_remote *r;
	enum noise_result res;

	CHECK(ct_handshake(p, &p->a));
	transfer(p, &p->a, 1, NOISE_OK);
	/* jump the sender to the last usable nonce */
	p->a.remote.current->send_counter = REJECT_AFTER_MESSAGES - 1;
	CHECK_EQ(ct_seal(p, &p->a, last, (const uint8_t *)"0123456789abcdef", 16, &res), 48);
	CHECK_EQ(le64_load(last + 8), REJECT_AFTER_MESSAGES - 1);
	CHECK(ct_seal(p, &p->a, msg, NULL, 0, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);
	/* the receiver accepts that last counter, then nothing more */
	CHECK_EQ(noise_open(&p->b.local, last, 48, p->now, &r), NOISE_OK);
	p->b.remote.current->send_counter = 5;
	CHECK_EQ(ct_seal(p, &p->b, msg, (const uint8_t *)"0123456789abcdef", 16, &res), 48);
	CHECK_EQ(noise_open(&p->a.local, msg, 48, p->now, &r), NOISE_OK);
	memcpy(msg, last, 48);
	CHECK_EQ(noise_open(&p->b.local, msg, 48, p->now, &r), NOISE_DROP_EXPIRED);
	ct_pair_free(p);
}

/* New device key: sessions stop sending, a new handshake is needed and works. */
static void test_new_private_key(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t priv[32], msg[64];
	enum noise_result res;

	CHECK(ct_handshake(p, &p->a));
	CHECK(x25519_generate_private(priv));
	CHECK(noise_local_set_private(&p->b.local, priv));
	noise_remote_update_local(&p->b.remote);
	CHECK(ct_seal(p, &p->b, msg, NULL, 0, &res) == 0 && res == NOISE_ERR_NO_KEYPAIR);
	/* a learns b's new key (as `wg set peer` would) */
	noise_remote_clear(&p->a.remote);
	noise_remote_init(&p->a.remote, &p->a.local, p->b.local.public_key);
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, &p->a));
	transfer(p, &p->b, 30, NOISE_OK);
	crypto_wipe(priv, sizeof(priv));
	ct_pair_free(p);
}

/*
 * What an idle remote costs: no X25519 when it is added (the static-static
 * DH waits for the first handshake) and no keypair storage until a session
 * begins; clearing the keys frees the storage, and a new session gets it
 * back.  This is what lets a device hold 10,000 idle peers in a few KiB each.
 */
static void test_idle_remote(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct noise_remote *a = &p->a.remote, *b = &p->b.remote;
	uint8_t ss[NOISE_PUBLIC_KEY_LEN];

	CHECK(!a->static_static_valid && !b->static_static_valid);
	CHECK(crypto_is_zero(a->static_static, sizeof(a->static_static)));
	CHECK(a->keypair_storage == NULL && b->keypair_storage == NULL);
	CHECK(ct_handshake(p, &p->a));
	/* the initiator needed ss for message 1, the responder to consume it */
	CHECK(a->static_static_valid && a->static_static_ok);
	CHECK(b->static_static_valid && b->static_static_ok);
	CHECK(x25519(ss, p->a.local.private_key, p->b.local.public_key));
	CHECK(crypto_equal(ss, a->static_static, sizeof(ss)));
	CHECK(crypto_equal(a->static_static, b->static_static, sizeof(ss)));
	CHECK(a->keypair_storage != NULL && b->keypair_storage != NULL);
	CHECK(a->current == &a->keypair_storage[0] || a->current == &a->keypair_storage[1] ||
	      a->current == &a->keypair_storage[2]);
	transfer(p, &p->a, 3, NOISE_OK);
	noise_remote_clear_keys(a);
	CHECK(a->keypair_storage == NULL);
	CHECK(a->static_static_valid);	/* the identity did not change */
	p->now += WG_SECONDS(1);
	CHECK(ct_handshake(p, &p->a));
	CHECK(a->keypair_storage != NULL);
	transfer(p, &p->b, 3, NOISE_OK);
	/* a new identity forgets ss, and wipes it */
	noise_local_set_private(&p->a.local, p->a.private_key);
	noise_remote_update_local(a);
	CHECK(!a->static_static_valid && !a->static_static_ok);
	CHECK(crypto_is_zero(a->static_static, sizeof(a->static_static)));
	crypto_wipe(ss, sizeof(ss));
	ct_pair_free(p);
}

/*
 * The index table grows with the number of remotes (noise_local_reserve()),
 * keeping the entries it holds, so that 10,000 peers do not share 2048
 * chains: 2000 remotes with a handshake each, half registered before the
 * growth and half after, every index found, every entry in its bucket.
 */
static void test_index_table_grows(void)
{
	enum { N = 2000 };
	struct noise_local l;
	struct noise_remote *rs = calloc(N, sizeof(*rs));
	uint8_t priv[32], pub[32], m1[MESSAGE_INITIATION_LEN], ts[NOISE_TIMESTAMP_LEN];
	size_t i, b, entries = 0, longest = 0, found = 0;

	CHECK(rs != NULL);
	if (!rs)
		return;
	noise_local_init(&l, NULL, NULL);
	CHECK(x25519_generate_private(priv) && noise_local_set_private(&l, priv));
	CHECK(x25519_generate_private(priv) && x25519_public(pub, priv));
	CHECK_EQ(l.nbuckets, NOISE_INDEX_BUCKETS);
	CHECK(noise_local_reserve(&l, NOISE_INDEX_BUCKETS / 2));
	CHECK_EQ(l.nbuckets, NOISE_INDEX_BUCKETS);	/* room enough already */
	noise_tai64n(ts, WG_SECONDS(1700000000));
	for (i = 0; i < N; i++) {
		if (i == N / 2) {
			CHECK(noise_local_reserve(&l, N));
			CHECK_EQ(l.nbuckets, 4096);	/* the least power of two >= 2 N */
		}
		noise_remote_init(&rs[i], &l, pub);
		CHECK_EQ(noise_create_initiation(&rs[i], m1, ts, WG_SECONDS(1000)), NOISE_OK);
	}
	for (i = 0; i < N; i++)
		found += noise_remote_by_index(&l, rs[i].handshake.index.id) == &rs[i];
	CHECK_EQ(found, N);
	for (b = 0; b < l.nbuckets; b++) {
		size_t n = 0;

		for (struct noise_index *e = l.buckets[b]; e && n <= N; e = e->next, n++)
			CHECK_EQ(e->id & (l.nbuckets - 1), b);
		entries += n;
		if (n > longest)
			longest = n;
	}
	CHECK_EQ(entries, N);
	/* 2000 in 4096 buckets: the longest chain is about 5 (in 2048: about 7; in one: 2000) */
	CHECK(longest <= 10);
	CHECK(noise_local_reserve(&l, SIZE_MAX / 4));
	CHECK_EQ(l.nbuckets, NOISE_INDEX_BUCKETS_MAX);
	found = 0;
	for (i = 0; i < N; i++) {
		found += noise_remote_by_index(&l, rs[i].handshake.index.id) == &rs[i];
		noise_remote_clear(&rs[i]);
	}
	CHECK_EQ(found, N);
	noise_local_clear(&l);
	crypto_wipe(priv, sizeof(priv));
	free(rs);
}

/* Both sides initiate at once: both responses are orphaned, nothing breaks. */
static void test_simultaneous(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t ma[148], mb[148], ra[92], rb[92], ts[12];
	struct noise_remote *r;

	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, ma, ts, p->now), NOISE_OK);
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->b.remote, mb, ts, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->b.local, ma, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_consume_initiation(&p->a.local, mb, p->now, &r), NOISE_OK);
	/* each abandoned its own initiation: ephemeral wiped, index released */
	CHECK(crypto_is_zero(p->a.remote.handshake.ephemeral_private, 32));
	CHECK(!p->a.remote.handshake.index.live);
	CHECK(noise_remote_by_index(&p->a.local, le32_load(ma + MESSAGE_INITIATION_SENDER)) == NULL);
	ct_check_indices(&p->a);
	CHECK_EQ(noise_create_response(&p->b.remote, rb, p->now), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->a.remote, ra, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_response(&p->a.local, rb, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	CHECK_EQ(noise_consume_response(&p->b.local, ra, p->now, &r), NOISE_DROP_UNKNOWN_INDEX);
	ct_check_indices(&p->a);
	ct_check_indices(&p->b);
	p->now += WG_SECONDS(5);
	CHECK(ct_handshake(p, &p->a));
	transfer(p, &p->b, 3, NOISE_OK);
	ct_pair_free(p);
}

/*
 * Sealing and opening work on any alignment (UDP payloads and MIPS), and
 * messages arriving in any order within the window each open exactly once.
 */
static void test_alignment_and_order(uint64_t seed)
{
	enum { N = 300, LEN = 45 };
	struct ct_pair *p = ct_pair_new(NULL);
	static uint8_t msgs[N][LEN + MESSAGE_DATA_OVERHEAD + 8];
	uint8_t plain[LEN], buf[LEN + MESSAGE_DATA_OVERHEAD + 8];
	unsigned int order[N], i, j, tmp, opened = 0, replayed = 0;
	struct noise_remote *r;
	enum noise_result res;
	struct tu_rng rng;
	size_t off, n;

	tu_rng_seed(&rng, seed);
	CHECK(ct_handshake(p, &p->a));
	for (off = 0; off < 8; off++) {
		fill_pattern(plain, LEN, (uint8_t)off);
		memcpy(buf + off + MESSAGE_DATA_HEADER_LEN, plain, LEN);
		CHECK_EQ(noise_seal(&p->a.remote, buf + off, LEN, p->now), NOISE_OK);
		memmove(buf + 7 - off, buf + off, LEN + MESSAGE_DATA_OVERHEAD);
		CHECK_EQ(noise_open(&p->b.local, buf + 7 - off, LEN + MESSAGE_DATA_OVERHEAD, p->now, &r), NOISE_OK);
		tu_check_mem(buf + 7 - off + MESSAGE_DATA_HEADER_LEN, plain, LEN, "sealed at +%zu, opened at +%zu",
			     off, 7 - off);
	}
	for (i = 0; i < N; i++) {
		fill_pattern(plain, LEN, (uint8_t)i);
		n = ct_seal(p, &p->b, msgs[i], plain, LEN, &res);
		CHECK_EQ(n, LEN + MESSAGE_DATA_OVERHEAD);
		order[i] = i;
	}
	for (i = N - 1; i > 0; i--) {
		j = (unsigned int)tu_rng_below(&rng, i + 1);
		tmp = order[i];
		order[i] = order[j];
		order[j] = tmp;
	}
	for (i = 0; i < N; i++) {
		memcpy(buf, msgs[order[i]], LEN + MESSAGE_DATA_OVERHEAD);
		opened += noise_open(&p->a.local, buf, LEN + MESSAGE_DATA_OVERHEAD, p->now, &r) == NOISE_OK;
		fill_pattern(plain, LEN, (uint8_t)order[i]);
		if (memcmp(buf + MESSAGE_DATA_HEADER_LEN, plain, LEN))
			opened = 0;
	}
	for (i = 0; i < N; i++) {
		memcpy(buf, msgs[i], LEN + MESSAGE_DATA_OVERHEAD);
		replayed += noise_open(&p->a.local, buf, LEN + MESSAGE_DATA_OVERHEAD, p->now, &r) == NOISE_DROP_REPLAY;
	}
	CHECK_EQ(opened, N);
	CHECK_EQ(replayed, N);
	ct_pair_free(p);
}

/*
 * Random garbage of every message type, half of it aimed at live indices
 * and all of it also fed past the mac1 check: nothing is accepted, nothing
 * crashes, and the session and the pending handshake work afterwards.
 */
static void test_garbage(uint64_t seed)
{
	struct ct_pair *p = ct_pair_new(NULL);
	uint8_t m1[148], m2[92], ts[12], buf[256];
	uint32_t live[3];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	struct tu_rng rng;
	unsigned long i, accepted = 0;
	size_t len;

	tu_rng_seed(&rng, seed);
	CHECK(ct_handshake(p, &p->a));
	ct_timestamp(p, ts);
	CHECK_EQ(noise_create_initiation(&p->a.remote, m1, ts, p->now), NOISE_OK);
	live[0] = le32_load(m1 + MESSAGE_INITIATION_SENDER);
	live[1] = p->a.remote.current->index.id;
	live[2] = p->b.remote.current->index.id;
	for (i = 0; i < 20000; i++) {
		unsigned int kind = (unsigned int)tu_rng_below(&rng, 4) + 1;
		uint32_t index = tu_rng_below(&rng, 2) ? live[tu_rng_below(&rng, 3)] : (uint32_t)tu_rng_next(&rng);

		tu_rng_fill(&rng, buf, sizeof(buf));
		le32_store(buf, kind);
		switch (kind) {
		case MESSAGE_HANDSHAKE_INITIATION:
			accepted += ct_receive_initiation(p, &p->b, buf, 148, tu_rng_below(&rng, 2), &verdict, &r) ==
				    NOISE_OK;
			accepted += noise_consume_initiation(&p->b.local, buf, p->now, &r) == NOISE_OK;
			break;
		case MESSAGE_HANDSHAKE_RESPONSE:
			le32_store(buf + MESSAGE_RESPONSE_RECEIVER, index);
			accepted += noise_consume_response(&p->a.local, buf, p->now, &r) == NOISE_OK;
			break;
		case MESSAGE_HANDSHAKE_COOKIE:
			le32_store(buf + MESSAGE_COOKIE_RECEIVER, index);
			r = noise_remote_by_index(&p->a.local, index);
			if (r)
				accepted += cookie_maker_consume_reply(&r->cookie, buf, p->now) == COOKIE_REPLY_OK;
			break;
		default:
			le32_store(buf + MESSAGE_DATA_RECEIVER, index);
			len = MESSAGE_DATA_MIN_LEN + (size_t)tu_rng_below(&rng, sizeof(buf) - MESSAGE_DATA_MIN_LEN + 1);
			accepted += noise_open(tu_rng_below(&rng, 2) ? &p->a.local : &p->b.local, buf, len, p->now,
					       &r) <= NOISE_OK_CONFIRMED;
			break;
		}
	}
	tu_check(accepted == 0, "garbage: %lu random messages accepted (seed %llu)", accepted,
		 (unsigned long long)seed);
	ct_check_indices(&p->a);
	ct_check_indices(&p->b);
	transfer(p, &p->a, 64, NOISE_OK);
	transfer(p, &p->b, 64, NOISE_OK);
	p->now += WG_SECONDS(1);
	CHECK_EQ(noise_consume_initiation(&p->b.local, m1, p->now, &r), NOISE_OK);
	CHECK_EQ(noise_create_response(&p->b.remote, m2, p->now), NOISE_OK);
	CHECK_EQ(noise_consume_response(&p->a.local, m2, p->now, &r), NOISE_OK);
	transfer(p, &p->a, 1, NOISE_OK_CONFIRMED);
	ct_pair_free(p);
}

int main(void)
{
	static const uint8_t psk[32] = { 0x42, 0x13, 0x37, [31] = 0x99 };

	test_constants();
	test_classify();
	test_tai64n();
	test_reference(NULL);
	test_reference(psk);
	test_handshake_and_data(NULL);
	test_handshake_and_data(psk);
	test_psk_mismatch();
	test_responder_waits();
	test_slot_table();
	test_flip_initiation();
	test_initiation_sender_misdirects();
	test_flip_response();
	test_flip_data();
	test_forged_counter();
	test_replayed_initiation();
	test_unknown_and_no_identity();
	test_small_order_key();
	test_rotation();
	test_reject_after_time();
	test_reject_after_messages();
	test_new_private_key();
	test_idle_remote();
	test_index_table_grows();
	test_simultaneous();
	test_alignment_and_order(tu_seed("core-noise", 0x6e6f697365ULL));
	test_garbage(tu_seed("core-noise", 0x6e6f697365ULL) + 1);
	return ct_exit("core-noise");
}
