/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration files in wg's and wg-quick's format (daemon/config/conffile.h),
 * parsed; conffile_print.c prints them.
 *
 * One line at a time: the comment ('#' to the end) and the surrounding
 * whitespace go, then a line is a section header or "Key = value".  The
 * parser works on spans of the caller's text and copies only what it keeps
 * (host names, addresses, DNS entries, hooks), so no key is ever copied out
 * of the text into a buffer of its own; conffile_load() wipes the text.
 *
 * wg(8) removes all whitespace from a line, wg-quick(8) only around the key
 * and the value; we do the latter (hooks keep their inner spaces) and split
 * lists at commas and whitespace, which accepts every file either accepts.
 */
#include "daemon/config/conffile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/config/span.h"

const char *conffile_rt_tables = "/etc/iproute2/rt_tables";

/* ---- the model ---- */

void conffile_init(struct conffile *cf)
{
	memset(cf, 0, sizeof(*cf));	/* cf->dev as after config_device_init() too */
}

/* Hooks may name secrets (a key file, a password): wiped too. */
static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		crypto_wipe(v[i], strlen(v[i]));
		free(v[i]);
	}
	free(v);
}

void conffile_clear(struct conffile *cf)
{
	for (size_t i = 0; cf->peers && i < cf->dev.peers_len; i++)
		free(cf->peers[i].endpoint_host);
	free(cf->peers);
	config_device_clear(&cf->dev);
	free(cf->addrs);
	/* The DNS entries, then each hook's commands. */
	for (int h = -1; h < CONFFILE_NHOOKS; h++)
		strv_free(h < 0 ? cf->dns : cf->hooks[h], h < 0 ? cf->dns_len : cf->hooks_len[h]);
	conffile_init(cf);
}

/* ---- parsing ---- */

enum section { SEC_NONE, SEC_INTERFACE, SEC_PEER };

#define SWAP_SIZE(x, y) do { size_t t_ = (x); (x) = (y); (y) = t_; } while (0)

/* A key handler's "p->bad is not a valid value" (errors are negative). */
#define BAD 1

struct parser {
	struct conffile *cf;
	const char *name;
	enum conffile_format fmt;
	unsigned int line;
	enum section sec;
	bool seen_interface;
	bool peer_has_key;	/* the current [Peer] has its PublicKey */
	struct span bad;	/* the value, or the list item, at fault */
	char *err;
	size_t errlen;
};

/*
 * Every name the parser looks for and every text its messages give: the
 * keys as wg(8) and wg-quick(8) spell them, the words some values may be,
 * the section headers, and what a valid value is.  They sit one after
 * another in one struct and are found by their offsets, which come from
 * this list: a table of pointers would cost a relocation each.
 */
#define CONF_TEXTS(X)							\
	/* [Interface], wg's */						\
	X(K_PRIVATE_KEY, "PrivateKey") X(K_LISTEN_PORT, "ListenPort")	\
	X(K_FWMARK, "FwMark")						\
	/* [Interface], wg-quick's */					\
	X(K_ADDRESS, "Address") X(K_MTU, "MTU") X(K_TABLE, "Table")	\
	X(K_DNS, "DNS") X(K_PRE_UP, "PreUp") X(K_POST_UP, "PostUp")	\
	X(K_PRE_DOWN, "PreDown") X(K_POST_DOWN, "PostDown")		\
	X(K_SAVE_CONFIG, "SaveConfig")					\
	/* [Peer] */							\
	X(K_PUBLIC_KEY, "PublicKey") X(K_PRESHARED_KEY, "PresharedKey")	\
	X(K_ENDPOINT, "Endpoint") X(K_ALLOWED_IPS, "AllowedIPs")	\
	X(K_KEEPALIVE, "PersistentKeepalive")				\
	/* words */							\
	X(W_OFF, "off") X(W_AUTO, "auto") X(W_FALSE, "false") X(W_TRUE, "true") \
	/* section headers */						\
	X(S_INTERFACE, "[Interface]") X(S_PEER, "[Peer]")		\
	/* valid values, for messages */				\
	X(V_KEY, "a 44-character base64 key") X(V_PORT, "0 to 65535")	\
	X(V_FWMARK, "off or a 32-bit number")				\
	X(V_PREFIXES, "IP addresses with optional /prefix lengths")	\
	X(V_MTU, "68 to 65535")						\
	X(V_TABLE, "auto, off, a number or a name in iproute2's rt_tables") \
	X(V_DNS, "IP addresses and domain names") X(V_ANY, "")		\
	X(V_BOOL, "true or false")					\
	X(V_ENDPOINT, "host:port, IPv4:port or [IPv6]:port")		\
	X(V_KEEPALIVE, "off or 0 to 65535")

