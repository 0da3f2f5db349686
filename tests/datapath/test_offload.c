// SPDX-License-Identifier: GPL-2.0-only
/*
 * Real devices with TUN offloads on (a virtio_net_hdr on every TUN read and
 * write, as daemon/host/tun.c sets them up), joined in one process (simnet.h):
 *  - a TCP super-packet read after 30 other packets is cut into segments
 *    that fill the send batch and go on in the next (two io.send() calls);
 *  - the segments of one super-packet arriving in several consecutive
 *    receive batches are merged into one TUN write (GSO TCPV4, the
 *    segment size, NEEDS_CSUM) once the shell calls device_rx_flush(),
 *    and that write is the original super-packet byte for byte (headers
 *    as the first segment's, lengths and IPv4 checksum fixed up);
 *  - segments merged in one batch are written from where they were
 *    decrypted (one writev() piece each), and so are those merged over
 *    up to RX_TURNS reads into the large buffers (UDP GRO);
 *  - a packet that cannot join the held group is written after it;
 *  - of a run of pure ACKs of one flow in one batch only the last is
 *    written; duplicate ACKs, ACKs with other packets between them and
 *    ACKs of different batches all are (with and without offloads).
 */
#include <arpa/inet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/bytes.h"
#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/datapath/gso.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"
#include "tests/lib/csum_ref.h"

#define MSS 1000
#define SEGS 40

/* Every packet b's TUN device got, in order (lengths, and a copy of the last big one). */
static size_t tun_lens[256];
static unsigned int tun_count;
static uint8_t tun_big[GSO_MAX_PACKET];
static size_t tun_big_len;
static uint8_t tun_small[64][64];	/* the first 64 packets of up to 64 bytes */
/* Packets whose IP header was not word-aligned: in b's TUN writes, and in a's TUN read buffer. */
static unsigned int tun_misaligned, read_misaligned;

static void record_tun(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	(void)n;
	if (to->id != 1)
		return;
	tun_misaligned += ((uintptr_t)pkt & 3) != 0;
	if (tun_count < sizeof(tun_lens) / sizeof(tun_lens[0]))
		tun_lens[tun_count] = len;
	if (len <= sizeof(tun_small[0]) && tun_count < sizeof(tun_small) / sizeof(tun_small[0]))
		memcpy(tun_small[tun_count], pkt, len);
	tun_count++;
	if (len > 2000 && len <= sizeof(tun_big)) {
		memcpy(tun_big, pkt, len);
		tun_big_len = len;
	}
}

/* An IPv4 TCP packet from a's inner address to b's: 40 bytes of headers, then payload. */
static size_t tcp_packet(uint8_t *out, const struct sim_dev *from, const struct sim_dev *to, uint32_t seq,
			 const uint8_t *payload, size_t len, uint8_t flags)
{
	uint32_t src = htonl(from->inner), dst = htonl(to->inner);
	size_t total = 40 + len;

	memset(out, 0, 40);
	out[0] = 0x45;
	be16_store(out + 2, (uint16_t)total);
	be16_store(out + 4, 0x1234);	/* IP ID */
	out[6] = 0x40;			/* DF */
	out[8] = 64;
	out[9] = 6;
	memcpy(out + 12, &src, 4);
	memcpy(out + 16, &dst, 4);
	ref_ipv4_csum_set(out, 20);
	be16_store(out + 20, 40000);
	be16_store(out + 22, 5201);
	be32_store(out + 24, seq);
	be32_store(out + 28, 777);	/* ack */
	out[32] = 5 << 4;
	out[33] = flags;
	be16_store(out + 34, 512);	/* window */
	memcpy(out + 40, payload, len);
	return total;
}

/* The TCP checksum of a whole packet (RFC 793 pseudo header), into its field. */
static void tcp_checksum(uint8_t *pkt, size_t len)
{
	ref_l4_csum_set(pkt, len, 20, false, 6, 36);
}

/* Whether the devices run with offloads (a virtio_net_hdr on TUN packets). */
static bool offloads = true;

