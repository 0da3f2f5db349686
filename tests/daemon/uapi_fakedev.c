/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A control socket in front of an in-memory device, for comparing what
 * Debian's wg sees from us with what it sees from wireguard-go
 * (test_wg_compat.sh).  The device state is itself a struct config_device;
 * a set is applied with the semantics documented in daemon/config.h.
 *
 * Usage: uapi_fakedev IFNAME   (directory: $WGD_RUN_DIR or /var/run/wireguard)
 * Serves until its socket file is deleted; exits 0 then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/config.h"
#include "daemon/control.h"
#include "daemon/log.h"
#include "daemon/loop.h"

struct fakedev {
	struct config_device state;
	struct loop loop;
};

static struct config_peer *find_peer(struct config_device *d, const uint8_t *key)
{
	for (size_t i = 0; i < d->peers_len; i++) {
		if (memcmp(d->peers[i].public_key, key, CONFIG_KEY_LEN) == 0)
			return &d->peers[i];
	}
	return NULL;
}

static void remove_peer(struct config_device *d, struct config_peer *p)
{
	size_t i = (size_t)(p - d->peers);

	free(p->allowedips);
	memmove(p, p + 1, (d->peers_len - i - 1) * sizeof(*p));
	d->peers_len--;
	crypto_wipe(&d->peers[d->peers_len], sizeof(*p));
}

static bool same_prefix(const struct config_allowedip *a, const struct config_allowedip *b)
{
	return a->family == b->family && a->cidr == b->cidr &&
	       memcmp(a->addr, b->addr, 16) == 0;
}

/* Removes the prefix from p; true if it was there. */
static bool drop_prefix(struct config_peer *p, const struct config_allowedip *a)
{
	for (size_t i = 0; i < p->allowedips_len; i++) {
		if (same_prefix(&p->allowedips[i], a)) {
			memmove(&p->allowedips[i], &p->allowedips[i + 1],
				(p->allowedips_len - i - 1) * sizeof(*a));
			p->allowedips_len--;
			return true;
		}
	}
	return false;
}

static int apply_allowedip(struct config_device *d, struct config_peer *p,
			   const struct config_allowedip *a)
{
	struct config_allowedip copy = *a;

	if (a->remove) {
		drop_prefix(p, a);
		return 0;
	}
	/* A prefix belongs to one peer: adding it here moves it. */
	for (size_t i = 0; i < d->peers_len; i++)
		drop_prefix(&d->peers[i], a);
	copy.remove = false;
	return config_peer_add_allowedip(p, &copy);
}

static int apply_peer(struct config_device *d, const struct config_peer *in)
{
	struct config_peer *p = find_peer(d, in->public_key);
	int ret;

	if (in->flags & CONFIG_PEER_REMOVE) {
		if (p)
			remove_peer(d, p);
		return 0;
	}
	if (!p && (in->flags & CONFIG_PEER_UPDATE_ONLY))
		return 0;
	if (!p) {
		p = config_device_add_peer(d, in->public_key);
		if (!p)
			return -ENOMEM;
		/* wireguard-go always reports a preshared key (zeros if none). */
		p->flags = CONFIG_PEER_HAS_PRESHARED_KEY;
	}
	if (in->flags & CONFIG_PEER_HAS_PRESHARED_KEY)
		memcpy(p->preshared_key, in->preshared_key, CONFIG_KEY_LEN);
	if (in->flags & CONFIG_PEER_HAS_ENDPOINT) {
		p->endpoint = in->endpoint;
		p->flags |= CONFIG_PEER_HAS_ENDPOINT;
	}
	if (in->flags & CONFIG_PEER_HAS_KEEPALIVE)
		p->persistent_keepalive = in->persistent_keepalive;
	if (in->flags & CONFIG_PEER_REPLACE_ALLOWEDIPS)
		p->allowedips_len = 0;
	for (size_t i = 0; i < in->allowedips_len; i++) {
		ret = apply_allowedip(d, p, &in->allowedips[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int fake_set(void *ctx, const struct config_device *cfg)
{
	struct fakedev *f = ctx;
	struct config_device *d = &f->state;
	int ret;

	if (cfg->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) {
		memcpy(d->private_key, cfg->private_key, CONFIG_KEY_LEN);
		/* Reported clamped (RFC 7748 §5), as wireguard-go and the
		 * kernel do. */
		if (!crypto_is_zero(d->private_key, CONFIG_KEY_LEN)) {
			d->private_key[0] &= 248;
			d->private_key[31] = (uint8_t)((d->private_key[31] & 127) | 64);
		}
		d->flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
	}
	if (cfg->flags & CONFIG_DEVICE_HAS_LISTEN_PORT)
		d->listen_port = cfg->listen_port;
	if (cfg->flags & CONFIG_DEVICE_HAS_FWMARK)
		d->fwmark = cfg->fwmark;
	if (cfg->flags & CONFIG_DEVICE_REPLACE_PEERS) {
		while (d->peers_len)
			remove_peer(d, &d->peers[0]);
	}
	for (size_t i = 0; i < cfg->peers_len; i++) {
		ret = apply_peer(d, &cfg->peers[i]);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int fake_get(void *ctx, struct config_device *out)
{
	struct fakedev *f = ctx;
	const struct config_device *d = &f->state;

	out->flags = d->flags;
	memcpy(out->private_key, d->private_key, CONFIG_KEY_LEN);
	out->listen_port = d->listen_port;
	out->fwmark = d->fwmark;
	for (size_t i = 0; i < d->peers_len; i++) {
		const struct config_peer *s = &d->peers[i];
		struct config_peer *p = config_device_add_peer(out, s->public_key);

		if (!p)
			return -ENOMEM;
		memcpy(p, s, offsetof(struct config_peer, allowedips));
		for (size_t j = 0; j < s->allowedips_len; j++) {
			if (config_peer_add_allowedip(p, &s->allowedips[j]) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void fake_gone(void *ctx)
{
	struct fakedev *f = ctx;

	loop_stop(&f->loop);
}

static const struct control_ops fake_ops = {
	.set = fake_set, .get = fake_get, .socket_gone = fake_gone,
};

int main(int argc, char **argv)
{
	struct fakedev f;
	struct control *ctl;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IFNAME\n", argv[0]);
		return 2;
	}
	log_init(argv[1], LOG_LEVEL_ERROR, true);
	config_device_init(&f.state);
	ret = loop_init(&f.loop);
	if (ret == 0)
		ret = control_open(&ctl, argv[1], NULL, &fake_ops, &f);
	if (ret == 0) {
		ret = control_attach(ctl, &f.loop);
		if (ret == 0)
			ret = loop_run(&f.loop);
		control_close(ctl);
	}
	loop_clear(&f.loop);
	config_device_clear(&f.state);
	if (ret < 0) {
		fprintf(stderr, "uapi_fakedev: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