#define CONF_TEXT_ENUM(e, s) e,
#define CONF_TEXT_FIELD(e, s) char e[sizeof(s)];
#define CONF_TEXT_STRING(e, s) s,
#define CONF_TEXT_OFFSET(e, s) offsetof(struct conf_texts, e),

enum conf_text { CONF_TEXTS(CONF_TEXT_ENUM) };
static const struct conf_texts { CONF_TEXTS(CONF_TEXT_FIELD) } conf_texts = {
	CONF_TEXTS(CONF_TEXT_STRING)
};
static const uint16_t conf_text_offsets[] = { CONF_TEXTS(CONF_TEXT_OFFSET) };

#define K_COUNT W_OFF
#define W_COUNT S_INTERFACE

static const char *text(unsigned int t)
{
	return (const char *)&conf_texts + conf_text_offsets[t];
}

/* The hooks' keys are listed in enum conffile_hook's order. */
_Static_assert(K_POST_UP - K_PRE_UP == CONFFILE_POST_UP && K_PRE_DOWN - K_PRE_UP == CONFFILE_PRE_DOWN &&
	       K_POST_DOWN - K_PRE_UP == CONFFILE_POST_DOWN, "hook keys out of order");

const char *conffile_hook_key(enum conffile_hook h)
{
	return text(K_PRE_UP + (unsigned int)h);
}

/* What a valid value of each key is; hooks take any value. */
static const uint8_t key_valid[K_COUNT] = {
	V_KEY, V_PORT, V_FWMARK,
	V_PREFIXES, V_MTU, V_TABLE, V_DNS, V_ANY, V_ANY, V_ANY, V_ANY, V_BOOL,
	V_KEY, V_KEY, V_ENDPOINT, V_PREFIXES, V_KEEPALIVE,
};

static int perr(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "NAME:LINE: message"; always -EINVAL. */
static int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%u: ", p->name, p->line);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static struct span trim(struct span s)
{
	while (s.len && is_space(s.p[0])) {
		s.p++;
		s.len--;
	}
	while (s.len && is_space(s.p[s.len - 1]))
		s.len--;
	return s;
}

/* A value quoted in a message: at most 64 bytes of it. */
#define SHOW(s) (int)((s).len < 64 ? (s).len : 64), (s).p

/* The text of first..end-1 that s is (without regard to case), end if none. */
static unsigned int find_name(struct span s, unsigned int first, unsigned int end)
{
	unsigned int i = first;

	while (i < end && !span_eq_nocase(s, text(i)))
		i++;
	return i;
}

/* The next list item of *rest, items separated by commas and whitespace. */
static bool next_item(struct span *rest, struct span *item)
{
	size_t i = 0;

	while (i < rest->len && (rest->p[i] == ',' || is_space(rest->p[i])))
		i++;
	item->p = rest->p + i;
	while (i < rest->len && rest->p[i] != ',' && !is_space(rest->p[i]))
		i++;
	item->len = (size_t)(rest->p + i - item->p);
	rest->p += i;
	rest->len -= i;
	return item->len > 0;
}

/* A host name as getaddrinfo() would look it up: letters, digits, '-', '.', '_'. */
static bool is_host_name(struct span h)
{
	if (h.len == 0 || h.len > 253)
		return false;
	for (size_t i = 0; i < h.len; i++) {
		unsigned char c = (unsigned char)h.p[i];

		if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9') &&
		    c != '-' && c != '.' && c != '_')
			return false;
	}
	return true;
}

