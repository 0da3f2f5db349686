// SPDX-License-Identifier: GPL-2.0-only
/*
 * The device's life cycle and its loop handlers.
 *
 * Start-up order (device_start): loop, TUN handle, netlink (link state,
 * MTU), UDP sockets, signals, control socket.  device_stop() undoes it in
 * reverse and wipes every key on the way out.
 */
#include "daemon/device.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/peer.h"

uint64_t device_realtime_ns(void)
{
	return clock_real_ns();
}

uint64_t device_jitter(struct device *d)
{
	/* xorshift64: jitter only spreads timers out, it is not a secret */
	uint64_t x = d->jitter_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	d->jitter_state = x;
	return x;
}

void device_timer_touch(struct device *d, uint64_t when)
{
	if (when < d->loop.deadline)
		loop_set_deadline(&d->loop, when);
}

void device_fail(struct device *d, const char *why)
{
	log_error("%s; exiting", why);
	d->exit_status = 1;
	loop_stop(&d->loop);
}

/* The noise core's peer lookup when an initiation names its sender. */
static struct noise_remote *device_lookup_remote(void *ctx, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct peer *p = peer_lookup(ctx, public_key);

	return p ? &p->remote : NULL;
}

struct device *device_create(void)
{
	struct device *d = calloc(1, sizeof(*d));
	uint8_t secret[KEYHASH_SECRET_LEN];

	if (!d)
		return NULL;
	/* The peer table's hash key, secret so no sender can aim at one bucket. */
	if (!crypto_random(secret, sizeof(secret))) {
		free(d);
		return NULL;
	}
	keyhash_init(&d->peer_keys, secret);
	crypto_wipe(secret, sizeof(secret));
	d->loop.epfd = -1;
	d->tun.fd = -1;
	d->udp.fd[UDP_V4] = d->udp.fd[UDP_V6] = -1;
	d->udp_h[UDP_V4].fd = d->udp_h[UDP_V6].fd = -1;
	d->sigfd = -1;
	d->mtu = DEVICE_DEFAULT_MTU;
	noise_local_init(&d->local, device_lookup_remote, d);
	allowedips_init(&d->table);
	return d;
}

void device_destroy(struct device *d)
{
	if (!d)
		return;
	keyhash_clear(&d->peer_keys);
	noise_local_clear(&d->local);
	crypto_wipe(d, sizeof(*d));
	free(d);
}

/* ---- loop handlers ---- */

static void device_on_tun(struct loop_fd *h, uint32_t revents)
{
	(void)revents;
	send_tun_readable(container_of(h, struct device, tun_h));
}

static void device_on_udp4(struct loop_fd *h, uint32_t revents)
{
	(void)revents;
	receive_udp_readable(container_of(h, struct device, udp_h[UDP_V4]), UDP_V4);
}

static void device_on_udp6(struct loop_fd *h, uint32_t revents)
{
	(void)revents;
	receive_udp_readable(container_of(h, struct device, udp_h[UDP_V6]), UDP_V6);
}

static void device_set_up(struct device *d, bool up)
{
	uint64_t now = loop_now();
	struct peer *p;

	if (up == d->up)
		return;
	d->up = up;
	log_info("interface %s is %s", d->tun.name, up ? "up" : "down");
	/* Reference §8: down drops staged packets and sessions; up resumes. */
	for (p = d->peers; p; p = p->next) {
		if (up)
			peer_interface_up(p, now);
		else
			peer_interface_down(p);
	}
}

/*
 * The MTU bounds the padding (WP §5.4.6) and chooses the receive layout.
 * Packets up to PACKET_MAX_INNER_LARGE are carried, those larger than a
 * slot on the oversize path; beyond that a data message no longer fits
 * one UDP datagram.
 */
static void device_set_mtu(struct device *d, unsigned int mtu)
{
	if (mtu > PACKET_MAX_INNER_LARGE)
		log_error("MTU %u of %s exceeds the largest packet one UDP datagram carries (%d); larger packets are dropped",
			  mtu, d->tun.name, PACKET_MAX_INNER_LARGE);
	d->mtu = mtu;
}

/*
 * Events were lost (netlink overrun): the link's up/down state and MTU are
 * asked for, so that a lost "up" does not leave the device dropping every
 * datagram; lost address deletions and route changes are assumed.
 * Negative if the link is gone (the loop is stopped).
 */
