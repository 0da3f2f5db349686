/* SPDX-License-Identifier: GPL-2.0-only */
/* The configuration data model shared by the UAPI parser, printer and device. */
#include "daemon/config/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"

void config_device_init(struct config_device *dev)
{
	memset(dev, 0, sizeof(*dev));
}

_Static_assert(CONFIG_KEY_LEN == 32, "keys are copied with crypto_copy32()");

static void config_peer_clear(struct config_peer *peer)
{
	free(peer->allowedips);
	crypto_wipe(peer, sizeof(*peer));
}

void config_device_clear(struct config_device *dev)
{
	for (size_t i = 0; i < dev->peers_len; i++)
		config_peer_clear(&dev->peers[i]);
	/* The unused tail was zeroed at allocation and never written. */
	free(dev->peers);
	crypto_wipe(dev, sizeof(*dev));
}

/*
 * Grows the peer array by doubling.  Not realloc(): the old block holds
 * preshared keys, so it is wiped before it goes back to the allocator.
 */
static int config_grow_peers(struct config_device *dev)
{
	size_t cap = dev->peers_cap ? dev->peers_cap * 2 : 4;
	struct config_peer *peers;

	if (cap > SIZE_MAX / sizeof(*peers))
		return -ENOMEM;
	peers = calloc(cap, sizeof(*peers));
	if (!peers)
		return -ENOMEM;
	if (dev->peers) {
		memcpy(peers, dev->peers, dev->peers_len * sizeof(*peers));
		crypto_wipe(dev->peers, dev->peers_len * sizeof(*peers));
		free(dev->peers);
	}
	dev->peers = peers;
	dev->peers_cap = cap;
	return 0;
}

struct config_peer *config_device_add_peer(struct config_device *dev,
					   const uint8_t public_key[CONFIG_KEY_LEN])
{
	struct config_peer *peer;

	if (dev->peers_len == dev->peers_cap && config_grow_peers(dev) < 0)
		return NULL;
	peer = &dev->peers[dev->peers_len++];
	memset(peer, 0, sizeof(*peer));
	if (public_key)
		crypto_copy32(peer->public_key, public_key);
	return peer;
}

struct config_peer *config_device_add_peer_copy(struct config_device *dev,
						const struct config_peer *src)
{
	struct config_peer *p = config_device_add_peer(dev, NULL);

	if (!p)
		return NULL;
	/* Assigned whole: a field the model gains is copied too. */
	*p = *src;
	p->allowedips = NULL;
	p->allowedips_len = 0;
	p->allowedips_cap = 0;
	for (size_t i = 0; i < src->allowedips_len; i++) {
		if (config_peer_add_allowedip(p, &src->allowedips[i]) < 0) {
			/* Wiped: the tail of the array stays all zero. */
			config_peer_clear(p);
			dev->peers_len--;
			return NULL;
		}
	}
	return p;
}

int config_device_copy(struct config_device *dst, const struct config_device *src)
{
	*dst = *src;
	dst->peers = NULL;
	dst->peers_len = 0;
	dst->peers_cap = 0;
	for (size_t i = 0; i < src->peers_len; i++) {
		if (!config_device_add_peer_copy(dst, &src->peers[i])) {
			config_device_clear(dst);
			return -ENOMEM;
		}
	}
	return 0;
}

/* A key given or none: none when its flag is clear or it is all zero (what
 * a get reply prints as no key).  Equal keys compared in constant time. */
static bool config_key_same(bool a_has, const uint8_t *a, bool b_has, const uint8_t *b)
{
	a_has = a_has && !crypto_is_zero(a, CONFIG_KEY_LEN);
	b_has = b_has && !crypto_is_zero(b, CONFIG_KEY_LEN);
	return a_has == b_has && (!a_has || crypto_equal(a, b, CONFIG_KEY_LEN));
}

bool config_peer_has_endpoint(const struct config_peer *peer)
{
	sa_family_t f = peer->endpoint.addr.sa_family;

	return (peer->flags & CONFIG_PEER_HAS_ENDPOINT) && (f == AF_INET || f == AF_INET6);
}

