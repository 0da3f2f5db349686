/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration files (daemon/config/conffile.c) where wg(8) and the
 * kernel set the rule (issue 25, item 8): a PublicKey in two [Peer]s;
 * AllowedIPs lists (no empty item, whitespace inside a prefix, the
 * warning for host bits); whitespace inside the other tokens of wg's keys
 * and the sections; service names: in ListenPort (/etc/services, from
 * Debian's netbase), not in an Endpoint.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config/conffile.h"

#include "tests/lib/testutil.h"

#define check tu_check

/* Keys: K1 = bytes 01..20, K2 = all 0xab, K3 = all 0xff (base64). */
#define K1 "AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="
#define K2 "q6urq6urq6urq6urq6urq6urq6urq6urq6urq6urq6s="
#define K3 "//////////////////////////////////////////8="

static int parse(struct conffile *cf, const char *text, enum conffile_format fmt,
		 char *err, size_t errlen)
{
	conffile_init(cf);
	return conffile_parse(cf, "t.conf", text, strlen(text), fmt, err, errlen);
}

static bool aip_is(const struct config_allowedip *a, int family, const char *addr, unsigned int cidr)
{
	uint8_t want[16] = { 0 };

	inet_pton(family, addr, want);
	return a->family == family && a->cidr == cidr && !a->remove &&
	       memcmp(a->addr, want, 16) == 0;
}

static bool key_fill_is(const uint8_t *k, uint8_t byte)
{
	for (int i = 0; i < CONFIG_KEY_LEN; i++)
		if (k[i] != byte)
			return false;
	return true;
}

/*
 * A PublicKey in a second [Peer] is the same peer, set again, as wg setconf
 * sets it in the kernel or wireguard-go: what the later [Peer] gives
 * replaces, the rest stays; its AllowedIPs (none here for K1's third)
 * replace the earlier ones.  The peer keeps the place of its first [Peer].
 */
static void test_same_peer_twice(void)
{
	struct conffile cf;
	char err[256];
	int ret = parse(&cf,
			"[Interface]\n"
			"[Peer]\nPublicKey = " K1 "\nPresharedKey = " K2 "\nEndpoint = 192.0.2.1:1\n"
			"PersistentKeepalive = 25\nAllowedIPs = 10.0.0.1/32\n"
			"[Peer]\nPublicKey = " K2 "\nAllowedIPs = 10.2.0.0/16\n"
			"[Peer]\nPublicKey = " K1 "\nEndpoint = peer.example:2\nAllowedIPs = 10.0.0.2/32\n"
			"[Peer]\nPublicKey = " K3 "\n"
			"[Peer]\nPublicKey = " K2 "\nPresharedKey = " K3 "\nEndpoint = [fd00::1]:3\n"
			"[Peer]\nPublicKey = " K1 "\nPersistentKeepalive = 0\n",
			CONFFILE_QUICK, err, sizeof(err));

	if (!check(ret == 0, "same PublicKey in three [Peer]s: %d %s", ret, err))
		return;
	if (check(cf.dev.peers_len == 3, "three peers, %zu", cf.dev.peers_len)) {
		struct config_peer *p1 = &cf.dev.peers[0], *p2 = &cf.dev.peers[1];

		check(p1->public_key[0] == 1 && key_fill_is(p2->public_key, 0xab) &&
		      key_fill_is(cf.dev.peers[2].public_key, 0xff), "in the order of first mention");
		check((p1->flags & CONFIG_PEER_HAS_PRESHARED_KEY) && key_fill_is(p1->preshared_key, 0xab),
		      "K1: the first PresharedKey stays");
		check((p1->flags & CONFIG_PEER_HAS_KEEPALIVE) && p1->persistent_keepalive == 0,
		      "K1: the last PersistentKeepalive counts");
		check(!(p1->flags & CONFIG_PEER_HAS_ENDPOINT) && cf.peers[0].endpoint_is_name &&
		      !strcmp(cf.peers[0].endpoint_host, "peer.example") && cf.peers[0].endpoint_port == 2,
		      "K1: the later Endpoint, a name, replaces the address");
		check(p1->allowedips_len == 0 && (p1->flags & CONFIG_PEER_REPLACE_ALLOWEDIPS),
		      "K1: the last [Peer] had no AllowedIPs: none (%zu)", p1->allowedips_len);
		check(key_fill_is(p2->preshared_key, 0xff) && (p2->flags & CONFIG_PEER_HAS_ENDPOINT) &&
		      p2->endpoint.addr.sa_family == AF_INET6 && !cf.peers[1].endpoint_is_name,
		      "K2: the later PresharedKey and Endpoint");
		check(p2->allowedips_len == 0, "K2: its later [Peer] had no AllowedIPs");
		check(cf.peers[1].line == 8, "K2: the line of its first [Peer], %u", cf.peers[1].line);
	}
	conffile_clear(&cf);

	/* The later AllowedIPs replace the earlier; the earlier Endpoint stays. */
	ret = parse(&cf, "[Peer]\nPublicKey = " K1 "\nEndpoint = 192.0.2.1:1\nAllowedIPs = 10.0.0.1/32\n"
		    "[Peer]\nPublicKey = " K1 "\nAllowedIPs = 10.0.0.2/32, 10.0.0.3/32\n",
		    CONFFILE_WG, err, sizeof(err));
	check(ret == 0 && cf.dev.peers_len == 1 && cf.dev.peers[0].allowedips_len == 2 &&
	      aip_is(&cf.dev.peers[0].allowedips[0], AF_INET, "10.0.0.2", 32) &&
	      (cf.dev.peers[0].flags & CONFIG_PEER_HAS_ENDPOINT) &&
	      !strcmp(cf.peers[0].endpoint_host, "192.0.2.1"), "the later AllowedIPs: %s", err);
	conffile_clear(&cf);
}

/* Many peers, each named twice: merged in O(n log n), the order kept. */
static void test_many_twice(void)
{
	size_t n = 2000, cap = n * 2 * 128, len = 0;
	char *text = malloc(cap), b64[45], err[256];
	uint8_t k[CONFIG_KEY_LEN] = { 0 };
	struct conffile cf;
	bool order = true;

	if (!check(text != NULL, "malloc"))
		return;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			k[0] = (uint8_t)(i >> 8);
			k[1] = (uint8_t)i;
			conffile_key_to_base64(b64, k);
			len += (size_t)snprintf(text + len, cap - len, "[Peer]\nPublicKey=%s\nAllowedIPs=10.%zu.%zu.%zu/32\n",
						b64, pass, i >> 8, i & 255);
		}
	}
	conffile_init(&cf);
	check(conffile_parse(&cf, "t.conf", text, len, CONFFILE_WG, err, sizeof(err)) == 0, "%s", err);
	check(cf.dev.peers_len == n, "%zu peers", cf.dev.peers_len);
	for (size_t i = 0; i < cf.dev.peers_len && order; i++)
		order = cf.dev.peers[i].public_key[1] == (uint8_t)i &&
			cf.dev.peers[i].allowedips_len == 1 && cf.dev.peers[i].allowedips[0].addr[1] == 1;
	check(order, "each peer at its first place, with its second AllowedIPs");
	conffile_clear(&cf);
	free(text);
}

