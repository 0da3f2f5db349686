// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device's life cycle, link state, MTU, resume and deadline
 * (device.h).  No descriptor, no clock: time comes in as `now`, the world
 * is reached through d->io.
 */
#include "daemon/datapath/device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/datapath/crypt.h"
#include "daemon/datapath/expiry.h"
#include "daemon/datapath/send.h"

/* The noise core's peer lookup when an initiation names its sender. */
static struct noise_remote *device_lookup_remote(void *ctx, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct peer *p = peer_lookup(ctx, public_key);

	return p ? &p->remote : NULL;
}

struct device *device_create(const struct device_io *io, const char *name)
{
	struct device *d = calloc(1, sizeof(*d));
	uint8_t secret[KEYHASH_SECRET_LEN];

	if (!d)
		return NULL;
	d->io = *io;
	crypt_init(&d->crypt);
	/* The core's random bytes come through the seam too. */
	d->random = (struct core_random){ .fill = io->random, .ctx = io->ctx };
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->ratelimiter = calloc(1, sizeof(*d->ratelimiter));
	/* The peer table's hash key, secret so no sender can aim at one bucket. */
	if (!d->ratelimiter || !ratelimiter_init_with(d->ratelimiter, &d->random) ||
	    !io->random(io->ctx, secret, sizeof(secret)) ||
	    !io->random(io->ctx, &d->jitter_state, sizeof(d->jitter_state))) {
		free(d->ratelimiter);
		free(d);
		return NULL;
	}
	d->jitter_state |= 1;
	keyhash_init(&d->peer_keys, secret);
	crypto_wipe(secret, sizeof(secret));
	d->mtu = DEVICE_DEFAULT_MTU;
	d->deadline = d->deadline_told = UINT64_MAX;
	load_init(&d->load);
	icmp_limit_init(&d->icmp);
	noise_local_init(&d->local, device_lookup_remote, d);
	noise_local_set_random(&d->local, &d->random);
	allowedips_init(&d->table);
	return d;
}

void device_destroy(struct device *d)
{
	if (!d)
		return;
	while (d->peers)
		peer_destroy(d->peers);
	allowedips_clear(&d->table);
	ratelimiter_clear(d->ratelimiter);
	free(d->ratelimiter);
	keyhash_clear(&d->peer_keys);
	noise_local_clear(&d->local);
	crypto_wipe(d, sizeof(*d));
	free(d);
}

void device_set_offloads(struct device *d, bool tun_vnet, bool udp_gro)
{
	d->tun_vnet = tun_vnet;
	d->udp_gro = udp_gro;
}

void device_set_bound(struct device *d, uint16_t port, bool udp_gro)
{
	device_note_bound(d, port, udp_gro);
}

/*
 * The sockets follow the link (the kernel's WireGuard opens them in
 * ndo_open and closes them in ndo_stop): closed while it is down, opened
 * at up on the port stored (the one bound before, or set while down).  A
 * port that cannot be bound at up leaves the device without sockets until
 * the next listen-port set (the kernel refuses the link up instead).
 */
static void device_sockets_follow(struct device *d, bool up)
{
	uint16_t bound;
	bool gro;

	if (!up && d->bound) {
		d->io.unbind(d->io.ctx);
		d->bound = false;
	} else if (up && !d->bound && d->io.bind(d->io.ctx, d->listen_port, d->fwmark, &bound, &gro) == 0) {
		device_note_bound(d, bound, gro);
	}
}

/*
 * Every peer after the link went down (doc/protocol.md §8: staged packets
 * and sessions dropped) or after a suspend (sessions wiped); then, while
 * the link is up, as after a link up: staged packets handshake at once.
 */
static void device_peers_restart(struct device *d, bool link_down, bool wipe, uint64_t now)
{
	struct peer *p;

	for (p = d->peers; p; p = p->next) {
		if (link_down)
			peer_link_down(p);
		else if (wipe)
			peer_wipe_sessions(p);
		if (!d->up)
			continue;
		peer_link_up(p, now);
		send_staged(p, now);
	}
	device_deadline_commit(d);
}

void device_set_link(struct device *d, bool up, uint64_t now)
{
	if (up == d->up)
		return;
	d->up = up;
	log_info("interface %s is %s", d->name, up ? "up" : "down");
	device_sockets_follow(d, up);
	device_peers_restart(d, !up, false, now);
}

/*
 * The MTU bounds the padding (WP §5.4.6) and chooses the receive layout.
 * Packets up to PACKET_MAX_INNER_LARGE are carried, those larger than a
 * slot on the oversize path; beyond that a data message no longer fits
 * one UDP datagram.
 */
void device_set_mtu(struct device *d, unsigned int mtu)
{
	if (mtu > PACKET_MAX_INNER_LARGE)
		log_error("MTU %u of %s exceeds the largest packet one UDP datagram carries (%d); larger packets are dropped",
			  mtu, d->name, PACKET_MAX_INNER_LARGE);
	d->mtu = mtu;
}

void device_forget_sources(struct device *d)
{
	struct peer *p;

	for (p = d->peers; p; p = p->next)
		endpoint_clear_src(&p->endpoint);
}

/*
 * The kernel's WireGuard wipes its sessions as the system goes to sleep; a
 * daemon learns of the sleep only on waking (the shell compares the boot
 * and monotonic clocks), and does the same then, before any packet of that
 * wakeup is handled.
 */
void device_resume(struct device *d, uint64_t now, uint64_t slept_ns)
{
	uint32_t rem_ns;

	log_info("the system was suspended for %llu s; every session is wiped",
		 (unsigned long long)wg_ns_to_sec(slept_ns + 500000000ull, &rem_ns));
	device_peers_restart(d, false, true, now);
}

/* The single deadline: run every peer's due timers, then find the next. */
void device_run_timers(struct device *d, uint64_t now)
{
	/* The shell forgot its deadline as it fired (io.h). */
	d->deadline = d->deadline_told = UINT64_MAX;
	device_timer_touch(d, expiry_run(d, now));
	device_deadline_commit(d);
}

void device_log_stats(const struct device *d)
{
	const struct device_stats *s = &d->stats;

	log_info("dropped on send: %llu no route, %llu no endpoint, %llu malformed, %llu staged overflow, %llu UDP",
		 (unsigned long long)s->tx_no_route, (unsigned long long)s->tx_no_endpoint,
		 (unsigned long long)s->tx_bad_packet, (unsigned long long)s->tx_staged_dropped,
		 (unsigned long long)s->tx_udp_dropped);
	log_info("dropped on receive: %llu invalid, %llu bad mac1, %llu handshake, %llu data, "
		 "%llu bad inner packet, %llu source not allowed, %llu CE on not ECN-capable, %llu TUN",
		 (unsigned long long)s->rx_invalid, (unsigned long long)s->rx_bad_mac,
		 (unsigned long long)s->rx_handshake_dropped, (unsigned long long)s->rx_data_dropped,
		 (unsigned long long)s->rx_bad_inner, (unsigned long long)s->rx_bad_source,
		 (unsigned long long)s->rx_ecn_dropped, (unsigned long long)s->rx_tun_dropped);
	log_info("ICMP unreachable errors for packets no peer takes: %llu written, %llu held back by the limit",
		 (unsigned long long)d->icmp.allowed, (unsigned long long)d->icmp.limited);
	log_info("pure ACKs superseded by a later one in their batch, not written: %llu",
		 (unsigned long long)s->rx_acks_superseded);
}