/* Appends a copy of s to the string vector *v of *n entries. */
static int strv_add(char ***v, size_t *n, struct span s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strndup(s.p, s.len);
	return nv[*n] ? (int)(++*n, 0) : -ENOMEM;
}

/* Address, DNS or AllowedIPs: every item of v.  An empty AllowedIPs is a
 * peer without any, as wg(8) takes it; the others need one at least. */
static int parse_list(struct parser *p, enum conf_text k, struct span v)
{
	struct conffile *cf = p->cf;
	struct span item;
	bool any = k == K_ALLOWED_IPS;
	int ret = 0;

	while (!ret && next_item(&v, &item)) {
		struct config_allowedip aip = { 0 };
		struct conffile_addr *na;
		char buf[INET6_ADDRSTRLEN];

		any = true;
		p->bad = item;
		if (k == K_DNS) {
			/* Stored as written; resolvconf gets servers and domains. */
			if (!is_host_name(item) && (!span_copy(buf, sizeof(buf), item) ||
			    inet_pton(AF_INET6, buf, aip.addr) != 1))
				return BAD;
			ret = strv_add(&cf->dns, &cf->dns_len, item);
			continue;
		}
		aip.family = (uint8_t)span_prefix(item, false, aip.addr, &aip.cidr);
		if (aip.family == AF_UNSPEC)
			return BAD;
		if (k == K_ALLOWED_IPS) {
			config_allowedip_mask(&aip);
			ret = config_peer_add_allowedip(&cf->dev.peers[cf->dev.peers_len - 1], &aip);
			continue;
		}
		na = realloc(cf->addrs, (cf->addrs_len + 1) * sizeof(*na));
		if (!na)
			return -ENOMEM;
		cf->addrs = na;
		na += cf->addrs_len++;
		na->family = aip.family;
		na->prefixlen = aip.cidr;
		memcpy(na->addr, aip.addr, sizeof(na->addr));
	}
	return ret ? ret : any ? 0 : BAD;
}

/* A table name of iproute2's rt_tables file ("NUMBER NAME" lines). */
static bool lookup_rt_table(struct span name, uint32_t *id)
{
	FILE *f = fopen(conffile_rt_tables, "re");
	char line[256];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		struct span rest = { line, strcspn(line, "#\n") }, num, nm;
		uint64_t n;

		if (next_item(&rest, &num) && next_item(&rest, &nm) &&
		    nm.len == name.len && memcmp(nm.p, name.p, name.len) == 0 &&
		    span_num(num, true, UINT32_MAX, &n)) {
			*id = (uint32_t)n;
			found = true;
		}
	}
	if (f)
		fclose(f);
	return found;
}

/* auto, off, a table number (num, n), or its name: iproute2's built-in
 * ones (default 253, main 254, local 255) or one of rt_tables. */
static int parse_table(struct conffile *cf, struct span v, unsigned int w, bool num, uint32_t n)
{
	static const char *const names[] = { "default", "main", "local" };

	cf->table = w == W_AUTO ? CONFFILE_TABLE_AUTO :
		    w == W_OFF ? CONFFILE_TABLE_OFF : CONFFILE_TABLE_ID;
	cf->table_id = n;
	if (cf->table == CONFFILE_TABLE_ID && !num) {
		for (uint32_t i = 0; i < 3; i++)
			if (span_eq(v, names[i]))
				cf->table_id = 253 + i;
		if (!cf->table_id)
			lookup_rt_table(v, &cf->table_id);
	}
	return cf->table != CONFFILE_TABLE_ID || cf->table_id ? 0 : BAD;
}