static int device_netlink_resync(struct device *d, struct netlink_event *ev)
{
	struct netlink_event now;
	int ret;

	log_info("netlink events were lost; reading the state of %s", d->tun.name);
	ret = netlink_get_link(&d->nl, &now);
	if (ret == -ENODEV) {
		log_info("interface %s was deleted; exiting", d->tun.name);
		loop_stop(&d->loop);
		return ret;
	}
	if (ret < 0) {
		log_error("netlink: %s", strerror(-ret));
		return 0;
	}
	if (now.mtu)
		ev->mtu = now.mtu;
	ev->has_flags = now.has_flags;
	ev->up = now.up;
	ev->addr_removed = true;
	ev->route_changed = true;
	return 0;
}

static void device_on_netlink(struct loop_fd *h, uint32_t revents)
{
	struct device *d = container_of(h, struct device, nl_h);
	struct netlink_event ev = { 0 };
	int ret;

	(void)revents;
	ret = netlink_read_events(&d->nl, &ev);
	if (ret < 0) {
		log_error("netlink: %s", strerror(-ret));
		return;
	}
	if (ev.lost && device_netlink_resync(d, &ev) < 0)
		return;
	if (ev.deleted) {
		log_info("interface %s was deleted; exiting", d->tun.name);
		loop_stop(&d->loop);
		return;
	}
	if (ev.mtu && ev.mtu != d->mtu) {
		log_info("MTU of %s is now %u", d->tun.name, ev.mtu);
		device_set_mtu(d, ev.mtu);
	}
	if (ev.has_flags)
		device_set_up(d, ev.up);
	if (ev.addr_removed || ev.route_changed) {
		struct peer *p;

		/*
		 * A cached source address may be gone, and the kernel would
		 * still send from it (IP_PKTINFO does not check); or a route
		 * change may have made another one the kernel's preferred
		 * source towards the peer.  Forget them all: the next packet
		 * to each peer leaves from the address the kernel picks, and
		 * the next from each peer sets it again.  No lookup here:
		 * one pass over the peers per batch of events, however many
		 * routes changed; the next send is the lookup.
		 */
		for (p = d->peers; p; p = p->next)
			endpoint_clear_src(&p->endpoint);
	}
}

static void device_on_signal(struct loop_fd *h, uint32_t revents)
{
	struct device *d = container_of(h, struct device, sig_h);
	struct signalfd_siginfo si;

	(void)revents;
	while (read(d->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			log_info("received signal %u; exiting", si.ssi_signo);
			loop_stop(&d->loop);
		}
	}
}

static void device_socket_gone(void *ctx)
{
	struct device *d = ctx;

	log_info("control socket was removed; exiting");
	loop_stop(&d->loop);
}

static const struct control_ops device_ops = {
	.set = device_config_set,
	.get = device_config_get,
	.socket_gone = device_socket_gone,
};

const struct control_ops *device_control_ops(void)
{
	return &device_ops;
}

/*
 * The system was suspended (the loop found the boot clock ahead of the
 * monotonic one), before any packet of this wakeup is handled.  The
 * kernel's WireGuard wipes its sessions as the system goes to sleep; a
 * daemon learns of the sleep only on waking, and does the same then.
 */
static void device_on_resume(struct loop *l, uint64_t now, uint64_t slept_ns)
{
	struct device *d = container_of(l, struct device, loop);
	struct peer *p;

	log_info("the system was suspended for %llu s; every session is wiped",
		 (unsigned long long)((slept_ns + 500000000ull) / 1000000000ull));
	for (p = d->peers; p; p = p->next)
		peer_system_resumed(p, now);
}

/* The single deadline: run every peer's due timers, then find the next. */
static void device_on_deadline(struct loop *l, uint64_t now)
{
	struct device *d = container_of(l, struct device, loop);
	uint64_t next = UINT64_MAX, n;
	struct peer *p;

	for (p = d->peers; p; p = p->next) {
		n = peer_run_timers(p, now);
		if (n < next)
			next = n;
	}
	device_timer_touch(d, next);
}

/* ---- start and stop ---- */

int device_udp_attach(struct device *d)
{
	static void (*const cbs[UDP_NFAMILIES])(struct loop_fd *, uint32_t) = {
		device_on_udp4, device_on_udp6,
	};
	int f, ret;

	for (f = 0; f < UDP_NFAMILIES; f++) {
		d->udp_h[f].fd = -1;
		if (d->udp.fd[f] < 0)
			continue;
		ret = loop_add(&d->loop, &d->udp_h[f], d->udp.fd[f], EPOLLIN, cbs[f]);
		if (ret < 0) {
			d->udp_h[f].fd = -1;
			return ret;
		}
	}
	return 0;
}

void device_udp_detach(struct device *d)
{
	int f;

	for (f = 0; f < UDP_NFAMILIES; f++) {
		if (d->udp_h[f].fd >= 0)
			loop_remove(&d->loop, &d->udp_h[f]);
		d->udp_h[f].fd = -1;
	}
}

