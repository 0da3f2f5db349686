// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the TUN input path of a device with a live session
 * (device_tx_buffer/device_tx_packet/device_tx_flush: the virtio_net_hdr,
 * the split of TSO super-packets and checksum completion (daemon/datapath/gso.c),
 * the inner IP check, allowed IPs, sealing, the batch to the socket), and
 * of the receive path of the peer that opens what it sends.
 *
 * Every input starts from the same state: simnet devices a and b
 * (tests/datapath/simnet.h, fixed seed) where a has sent b one packet over a
 * fresh handshake.  Input: one byte whose bit 0 turns a's TUN offloads on
 * (device_set_offloads(a, true, false): every read starts with a
 * virtio_net_hdr and may be a TCP super-packet), then up to FUZZ_MAX_READS
 * records of a 16-bit little-endian length and that many bytes, each one
 * TUN read of a; then a flushes and the network delivers to b.
 *   FUZZ_MAKE_CORPUS=DIR fuzz_tun     writes the seed corpus
 *
 * Properties, besides no crash, leak or undefined behaviour:
 *  - a sends nothing but data messages and handshake initiations, and only
 *    to b's endpoint (its only peer, and the only route: b's inner /32);
 *  - everything a sends opens at b: b's counters of datagrams that failed
 *    the edge check, a MAC, opening or the inner IP check stay put, and each
 *    data message a sent is either written to b's TUN device or refused by
 *    b's source check (a seals any source address; WP §3, cryptokey
 *    routing);
 *  - a's own TUN device gets nothing but ICMP unreachable errors
 *    (daemon/datapath/icmp.h) for reads that no peer takes, at most one
 *    per read: IPv4 type 3 code 1 or IPv6 type 1 code 3, checksums right
 *    (by the naive reference), addressed back from the quoted packet's
 *    destination to its source, quoting up to the RFCs' size;
 *  - every packet b's TUN device gets is an IPv4 packet whose header is
 *    valid (RFC 791: version, IHL of at least 5, total length = the packet)
 *    from a's inner address to b's, and is a piece of one of the reads:
 *    without offloads, or with no GSO asked, that read cut to its IP length
 *    (with offloads and NEEDS_CSUM, but for the checksum field); as a TCP
 *    segment of a super-packet, its payload lies inside that read.
 */
/* memmem() */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/messages.h"
#include "tests/fuzz/fuzzdev.h"
#include "tests/fuzz/fuzzref.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_READS 8	/* per input: the loop's bound */

static struct fuzz_state {
	struct sim_net net;
	struct sim_dev *a, *b;
	bool vnet;
	const uint8_t *reads[FUZZ_MAX_READS];
	size_t read_len[FUZZ_MAX_READS];
	unsigned int nreads;
	unsigned long a_data;		/* data messages a sent, keepalives included */
	unsigned long a_keepalives;
	unsigned long b_tun;
	unsigned long a_errors;		/* unreachable errors a wrote back to itself */
} st;

static void on_send(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	(void)n;
	if (from != st.a)
		return;
	FUZZ_CHECK(endpoint_addr_equal(m->ep, &st.b->addr), "a sends to an address that is not b's");
	FUZZ_CHECK(m->len >= MESSAGE_DATA_MIN_LEN &&
		   (m->data[0] == MESSAGE_DATA || m->data[0] == MESSAGE_HANDSHAKE_INITIATION),
		   "a sends a datagram of type %u, %zu bytes", m->len ? m->data[0] : 0, m->len);
	if (m->data[0] == MESSAGE_DATA) {
		st.a_data++;
		st.a_keepalives += m->len == MESSAGE_DATA_MIN_LEN;
	}
}

static uint16_t host16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);	/* a virtio_net_hdr is in host byte order */
	return v;
}

