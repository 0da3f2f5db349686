// SPDX-License-Identifier: GPL-2.0-only
/*
 * When sessions end and handshakes start, with real devices joined in one
 * process (simnet.h), as the kernel's WireGuard does it:
 *  - a new preshared key is only stored: the live session runs to its next
 *    rekey, so a rotation done one side at a time loses nothing until then
 *    (doc/protocol.md §7);
 *  - a handshake request refused by the initiation rate limit is dropped,
 *    not postponed: a responder whose confirmation was lost does not start
 *    initiating 5 s later with no new data (§8).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/core/messages.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"

/* Handshake initiations sent, by device. */
static unsigned long initiations[SIM_MAX_DEVS];

static void count_initiations(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	(void)n;
	if (m->len && m->data[0] == MESSAGE_HANDSHAKE_INITIATION)
		initiations[from->id]++;
}

static void setup(struct sim_net *n, struct sim_dev **a, struct sim_dev **b, uint64_t seed, const uint8_t *psk)
{
	sim_init(n, seed);
	memset(initiations, 0, sizeof(initiations));
	n->on_send = count_initiations;
	*a = sim_add(n);
	*b = sim_add(n);
	CHECK(*a && *b);
	CHECK_EQ(sim_peer(*a, *b, true, psk), 0);
	CHECK_EQ(sim_peer(*b, *a, true, psk), 0);
}

static void msg(struct sim_dev *from, struct sim_dev *to, const char *text)
{
	sim_send_inner(from, to, (const uint8_t *)text, strlen(text));
}

/* The payload of the last packet d's TUN device got. */
static bool got_payload(const struct sim_dev *d, const char *want)
{
	size_t len = strlen(want);

	return d->last_len == 20 + len && !memcmp(d->last + 20, want, len);
}

/*
 * One packet each way every second for secs seconds; returns how many of
 * them arrived, in all.
 */
static unsigned long exchange(struct sim_net *n, struct sim_dev *a, struct sim_dev *b, unsigned int secs)
{
	unsigned long before = a->tun_packets + b->tun_packets;
	unsigned int i;

	for (i = 0; i < secs; i++) {
		msg(a, b, "tick");
		msg(b, a, "tock");
		sim_run(n, n->now + SIM_S(1));
	}
	return a->tun_packets + b->tun_packets - before;
}

/*
 * A preshared key rotated one side at a time (WP §5.2): b changes first,
 * and both directions keep flowing on the live session; a changes too,
 * and still no handshake until Rekey-After-Time, when a's rekey uses the
 * new key and succeeds.  Then the keys differ again (b goes back): the
 * session carries on until its rekey fails, and after Reject-After-Time
 * nothing more arrives.
 */
static void test_preshared_key_rotation(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t psk1[32], psk2[32];

	memset(psk1, 0x11, sizeof(psk1));
	memset(psk2, 0x22, sizeof(psk2));
	setup(&n, &a, &b, 41, psk1);
	msg(a, b, "psk1");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(b, "psk1"));
	CHECK_EQ(initiations[0], 1);

	/* b alone changes: traffic from b (and to it) keeps flowing */
	CHECK_EQ(sim_peer(b, a, true, psk2), 0);
	msg(b, a, "from b");
	sim_run(&n, n.now + SIM_MS(50));
	CHECK(got_payload(a, "from b"));
	CHECK_EQ(exchange(&n, a, b, 30), 60);
	/* a changes too: still the same session */
	CHECK_EQ(sim_peer(a, b, true, psk2), 0);
	CHECK_EQ(exchange(&n, a, b, 30), 60);
	CHECK_EQ(initiations[0] + initiations[1], 1);

	/* the rekey at Rekey-After-Time runs on the new key: nothing lost */
	CHECK_EQ(exchange(&n, a, b, 100), 200);
	tu_check(initiations[0] == 2 && initiations[1] == 0, "rekey on psk2: %lu + %lu initiations",
		 initiations[0], initiations[1]);

	/* they differ again: the session carries on to its rekey, then dies */
	CHECK_EQ(sim_peer(b, a, true, psk1), 0);
	CHECK_EQ(exchange(&n, a, b, 60), 120);
	exchange(&n, a, b, 150);
	CHECK(initiations[0] > 3);
	CHECK_EQ(exchange(&n, a, b, 20), 0);
	sim_clear(&n);
}

/*
 * a initiates; b answers, but a's confirming packet is lost.  b then has
 * data for a: it has no confirmed session, and its initiation is refused
 * by the rate limit (its response left a moment ago).  That request is
 * dropped: b sends no initiation in the next 12 s (wgd used to arm a retry
 * and start initiating 5 s later, for up to 90 s).  The tunnel recovers
 * when a, hearing nothing back, starts a new handshake after 15 s; b's
 * packet, staged meanwhile, then arrives.
 */
static void test_refused_request_dropped(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;

	setup(&n, &a, &b, 42, NULL);
	msg(a, b, "first");
	/* the initiation reaches b at +1 ms and b answers at once */
	sim_run(&n, n.now + SIM_MS(1) + SIM_MS(1) / 2);
	n.cut[0][1] = true;	/* a's confirmation ("first") is lost */
	msg(b, a, "reply");
	sim_run(&n, n.now + SIM_S(12));
	CHECK_EQ(initiations[1], 0);
	CHECK_EQ(initiations[0], 1);
	CHECK_EQ(b->tun_packets, 0);
	n.cut[0][1] = false;
	sim_run(&n, n.now + SIM_S(5));
	CHECK_EQ(initiations[0], 2);
	CHECK(got_payload(a, "reply"));
	CHECK_EQ(initiations[1], 0);
	sim_clear(&n);
}

int main(void)
{
	log_init("test_sessions", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		return 99;
	test_preshared_key_rotation();
	test_refused_request_dropped();
	log_clear();
	return ct_exit("sessions");
}