/* One TUN read on from's device: the packet with its virtio_net_hdr if offloads are on; no flush. */
static void tun_read(struct sim_dev *from, const uint8_t *pkt, size_t len, uint8_t gso_type, uint16_t gso_size)
{
	size_t size;
	uint8_t *buf = device_tx_buffer(from->dev, &size);

	if (!offloads) {
		if (len > size)
			abort();
		memcpy(buf, pkt, len);
		device_tx_packet(from->dev, len, from->net->now);
		return;
	}
	if (GSO_VNET_HDR_LEN + len > size)
		abort();
	read_misaligned += ((uintptr_t)(buf + GSO_VNET_HDR_LEN) & 3) != 0;
	memset(buf, 0, GSO_VNET_HDR_LEN);
	if (gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		uint16_t start = 20, off = gso_type == GSO_VNET_UDP_L4 ? 6 : 16;

		buf[0] = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		buf[1] = gso_type;
		memcpy(buf + 4, &gso_size, 2);
		memcpy(buf + 6, &start, 2);
		memcpy(buf + 8, &off, 2);
	}
	memcpy(buf + GSO_VNET_HDR_LEN, pkt, len);
	device_tx_packet(from->dev, GSO_VNET_HDR_LEN + len, from->net->now);
}

static int by_seq(const void *x, const void *y)
{
	const struct sim_dgram *a = x, *b = y;

	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/*
 * Everything in flight, to b, in batches of per_batch datagrams read back
 * to back (as the shell reads a socket that stays full), and only then the
 * flush the shell does when its reads are done.
 */
static void deliver_in_batches(struct sim_net *n, struct sim_dev *to, unsigned int per_batch)
{
	size_t k = 0;

	qsort(n->q, n->qlen, sizeof(n->q[0]), by_seq);
	while (k < n->qlen) {
		unsigned int count, got = 0;
		struct udp_msg *msgs = device_rx_buffers(to->dev, &count);

		if (count > per_batch)
			count = per_batch;
		for (; got < count && k < n->qlen; k++, got++) {
			struct sim_dgram *g = &n->q[k];

			CHECK(g->to == to->id && g->len <= msgs[got].len);
			memcpy(msgs[got].data, g->data, g->len);
			msgs[got].len = g->len;
			msgs[got].seg = 0;
			msgs[got].truncated = false;
			*msgs[got].ep = g->from;
			msgs[got].ep->src.v4 = to->addr.addr.in4.sin_addr;
			msgs[got].ep->has_src = true;
		}
		device_rx_batch(to->dev, UDP_V4, got, n->now);
	}
	for (k = 0; k < n->qlen; k++)
		free(n->q[k].data);
	n->qlen = 0;
	device_rx_flush(to->dev);
}

static void setup(struct sim_net *n, struct sim_dev **a, struct sim_dev **b)
{
	uint8_t pkt[100], hello[16] = "hello";
	size_t len;

	sim_init(n, 7);
	*a = sim_add(n);
	*b = sim_add(n);
	if (!*a || !*b || sim_peer(*a, *b, true, NULL) || sim_peer(*b, *a, true, NULL))
		exit(99);
	device_set_offloads((*a)->dev, true, false);
	device_set_offloads((*b)->dev, true, false);
	/* a session first: the first packet is staged behind the handshake */
	len = tcp_packet(pkt, *a, *b, 1, hello, sizeof(hello), 0x18);
	tcp_checksum(pkt, len);
	tun_read(*a, pkt, len, VIRTIO_NET_HDR_GSO_NONE, 0);
	device_tx_flush((*a)->dev, n->now);
	sim_settle(n, SIM_S(5));
	CHECK_EQ((*b)->tun_packets, 1ul);
	n->on_tun = record_tun;
	tun_count = 0;
	tun_big_len = 0;
}

static uint8_t super[40 + SEGS * MSS];

static void test_super_packet_merged_across_batches(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t pkt[200], payload[SEGS * MSS];
	unsigned int i, singles = 30;
	size_t len, k;

	setup(&n, &a, &b);
	for (k = 0; k < sizeof(payload); k++)
		payload[k] = (uint8_t)(k * 7 + k / 251);
	a->send_calls = 0;
	/* 30 small packets of another flow fill part of the batch... */
	for (i = 0; i < singles; i++) {
		len = tcp_packet(pkt, a, b, 5000 + i * 1000, payload, 100, 0x10);	/* not contiguous: no merging */
		be16_store(pkt + 20, 40001);
		tcp_checksum(pkt, len);
		tun_read(a, pkt, len, VIRTIO_NET_HDR_GSO_NONE, 0);
	}
	/* ...then a super-packet of 40 segments: 34 fill the batch, 6 start the next */
	len = tcp_packet(super, a, b, 100000, payload, sizeof(payload), 0x18);
	tun_read(a, super, len, VIRTIO_NET_HDR_GSO_TCPV4, MSS);
	device_tx_flush(a->dev, n.now);
	tu_check(a->send_calls == 2 && a->send_sizes[0] == PACKET_BATCH &&
			 a->send_sizes[1] == singles + SEGS - PACKET_BATCH,
		 "%u datagrams in full batches: %lu sends of %u, %u", singles + SEGS, a->send_calls, a->send_sizes[0],
		 a->send_sizes[1]);

	/* b gets them in batches of 16 (the super-packet over 3): one write */
	deliver_in_batches(&n, b, 16);
	tu_check(tun_count == singles + 1, "b's TUN got %u packets (30 singles and 1 merged expected)", tun_count);
	tu_check(b->tun_vnet_writes >= 1 && b->last_vnet_gso_type == VIRTIO_NET_HDR_GSO_TCPV4 &&
			 b->last_vnet_gso_size == MSS && (b->last_vnet_flags & VIRTIO_NET_HDR_F_NEEDS_CSUM),
		 "merged write: gso type %u size %u flags %u", b->last_vnet_gso_type, b->last_vnet_gso_size,
		 b->last_vnet_flags);
	tu_check(tun_big_len == len && !memcmp(tun_big + 40, payload, sizeof(payload)),
		 "merged across 3 batches: %zu bytes (%zu expected), payload %s", tun_big_len, len,
		 tun_big_len == len && !memcmp(tun_big + 40, payload, sizeof(payload)) ? "equal" : "differs");
	/* headers: the first segment's, with the whole length and a valid IPv4 checksum */
	CHECK_EQ(be16_load(tun_big + 2), (uint16_t)len);
	CHECK(ref_ipv4_csum_ok(tun_big, 20));
	CHECK_EQ(be32_load(tun_big + 24), 100000u);
	/*
	 * The kernel's copies between its packets and the TUN reads and
	 * writes go word by word only if our IP headers are word-aligned too
	 * (GSO_BUF_SKEW in daemon/datapath/gso.h): merged or single, read or written.
	 */
	tu_check(read_misaligned == 0, "%u TUN reads into a buffer whose IP header is not word-aligned",
		 read_misaligned);
	tu_check(tun_misaligned == 0 && b->vnet_misaligned == 0,
		 "%u of %u TUN writes with an IP header that is not word-aligned, %lu pieces", tun_misaligned,
		 tun_count, b->vnet_misaligned);
	/*
	 * One piece a segment; held when each batch was read over the one
	 * before (small slots: all of them reused), the group's first 34
	 * segments were copied out of them, the last batch's 6 not.
	 */
	tu_check(b->last_vnet_pieces == SEGS && b->last_vnet_copied == SEGS - 6,
		 "merged write gathered from %u pieces (%u expected), %u of them copied (%u expected)",
		 b->last_vnet_pieces, SEGS, b->last_vnet_copied, SEGS - 6);
	sim_clear(&n);
}

/*
 * Segments merged within one batch are written from where they were
 * decrypted, one piece each, not copied together first; a group still
 * open when the next batch is read over its buffers is copied if that
 * copies at most GRO_HOLD_MAX bytes, else written first.
 */
static void test_merged_where_decrypted(void)
{
	static uint8_t payload[SEGS * MSS];	/* >= 70 * 500 */
	struct sim_net n;
	struct sim_dev *a, *b;
	size_t len, k;

	setup(&n, &a, &b);
	for (k = 0; k < sizeof(payload); k++)
		payload[k] = (uint8_t)(k * 13 + k / 253);
	len = tcp_packet(super, a, b, 7000, payload, SEGS * MSS, 0x18);
	tun_read(a, super, len, VIRTIO_NET_HDR_GSO_TCPV4, MSS);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, PACKET_BATCH);
	tu_check(tun_count == 1 && b->last_vnet_pieces == SEGS && tun_big_len == len &&
			 !memcmp(tun_big + 40, payload, SEGS * MSS),
		 "%u segments in one batch: %u writes, the last from %u pieces, %zu bytes (%zu expected)", SEGS,
		 tun_count, b->last_vnet_pieces, tun_big_len, len);
	tu_check(b->vnet_misaligned == 0, "%lu misaligned pieces", b->vnet_misaligned);

	/*
	 * 70 segments of 500 bytes, 64 then 6 per batch: to keep the group
	 * open when the second batch is read over the first, 32,000 bytes
	 * would be copied (more than GRO_HOLD_MAX), so the 64 are written
	 * first, from where they lie, and then the 6.
	 */
	tun_count = 0;
	len = tcp_packet(super, a, b, 900000, payload, 70 * 500, 0x18);
	tun_read(a, super, len, VIRTIO_NET_HDR_GSO_TCPV4, 500);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, PACKET_BATCH);
	tu_check(tun_count == 2 && tun_lens[0] == 40 + 64 * 500 && tun_lens[1] == 40 + 6 * 500 &&
			 b->last_vnet_pieces == 6 && !memcmp(tun_big + 40, payload + 64 * 500, 6 * 500),
		 "70 segments over two batches: %u writes (2 expected) of %zu and %zu bytes, the last from %u pieces",
		 tun_count, tun_lens[0], tun_lens[1], b->last_vnet_pieces);
	sim_clear(&n);
}

