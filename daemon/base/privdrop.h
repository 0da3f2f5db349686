/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Privilege drop: once the TUN device, the UDP sockets, netlink and the
 * control socket are set up (and a file's bring-up done), the daemon changes
 * to an unprivileged user and keeps CAP_NET_ADMIN alone, in every set
 * (effective, permitted, bounding; nothing inheritable or ambient), with
 * no-new-privileges: for routes, addresses and rules (a reload, the
 * teardown), SO_MARK and the socket buffers.  What still needs root is the
 * privileged monitor's (daemon/base/privsep.h).
 *
 * The drop acts on the calling thread (capset, prctl): it refuses to run
 * when another thread exists, and threads are made after it.
 */
#ifndef WGD_PRIVDROP_H
#define WGD_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>

struct privdrop_opts {
	const char *user;	/* NULL: the dedicated user "wgd"; without one, root (a warning) */
	bool user_given;	/* --user was given: an unknown user is an error */
};

/* Drops, and logs what was done or why nothing was (a warning when root is
 * kept without being asked for); 0, or -errno with the reason in msg. */
int privdrop_apply(const struct privdrop_opts *o, char *msg, size_t msglen);

#endif
