/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wgctl set, setconf, addconf, syncconf: wg(8)'s arguments and files turned
 * into one set message (daemon/config/config.h's model, printed by daemon/config/uapi.c).
 * Values are read by the readers the files and the control socket use
 * (daemon/config/span.h, conffile_endpoint()), with wg's messages; host
 * names are resolved here (daemon/bringup/resolve.h), the daemon only ever
 * sees addresses.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "crypto/util.h"
#include "daemon/bringup/resolve.h"
#include "daemon/config/conffile.h"
#include "tools/wgctl/ipc.h"
#include "tools/wgctl/wgctl.h"

/* ---- values ---- */

/* Numbers, prefixes and endpoints are read by the daemon's readers
 * (daemon/config/span.h, conffile_endpoint()), as in a file or on the
 * control socket: one rule for each, whichever way a value comes in.  The
 * messages are wg's. */

static struct span span_of(const char *s)
{
	return (struct span){ s, strlen(s) };
}

/*
 * A number (span_num(): digits only, at most 65535), or a service name of
 * /etc/services, as wg takes one.  A service name starts with a letter;
 * whatever else getaddrinfo() would read as a number ("+5", " 99999") and
 * wrap to 16 bits, as wg does (99999 becomes 34463): refused here.
 */
static bool parse_port(struct config_device *dev, const char *value)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM,
		.ai_protocol = IPPROTO_UDP, .ai_flags = AI_PASSIVE,
	};
	struct addrinfo *res;
	uint64_t n;
	int ret;

	if (!*value) {
		fprintf(stderr, "Unable to parse empty port\n");
		return false;
	}
	if ((value[0] | 0x20) < 'a' || (value[0] | 0x20) > 'z') {
		if (!span_num(span_of(value), false, 65535, &n)) {
			fprintf(stderr, "Port is not in 0-65535: `%s'\n", value);
			return false;
		}
		dev->listen_port = (uint16_t)n;
		dev->flags |= CONFIG_DEVICE_HAS_LISTEN_PORT;
		return true;
	}
	ret = getaddrinfo(NULL, value, &hints, &res);
	if (ret) {
		fprintf(stderr, "%s: `%s'\n", ret == EAI_SYSTEM ? strerror(errno) : gai_strerror(ret),
			value);
		return false;
	}
	if (res->ai_family == AF_INET)
		dev->listen_port = ntohs(((struct sockaddr_in *)res->ai_addr)->sin_port);
	else
		dev->listen_port = ntohs(((struct sockaddr_in6 *)res->ai_addr)->sin6_port);
	freeaddrinfo(res);
	dev->flags |= CONFIG_DEVICE_HAS_LISTEN_PORT;
	return true;
}

static bool parse_fwmark(struct config_device *dev, const char *value)
{
	uint64_t n = 0;

	if (strcasecmp(value, "off") != 0 && !span_num(span_of(value), true, UINT32_MAX, &n)) {
		fprintf(stderr, "Fwmark is neither 0/off nor 0-0xffffffff: `%s'\n", value);
		return false;
	}
	dev->fwmark = (uint32_t)n;
	dev->flags |= CONFIG_DEVICE_HAS_FWMARK;
	return true;
}

static bool parse_keepalive(struct config_peer *peer, const char *value)
{
	uint64_t n = 0;

	if (strcasecmp(value, "off") != 0 && !span_num(span_of(value), false, 65535, &n)) {
		fprintf(stderr, "Persistent keepalive interval is neither 0/off nor 1-65535: `%s'\n",
			value);
		return false;
	}
	peer->persistent_keepalive = (uint16_t)n;
	peer->flags |= CONFIG_PEER_HAS_KEEPALIVE;
	return true;
}

static bool parse_key(uint8_t key[CONFIG_KEY_LEN], const char *value)
{
	if (!conffile_key_from_base64(key, value, strlen(value))) {
		fprintf(stderr, "Key is not the correct length or format: `%s'\n", value);
		crypto_wipe(key, CONFIG_KEY_LEN);
		return false;
	}
	return true;
}

/* A key file: the 44 base64 characters, then only white space; an empty
 * file is the all-zero key (which removes a private or preshared key). */
static bool parse_keyfile(uint8_t key[CONFIG_KEY_LEN], const char *path)
{
	char b64[45];
	bool ok = false;
	size_t n;
	FILE *f;
	int c;

	f = fopen(path, "r");
	if (!f) {
		perror("fopen");
		return false;
	}
	n = fread(b64, 1, 44, f);
	if (n != 44) {
		if (n == 0 && !ferror(f)) {
			memset(key, 0, CONFIG_KEY_LEN);
			ok = true;
		} else {
			fprintf(stderr, "Invalid length key in key file\n");
		}
		goto out;
	}
	b64[44] = '\0';
	while ((c = getc(f)) != EOF) {
		if (!isspace(c)) {
			fprintf(stderr, "Found trailing character in key file: `%c'\n", c);
			goto out;
		}
	}
	ok = parse_key(key, b64);
out:
	crypto_wipe(b64, sizeof(b64));
	fclose(f);
	return ok;
}

