// SPDX-License-Identifier: GPL-2.0-only
/*
 * Longest-prefix match over a path-compressed binary trie (see
 * allowedips.h for the invariants).  Bits are numbered from the most
 * significant bit of the first address byte (network order), so a prefix
 * of length n is the first n bits.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/allowedips.h"

#define ALLOWEDIPS_MAX_BYTES 16

struct allowedips_node {
	struct allowedips_node *child[2];
	struct allowedips_node *parent;
	struct allowedips_owner *owner;		/* NULL: pure branching node */
	struct allowedips_node *owner_prev;
	struct allowedips_node *owner_next;
	uint8_t key[ALLOWEDIPS_MAX_BYTES];	/* masked to cidr */
	uint8_t cidr;
	uint8_t bits;				/* 32 or 128 */
};

static unsigned int family_bits(int ip_version)
{
	return ip_version == 4 ? 32 : ip_version == 6 ? 128 : 0;
}

static struct allowedips_node **family_root(struct allowedips *t, unsigned int bits)
{
	return bits == 32 ? &t->root4 : &t->root6;
}

static unsigned int bit_at(const uint8_t *key, unsigned int i)
{
	return (key[i / 8] >> (7 - i % 8)) & 1;
}

/* Copy the first cidr bits of addr into key, zeroing the rest of key. */
static void mask_copy(uint8_t key[ALLOWEDIPS_MAX_BYTES], const uint8_t *addr, unsigned int cidr)
{
	unsigned int full = cidr / 8, rem = cidr % 8;

	memset(key, 0, ALLOWEDIPS_MAX_BYTES);
	memcpy(key, addr, full);
	if (rem)
		key[full] = addr[full] & (uint8_t)(0xff << (8 - rem));
}

/* Number of leading bits on which a and b agree, at most limit. */
static unsigned int common_bits(const uint8_t *a, const uint8_t *b, unsigned int limit)
{
	unsigned int i, n;
	uint8_t x;

	for (i = 0; i * 8 < limit; i++) {
		x = a[i] ^ b[i];
		if (x) {
			n = i * 8 + (unsigned int)__builtin_clz(x) - 24;
			return n < limit ? n : limit;
		}
	}
	return limit;
}

static bool node_contains(const struct allowedips_node *node, const uint8_t *addr)
{
	return common_bits(node->key, addr, node->cidr) == node->cidr;
}

static void owner_unlink(struct allowedips_node *node)
{
	struct allowedips_owner *o = node->owner;

	if (!o)
		return;
	if (node->owner_prev)
		node->owner_prev->owner_next = node->owner_next;
	else
		o->first = node->owner_next;
	if (node->owner_next)
		node->owner_next->owner_prev = node->owner_prev;
	else
		o->last = node->owner_prev;
	o->count--;
	node->owner = NULL;
	node->owner_prev = node->owner_next = NULL;
}

/*
 * node to the end of o's list, from wherever it was (its own owner's list
 * too, as the kernel's list_move_tail(): `get` shows the order prefixes
 * were last set in).
 */
static void owner_link(struct allowedips_node *node, struct allowedips_owner *o)
{
	owner_unlink(node);
	node->owner = o;
	node->owner_prev = o->last;
	node->owner_next = NULL;
	if (o->last)
		o->last->owner_next = node;
	else
		o->first = node;
	o->last = node;
	o->count++;
}

static struct allowedips_node *node_new(const uint8_t *addr, unsigned int bits, unsigned int cidr)
{
	struct allowedips_node *node = calloc(1, sizeof(*node));

	if (!node)
		return NULL;
	mask_copy(node->key, addr, cidr);
	node->cidr = (uint8_t)cidr;
	node->bits = (uint8_t)bits;
	return node;
}

/* Make whatever pointed to old (parent's child slot or the root) point to new. */
static void replace_child(struct allowedips_node **root, struct allowedips_node *parent,
			  struct allowedips_node *old, struct allowedips_node *new)
{
	if (!parent)
		*root = new;
	else
		parent->child[parent->child[1] == old] = new;
	if (new)
		new->parent = parent;
}

void allowedips_init(struct allowedips *t)
{
	t->root4 = NULL;
	t->root6 = NULL;
}

void allowedips_owner_init(struct allowedips_owner *o, void *peer)
{
	o->peer = peer;
	o->first = NULL;
	o->last = NULL;
	o->count = 0;
}

/* Recursion depth is the trie depth: at most 129 levels. */
static void free_subtree(struct allowedips_node *node)
{
	if (!node)
		return;
	free_subtree(node->child[0]);
	free_subtree(node->child[1]);
	if (node->owner) {
		node->owner->first = NULL;
		node->owner->last = NULL;
		node->owner->count = 0;
	}
	free(node);
}

void allowedips_clear(struct allowedips *t)
{
	free_subtree(t->root4);
	free_subtree(t->root6);
	allowedips_init(t);
}

