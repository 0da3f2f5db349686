// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE
#include "daemon/host/udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/udp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/base/privsep.h"

/* Attempts at finding a random port free in both families. */
#define UDP_RANDOM_PORT_TRIES 64
/* Socket buffers: room for bursts of a few hundred full-size datagrams. */
#define UDP_SOCKBUF (4 << 20)

/* the local address; the GRO or GSO segment size; the TOS / traffic class */
#define UDP_CMSG_SPACE (CMSG_SPACE(sizeof(struct in6_pktinfo)) + 2 * CMSG_SPACE(sizeof(int)))
/*
 * UDP GSO: segments per send (the kernel's UDP_MAX_SEGMENTS is >= 64) and
 * bytes per send: the most one UDP datagram carries over IPv4 (RFC 768,
 * RFC 791: 65535 - 20 - 8), which the kernel allows a GSO send before it
 * cuts it.  At MTU 1420 that is 45 datagrams of 1452 bytes (65000 allowed
 * 44): a 64 KiB TSO super-packet (47 segments) leaves in two sends either
 * way, but runs that start mid-packet go further.
 */
#define UDP_GSO_MAX_SEGMENTS 64
#define UDP_GSO_MAX_BYTES 65507

/*
 * Scratch for one recvmmsg()/sendmmsg() call.  The daemon is one thread with
 * one device, so one static set serves every call and nothing is allocated
 * per packet.
 */
static struct {
	struct mmsghdr mm[UDP_BATCH];
	struct iovec iov[UDP_BATCH];
	union {
		struct cmsghdr align;
		uint8_t buf[UDP_CMSG_SPACE];
	} cmsg[UDP_BATCH];
	unsigned int idx[UDP_BATCH];	/* send: index into the caller's msgs */
	unsigned int group_first[UDP_BATCH];	/* send: a group's first position */
	unsigned int group_count[UDP_BATCH];
} udp_scratch;

/* setsockopt() of one int option; 0, or -1 with errno set. */
WGD_COLD static int udp_opt(int fd, int level, int name, int val)
{
	return setsockopt(fd, level, name, &val, sizeof(val));
}

WGD_COLD static int udp_mark(int fd, uint32_t fwmark)
{
	if (fd < 0)
		return 0;
	if (udp_opt(fd, SOL_SOCKET, SO_MARK, (int)fwmark) < 0)
		return -errno;
	return 0;
}

/* sin_port and sin6_port share their place: one store, one read, either family. */
_Static_assert(offsetof(struct sockaddr_in, sin_port) == offsetof(struct sockaddr_in6, sin6_port),
	       "the port is at the same offset in both families");

/*
 * A socket of family f bound to port.  A port below 1024 needs
 * CAP_NET_BIND_SERVICE, which the daemon no longer has after the privilege
 * drop: the privileged monitor binds it (daemon/base/privsep.h) and hands
 * the socket over, IPv6 only already.  The fd or -errno.
 */
