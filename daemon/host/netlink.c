// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/host/netlink.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* Reads of the event socket per wakeup: bounded so link churn cannot starve us. */
#define NETLINK_MAX_READS 16
/*
 * After an overrun, the queue is drained (one event per read; a full receive
 * buffer holds a few hundred) before the caller asks for the current state,
 * so that no older event read later can undo what it learns.
 */
#define NETLINK_MAX_DRAIN 4096

int netlink_open(struct netlink *nl, int ifindex)
{
	nl->ifindex = ifindex;
	nl->seq = (uint32_t)time(NULL);
	nl->sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!nl->sock)
		return -errno;
	if (mnl_socket_bind(nl->sock, RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
			    RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		mnl_socket_close(nl->sock);
		nl->sock = NULL;
		return err;
	}
	return 0;
}

void netlink_close(struct netlink *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

int netlink_fd(const struct netlink *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

_Static_assert(IFLA_MTU < NETLINK_ATTRS && RTA_OIF < NETLINK_ATTRS, "netlink_parse() keeps them");

static int netlink_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type < NETLINK_ATTRS)
		tb[type] = attr;
	return MNL_CB_OK;
}

void netlink_parse(const struct nlmsghdr *nlh, size_t hdrlen, const struct nlattr *tb[NETLINK_ATTRS])
{
	memset(tb, 0, NETLINK_ATTRS * sizeof(*tb));
	mnl_attr_parse(nlh, (unsigned int)hdrlen, netlink_attr_cb, tb);
}

void netlink_parse_nested(const struct nlattr *nest, const struct nlattr *tb[NETLINK_ATTRS])
{
	memset(tb, 0, NETLINK_ATTRS * sizeof(*tb));
	mnl_attr_parse_nested(nest, netlink_attr_cb, tb);
}

/* Attributes are 4-byte aligned and in host order: the u32 is read in place. */
uint32_t netlink_u32(const struct nlattr *attr, uint32_t absent)
{
	if (!attr || attr->nla_len != MNL_ATTR_HDRLEN + sizeof(uint32_t))
		return absent;
	return *(const uint32_t *)((const uint8_t *)attr + MNL_ATTR_HDRLEN);
}

/* As mnl_nlmsg_put_header() and mnl_nlmsg_put_extra_header() together. */
void *netlink_msg(struct netlink *nl, void *buf, uint16_t type, uint16_t flags, size_t hdrlen)
{
	struct nlmsghdr *nlh = buf;

	memset(buf, 0, MNL_NLMSG_HDRLEN + MNL_ALIGN(hdrlen));
	nlh->nlmsg_len = (uint32_t)(MNL_NLMSG_HDRLEN + MNL_ALIGN(hdrlen));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return (uint8_t *)buf + MNL_NLMSG_HDRLEN;
}

/*
 * One datagram of sock into buf, as mnl_socket_recvfrom() reads it, but
 * only from the kernel: the sender's port (nl_pid) must be 0.  A process
 * with CAP_NET_ADMIN may send to our port; what it sends (a deleted link,
 * an MTU, a forged answer to a request) is dropped, counted as nothing:
 * 0.  The length, or -1 with errno set.
 */
static ssize_t netlink_recv(struct mnl_socket *sock, void *buf, size_t len)
{
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n = recvmsg(mnl_socket_get_fd(sock), &msg, 0);

	if (n < 0)
		return n;
	if (msg.msg_flags & MSG_TRUNC) {
		errno = ENOSPC;
		return -1;
	}
	if (msg.msg_namelen != sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0)
		return 0;
	return n;
}

struct netlink_ctx {
	struct netlink *nl;
	struct netlink_event *ev;
	int matched;
};

/*
 * Whether a route event may change the source address the kernel prefers
 * towards some peer.  Not: a cached clone (an IPv6 exception such as a
 * learned path MTU) and a route out of our own interface, which our
 * datagrams never take (they would loop through the tunnel), such as
 * those wg-quick adds for the allowed IPs.  One message costs a pass
 * over its attributes and nothing more.
 */
static bool netlink_route_matters(const struct nlmsghdr *nlh, const struct netlink *nl)
{
	const struct nlattr *tb[NETLINK_ATTRS];
	const struct rtmsg *rtm;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return false;
	rtm = mnl_nlmsg_get_payload(nlh);
	if (rtm->rtm_flags & RTM_F_CLONED)
		return false;
	netlink_parse(nlh, sizeof(*rtm), tb);
	return netlink_u32(tb[RTA_OIF], 0) != (uint32_t)nl->ifindex;
}

