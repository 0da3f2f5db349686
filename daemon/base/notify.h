/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * systemd's readiness notifications (sd_notify(3)), for wgd@.service
 * (Type=notify): READY=1 once the daemon serves, RELOADING=1 (with
 * MONOTONIC_USEC) and READY=1 around a SIGHUP reload, STOPPING=1 at exit.
 */
#ifndef WGD_NOTIFY_H
#define WGD_NOTIFY_H

/* Sends state (KEY=VALUE lines) to $NOTIFY_SOCKET; nothing without it. */
void notify_state(const char *state);

#endif