/* What b's TUN device got of a UDP super-packet: datagrams checked as they come. */
static size_t udp_payload_at;
static unsigned int udp_bad;

static void record_udp(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	(void)n;
	if (to->id != 1)
		return;
	tun_count++;
	if (len < 28 || ref_be16(pkt + 2) != len || !ref_ipv4_csum_ok(pkt, 20) || ref_be16(pkt + 24) != len - 20 ||
	    !ref_l4_csum_ok(pkt, len, 20, false, 17) || memcmp(pkt + 28, super + 28 + udp_payload_at, len - 28))
		udp_bad++;
	udp_payload_at += len - 28;
}

/*
 * A UDP super-packet (USO, TUN_F_USO4): each datagram of it sealed on its
 * own and arriving as the sender's UDP GSO cut it (RFC 768 length and
 * checksum, IPv4 IDs and header checksum), the payload in order.
 */
static void test_udp_super_packet(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint32_t src, dst;
	size_t len = 28 + 10 * MSS - 7, i;

	setup(&n, &a, &b);
	src = htonl(a->inner);
	dst = htonl(b->inner);
	memset(super, 0, 28);
	super[0] = 0x45;
	be16_store(super + 2, (uint16_t)len);
	super[8] = 64;
	super[9] = 17;
	memcpy(super + 12, &src, 4);
	memcpy(super + 16, &dst, 4);
	ref_ipv4_csum_set(super, 20);
	be16_store(super + 20, 4500);
	be16_store(super + 22, 4501);
	be16_store(super + 24, (uint16_t)(len - 20));
	for (i = 28; i < len; i++)
		super[i] = (uint8_t)(i * 13);
	n.on_tun = record_udp;
	tun_count = 0;
	udp_payload_at = 0;
	udp_bad = 0;
	tun_read(a, super, len, GSO_VNET_UDP_L4, MSS);
	device_tx_flush(a->dev, n.now);
	sim_settle(&n, SIM_S(5));
	tu_check(tun_count == 10 && udp_bad == 0 && udp_payload_at == len - 28,
		 "UDP super-packet: %u datagrams (10 expected), %u bad, %zu payload bytes in order", tun_count,
		 udp_bad, udp_payload_at);
	sim_clear(&n);
}