static int netlink_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NETLINK_ATTRS];
	struct netlink_ctx *ctx = data;
	const struct ifinfomsg *ifi;

	if (nlh->nlmsg_type == RTM_DELADDR) {
		ctx->ev->addr_removed = true;
		ctx->matched = 1;
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type == RTM_NEWROUTE || nlh->nlmsg_type == RTM_DELROUTE) {
		if (!ctx->ev->route_changed && netlink_route_matters(nlh, ctx->nl)) {
			ctx->ev->route_changed = true;
			ctx->matched = 1;
		}
		return MNL_CB_OK;
	}
	if (nlh->nlmsg_type != RTM_NEWLINK && nlh->nlmsg_type != RTM_DELLINK)
		return MNL_CB_OK;
	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	if (ifi->ifi_index != ctx->nl->ifindex)
		return MNL_CB_OK;
	ctx->matched = 1;
	if (nlh->nlmsg_type == RTM_DELLINK) {
		ctx->ev->deleted = true;
		return MNL_CB_OK;
	}
	ctx->ev->has_flags = true;
	ctx->ev->up = ifi->ifi_flags & IFF_UP;
	netlink_parse(nlh, sizeof(*ifi), tb);
	ctx->ev->mtu = netlink_u32(tb[IFLA_MTU], ctx->ev->mtu);
	return MNL_CB_OK;
}

int netlink_read_events(struct netlink *nl, struct netlink_event *ev)
{
	uint8_t buf[8192] __attribute__((aligned(4)));
	struct netlink_ctx ctx = { .nl = nl, .ev = ev };
	int i;

	for (i = 0; i < (ev->lost ? NETLINK_MAX_DRAIN : NETLINK_MAX_READS); i++) {
		ssize_t n = netlink_recv(nl->sock, buf, sizeof(buf));

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				break;
			/*
			 * ENOBUFS: the kernel dropped events (our receive
			 * buffer overran), an up/down or MTU change among
			 * them perhaps: the caller must ask for the state.
			 */
			if (errno == ENOBUFS) {
				ev->lost = true;
				ctx.matched = 1;
				continue;
			}
			return -errno;
		}
		if (n > 0)
			mnl_cb_run(buf, (size_t)n, 0, 0, netlink_msg_cb, &ctx);
	}
	return ctx.matched;
}

int netlink_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	uint8_t buf[8192] __attribute__((aligned(4)));
	struct mnl_socket *sock;
	unsigned int portid;
	uint32_t seq = nlh->nlmsg_seq;
	bool dump = nlh->nlmsg_flags & NLM_F_DUMP;
	int ret = 0, one = 1, i;

	sock = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!sock)
		return -errno;
	/* Older kernels lack the option and dump everything: cb filters. */
	if (dump)
		mnl_socket_setsockopt(sock, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0 ||
	    mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0) {
		ret = -errno;
		goto out;
	}
	portid = mnl_socket_get_portid(sock);
	/*
	 * A kernel answers a request at once and ends a dump with NLMSG_DONE;
	 * the bound (a dump of a full Internet routing table fits) guards
	 * against a confused one.
	 */
	for (i = 0; i < (dump ? 1 << 16 : 64); i++) {
		ssize_t n = netlink_recv(sock, buf, sizeof(buf));

		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0)
			continue;	/* not from the kernel */
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, cb, data);
		if (ret <= MNL_CB_STOP) {
			ret = ret < 0 ? -errno : 0;
			break;
		}
	}
out:
	mnl_socket_close(sock);
	return ret;
}

/* RTM_NEWLINK for nl->ifindex: the MTU (0: unchanged) and the flags in change. */
static int netlink_set_link(struct netlink *nl, unsigned int mtu, unsigned int change,
			    unsigned int flags)
{
	uint8_t buf[256] __attribute__((aligned(4)));
	struct ifinfomsg *ifi = netlink_msg(nl, buf, RTM_NEWLINK, NLM_F_ACK, sizeof(*ifi));

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = nl->ifindex;
	ifi->ifi_change = change;
	ifi->ifi_flags = flags;
	if (mtu)
		mnl_attr_put_u32((struct nlmsghdr *)buf, IFLA_MTU, mtu);
	return netlink_request((struct nlmsghdr *)buf, NULL, NULL);
}

int netlink_set_mtu(struct netlink *nl, unsigned int mtu)
{
	return netlink_set_link(nl, mtu, 0, 0);
}

int netlink_set_up(struct netlink *nl, bool up)
{
	return netlink_set_link(nl, 0, IFF_UP, up ? IFF_UP : 0);
}

int netlink_get_link(struct netlink *nl, struct netlink_event *ev)
{
	uint8_t buf[256] __attribute__((aligned(4)));
	struct netlink_ctx ctx = { .nl = nl, .ev = ev };
	/* NLM_F_ACK: the acknowledgement after the answer ends the exchange. */
	struct ifinfomsg *ifi = netlink_msg(nl, buf, RTM_GETLINK, NLM_F_ACK, sizeof(*ifi));
	int ret;

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = nl->ifindex;
	memset(ev, 0, sizeof(*ev));
	ret = netlink_request((struct nlmsghdr *)buf, netlink_msg_cb, &ctx);
	if (ret < 0)
		return ret;
	return ctx.matched ? 0 : -ENODEV;
}
