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

/* By public key, then by place in the array. */
static int peer_key_cmp(const void *a, const void *b)
{
	const struct config_peer *x = *(const struct config_peer *const *)a;
	const struct config_peer *y = *(const struct config_peer *const *)b;
	int c = memcmp(x->public_key, y->public_key, CONFIG_KEY_LEN);

	return c ? c : (x > y) - (x < y);
}

/* The peers sorted by their (public) keys, neighbours compared: O(n log n),
 * so a message or file with many peers stays cheap. */
int config_device_find_duplicate(const struct config_device *dev, size_t *first,
				 size_t *second)
{
	size_t n = dev->peers_len;
	const struct config_peer **v;
	int ret = 0;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = &dev->peers[i];
	qsort(v, n, sizeof(*v), peer_key_cmp);
	for (size_t i = 1; i < n && !ret; i++) {
		if (memcmp(v[i - 1]->public_key, v[i]->public_key, CONFIG_KEY_LEN) == 0) {
			*first = (size_t)(v[i - 1] - dev->peers);
			*second = (size_t)(v[i] - dev->peers);
			ret = 1;
		}
	}
	free(v);
	return ret;
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
