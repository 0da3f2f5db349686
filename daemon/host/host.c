// SPDX-License-Identifier: GPL-2.0-only
/*
 * The host: file descriptors and clocks around the device (see host.h).
 */
#include "daemon/host/host.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/clock.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/base/workers.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/io.h"
#include "daemon/host/netlink.h"
#include "daemon/host/udp.h"

/* TUN packets handled per wakeup at most, so the receive path gets its turn. */
#define HOST_TUN_MAX_PER_WAKEUP (4 * UDP_BATCH)
/* Socket reads per wakeup at most, for the same reason. */
#define HOST_UDP_MAX_BATCHES_PER_WAKEUP 4

struct host {
	struct loop loop;
	struct tun tun;
	struct loop_fd tun_h;
	struct udp udp;
	struct loop_fd udp_h[UDP_NFAMILIES];
	struct netlink nl;
	struct loop_fd nl_h;
	int sigfd;
	struct loop_fd sig_h;
	struct control *control;
	void (*reload)(void *ctx);	/* SIGHUP; NULL: ignored */
	void *reload_ctx;
	int exit_status;		/* 0 clean, 1 error */
	struct device *dev;
	unsigned int mtu;		/* the link's, as the device was last told */
	struct workers workers;		/* the cryptography's, if any (host_start_workers) */
};

/* The link went away: nothing left to serve. */
WGD_COLD static void host_link_deleted(struct host *h)
{
	log_info("interface %s was deleted; exiting", h->tun.name);
	loop_stop(&h->loop);
}

WGD_COLD static void host_fail(struct host *h, const char *why)
{
	log_error("%s; exiting", why);
	h->exit_status = 1;
	loop_stop(&h->loop);
}

/* ---- the seam, with descriptors ---- */

static uint64_t host_wall_ns(void *ctx)
{
	(void)ctx;
	return clock_real_ns();
}

static bool host_random(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	return crypto_random(buf, len);
}

static unsigned int host_send(void *ctx, struct udp_msg *msgs, unsigned int n)
{
	struct host *h = ctx;

	return udp_send(&h->udp, msgs, n);
}

static int host_tun_write(void *ctx, uint8_t *pkt, size_t len)
{
	struct host *h = ctx;

	return tun_write(&h->tun, pkt, len);
}

static int host_tun_write_vnet(void *ctx, const struct iovec *iov, unsigned int n)
{
	struct host *h = ctx;

	return tun_writev_raw(&h->tun, iov, n);
}

static void host_deadline(void *ctx, uint64_t when)
{
	struct host *h = ctx;

	loop_set_deadline(&h->loop, when);
}

static void host_on_udp4(struct loop_fd *fd, uint32_t revents);
static void host_on_udp6(struct loop_fd *fd, uint32_t revents);

/* Registers the UDP sockets on the loop. */
WGD_COLD static int host_udp_attach(struct host *h)
{
	static void (*const cbs[UDP_NFAMILIES])(struct loop_fd *, uint32_t) = {
		host_on_udp4, host_on_udp6,
	};
	int f, ret;

	for (f = 0; f < UDP_NFAMILIES; f++) {
		h->udp_h[f].fd = -1;
		if (h->udp.fd[f] < 0)
			continue;
		ret = loop_add(&h->loop, &h->udp_h[f], h->udp.fd[f], EPOLLIN, cbs[f]);
		if (ret < 0) {
			h->udp_h[f].fd = -1;
			return ret;
		}
	}
	return 0;
}

WGD_COLD static void host_udp_detach(struct host *h)
{
	int f;

	for (f = 0; f < UDP_NFAMILIES; f++) {
		if (h->udp_h[f].fd >= 0)
			loop_remove(&h->loop, &h->udp_h[f]);
		h->udp_h[f].fd = -1;
	}
}

/*
 * Rebinds: the new sockets are opened and put on the loop before the old
 * ones are closed, so that any failure (bind: EADDRINUSE; epoll) leaves the
 * device listening where it was.
 */