/*
 * A group held at the end of a batch is written before a packet of the
 * next batch that cannot join it, and the flush writes nothing twice.
 */
static void test_held_group_keeps_order(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t pkt[2000], payload[3 * MSS];
	size_t len, k;

	setup(&n, &a, &b);
	for (k = 0; k < sizeof(payload); k++)
		payload[k] = (uint8_t)k;
	/* three full segments of one flow, then a short packet of another */
	for (k = 0; k < 3; k++) {
		len = tcp_packet(pkt, a, b, 1000 + (uint32_t)(k * MSS), payload + k * MSS, MSS, 0x10);
		tcp_checksum(pkt, len);
		tun_read(a, pkt, len, VIRTIO_NET_HDR_GSO_NONE, 0);
	}
	len = tcp_packet(pkt, a, b, 9, payload, 10, 0x10);
	be16_store(pkt + 20, 40002);
	tcp_checksum(pkt, len);
	tun_read(a, pkt, len, VIRTIO_NET_HDR_GSO_NONE, 0);
	device_tx_flush(a->dev, n.now);
	/* batches of 2: [seg seg] [seg other] */
	deliver_in_batches(&n, b, 2);
	tu_check(tun_count == 2 && tun_lens[0] == 40 + 3 * MSS && tun_lens[1] == 50,
		 "held group then the other packet: %u writes, %zu then %zu bytes", tun_count, tun_lens[0],
		 tun_lens[1]);
	sim_clear(&n);
}