/* A numeric address (with an IPv6 scope) into ep; false if not numeric. */
static bool numeric_host(const char *host, int family, uint16_t port, union config_endpoint *ep)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_family = family,
				  .ai_socktype = SOCK_DGRAM };
	struct addrinfo *res;
	bool ok;

	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return false;
	ok = res->ai_addrlen <= sizeof(*ep);
	if (ok) {
		memset(ep, 0, sizeof(*ep));
		memcpy(ep, res->ai_addr, res->ai_addrlen);
		/* sin_port and sin6_port are at the same offset. */
		ep->in.sin_port = htons(port);
	}
	freeaddrinfo(res);
	return ok;
}

int conffile_endpoint(struct span v, union config_endpoint *ep, struct span *host,
		      uint16_t *port)
{
	int family = span_endpoint(v, host, port);
	char buf[256];

	if (family == AF_UNSPEC || !span_copy(buf, sizeof(buf), *host))
		return -EINVAL;
	if (numeric_host(buf, family, *port, ep))
		return 0;
	return family == AF_INET && is_host_name(*host) ? 1 : -EINVAL;
}

/* A numeric endpoint goes into the model, a name is left to the caller. */
static int parse_endpoint(struct conffile *cf, struct span v)
{
	size_t i = cf->dev.peers_len - 1;
	struct config_peer *peer = &cf->dev.peers[i];
	struct conffile_peer *cp = &cf->peers[i];
	struct span host;
	uint16_t port;
	int ret = conffile_endpoint(v, &peer->endpoint, &host, &port);

	if (ret < 0)
		return BAD;
	peer->flags &= ~CONFIG_PEER_HAS_ENDPOINT;
	peer->flags |= ret == 0 ? CONFIG_PEER_HAS_ENDPOINT : 0;
	cp->endpoint_is_name = ret == 1;
	free(cp->endpoint_host);
	cp->endpoint_host = strndup(host.p, host.len);	/* a line holds no NUL */
	cp->endpoint_port = port;
	return cp->endpoint_host ? 0 : -ENOMEM;
}

/* One key's value into the model: 0, BAD or -ENOMEM. */
static int parse_key(struct parser *p, enum conf_text k, struct span v)
{
	struct conffile *cf = p->cf;
	struct config_device *dev = &cf->dev;
	struct config_peer *peer = dev->peers_len ? &dev->peers[dev->peers_len - 1] : NULL;
	/* The numbers and words that values may be, read once for the keys
	 * that take them (never a key's or a hook's text: those may be
	 * secret, and the number's digit loop branches on every byte).
	 * FwMark and Table may be hexadecimal, up to 32 bits; the others'
	 * numbers are decimal, up to 65535.  "off" is 0. */
	bool hex = k == K_FWMARK || k == K_TABLE;
	unsigned int w = W_COUNT;
	uint64_t n = 0;
	bool num = false;
	uint8_t *key;

	if ((1u << k) & (1u << K_LISTEN_PORT | 1u << K_FWMARK | 1u << K_MTU | 1u << K_TABLE |
			 1u << K_SAVE_CONFIG | 1u << K_KEEPALIVE)) {
		w = find_name(v, W_OFF, W_COUNT);
		num = span_num(v, hex, hex ? UINT32_MAX : 65535, &n);
	}

	switch (k) {
	case K_PRIVATE_KEY:
		dev->flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
		key = dev->private_key;
		break;
	case K_LISTEN_PORT:
		dev->flags |= CONFIG_DEVICE_HAS_LISTEN_PORT;
		dev->listen_port = (uint16_t)n;
		return num ? 0 : BAD;
	case K_FWMARK:
		dev->flags |= CONFIG_DEVICE_HAS_FWMARK;
		dev->fwmark = (uint32_t)n;
		return num || w == W_OFF ? 0 : BAD;
	case K_MTU:
		cf->mtu = (unsigned int)n;
		return num && n >= 68 ? 0 : BAD;
	case K_TABLE:
		return parse_table(cf, v, w, num, (uint32_t)n);
	case K_PRE_UP:
	case K_POST_UP:
	case K_PRE_DOWN:
	case K_POST_DOWN:
		return strv_add(&cf->hooks[k - K_PRE_UP], &cf->hooks_len[k - K_PRE_UP], v);
	case K_SAVE_CONFIG:
		cf->save_config = w == W_TRUE;
		return w == W_TRUE || w == W_FALSE ? 0 : BAD;
	case K_PUBLIC_KEY:
		p->peer_has_key = true;
		key = peer->public_key;
		break;
	case K_PRESHARED_KEY:
		peer->flags |= CONFIG_PEER_HAS_PRESHARED_KEY;
		key = peer->preshared_key;
		break;
	case K_ENDPOINT:
		return parse_endpoint(cf, v);
	case K_KEEPALIVE:
		peer->flags |= CONFIG_PEER_HAS_KEEPALIVE;
		peer->persistent_keepalive = (uint16_t)n;
		return num || w == W_OFF ? 0 : BAD;
	default:
		return parse_list(p, k, v);
	}
	return conffile_key_from_base64(key, v.p, v.len) ? 0 : BAD;
}

