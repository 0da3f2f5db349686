// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/host/tun.h"

#include "crypto/util.h"
#include "daemon/datapath/gso.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>

/* UDP super-packets (Linux 6.2; not in the headers of older systems) */
#ifndef TUN_F_USO4
#define TUN_F_USO4 0x20
#define TUN_F_USO6 0x40
#endif

/*
 * Asks for TCP super-packets (TSO), UDP ones (USO) where the kernel has
 * them (an older one refuses the unknown bits: then TSO alone), and partial
 * checksums.  Without any of it the device still works, with one packet per
 * read.
 */
WGD_COLD static void tun_offload(struct tun *t)
{
	unsigned int tso = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	int hdrsz = GSO_VNET_HDR_LEN;

	if (!t->vnet_hdr)
		return;
	if (ioctl(t->fd, TUNSETVNETHDRSZ, &hdrsz) < 0 ||
	    (ioctl(t->fd, TUNSETOFFLOAD, tso | TUN_F_USO4 | TUN_F_USO6) < 0 &&
	     ioctl(t->fd, TUNSETOFFLOAD, tso) < 0))
		ioctl(t->fd, TUNSETOFFLOAD, 0);
}

WGD_COLD int tun_open(struct tun *t, const char *name)
{
	struct ifreq ifr;
	int err;

	t->fd = -1;
	t->vnet_hdr = false;
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(t->fd, TUNSETIFF, &ifr) == 0) {
		t->vnet_hdr = true;
	} else {
		ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
		if (ioctl(t->fd, TUNSETIFF, &ifr) < 0)
			goto fail;
	}
	tun_offload(t);
	memcpy(t->name, ifr.ifr_name, IFNAMSIZ);
	t->name[IFNAMSIZ - 1] = '\0';
	t->ifindex = (int)if_nametoindex(t->name);
	if (!t->ifindex)
		goto fail;
	return 0;
fail:
	err = -errno;
	close(t->fd);
	t->fd = -1;
	return err;
}

WGD_COLD void tun_close(struct tun *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

ssize_t tun_read(struct tun *t, void *buf, size_t size)
{
	ssize_t n;

	do
		n = read(t->fd, buf, size);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return 0;
	return -errno;
}

int tun_write(struct tun *t, uint8_t *pkt, size_t len)
{
	ssize_t n;

	if (t->vnet_hdr) {
		/* No offload on what we write: flags 0, GSO_NONE. */
		pkt -= GSO_VNET_HDR_LEN;
		len += GSO_VNET_HDR_LEN;
		memset(pkt, 0, GSO_VNET_HDR_LEN);
	}
	do
		n = write(t->fd, pkt, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}

int tun_writev_raw(struct tun *t, const struct iovec *iov, unsigned int count)
{
	ssize_t n;

	do
		n = writev(t->fd, iov, (int)count);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}
