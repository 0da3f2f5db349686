/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The text of the cross-platform userspace API (wireguard.com/xplatform
 * "Configuration Protocol"): `set=1` messages in, `get=1` replies out.
 *
 * Lines are `key=value`.  Interface keys come first; every `public_key=`
 * starts a peer section and all later keys belong to that peer.  The parser
 * builds a struct config_device and applies nothing: the device applies a
 * message only after its blank line, when all of it has been validated.
 */
#include "daemon/config/uapi.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "daemon/config/span.h"

/* ---- constant-time hex ---- */

/* '0'..'9', 'a'..'f', 'A'..'F' */
static const struct span_ct_range hex_digits[] = {
	{ '0', '9', -'0' }, { 'a', 'f', 10 - 'a' }, { 'A', 'F', 10 - 'A' },
};

bool uapi_key_from_hex(uint8_t out[CONFIG_KEY_LEN], const char *hex, size_t len)
{
	uint32_t bad = 0;

	/* The length is public: branching on it leaks nothing. */
	if (len != 2 * CONFIG_KEY_LEN) {
		crypto_wipe(out, CONFIG_KEY_LEN);
		return false;
	}
	for (size_t i = 0; i < 2 * CONFIG_KEY_LEN; i++) {
		uint32_t d = span_ct_value((uint8_t)hex[i], hex_digits, 3, &bad);

		out[i / 2] = (uint8_t)(i % 2 ? out[i / 2] | d : d << 4);
	}
	/* Invalid input leaves zeros, by mask rather than by a branch on
	 * secret-derived data; the caller learns only valid/invalid. */
	for (size_t i = 0; i < CONFIG_KEY_LEN; i++)
		out[i] &= (uint8_t)(bad - 1);
	return !bad;
}

/* '0'..'9' for 0..9, 'a'..'f' for 10..15: 'a' - '0' - 10 = 39. */
static char ct_hex_char(uint32_t nibble)
{
	uint32_t is_letter = (9 - nibble) >> 31;

	return (char)(nibble + '0' + (39 & (0u - is_letter)));
}

void uapi_key_to_hex(char out[2 * CONFIG_KEY_LEN], const uint8_t key[CONFIG_KEY_LEN])
{
	for (size_t i = 0; i < CONFIG_KEY_LEN; i++) {
		out[2 * i] = ct_hex_char(key[i] >> 4);
		out[2 * i + 1] = ct_hex_char(key[i] & 0xf);
	}
}

/* ---- values ---- */

/* `[v6]` or `[v6%scope]`, the brackets already removed. */
static int parse_ipv6_host(struct uapi_parser *p, struct span host,
			   struct sockaddr_in6 *sin6)
{
	char buf[INET6_ADDRSTRLEN];
	const char *pct = memchr(host.p, '%', host.len);
	struct span addr = host;
	uint64_t scope = 0;

	if (pct) {
		struct span sc = { pct + 1, host.len - (size_t)(pct + 1 - host.p) };
		char name[IF_NAMESIZE];

		addr.len = (size_t)(pct - host.p);
		if (sc.len == 0)
			return -EINVAL;
		if (!span_num(sc, false, UINT32_MAX, &scope)) {
			/* glibc's getnameinfo() in wg writes the interface
			 * name for a link-local address. */
			if (!span_copy(name, sizeof(name), sc) || !p->scope_index)
				return -EINVAL;
			scope = p->scope_index(name);
			if (scope == 0)
				return -EINVAL;
		}
	}
	if (!span_copy(buf, sizeof(buf), addr) ||
	    inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1)
		return -EINVAL;
	sin6->sin6_family = AF_INET6;
	sin6->sin6_scope_id = (uint32_t)scope;
	return 0;
}

/* `a.b.c.d:port`, `[v6]:port` or `[v6%scope]:port`, numeric only.  An
 * unbracketed address with a ':' in it is an IPv6 one without brackets,
 * which inet_pton(AF_INET) rejects. */
static int parse_endpoint(struct uapi_parser *p, struct span v,
			  union config_endpoint *ep)
{
	struct span host;
	uint16_t port;
	char buf[INET_ADDRSTRLEN];
	int family = span_endpoint(v, &host, &port);

