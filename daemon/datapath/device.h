/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The data path's entry points: what the shell (daemon/host/host.c) and the
 * tests call.  A device is one WireGuard interface's data path, a library
 * between the protocol core and the outside world, which it reaches only
 * through struct device_io (io.h).  It owns no descriptor and reads no
 * clock: the shell reads the sockets and the TUN device into the device's
 * buffers and hands the batches in with the time (`now`, boot-time ns, read
 * once per batch), and performs what the device asks of it through the
 * seam; tests do the same in memory.
 *
 * This header only declares: struct device is opaque here (its fields are
 * in state.h, shared by the data path's files), and each entry point is
 * defined in the file that does its work.  A reader follows a packet by
 * opening the files in this order:
 *   send.c           TUN packet -> allowed IPs -> peer -> seal in place ->
 *                    one send() per batch: device_tx_*(); and the one
 *                    transmit path for staged packets, handshake messages,
 *                    keepalives and cookie replies
 *   receive.c        a batch of datagrams -> classify -> handshake, or open
 *                    in place -> replay, roaming, timers -> source check ->
 *                    TUN write (TCP segments of one flow merged):
 *                    device_rx_*()
 *   peer.c           peers' state: staging queue, endpoint, and the events
 *                    reported to the timers
 *   expiry.c         the timers' actions when the deadline passes
 *   device_config.c  the control socket's set and get: device_config_*()
 *   device.c         life cycle, link state, MTU, resume, the deadline
 * Calls go one way: {device, receive, expiry, device_config} -> send ->
 * peer -> state.h -> the core (tests/datapath/calls.sh).
 */
#ifndef WGD_DEVICE_H
#define WGD_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config/config.h"
#include "daemon/datapath/endpoint.h"

/* The MTU of a new device, and the one the shell sets on its TUN device. */
#define DEVICE_DEFAULT_MTU 1420

struct device;
struct device_io;

/* device.c */

/*
 * An empty device that reaches the world through io (copied), whose
 * random() seeds it; NULL if out of memory or random bytes.  The name is
 * for the log only.  Down, MTU DEVICE_DEFAULT_MTU, no offloads, no port.
 */
struct device *device_create(const struct device_io *io, const char *name);
/* Destroys every peer, wipes every key, frees d. */
void device_destroy(struct device *d);

/* What the shell's TUN device and sockets do (set before traffic). */
void device_set_offloads(struct device *d, bool tun_vnet, bool udp_gro);
/* The port the sockets were bound to before any set (the shell's first bind). */
void device_set_bound(struct device *d, uint16_t port, bool udp_gro);

/* Link state and MTU, as the kernel reports them. */
void device_set_link(struct device *d, bool up, uint64_t now);
void device_set_mtu(struct device *d, unsigned int mtu);
/* A local address or route changed: forget every cached source address. */
void device_forget_sources(struct device *d);
/* The system slept for slept_ns: wipe every session (the kernel's rule). */
void device_resume(struct device *d, uint64_t now, uint64_t slept_ns);
/* The deadline passed: run every peer's due timers. */
void device_run_timers(struct device *d, uint64_t now);

/* The counters of what was dropped, logged at exit. */
void device_log_stats(const struct device *d);

/*
 * Workers: threads of the shell that take the data messages' cryptography
 * off the thread that calls the other entry points (the owner).  Before
 * traffic, the owner says whether there are any (n: how many); with none,
 * everything runs on the owner, as it always did.  With workers, jobs are
 * handed out once share_bytes of messages are waiting (0: the default,
 * CRYPT_SHARE_BYTES in crypt.h; 1: every job, as the tests do to exercise
 * the hand-off).  A worker calls
 * device_work() until it returns false (nothing published), and may wait
 * for io.kick() once device_work_pending() is false.  The two are the
 * only entry points any thread may call; the results do not depend on
 * which thread ran what.
 */
void device_set_workers(struct device *d, unsigned int n, size_t share_bytes);
bool device_work(struct device *d);
bool device_work_pending(struct device *d);

/* send.c: the TUN side */

/*
 * The buffer the next packet read from the TUN device goes into (*size
 * bytes at most: a read that fills it was cut), then the read's length;
 * device_tx_packet() returns a count of the work done (segments sent on,
 * plus one for the read).  After a run of reads, device_tx_flush() sends
 * what is sealed.
 */
uint8_t *device_tx_buffer(struct device *d, size_t *size);
unsigned int device_tx_packet(struct device *d, size_t len, uint64_t now);
void device_tx_flush(struct device *d, uint64_t now);

/* receive.c: the UDP side */

/*
 * The buffers for the next read from a socket (*n of them, each with its
 * data, capacity and endpoint); after the read filled the first got of
 * them, device_rx_batch() processes the datagrams (family: UDP_V4 or
 * UDP_V6, the socket they came from).  With offloads, TCP segments that
 * the next batch may continue are held back (merged into one TUN write,
 * gso.h); after a run of reads, device_rx_flush() writes them.  The buffers
 * are reused by each read: device_rx_buffers() first copies a group still
 * held out of them, or writes it if it is large.
 */
struct udp_msg *device_rx_buffers(struct device *d, unsigned int *n);
void device_rx_batch(struct device *d, int family, unsigned int got, uint64_t now);
void device_rx_flush(struct device *d);

/* device_config.c: the control socket's set and get */

/* A parsed set, in the order and with the meaning of config.h; 0 or -errno. */
int device_config_set(struct device *d, const struct config_device *cfg, uint64_t now);
/* The device's configuration and counters into out; 0 or -errno. */
int device_config_get(struct device *d, struct config_device *out);

#endif
