// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/bringup/netcfg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libmnl/libmnl.h>
#include <linux/fib_rules.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/host/netlink.h"

/* wg-quick(8)'s numbers: the first table it tries for a full tunnel, the
 * MTU without a better guess, and the overhead it assumes (an IPv6 header,
 * UDP and WireGuard's 32 bytes of header and tag). */
#define NETCFG_TABLE_FIRST	51820
#define NETCFG_TABLE_TRIES	1024
#define NETCFG_MTU_DEFAULT	1420
#define NETCFG_OVERHEAD		80

#define NETCFG_SRC_VALID_MARK	"/proc/sys/net/ipv4/conf/all/src_valid_mark"

/* Also the order of adding (removal goes backwards): addresses before the
 * routes that may need them, rules last, once their table is filled. */
enum netcfg_kind {
	NETCFG_ADDR,
	NETCFG_ROUTE,
	NETCFG_RULE,
};

/* A rule's selector: wg-quick's two rules of a full tunnel. */
enum netcfg_rule {
	NETCFG_RULE_NOT_FWMARK = 1,	/* not fwmark T table T */
	NETCFG_RULE_SUPPRESS,		/* table main suppress_prefixlength 0 */
};

/* One address, route or rule: what the file wants, or what we added. */
struct netcfg_obj {
	uint8_t kind;		/* enum netcfg_kind */
	uint8_t family;
	uint8_t len;		/* prefix length; 0 for a rule */
	uint8_t rule;		/* enum netcfg_rule */
	uint32_t table;		/* a route's or rule's */
	uint32_t tunnel;	/* a rule's full-tunnel table T (not fwmark T) */
	uint32_t prio;		/* a rule's priority as added; not part of its identity */
	uint8_t addr[16];	/* network byte order, IPv4 in the first 4 */
};

struct netcfg {
	struct netlink nl;	/* ifindex and sequence only: requests use fresh sockets */
	char ifname[IFNAMSIZ];
	struct netcfg_obj *objs;	/* what we added, sorted by netcfg_cmp() */
	size_t objs_len;
	size_t objs_cap;
	unsigned int mtu;	/* last applied */
	unsigned int old_mtu;	/* the link's before we changed it; 0: unchanged */
	bool warned_ipv6;
	int old_src_valid_mark;	/* -1: unchanged */
	uint32_t auto_table;	/* the full-tunnel table we chose (no FwMark); 0: none */
};

static size_t netcfg_alen(uint8_t family)
{
	return family == AF_INET ? 4 : 16;
}

/*
 * The order of adding: kind, then longest prefix first (a more specific
 * route is in place before a broader one sends its traffic here), then the
 * rest of the identity.  Sorted arrays of wanted and added objects let a
 * reload find the differences with a binary search.
 */
static int netcfg_cmp(const void *pa, const void *pb)
{
	const struct netcfg_obj *a = pa, *b = pb;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->len != b->len)
		return a->len > b->len ? -1 : 1;
	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	if (a->rule != b->rule)
		return a->rule < b->rule ? -1 : 1;
	if (a->table != b->table)
		return a->table < b->table ? -1 : 1;
	if (a->tunnel != b->tunnel)
		return a->tunnel < b->tunnel ? -1 : 1;
	return memcmp(a->addr, b->addr, sizeof(a->addr));
}

static const struct netcfg_obj *netcfg_find(const struct netcfg_obj *arr, size_t len,
					    const struct netcfg_obj *o)
{
	return len ? bsearch(o, arr, len, sizeof(*arr), netcfg_cmp) : NULL;
}