/*
 * With UDP GRO on (the large receive buffers, UDP_GRO_BATCH a read), each
 * read while a group is open starts its buffers at the next of RX_TURNS
 * offsets, so a group merged over up to RX_TURNS reads is written from
 * where it was decrypted, nothing copied; the read after those wraps
 * around to the first offset and may overwrite everything, so the group
 * is copied out first if it is small, else written.
 */
static void test_large_buffers_turn(void)
{
	static uint8_t payload[SEGS * MSS];
	struct sim_net n;
	struct sim_dev *a, *b;
	size_t len, k, seg = 300, segs = (RX_TURNS + 1) * UDP_GRO_BATCH;

	setup(&n, &a, &b);
	device_set_bound(b->dev, b->dev->listen_port, true);
	for (k = 0; k < sizeof(payload); k++)
		payload[k] = (uint8_t)(k * 5 + k / 241);
	len = tcp_packet(super, a, b, 40000, payload, 16 * MSS, 0x18);
	tun_read(a, super, len, VIRTIO_NET_HDR_GSO_TCPV4, MSS);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, UDP_GRO_BATCH);
	tu_check(tun_count == 1 && tun_big_len == len && !memcmp(tun_big + 40, payload, 16 * MSS) &&
			 b->last_vnet_pieces == 16 && b->last_vnet_copied == 0,
		 "16 segments over two reads: %u writes, %zu bytes (%zu expected), %u pieces, %u copied (0 expected)",
		 tun_count, tun_big_len, len, b->last_vnet_pieces, b->last_vnet_copied);

	/* 56 segments of 300 bytes over 7 reads: the 48 of the first 6 are copied before the 7th */
	tun_count = 0;
	len = tcp_packet(super, a, b, 400000, payload, segs * seg, 0x18);
	tun_read(a, super, len, VIRTIO_NET_HDR_GSO_TCPV4, (uint16_t)seg);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, UDP_GRO_BATCH);
	tu_check(tun_count == 1 && tun_big_len == len && !memcmp(tun_big + 40, payload, segs * seg) &&
			 b->last_vnet_pieces == segs && b->last_vnet_copied == segs - UDP_GRO_BATCH,
		 "%zu segments over %u reads: %u writes, %zu bytes (%zu expected), %u pieces, %u copied", segs,
		 RX_TURNS + 1, tun_count, tun_big_len, len, b->last_vnet_pieces, b->last_vnet_copied);

	/* of 500 bytes, the 48 would be more than GRO_HOLD_MAX to copy: written before the 7th read */
	tun_count = 0;
	seg = 500;
	len = tcp_packet(super, a, b, 800000, payload, segs * seg, 0x18);
	tun_read(a, super, len, VIRTIO_NET_HDR_GSO_TCPV4, (uint16_t)seg);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, UDP_GRO_BATCH);
	tu_check(tun_count == 2 && tun_lens[0] == 40 + (segs - UDP_GRO_BATCH) * seg &&
			 tun_lens[1] == 40 + UDP_GRO_BATCH * seg && b->last_vnet_copied == 0,
		 "%zu segments of 500 bytes: %u writes (2 expected) of %zu and %zu bytes, %u copied", segs,
		 tun_count, tun_lens[0], tun_lens[1], b->last_vnet_copied);
	tu_check(b->vnet_misaligned == 0, "%lu misaligned pieces", b->vnet_misaligned);
	sim_clear(&n);
}

