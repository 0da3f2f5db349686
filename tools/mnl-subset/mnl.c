// SPDX-License-Identifier: GPL-2.0-only
/*
 * The libmnl subset of libmnl/libmnl.h (why it exists is said there).
 * Everything a datagram holds is checked against the bytes actually
 * received before it is read: lengths of messages and attributes, and that
 * the sender is the kernel (port id 0).
 */
#include "libmnl/libmnl.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MNL_EXPORT __attribute__((visibility("default")))

struct mnl_socket {
	int fd;
	struct sockaddr_nl addr;	/* ours, once bound */
};

MNL_EXPORT struct mnl_socket *mnl_socket_open2(int bus, int flags)
{
	struct mnl_socket *nl = calloc(1, sizeof(*nl));

	if (!nl)
		return NULL;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | flags, bus);
	if (nl->fd < 0) {
		free(nl);
		return NULL;
	}
	return nl;
}

MNL_EXPORT int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	socklen_t len = sizeof(nl->addr);

	memset(&nl->addr, 0, sizeof(nl->addr));
	nl->addr.nl_family = AF_NETLINK;
	nl->addr.nl_groups = groups;
	nl->addr.nl_pid = (uint32_t)pid;
	if (bind(nl->fd, (struct sockaddr *)&nl->addr, sizeof(nl->addr)) < 0)
		return -1;
	/* the port id the kernel chose */
	if (getsockname(nl->fd, (struct sockaddr *)&nl->addr, &len) < 0)
		return -1;
	if (len != sizeof(nl->addr) || nl->addr.nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

MNL_EXPORT int mnl_socket_close(struct mnl_socket *nl)
{
	int ret = close(nl->fd);

	free(nl);
	return ret;
}

MNL_EXPORT int mnl_socket_get_fd(const struct mnl_socket *nl)
{
	return nl->fd;
}

MNL_EXPORT unsigned int mnl_socket_get_portid(const struct mnl_socket *nl)
{
	return nl->addr.nl_pid;
}

MNL_EXPORT int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf, socklen_t len)
{
	return setsockopt(nl->fd, SOL_NETLINK, type, buf, len);
}

MNL_EXPORT ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len)
{
	static const struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	return sendto(nl->fd, buf, len, 0, (const struct sockaddr *)&kernel, sizeof(kernel));
}

MNL_EXPORT ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t bufsiz)
{
	struct sockaddr_nl from;
	struct iovec iov = { .iov_base = buf, .iov_len = bufsiz };
	struct msghdr msg = {
		.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n = recvmsg(nl->fd, &msg, 0);

	if (n < 0)
		return n;
	if (msg.msg_flags & MSG_TRUNC) {
		errno = ENOSPC;
		return -1;
	}
	if (msg.msg_namelen != sizeof(from) || from.nl_pid != 0) {
		errno = ESRCH;
		return -1;
	}
	return n;
}

MNL_EXPORT struct nlmsghdr *mnl_nlmsg_put_header(void *buf)
{
	struct nlmsghdr *nlh = buf;

	memset(buf, 0, MNL_NLMSG_HDRLEN);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN;
	return nlh;
}

MNL_EXPORT void *mnl_nlmsg_put_extra_header(struct nlmsghdr *nlh, size_t size)
{
	char *p = (char *)nlh + nlh->nlmsg_len;

	memset(p, 0, MNL_ALIGN(size));
	nlh->nlmsg_len += MNL_ALIGN(size);
	return p;
}

MNL_EXPORT void *mnl_nlmsg_get_payload(const struct nlmsghdr *nlh)
{
	return (char *)nlh + MNL_NLMSG_HDRLEN;
}

MNL_EXPORT void mnl_attr_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
	struct nlattr *attr = (struct nlattr *)((char *)nlh + MNL_ALIGN(nlh->nlmsg_len));
	size_t total = MNL_ATTR_HDRLEN + len;

	attr->nla_type = type;
	attr->nla_len = (uint16_t)total;
	if (len)
		memcpy((char *)attr + MNL_ATTR_HDRLEN, data, len);
	memset((char *)attr + total, 0, MNL_ALIGN(total) - total);
	nlh->nlmsg_len = MNL_ALIGN(nlh->nlmsg_len) + (uint32_t)MNL_ALIGN(total);
}

