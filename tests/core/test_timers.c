// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every timer rule of WP §6 / doc/protocol.md §8 with a fake clock: handshake
 * retransmission with jitter bounds and give-up after 18 retries, the
 * initiation rate limit, passive keepalive at 10 s, a new handshake 15 s
 * (+ jitter) after unanswered data, zeroing after 540 s, persistent
 * keepalive, the initiator-only rekey after 120 s or 2^60 messages, the
 * last-minute rekey at 165 s.  The same rules acted on by real devices over
 * clean, lossy and dead links are tests/datapath/test_device.c's.
 */
#include <string.h>

#include "daemon/core/timers.h"
#include "tests/core/coretest.h"

#define S(x) WG_SECONDS(x)
#define MS(x) ((uint64_t)(x) * WG_NSEC_PER_MSEC)
#define T0 S(1000)

static unsigned int expire(struct timers *t, uint64_t now)
{
	uint64_t next;
	unsigned int actions = timers_expire(t, now, &next);

	CHECK(next > now);
	CHECK_EQ(next, timers_next_deadline(t));
	return actions;
}

static struct timers fresh(void)
{
	struct timers t;

	timers_init(&t);
	timers_on_interface_up(&t, T0);
	return t;
}

static void test_idle(void)
{
	struct timers t = fresh();

	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
	CHECK_EQ(expire(&t, T0 + S(100000)), 0);
	CHECK(timers_want_initiation(&t, T0));
}

/* Retransmission: 5 s + jitter, jitter in [0, 334 ms), whatever is passed in. */
static void test_retransmit_jitter(void)
{
	static const uint64_t jitters[] = { 0, 1, MS(333), MS(333) + 999999, MS(334), MS(335), UINT64_MAX,
					    0x123456789abcdefULL };
	struct tu_rng rng;
	size_t i;
	uint64_t j, deadline;

	tu_rng_seed(&rng, 42);
	for (i = 0; i < sizeof(jitters) / sizeof(jitters[0]) + 200; i++) {
		struct timers t = fresh();

		j = i < sizeof(jitters) / sizeof(jitters[0]) ? jitters[i] : tu_rng_next(&rng);
		timers_on_handshake_initiated(&t, T0, j);
		deadline = timers_next_deadline(&t);
		tu_check(deadline >= T0 + S(5) && deadline < T0 + S(5) + MS(334),
			 "retransmit deadline %llu ns after the initiation (jitter %llu)",
			 (unsigned long long)(deadline - T0), (unsigned long long)j);
		CHECK_EQ(expire(&t, deadline - 1), 0);
		CHECK_EQ(expire(&t, deadline), TIMERS_CLEAR_SRC | TIMERS_SEND_INITIATION);
	}
	{
		struct timers t = fresh();

		timers_on_handshake_initiated(&t, T0, MS(100));
		CHECK_EQ(timers_next_deadline(&t), T0 + S(5) + MS(100));
		timers_on_handshake_initiated(&t, T0, MS(334) + MS(7));
		CHECK_EQ(timers_next_deadline(&t), T0 + S(5) + MS(7));
	}
}

/*
 * No answer at all: one initiation, then MAX_TIMER_HANDSHAKES + 1 = 19
 * retries, 20 in all, then give up; keys are zeroed 540 s later.
 */
static void test_give_up(void)
{
	struct timers t = fresh();
	uint64_t now = T0, next, gave_up_at = 0;
	unsigned int sent = 0, actions, rounds;

	CHECK(timers_want_initiation(&t, now));
	timers_on_authenticated_sent(&t, now);
	timers_on_handshake_initiated(&t, now, MS(333));
	sent++;
	timers_on_data_received(&t, now);	/* a keepalive is pending too */
	for (rounds = 0; rounds < 100; rounds++) {
		next = timers_next_deadline(&t);
		if (next == TIMERS_NEVER)
			break;
		now = next;
		actions = expire(&t, now);
		if (actions & TIMERS_SEND_INITIATION) {
			CHECK(!(actions & TIMERS_GIVE_UP));
			sent++;
			timers_on_authenticated_sent(&t, now);
			timers_on_handshake_initiated(&t, now, (uint64_t)rounds * MS(17));
			/* keep a passive keepalive pending: giving up must cancel it */
			timers_on_data_received(&t, now);
		}
		if (actions & TIMERS_GIVE_UP) {
			gave_up_at = now;
			CHECK(!(actions & TIMERS_SEND_KEEPALIVE));
			CHECK_EQ(t.keepalive_at, TIMERS_NEVER);
			CHECK_EQ(timers_next_deadline(&t), now + S(540));
		}
		if (actions & TIMERS_ZERO_KEYS) {
			CHECK(gave_up_at && now == gave_up_at + S(540));
			break;
		}
	}
	CHECK_EQ(sent, MAX_TIMER_HANDSHAKES + 2);
	CHECK(gave_up_at != 0);
	/* 20 initiations 5 s + jitter apart: between 100 s and 100 s + 20 x 334 ms */
	CHECK(gave_up_at - T0 >= S(100) && gave_up_at - T0 < S(100) + 20 * MS(334));
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);

	/* new data after giving up starts a whole new cycle */
	CHECK(timers_want_initiation(&t, now));
	CHECK_EQ(t.handshake_attempts, 0);
}

