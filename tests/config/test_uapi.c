/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket's text protocol (daemon/config/uapi.c): good messages
 * of every key, malformed ones of every kind (the right -errno, nothing
 * applied), the get printer against literal text, print -> parse round
 * trips, and the constant-time hex codec against a naive reference.  The
 * server is tests/control/test_control.c.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/config/config.h"
#include "daemon/config/uapi.h"
#include "daemon/control/control.h"

#include "tests/lib/ctgrind.h"
#include "tests/lib/testutil.h"

/* the shared counters and reporting of the tests (tests/lib/testutil.h) */
#define check tu_check

/* Three fixed keys: K1 = 01 02 .. 20, K2 = all 0xab, K3 = mixed case input. */
#define K1 "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"
#define K2 "abababababababababababababababababababababababababababababababab"
#define K3 "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB"
#define KZ63 "000000000000000000000000000000000000000000000000000000000000000"
#define KZ "0000000000000000000000000000000000000000000000000000000000000000"

static void key_fill(uint8_t key[32], uint8_t start, uint8_t step)
{
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(start + i * step);
}

static int parse(struct config_device *cfg, const char *msg)
{
	config_device_init(cfg);
	return uapi_parse_set(cfg, msg, strlen(msg));
}

/* ---- hex ---- */

static int naive_hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void test_hex(void)
{
	uint8_t key[32], back[32];
	char hex[64];

	/* Every byte value, both nibbles, encodes and decodes. */
	for (int b = 0; b < 256; b += 32) {
		for (int i = 0; i < 32; i++)
			key[i] = (uint8_t)(b + i);
		uapi_key_to_hex(hex, key);
		for (int i = 0; i < 32; i++) {
			char want[3];

			snprintf(want, sizeof(want), "%02x", key[i]);
			check(hex[2 * i] == want[0] && hex[2 * i + 1] == want[1],
			      "to_hex byte %02x", key[i]);
		}
		check(uapi_key_from_hex(back, hex, 64) && memcmp(back, key, 32) == 0,
		      "hex round trip from %d", b);
	}
	/* Every character in every position class against the naive decoder. */
	for (int c = 0; c < 256; c++) {
		for (int pos = 0; pos < 2; pos++) {
			bool ok;

			memset(hex, '7', sizeof(hex));
			hex[10 + pos] = (char)c;
			ok = uapi_key_from_hex(back, hex, 64);
			check(ok == (naive_hex(c) >= 0), "hex char %d pos %d", c, pos);
			if (ok && naive_hex(c) >= 0)
				check(back[5] == (pos ? 0x70 | naive_hex(c) : (naive_hex(c) << 4) | 7),
				      "hex char %d value", c);
			if (!ok)
				check(back[0] == 0 && back[31] == 0, "wiped on failure");
		}
	}
	check(!uapi_key_from_hex(back, K1, 63), "63 digits");
	check(!uapi_key_from_hex(back, K1 "0", 65), "65 digits");
	check(!uapi_key_from_hex(back, "", 0), "empty");
	check(uapi_key_from_hex(back, K3, 64) && back[0] == 0xab, "upper case");
}

/* ---- set: good messages ---- */

static void test_set_interface(void)
{
	struct config_device cfg;
	uint8_t k1[32];

	key_fill(k1, 1, 1);
	check(parse(&cfg, "private_key=" K1 "\nlisten_port=51820\nfwmark=4294967295\n"
		     "replace_peers=true\n\n") == 0, "interface keys");
	check(cfg.flags == (CONFIG_DEVICE_HAS_PRIVATE_KEY | CONFIG_DEVICE_HAS_LISTEN_PORT |
			    CONFIG_DEVICE_HAS_FWMARK | CONFIG_DEVICE_REPLACE_PEERS),
	      "interface flags %#x", cfg.flags);
	check(memcmp(cfg.private_key, k1, 32) == 0, "private key");
	check(cfg.listen_port == 51820, "listen_port");
	check(cfg.fwmark == UINT32_MAX, "fwmark max");
	check(cfg.peers_len == 0, "no peers");
	config_device_clear(&cfg);

	/* Zero private key = remove; port 0 = random; fwmark 0 = off. */
	check(parse(&cfg, "private_key=" KZ "\nlisten_port=0\nfwmark=0\n\n") == 0, "zeros");
	check((cfg.flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) && cfg.private_key[0] == 0 &&
	      (cfg.flags & CONFIG_DEVICE_HAS_LISTEN_PORT) && cfg.listen_port == 0 &&
	      (cfg.flags & CONFIG_DEVICE_HAS_FWMARK) && cfg.fwmark == 0, "zero values kept");
	config_device_clear(&cfg);

	/* Leading zeros as strconv.ParseUint takes them; an empty message. */
	check(parse(&cfg, "listen_port=065535\n\n") == 0 && cfg.listen_port == 65535,
	      "leading zeros");
	config_device_clear(&cfg);
	check(parse(&cfg, "\n") == 0 && cfg.flags == 0 && cfg.peers_len == 0, "empty set");
	config_device_clear(&cfg);
}

static unsigned int fake_scope(const char *name)
{
	return strcmp(name, "eth0") == 0 ? 7 : 0;
}

