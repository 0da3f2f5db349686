// SPDX-License-Identifier: GPL-2.0-only
/*
 * The control socket's set and get, applied to the device.
 *
 * The order and meaning of a set are those of config.h.  Every value that
 * equals what the device already has is a no-op, so that `wg syncconf`
 * with an unchanged file never resets a session (doc/control.md).
 */
#include <errno.h>
#include <string.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/base/clock.h"
#include "daemon/base/log.h"
#include "daemon/core/messages.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/send.h"

static void config_clear_all_src(struct device *d)
{
	struct peer *p;

	for (p = d->peers; p; p = p->next)
		endpoint_clear_src(&p->endpoint);
}

/*
 * WP §5.4: a new identity invalidates every session, and the handshakes
 * with it may start at once.  Returns 1 if the identity changed, else 0.
 */
static int config_set_private_key(struct device *d, const uint8_t key[CONFIG_KEY_LEN])
{
	uint8_t clamped[CONFIG_KEY_LEN];
	struct peer *p, *self;
	bool same;

	crypto_copy32(clamped, key);
	if (crypto_is_zero(key, CONFIG_KEY_LEN)) {
		same = !d->local.has_identity;
	} else {
		x25519_clamp(clamped);
		same = d->local.has_identity &&
		       crypto_equal(clamped, d->local.private_key, CONFIG_KEY_LEN);
	}
	if (same) {
		crypto_wipe(clamped, sizeof(clamped));
		return 0;
	}
	if (crypto_is_zero(key, CONFIG_KEY_LEN))
		noise_local_set_private(&d->local, NULL);
	else if (!noise_local_set_private(&d->local, clamped))
		log_error("the private key yields no public key; identity removed");
	crypto_wipe(clamped, sizeof(clamped));
	/* A peer with our own public key would be ourselves: it goes. */
	self = d->local.has_identity ? peer_lookup(d, d->local.public_key) : NULL;
	if (self)
		peer_destroy(self);
	for (p = d->peers; p; p = p->next) {
		noise_remote_update_local(&p->remote);
		peer_keys_changed(p);
	}
	return 1;
}

/* A new port (the shell rebinds, keeping the old sockets on failure). */
static int config_set_port(struct device *d, uint16_t port, uint32_t fwmark)
{
	uint16_t bound;
	bool gro;
	int ret;

	if (port == d->listen_port_requested || (port && port == d->listen_port))
		return 0;
	ret = d->io.bind(d->io.ctx, port, fwmark, &bound, &gro);
	if (ret < 0)
		return ret;
	d->listen_port = bound;
	d->udp_gro = gro;
	d->listen_port_requested = port;
	d->fwmark = fwmark;
	config_clear_all_src(d);
	return 0;
}

static int config_set_fwmark(struct device *d, uint32_t fwmark)
{
	int ret;

	if (fwmark == d->fwmark)
		return 0;
	ret = d->io.set_fwmark(d->io.ctx, fwmark);
	if (ret < 0)
		return ret;
	d->fwmark = fwmark;
	config_clear_all_src(d);
	return 0;
}

static void config_set_endpoint(struct peer *p, const union config_endpoint *e)
{
	struct endpoint ep;

	memset(&ep, 0, sizeof(ep));
	if (e->addr.sa_family == AF_INET) {
		ep.addr.in4 = e->in;
	} else if (e->addr.sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&e->in6.sin6_addr)) {
		/* [::ffff:a.b.c.d]:port goes out of the IPv4 socket (ours is V6ONLY) */
		ep.addr.in4.sin_family = AF_INET;
		ep.addr.in4.sin_port = e->in6.sin6_port;
		memcpy(&ep.addr.in4.sin_addr, e->in6.sin6_addr.s6_addr + 12, 4);
	} else if (e->addr.sa_family == AF_INET6) {
		ep.addr.in6 = e->in6;
	} else {
		return;
	}
	if (endpoint_addr_equal(&p->endpoint, &ep))
		return;
	p->endpoint = ep;
}

