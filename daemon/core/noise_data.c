// SPDX-License-Identifier: GPL-2.0-only
/*
 * Transport data messages (WP §5.4.6; doc/protocol.md §7): sealed with the
 * current keypair, opened with the keypair their receiver index names;
 * the first message opened on `next` confirms its session.
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

enum noise_result noise_seal(struct noise_remote *r, uint8_t *msg, size_t plain_len, uint64_t now)
{
	struct noise_keypair *kp = r->current;
	uint64_t counter;

	if (!keypair_can_send(kp, now))
		return NOISE_ERR_NO_KEYPAIR;
	counter = kp->send_counter++;
	le32_store(msg, MESSAGE_DATA);
	le32_store(msg + MESSAGE_DATA_RECEIVER, kp->remote_index);
	le64_store(msg + MESSAGE_DATA_COUNTER, counter);
	chacha20poly1305_encrypt(msg + MESSAGE_DATA_HEADER_LEN, msg + MESSAGE_DATA_HEADER_LEN, plain_len,
				 NULL, 0, counter, kp->send_key);
	return NOISE_OK;
}

enum noise_result noise_open(struct noise_local *l, uint8_t *msg, size_t len, uint64_t now,
			     struct noise_remote **remote)
{
	struct noise_index *entry;
	struct noise_keypair *kp;
	struct noise_remote *r;
	uint64_t counter;

	*remote = NULL;
	if (len < MESSAGE_DATA_MIN_LEN)
		return NOISE_DROP_BAD_TAG;
	entry = noise_index_find(l, le32_load(msg + MESSAGE_DATA_RECEIVER));
	if (!entry || entry->kind != NOISE_INDEX_KEYPAIR)
		return NOISE_DROP_UNKNOWN_INDEX;
	kp = container_of(entry, struct noise_keypair, index);
	r = entry->remote;
	if (!kp->can_receive || wg_age_reached(kp->birth, now, WG_SECONDS(REJECT_AFTER_TIME)) ||
	    replay_counter_next(&kp->replay) >= REJECT_AFTER_MESSAGES)
		return NOISE_DROP_EXPIRED;

	counter = le64_load(msg + MESSAGE_DATA_COUNTER);
	if (!chacha20poly1305_decrypt(msg + MESSAGE_DATA_HEADER_LEN, msg + MESSAGE_DATA_HEADER_LEN,
				      len - MESSAGE_DATA_HEADER_LEN, NULL, 0, counter, kp->recv_key))
		return NOISE_DROP_BAD_TAG;
	/* Only an authenticated counter may move the window (WP §5.4.6). */
	if (!replay_counter_validate(&kp->replay, counter))
		return NOISE_DROP_REPLAY;

	*remote = r;
	if (kp == r->next) {
		noise_keypair_confirm(r);
		return NOISE_OK_CONFIRMED;
	}
	return NOISE_OK;
}