static void test_set_peers(void)
{
	struct config_device cfg;
	struct config_peer *p;
	uint8_t k1[32], k2[32];
	char a[INET6_ADDRSTRLEN];

	key_fill(k1, 1, 1);
	memset(k2, 0xab, 32);
	check(parse(&cfg,
		    "private_key=" K2 "\n"
		    "public_key=" K1 "\n"
		    "preshared_key=" K2 "\n"
		    "endpoint=192.0.2.1:51820\n"
		    "persistent_keepalive_interval=25\n"
		    "replace_allowed_ips=true\n"
		    "allowed_ip=10.0.0.0/8\n"
		    "allowed_ip=fd00::1/128\n"
		    "allowed_ip=-10.1.0.0/16\n"
		    "protocol_version=1\n"
		    "public_key=" K3 "\n"
		    "update_only=true\n"
		    "endpoint=[2001:db8::1]:65535\n"
		    "public_key=" KZ "\n"
		    "remove=true\n"
		    "\n") == 0, "peers message");
	check(cfg.peers_len == 3, "3 peers");
	if (cfg.peers_len == 3) {
		p = &cfg.peers[0];
		check(memcmp(p->public_key, k1, 32) == 0, "peer 0 key");
		check(p->flags == (CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_ENDPOINT |
				   CONFIG_PEER_HAS_KEEPALIVE | CONFIG_PEER_REPLACE_ALLOWEDIPS),
		      "peer 0 flags %#x", p->flags);
		check(memcmp(p->preshared_key, k2, 32) == 0, "psk");
		check(p->endpoint.in.sin_family == AF_INET &&
		      ntohs(p->endpoint.in.sin_port) == 51820 &&
		      p->endpoint.in.sin_addr.s_addr == htonl(0xc0000201), "v4 endpoint");
		check(p->persistent_keepalive == 25, "keepalive");
		check(p->allowedips_len == 3, "3 allowed ips");
		if (p->allowedips_len == 3) {
			check(p->allowedips[0].family == AF_INET && p->allowedips[0].cidr == 8 &&
			      p->allowedips[0].addr[0] == 10 && !p->allowedips[0].remove, "aip 0");
			inet_ntop(AF_INET6, p->allowedips[1].addr, a, sizeof(a));
			check(p->allowedips[1].family == AF_INET6 && p->allowedips[1].cidr == 128 &&
			      strcmp(a, "fd00::1") == 0, "aip 1 %s", a);
			check(p->allowedips[2].remove && p->allowedips[2].cidr == 16 &&
			      p->allowedips[2].addr[1] == 1, "aip 2 removal");
		}
		p = &cfg.peers[1];
		check(p->flags == (CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_ENDPOINT),
		      "peer 1 flags %#x", p->flags);
		check(memcmp(p->public_key, k2, 32) == 0, "upper-case public key");
		inet_ntop(AF_INET6, &p->endpoint.in6.sin6_addr, a, sizeof(a));
		check(p->endpoint.in6.sin6_family == AF_INET6 &&
		      ntohs(p->endpoint.in6.sin6_port) == 65535 &&
		      strcmp(a, "2001:db8::1") == 0 && p->endpoint.in6.sin6_scope_id == 0,
		      "v6 endpoint");
		check(cfg.peers[2].flags == CONFIG_PEER_REMOVE, "remove");
	}
	config_device_clear(&cfg);

	/* Host bits are cleared, for removal too. */
	check(parse(&cfg, "public_key=" K1 "\nallowed_ip=10.1.2.3/12\n"
		     "allowed_ip=-2001:db8:ffff::1/33\nallowed_ip=1.2.3.4/0\n\n") == 0, "host bits");
	if (cfg.peers_len == 1 && cfg.peers[0].allowedips_len == 3) {
		const struct config_allowedip *x = cfg.peers[0].allowedips;

		check(x[0].addr[0] == 10 && x[0].addr[1] == 0 && x[0].addr[2] == 0, "v4 /12 masked");
		inet_ntop(AF_INET6, x[1].addr, a, sizeof(a));
		check(strcmp(a, "2001:db8:8000::") == 0 && x[1].remove, "v6 /33 masked: %s", a);
		check(x[2].addr[0] == 0 && x[2].addr[3] == 0 && x[2].cidr == 0, "/0 masked");
	} else {
		check(false, "host bits shape");
	}
	config_device_clear(&cfg);

	/* Scoped endpoints: numeric and by name through the resolver. */
	{
		struct uapi_parser ps;
		const char *l1 = "public_key=" K1;
		const char *l2 = "endpoint=[fe80::1%eth0]:1";
		const char *l3 = "endpoint=[fe80::2%42]:2";

		config_device_init(&cfg);
		uapi_parser_init(&ps, &cfg);
		ps.scope_index = fake_scope;
		check(uapi_parse_set_line(&ps, l1, strlen(l1)) == 0, "scope peer");
		check(uapi_parse_set_line(&ps, l2, strlen(l2)) == 0 &&
		      cfg.peers[0].endpoint.in6.sin6_scope_id == 7, "scope by name");
		check(uapi_parse_set_line(&ps, l3, strlen(l3)) == 0 &&
		      cfg.peers[0].endpoint.in6.sin6_scope_id == 42 &&
		      ntohs(cfg.peers[0].endpoint.in6.sin6_port) == 2, "numeric scope, last wins");
		check(uapi_parse_set_finish(&ps) == 0, "scope finish");
		config_device_clear(&cfg);
	}

	/* Many peers: the array grows (and moves) without losing any. */
	{
		size_t n = 300, len = 0;
		char *msg = malloc(n * 80 + 2);

		for (size_t i = 0; i < n; i++)
			len += (size_t)sprintf(msg + len, "public_key=%064zx\n", i);
		msg[len++] = '\n';
		msg[len] = '\0';
		check(parse(&cfg, msg) == 0 && cfg.peers_len == n, "300 peers");
		check(cfg.peers_len == n && cfg.peers[299].public_key[31] == 299 % 256 &&
		      cfg.peers[299].public_key[30] == 1, "peer 299 key");
		config_device_clear(&cfg);
		free(msg);
	}
}

/* ---- set: malformed messages ---- */

struct bad_case {
	const char *what;
	const char *msg;
	int err;
};

