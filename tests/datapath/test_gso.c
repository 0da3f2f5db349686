// SPDX-License-Identifier: GPL-2.0-only
/*
 * TUN offloads (daemon/datapath/gso.c) against naive references:
 *  - checksums against a 16-bit-word-at-a-time RFC 1071 sum: the sum and
 *    the copy-and-sum at every length to 2048 and some to 65535, every
 *    source and destination alignment, random and all-ones bytes; the
 *    copy exact and nothing written around it;
 *  - TSO split: every segment has a valid IPv4 header checksum and TCP
 *    checksum, contiguous sequence numbers, FIN/PSH only on the last, CWR
 *    only on the first, and the payloads concatenate to the original;
 *  - GRO: the segments merge back into the original super-packet;
 *    segments that do not continue the flow are refused;
 *  - malformed super-packets are refused or cut without reading out of
 *    bounds (run under ASan in CI); an IPv4 IHL below 5 is refused;
 *  - pure ACKs: which packets are one, and which later ACK supersedes an
 *    earlier one (never a duplicate ACK, SACK, ECN CE, another flow).
 */
#include <linux/virtio_net.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/bytes.h"
#include "daemon/datapath/gso.h"
#include "tests/lib/csum_ref.h"
#include "tests/lib/testutil.h"

static int failures;

#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);           \
			printf(__VA_ARGS__);                                  \
			printf("\n");                                         \
			failures++;                                           \
		}                                                             \
	} while (0)

static struct tu_rng rng_state;

static uint32_t rng(void)
{
	return (uint32_t)(tu_rng_next(&rng_state) >> 32);
}

/*
 * gso_csum_fold(gso_csum_add(s0, ...)) and the copy against the reference,
 * exactly: both fold a sum that is zero only if s0 and every byte are, so
 * neither may give 0xffff where the other gives 0.
 */
static void check_csum(uint32_t s0, uint8_t *dst, const uint8_t *src, size_t len, size_t so, size_t dof,
		       const char *what)
{
	uint16_t want = (uint16_t)~ref_sum(src, len, s0), a;

	if (!dst) {
		a = gso_csum_fold(gso_csum_add(s0, src, len));
		CHECK(a == want, "%s: sum of %zu bytes at %zu: %04x vs %04x", what, len, so, a, want);
		return;
	}
	a = gso_csum_fold(gso_csum_copy(s0, dst, src, len));
	CHECK(a == want, "%s: copy-sum of %zu bytes at %zu/%zu: %04x vs %04x", what, len, so, dof, a, want);
	CHECK(!memcmp(dst, src, len), "%s: copy of %zu bytes at %zu/%zu", what, len, so, dof);
}

/* Whether the CSUM_GUARD bytes either side of dst[0..len) still hold 0xa5. */
#define CSUM_GUARD 8

static bool guards_intact(const uint8_t *dst, size_t len)
{
	size_t i;

	for (i = 1; i <= CSUM_GUARD; i++)
		if (dst[-(ptrdiff_t)i] != 0xa5 || dst[len + i - 1] != 0xa5)
			return false;
	return true;
}

/*
 * len bytes at src + so: summed, and copied to each destination offset
 * 0..7 with CSUM_GUARD bytes of 0xa5 either side; s0, the sum passed in,
 * is 0 or random.
 */
static void test_csum_lengths(const uint8_t *src, uint8_t *buf, size_t len, size_t so, const char *what)
{
	uint32_t s0 = len % 3 ? rng() & 0xffff : 0;
	size_t dof;

	check_csum(s0, NULL, src + so, len, so, 0, what);
	for (dof = 0; dof < 8; dof++) {
		uint8_t *dst = buf + CSUM_GUARD + dof;

		memset(dst - CSUM_GUARD, 0xa5, len + 2 * CSUM_GUARD);
		check_csum(s0, dst, src + so, len, so, dof, what);
		CHECK(guards_intact(dst, len), "%s: copy of %zu bytes at %zu/%zu wrote outside", what, len, so, dof);
	}
}

/*
 * Words that make the 32-bit folds carry: k words of 0xffffffff sum to
 * (k - 1) 2^32 + 2^32 - k, and a native-order word w with 0 < w < k then
 * makes the two halves add to 2^32 or more; the carry must come back in.
 */
