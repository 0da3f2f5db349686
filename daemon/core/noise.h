/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Noise_IKpsk2 handshake and the transport keypairs (WP §5.4, §6.3;
 * doc/protocol.md §3, §5, §7).  Works on message bytes, indices and `now` only:
 * no sockets, no clock, no logging, and no allocation but one: the
 * storage of a remote's three keypair slots, allocated when its first
 * session begins and freed when its keys are cleared, so that an idle
 * peer does not carry three replay windows (3.4 KiB).  Results are
 * returned as enum noise_result and one caller (the shell's send/receive
 * path) acts on them.
 *
 * Files: noise.c, the handshake (identity, messages 1 and 2);
 * noise_keypair.c, the index table and the keypair slots, with the verbs
 * the three files share in noise_keypair.h; noise_data.c, the transport
 * data messages.
 *
 * Objects (the caller's storage, but for the keypair slots; embed them and
 * use container_of):
 *
 *  struct noise_local   the device: static private/public key, the cookie
 *                       checker (mac1/cookie keys of our public key, cookie
 *                       secret), the hash of the handshake prologue with our
 *                       public key, the table of live local indices, and the
 *                       caller's peer-lookup-by-public-key callback.
 *  struct noise_remote  one peer: its public key, the preshared key, the
 *                       static-static DH (computed on the first handshake
 *                       that needs it, again after an identity change: a
 *                       peer costs no X25519 when it is added), the greatest TAI64N
 *                       timestamp accepted and when the last initiation was
 *                       consumed (replay and flood protection, WP §5.1), the
 *                       handshake in progress, the three keypair slots
 *                       previous/current/next and their storage (NULL
 *                       while the remote has no session), and
 *                       the cookie maker (mac1/mac2 for what we send).
 *  struct noise_keypair one session: send/receive keys, send counter, the
 *                       replay window, birth time, who initiated it, our
 *                       index (inherited from the handshake) and theirs.
 *
 * Indices: every live handshake and keypair has a random 32-bit local
 * index, unique in its noise_local, drawn from its random source; peers echo
 * it as `receiver`.  The index table is an array of buckets with the
 * entries embedded in the handshake and keypair objects, so inserting and
 * looking up never allocates.  It starts with NOISE_INDEX_BUCKETS buckets
 * inside struct noise_local; noise_local_reserve(), called on the control
 * path as remotes are added, moves it to a larger array so that chains stay
 * short with tens of thousands of peers.
 *
 * Keypair slots (doc/protocol.md §7): the initiator installs a new session as
 * current at once (the old current becomes previous); the responder puts it
 * in next and may not send on it until a data message arrives on it (key
 * confirmation), which makes it current.  noise_seal() only ever uses
 * current, so the responder cannot send before confirmation.  A keypair
 * pointer stays valid (same storage) until the remote's next session is
 * installed or its keys are cleared; after that it may be reused for a new
 * session (or, after a clear, freed).
 *
 * Secrets: every temporary that held a DH result, chaining key, hash or
 * key is wiped before return, on success and on every failure; failed
 * consumption leaves the stored state unchanged.  DH results of all zeros
 * (small-order points) abort the step.  Tags are checked before any
 * plaintext is used.
 *
 * Randomness: ephemeral keys and indices, per handshake, and the cookie
 * secret and reply nonces, come from the noise_local's random source
 * (daemon/core/random.h): crypto_random() unless noise_local_set_random()
 * installed another.  Wall-clock time: the caller supplies the TAI64N timestamp
 * (see noise_tai64n()); monotonic time is the `now` argument (ns).
 */
#ifndef WGD_DAEMON_CORE_NOISE_H
#define WGD_DAEMON_CORE_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/core/cookie.h"
#include "daemon/core/messages.h"
#include "daemon/core/random.h"
#include "daemon/core/replay.h"

#define NOISE_INDEX_BUCKETS 2048	/* power of two; 16 KiB of pointers */
#define NOISE_INDEX_BUCKETS_MAX (1u << 20)	/* what noise_local_reserve() grows to, at most */
#define NOISE_KEYPAIR_SLOTS 3		/* previous, current, next */

enum noise_result {
	NOISE_OK = 0,
	/* a data message opened on `next`: the session is now current (key
	   confirmation); treat as handshake complete and flush staged packets */
	NOISE_OK_CONFIRMED,