	memset(ep, 0, sizeof(*ep));
	if (family == AF_INET6) {
		if (parse_ipv6_host(p, host, &ep->in6) < 0)
			return -EINVAL;
	} else if (family == AF_UNSPEC || !span_copy(buf, sizeof(buf), host) ||
		   inet_pton(AF_INET, buf, &ep->in.sin_addr) != 1) {
		return -EINVAL;
	}
	ep->addr.sa_family = (sa_family_t)family;
	/* sin_port and sin6_port are at the same offset. */
	ep->in.sin_port = htons(port);
	return 0;
}

/*
 * `ip/cidr` or `-ip/cidr`.  The prefix length is mandatory and has no
 * leading zeros (as Go's netip.ParsePrefix).  Host bits beyond the prefix
 * are accepted and cleared, as the kernel and wireguard-go do when they
 * insert a prefix; wg itself always sends canonical prefixes.
 */
static int parse_allowedip(struct span v, struct config_allowedip *aip)
{
	memset(aip, 0, sizeof(*aip));
	if (v.len > 0 && v.p[0] == '-') {
		aip->remove = true;
		v.p++;
		v.len--;
	}
	aip->family = (uint8_t)span_prefix(v, true, aip->addr, &aip->cidr);
	if (aip->family == AF_UNSPEC)
		return -EINVAL;
	config_allowedip_mask(aip);
	return 0;
}

/* ---- set ---- */

void uapi_parser_init(struct uapi_parser *p, struct config_device *cfg)
{
	p->cfg = cfg;
	p->peer = 0;
	p->err = 0;
	p->line = 0;
	p->err_line = 0;
	p->scope_index = if_nametoindex;
	p->get = false;
}

/* Where a key may appear: the interface's part, a peer's, a peer's in a get
 * reply only (the counters). */
enum key_section { KS_DEVICE, KS_PEER, KS_GET };

enum key_kind {
	KK_KEY,		/* 64 hex digits */
	KK_NUM,		/* decimal, at most nums[] of the key's num */
	KK_TRUE,	/* "true" */
	KK_VERSION,	/* "1": the only protocol version there is */
	KK_ENDPOINT,
	KK_ALLOWEDIP,
};

/* The largest value and the field's width of each KK_NUM key. */
enum key_num { KN_U16, KN_U32, KN_S64, KN_NSEC, KN_U64 };
static const uint64_t num_max[] = { UINT16_MAX, UINT32_MAX, INT64_MAX, 999999999, UINT64_MAX };

/*
 * Every key but public_key, which starts a peer wherever it comes: X(name,
 * field offset, section, kind, flag, num).  The names sit one after another
 * in one struct, found by offsets from this list (a pointer each would
 * cost a relocation each).
 */
#define DEV(f) offsetof(struct config_device, f)
#define PEER(f) offsetof(struct config_peer, f)
#define UAPI_KEYS(X)								\
	X(private_key, DEV(private_key), KS_DEVICE, KK_KEY, CONFIG_DEVICE_HAS_PRIVATE_KEY, 0) \
	X(listen_port, DEV(listen_port), KS_DEVICE, KK_NUM, CONFIG_DEVICE_HAS_LISTEN_PORT, KN_U16) \
	X(fwmark, DEV(fwmark), KS_DEVICE, KK_NUM, CONFIG_DEVICE_HAS_FWMARK, KN_U32) \
	X(replace_peers, 0, KS_DEVICE, KK_TRUE, CONFIG_DEVICE_REPLACE_PEERS, 0) \
	X(remove, 0, KS_PEER, KK_TRUE, CONFIG_PEER_REMOVE, 0)			\
	X(update_only, 0, KS_PEER, KK_TRUE, CONFIG_PEER_UPDATE_ONLY, 0)		\
	X(preshared_key, PEER(preshared_key), KS_PEER, KK_KEY, CONFIG_PEER_HAS_PRESHARED_KEY, 0) \
	X(endpoint, PEER(endpoint), KS_PEER, KK_ENDPOINT, CONFIG_PEER_HAS_ENDPOINT, 0) \
	X(persistent_keepalive_interval, PEER(persistent_keepalive), KS_PEER, KK_NUM, \
	  CONFIG_PEER_HAS_KEEPALIVE, KN_U16)					\
	X(replace_allowed_ips, 0, KS_PEER, KK_TRUE, CONFIG_PEER_REPLACE_ALLOWEDIPS, 0) \
	X(allowed_ip, 0, KS_PEER, KK_ALLOWEDIP, 0, 0)				\
	X(protocol_version, 0, KS_PEER, KK_VERSION, 0, 0)			\
	X(last_handshake_time_sec, PEER(last_handshake_sec), KS_GET, KK_NUM, 0, KN_S64) \
	X(last_handshake_time_nsec, PEER(last_handshake_nsec), KS_GET, KK_NUM, 0, KN_NSEC) \
	X(rx_bytes, PEER(rx_bytes), KS_GET, KK_NUM, 0, KN_U64)			\
	X(tx_bytes, PEER(tx_bytes), KS_GET, KK_NUM, 0, KN_U64)

