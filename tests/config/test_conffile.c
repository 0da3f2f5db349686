/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration files (daemon/config/conffile.c): every key of both formats into
 * the model, every kind of error with its message and line and an empty
 * model after it, lists, comments, case and CRLF, endpoint forms, masking,
 * Table names, the base64 key codec against a naive reference, loading
 * (permissions, the size limit) and the printer against literal text.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/config/conffile.h"

#include "tests/lib/ctgrind.h"
#include "tests/lib/testutil.h"

/* the shared counters and reporting of the tests (tests/lib/testutil.h) */
#define check tu_check

/* Keys: K1 = bytes 01..20, K2 = all 0xab, K3 = all 0xff, K4 = e0..ff
 * (Python's base64.b64encode of those bytes). */
#define K1 "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
#define K2 "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="
#define K3 "//////////////////////////////////////////8="
#define K4 "4OHi4+Tl5ufo6err7O3u7/Dx8vP09fb3+Pn6+/z9/v8="

static void key_bytes(uint8_t k[CONFIG_KEY_LEN], unsigned int which)
{
	for (unsigned int i = 0; i < CONFIG_KEY_LEN; i++)
		k[i] = which == 1 ? (uint8_t)(i + 1) : which == 2 ? 0xab :
		       which == 3 ? 0xff : (uint8_t)(0xe0 + i);
}

static bool key_is(const uint8_t *k, unsigned int which)
{
	uint8_t want[CONFIG_KEY_LEN];

	key_bytes(want, which);
	return memcmp(k, want, CONFIG_KEY_LEN) == 0;
}

static bool is_empty(const struct conffile *cf)
{
	static const struct conffile zero;

	return memcmp(cf, &zero, sizeof(zero)) == 0;
}

static int parse(struct conffile *cf, const char *text, enum conffile_format fmt,
		 char *err, size_t errlen)
{
	conffile_init(cf);
	return conffile_parse(cf, "t.conf", text, strlen(text), fmt, err, errlen);
}

/* ---- base64 ---- */

static void naive_b64(char out[45], const uint8_t *k)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned int bits = 0, n = 0, o = 0;

	for (int i = 0; i < CONFIG_KEY_LEN; i++) {
		bits = (bits << 8) | k[i];
		n += 8;
		while (n >= 6) {
			out[o++] = abc[(bits >> (n - 6)) & 63];
			n -= 6;
		}
	}
	out[o++] = abc[(bits << (6 - n)) & 63];
	out[o++] = '=';
	out[o] = '\0';
}

static void test_base64(void)
{
	static const char *const vec[] = { K1, K2, K3, K4 };
	uint8_t k[CONFIG_KEY_LEN], back[CONFIG_KEY_LEN];
	char b64[45], ref[45];
	struct tu_rng rng;

	for (unsigned int w = 1; w <= 4; w++) {
		key_bytes(k, w);
		conffile_key_to_base64(b64, k);
		check(strcmp(b64, vec[w - 1]) == 0, "base64 of K%u: %s", w, b64);
		check(conffile_key_from_base64(back, vec[w - 1], 44) && key_is(back, w),
		      "decode K%u", w);
	}
	/* Random keys against the naive encoder, and back. */
	tu_rng_seed(&rng, 1);
	for (int t = 0; t < 2000; t++) {
		tu_rng_fill(&rng, k, CONFIG_KEY_LEN);
		conffile_key_to_base64(b64, k);
		naive_b64(ref, k);
		check(strcmp(b64, ref) == 0, "random key %d: %s vs %s", t, b64, ref);
		check(conffile_key_from_base64(back, b64, 44) && memcmp(back, k, 32) == 0,
		      "random key %d back", t);
	}
	/* Every character outside the alphabet, at every position. */
	for (int pos = 0; pos < 43; pos++) {
		for (int c = 1; c < 256; c++) {
			char bad[45];

			if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			    (c >= '0' && c <= '9') || c == '+' || c == '/')
				continue;
			memcpy(bad, K1, 45);
			bad[pos] = (char)c;
			memset(back, 0x55, sizeof(back));
			if (!check(!conffile_key_from_base64(back, bad, 44),
				   "char %d at %d accepted", c, pos))
				return;
			uint8_t zero[CONFIG_KEY_LEN] = { 0 };

			check(memcmp(back, zero, 32) == 0, "rejected key not wiped");
		}
	}
	/* Lengths, the '=', and the last character's two bits that must be 0
	 * (K1 ends in 'A': 'B', 'C', 'D' set them). */
	check(!conffile_key_from_base64(back, K1, 43), "43 characters");
	check(!conffile_key_from_base64(back, K1 "=", 45), "45 characters");
	check(!conffile_key_from_base64(back, "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAA", 44),
	      "no '='");
	for (const char *c = "BCD"; *c; c++) {
		char nc[45];

		memcpy(nc, K1, 45);
		nc[42] = *c;
		check(!conffile_key_from_base64(back, nc, 44), "non-canonical last '%c'", *c);
	}
	check(conffile_key_from_base64(back, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", 44),
	      "all-zero key");
}

/* ---- good files ---- */