	NOISE_DROP_NO_IDENTITY,		/* the device has no private key */
	NOISE_DROP_BAD_DH,		/* a DH gave all zeros (small-order key) */
	NOISE_DROP_BAD_TAG,		/* AEAD did not authenticate */
	NOISE_DROP_UNKNOWN_PEER,	/* initiation from a static key we do not know */
	NOISE_DROP_REPLAYED_TIMESTAMP,	/* timestamp not newer than the last accepted */
	NOISE_DROP_FLOOD,		/* initiation < 1/50 s after the last accepted */
	NOISE_DROP_UNKNOWN_INDEX,	/* receiver index not live (or not of the right kind) */
	NOISE_DROP_WRONG_STATE,		/* response to a handshake not awaiting one */
	NOISE_DROP_EXPIRED,		/* receive keypair older than REJECT_AFTER_TIME,
					   or its counter limit reached */
	NOISE_DROP_REPLAY,		/* counter seen before or behind the window */

	NOISE_ERR_NO_KEYPAIR,		/* seal: no current keypair usable for sending
					   (none, expired by time or messages, or
					   invalidated): stage and initiate */
	NOISE_ERR_WRONG_STATE,		/* create_response without a consumed initiation */
	NOISE_ERR_RANDOM,		/* the random source failed */
	NOISE_ERR_INDEX,		/* no free index found (table absurdly full) */
	NOISE_ERR_MEMORY,		/* no memory for the keypair slots */
};

/* A readable name for logs ("bad tag", ...). */
const char *noise_result_str(enum noise_result res);

enum noise_index_kind {
	NOISE_INDEX_HANDSHAKE = 1,
	NOISE_INDEX_KEYPAIR = 2,
};

/* An entry of the local index table, embedded in its owner. */
struct noise_index {
	struct noise_index *next;	/* bucket chain */
	struct noise_remote *remote;
	uint32_t id;
	uint8_t kind;			/* enum noise_index_kind */
	bool live;			/* in the table */
};

struct noise_local;
struct noise_remote;

/*
 * The caller's peer lookup by static public key, used when consuming an
 * initiation.  Returns NULL for an unknown key.
 */
typedef struct noise_remote *(*noise_lookup_fn)(void *ctx, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN]);

struct noise_local {
	uint8_t private_key[NOISE_PUBLIC_KEY_LEN];
	uint8_t public_key[NOISE_PUBLIC_KEY_LEN];
	uint8_t initial_hash[NOISE_HASH_LEN];	/* HASH(H0 || our public key) */
	bool has_identity;
	struct cookie_checker cookie;
	struct core_random random;	/* ephemerals, indices; the cookie checker has a copy */
	noise_lookup_fn lookup;
	void *lookup_ctx;
	struct noise_index **buckets;	/* fixed_buckets or an allocated array */
	size_t nbuckets;		/* a power of two >= NOISE_INDEX_BUCKETS */
	struct noise_index *fixed_buckets[NOISE_INDEX_BUCKETS];
	uint64_t keypair_serial;	/* the last keypair's noise_keypair.serial */
};

enum noise_handshake_state {
	NOISE_HANDSHAKE_ZEROED = 0,
	NOISE_HANDSHAKE_CREATED_INITIATION,
	NOISE_HANDSHAKE_CONSUMED_INITIATION,
};

struct noise_handshake {
	struct noise_index index;		/* live while state != ZEROED */
	enum noise_handshake_state state;
	uint32_t remote_index;
	uint8_t ephemeral_private[NOISE_PUBLIC_KEY_LEN];
	uint8_t remote_ephemeral[NOISE_PUBLIC_KEY_LEN];
	uint8_t hash[NOISE_HASH_LEN];
	uint8_t chaining_key[NOISE_HASH_LEN];
};

struct noise_keypair {
	struct noise_index index;	/* our index: the receiver of data to us */
	uint32_t remote_index;		/* theirs: the receiver of data we send */
	uint8_t send_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t recv_key[NOISE_SYMMETRIC_KEY_LEN];
	uint64_t send_counter;		/* next nonce to use */
	uint64_t birth;			/* now at derivation */
	bool is_initiator;		/* we sent the initiation of this session */
	bool can_send;			/* cleared at the counter limit or on expiry */
	bool can_receive;
	struct replay_counter replay;
	uint64_t serial;		/* unique in its noise_local: which session this is */
};

struct noise_remote {
	struct noise_local *local;
	uint8_t public_key[NOISE_PUBLIC_KEY_LEN];
	uint8_t preshared_key[NOISE_SYMMETRIC_KEY_LEN];
	uint8_t static_static[NOISE_PUBLIC_KEY_LEN];	/* DH(our private, their public) */
	bool static_static_valid;	/* computed for the current identity */
	bool static_static_ok;		/* valid and not all zeros */
	uint8_t latest_timestamp[NOISE_TIMESTAMP_LEN];
	uint64_t last_initiation_consumed;
	bool has_consumed_initiation;
	struct noise_handshake handshake;
	struct noise_keypair *previous;
	struct noise_keypair *current;
	struct noise_keypair *next;
	struct noise_keypair *keypair_storage;	/* NOISE_KEYPAIR_SLOTS, or NULL */
	struct cookie_maker cookie;
};

