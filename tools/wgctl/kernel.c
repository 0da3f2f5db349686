/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux kernel's WireGuard over generic netlink (the attributes of
 * <linux/wireguard.h>), for an interface that has no control socket: the
 * same get and set as the socket's, from and to the same data model
 * (daemon/config/config.h), so that every wgctl command works on a kernel device
 * too, as wg(8)'s do.  Netlink is in host byte order (netlink(7)); keys,
 * addresses and ports are in the order the header names.
 *
 * A set may not fit one message (an attribute's length is 16 bits): peers
 * go into as many messages as needed, each acknowledged before the next;
 * a peer cut between two messages is continued under its public key, its
 * flags and fields only in the first (the header's rule).  A get is a dump
 * whose messages the kernel cuts the same way; a peer whose public key
 * repeats the previous one's is its continuation.
 */
#include "tools/wgctl/kernel.h"

#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/time_types.h>
#include <linux/wireguard.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crypto/util.h"

/* One message: far below the kernel's limit, and nests stay under 64 KB. */
#define KMSG_SIZE 16384

struct kmsg {
	uint8_t *buf;		/* KMSG_SIZE, 4-byte aligned */
	struct nlmsghdr *nlh;
};

/* An attribute if it fits in the message; its start, or NULL. */
static struct nlattr *kput(struct kmsg *m, uint16_t type, size_t len, const void *data)
{
	struct nlattr *a;

	if (MNL_ALIGN(m->nlh->nlmsg_len) + MNL_ATTR_HDRLEN + MNL_ALIGN(len) > KMSG_SIZE)
		return NULL;
	a = (struct nlattr *)(m->buf + MNL_ALIGN(m->nlh->nlmsg_len));
	mnl_attr_put(m->nlh, type, len, data);
	return a;
}

static bool kput_u32(struct kmsg *m, uint16_t type, uint32_t v)
{
	return kput(m, type, sizeof(v), &v);
}

static bool kput_u16(struct kmsg *m, uint16_t type, uint16_t v)
{
	return kput(m, type, sizeof(v), &v);
}

/* A nest, closed by knest_end (its length is what was put after it). */
static struct nlattr *knest(struct kmsg *m, uint16_t type)
{
	static const uint8_t empty;

	return kput(m, type | NLA_F_NESTED, 0, &empty);
}

static void knest_end(struct kmsg *m, struct nlattr *nest)
{
	nest->nla_len = (uint16_t)(m->buf + m->nlh->nlmsg_len - (uint8_t *)nest);
}

/* Back to where a nest began: it did not fit. */
static void kundo(struct kmsg *m, struct nlattr *nest)
{
	m->nlh->nlmsg_len = (uint32_t)((uint8_t *)nest - m->buf);
}

/* A fresh request of family fam: header, genetlink header, the interface name. */
static bool kstart(struct kmsg *m, uint16_t fam, uint8_t cmd, uint16_t flags, const char *ifname)
{
	struct genlmsghdr *g;

	m->nlh = mnl_nlmsg_put_header(m->buf);
	m->nlh->nlmsg_type = fam;
	m->nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	m->nlh->nlmsg_seq = (uint32_t)time(NULL);
	g = mnl_nlmsg_put_extra_header(m->nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = cmd == CTRL_CMD_GETFAMILY ? 1 : WG_GENL_VERSION;
	return fam == GENL_ID_CTRL ? kput(m, CTRL_ATTR_FAMILY_NAME, sizeof(WG_GENL_NAME), WG_GENL_NAME)
				   : kput(m, WGDEVICE_A_IFNAME, strlen(ifname) + 1, ifname);
}

/* Sends m and runs cb on every answer until the acknowledgement or the
 * dump's end.  0 or -errno. */
static int kexchange(struct mnl_socket *nl, struct kmsg *m, mnl_cb_t cb, void *data)
{
	unsigned int seq = m->nlh->nlmsg_seq, portid = mnl_socket_get_portid(nl);
	int i, ret;

	if (mnl_socket_sendto(nl, m->nlh, m->nlh->nlmsg_len) < 0)
		return -errno;
	/* bounded: a dump of 10,000 peers is a few thousand datagrams */
	for (i = 0; i < 1 << 20; i++) {
		ssize_t n = mnl_socket_recvfrom(nl, m->buf, KMSG_SIZE);

		if (n < 0)
			return -errno;
		ret = mnl_cb_run(m->buf, (size_t)n, seq, portid, cb, data);
		if (ret <= MNL_CB_STOP)
			return ret < 0 ? -errno : 0;
	}
	return -EPROTO;
}

/* ---- attributes by type ---- */

struct ktable {
	const struct nlattr *a[16];
};

static int ktable_cb(const struct nlattr *attr, void *data)
{
	struct ktable *t = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type < 16)
		t->a[type] = attr;
	return MNL_CB_OK;
}

static void ktable_nested(struct ktable *t, const struct nlattr *nest)
{
	memset(t, 0, sizeof(*t));
	mnl_attr_parse_nested(nest, ktable_cb, t);
}

/* The payload of a, if a is there with exactly len bytes (len 0: any). */
static const void *kget(const struct nlattr *a, size_t len)
{
	if (!a || (len && mnl_attr_get_payload_len(a) != len))
		return NULL;
	return mnl_attr_get_payload(a);
}

static int kfamily_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ktable t = { { 0 } };
	const uint16_t *id;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ktable_cb, &t);
	id = kget(t.a[CTRL_ATTR_FAMILY_ID], sizeof(*id));
	if (id)
		*(uint16_t *)data = *id;
	return MNL_CB_OK;
}