struct key_def {
	uint16_t name;		/* offset in struct key_names */
	uint16_t off;		/* of the field in config_device or config_peer */
	uint8_t section;	/* enum key_section */
	uint8_t kind;		/* enum key_kind */
	uint8_t flag;		/* the CONFIG_DEVICE_* or CONFIG_PEER_* it sets */
	uint8_t num;		/* enum key_num, for KK_NUM */
};

#define KEY_NAME_FIELD(name, ...) char name[sizeof(#name)];
#define KEY_NAME(name, ...) #name,
#define KEY_DEF(name, off, section, kind, flag, num)				\
	{ offsetof(struct key_names, name), off, section, kind, flag, num },

static const struct key_names { UAPI_KEYS(KEY_NAME_FIELD) } key_names = { UAPI_KEYS(KEY_NAME) };
static const struct key_def key_defs[] = { UAPI_KEYS(KEY_DEF) };

static int parse_public_key(struct uapi_parser *p, struct span v)
{
	uint8_t key[CONFIG_KEY_LEN];

	if (!uapi_key_from_hex(key, v.p, v.len))
		return -EINVAL;
	if (!config_device_add_peer(p->cfg, key))
		return -ENOMEM;
	p->peer = p->cfg->peers_len;
	return 0;
}

/* The value of key k into the device (no peer yet) or the current peer,
 * base, whose flags are *flags. */
static int parse_value(struct uapi_parser *p, const struct key_def *k, struct span v,
		       uint8_t *base, uint32_t *flags)
{
	void *field = base + k->off;
	struct config_allowedip aip;
	uint64_t n;

	switch (k->kind) {
	case KK_KEY:
		/* All zeros is valid: in a set it removes the key; in a get
		 * reply, as printed, it means none. */
		if (!uapi_key_from_hex(field, v.p, v.len))
			return -EINVAL;
		if (p->get && crypto_is_zero(field, CONFIG_KEY_LEN))
			*flags &= ~(uint32_t)k->flag;
		else
			*flags |= k->flag;
		return 0;
	case KK_NUM:
		if (!span_num(v, false, num_max[k->num], &n))
			return -EINVAL;
		if (k->num == KN_U16)
			*(uint16_t *)field = (uint16_t)n;
		else if (k->num == KN_U32)
			*(uint32_t *)field = (uint32_t)n;
		else
			*(uint64_t *)field = n;	/* int64_t fields take the same bits */
		break;
	case KK_TRUE:
	case KK_VERSION:
		if (!span_eq(v, k->kind == KK_TRUE ? "true" : "1"))
			return -EINVAL;
		break;
	case KK_ENDPOINT:
		if (parse_endpoint(p, v, field) < 0)
			return -EINVAL;
		break;
	default:
		if (parse_allowedip(v, &aip) < 0)
			return -EINVAL;
		return config_peer_add_allowedip((struct config_peer *)base, &aip);
	}
	*flags |= k->flag;
	return 0;
}

static int parse_line(struct uapi_parser *p, const char *line, size_t len)
{
	const char *eq;
	struct span key, v;
	struct config_peer *peer;

	if (len == 0)
		return -EPROTO;
	if (len > UAPI_LINE_MAX || memchr(line, '\0', len))
		return -EINVAL;
	eq = memchr(line, '=', len);
	if (!eq)
		return -EPROTO;
	key = (struct span){ line, (size_t)(eq - line) };
	v = (struct span){ eq + 1, len - key.len - 1 };

	if (span_eq(key, "public_key"))
		return parse_public_key(p, v);
	for (size_t i = 0; i < sizeof(key_defs) / sizeof(key_defs[0]); i++) {
		const struct key_def *k = &key_defs[i];

		if (!span_eq(key, (const char *)&key_names + k->name))
			continue;
		/* Interface keys before the first public_key, peer keys after
		 * it, the counters in a get reply only. */
		if (p->peer == 0 ? k->section != KS_DEVICE :
		    k->section != KS_PEER && (k->section != KS_GET || !p->get))
			break;
		peer = p->peer ? &p->cfg->peers[p->peer - 1] : NULL;
		return parse_value(p, k, v, peer ? (uint8_t *)peer : (uint8_t *)p->cfg,
				   peer ? &peer->flags : &p->cfg->flags);
	}
	/* An unknown key, or one out of its place: a get reply's are skipped,
	 * as wg skips them, so that newer daemons' keys do not break older
	 * clients. */
	return p->get ? 0 : -EINVAL;
}

