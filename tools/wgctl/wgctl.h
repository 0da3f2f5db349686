/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wgctl: wg(8)'s commands over the control socket, plus `show --json`,
 * `up` and `down`.  Each command is a function taking its own argv (argv[0]
 * is the command's name) and returning the exit status, as wg's do.
 */
#ifndef WGCTL_H
#define WGCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/config/config.h"

extern const char *wgctl_prog;	/* argv[0], for messages as wg words them */

/* What `show` knows of one interface. */
struct wgctl_device {
	const char *name;
	struct config_device cfg;
	uint8_t public_key[CONFIG_KEY_LEN];	/* from the private key, when there is one */
};

/* A get of ifname into dev (the public key derived); 0 or -errno. */
int wgctl_device_get(struct wgctl_device *dev, const char *ifname);
void wgctl_device_clear(struct wgctl_device *dev);

int wgctl_show(int argc, char **argv);
int wgctl_showconf(int argc, char **argv);
int wgctl_set(int argc, char **argv);
int wgctl_setconf(int argc, char **argv);	/* also addconf, syncconf */
int wgctl_genkey(int argc, char **argv);	/* also genpsk */
int wgctl_pubkey(int argc, char **argv);
int wgctl_up(int argc, char **argv);
int wgctl_down(int argc, char **argv);

#endif