/* Whether pkt (at b's TUN) is a piece of read r. */
static bool piece_of(const uint8_t *pkt, size_t len, const uint8_t *r, size_t rlen)
{
	size_t field = SIZE_MAX, hdr, i;

	if (st.vnet) {
		if (rlen < GSO_VNET_HDR_LEN)
			return false;
		if ((r[1] & ~VIRTIO_NET_HDR_GSO_ECN) != VIRTIO_NET_HDR_GSO_NONE) {
			/* a TCP segment: its payload is a run of the super-packet's */
			hdr = (size_t)(pkt[0] & 0xf) * 4;
			if (len < hdr + 20)
				return false;
			hdr += (size_t)(pkt[hdr + 12] >> 4) * 4;
			return hdr <= len && (hdr == len || memmem(r, rlen, pkt + hdr, len - hdr));
		}
		if (r[0] & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			field = (size_t)host16(r + 6) + host16(r + 8);
		r += GSO_VNET_HDR_LEN;
		rlen -= GSO_VNET_HDR_LEN;
	}
	if (len > rlen)
		return false;
	for (i = 0; i < len; i++) {
		if (pkt[i] != r[i] && i != field && i != field + 1)
			return false;
	}
	return true;
}

/* An error a wrote back into its own TUN device (icmp.h). */
static void on_error(const uint8_t *pkt, size_t len)
{
	bool v6 = len >= 1 && pkt[0] >> 4 == 6;
	size_t hl = v6 ? 48 : 28, max = v6 ? 1280 : 576;
	const uint8_t *q = pkt + hl;

	st.a_errors++;
	/* the read being handled is not counted in nreads yet */
	FUZZ_CHECK(st.a_errors <= st.nreads + 1, "a wrote %lu errors for %u reads", st.a_errors, st.nreads + 1);
	FUZZ_CHECK(len > hl + (v6 ? 40 : 20) && len <= max, "a's TUN got %zu bytes that are no error", len);
	if (v6) {
		FUZZ_CHECK(pkt[0] == 0x60 && pkt[6] == 58 && ref_be16(pkt + 4) == len - 40 && pkt[40] == 1 &&
			   pkt[41] == 3 && q[0] >> 4 == 6 && ref_l4_csum_ok(pkt, len, 40, true, 58) &&
			   !memcmp(pkt + 8, q + 24, 16) && !memcmp(pkt + 24, q + 8, 16),
			   "a's TUN got an IPv6 packet of %zu bytes that is no address unreachable", len);
		return;
	}
	FUZZ_CHECK(pkt[0] == 0x45 && pkt[9] == 1 && ref_be16(pkt + 2) == len && ref_ipv4_csum_ok(pkt, 20) &&
		   pkt[20] == 3 && pkt[21] == 1 && ref_sum(pkt + 20, len - 20, 0) == 0xffff && q[0] >> 4 == 4 &&
		   !memcmp(pkt + 12, q + 16, 4) && !memcmp(pkt + 16, q + 12, 4),
		   "a's TUN got an IPv4 packet of %zu bytes that is no host unreachable", len);
}

static void on_tun(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len)
{
	uint32_t src, dst;
	unsigned int i;

	(void)n;
	if (to == st.a) {
		on_error(pkt, len);
		return;
	}
	st.b_tun++;
	/* RFC 791 §3.1 */
	FUZZ_CHECK(len >= 20 && pkt[0] >> 4 == 4 && (pkt[0] & 0xf) >= 5 && (size_t)(pkt[0] & 0xf) * 4 <= len &&
		   ref_be16(pkt + 2) == len, "b's TUN got %zu bytes that are no valid IPv4 packet", len);
	src = ref_be32(pkt + 12);
	dst = ref_be32(pkt + 16);
	FUZZ_CHECK(src == st.a->inner && dst == st.b->inner, "b's TUN got a packet %08x -> %08x", src, dst);
	for (i = 0; i < st.nreads; i++) {
		if (piece_of(pkt, len, st.reads[i], st.read_len[i]))
			return;
	}
	FUZZ_CHECK(0, "b's TUN got %zu bytes that are no piece of any read", len);
}

static void setup(bool vnet)
{
	struct sim_net *n = &st.net;
	uint8_t pkt[64];
	size_t len;

	memset(&st, 0, sizeof(st));
	st.vnet = vnet;
	sim_init(n, FUZZDEV_SEED);
	st.a = sim_add(n);
	st.b = sim_add(n);
	if (!st.a || !st.b || sim_peer(st.a, st.b, true, NULL) || sim_peer(st.b, st.a, true, NULL))
		abort();
	/* what the shell's TUN device does is set before traffic (device.h) */
	device_set_offloads(st.a->dev, vnet, false);
	/*
	 * a seals a segment of any gso_size the virtio_net_hdr asks for, up to
	 * the oversize path's limit, whatever its MTU (as the kernel's
	 * WireGuard segments a GSO packet); simnet loses a datagram larger
	 * than the receiver's buffer without a word.  With the largest MTU, b
	 * receives into 64 KiB buffers and takes any datagram, as the kernel's
	 * WireGuard does (receive.c).
	 */
	device_set_mtu(st.b->dev, PACKET_MAX_INNER_LARGE);
	len = fuzzdev_ipv4(pkt, sizeof(pkt), st.a->inner, st.b->inner, (const uint8_t *)"hello b", 7);
	st.reads[0] = pkt;
	st.read_len[0] = len;
	fuzzdev_tun_read(st.a->dev, pkt, len, n->now);
	device_tx_flush(st.a->dev, n->now);
	sim_run(n, n->now + SIM_MS(50));
	if (st.b->tun_packets != 1)
		abort();	/* the setup itself did not go as described */
	n->on_send = on_send;
	n->on_tun = on_tun;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_net *n = &st.net;
	struct device_stats b0;
	size_t off = 1, tx_size;
	unsigned int i;
	uint8_t *buf;

	if (!size)
		return 0;
	setup(data[0] & 1);
	b0 = st.b->dev->stats;
	for (st.nreads = 0; st.nreads < FUZZ_MAX_READS && size - off >= 2; st.nreads++) {
		size_t len = (size_t)data[off] | (size_t)data[off + 1] << 8;

		off += 2;
		if (len > size - off)
			len = size - off;
		buf = device_tx_buffer(st.a->dev, &tx_size);
		/* a read longer than the buffer is cut to it */
		if (len > tx_size)
			len = tx_size;
		memcpy(buf, data + off, len);
		st.reads[st.nreads] = data + off;
		st.read_len[st.nreads] = len;
		device_tx_packet(st.a->dev, len, n->now);
		off += len;
	}
	device_tx_flush(st.a->dev, n->now);
	sim_run(n, n->now + SIM_MS(50));
	{
		const struct device_stats *b1 = &st.b->dev->stats;

		FUZZ_CHECK(b1->rx_invalid == b0.rx_invalid && b1->rx_bad_mac == b0.rx_bad_mac &&
			   b1->rx_data_dropped == b0.rx_data_dropped && b1->rx_bad_inner == b0.rx_bad_inner &&
			   b1->rx_tun_dropped == b0.rx_tun_dropped,
			   "b refused what a sent: invalid %llu, mac %llu, open %llu, inner %llu, tun %llu",
			   (unsigned long long)(b1->rx_invalid - b0.rx_invalid),
			   (unsigned long long)(b1->rx_bad_mac - b0.rx_bad_mac),
			   (unsigned long long)(b1->rx_data_dropped - b0.rx_data_dropped),
			   (unsigned long long)(b1->rx_bad_inner - b0.rx_bad_inner),
			   (unsigned long long)(b1->rx_tun_dropped - b0.rx_tun_dropped));
		FUZZ_CHECK(st.a_data - st.a_keepalives == st.b_tun + (b1->rx_bad_source - b0.rx_bad_source),
			   "a sent %lu data messages, b delivered %lu and refused %llu by source", st.a_data -
			   st.a_keepalives, st.b_tun, (unsigned long long)(b1->rx_bad_source - b0.rx_bad_source));
	}
	if (getenv("FUZZ_VERBOSE"))
		fprintf(stderr, "%u reads, %lu data messages, %lu to b's TUN\n", st.nreads, st.a_data, st.b_tun);
	for (i = 0; i < FUZZ_MAX_READS; i++)
		st.reads[i] = NULL;
	sim_clear(n);
	return 0;
}

/* ---- the seed corpus ---- */

struct seed {
	uint8_t buf[70000];
	size_t len;
};

static void seed_read(struct seed *s, const uint8_t *vnet, const uint8_t *pkt, size_t len)
{
	size_t hl = vnet ? GSO_VNET_HDR_LEN : 0;

	if (s->len + 2 + hl + len > sizeof(s->buf))
		abort();
	s->buf[s->len++] = (uint8_t)(hl + len);
	s->buf[s->len++] = (uint8_t)((hl + len) >> 8);
	if (vnet)
		memcpy(s->buf + s->len, vnet, hl);
	memcpy(s->buf + s->len + hl, pkt, len);
	s->len += hl + len;
}

/* An IPv4 TCP packet a -> b with payload bytes (RFC 793 header, no options); its length. */
static size_t tcp4(uint8_t *out, size_t payload)
{
	size_t total = 40 + payload, i;
	uint32_t s = htonl(st.a->inner), d = htonl(st.b->inner);

	memset(out, 0, 40);
	out[0] = 0x45;
	out[2] = (uint8_t)(total >> 8);
	out[3] = (uint8_t)total;
	out[6] = 0x40;		/* DF */
	out[8] = 64;
	out[9] = 6;
	memcpy(out + 12, &s, 4);
	memcpy(out + 16, &d, 4);
	out[20] = 0x9c;		/* ports 40000 -> 80 */
	out[21] = 0x40;
	out[23] = 80;
	out[24 + 3] = 1;	/* sequence 1 */
	out[32] = 5 << 4;	/* data offset */
	out[33] = 0x18;		/* PSH, ACK */
	out[34] = 0xff;		/* window */
	for (i = 0; i < payload; i++)
		out[40 + i] = (uint8_t)(i * 7);
	return total;
}

static void vnet_hdr(uint8_t *h, uint8_t flags, uint8_t gso_type, uint16_t hdr_len, uint16_t gso_size,
		     uint16_t csum_start, uint16_t csum_offset)
{
	h[0] = flags;
	h[1] = gso_type;
	memcpy(h + 2, &hdr_len, 2);	/* host byte order */
	memcpy(h + 4, &gso_size, 2);
	memcpy(h + 6, &csum_start, 2);
	memcpy(h + 8, &csum_offset, 2);
}

static void make_corpus(const char *dir)
{
	static uint8_t pkt[65536];
	static struct seed s;
	uint8_t h[GSO_VNET_HDR_LEN];
	size_t len;

	setup(false);
	/* without offloads: a packet to b, one elsewhere (no route), IPv6, a short and a cut one */
	s.len = 0;
	s.buf[s.len++] = 0;
	len = fuzzdev_ipv4(pkt, sizeof(pkt), st.a->inner, st.b->inner, (const uint8_t *)"data for b", 10);
	seed_read(&s, NULL, pkt, len);
	fuzzdev_write_seed(dir, "plain-to-b", s.buf, s.len);
	len = fuzzdev_ipv4(pkt, sizeof(pkt), st.a->inner, 0x08080808u, (const uint8_t *)"elsewhere", 9);
	seed_read(&s, NULL, pkt, len);
	len = fuzzdev_ipv4(pkt, sizeof(pkt), 0x0a000001u, st.b->inner, (const uint8_t *)"spoofed", 7);
	seed_read(&s, NULL, pkt, len);
	memset(pkt, 0, 48);
	pkt[0] = 0x60;		/* IPv6, payload 8, next header 59 (none), RFC 8200 */
	pkt[5] = 8;
	pkt[6] = 59;
	pkt[7] = 64;
	seed_read(&s, NULL, pkt, 48);
	len = tcp4(pkt, 1200);
	seed_read(&s, NULL, pkt, len - 100);	/* shorter than its total length */
	seed_read(&s, NULL, pkt, len);
	fuzzdev_write_seed(dir, "plain-mixed", s.buf, s.len);
	/* with offloads: a TSO super-packet over IPv4, NEEDS_CSUM alone, no offload asked */
	s.len = 0;
	s.buf[s.len++] = 1;
	len = tcp4(pkt, 4000);
	vnet_hdr(h, VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_GSO_TCPV4, 40, 1000, 20, 16);
	seed_read(&s, h, pkt, len);
	fuzzdev_write_seed(dir, "tso4", s.buf, s.len);
	len = tcp4(pkt, 300);
	vnet_hdr(h, VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_GSO_NONE, 0, 0, 20, 16);
	seed_read(&s, h, pkt, len);
	vnet_hdr(h, 0, VIRTIO_NET_HDR_GSO_NONE, 0, 0, 0, 0);
	len = fuzzdev_ipv4(pkt, sizeof(pkt), st.a->inner, st.b->inner, (const uint8_t *)"plain", 5);
	seed_read(&s, h, pkt, len);
	fuzzdev_write_seed(dir, "vnet-mixed", s.buf, s.len);
	/* the largest: nearly 64 KiB of TCP in segments of 1360 */
	s.len = 0;
	s.buf[s.len++] = 1;
	len = tcp4(pkt, 65535 - GSO_VNET_HDR_LEN - 40);	/* the read within a 16-bit record */
	vnet_hdr(h, VIRTIO_NET_HDR_F_NEEDS_CSUM, VIRTIO_NET_HDR_GSO_TCPV4 | VIRTIO_NET_HDR_GSO_ECN, 40, 1360,
		 20, 16);
	seed_read(&s, h, pkt, len);
	fuzzdev_write_seed(dir, "tso4-64k", s.buf, s.len);
	sim_clear(&st.net);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = getenv("FUZZ_MAKE_CORPUS");

	(void)argc;
	(void)argv;
	fuzzdev_init();
	if (dir) {
		make_corpus(dir);
		exit(0);
	}
	return 0;
}
