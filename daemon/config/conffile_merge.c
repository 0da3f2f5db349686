/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A PublicKey in more than one [Peer] of a file (daemon/config/conffile.h):
 * one peer, set again by each, as wg setconf sets the kernel.
 */
#include "daemon/config/conffile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"

#define SWAP_SIZE(x, y) do { size_t t_ = (x); (x) = (y); (y) = t_; } while (0)

/*
 * A later [Peer] with the PublicKey of an earlier one (to) is applied to
 * it, as the kernel and wireguard-go apply wg's set of the two: what the
 * later one gives replaces what the earlier one gave, and its AllowedIPs
 * (none, if it has none) replace the earlier ones, since every [Peer]
 * states its whole list.
 */
static void merge_peer(struct conffile *cf, size_t to, size_t from)
{
	struct config_peer *a = &cf->dev.peers[to], *b = &cf->dev.peers[from];
	struct conffile_peer *ca = &cf->peers[to], *cb = &cf->peers[from];
	struct config_allowedip *aips = a->allowedips;

	if (b->flags & CONFIG_PEER_HAS_PRESHARED_KEY)
		crypto_copy32(a->preshared_key, b->preshared_key);
	if (b->flags & CONFIG_PEER_HAS_KEEPALIVE)
		a->persistent_keepalive = b->persistent_keepalive;
	a->flags |= b->flags & (CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_KEEPALIVE);
	if (cb->endpoint_host) {
		a->endpoint = b->endpoint;
		a->flags = (a->flags & ~CONFIG_PEER_HAS_ENDPOINT) | (b->flags & CONFIG_PEER_HAS_ENDPOINT);
		free(ca->endpoint_host);
		ca->endpoint_host = cb->endpoint_host;
		ca->endpoint_port = cb->endpoint_port;
		ca->endpoint_is_name = cb->endpoint_is_name;
		cb->endpoint_host = NULL;
	}
	/* Swapped: b's clearing frees a's old list. */
	a->allowedips = b->allowedips;
	b->allowedips = aips;
	SWAP_SIZE(a->allowedips_len, b->allowedips_len);
	SWAP_SIZE(a->allowedips_cap, b->allowedips_cap);
}

/* By public key, then by place in the file. */
static int peer_key_place(const void *x, const void *y)
{
	const struct config_peer *a = *(const struct config_peer *const *)x;
	const struct config_peer *b = *(const struct config_peer *const *)y;
	int c = memcmp(a->public_key, b->public_key, CONFIG_KEY_LEN);

	return c ? c : (a > b) - (a < b);
}

/* Drops the peers marked in gone (wiped), keeping the others' order. */
static void drop_peers(struct conffile *cf, const bool *gone)
{
	struct config_device *dev = &cf->dev;
	size_t n = 0, len = dev->peers_len;

	for (size_t i = 0; i < len; i++) {
		if (gone[i]) {
			free(dev->peers[i].allowedips);
			crypto_wipe(&dev->peers[i], sizeof(dev->peers[i]));
			continue;
		}
		if (n != i) {
			dev->peers[n] = dev->peers[i];
			cf->peers[n] = cf->peers[i];
		}
		n++;
	}
	/* The tail as the allocation left it: zero (it held keys). */
	crypto_wipe(dev->peers + n, (len - n) * sizeof(*dev->peers));
	memset(cf->peers + n, 0, (len - n) * sizeof(*cf->peers));
	dev->peers_len = n;
}

/* Sorted by key: O(n log n), for files with many peers. */
int conffile_merge_peers(struct conffile *cf)
{
	size_t n = cf->dev.peers_len, first = 0;
	struct config_peer **v;
	bool *gone, any = false;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	gone = calloc(n, sizeof(*gone));
	if (!v || !gone) {
		free(v);
		free(gone);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = &cf->dev.peers[i];
	qsort(v, n, sizeof(*v), peer_key_place);
	for (size_t i = 1; i < n; i++) {
		if (memcmp(v[first]->public_key, v[i]->public_key, CONFIG_KEY_LEN) != 0) {
			first = i;
			continue;
		}
		merge_peer(cf, (size_t)(v[first] - cf->dev.peers), (size_t)(v[i] - cf->dev.peers));
		gone[v[i] - cf->dev.peers] = any = true;
	}
	if (any)
		drop_peers(cf, gone);
	free(v);
	free(gone);
	return 0;
}