/* ---- the device identity ---- */

/*
 * Empty identity and index table; lookup is the peer-by-public-key
 * callback.  Random bytes from crypto_random() until
 * noise_local_set_random().
 */
void noise_local_init(struct noise_local *l, noise_lookup_fn lookup, void *ctx);

/*
 * Draw ephemeral keys, indices, the cookie secret and cookie-reply nonces
 * from random (copied; NULL: back to crypto_random()).  Call after
 * noise_local_init(), before the first handshake.
 */
void noise_local_set_random(struct noise_local *l, const struct core_random *random);

/*
 * Set (private_key non-NULL; it is clamped) or remove (NULL) the static
 * identity; updates the public key, the cookie checker keys and the
 * initial hash.  False if the key yields no public key (identity removed).
 * The caller must then call noise_remote_update_local() on every remote
 * (recomputes the static-static DH, drops handshakes, stops sending on
 * existing keypairs) and remove a peer whose key equals our new public key.
 */
bool noise_local_set_private(struct noise_local *l, const uint8_t *private_key);

/*
 * Room in the index table for `remotes` remotes: at least two buckets per
 * remote (an active remote has one or two live indices, at most four
 * during a rotation), a power of two, at most NOISE_INDEX_BUCKETS_MAX.
 * Never shrinks.  Allocates (control path only); false if out of memory,
 * and the table then keeps working with longer chains.
 */
bool noise_local_reserve(struct noise_local *l, size_t remotes);

/* Wipes the identity and cookie secret, frees the index table's array.
 * Remotes must be cleared first. */
void noise_local_clear(struct noise_local *l);

/* ---- peers ---- */

/* A remote with this public key, no PSK, no sessions; registers nothing. */
void noise_remote_init(struct noise_remote *r, struct noise_local *l,
		       const uint8_t public_key[NOISE_PUBLIC_KEY_LEN]);
/* Set the preshared key (NULL = none, i.e. 32 zero bytes). */
void noise_remote_set_preshared_key(struct noise_remote *r, const uint8_t *psk);
/* After noise_local_set_private(): see there. */
void noise_remote_update_local(struct noise_remote *r);
/* Stop sending on current and next (they still receive); forces a new handshake. */
void noise_remote_expire_current(struct noise_remote *r);
/* Wipe the handshake and all three keypairs, and unregister their indices. */
void noise_remote_clear_keys(struct noise_remote *r);
/* clear_keys plus every key and timestamp: the remote is dead. */
void noise_remote_clear(struct noise_remote *r);

/* The remote whose live handshake or keypair has this index (cookie replies), or NULL. */
struct noise_remote *noise_remote_by_index(struct noise_local *l, uint32_t index);

/* The current keypair (may be unusable for sending), for the timers' rekey rules. */
static inline const struct noise_keypair *noise_remote_current(const struct noise_remote *r)
{
	return r->current;
}

/* ---- handshake (WP §5.4.2, §5.4.3) ---- */

/*
 * TAI64N of a wall-clock time (unix ns), nanoseconds rounded down to a
 * multiple of 2^24 so the timestamp does not leak precise timing; WP §5.1
 * asks only that it grow (doc/protocol.md §1).
 */
void noise_tai64n(uint8_t out[NOISE_TIMESTAMP_LEN], uint64_t unix_ns);

/*
 * Message 1: a new ephemeral and a new local index; any previous handshake
 * of this remote is abandoned.  mac1/mac2 filled by the cookie maker.
 * timestamp is TAI64N (noise_tai64n()) and must grow between calls.
 */
enum noise_result noise_create_initiation(struct noise_remote *r, uint8_t out[MESSAGE_INITIATION_LEN],
					  const uint8_t timestamp[NOISE_TIMESTAMP_LEN], uint64_t now);

/*
 * Consume message 1 (length and mac1/mac2 already checked at the edge).
 * On NOISE_OK, *remote is the sending peer, its handshake is in state
 * CONSUMED_INITIATION, and the caller should answer with
 * noise_create_response().  Updates nothing on failure.
 */
enum noise_result noise_consume_initiation(struct noise_local *l, const uint8_t msg[MESSAGE_INITIATION_LEN],
					   uint64_t now, struct noise_remote **remote);

/*
 * Message 2, then begin the session as responder: the new keypair goes to
 * `next` (the old next and previous are freed) and inherits the new local
 * index; the handshake is wiped.  Only from CONSUMED_INITIATION.
 */