/* The warnings a parse gave, one per line "NAME:LINE: what". */
static char warned[512];

static void note_warning(void *ctx, const char *name, unsigned int line, const char *what)
{
	size_t n = strlen(warned);

	(void)ctx;
	snprintf(warned + n, sizeof(warned) - n, "%s:%u: %s\n", name, line, what);
}

static void test_allowedips(void)
{
	static const struct { const char *value, *err; } bad[] = {
		/* an empty item, as wg refuses it ("Unable to parse IP address: `'") */
		{ "", "t.conf:3: AllowedIPs without a value" },
		{ "10.0.0.0/8,", "t.conf:3: invalid AllowedIPs `10.0.0.0/8,' (IP addresses with optional /prefix lengths)" },
		{ "10.0.0.0/8,,10.1.0.0/16", "t.conf:3: invalid AllowedIPs `10.0.0.0/8,,10.1.0.0/16' (IP addresses with optional /prefix lengths)" },
		{ ", 10.0.0.0/8", "t.conf:3: invalid AllowedIPs `, 10.0.0.0/8' (IP addresses with optional /prefix lengths)" },
		{ " , ", "t.conf:3: invalid AllowedIPs `,' (IP addresses with optional /prefix lengths)" },
		{ ",", "t.conf:3: invalid AllowedIPs `,' (IP addresses with optional /prefix lengths)" },
		{ "10.0.0.0/8, 10.0.0.300", "t.conf:3: invalid AllowedIPs `10.0.0.300' (IP addresses with optional /prefix lengths)" },
	};
	struct conffile cf;
	char text[256], err[256];
	int ret;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[Peer]\nPublicKey = " K1 "\nAllowedIPs = %s\n", bad[i].value);
		ret = parse(&cf, text, CONFFILE_WG, err, sizeof(err));
		check(ret == -EINVAL && !strcmp(err, bad[i].err), "AllowedIPs = `%s': %d `%s', want `%s'",
		      bad[i].value, ret, err, bad[i].err);
	}
	/* Whitespace inside a prefix, as wg drops it; between prefixes, a
	 * separator (where wg would join them into one that fails). */
	ret = parse(&cf, "[Peer]\nPublicKey = " K1 "\nAllowedIPs = 10.0.0.0 /8, fd00:: / 64\n"
		    "AllowedIPs = 10.1.0.1/32 10.1.0.2/32\n", CONFFILE_WG, err, sizeof(err));
	check(ret == 0 && cf.dev.peers[0].allowedips_len == 4 &&
	      aip_is(&cf.dev.peers[0].allowedips[0], AF_INET, "10.0.0.0", 8) &&
	      aip_is(&cf.dev.peers[0].allowedips[1], AF_INET6, "fd00::", 64) &&
	      aip_is(&cf.dev.peers[0].allowedips[3], AF_INET, "10.1.0.2", 32),
	      "whitespace inside and between prefixes: %d %s", ret, err);
	conffile_clear(&cf);

	/* Host bits: taken masked, with wg's warning, for each such prefix. */
	warned[0] = '\0';
	conffile_init(&cf);
	cf.warn = note_warning;
	snprintf(text, sizeof(text), "[Interface]\n[Peer]\nPublicKey = " K1 "\n"
		 "AllowedIPs = 10.0.0.1/8, 10.2.0.0/16, fd00::1/64\nAllowedIPs = 10.3.0.0 /8\n");
	ret = conffile_parse(&cf, "t.conf", text, strlen(text), CONFFILE_WG, err, sizeof(err));
	check(ret == 0 && cf.dev.peers[0].allowedips_len == 4 &&
	      aip_is(&cf.dev.peers[0].allowedips[0], AF_INET, "10.0.0.0", 8) &&
	      aip_is(&cf.dev.peers[0].allowedips[3], AF_INET, "10.0.0.0", 8), "host bits masked: %s", err);
	check(!strcmp(warned, "t.conf:4: AllowedIP has nonzero host part: 10.0.0.1/8\n"
			      "t.conf:4: AllowedIP has nonzero host part: fd00::1/64\n"
			      "t.conf:5: AllowedIP has nonzero host part: 10.3.0.0/8\n"),
	      "the warnings: %s", warned);
	conffile_clear(&cf);
}

