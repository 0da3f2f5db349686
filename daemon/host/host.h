/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The host: the shell around one device.  It owns the event loop, the TUN
 * device, the UDP sockets, the netlink socket, the signals and the control
 * socket, implements the device's seam (io.h) with them, and turns their
 * readiness into the device's entry points, reading the boot clock once per
 * batch.
 *
 * Start-up order (host_start): loop, TUN handle, netlink (link state, MTU),
 * UDP sockets, signals, control socket.  host_stop() undoes it in reverse
 * and destroys the device, which wipes every key.
 */
#ifndef WGD_HOST_H
#define WGD_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/util.h"
#include "daemon/base/loop.h"
#include "daemon/config/config.h"
#include "daemon/control/control.h"
#include "daemon/host/tun.h"

struct host;

/* A host for the TUN device named name, its device empty; NULL on failure. */
WGD_COLD struct host *host_create(const char *name);
/* Frees a host that was never started. */
WGD_COLD void host_destroy(struct host *h);
/*
 * Takes ownership of the TUN device and the control socket and sets up
 * everything else.  0 or -errno with a message in err; on failure the
 * caller still owns tun and control.
 */
WGD_COLD int host_start(struct host *h, struct tun *tun, struct control *control, char *err, size_t errlen);
/*
 * The data path's cryptography on threads threads in all (the caller's and
 * threads - 1 workers, datapath/crypt.h; 1: none), each spinning spin_ns
 * when idle before it sleeps (0: the default).  Call after the privilege
 * drop: the workers hold what the process holds then.  0 or -errno (the
 * device then stays on one thread).
 */
WGD_COLD int host_start_workers(struct host *h, unsigned int threads, uint64_t spin_ns);
/* Runs until a signal, the control socket's deletion or the link's. */
WGD_COLD int host_run(struct host *h);
/* Tears everything down in reverse, wipes every key, frees h. */
WGD_COLD void host_stop(struct host *h);

/*
 * For the code around a started host (the configuration file's bring-up,
 * reload and host-name endpoints): the loop to add descriptors to, a set
 * or get exactly as through the control socket (0 or -errno), the TUN
 * device's index and name, and the function SIGHUP calls (NULL: SIGHUP is
 * logged and ignored).
 */
struct loop *host_loop(struct host *h);
WGD_COLD int host_config_apply(struct host *h, const struct config_device *cfg);
WGD_COLD int host_config_read(struct host *h, struct config_device *out);
int host_ifindex(const struct host *h);
const char *host_ifname(const struct host *h);
void host_set_reload(struct host *h, void (*reload)(void *ctx), void *ctx);

/* The control socket's operations; their context is the host. */
const struct control_ops *host_control_ops(void);

#endif
