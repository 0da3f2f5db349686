/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration model's own verbs (daemon/config/config.c): a peer and a
 * device copied (every field, the allowed IPs, the flags; the copy owns its
 * arrays), and two devices compared: every field that a get reply tells
 * changed one at a time must make them differ, every flag that only a set
 * message carries must not.
 */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config/config.h"

#include "tests/lib/testutil.h"

#define check tu_check

static struct tu_rng rng;

/* A peer with every field random (flags too; the padding stays zero, as
 * config_device_add_peer() leaves it) and n prefixes, both families, one of
 * them a removal. */
static struct config_peer *add_random_peer(struct config_device *dev, size_t n)
{
	struct config_peer *p = config_device_add_peer(dev, NULL);

	if (!p)
		abort();
	tu_rng_fill(&rng, p->public_key, sizeof(p->public_key));
	p->flags = (uint32_t)tu_rng_next(&rng);
	tu_rng_fill(&rng, p->preshared_key, sizeof(p->preshared_key));
	tu_rng_fill(&rng, &p->endpoint, sizeof(p->endpoint));
	p->persistent_keepalive = (uint16_t)tu_rng_next(&rng);
	p->last_handshake_sec = (int64_t)tu_rng_next(&rng);
	p->last_handshake_nsec = (int64_t)tu_rng_next(&rng);
	p->rx_bytes = tu_rng_next(&rng);
	p->tx_bytes = tu_rng_next(&rng);
	for (size_t i = 0; i < n; i++) {
		struct config_allowedip a = { .family = i % 2 ? AF_INET6 : AF_INET };

		tu_rng_fill(&rng, a.addr, a.family == AF_INET ? 4 : 16);
		a.cidr = (uint8_t)tu_rng_below(&rng, a.family == AF_INET ? 33 : 129);
		a.remove = i == 1;
		config_allowedip_mask(&a);
		if (config_peer_add_allowedip(p, &a) < 0)
			abort();
	}
	return p;
}

/* Every field of q is p's: the bytes before the allowed IPs and after them
 * (so a field the model gains is covered), then the prefixes themselves,
 * in an array of q's own. */
static void check_peer_copied(const struct config_peer *q, const struct config_peer *p,
			      const char *what)
{
	size_t after = offsetof(struct config_peer, allowedips_cap) + sizeof(p->allowedips_cap);

	tu_check_mem(q, p, offsetof(struct config_peer, allowedips), "%s: fields", what);
	tu_check_mem((const char *)q + after, (const char *)p + after, sizeof(*p) - after,
		     "%s: get-only fields", what);
	check(q->allowedips_len == p->allowedips_len, "%s: %zu allowed IPs, want %zu", what,
	      q->allowedips_len, p->allowedips_len);
	check(p->allowedips_len == 0 || q->allowedips != p->allowedips,
	      "%s: the allowed IPs are shared, not copied", what);
	for (size_t i = 0; i < p->allowedips_len && i < q->allowedips_len; i++)
		tu_check_mem(&q->allowedips[i], &p->allowedips[i], sizeof(p->allowedips[i]),
			     "%s: allowed IP %zu", what, i);
	check(config_peer_allowedips_equal(q, p), "%s: allowed IPs not equal", what);
}

static void test_peer_copy(void)
{
	struct config_device src, dst;

	config_device_init(&src);
	config_device_init(&dst);
	add_random_peer(&src, 5);
	add_random_peer(&src, 0);
	/* Enough peers in dst first that the copies grow its array. */
	for (int i = 0; i < 4; i++)
		add_random_peer(&dst, 1);
	for (size_t i = 0; i < src.peers_len; i++) {
		struct config_peer *q = config_device_add_peer_copy(&dst, &src.peers[i]);

		check(q == &dst.peers[dst.peers_len - 1], "peer copy %zu: not the last peer", i);
		if (q)
			check_peer_copied(q, &src.peers[i], i ? "peer without prefixes" : "peer");
	}
	check(dst.peers_len == 6, "%zu peers after two copies", dst.peers_len);
	/* The copy's prefixes are its own: changing them leaves the source's. */
	dst.peers[4].allowedips[0].cidr ^= 1;
	check(!config_peer_allowedips_equal(&dst.peers[4], &src.peers[0]),
	      "a changed prefix still compares equal");
	check(src.peers[0].allowedips[0].cidr != dst.peers[4].allowedips[0].cidr,
	      "changing the copy's prefix changed the source's");
	config_device_clear(&src);
	config_device_clear(&dst);
}

static void random_device(struct config_device *dev)
{
	config_device_init(dev);
	dev->flags = CONFIG_DEVICE_HAS_PRIVATE_KEY | (uint32_t)tu_rng_next(&rng);
	tu_rng_fill(&rng, dev->private_key, sizeof(dev->private_key));
	dev->listen_port = (uint16_t)tu_rng_next(&rng);
	dev->fwmark = (uint32_t)tu_rng_next(&rng);
	for (size_t i = 0; i < 7; i++)
		add_random_peer(dev, i % 4);
}

