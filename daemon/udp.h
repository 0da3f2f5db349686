/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The UDP sockets: one IPv4 and one IPv6 (IPV6_V6ONLY) on the same port,
 * read with recvmmsg() and written with sendmmsg().
 *
 * Every received datagram carries the local address it arrived on
 * (IP_PKTINFO / IPV6_RECVPKTINFO); a peer's endpoint caches it and replies
 * leave from it ("sticky sockets", doc/protocol.md §9).  An IPv4-only or IPv6-only
 * host works with the one socket it has.
 */
#ifndef WGD_UDP_H
#define WGD_UDP_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Datagrams per recvmmsg()/sendmmsg() call. */
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
	struct endpoint *ep;	/* recv: filled; send: where and from where */
};

enum { UDP_V4, UDP_V6, UDP_NFAMILIES };

struct udp {
	int fd[UDP_NFAMILIES];	/* -1 when that family is not open */
	uint16_t port;		/* the bound port (chosen by the kernel for 0) */
	uint32_t fwmark;
	bool gso;		/* UDP_SEGMENT works: equal-sized runs in one send */
	bool gro;		/* UDP_GRO is on: a receive may hold many datagrams */
};

/* Opens and binds both sockets on port (0 = random); 0 or -errno. */
int udp_open(struct udp *u, uint16_t port, uint32_t fwmark);
void udp_close(struct udp *u);
/* SO_MARK on both sockets (0 clears it); 0 or -errno. */
int udp_set_fwmark(struct udp *u, uint32_t fwmark);

/*
 * Receives up to n datagrams from the socket of one family into msgs[i].data
 * (capacity msgs[i].len); fills len and *ep.  Truncated datagrams come back
 * with len 0 and truncated set.  Returns the count, 0 when none, or -errno.
 */
int udp_recv(struct udp *u, int family, struct udp_msg *msgs, unsigned int n);

/*
 * Sends n datagrams, each to its endpoint, in batches per family; runs of
 * equal-sized datagrams to one endpoint go as one UDP GSO send.  A cached
 * source address the kernel no longer accepts is forgotten and the datagram
 * resent without it.  Sets each message's sent flag; returns the number
 * that could not be sent.
 */
unsigned int udp_send(struct udp *u, struct udp_msg *msgs, unsigned int n);

/* Clears the cached local address. */
void endpoint_clear_src(struct endpoint *ep);
/* Whether two endpoints have the same remote address and port. */
bool endpoint_addr_equal(const struct endpoint *a, const struct endpoint *b);
/* "a.b.c.d:port" / "[v6]:port" into buf (INET6_ADDRSTRLEN + 9 bytes). */
void endpoint_format(const struct endpoint *ep, char *buf, size_t size);

#endif
