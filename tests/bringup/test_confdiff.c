// SPDX-License-Identifier: GPL-2.0-only
/*
 * A reload's set message (daemon/bringup/confdiff.h) over a table of file pairs,
 * parsed by the real parser (conffile_parse): each case gives the old and
 * the new wg-quick text, the summary, the device flags and every entry of
 * the message in order (public key, flags, and the fields those flags
 * carry).  The cases: identical files (nothing, whatever the order of
 * their lines); only wg-quick keys changed (nothing: netcfg's part); each
 * peer field alone (only that flag); a peer's endpoint unchanged while
 * others change (no endpoint: a roamed endpoint survives); an endpoint
 * becoming a host name (changed, nothing to send); peers removed before
 * added ones; a private key and a listen port dropped from the file (the
 * "none" values).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/bringup/confdiff.h"
#include "daemon/config/conffile.h"

/* Placeholders in the texts: @A @B @C public keys, @P @Q preshared keys,
 * @K @L private keys; each a key of bytes all equal to its index + 1. */
static const char keys[] = "ABCPQKL";

struct want_peer {
	char key;			/* one of keys[] */
	uint32_t flags;
	const char *allowedips;		/* "10.0.0.0/24 ..." when REPLACE_ALLOWEDIPS */
	const char *endpoint;		/* "a.b.c.d:port" when HAS_ENDPOINT */
	char psk;			/* key letter, or 0 for zeros, when HAS_PRESHARED_KEY */
	uint16_t keepalive;		/* when HAS_KEEPALIVE */
};

struct diff_case {
	const char *name;
	const char *old, *new;
	unsigned int added, removed, changed;
	uint32_t dev_flags;
	char priv;			/* when HAS_PRIVATE_KEY: key letter or 0 */
	uint16_t port;			/* when HAS_LISTEN_PORT */
	struct want_peer peers[4];
	size_t npeers;
};

#define IFACE "[Interface]\nPrivateKey = @K\nListenPort = 51820\nAddress = 10.0.0.1/24\n"
#define PEER_A "[Peer]\nPublicKey = @A\nEndpoint = 192.0.2.1:51820\nAllowedIPs = 10.0.1.0/24\n"
#define PEER_B "[Peer]\nPublicKey = @B\nAllowedIPs = 10.0.2.0/24, fd00::/64\nPresharedKey = @P\n"

