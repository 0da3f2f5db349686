// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int tun_open(struct tun *t, const char *name)
{
	struct ifreq ifr;
	int err;

	t->fd = -1;
	if (strlen(name) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	memcpy(ifr.ifr_name, name, strlen(name));
	if (ioctl(t->fd, TUNSETIFF, &ifr) < 0)
		goto fail;
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

void tun_close(struct tun *t)
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

int tun_write(struct tun *t, const void *pkt, size_t len)
{
	ssize_t n;

	do
		n = write(t->fd, pkt, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : 0;
}