/*
 * resolve_endpoint(), tried again while the failure is temporary (no
 * network yet at boot), as wg does: WG_ENDPOINT_RESOLUTION_RETRIES times
 * (default 15, or "infinity"), waiting 1 s, then 1.2 times longer each
 * time, at most 20 s.  0, or -1 with the message printed.
 */
static int resolve(const char *host, uint16_t port, union config_endpoint *ep)
{
	const char *env = getenv("WG_ENDPOINT_RESOLUTION_RETRIES");
	uint64_t retries = 15;
	unsigned long wait_us = 1000000;
	bool forever = env && !strcmp(env, "infinity");
	char err[256];

	if (env && !forever && !span_num(span_of(env), false, INT_MAX, &retries)) {
		fprintf(stderr, "Unable to parse WG_ENDPOINT_RESOLUTION_RETRIES: `%s'\n", env);
		return -1;
	}
	for (;;) {
		int ret = resolve_endpoint(host, port, ep, err, sizeof(err));

		if (ret == 0)
			return 0;
		if (ret != -EAGAIN || (!forever && retries-- == 0)) {
			fprintf(stderr, "%s\n", err);
			return -1;
		}
		fprintf(stderr, "%s. Trying again in %.2f seconds...\n", err, wait_us / 1e6);
		usleep(wait_us);
		wait_us = wait_us * 6 / 5 > 20000000 ? 20000000 : wait_us * 6 / 5;
	}
}

/*
 * An endpoint as a file's Endpoint is read (conffile_endpoint()): IPv4:port,
 * [IPv6]:port or [IPv6%scope]:port, or host:port with the name resolved
 * here, as wg resolves it; the daemon only ever sees addresses.
 */
static bool parse_endpoint(struct config_peer *peer, const char *value)
{
	struct span host;
	uint16_t port;
	char name[256];
	int ret;

	if (!*value) {
		fprintf(stderr, "Unable to parse empty endpoint\n");
		return false;
	}
	ret = conffile_endpoint(span_of(value), &peer->endpoint, &host, &port);
	if (ret < 0) {
		fprintf(stderr, "Endpoint is not host:port, IPv4:port or [IPv6]:port: `%s'\n", value);
		return false;
	}
	/* A name is at most 253 characters: it fits. */
	if (ret == 1 && (!span_copy(name, sizeof(name), host) ||
			 resolve(name, port, &peer->endpoint) < 0))
		return false;
	peer->flags |= CONFIG_PEER_HAS_ENDPOINT;
	return true;
}

/* One entry of an allowed-ips list: ip[/cidr] (span_prefix(), as a file's
 * AllowedIPs), host bits cleared, with wg's two messages. */
static bool parse_prefix(struct config_allowedip *aip, const char *entry)
{
	const char *slash = strchr(entry, '/');
	struct span s = span_of(entry);

	memset(aip, 0, sizeof(*aip));
	aip->family = (uint8_t)span_prefix(s, false, aip->addr, &aip->cidr);
	if (aip->family != AF_UNSPEC) {
		uint8_t raw[sizeof(aip->addr)];

		/* The daemon clears host bits anyway (kernel and wireguard-go
		 * do too); the model keeps prefixes canonical.  wg warns. */
		memcpy(raw, aip->addr, sizeof(raw));
		config_allowedip_mask(aip);
		if (memcmp(raw, aip->addr, sizeof(raw)) != 0)
			fprintf(stderr, "Warning: AllowedIP has nonzero host part: %s\n", entry);
		return true;
	}
	/* The address alone, or the whole entry when only its length is bad. */
	if (slash)
		s.len = (size_t)(slash - entry);
	if (span_prefix(s, false, aip->addr, &aip->cidr) == AF_UNSPEC)
		fprintf(stderr, "Unable to parse IP address: `%.*s'\n", (int)s.len, entry);
	else
		fprintf(stderr, "AllowedIP is not in the correct format: `%s'\n", entry);
	return false;
}

/*
 * A comma-separated list (spaces already removed).  Replaces the peer's
 * allowed IPs, unless an entry carries a '+' (add) or '-' (remove) prefix,
 * which makes the whole list a change, as newer wg reads it.
 */