int uapi_parse_set_line(struct uapi_parser *p, const char *line, size_t len)
{
	p->line++;
	if (p->err == 0) {
		p->err = parse_line(p, line, len);
		if (p->err)
			p->err_line = p->line;
	}
	return p->err;
}

/*
 * A public key named twice is two entries, applied in order, as the kernel
 * and wireguard-go apply them: `peer X remove peer X allowed-ips ...`
 * resets a peer in one message (config.h).
 */
int uapi_parse_set_finish(struct uapi_parser *p)
{
	return p->err;
}

int uapi_parse_set(struct config_device *cfg, const char *msg, size_t len)
{
	struct uapi_parser p;
	size_t pos = 0;

	uapi_parser_init(&p, cfg);
	while (pos < len) {
		const char *nl = memchr(msg + pos, '\n', len - pos);
		size_t n;

		if (!nl)
			return -EPROTO;	/* the last line is unterminated */
		n = (size_t)(nl - (msg + pos));
		if (n == 0) {
			/* The blank line ends the message; nothing may follow. */
			if (pos + 1 != len)
				return -EINVAL;
			return uapi_parse_set_finish(&p);
		}
		if (uapi_parse_set_line(&p, msg + pos, n) < 0)
			return p.err;
		pos += n + 1;
	}
	return -EPROTO;		/* no blank line */
}

/* ---- get replies ---- */

/* "errno=N" of a reply: N or -N (wireguard-go writes -N) means error N. */
static int parse_reply_errno(struct span v)
{
	uint64_t n;

	if (v.len > 0 && v.p[0] == '-') {
		v.p++;
		v.len--;
	}
	if (!span_num(v, false, INT32_MAX, &n))
		return -EPROTO;
	return -(int)n;
}

int uapi_parse_get(struct config_device *cfg, const char *msg, size_t len)
{
	struct uapi_parser p;
	size_t pos = 0;

	uapi_parser_init(&p, cfg);
	p.get = true;
	while (pos < len) {
		const char *line = msg + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n;

		if (!nl)
			return -EPROTO;
		n = (size_t)(nl - line);
		pos += n + 1;
		if (n >= 6 && memcmp(line, "errno=", 6) == 0) {
			/* The last line: only the blank line may follow. */
			if (pos + 1 != len || msg[pos] != '\n')
				return -EPROTO;
			return parse_reply_errno((struct span){ line + 6, n - 6 });
		}
		if (uapi_parse_set_line(&p, line, n) < 0)
			return -EPROTO;
	}
	return -EPROTO;		/* no errno line */
}

/* ---- the socket ---- */

const char *uapi_run_dir(const char *run_dir)
{
	if (!run_dir)
		run_dir = getenv("WGD_RUN_DIR");
	return run_dir && *run_dir ? run_dir : UAPI_RUN_DIR;
}

int uapi_socket_path(char *path, size_t len, const char *dir, const char *ifname)
{
	size_t n = strlen(ifname);
	int ret;

	if (n == 0 || n >= IF_NAMESIZE || strchr(ifname, '/') || !strcmp(ifname, ".") ||
	    !strcmp(ifname, ".."))
		return -EINVAL;
	ret = snprintf(path, len, "%s/%s" UAPI_SOCK_SUFFIX, dir, ifname);
	return ret < 0 || (size_t)ret >= len ? -ENAMETOOLONG : 0;
}

/* ---- buffer ---- */

void uapi_buf_init(struct uapi_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void uapi_buf_clear(struct uapi_buf *b)
{
	if (b->data) {
		crypto_wipe(b->data, b->cap);
		free(b->data);
	}
	uapi_buf_init(b);
}

void uapi_buf_consume(struct uapi_buf *b, size_t n)
{
	if (n >= b->len) {
		if (b->data)
			crypto_wipe(b->data, b->len);
		b->len = 0;
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	crypto_wipe(b->data + b->len - n, n);
	b->len -= n;
}

/* Room for n more bytes.  Not realloc(): the old block may hold a private
 * key, so it is wiped before it is freed. */
static int buf_reserve(struct uapi_buf *b, size_t n)
{
	size_t cap;
	char *data;

	if (n <= b->cap - b->len)
		return 0;
	if (n > SIZE_MAX / 2 - b->len)
		return -ENOMEM;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < n)
		cap *= 2;
	data = malloc(cap);
	if (!data)
		return -ENOMEM;
	if (b->data) {
		memcpy(data, b->data, b->len);
		crypto_wipe(b->data, b->cap);
		free(b->data);
	}
	b->data = data;
	b->cap = cap;
	return 0;
}

int uapi_buf_append(struct uapi_buf *b, const void *data, size_t n)
{
	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->data + b->len, data, n);
	b->len += n;
	return 0;
}

