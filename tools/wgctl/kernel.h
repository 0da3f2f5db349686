/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Linux kernel's WireGuard device as wgctl's other backend (generic
 * netlink, <linux/wireguard.h>): the same get and set as the control
 * socket's (tools/wgctl/ipc.h), for an interface that has no socket.
 * Errors are -errno; -ENODEV when the kernel has no WireGuard or no such
 * device, -EOPNOTSUPP when the interface is not a WireGuard one or a set
 * asks what the kernel's interface cannot say (removing one allowed IP).
 */
#ifndef WGCTL_KERNEL_H
#define WGCTL_KERNEL_H

#include "daemon/config/config.h"

int kernel_get(const char *ifname, struct config_device *out);
int kernel_set(const char *ifname, const struct config_device *cfg);

#endif