WGD_COLD static int udp_socket_bound(int f, uint16_t port, const union udp_addr *a)
{
	socklen_t alen = f == UDP_V4 ? sizeof(a->in4) : sizeof(a->in6);
	int fd, err;

	fd = socket(a->sa.sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if ((f == UDP_V6 && udp_opt(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1) < 0) || bind(fd, &a->sa, alen) < 0) {
		err = -errno;
		close(fd);
		if (err == -EACCES && port > 0 && port < 1024) {
			fd = privsep_bind_udp(a->sa.sa_family, port);
			return fd == -ENOTCONN ? err : fd;
		}
		return err;
	}
	return fd;
}

/* One socket of family f bound to port; the fd or -errno. */
WGD_COLD static int udp_bind_one(int f, uint16_t port, uint32_t fwmark)
{
	static const int udp_bufopts[2][2] = { { SO_RCVBUFFORCE, SO_RCVBUF }, { SO_SNDBUFFORCE, SO_SNDBUF } };
	union udp_addr a;
	int fd, err, i;

	memset(&a, 0, sizeof(a));
	a.sa.sa_family = f == UDP_V4 ? AF_INET : AF_INET6;
	a.in4.sin_port = htons(port);
	fd = udp_socket_bound(f, port, &a);
	if (fd < 0)
		return fd;
	/* Each datagram's local address (replies leave from it) and its
	 * TOS / traffic class (its ECN field goes to the inner packet). */
	if ((f == UDP_V4 ? udp_opt(fd, IPPROTO_IP, IP_PKTINFO, 1) :
			   udp_opt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, 1)) < 0 ||
	    (f == UDP_V4 ? udp_opt(fd, IPPROTO_IP, IP_RECVTOS, 1) :
			   udp_opt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, 1)) < 0 ||
	    (fwmark && udp_mark(fd, fwmark) < 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	/* Socket buffers: FORCE (it needs CAP_NET_ADMIN, which we have),
	 * else the plain option, capped by the system's maximum. */
	for (i = 0; i < 2; i++)
		if (udp_opt(fd, SOL_SOCKET, udp_bufopts[i][0], UDP_SOCKBUF) < 0)
			udp_opt(fd, SOL_SOCKET, udp_bufopts[i][1], UDP_SOCKBUF);
	return fd;
}

/*
 * GRO on every socket or on none: the receive path sizes its buffers for
 * one mode, and a coalesced run read into a small buffer is truncated and
 * lost.  So a family that refuses (UDP_GRO: Linux >= 5.0) turns it off for
 * the other as well.
 */
WGD_COLD static bool udp_enable_gro(const int fd[UDP_NFAMILIES])
{
	int on, f;

	for (on = 1; on >= 0; on--) {
		for (f = 0; f < UDP_NFAMILIES; f++)
			if (fd[f] >= 0 && udp_opt(fd[f], SOL_UDP, UDP_GRO, on) < 0 && on)
				break;
		if (on && f == UDP_NFAMILIES)
			return true;
	}
	return false;
}

/*
 * Both families on one port.  For port 0 the IPv4 socket picks it and the
 * IPv6 socket follows; if that port is taken in IPv6, try another.  A family
 * the host lacks (EAFNOSUPPORT) is skipped; at least one must open.
 */
WGD_COLD static int udp_try_open(struct udp *u, uint16_t port, uint32_t fwmark)
{
	int fd[UDP_NFAMILIES] = { -1, -1 }, f, r, ret = -EAFNOSUPPORT;
	union udp_addr a;
	socklen_t alen;

	for (f = 0; f < UDP_NFAMILIES; f++) {
		r = udp_bind_one(f, port, fwmark);
		if (r == -EAFNOSUPPORT)
			continue;
		if (r < 0)
			goto fail;
		fd[f] = r;
		/* the port the next family follows */
		alen = sizeof(a);
		if (getsockname(r, &a.sa, &alen) < 0) {
			r = -errno;
			goto fail;
		}
		port = ntohs(a.in4.sin_port);
		ret = 0;
	}
	if (ret < 0)
		return ret;
	u->fd[UDP_V4] = fd[UDP_V4];
	u->fd[UDP_V6] = fd[UDP_V6];
	u->port = port;
	u->fwmark = fwmark;
	/* Whether the kernel knows UDP_SEGMENT (Linux >= 4.18); 0 = per-message size. */
	u->gso = udp_opt(fd[UDP_V4] >= 0 ? fd[UDP_V4] : fd[UDP_V6], SOL_UDP, UDP_SEGMENT, 0) == 0;
	u->gro = udp_enable_gro(fd);
	return 0;
fail:
	for (f = 0; f < UDP_NFAMILIES; f++)
		if (fd[f] >= 0)
			close(fd[f]);
	return r;
}

WGD_COLD int udp_open(struct udp *u, uint16_t port, uint32_t fwmark)
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

WGD_COLD void udp_close(struct udp *u)
{
	int i;

	for (i = 0; i < UDP_NFAMILIES; i++) {
		if (u->fd[i] >= 0)
			close(u->fd[i]);
		u->fd[i] = -1;
	}
}

WGD_COLD int udp_set_fwmark(struct udp *u, uint32_t fwmark)
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

/*
 * The TOS / traffic class a datagram arrived with: IP_TOS carries one byte,
 * IPV6_TCLASS an int (the kernel's ip_cmsg_recv_tos(), ip6_datagram_recv_specific_ctl()).
 */
static bool udp_read_tos(const struct cmsghdr *c, uint8_t *tos)
{
	int tclass;

	if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS && c->cmsg_len >= CMSG_LEN(1)) {
		*tos = *CMSG_DATA(c);
		return true;
	}
	if (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_TCLASS &&
	    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
		memcpy(&tclass, CMSG_DATA(c), sizeof(tclass));
		*tos = (uint8_t)tclass;
		return true;
	}
	return false;
}

