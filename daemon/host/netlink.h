/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Route netlink (libmnl): sets the interface MTU and watches link, address
 * and route events, so the daemon learns MTU and up/down changes, exits when
 * its interface is deleted, and forgets cached source addresses that went
 * away or that a route change may have made the wrong choice.  Its one
 * request function also carries daemon/bringup/netcfg.c's addresses, routes and
 * rules.
 */
#ifndef WGD_NETLINK_H
#define WGD_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/util.h"

struct mnl_socket;
struct nlmsghdr;

struct netlink {
	struct mnl_socket *sock;	/* subscribed to link, address and route events */
	int ifindex;			/* the only link reported */
	uint32_t seq;
};

/* Opens the event socket; 0 or -errno. */
int netlink_open(struct netlink *nl, int ifindex);
void netlink_close(struct netlink *nl);
int netlink_fd(const struct netlink *nl);

/* Sets the MTU of nl->ifindex with RTM_NEWLINK; 0 or -errno. */
WGD_OUT_OF_LINE int netlink_set_mtu(struct netlink *nl, unsigned int mtu);
/* Sets nl->ifindex up or down (IFF_UP); 0 or -errno. */
int netlink_set_up(struct netlink *nl, bool up);

/*
 * Sends one request (set NLM_F_ACK or NLM_F_DUMP in nlh) on a fresh socket
 * and runs cb (may be NULL) on every answer until the acknowledgement or
 * the end of the dump.  0, or -errno (the kernel's error for the request).
 * Dump requests are checked strictly by the kernel where it can
 * (NETLINK_GET_STRICT_CHK), so that it filters by the table and interface
 * asked for; cb must still filter, for the kernels that cannot.
 */
int netlink_request(struct nlmsghdr *nlh, int (*cb)(const struct nlmsghdr *nlh, void *data),
		    void *data);

/*
 * Starts a request of this type in buf (aligned to 4, room for the message)
 * with NLM_F_REQUEST | flags, the next sequence number of nl and a zeroed
 * family header of hdrlen bytes, which it returns; buf is the nlmsghdr.
 */
void *netlink_msg(struct netlink *nl, void *buf, uint16_t type, uint16_t flags, size_t hdrlen);

/*
 * Attributes of one message by type (libmnl's usual table), for the types
 * below NETLINK_ATTRS: every one read here (the highest is RTA_TABLE, 15).
 */
#define NETLINK_ATTRS 16
struct nlattr;

/* Fills tb (zeroed first) with the attributes after the hdrlen-byte header of nlh. */
WGD_OUT_OF_LINE void netlink_parse(const struct nlmsghdr *nlh, size_t hdrlen,
				   const struct nlattr *tb[NETLINK_ATTRS]);
/* The same for the attributes nested in nest. */
void netlink_parse_nested(const struct nlattr *nest, const struct nlattr *tb[NETLINK_ATTRS]);
/* The u32 of attr, or absent when it is missing or not 4 bytes long. */
WGD_OUT_OF_LINE uint32_t netlink_u32(const struct nlattr *attr, uint32_t absent);
struct netlink_event {
	bool deleted;		/* RTM_DELLINK of our link */
	unsigned int mtu;	/* 0 if not reported */
	bool has_flags;
	bool up;		/* IFF_UP, valid if has_flags */
	bool addr_removed;	/* some local address (any link) was deleted */
	bool route_changed;	/* an IPv4 or IPv6 route was added, changed or
				   deleted (not out of our link, not a clone) */
	bool lost;		/* ENOBUFS: events were dropped; ask for the state */
};

/* The MTU and flags of nl->ifindex (RTM_GETLINK); 0 or -errno. */
int netlink_get_link(struct netlink *nl, struct netlink_event *ev);

/*
 * Drains pending messages, folding those about our link (and address
 * deletions and route changes anywhere) into *ev.  Returns 1 if any
 * concerned us (or events were lost: ev->lost), 0 if none, -errno on
 * failure.
 */
int netlink_read_events(struct netlink *nl, struct netlink_event *ev);

#endif
