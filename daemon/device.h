/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device: one WireGuard interface, the glue between the I/O modules
 * (tun, udp, netlink, control) and the protocol core (noise, cookie,
 * ratelimiter, allowedips, timers).
 *
 * Files, in the order a packet meets them:
 *   device.c         life cycle, the loop handlers, link state, the deadline
 *   send.c           TUN -> allowed IPs -> peer -> seal in place -> sendmmsg
 *   receive.c        recvmmsg -> classify -> handshake or open in place ->
 *                    replay, roaming, timers -> source check -> TUN
 *   peer.c           peers: create/destroy, staging queue, timer actions
 *   device_config.c  the control socket's set and get
 *
 * Packet buffers are preallocated: a batch of PACKET_BATCH slots each way
 * (plus one 64 KiB buffer for a TUN read that may be a TCP super-packet),
 * each PACKET_BUF_SIZE bytes with MESSAGE_DATA_HEADER_LEN bytes of headroom
 * before the inner packet and room for padding and the tag after it, so
 * sealing and opening happen in place and nothing is allocated per packet.
 * An inner packet larger than a slot (an interface MTU above
 * PACKET_MAX_INNER, e.g. 8920 over jumbo frames) takes the oversize path:
 * one more buffer of the same layout sized for the largest data message one
 * UDP datagram carries, sealed and sent alone.
 */
#ifndef WGD_DEVICE_H
#define WGD_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/config.h"
#include "daemon/control.h"
#include "daemon/core/allowedips.h"
#include "daemon/core/keyhash.h"
#include "daemon/core/load.h"
#include "daemon/core/noise.h"
#include "daemon/core/ratelimiter.h"
#include "daemon/gso.h"
#include "daemon/loop.h"
#include "daemon/netlink.h"
#include "daemon/tun.h"
#include "daemon/udp.h"

#define PACKET_BATCH UDP_BATCH
#define PACKET_BUF_SIZE 2048
/* The largest inner packet a slot holds with its header and tag. */
#define PACKET_MAX_INNER (PACKET_BUF_SIZE - MESSAGE_DATA_OVERHEAD)
/*
 * The largest data message: one UDP datagram over IPv4 (RFC 768, RFC 791:
 * 65535 - 20 bytes of IP header - 8 of UDP header), and the largest inner
 * packet it carries (65475), the limit of the oversize path and so of the
 * MTU.  Padding never takes a packet past it (device_padded_len()).
 */
#define PACKET_MAX_DATAGRAM 65507
#define PACKET_MAX_INNER_LARGE (PACKET_MAX_DATAGRAM - MESSAGE_DATA_OVERHEAD)
#define DEVICE_DEFAULT_MTU 1420

/* One slot: data message header, then the inner packet, then padding + tag. */
struct packet {
	uint8_t buf[PACKET_BUF_SIZE] __attribute__((aligned(16)));
};

/* The oversize path's buffer: the same layout, one whole datagram. */
struct packet_large {
	uint8_t buf[PACKET_MAX_DATAGRAM] __attribute__((aligned(16)));
};

struct peer;

/*
 * What receive.c learns of one read before processing it: mac1 of each
 * initiation and response in it, in order (at most one per
 * MESSAGE_RESPONSE_LEN bytes of the receive area), and whether the read is
 * handled under load.
 */
#define RECEIVE_MAX_HANDSHAKES (UDP_GRO_BATCH * UDP_GRO_BUF_SIZE / MESSAGE_RESPONSE_LEN + 1)
struct receive_batch {
	uint8_t mac1_ok[(RECEIVE_MAX_HANDSHAKES + 7) / 8];
	unsigned int next_handshake;	/* the processing pass's position */
	bool under_load;
};

/* Counters of what was dropped, for the debug log and tests. */
struct device_stats {
	uint64_t tx_no_route;		/* no allowed IP matches the destination */
	uint64_t tx_no_endpoint;
	uint64_t tx_bad_packet;		/* not IPv4/IPv6, or larger than a datagram carries */
	uint64_t tx_staged_dropped;
	uint64_t tx_udp_dropped;
	uint64_t rx_invalid;		/* failed the edge check */
	uint64_t rx_bad_mac;
	uint64_t rx_handshake_dropped;
	uint64_t rx_data_dropped;	/* did not open: index, tag, replay, age */
	uint64_t rx_bad_inner;		/* not IP, bad length */
	uint64_t rx_bad_source;		/* source not allowed for the peer */
	uint64_t rx_tun_dropped;
};

