/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The netfilter half of a full tunnel, as wg-quick(8) installs it beside
 * its policy rules: per family with a default route into the tunnel, a
 * table of the daemon's own, "wgd-IFNAME" (ip and ip6), with
 *
 *   chain preraw (filter, prerouting, priority raw, -300):
 *     iifname != IFNAME  daddr ADDR  fib saddr type != local  drop
 *       for each of the interface's addresses of that family: no host on
 *       another link (a LAN neighbour) reaches the tunnel's addresses, or
 *       probes the tunnel's connections through them (CVE-2019-14899);
 *   chain premangle (filter, prerouting, priority mangle, -150):
 *     meta l4proto udp  meta mark set ct mark
 *   chain postmangle (filter, postrouting, priority mangle, -150):
 *     meta l4proto udp  meta mark MARK  ct mark set meta mark
 *       the fwmark of the daemon's datagrams saved in their connection and
 *       given back to the answers, so that the reverse-path check (with
 *       src_valid_mark) looks their source up as the daemon's own routing
 *       does, outside the tunnel.
 *
 * Made with nf_tables messages written here and sent by
 * daemon/host/netlink.c, one batch per change, which the kernel applies
 * whole or not at all.  A change replaces the tables whole (add, delete,
 * add again: a table of that name left by a daemon that was killed goes
 * too), so they hold exactly what the last call asked for; nothing of
 * anyone else's is touched, and without a full tunnel nothing is sent (a
 * kernel without nftables serves split tunnels).  Everything here needs
 * CAP_NET_ADMIN and nothing more, so the teardown works after the
 * privilege drop.
 */
#ifndef WGD_NFTABLES_H
#define WGD_NFTABLES_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config/conffile.h"

/* Embedded in its owner; zeroed (the name is read as IFNAMSIZ bytes padded
 * with zeros), then nftables_init(). */
struct nftables {
	char table[4 + IFNAMSIZ];	/* "wgd-IFNAME", zero-padded */
	uint8_t made;	/* our tables that exist: bit 0 IPv4, bit 1 IPv6 */
};

void nftables_init(struct nftables *nt, const char *ifname);

/*
 * full[0], full[1]: IPv4, IPv6 has a default route into the tunnel; the
 * drop covers the addrs of those families, mark is the fwmark of the
 * daemon's datagrams.  A family not full loses its table.  0, or -errno
 * with the reason in err ("cannot set nftables tables wgd-wg0 (ip and
 * ip6): Operation not permitted"); then nothing changed.
 */
int nftables_apply(struct nftables *nt, const bool full[2], const struct conffile_addr *addrs,
		   size_t addrs_len, uint32_t mark, char *err, size_t errlen);

/* Removes our tables (one already gone is fine), logging a failure. */
void nftables_teardown(struct nftables *nt);

#endif
