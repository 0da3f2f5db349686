// SPDX-License-Identifier: GPL-2.0-only
/*
 * A driver of daemon/bringup/netcfg.c for tests/net/netcfg.sh: opens a TUN device,
 * applies the wishes of a small file with netcfg_apply() and prints
 * "fwmark N mtu M" (or "error: MESSAGE"); SIGHUP reads the file again and
 * applies it (a reload).  SIGTERM tears down and prints "down", keeping
 * the TUN device, so that the test sees what teardown left on the link; a
 * second SIGTERM closes the device and exits.
 *
 *   netcfg_tool IFNAME FILE
 *
 * The file has one wish per line: addr X/N, route X/N, endpoint IP:PORT
 * (IPv6 as [IP]:PORT), table auto|off|N, mtu N, fwmark N.  An endpoint
 * starts a new peer; a route is an allowed IP of the last peer (the first
 * peer, without an endpoint, before any endpoint line).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/base/log.h"
#include "daemon/bringup/netcfg.h"
#include "daemon/host/tun.h"

#define TOOL_MAX 64

struct tool_want {
	struct conffile_addr addrs[TOOL_MAX];
	struct config_allowedip routes[TOOL_MAX];
	struct config_peer peers[TOOL_MAX];
	size_t routes_len;
	struct netcfg_want w;
};

/* "X/N" into family, address and prefix length; false if malformed. */
static bool tool_prefix(const char *s, uint8_t *family, uint8_t addr[16], uint8_t *len)
{
	char buf[64], *slash;
	unsigned long n;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	if (!slash)
		return false;
	*slash++ = '\0';
	memset(addr, 0, 16);
	*family = strchr(buf, ':') ? AF_INET6 : AF_INET;
	n = strtoul(slash, NULL, 10);
	*len = (uint8_t)n;
	return inet_pton(*family, buf, addr) == 1 && n <= (*family == AF_INET ? 32u : 128u);
}

static bool tool_endpoint(const char *s, union config_endpoint *ep)
{
	char buf[64], *port;

	memset(ep, 0, sizeof(*ep));
	snprintf(buf, sizeof(buf), "%s", s[0] == '[' ? s + 1 : s);
	port = strrchr(buf, ':');
	if (!port)
		return false;
	*port++ = '\0';
	if (s[0] == '[') {
		if (!strchr(buf, ']'))
			return false;
		*strchr(buf, ']') = '\0';
		ep->in6.sin6_family = AF_INET6;
		ep->in6.sin6_port = htons((uint16_t)atoi(port));
		return inet_pton(AF_INET6, buf, &ep->in6.sin6_addr) == 1;
	}
	ep->in.sin_family = AF_INET;
	ep->in.sin_port = htons((uint16_t)atoi(port));
	return inet_pton(AF_INET, buf, &ep->in.sin_addr) == 1;
}

static int tool_read(struct tool_want *t, const char *path)
{
	struct netcfg_want *w = &t->w;
	char line[128], key[16], val[64];
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	memset(t, 0, sizeof(*t));
	w->addrs = t->addrs;
	w->peers = t->peers;
	while (fgets(line, sizeof(line), f)) {
		bool ok = true;

		if (sscanf(line, "%15s %63s", key, val) != 2)
			continue;
		if (!strcmp(key, "addr") && w->addrs_len < TOOL_MAX) {
			struct conffile_addr *a = &t->addrs[w->addrs_len++];

			ok = tool_prefix(val, &a->family, a->addr, &a->prefixlen);
		} else if (!strcmp(key, "route") && t->routes_len < TOOL_MAX) {
			struct config_allowedip *r = &t->routes[t->routes_len++];
			struct config_peer *p = &t->peers[w->peers_len ? w->peers_len - 1 : w->peers_len++];

			/* The last peer's allowed IPs are the last of routes. */
			if (!p->allowedips_len)
				p->allowedips = r;
			p->allowedips_len++;
			ok = tool_prefix(val, &r->family, r->addr, &r->cidr);
			config_allowedip_mask(r);
		} else if (!strcmp(key, "endpoint") && w->peers_len < TOOL_MAX) {
			struct config_peer *p = &t->peers[w->peers_len++];

			p->flags = CONFIG_PEER_HAS_ENDPOINT;
			ok = tool_endpoint(val, &p->endpoint);
		} else if (!strcmp(key, "table")) {
			w->table = !strcmp(val, "auto") ? CONFFILE_TABLE_AUTO :
				   !strcmp(val, "off") ? CONFFILE_TABLE_OFF : CONFFILE_TABLE_ID;
			w->table_id = (uint32_t)strtoul(val, NULL, 10);
		} else if (!strcmp(key, "mtu")) {
			w->mtu = (unsigned int)strtoul(val, NULL, 10);
		} else if (!strcmp(key, "fwmark")) {
			w->fwmark = (uint32_t)strtoul(val, NULL, 0);
		} else {
			ok = false;
		}
		if (!ok) {
			fprintf(stderr, "%s: bad line: %s", path, line);
			fclose(f);
			return -EINVAL;
		}
	}
	fclose(f);
	return 0;
}

static void tool_apply(struct netcfg *nc, struct tool_want *t, const char *path)
{
	char err[256];
	uint32_t mark = 0;
	int ret = tool_read(t, path);

	if (ret < 0) {
		printf("error: cannot read %s: %s\n", path, strerror(-ret));
	} else if (netcfg_apply(nc, &t->w, &mark, err, sizeof(err)) < 0) {
		printf("error: %s\n", err);
	} else {
		printf("fwmark %u mtu %u\n", mark, netcfg_mtu(nc));
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static struct tool_want want;
	struct netcfg *nc;
	struct tun tun;
	sigset_t set;
	int sig, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: %s IFNAME FILE\n", argv[0]);
		return 2;
	}
	log_init(argv[1], LOG_LEVEL_VERBOSE, true);
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ret = tun_open(&tun, argv[1]);
	if (ret < 0) {
		fprintf(stderr, "tun_open %s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	ret = netcfg_create(&nc, tun.ifindex, tun.name);
	if (ret < 0) {
		fprintf(stderr, "netcfg_create: %s\n", strerror(-ret));
		tun_close(&tun);
		return 1;
	}
	tool_apply(nc, &want, argv[2]);
	while (sigwait(&set, &sig) == 0 && sig == SIGHUP)
		tool_apply(nc, &want, argv[2]);
	netcfg_teardown(nc);
	netcfg_destroy(nc);
	printf("down\n");
	fflush(stdout);
	sigwait(&set, &sig);
	tun_close(&tun);
	return 0;
}