/* The local address a datagram arrived on, its TOS, and the GRO segment size. */
static void udp_read_control(struct msghdr *mh, struct udp_msg *msg)
{
	struct endpoint *ep = msg->ep;
	struct cmsghdr *c;

	endpoint_clear_src(ep);
	msg->seg = 0;
	msg->tos = 0;
	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (udp_read_tos(c, &msg->tos))
			continue;
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int seg;

			memcpy(&seg, CMSG_DATA(c), sizeof(seg));
			msg->seg = seg > 0 ? (size_t)seg : 0;
		} else if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO &&
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
	size_t k;

	if (fd < 0)
		return 0;
	if (n > UDP_BATCH)
		n = UDP_BATCH;
	for (i = 0; i < (int)n; i++) {
		struct msghdr *mh = &udp_scratch.mm[i].msg_hdr;

		udp_scratch.iov[i].iov_base = msgs[i].data;
		udp_scratch.iov[i].iov_len = msgs[i].len;
		/* the sender's address straight into the endpoint */
		mh->msg_name = &msgs[i].ep->addr;
		mh->msg_namelen = sizeof(msgs[i].ep->addr);
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

		msgs[i].truncated = (mh->msg_flags & MSG_TRUNC) != 0;
		msgs[i].len = msgs[i].truncated ? 0 : udp_scratch.mm[i].msg_len;
		/* Zero what the kernel did not write (all of it for a name
		 * longer than the endpoint holds, never from UDP). */
		k = mh->msg_namelen <= sizeof(ep->addr) ? mh->msg_namelen : 0;
		memset((uint8_t *)&ep->addr + k, 0, sizeof(ep->addr) - k);
		if (ep->addr.sa.sa_family != AF_INET && ep->addr.sa.sa_family != AF_INET6)
			msgs[i].len = 0;
		udp_read_control(mh, &msgs[i]);
	}
	return got;
}

/* One control message at c, its value len bytes; returns the space it takes. */
static size_t udp_put_cmsg(struct cmsghdr *c, int level, int type, const void *val, size_t len)
{
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), val, len);
	return CMSG_SPACE(len);
}

/*
 * Control messages of one group: the source address, the segment size, and
 * the TOS / traffic class if it is not 0 (the socket's default), so that
 * the common datagram carries nothing more.
 */
static void udp_fill_control(unsigned int g, const struct endpoint *ep, size_t seg, bool gso, uint8_t tos)
{
	struct msghdr *mh = &udp_scratch.mm[g].msg_hdr;
	struct cmsghdr *c;
	size_t space = 0;
	int tclass = tos;

	mh->msg_control = NULL;
	mh->msg_controllen = 0;
	if (!ep->has_src && !gso && !tos)
		return;
	memset(udp_scratch.cmsg[g].buf, 0, sizeof(udp_scratch.cmsg[g].buf));
	mh->msg_control = udp_scratch.cmsg[g].buf;
	mh->msg_controllen = sizeof(udp_scratch.cmsg[g].buf);
	c = CMSG_FIRSTHDR(mh);
	if (ep->has_src && ep->addr.sa.sa_family == AF_INET) {
		struct in_pktinfo pi = { .ipi_spec_dst = ep->src.v4 };

		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		space += CMSG_SPACE(sizeof(pi));
		c = CMSG_NXTHDR(mh, c);
	} else if (ep->has_src) {
		/*
		 * The source address only, no interface: the route picks the
		 * way out, as for IPv4 and as the kernel's WireGuard does
		 * (doc/protocol.md §9); a link-local peer's interface is its
		 * address's scope id, in msg_name.
		 */
		struct in6_pktinfo pi = { .ipi6_addr = ep->src.v6 };

		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
		space += CMSG_SPACE(sizeof(pi));
		c = CMSG_NXTHDR(mh, c);
	}
	if (gso) {
		uint16_t size = (uint16_t)seg;

		space += udp_put_cmsg(c, SOL_UDP, UDP_SEGMENT, &size, sizeof(size));
		c = CMSG_NXTHDR(mh, c);
	}
	if (tos && ep->addr.sa.sa_family == AF_INET)
		space += udp_put_cmsg(c, IPPROTO_IP, IP_TOS, &tclass, sizeof(tclass));
	else if (tos)
		space += udp_put_cmsg(c, IPPROTO_IPV6, IPV6_TCLASS, &tclass, sizeof(tclass));
	mh->msg_controllen = space;
}

/*
 * Group g: the messages idx[first .. first + count) to one endpoint, as
 * one datagram or, with count > 1, one UDP GSO send the kernel cuts into
 * datagrams of the first one's size.
 */
static void udp_fill_group(unsigned int g, struct udp_msg *msgs, unsigned int first,
			   unsigned int count)
{
	struct msghdr *mh = &udp_scratch.mm[g].msg_hdr;
	const struct endpoint *ep = msgs[udp_scratch.idx[first]].ep;
	unsigned int k;

	for (k = first; k < first + count; k++) {
		udp_scratch.iov[k].iov_base = msgs[udp_scratch.idx[k]].data;
		udp_scratch.iov[k].iov_len = msgs[udp_scratch.idx[k]].len;
	}
	mh->msg_name = (void *)&ep->addr;
	mh->msg_namelen = ep->addr.sa.sa_family == AF_INET ? sizeof(ep->addr.in4)
							   : sizeof(ep->addr.in6);
	mh->msg_iov = &udp_scratch.iov[first];
	mh->msg_iovlen = count;
	mh->msg_flags = 0;
	udp_scratch.group_first[g] = first;
	udp_scratch.group_count[g] = count;
	udp_fill_control(g, ep, msgs[udp_scratch.idx[first]].len, count > 1, msgs[udp_scratch.idx[first]].tos);
}