/* Data keeps flowing: each new packet restarts the attempts (WP §6.4). */
static void test_attempts_reset_by_data(void)
{
	struct timers t = fresh();
	uint64_t now = T0;
	unsigned int i, actions;

	timers_on_handshake_initiated(&t, now, 0);
	for (i = 0; i < 60; i++) {
		now = timers_next_deadline(&t);
		actions = expire(&t, now);
		CHECK(!(actions & TIMERS_GIVE_UP));
		if (actions & TIMERS_SEND_INITIATION)
			timers_on_handshake_initiated(&t, now, 0);
		if (i % 10 == 9)
			CHECK(!timers_want_initiation(&t, now));	/* just sent one: rate-limited */
	}
	CHECK(t.handshake_attempts <= 10);
}

/* Never an initiation within 5 s of the last initiation or response sent. */
static void test_rate_limit(void)
{
	struct timers t = fresh();

	timers_on_handshake_initiated(&t, T0, MS(200));
	CHECK(!timers_want_initiation(&t, T0 + S(5) - 1));
	CHECK(timers_want_initiation(&t, T0 + S(5)));

	t = fresh();
	timers_on_handshake_response_sent(&t, T0);
	CHECK(!timers_want_initiation(&t, T0 + S(1)));
	/* the refused request is dropped, as the kernel drops it: nothing armed */
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
	CHECK_EQ(expire(&t, T0 + S(100)), 0);
	CHECK(timers_want_initiation(&t, T0 + S(100)));

	/* a response sent while our retry is due: the retry is dropped too */
	t = fresh();
	timers_on_handshake_initiated(&t, T0, 0);
	timers_on_handshake_response_sent(&t, T0 + S(4));
	CHECK_EQ(expire(&t, T0 + S(5)), TIMERS_CLEAR_SRC);
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);

	/* interface down and up: the limit is forgotten with the sessions */
	t = fresh();
	timers_on_handshake_initiated(&t, T0, 0);
	CHECK(!timers_want_initiation(&t, T0 + S(1)));
	timers_stop(&t);
	timers_on_interface_up(&t, T0 + S(1));
	CHECK(timers_want_initiation(&t, T0 + S(1)));

	/* a new private key: the limit is forgotten too */
	t = fresh();
	timers_on_handshake_response_sent(&t, T0);
	CHECK(!timers_want_initiation(&t, T0 + S(1)));
	timers_on_keys_changed(&t);
	CHECK(timers_want_initiation(&t, T0 + S(1)));

	/* handshake complete cancels the retransmission */
	t = fresh();
	timers_on_handshake_initiated(&t, T0, 0);
	timers_on_handshake_complete(&t, T0 + S(1));
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
}

/* Passive keepalive: 10 s after data received with nothing sent back. */
static void test_keepalive(void)
{
	struct timers t = fresh();

	timers_on_data_received(&t, T0);
	timers_on_data_received(&t, T0 + S(3));	/* does not push it back */
	CHECK_EQ(timers_next_deadline(&t), T0 + S(10));
	CHECK_EQ(expire(&t, T0 + S(10) - 1), 0);
	CHECK_EQ(expire(&t, T0 + S(10)), TIMERS_SEND_KEEPALIVE);
	CHECK_EQ(expire(&t, T0 + S(30)), 0);	/* once */

	/* anything sent meanwhile answers it: no keepalive */
	timers_on_data_received(&t, T0 + S(40));
	timers_on_authenticated_sent(&t, T0 + S(45));
	CHECK_EQ(expire(&t, T0 + S(60)), 0);
	/* keepalives received do not ask for keepalives (no on_data_received) */
	timers_on_authenticated_received(&t, T0 + S(61));
	CHECK_EQ(expire(&t, T0 + S(80)), 0);
}

/* New handshake 10 + 5 s (+ jitter) after data sent without any answer. */
static void test_new_handshake(void)
{
	struct timers t = fresh();
	unsigned int actions;

	timers_on_data_sent(&t, T0, MS(250));
	timers_on_data_sent(&t, T0 + S(2), MS(10));	/* does not push it back */
	CHECK_EQ(timers_next_deadline(&t), T0 + S(15) + MS(250));
	CHECK_EQ(expire(&t, T0 + S(15) + MS(250) - 1), 0);
	actions = expire(&t, T0 + S(15) + MS(250));
	CHECK_EQ(actions, TIMERS_CLEAR_SRC | TIMERS_SEND_INITIATION);

	/* an authenticated packet from the peer cancels it */
	t = fresh();
	timers_on_data_sent(&t, T0, MS(334) + MS(5));
	CHECK_EQ(timers_next_deadline(&t), T0 + S(15) + MS(5));
	timers_on_authenticated_received(&t, T0 + S(14));
	CHECK_EQ(expire(&t, T0 + S(100)), 0);

	/* due while a response was just sent: dropped (the peer's handshake is under way) */
	t = fresh();
	timers_on_data_sent(&t, T0, 0);
	timers_on_handshake_response_sent(&t, T0 + S(13));
	CHECK_EQ(expire(&t, T0 + S(15)), TIMERS_CLEAR_SRC);
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
}