/* A bound socket and WireGuard's family id; -ENODEV when the kernel has no
 * WireGuard (no such family). */
static int kopen(struct mnl_socket **nl, struct kmsg *m, uint16_t *fam)
{
	int ret;

	*fam = 0;
	*nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!*nl)
		return -errno;
	if (mnl_socket_bind(*nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		ret = -errno;
		goto fail;
	}
	kstart(m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK, NULL);
	ret = kexchange(*nl, m, kfamily_cb, fam);
	if (ret == -ENOENT || (ret == 0 && !*fam))
		ret = -ENODEV;
	if (ret == 0)
		return 0;
fail:
	mnl_socket_close(*nl);
	*nl = NULL;
	return ret;
}

/* ---- get ---- */

struct kget_ctx {
	struct config_device *dev;
	int err;
};

static int kget_allowedip(struct config_peer *p, const struct nlattr *nest)
{
	struct ktable t;
	struct config_allowedip aip = { 0 };
	const uint16_t *family;
	const uint8_t *cidr;
	const void *addr;

	ktable_nested(&t, nest);
	family = kget(t.a[WGALLOWEDIP_A_FAMILY], sizeof(*family));
	cidr = kget(t.a[WGALLOWEDIP_A_CIDR_MASK], sizeof(*cidr));
	if (!family || !cidr || (*family != AF_INET && *family != AF_INET6))
		return -EPROTO;
	addr = kget(t.a[WGALLOWEDIP_A_IPADDR], *family == AF_INET ? 4 : 16);
	if (!addr || *cidr > (*family == AF_INET ? 32 : 128))
		return -EPROTO;
	aip.family = (uint8_t)*family;
	aip.cidr = *cidr;
	memcpy(aip.addr, addr, *family == AF_INET ? 4 : 16);
	return config_peer_add_allowedip(p, &aip);
}

struct kget_aips {
	struct config_peer *p;
	int err;
};