/* A pure ACK from a's inner address to b's, acknowledging ack, with a timestamp option. */
static void send_ack(struct sim_dev *a, struct sim_dev *b, uint32_t ack, uint16_t sport)
{
	static const uint8_t ts[12] = { 1, 1, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2 };
	static const uint8_t none[1];
	uint8_t pkt[52];

	tcp_packet(pkt, a, b, 5000, none, 0, 0x10);
	be16_store(pkt + 2, sizeof(pkt));
	ref_ipv4_csum_set(pkt, 20);
	be16_store(pkt + 20, sport);
	be32_store(pkt + 28, ack);
	pkt[32] = 8 << 4;
	memcpy(pkt + 40, ts, sizeof(ts));
	tcp_checksum(pkt, sizeof(pkt));
	tun_read(a, pkt, sizeof(pkt), VIRTIO_NET_HDR_GSO_NONE, 0);
}

/* The acknowledgment number of b's TUN packet i (a pure ACK; simnet records it without its header). */
static uint32_t tun_ack(unsigned int i)
{
	return be32_load(tun_small[i] + 28);
}

static void test_acks_superseded(bool vnet)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	uint8_t pkt[100], payload[10] = { 0 };
	size_t len;
	uint64_t before;
	uint32_t k;

	setup(&n, &a, &b);
	offloads = vnet;
	device_set_offloads(a->dev, vnet, false);
	device_set_offloads(b->dev, vnet, false);
	before = b->dev->stats.rx_acks_superseded;
	/* five cumulative ACKs of one flow, one batch: only the last is written */
	for (k = 1; k <= 5; k++)
		send_ack(a, b, 1000 * k, 40000);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, 64);
	tu_check(tun_count == 1 && tun_ack(0) == 5000,
		 "vnet %d: five ACKs in one batch: %u writes, the first acknowledging %u", vnet, tun_count,
		 tun_count ? tun_ack(0) : 0);
	CHECK_EQ(b->dev->stats.rx_acks_superseded - before, 4ull);
	/* three duplicate ACKs (a sender's loss signal): all written */
	tun_count = 0;
	for (k = 0; k < 3; k++)
		send_ack(a, b, 7000, 40000);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, 64);
	tu_check(tun_count == 3, "vnet %d: three duplicate ACKs: %u writes", vnet, tun_count);
	/* ACK, a data packet of the same flow, ACK: all three, in order */
	tun_count = 0;
	send_ack(a, b, 8000, 40000);
	len = tcp_packet(pkt, a, b, 5000, payload, sizeof(payload), 0x18);
	be16_store(pkt + 20, 40000);
	tcp_checksum(pkt, len);
	tun_read(a, pkt, len, VIRTIO_NET_HDR_GSO_NONE, 0);
	send_ack(a, b, 9000, 40000);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, 64);
	tu_check(tun_count == 3 && tun_ack(0) == 8000 && tun_ack(2) == 9000,
		 "vnet %d: ACK, data, ACK: %u writes", vnet, tun_count);
	/* two flows interleaved: neither supersedes the other */
	tun_count = 0;
	send_ack(a, b, 10000, 40000);
	send_ack(a, b, 10000, 40001);
	send_ack(a, b, 11000, 40000);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, 64);
	tu_check(tun_count == 3, "vnet %d: ACKs of two flows interleaved: %u writes", vnet, tun_count);
	/* batches of two: [ACK ACK] [ACK]: the last of each batch */
	tun_count = 0;
	for (k = 12; k <= 14; k++)
		send_ack(a, b, 1000 * k, 40000);
	device_tx_flush(a->dev, n.now);
	deliver_in_batches(&n, b, 2);
	tu_check(tun_count == 2 && tun_ack(0) == 13000 && tun_ack(1) == 14000,
		 "vnet %d: ACKs over two batches: %u writes", vnet, tun_count);
	offloads = true;
	sim_clear(&n);
}

int main(int argc, char **argv)
{
	log_init("test_offload", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!sim_parse_threads(argc, argv)) {
		fprintf(stderr, "usage: %s [--threads N]\n", argv[0]);
		return 2;
	}
	if (!x25519_init())
		return 99;
	test_super_packet_merged_across_batches();
	test_held_group_keeps_order();
	test_udp_super_packet();
	test_merged_where_decrypted();
	test_large_buffers_turn();
	test_acks_superseded(true);
	test_acks_superseded(false);
	log_clear();
	printf("test_offload: traffic digest %016llx\n", (unsigned long long)sim_digests);
	fprintf(stderr, "%lu jobs run by workers\n", sim_worker_jobs);
	return ct_exit("test_offload");
}