/* "address 10.0.0.1/24", "route 10.0.0.0/24 to table main", "IPv6 rule ...". */
static void netcfg_describe(char *buf, size_t size, const struct netcfg_obj *o)
{
	char a[INET6_ADDRSTRLEN];
	const char *s = inet_ntop(o->family, o->addr, a, sizeof(a)) ? a : "?";
	bool rule = o->kind == NETCFG_RULE;

	/* One call: a rule's family, tunnel and table, or the prefix and table. */
	snprintf(buf, size,
		 rule ? (o->rule == NETCFG_RULE_NOT_FWMARK ?
			 "%s rule not fwmark %" PRIu32 " table %" PRIu32 :
			 "%s rule table main suppress_prefixlength 0") :
		 o->kind == NETCFG_ADDR ? "address %s/%" PRIu32 :
		 o->table == RT_TABLE_MAIN ? "route %s/%" PRIu32 " to table main" :
		 "route %s/%" PRIu32 " to table %" PRIu32,
		 rule ? (o->family == AF_INET ? "IPv4" : "IPv6") : s, rule ? o->tunnel : o->len, o->table);
}

_Static_assert(RTA_TABLE < NETLINK_ATTRS && RTA_METRICS < NETLINK_ATTRS && RTAX_MTU < NETLINK_ATTRS &&
	       FRA_PRIORITY < NETLINK_ATTRS, "netlink_parse() keeps the attributes read here");

/* A table number goes in the header when it fits, and always as an attribute. */
static uint8_t netcfg_table8(uint32_t table)
{
	return table < 256 ? (uint8_t)table : RT_TABLE_UNSPEC;
}

/* Adds (NLM_F_EXCL: an existing one is an error the caller sorts out) or removes o. */
static int netcfg_send(struct netcfg *nc, const struct netcfg_obj *o, bool add)
{
	static const uint16_t types[][2] = {
		[NETCFG_ADDR] = { RTM_DELADDR, RTM_NEWADDR },
		[NETCFG_ROUTE] = { RTM_DELROUTE, RTM_NEWROUTE },
		[NETCFG_RULE] = { RTM_DELRULE, RTM_NEWRULE },
	};
	static const uint8_t hdrlen[] = {
		[NETCFG_ADDR] = sizeof(struct ifaddrmsg),
		[NETCFG_ROUTE] = sizeof(struct rtmsg),
		[NETCFG_RULE] = sizeof(struct fib_rule_hdr),
	};
	uint8_t buf[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	size_t alen = netcfg_alen(o->family);
	void *hdr = netlink_msg(&nc->nl, buf, types[o->kind][add],
				NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0), hdrlen[o->kind]);

	if (o->kind == NETCFG_ADDR) {
		struct ifaddrmsg *ifa = hdr;

		ifa->ifa_family = o->family;
		ifa->ifa_prefixlen = o->len;
		/* The address is ours alone: no duplicate detection to wait for. */
		ifa->ifa_flags = o->family == AF_INET6 ? IFA_F_NODAD : 0;
		ifa->ifa_index = (unsigned int)nc->nl.ifindex;
		mnl_attr_put(nlh, IFA_LOCAL, alen, o->addr);
		mnl_attr_put(nlh, IFA_ADDRESS, alen, o->addr);
	} else if (o->kind == NETCFG_ROUTE) {
		struct rtmsg *rtm = hdr;

		rtm->rtm_family = o->family;
		rtm->rtm_dst_len = o->len;
		rtm->rtm_table = netcfg_table8(o->table);
		/* As `ip route add PREFIX dev IF`; removal matches the same. */
		rtm->rtm_protocol = RTPROT_BOOT;
		rtm->rtm_scope = RT_SCOPE_LINK;
		rtm->rtm_type = RTN_UNICAST;
		mnl_attr_put_u32(nlh, RTA_TABLE, o->table);
		if (o->len)
			mnl_attr_put(nlh, RTA_DST, alen, o->addr);
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)nc->nl.ifindex);
	} else {
		struct fib_rule_hdr *frh = hdr;

		frh->family = o->family;
		frh->table = netcfg_table8(o->table);
		frh->action = FR_ACT_TO_TBL;
		mnl_attr_put_u32(nlh, FRA_TABLE, o->table);
		/* Removal by priority too: never an identical rule of the admin's. */
		mnl_attr_put_u32(nlh, FRA_PRIORITY, o->prio);
		if (o->rule == NETCFG_RULE_NOT_FWMARK) {
			frh->flags = FIB_RULE_INVERT;
			mnl_attr_put_u32(nlh, FRA_FWMARK, o->tunnel);
		} else {
			mnl_attr_put_u32(nlh, FRA_SUPPRESS_PREFIXLEN, 0);
		}
	}
	return netlink_request(nlh, NULL, NULL);
}

