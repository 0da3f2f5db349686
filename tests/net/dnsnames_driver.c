// SPDX-License-Identifier: GPL-2.0-only
/*
 * A test driver for daemon/dnsnames.c until `wgd -c FILE` calls it: the
 * real host (TUN device, sockets, control socket, loop) as `wgd -f IFNAME`
 * runs it, plus peers whose endpoints are host names:
 *
 *   dnsnames_driver IFNAME KEYHEX HOST PORT [KEYHEX HOST PORT]...
 *
 * Each peer is created (public key only; the test sets the rest with wg)
 * and its HOST:PORT handed to dnsnames_update(), as a configuration file's
 * Endpoint = HOST:PORT would be; SIGHUP calls it again, as a reload does.
 * LOG_LEVEL as for wgd.  Runs in the foreground until SIGTERM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/conffile.h"
#include "daemon/dnsnames.h"
#include "daemon/host.h"
#include "daemon/log.h"
#include "daemon/uapi.h"

struct driver {
	struct dnsnames *dn;
	struct conffile cf;
};

static void driver_reload(void *ctx)
{
	struct driver *d = ctx;

	log_info("SIGHUP: resolving the names again");
	if (dnsnames_update(d->dn, &d->cf) < 0)
		log_error("dnsnames_update failed");
}

static int driver_peers(struct conffile *cf, int argc, char **argv)
{
	int i, n = argc / 3;

	cf->peers = calloc((size_t)n, sizeof(*cf->peers));
	if (!cf->peers)
		return -1;
	for (i = 0; i < n; i++) {
		uint8_t key[CONFIG_KEY_LEN];
		const char *hex = argv[3 * i];

		if (!uapi_key_from_hex(key, hex, strlen(hex)) || !config_device_add_peer(&cf->dev, key))
			return -1;
		cf->peers[i].endpoint_host = argv[3 * i + 1];
		cf->peers[i].endpoint_port = (uint16_t)atoi(argv[3 * i + 2]);
		cf->peers[i].endpoint_is_name = true;
		cf->peers[i].line = (unsigned int)i + 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *env = getenv("LOG_LEVEL");
	struct control *control = NULL;
	struct driver d = { 0 };
	struct host *host;
	struct tun tun;
	char msg[200];
	int ret;

	if (argc < 5 || (argc - 2) % 3) {
		fprintf(stderr, "usage: %s IFNAME KEYHEX HOST PORT [KEYHEX HOST PORT]...\n", argv[0]);
		return 2;
	}
	log_init(argv[1], env && log_parse_level(env) >= 0 ? (enum log_level)log_parse_level(env)
							   : LOG_LEVEL_ERROR, true);
	config_device_init(&d.cf.dev);
	if (!x25519_init() || driver_peers(&d.cf, argc - 2, argv + 2) < 0) {
		log_error("bad arguments or out of memory");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	if (tun_open(&tun, argv[1]) < 0 || !(host = host_create(tun.name))) {
		log_error("cannot create %s", argv[1]);
		return 1;
	}
	if (control_open(&control, tun.name, NULL, host_control_ops(), host) < 0 ||
	    host_start(host, &tun, control, msg, sizeof(msg)) < 0) {
		log_error("cannot start %s", argv[1]);
		return 1;
	}
	/* As the bring-up applies a file: the peers, then their names. */
	ret = host_config_apply(host, &d.cf.dev);
	if (!ret)
		ret = dnsnames_create(&d.dn, host);
	if (!ret)
		ret = dnsnames_update(d.dn, &d.cf);
	if (ret < 0) {
		log_error("cannot set up the peers: %s", strerror(-ret));
		return 1;
	}
	host_set_reload(host, driver_reload, &d);
	log_info("serving %s", tun.name);
	ret = host_run(host);
	dnsnames_destroy(d.dn);
	host_stop(host);
	config_device_clear(&d.cf.dev);
	free(d.cf.peers);
	log_clear();
	return ret < 0 ? 1 : 0;
}
