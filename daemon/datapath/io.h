/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The seam between the data path and the outside world (STYLE.md principle
 * 15): everything the device, its peers, the send and receive paths, the
 * timer actions and the configuration apply need that is not computation.
 * The shell (daemon/host/host.c) implements it with file descriptors and clocks;
 * tests implement it in memory, with a fake clock and a simulated network.
 *
 * Protocol time is not here: every entry point of the device takes `now`
 * (boot-time ns, read once per batch by the caller), so the library never
 * reads a clock.  Calls across the seam are per batch: one send() per batch
 * of sealed datagrams, one deadline() per entry point at most; a TUN write
 * is one call per packet or merged group, as each is one write of the
 * device's own.
 */
#ifndef WGD_IO_H
#define WGD_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/datapath/endpoint.h"
#include "daemon/datapath/gso.h"

struct device_io {
	void *ctx;
	/* Wall-clock time, unix ns: last-handshake times and TAI64N stamps. */
	uint64_t (*wall_ns)(void *ctx);
	/* len random bytes into buf; false if none could be had. */
	bool (*random)(void *ctx, void *buf, size_t len);
	/*
	 * Sends n datagrams, each to msgs[i].ep (from its cached source
	 * address, which may be forgotten if the system refuses it); sets each
	 * message's sent flag; returns how many were not sent.
	 */
	unsigned int (*send)(void *ctx, struct udp_msg *msgs, unsigned int n);
	/*
	 * One inner packet to the TUN device; pkt has IO_TUN_HEADROOM writable
	 * bytes before it (for a virtio_net_hdr).  0 or -errno.
	 */
	int (*tun_write)(void *ctx, uint8_t *pkt, size_t len);
	/*
	 * One packet, gathered from n pieces, that starts with its
	 * virtio_net_hdr (offloads on).  0 or -errno.
	 */
	int (*tun_write_vnet)(void *ctx, const struct iovec *iov, unsigned int n);
	/*
	 * The device's next deadline moved to when (UINT64_MAX: none).  Once
	 * it has passed, the shell forgets it (as if told UINT64_MAX) and
	 * calls device_run_timers(), which tells it the next one.
	 */
	void (*deadline)(void *ctx, uint64_t when);
	/*
	 * Control path: listen on port (0: any) with fwmark; the port bound is
	 * returned in *bound, with whether the sockets coalesce received
	 * datagrams (UDP GRO) in *gro.  0, or -errno with the old sockets kept.
	 */
	int (*bind)(void *ctx, uint16_t port, uint32_t fwmark, uint16_t *bound, bool *gro);
	/*
	 * The interface went down: close the sockets (as the kernel's
	 * WireGuard does: the port is free, and peers get port unreachable);
	 * bind() opens them again at the next link up.
	 */
	void (*unbind)(void *ctx);
	/* Control path: the fwmark of the sockets (0 clears it).  0 or -errno. */
	int (*set_fwmark)(void *ctx, uint32_t fwmark);
	/*
	 * With workers (device_set_workers()): a job was published; a worker
	 * that sleeps should wake and call device_work().  Called per job, so
	 * it must be cheap when no worker sleeps.
	 */
	void (*kick)(void *ctx);
	/*
	 * With workers: the device waits for a worker's job in flight and has
	 * spun for a while; give the CPU away briefly (sched_yield()).
	 */
	void (*relax)(void *ctx);
};

/* Bytes tun_write() may use in front of the packet (a virtio_net_hdr). */
#define IO_TUN_HEADROOM GSO_VNET_HDR_LEN

#endif