static void test_csum_fold_carry(uint8_t *src, uint8_t *buf)
{
	size_t k, so, j;

	for (so = 0; so < 8; so++) {
		for (k = 2; k <= 40; k++) {
			const uint32_t w[2] = { 1, (uint32_t)k - 1 };

			memset(src + so, 0xff, 4 * k);
			for (j = 0; j < 2; j++) {
				memcpy(src + so + 4 * k, &w[j], sizeof(w[j]));
				test_csum_lengths(src, buf, 4 * k + 4, so, "fold carry");
			}
		}
	}
}

/*
 * The sum and the copy-and-sum at every length to 2048 and a few to 65535,
 * at every source and destination offset modulo 8 (every mix of aligned
 * and misaligned pointers: different loops on 32-bit targets, and the
 * assembly on MIPS32r2), over random bytes and over all-0xff bytes (a
 * carry out of every word), and over words made to carry in the folds.
 * The copy must be exact and write nothing outside dst.
 */
static void test_csum(void)
{
	static const size_t big[] = { 4095, 4096, 9001, 32768, 65532, 65533, 65534, 65535 };
	static uint8_t src[65535 + 8] __attribute__((aligned(16)));
	static uint8_t buf[65535 + 8 + 2 * CSUM_GUARD] __attribute__((aligned(16)));
	size_t len, so, i;
	int fill;

	for (fill = 0; fill < 2; fill++) {
		const char *what = fill ? "all 0xff" : "random";

		for (i = 0; i < sizeof(src); i++)
			src[i] = fill ? 0xff : (uint8_t)rng();
		for (so = 0; so < 8; so++) {
			for (len = 0; len <= 2048; len++)
				test_csum_lengths(src, buf, len, so, what);
			for (i = 0; i < sizeof(big) / sizeof(big[0]); i++)
				if (big[i] + so <= sizeof(src))
					test_csum_lengths(src, buf, big[i], so, what);
		}
	}
	test_csum_fold_carry(src, buf);
}

/* A TCP super-packet: IPv4 or IPv6, 32 bytes of TCP header (options). */
static size_t make_super(uint8_t *pkt, bool v6, size_t payload, uint8_t flags)
{
	size_t ip = v6 ? 40 : 20, tcp = 32, len = ip + tcp + payload, i;

	memset(pkt, 0, ip + tcp);
	if (v6) {
		pkt[0] = 0x60;
		be16_store(pkt + 4, (uint16_t)(len - 40));
		pkt[6] = 6;
		pkt[7] = 64;
		for (i = 8; i < 40; i++)
			pkt[i] = (uint8_t)rng();
	} else {
		pkt[0] = 0x45;
		be16_store(pkt + 2, (uint16_t)len);
		be16_store(pkt + 4, 0x1234);
		pkt[6] = 0x40;
		pkt[8] = 64;
		pkt[9] = 6;
		for (i = 12; i < 20; i++)
			pkt[i] = (uint8_t)rng();
	}
	be16_store(pkt + ip, 40000);
	be16_store(pkt + ip + 2, 5201);
	be32_store(pkt + ip + 4, 0xfffff000u);	/* wraps inside the packet */
	be32_store(pkt + ip + 8, 0x01020304);
	pkt[ip + 12] = 8 << 4;
	pkt[ip + 13] = flags;
	be16_store(pkt + ip + 14, 512);
	pkt[ip + 20] = 1;
	pkt[ip + 21] = 1;
	pkt[ip + 22] = 8;
	pkt[ip + 23] = 10;
	for (i = ip + 24; i < len; i++)
		pkt[i] = (uint8_t)rng();
	return len;
}

static uint8_t super[GSO_MAX_PACKET], segs_store[64 * 2048 + GSO_VNET_HDR_LEN], merged_copy[GSO_MAX_PACKET];
static size_t seg_len[64];
/* segments with room for a virtio_net_hdr in front, as the daemon's slots have */
#define segs ((uint8_t (*)[2048])(segs_store + GSO_VNET_HDR_LEN))
static struct gro gro;
static uint8_t flat[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];