static const char every_key[] =
	"# a comment line\n"
	"[Interface]\n"
	"PrivateKey = " K1 "\n"
	"ListenPort = 51820\n"
	"FwMark = 0x1f\n"
	"Address = 10.0.0.1/24, fd00::1/64\n"
	"Address = 10.0.1.1\n"
	"MTU = 1280\n"
	"Table = 1234\n"
	"DNS = 10.0.0.53, fd00::53, example.com\n"
	"PreUp = echo pre up %i\n"
	"PostUp = iptables -A FORWARD -i %i -j ACCEPT; echo  two  spaces\n"
	"PostUp = echo second\n"
	"PreDown = echo pre down\n"
	"PostDown = echo post down\n"
	"SaveConfig = true\n"
	"\n"
	"[Peer]\n"
	"PublicKey = " K2 "\n"
	"PresharedKey = " K3 "\n"
	"Endpoint = 192.0.2.1:51820\n"
	"AllowedIPs = 10.0.0.2/32, 10.1.0.0/16\n"
	"AllowedIPs = fd00::2/128\n"
	"PersistentKeepalive = 25\n"
	"\n"
	"[Peer]\n"
	"PublicKey = " K4 "\n"
	"Endpoint = [fd00:1::2]:4000\n";

static bool aip_is(const struct config_allowedip *a, int family, const char *addr, unsigned int cidr)
{
	uint8_t want[16] = { 0 };

	inet_pton(family, addr, want);
	return a->family == family && a->cidr == cidr && !a->remove &&
	       memcmp(a->addr, want, 16) == 0;
}

static void test_every_key(void)
{
	struct conffile cf;
	char err[256];
	int ret = parse(&cf, every_key, CONFFILE_QUICK, err, sizeof(err));
	struct config_device *d = &cf.dev;
	uint8_t a6[16] = { 0 };

	if (!check(ret == 0, "every key: %d %s", ret, err))
		return;
	check(d->flags == (CONFIG_DEVICE_HAS_PRIVATE_KEY | CONFIG_DEVICE_HAS_LISTEN_PORT |
			   CONFIG_DEVICE_HAS_FWMARK), "device flags %#x", d->flags);
	check(key_is(d->private_key, 1), "private key");
	check(d->listen_port == 51820 && d->fwmark == 0x1f, "port %u fwmark %u",
	      d->listen_port, d->fwmark);
	check(cf.addrs_len == 3, "addresses %zu", cf.addrs_len);
	if (cf.addrs_len == 3) {
		inet_pton(AF_INET6, "fd00::1", a6);
		check(cf.addrs[0].family == AF_INET && cf.addrs[0].prefixlen == 24 &&
		      memcmp(cf.addrs[0].addr, "\x0a\x00\x00\x01", 4) == 0, "address 0");
		check(cf.addrs[1].family == AF_INET6 && cf.addrs[1].prefixlen == 64 &&
		      memcmp(cf.addrs[1].addr, a6, 16) == 0, "address 1");
		check(cf.addrs[2].family == AF_INET && cf.addrs[2].prefixlen == 32 &&
		      memcmp(cf.addrs[2].addr, "\x0a\x00\x01\x01", 4) == 0, "address 2");
	}
	check(cf.mtu == 1280, "mtu %u", cf.mtu);
	check(cf.table == CONFFILE_TABLE_ID && cf.table_id == 1234, "table");
	check(cf.dns_len == 3 && !strcmp(cf.dns[0], "10.0.0.53") && !strcmp(cf.dns[1], "fd00::53") &&
	      !strcmp(cf.dns[2], "example.com"), "dns");
	check(cf.hooks_len[CONFFILE_PRE_UP] == 1 &&
	      !strcmp(cf.hooks[CONFFILE_PRE_UP][0], "echo pre up %i"), "PreUp");
	check(cf.hooks_len[CONFFILE_POST_UP] == 2 &&
	      !strcmp(cf.hooks[CONFFILE_POST_UP][0],
		      "iptables -A FORWARD -i %i -j ACCEPT; echo  two  spaces") &&
	      !strcmp(cf.hooks[CONFFILE_POST_UP][1], "echo second"), "PostUp");
	check(cf.hooks_len[CONFFILE_PRE_DOWN] == 1 &&
	      !strcmp(cf.hooks[CONFFILE_PRE_DOWN][0], "echo pre down"), "PreDown");
	check(cf.hooks_len[CONFFILE_POST_DOWN] == 1 &&
	      !strcmp(cf.hooks[CONFFILE_POST_DOWN][0], "echo post down"), "PostDown");
	check(cf.save_config, "SaveConfig");

	if (!check(d->peers_len == 2, "peers %zu", d->peers_len)) {
		conffile_clear(&cf);
		return;
	}
	struct config_peer *p = &d->peers[0];

	check(key_is(p->public_key, 2) && key_is(p->preshared_key, 3), "peer 0 keys");
	check(p->flags == (CONFIG_PEER_REPLACE_ALLOWEDIPS | CONFIG_PEER_HAS_PRESHARED_KEY |
			   CONFIG_PEER_HAS_ENDPOINT | CONFIG_PEER_HAS_KEEPALIVE),
	      "peer 0 flags %#x", p->flags);
	check(p->endpoint.in.sin_family == AF_INET && p->endpoint.in.sin_port == htons(51820) &&
	      p->endpoint.in.sin_addr.s_addr == htonl(0xc0000201), "peer 0 endpoint");
	check(p->persistent_keepalive == 25, "keepalive");
	check(p->allowedips_len == 3 && aip_is(&p->allowedips[0], AF_INET, "10.0.0.2", 32) &&
	      aip_is(&p->allowedips[1], AF_INET, "10.1.0.0", 16) &&
	      aip_is(&p->allowedips[2], AF_INET6, "fd00::2", 128), "peer 0 allowed IPs");
	check(cf.peers[0].line == 18 && cf.peers[1].line == 26, "peer lines %u %u",
	      cf.peers[0].line, cf.peers[1].line);
	check(cf.peers[0].endpoint_host && !strcmp(cf.peers[0].endpoint_host, "192.0.2.1") &&
	      cf.peers[0].endpoint_port == 51820 && !cf.peers[0].endpoint_is_name, "peer 0 host");

	p = &d->peers[1];
	inet_pton(AF_INET6, "fd00:1::2", a6);
	check(key_is(p->public_key, 4), "peer 1 key");
	check(p->flags == (CONFIG_PEER_REPLACE_ALLOWEDIPS | CONFIG_PEER_HAS_ENDPOINT),
	      "peer 1 flags %#x", p->flags);
	check(p->endpoint.in6.sin6_family == AF_INET6 && p->endpoint.in6.sin6_port == htons(4000) &&
	      memcmp(&p->endpoint.in6.sin6_addr, a6, 16) == 0, "peer 1 endpoint");
	check(cf.peers[1].endpoint_host && !strcmp(cf.peers[1].endpoint_host, "fd00:1::2"),
	      "peer 1 host as written without brackets");
	check(p->allowedips_len == 0, "peer 1 no allowed IPs");

	conffile_clear(&cf);
	check(is_empty(&cf), "cleared");
}

