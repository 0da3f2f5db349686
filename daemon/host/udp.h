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

#include "crypto/util.h"
#include "daemon/datapath/endpoint.h"


struct udp {
	int fd[UDP_NFAMILIES];	/* -1 when that family is not open */
	uint16_t port;		/* the bound port (chosen by the kernel for 0) */
	uint32_t fwmark;
	bool gso;		/* UDP_SEGMENT works: equal-sized runs in one send */
	bool gro;		/* UDP_GRO is on: a receive may hold many datagrams */
};

/* Opens and binds both sockets on port (0 = random); 0 or -errno. */
WGD_COLD int udp_open(struct udp *u, uint16_t port, uint32_t fwmark);
WGD_COLD void udp_close(struct udp *u);
/* SO_MARK on both sockets (0 clears it); 0 or -errno. */
WGD_COLD int udp_set_fwmark(struct udp *u, uint32_t fwmark);

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


#endif
