// SPDX-License-Identifier: GPL-2.0-only
/*
 * When sessions end and handshakes start, with real devices joined in one
 * process (simnet.h), as the kernel's WireGuard does it:
 *  - a handshake request refused by the initiation rate limit is dropped,
 *    not postponed: a responder whose confirmation was lost does not start
 *    initiating 5 s later with no new data (doc/protocol.md §8).
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

static void setup(struct sim_net *n, struct sim_dev **a, struct sim_dev **b, uint64_t seed)
{
	sim_init(n, seed);
	memset(initiations, 0, sizeof(initiations));
	n->on_send = count_initiations;
	*a = sim_add(n);
	*b = sim_add(n);
	CHECK(*a && *b);
	CHECK_EQ(sim_peer(*a, *b, true, NULL), 0);
	CHECK_EQ(sim_peer(*b, *a, true, NULL), 0);
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

	setup(&n, &a, &b, 42);
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
	test_refused_request_dropped();
	log_clear();
	return ct_exit("sessions");
}