static bool parse_allowedips(struct config_peer *peer, char *list)
{
	char *entry;

	peer->flags |= CONFIG_PEER_REPLACE_ALLOWEDIPS;
	while ((entry = strsep(&list, ","))) {
		struct config_allowedip aip;
		bool remove = false;

		if (!*entry && !list)
			break;	/* "" alone: no allowed IPs at all */
		if (entry[0] == '+' || entry[0] == '-') {
			remove = entry[0] == '-';
			peer->flags &= ~CONFIG_PEER_REPLACE_ALLOWEDIPS;
			entry++;
		}
		if (!parse_prefix(&aip, entry))
			return false;
		aip.remove = remove;
		if (config_peer_add_allowedip(peer, &aip) < 0) {
			perror("allowed-ips");
			return false;
		}
	}
	return true;
}

static char *strip_spaces(const char *in)
{
	char *out = malloc(strlen(in) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *in; in++)
		if (!isspace((unsigned char)*in))
			*o++ = *in;
	*o = '\0';
	return out;
}

/* ---- set ---- */

/* wg set's arguments into dev; false (message printed) on the first bad one. */
static bool parse_set_args(struct config_device *dev, int argc, char **argv)
{
	struct config_peer *peer = NULL;

	while (argc > 0) {
		const char *arg = argv[0], *value = argc >= 2 ? argv[1] : NULL;
		bool ok = true;
		int used = 2;

		if (!strcmp(arg, "listen-port") && value && !peer) {
			ok = parse_port(dev, value);
		} else if (!strcmp(arg, "fwmark") && value && !peer) {
			ok = parse_fwmark(dev, value);
		} else if (!strcmp(arg, "private-key") && value && !peer) {
			ok = parse_keyfile(dev->private_key, value);
			dev->flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY;
		} else if (!strcmp(arg, "peer") && value) {
			uint8_t key[CONFIG_KEY_LEN];

			ok = parse_key(key, value);
			if (ok) {
				peer = config_device_add_peer(dev, key);
				if (!peer) {
					perror("peer");
					ok = false;
				}
			}
		} else if (!strcmp(arg, "remove") && peer) {
			peer->flags |= CONFIG_PEER_REMOVE;
			used = 1;
		} else if (!strcmp(arg, "endpoint") && value && peer) {
			ok = parse_endpoint(peer, value);
		} else if (!strcmp(arg, "allowed-ips") && value && peer) {
			char *list = strip_spaces(value);

			ok = list && parse_allowedips(peer, list);
			free(list);
		} else if (!strcmp(arg, "persistent-keepalive") && value && peer) {
			ok = parse_keepalive(peer, value);
		} else if (!strcmp(arg, "preshared-key") && value && peer) {
			ok = parse_keyfile(peer->preshared_key, value);
			peer->flags |= CONFIG_PEER_HAS_PRESHARED_KEY;
		} else {
			fprintf(stderr, "Invalid argument: %s\n", arg);
			ok = false;
		}
		if (!ok)
			return false;
		argv += used;
		argc -= used;
	}
	return true;
}