static const struct bad_case bad_cases[] = {
	{ "unknown interface key", "foo=1\n\n", -EINVAL },
	{ "unknown peer key", "public_key=" K1 "\nfoo=1\n\n", -EINVAL },
	{ "no '='", "listen_port\n\n", -EPROTO },
	{ "no blank line", "listen_port=1\n", -EPROTO },
	{ "unterminated", "listen_port=1", -EPROTO },
	{ "data after blank line", "listen_port=1\n\nget=1\n\n", -EINVAL },
	{ "empty key", "=1\n\n", -EINVAL },
	{ "key case", "Listen_port=1\n\n", -EINVAL },
	{ "space in key", "listen_port =1\n\n", -EINVAL },
	{ "private key short", "private_key=" "0102" "\n\n", -EINVAL },
	{ "private key 63", "private_key=" KZ63 "\n\n", -EINVAL },
	{ "private key 65", "private_key=0" KZ "\n\n", -EINVAL },
	{ "private key bad digit",
	  "private_key=0g02030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20\n\n", -EINVAL },
	{ "private key base64", "private_key=AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=\n\n", -EINVAL },
	{ "public key bad", "public_key=xyz\n\n", -EINVAL },
	{ "psk bad", "public_key=" K1 "\npreshared_key=" K1 "0\n\n", -EINVAL },
	{ "port too big", "listen_port=65536\n\n", -EINVAL },
	{ "port negative", "listen_port=-1\n\n", -EINVAL },
	{ "port plus", "listen_port=+1\n\n", -EINVAL },
	{ "port empty", "listen_port=\n\n", -EINVAL },
	{ "port hex", "listen_port=0x10\n\n", -EINVAL },
	{ "port space", "listen_port= 1\n\n", -EINVAL },
	{ "port trailing", "listen_port=1 \n\n", -EINVAL },
	{ "port huge", "listen_port=99999999999999999999999\n\n", -EINVAL },
	{ "fwmark too big", "fwmark=4294967296\n\n", -EINVAL },
	{ "replace_peers false", "replace_peers=false\n\n", -EINVAL },
	{ "replace_peers 1", "replace_peers=1\n\n", -EINVAL },
	{ "interface key after peer", "public_key=" K1 "\nlisten_port=1\n\n", -EINVAL },
	{ "private key after peer", "public_key=" K1 "\nprivate_key=" K1 "\n\n", -EINVAL },
	{ "replace_peers after peer", "public_key=" K1 "\nreplace_peers=true\n\n", -EINVAL },
	{ "peer key before peer", "remove=true\n\n", -EINVAL },
	{ "remove false", "public_key=" K1 "\nremove=false\n\n", -EINVAL },
	{ "update_only yes", "public_key=" K1 "\nupdate_only=yes\n\n", -EINVAL },
	{ "replace_allowed_ips 0", "public_key=" K1 "\nreplace_allowed_ips=0\n\n", -EINVAL },
	{ "keepalive too big", "public_key=" K1 "\npersistent_keepalive_interval=65536\n\n", -EINVAL },
	{ "keepalive empty", "public_key=" K1 "\npersistent_keepalive_interval=\n\n", -EINVAL },
	{ "protocol_version 2", "public_key=" K1 "\nprotocol_version=2\n\n", -EINVAL },
	{ "protocol_version 01", "public_key=" K1 "\nprotocol_version=01\n\n", -EINVAL },
	{ "embedded NUL", "listen_port=1\0002\n\n", -EINVAL },
	{ "NUL after endpoint", "public_key=" K1 "\nendpoint=1.2.3.4:5\000x\n\n", -EINVAL },
	{ "endpoint empty", "public_key=" K1 "\nendpoint=\n\n", -EINVAL },
	{ "endpoint no port", "public_key=" K1 "\nendpoint=1.2.3.4\n\n", -EINVAL },
	{ "endpoint empty port", "public_key=" K1 "\nendpoint=1.2.3.4:\n\n", -EINVAL },
	{ "endpoint port big", "public_key=" K1 "\nendpoint=1.2.3.4:65536\n\n", -EINVAL },
	{ "endpoint bad v4", "public_key=" K1 "\nendpoint=1.2.3.256:1\n\n", -EINVAL },
	{ "endpoint short v4", "public_key=" K1 "\nendpoint=1.2.3:1\n\n", -EINVAL },
	{ "endpoint v4 leading 0", "public_key=" K1 "\nendpoint=01.2.3.4:1\n\n", -EINVAL },
	{ "endpoint hostname", "public_key=" K1 "\nendpoint=example.com:1\n\n", -EINVAL },
	{ "endpoint v6 no brackets", "public_key=" K1 "\nendpoint=2001:db8::1:1\n\n", -EINVAL },
	{ "endpoint v6 no port", "public_key=" K1 "\nendpoint=[2001:db8::1]\n\n", -EINVAL },
	{ "endpoint v6 colon only", "public_key=" K1 "\nendpoint=[2001:db8::1]:\n\n", -EINVAL },
	{ "endpoint v6 unclosed", "public_key=" K1 "\nendpoint=[2001:db8::1:1\n\n", -EINVAL },
	{ "endpoint v4 in brackets", "public_key=" K1 "\nendpoint=[1.2.3.4]:1\n\n", -EINVAL },
	{ "endpoint empty scope", "public_key=" K1 "\nendpoint=[fe80::1%]:1\n\n", -EINVAL },
	{ "endpoint unknown scope", "public_key=" K1 "\nendpoint=[fe80::1%nosuchif0]:1\n\n", -EINVAL },
	{ "endpoint scope too big", "public_key=" K1 "\nendpoint=[fe80::1%4294967296]:1\n\n", -EINVAL },
	{ "endpoint junk after ]", "public_key=" K1 "\nendpoint=[::1]x:1\n\n", -EINVAL },
	{ "allowed_ip no cidr", "public_key=" K1 "\nallowed_ip=10.0.0.0\n\n", -EINVAL },
	{ "allowed_ip empty cidr", "public_key=" K1 "\nallowed_ip=10.0.0.0/\n\n", -EINVAL },
	{ "allowed_ip v4 /33", "public_key=" K1 "\nallowed_ip=10.0.0.0/33\n\n", -EINVAL },
	{ "allowed_ip v6 /129", "public_key=" K1 "\nallowed_ip=::/129\n\n", -EINVAL },
	{ "allowed_ip cidr leading 0", "public_key=" K1 "\nallowed_ip=10.0.0.0/08\n\n", -EINVAL },
	{ "allowed_ip negative cidr", "public_key=" K1 "\nallowed_ip=10.0.0.0/-8\n\n", -EINVAL },
	{ "allowed_ip bad addr", "public_key=" K1 "\nallowed_ip=10.0.0/8\n\n", -EINVAL },
	{ "allowed_ip zone", "public_key=" K1 "\nallowed_ip=fe80::1%1/128\n\n", -EINVAL },
	{ "allowed_ip double minus", "public_key=" K1 "\nallowed_ip=--10.0.0.0/8\n\n", -EINVAL },
	{ "allowed_ip plus", "public_key=" K1 "\nallowed_ip=+10.0.0.0/8\n\n", -EINVAL },
	{ "allowed_ip empty", "public_key=" K1 "\nallowed_ip=\n\n", -EINVAL },
	{ "allowed_ip two slashes", "public_key=" K1 "\nallowed_ip=10.0.0.0/8/8\n\n", -EINVAL },
	{ "error then good lines", "listen_port=x\nlisten_port=1\n\n", -EINVAL },
};

