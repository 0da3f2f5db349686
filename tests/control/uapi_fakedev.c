/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A control socket in front of a real device (the data path library,
 * daemon/datapath/device.h) with no TUN device and no sockets behind its seam, for
 * comparing what Debian's wg sees from us with what it sees from
 * wireguard-go (test_wg_compat.sh) without root.  Every set is applied by
 * the device's own code; datagrams it would send are dropped, the port it
 * is asked to bind is recorded as bound (a random one for 0).
 *
 * Usage: uapi_fakedev IFNAME   (directory: $WGD_RUN_DIR or /var/run/wireguard)
 * Serves until its socket file is deleted; exits 0 then.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/base/clock.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/control/control.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/io.h"

struct memdev {
	struct loop loop;
	struct device *dev;
};

static uint64_t mem_wall_ns(void *ctx)
{
	(void)ctx;
	return clock_real_ns();
}

static bool mem_random(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	return crypto_random(buf, len);
}

/* No network: every datagram is refused, as by a host with no route. */
static unsigned int mem_send(void *ctx, struct udp_msg *msgs, unsigned int n)
{
	unsigned int i;

	(void)ctx;
	for (i = 0; i < n; i++)
		msgs[i].sent = false;
	return n;
}

static int mem_tun_write(void *ctx, uint8_t *pkt, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)len;
	return -ENODEV;
}

static int mem_tun_write_vnet(void *ctx, const struct iovec *iov, unsigned int n)
{
	(void)ctx;
	(void)iov;
	(void)n;
	return -ENODEV;
}

static void mem_deadline(void *ctx, uint64_t when)
{
	struct memdev *m = ctx;

	loop_set_deadline(&m->loop, when);
}

static int mem_bind(void *ctx, uint16_t port, uint32_t fwmark, uint16_t *bound, bool *gro)
{
	uint16_t r = 0;

	(void)ctx;
	(void)fwmark;
	while (!port && r < 1024 && crypto_random(&r, sizeof(r)))
		;
	*bound = port ? port : r;
	*gro = false;
	return 0;
}

/* No sockets to close. */
static void mem_unbind(void *ctx)
{
	(void)ctx;
}

static int mem_set_fwmark(void *ctx, uint32_t fwmark)
{
	(void)ctx;
	(void)fwmark;
	return 0;
}

static int mem_set(void *ctx, const struct config_device *cfg)
{
	struct memdev *m = ctx;

	return device_config_set(m->dev, cfg, loop_now());
}

static int mem_get(void *ctx, struct config_device *out)
{
	struct memdev *m = ctx;

	return device_config_get(m->dev, out);
}

static void mem_gone(void *ctx)
{
	struct memdev *m = ctx;

	loop_stop(&m->loop);
}

static void mem_on_deadline(struct loop *l, uint64_t now)
{
	device_run_timers(container_of(l, struct memdev, loop)->dev, now);
}

static const struct control_ops mem_ops = {
	.set = mem_set, .get = mem_get, .socket_gone = mem_gone,
};

int main(int argc, char **argv)
{
	struct memdev m;
	struct control *ctl;
	struct device_io io = {
		.ctx = &m,
		.wall_ns = mem_wall_ns,
		.random = mem_random,
		.send = mem_send,
		.tun_write = mem_tun_write,
		.tun_write_vnet = mem_tun_write_vnet,
		.deadline = mem_deadline,
		.bind = mem_bind,
		.unbind = mem_unbind, .set_fwmark = mem_set_fwmark,
	};
	uint16_t port;
	bool gro;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s IFNAME\n", argv[0]);
		return 2;
	}
	log_init(argv[1], LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		return 1;
	ret = loop_init(&m.loop);
	if (ret < 0)
		return 1;
	m.loop.on_deadline = mem_on_deadline;
	m.dev = device_create(&io, argv[1]);
	if (!m.dev)
		return 1;
	/* Up at a random port, as a fresh daemon is. */
	mem_bind(&m, 0, 0, &port, &gro);
	device_set_bound(m.dev, port, gro);
	device_set_link(m.dev, true, loop_now());
	ret = control_open(&ctl, argv[1], NULL, &mem_ops, &m);
	if (ret == 0) {
		ret = control_attach(ctl, &m.loop);
		if (ret == 0)
			ret = loop_run(&m.loop);
		control_close(ctl);
	}
	device_destroy(m.dev);
	loop_clear(&m.loop);
	if (ret < 0) {
		fprintf(stderr, "uapi_fakedev: %s\n", strerror(-ret));
		return 1;
	}
	return 0;
}