/* A dump of routes (looking for one like want) or of rules (of want's family). */
struct netcfg_dump {
	const struct netcfg_obj *want;
	int ifindex;		/* routes: only those out of this link (0: any) */
	bool found;
	unsigned int seen;	/* rules: how many so far */
	uint32_t prio;		/* rules: the priority for a new one */
};

static int netcfg_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NETLINK_ATTRS];
	struct netcfg_dump *d = data;
	const struct netcfg_obj *w = d->want;
	const struct rtmsg *rtm;

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return MNL_CB_OK;
	rtm = mnl_nlmsg_get_payload(nlh);
	netlink_parse(nlh, sizeof(*rtm), tb);
	if (rtm->rtm_family != w->family || netlink_u32(tb[RTA_TABLE], rtm->rtm_table) != w->table)
		return MNL_CB_OK;
	if (!d->ifindex) {
		d->found = true;	/* any route in the table */
		return MNL_CB_OK;
	}
	if (rtm->rtm_dst_len != w->len || netlink_u32(tb[RTA_OIF], 0) != (uint32_t)d->ifindex)
		return MNL_CB_OK;
	if (!w->len || (tb[RTA_DST] && mnl_attr_get_payload_len(tb[RTA_DST]) == netcfg_alen(w->family) &&
			!memcmp(mnl_attr_get_payload(tb[RTA_DST]), w->addr, netcfg_alen(w->family))))
		d->found = true;
	return MNL_CB_OK;
}

/*
 * Whether w's table holds a route like w out of ifindex (0: any route at
 * all).  The kernel filters by table and link when it checks dump requests
 * strictly; it answers ENOENT for a table that does not exist.
 */
static int netcfg_route_exists(struct netcfg *nc, const struct netcfg_obj *w, int ifindex, bool *found)
{
	uint8_t buf[256] __attribute__((aligned(4)));
	struct netcfg_dump d = { .want = w, .ifindex = ifindex };
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct rtmsg *rtm = netlink_msg(&nc->nl, buf, RTM_GETROUTE, NLM_F_DUMP, sizeof(*rtm));
	int ret;

	rtm->rtm_family = w->family;
	rtm->rtm_table = netcfg_table8(w->table);
	mnl_attr_put_u32(nlh, RTA_TABLE, w->table);
	if (ifindex)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)ifindex);
	ret = netlink_request(nlh, netcfg_route_cb, &d);
	*found = d.found;
	return ret == -ENOENT ? 0 : ret;
}

/*
 * A rule without a priority goes before the second rule of the list (the
 * first is "from all lookup local", 0): its priority minus one, as the
 * kernel computes it (fib_default_rule_pref()).  We give that priority
 * ourselves, so that we remove exactly our rule later and never an
 * identical one of the administrator's.
 */
static int netcfg_rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NETLINK_ATTRS];
	struct netcfg_dump *d = data;
	uint32_t prio;

	if (nlh->nlmsg_type != RTM_NEWRULE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct fib_rule_hdr)) ||
	    ((const struct fib_rule_hdr *)mnl_nlmsg_get_payload(nlh))->family != d->want->family)
		return MNL_CB_OK;
	netlink_parse(nlh, sizeof(struct fib_rule_hdr), tb);
	prio = netlink_u32(tb[FRA_PRIORITY], 0);
	if (d->seen++ == 1)
		d->prio = prio ? prio - 1 : 0;
	return MNL_CB_OK;
}