/* strlen() stops at an embedded NUL: the table's lengths come from sizeof
 * through this macro-free helper that scans to the last "\n\n" or end. */
static size_t case_len(const struct bad_case *c)
{
	/* Cases with an embedded NUL continue after it up to "\n\n". */
	size_t n = strlen(c->msg);

	if (strstr(c->what, "NUL"))
		n += 1 + strlen(c->msg + n + 1);
	return n;
}

/*
 * The same public key twice (in either case of hex) is two entries in
 * message order, as the kernel and wireguard-go take it: `wg set IF peer X
 * remove peer X allowed-ips ...` resets a peer in one message.
 */
static void test_set_same_peer_twice(void)
{
	struct config_device cfg;
	uint8_t k2[32];

	memset(k2, 0xab, 32);
	check(parse(&cfg,
		    "public_key=" K2 "\n"
		    "remove=true\n"
		    "public_key=" K1 "\n"
		    "public_key=" K3 "\n"
		    "allowed_ip=10.0.0.0/8\n"
		    "\n") == 0, "a public key named twice is accepted");
	check(cfg.peers_len == 3, "three entries, %zu", cfg.peers_len);
	if (cfg.peers_len == 3) {
		check(memcmp(cfg.peers[0].public_key, k2, 32) == 0 &&
		      cfg.peers[0].flags == CONFIG_PEER_REMOVE && cfg.peers[0].allowedips_len == 0,
		      "the removal first");
		check(memcmp(cfg.peers[2].public_key, k2, 32) == 0 && cfg.peers[2].flags == 0 &&
		      cfg.peers[2].allowedips_len == 1, "then the same peer with its prefix");
	}
	config_device_clear(&cfg);
}

static void test_set_bad(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct config_device cfg;
		int ret;

		config_device_init(&cfg);
		ret = uapi_parse_set(&cfg, c->msg, case_len(c));
		check(ret == c->err, "%s: got %d want %d", c->what, ret, c->err);
		config_device_clear(&cfg);
	}

	/* An overlong line, even if otherwise well formed in spirit. */
	{
		char line[UAPI_LINE_MAX + 64];
		struct config_device cfg;
		struct uapi_parser p;

		memset(line, '0', sizeof(line));
		memcpy(line, "listen_port=", 12);
		config_device_init(&cfg);
		uapi_parser_init(&p, &cfg);
		check(uapi_parse_set_line(&p, line, sizeof(line)) == -EINVAL, "overlong line");
		/* Sticky: a good line afterwards still reports the error. */
		check(uapi_parse_set_line(&p, "fwmark=1", 8) == -EINVAL &&
		      !(cfg.flags & CONFIG_DEVICE_HAS_FWMARK), "error is sticky");
		check(uapi_parse_set_finish(&p) == -EINVAL, "finish keeps error");
		check(p.line == 2 && p.err_line == 1, "error line %lu of %lu", p.err_line, p.line);
		config_device_clear(&cfg);
	}
}

/* ---- get ---- */

static void make_snapshot(struct config_device *dev)
{
	struct config_peer *p;
	struct config_allowedip aip = { .family = AF_INET, .cidr = 24, .addr = { 10, 0, 0, 0 } };

	config_device_init(dev);
	dev->flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	key_fill(dev->private_key, 1, 1);
	dev->listen_port = 51820;
	dev->fwmark = 7;

	p = config_device_add_peer(dev, (const uint8_t[32]){ 0xab, [31] = 0xcd });
	p->flags = CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_ENDPOINT;
	memset(p->preshared_key, 0x11, 32);
	p->endpoint.in.sin_family = AF_INET;
	p->endpoint.in.sin_port = htons(1234);
	p->endpoint.in.sin_addr.s_addr = htonl(0xc0000201);
	p->last_handshake_sec = 1700000000;
	p->last_handshake_nsec = 123456789;
	p->tx_bytes = 18446744073709551615u;
	p->rx_bytes = 42;
	p->persistent_keepalive = 25;
	config_peer_add_allowedip(p, &aip);
	aip.family = AF_INET6;
	aip.cidr = 64;
	memset(aip.addr, 0, 16);
	aip.addr[0] = 0xfd;
	config_peer_add_allowedip(p, &aip);

	p = config_device_add_peer(dev, (const uint8_t[32]){ 0 });
	p->flags = CONFIG_PEER_HAS_ENDPOINT;
	p->endpoint.in6.sin6_family = AF_INET6;
	p->endpoint.in6.sin6_port = htons(51820);
	inet_pton(AF_INET6, "fe80::1", &p->endpoint.in6.sin6_addr);
	p->endpoint.in6.sin6_scope_id = 3;

	/* No endpoint, no keepalive, no allowed IPs, never a handshake. */
	p = config_device_add_peer(dev, (const uint8_t[32]){ 1 });
	(void)p;
}