static int end_peer(struct parser *p)
{
	if (p->sec == SEC_PEER && !p->peer_has_key) {
		p->line = p->cf->peers[p->cf->dev.peers_len - 1].line;
		return perr(p, "[Peer] without PublicKey");
	}
	return 0;
}

/* A [Peer] header: a new peer in the model and its conffile_peer beside it
 * (cf->peers always has dev.peers_cap entries). */
static int start_peer(struct parser *p)
{
	struct conffile *cf = p->cf;
	size_t cap = cf->dev.peers_cap;
	struct config_peer *peer = config_device_add_peer(&cf->dev, NULL);

	if (!peer)
		return -ENOMEM;
	if (cf->dev.peers_cap != cap) {
		struct conffile_peer *n = realloc(cf->peers, cf->dev.peers_cap * sizeof(*n));

		if (!n) {
			cf->dev.peers_len--;	/* keeps conffile_clear() in bounds */
			return -ENOMEM;
		}
		memset(n + cap, 0, (cf->dev.peers_cap - cap) * sizeof(*n));
		cf->peers = n;
	}
	/* A file states a peer's whole set of allowed IPs. */
	peer->flags |= CONFIG_PEER_REPLACE_ALLOWEDIPS;
	cf->peers[cf->dev.peers_len - 1].line = p->line;
	p->peer_has_key = false;
	p->sec = SEC_PEER;
	return 0;
}

static int parse_section(struct parser *p, struct span s)
{
	int ret = end_peer(p);

	if (ret)
		return ret;
	switch (find_name(s, S_INTERFACE, S_PEER + 1)) {
	case S_PEER:
		return start_peer(p);
	case S_PEER + 1:
		return perr(p, "unknown section `%.*s'", SHOW(s));
	}
	if (p->seen_interface)
		return perr(p, "a second [Interface]");
	p->seen_interface = true;
	p->sec = SEC_INTERFACE;
	return 0;
}