/* wg's format: the same minus the wg-quick keys. */
static void test_wg_format(void)
{
	struct conffile cf;
	char err[256];
	int ret = parse(&cf, "[Interface]\nListenPort=1\nFwMark = off\n[Peer]\nPublicKey=" K2
			"\nPersistentKeepalive = off\n", CONFFILE_WG, err, sizeof(err));

	check(ret == 0, "wg format: %s", err);
	check(cf.dev.flags == (CONFIG_DEVICE_HAS_LISTEN_PORT | CONFIG_DEVICE_HAS_FWMARK) &&
	      cf.dev.fwmark == 0 && cf.dev.listen_port == 1, "wg format: device");
	check(cf.dev.peers_len == 1 && cf.dev.peers[0].flags ==
	      (CONFIG_PEER_REPLACE_ALLOWEDIPS | CONFIG_PEER_HAS_KEEPALIVE) &&
	      cf.dev.peers[0].persistent_keepalive == 0, "wg format: keepalive off");
	check(cf.table == CONFFILE_TABLE_AUTO && cf.mtu == 0, "wg format: no wg-quick values");
	conffile_clear(&cf);
}

/* Comments, case, whitespace, CRLF, list forms, masking, no section body. */
static void test_forms(void)
{
	struct conffile cf;
	char err[256];
	int ret;

	ret = parse(&cf,
		    "  [INTERFACE]  # the device\r\n"
		    "\tprivatekey\t=\t" K1 "\t# secret\r\n"
		    "LISTENPORT=0\r\n"
		    "fwMark = 4294967295\r\n"
		    "   \r\n"
		    "#[Peer]\r\n"
		    "[peer]\r\n"
		    "publickey = " K2 "\r\n"
		    "allowedips = 10.1.2.3/8,192.168.7.255/23 , 10.0.0.1 fd00:1:ffff:3:4:5:6:7/33\r\n"
		    "allowedips = ::/0, 0.0.0.0/0\r\n"
		    "allowedips = fd00::ff/127\r\n"
		    "persistentkeepalive = 65535",	/* no final newline */
		    CONFFILE_WG, err, sizeof(err));
	if (!check(ret == 0, "forms: %s", err))
		return;
	check(key_is(cf.dev.private_key, 1) && cf.dev.listen_port == 0 &&
	      (cf.dev.flags & CONFIG_DEVICE_HAS_LISTEN_PORT) && cf.dev.fwmark == 0xffffffffu,
	      "forms: device");
	if (check(cf.dev.peers_len == 1, "forms: one peer")) {
		struct config_peer *p = &cf.dev.peers[0];

		check(p->persistent_keepalive == 65535, "forms: keepalive");
		check(p->allowedips_len == 7, "forms: %zu allowed IPs", p->allowedips_len);
		if (p->allowedips_len == 7) {
			check(aip_is(&p->allowedips[0], AF_INET, "10.0.0.0", 8), "mask /8");
			check(aip_is(&p->allowedips[1], AF_INET, "192.168.6.0", 23), "mask /23");
			check(aip_is(&p->allowedips[2], AF_INET, "10.0.0.1", 32), "no length: /32");
			check(aip_is(&p->allowedips[3], AF_INET6, "fd00:1:8000::", 33), "mask /33");
			check(aip_is(&p->allowedips[4], AF_INET6, "::", 0), "::/0");
			check(aip_is(&p->allowedips[5], AF_INET, "0.0.0.0", 0), "0/0");
			check(aip_is(&p->allowedips[6], AF_INET6, "fd00::fe", 127), "mask /127");
		}
	}
	conffile_clear(&cf);

	/* An empty file, a file of comments: a model with nothing set. */
	check(parse(&cf, "", CONFFILE_QUICK, err, sizeof(err)) == 0 && is_empty(&cf), "empty");
	check(parse(&cf, "# x\n\n  # y\n", CONFFILE_QUICK, err, sizeof(err)) == 0 && is_empty(&cf),
	      "comments only");
	/* The last of a repeated single key wins, as in wg and wg-quick. */
	ret = parse(&cf, "[Interface]\nListenPort = 1\nListenPort = 2\nMTU = 1400\nMTU = 1300\n"
		    "SaveConfig = True\nSaveConfig = false\n", CONFFILE_QUICK, err, sizeof(err));
	check(ret == 0 && cf.dev.listen_port == 2 && cf.mtu == 1300 && !cf.save_config,
	      "repeated single keys: %s", err);
	conffile_clear(&cf);
	/* '#' cuts a hook too, as wg-quick strips comments from every line. */
	ret = parse(&cf, "[Interface]\nPostUp = echo a # b\nDNS = 1.1.1.1 8.8.8.8,x.y\n",
		    CONFFILE_QUICK, err, sizeof(err));
	check(ret == 0 && cf.hooks_len[CONFFILE_POST_UP] == 1 &&
	      !strcmp(cf.hooks[CONFFILE_POST_UP][0], "echo a"), "hook comment");
	check(ret == 0 && cf.dns_len == 3 && !strcmp(cf.dns[1], "8.8.8.8") &&
	      !strcmp(cf.dns[2], "x.y"), "dns separated by space");
	conffile_clear(&cf);
}

