/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The timers' actions (expiry.c): when the device's deadline passes, what
 * timers_expire() says is due for each peer is done (retransmit or give
 * up, keepalives, zeroing keys, forgetting a source address).  Called by
 * the device; calls send, peer and the core.
 */
#ifndef WGD_EXPIRY_H
#define WGD_EXPIRY_H

#include <stdint.h>

#include "daemon/datapath/state.h"

/* Runs every peer's due timers at now; returns the earliest next deadline. */
uint64_t expiry_run(struct device *d, uint64_t now);

#endif