MNL_EXPORT void mnl_attr_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t data)
{
	mnl_attr_put(nlh, type, sizeof(data), &data);
}

MNL_EXPORT uint16_t mnl_attr_get_type(const struct nlattr *attr)
{
	return attr->nla_type & NLA_TYPE_MASK;
}

MNL_EXPORT uint16_t mnl_attr_get_payload_len(const struct nlattr *attr)
{
	return (uint16_t)(attr->nla_len - MNL_ATTR_HDRLEN);
}

MNL_EXPORT void *mnl_attr_get_payload(const struct nlattr *attr)
{
	return (char *)attr + MNL_ATTR_HDRLEN;
}

/* cb on the attributes in the len bytes at p (4-byte aligned). */
static int mnl_attr_walk(const char *p, size_t len, mnl_attr_cb_t cb, void *data)
{
	while (len >= sizeof(struct nlattr)) {
		const struct nlattr *attr = (const struct nlattr *)p;
		size_t step = MNL_ALIGN((size_t)attr->nla_len);
		int ret;

		if (attr->nla_len < sizeof(*attr) || attr->nla_len > len)
			break;
		ret = cb(attr, data);
		if (ret <= MNL_CB_STOP)
			return ret;
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return MNL_CB_OK;
}

MNL_EXPORT int mnl_attr_parse(const struct nlmsghdr *nlh, unsigned int offset, mnl_attr_cb_t cb, void *data)
{
	size_t start = MNL_NLMSG_HDRLEN + MNL_ALIGN((size_t)offset);

	if (nlh->nlmsg_len < start)
		return MNL_CB_OK;
	return mnl_attr_walk((const char *)nlh + start, nlh->nlmsg_len - start, cb, data);
}

MNL_EXPORT int mnl_attr_parse_nested(const struct nlattr *attr, mnl_attr_cb_t cb, void *data)
{
	if (attr->nla_len < MNL_ATTR_HDRLEN)
		return MNL_CB_OK;
	return mnl_attr_walk((const char *)attr + MNL_ATTR_HDRLEN, attr->nla_len - MNL_ATTR_HDRLEN, cb, data);
}

/* The outcome of one control message (type below NLMSG_MIN_TYPE). */
static int mnl_control(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err;

	switch (nlh->nlmsg_type) {
	case NLMSG_DONE:
		return MNL_CB_STOP;
	case NLMSG_ERROR:
		if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + sizeof(*err)) {
			errno = EBADMSG;
			return MNL_CB_ERROR;
		}
		err = mnl_nlmsg_get_payload(nlh);
		if (err->error == 0)
			return MNL_CB_STOP;	/* the acknowledgement */
		errno = err->error < 0 ? -err->error : err->error;
		return MNL_CB_ERROR;
	default:			/* NLMSG_NOOP, NLMSG_OVERRUN */
		return MNL_CB_OK;
	}
}

MNL_EXPORT int mnl_cb_run(const void *buf, size_t numbytes, unsigned int seq, unsigned int portid,
			  mnl_cb_t cb, void *data)
{
	const char *p = buf;
	int ret = MNL_CB_OK;

	while (numbytes >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)p;
		size_t step = MNL_ALIGN((size_t)nlh->nlmsg_len);

		if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > numbytes)
			break;
		if (nlh->nlmsg_pid && portid && nlh->nlmsg_pid != portid) {
			errno = ESRCH;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_seq && seq && nlh->nlmsg_seq != seq) {
			errno = EPROTO;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_flags & NLM_F_DUMP_INTR) {
			errno = EINTR;
			return MNL_CB_ERROR;
		}
		if (nlh->nlmsg_type >= NLMSG_MIN_TYPE)
			ret = cb ? cb(nlh, data) : MNL_CB_OK;
		else
			ret = mnl_control(nlh);
		if (ret <= MNL_CB_STOP)
			return ret;
		if (step >= numbytes)
			break;
		p += step;
		numbytes -= step;
	}
	return ret;
}