/* The priority the kernel would give a new rule of w's family. */
static int netcfg_rule_prio(struct netcfg *nc, const struct netcfg_obj *w, uint32_t *prio)
{
	uint8_t buf[64] __attribute__((aligned(4)));
	struct netcfg_dump d = { .want = w };
	struct fib_rule_hdr *frh = netlink_msg(&nc->nl, buf, RTM_GETRULE, NLM_F_DUMP, sizeof(*frh));
	int ret;

	frh->family = w->family;
	ret = netlink_request((struct nlmsghdr *)buf, netcfg_rule_cb, &d);
	*prio = d.prio;
	return ret;
}

/* The route towards an endpoint: its MTU metric, else its output link. */
struct netcfg_path {
	unsigned int mtu;
	uint32_t oif;
};

static int netcfg_path_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[NETLINK_ATTRS], *mx[NETLINK_ATTRS];
	struct netcfg_path *p = data;

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return MNL_CB_OK;
	netlink_parse(nlh, sizeof(struct rtmsg), tb);
	p->mtu = 0;
	if (tb[RTA_METRICS]) {
		netlink_parse_nested(tb[RTA_METRICS], mx);
		p->mtu = netlink_u32(mx[RTAX_MTU], 0);
	}
	p->oif = netlink_u32(tb[RTA_OIF], 0);
	return MNL_CB_OK;
}

/*
 * As `ip route get ENDPOINT` (with the mark the daemon's datagrams carry,
 * so that a full tunnel in place already does not answer with our own
 * link): the route's MTU, else its link's; 0 without a route.
 */
static unsigned int netcfg_path_mtu(struct netcfg *nc, const union config_endpoint *ep, uint32_t mark)
{
	uint8_t buf[128] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct rtmsg *rtm = netlink_msg(&nc->nl, buf, RTM_GETROUTE, NLM_F_ACK, sizeof(*rtm));
	struct netcfg_path p = { 0 };
	struct netlink_event ev;
	struct netlink link = { 0 };
	bool v6 = ep->addr.sa_family == AF_INET6;

	rtm->rtm_family = ep->addr.sa_family;
	rtm->rtm_dst_len = v6 ? 128 : 32;
	mnl_attr_put(nlh, RTA_DST, v6 ? 16 : 4, v6 ? (const void *)&ep->in6.sin6_addr : &ep->in.sin_addr);
	if (v6 && ep->in6.sin6_scope_id)
		mnl_attr_put_u32(nlh, RTA_OIF, ep->in6.sin6_scope_id);
	if (mark)
		mnl_attr_put_u32(nlh, RTA_MARK, mark);
	if (netlink_request(nlh, netcfg_path_cb, &p) < 0 || !p.oif || p.oif == (uint32_t)nc->nl.ifindex)
		return 0;
	if (p.mtu)
		return p.mtu;
	link.ifindex = (int)p.oif;
	return netlink_get_link(&link, &ev) < 0 ? 0 : ev.mtu;
}

/* wg-quick's default: the largest path MTU towards the endpoints, less the overhead. */
static unsigned int netcfg_default_mtu(struct netcfg *nc, const struct netcfg_want *w, uint32_t mark)
{
	unsigned int best = 0, mtu;
	size_t i;

	for (i = 0; i < w->peers_len; i++) {
		if (!config_peer_has_endpoint(&w->peers[i]))
			continue;
		mtu = netcfg_path_mtu(nc, &w->peers[i].endpoint, mark);
		if (mtu > best)
			best = mtu;
	}
	return best > NETCFG_OVERHEAD ? best - NETCFG_OVERHEAD : NETCFG_MTU_DEFAULT;
}

