/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The part of libmnl's interface that wgd calls (daemon/netlink.c,
 * daemon/netcfg.c), in our own words, for the big-endian MIPS builds:
 * Debian 12 has no big-endian MIPS port, and its archive here serves no
 * source of libmnl to build one from (tools/mips-be-deps).  Same names,
 * types and meanings as libmnl 1.0.4's, so that the daemon's code is the
 * same in every build; nothing beyond what the daemon uses.
 *
 * Netlink messages and attributes are in host byte order and 4-byte
 * aligned (netlink(7), rtnetlink(7)).
 */
#ifndef WGD_MNL_SUBSET_H
#define WGD_MNL_SUBSET_H

#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#define MNL_SOCKET_AUTOPID 0
#define MNL_ALIGNTO 4
#define MNL_ALIGN(len) (((len) + MNL_ALIGNTO - 1) & ~(MNL_ALIGNTO - 1))
#define MNL_NLMSG_HDRLEN MNL_ALIGN(sizeof(struct nlmsghdr))
#define MNL_ATTR_HDRLEN MNL_ALIGN(sizeof(struct nlattr))

/* Callback results: an error (errno set), stop, or go on. */
#define MNL_CB_ERROR (-1)
#define MNL_CB_STOP 0
#define MNL_CB_OK 1

struct mnl_socket;

typedef int (*mnl_cb_t)(const struct nlmsghdr *nlh, void *data);
typedef int (*mnl_attr_cb_t)(const struct nlattr *attr, void *data);

/* A netlink socket of protocol bus, with socket(2)'s SOCK_* flags; NULL and errno on failure. */
struct mnl_socket *mnl_socket_open2(int bus, int flags);
/* Binds to the multicast groups and port id (0: the kernel picks); 0, or -1 and errno. */
int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid);
int mnl_socket_close(struct mnl_socket *nl);
int mnl_socket_get_fd(const struct mnl_socket *nl);
unsigned int mnl_socket_get_portid(const struct mnl_socket *nl);
/* A SOL_NETLINK option. */
int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf, socklen_t len);
/* One message to the kernel. */
ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf, size_t len);
/*
 * One datagram from the kernel into buf; -1 with errno ENOSPC if it did not
 * fit, ESRCH if it came from anyone but the kernel.
 */
ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf, size_t bufsiz);

/* A header at buf, zeroed, its length its own. */
struct nlmsghdr *mnl_nlmsg_put_header(void *buf);
/* size zeroed bytes (the family header) after what nlh holds; returns them. */
void *mnl_nlmsg_put_extra_header(struct nlmsghdr *nlh, size_t size);
void *mnl_nlmsg_get_payload(const struct nlmsghdr *nlh);

/* Appends an attribute (padded to 4 bytes with zeros) to nlh. */
void mnl_attr_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data);
void mnl_attr_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t data);
/* The type without the nested and byte-order flags. */
uint16_t mnl_attr_get_type(const struct nlattr *attr);
uint16_t mnl_attr_get_payload_len(const struct nlattr *attr);
void *mnl_attr_get_payload(const struct nlattr *attr);
/*
 * cb on each well-formed attribute after the offset-byte family header of
 * nlh (or nested in attr), in order, until one returns MNL_CB_STOP or less
 * (returned) or a malformed one ends the walk; MNL_CB_OK at the end.
 */
int mnl_attr_parse(const struct nlmsghdr *nlh, unsigned int offset, mnl_attr_cb_t cb, void *data);
int mnl_attr_parse_nested(const struct nlattr *attr, mnl_attr_cb_t cb, void *data);

/*
 * Walks the messages of one datagram (numbytes of buf): a message whose
 * nonzero sequence number or port id differs from a nonzero seq or portid
 * is an error (errno EPROTO, ESRCH), so is an interrupted dump (EINTR);
 * data messages go to cb (if any); NLMSG_ERROR with an error sets errno
 * and returns MNL_CB_ERROR, an acknowledgement and NLMSG_DONE return
 * MNL_CB_STOP.  MNL_CB_OK if the datagram ended with more to come.
 */
int mnl_cb_run(const void *buf, size_t numbytes, unsigned int seq, unsigned int portid,
	       mnl_cb_t cb, void *data);

#endif
