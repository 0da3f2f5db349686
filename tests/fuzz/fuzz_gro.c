// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the TUN-offload receive side (daemon/datapath/gso.c): merging
 * the decrypted TCP segments of one batch (gro_start, gro_append,
 * gro_finish), driven as daemon/datapath/receive.c drives it: append, else write the
 * pending group and start a new one, else write the packet alone; and, when
 * a record starts a new receive batch, gro_hold() with the buffers of the
 * batch before overwritten (they are reused), the group still open.
 *
 * Input: records of five bytes, op, length (16 bits little-endian), a byte
 * position and an XOR mask, each followed by the packet for a raw record
 * (op bit 0 clear), or by nothing for a continuation (bit 0 set): a copy of
 * the previous packet's headers with the next sequence number, the lengths
 * set and `length` payload bytes, PSH added when op bit 1 is set; op bit 2
 * starts a new receive batch before the packet (the group then held, or
 * written first if holding it would copy more than GRO_HOLD_MAX bytes).  Then the
 * byte at the position (modulo the length) is XORed with the mask.  Continuations let
 * the fuzzer build real flows that raw bytes would rarely hit.
 *
 * Properties, for every group written:
 *  - a group of one is the packet as it lies, unchanged, behind a zeroed
 *    virtio_net_hdr;
 *  - a merged group is a TCP super-packet whose virtio_net_hdr asks for the
 *    checksum (which, completed, verifies) and TSO with gso_size the first
 *    segment's payload; split again with the real splitter (gso_split_*) it
 *    gives back as many segments as were merged, each as long as and equal
 *    to the segment merged, but for the fields a split rewrites (lengths,
 *    IPv4 ID, checksums) and the urgent pointer, meaningless without URG;
 *  - an exact continuation (no byte changed) of a group whose last segment
 *    was full-sized and had no PSH is merged while it fits in 64 KiB and
 *    the group has fewer than GRO_MAX_PIECES segments;
 *  - the write is gathered from one piece a segment: the first (its
 *    headers rewritten) and each later payload, where it lies or, if its
 *    buffer was reused since, copied into the group's buffer.
 *
 *   fuzz_gro [libFuzzer flags] [CORPUS_DIR...]     (doc/fuzzing.md)
 */
#include <linux/virtio_net.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/datapath/gso.h"
#include "fuzzref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BATCH 64		/* packets per input, as a receive batch */
#define TCP_PSH 0x08

/* A packet with room for a virtio_net_hdr before it, as the daemon's slots have. */
struct slot {
	uint8_t *buf;		/* GSO_VNET_HDR_LEN + len bytes, the packet at + GSO_VNET_HDR_LEN */
	uint8_t *copy;		/* the packet as delivered */
	size_t len;
	bool reused;		/* overwritten since: a later batch was read over it */
};

static struct slot slots[BATCH];
static struct gro gro;
static bool held;		/* the pending group went through gro_hold() */
static uint8_t seg[GSO_MAX_PACKET];

/* The IP + TCP header length as the packet's own fields give it, at most len. */
static size_t hdr_len_of(const uint8_t *p, size_t len, size_t *ip)
{
	size_t h;

	*ip = len && p[0] >> 4 == 6 ? 40 : len ? (size_t)(p[0] & 0xf) * 4 : 0;
	if (*ip + 20 > len)
		return len;
	h = *ip + (size_t)(p[*ip + 12] >> 4) * 4;
	return h < len ? h : len;
}

static void slot_fill(struct slot *s, const uint8_t *pkt, size_t hdr, const uint8_t *payload, size_t n)
{
	s->len = hdr + n;
	s->reused = false;
	s->buf = malloc(GSO_VNET_HDR_LEN + s->len);
	s->copy = malloc(s->len ? s->len : 1);
	if (!s->buf || !s->copy)
		abort();
	memcpy(s->buf + GSO_VNET_HDR_LEN, pkt, hdr);
	if (payload)
		memcpy(s->buf + GSO_VNET_HDR_LEN + hdr, payload, n);
}

