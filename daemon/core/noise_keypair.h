/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the noise module (daemon/core/noise.h): what the handshake
 * (noise.c) and the data messages (noise_data.c) share with the index table
 * and the keypair slots (noise_keypair.c).  Callers outside daemon/core/noise*.c
 * use noise.h only.
 *
 * The index table: every live handshake and keypair is in it under a
 * random 32-bit index, unique in its noise_local (noise.h, "Indices").
 * The keypair slots: previous, current and next of a remote, and the
 * storage behind them, allocated with its first session (doc/protocol.md §7).
 */
#ifndef WGD_DAEMON_CORE_NOISE_KEYPAIR_H
#define WGD_DAEMON_CORE_NOISE_KEYPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/core/noise.h"

/* The live entry with this id, or NULL. */
struct noise_index *noise_index_find(struct noise_local *l, uint32_t id);

/*
 * Give e a fresh random id, unique among the live entries of l, and put it
 * in the table for r (out of it first if it was live).  NOISE_ERR_RANDOM or
 * NOISE_ERR_INDEX leave e out of the table.
 */
enum noise_result noise_index_insert_random(struct noise_local *l, struct noise_index *e,
					    struct noise_remote *r, enum noise_index_kind kind);

/* Wipe r's handshake and take its index out of the table. */
void noise_handshake_clear(struct noise_remote *r);

/*
 * Storage for r's keypair slots, if it has none yet; false if out of
 * memory.  Call only after a handshake message authenticated.
 */
bool noise_remote_reserve_keypairs(struct noise_remote *r);

/*
 * Begin the session (WP §5.4.5) from the handshake's final chaining key:
 * derive the keypair, put it in its slot (current for the initiator, next
 * for the responder), hand it the handshake's index and clear the
 * handshake.  The slots' storage must be reserved.
 */
void noise_begin_session(struct noise_remote *r, const uint8_t chain[NOISE_HASH_LEN], bool initiator,
			 uint64_t now);

/* Key confirmation (doc/protocol.md §7): next becomes current, current previous. */
void noise_keypair_confirm(struct noise_remote *r);

#endif
