/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * TUN offloads: the virtio_net_hdr that precedes every packet on a TUN
 * device opened with IFF_VNET_HDR, checksum completion, and the split of a
 * TCP or UDP super-packet (TSO, USO; up to 64 KiB) into segments of
 * gso_size bytes of payload.
 *
 * With TUNSETOFFLOAD(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6, and TUN_F_USO4 |
 * TUN_F_USO6 where the kernel has them, Linux 6.2) the kernel hands us one
 * large TCP packet, or one large UDP datagram that a sender gave UDP GSO,
 * where it would otherwise segment it and make us read each segment with its
 * own system call; we cut it here, each segment straight into its send
 * slot, and compute the checksums the kernel skipped.  The result on the
 * wire is identical to what the kernel would have produced (RFC 793
 * sequence numbers, RFC 768 datagram lengths, RFC 791 IDs and header
 * checksum, RFC 1071 checksums).
 *
 * Pure: bytes in, bytes out; every length is checked, so a malformed
 * header makes the packet invalid rather than read out of bounds.
 */
#ifndef WGD_GSO_H
#define WGD_GSO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#define GSO_VNET_HDR_LEN 10	/* struct virtio_net_hdr */
/*
 * A buffer that holds a virtio_net_hdr and then an IP packet starts this
 * many bytes past a 16-byte boundary, so that the IP header (and, after
 * the usual 20, 40, 52 or 72 header bytes, the TCP payload) is word-aligned.
 * The kernel's packets are (NET_IP_ALIGN), and its copy between them and
 * ours runs on whole words only when both sides are aligned alike: on
 * MIPS32 a copy from a misaligned source takes two partial loads per word
 * (doc/performance.md, "TUN buffers aligned like the kernel's").  Our own
 * checksum and ChaCha20 take their word paths on aligned data too.
 */
#define GSO_BUF_SKEW (16 - GSO_VNET_HDR_LEN)
#define GSO_MAX_PACKET 65535
/*
 * VIRTIO_NET_HDR_GSO_UDP_L4: a UDP super-packet (Linux 6.2 offers it to
 * TUN devices that ask for TUN_F_USO4/TUN_F_USO6); named here, as the
 * headers of older systems lack it.
 */
#define GSO_VNET_UDP_L4 5

struct gso_hdr {
	uint8_t flags;		/* VIRTIO_NET_HDR_F_NEEDS_CSUM */
	uint8_t gso_type;	/* VIRTIO_NET_HDR_GSO_* (ECN bit removed) */
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
};

/* Reads the header (host byte order, legacy virtio on TUN). */
void gso_hdr_parse(struct gso_hdr *h, const uint8_t hdr[GSO_VNET_HDR_LEN]);

/* Finishes a CHECKSUM_PARTIAL packet in place; false if the offsets are bad. */
bool gso_complete_csum(uint8_t *pkt, size_t len, const struct gso_hdr *h);

/* Iterates over the segments of one TCP super-packet. */
struct gso_split {
	const uint8_t *pkt;
	size_t len;
	size_t hdr_len;		/* IP (+ extension headers) + TCP or UDP header */
	size_t l4_off;		/* where the TCP or UDP header starts */
	size_t off;		/* next payload byte */
	size_t seg;		/* payload bytes per segment */
	unsigned int index;
	bool v6;
	bool udp;		/* a UDP super-packet (USO): each segment a datagram */
};

/* Checks the super-packet; false if it cannot be split (drop it). */
bool gso_split_init(struct gso_split *s, const uint8_t *pkt, size_t len, const struct gso_hdr *h);

/*
 * Writes the next segment (headers fixed up, checksums computed) to out,
 * which must hold at least hdr_len + gso_size bytes; returns its length,
 * or 0 when all segments were written or out is too small.
 */
size_t gso_split_next(struct gso_split *s, uint8_t *out, size_t cap);

/*
 * The same for segment k of gso_split_count(), whatever was written
 * before: each segment depends only on k and the super-packet, so that
 * they may be written in any order, on any thread.  gso_split_len() is
 * segment k's length (k < gso_split_count()), written or not.
 */
unsigned int gso_split_count(const struct gso_split *s);
size_t gso_split_len(const struct gso_split *s, unsigned int k);
size_t gso_split_segment(const struct gso_split *s, unsigned int k, uint8_t *out, size_t cap);

/* RFC 1071 ones'-complement sum of len bytes added to sum (not folded). */
uint64_t gso_csum_add(uint64_t sum, const uint8_t *p, size_t len);
/* The same, copying the bytes from src to dst on the way (one pass). */
uint64_t gso_csum_copy(uint64_t sum, uint8_t *dst, const uint8_t *src, size_t len);
/* Folds a sum to 16 bits and complements it: the checksum field value. */
uint16_t gso_csum_fold(uint64_t sum);

