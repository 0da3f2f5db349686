/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wgctl's side of the control socket (doc/control.md): one operation per
 * connection, as wg(8) makes them, so it works against any daemon that
 * speaks the cross-platform userspace API (wgd, wireguard-go).
 *
 * Errors are -errno; wgctl prints them as wg does ("Unable to access
 * interface: No such file or directory").
 */
#ifndef WGCTL_IPC_H
#define WGCTL_IPC_H

#include <stddef.h>
#include <sys/types.h>

#include "daemon/config/config.h"

/* The daemon's current configuration (a get).  0 or -errno. */
int ipc_get(const char *ifname, struct config_device *out);

/* Sends cfg as a set and returns the daemon's answer: 0 or -errno. */
int ipc_set(const char *ifname, const struct config_device *cfg);

/*
 * The interfaces with a socket, in directory order (as wg lists them): a
 * socket file that answers, or that this user may not connect to; one
 * that refuses the connection is removed, as wg removes it.
 * *names is one allocation of NUL-terminated names, *count of them.
 * 0 or -errno.
 */
int ipc_list(char **names, size_t *count);

/* The process on the other end of the interface's socket (SO_PEERCRED). */
int ipc_daemon_pid(const char *ifname, pid_t *pid);

/* Whether the interface's socket file still exists. */
int ipc_socket_exists(const char *ifname);

#endif
