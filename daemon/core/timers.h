/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-peer protocol timers (WP §6; doc/protocol.md §8) as a closed list of events
 * plus one pure function, timers_expire(), that says what is due at `now`
 * and when the next deadline is.  No clock, no callbacks, no allocation:
 * deadlines are monotonic ns, and the caller keeps one loop deadline (the
 * minimum over its peers) and calls timers_expire() when it passes.
 *
 * The five timers of the kernel and wireguard-go, as deadlines:
 *   retransmit     REKEY_TIMEOUT + jitter after each initiation sent;
 *                  on expiry retry (<= MAX_TIMER_HANDSHAKES retries, so at
 *                  most 20 initiations per attempt) or give up
 *   keepalive      KEEPALIVE_TIMEOUT after data was received and nothing
 *                  was sent back (passive keepalive, WP §6.5)
 *   new_handshake  KEEPALIVE_TIMEOUT + REKEY_TIMEOUT + jitter after data
 *                  was sent and nothing came back (dead peer, WP §6.5)
 *   zero_keys      ZERO_KEYS_TIMEOUT (540 s) after the last session was
 *                  derived (WP §6.3)
 *   persistent     the configured interval after any authenticated packet
 *                  either way
 * plus the initiation rate limit: no initiation within REKEY_TIMEOUT of the
 * last initiation or response sent (WP §6.1).
 *
 * Jitter is an input (ns, reduced modulo 334 ms): tests fix it, the daemon
 * draws it from any cheap generator (it needs no secrecy).
 *
 * What the caller reports, per packet kind (the kernel's call sites):
 *   initiation sent:   on_authenticated_sent, on_handshake_initiated
 *   response sent:     on_authenticated_sent, on_handshake_response_sent,
 *                      on_session_derived
 *   response consumed: on_authenticated_received, on_handshake_complete,
 *                      on_session_derived (then send staged or a keepalive)
 *   initiation consumed: on_authenticated_received
 *   data sealed+sent:  on_authenticated_sent; plus on_data_sent if it was
 *                      not a keepalive; then timers_rekey_on_send()
 *   data opened:       on_authenticated_received; plus on_data_received if
 *                      not a keepalive; plus on_handshake_complete if the
 *                      open confirmed a session (responder); then
 *                      timers_rekey_on_receive()
 *   cookie reply:      nothing (not authenticated)
 */
#ifndef WGD_DAEMON_CORE_TIMERS_H
#define WGD_DAEMON_CORE_TIMERS_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/core/messages.h"

struct noise_remote;

#define TIMERS_NEVER UINT64_MAX

#define TIMERS_DEADLINES 5

struct timers {
	/* the five deadlines, by name and as one array (timers_next_deadline()) */
	union {
		struct {
			uint64_t retransmit_at;		/* TIMERS_NEVER when disarmed */
			uint64_t keepalive_at;
			uint64_t new_handshake_at;
			uint64_t zero_keys_at;
			uint64_t persistent_at;
		};
		uint64_t deadlines[TIMERS_DEADLINES];
	};
	uint64_t initiation_allowed_at;	/* last initiation/response sent + REKEY_TIMEOUT */
	unsigned int handshake_attempts;	/* retries in the current attempt */
	uint16_t persistent_interval;	/* s, 0 = off */
	bool sent_lastminute_handshake;
	bool up;			/* interface running: persistent keepalives allowed */
};

/* What timers_expire() found due; a bit set, acted on in this order. */
enum timers_action {
	TIMERS_GIVE_UP = 1u << 0,	/* drop the staged packets */
	TIMERS_ZERO_KEYS = 1u << 1,	/* noise_remote_clear_keys() */
	TIMERS_CLEAR_SRC = 1u << 2,	/* forget the cached local source address */
	TIMERS_SEND_INITIATION = 1u << 3, /* create and send a new initiation (new
					     ephemeral), then report it */
	TIMERS_SEND_KEEPALIVE = 1u << 4,  /* seal and send an empty data message
					     (stage + initiate if no key) */
};

/* All timers disarmed, no attempts, persistent keepalive off, interface down. */
void timers_init(struct timers *t);

/* Interface up: timers may run; a persistent keepalive is due at once. */
void timers_on_interface_up(struct timers *t, uint64_t now);
/*
 * Interface down / peer removed: disarm everything and forget the
 * initiation rate limit (keeps the keepalive interval).
 */
void timers_stop(struct timers *t);

/*
 * Our private key changed and the current keypairs were expired: forget
 * the initiation rate limit, as the kernel does when it expires a peer's
 * keypairs, so that the handshake with the new key may leave at once.
 */
void timers_on_keys_changed(struct timers *t);

/*
 * Set the persistent keepalive interval (s).  Going from 0 to n on a
 * running interface makes a keepalive due at once (as the kernel does).
 */
void timers_on_persistent_keepalive_set(struct timers *t, uint16_t interval, uint64_t now);

/* ---- events ---- */
void timers_on_data_sent(struct timers *t, uint64_t now, uint64_t jitter);
void timers_on_data_received(struct timers *t, uint64_t now);
void timers_on_authenticated_sent(struct timers *t, uint64_t now);
void timers_on_authenticated_received(struct timers *t, uint64_t now);
void timers_on_handshake_initiated(struct timers *t, uint64_t now, uint64_t jitter);
void timers_on_handshake_response_sent(struct timers *t, uint64_t now);
void timers_on_handshake_complete(struct timers *t, uint64_t now);
void timers_on_session_derived(struct timers *t, uint64_t now);

/*
 * The send path wants a handshake (data or a keepalive waiting without a
 * usable key, or a rekey rule fired).  Every such request restarts the
 * attempt count (WP §6.4); the retransmission timer's retries do not come
 * through here.  Returns true if an initiation may be sent now (rate
 * limit: REKEY_TIMEOUT since the last initiation or response); the caller
 * then creates it, sends it and reports on_handshake_initiated.  False:
 * the request is dropped, as the kernel drops it (nothing is armed): an
 * initiation of ours in flight has its retransmission timer, and a
 * response just sent means the peer's handshake is under way.
 */
bool timers_want_initiation(struct timers *t, uint64_t now);

/*
 * Rekey rules (WP §6.2), evaluated on the remote's current keypair:
 * on send, true if its send counter passed REKEY_AFTER_MESSAGES, or we
 * initiated it and it is older than REKEY_AFTER_TIME;
 * on receive, true once per session if we initiated it and it is older
 * than REKEY_ON_RECEIVE_AGE (165 s), the "last-minute" handshake.
 * A true result means: call timers_want_initiation().
 */
bool timers_rekey_on_send(const struct noise_remote *r, uint64_t now);
bool timers_rekey_on_receive(struct timers *t, const struct noise_remote *r, uint64_t now);

/*
 * Everything due at `now`, as a set of enum timers_action bits (0 if
 * nothing), with the timers advanced; *next receives the earliest pending
 * deadline or TIMERS_NEVER.  Rules:
 *  - retransmit: after MAX_TIMER_HANDSHAKES retries, GIVE_UP (also
 *    disarms the keepalive and arms zero_keys if it is not pending); else
 *    attempts++ and CLEAR_SRC | SEND_INITIATION.  If a response was sent
 *    less than REKEY_TIMEOUT ago the retry is dropped (CLEAR_SRC only;
 *    the peer's handshake is under way), as the kernel drops it.
 *  - new_handshake: CLEAR_SRC | SEND_INITIATION with attempts reset (or
 *    CLEAR_SRC only, dropped like a retry).
 *  - keepalive and persistent (if the interval is set): SEND_KEEPALIVE.
 *  - zero_keys: ZERO_KEYS.
 */
unsigned int timers_expire(struct timers *t, uint64_t now, uint64_t *next);

/* The earliest pending deadline, or TIMERS_NEVER. */
WGD_OUT_OF_LINE uint64_t timers_next_deadline(const struct timers *t);

#endif