/* Whitespace wherever wg drops it: sections, wg's key names and values. */
static void test_whitespace(void)
{
	struct conffile cf;
	char err[256];
	int ret = parse(&cf,
			"[ Interface ]\nPrivate Key = AQIDBAUGBwgJCgsMDQ4PEBES ExQVFhcYGRobHB0eHyA=\n"
			"Listen Port = 51 820\nFwMark = 0x 10\n"
			"[Peer ]\nPublic Key = " K2 "\nEndpoint = 192.0.2.1 : 5\n"
			"Persistent Keepalive = 2 5\n"
			"[\tPeer\t]\nPublicKey = " K3 "\nEndpoint = [ fd00::1 ] :6\n",
			CONFFILE_WG, err, sizeof(err));

	if (!check(ret == 0, "whitespace inside wg's tokens: %d %s", ret, err))
		return;
	check(cf.dev.private_key[0] == 1 && cf.dev.private_key[31] == 0x20 &&
	      cf.dev.listen_port == 51820 && cf.dev.fwmark == 16, "the device's values");
	check(cf.dev.peers_len == 2 && cf.dev.peers[0].persistent_keepalive == 25 &&
	      ntohs(cf.dev.peers[0].endpoint.in.sin_port) == 5 &&
	      cf.dev.peers[1].endpoint.addr.sa_family == AF_INET6 &&
	      ntohs(cf.dev.peers[1].endpoint.in6.sin6_port) == 6, "the peers' values");
	conffile_clear(&cf);
	/* Not in wg-quick's keys (wg-quick does not drop it there either). */
	ret = parse(&cf, "[Interface]\nMTU = 14 20\n", CONFFILE_QUICK, err, sizeof(err));
	check(ret == -EINVAL && !strcmp(err, "t.conf:2: invalid MTU `14 20' (68 to 65535)"), "MTU: %s", err);
	ret = parse(&cf, "[Interface]\nPost Up = true\n", CONFFILE_QUICK, err, sizeof(err));
	check(ret == -EINVAL && !strcmp(err, "t.conf:2: unknown key `Post'"), "Post Up: %s", err);
	/* A key name running into a key is not quoted past its first word. */
	ret = parse(&cf, "[Interface]\nPrivateKey " K1 " = 1\n", CONFFILE_WG, err, sizeof(err));
	check(ret == -EINVAL && !strcmp(err, "t.conf:2: unknown key `PrivateKey'"), "key in a name: %s", err);
}

static void test_service_ports(void)
{
	struct conffile cf;
	char err[256];
	int ret = parse(&cf, "[Interface]\nListenPort = domain\n", CONFFILE_WG, err, sizeof(err));

	check(ret == 0 && cf.dev.listen_port == 53 && (cf.dev.flags & CONFIG_DEVICE_HAS_LISTEN_PORT),
	      "ListenPort = domain (53 in /etc/services): %d %s", ret, err);
	conffile_clear(&cf);
	ret = parse(&cf, "[Interface]\nListenPort = nosuchservice\n", CONFFILE_WG, err, sizeof(err));
	check(ret == -EINVAL && !strcmp(err, "t.conf:2: invalid ListenPort `nosuchservice' (0 to 65535)"),
	      "an unknown service: %s", err);
	/* An Endpoint's port is a number (no WireGuard service is in
	 * /etc/services; the control socket takes numbers only). */
	ret = parse(&cf, "[Peer]\nPublicKey = " K1 "\nEndpoint = 192.0.2.1:domain\n", CONFFILE_WG, err,
		    sizeof(err));
	check(ret == -EINVAL, "Endpoint = 192.0.2.1:domain: %s", err);
}

int main(void)
{
	test_same_peer_twice();
	test_many_twice();
	test_allowedips();
	test_whitespace();
	test_service_ports();
	printf("%lu checks, %lu failures\n", tu_checks, tu_failures);
	return tu_failures ? 1 : 0;
}
