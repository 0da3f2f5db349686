/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Cryptokey routing table (WP §2, §3; doc/protocol.md §9): the longest-prefix
 * match from an IPv4 or IPv6 address to the peer that owns the prefix.
 * One table serves both directions: outbound, the inner destination picks
 * the peer; inbound, the inner source must map back to the peer whose key
 * decrypted the packet.
 *
 * Structure: one path-compressed binary trie per address family.  Every
 * node holds a masked prefix (key, cidr); a node either carries an owner
 * or is a pure branching node with exactly two children.  A child's prefix
 * always extends its parent's, and child[b] continues with bit b at
 * position parent->cidr.  Lookup walks at most 33 or 129 nodes and never
 * allocates.
 *
 * Owners: the caller embeds a struct allowedips_owner in its peer, with
 * allowedips_owner_init(&owner, peer); lookup returns that `peer` pointer.
 * Each owner keeps its nodes on a list in insertion order, so removing a
 * peer or walking its prefixes (for `get`) costs only that peer's prefixes.
 * A prefix belongs to at most one owner: inserting it for another owner
 * moves it.
 *
 * Families are given as the IP version number (4 or 6), which is exactly
 * the first nibble of an inner IP packet; addresses are network-order
 * bytes (4 or 16).  Insert allocates one node (control path only); lookup
 * and the walk never allocate.  Not thread-safe: one event loop owns it.
 */
#ifndef WGD_DAEMON_CORE_ALLOWEDIPS_H
#define WGD_DAEMON_CORE_ALLOWEDIPS_H

#include <stddef.h>
#include <stdint.h>

struct allowedips_node;

struct allowedips_owner {
	void *peer;			/* what lookups return */
	struct allowedips_node *first;	/* this owner's nodes, insertion order */
	struct allowedips_node *last;
	size_t count;
};

struct allowedips {
	struct allowedips_node *root4;
	struct allowedips_node *root6;
};

void allowedips_init(struct allowedips *t);
/* Frees every node; owners are left empty (their count becomes 0). */
void allowedips_clear(struct allowedips *t);

void allowedips_owner_init(struct allowedips_owner *o, void *peer);

/*
 * Add addr/cidr for owner (bits beyond cidr are ignored, as `wg` does).
 * If the prefix exists it is moved to owner, at the end of its list
 * (even if it already is owner's, as the kernel does).  Returns 0, -EINVAL for a bad version or cidr (> 32 or > 128),
 * or -ENOMEM.
 */
int allowedips_insert(struct allowedips *t, int ip_version, const uint8_t *addr, uint8_t cidr,
		      struct allowedips_owner *owner);

/*
 * Remove addr/cidr if owner owns it (UAPI `allowed_ip=-prefix`).  Returns 0,
 * -ENOENT if that exact prefix is not owner's, or -EINVAL.
 */
int allowedips_remove(struct allowedips *t, int ip_version, const uint8_t *addr, uint8_t cidr,
		      struct allowedips_owner *owner);

/* Remove every prefix of owner. */
void allowedips_remove_owner(struct allowedips *t, struct allowedips_owner *owner);

/*
 * The peer of the longest prefix containing addr, or NULL.  ip_version
 * other than 4 or 6 gives NULL.
 */
void *allowedips_lookup(const struct allowedips *t, int ip_version, const uint8_t *addr);

/*
 * Calls fn once per prefix of owner, in insertion order, with the masked
 * address (4 or 16 bytes).  Stops early and returns fn's value if fn
 * returns non-zero; else returns 0.  fn must not modify the table.
 */
typedef int (*allowedips_walk_fn)(void *ctx, int ip_version, const uint8_t *addr, uint8_t cidr);
int allowedips_walk_owner(const struct allowedips_owner *owner, allowedips_walk_fn fn, void *ctx);

#endif
