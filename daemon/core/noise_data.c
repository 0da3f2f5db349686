// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transport data messages (WP §5.4.6; doc/protocol.md §7): sealed with the
 * current keypair, opened with the keypair their receiver index names;
 * the first message opened on `next` confirms its session.  Each is cut in
 * the protocol's part (prepare, finish), run in order by the one thread
 * that owns the protocol state, and the AEAD (noise_crypt_*), which may run
 * on any thread (noise.h, "transport data").
 */
#include <stddef.h>

#include "crypto/bytes.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/util.h"
#include "daemon/core/noise_keypair.h"

static bool keypair_can_send(const struct noise_keypair *kp, uint64_t now)
{
	return kp && kp->can_send && kp->send_counter < REJECT_AFTER_MESSAGES &&
	       !wg_age_reached(kp->birth, now, WG_SECONDS(REJECT_AFTER_TIME));
}

static bool keypair_can_receive(const struct noise_keypair *kp, uint64_t now)
{
	return kp->can_receive && !wg_age_reached(kp->birth, now, WG_SECONDS(REJECT_AFTER_TIME)) &&
	       replay_counter_next(&kp->replay) < REJECT_AFTER_MESSAGES;
}

enum noise_result noise_seal_prepare(struct noise_remote *r, uint8_t *msg, uint64_t now,
				     struct noise_crypt *c)
{
	struct noise_keypair *kp = r->current;

	if (!keypair_can_send(kp, now))
		return NOISE_ERR_NO_KEYPAIR;
	c->counter = kp->send_counter++;
	crypto_copy32(c->key, kp->send_key);
	c->kp = kp;
	c->serial = kp->serial;
	le32_store(msg, MESSAGE_DATA);
	le32_store(msg + MESSAGE_DATA_RECEIVER, kp->remote_index);
	le64_store(msg + MESSAGE_DATA_COUNTER, c->counter);
	return NOISE_OK;
}

void noise_crypt_seal(const struct noise_crypt *c, uint8_t *msg, size_t plain_len)
{
	chacha20poly1305_encrypt(msg + MESSAGE_DATA_HEADER_LEN, msg + MESSAGE_DATA_HEADER_LEN, plain_len,
				 NULL, 0, c->counter, c->key);
}

enum noise_result noise_seal(struct noise_remote *r, uint8_t *msg, size_t plain_len, uint64_t now)
{
	struct noise_crypt c;
	enum noise_result res = noise_seal_prepare(r, msg, now, &c);

	if (res == NOISE_OK)
		noise_crypt_seal(&c, msg, plain_len);
	noise_crypt_wipe(&c);
	return res;
}

/* The keypair msg's receiver index names, or NULL. */
static struct noise_keypair *keypair_of(struct noise_local *l, const uint8_t *msg)
{
	struct noise_index *entry = noise_index_find(l, le32_load(msg + MESSAGE_DATA_RECEIVER));

	if (!entry || entry->kind != NOISE_INDEX_KEYPAIR)
		return NULL;
	return container_of(entry, struct noise_keypair, index);
}

enum noise_result noise_open_prepare(struct noise_local *l, const uint8_t *msg, size_t len, uint64_t now,
				     struct noise_crypt *c)
{
	struct noise_keypair *kp;

	if (len < MESSAGE_DATA_MIN_LEN)
		return NOISE_DROP_BAD_TAG;
	kp = keypair_of(l, msg);
	if (!kp)
		return NOISE_DROP_UNKNOWN_INDEX;
	if (!keypair_can_receive(kp, now))
		return NOISE_DROP_EXPIRED;
	crypto_copy32(c->key, kp->recv_key);
	c->counter = le64_load(msg + MESSAGE_DATA_COUNTER);
	c->kp = kp;
	c->serial = kp->serial;
	return NOISE_OK;
}

bool noise_crypt_open(const struct noise_crypt *c, uint8_t *msg, size_t len)
{
	return chacha20poly1305_decrypt(msg + MESSAGE_DATA_HEADER_LEN, msg + MESSAGE_DATA_HEADER_LEN,
					len - MESSAGE_DATA_HEADER_LEN, NULL, 0, c->counter, c->key);
}

enum noise_result noise_open_finish(struct noise_local *l, const uint8_t *msg, const struct noise_crypt *c,
				    bool authentic, uint64_t now, struct noise_remote **remote)
{
	/*
	 * What finished since prepare may have freed the keypair or retired
	 * it: it is still the one found (the same entry under the index, the
	 * same session) and still receives, or the message is dropped as
	 * noise_open() would have dropped it then.
	 */
	struct noise_keypair *kp = keypair_of(l, msg);
	struct noise_remote *r;

	*remote = NULL;
	if (!kp || kp != c->kp || kp->serial != c->serial)
		return NOISE_DROP_UNKNOWN_INDEX;
	if (!keypair_can_receive(kp, now))
		return NOISE_DROP_EXPIRED;
	if (!authentic)
		return NOISE_DROP_BAD_TAG;
	/* Only an authenticated counter may move the window (WP §5.4.6). */
	if (!replay_counter_validate(&kp->replay, c->counter))
		return NOISE_DROP_REPLAY;
	r = kp->index.remote;
	*remote = r;
	if (kp == r->next) {
		noise_keypair_confirm(r);
		return NOISE_OK_CONFIRMED;
	}
	return NOISE_OK;
}

enum noise_result noise_open(struct noise_local *l, uint8_t *msg, size_t len, uint64_t now,
			     struct noise_remote **remote)
{
	struct noise_crypt c;
	enum noise_result res = noise_open_prepare(l, msg, len, now, &c);

	*remote = NULL;
	if (res == NOISE_OK)
		res = noise_open_finish(l, msg, &c, noise_crypt_open(&c, msg, len), now, remote);
	noise_crypt_wipe(&c);
	return res;
}

void noise_crypt_wipe(struct noise_crypt *c)
{
	crypto_wipe(c, sizeof(*c));
}