static const char snapshot_text[] =
	"private_key=" K1 "\n"
	"listen_port=51820\n"
	"fwmark=7\n"
	"public_key=ab000000000000000000000000000000000000000000000000000000000000cd\n"
	"preshared_key=1111111111111111111111111111111111111111111111111111111111111111\n"
	"protocol_version=1\n"
	"endpoint=192.0.2.1:1234\n"
	"last_handshake_time_sec=1700000000\n"
	"last_handshake_time_nsec=123456789\n"
	"tx_bytes=18446744073709551615\n"
	"rx_bytes=42\n"
	"persistent_keepalive_interval=25\n"
	"allowed_ip=10.0.0.0/24\n"
	"allowed_ip=fd00::/64\n"
	"public_key=" KZ "\n"
	"preshared_key=" KZ "\n"
	"protocol_version=1\n"
	"endpoint=[fe80::1%3]:51820\n"
	"last_handshake_time_sec=0\n"
	"last_handshake_time_nsec=0\n"
	"tx_bytes=0\n"
	"rx_bytes=0\n"
	"persistent_keepalive_interval=0\n"
	"public_key=0100000000000000000000000000000000000000000000000000000000000000\n"
	"preshared_key=" KZ "\n"
	"protocol_version=1\n"
	"last_handshake_time_sec=0\n"
	"last_handshake_time_nsec=0\n"
	"tx_bytes=0\n"
	"rx_bytes=0\n"
	"persistent_keepalive_interval=0\n"
	"errno=0\n\n";

static bool buf_is(const struct uapi_buf *b, const char *want)
{
	return b->len == strlen(want) && memcmp(b->data, want, b->len) == 0;
}

static void test_get(void)
{
	struct config_device dev;
	struct uapi_buf b;

	make_snapshot(&dev);
	uapi_buf_init(&b);
	check(uapi_print_get(&b, &dev) == 0, "print");
	if (!check(buf_is(&b, snapshot_text), "printed text"))
		fprintf(stderr, "got:\n%.*s\n", (int)b.len, b.data);
	uapi_buf_clear(&b);

	/* Empty device: no private key, port 0, fwmark 0 -> only errno. */
	config_device_clear(&dev);
	check(uapi_print_get(&b, &dev) == 0 && buf_is(&b, "errno=0\n\n"), "empty device");
	uapi_buf_clear(&b);

	/* A flagged but all-zero private key is not printed (wireguard-go). */
	dev.flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	check(uapi_print_get(&b, &dev) == 0 && buf_is(&b, "errno=0\n\n"), "zero private key");
	uapi_buf_clear(&b);

	check(uapi_print_errno(&b, -22) == 0 && buf_is(&b, "errno=-22\n\n"), "errno line");
	uapi_buf_consume(&b, 6);
	check(buf_is(&b, "-22\n\n"), "consume");
	uapi_buf_clear(&b);
	config_device_clear(&dev);
}

/* get text -> set text: drop the get-only lines and the errno line. */
static size_t get_to_set(char *out, const char *in, size_t len)
{
	static const char *const get_only[] = {
		"last_handshake_time_sec=", "last_handshake_time_nsec=",
		"tx_bytes=", "rx_bytes=", "errno=",
	};
	size_t o = 0, pos = 0;

	while (pos < len) {
		const char *nl = memchr(in + pos, '\n', len - pos);
		size_t n = (size_t)(nl - (in + pos)) + 1;
		bool drop = false;

		for (size_t i = 0; i < sizeof(get_only) / sizeof(get_only[0]); i++)
			drop |= strncmp(in + pos, get_only[i], strlen(get_only[i])) == 0;
		if (!drop && n > 1) {
			memcpy(out + o, in + pos, n);
			o += n;
		}
		pos += n;
	}
	out[o++] = '\n';
	return o;
}

static void test_round_trip(void)
{
	struct config_device dev, back;
	struct uapi_buf b1, b2;
	char *set;
	size_t n;

	make_snapshot(&dev);
	/* Get-only fields do not survive a set; zero them for the compare. */
	for (size_t i = 0; i < dev.peers_len; i++) {
		dev.peers[i].last_handshake_sec = dev.peers[i].last_handshake_nsec = 0;
		dev.peers[i].tx_bytes = dev.peers[i].rx_bytes = 0;
	}
	uapi_buf_init(&b1);
	uapi_buf_init(&b2);
	check(uapi_print_get(&b1, &dev) == 0, "rt print");
	set = malloc(b1.len + 2);
	n = get_to_set(set, b1.data, b1.len);
	config_device_init(&back);
	check(uapi_parse_set(&back, set, n) == 0, "rt parse");
	check(uapi_print_get(&b2, &back) == 0, "rt reprint");
	check(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0, "round trip equal");
	check(back.peers_len == 3 && back.listen_port == 51820 && back.fwmark == 7 &&
	      memcmp(back.private_key, dev.private_key, 32) == 0, "rt fields");
	/* A printed keepalive or psk becomes an explicit set flag. */
	check(back.peers_len == 3 && (back.peers[2].flags & CONFIG_PEER_HAS_KEEPALIVE) &&
	      (back.peers[2].flags & CONFIG_PEER_HAS_PRESHARED_KEY), "rt flags");
	free(set);
	uapi_buf_clear(&b1);
	uapi_buf_clear(&b2);
	config_device_clear(&dev);
	config_device_clear(&back);
}

