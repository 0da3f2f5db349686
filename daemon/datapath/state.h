/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The device's state, shared by the data path's files (the shell sees
 * struct device only as an opaque handle, device.h): the preallocated
 * packet buffers, the counters, and the helpers that only read and write
 * these fields, at the bottom of the data path so that every file may call
 * them (doc/architecture.md, "The data path").
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
#ifndef WGD_STATE_H
#define WGD_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/util.h"
#include "daemon/core/allowedips.h"
#include "daemon/core/keyhash.h"
#include "daemon/core/load.h"
#include "daemon/core/noise.h"
#include "daemon/core/random.h"
#include "daemon/core/ratelimiter.h"
#include "daemon/datapath/crypt.h"
#include "daemon/datapath/endpoint.h"
#include "daemon/datapath/gso.h"
#include "daemon/datapath/icmp.h"
#include "daemon/datapath/io.h"

#define PACKET_BATCH UDP_BATCH
#define PACKET_BUF_SIZE 2048
/* The largest inner packet a slot holds with its header and tag. */
#define PACKET_MAX_INNER (PACKET_BUF_SIZE - MESSAGE_DATA_OVERHEAD)
#define RX_TURNS 6
#define RX_LARGE_STRIDE (UDP_GRO_BUF_SIZE + (RX_TURNS - 1) * PACKET_BUF_SIZE)
/*
 * The largest data message: one UDP datagram over IPv4 (RFC 768, RFC 791:
 * 65535 - 20 bytes of IP header - 8 of UDP header), and the largest inner
 * packet it carries (65475), the limit of the oversize path and so of the
 * MTU.  Padding never takes a packet past it (device_padded_len()).
 */
#define PACKET_MAX_DATAGRAM 65507
#define PACKET_MAX_INNER_LARGE (PACKET_MAX_DATAGRAM - MESSAGE_DATA_OVERHEAD)

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
 * One TUN read: the packet after its virtio_net_hdr 16-byte aligned
 * (GSO_BUF_SKEW in gso.h), one byte more than the largest packet to see
 * truncation.  A TCP super-packet stays here while its segments are jobs
 * (crypt.h): split describes it, and the jobs numbered first..end read it.
 */
/* A batch of slots handed to the workers, to leave at the next flush (send.c). */
struct send_pending {
	unsigned int base, n;		/* its slots */
	uint32_t first, end;		/* its jobs */
};

struct tun_read {
	uint8_t skew_[GSO_BUF_SKEW] __attribute__((aligned(16)));
	uint8_t buf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET + 1];
	struct gso_split split;
	uint32_t first, end;
};

/*
 * With workers, reads go round four buffers, so that the next super-packets
 * are read while the segments of those before are still being cut and
 * sealed (two batches of slots hold up to three super-packets); one thread
 * uses the first only.
 */
#define TUN_READS 4

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
	uint64_t rx_acks_superseded;	/* pure ACKs not written: a later one said it all (gso.h) */
};

struct device {
	struct device_io io;
	struct core_random random;	/* io.random, for the core */
	char name[16];			/* the interface's, for the log */
	bool tun_vnet;			/* TUN packets carry a virtio_net_hdr */
	bool udp_gro;			/* a received buffer may hold a run of datagrams */
	uint16_t listen_port;		/* bound */
	uint16_t listen_port_requested;	/* what was set (0 = random) */
	uint32_t fwmark;
	uint64_t deadline;		/* the earliest timer of any peer */
	uint64_t deadline_told;		/* what io.deadline() last heard */

	bool up;			/* IFF_UP: timers run, packets flow */
	unsigned int mtu;
	bool rx_large;			/* a datagram larger than a slot came in */

	struct noise_local local;
	struct allowedips table;
	struct ratelimiter *ratelimiter;
	struct peer *peers;		/* doubly linked, creation order */
	size_t npeers;
	struct keyhash peer_keys;	/* the same peers by public key */

	struct load load;		/* the handshake backlog (core/load.h) */

	uint64_t jitter_state;		/* xorshift; jitter needs no secrecy */
	struct device_stats stats;
	/* unreachable errors for packets no peer takes (icmp.h): the limit, the one buffer */
	struct icmp_limit icmp;
	uint8_t icmp_buf[IO_TUN_HEADROOM + ICMP_MAX_LEN] __attribute__((aligned(16)));

	/* the data path's preallocated slots */
	struct tun_read tun[TUN_READS];	/* TUN reads (offloads on) */
	unsigned int tun_cur;		/* the one the next read goes to */
	struct crypt_queue crypt;	/* the cryptography's jobs */
	/*
	 * The slots of a batch: PACKET_BATCH from tx_base, the first half
	 * always on one thread; with workers the halves take turns, one filled
	 * while the other's batch is sealed (send_flush()).
	 */
	unsigned int tx_base;
	unsigned int tx_count;		/* slots filled from tx_base */
	uint32_t tx_first;		/* the job of the first (crypt_seq()) */
	struct send_pending tx_pend;	/* the other half's batch, not yet sent */
	struct packet tx[2 * PACKET_BATCH];
	struct udp_msg tx_msgs[2 * PACKET_BATCH];
	struct peer *tx_peers[2 * PACKET_BATCH];
	/* a packet larger than a slot, sealed and sent on its own */
	struct packet_large tx_large;
	/*
	 * Receive buffers: PACKET_BATCH slots of PACKET_BUF_SIZE, or, when the
	 * sockets take UDP GRO or the MTU is larger than a slot, UDP_GRO_BATCH
	 * buffers of UDP_GRO_BUF_SIZE, each of which holds a run of datagrams
	 * the kernel kept together or one datagram of any size.  The large
	 * buffers lie RX_LARGE_STRIDE apart, and while a group is open each
	 * read starts them at the next of RX_TURNS offsets PACKET_BUF_SIZE
	 * apart: a read of single datagrams leaves those of the RX_TURNS - 1
	 * reads before it in place, so that a group merged across them (up to
	 * 48 full-sized segments, more than fit in 64 KiB) is written from
	 * where it lies (device_rx_buffers()).
	 */
	uint8_t rx_area[UDP_GRO_BATCH * RX_LARGE_STRIDE] __attribute__((aligned(16)));
	struct udp_msg rx_msgs[PACKET_BATCH];
	unsigned int rx_entries;	/* handed out by device_rx_buffers() */
	unsigned int rx_turn;		/* the large buffers' offset of the last read, 0 if small */
	size_t rx_kept;			/* what the next read leaves of each large buffer (gro_hold()) */
	struct receive_batch rx_batch;
	struct endpoint rx_eps[PACKET_BATCH];
	struct gro gro;			/* segments merged on the way to TUN */
	/* the last pure ACK of the batch so far, in rx_area, not yet written */
	uint8_t *ack_pending;
	size_t ack_pending_len;
};

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
static inline uint64_t device_jitter(struct device *d)
{
	/* xorshift64: jitter only spreads timers out, it is not a secret */
	uint64_t x = d->jitter_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	d->jitter_state = x;
	return x;
}

/* Pulls the deadline in to when (if earlier); told to the shell per entry. */
static inline void device_timer_touch(struct device *d, uint64_t when)
{
	if (when < d->deadline)
		d->deadline = when;
}

/*
 * Tells the shell the deadline if it moved: each entry point, once its
 * work is done, so that io.deadline() is called once per entry at most.
 */
static inline void device_deadline_commit(struct device *d)
{
	if (d->deadline == d->deadline_told)
		return;
	d->deadline_told = d->deadline;
	d->io.deadline(d->io.ctx, d->deadline);
}

#endif