static void test_endpoints(void)
{
	static const struct {
		const char *v;
		int family;		/* AF_UNSPEC: a name */
		const char *host;
		unsigned int port;
	} t[] = {
		{ "192.0.2.9:1", AF_INET, "192.0.2.9", 1 },
		{ "[2001:db8::1]:65535", AF_INET6, "2001:db8::1", 65535 },
		{ "[::ffff:192.0.2.1]:7", AF_INET6, "::ffff:192.0.2.1", 7 },
		{ "[fe80::1%1]:51820", AF_INET6, "fe80::1%1", 51820 },
		{ "vpn.example.com:51820", AF_UNSPEC, "vpn.example.com", 51820 },
		{ "host_1-a:0", AF_UNSPEC, "host_1-a", 0 },
	};
	struct conffile cf;
	char text[256], err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(text, sizeof(text), "[Peer]\nPublicKey = " K1 "\nEndpoint = %s\n", t[i].v);
		if (!check(parse(&cf, text, CONFFILE_WG, err, sizeof(err)) == 0, "endpoint %s: %s",
			   t[i].v, err))
			continue;
		struct config_peer *p = &cf.dev.peers[0];
		struct conffile_peer *c = &cf.peers[0];

		check(c->endpoint_host && !strcmp(c->endpoint_host, t[i].host) &&
		      c->endpoint_port == t[i].port, "endpoint %s: host %s", t[i].v,
		      c->endpoint_host ? c->endpoint_host : "(null)");
		if (t[i].family == AF_UNSPEC) {
			check(c->endpoint_is_name && !(p->flags & CONFIG_PEER_HAS_ENDPOINT),
			      "endpoint %s is a name", t[i].v);
		} else {
			check(!c->endpoint_is_name && (p->flags & CONFIG_PEER_HAS_ENDPOINT) &&
			      p->endpoint.addr.sa_family == t[i].family &&
			      (t[i].family == AF_INET ? p->endpoint.in.sin_port :
			       p->endpoint.in6.sin6_port) == htons((uint16_t)t[i].port),
			      "endpoint %s numeric", t[i].v);
		}
		if (i == 3)
			check(p->endpoint.in6.sin6_scope_id == 1, "scope id");
		conffile_clear(&cf);
	}
	/* A second Endpoint replaces the first, a name one too. */
	check(parse(&cf, "[Peer]\nPublicKey = " K1 "\nEndpoint = a.b:1\nEndpoint = 10.0.0.1:2\n",
		    CONFFILE_WG, err, sizeof(err)) == 0 && !cf.peers[0].endpoint_is_name &&
	      (cf.dev.peers[0].flags & CONFIG_PEER_HAS_ENDPOINT) &&
	      !strcmp(cf.peers[0].endpoint_host, "10.0.0.1"), "endpoint replaced");
	conffile_clear(&cf);
	check(parse(&cf, "[Peer]\nPublicKey = " K1 "\nEndpoint = 10.0.0.1:2\nEndpoint = a.b:1\n",
		    CONFFILE_WG, err, sizeof(err)) == 0 && cf.peers[0].endpoint_is_name &&
	      !(cf.dev.peers[0].flags & CONFIG_PEER_HAS_ENDPOINT), "endpoint replaced by a name");
	conffile_clear(&cf);
}

/* The Endpoint reader called directly, as wgctl set calls it: an address,
 * a name to resolve, or refused. */
static void test_endpoint_reader(void)
{
	static const struct {
		const char *v;
		int ret;
	} t[] = {
		{ "192.0.2.9:1", 0 }, { "[2001:db8::1]:5", 0 }, { "[fe80::1%1]:5", 0 },
		{ "vpn.example:5", 1 },
		/* brackets exactly around an IPv6 address, as wireguard-go reads it */
		{ "fd00::1:5", -EINVAL }, { "[192.0.2.9]:5", -EINVAL }, { "[vpn.example]:5", -EINVAL },
		{ "bad!name:5", -EINVAL }, { "192.0.2.9:65536", -EINVAL }, { "192.0.2.9", -EINVAL },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		union config_endpoint ep = { .addr.sa_family = AF_UNSPEC };
		struct span host = { NULL, 0 };
		uint16_t port = 0;
		int ret = conffile_endpoint((struct span){ t[i].v, strlen(t[i].v) }, &ep, &host, &port);

		check(ret == t[i].ret, "conffile_endpoint(%s): %d, want %d", t[i].v, ret, t[i].ret);
		if (ret >= 0)
			check(port == 5 || port == 1, "conffile_endpoint(%s): port %u", t[i].v, port);
		if (ret == 0)
			check(ep.addr.sa_family == (t[i].v[0] == '[' ? AF_INET6 : AF_INET) &&
			      ep.in.sin_port == htons(port), "conffile_endpoint(%s): the address", t[i].v);
	}
}

