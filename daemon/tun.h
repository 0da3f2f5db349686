/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The TUN device: layer-3 packets without a packet-information header
 * (IFF_TUN | IFF_NO_PI), non-blocking.
 */
#ifndef WGD_TUN_H
#define WGD_TUN_H

#include <net/if.h>
#include <stddef.h>
#include <sys/types.h>

struct tun {
	int fd;
	int ifindex;
	char name[IFNAMSIZ];
};

/* Creates (or attaches to) the interface; 0 or -errno. */
int tun_open(struct tun *t, const char *name);
void tun_close(struct tun *t);

/*
 * One packet into buf: its length, 0 when none is waiting (EAGAIN), or
 * -errno (-EBADFD / -EIO once the link has been deleted).
 */
ssize_t tun_read(struct tun *t, void *buf, size_t size);

/* One packet out; 0 or -errno (a full queue drops the packet: -EAGAIN). */
int tun_write(struct tun *t, const void *pkt, size_t len);

#endif