WGD_COLD static int host_bind(void *ctx, uint16_t port, uint32_t fwmark, uint16_t *bound, bool *gro)
{
	struct host *h = ctx;
	struct udp fresh, old;
	int ret;

	ret = udp_open(&fresh, port, fwmark);
	if (ret < 0) {
		log_error_errno(-ret, "cannot bind UDP port %u", port);
		return ret;
	}
	host_udp_detach(h);
	old = h->udp;
	h->udp = fresh;
	ret = host_udp_attach(h);
	if (ret < 0) {
		log_error_errno(-ret, "cannot watch the sockets of UDP port %u", h->udp.port);
		host_udp_detach(h);
		udp_close(&h->udp);
		h->udp = old;
		if (host_udp_attach(h) < 0)
			host_fail(h, "cannot watch the UDP sockets");
		return ret;
	}
	udp_close(&old);
	*bound = h->udp.port;
	*gro = h->udp.gro;
	log_info("listening on UDP port %u", h->udp.port);
	return 0;
}

static void host_unbind(void *ctx)
{
	struct host *h = ctx;

	host_udp_detach(h);
	udp_close(&h->udp);
	log_info("UDP port %u closed while the interface is down", h->udp.port);
}

static void host_kick(void *ctx)
{
	struct host *h = ctx;

	workers_kick(&h->workers);
}

static void host_relax(void *ctx)
{
	(void)ctx;
	sched_yield();
}

static bool host_work(void *ctx)
{
	return device_work(ctx);
}

static bool host_work_pending(void *ctx)
{
	return device_work_pending(ctx);
}

WGD_COLD static int host_set_fwmark(void *ctx, uint32_t fwmark)
{
	struct host *h = ctx;

	return udp_set_fwmark(&h->udp, fwmark);
}

/* ---- loop handlers ---- */

/* Reads the TUN device until it is empty (bounded per wakeup). */
static void host_on_tun(struct loop_fd *fd, uint32_t revents)
{
	struct host *h = container_of(fd, struct host, tun_h);
	struct device *d = h->dev;
	uint64_t now = loop_now();
	unsigned int handled = 0;
	uint8_t *buf;
	size_t size;
	ssize_t r;

	(void)revents;
	while (handled < HOST_TUN_MAX_PER_WAKEUP) {
		buf = device_tx_buffer(d, &size);
		r = tun_read(&h->tun, buf, size);
		if (r == 0)
			break;
		if (r < 0) {
			device_tx_flush(d, now);
			if (r == -EBADFD || r == -EIO) {
				log_info("interface %s is gone; exiting", h->tun.name);
				loop_stop(&h->loop);
			} else {
				log_packet(LOG_LEVEL_ERROR, "TUN read: %s", strerror((int)-r));
			}
			return;
		}
		handled += device_tx_packet(d, (size_t)r, now);
	}
	device_tx_flush(d, now);
}

/*
 * Reads the socket while its batches come back full (bounded per wakeup),
 * then lets the device write what it held back: TCP segments of one flow
 * that arrived in consecutive batches leave in one TUN write.
 */
static void host_udp_readable(struct host *h, int family)
{
	struct udp_msg *msgs;
	unsigned int n, i;
	int got;

	for (i = 0; i < HOST_UDP_MAX_BATCHES_PER_WAKEUP; i++) {
		msgs = device_rx_buffers(h->dev, &n);
		got = udp_recv(&h->udp, family, msgs, n);
		if (got <= 0) {
			if (got < 0)
				log_packet(LOG_LEVEL_ERROR, "UDP receive: %s", strerror(-got));
			break;
		}
		device_rx_batch(h->dev, family, (unsigned int)got, loop_now());
		if ((unsigned int)got < n)
			break;
	}
	device_rx_flush(h->dev);
}

static void host_on_udp4(struct loop_fd *fd, uint32_t revents)
{
	(void)revents;
	host_udp_readable(container_of(fd, struct host, udp_h[UDP_V4]), UDP_V4);
}

static void host_on_udp6(struct loop_fd *fd, uint32_t revents)
{
	(void)revents;
	host_udp_readable(container_of(fd, struct host, udp_h[UDP_V6]), UDP_V6);
}

/*
 * Events were lost (netlink overrun): the link's up/down state and MTU are
 * asked for, so that a lost "up" does not leave the device dropping every
 * datagram; lost address deletions and route changes are assumed.
 * Negative if the link is gone (the loop is stopped).
 */
