/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The interface's network configuration, as wg-quick(8) arranges it, made
 * through route netlink (libmnl) rather than by running ip(8): addresses,
 * MTU, link up, a route per allowed IP and, for a full tunnel, the fwmark
 * table and policy rules that keep the daemon's own datagrams out of the
 * tunnel.
 *
 * netcfg records every object it created (an address, route or rule that
 * already existed is not recorded: it is not ours) and every setting it
 * changed (the link's MTU, net.ipv4.conf.all.src_valid_mark), so that a
 * reload removes exactly what it added and the file no longer wants, and
 * teardown removes all of it and restores the rest.  What an administrator
 * added by hand is never removed.  The link is brought up and left up:
 * down, the kernel would flush every route out of it, the administrator's
 * too.
 *
 * With IPv6 disabled on the host, IPv6 addresses, routes and rules are
 * skipped with one warning and IPv4 goes on.
 */
#ifndef WGD_NETCFG_H
#define WGD_NETCFG_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/config/conffile.h"
#include "daemon/config/config.h"

struct netcfg;

/* What the configuration file asks for; netcfg_apply() copies what it keeps. */
struct netcfg_want {
	const struct conffile_addr *addrs;
	size_t addrs_len;
	unsigned int mtu;	/* 0: the route MTU towards the endpoints minus 80, else 1420 (as wg-quick computes it) */
	enum conffile_table table;
	uint32_t table_id;	/* CONFFILE_TABLE_ID */
	/* A route per allowed IP (duplicates allowed); the known endpoints
	 * give the MTU default.  Nothing else of a peer is read. */
	const struct config_peer *peers;
	size_t peers_len;
	uint32_t fwmark;	/* the file's FwMark, 0 = none */
};

/* For the link ifindex named ifname (in messages); 0 or -errno. */
int netcfg_create(struct netcfg **out, int ifindex, const char *ifname);

/*
 * First call: set up.  Later calls (a reload): add what is new, remove what
 * this daemon added and w no longer has; what is unchanged is not touched.
 * *fwmark: the mark the daemon's UDP sockets must carry (full tunnel: the
 * table), else w->fwmark.  0, or -errno with the object at fault named in
 * err ("cannot add route 10.0.0.0/24 to table 1234: File exists").  On
 * failure what was done so far stays recorded (teardown removes it).
 */
int netcfg_apply(struct netcfg *nc, const struct netcfg_want *w, uint32_t *fwmark, char *err,
		 size_t errlen);

/* The MTU last applied (0 before the first netcfg_apply()). */
unsigned int netcfg_mtu(const struct netcfg *nc);

/*
 * Removes exactly what netcfg_apply() added, restores what it changed (not
 * the link state, see above), logging what fails.  A later netcfg_apply()
 * starts afresh.
 */
void netcfg_teardown(struct netcfg *nc);

/* Frees nc (without tearing down); NULL is allowed. */
void netcfg_destroy(struct netcfg *nc);

#endif