static int buf_printf(struct uapi_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int buf_printf(struct uapi_buf *b, const char *fmt, ...)
{
	char line[256];		/* a peer's counters are 187 bytes at most */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Every line we print is short; a longer one is a bug, not input. */
	if (n < 0 || (size_t)n >= sizeof(line))
		return -EINVAL;
	if (buf_reserve(b, (size_t)n) < 0)
		return -ENOMEM;
	memcpy(b->data + b->len, line, (size_t)n);
	b->len += (size_t)n;
	return 0;
}

/* "name=<64 hex>\n", encoded straight into the buffer so that no stack
 * copy of a secret key's hex is left behind. */
static int buf_key(struct uapi_buf *b, const char *name, const uint8_t key[CONFIG_KEY_LEN])
{
	size_t n = strlen(name);

	if (buf_reserve(b, n + 2 + 2 * CONFIG_KEY_LEN) < 0)
		return -ENOMEM;
	memcpy(b->data + b->len, name, n);
	b->data[b->len + n] = '=';
	uapi_key_to_hex(b->data + b->len + n + 1, key);
	b->data[b->len + n + 1 + 2 * CONFIG_KEY_LEN] = '\n';
	b->len += n + 2 + 2 * CONFIG_KEY_LEN;
	return 0;
}

/* ---- get ---- */

/* `a.b.c.d:port`, `[v6]:port` or `[v6%scope]:port`.  A numeric scope: wg's
 * getaddrinfo(AI_NUMERICHOST) takes it and wg show prints it back as the
 * interface name.  "%.0u" of a zero scope prints nothing. */
static int print_endpoint(struct uapi_buf *b, const union config_endpoint *ep)
{
	char host[INET6_ADDRSTRLEN];
	bool v6 = ep->addr.sa_family == AF_INET6;
	uint32_t scope = v6 ? ep->in6.sin6_scope_id : 0;

	if (!v6 && ep->addr.sa_family != AF_INET)
		return 0;	/* no endpoint known */
	if (!inet_ntop(ep->addr.sa_family, v6 ? (const void *)&ep->in6.sin6_addr :
		       (const void *)&ep->in.sin_addr, host, sizeof(host)))
		return -EINVAL;
	/* sin_port and sin6_port are at the same offset. */
	return buf_printf(b, "endpoint=%s%s%s%.0" PRIu32 "%s:%u\n", v6 ? "[" : "", host,
			  scope ? "%" : "", scope, v6 ? "]" : "", ntohs(ep->in.sin_port));
}

static int print_allowedip(struct uapi_buf *b, const struct config_allowedip *aip)
{
	char host[INET6_ADDRSTRLEN];

	if ((aip->family != AF_INET && aip->family != AF_INET6) ||
	    !inet_ntop(aip->family, aip->addr, host, sizeof(host)))
		return -EINVAL;
	return buf_printf(b, "allowed_ip=%s%s/%u\n", aip->remove ? "-" : "", host, aip->cidr);
}

/* wireguard-go's order (device/uapi.go IpcGetOperation), line for line. */
static int print_peer(struct uapi_buf *b, const struct config_peer *peer)
{
	static const uint8_t zero[CONFIG_KEY_LEN];
	bool has_psk = peer->flags & CONFIG_PEER_HAS_PRESHARED_KEY;
	int ret;

	ret = buf_key(b, "public_key", peer->public_key);
	if (!ret)
		ret = buf_key(b, "preshared_key", has_psk ? peer->preshared_key : zero);
	if (!ret)
		ret = buf_printf(b, "protocol_version=1\n");
	if (!ret && (peer->flags & CONFIG_PEER_HAS_ENDPOINT))
		ret = print_endpoint(b, &peer->endpoint);
	if (!ret)
		ret = buf_printf(b, "last_handshake_time_sec=%" PRId64 "\n"
				 "last_handshake_time_nsec=%" PRId64 "\n"
				 "tx_bytes=%" PRIu64 "\nrx_bytes=%" PRIu64 "\n"
				 "persistent_keepalive_interval=%u\n",
				 peer->last_handshake_sec, peer->last_handshake_nsec,
				 peer->tx_bytes, peer->rx_bytes, peer->persistent_keepalive);
	for (size_t i = 0; !ret && i < peer->allowedips_len; i++)
		ret = print_allowedip(b, &peer->allowedips[i]);
	return ret;
}

static int print_device(struct uapi_buf *b, const struct config_device *dev)
{
	int ret = 0;

	if ((dev->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) &&
	    !crypto_is_zero(dev->private_key, CONFIG_KEY_LEN))
		ret = buf_key(b, "private_key", dev->private_key);
	if (!ret && dev->listen_port)
		ret = buf_printf(b, "listen_port=%u\n", dev->listen_port);
	if (!ret && dev->fwmark)
		ret = buf_printf(b, "fwmark=%" PRIu32 "\n", dev->fwmark);
	for (size_t i = 0; !ret && i < dev->peers_len; i++)
		ret = print_peer(b, &dev->peers[i]);
	if (!ret)
		ret = buf_printf(b, "errno=0\n\n");
	return ret;
}

/* print(b, dev) appended whole, or b left as it was: what was appended
 * before a failure may hold a key, so it is wiped. */
static int print_whole(struct uapi_buf *b, const struct config_device *dev,
		       int (*print)(struct uapi_buf *, const struct config_device *))
{
	size_t start = b->len;
	int ret = print(b, dev);

	if (ret < 0 && b->data) {
		crypto_wipe(b->data + start, b->len - start);
		b->len = start;
	}
	return ret;
}

int uapi_print_get(struct uapi_buf *b, const struct config_device *dev)
{
	return print_whole(b, dev, print_device);
}

/* ---- set (the client's side) ---- */

static int print_set_peer(struct uapi_buf *b, const struct config_peer *peer)
{
	int ret = buf_key(b, "public_key", peer->public_key);

	if (!ret && (peer->flags & CONFIG_PEER_REMOVE))
		return buf_printf(b, "remove=true\n");
	if (!ret && (peer->flags & CONFIG_PEER_UPDATE_ONLY))
		ret = buf_printf(b, "update_only=true\n");
	if (!ret && (peer->flags & CONFIG_PEER_HAS_PRESHARED_KEY))
		ret = buf_key(b, "preshared_key", peer->preshared_key);
	if (!ret && (peer->flags & CONFIG_PEER_HAS_ENDPOINT))
		ret = print_endpoint(b, &peer->endpoint);
	if (!ret && (peer->flags & CONFIG_PEER_HAS_KEEPALIVE))
		ret = buf_printf(b, "persistent_keepalive_interval=%u\n",
				 peer->persistent_keepalive);
	if (!ret && (peer->flags & CONFIG_PEER_REPLACE_ALLOWEDIPS))
		ret = buf_printf(b, "replace_allowed_ips=true\n");
	for (size_t i = 0; !ret && i < peer->allowedips_len; i++)
		ret = print_allowedip(b, &peer->allowedips[i]);
	return ret;
}

static int print_set(struct uapi_buf *b, const struct config_device *dev)
{
	int ret = buf_printf(b, "set=1\n");

	if (!ret && (dev->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY))
		ret = buf_key(b, "private_key", dev->private_key);
	if (!ret && (dev->flags & CONFIG_DEVICE_HAS_LISTEN_PORT))
		ret = buf_printf(b, "listen_port=%u\n", dev->listen_port);
	if (!ret && (dev->flags & CONFIG_DEVICE_HAS_FWMARK))
		ret = buf_printf(b, "fwmark=%" PRIu32 "\n", dev->fwmark);
	if (!ret && (dev->flags & CONFIG_DEVICE_REPLACE_PEERS))
		ret = buf_printf(b, "replace_peers=true\n");
	for (size_t i = 0; !ret && i < dev->peers_len; i++)
		ret = print_set_peer(b, &dev->peers[i]);
	if (!ret)
		ret = buf_printf(b, "\n");
	return ret;
}

int uapi_print_set(struct uapi_buf *b, const struct config_device *dev)
{
	return print_whole(b, dev, print_set);
}

int uapi_print_errno(struct uapi_buf *b, int err)
{
	return buf_printf(b, "errno=%d\n\n", err);
}