static void test_device_copy(void)
{
	struct config_device src, dst;
	size_t before = offsetof(struct config_device, peers);

	random_device(&src);
	config_device_init(&dst);
	check(config_device_copy(&dst, &src) == 0, "device copy");
	tu_check_mem(&dst, &src, before, "device copy: fields");
	check(dst.peers_len == src.peers_len && dst.peers != src.peers,
	      "device copy: %zu peers, want %zu in an array of its own", dst.peers_len,
	      src.peers_len);
	for (size_t i = 0; i < src.peers_len && i < dst.peers_len; i++)
		check_peer_copied(&dst.peers[i], &src.peers[i], "device copy: peer");
	check(config_device_equal(&dst, &src) && config_device_equal(&src, &dst),
	      "a device and its copy differ");
	config_device_clear(&src);
	config_device_clear(&dst);
	/* An empty device copies to an empty one. */
	config_device_init(&src);
	check(config_device_copy(&dst, &src) == 0 && dst.peers_len == 0 && !dst.peers &&
	      config_device_equal(&dst, &src), "empty device copy");
	config_device_clear(&dst);
}

/* ---- comparison ---- */

/* A get snapshot: every field set, both endpoint families, prefixes. */
static void snapshot(struct config_device *dev)
{
	struct config_peer *p;

	random_device(dev);
	dev->flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	for (size_t i = 0; i < dev->peers_len; i++) {
		p = &dev->peers[i];
		p->flags = CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_ENDPOINT;
		memset(&p->endpoint, 0, sizeof(p->endpoint));
		if (i % 2) {
			p->endpoint.in6.sin6_family = AF_INET6;
			tu_rng_fill(&rng, &p->endpoint.in6.sin6_addr, 16);
			p->endpoint.in6.sin6_scope_id = 2;
		} else {
			p->endpoint.in.sin_family = AF_INET;
			tu_rng_fill(&rng, &p->endpoint.in.sin_addr, 4);
		}
		p->endpoint.in.sin_port = htons(51820);
	}
}

/* Changes of the device's own fields: 1 (must stay equal), 0 (must
 * differ), -1 past the last. */
static int mutate_device(struct config_device *d, int i, const char **what)
{
	static const char *const names[] = {
		"private key", "no private key flag", "listen port", "fwmark",
		"HAS_LISTEN_PORT", "HAS_FWMARK", "REPLACE_PEERS", "a peer fewer",
		"peers swapped",
	};

	if (i >= (int)(sizeof(names) / sizeof(names[0])))
		return -1;
	*what = names[i];
	switch (i) {
	case 0: d->private_key[31] ^= 1; return 0;
	case 1: d->flags &= ~CONFIG_DEVICE_HAS_PRIVATE_KEY; return 0;
	case 2: d->listen_port++; return 0;
	case 3: d->fwmark ^= 0x100; return 0;
	case 4: d->flags ^= CONFIG_DEVICE_HAS_LISTEN_PORT; return 1;
	case 5: d->flags ^= CONFIG_DEVICE_HAS_FWMARK; return 1;
	case 6: d->flags ^= CONFIG_DEVICE_REPLACE_PEERS; return 1;
	case 7: d->peers_len--; return 0;	/* the last one is freed by its clear */
	default: {
		struct config_peer t = d->peers[0];

		d->peers[0] = d->peers[1];
		d->peers[1] = t;
		return 0;
	}
	}
}

/* Changes of peer 1 (an IPv6 endpoint with 1 prefix) or 2 (IPv4, 2). */
static int mutate_peer(struct config_device *d, int i, const char **what)
{
	static const char *const names[] = {
		"public key", "preshared key", "no preshared key flag", "endpoint port",
		"endpoint address", "endpoint scope", "no endpoint flag", "endpoint family",
		"keepalive", "handshake seconds", "handshake nanoseconds", "rx bytes",
		"tx bytes", "a prefix fewer", "prefix length", "prefix address",
		"prefix removal", "prefixes swapped", "REMOVE", "UPDATE_ONLY", "HAS_KEEPALIVE",
		"REPLACE_ALLOWEDIPS", "endpoint flow info", "IPv4 prefix: bytes past 4",
	};
	struct config_peer *p = &d->peers[i == 4 || i == 23 ? 2 : 1], *q = &d->peers[2];

	if (i >= (int)(sizeof(names) / sizeof(names[0])))
		return -1;
	*what = names[i];
	switch (i) {
	case 0: p->public_key[0] ^= 1; return 0;
	case 1: p->preshared_key[5] ^= 0x80; return 0;
	case 2: p->flags &= ~CONFIG_PEER_HAS_PRESHARED_KEY; return 0;
	case 3: p->endpoint.in6.sin6_port ^= 1; return 0;
	case 4: p->endpoint.in.sin_addr.s_addr ^= 1; return 0;
	case 5: p->endpoint.in6.sin6_scope_id = 3; return 0;
	case 6: p->flags &= ~CONFIG_PEER_HAS_ENDPOINT; return 0;
	case 7: p->endpoint.addr.sa_family = AF_INET; return 0;
	case 8: p->persistent_keepalive ^= 1; return 0;
	case 9: p->last_handshake_sec ^= 1; return 0;
	case 10: p->last_handshake_nsec ^= 1; return 0;
	case 11: p->rx_bytes ^= 1; return 0;
	case 12: p->tx_bytes ^= 1ull << 63; return 0;
	case 13: p->allowedips_len--; return 0;
	case 14: p->allowedips[0].cidr ^= 1; return 0;
	case 15: p->allowedips[0].addr[0] ^= 0x80; return 0;
	case 16: p->allowedips[0].remove ^= 1; return 0;
	case 17: {
		struct config_allowedip t = q->allowedips[0];

		q->allowedips[0] = q->allowedips[1];
		q->allowedips[1] = t;
		return 0;
	}
	case 18: p->flags ^= CONFIG_PEER_REMOVE; return 1;
	case 19: p->flags ^= CONFIG_PEER_UPDATE_ONLY; return 1;
	case 20: p->flags ^= CONFIG_PEER_HAS_KEEPALIVE; return 1;
	case 21: p->flags ^= CONFIG_PEER_REPLACE_ALLOWEDIPS; return 1;
	case 22: p->endpoint.in6.sin6_flowinfo ^= 1; return 1;
	default: q->allowedips[0].addr[15] ^= 1; return 1;	/* q's first prefix is IPv4 */
	}
}

