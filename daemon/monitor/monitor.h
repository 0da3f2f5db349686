/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The privileged monitor (privilege separation's other side; the daemon's
 * is daemon/base/privsep.h, the messages daemon/base/privsep_wire.h).
 *
 * `wgd --monitor IFNAME`, started by the daemon before it serves anything
 * as a new image of its binary, root, its channels on descriptors 3 and 4.
 * It holds no key: a request that carries one (SaveConfig, a reload's
 * file) has it wiped once answered.  It serves the daemon until the
 * daemon's ends of the channels close, then exits; SIGTERM, SIGINT and
 * SIGHUP do not stop it (a service manager signals the whole group, and the
 * daemon's teardown still needs it).
 *
 * Threat model: the daemon reads the network and may be taken over; it
 * then runs as an unprivileged user with CAP_NET_ADMIN only, and can send
 * any bytes on both channels.  The monitor gives it no more than:
 *   - root's own hooks (the file as the monitor itself last read it: at
 *     set-up and on a reload), each at most once, in wg-quick's order
 *     (PreUp, PostUp, PreDown, PostDown; file order within a kind), PreUp
 *     and PostUp only before READY: never a command of the daemon's;
 *   - resolvconf set to the DNS entries of root's file, or removed, for the
 *     record tun.IFNAME only;
 *   - SaveConfig, once, only when root's file says SaveConfig = true: the
 *     text must parse as wg(8)'s format (keys, port, fwmark, peers; wg-quick
 *     keys such as PreUp are refused), and is written joined to root's own
 *     wg-quick keys to the one file given at set-up, atomically, owned as
 *     the file was (root's when it is gone); the daemon can change no hook,
 *     address or DNS entry of it, only what it already holds (the device);
 *   - that file's text on a reload (which the daemon read at start anyway);
 *   - a UDP socket on the wildcard address and a port below 1024, which
 *     CAP_NET_ADMIN could already redirect traffic to (nftables);
 *   - the removal of the control socket and of the pid file, each only while
 *     it is the very file (device and inode) set up at the start.
 * Paths never come from the daemon after set-up.  A message of the wrong
 * length or type, a second set-up, a descriptor where none belongs: the
 * monitor stops (it fails closed).  A well-formed request its rules refuse
 * (a hook out of order, a port of 1024 or above, a second SaveConfig) is
 * answered -EPERM and logged.
 */
#ifndef WGD_MONITOR_H
#define WGD_MONITOR_H

/* The monitor's whole life; its exit status. */
int monitor_main(void);

#endif