static int device_start_signals(struct device *d)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	d->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sigfd < 0)
		return -errno;
	return loop_add(&d->loop, &d->sig_h, d->sigfd, EPOLLIN, device_on_signal);
}

static int device_start_netlink(struct device *d)
{
	struct netlink_event ev;
	int ret;

	ret = netlink_open(&d->nl, d->tun.ifindex);
	if (ret < 0)
		return ret;
	/* The kernel's default for a WireGuard link (reference §10). */
	ret = netlink_set_mtu(&d->nl, DEVICE_DEFAULT_MTU);
	if (ret < 0)
		log_error("cannot set the MTU of %s: %s", d->tun.name, strerror(-ret));
	ret = netlink_get_link(&d->nl, &ev);
	if (ret < 0)
		return ret;
	if (ev.mtu)
		device_set_mtu(d, ev.mtu);
	d->up = ev.has_flags && ev.up;
	return loop_add(&d->loop, &d->nl_h, netlink_fd(&d->nl), EPOLLIN, device_on_netlink);
}

int device_start(struct device *d, struct tun *tun, struct control *control, char *err, size_t errlen)
{
	const char *what;
	int ret;

	d->tun = *tun;
	tun->fd = -1;
	d->control = control;
	what = "event loop";
	ret = loop_init(&d->loop);
	if (ret < 0)
		goto fail;
	d->loop.on_deadline = device_on_deadline;
	d->loop.on_resume = device_on_resume;
	load_init(&d->load);
	what = "random";
	d->ratelimiter = calloc(1, sizeof(*d->ratelimiter));
	if (!d->ratelimiter) {
		ret = -ENOMEM;
		goto fail;
	}
	if (!ratelimiter_init(d->ratelimiter) ||
	    !crypto_random(&d->jitter_state, sizeof(d->jitter_state))) {
		ret = -EIO;
		goto fail;
	}
	d->jitter_state |= 1;
	what = "TUN device";
	ret = loop_add(&d->loop, &d->tun_h, d->tun.fd, EPOLLIN, device_on_tun);
	if (ret < 0)
		goto fail;
	what = "netlink";
	ret = device_start_netlink(d);
	if (ret < 0)
		goto fail;
	what = "UDP socket";
	ret = udp_open(&d->udp, 0, 0);
	if (ret < 0)
		goto fail;
	ret = device_udp_attach(d);
	if (ret < 0)
		goto fail;
	what = "signals";
	ret = device_start_signals(d);
	if (ret < 0)
		goto fail;
	what = "control socket";
	ret = control_attach(control, &d->loop);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the %s: %s", what, strerror(-ret));
	return ret;
}

static void device_log_stats(const struct device *d)
{
	const struct device_stats *s = &d->stats;

	log_info("dropped on send: %llu no route, %llu no endpoint, %llu malformed, %llu staged overflow, %llu UDP",
		 (unsigned long long)s->tx_no_route, (unsigned long long)s->tx_no_endpoint,
		 (unsigned long long)s->tx_bad_packet, (unsigned long long)s->tx_staged_dropped,
		 (unsigned long long)s->tx_udp_dropped);
	log_info("dropped on receive: %llu invalid, %llu bad mac1, %llu handshake, %llu data, "
		 "%llu bad inner packet, %llu source not allowed, %llu TUN",
		 (unsigned long long)s->rx_invalid, (unsigned long long)s->rx_bad_mac,
		 (unsigned long long)s->rx_handshake_dropped, (unsigned long long)s->rx_data_dropped,
		 (unsigned long long)s->rx_bad_inner, (unsigned long long)s->rx_bad_source,
		 (unsigned long long)s->rx_tun_dropped);
}

int device_run(struct device *d)
{
	int ret = loop_run(&d->loop);

	device_log_stats(d);
	if (ret < 0) {
		log_error("event loop: %s", strerror(-ret));
		return ret;
	}
	return d->exit_status ? -EIO : 0;
}

void device_stop(struct device *d)
{
	if (!d)
		return;
	while (d->peers)
		peer_destroy(d->peers);
	allowedips_clear(&d->table);
	control_close(d->control);
	d->control = NULL;
	if (d->sigfd >= 0)
		close(d->sigfd);
	device_udp_detach(d);
	udp_close(&d->udp);
	netlink_close(&d->nl);
	tun_close(&d->tun);
	loop_clear(&d->loop);
	if (d->ratelimiter) {
		ratelimiter_clear(d->ratelimiter);
		free(d->ratelimiter);
	}
	keyhash_clear(&d->peer_keys);
	noise_local_clear(&d->local);
	crypto_wipe(d, sizeof(*d));
	free(d);
}