/* Each allowed IP of a peer: a nest in the peer's WGPEER_A_ALLOWEDIPS. */
static int kget_allowedip_cb(const struct nlattr *nest, void *data)
{
	struct kget_aips *a = data;

	a->err = kget_allowedip(a->p, nest);
	return a->err < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

/* The fields of one peer of a get into p (new, or the continued last one). */
static int kget_fields(struct config_peer *p, const struct ktable *t)
{
	const struct __kernel_timespec *ts = kget(t->a[WGPEER_A_LAST_HANDSHAKE_TIME], sizeof(*ts));
	struct kget_aips a;
	const void *v;

	/* the kernel sends zeros for none, as the control socket does */
	if ((v = kget(t->a[WGPEER_A_PRESHARED_KEY], CONFIG_KEY_LEN)) && !crypto_is_zero(v, CONFIG_KEY_LEN)) {
		memcpy(p->preshared_key, v, CONFIG_KEY_LEN);
		p->flags |= CONFIG_PEER_HAS_PRESHARED_KEY;
	}
	if ((v = kget(t->a[WGPEER_A_ENDPOINT], 0))) {
		size_t len = mnl_attr_get_payload_len(t->a[WGPEER_A_ENDPOINT]);
		sa_family_t fam = ((const struct sockaddr *)v)->sa_family;

		if ((fam == AF_INET && len == sizeof(struct sockaddr_in)) ||
		    (fam == AF_INET6 && len == sizeof(struct sockaddr_in6))) {
			memcpy(&p->endpoint, v, len);
			p->flags |= CONFIG_PEER_HAS_ENDPOINT;
		}
	}
	if ((v = kget(t->a[WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL], sizeof(uint16_t)))) {
		p->persistent_keepalive = *(const uint16_t *)v;
		p->flags |= CONFIG_PEER_HAS_KEEPALIVE;
	}
	if (ts) {
		p->last_handshake_sec = ts->tv_sec;
		p->last_handshake_nsec = ts->tv_nsec;
	}
	if ((v = kget(t->a[WGPEER_A_RX_BYTES], sizeof(uint64_t))))
		memcpy(&p->rx_bytes, v, sizeof(uint64_t));
	if ((v = kget(t->a[WGPEER_A_TX_BYTES], sizeof(uint64_t))))
		memcpy(&p->tx_bytes, v, sizeof(uint64_t));
	if (!t->a[WGPEER_A_ALLOWEDIPS])
		return 0;
	a.p = p;
	a.err = 0;
	mnl_attr_parse_nested(t->a[WGPEER_A_ALLOWEDIPS], kget_allowedip_cb, &a);
	return a.err;
}

static int kget_peer_cb(const struct nlattr *nest, void *data)
{
	struct kget_ctx *c = data;
	struct config_device *dev = c->dev;
	struct config_peer *p;
	struct ktable t;
	const uint8_t *key;

	ktable_nested(&t, nest);
	key = kget(t.a[WGPEER_A_PUBLIC_KEY], CONFIG_KEY_LEN);
	if (!key) {
		c->err = -EPROTO;
		return MNL_CB_ERROR;
	}
	p = dev->peers_len ? &dev->peers[dev->peers_len - 1] : NULL;
	if (!p || memcmp(p->public_key, key, CONFIG_KEY_LEN) != 0)
		p = config_device_add_peer(dev, key);
	c->err = p ? kget_fields(p, &t) : -ENOMEM;
	return c->err < 0 ? MNL_CB_ERROR : MNL_CB_OK;
}

static int kget_cb(const struct nlmsghdr *nlh, void *data)
{
	struct kget_ctx *c = data;
	struct config_device *dev = c->dev;
	struct ktable t = { { 0 } };
	const void *v;

	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), ktable_cb, &t);
	if ((v = kget(t.a[WGDEVICE_A_PRIVATE_KEY], CONFIG_KEY_LEN))) {
		memcpy(dev->private_key, v, CONFIG_KEY_LEN);
		/* the kernel sends zeros for none */
		if (!crypto_is_zero(dev->private_key, CONFIG_KEY_LEN))
			dev->flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
	}
	/* the flags as daemon/uapi.c's get sets them, so that show treats
	 * both backends alike */
	if ((v = kget(t.a[WGDEVICE_A_LISTEN_PORT], sizeof(uint16_t)))) {
		dev->listen_port = *(const uint16_t *)v;
		dev->flags |= CONFIG_DEVICE_HAS_LISTEN_PORT;
	}
	if ((v = kget(t.a[WGDEVICE_A_FWMARK], sizeof(uint32_t)))) {
		dev->fwmark = *(const uint32_t *)v;
		dev->flags |= CONFIG_DEVICE_HAS_FWMARK;
	}
	if (t.a[WGDEVICE_A_PEERS] &&
	    mnl_attr_parse_nested(t.a[WGDEVICE_A_PEERS], kget_peer_cb, c) < 0)
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