enum noise_result noise_create_response(struct noise_remote *r, uint8_t out[MESSAGE_RESPONSE_LEN],
					uint64_t now);

/*
 * Consume message 2 addressed to one of our handshakes, then begin the
 * session as initiator: the new keypair becomes current at once.  On
 * NOISE_OK, *remote is the peer; the caller sends its staged packets, or a
 * keepalive if none, to confirm the session to the responder.
 */
enum noise_result noise_consume_response(struct noise_local *l, const uint8_t msg[MESSAGE_RESPONSE_LEN],
					 uint64_t now, struct noise_remote **remote);

/* ---- transport data (WP §5.4.6) ---- */

/*
 * A data message's cryptography, cut out of sealing and opening so that it
 * may run on another thread: noise_seal_prepare() and noise_open_prepare()
 * do the protocol's part (keypair, counter, limits) and copy what the AEAD
 * needs here; noise_crypt_seal() and noise_crypt_open() touch nothing but
 * this and the message; noise_open_finish() then checks the keypair again
 * and moves the replay window, in the order the messages arrived.  The key
 * is a copy: the keypair may be freed meanwhile.  Wipe with
 * noise_crypt_wipe().
 */
struct noise_crypt {
	uint8_t key[NOISE_SYMMETRIC_KEY_LEN];
	uint64_t counter;		/* the nonce */
	const struct noise_keypair *kp;	/* opening: the keypair, compared again by finish */
	uint64_t serial;		/* ... and its serial */
};

/*
 * Sealing's protocol part: the current keypair must be able to send at
 * now; takes the next counter and writes the header into msg.  Then
 * noise_crypt_seal() encrypts plain_len bytes after the header and appends
 * the tag.  NOISE_ERR_NO_KEYPAIR leaves msg and c untouched.
 */
enum noise_result noise_seal_prepare(struct noise_remote *r, uint8_t *msg, uint64_t now,
				     struct noise_crypt *c);
void noise_crypt_seal(const struct noise_crypt *c, uint8_t *msg, size_t plain_len);

/*
 * Opening's protocol part, changing nothing: the keypair the receiver index
 * names, not expired or past its message limit.  Then noise_crypt_open()
 * authenticates and decrypts in place (false: the tag did not verify), and
 * noise_open_finish(), with the result, checks the keypair is still the one
 * found and still may receive, and moves the replay window: NOISE_OK or
 * NOISE_OK_CONFIRMED as noise_open().  Between prepare and finish other
 * messages may be finished: the outcome is the one noise_open() would have
 * given in the same order.
 */
enum noise_result noise_open_prepare(struct noise_local *l, const uint8_t *msg, size_t len, uint64_t now,
				     struct noise_crypt *c);
bool noise_crypt_open(const struct noise_crypt *c, uint8_t *msg, size_t len);
enum noise_result noise_open_finish(struct noise_local *l, const uint8_t *msg, const struct noise_crypt *c,
				    bool authentic, uint64_t now, struct noise_remote **remote);
void noise_crypt_wipe(struct noise_crypt *c);

/*
 * Seal in place with the current keypair.  msg has MESSAGE_DATA_HEADER_LEN
 * bytes of headroom, then plain_len bytes of (already padded, see
 * message_data_padded_len()) plaintext, then NOISE_AUTHTAG_LEN bytes of
 * tailroom; on NOISE_OK the message is msg[0 .. plain_len +
 * MESSAGE_DATA_OVERHEAD).  NOISE_ERR_NO_KEYPAIR if there is no current
 * keypair that may send at `now` (msg untouched).  The counter after use
 * reaching REJECT_AFTER_MESSAGES retires the keypair for sending.
 */
enum noise_result noise_seal(struct noise_remote *r, uint8_t *msg, size_t plain_len, uint64_t now);

/*
 * Open a data message in place (len >= MESSAGE_DATA_MIN_LEN, classified at
 * the edge): look up the keypair by receiver index, reject it if older than
 * REJECT_AFTER_TIME or past REJECT_AFTER_MESSAGES, authenticate and
 * decrypt, then check and update the replay window.  On success the
 * plaintext is msg[MESSAGE_DATA_HEADER_LEN .. len - NOISE_AUTHTAG_LEN)
 * (length 0 = keepalive), *remote is the peer, and the result is NOISE_OK
 * or NOISE_OK_CONFIRMED (it arrived on `next`, which is now current).
 * On failure nothing changes (the buffer may hold garbage).
 */
enum noise_result noise_open(struct noise_local *l, uint8_t *msg, size_t len, uint64_t now,
			     struct noise_remote **remote);

#endif