static bool config_endpoint_same(const struct config_peer *a, const struct config_peer *b)
{
	const union config_endpoint *x = &a->endpoint, *y = &b->endpoint;

	if (!config_peer_has_endpoint(a) || !config_peer_has_endpoint(b))
		return config_peer_has_endpoint(a) == config_peer_has_endpoint(b);
	/* sin_port and sin6_port are at the same offset. */
	if (x->addr.sa_family != y->addr.sa_family || x->in.sin_port != y->in.sin_port)
		return false;
	if (x->addr.sa_family == AF_INET)
		return x->in.sin_addr.s_addr == y->in.sin_addr.s_addr;
	return memcmp(&x->in6.sin6_addr, &y->in6.sin6_addr, sizeof(x->in6.sin6_addr)) == 0 &&
	       x->in6.sin6_scope_id == y->in6.sin6_scope_id;
}

bool config_peer_allowedips_equal(const struct config_peer *a, const struct config_peer *b)
{
	if (a->allowedips_len != b->allowedips_len)
		return false;
	for (size_t i = 0; i < a->allowedips_len; i++) {
		const struct config_allowedip *x = &a->allowedips[i], *y = &b->allowedips[i];

		if (x->family != y->family || x->cidr != y->cidr || x->remove != y->remove ||
		    memcmp(x->addr, y->addr, x->family == AF_INET ? 4 : 16) != 0)
			return false;
	}
	return true;
}

static bool config_peer_same(const struct config_peer *a, const struct config_peer *b)
{
	return memcmp(a->public_key, b->public_key, CONFIG_KEY_LEN) == 0 &&
	       config_key_same(a->flags & CONFIG_PEER_HAS_PRESHARED_KEY, a->preshared_key,
			       b->flags & CONFIG_PEER_HAS_PRESHARED_KEY, b->preshared_key) &&
	       config_endpoint_same(a, b) &&
	       a->persistent_keepalive == b->persistent_keepalive &&
	       a->last_handshake_sec == b->last_handshake_sec &&
	       a->last_handshake_nsec == b->last_handshake_nsec &&
	       a->rx_bytes == b->rx_bytes && a->tx_bytes == b->tx_bytes &&
	       config_peer_allowedips_equal(a, b);
}

bool config_device_equal(const struct config_device *a, const struct config_device *b)
{
	if (!config_key_same(a->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY, a->private_key,
			     b->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY, b->private_key) ||
	    a->listen_port != b->listen_port || a->fwmark != b->fwmark ||
	    a->peers_len != b->peers_len)
		return false;
	for (size_t i = 0; i < a->peers_len; i++)
		if (!config_peer_same(&a->peers[i], &b->peers[i]))
			return false;
	return true;
}

struct config_peer *config_device_find_peer(const struct config_device *dev,
					    const uint8_t public_key[CONFIG_KEY_LEN])
{
	for (size_t i = 0; i < dev->peers_len; i++)
		if (memcmp(dev->peers[i].public_key, public_key, CONFIG_KEY_LEN) == 0)
			return &dev->peers[i];
	return NULL;
}

int config_peer_add_allowedip(struct config_peer *peer,
			      const struct config_allowedip *aip)
{
	if (peer->allowedips_len == peer->allowedips_cap) {
		size_t cap = peer->allowedips_cap ? peer->allowedips_cap * 2 : 4;
		struct config_allowedip *a;

		if (cap > SIZE_MAX / sizeof(*a))
			return -ENOMEM;
		/* Prefixes are not secret: realloc is fine here. */
		a = realloc(peer->allowedips, cap * sizeof(*a));
		if (!a)
			return -ENOMEM;
		peer->allowedips = a;
		peer->allowedips_cap = cap;
	}
	peer->allowedips[peer->allowedips_len++] = *aip;
	return 0;
}

void config_allowedip_mask(struct config_allowedip *aip)
{
	unsigned int bits = aip->family == AF_INET ? 32 : 128;
	unsigned int cidr = aip->cidr < bits ? aip->cidr : bits;

	for (unsigned int i = 0; i < 16; i++) {
		unsigned int first = i * 8;

		if (first >= cidr)
			aip->addr[i] = 0;
		else if (cidr - first < 8)
			aip->addr[i] &= (uint8_t)(0xff00u >> (cidr - first));
	}
}