static int parse_line(struct parser *p, struct span s)
{
	const char *hash = memchr(s.p, '#', s.len);
	const char *eq, *why = NULL;
	struct span key, v;
	unsigned int k;
	int ret;

	if (hash)
		s.len = (size_t)(hash - s.p);
	s = trim(s);
	if (s.len == 0)
		return 0;
	if (memchr(s.p, '\0', s.len))
		return perr(p, "NUL byte in the line");
	if (s.p[0] == '[')
		return parse_section(p, s);
	eq = memchr(s.p, '=', s.len);
	if (!eq)
		return perr(p, "not a [Section] nor Key = value");
	key = trim((struct span){ s.p, (size_t)(eq - s.p) });
	v = trim((struct span){ eq + 1, (size_t)(s.p + s.len - eq - 1) });
	k = find_name(key, 0, K_COUNT);
	if (k == K_COUNT) {
		/* Only the first word: "PrivateKey <key>=" must not print the key. */
		for (key.len = 0; !is_space(key.p[key.len]) && key.p + key.len < eq; key.len++)
			;
		return perr(p, "unknown key `%.*s'", SHOW(key));
	}
	if (p->sec == SEC_NONE)
		why = "before any section";
	else if ((p->sec == SEC_PEER) != (k >= K_PUBLIC_KEY))
		why = p->sec == SEC_PEER ? "is not a [Peer] key" : "is not an [Interface] key";
	else if (p->fmt == CONFFILE_WG && k >= K_ADDRESS && k <= K_SAVE_CONFIG)
		why = "is a wg-quick key, not one of wg's";
	else if (v.len == 0 && k != K_ALLOWED_IPS)
		why = "without a value";
	if (why)
		return perr(p, "%s %s", text(k), why);
	p->bad = v;
	ret = parse_key(p, k, v);
	if (ret != BAD)
		return ret;
	if (k == K_PRIVATE_KEY || k == K_PRESHARED_KEY)
		return perr(p, "invalid %s (%s)", text(k), text(key_valid[k]));
	return perr(p, "invalid %s `%.*s' (%s)", text(k), SHOW(p->bad), text(key_valid[k]));
}

/*
 * A later [Peer] with the PublicKey of an earlier one (to) is applied to
 * it, as the kernel and wireguard-go apply wg's set of the two: what the
 * later one gives replaces what the earlier one gave, and its AllowedIPs
 * (none, if it has none) replace the earlier ones, since every [Peer]
 * states its whole list.
 */
static void merge_peer(struct conffile *cf, size_t to, size_t from)
{
	struct config_peer *a = &cf->dev.peers[to], *b = &cf->dev.peers[from];
	struct conffile_peer *ca = &cf->peers[to], *cb = &cf->peers[from];
	struct config_allowedip *aips = a->allowedips;

	if (b->flags & CONFIG_PEER_HAS_PRESHARED_KEY)
		crypto_copy32(a->preshared_key, b->preshared_key);
	if (b->flags & CONFIG_PEER_HAS_KEEPALIVE)
		a->persistent_keepalive = b->persistent_keepalive;
	a->flags |= b->flags & (CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_KEEPALIVE);
	if (cb->endpoint_host) {
		a->endpoint = b->endpoint;
		a->flags = (a->flags & ~CONFIG_PEER_HAS_ENDPOINT) | (b->flags & CONFIG_PEER_HAS_ENDPOINT);
		free(ca->endpoint_host);
		ca->endpoint_host = cb->endpoint_host;
		ca->endpoint_port = cb->endpoint_port;
		ca->endpoint_is_name = cb->endpoint_is_name;
		cb->endpoint_host = NULL;
	}
	/* Swapped: b's clearing frees a's old list. */
	a->allowedips = b->allowedips;
	b->allowedips = aips;
	SWAP_SIZE(a->allowedips_len, b->allowedips_len);
	SWAP_SIZE(a->allowedips_cap, b->allowedips_cap);
}

/* By public key, then by place in the file. */
static int peer_key_place(const void *x, const void *y)
{
	const struct config_peer *a = *(const struct config_peer *const *)x;
	const struct config_peer *b = *(const struct config_peer *const *)y;
	int c = memcmp(a->public_key, b->public_key, CONFIG_KEY_LEN);

	return c ? c : (a > b) - (a < b);
}

