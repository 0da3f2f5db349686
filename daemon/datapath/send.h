/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one transmit path: data from the TUN device, staged packets,
 * handshake messages, keepalives and cookie replies all leave through it,
 * so that what the host took is counted, and reported to the timers, in one
 * place (send.c), which also has the TUN side's entry points (device.h).
 * Calls go down: device, receive, expiry and the config apply call send;
 * send calls peer and the core.
 */
#ifndef WGD_SEND_H
#define WGD_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/datapath/peer.h"
#include "daemon/datapath/state.h"

/*
 * Sends the sealed slots (one io.send()) and reports them to their peers;
 * with workers a batch may wait for the next flush, unless all
 * (send.c); device_tx_flush() is this with all for the shell, and tells
 * it the deadline.
 */
void send_flush(struct device *d, uint64_t now, bool all);

/* Seals and sends the staged packets if the current keypair can send. */
void send_staged(struct peer *p, uint64_t now);
/* An empty data message, or the staged packets if there are any. */
void send_keepalive(struct peer *p, uint64_t now);
/* The send path needs a session: initiate unless one is in flight. */
void send_want_handshake(struct peer *p, uint64_t now);
/* Creates and sends an initiation now (the timers asked for it). */
void send_initiation(struct peer *p, uint64_t now);
/* Creates and sends the response to the initiation just consumed. */
void send_response(struct peer *p, uint64_t now);
/* A cookie reply (not a peer's: the sender of what it answers). */
void send_cookie_reply(struct device *d, uint8_t *reply, size_t len, struct endpoint *to);

#endif