static bool valid_prefix(int ip_version, const uint8_t *addr, uint8_t cidr)
{
	unsigned int bits = family_bits(ip_version);

	return bits && addr && cidr <= bits;
}

int allowedips_insert(struct allowedips *t, int ip_version, const uint8_t *addr, uint8_t cidr,
		      struct allowedips_owner *owner)
{
	unsigned int bits = family_bits(ip_version), common = 0;
	struct allowedips_node **root, **slot, *parent = NULL, *node, *fresh, *branch;
	uint8_t key[ALLOWEDIPS_MAX_BYTES];

	if (!valid_prefix(ip_version, addr, cidr) || !owner)
		return -EINVAL;
	mask_copy(key, addr, cidr);
	root = family_root(t, bits);
	slot = root;
	/* Descend while the node's prefix is a proper prefix of ours. */
	for (node = *slot; node; node = *slot) {
		common = common_bits(node->key, key, node->cidr < cidr ? node->cidr : cidr);
		if (common == node->cidr && node->cidr == cidr) {
			owner_link(node, owner);
			return 0;
		}
		if (common < node->cidr)
			break;
		parent = node;
		slot = &node->child[bit_at(key, node->cidr)];
	}
	fresh = node_new(key, bits, cidr);
	if (!fresh)
		return -ENOMEM;
	if (!node) {
		/* An empty slot below a prefix of ours. */
		fresh->parent = parent;
		*slot = fresh;
	} else if (common == cidr) {
		/* Ours is a proper prefix of node: node hangs below us. */
		fresh->child[bit_at(node->key, cidr)] = node;
		replace_child(root, parent, node, fresh);
		node->parent = fresh;
	} else {
		/* The two diverge at bit `common`: a branching node joins them. */
		branch = node_new(key, bits, common);
		if (!branch) {
			free(fresh);
			return -ENOMEM;
		}
		branch->child[bit_at(node->key, common)] = node;
		branch->child[bit_at(key, common)] = fresh;
		replace_child(root, parent, node, branch);
		node->parent = branch;
		fresh->parent = branch;
	}
	owner_link(fresh, owner);
	return 0;
}

/* Unlink node from its owner and restore the trie invariants. */
static void remove_node(struct allowedips *t, struct allowedips_node *node)
{
	struct allowedips_node **root = family_root(t, node->bits);
	struct allowedips_node *parent = node->parent, *child, *only;

	owner_unlink(node);
	if (node->child[0] && node->child[1])
		return;		/* still needed as a branching node */
	child = node->child[0] ? node->child[0] : node->child[1];
	replace_child(root, parent, node, child);
	free(node);
	/*
	 * A branching parent (no owner) had two children; if it just lost one
	 * it is no longer needed: its remaining child takes its place.
	 */
	if (child || !parent || parent->owner)
		return;
	only = parent->child[0] ? parent->child[0] : parent->child[1];
	replace_child(root, parent->parent, parent, only);
	free(parent);
}

int allowedips_remove(struct allowedips *t, int ip_version, const uint8_t *addr, uint8_t cidr,
		      struct allowedips_owner *owner)
{
	unsigned int bits = family_bits(ip_version);
	struct allowedips_node *node;
	uint8_t key[ALLOWEDIPS_MAX_BYTES];

	if (!valid_prefix(ip_version, addr, cidr))
		return -EINVAL;
	mask_copy(key, addr, cidr);
	node = *family_root(t, bits);
	while (node && node->cidr < cidr && node_contains(node, key))
		node = node->child[bit_at(key, node->cidr)];
	if (!node || node->cidr != cidr || !node_contains(node, key) || !owner || node->owner != owner)
		return -ENOENT;
	remove_node(t, node);
	return 0;
}

void allowedips_remove_owner(struct allowedips *t, struct allowedips_owner *owner)
{
	/* Each step removes one of owner's nodes: bounded by owner->count. */
	while (owner->first)
		remove_node(t, owner->first);
}

void *allowedips_lookup(const struct allowedips *t, int ip_version, const uint8_t *addr)
{
	unsigned int bits = family_bits(ip_version);
	const struct allowedips_node *node;
	const struct allowedips_owner *best = NULL;

	if (!bits || !addr)
		return NULL;
	node = bits == 32 ? t->root4 : t->root6;
	while (node && node_contains(node, addr)) {
		if (node->owner)
			best = node->owner;
		if (node->cidr == bits)
			break;
		node = node->child[bit_at(addr, node->cidr)];
	}
	return best ? best->peer : NULL;
}

int allowedips_walk_owner(const struct allowedips_owner *owner, allowedips_walk_fn fn, void *ctx)
{
	const struct allowedips_node *node;
	int ret;

	for (node = owner->first; node; node = node->owner_next) {
		ret = fn(ctx, node->bits == 32 ? 4 : 6, node->key, node->cidr);
		if (ret)
			return ret;
	}
	return 0;
}