/* Drops the peers marked in gone (wiped), keeping the others' order. */
static void drop_peers(struct conffile *cf, const bool *gone)
{
	struct config_device *dev = &cf->dev;
	size_t n = 0, len = dev->peers_len;

	for (size_t i = 0; i < len; i++) {
		if (gone[i]) {
			free(dev->peers[i].allowedips);
			crypto_wipe(&dev->peers[i], sizeof(dev->peers[i]));
			continue;
		}
		if (n != i) {
			dev->peers[n] = dev->peers[i];
			cf->peers[n] = cf->peers[i];
		}
		n++;
	}
	/* The tail as the allocation left it: zero (it held keys). */
	crypto_wipe(dev->peers + n, (len - n) * sizeof(*dev->peers));
	memset(cf->peers + n, 0, (len - n) * sizeof(*cf->peers));
	dev->peers_len = n;
}

/* Every PublicKey's [Peer]s made one, at the place of the first (sorted
 * by key: O(n log n), for files with many peers).  0 or -ENOMEM. */
static int merge_same_peers(struct conffile *cf)
{
	size_t n = cf->dev.peers_len, first = 0;
	struct config_peer **v;
	bool *gone, any = false;

	if (n < 2)
		return 0;
	v = calloc(n, sizeof(*v));
	gone = calloc(n, sizeof(*gone));
	if (!v || !gone) {
		free(v);
		free(gone);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = &cf->dev.peers[i];
	qsort(v, n, sizeof(*v), peer_key_place);
	for (size_t i = 1; i < n; i++) {
		if (memcmp(v[first]->public_key, v[i]->public_key, CONFIG_KEY_LEN) != 0) {
			first = i;
			continue;
		}
		merge_peer(cf, (size_t)(v[first] - cf->dev.peers), (size_t)(v[i] - cf->dev.peers));
		gone[v[i] - cf->dev.peers] = any = true;
	}
	if (any)
		drop_peers(cf, gone);
	free(v);
	free(gone);
	return 0;
}

int conffile_parse(struct conffile *cf, const char *name, const char *text, size_t len,
		   enum conffile_format fmt, char *err, size_t errlen)
{
	struct parser p = { .cf = cf, .name = name, .fmt = fmt, .err = err, .errlen = errlen };
	size_t pos = 0;
	int ret = 0;

	if (errlen)
		err[0] = '\0';
	while (!ret && pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		p.line++;
		ret = parse_line(&p, (struct span){ text + pos, n });
		pos += n + 1;
	}
	if (!ret)
		ret = end_peer(&p);
	if (!ret)
		ret = merge_same_peers(cf);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	if (ret)
		conffile_clear(cf);
	return ret;
}

int conffile_load(struct conffile *cf, const char *path, enum conffile_format fmt,
		  unsigned int *mode, char *err, size_t errlen)
{
	/* One byte more than allowed, to see a file that is too large.  The
	 * pages the allocator maps for it are touched only as far as read. */
	char *buf = malloc(CONFFILE_MAX + 1);
	size_t len = 0;
	struct stat st;
	ssize_t n = 1;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0 || fstat(fd, &st) < 0) {
		ret = buf ? -errno : -ENOMEM;
		goto out;
	}
	if (mode)
		*mode = st.st_mode & 07777;
	while (len <= CONFFILE_MAX && n != 0) {
		n = read(fd, buf + len, CONFFILE_MAX + 1 - len);
		if (n < 0 && errno != EINTR) {
			ret = -errno;
			goto out;
		}
		len += n > 0 ? (size_t)n : 0;
	}
	ret = len > CONFFILE_MAX ? -EFBIG : 0;
out:
	if (ret)
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EFBIG ? "larger than " CONFFILE_MAX_TEXT : strerror(-ret));
	else
		ret = conffile_parse(cf, path, buf, len, fmt, err, errlen);
	if (buf) {
		crypto_wipe(buf, len);
		free(buf);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}