/*
 * The reverse on the way to the TUN device (GRO): consecutive TCP segments
 * of one flow, decrypted from one or more receive batches read back to
 * back, are merged into one super-packet written with one system call, as
 * the kernel's own GRO would merge them (same addresses, ports, ACK, window
 * and options, contiguous sequence numbers, plain ACK/PSH flags,
 * equal-sized segments but the last).
 *
 * The merged packet is not copied together: it is written with writev(),
 * the first segment (its headers rewritten for the whole, the
 * virtio_net_hdr before it) and then each later segment's payload where it
 * was decrypted.  The kernel copies it once, as it would one buffer
 * (doc/performance.md, "GRO without the copy").  Only the segments of a
 * group still open whose receive buffers are about to be reused are
 * copied, into buf.
 */
#define GRO_MAX_PIECES 64	/* iovecs of one write; a full group is written and a new one begun */

struct gro {
	size_t len;		/* merged length */
	size_t ip_hlen, hdr_len, seg;
	uint32_t next_seq;
	unsigned int count;
	unsigned int pieces;	/* iov[1..pieces]: the later payloads, where they lie */
	size_t held;		/* bytes of them copied into buf, after the first segment's place */
	bool v6, closed;
	/*
	 * iov[0]: the first segment, where it lies or in buf (gro_finish()
	 * adds the virtio_net_hdr before it); then the payloads
	 */
	struct iovec iov[GRO_MAX_PIECES];
	/*
	 * a held group at buf + GSO_VNET_HDR_LEN, room for its virtio_net_hdr
	 * before it; buf starts GSO_BUF_SKEW bytes past a 16-byte boundary so
	 * that the packet starts on one (GSO_BUF_SKEW above)
	 */
	uint8_t skew_[GSO_BUF_SKEW] __attribute__((aligned(16)));
	uint8_t buf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];
};

/* Whether pkt can start a group (a plain TCP segment with payload). */
bool gro_start(struct gro *g, uint8_t *pkt, size_t len);
/*
 * Appends pkt to the group if it continues it; false if it does not.  pkt
 * (GSO_VNET_HDR_LEN writable bytes before it, as for gro_start()) must stay
 * where it is until gro_hold() or gro_finish().
 */
bool gro_append(struct gro *g, const uint8_t *pkt, size_t len);
/*
 * Some receive buffers are about to be reused: reused(ctx, p, n) says
 * whether the n bytes at p lie in them.  The group's segments that do are
 * copied into g->buf, and the group can still be appended to.  False, and
 * nothing copied, if that would copy more than GRO_HOLD_MAX bytes: write
 * the group first (gro_finish()).  A write costs the kernel about what
 * copying a few segments costs us, and a group that large gains little by
 * growing.
 */
#define GRO_HOLD_MAX 16384
bool gro_hold(struct gro *g, bool (*reused)(const void *ctx, const uint8_t *p, size_t n), const void *ctx);
/*
 * The write for the group, virtio_net_hdr first: *iov and *n iovecs
 * (g->iov); returns its length, 0 if there was no group.  A single segment
 * is written as it lies, with a plain header before it.  The header is
 * written into the GSO_VNET_HDR_LEN bytes before the first segment, and
 * the merged headers over the first segment's.  Empties the group.
 */
size_t gro_finish(struct gro *g, const struct iovec **iov, unsigned int *n);

/*
 * ACKs on the way to the TUN device.  A run of pure cumulative ACKs of one
 * flow, decrypted from one receive batch, says no more than its last one:
 * each acknowledges everything the ones before it did (RFC 9293 §3.4), and
 * its window and timestamps are the newest.  The earlier ones are dropped
 * instead of written, each of them a system call and a pass through the
 * host's TCP.  What counts as superseded is narrow, so that nothing a TCP
 * sender learns from an ACK is lost: only the ACK flag, no payload, no
 * options but a timestamp (RFC 7323) in Linux's NOP, NOP, TS layout (so no
 * SACK blocks), no ECN congestion mark, no IP options or fragments, the same
 * sequence number, and an acknowledgment number strictly past the older
 * one's (a duplicate ACK, the sender's signal of loss, is never dropped).
 */
/* Whether pkt (one IP packet) is such a pure ACK. */
bool gro_pure_ack(const uint8_t *pkt, size_t len);
/* Whether pure ACK newer supersedes pure ACK older (both gro_pure_ack()). */
bool gro_ack_supersedes(const uint8_t *older, size_t older_len, const uint8_t *newer, size_t newer_len);

#endif