/* A sysctl of 0 or 1 under /proc/sys: read (set < 0) or set; 0 or 1, or -errno. */
static int netcfg_sysctl(const char *path, int set)
{
	char c = (char)('0' + set);
	int fd = open(path, (set < 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = set < 0 ? (int)read(fd, &c, 1) : (int)write(fd, &c, 1);
	ret = ret == 1 ? c != '0' : ret < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

/* IPv6 is usable on our link (the kernel has it and it is not disabled). */
static bool netcfg_ipv6_enabled(const struct netcfg *nc)
{
	char path[64 + IFNAMSIZ];

	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", nc->ifname);
	return netcfg_sysctl(path, -1) == 0;
}

int netcfg_create(struct netcfg **out, int ifindex, const char *ifname)
{
	struct netcfg *nc = calloc(1, sizeof(*nc));

	if (!nc)
		return -ENOMEM;
	nc->nl.ifindex = ifindex;
	snprintf(nc->ifname, sizeof(nc->ifname), "%s", ifname);
	nc->old_src_valid_mark = -1;
	*out = nc;
	return 0;
}

void netcfg_destroy(struct netcfg *nc)
{
	if (!nc)
		return;
	free(nc->objs);
	free(nc);
}

unsigned int netcfg_mtu(const struct netcfg *nc)
{
	return nc->mtu;
}

/* Records o as ours (the array is sorted again at the end of the apply). */
static int netcfg_record(struct netcfg *nc, const struct netcfg_obj *o)
{
	if (nc->objs_len == nc->objs_cap) {
		size_t cap = nc->objs_cap ? 2 * nc->objs_cap : 16;
		struct netcfg_obj *objs = realloc(nc->objs, cap * sizeof(*objs));

		if (!objs)
			return -ENOMEM;
		nc->objs = objs;
		nc->objs_cap = cap;
	}
	nc->objs[nc->objs_len++] = *o;
	return 0;
}

/*
 * With ret 0, logs "VERB WHAT" ("added address 10.0.0.1/24"); with ret
 * -errno, puts "cannot VERB WHAT: reason" in err.  Returns ret.
 */
static int netcfg_report(const struct netcfg_obj *o, const char *verb, int ret, char *err,
			 size_t errlen)
{
	char what[96];

	netcfg_describe(what, sizeof(what), o);
	if (ret < 0)
		snprintf(err, errlen, "cannot %s %s: %s", verb, what, strerror(-ret));
	else
		log_info("%s %s", verb, what);
	return ret;
}

/*
 * Removes what we added that want (sorted) lacks, the last added first;
 * one that is gone already (the admin's doing, or its link's) counts as
 * removed.  A reload stops at the first failure; teardown (want NULL)
 * logs it and goes on.  What could not be removed stays recorded.
 */
static int netcfg_remove_unwanted(struct netcfg *nc, const struct netcfg_obj *want, size_t want_len,
				  char *err, size_t errlen)
{
	size_t i, kept = 0;
	int ret = 0, r;

	for (i = nc->objs_len; i-- > 0;) {
		const struct netcfg_obj *o = &nc->objs[i];

		if (!(want && ret) && !netcfg_find(want, want_len, o)) {
			r = netcfg_send(nc, o, false);
			if (r == -ESRCH || r == -ENOENT || r == -EADDRNOTAVAIL || r == -ENODEV)
				r = 0;
			if (!netcfg_report(o, r ? "remove" : "removed", r, err, errlen))
				continue;
			if (!want)
				log_error("%s", err);
			ret = r;
		}
		/* Kept: packed at the end, from i upwards (already read). */
		nc->objs[nc->objs_len - 1 - kept++] = *o;
	}
	if (kept)
		memmove(nc->objs, nc->objs + nc->objs_len - kept, kept * sizeof(*nc->objs));
	nc->objs_len = kept;
	return ret;
}

/*
 * Adds o unless it is there already, and records it if we made it.  known
 * is how many of nc->objs (sorted) were ours before this apply.  An
 * address the kernel has already is on our link (it refuses only one on
 * the same link), a rule at the same priority is the same rule, and a
 * route that exists is not ours either, unless it is out of another link:
 * then it is in the way.
 */
static int netcfg_add(struct netcfg *nc, struct netcfg_obj *o, size_t known, char *err, size_t errlen)
{
	const char *verb = "list the rules for";
	bool found = false;
	int ret = 0;

	if (netcfg_find(nc->objs, known, o))
		return 0;
	if (o->kind == NETCFG_RULE)
		ret = netcfg_rule_prio(nc, o, &o->prio);
	if (!ret) {
		verb = "add";
		ret = netcfg_send(nc, o, true);
		if (ret == -EEXIST && (o->kind != NETCFG_ROUTE ||
				       (!netcfg_route_exists(nc, o, nc->nl.ifindex, &found) && found)))
			return 0;
	}
	if (!ret) {
		netcfg_report(o, "added", 0, err, errlen);
		verb = "record";
		ret = netcfg_record(nc, o);
		if (ret < 0)
			netcfg_send(nc, o, false);
	}
	return ret < 0 ? netcfg_report(o, verb, ret, err, errlen) : 0;
}

/* The MTU (given, or wg-quick's default) and the link up. */
static int netcfg_link(struct netcfg *nc, const struct netcfg_want *w, uint32_t mark, char *err,
		       size_t errlen)
{
	unsigned int mtu = w->mtu ? w->mtu : netcfg_default_mtu(nc, w, mark);
	struct netlink_event ev;
	int ret = netlink_get_link(&nc->nl, &ev);

	if (ret < 0) {
		snprintf(err, errlen, "cannot read the state of %s: %s", nc->ifname, strerror(-ret));
	} else if (ev.mtu != mtu && (ret = netlink_set_mtu(&nc->nl, mtu)) < 0) {
		snprintf(err, errlen, "cannot set the MTU of %s to %u: %s", nc->ifname, mtu,
			 strerror(-ret));
	} else {
		if (ev.mtu != mtu) {
			if (!nc->old_mtu)
				nc->old_mtu = ev.mtu;
			log_info("MTU %u", mtu);
		}
		nc->mtu = mtu;
		if (!ev.up && (ret = netlink_set_up(&nc->nl, true)) < 0)
			snprintf(err, errlen, "cannot set %s up: %s", nc->ifname, strerror(-ret));
	}
	return ret;
}

/*
 * The table of a full tunnel: the FwMark when given, else (as wg-quick) the
 * first from 51820 up without routes, kept across reloads.
 */
static int netcfg_full_table(struct netcfg *nc, uint32_t fwmark, bool ipv6, uint32_t *table, char *err,
			     size_t errlen)
{
	struct netcfg_obj probe = { .kind = NETCFG_ROUTE };
	bool used = false;
	int ret = 0, i;

	if (fwmark || nc->auto_table) {
		*table = fwmark ? fwmark : nc->auto_table;
		if (fwmark)
			nc->auto_table = 0;
		return 0;
	}
	for (i = 0; i < NETCFG_TABLE_TRIES; i++) {
		probe.table = NETCFG_TABLE_FIRST + (uint32_t)i;
		probe.family = AF_INET;
		ret = netcfg_route_exists(nc, &probe, 0, &used);
		if (!ret && !used && ipv6) {
			probe.family = AF_INET6;
			ret = netcfg_route_exists(nc, &probe, 0, &used);
		}
		if (ret < 0) {
			snprintf(err, errlen, "cannot list the routes of table %" PRIu32 ": %s", probe.table,
				 strerror(-ret));
			return ret;
		}
		if (!used) {
			*table = nc->auto_table = probe.table;
			return 0;
		}
	}
	snprintf(err, errlen, "no routing table from %d to %d is free for the full tunnel",
		 NETCFG_TABLE_FIRST, NETCFG_TABLE_FIRST + NETCFG_TABLE_TRIES - 1);
	return -ENOSPC;
}

/*
 * net.ipv4.conf.all.src_valid_mark=1 while an IPv4 full tunnel is up: the
 * reverse-path check must see the mark of the daemon's datagrams, or the
 * answers to them fail it.  Set only if it was 0; that is restored after.
 */
static int netcfg_src_valid(struct netcfg *nc, bool on, char *err, size_t errlen)
{
	int ret = 0;

	/* On: only if it reads 0, and then set to 1.  Off: what it was. */
	if (on == (nc->old_src_valid_mark < 0)) {
		if (on)
			ret = netcfg_sysctl(NETCFG_SRC_VALID_MARK, -1);
		if (ret == 0) {
			ret = netcfg_sysctl(NETCFG_SRC_VALID_MARK, on ? 1 : nc->old_src_valid_mark);
			if (ret >= 0)
				nc->old_src_valid_mark = on ? 0 : -1;
		}
	}
	if (ret < 0)
		snprintf(err, errlen, "cannot set net.ipv4.conf.all.src_valid_mark: %s", strerror(-ret));
	return ret < 0 ? ret : 0;
}

/*
 * The addresses, then the routes of w (nr of them: the peers' allowed IPs),
 * into want; only the fields that are not 0 are set.  A /0 route of the
 * auto table is not listed but marks its family in full; families the host
 * does not run are skipped (and said once).  Returns the number listed.
 */
static size_t netcfg_want_listed(struct netcfg *nc, const struct netcfg_want *w, size_t nr,
				 bool ipv6, struct netcfg_obj *want, bool full[2])
{
	bool skipped = false;
	size_t i, n = 0, na = w->addrs_len;
	const struct config_peer *p = w->peers;
	const struct config_allowedip *r = NULL, *end = NULL;

	for (i = 0; i < na + nr; i++) {
		struct netcfg_obj *o = &want[n];
		const uint8_t *addr;

		if (i < na) {
			o->family = w->addrs[i].family;
			o->len = w->addrs[i].prefixlen;
			addr = w->addrs[i].addr;
		} else {
			/* The next allowed IP: r, the current peer's, else the next peer's. */
			for (; r == end; p++) {
				if (p->allowedips_len) {	/* else allowedips may be NULL */
					r = p->allowedips;
					end = r + p->allowedips_len;
				}
			}
			o->kind = NETCFG_ROUTE;
			o->family = r->family;
			o->len = r->cidr;
			o->table = w->table == CONFFILE_TABLE_AUTO ? RT_TABLE_MAIN : w->table_id;
			addr = r++->addr;
		}
		if (o->family != AF_INET && (o->family != AF_INET6 || !ipv6))
			skipped |= o->family == AF_INET6;
		else if (o->kind == NETCFG_ROUTE && w->table == CONFFILE_TABLE_AUTO && !o->len)
			full[o->family == AF_INET6] = true;
		else
			memcpy(want[n++].addr, addr, sizeof(o->addr));
		memset(&want[n], 0, sizeof(want[n]));
	}
	if (skipped && !nc->warned_ipv6) {
		log_error("IPv6 is disabled on %s: its addresses, routes and rules are skipped", nc->ifname);
		nc->warned_ipv6 = true;
	}
	return n;
}

/*
 * Per family with a /0: the default route into table and the two rules
 * (k is the enum netcfg_rule of a rule), appended to want[0..n).  A new
 * rule goes before the others, so the suppress rule, added second, is
 * consulted first (main's routes win, but its default).  It belongs to its
 * table: with another table both are added again, in order.
 */
static size_t netcfg_want_full(struct netcfg_obj *want, size_t n, const bool full[2],
			       uint32_t table)
{
	int f, k;

	for (f = 0; f < 2; f++) {
		for (k = 0; full[f] && k < 3; k++) {
			struct netcfg_obj *o = &want[n++];

			o->kind = k ? NETCFG_RULE : NETCFG_ROUTE;
			o->family = f ? AF_INET6 : AF_INET;
			o->rule = (uint8_t)k;
			o->table = k == NETCFG_RULE_SUPPRESS ? RT_TABLE_MAIN : table;
			o->tunnel = k ? table : 0;
		}
	}
	return n;
}

/*
 * What w asks for, sorted and without duplicates, into want (zeroed, with
 * room for every address and route and the six objects of a full tunnel).
 */
static int netcfg_wanted(struct netcfg *nc, const struct netcfg_want *w, size_t nr,
			 struct netcfg_obj *want, size_t *want_len, bool full[2], uint32_t *table,
			 char *err, size_t errlen)
{
	bool ipv6 = netcfg_ipv6_enabled(nc);
	size_t i, n, m;
	int ret;

	if (w->table == CONFFILE_TABLE_OFF)
		nr = 0;
	n = netcfg_want_listed(nc, w, nr, ipv6, want, full);
	*table = 0;
	if (!full[0] && !full[1]) {
		nc->auto_table = 0;
	} else {
		ret = netcfg_full_table(nc, w->fwmark, ipv6, table, err, errlen);
		if (ret < 0)
			return ret;
	}
	n = netcfg_want_full(want, n, full, *table);
	qsort(want, n, sizeof(*want), netcfg_cmp);
	for (i = m = 0; i < n; i++)
		if (!m || netcfg_cmp(&want[m - 1], &want[i]))
			want[m++] = want[i];
	*want_len = m;
	return 0;
}

int netcfg_apply(struct netcfg *nc, const struct netcfg_want *w, uint32_t *fwmark, char *err,
		 size_t errlen)
{
	struct netcfg_obj *want;
	bool full[2] = { false, false }, linked = false;
	size_t want_len = 0, known, i, nr = 0;
	uint32_t table = 0;
	int ret;

	for (i = 0; i < w->peers_len; i++)
		nr += w->peers[i].allowedips_len;
	want = calloc(w->addrs_len + nr + 6, sizeof(*want));
	if (!want) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = netcfg_wanted(nc, w, nr, want, &want_len, full, &table, err, errlen);
	if (!ret)
		ret = netcfg_remove_unwanted(nc, want, want_len, err, errlen);
	known = nc->objs_len;
	/* As wg-quick: addresses, MTU and link up (before the first object
	 * that is not an address, or at the end), then routes and rules. */
	for (i = 0; !ret && i <= want_len; i++) {
		if (!linked && (i == want_len || want[i].kind != NETCFG_ADDR)) {
			linked = true;
			ret = netcfg_link(nc, w, table ? table : w->fwmark, err, errlen);
		}
		if (!ret && i < want_len)
			ret = netcfg_add(nc, &want[i], known, err, errlen);
	}
	if (!ret)
		ret = netcfg_src_valid(nc, full[0], err, errlen);
	if (!ret)
		*fwmark = table ? table : w->fwmark;
	if (nc->objs_len)
		qsort(nc->objs, nc->objs_len, sizeof(*nc->objs), netcfg_cmp);
	free(want);
	return ret;
}

void netcfg_teardown(struct netcfg *nc)
{
	char err[160];
	int ret;

	netcfg_remove_unwanted(nc, NULL, 0, err, sizeof(err));
	if (netcfg_src_valid(nc, false, err, sizeof(err)) < 0)
		log_error("%s", err);
	/* A link that is gone (ENODEV) needs nothing restored. */
	if (nc->old_mtu) {
		ret = netlink_set_mtu(&nc->nl, nc->old_mtu);
		if (ret < 0 && ret != -ENODEV)
			log_error("cannot restore the MTU %u of %s: %s", nc->old_mtu, nc->ifname, strerror(-ret));
	}
	/*
	 * The link stays up: down, the kernel would drop every route out of
	 * it, the administrator's too.  (The daemon's TUN device goes when
	 * the daemon does.)
	 */
	nc->old_mtu = 0;
	nc->auto_table = 0;
}