/* An endpoint's text, as wg show and showconf write it. */
static void test_endpoint_text(void)
{
	static const struct {
		int family;
		const char *addr;
		uint32_t scope;
		const char *want;
	} t[] = {
		{ AF_INET, "192.0.2.1", 0, "192.0.2.1:51820" },
		{ AF_INET6, "2001:db8::1", 0, "[2001:db8::1]:51820" },
		{ AF_INET6, "::ffff:192.0.2.1", 0, "[::ffff:192.0.2.1]:51820" },
		{ AF_INET6, "fe80::1", 999999, "[fe80::1%999999]:51820" },	/* no such interface */
		{ AF_INET6, "fe80::1", 1, "[fe80::1%lo]:51820" },
	};
	char buf[CONFFILE_ENDPOINT_TEXT_MAX];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		union config_endpoint ep;

		memset(&ep, 0, sizeof(ep));
		ep.addr.sa_family = (sa_family_t)t[i].family;
		ep.in.sin_port = htons(51820);
		if (t[i].family == AF_INET)
			inet_pton(AF_INET, t[i].addr, &ep.in.sin_addr);
		else
			inet_pton(AF_INET6, t[i].addr, &ep.in6.sin6_addr);
		ep.in6.sin6_scope_id = t[i].family == AF_INET6 ? t[i].scope : 0;
		check(conffile_endpoint_text(buf, sizeof(buf), &ep) == 0 && !strcmp(buf, t[i].want),
		      "endpoint text `%s', want `%s'", buf, t[i].want);
	}
	check(conffile_endpoint_text(buf, sizeof(buf), &(union config_endpoint){
		.addr.sa_family = AF_UNSPEC }) != 0, "endpoint text of no address");
}

static void test_tables(void)
{
	static const struct { const char *v; enum conffile_table t; uint32_t id; } ok[] = {
		{ "auto", CONFFILE_TABLE_AUTO, 0 }, { "Off", CONFFILE_TABLE_OFF, 0 },
		{ "main", CONFFILE_TABLE_ID, 254 }, { "local", CONFFILE_TABLE_ID, 255 },
		{ "default", CONFFILE_TABLE_ID, 253 }, { "4294967295", CONFFILE_TABLE_ID, 4294967295u },
		{ "0x100", CONFFILE_TABLE_ID, 256 }, { "vpn", CONFFILE_TABLE_ID, 100 },
		{ "other_one", CONFFILE_TABLE_ID, 0x2a },
	};
	char path[] = "/tmp/test_conffile_rt.XXXXXX";
	int fd = mkstemp(path);
	const char *saved = conffile_rt_tables;
	struct conffile cf;
	char text[128], err[256];

	if (!check(fd >= 0, "mkstemp"))
		return;
	dprintf(fd, "# comment\n255\tlocal\n100 vpn # ours\n\n0x2a\tother_one\n#7 hidden\n");
	close(fd);
	conffile_rt_tables = path;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(text, sizeof(text), "[Interface]\nTable = %s\n", ok[i].v);
		check(parse(&cf, text, CONFFILE_QUICK, err, sizeof(err)) == 0 && cf.table == ok[i].t &&
		      cf.table_id == ok[i].id, "Table = %s: %s %u", ok[i].v, err, cf.table_id);
		conffile_clear(&cf);
	}
	for (const char *const *bad = (const char *const[]){ "hidden", "0", "4294967296", "MAIN",
						     "vpn2", NULL }; *bad; bad++) {
		char want[256];

		snprintf(text, sizeof(text), "[Interface]\nTable = %s\n", *bad);
		snprintf(want, sizeof(want), "t.conf:2: invalid Table `%s' (auto, off, a number or "
			 "a name in iproute2's rt_tables)", *bad);
		check(parse(&cf, text, CONFFILE_QUICK, err, sizeof(err)) == -EINVAL &&
		      !strcmp(err, want) && is_empty(&cf), "Table = %s refused: %s", *bad, err);
	}
	conffile_rt_tables = saved;
	unlink(path);
}

/* ---- errors ---- */

