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
 * and the value; we do the latter, and the former in section headers and
 * in the names and single values of wg's keys (hooks keep their inner
 * spaces); lists are split at commas and whitespace.
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

static void pwarn(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A warning through cf->warn, if set. */
static void pwarn(struct parser *p, const char *fmt, ...)
{
	char what[128];
	va_list ap;

	if (!p->cf->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->cf->warn(p->cf->warn_ctx, p->name, p->line, what);
}

static bool has_space(struct span s)
{
	for (size_t i = 0; i < s.len; i++)
		if (is_space(s.p[i]))
			return true;
	return false;
}

/* s without its whitespace, in buf (len bytes); false if it does not fit. */
static bool squeeze(struct span s, char *buf, size_t len, struct span *out)
{
	size_t n = 0;

	for (size_t i = 0; i < s.len; i++) {
		if (is_space(s.p[i]))
			continue;
		if (n == len)
			return false;
		buf[n++] = s.p[i];
	}
	*out = (struct span){ buf, n };
	return true;
}

/* wg's keys, not wg-quick's: wg drops all whitespace from their lines. */
static bool is_wg_key(unsigned int k)
{
	return k <= K_FWMARK || (k >= K_PUBLIC_KEY && k < K_COUNT);
}

/* The key (or section, first..end-1) that name is: as written, or with its
 * whitespace dropped as wg drops it ("Public Key", "[ Peer ]"), for wg's
 * keys and the sections.  The copy is wiped: the name of an unknown key
 * may run into a key ("PrivateKey <key>"). */
static unsigned int name_of(struct span name, unsigned int first, unsigned int end)
{
	char buf[24];
	struct span sq;
	unsigned int k = find_name(name, first, end);

	if (k == end && has_space(name) && squeeze(name, buf, sizeof(buf), &sq)) {
		k = find_name(sq, first, end);
		if (end == K_COUNT && k < K_COUNT && !is_wg_key(k))
			k = K_COUNT;
	}
	crypto_wipe(buf, sizeof(buf));
	return k;
}

/* A ListenPort given as a service name (a word), as wg takes one: its UDP
 * port from the services database; false if there is none. */
static bool service_port(struct span v, uint64_t *port)
{
	const struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM,
					.ai_flags = AI_PASSIVE };
	struct addrinfo *res;
	char buf[64];

	if (!v.len || (v.p[0] | 0x20) < 'a' || (v.p[0] | 0x20) > 'z' ||
	    !span_copy(buf, sizeof(buf), v) || getaddrinfo(NULL, buf, &hints, &res) != 0)
		return false;
	*port = ntohs(((const struct sockaddr_in *)res->ai_addr)->sin_port);
	freeaddrinfo(res);
	return true;
}

/* One AllowedIPs prefix, masked: with wg's warning when it had host bits. */
static int add_allowedip(struct parser *p, struct span item)
{
	struct config_allowedip aip = { 0 };
	uint8_t raw[16];

	aip.family = (uint8_t)span_prefix(item, false, aip.addr, &aip.cidr);
	if (aip.family == AF_UNSPEC)
		return BAD;
	memcpy(raw, aip.addr, sizeof(raw));
	config_allowedip_mask(&aip);
	if (memcmp(raw, aip.addr, sizeof(raw)) != 0)
		pwarn(p, "AllowedIP has nonzero host part: %.*s", SHOW(item));
	return config_peer_add_allowedip(&p->cf->dev.peers[p->cf->dev.peers_len - 1], &aip);
}

/*
 * AllowedIPs: prefixes separated by commas, as wg reads them, or by
 * whitespace.  Whitespace inside a prefix ("10.0.0.0 /8") is dropped, as
 * wg drops it, when the whole then reads as one prefix.  An empty item
 * ("a,", "a,,b") is an error, as for wg.
 */
static int parse_allowedips(struct parser *p, struct span v)
{
	char buf[INET6_ADDRSTRLEN + 4];
	const struct span all = v;
	int ret = 0;

	for (bool more = true; !ret && more;) {
		const char *comma = memchr(v.p, ',', v.len);
		struct span chunk = trim((struct span){ v.p, comma ? (size_t)(comma - v.p) : v.len });
		struct span one, item;

		more = comma != NULL;
		if (more)
			v = (struct span){ comma + 1, v.len - (size_t)(comma + 1 - v.p) };
		if (chunk.len == 0) {
			p->bad = all;
			return BAD;
		}
		if (has_space(chunk) && squeeze(chunk, buf, sizeof(buf), &one) &&
		    span_prefix(one, false, (uint8_t[16]){ 0 }, &(uint8_t){ 0 }) != AF_UNSPEC) {
			ret = add_allowedip(p, one);
			continue;
		}
		while (!ret && next_item(&chunk, &item)) {
			p->bad = item;
			ret = add_allowedip(p, item);
		}
	}
	return ret;
}

/* Address or DNS: every item of v, at least one. */
static int parse_list(struct parser *p, enum conf_text k, struct span v)
{
	struct conffile *cf = p->cf;
	struct span item;
	bool any = false;
	int ret = 0;

	if (k == K_ALLOWED_IPS)
		return parse_allowedips(p, v);
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
		num = span_num(v, hex, hex ? UINT32_MAX : 65535, &n) ||
		      (k == K_LISTEN_PORT && service_port(v, &n));
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

/*
 * The value of key k: whitespace inside the value of one of wg's
 * single-value keys is dropped, as wg drops it ("Endpoint = 1.2.3.4 : 5");
 * p->bad, for messages, stays the value as written.  The copy is wiped (it
 * may be a key; a key's characters are never whitespace, so the test of
 * each takes the same path whatever the key is).
 */
static int parse_value(struct parser *p, enum conf_text k, struct span v)
{
	char buf[256];
	struct span sq;
	int ret;

	if (!is_wg_key(k) || k == K_ALLOWED_IPS || !has_space(v))
		return parse_key(p, k, v);
	ret = squeeze(v, buf, sizeof(buf), &sq) ? parse_key(p, k, sq) : BAD;
	crypto_wipe(buf, sizeof(buf));
	return ret;
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
	switch (name_of(s, S_INTERFACE, S_PEER + 1)) {
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
	k = name_of(key, 0, K_COUNT);
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
	else if (v.len == 0)
		why = "without a value";
	if (why)
		return perr(p, "%s %s", text(k), why);
	p->bad = v;
	ret = parse_value(p, k, v);
	if (ret != BAD)
		return ret;
	if (k == K_PRIVATE_KEY || k == K_PRESHARED_KEY)
		return perr(p, "invalid %s (%s)", text(k), text(key_valid[k]));
	return perr(p, "invalid %s `%.*s' (%s)", text(k), SHOW(p->bad), text(key_valid[k]));
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
		ret = conffile_merge_peers(cf);
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
