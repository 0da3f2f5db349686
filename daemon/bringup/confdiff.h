/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A reload's set message: what takes a device configured from one wg-quick
 * file to the same file edited, touching nothing that did not change, so
 * that unchanged peers keep their sessions (issue 10).
 *
 * Compared, per the previously applied file rather than the device's
 * state (what was set at run time with wg stays, unless the file changes
 * that very field):
 *   - PrivateKey and ListenPort: sent when they differ (a key or port the
 *     new file no longer gives becomes "none" / a port of the kernel's
 *     choice).  FwMark is left to the caller: the mark the sockets carry
 *     comes from netcfg_apply(), which knows the full-tunnel arrangement.
 *   - a peer only in the old file: CONFIG_PEER_REMOVE (first, before any
 *     other peer, so that a prefix moving to a new peer is not taken back);
 *   - a peer only in the new file: added as parsed;
 *   - a peer in both: only the fields whose text changed: PresharedKey,
 *     PersistentKeepalive, AllowedIPs (replaced as a whole), Endpoint (only
 *     when its host or port as written changed, so that an endpoint learned
 *     by roaming survives a reload; a host name is left to dnsnames).
 */
#ifndef WGD_CONFDIFF_H
#define WGD_CONFDIFF_H

#include <stdbool.h>

#include "daemon/config/conffile.h"
#include "daemon/config/config.h"

struct confdiff_summary {
	unsigned int added, removed, changed;	/* peers */
	bool device;		/* private key or listen port */
};

/*
 * Fills set (initialized, empty) with the message from old to new; 0 or
 * -ENOMEM (set is then cleared).  A set without any flag and without peers
 * means "nothing to do".
 */
int confdiff_make(struct config_device *set, const struct conffile *old,
		  const struct conffile *new, struct confdiff_summary *sum);

#endif