/*
 * Splits positions [pos, n) into groups: consecutive messages to the same
 * endpoint, all of the first one's length but the last (which may be
 * shorter), within the kernel's GSO limits; numbered from g.  Returns the
 * number of groups then filled.
 */
static unsigned int udp_make_groups(struct udp_msg *msgs, unsigned int pos, unsigned int n, bool gso,
				    unsigned int g)
{
	unsigned int first, count;
	size_t seg, total;

	while (pos < n) {
		const struct udp_msg *m = &msgs[udp_scratch.idx[pos]];

		first = pos;
		count = 1;
		seg = m->len;
		total = seg;
		while (gso && pos + count < n && count < UDP_GSO_MAX_SEGMENTS) {
			const struct udp_msg *next = &msgs[udp_scratch.idx[pos + count]];

			if (next->ep != m->ep || next->tos != m->tos || next->len > seg ||
			    total + next->len > UDP_GSO_MAX_BYTES)
				break;
			total += next->len;
			count++;
			if (next->len < seg)
				break;
		}
		udp_fill_group(g++, msgs, first, count);
		pos += count;
	}
	return g;
}

/* The kernel took groups [g, g + count): their messages were sent. */
static void udp_mark_sent(struct udp_msg *msgs, unsigned int g, unsigned int count)
{
	unsigned int k, end = udp_scratch.group_first[g + count - 1] + udp_scratch.group_count[g + count - 1];

	for (k = udp_scratch.group_first[g]; k < end; k++)
		msgs[udp_scratch.idx[k]].sent = true;
}

/*
 * Sends the family's positions [0, n) on fd, in groups.  A group the
 * kernel refuses is dropped (UDP may drop); one refused for its cached
 * source address (EINVAL, or the address is gone) is retried once without
 * it; if the kernel refuses segmentation itself (EIO), GSO is turned off
 * for good and the rest is sent one datagram per message, as it is for
 * this batch when a GSO send is refused for its size (EINVAL: segments
 * over the route's MTU).  Returns the number of messages dropped.
 */
static unsigned int udp_send_family(struct udp *u, int fd, struct udp_msg *msgs, unsigned int n)
{
	unsigned int groups, done = 0, dropped = 0, retried = UDP_BATCH + 1, k;
	int r;

	groups = udp_make_groups(msgs, 0, n, u->gso, 0);
	while (done < groups) {
		unsigned int first = udp_scratch.group_first[done];
		unsigned int count = udp_scratch.group_count[done];
		struct endpoint *ep = msgs[udp_scratch.idx[first]].ep;

		r = sendmmsg(fd, &udp_scratch.mm[done], groups - done, MSG_DONTWAIT);
		if (r > 0) {
			udp_mark_sent(msgs, done, (unsigned int)r);
			done += (unsigned int)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)) {
			/* The socket buffer is full: drop the rest like a router would. */
			for (k = done; k < groups; k++)
				dropped += udp_scratch.group_count[k];
			break;
		}
		if (r < 0 && count > 1 && (errno == EIO || errno == EINVAL || errno == EMSGSIZE)) {
			/*
			 * EIO: no segmentation offload here at all, for good.
			 * EINVAL (EMSGSIZE): the segments are larger than the
			 * route's MTU; the kernel does not fragment a GSO
			 * send, but it does fragment single datagrams (as for
			 * the kernel's WireGuard): the rest of this batch goes
			 * one datagram per message.
			 */
			if (errno == EIO)
				u->gso = false;
			groups = udp_make_groups(msgs, first, n, false, done);
			continue;
		}
		if (r < 0 && retried != done && (errno == EINVAL || errno == EADDRNOTAVAIL) &&
		    ep->has_src) {
			endpoint_clear_src(ep);
			udp_fill_group(done, msgs, first, count);
			retried = done;
			continue;
		}
		dropped += count;
		done++;
	}
	return dropped;
}

unsigned int udp_send(struct udp *u, struct udp_msg *msgs, unsigned int n)
{
	unsigned int dropped = 0, f, i, count;

	for (i = 0; i < n; i++) {
		int fam = msgs[i].ep->addr.sa.sa_family;

		msgs[i].sent = false;
		if (fam != AF_INET && fam != AF_INET6)
			dropped++;	/* no socket of its family */
	}
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
			if (++count == UDP_BATCH) {
				dropped += udp_send_family(u, u->fd[f], msgs, count);
				count = 0;
			}
		}
		if (count)
			dropped += udp_send_family(u, u->fd[f], msgs, count);
	}
	return dropped;
}