static const struct diff_case cases[] = {
	{ "identical files", IFACE PEER_A PEER_B, IFACE PEER_A PEER_B, 0, 0, 0, 0, 0, 0, { { 0 } }, 0 },
	{ "the same peer, its lines in another order", IFACE PEER_A,
	  IFACE "[Peer]\nAllowedIPs = 10.0.1.0/24\nEndpoint = 192.0.2.1:51820\nPublicKey = @A\n",
	  0, 0, 0, 0, 0, 0, { { 0 } }, 0 },
	{ "only wg-quick keys changed", IFACE PEER_A,
	  "[Interface]\nPrivateKey = @K\nListenPort = 51820\nAddress = 10.0.0.9/24\nMTU = 1300\n"
	  "DNS = 192.0.2.53\nPostUp = true\nTable = 7\n" PEER_A,
	  0, 0, 0, 0, 0, 0, { { 0 } }, 0 },
	{ "peer removed", IFACE PEER_A PEER_B, IFACE PEER_B, 0, 1, 0, 0, 0, 0,
	  { { 'A', CONFIG_PEER_REMOVE, NULL, NULL, 0, 0 } }, 1 },
	{ "peer added, as parsed", IFACE PEER_B, IFACE PEER_B PEER_A, 1, 0, 0, 0, 0, 0,
	  { { 'A', CONFIG_PEER_REPLACE_ALLOWEDIPS | CONFIG_PEER_HAS_ENDPOINT, "10.0.1.0/24",
	      "192.0.2.1:51820", 0, 0 } }, 1 },
	{ "removals come before additions", IFACE PEER_A,
	  IFACE "[Peer]\nPublicKey = @C\nAllowedIPs = 10.0.1.0/24\n", 1, 1, 0, 0, 0, 0,
	  { { 'A', CONFIG_PEER_REMOVE, NULL, NULL, 0, 0 },
	    { 'C', CONFIG_PEER_REPLACE_ALLOWEDIPS, "10.0.1.0/24", NULL, 0, 0 } }, 2 },
	{ "preshared key changed", IFACE PEER_B,
	  IFACE "[Peer]\nPublicKey = @B\nAllowedIPs = 10.0.2.0/24, fd00::/64\nPresharedKey = @Q\n",
	  0, 0, 1, 0, 0, 0, { { 'B', CONFIG_PEER_HAS_PRESHARED_KEY, NULL, NULL, 'Q', 0 } }, 1 },
	{ "preshared key dropped: zeros", IFACE PEER_B,
	  IFACE "[Peer]\nPublicKey = @B\nAllowedIPs = 10.0.2.0/24, fd00::/64\n",
	  0, 0, 1, 0, 0, 0, { { 'B', CONFIG_PEER_HAS_PRESHARED_KEY, NULL, NULL, 0, 0 } }, 1 },
	{ "keepalive added", IFACE PEER_A, IFACE PEER_A "PersistentKeepalive = 25\n",
	  0, 0, 1, 0, 0, 0, { { 'A', CONFIG_PEER_HAS_KEEPALIVE, NULL, NULL, 0, 25 } }, 1 },
	{ "keepalive dropped: off", IFACE PEER_A "PersistentKeepalive = 25\n", IFACE PEER_A,
	  0, 0, 1, 0, 0, 0, { { 'A', CONFIG_PEER_HAS_KEEPALIVE, NULL, NULL, 0, 0 } }, 1 },
	{ "keepalive 0 written out is no change", IFACE PEER_A, IFACE PEER_A "PersistentKeepalive = 0\n",
	  0, 0, 0, 0, 0, 0, { { 0 } }, 0 },
	{ "allowed IPs replaced, endpoint kept", IFACE PEER_A,
	  IFACE "[Peer]\nPublicKey = @A\nEndpoint = 192.0.2.1:51820\nAllowedIPs = 10.0.1.0/24, 10.0.3.0/24\n",
	  0, 0, 1, 0, 0, 0,
	  { { 'A', CONFIG_PEER_REPLACE_ALLOWEDIPS, "10.0.1.0/24 10.0.3.0/24", NULL, 0, 0 } }, 1 },
	{ "endpoint port changed", IFACE PEER_A,
	  IFACE "[Peer]\nPublicKey = @A\nEndpoint = 192.0.2.1:51821\nAllowedIPs = 10.0.1.0/24\n",
	  0, 0, 1, 0, 0, 0, { { 'A', CONFIG_PEER_HAS_ENDPOINT, NULL, "192.0.2.1:51821", 0, 0 } }, 1 },
	{ "endpoint now a host name: changed, nothing to send", IFACE PEER_A,
	  IFACE "[Peer]\nPublicKey = @A\nEndpoint = peer.example:51820\nAllowedIPs = 10.0.1.0/24\n",
	  0, 0, 1, 0, 0, 0, { { 0 } }, 0 },
	{ "private key changed, listen port dropped", IFACE PEER_A,
	  "[Interface]\nPrivateKey = @L\nAddress = 10.0.0.1/24\n" PEER_A, 0, 0, 0,
	  CONFIG_DEVICE_HAS_PRIVATE_KEY | CONFIG_DEVICE_HAS_LISTEN_PORT, 'L', 0, { { 0 } }, 0 },
	{ "private key dropped: zeros; a new port", IFACE PEER_A,
	  "[Interface]\nListenPort = 4000\n" PEER_A, 0, 0, 0,
	  CONFIG_DEVICE_HAS_PRIVATE_KEY | CONFIG_DEVICE_HAS_LISTEN_PORT, 0, 4000, { { 0 } }, 0 },
};

static void key_of(uint8_t key[CONFIG_KEY_LEN], char letter)
{
	memset(key, letter ? (int)(strchr(keys, letter) - keys) + 1 : 0, CONFIG_KEY_LEN);
}

/* text with every @X replaced by X's base64 key. */
static char *expand(const char *text)
{
	char *out = malloc(strlen(text) * 45 + 1), *o = out, b64[45];
	uint8_t key[CONFIG_KEY_LEN];

	if (!out)
		abort();
	for (; *text; text++) {
		if (*text == '@' && text[1] && strchr(keys, text[1])) {
			key_of(key, *++text);
			conffile_key_to_base64(b64, key);
			o += sprintf(o, "%s", b64);
		} else {
			*o++ = *text;
		}
	}
	*o = '\0';
	return out;
}

static int parse(struct conffile *cf, const char *name, const char *tmpl)
{
	char *text = expand(tmpl), err[256];
	int ret;

	conffile_init(cf);
	ret = conffile_parse(cf, name, text, strlen(text), CONFFILE_QUICK, err, sizeof(err));
	if (ret < 0)
		printf("  parse error: %s\n", err);
	free(text);
	return ret;
}

