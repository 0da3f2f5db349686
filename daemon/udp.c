// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include "daemon/udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Attempts at finding a random port free in both families. */
#define UDP_RANDOM_PORT_TRIES 64
/* Socket buffers: room for bursts of a few hundred full-size datagrams. */
#define UDP_SOCKBUF (4 << 20)

#define UDP_CMSG_SPACE CMSG_SPACE(sizeof(struct in6_pktinfo))

/*
 * Scratch for one recvmmsg()/sendmmsg() call.  The daemon is one thread with
 * one device, so one static set serves every call and nothing is allocated
 * per packet.
 */
static struct {
	struct mmsghdr mm[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	union udp_addr name[UDP_BATCH];
	union {
		struct cmsghdr align;
		uint8_t buf[UDP_CMSG_SPACE];
	} cmsg[UDP_BATCH];
	unsigned int idx[UDP_BATCH];	/* send: index into the caller's msgs */
} udp_scratch;

static void udp_sockbuf(int fd)
{
	int size = UDP_SOCKBUF;

	/* FORCE needs CAP_NET_ADMIN, which we have; the plain call is the fallback. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

static int udp_mark(int fd, uint32_t fwmark)
{
	if (fd < 0)
		return 0;
	if (setsockopt(fd, SOL_SOCKET, SO_MARK, &fwmark, sizeof(fwmark)) < 0)
		return -errno;
	return 0;
}

/* One socket of one family bound to port; the fd or -errno. */
static int udp_bind_one(int family, uint16_t port, uint32_t fwmark)
{
	union udp_addr a;
	socklen_t alen;
	int fd, on = 1, err;

	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&a, 0, sizeof(a));
	if (family == AF_INET) {
		a.in4.sin_family = AF_INET;
		a.in4.sin_port = htons(port);
		alen = sizeof(a.in4);
		if (setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on)) < 0)
			goto fail;
	} else {
		a.in6.sin6_family = AF_INET6;
		a.in6.sin6_port = htons(port);
		alen = sizeof(a.in6);
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on)) < 0 ||
		    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)) < 0)
			goto fail;
	}
	if (fwmark && udp_mark(fd, fwmark) < 0)
		goto fail;
	if (bind(fd, &a.sa, alen) < 0)
		goto fail;
	udp_sockbuf(fd);
	return fd;
fail:
	err = -errno;
	close(fd);
	return err;
}

static int udp_bound_port(int fd)
{
	union udp_addr a;
	socklen_t alen = sizeof(a);

	if (getsockname(fd, &a.sa, &alen) < 0)
		return -errno;
	return ntohs(a.sa.sa_family == AF_INET ? a.in4.sin_port : a.in6.sin6_port);
}

/*
 * Both families on one port.  For port 0 the IPv4 socket picks it and the
 * IPv6 socket follows; if that port is taken in IPv6, try another.  A family
 * the host lacks (EAFNOSUPPORT) is skipped; at least one must open.
 */
static int udp_try_open(struct udp *u, uint16_t port, uint32_t fwmark)
{
	int fd4, fd6, p;

	fd4 = udp_bind_one(AF_INET, port, fwmark);
	if (fd4 < 0 && fd4 != -EAFNOSUPPORT)
		return fd4;
	if (fd4 >= 0) {
		p = udp_bound_port(fd4);
		if (p < 0) {
			close(fd4);
			return p;
		}
		port = (uint16_t)p;
	}
	fd6 = udp_bind_one(AF_INET6, port, fwmark);
	if (fd6 < 0 && fd6 != -EAFNOSUPPORT) {
		if (fd4 >= 0)
			close(fd4);
		return fd6;
	}
	if (fd4 < 0 && fd6 < 0)
		return -EAFNOSUPPORT;
	if (fd4 < 0) {
		p = udp_bound_port(fd6);
		if (p < 0) {
			close(fd6);
			return p;
		}
		port = (uint16_t)p;
	}
	u->fd[UDP_V4] = fd4 >= 0 ? fd4 : -1;
	u->fd[UDP_V6] = fd6 >= 0 ? fd6 : -1;
	u->port = port;
	u->fwmark = fwmark;
	return 0;
}