WGD_COLD static int host_netlink_resync(struct host *h, struct netlink_event *ev)
{
	struct netlink_event now;
	int ret;

	log_info("netlink events were lost; reading the state of %s", h->tun.name);
	ret = netlink_get_link(&h->nl, &now);
	if (ret == -ENODEV) {
		host_link_deleted(h);
		return ret;
	}
	if (ret < 0) {
		log_error_errno(-ret, "netlink");
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

WGD_COLD static void host_on_netlink(struct loop_fd *fd, uint32_t revents)
{
	struct host *h = container_of(fd, struct host, nl_h);
	struct netlink_event ev = { 0 };
	int ret;

	(void)revents;
	ret = netlink_read_events(&h->nl, &ev);
	if (ret < 0) {
		log_error_errno(-ret, "netlink");
		return;
	}
	if (ev.lost && host_netlink_resync(h, &ev) < 0)
		return;
	if (ev.deleted) {
		host_link_deleted(h);
		return;
	}
	if (ev.mtu && ev.mtu != h->mtu) {
		log_info("MTU of %s is now %u", h->tun.name, ev.mtu);
		h->mtu = ev.mtu;
		device_set_mtu(h->dev, ev.mtu);
	}
	if (ev.has_flags)
		device_set_link(h->dev, ev.up, loop_now());
	/*
	 * A cached source address may be gone, and the kernel would still
	 * send from it (IP_PKTINFO does not check); or a route change may
	 * have made another one the kernel's preferred source towards a peer.
	 * One pass over the peers per batch of events, however many routes
	 * changed; the next send is the lookup.
	 */
	if (ev.addr_removed || ev.route_changed)
		device_forget_sources(h->dev);
}

WGD_COLD static void host_on_signal(struct loop_fd *fd, uint32_t revents)
{
	struct host *h = container_of(fd, struct host, sig_h);
	struct signalfd_siginfo si;

	(void)revents;
	while (read(h->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			log_info("received signal %u; exiting", si.ssi_signo);
			loop_stop(&h->loop);
		} else if (si.ssi_signo == SIGHUP) {
			if (h->reload)
				h->reload(h->reload_ctx);
			else
				log_info("SIGHUP: no configuration file to reload; ignored");
		}
	}
}

/* The system was suspended (the loop found the boot clock ahead). */
WGD_COLD static void host_on_resume(struct loop *l, uint64_t now, uint64_t slept_ns)
{
	device_resume(container_of(l, struct host, loop)->dev, now, slept_ns);
}

static void host_on_deadline(struct loop *l, uint64_t now)
{
	device_run_timers(container_of(l, struct host, loop)->dev, now);
}

/* ---- the control socket ---- */

WGD_COLD static int host_config_set(void *ctx, const struct config_device *cfg)
{
	struct host *h = ctx;

	return device_config_set(h->dev, cfg, loop_now());
}

WGD_COLD static int host_config_get(void *ctx, struct config_device *out)
{
	struct host *h = ctx;

	return device_config_get(h->dev, out);
}

WGD_COLD static void host_socket_gone(void *ctx)
{
	struct host *h = ctx;

	log_info("control socket was removed; exiting");
	loop_stop(&h->loop);
}

static const struct control_ops host_ops = {
	.set = host_config_set,
	.get = host_config_get,
	.socket_gone = host_socket_gone,
};

const struct control_ops *host_control_ops(void)
{
	return &host_ops;
}

struct loop *host_loop(struct host *h)
{
	return &h->loop;
}

WGD_COLD int host_config_apply(struct host *h, const struct config_device *cfg)
{
	return host_ops.set(h, cfg);
}

WGD_COLD int host_config_read(struct host *h, struct config_device *out)
{
	return host_ops.get(h, out);
}

int host_ifindex(const struct host *h)
{
	return h->tun.ifindex;
}

const char *host_ifname(const struct host *h)
{
	return h->tun.name;
}

void host_set_reload(struct host *h, void (*reload)(void *ctx), void *ctx)
{
	h->reload = reload;
	h->reload_ctx = ctx;
}

/* ---- start and stop ---- */

WGD_COLD struct host *host_create(const char *name)
{
	struct host *h = calloc(1, sizeof(*h));
	struct device_io io = {
		.wall_ns = host_wall_ns,
		.random = host_random,
		.send = host_send,
		.tun_write = host_tun_write,
		.tun_write_vnet = host_tun_write_vnet,
		.deadline = host_deadline,
		.bind = host_bind,
		.unbind = host_unbind,
		.set_fwmark = host_set_fwmark,
		.kick = host_kick,
		.relax = host_relax,
	};

	if (!h)
		return NULL;
	io.ctx = h;
	h->dev = device_create(&io, name);
	if (!h->dev) {
		free(h);
		return NULL;
	}
	h->mtu = DEVICE_DEFAULT_MTU;
	h->loop.epfd = -1;
	h->loop.deadline = UINT64_MAX;
	h->tun.fd = -1;
	h->udp.fd[UDP_V4] = h->udp.fd[UDP_V6] = -1;
	h->udp_h[UDP_V4].fd = h->udp_h[UDP_V6].fd = -1;
	h->sigfd = -1;
	return h;
}

WGD_COLD void host_destroy(struct host *h)
{
	if (!h)
		return;
	device_destroy(h->dev);
	free(h);
}

WGD_COLD static int host_start_signals(struct host *h)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	h->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (h->sigfd < 0)
		return -errno;
	return loop_add(&h->loop, &h->sig_h, h->sigfd, EPOLLIN, host_on_signal);
}

WGD_COLD static int host_start_netlink(struct host *h)
{
	struct netlink_event ev;
	int ret;

	ret = netlink_open(&h->nl, h->tun.ifindex);
	if (ret < 0)
		return ret;
	/* The kernel's default for a WireGuard link (doc/protocol.md §10). */
	ret = netlink_set_mtu(&h->nl, DEVICE_DEFAULT_MTU);
	if (ret < 0)
		log_error_errno(-ret, "cannot set the MTU of %s", h->tun.name);
	ret = netlink_get_link(&h->nl, &ev);
	if (ret < 0)
		return ret;
	if (ev.mtu) {
		h->mtu = ev.mtu;
		device_set_mtu(h->dev, ev.mtu);
	}
	device_set_link(h->dev, ev.has_flags && ev.up, loop_now());
	return loop_add(&h->loop, &h->nl_h, netlink_fd(&h->nl), EPOLLIN, host_on_netlink);
}

WGD_COLD int host_start(struct host *h, struct tun *tun, struct control *control, char *err, size_t errlen)
{
	const char *what;
	int ret;

	h->tun = *tun;
	tun->fd = -1;
	h->control = control;
	device_set_offloads(h->dev, h->tun.vnet_hdr, false);
	what = "event loop";
	ret = loop_init(&h->loop);
	if (ret < 0)
		goto fail;
	h->loop.on_deadline = host_on_deadline;
	h->loop.on_resume = host_on_resume;
	what = "TUN device";
	ret = loop_add(&h->loop, &h->tun_h, h->tun.fd, EPOLLIN, host_on_tun);
	if (ret < 0)
		goto fail;
	/* The sockets open at link up, as the kernel's (device.h). */
	what = "netlink";
	ret = host_start_netlink(h);
	if (ret < 0)
		goto fail;
	what = "signals";
	ret = host_start_signals(h);
	if (ret < 0)
		goto fail;
	what = "control socket";
	ret = control_attach(control, &h->loop);
	if (ret < 0)
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "cannot set up the %s: %s", what, strerror(-ret));
	return ret;
}

