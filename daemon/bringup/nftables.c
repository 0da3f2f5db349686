// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/bringup/nftables.h"

/* glibc's netinet/in.h before linux/netfilter.h (which includes linux/in.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/host/netlink.h"

/* The priorities "raw" and "mangle" (linux/netfilter_ipv4.h, the same for IPv6). */
#define NFTABLES_PRIO_RAW	(-300)
#define NFTABLES_PRIO_MANGLE	(-150)

/*
 * The longest message (a rule dropping an IPv6 address: 392 bytes with a
 * 15-character interface name) fits in this with room to spare; a batch
 * is given this much per message.
 */
#define NFTABLES_MSG_MAX	512

/*
 * The messages are written by a small program of attribute operations,
 * which reads as `nft --debug=netlink` lists a rule:
 *   MSG     starts a message: NFT_MSG_* type, NLM_F_* flags (arg: flags
 *           >> 8), and gives it the table's name (every message here names
 *           its table)
 *   NEST    opens a nested attribute; END closes arg of them
 *   U32     a number (nf_tables reads them in network byte order)
 *   STR     a name: one of nftables_names
 *   EXPR    opens an expression of that name and its data (END 2 closes)
 *   VAR     what the family, the table and the address give
 * Two bytes per operation (the router's flash): the operation and the
 * attribute's type (MSG: NFT_MSG_*; all below 32) in one, the argument in
 * the other.
 */
enum { NFTABLES_MSG, NFTABLES_NEST, NFTABLES_END, NFTABLES_U32, NFTABLES_STR, NFTABLES_EXPR, NFTABLES_VAR };

struct nftables_op {
	uint8_t op_type;	/* op << 5 | type */
	int8_t arg;
};

/* (a type of 32 or more does not compile: an array of negative size) */
#define OP(op, type, arg) { (op) << 5 | (type) | 0 * sizeof(char[(type) < 32 ? 1 : -1]), arg }

/* The names the messages use, wg-quick's chains among them; STR points in here. */
static const struct nftables_names {
	char preraw[7], premangle[10], postmangle[11];
	char meta[5], cmp[4], payload[8], fib[4], immediate[10], ct[3];
} nftables_names = {
	"preraw", "premangle", "postmangle", "meta", "cmp", "payload", "fib", "immediate", "ct",
};

/* The VARs: what the family, the table and the address give. */
enum {
	NFTABLES_DOFF,		/* the destination address's offset in the header (a u32) */
	NFTABLES_DLEN,		/* its length (a u32) */
	NFTABLES_ADDR,		/* the address (4 or 16 bytes) */
	NFTABLES_IFNAME,	/* the interface's name, IFNAMSIZ bytes padded with zeros */
	NFTABLES_LOCAL,		/* the fib address type RTN_LOCAL (a u32 as the kernel keeps it) */
	NFTABLES_UDP,		/* the l4proto IPPROTO_UDP (1 byte) */
	NFTABLES_MARK,		/* the mark (a u32 as the kernel keeps it) */
	NFTABLES_RAW,		/* the priority raw (a u32), linux/netfilter_ipv4.h */
	NFTABLES_MANGLE,	/* the priority mangle (a u32) */
	NFTABLES_VARS
};

_Static_assert(NFTA_TABLE_NAME == 1 && NFTA_CHAIN_TABLE == 1 && NFTA_RULE_TABLE == 1,
	       "MSG names the table with attribute 1");

_Static_assert(((NLM_F_CREATE | NLM_F_APPEND) & 0xff) == 0 && (NLM_F_CREATE | NLM_F_APPEND) >> 8 < 128,
	       "MSG keeps the flags >> 8");
_Static_assert(sizeof(struct nftables_names) < 128, "STR and EXPR reach every name");

#define MSG(m, flags)	OP(NFTABLES_MSG, m, (flags) >> 8)
#define NEST(t)		OP(NFTABLES_NEST, t, 0)
#define END(n)		OP(NFTABLES_END, 0, n)
#define U32(t, v)	OP(NFTABLES_U32, t, v)
#define STR(t, name)	OP(NFTABLES_STR, t, offsetof(struct nftables_names, name))
#define EXPR(name)	OP(NFTABLES_EXPR, 0, offsetof(struct nftables_names, name))
#define VAR(t, v)	OP(NFTABLES_VAR, t, v)