int udp_open(struct udp *u, uint16_t port, uint32_t fwmark)
{
	int i, ret = -EADDRINUSE;

	u->fd[UDP_V4] = u->fd[UDP_V6] = -1;
	for (i = 0; i < (port ? 1 : UDP_RANDOM_PORT_TRIES); i++) {
		ret = udp_try_open(u, port, fwmark);
		if (ret != -EADDRINUSE)
			break;
	}
	return ret;
}

void udp_close(struct udp *u)
{
	int i;

	for (i = 0; i < UDP_NFAMILIES; i++) {
		if (u->fd[i] >= 0)
			close(u->fd[i]);
		u->fd[i] = -1;
	}
}

int udp_set_fwmark(struct udp *u, uint32_t fwmark)
{
	int i, ret;

	for (i = 0; i < UDP_NFAMILIES; i++) {
		ret = udp_mark(u->fd[i], fwmark);
		if (ret < 0)
			return ret;
	}
	u->fwmark = fwmark;
	return 0;
}

void endpoint_clear_src(struct endpoint *ep)
{
	memset(&ep->src, 0, sizeof(ep->src));
	ep->src_ifindex = 0;
	ep->has_src = false;
}

bool endpoint_addr_equal(const struct endpoint *a, const struct endpoint *b)
{
	if (a->addr.sa.sa_family != b->addr.sa.sa_family)
		return false;
	if (a->addr.sa.sa_family == AF_INET)
		return a->addr.in4.sin_port == b->addr.in4.sin_port &&
		       a->addr.in4.sin_addr.s_addr == b->addr.in4.sin_addr.s_addr;
	if (a->addr.sa.sa_family == AF_INET6)
		return a->addr.in6.sin6_port == b->addr.in6.sin6_port &&
		       a->addr.in6.sin6_scope_id == b->addr.in6.sin6_scope_id &&
		       !memcmp(&a->addr.in6.sin6_addr, &b->addr.in6.sin6_addr,
			       sizeof(struct in6_addr));
	return true;
}

void endpoint_format(const struct endpoint *ep, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "";

	if (ep->addr.sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &ep->addr.in4.sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%u", ip, ntohs(ep->addr.in4.sin_port));
	} else if (ep->addr.sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &ep->addr.in6.sin6_addr, ip, sizeof(ip));
		snprintf(buf, size, "[%s]:%u", ip, ntohs(ep->addr.in6.sin6_port));
	} else {
		snprintf(buf, size, "(none)");
	}
}

/* The local address a datagram arrived on, from its control messages. */
static void udp_read_pktinfo(struct msghdr *mh, struct endpoint *ep)
{
	struct cmsghdr *c;

	endpoint_clear_src(ep);
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct in_pktinfo))) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			ep->src.v4 = pi.ipi_addr;
			ep->src_ifindex = pi.ipi_ifindex;
			ep->has_src = true;
		} else if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_PKTINFO &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct in6_pktinfo))) {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			ep->src.v6 = pi.ipi6_addr;
			ep->src_ifindex = (int)pi.ipi6_ifindex;
			ep->has_src = true;
		}
	}
}

int udp_recv(struct udp *u, int family, struct udp_msg *msgs, unsigned int n)
{
	int fd = u->fd[family], got, i;

	if (fd < 0)
		return 0;
	if (n > UDP_BATCH)
		n = UDP_BATCH;
	for (i = 0; i < (int)n; i++) {
		struct msghdr *mh = &udp_scratch.mm[i].msg_hdr;

		udp_scratch.iov[i].iov_base = msgs[i].data;
		udp_scratch.iov[i].iov_len = msgs[i].len;
		mh->msg_name = &udp_scratch.name[i];
		mh->msg_namelen = sizeof(udp_scratch.name[i]);
		mh->msg_iov = &udp_scratch.iov[i];
		mh->msg_iovlen = 1;
		mh->msg_control = udp_scratch.cmsg[i].buf;
		mh->msg_controllen = sizeof(udp_scratch.cmsg[i].buf);
		mh->msg_flags = 0;
	}
	do
		got = recvmmsg(fd, udp_scratch.mm, n, MSG_DONTWAIT, NULL);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	for (i = 0; i < got; i++) {
		struct msghdr *mh = &udp_scratch.mm[i].msg_hdr;
		struct endpoint *ep = msgs[i].ep;

		msgs[i].len = (mh->msg_flags & MSG_TRUNC) ? 0 : udp_scratch.mm[i].msg_len;
		memset(&ep->addr, 0, sizeof(ep->addr));
		if (mh->msg_namelen <= sizeof(ep->addr))
			memcpy(&ep->addr, mh->msg_name, mh->msg_namelen);
		if (ep->addr.sa.sa_family != AF_INET && ep->addr.sa.sa_family != AF_INET6)
			msgs[i].len = 0;
		udp_read_pktinfo(mh, ep);
	}
	return got;
}