static void test_errors(void)
{
	static const struct {
		enum conffile_format fmt;
		const char *text;
		const char *err;
	} t[] = {
		{ CONFFILE_WG, "ListenPort = 1\n", "t.conf:1: ListenPort before any section" },
		{ CONFFILE_WG, "\n[Interface]\n[Foo]\n", "t.conf:3: unknown section `[Foo]'" },
		{ CONFFILE_WG, "[Interface]\nFoo = 1\n", "t.conf:2: unknown key `Foo'" },
		/* A key without '=' whose value ends in one: the value is not shown. */
		{ CONFFILE_WG, "[Interface]\nPrivateKey " K1 "\n", "t.conf:2: unknown key `PrivateKey'" },
		{ CONFFILE_QUICK, "[Interface]\nDNS = 10.0.0.1, a;b\n",
		  "t.conf:2: invalid DNS `a;b' (IP addresses and domain names)" },
		{ CONFFILE_WG, "[Interface]\nListenPort 1\n",
		  "t.conf:2: not a [Section] nor Key = value" },
		{ CONFFILE_WG, "[Interface]\nListenPort =  # none\n", "t.conf:2: ListenPort without a value" },
		{ CONFFILE_WG, "[Interface]\n[Interface]\n", "t.conf:2: a second [Interface]" },
		{ CONFFILE_WG, "[Interface]\nListenPort = 65536\n",
		  "t.conf:2: invalid ListenPort `65536' (0 to 65535)" },
		{ CONFFILE_WG, "[Interface]\nListenPort = -1\n",
		  "t.conf:2: invalid ListenPort `-1' (0 to 65535)" },
		{ CONFFILE_WG, "[Interface]\nFwMark = 0x100000000\n",
		  "t.conf:2: invalid FwMark `0x100000000' (off or a 32-bit number)" },
		{ CONFFILE_WG, "[Interface]\nFwMark = 12a\n",
		  "t.conf:2: invalid FwMark `12a' (off or a 32-bit number)" },
		/* "0x" as wg(8) reads it (tests/config/test_span.c) */
		{ CONFFILE_WG, "[Interface]\nFwMark = 0X10\n",
		  "t.conf:2: invalid FwMark `0X10' (off or a 32-bit number)" },
		{ CONFFILE_WG, "[Interface]\nPrivateKey = " K1 "x\n",
		  "t.conf:2: invalid PrivateKey (a 44-character base64 key)" },
		{ CONFFILE_WG, "[Interface]\nPublicKey = " K1 "\n",
		  "t.conf:2: PublicKey is not an [Interface] key" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nListenPort = 1\n",
		  "t.conf:3: ListenPort is not a [Peer] key" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nAddress = 10.0.0.1\n",
		  "t.conf:3: Address is not a [Peer] key" },
		{ CONFFILE_QUICK, "[Peer]\nPublicKey = " K1 "\nAddress = 10.0.0.1\n",
		  "t.conf:3: Address is not a [Peer] key" },
		{ CONFFILE_WG, "[Interface]\nMTU = 1420\n", "t.conf:2: MTU is a wg-quick key, not one of wg's" },
		{ CONFFILE_WG, "[Interface]\nDNS = 1.1.1.1\n", "t.conf:2: DNS is a wg-quick key, not one of wg's" },
		{ CONFFILE_WG, "[Interface]\nTable = off\n", "t.conf:2: Table is a wg-quick key, not one of wg's" },
		{ CONFFILE_WG, "[Interface]\nPostUp = x\n", "t.conf:2: PostUp is a wg-quick key, not one of wg's" },
		{ CONFFILE_WG, "[Interface]\nSaveConfig = true\n",
		  "t.conf:2: SaveConfig is a wg-quick key, not one of wg's" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "=\n",
		  "t.conf:2: invalid PublicKey `" K1 "=' (a 44-character base64 key)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nPresharedKey = abc\n",
		  "t.conf:3: invalid PresharedKey (a 44-character base64 key)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nPersistentKeepalive = 65536\n",
		  "t.conf:3: invalid PersistentKeepalive `65536' (off or 0 to 65535)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nAllowedIPs = 10.0.0.0/33\n",
		  "t.conf:3: invalid AllowedIPs `10.0.0.0/33' (IP addresses with optional /prefix lengths)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nAllowedIPs = ::/129\n",
		  "t.conf:3: invalid AllowedIPs `::/129' (IP addresses with optional /prefix lengths)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nAllowedIPs = 10.0.0.0/8, 10.0.0/8\n",
		  "t.conf:3: invalid AllowedIPs `10.0.0/8' (IP addresses with optional /prefix lengths)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nAllowedIPs = 10.0.0.0/\n",
		  "t.conf:3: invalid AllowedIPs `10.0.0.0/' (IP addresses with optional /prefix lengths)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = 10.0.0.1\n",
		  "t.conf:3: invalid Endpoint `10.0.0.1' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = [::1]\n",
		  "t.conf:3: invalid Endpoint `[::1]' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = :1\n",
		  "t.conf:3: invalid Endpoint `:1' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = 10.0.0.1:65536\n",
		  "t.conf:3: invalid Endpoint `10.0.0.1:65536' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = fd00::1:5\n",
		  "t.conf:3: invalid Endpoint `fd00::1:5' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = [vpn.example]:5\n",
		  "t.conf:3: invalid Endpoint `[vpn.example]:5' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\nEndpoint = a/b:5\n",
		  "t.conf:3: invalid Endpoint `a/b:5' (host:port, IPv4:port or [IPv6]:port)" },
		{ CONFFILE_QUICK, "[Interface]\nAddress = 10.0.0.1/24, 10.0.0.300\n",
		  "t.conf:2: invalid Address `10.0.0.300' (IP addresses with optional /prefix lengths)" },
		{ CONFFILE_QUICK, "[Interface]\nAddress = fd00::1/200\n",
		  "t.conf:2: invalid Address `fd00::1/200' (IP addresses with optional /prefix lengths)" },
		{ CONFFILE_QUICK, "[Interface]\nMTU = 67\n", "t.conf:2: invalid MTU `67' (68 to 65535)" },
		{ CONFFILE_QUICK, "[Interface]\nMTU = 65536\n", "t.conf:2: invalid MTU `65536' (68 to 65535)" },
		{ CONFFILE_QUICK, "[Interface]\nSaveConfig = yes\n",
		  "t.conf:2: invalid SaveConfig `yes' (true or false)" },
		{ CONFFILE_QUICK, "[Interface]\nPreUp =\n", "t.conf:2: PreUp without a value" },
		{ CONFFILE_QUICK, "[Interface]\nDNS = ,\n", "t.conf:2: invalid DNS `,' (IP addresses and domain names)" },
		{ CONFFILE_WG, "[Interface]\n\n[Peer]\nEndpoint = 10.0.0.1:1\n\n[Peer]\nPublicKey = " K1 "\n",
		  "t.conf:3: [Peer] without PublicKey" },
		{ CONFFILE_WG, "[Peer]\nPublicKey = " K1 "\n[Peer]\n", "t.conf:3: [Peer] without PublicKey" },
	};
	struct conffile cf;
	char err[256];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int ret = parse(&cf, t[i].text, t[i].fmt, err, sizeof(err));

		check(ret == -EINVAL && !strcmp(err, t[i].err), "error %zu: %d `%s', want `%s'", i,
		      ret, err, t[i].err);
		check(is_empty(&cf), "error %zu: model not empty", i);
	}
	/* A NUL byte inside a line. */
	conffile_init(&cf);
	check(conffile_parse(&cf, "t.conf", "[Interface]\nListenPort = 1\0\n", 28, CONFFILE_WG,
			     err, sizeof(err)) == -EINVAL && !strcmp(err, "t.conf:2: NUL byte in the line") &&
	      is_empty(&cf), "NUL byte: %s", err);
	/* An error after many peers (the arrays grown) still leaves nothing. */
	{
		size_t n = 0, cap = 200 * 100;
		char *big = malloc(cap);
		uint8_t k[CONFIG_KEY_LEN] = { 0 };
		char b64[45];

		for (int i = 0; i < 150; i++) {
			k[0] = (uint8_t)i;
			k[1] = 0x80;
			conffile_key_to_base64(b64, k);
			n += (size_t)snprintf(big + n, cap - n, "[Peer]\nPublicKey = %s\n"
					      "Endpoint = h%d.example:1\nAllowedIPs = 10.%d.0.0/16\n",
					      b64, i, i);
		}
		n += (size_t)snprintf(big + n, cap - n, "[Peer]\nPublicKey = bad\n");
		conffile_init(&cf);
		check(conffile_parse(&cf, "big", big, n, CONFFILE_WG, err, sizeof(err)) == -EINVAL &&
		      !strcmp(err, "big:602: invalid PublicKey `bad' (a 44-character base64 key)") && is_empty(&cf),
		      "error after 150 peers: %s", err);
		/* Without the bad peer it parses, every peer in order. */
		n -= strlen("[Peer]\nPublicKey = bad\n");
		conffile_init(&cf);
		check(conffile_parse(&cf, "big", big, n, CONFFILE_WG, err, sizeof(err)) == 0 &&
		      cf.dev.peers_len == 150 && cf.peers[149].line == 597 &&
		      !strcmp(cf.peers[149].endpoint_host, "h149.example") &&
		      cf.dev.peers[149].public_key[0] == 149, "150 peers: %s", err);
		conffile_clear(&cf);
		free(big);
	}
}