static int parse_get(struct config_device *cfg, const char *msg)
{
	config_device_init(cfg);
	return uapi_parse_get(cfg, msg, strlen(msg));
}

/* The client's side of get (wgctl): the printer's reply parses back to the
 * snapshot it was printed from; errno lines; malformed replies. */
static void test_parse_get(void)
{
	static const char *const bad[] = {
		"",					/* nothing */
		"listen_port=1\n",			/* no errno, no blank line */
		"listen_port=1\n\n",			/* blank line before errno */
		"errno=0\n",				/* no blank line */
		"errno=0\n\nx",				/* something after it */
		"errno=0\n\n\n",
		"errno=\n\n",
		"errno=x\n\n",
		"listen_port\nerrno=0\n\n",		/* no '=' */
		"listen_port=70000\nerrno=0\n\n",	/* out of range */
		"public_key=" K1 "\nrx_bytes=-1\nerrno=0\n\n",
		"public_key=" K1 "\nlast_handshake_time_nsec=1000000000\nerrno=0\n\n",
		"public_key=" K1 "\nendpoint=nowhere\nerrno=0\n\n",
		"public_key=" K1 "\nallowed_ip=10.0.0.0\nerrno=0\n\n",
		"public_key=zz\nerrno=0\n\n",
	};
	struct config_device dev, back;
	struct uapi_buf b;

	make_snapshot(&dev);
	uapi_buf_init(&b);
	check(uapi_print_get(&b, &dev) == 0, "get print");
	config_device_init(&back);
	check(uapi_parse_get(&back, b.data, b.len) == 0, "get parse");
	check(config_device_equal(&dev, &back), "get reply parses back to the snapshot");
	/* Zeros in a reply mean no preshared key; a printed keepalive of 0 is off. */
	check(back.peers_len == 3 && !(back.peers[1].flags & CONFIG_PEER_HAS_PRESHARED_KEY) &&
	      (back.peers[0].flags & CONFIG_PEER_HAS_PRESHARED_KEY) &&
	      back.peers[0].persistent_keepalive == 25 && back.peers[2].persistent_keepalive == 0,
	      "get flags");
	config_device_clear(&back);
	uapi_buf_clear(&b);
	config_device_clear(&dev);

	check(parse_get(&dev, "errno=0\n\n") == 0 && dev.peers_len == 0 && dev.flags == 0,
	      "empty reply");
	config_device_clear(&dev);
	check(parse_get(&dev, "errno=-22\n\n") == -22, "errno=-22");
	config_device_clear(&dev);
	check(parse_get(&dev, "errno=98\n\n") == -98, "errno=98");
	config_device_clear(&dev);
	/* Keys a newer daemon may add are skipped, in both sections. */
	check(parse_get(&dev, "listen_port=5\nfuture_key=1\npublic_key=" K1 "\nanother=x\n"
			"rx_bytes=7\nerrno=0\n\n") == 0 &&
	      dev.listen_port == 5 && dev.peers_len == 1 && dev.peers[0].rx_bytes == 7,
	      "unknown keys skipped");
	config_device_clear(&dev);
	/* Zeros are "none" in a reply, also after a value (the last one counts). */
	check(parse_get(&dev, "private_key=" KZ "\nerrno=0\n\n") == 0 &&
	      !(dev.flags & CONFIG_DEVICE_HAS_PRIVATE_KEY), "zero private key in a reply: none");
	config_device_clear(&dev);
	check(parse_get(&dev, "public_key=" K1 "\npreshared_key=" K2 "\npreshared_key=" KZ
			"\nerrno=0\n\n") == 0 && dev.peers_len == 1 &&
	      !(dev.peers[0].flags & CONFIG_PEER_HAS_PRESHARED_KEY), "last preshared key counts");
	config_device_clear(&dev);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		check(parse_get(&dev, bad[i]) == -EPROTO, "bad reply %zu: -EPROTO", i);
		config_device_clear(&dev);
	}
	/* The get-only keys stay errors in a set. */
	check(parse(&dev, "public_key=" K1 "\nrx_bytes=7\n\n") == -EINVAL, "rx_bytes in a set");
	config_device_clear(&dev);
}

/* The client's side of set: what uapi_print_set writes, the server's parser
 * reads back to the same model, every flag and a removal included; and the
 * literal text of a small message (wg's order). */
