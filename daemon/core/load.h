/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * When the device is "under load" (WP §5.3: then a handshake message is
 * processed only with a valid mac2, else answered with a cookie reply; the
 * whitepaper leaves "under load" to the implementation).
 *
 * The measure is the backlog of handshake work, as the Linux kernel's is
 * (doc/architecture.md, "Under load"): the kernel is under load while its
 * queue of received handshake messages holds UNDER_LOAD_QUEUE_LEN of them,
 * and for UNDER_LOAD_AFTER_TIME after.  wgd has no queue of its own: its
 * queues are the UDP sockets' receive buffers, and a read that fills the
 * whole batch means the socket held more than was read.  So a socket's
 * backlog is the number of handshake messages read from it since it was
 * last found drained (a read that came back short of a batch); only
 * messages whose mac1 is valid count, since nothing else costs handshake
 * work and anybody can send the rest without keys.
 *
 * Pure: the caller reports each read; time comes in as `now`.
 */
#ifndef WGD_DAEMON_CORE_LOAD_H
#define WGD_DAEMON_CORE_LOAD_H

#include <stdbool.h>
#include <stdint.h>

#define LOAD_QUEUES 2	/* one per UDP socket (IPv4, IPv6) */

struct load {
	unsigned int backlog[LOAD_QUEUES];
	uint64_t until;		/* under load before this instant */
};

void load_init(struct load *l);

/*
 * One read from socket `queue`: `handshakes` initiations and responses
 * with a valid mac1 in it, and whether it filled the batch (`full`: more
 * may be waiting).  Returns whether the device is under load for the
 * messages of this read.
 */
bool load_note_read(struct load *l, unsigned int queue, unsigned int handshakes, bool full,
		    uint64_t now);

/* Whether the device is under load at now. */
bool load_is_under(const struct load *l, uint64_t now);

#endif