int kernel_get(const char *ifname, struct config_device *out)
{
	struct kget_ctx c = { .dev = out };
	struct mnl_socket *nl;
	struct kmsg m;
	uint16_t fam;
	int ret;

	if (strlen(ifname) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	m.buf = aligned_alloc(4, KMSG_SIZE);
	if (!m.buf)
		return -ENOMEM;
	ret = kopen(&nl, &m, &fam);
	if (ret == 0) {
		kstart(&m, fam, WG_CMD_GET_DEVICE, NLM_F_DUMP, ifname);
		ret = kexchange(nl, &m, kget_cb, &c);
		if (c.err < 0)
			ret = c.err;
		mnl_socket_close(nl);
	}
	crypto_wipe(m.buf, KMSG_SIZE);	/* it held the private key */
	free(m.buf);
	return ret;
}

/* ---- set ---- */

/* Where a set stands between messages: the next peer, how many of its
 * allowed IPs were sent, and whether its own fields were. */
struct kset_pos {
	size_t peer;
	size_t aip;
	bool started;
};

static bool kset_device(struct kmsg *m, const struct config_device *cfg)
{
	if ((cfg->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) &&
	    !kput(m, WGDEVICE_A_PRIVATE_KEY, CONFIG_KEY_LEN, cfg->private_key))
		return false;
	if ((cfg->flags & CONFIG_DEVICE_HAS_LISTEN_PORT) &&
	    !kput_u16(m, WGDEVICE_A_LISTEN_PORT, cfg->listen_port))
		return false;
	if ((cfg->flags & CONFIG_DEVICE_HAS_FWMARK) && !kput_u32(m, WGDEVICE_A_FWMARK, cfg->fwmark))
		return false;
	return kput_u32(m, WGDEVICE_A_FLAGS,
			cfg->flags & CONFIG_DEVICE_REPLACE_PEERS ? WGDEVICE_F_REPLACE_PEERS : 0);
}

/* The peer's own attributes, sent with its first part only. */
static bool kset_peer_fields(struct kmsg *m, const struct config_peer *p)
{
	uint32_t flags = 0;

	if (p->flags & CONFIG_PEER_REMOVE)
		flags |= WGPEER_F_REMOVE_ME;
	if (p->flags & CONFIG_PEER_UPDATE_ONLY)
		flags |= WGPEER_F_UPDATE_ONLY;
	if (p->flags & CONFIG_PEER_REPLACE_ALLOWEDIPS)
		flags |= WGPEER_F_REPLACE_ALLOWEDIPS;
	if (!kput_u32(m, WGPEER_A_FLAGS, flags))
		return false;
	if ((p->flags & CONFIG_PEER_HAS_PRESHARED_KEY) &&
	    !kput(m, WGPEER_A_PRESHARED_KEY, CONFIG_KEY_LEN, p->preshared_key))
		return false;
	if ((p->flags & CONFIG_PEER_HAS_ENDPOINT) &&
	    !kput(m, WGPEER_A_ENDPOINT, p->endpoint.addr.sa_family == AF_INET6 ?
		  sizeof(p->endpoint.in6) : sizeof(p->endpoint.in), &p->endpoint))
		return false;
	return !(p->flags & CONFIG_PEER_HAS_KEEPALIVE) ||
	       kput_u16(m, WGPEER_A_PERSISTENT_KEEPALIVE_INTERVAL, p->persistent_keepalive);
}

static bool kset_allowedip(struct kmsg *m, const struct config_allowedip *aip)
{
	struct nlattr *n = knest(m, 0);
	uint8_t cidr = aip->cidr;

	if (!n)
		return false;
	if (!kput_u16(m, WGALLOWEDIP_A_FAMILY, aip->family) ||
	    !kput(m, WGALLOWEDIP_A_IPADDR, aip->family == AF_INET ? 4 : 16, aip->addr) ||
	    !kput(m, WGALLOWEDIP_A_CIDR_MASK, 1, &cidr)) {
		kundo(m, n);
		return false;
	}
	knest_end(m, n);
	return true;
}

/* The allowed IPs of p from pos->aip on, as many as fit. */
static int kset_allowedips(struct kmsg *m, const struct config_peer *p, struct kset_pos *pos)
{
	struct nlattr *aips = knest(m, WGPEER_A_ALLOWEDIPS);
	size_t first = pos->aip;

	if (!aips)
		return 0;
	for (; pos->aip < p->allowedips_len; pos->aip++) {
		/* `allowed-ips -PREFIX`: the kernel's set has no removal */
		if (p->allowedips[pos->aip].remove)
			return -EOPNOTSUPP;
		if (!kset_allowedip(m, &p->allowedips[pos->aip]))
			break;
	}
	if (pos->aip == first)
		kundo(m, aips);
	else
		knest_end(m, aips);
	return 0;
}

/*
 * As much of peer p as fits, from pos on: 1 when the peer is complete (pos
 * at the next), 0 when the message is full, -errno.  Its public key leads
 * every part; its flags and fields go with the first.
 */
static int kset_peer(struct kmsg *m, const struct config_peer *p, struct kset_pos *pos)
{
	struct nlattr *peer = knest(m, 0);
	int ret;

	if (!peer)
		return 0;
	if (!kput(m, WGPEER_A_PUBLIC_KEY, CONFIG_KEY_LEN, p->public_key) ||
	    (!pos->started && !kset_peer_fields(m, p))) {
		kundo(m, peer);
		return 0;
	}
	pos->started = true;
	ret = kset_allowedips(m, p, pos);
	if (ret < 0)
		return ret;
	knest_end(m, peer);
	if (pos->aip < p->allowedips_len)
		return 0;
	pos->peer++;
	pos->aip = 0;
	pos->started = false;
	return 1;
}

/* One message of the set from pos on: 0 (pos advanced), or -errno. */
static int kset_message(struct kmsg *m, uint16_t fam, const char *ifname,
			const struct config_device *cfg, struct kset_pos *pos)
{
	struct kset_pos start = *pos;
	struct nlattr *peers;
	int ret = 1;

	kstart(m, fam, WG_CMD_SET_DEVICE, NLM_F_ACK, ifname);
	/* the device's fields and REPLACE_PEERS with the first message only */
	if (start.peer == 0 && !start.started && !kset_device(m, cfg))
		return -EMSGSIZE;
	if (start.peer == cfg->peers_len)
		return 0;
	peers = knest(m, WGDEVICE_A_PEERS);
	if (!peers)
		return -EMSGSIZE;
	while (pos->peer < cfg->peers_len && ret == 1)
		ret = kset_peer(m, &cfg->peers[pos->peer], pos);
	if (ret < 0)
		return ret;
	knest_end(m, peers);
	/* an empty message that took nothing of the next peer would loop */
	if (pos->peer == start.peer && pos->aip == start.aip && pos->started == start.started)
		return -EMSGSIZE;
	return 0;
}

int kernel_set(const char *ifname, const struct config_device *cfg)
{
	struct kset_pos pos = { 0, 0, false };
	struct mnl_socket *nl;
	struct kmsg m;
	uint16_t fam;
	int ret;

	if (strlen(ifname) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	m.buf = aligned_alloc(4, KMSG_SIZE);
	if (!m.buf)
		return -ENOMEM;
	ret = kopen(&nl, &m, &fam);
	if (ret == 0) {
		do {
			ret = kset_message(&m, fam, ifname, cfg, &pos);
			if (ret == 0)
				ret = kexchange(nl, &m, NULL, NULL);
		} while (ret == 0 && pos.peer < cfg->peers_len);
		mnl_socket_close(nl);
	}
	crypto_wipe(m.buf, KMSG_SIZE);	/* keys */
	free(m.buf);
	return ret;
}