/* ---- printing ---- */

static char *print_text(const struct conffile *cf, enum conffile_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	check(conffile_print(f, cf, fmt) == 0, "print");
	fclose(f);
	return buf;
}

static void test_print(void)
{
	static const char want_wg[] =
		"[Interface]\n"
		"ListenPort = 51820\n"
		"FwMark = 0x1f\n"
		"PrivateKey = " K1 "\n"
		"\n"
		"[Peer]\n"
		"PublicKey = " K2 "\n"
		"PresharedKey = " K3 "\n"
		"AllowedIPs = 10.0.0.2/32, 10.1.0.0/16, fd00::2/128\n"
		"Endpoint = 192.0.2.1:51820\n"
		"PersistentKeepalive = 25\n"
		"\n"
		"[Peer]\n"
		"PublicKey = " K4 "\n"
		"Endpoint = [fd00:1::2]:4000\n";
	static const char want_quick_head[] =
		"[Interface]\n"
		"Address = 10.0.0.1/24\n"
		"Address = fd00::1/64\n"
		"Address = 10.0.1.1/32\n"
		"DNS = 10.0.0.53\n"
		"DNS = fd00::53\n"
		"DNS = example.com\n"
		"MTU = 1280\n"
		"Table = 1234\n"
		"SaveConfig = true\n"
		"PreUp = echo pre up %i\n"
		"PostUp = iptables -A FORWARD -i %i -j ACCEPT; echo  two  spaces\n"
		"PostUp = echo second\n"
		"PreDown = echo pre down\n"
		"PostDown = echo post down\n";
	struct conffile cf, again;
	char err[256], *out, want_quick[sizeof(want_wg) + sizeof(want_quick_head)];

	if (!check(parse(&cf, every_key, CONFFILE_QUICK, err, sizeof(err)) == 0, "print: %s", err))
		return;
	out = print_text(&cf, CONFFILE_WG);
	check(out && !strcmp(out, want_wg), "print wg:\n%s", out ? out : "(null)");
	free(out);
	snprintf(want_quick, sizeof(want_quick), "%s%s", want_quick_head,
		 want_wg + strlen("[Interface]\n"));
	out = print_text(&cf, CONFFILE_QUICK);
	check(out && !strcmp(out, want_quick), "print quick:\n%s", out ? out : "(null)");
	/* What it prints reads back to what it prints. */
	if (out && check(parse(&again, out, CONFFILE_QUICK, err, sizeof(err)) == 0, "reparse: %s", err)) {
		char *out2 = print_text(&again, CONFFILE_QUICK);

		check(out2 && !strcmp(out, out2), "quick print round trip:\n%s", out2 ? out2 : "(null)");
		free(out2);
		conffile_clear(&again);
	}
	free(out);
	conffile_clear(&cf);

	/* Table off; a name endpoint as written; no peers: no blank line
	 * in wg-quick's form, one in wg's; no private key. */
	check(parse(&cf, "[Interface]\nTable = off\n", CONFFILE_QUICK, err, sizeof(err)) == 0, "off");
	out = print_text(&cf, CONFFILE_QUICK);
	check(out && !strcmp(out, "[Interface]\nTable = off\n"), "print off:\n%s", out ? out : "(null)");
	free(out);
	out = print_text(&cf, CONFFILE_WG);
	check(out && !strcmp(out, "[Interface]\n\n"), "print empty wg:\n%s", out ? out : "(null)");
	free(out);
	conffile_clear(&cf);
	check(parse(&cf, "[Peer]\nPublicKey = " K2 "\nEndpoint = vpn.example:9\n[Peer]\n"
		    "PublicKey = " K1 "\nEndpoint = [fe80::1%1]:9\n", CONFFILE_QUICK, err,
		    sizeof(err)) == 0, "name: %s", err);
	out = print_text(&cf, CONFFILE_QUICK);
	check(out && !strcmp(out, "[Interface]\n\n[Peer]\nPublicKey = " K2 "\nEndpoint = vpn.example:9\n"
			     "\n[Peer]\nPublicKey = " K1 "\nEndpoint = [fe80::1%lo]:9\n"),
	      "print name endpoint:\n%s", out ? out : "(null)");
	free(out);
	conffile_clear(&cf);
}