/* Fills the sendmmsg() slot i for msg, with the source address if cached. */
static void udp_fill_send(unsigned int i, struct udp_msg *msg)
{
	struct msghdr *mh = &udp_scratch.mm[i].msg_hdr;
	const struct endpoint *ep = msg->ep;
	struct cmsghdr *c;

	udp_scratch.iov[i].iov_base = msg->data;
	udp_scratch.iov[i].iov_len = msg->len;
	memset(mh, 0, sizeof(*mh));
	mh->msg_name = (void *)&ep->addr;
	mh->msg_namelen = ep->addr.sa.sa_family == AF_INET ? sizeof(ep->addr.in4)
							   : sizeof(ep->addr.in6);
	mh->msg_iov = &udp_scratch.iov[i];
	mh->msg_iovlen = 1;
	if (!ep->has_src)
		return;
	memset(udp_scratch.cmsg[i].buf, 0, sizeof(udp_scratch.cmsg[i].buf));
	mh->msg_control = udp_scratch.cmsg[i].buf;
	c = (struct cmsghdr *)udp_scratch.cmsg[i].buf;
	if (ep->addr.sa.sa_family == AF_INET) {
		struct in_pktinfo pi = { .ipi_spec_dst = ep->src.v4 };

		mh->msg_controllen = CMSG_SPACE(sizeof(pi));
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_addr = ep->src.v6,
					  .ipi6_ifindex = (unsigned int)ep->src_ifindex };

		mh->msg_controllen = CMSG_SPACE(sizeof(pi));
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	}
}

/*
 * Sends slots [0, count) on fd.  A datagram the kernel refuses is skipped
 * (UDP may drop); one refused for its cached source address (EINVAL, or the
 * address is gone) is retried once without it.  Returns the number dropped.
 */
static unsigned int udp_send_family(int fd, struct udp_msg *msgs, unsigned int count)
{
	unsigned int done = 0, dropped = 0, retried = UDP_BATCH + 1;
	int r;

	while (done < count) {
		r = sendmmsg(fd, &udp_scratch.mm[done], count - done, MSG_DONTWAIT);
		if (r > 0) {
			done += (unsigned int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
			/* The socket buffer is full: drop the rest like a router would. */
			dropped += count - done;
			break;
		}
		if (r < 0 && retried != done && (errno == EINVAL || errno == EADDRNOTAVAIL) &&
		    msgs[udp_scratch.idx[done]].ep->has_src) {
			endpoint_clear_src(msgs[udp_scratch.idx[done]].ep);
			udp_fill_send(done, &msgs[udp_scratch.idx[done]]);
			retried = done;
			continue;
		}
		dropped++;
		done++;
	}
	return dropped;
}

unsigned int udp_send(struct udp *u, struct udp_msg *msgs, unsigned int n)
{
	unsigned int dropped = 0, f, i, count;

	for (f = 0; f < UDP_NFAMILIES; f++) {
		int family = f == UDP_V4 ? AF_INET : AF_INET6;

		count = 0;
		for (i = 0; i < n; i++) {
			if (msgs[i].ep->addr.sa.sa_family != family)
				continue;
			if (u->fd[f] < 0) {
				dropped++;
				continue;
			}
			udp_scratch.idx[count] = i;
			udp_fill_send(count, &msgs[i]);
			if (++count == UDP_BATCH) {
				dropped += udp_send_family(u->fd[f], msgs, count);
				count = 0;
			}
		}
		if (count)
			dropped += udp_send_family(u->fd[f], msgs, count);
	}
	for (i = 0; i < n; i++) {
		int fam = msgs[i].ep->addr.sa.sa_family;

		if (fam != AF_INET && fam != AF_INET6)
			dropped++;
	}
	return dropped;
}
