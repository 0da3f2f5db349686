/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bring-up from a wg-quick file (wgd -c FILE, wgd up IFNAME): what
 * wg-quick(8) does around a device, done by the daemon on its started host,
 * plus reload and the matching teardown (issue 10).
 *
 *   bringup_load()   before anything is created: the file parsed (a bad file
 *                    is an error "FILE:LINE: problem" and nothing exists yet);
 *                    a warning when others have any access to it or to its
 *                    directory.
 *   bringup_start()  on a started host: PreUp, the [Interface]/[Peer] model
 *                    as one set, addresses/MTU/routes/rules (netcfg) and the
 *                    fwmark they need, host-name endpoints (dnsnames), DNS
 *                    through resolvconf, PostUp; SIGHUP then reloads.  On
 *                    failure everything it made is undone.
 *   bringup_serve()  after the privilege drop: the resolver thread may start.
 *   bringup_stop()   PreDown, SaveConfig, DNS removal, netcfg teardown,
 *                    PostDown; the host is stopped afterwards by the caller.
 *
 * What needs root after the privilege drop is the privileged monitor's
 * (daemon/base/privsep.h), and so, for one path, from the start: the hooks,
 * resolvconf, SaveConfig's write and a reload's read.  The monitor runs
 * each hook as root from the file as root read it (at its start and on a
 * reload), named by kind and index.
 *
 * Hooks run as /bin/sh -c COMMAND with every "%i" replaced by the interface
 * name, in file order, with the daemon's standard descriptors at its start
 * (the terminal or journal; /dev/null once a daemonized wgd has detached),
 * as root; a failing
 * PreUp or PostUp aborts the start.  While a hook runs the loop serves
 * (control socket, packets), so that a hook may run wg(8) on %i; a signal
 * meanwhile ends the wait (and fails a start).  PreUp runs once the TUN
 * device exists (it is made before the daemon forks, so that "device busy"
 * reaches the caller), before anything is configured on it.
 */
#ifndef WGD_BRINGUP_H
#define WGD_BRINGUP_H

#include <stdbool.h>
#include <stddef.h>

#include "daemon/host/host.h"

struct bringup;

/* 0, or -errno with "FILE:LINE: problem" or "FILE: reason" in err. */
int bringup_load(struct bringup **out, const char *path, char *err, size_t errlen);
/* 0, or -errno with the step at fault in err (all undone). */
int bringup_start(struct bringup *b, struct host *h, char *err, size_t errlen);
void bringup_stop(struct bringup *b);
/* Frees b (after bringup_stop, or when it never started); NULL is ok. */
void bringup_destroy(struct bringup *b);

/* Once the privileges are dropped: the host-name endpoints' resolver thread
 * may start (a thread made earlier would keep root's bounding set). */
void bringup_serve(struct bringup *b);
/* The file's absolute path, as loaded. */
const char *bringup_path(const struct bringup *b);

#endif