static void test_print_set(void)
{
	static const char want[] =
		"set=1\n"
		"private_key=" K1 "\n"
		"listen_port=0\n"
		"fwmark=0\n"
		"replace_peers=true\n"
		"public_key=" K2 "\n"
		"remove=true\n"
		"public_key=" K1 "\n"
		"update_only=true\n"
		"preshared_key=" KZ "\n"
		"endpoint=[fd00::1]:7\n"
		"persistent_keepalive_interval=0\n"
		"replace_allowed_ips=true\n"
		"allowed_ip=10.0.0.0/8\n"
		"allowed_ip=-fd00::/64\n"
		"\n";
	struct config_allowedip aip = { .family = AF_INET, .cidr = 8, .addr = { 10 } };
	struct config_device dev, back;
	struct config_peer *p;
	struct uapi_buf b;

	config_device_init(&dev);
	dev.flags = CONFIG_DEVICE_HAS_PRIVATE_KEY | CONFIG_DEVICE_HAS_LISTEN_PORT |
		    CONFIG_DEVICE_HAS_FWMARK | CONFIG_DEVICE_REPLACE_PEERS;
	key_fill(dev.private_key, 1, 1);
	p = config_device_add_peer(&dev, (const uint8_t[32]){ [0 ... 31] = 0xab });
	/* A removed peer's other fields are not sent. */
	p->flags = CONFIG_PEER_REMOVE | CONFIG_PEER_HAS_KEEPALIVE;
	p = config_device_add_peer(&dev, dev.private_key);
	p->flags = CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_PRESHARED_KEY |
		   CONFIG_PEER_HAS_ENDPOINT | CONFIG_PEER_HAS_KEEPALIVE |
		   CONFIG_PEER_REPLACE_ALLOWEDIPS;
	p->endpoint.in6.sin6_family = AF_INET6;
	p->endpoint.in6.sin6_port = htons(7);
	inet_pton(AF_INET6, "fd00::1", &p->endpoint.in6.sin6_addr);
	config_peer_add_allowedip(p, &aip);
	aip = (struct config_allowedip){ .family = AF_INET6, .cidr = 64, .remove = true,
					 .addr = { 0xfd } };
	config_peer_add_allowedip(p, &aip);

	uapi_buf_init(&b);
	check(uapi_print_set(&b, &dev) == 0, "set print");
	if (!check(buf_is(&b, want), "set text"))
		fprintf(stderr, "got:\n%.*s\n", (int)b.len, b.data);
	/* The server's parser takes the body after "set=1\n". */
	config_device_init(&back);
	check(b.len > 6 && uapi_parse_set(&back, b.data + 6, b.len - 6) == 0, "set parses back");
	check(back.flags == dev.flags && back.peers_len == 2 &&
	      back.peers[0].flags == CONFIG_PEER_REMOVE && back.peers[1].flags == p->flags &&
	      back.peers[1].allowedips_len == 2 && back.peers[1].allowedips[1].remove &&
	      memcmp(&back.peers[1].endpoint, &p->endpoint, sizeof(p->endpoint)) == 0,
	      "set round trip");
	config_device_clear(&back);
	uapi_buf_clear(&b);

	/* Nothing flagged: only the frame. */
	config_device_clear(&dev);
	check(uapi_print_set(&b, &dev) == 0 && buf_is(&b, "set=1\n\n"), "empty set");
	check(uapi_buf_append(&b, "ab", 2) == 0 && b.len == 9 && memcmp(b.data + 7, "ab", 2) == 0,
	      "append");
	uapi_buf_clear(&b);
}

/*
 * Mutations of a message that uses every key: random bytes replaced,
 * inserted or deleted (seeded, reproducible).  Whatever the parser makes of
 * it, it must not crash or leak (ASan), and what it accepts must survive
 * print -> parse -> print unchanged.
 */
static struct tu_rng rng;

static uint64_t rng_next(void)
{
	return tu_rng_next(&rng);
}

/* One to three random bytes of msg (len of cap used) replaced, inserted or
 * deleted; returns the new length. */
static size_t mutate(char *msg, size_t len, size_t cap)
{
	static const char alphabet[] = "=\n\0:/[]%-.0123456789abcdefxyzABC ";

	for (int m = (int)(rng_next() % 3); m >= 0; m--) {
		size_t pos = rng_next() % len;
		char c = alphabet[rng_next() % (sizeof(alphabet) - 1)];

		switch (rng_next() % 3) {
		case 0:
			msg[pos] = c;
			break;
		case 1:
			if (len < cap) {
				memmove(msg + pos + 1, msg + pos, len - pos);
				msg[pos] = c;
				len++;
			}
			break;
		default:
			memmove(msg + pos, msg + pos + 1, len - pos - 1);
			len--;
			break;
		}
	}
	return len;
}

/* The same for get replies (wgctl's side): whatever uapi_parse_get()
 * accepts of a mutated reply, printed again, parses back to the same. */
static void test_get_mutations(void)
{
	unsigned long accepted = 0, rt_fail = 0;
	char msg[sizeof(snapshot_text) + 16];
	struct uapi_buf b;

	uapi_buf_init(&b);
	for (int iter = 0; iter < 20000; iter++) {
		struct config_device cfg, back;
		size_t len = mutate(memcpy(msg, snapshot_text, sizeof(snapshot_text) - 1),
				    sizeof(snapshot_text) - 1, sizeof(msg));

		config_device_init(&cfg);
		config_device_init(&back);
		if (uapi_parse_get(&cfg, msg, len) == 0) {
			accepted++;
			uapi_buf_consume(&b, b.len);
			if (uapi_print_get(&b, &cfg) != 0 || uapi_parse_get(&back, b.data, b.len) != 0 ||
			    !config_device_equal(&cfg, &back)) {
				if (!rt_fail++ || getenv("TEST_UAPI_VERBOSE"))
					fprintf(stderr, "get round trip failed for:\n%.*s\n", (int)len, msg);
			}
		}
		config_device_clear(&cfg);
		config_device_clear(&back);
	}
	check(rt_fail == 0, "get mutations: %lu accepted replies failed the round trip", rt_fail);
	check(accepted > 100 && accepted < 19000, "get mutations: %lu of 20000 accepted", accepted);
	uapi_buf_clear(&b);
}