/* A continuation of prev: its headers, the next sequence number, n payload bytes. */
static void slot_continue(struct slot *s, const struct slot *prev, size_t n, uint8_t op)
{
	const uint8_t *p = prev->copy;
	size_t ip, hdr = hdr_len_of(p, prev->len, &ip), i;
	uint32_t seq = 0;
	uint8_t *q;

	if (n > GSO_MAX_PACKET - hdr)
		n = GSO_MAX_PACKET - hdr;
	slot_fill(s, p, hdr, NULL, n);
	q = s->buf + GSO_VNET_HDR_LEN;
	if (ip + 8 <= hdr) {
		seq = ref_be32(p + ip + 4) + (uint32_t)(prev->len - hdr);
		q[ip + 4] = (uint8_t)(seq >> 24);
		q[ip + 5] = (uint8_t)(seq >> 16);
		q[ip + 6] = (uint8_t)(seq >> 8);
		q[ip + 7] = (uint8_t)seq;
	}
	if (ip + 14 <= hdr && (op & 2))
		q[ip + 13] |= TCP_PSH;
	/* lengths as a sender would set them (RFC 791 total length, RFC 8200 payload length) */
	if (hdr >= 40 && p[0] >> 4 == 6) {
		q[4] = (uint8_t)((s->len - 40) >> 8);
		q[5] = (uint8_t)(s->len - 40);
	} else if (hdr >= 4) {
		q[2] = (uint8_t)(s->len >> 8);
		q[3] = (uint8_t)s->len;
	}
	/* payload bytes that tell positions in the stream apart */
	for (i = 0; i < n; i++)
		q[hdr + i] = (uint8_t)(seq + i + (seq + i) / 251);
}

/* Whether header byte i of a re-split segment may differ from the segment merged. */
static bool resplit_changes(size_t i, bool v6, size_t tcp)
{
	if (v6 ? i == 4 || i == 5 : (i >= 2 && i <= 5) || i == 10 || i == 11)
		return true;
	/* RFC 793: the urgent pointer is read only with URG, which GRO never merges */
	return i == tcp + 16 || i == tcp + 17 || i == tcp + 18 || i == tcp + 19;
}

static void check_single(const struct slot *s, const void *at, const uint8_t *out, size_t len)
{
	static const uint8_t zero[GSO_VNET_HDR_LEN];

	/* held, it was copied out of its (since overwritten) receive buffer */
	FUZZ_CHECK(at == (held ? gro.buf : s->buf) && len == s->len + GSO_VNET_HDR_LEN,
		   "single segment not as it lies");
	FUZZ_CHECK(!memcmp(out, zero, GSO_VNET_HDR_LEN), "single segment: virtio_net_hdr not plain");
	FUZZ_CHECK(!memcmp(out + GSO_VNET_HDR_LEN, s->copy, s->len), "single segment changed");
}

/* A merged group of members first..first+count-1 against its segments. */
static void check_merged(unsigned int first, unsigned int count, uint8_t *out, size_t len)
{
	const struct slot *m = &slots[first];
	size_t ip, hdr = hdr_len_of(m->copy, m->len, &ip), total = m->len, seg_len, i;
	uint8_t *pkt = out + GSO_VNET_HDR_LEN, *c;
	struct gso_split s;
	struct gso_hdr h;
	unsigned int k;
	uint16_t hint;
	bool v6 = m->copy[0] >> 4 == 6;

	for (k = 1; k < count; k++)
		total += slots[first + k].len - hdr;
	FUZZ_CHECK(len == total + GSO_VNET_HDR_LEN && total <= GSO_MAX_PACKET, "merged %zu bytes, want %zu",
		   len - GSO_VNET_HDR_LEN, total);
	gso_hdr_parse(&h, out);
	memcpy(&hint, out + 2, sizeof(hint));
	FUZZ_CHECK(h.flags == VIRTIO_NET_HDR_F_NEEDS_CSUM && h.csum_start == ip && h.csum_offset == 16 &&
		   h.gso_type == (v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4) &&
		   h.gso_size == m->len - hdr && hint == hdr, "virtio_net_hdr of the merged packet");

	/* the checksum it asks for, completed, verifies */
	c = malloc(total);
	if (!c)
		abort();
	memcpy(c, pkt, total);
	FUZZ_CHECK(gso_complete_csum(c, total, &h), "completion refused");
	FUZZ_CHECK(ref_l4_csum_ok(c, total, ip, v6, 6), "merged TCP checksum");
	if (!v6)
		FUZZ_CHECK(ref_be16(c + 2) == total && ref_ipv4_csum_ok(c, 20), "merged IPv4 header");
	else
		FUZZ_CHECK(ref_be16(c + 4) == total - 40, "merged IPv6 payload length");
	free(c);

	FUZZ_CHECK(gso_split_init(&s, pkt, total, &h), "merged packet cannot be split");
	for (k = 0; (seg_len = gso_split_next(&s, seg, sizeof(seg))) != 0; k++) {
		const struct slot *o = &slots[first + k];

		FUZZ_CHECK(k < count, "more segments than merged (%u)", count);
		FUZZ_CHECK(seg_len == o->len, "segment %u: %zu bytes, merged %zu", k, seg_len, o->len);
		for (i = 0; i < hdr; i++)
			FUZZ_CHECK(resplit_changes(i, v6, ip) || seg[i] == o->copy[i],
				   "segment %u: header byte %zu %02x, merged %02x", k, i, seg[i], o->copy[i]);
		FUZZ_CHECK(!memcmp(seg + hdr, o->copy + hdr, seg_len - hdr), "segment %u: payload", k);
		FUZZ_CHECK(ref_l4_csum_ok(seg, seg_len, ip, v6, 6), "segment %u: TCP checksum", k);
	}
	FUZZ_CHECK(k == count, "%u segments, %u merged", k, count);
}

