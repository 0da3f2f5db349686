// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-peer timers as deadlines (WP §6; doc/protocol.md §8; see timers.h).  Each
 * event function is a few assignments; timers_expire() is the only place
 * where deadlines turn into actions.
 */
#include <string.h>

#include "daemon/core/noise.h"
#include "daemon/core/timers.h"

#define JITTER_RANGE (REKEY_TIMEOUT_JITTER_MAX_MS * WG_NSEC_PER_MSEC)
/* JITTER_RANGE = 2^7 * JITTER_ODD, JITTER_ODD < 2^22 (wg_divmod_small()) */
#define JITTER_ODD 2609375u
_Static_assert((uint64_t)JITTER_ODD << 7 == JITTER_RANGE && JITTER_ODD < (1u << 22),
	       "JITTER_RANGE splits as 2^7 * JITTER_ODD");

/* jitter % JITTER_RANGE: the 2^7 part by masking, the rest by wg_divmod_small() */
static uint64_t jitter_ns(uint64_t jitter)
{
	uint32_t r;

	wg_divmod_small(jitter >> 7, JITTER_ODD, &r);
	return (uint64_t)r << 7 | (jitter & 127);
}

static void disarm_all(struct timers *t)
{
	int i;

	for (i = 0; i < TIMERS_DEADLINES; i++)
		t->deadlines[i] = TIMERS_NEVER;
}

void timers_init(struct timers *t)
{
	memset(t, 0, sizeof(*t));
	disarm_all(t);
	t->initiation_allowed_at = 0;
}

void timers_stop(struct timers *t)
{
	disarm_all(t);
	t->handshake_attempts = 0;
	t->sent_lastminute_handshake = false;
	t->up = false;
	/*
	 * Down forgets the initiation rate limit, as the kernel and
	 * wireguard-go do: the sessions are gone, so a quick down/up must be
	 * able to start a handshake at once rather than wait out 5 s.
	 */
	t->initiation_allowed_at = 0;
}

void timers_on_keys_changed(struct timers *t)
{
	t->initiation_allowed_at = 0;
}

void timers_on_interface_up(struct timers *t, uint64_t now)
{
	t->up = true;
	if (t->persistent_interval)
		t->persistent_at = now;
}

void timers_on_persistent_keepalive_set(struct timers *t, uint16_t interval, uint64_t now)
{
	uint16_t old = t->persistent_interval;

	t->persistent_interval = interval;
	if (!interval)
		t->persistent_at = TIMERS_NEVER;
	else if (!old && t->up)
		t->persistent_at = now;
}

static void arm_persistent(struct timers *t, uint64_t now)
{
	if (t->persistent_interval)
		t->persistent_at = now + WG_SECONDS(t->persistent_interval);
}

/* WP §6.5: data sent and nothing heard back within 15 s -> new handshake. */
void timers_on_data_sent(struct timers *t, uint64_t now, uint64_t jitter)
{
	if (t->new_handshake_at == TIMERS_NEVER)
		t->new_handshake_at = now + WG_SECONDS(KEEPALIVE_TIMEOUT + REKEY_TIMEOUT) + jitter_ns(jitter);
}

/*
 * WP §6.5: data received and nothing sent back within 10 s -> keepalive.
 * The deadline runs from the first unanswered packet.  Unlike the kernel
 * there is no "need another keepalive" flag: the keepalive sent at expiry
 * answers every packet received until then, and sending it cancels this
 * timer (timers_on_authenticated_sent), so a second one would answer
 * nothing.
 */
void timers_on_data_received(struct timers *t, uint64_t now)
{
	if (t->keepalive_at == TIMERS_NEVER)
		t->keepalive_at = now + WG_SECONDS(KEEPALIVE_TIMEOUT);
}

/* Anything we send acknowledges everything received so far. */
void timers_on_authenticated_sent(struct timers *t, uint64_t now)
{
	t->keepalive_at = TIMERS_NEVER;
	arm_persistent(t, now);
}

/* Anything authenticated from the peer proves it alive. */
void timers_on_authenticated_received(struct timers *t, uint64_t now)
{
	t->new_handshake_at = TIMERS_NEVER;
	arm_persistent(t, now);
}

void timers_on_handshake_initiated(struct timers *t, uint64_t now, uint64_t jitter)
{
	t->initiation_allowed_at = now + WG_SECONDS(REKEY_TIMEOUT);
	t->retransmit_at = now + WG_SECONDS(REKEY_TIMEOUT) + jitter_ns(jitter);
}

void timers_on_handshake_response_sent(struct timers *t, uint64_t now)
{
	t->initiation_allowed_at = now + WG_SECONDS(REKEY_TIMEOUT);
}