/* Every register is NFT_REG_1 (16 bytes: an interface name or an IPv6 address fits), as nft(8) uses them. */
#define META_LOAD(key)	EXPR(meta), U32(NFTA_META_DREG, NFT_REG_1), U32(NFTA_META_KEY, key), END(2)
#define CMP(op, var)	EXPR(cmp), U32(NFTA_CMP_SREG, NFT_REG_1), U32(NFTA_CMP_OP, op), \
			NEST(NFTA_CMP_DATA), VAR(NFTA_DATA_VALUE, var), END(3)
#define RULE(chain)	MSG(NFT_MSG_NEWRULE, NLM_F_CREATE | NLM_F_APPEND), STR(NFTA_RULE_CHAIN, chain), \
			NEST(NFTA_RULE_EXPRESSIONS)
/* A base chain of type filter (the kernel's default type: no NFTA_CHAIN_TYPE) */
#define CHAIN(name, hook, prio) \
	MSG(NFT_MSG_NEWCHAIN, NLM_F_CREATE), STR(NFTA_CHAIN_NAME, name), \
	NEST(NFTA_CHAIN_HOOK), U32(NFTA_HOOK_HOOKNUM, hook), VAR(NFTA_HOOK_PRIORITY, prio), END(1)

/*
 * Our table deleted if it is there (added first, so that the delete cannot
 * fail); then, unless only those NFTABLES_DELETE operations run, the table
 * made again with its chains and the CONNMARK rules.
 */
#define NFTABLES_DELETE 2
static const struct nftables_op nftables_table[] = {
	MSG(NFT_MSG_NEWTABLE, NLM_F_CREATE),
	MSG(NFT_MSG_DELTABLE, 0),
	MSG(NFT_MSG_NEWTABLE, NLM_F_CREATE),
	CHAIN(preraw, NF_INET_PRE_ROUTING, NFTABLES_RAW),
	CHAIN(premangle, NF_INET_PRE_ROUTING, NFTABLES_MANGLE),
	CHAIN(postmangle, NF_INET_POST_ROUTING, NFTABLES_MANGLE),
	/* premangle: meta l4proto udp  meta mark set ct mark */
	RULE(premangle),
	META_LOAD(NFT_META_L4PROTO), CMP(NFT_CMP_EQ, NFTABLES_UDP),
	EXPR(ct), U32(NFTA_CT_DREG, NFT_REG_1), U32(NFTA_CT_KEY, NFT_CT_MARK), END(2),
	EXPR(meta), U32(NFTA_META_KEY, NFT_META_MARK), U32(NFTA_META_SREG, NFT_REG_1), END(3),
	/* postmangle: meta l4proto udp  meta mark MARK  ct mark set meta mark */
	RULE(postmangle),
	META_LOAD(NFT_META_L4PROTO), CMP(NFT_CMP_EQ, NFTABLES_UDP),
	META_LOAD(NFT_META_MARK), CMP(NFT_CMP_EQ, NFTABLES_MARK),
	META_LOAD(NFT_META_MARK),
	EXPR(ct), U32(NFTA_CT_KEY, NFT_CT_MARK), U32(NFTA_CT_SREG, NFT_REG_1), END(3),
};

/* preraw, per address: iifname != IF  daddr ADDR  fib saddr type != local  drop */
static const struct nftables_op nftables_drop[] = {
	RULE(preraw),
	META_LOAD(NFT_META_IIFNAME), CMP(NFT_CMP_NEQ, NFTABLES_IFNAME),
	EXPR(payload), U32(NFTA_PAYLOAD_DREG, NFT_REG_1), U32(NFTA_PAYLOAD_BASE, NFT_PAYLOAD_NETWORK_HEADER),
	VAR(NFTA_PAYLOAD_OFFSET, NFTABLES_DOFF), VAR(NFTA_PAYLOAD_LEN, NFTABLES_DLEN), END(2),
	CMP(NFT_CMP_EQ, NFTABLES_ADDR),
	EXPR(fib), U32(NFTA_FIB_DREG, NFT_REG_1), U32(NFTA_FIB_RESULT, NFT_FIB_RESULT_ADDRTYPE),
	U32(NFTA_FIB_FLAGS, NFTA_FIB_F_SADDR), END(2),
	CMP(NFT_CMP_NEQ, NFTABLES_LOCAL),
	EXPR(immediate), U32(NFTA_IMMEDIATE_DREG, NFT_REG_VERDICT),
	NEST(NFTA_IMMEDIATE_DATA), NEST(NFTA_DATA_VERDICT), U32(NFTA_VERDICT_CODE, NF_DROP), END(5),
};