WGD_COLD int host_run(struct host *h)
{
	int ret = loop_run(&h->loop);

	device_log_stats(h->dev);
	if (ret < 0) {
		log_error_errno(-ret, "event loop");
		return ret;
	}
	return h->exit_status ? -EIO : 0;
}

WGD_COLD int host_start_workers(struct host *h, unsigned int threads, uint64_t spin_ns)
{
	int ret;

	if (threads <= 1)
		return 0;
	/* the device hands out jobs only once the workers exist */
	ret = workers_start(&h->workers, threads - 1, host_work, host_work_pending, h->dev, spin_ns);
	if (ret == 0)
		device_set_workers(h->dev, threads - 1, 0);
	return ret;
}

WGD_COLD void host_stop(struct host *h)
{
	if (!h)
		return;
	/* back to one thread, the jobs in flight finished, before the device goes */
	device_set_workers(h->dev, 0, 0);
	workers_stop(&h->workers);
	device_destroy(h->dev);
	control_close(h->control);
	if (h->sigfd >= 0)
		close(h->sigfd);
	/* As for the other descriptors, closing takes them off the loop. */
	udp_close(&h->udp);
	netlink_close(&h->nl);
	tun_close(&h->tun);
	loop_clear(&h->loop);
	crypto_wipe(h, sizeof(*h));
	free(h);
}