static int apply(const char *ifname, const struct config_device *dev)
{
	int err = ipc_set(ifname, dev);

	if (err < 0) {
		fprintf(stderr, "Unable to modify interface: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}

int wgctl_set(int argc, char **argv)
{
	struct config_device dev;
	int ret = 1;

	if (argc < 3) {
		fprintf(stderr, "Usage: %s %s <interface> [listen-port <port>] [fwmark <mark>] "
			"[private-key <file path>] [peer <base64 public key> [remove] "
			"[preshared-key <file path>] [endpoint <ip>:<port>] "
			"[persistent-keepalive <interval seconds>] "
			"[allowed-ips [+|-]<ip1>/<cidr1>[,[+|-]<ip2>/<cidr2>]...] ]...\n",
			wgctl_prog, argv[0]);
		return 1;
	}
	config_device_init(&dev);
	if (parse_set_args(&dev, argc - 2, argv + 2))
		ret = apply(argv[1], &dev);
	config_device_clear(&dev);
	return ret;
}

/* ---- setconf, addconf, syncconf ---- */

/* A file's warning, in wg's words (wg names no line). */
static void file_warning(void *ctx, const char *name, unsigned int line, const char *what)
{
	(void)ctx;
	(void)name;
	(void)line;
	fprintf(stderr, "Warning: %s\n", what);
}

/* The endpoints the file gave as host names, resolved now. */
static bool resolve_names(struct conffile *cf)
{
	for (size_t i = 0; i < cf->dev.peers_len; i++) {
		struct conffile_peer *cp = &cf->peers[i];
		struct config_peer *p = &cf->dev.peers[i];

		if (!cp->endpoint_is_name)
			continue;
		if (resolve(cp->endpoint_host, cp->endpoint_port, &p->endpoint) < 0)
			return false;
		p->flags |= CONFIG_PEER_HAS_ENDPOINT;
	}
	return true;
}

static int key_cmp(const void *a, const void *b)
{
	return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b, CONFIG_KEY_LEN);
}

/*
 * syncconf, as wg makes it: the file's configuration without
 * replace_peers (so unchanged peers keep their sessions), preceded by a
 * removal of every peer the device has and the file does not, and with an
 * explicit "none" for a preshared key or keepalive the device has and the
 * file no longer gives.  With no peers in the file or on the device, it
 * is a setconf.  Builds the message in *out.
 */
static int sync_conf(const char *ifname, struct config_device *file, struct config_device *out)
{
	struct config_device run;
	const uint8_t **keys = NULL;
	int ret;

	config_device_init(&run);
	if (!file->peers_len)
		return 1;
	ret = ipc_get(ifname, &run);
	if (ret < 0) {
		fprintf(stderr, "Unable to retrieve current interface configuration: %s\n",
			strerror(-ret));
		/* A reply that failed half-way left what it had read in run. */
		config_device_clear(&run);
		return -1;
	}
	ret = 1;
	if (!run.peers_len)
		goto done;
	keys = calloc(file->peers_len, sizeof(*keys));
	if (!keys) {
		ret = -1;
		goto done;
	}
	for (size_t i = 0; i < file->peers_len; i++)
		keys[i] = file->peers[i].public_key;
	qsort(keys, file->peers_len, sizeof(*keys), key_cmp);

	out->flags = file->flags & ~CONFIG_DEVICE_REPLACE_PEERS;
	memcpy(out->private_key, file->private_key, CONFIG_KEY_LEN);
	out->listen_port = file->listen_port;
	out->fwmark = file->fwmark;
	for (size_t i = 0; i < run.peers_len; i++) {
		const uint8_t *k = run.peers[i].public_key;
		struct config_peer *p;

		if (bsearch(&k, keys, file->peers_len, sizeof(*keys), key_cmp))
			continue;
		p = config_device_add_peer(out, k);
		if (!p)
			goto nomem;
		p->flags = CONFIG_PEER_REMOVE;
	}
	for (size_t i = 0; i < file->peers_len; i++) {
		struct config_peer *f = &file->peers[i];
		const struct config_peer *r = config_device_find_peer(&run, f->public_key);

		if (r && (r->flags & CONFIG_PEER_HAS_PRESHARED_KEY) &&
		    !(f->flags & CONFIG_PEER_HAS_PRESHARED_KEY)) {
			memset(f->preshared_key, 0, CONFIG_KEY_LEN);
			f->flags |= CONFIG_PEER_HAS_PRESHARED_KEY;
		}
		if (r && r->persistent_keepalive && !(f->flags & CONFIG_PEER_HAS_KEEPALIVE)) {
			f->persistent_keepalive = 0;
			f->flags |= CONFIG_PEER_HAS_KEEPALIVE;
		}
		if (!config_device_add_peer_copy(out, f))
			goto nomem;
	}
	ret = 0;
	goto done;
nomem:
	fprintf(stderr, "Peer allocation: %s\n", strerror(ENOMEM));
	ret = -1;
done:
	free(keys);
	config_device_clear(&run);
	return ret;
}

int wgctl_setconf(int argc, char **argv)
{
	bool add = !strcmp(argv[0], "addconf"), sync = !strcmp(argv[0], "syncconf");
	struct config_device synced;
	struct conffile cf;
	char err[512];
	int ret = 1, s = 1;

	if (argc != 3) {
		fprintf(stderr, "Usage: %s %s <interface> <configuration filename>\n", wgctl_prog,
			argv[0]);
		return 1;
	}
	conffile_init(&cf);
	cf.warn = file_warning;
	config_device_init(&synced);
	if (conffile_load(&cf, argv[2], CONFFILE_WG, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\nConfiguration parsing error\n", err);
		goto out;
	}
	if (!resolve_names(&cf))
		goto out;
	/* setconf and syncconf make the device exactly the file: what the
	 * file leaves out is reset (no private key, port 0, fwmark off). */
	if (!add)
		cf.dev.flags |= CONFIG_DEVICE_HAS_PRIVATE_KEY | CONFIG_DEVICE_HAS_LISTEN_PORT |
				CONFIG_DEVICE_HAS_FWMARK | CONFIG_DEVICE_REPLACE_PEERS;
	if (sync) {
		s = sync_conf(argv[1], &cf.dev, &synced);
		if (s < 0)
			goto out;
	}
	ret = apply(argv[1], s == 0 ? &synced : &cf.dev);
out:
	config_device_clear(&synced);
	conffile_clear(&cf);
	return ret;
}
