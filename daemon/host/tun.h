/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUN device: layer-3 packets without a packet-information header
 * (IFF_TUN | IFF_NO_PI), non-blocking.
 *
 * Where the kernel allows, the device carries a virtio_net_hdr in front of
 * every packet (IFF_VNET_HDR) and hands us TCP super-packets to segment
 * ourselves (TSO, see gso.h): one read instead of dozens.
 */
#ifndef WGD_TUN_H
#define WGD_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <sys/types.h>

#include "crypto/util.h"

struct tun {
	int fd;
	int ifindex;
	bool vnet_hdr;		/* every packet is preceded by a virtio_net_hdr */
	char name[IFNAMSIZ];
};

/* Bytes tun_write() may use in front of the packet it is given. */
#define TUN_HEADROOM 10

/* Creates (or attaches to) the interface; 0 or -errno. */
WGD_COLD int tun_open(struct tun *t, const char *name);
WGD_COLD void tun_close(struct tun *t);

/*
 * One packet into buf (with its virtio_net_hdr first if vnet_hdr): its
 * length, 0 when none is waiting (EAGAIN), or -errno (-EBADFD / -EIO once
 * the link has been deleted).
 */
ssize_t tun_read(struct tun *t, void *buf, size_t size);

/*
 * One packet out; pkt must have TUN_HEADROOM writable bytes before it (the
 * virtio_net_hdr goes there).  0 or -errno (a full queue: -EAGAIN).
 */
int tun_write(struct tun *t, uint8_t *pkt, size_t len);
/* One packet gathered from count pieces that starts with its virtio_net_hdr (vnet_hdr only). */
int tun_writev_raw(struct tun *t, const struct iovec *iov, unsigned int count);

#endif