static void test_mutations(void)
{
	static const char seed[] =
		"private_key=" K1 "\nlisten_port=51820\nfwmark=7\nreplace_peers=true\n"
		"public_key=" K2 "\npreshared_key=" K1 "\nendpoint=[2001:db8::1%9]:51820\n"
		"persistent_keepalive_interval=25\nreplace_allowed_ips=true\n"
		"allowed_ip=10.0.0.0/8\nallowed_ip=-fd00::/64\nprotocol_version=1\n"
		"public_key=" K1 "\nendpoint=192.0.2.1:1\nupdate_only=true\n"
		"public_key=" KZ "\nremove=true\n\n";
	unsigned long accepted = 0, rt_fail = 0;
	char msg[sizeof(seed) + 16], *set;
	struct uapi_buf b1, b2;

	tu_rng_seed(&rng, tu_seed("test_uapi mutations", 1));

	uapi_buf_init(&b1);
	uapi_buf_init(&b2);
	for (int iter = 0; iter < 20000; iter++) {
		struct config_device cfg, back;
		size_t len = sizeof(seed) - 1;

		memcpy(msg, seed, len);
		len = mutate(msg, len, sizeof(msg));
		config_device_init(&cfg);
		if (uapi_parse_set(&cfg, msg, len) == 0) {
			size_t n;

			accepted++;
			uapi_buf_consume(&b1, b1.len);
			uapi_buf_consume(&b2, b2.len);
			uapi_print_get(&b1, &cfg);
			set = malloc(b1.len + 2);
			n = get_to_set(set, b1.data, b1.len);
			config_device_init(&back);
			if (uapi_parse_set(&back, set, n) != 0 || uapi_print_get(&b2, &back) != 0 ||
			    b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0)
				rt_fail++;
			config_device_clear(&back);
			free(set);
		}
		config_device_clear(&cfg);
	}
	check(rt_fail == 0, "mutations: %lu accepted messages failed the round trip", rt_fail);
	/* Both outcomes must occur, or the mutations test nothing. */
	check(accepted > 100 && accepted < 19000, "mutations: %lu of 20000 accepted", accepted);
	if (getenv("TEST_UAPI_VERBOSE"))
		printf("mutations: %lu of 20000 accepted\n", accepted);
	uapi_buf_clear(&b1);
	uapi_buf_clear(&b2);
}

/*
 * Constant time (ctgrind): the key's hex digits and bytes are marked
 * undefined for memcheck, which then reports any branch or memory index that
 * depends on them.  Only the verdict valid/invalid is declassified.
 */
static int test_ct(void)
{
	char hex[64];
	uint8_t key[32];
	bool ok;

	if (!RUNNING_ON_VALGRIND) {
		printf("test_uapi --ct: not under valgrind, skipped\n");
		return 77;
	}
	memcpy(hex, K1, 64);
	VALGRIND_MAKE_MEM_UNDEFINED(hex, sizeof(hex));
	ok = uapi_key_from_hex(key, hex, sizeof(hex));
	VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof(ok));
	check(ok, "ct decode");

	hex[7] = 'x';
	VALGRIND_MAKE_MEM_UNDEFINED(hex, sizeof(hex));
	ok = uapi_key_from_hex(key, hex, sizeof(hex));
	VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof(ok));
	check(!ok, "ct decode invalid");

	key_fill(key, 0x5a, 13);
	VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof(key));
	uapi_key_to_hex(hex, key);
	VALGRIND_MAKE_MEM_DEFINED(hex, sizeof(hex));
	VALGRIND_MAKE_MEM_DEFINED(key, sizeof(key));
	check(uapi_key_from_hex(key, hex, sizeof(hex)) && key[1] == 0x67, "ct encode");
	printf("test_uapi --ct: %lu checks, %lu failures\n", tu_checks, tu_failures);
	return tu_failures ? 1 : 0;
}

/* Where the socket is, for wgd and wgctl alike: the directory's order of
 * precedence, the names an interface can have, a path that does not fit. */
static void test_socket_path(void)
{
	static const struct {
		const char *name;
		int ret;
	} t[] = {
		{ "wg0", 0 }, { "0123456789abcde", 0 }, { "a.b-c_d=e+f", 0 }, { "...", 0 },
		{ "", -EINVAL }, { "0123456789abcdef", -EINVAL }, { "a/b", -EINVAL },
		{ ".", -EINVAL }, { "..", -EINVAL },
	};
	char path[64], small[14];	/* "/run/wg0.sock" and its NUL */

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = uapi_socket_path(path, sizeof(path), "/run/x", t[i].name);

		check(ret == t[i].ret, "socket path of `%s': %d, want %d", t[i].name, ret, t[i].ret);
		if (ret == 0) {
			char want[64];

			snprintf(want, sizeof(want), "/run/x/%s.sock", t[i].name);
			check(!strcmp(path, want), "socket path `%s', want `%s'", path, want);
		}
	}
	check(uapi_socket_path(small, sizeof(small), "/run/x", "wg0") == -ENAMETOOLONG &&
	      uapi_socket_path(small, sizeof(small), "/run", "wg0") == 0, "a path that does not fit");
	unsetenv("WGD_RUN_DIR");
	check(!strcmp(uapi_run_dir(NULL), "/var/run/wireguard"), "default run directory");
	setenv("WGD_RUN_DIR", "", 1);
	check(!strcmp(uapi_run_dir(NULL), "/var/run/wireguard"), "WGD_RUN_DIR empty");
	setenv("WGD_RUN_DIR", "/tmp/e", 1);
	check(!strcmp(uapi_run_dir(NULL), "/tmp/e") && !strcmp(uapi_run_dir("/tmp/a"), "/tmp/a"),
	      "WGD_RUN_DIR, then the caller's directory first");
	unsetenv("WGD_RUN_DIR");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--ct") == 0)
		return test_ct();
	test_hex();
	test_set_interface();
	test_set_peers();
	test_set_same_peer_twice();
	test_set_bad();
	test_get();
	test_round_trip();
	test_parse_get();
	test_print_set();
	test_mutations();
	test_get_mutations();
	test_socket_path();
	printf("test_uapi: %lu checks, %lu failures\n", tu_checks, tu_failures);
	return tu_failures ? 1 : 0;
}
