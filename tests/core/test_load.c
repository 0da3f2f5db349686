// SPDX-License-Identifier: GPL-2.0-only
/*
 * The under-load decision (daemon/core/load.h): a socket's backlog of
 * valid handshake messages grows over reads that fill the batch and is
 * worked off by a short read; UNDER_LOAD_QUEUE_LEN of them put the device
 * under load for UNDER_LOAD_AFTER_TIME after the last read that brought
 * handshake work; the two sockets are separate queues; a burst in one
 * short read, however large its batch, is no backlog.
 */
#include "daemon/core/load.h"
#include "daemon/core/messages.h"
#include "tests/core/coretest.h"

#define T0 WG_SECONDS(1000)
#define MS(x) ((uint64_t)(x) * WG_NSEC_PER_MSEC)

static void test_backlog(void)
{
	struct load l;
	unsigned int i;
	uint64_t now = T0;

	load_init(&l);
	CHECK(!load_is_under(&l, now));
	/* short reads never add up, whatever they carry */
	for (i = 0; i < 1000; i++)
		CHECK(!load_note_read(&l, 0, 63, false, now += 1000));
	/* full reads add up: 8 x 64 = UNDER_LOAD_QUEUE_LEN */
	for (i = 0; i < UNDER_LOAD_QUEUE_LEN / 64 - 1; i++)
		CHECK(!load_note_read(&l, 0, 64, true, now));
	CHECK(load_note_read(&l, 0, 64, true, now));
	CHECK(load_is_under(&l, now + WG_SECONDS(UNDER_LOAD_AFTER_TIME) - 1));
	CHECK(!load_is_under(&l, now + WG_SECONDS(UNDER_LOAD_AFTER_TIME)));
	/* a short read drains the queue, but the state holds for its second */
	CHECK(load_note_read(&l, 0, 0, false, now + MS(10)));
	CHECK(!load_note_read(&l, 0, 1, true, now + WG_SECONDS(UNDER_LOAD_AFTER_TIME)));
}

static void test_renewal(void)
{
	struct load l;
	uint64_t now = T0, t;
	unsigned int i;

	load_init(&l);
	CHECK(load_note_read(&l, 1, UNDER_LOAD_QUEUE_LEN, true, now));
	/* full reads of data only (no handshake work) do not renew it */
	for (t = now, i = 0; i < 200; i++)
		load_note_read(&l, 1, 0, true, t += MS(10));
	CHECK(!load_is_under(&l, t));
	/* while the socket stays backed up, handshakes keep it under load */
	CHECK(load_note_read(&l, 1, 1, true, t));
	CHECK(load_note_read(&l, 1, 1, true, t + MS(900)));
	CHECK(load_is_under(&l, t + MS(1899)));
	CHECK(!load_is_under(&l, t + MS(1900)));
}

static void test_queues(void)
{
	struct load l;

	load_init(&l);
	/* IPv4 backed up, IPv6 draining: the queues are counted apart */
	CHECK(!load_note_read(&l, 0, 300, true, T0));
	CHECK(!load_note_read(&l, 1, 300, false, T0));
	CHECK(!load_note_read(&l, 1, 300, true, T0));
	CHECK(load_note_read(&l, 0, 300, true, T0));
	/* the state is the device's: both sockets' messages get cookies */
	CHECK(load_note_read(&l, 1, 0, false, T0 + 1));
	/* one read larger than the whole queue (UDP GRO runs) saturates */
	load_init(&l);
	CHECK(load_note_read(&l, 0, 4000, true, T0));
	CHECK(load_note_read(&l, 0, ~0u, true, T0));
	/* a bad queue number changes nothing */
	load_init(&l);
	CHECK(!load_note_read(&l, LOAD_QUEUES, ~0u, true, T0));
}

int main(void)
{
	test_backlog();
	test_renewal();
	test_queues();
	return ct_exit("core-load");
}