static void test_zero_keys(void)
{
	struct timers t = fresh();

	timers_on_session_derived(&t, T0);
	CHECK_EQ(timers_next_deadline(&t), T0 + S(540));
	timers_on_session_derived(&t, T0 + S(100));	/* a new session pushes it back */
	CHECK_EQ(expire(&t, T0 + S(540)), 0);
	CHECK_EQ(expire(&t, T0 + S(640) - 1), 0);
	CHECK_EQ(expire(&t, T0 + S(640)), TIMERS_ZERO_KEYS);
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
}

static void test_persistent_keepalive(void)
{
	struct timers t;

	/* set while down: nothing until the interface comes up */
	timers_init(&t);
	timers_on_persistent_keepalive_set(&t, 25, T0);
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
	timers_on_interface_up(&t, T0 + S(1));
	CHECK_EQ(expire(&t, T0 + S(1)), TIMERS_SEND_KEEPALIVE);
	timers_on_authenticated_sent(&t, T0 + S(1));
	CHECK_EQ(timers_next_deadline(&t), T0 + S(26));
	/* every authenticated packet either way pushes it back */
	timers_on_authenticated_received(&t, T0 + S(20));
	CHECK_EQ(expire(&t, T0 + S(26)), 0);
	CHECK_EQ(expire(&t, T0 + S(45)), TIMERS_SEND_KEEPALIVE);
	timers_on_authenticated_sent(&t, T0 + S(45));
	/* turned off: disarmed; 0 -> n while up: due at once */
	timers_on_persistent_keepalive_set(&t, 0, T0 + S(50));
	CHECK_EQ(expire(&t, T0 + S(1000)), 0);
	timers_on_persistent_keepalive_set(&t, 10, T0 + S(1000));
	CHECK_EQ(expire(&t, T0 + S(1000)), TIMERS_SEND_KEEPALIVE);
	timers_on_authenticated_sent(&t, T0 + S(1000));
	/* n -> m does not send at once; interface down stops everything */
	timers_on_persistent_keepalive_set(&t, 20, T0 + S(1001));
	CHECK_EQ(expire(&t, T0 + S(1001)), 0);
	timers_stop(&t);
	CHECK_EQ(timers_next_deadline(&t), TIMERS_NEVER);
	CHECK_EQ(t.persistent_interval, 20);
}

/* ---- rekey rules on real keypairs ---- */

static void test_rekey_rules(void)
{
	struct ct_pair *p = ct_pair_new(NULL);
	struct timers ta, tb;
	uint64_t born = p->now;

	timers_init(&ta);
	timers_init(&tb);
	CHECK(!timers_rekey_on_send(&p->a.remote, p->now));	/* no keypair yet */
	CHECK(ct_handshake(p, &p->a));

	/* on send: initiator only, after 120 s */
	CHECK(!timers_rekey_on_send(&p->a.remote, born + S(120) - 1));
	CHECK(timers_rekey_on_send(&p->a.remote, born + S(120)));
	CHECK(!timers_rekey_on_send(&p->b.remote, born + S(120)));
	CHECK(!timers_rekey_on_send(&p->b.remote, born + S(179)));
	/* on send, both sides: past 2^60 messages */
	p->b.remote.current->send_counter = REKEY_AFTER_MESSAGES;
	CHECK(!timers_rekey_on_send(&p->b.remote, born));
	p->b.remote.current->send_counter = REKEY_AFTER_MESSAGES + 1;
	CHECK(timers_rekey_on_send(&p->b.remote, born));

	/* on receive: the initiator, once, at 165 s */
	CHECK(!timers_rekey_on_receive(&ta, &p->a.remote, born + S(165) - 1));
	CHECK(timers_rekey_on_receive(&ta, &p->a.remote, born + S(165)));
	CHECK(!timers_rekey_on_receive(&ta, &p->a.remote, born + S(166)));
	CHECK(!timers_rekey_on_receive(&tb, &p->b.remote, born + S(170)));
	timers_on_handshake_complete(&ta, born + S(170));
	CHECK(timers_rekey_on_receive(&ta, &p->a.remote, born + S(170)));

	/* a keypair that may no longer send never asks for a rekey */
	noise_remote_expire_current(&p->a.remote);
	timers_on_handshake_complete(&ta, born + S(170));
	CHECK(!timers_rekey_on_send(&p->a.remote, born + S(170)));
	CHECK(!timers_rekey_on_receive(&ta, &p->a.remote, born + S(170)));
	ct_pair_free(p);
}

int main(void)
{
	test_idle();
	test_retransmit_jitter();
	test_give_up();
	test_attempts_reset_by_data();
	test_rate_limit();
	test_keepalive();
	test_new_handshake();
	test_zero_keys();
	test_persistent_keepalive();
	test_rekey_rules();
	return ct_exit("core-timers");
}