static void test_equal(void)
{
	int (*const mutators[])(struct config_device *, int, const char **) = {
		mutate_device, mutate_peer,
	};
	struct config_device a, b;

	snapshot(&a);
	for (size_t m = 0; m < 2; m++) {
		for (int i = 0;; i++) {
			const char *what = NULL;
			int same;

			config_device_init(&b);
			if (config_device_copy(&b, &a) < 0)
				abort();
			same = mutators[m](&b, i, &what);
			if (same >= 0) {
				check(config_device_equal(&a, &b) == (bool)same &&
				      config_device_equal(&b, &a) == (bool)same,
				      "%s changed: the devices %s", what, same ? "differ" : "are equal");
			}
			if (m == 0 && i == 7)
				b.peers_len++;	/* back, so that clear frees it */
			config_device_clear(&b);
			if (same < 0)
				break;
		}
	}
	/* None: no flag, or the flag with an all-zero key. */
	config_device_init(&b);
	if (config_device_copy(&b, &a) < 0)
		abort();
	a.flags &= ~CONFIG_DEVICE_HAS_PRIVATE_KEY;
	memset(b.private_key, 0, sizeof(b.private_key));
	a.peers[0].flags &= ~CONFIG_PEER_HAS_PRESHARED_KEY;
	memset(b.peers[0].preshared_key, 0, sizeof(b.peers[0].preshared_key));
	check(config_device_equal(&a, &b) && config_device_equal(&b, &a),
	      "no key and an all-zero key differ");
	config_device_clear(&a);
	config_device_clear(&b);
}

static void test_find_peer(void)
{
	struct config_device dev;
	uint8_t key[CONFIG_KEY_LEN];

	random_device(&dev);
	for (size_t i = 0; i < dev.peers_len; i++)
		check(config_device_find_peer(&dev, dev.peers[i].public_key) == &dev.peers[i],
		      "peer %zu not found by its key", i);
	memcpy(key, dev.peers[3].public_key, sizeof(key));
	key[31] ^= 1;
	check(!config_device_find_peer(&dev, key), "a key no peer has found");
	/* the first of two with the same key */
	memcpy(dev.peers[5].public_key, dev.peers[2].public_key, sizeof(key));
	check(config_device_find_peer(&dev, dev.peers[5].public_key) == &dev.peers[2],
	      "not the first of two peers with one key");
	config_device_clear(&dev);
	config_device_init(&dev);
	check(!config_device_find_peer(&dev, key), "a peer found in an empty device");
}

static void test_has_endpoint(void)
{
	struct config_peer p = { .flags = CONFIG_PEER_HAS_ENDPOINT };

	p.endpoint.addr.sa_family = AF_INET;
	check(config_peer_has_endpoint(&p), "IPv4 endpoint");
	p.endpoint.addr.sa_family = AF_INET6;
	check(config_peer_has_endpoint(&p), "IPv6 endpoint");
	p.endpoint.addr.sa_family = AF_UNSPEC;
	check(!config_peer_has_endpoint(&p), "flag without an address");
	p.endpoint.addr.sa_family = AF_UNIX;
	check(!config_peer_has_endpoint(&p), "flag with another family");
	p.flags = 0;
	p.endpoint.addr.sa_family = AF_INET;
	check(!config_peer_has_endpoint(&p), "an address without the flag");
}

int main(void)
{
	tu_rng_seed(&rng, tu_seed("test_config", 20));
	test_peer_copy();
	test_device_copy();
	test_equal();
	test_has_endpoint();
	test_find_peer();
	return tu_exit_status("test_config");
}