static void format_allowedips(char *out, size_t len, const struct config_peer *p)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t i = 0; i < p->allowedips_len; i++) {
		char ip[INET6_ADDRSTRLEN];

		inet_ntop(p->allowedips[i].family, p->allowedips[i].addr, ip, sizeof(ip));
		n += (size_t)snprintf(out + n, len - n, "%s%s/%u", i ? " " : "", ip,
				      p->allowedips[i].cidr);
	}
}

static int check_peer(const struct config_peer *p, const struct want_peer *w)
{
	uint8_t key[CONFIG_KEY_LEN];
	char buf[256];
	int bad = 0;

	key_of(key, w->key);
	if (memcmp(p->public_key, key, CONFIG_KEY_LEN)) {
		printf("  peer: not the key of %c\n", w->key);
		return 1;
	}
	if (p->flags != w->flags) {
		printf("  peer %c: flags 0x%x, want 0x%x\n", w->key, p->flags, w->flags);
		bad = 1;
	}
	if (w->flags & CONFIG_PEER_REPLACE_ALLOWEDIPS) {
		format_allowedips(buf, sizeof(buf), p);
		if (strcmp(buf, w->allowedips)) {
			printf("  peer %c: allowed IPs '%s', want '%s'\n", w->key, buf, w->allowedips);
			bad = 1;
		}
	} else if (p->allowedips_len) {
		printf("  peer %c: allowed IPs without REPLACE_ALLOWEDIPS\n", w->key);
		bad = 1;
	}
	if (w->flags & CONFIG_PEER_HAS_ENDPOINT) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &p->endpoint.in.sin_addr, ip, sizeof(ip));
		snprintf(buf, sizeof(buf), "%s:%u", ip, ntohs(p->endpoint.in.sin_port));
		if (p->endpoint.addr.sa_family != AF_INET || strcmp(buf, w->endpoint)) {
			printf("  peer %c: endpoint %s, want %s\n", w->key, buf, w->endpoint);
			bad = 1;
		}
	}
	key_of(key, w->psk);
	if ((w->flags & CONFIG_PEER_HAS_PRESHARED_KEY) &&
	    memcmp(p->preshared_key, key, CONFIG_KEY_LEN)) {
		printf("  peer %c: wrong preshared key\n", w->key);
		bad = 1;
	}
	if ((w->flags & CONFIG_PEER_HAS_KEEPALIVE) && p->persistent_keepalive != w->keepalive) {
		printf("  peer %c: keepalive %u, want %u\n", w->key, p->persistent_keepalive,
		       w->keepalive);
		bad = 1;
	}
	return bad;
}

static int run(const struct diff_case *c)
{
	struct conffile old, new;
	struct config_device set;
	struct confdiff_summary sum;
	uint8_t key[CONFIG_KEY_LEN];
	int bad = 0;

	if (parse(&old, "old.conf", c->old) < 0 || parse(&new, "new.conf", c->new) < 0)
		return 1;
	config_device_init(&set);
	if (confdiff_make(&set, &old, &new, &sum) < 0) {
		printf("  confdiff_make failed\n");
		return 1;
	}
	if (sum.added != c->added || sum.removed != c->removed || sum.changed != c->changed) {
		printf("  summary %u added, %u removed, %u changed; want %u, %u, %u\n", sum.added,
		       sum.removed, sum.changed, c->added, c->removed, c->changed);
		bad = 1;
	}
	if (set.flags != c->dev_flags || sum.device != (c->dev_flags != 0)) {
		printf("  device flags 0x%x, want 0x%x\n", set.flags, c->dev_flags);
		bad = 1;
	}
	key_of(key, c->priv);
	if ((c->dev_flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) &&
	    memcmp(set.private_key, key, CONFIG_KEY_LEN)) {
		printf("  wrong private key\n");
		bad = 1;
	}
	if ((c->dev_flags & CONFIG_DEVICE_HAS_LISTEN_PORT) && set.listen_port != c->port) {
		printf("  listen port %u, want %u\n", set.listen_port, c->port);
		bad = 1;
	}
	if (set.peers_len != c->npeers) {
		printf("  %zu peer entries, want %zu\n", set.peers_len, c->npeers);
		bad = 1;
	} else {
		for (size_t i = 0; i < set.peers_len; i++)
			bad |= check_peer(&set.peers[i], &c->peers[i]);
	}
	config_device_clear(&set);
	conffile_clear(&old);
	conffile_clear(&new);
	return bad;
}

int main(void)
{
	int failed = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int bad = run(&cases[i]);

		printf("%s: %s\n", bad ? "FAIL" : "ok", cases[i].name);
		failed += bad;
	}
	printf("%d failed\n", failed);
	return failed ? 1 : 0;
}