/* gro_finish(), its pieces gathered into flat; *at: where the first piece lies. */
static size_t gro_finish_flat(const uint8_t **at)
{
	const struct iovec *iov;
	unsigned int n, i;
	size_t len = gro_finish(&gro, &iov, &n), off = 0;

	if (!len)
		return 0;
	*at = iov[0].iov_base;
	for (i = 0; i < n && iov[i].iov_len <= sizeof(flat) - off; i++) {
		memcpy(flat + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	CHECK(i == n && off == len, "gathered %zu of %zu bytes", off, len);
	return len;
}

static void test_split_and_merge(bool v6, size_t payload, uint16_t mss)
{
	size_t ip = v6 ? 40 : 20, hdr = ip + 32, len, n = 0, off = 0, out_len, i;
	struct gso_hdr h = {
		.gso_type = v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = mss, .csum_start = (uint16_t)ip, .csum_offset = 16,
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
	};
	struct gso_split s;
	const uint8_t *out = flat, *at = NULL;

	len = make_super(super, v6, payload, 0x10 | 0x08 | 0x01 | 0x80);
	CHECK(gso_split_init(&s, super, len, &h), "split init v6=%d", v6);
	while (n < 64 && (seg_len[n] = gso_split_next(&s, segs[n], sizeof(segs[n]))))
		n++;
	CHECK(n == (payload + mss - 1) / mss, "v6=%d %zu/%u: %zu segments", v6, payload, mss, n);
	for (i = 0; i < n; i++) {
		const uint8_t *g = segs[i];
		uint8_t fl = g[ip + 13];

		CHECK(seg_len[i] == hdr + (i + 1 < n ? mss : payload - off), "segment %zu length", i);
		if (v6)
			CHECK(be16_load(g + 4) == seg_len[i] - 40, "v6 payload length");
		else
			CHECK(be16_load(g + 2) == seg_len[i] && ref_sum(g, 20, 0) == 0xffff &&
			      be16_load(g + 4) == 0x1234 + i, "v4 header of segment %zu", i);
		CHECK(ref_l4_csum_ok(g, seg_len[i], v6 ? 40 : (size_t)(g[0] & 0xf) * 4, v6, 6),
		      "TCP checksum of segment %zu", i);
		CHECK(be32_load(g + ip + 4) == 0xfffff000u + (uint32_t)off, "sequence of segment %zu", i);
		CHECK(((fl & 0x09) != 0) == (i + 1 == n), "FIN/PSH on segment %zu", i);
		CHECK(((fl & 0x80) != 0) == (i == 0), "CWR on segment %zu", i);
		CHECK(!memcmp(g + hdr, super + hdr + off, seg_len[i] - hdr), "payload of segment %zu", i);
		off += seg_len[i] - hdr;
	}
	CHECK(off == payload, "payload total");

	/* GRO refuses FIN and CWR segments: merge copies without them. */
	for (i = 0; i < n; i++) {
		segs[i][ip + 13] = (uint8_t)(0x10 | (i + 1 == n ? 0x08 : 0));
	}
	CHECK(gro_start(&gro, segs[0], seg_len[0]), "gro start");
	for (i = 1; i < n; i++)
		CHECK(gro_append(&gro, segs[i], seg_len[i]), "gro append %zu", i);
	out_len = gro_finish_flat(&at);
	CHECK(out_len == len + GSO_VNET_HDR_LEN, "merged length %zu vs %zu", out_len, len);
	if (out_len != len + GSO_VNET_HDR_LEN)
		return;
	memcpy(merged_copy, out + GSO_VNET_HDR_LEN, len);
	if (n == 1) {
		/* nothing to merge: written as it lies, with a plain header */
		CHECK(at + GSO_VNET_HDR_LEN == segs[0] && out[0] == 0 && out[1] == 0,
		      "single segment as is");
		return;
	}
	CHECK(out[0] == VIRTIO_NET_HDR_F_NEEDS_CSUM && out[1] == h.gso_type, "vnet header");
	CHECK(!memcmp(merged_copy + hdr, super + hdr, payload), "merged payload");
	CHECK(!memcmp(merged_copy + ip, super + ip, 13), "merged TCP header start");
	CHECK(merged_copy[ip + 13] == 0x18, "merged flags %02x", merged_copy[ip + 13]);
	if (!v6)
		CHECK(ref_sum(merged_copy, 20, 0) == 0xffff && be16_load(merged_copy + 2) == len,
		      "merged v4 header");
	/* partial checksum: completing it gives a valid TCP checksum */
	h.gso_type = VIRTIO_NET_HDR_GSO_NONE;
	CHECK(gso_complete_csum(merged_copy, len, &h), "complete");
	CHECK(ref_l4_csum_ok(merged_copy, len, v6 ? 40 : (size_t)(merged_copy[0] & 0xf) * 4, v6, 6),
	      "merged TCP checksum");
}

/*
 * A UDP super-packet (USO): IPv4 or IPv6, then a UDP header and payload
 * bytes from the seeded generator; the UDP checksum field holds what the
 * kernel leaves there (the pseudo header's sum) and is rewritten per
 * segment.
 */
static size_t make_udp_super(uint8_t *pkt, bool v6, size_t payload)
{
	size_t ip = v6 ? 40 : 20, len = ip + 8 + payload, i;

	memset(pkt, 0, ip + 8);
	if (v6) {
		pkt[0] = 0x60;
		be16_store(pkt + 4, (uint16_t)(len - 40));
		pkt[6] = 17;
		pkt[7] = 64;
		pkt[8] = 0xfd;
		pkt[39] = 2;
	} else {
		pkt[0] = 0x45;
		be16_store(pkt + 2, (uint16_t)len);
		be16_store(pkt + 4, 0xfff0);	/* the IDs wrap inside the packet */
		pkt[8] = 64;
		pkt[9] = 17;
		be32_store(pkt + 12, 0xc6336401);
		be32_store(pkt + 16, 0xc6336402);
		be16_store(pkt + 10, 0);
		be16_store(pkt + 10, (uint16_t)~ref_sum(pkt, 20, 0));
	}
	be16_store(pkt + ip, 40000);
	be16_store(pkt + ip + 2, 5201);
	be16_store(pkt + ip + 4, (uint16_t)(len - ip));
	for (i = ip + 8; i < len; i++)
		pkt[i] = (uint8_t)rng();
	return len;
}

/* A UDP super-packet cut into datagrams of mss bytes of payload (RFC 768). */
static void test_udp_split(bool v6, size_t payload, uint16_t mss)
{
	size_t ip = v6 ? 40 : 20, hdr = ip + 8, len, n = 0, off = 0, i;
	struct gso_hdr h = {
		.gso_type = GSO_VNET_UDP_L4, .gso_size = mss, .csum_start = (uint16_t)ip, .csum_offset = 6,
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
	};
	struct gso_split s;

	len = make_udp_super(super, v6, payload);
	CHECK(gso_split_init(&s, super, len, &h), "udp split init v6=%d", v6);
	while (n < 64 && (seg_len[n] = gso_split_next(&s, segs[n], sizeof(segs[n]))))
		n++;
	CHECK(n == (payload + mss - 1) / mss, "udp v6=%d %zu/%u: %zu datagrams", v6, payload, mss, n);
	for (i = 0; i < n; i++) {
		const uint8_t *g = segs[i];

		CHECK(seg_len[i] == hdr + (i + 1 < n ? mss : payload - off), "datagram %zu length", i);
		if (v6)
			CHECK(be16_load(g + 4) == seg_len[i] - 40, "udp v6 payload length");
		else
			CHECK(be16_load(g + 2) == seg_len[i] && ref_ipv4_csum_ok(g, 20) &&
			      be16_load(g + 4) == (uint16_t)(0xfff0 + i), "udp v4 header of datagram %zu", i);
		CHECK(be16_load(g + ip + 4) == seg_len[i] - ip, "UDP length of datagram %zu", i);
		CHECK(be16_load(g + ip + 6) != 0 && ref_l4_csum_ok(g, seg_len[i], ip, v6, 17),
		      "UDP checksum of datagram %zu", i);
		CHECK(!memcmp(g + (v6 ? 8 : 12), super + (v6 ? 8 : 12), v6 ? 32 : 8) && !memcmp(g + ip, super + ip, 4),
		      "addresses and ports of datagram %zu", i);
		CHECK(!memcmp(g + hdr, super + hdr + off, seg_len[i] - hdr), "payload of datagram %zu", i);
		off += seg_len[i] - hdr;
	}
	CHECK(off == payload, "udp payload total");
}

/*
 * Segment k written by itself (gso_split_segment(), as the data path's
 * jobs write them, in any order, on any thread) is the one gso_split_next()
 * writes k-th.
 */
static void test_segments_any_order(bool v6, bool udp, size_t payload, uint16_t mss)
{
	struct gso_hdr h = {
		.gso_type = udp ? GSO_VNET_UDP_L4 : v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4,
		.gso_size = mss, .csum_start = v6 ? 40 : 20, .csum_offset = udp ? 6 : 16,
	};
	static uint8_t one[2048];
	struct gso_split s;
	size_t len = udp ? make_udp_super(super, v6, payload) : make_super(super, v6, payload, 0x18);
	unsigned int n = 0, k, count;

	CHECK(gso_split_init(&s, super, len, &h), "split init (any order)");
	count = gso_split_count(&s);
	while (n < 64 && (seg_len[n] = gso_split_next(&s, segs[n], sizeof(segs[n]))))
		n++;
	CHECK(n == count, "gso_split_count %u, gso_split_next %u", count, n);
	for (k = n; k-- > 0;) {
		size_t l = gso_split_segment(&s, k, one, sizeof(one));

		CHECK(l == seg_len[k] && l == gso_split_len(&s, k) && !memcmp(one, segs[k], l),
		      "segment %u of %u by itself (v6=%d udp=%d)", k, n, v6, udp);
	}
	CHECK(!gso_split_segment(&s, n, one, sizeof(one)), "no segment past the last");
}

static void test_gro_refusals(void)
{
	const uint8_t *at = NULL;
	size_t len = make_super(super, false, 2800, 0x10), n, l0, l1;
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = 1400,
			     .csum_start = 20, .csum_offset = 16 };
	struct gso_split s;

	CHECK(gso_split_init(&s, super, len, &h), "split");
	l0 = gso_split_next(&s, segs[0], 2048);
	l1 = gso_split_next(&s, segs[1], 2048);
	CHECK(l0 && l1 && !gso_split_next(&s, segs[2], 2048), "two segments");
	memcpy(segs[2], segs[1], l1);
	be32_store(segs[2] + 24, be32_load(segs[2] + 24) + 1);	/* a gap */
	CHECK(gro_start(&gro, segs[0], l0) && !gro_append(&gro, segs[2], l1), "gap refused");
	memcpy(segs[2], segs[1], l1);
	segs[2][21] ^= 1;					/* another port */
	CHECK(!gro_append(&gro, segs[2], l1), "port refused");
	memcpy(segs[2], segs[1], l1);
	segs[2][47] ^= 1;					/* other options */
	CHECK(!gro_append(&gro, segs[2], l1), "options refused");
	memcpy(segs[2], segs[1], l1);
	segs[2][33] |= 0x02;					/* SYN */
	CHECK(!gro_append(&gro, segs[2], l1), "SYN refused");
	n = gro_finish_flat(&at);
	CHECK(n == l0 + GSO_VNET_HDR_LEN && at + GSO_VNET_HDR_LEN == segs[0],
	      "single segment written as is");
}

/*
 * An IPv4 super-packet whose IHL is below 5 (RFC 791), with csum_start
 * agreeing, must be refused: split, its TCP header would overlap the IP
 * header and the segments would carry a broken header and checksum.
 * Found by tests/fuzz/fuzz_gso.c (corpus/gso/regress-ihl4).
 */
static void test_short_ihl(void)
{
	struct gso_hdr h = { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = 1400, .csum_offset = 16 };
	struct gso_split s;
	size_t len, ihl;

	for (ihl = 0; ihl < 5; ihl++) {
		len = make_super(super, false, 3000, 0x10);
		super[0] = (uint8_t)(0x40 | ihl);
		h.csum_start = (uint16_t)(ihl * 4);
		super[ihl * 4 + 12] = 8 << 4;	/* a data offset that passes where TCP would start */
		CHECK(!gso_split_init(&s, super, len, &h), "IHL %zu accepted", ihl);
	}
}

static void test_malformed(void)
{
	struct gso_hdr h;
	struct gso_split s;
	size_t len, i, k;

	for (i = 0; i < 20000; i++) {
		len = rng() % 200;
		for (k = 0; k < len; k++)
			super[k] = (uint8_t)rng();
		if (len && (rng() & 1))
			super[0] = (rng() & 1) ? 0x45 : 0x60;
		h.flags = (uint8_t)rng();
		h.gso_type = (rng() & 1) ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_TCPV6;
		h.gso_size = (uint16_t)(rng() % 100);
		h.csum_start = (uint16_t)(rng() % 80);
		h.csum_offset = (uint16_t)(rng() % 40);
		gso_complete_csum(super, len, &h);
		if (gso_split_init(&s, super, len, &h)) {
			for (k = 0; k < 300 && gso_split_next(&s, segs[0], 2048); k++)
				;
			CHECK(k < 300, "split terminates");
		}
		if (gro_start(&gro, super, len))
			gro_append(&gro, super, len);
		gro.count = 0;
	}
}

/* A pure ACK, IPv4 or IPv6, with the NOP NOP timestamp option (52 or 72 bytes). */
static size_t make_ack(uint8_t *p, bool v6, uint32_t seq, uint32_t ack)
{
	static const uint8_t ts[12] = { 1, 1, 8, 10, 0, 0, 1, 0, 0, 0, 2, 0 };
	size_t ip = v6 ? 40 : 20, len = ip + 32, k;

	memset(p, 0, len);
	if (v6) {
		p[0] = 0x60;
		be16_store(p + 4, 32);
		p[6] = 6;
		p[7] = 64;
		for (k = 8; k < 40; k++)
			p[k] = (uint8_t)k;
	} else {
		p[0] = 0x45;
		be16_store(p + 2, (uint16_t)len);
		p[6] = 0x40;	/* DF */
		p[8] = 64;
		p[9] = 6;
		for (k = 12; k < 20; k++)
			p[k] = (uint8_t)k;
	}
	be16_store(p + ip, 5201);
	be16_store(p + ip + 2, 40000);
	be32_store(p + ip + 4, seq);
	be32_store(p + ip + 8, ack);
	p[ip + 12] = 8 << 4;
	p[ip + 13] = 0x10;
	be16_store(p + ip + 14, 1000);
	memcpy(p + ip + 20, ts, sizeof(ts));
	return len;
}

static void test_acks(bool v6)
{
	uint8_t a[80], b[80];
	size_t ip = v6 ? 40 : 20, la = make_ack(a, v6, 7, 1000), lb;

	CHECK(gro_pure_ack(a, la), "v6 %d: a pure ACK", v6);
	lb = make_ack(b, v6, 7, 2000);
	CHECK(gro_ack_supersedes(a, la, b, lb), "v6 %d: a later ACK supersedes", v6);
	CHECK(!gro_ack_supersedes(b, lb, a, la), "v6 %d: an earlier ACK does not", v6);
	CHECK(!gro_ack_supersedes(a, la, a, la), "v6 %d: a duplicate ACK does not", v6);
	/* acknowledgment numbers wrap (RFC 9293 §3.4) */
	la = make_ack(a, v6, 7, 0xfffffff0u);
	lb = make_ack(b, v6, 7, 0x10);
	CHECK(gro_ack_supersedes(a, la, b, lb), "v6 %d: across the wrap", v6);
	CHECK(!gro_ack_supersedes(b, lb, a, la), "v6 %d: back across the wrap", v6);
	/* a new window or timestamp is what the later ACK carries: still superseded */
	lb = make_ack(b, v6, 7, 0x20);
	be16_store(b + ip + 14, 9);
	b[ip + 31] = 99;
	CHECK(gro_ack_supersedes(a, la, b, lb), "v6 %d: another window and timestamp", v6);
	/* no options at all */
	la = make_ack(a, v6, 7, 1);
	a[ip + 12] = 5 << 4;
	la = ip + 20;
	if (v6)
		be16_store(a + 4, 20);
	else
		be16_store(a + 2, (uint16_t)la);
	CHECK(gro_pure_ack(a, la), "v6 %d: a pure ACK without options", v6);

	/* not pure ACKs */
	lb = make_ack(b, v6, 7, 5);
	b[ip + 13] = 0x18;	/* PSH */
	CHECK(!gro_pure_ack(b, lb), "v6 %d: PSH", v6);
	lb = make_ack(b, v6, 7, 5);
	b[ip + 13] = 0x50;	/* ECE */
	CHECK(!gro_pure_ack(b, lb), "v6 %d: ECE", v6);
	lb = make_ack(b, v6, 7, 5);
	b[ip + 13] = 0x11;	/* FIN */
	CHECK(!gro_pure_ack(b, lb), "v6 %d: FIN", v6);
	lb = make_ack(b, v6, 7, 5);
	b[ip + 20] = 5;		/* a SACK option where the NOPs were */
	CHECK(!gro_pure_ack(b, lb), "v6 %d: SACK", v6);
	lb = make_ack(b, v6, 7, 5);
	if (v6)
		b[1] |= 0x30;	/* traffic class ECN = CE */
	else
		b[1] |= 3;
	CHECK(!gro_pure_ack(b, lb), "v6 %d: ECN CE", v6);
	lb = make_ack(b, v6, 7, 5);
	CHECK(!gro_pure_ack(b, lb - 1), "v6 %d: shorter than its header says", v6);
	CHECK(!gro_pure_ack(b, ip + 19), "v6 %d: truncated TCP header", v6);
	lb = make_ack(b, v6, 7, 5);
	if (v6)
		be16_store(b + 4, 33);
	else
		be16_store(b + 2, (uint16_t)(lb + 1));
	CHECK(!gro_pure_ack(b, lb), "v6 %d: IP length past the packet", v6);
	if (!v6) {
		lb = make_ack(b, v6, 7, 5);
		b[6] |= 0x20;	/* MF: a fragment */
		CHECK(!gro_pure_ack(b, lb), "a fragment");
		lb = make_ack(b, v6, 7, 5);
		b[9] = 17;
		CHECK(!gro_pure_ack(b, lb), "UDP");
	}

	/* another flow, or another sequence number, is not superseded */
	la = make_ack(a, v6, 7, 100);
	lb = make_ack(b, v6, 7, 200);
	b[ip + 1] ^= 1;		/* source port */
	CHECK(!gro_ack_supersedes(a, la, b, lb), "v6 %d: another port", v6);
	lb = make_ack(b, v6, 7, 200);
	b[v6 ? 39 : 19] ^= 1;	/* destination address */
	CHECK(!gro_ack_supersedes(a, la, b, lb), "v6 %d: another address", v6);
	lb = make_ack(b, v6, 8, 200);
	CHECK(!gro_ack_supersedes(a, la, b, lb), "v6 %d: another sequence number", v6);
}

int main(void)
{
	static const size_t payloads[] = { 1, 1399, 1400, 1401, 2800, 10000, 65000 };
	size_t i;

	tu_rng_seed(&rng_state, tu_seed("test_gso", 1));
	test_csum();
	for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
		test_split_and_merge(false, payloads[i] > 65535 - 52 ? 65535 - 52 : payloads[i], 1400);
		test_split_and_merge(true, payloads[i] > 65535 - 72 ? 65535 - 72 : payloads[i], 1380);
	}
	for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
		test_udp_split(false, payloads[i] > 65535 - 28 ? 65535 - 28 : payloads[i], 1392);
		test_udp_split(true, payloads[i] > 65535 - 48 ? 65535 - 48 : payloads[i], 1372);
		test_segments_any_order(false, false, payloads[i], 1400);
		test_segments_any_order(true, true, payloads[i] > 65535 - 48 ? 65535 - 48 : payloads[i], 1372);
	}
	test_gro_refusals();
	test_short_ihl();
	test_malformed();
	test_acks(false);
	test_acks(true);
	if (failures) {
		printf("%d failures\n", failures);
		return 1;
	}
	printf("gso: all checks passed\n");
	return 0;
}