struct device {
	struct loop loop;
	struct tun tun;
	struct loop_fd tun_h;
	struct udp udp;
	struct loop_fd udp_h[UDP_NFAMILIES];
	uint16_t listen_port_requested;	/* what was set (0 = random) */
	struct netlink nl;
	struct loop_fd nl_h;
	int sigfd;
	struct loop_fd sig_h;
	struct control *control;

	bool up;			/* IFF_UP: timers run, packets flow */
	unsigned int mtu;
	bool rx_large;			/* a datagram larger than a slot came in */
	int exit_status;		/* 0 clean, 1 error */

	struct noise_local local;
	struct allowedips table;
	struct ratelimiter *ratelimiter;
	struct peer *peers;		/* doubly linked, creation order */
	size_t npeers;
	struct keyhash peer_keys;	/* the same peers by public key */

	struct load load;		/* the handshake backlog (core/load.h) */

	uint64_t jitter_state;		/* xorshift; jitter needs no secrecy */
	struct device_stats stats;

	/* the data path's preallocated slots */
	/* one TUN read; one byte more than the largest packet, to see truncation */
	uint8_t tun_buf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET + 1];
	unsigned int tx_count;		/* sealed slots waiting for sendmmsg */
	struct packet tx[PACKET_BATCH];
	struct udp_msg tx_msgs[PACKET_BATCH];
	struct peer *tx_peers[PACKET_BATCH];
	/* a packet larger than a slot, sealed and sent on its own */
	struct packet_large tx_large;
	/*
	 * Receive buffers: PACKET_BATCH slots of PACKET_BUF_SIZE, or, when the
	 * sockets take UDP GRO or the MTU is larger than a slot, UDP_GRO_BATCH
	 * buffers of UDP_GRO_BUF_SIZE, each of which holds a run of datagrams
	 * the kernel kept together or one datagram of any size.
	 */
	uint8_t rx_area[UDP_GRO_BATCH * UDP_GRO_BUF_SIZE] __attribute__((aligned(16)));
	struct udp_msg rx_msgs[PACKET_BATCH];
	struct receive_batch rx_batch;
	struct endpoint rx_eps[PACKET_BATCH];
	struct gro gro;			/* segments merged on the way to TUN */
};

/* ---- main.c's view ---- */

/* An empty device, to be the control socket's context before the fork. */
struct device *device_create(void);
/* Frees a device that was never started. */
void device_destroy(struct device *d);
/*
 * Takes ownership of the TUN device and the control socket and sets up
 * everything else (loop, UDP, netlink, signals).  0 or -errno with a message
 * in err; on failure the caller still owns tun and control.
 */
int device_start(struct device *d, struct tun *tun, struct control *control,
		 char *err, size_t errlen);
/* Runs until a signal, the control socket's deletion or the link's. */
int device_run(struct device *d);
/* Tears everything down in reverse, wipes every key, frees d. */
void device_stop(struct device *d);

const struct control_ops *device_control_ops(void);

/* ---- shared by the device's files ---- */

/*
 * The data message's plaintext length for an inner packet of len bytes:
 * zero padding to a multiple of 16 within the MTU (WP §5.4.6), and within
 * one datagram for an MTU above PACKET_MAX_INNER_LARGE.
 */
static inline size_t device_padded_len(const struct device *d, size_t len)
{
	size_t mtu = d->mtu < PACKET_MAX_INNER_LARGE ? d->mtu : PACKET_MAX_INNER_LARGE;

	return message_data_padded_len(len, mtu);
}

/* A jitter value for the timers (any 64-bit value; the core reduces it). */
uint64_t device_jitter(struct device *d);
/* The wall clock in unix ns (last-handshake times, TAI64N). */
uint64_t device_realtime_ns(void);
/* Pulls the loop deadline in to when (if earlier). */
void device_timer_touch(struct device *d, uint64_t when);
/* Registers / unregisters the UDP sockets on the loop (rebinding). */
int device_udp_attach(struct device *d);
void device_udp_detach(struct device *d);
/* Stops the loop because the interface is gone or a fatal error happened. */
void device_fail(struct device *d, const char *why);

/* send.c */
void send_tun_readable(struct device *d);

/* receive.c */
void receive_udp_readable(struct device *d, int family);

/* device_config.c */
int device_config_set(void *ctx, const struct config_device *cfg);
int device_config_get(void *ctx, struct config_device *out);

#endif