void timers_on_handshake_complete(struct timers *t, uint64_t now)
{
	(void)now;
	t->retransmit_at = TIMERS_NEVER;
	t->handshake_attempts = 0;
	t->sent_lastminute_handshake = false;
}

void timers_on_session_derived(struct timers *t, uint64_t now)
{
	t->zero_keys_at = now + WG_SECONDS(ZERO_KEYS_TIMEOUT);
}

/*
 * Rate-limited: an initiation may leave only REKEY_TIMEOUT after the last
 * initiation or response (WP §6.1).  A refused request is dropped, as the
 * kernel drops it: a retransmission in flight follows up on its own, and a
 * response just sent means the peer's handshake is under way.  Arming a
 * retry here instead made a responder whose confirmation was lost start
 * initiating 5 s later, and keep retrying for 90 s, with no new data.
 */
static bool initiation_allowed(const struct timers *t, uint64_t now)
{
	return now >= t->initiation_allowed_at;
}

bool timers_want_initiation(struct timers *t, uint64_t now)
{
	t->handshake_attempts = 0;	/* WP §6.4: new data restarts the attempts */
	return initiation_allowed(t, now);
}

bool timers_rekey_on_send(const struct noise_remote *r, uint64_t now)
{
	const struct noise_keypair *kp = noise_remote_current(r);

	if (!kp || !kp->can_send)
		return false;
	if (kp->send_counter > REKEY_AFTER_MESSAGES)
		return true;
	/* Time-based rekey is the initiator's job only, so both sides do not rekey at once. */
	return kp->is_initiator && wg_age_reached(kp->birth, now, WG_SECONDS(REKEY_AFTER_TIME));
}

bool timers_rekey_on_receive(struct timers *t, const struct noise_remote *r, uint64_t now)
{
	const struct noise_keypair *kp = noise_remote_current(r);

	if (!kp || !kp->can_send || !kp->is_initiator || t->sent_lastminute_handshake)
		return false;
	if (!wg_age_reached(kp->birth, now, WG_SECONDS(REKEY_ON_RECEIVE_AGE)))
		return false;
	t->sent_lastminute_handshake = true;
	return true;
}

static unsigned int expire_retransmit(struct timers *t, uint64_t now)
{
	t->retransmit_at = TIMERS_NEVER;
	if (t->handshake_attempts > MAX_TIMER_HANDSHAKES) {
		/* WP §6.4: give up on this attempt; keys go 540 s later. */
		t->keepalive_at = TIMERS_NEVER;
		if (t->zero_keys_at == TIMERS_NEVER)
			t->zero_keys_at = now + WG_SECONDS(ZERO_KEYS_TIMEOUT);
		return TIMERS_GIVE_UP;
	}
	t->handshake_attempts++;
	/* a response sent meanwhile: the peer's handshake is the one under way */
	if (!initiation_allowed(t, now))
		return TIMERS_CLEAR_SRC;
	return TIMERS_CLEAR_SRC | TIMERS_SEND_INITIATION;
}

static unsigned int expire_new_handshake(struct timers *t, uint64_t now)
{
	t->new_handshake_at = TIMERS_NEVER;
	t->handshake_attempts = 0;
	if (!initiation_allowed(t, now))
		return TIMERS_CLEAR_SRC;
	return TIMERS_CLEAR_SRC | TIMERS_SEND_INITIATION;
}

uint64_t timers_next_deadline(const struct timers *t)
{
	uint64_t next = TIMERS_NEVER;
	int i;

	for (i = 0; i < TIMERS_DEADLINES; i++)
		if (t->deadlines[i] < next)
			next = t->deadlines[i];
	return next;
}

unsigned int timers_expire(struct timers *t, uint64_t now, uint64_t *next)
{
	unsigned int actions = 0;

	if (t->retransmit_at <= now)
		actions |= expire_retransmit(t, now);
	if (t->new_handshake_at <= now)
		actions |= expire_new_handshake(t, now);
	if (t->keepalive_at <= now) {
		t->keepalive_at = TIMERS_NEVER;
		actions |= TIMERS_SEND_KEEPALIVE;
	}
	if (t->persistent_at <= now) {
		t->persistent_at = TIMERS_NEVER;
		if (t->persistent_interval)
			actions |= TIMERS_SEND_KEEPALIVE;
	}
	if (t->zero_keys_at <= now) {
		t->zero_keys_at = TIMERS_NEVER;
		actions |= TIMERS_ZERO_KEYS;
	}
	if (next)
		*next = timers_next_deadline(t);
	return actions;
}