/* A batch being written, and what its VARs stand for. */
struct nftables_batch {
	uint8_t *buf;
	size_t len;		/* bytes written */
	size_t msg;		/* where the current message starts */
	size_t nest[8];		/* where the open nested attributes start */
	size_t depth;
	const char *table;
	struct {
		const void *data;
		size_t len;
	} var[NFTABLES_VARS];
	uint32_t doff, dlen, local, mark, raw, mangle;
};

void nftables_init(struct nftables *nt, const char *ifname)
{
	snprintf(nt->table, sizeof(nt->table), "wgd-%s", ifname);
}

/* An attribute of len bytes of data at the end of the batch (zeroed: calloc). */
WGD_OUT_OF_LINE static void nftables_put(struct nftables_batch *b, uint16_t type, size_t len, const void *data)
{
	struct nlattr *a = (struct nlattr *)(b->buf + b->len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(a + 1, data, len);
	b->len += NLA_ALIGN(NLA_HDRLEN + len);
}

/*
 * Ends the current message and starts one of this type: a batch marker
 * (NFNL_MSG_BATCH_*), or NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_*.
 */
WGD_OUT_OF_LINE static void nftables_msg(struct nftables_batch *b, uint16_t type, uint16_t flags, uint8_t family)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(b->buf + b->msg);
	struct nfgenmsg *nfg;

	nlh->nlmsg_len = (uint32_t)(b->len - b->msg);	/* (the first call: 0, overwritten) */
	b->msg = b->len;
	nlh = (struct nlmsghdr *)(b->buf + b->msg);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = 1;	/* a fresh socket per batch: any number will do */
	nfg = (struct nfgenmsg *)(nlh + 1);
	nfg->nfgen_family = family;
	nfg->version = NFNETLINK_V0;
	/* the batch markers name the subsystem they carry messages for */
	nfg->res_id = htons(type >> 8 ? 0 : NFNL_SUBSYS_NFTABLES);
	b->len += NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(*nfg));
}

/* Runs the program p (n operations) for the table of family. */
static void nftables_run(struct nftables_batch *b, const struct nftables_op *p, size_t n, uint8_t family)
{
	const char *names = (const char *)&nftables_names;
	const void *data;
	uint32_t be;
	size_t len;
	int k;

	for (; n--; p++) {
		uint16_t type = p->op_type & 31;

		data = "";
		len = 0;
		switch (p->op_type >> 5) {
		case NFTABLES_MSG:
			nftables_msg(b, NFNL_SUBSYS_NFTABLES << 8 | type, (uint16_t)(p->arg << 8), family);
			type = NFTA_TABLE_NAME;
			data = b->table;
			len = strlen(data) + 1;
			break;
		case NFTABLES_END:
			for (k = 0; k < p->arg; k++) {
				struct nlattr *a = (struct nlattr *)(b->buf + b->nest[--b->depth]);

				a->nla_len = (uint16_t)(b->buf + b->len - (uint8_t *)a);
			}
			continue;
		case NFTABLES_EXPR:
			b->nest[b->depth++] = b->len;
			nftables_put(b, NLA_F_NESTED | NFTA_LIST_ELEM, 0, data);
			nftables_put(b, NFTA_EXPR_NAME, strlen(names + p->arg) + 1, names + p->arg);
			type = NFTA_EXPR_DATA;
			__attribute__((fallthrough));	/* to open the expression's data */
		case NFTABLES_NEST:
			b->nest[b->depth++] = b->len;
			type |= NLA_F_NESTED;
			break;
		case NFTABLES_U32:
			be = htonl((uint32_t)(int32_t)p->arg);
			data = &be;
			len = sizeof(be);
			break;
		case NFTABLES_STR:
			data = names + p->arg;
			len = strlen(data) + 1;
			break;
		default:
			data = b->var[p->arg].data;
			len = b->var[p->arg].len;
		}
		nftables_put(b, type, len, data);
	}
}