/* The receive buffers of the batch before are all reused by the next. */
static bool all_reused(const void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return true;
}

/*
 * Writes the pending group (gro_finish) and checks it: gathered, one
 * piece a segment, each payload where it lies or, if the group was held
 * since it arrived, in the group's buffer.
 */
static void flush(unsigned int first, unsigned int count)
{
	static uint8_t out[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];
	const struct iovec *iov;
	unsigned int n = 0, i;
	size_t len = gro_finish(&gro, &iov, &n), off = 0, ip;

	FUZZ_CHECK((len != 0) == (count != 0), "group of %u written as %zu bytes", count, len);
	if (!len)
		return;
	FUZZ_CHECK(n == count && n <= GRO_MAX_PIECES, "group of %u written from %u pieces", count, n);
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(iov[i].iov_len <= sizeof(out) - off, "pieces longer than a packet");
		if (i) {
			const struct slot *m = &slots[first + i];
			size_t hdr = hdr_len_of(m->copy, m->len, &ip);
			const uint8_t *at = iov[i].iov_base;
			bool in_buf = at >= gro.buf && at < gro.buf + sizeof(gro.buf);

			FUZZ_CHECK(iov[i].iov_len == m->len - hdr &&
					   (in_buf || at == m->buf + GSO_VNET_HDR_LEN + hdr) &&
					   (in_buf || !m->reused),
				   "piece %u is not segment %u's payload where it lies or in the group's buffer", i, i);
		}
		memcpy(out + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	FUZZ_CHECK(off == len, "pieces of %zu bytes, written %zu", off, len);
	if (count == 1)
		check_single(&slots[first], iov[0].iov_base, out, len);
	else
		check_merged(first, count, out, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int n = 0, first = 0, count = 0, i;
	size_t pos = 0, group_len = 0, unheld = 0, ip;

	memset(&gro, 0, offsetof(struct gro, buf));
	held = false;
	while (n < BATCH && pos + 5 <= size) {
		uint8_t op = data[pos];
		size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8, at = data[pos + 3];
		uint8_t xor = data[pos + 4];
		struct slot *s = &slots[n];
		bool expect = false;

		pos += 5;
		if (op & 4) {
			/* a new receive batch: the last one's buffers are reused */
			if (gro_hold(&gro, all_reused, NULL)) {
				FUZZ_CHECK(!count || unheld <= GRO_HOLD_MAX, "%zu bytes copied to hold", unheld);
				held = count != 0;
			} else {
				FUZZ_CHECK(count && unheld > GRO_HOLD_MAX, "a group of %zu bytes to copy not held",
					   unheld);
				flush(first, count);
				count = 0;
				held = false;
			}
			unheld = 0;
			for (i = 0; i < n; i++) {
				memset(slots[i].buf, 0xee, GSO_VNET_HDR_LEN + slots[i].len);
				slots[i].reused = true;
			}
		}
		if (!(op & 1) || !n) {
			if (len > size - pos)
				len = size - pos;
			slot_fill(s, data + pos, len, NULL, 0);
			pos += len;
		} else {
			const struct slot *prev = &slots[n - 1];
			size_t hdr = hdr_len_of(prev->copy, prev->len, &ip), seg0;

			slot_continue(s, prev, len, op);
			/* prev last in an open group: full-sized, no PSH, and room left */
			seg0 = count ? slots[first].len - hdr : 0;
			expect = count && first + count == n && !xor && prev->len - hdr == seg0 &&
				 !(prev->copy[ip + 13] & TCP_PSH) && s->len > hdr && s->len - hdr <= seg0 &&
				 group_len + s->len - hdr <= GSO_MAX_PACKET && count < GRO_MAX_PIECES;
		}
		if (s->len)
			s->buf[GSO_VNET_HDR_LEN + at % s->len] ^= xor;
		memcpy(s->copy, s->buf + GSO_VNET_HDR_LEN, s->len);

		if (gro_append(&gro, s->buf + GSO_VNET_HDR_LEN, s->len)) {
			FUZZ_CHECK(count, "appended to no group");
			count++;
			group_len += s->len - hdr_len_of(s->copy, s->len, &ip);
			unheld += s->len - hdr_len_of(s->copy, s->len, &ip);
		} else {
			FUZZ_CHECK(!expect, "packet %u: exact continuation of a full segment refused", n);
			flush(first, count);
			held = false;
			first = n;
			count = gro_start(&gro, s->buf + GSO_VNET_HDR_LEN, s->len);
			group_len = s->len;
			unheld = s->len;
		}
		n++;
	}
	flush(first, count);
	for (i = 0; i < n; i++) {
		free(slots[i].buf);
		free(slots[i].copy);
	}
	return 0;
}