/* ---- loading ---- */

static void write_file(const char *path, mode_t mode, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || (len && write(fd, text, len) != (ssize_t)len) || fchmod(fd, mode) < 0)
		check(false, "write %s", path);
	if (fd >= 0)
		close(fd);
}

static void test_load(void)
{
	char dir[] = "/tmp/test_conffile.XXXXXX", path[64], err[256], want[128];
	const char *text = "[Interface]\nListenPort = 7\n";
	struct conffile cf;
	unsigned int mode;
	char *big;

	if (!check(mkdtemp(dir) != NULL, "mkdtemp"))
		return;
	snprintf(path, sizeof(path), "%s/wg0.conf", dir);

	/* The opened file's permission bits, whatever they are. */
	conffile_init(&cf);
	for (const mode_t *m = (const mode_t[]){ 0644, 0640, 0604, 0620, 0602, 0610, 0400, 0600, 0 };
	     *m; m++) {
		write_file(path, *m, text, strlen(text));
		mode = 0;
		check(conffile_load(&cf, path, CONFFILE_QUICK, &mode, err, sizeof(err)) == 0 &&
		      mode == *m && cf.dev.listen_port == 7, "load %o: mode %o: %s", *m, mode, err);
		conffile_clear(&cf);
	}
	check(conffile_load(&cf, path, CONFFILE_QUICK, NULL, err, sizeof(err)) == 0, "mode NULL");
	conffile_clear(&cf);

	/* A parse error names the path. */
	write_file(path, 0600, "[Interface]\nx\n", 14);
	snprintf(want, sizeof(want), "%s:2: not a [Section] nor Key = value", path);
	check(conffile_load(&cf, path, CONFFILE_QUICK, NULL, err, sizeof(err)) == -EINVAL &&
	      !strcmp(err, want) && is_empty(&cf), "load error: %s", err);

	/* CONFFILE_MAX (4 MiB) of comments is read; one byte more is refused. */
	big = malloc(CONFFILE_MAX + 1);
	memset(big, '#', CONFFILE_MAX + 1);
	memcpy(big, text, strlen(text));
	big[CONFFILE_MAX - 1] = '\n';
	write_file(path, 0600, big, CONFFILE_MAX);
	check(conffile_load(&cf, path, CONFFILE_QUICK, NULL, err, sizeof(err)) == 0 &&
	      cf.dev.listen_port == 7, "4 MiB: %s", err);
	conffile_clear(&cf);
	big[CONFFILE_MAX] = '\n';
	write_file(path, 0600, big, CONFFILE_MAX + 1);
	snprintf(want, sizeof(want), "%s: larger than 4 MiB", path);
	check(CONFFILE_MAX == 4u << 20 && conffile_load(&cf, path, CONFFILE_QUICK, NULL, err, sizeof(err)) == -EFBIG &&
	      !strcmp(err, want) && is_empty(&cf), "4 MiB + 1: %s", err);
	free(big);

	unlink(path);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	check(conffile_load(&cf, path, CONFFILE_QUICK, NULL, err, sizeof(err)) == -ENOENT &&
	      !strcmp(err, want) && is_empty(&cf), "missing file: %s", err);
	rmdir(dir);
}

/*
 * Constant time (ctgrind): the key's base64 characters (all but the '=' at
 * the end, which every key has) and its bytes are marked undefined for
 * memcheck, which then reports any branch or memory index that depends on
 * them.  Only the verdict valid/invalid is declassified.
 */
static int test_ct(void)
{
	uint8_t key[CONFIG_KEY_LEN];
	char b64[45];
	bool ok;

	if (!RUNNING_ON_VALGRIND) {
		printf("test_conffile --ct: not under valgrind, skipped\n");
		return 77;
	}
	for (int bad = 0; bad < 3; bad++) {
		memcpy(b64, K4, sizeof(b64));
		if (bad == 1)
			b64[20] = '*';	/* not base64 */
		if (bad == 2)
			b64[42] = 'B';	/* the two bits that must be 0 */
		VALGRIND_MAKE_MEM_UNDEFINED(b64, 43);
		ok = conffile_key_from_base64(key, b64, 44);
		VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof(ok));
		check(ok == !bad, "ct decode %d", bad);
	}
	key_bytes(key, 4);
	VALGRIND_MAKE_MEM_UNDEFINED(key, sizeof(key));
	conffile_key_to_base64(b64, key);
	VALGRIND_MAKE_MEM_DEFINED(b64, sizeof(b64));
	check(strcmp(b64, K4) == 0, "ct encode");
	printf("test_conffile --ct: %lu checks, %lu failures\n", tu_checks, tu_failures);
	return tu_failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--ct") == 0)
		return test_ct();
	test_base64();
	test_every_key();
	test_wg_format();
	test_forms();
	test_endpoints();
	test_endpoint_reader();
	test_endpoint_text();
	test_tables();
	test_errors();
	test_print();
	test_load();
	printf("%lu checks, %lu failures\n", tu_checks, tu_failures);
	return tu_failures ? 1 : 0;
}