#define NFTABLES_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* VAR v stands for len bytes at data. */
static void nftables_var(struct nftables_batch *b, int v, const void *data, size_t len)
{
	b->var[v].data = data;
	b->var[v].len = len;
}

/* The tables of the families in want (bit 0 IPv4, bit 1 IPv6) replaced, the others deleted, in b. */
static void nftables_batch(struct nftables_batch *b, unsigned int want, const struct conffile_addr *addrs,
			   size_t addrs_len)
{
	static const uint8_t udp = IPPROTO_UDP;
	unsigned int f;
	size_t i;

	b->local = RTN_LOCAL;
	b->raw = htonl((uint32_t)NFTABLES_PRIO_RAW);
	b->mangle = htonl((uint32_t)NFTABLES_PRIO_MANGLE);
	nftables_var(b, NFTABLES_RAW, &b->raw, 4);
	nftables_var(b, NFTABLES_MANGLE, &b->mangle, 4);
	nftables_var(b, NFTABLES_DOFF, &b->doff, 4);
	nftables_var(b, NFTABLES_DLEN, &b->dlen, 4);
	nftables_var(b, NFTABLES_IFNAME, b->table + 4, IFNAMSIZ);
	nftables_var(b, NFTABLES_LOCAL, &b->local, 4);
	nftables_var(b, NFTABLES_UDP, &udp, 1);
	nftables_var(b, NFTABLES_MARK, &b->mark, 4);
	nftables_msg(b, NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC);
	for (f = 0; f < 2; f++) {
		uint8_t family = f ? AF_INET6 : AF_INET;	/* = NFPROTO_IPV4, NFPROTO_IPV6 */
		size_t alen = f ? 16 : 4;

		nftables_run(b, nftables_table, want >> f & 1 ? NFTABLES_ARRAY_LEN(nftables_table) : NFTABLES_DELETE,
			     family);
		if (!(want >> f & 1))
			continue;
		/* the destination address: 16 bytes into an IPv4 header, 24 into an IPv6 one */
		b->doff = htonl(f ? 24 : 16);
		b->dlen = htonl((uint32_t)alen);
		for (i = 0; i < addrs_len; i++) {
			nftables_var(b, NFTABLES_ADDR, addrs[i].addr, alen);
			if (addrs[i].family == family)
				nftables_run(b, nftables_drop, NFTABLES_ARRAY_LEN(nftables_drop), family);
		}
	}
	((struct nlmsghdr *)(b->buf + b->msg))->nlmsg_flags |= NLM_F_ACK;
	nftables_msg(b, NFNL_MSG_BATCH_END, 0, AF_UNSPEC);
	((struct nlmsghdr *)(b->buf + b->msg))->nlmsg_len = (uint32_t)(b->len - b->msg);
}

/* The families of want, for the log. */
static const char nftables_families[4][11] = { "none", "ip", "ip6", "ip and ip6" };

int nftables_apply(struct nftables *nt, const bool full[2], const struct conffile_addr *addrs,
		   size_t addrs_len, uint32_t mark, char *err, size_t errlen)
{
	unsigned int want = full[0] | full[1] << 1;
	struct nftables_batch *b;
	int ret;

	if (!want && !nt->made)
		return 0;
	/* the markers; per family the tables, chains and rules */
	b = calloc(1, sizeof(*b) + (2 + 2 * (3 + 3 + 2 + addrs_len)) * NFTABLES_MSG_MAX);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->buf = (uint8_t *)(b + 1);
	b->table = nt->table;
	b->mark = mark;
	nftables_batch(b, want, addrs, addrs_len);
	ret = netlink_request_batch(NETLINK_NETFILTER, b->buf, b->len);
	free(b);
	if (ret < 0)
		snprintf(err, errlen, "cannot set nftables tables %s (%s): %s", nt->table, nftables_families[want],
			 strerror(-ret));
	else if (want != nt->made)
		log_info("nftables tables %s: %s", nt->table, nftables_families[want]);
	if (!ret)
		nt->made = (uint8_t)want;
	return ret;
}

void nftables_teardown(struct nftables *nt)
{
	static const bool none[2];
	char err[160];

	if (nftables_apply(nt, none, NULL, 0, 0, err, sizeof(err)) < 0)
		log_error("%s", err);
}
