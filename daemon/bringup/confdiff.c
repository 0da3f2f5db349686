// SPDX-License-Identifier: GPL-2.0-only
/* A reload's set message from the old and the new file (see confdiff.h). */
#include "daemon/bringup/confdiff.h"

#include <errno.h>
#include <string.h>

#include "crypto/util.h"

/* The index of the peer of cf with this public key, or -1.  Linear: a
 * reload is rare and a file's peers few enough (a thousand peers: a
 * million short compares). */
static long confdiff_find(const struct conffile *cf, const uint8_t key[CONFIG_KEY_LEN])
{
	const struct config_peer *p = config_device_find_peer(&cf->dev, key);

	return p ? (long)(p - cf->dev.peers) : -1;
}

/* A key given (flag set) compared with another, absence as a key of its own. */
static bool confdiff_key_changed(bool had, const uint8_t *a, bool has, const uint8_t *b)
{
	if (had != has)
		return true;
	return had && !crypto_equal(a, b, CONFIG_KEY_LEN);
}

static bool confdiff_endpoint_changed(const struct conffile_peer *a, const struct conffile_peer *b)
{
	if (!a->endpoint_host || !b->endpoint_host)
		return a->endpoint_host != b->endpoint_host;
	return a->endpoint_port != b->endpoint_port || strcmp(a->endpoint_host, b->endpoint_host);
}

static uint16_t confdiff_keepalive(const struct config_peer *p)
{
	return (p->flags & CONFIG_PEER_HAS_KEEPALIVE) ? p->persistent_keepalive : 0;
}

/*
 * The fields of peer np (new file) that differ from op (old file) into a
 * message entry; nothing is appended when there is nothing to send.  1 when
 * the peer changed, 0, or -ENOMEM.
 */
static int confdiff_peer(struct config_device *set, const struct config_peer *op,
			 const struct conffile_peer *ox, const struct config_peer *np,
			 const struct conffile_peer *nx)
{
	uint32_t flags = 0;
	struct config_peer *p;

	if (confdiff_key_changed(op->flags & CONFIG_PEER_HAS_PRESHARED_KEY, op->preshared_key,
				 np->flags & CONFIG_PEER_HAS_PRESHARED_KEY, np->preshared_key))
		flags |= CONFIG_PEER_HAS_PRESHARED_KEY;
	if (confdiff_keepalive(op) != confdiff_keepalive(np))
		flags |= CONFIG_PEER_HAS_KEEPALIVE;
	if (!config_peer_allowedips_equal(op, np))
		flags |= CONFIG_PEER_REPLACE_ALLOWEDIPS;
	/* A numeric endpoint has the flag; a host name has none (dnsnames
	 * resolves it): the peer changed, but there is nothing to send. */
	if (confdiff_endpoint_changed(ox, nx)) {
		flags |= np->flags & CONFIG_PEER_HAS_ENDPOINT;
		if (!flags)
			return 1;
	}
	if (!flags)
		return 0;
	/* The new peer, with only the changed fields flagged.  The preshared
	 * key and keepalive are zeros when the new file has none (the parser
	 * leaves them so): "no preshared key" / "off". */
	p = config_device_add_peer_copy(set, np);
	if (!p)
		return -ENOMEM;
	p->flags = flags;
	p->persistent_keepalive = confdiff_keepalive(np);
	/* Prefixes are sent only to replace them: a set adds every prefix it
	 * lists, and would take back one moved to another peer at run time. */
	if (!(flags & CONFIG_PEER_REPLACE_ALLOWEDIPS))
		p->allowedips_len = 0;
	return 1;
}

/* A peer of the new file only, as parsed. */
static int confdiff_add(struct config_device *set, const struct config_peer *np)
{
	return config_device_add_peer_copy(set, np) ? 0 : -ENOMEM;
}

static int confdiff_peers(struct config_device *set, const struct conffile *old,
			  const struct conffile *new, struct confdiff_summary *sum)
{
	struct config_peer *p;
	long j;
	int ret;

	for (size_t i = 0; i < old->dev.peers_len; i++) {
		if (confdiff_find(new, old->dev.peers[i].public_key) >= 0)
			continue;
		p = config_device_add_peer(set, old->dev.peers[i].public_key);
		if (!p)
			return -ENOMEM;
		p->flags = CONFIG_PEER_REMOVE;
		sum->removed++;
	}
	for (size_t i = 0; i < new->dev.peers_len; i++) {
		j = confdiff_find(old, new->dev.peers[i].public_key);
		if (j < 0) {
			ret = confdiff_add(set, &new->dev.peers[i]);
			if (ret < 0)
				return ret;
			sum->added++;
			continue;
		}
		ret = confdiff_peer(set, &old->dev.peers[j], &old->peers[j], &new->dev.peers[i],
				    &new->peers[i]);
		if (ret < 0)
			return ret;
		sum->changed += (unsigned int)ret;
	}
	return 0;
}

int confdiff_make(struct config_device *set, const struct conffile *old,
		  const struct conffile *new, struct confdiff_summary *sum)
{
	const struct config_device *o = &old->dev, *n = &new->dev;
	uint16_t oport = (o->flags & CONFIG_DEVICE_HAS_LISTEN_PORT) ? o->listen_port : 0;
	uint16_t nport = (n->flags & CONFIG_DEVICE_HAS_LISTEN_PORT) ? n->listen_port : 0;
	int ret;

	memset(sum, 0, sizeof(*sum));
	if (confdiff_key_changed(o->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY, o->private_key,
				 n->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY, n->private_key)) {
		set->flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
		/* All zero (no key in the new file: the parser leaves it so)
		 * removes the key. */
		crypto_copy32(set->private_key, n->private_key);
		sum->device = true;
	}
	if (oport != nport) {
		set->flags |= CONFIG_DEVICE_HAS_LISTEN_PORT;
		set->listen_port = nport;
		sum->device = true;
	}
	ret = confdiff_peers(set, old, new, sum);
	if (ret < 0)
		config_device_clear(set);
	return ret;
}
