/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Endpoints and datagrams as the data path sees them: a remote address with
 * the local address to send to it from (the "sticky" source, learnt from
 * IP_PKTINFO / IPV6_PKTINFO of what arrived), and one datagram to send or
 * received.  Plain data and pure helpers; the sockets are udp.h's.
 */
#ifndef WGD_ENDPOINT_H
#define WGD_ENDPOINT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Datagrams per batch: one recvmmsg()/sendmmsg() call of the shell. */
#define UDP_BATCH 64
/* With UDP GRO: receive buffers per recvmmsg() call, and their size. */
#define UDP_GRO_BATCH 8
#define UDP_GRO_BUF_SIZE 65536

union udp_addr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/* A remote address and the local address to send to it from. */
struct endpoint {
	union udp_addr addr;	/* sa_family AF_UNSPEC = none */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} src;
	int src_ifindex;
	bool has_src;
};

struct udp_msg {
	uint8_t *data;
	size_t len;		/* recv: capacity in, length out */
	size_t seg;		/* recv: datagrams of this size back to back (the
				   last may be shorter), 0 if only one */
	bool truncated;		/* recv: larger than the buffer (len is then 0) */
	bool sent;		/* send: the kernel took it (out) */
	uint8_t tos;		/* the outer IPv4 TOS / IPv6 traffic class:
				   send: to set; recv: as it arrived */
	struct endpoint *ep;	/* recv: filled; send: where and from where */
};

/* The two sockets, and the two queues of received datagrams. */
enum { UDP_V4, UDP_V6, UDP_NFAMILIES };

/* Clears the cached local address. */
void endpoint_clear_src(struct endpoint *ep);
/* Whether two endpoints have the same remote address and port. */
bool endpoint_addr_equal(const struct endpoint *a, const struct endpoint *b);
/* "a.b.c.d:port" / "[v6]:port" into buf (INET6_ADDRSTRLEN + 9 bytes). */
void endpoint_format(const struct endpoint *ep, char *buf, size_t size);

#endif