static int config_set_allowedips(struct device *d, struct peer *p, const struct config_peer *cp)
{
	size_t i;
	int ret;

	if (cp->flags & CONFIG_PEER_REPLACE_ALLOWEDIPS)
		allowedips_remove_owner(&d->table, &p->allowedips);
	for (i = 0; i < cp->allowedips_len; i++) {
		const struct config_allowedip *a = &cp->allowedips[i];
		int version = a->family == AF_INET ? 4 : 6;

		if (a->remove) {
			/* Removing a prefix the peer does not own is not an error. */
			allowedips_remove(&d->table, version, a->addr, a->cidr, &p->allowedips);
			continue;
		}
		ret = allowedips_insert(&d->table, version, a->addr, a->cidr, &p->allowedips);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int config_apply_peer(struct device *d, const struct config_peer *cp, uint64_t now)
{
	struct peer *p;
	int ret;

	/* A peer with our own public key is ignored (doc/protocol.md §10). */
	if (d->local.has_identity && !memcmp(cp->public_key, d->local.public_key, CONFIG_KEY_LEN))
		return 0;
	p = peer_lookup(d, cp->public_key);
	if (cp->flags & CONFIG_PEER_REMOVE) {
		if (p)
			peer_destroy(p);
		return 0;
	}
	if (!p && (cp->flags & CONFIG_PEER_UPDATE_ONLY))
		return 0;
	if (!p) {
		p = peer_create(d, cp->public_key, now);
		if (!p)
			return -ENOMEM;
	}
	/*
	 * A new preshared key is only stored, as the kernel stores it: the
	 * next handshake uses it, and the live session runs to its rekey, so
	 * a rotation done one side at a time loses nothing until then
	 * (doc/protocol.md §7).
	 */
	if (cp->flags & CONFIG_PEER_HAS_PRESHARED_KEY)
		noise_remote_set_preshared_key(&p->remote, crypto_is_zero(cp->preshared_key, CONFIG_KEY_LEN)
							   ? NULL : cp->preshared_key);
	if (cp->flags & CONFIG_PEER_HAS_ENDPOINT)
		config_set_endpoint(p, &cp->endpoint);
	if ((cp->flags & CONFIG_PEER_HAS_KEEPALIVE) &&
	    cp->persistent_keepalive != p->timers.persistent_interval)
		peer_set_persistent_keepalive(p, cp->persistent_keepalive, now);
	ret = config_set_allowedips(d, p, cp);
	if (ret < 0)
		return ret;
	/* doc/control.md: staged packets go out after each peer update. */
	if (d->up)
		send_staged(p, now);
	return 0;
}

static int config_set(struct device *d, const struct config_device *cfg, uint64_t now)
{
	bool new_identity = false;
	struct peer *p;
	size_t i;
	int ret;

	if (cfg->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY)
		new_identity = config_set_private_key(d, cfg->private_key);
	if (cfg->flags & CONFIG_DEVICE_HAS_LISTEN_PORT) {
		ret = config_set_port(d, cfg->listen_port,
				      (cfg->flags & CONFIG_DEVICE_HAS_FWMARK) ? cfg->fwmark : d->fwmark);
		if (ret < 0)
			return ret;
	}
	if (cfg->flags & CONFIG_DEVICE_HAS_FWMARK) {
		ret = config_set_fwmark(d, cfg->fwmark);
		if (ret < 0)
			return ret;
	}
	if (cfg->flags & CONFIG_DEVICE_REPLACE_PEERS) {
		while (d->peers)
			peer_destroy(d->peers);
	}
	for (i = 0; i < cfg->peers_len; i++) {
		ret = config_apply_peer(d, &cfg->peers[i], now);
		if (ret < 0)
			return ret;
	}
	/*
	 * Packets staged under the old identity, or while there was none, go
	 * out behind a handshake with the new one, once the whole message is
	 * applied (so that one handshake carries all of its changes).
	 */
	if (new_identity && d->up) {
		for (p = d->peers; p; p = p->next)
			send_staged(p, now);
	}
	return 0;
}

int device_config_set(struct device *d, const struct config_device *cfg, uint64_t now)
{
	int ret = config_set(d, cfg, now);

	device_deadline_commit(d);
	return ret;
}

/* ---- get ---- */

static int config_get_allowedip(void *ctx, int ip_version, const uint8_t *addr, uint8_t cidr)
{
	struct config_allowedip a;

	memset(&a, 0, sizeof(a));
	a.family = ip_version == 4 ? AF_INET : AF_INET6;
	a.cidr = cidr;
	memcpy(a.addr, addr, ip_version == 4 ? 4 : 16);
	return config_peer_add_allowedip(ctx, &a);
}

static int config_get_peer(struct peer *p, struct config_device *out)
{
	struct config_peer *cp = config_device_add_peer(out, p->remote.public_key);
	uint32_t nsec;

	if (!cp)
		return -ENOMEM;
	crypto_copy32(cp->preshared_key, p->remote.preshared_key);
	cp->flags |= CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_KEEPALIVE;
	if (p->endpoint.addr.sa.sa_family == AF_INET) {
		cp->endpoint.in = p->endpoint.addr.in4;
		cp->flags |= CONFIG_PEER_HAS_ENDPOINT;
	} else if (p->endpoint.addr.sa.sa_family == AF_INET6) {
		cp->endpoint.in6 = p->endpoint.addr.in6;
		cp->flags |= CONFIG_PEER_HAS_ENDPOINT;
	}
	cp->persistent_keepalive = p->timers.persistent_interval;
	cp->last_handshake_sec = (int64_t)wg_ns_to_sec(p->last_handshake_ns, &nsec);
	cp->last_handshake_nsec = nsec;
	cp->rx_bytes = p->rx_bytes;
	cp->tx_bytes = p->tx_bytes;
	return allowedips_walk_owner(&p->allowedips, config_get_allowedip, cp);
}

int device_config_get(struct device *d, struct config_device *out)
{
	struct peer *p;
	int ret;

	if (d->local.has_identity) {
		crypto_copy32(out->private_key, d->local.private_key);
		out->flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
	}
	out->listen_port = d->listen_port;
	out->flags |= CONFIG_DEVICE_HAS_LISTEN_PORT;
	out->fwmark = d->fwmark;
	if (d->fwmark)
		out->flags |= CONFIG_DEVICE_HAS_FWMARK;
	for (p = d->peers; p; p = p->next) {
		ret = config_get_peer(p, out);
		if (ret < 0)
			return ret;
	}
	return 0;
}
