/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration files printed (daemon/config/conffile.h): wg's format as
 * `wg showconf` prints it, byte for byte (tests/net/conffile.sh), and
 * wg-quick's as its SaveConfig writes it back.  The keys are spelt as the
 * parser (conffile.c) reads them.
 */
#include "daemon/config/conffile.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "crypto/util.h"

/* "Name = <base64>\n"; the stack copy of a secret key's base64 is wiped. */
static void print_key(FILE *f, const char *name, const uint8_t key[CONFIG_KEY_LEN])
{
	char b64[45];

	conffile_key_to_base64(b64, key);
	fprintf(f, "%s = %s\n", name, b64);
	crypto_wipe(b64, sizeof(b64));
}

/* host:port, host in brackets when it is an IPv6 address. */
static void endpoint_join(char *buf, size_t len, const char *host, unsigned int port)
{
	bool v6 = strchr(host, ':');

	snprintf(buf, len, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

int conffile_endpoint_text(char *buf, size_t len, const union config_endpoint *ep)
{
	char host[INET6_ADDRSTRLEN + IF_NAMESIZE];
	int ret;

	ret = getnameinfo(&ep->addr, ep->addr.sa_family == AF_INET6 ? sizeof(ep->in6) :
			  sizeof(ep->in), host, sizeof(host), NULL, 0, NI_DGRAM | NI_NUMERICHOST);
	if (ret)
		return ret;
	/* sin_port and sin6_port are at the same offset. */
	endpoint_join(buf, len, host, ntohs(ep->in.sin_port));
	return 0;
}

/* The model's address when it has one, else a host name the file gave, as
 * written. */
static void print_endpoint(FILE *f, const struct config_peer *peer,
			   const struct conffile_peer *cp)
{
	char buf[CONFFILE_ENDPOINT_TEXT_MAX];

	if (config_peer_has_endpoint(peer)) {
		if (conffile_endpoint_text(buf, sizeof(buf), &peer->endpoint) != 0)
			return;
	} else if (cp && cp->endpoint_host) {
		endpoint_join(buf, sizeof(buf), cp->endpoint_host, cp->endpoint_port);
	} else {
		return;
	}
	fprintf(f, "Endpoint = %s\n", buf);
}

static void print_peer(FILE *f, const struct config_peer *peer, const struct conffile_peer *cp)
{
	char ip[INET6_ADDRSTRLEN];

	fprintf(f, "\n[Peer]\n");	/* a blank line before each section */
	print_key(f, "PublicKey", peer->public_key);
	/* A get gives zeros for "no preshared key", as wg(8) reads it. */
	if (!crypto_is_zero(peer->preshared_key, CONFIG_KEY_LEN))
		print_key(f, "PresharedKey", peer->preshared_key);
	for (size_t i = 0; i < peer->allowedips_len; i++) {
		const struct config_allowedip *a = &peer->allowedips[i];

		if (inet_ntop(a->family, a->addr, ip, sizeof(ip)))
			fprintf(f, "%s%s/%u", i ? ", " : "AllowedIPs = ", ip, a->cidr);
	}
	if (peer->allowedips_len)
		fputc('\n', f);
	print_endpoint(f, peer, cp);
	if (peer->persistent_keepalive)
		fprintf(f, "PersistentKeepalive = %u\n", peer->persistent_keepalive);
}

/* "key = value" for each of the n strings of v. */
static void print_strv(FILE *f, const char *key, char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s = %s\n", key, v[i]);
}

/* wg-quick's own keys, in the order its save_config writes them. */
static void print_quick(FILE *f, const struct conffile *cf)
{
	char ip[INET6_ADDRSTRLEN];

	for (size_t i = 0; i < cf->addrs_len; i++)
		if (inet_ntop(cf->addrs[i].family, cf->addrs[i].addr, ip, sizeof(ip)))
			fprintf(f, "Address = %s/%u\n", ip, cf->addrs[i].prefixlen);
	print_strv(f, "DNS", cf->dns, cf->dns_len);
	if (cf->mtu)
		fprintf(f, "MTU = %u\n", cf->mtu);
	if (cf->table == CONFFILE_TABLE_OFF)
		fprintf(f, "Table = off\n");
	else if (cf->table == CONFFILE_TABLE_ID)
		fprintf(f, "Table = %" PRIu32 "\n", cf->table_id);
	if (cf->save_config)
		fprintf(f, "SaveConfig = true\n");
	for (int h = 0; h < CONFFILE_NHOOKS; h++)
		print_strv(f, conffile_hook_key(h), cf->hooks[h], cf->hooks_len[h]);
}

int conffile_print(FILE *f, const struct conffile *cf, enum conffile_format fmt)
{
	const struct config_device *dev = &cf->dev;

	fprintf(f, "[Interface]\n");
	if (fmt == CONFFILE_QUICK)
		print_quick(f, cf);
	if (dev->listen_port)
		fprintf(f, "ListenPort = %u\n", dev->listen_port);
	if (dev->fwmark)
		fprintf(f, "FwMark = 0x%" PRIx32 "\n", dev->fwmark);
	if ((dev->flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) &&
	    !crypto_is_zero(dev->private_key, CONFIG_KEY_LEN))
		print_key(f, "PrivateKey", dev->private_key);
	/* Each [Peer] starts with a blank line (print_peer); wg showconf ends
	 * with one without peers too.  wg-quick writes that text through
	 * $(...) and echo, which leaves one '\n' at the end: no blank line
	 * without peers. */
	if (fmt == CONFFILE_WG && !dev->peers_len)
		fputc('\n', f);
	for (size_t i = 0; i < dev->peers_len; i++)
		print_peer(f, &dev->peers[i], cf->peers ? &cf->peers[i] : NULL);
	if (fflush(f) == EOF || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
