/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inbound path (receive.c): a batch of datagrams the shell read into
 * the device's buffers, checked, opened and delivered.  Called by the
 * device's entry points; calls send (answers, staged packets), peer and
 * the core.
 */
#ifndef WGD_RECEIVE_H
#define WGD_RECEIVE_H

#include <stdint.h>

#include "daemon/datapath/device.h"

/* The buffers for the next read from a socket (device_rx_buffers()). */
struct udp_msg *receive_buffers(struct device *d, unsigned int *n);
/* The first got of them were filled from socket family (device_rx_batch()). */
void receive_batch(struct device *d, int family, unsigned int got, uint64_t now);
/* The reads are done: the merged group held back goes to the TUN device. */
void receive_flush(struct device *d);

#endif
