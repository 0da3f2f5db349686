/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket's set and get applied to the device (device_config.c),
 * behind the entry points device_config_set() and device_config_get().
 * Calls send (staged packets after an update), peer and the core.
 */
#ifndef WGD_DEVICE_CONFIG_H
#define WGD_DEVICE_CONFIG_H

#include <stdint.h>

#include "daemon/config/config.h"
#include "daemon/datapath/device.h"

/* A parsed set, in the order and with the meaning of config.h; 0 or -errno. */
int device_config_apply(struct device *d, const struct config_device *cfg, uint64_t now);
/* The device's configuration and counters into out; 0 or -errno. */
int device_config_read(struct device *d, struct config_device *out);

#endif
