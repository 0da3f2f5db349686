// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the TUN-offload send side (daemon/datapath/gso.c): the
 * virtio_net_hdr parser, checksum completion, and the split of a TCP
 * super-packet into segments, over arbitrary bytes behind arbitrary headers.
 *
 * Input: a virtio_net_hdr (10 bytes, host byte order, as TUN hands it),
 * a 16-bit little-endian buffer limit, then the packet.
 *
 * Beyond "no crash" (ASan, UBSan), every accepted super-packet must give
 * segments that
 *  - fit the limit given (each written into a buffer of exactly that size),
 *    and are refused only when the next one would not fit;
 *  - are as long as the header plus gso_size payload bytes, the last shorter;
 *  - carry the super-packet's headers with only the fields a segmentation
 *    changes changed: the IPv4 total length, ID (+1 per segment) and header
 *    checksum (RFC 791), the IPv6 payload length (RFC 8200), the TCP sequence
 *    number (+ the payload before it), FIN and PSH on the last segment only,
 *    CWR on the first only, and the TCP checksum (RFC 793);
 *  - have valid IPv4 header checksums and TCP checksums over their pseudo
 *    headers, checked by a naive reference (fuzzref.c);
 *  - concatenate, payload after payload, to the super-packet's payload.
 * Checksum completion must leave every byte but the checksum field alone,
 * and the completed field must make the region sum to the negation of what
 * was there (the pseudo-header sum); for TCP and UDP over IPv4 and IPv6 with
 * the kernel's pseudo-header sum in the field, the result must verify.
 *
 *   fuzz_gso [libFuzzer flags] [CORPUS_DIR...]     (doc/fuzzing.md)
 */
#include <linux/virtio_net.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/datapath/gso.h"
#include "fuzzref.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

/* The header, as the parser must read it: host byte order, ECN bit dropped. */
static void check_hdr_parse(const struct gso_hdr *h, const uint8_t *raw)
{
	uint16_t v[3];

	memcpy(v, raw + 4, sizeof(v));
	FUZZ_CHECK(h->flags == raw[0] && h->gso_type == (raw[1] & ~VIRTIO_NET_HDR_GSO_ECN) &&
		   h->gso_size == v[0] && h->csum_start == v[1] && h->csum_offset == v[2],
		   "virtio_net_hdr fields");
}

/* The L4 protocol and offset of an IPv4/IPv6 packet without extension headers, or 0. */
static uint8_t l4_of(const uint8_t *pkt, size_t len, size_t *l4, bool *v6)
{
	uint8_t proto;

	if (len >= 20 && pkt[0] >> 4 == 4 && (pkt[0] & 0xf) >= 5) {
		*l4 = (size_t)(pkt[0] & 0xf) * 4;
		*v6 = false;
		proto = pkt[9];
	} else if (len >= 40 && pkt[0] >> 4 == 6) {
		*l4 = 40;
		*v6 = true;
		proto = pkt[6];
	} else {
		return 0;
	}
	if (*l4 >= len || (proto != 6 && proto != 17))
		return 0;
	return proto;
}

/*
 * gso_complete_csum() on a copy.  Where the packet is TCP or UDP whose
 * checksum field the header points at, the field first gets the
 * pseudo-header sum, as the kernel leaves it for CHECKSUM_PARTIAL.
 */
static void check_complete_csum(const uint8_t *pkt, size_t len, const struct gso_hdr *h)
{
	size_t start = h->csum_start, field = start + h->csum_offset, l4 = 0, i;
	uint8_t *c = malloc(len ? len : 1), proto;
	bool ok, v6 = false, real = false;
	uint16_t partial;

	if (!c)
		abort();
	memcpy(c, pkt, len);
	proto = l4_of(c, len, &l4, &v6);
	if (proto && start == l4 && h->csum_offset == (proto == 6 ? 16 : 6) && field + 2 <= len) {
		partial = ref_pseudo_sum(c, len, l4, v6, proto);
		c[field] = (uint8_t)(partial >> 8);
		c[field + 1] = (uint8_t)partial;
		real = true;
	}
	partial = start < len && field + 2 <= len ? ref_be16(c + field) : 0;
	ok = gso_complete_csum(c, len, h);
	FUZZ_CHECK(ok == (start < len && field + 2 <= len), "completion accepted %d, start %zu field %zu len %zu",
		   ok, start, field, len);
	for (i = 0; i < len; i++) {
		if (ok && (i == field || i == field + 1))
			continue;
		FUZZ_CHECK(c[i] == pkt[i] || (real && (i == field || i == field + 1)), "byte %zu changed", i);
	}
	/* an odd offset puts the field across words: the sum has no such rule */
	if (ok && !(h->csum_offset & 1)) {
		uint16_t csum = ref_be16(c + field), sum;

		/* field := ~(region with the partial sum): the region now sums to ~partial */
		c[field] = c[field + 1] = 0;
		sum = ref_sum(c + start, len - start, csum);
		FUZZ_CHECK(ref_sum(NULL, 0, (uint32_t)sum + partial) == 0xffff,
			   "completed region sums to %04x with partial %04x", sum, partial);
		/* RFC 768: a computed zero is sent as all ones, zero meaning "none" */
		FUZZ_CHECK(h->csum_offset != 6 || csum != 0, "UDP checksum sent as zero");
		c[field] = (uint8_t)(csum >> 8);
		c[field + 1] = (uint8_t)csum;
	}
	if (real)
		FUZZ_CHECK(ref_l4_csum_ok(c, len, l4, v6, proto), "%s over IPv%d does not verify",
			   proto == 6 ? "TCP" : "UDP", v6 ? 6 : 4);
	free(c);
}

/* Whether byte i of the headers may differ between a segment and the super-packet. */
static bool field_changes(size_t i, bool v6, size_t tcp)
{
	if (v6 ? i == 4 || i == 5 : (i >= 2 && i <= 5) || i == 10 || i == 11)
		return true;
	return (i >= tcp + 4 && i < tcp + 8) || i == tcp + 13 || i == tcp + 16 || i == tcp + 17;
}

/* One segment against the super-packet it was cut from. */
static void check_segment(const uint8_t *seg, size_t seg_len, const uint8_t *pkt, size_t len,
			  const struct gso_split *s, const struct gso_hdr *h, size_t off,
			  unsigned int index)
{
	size_t payload = len - off < h->gso_size ? len - off : h->gso_size, tcp = s->l4_off, i;
	bool last = off + payload == len;
	uint8_t flags = seg[tcp + 13], want = pkt[tcp + 13];

	FUZZ_CHECK(seg_len == s->hdr_len + payload, "segment %u: %zu bytes, want %zu", index, seg_len,
		   s->hdr_len + payload);
	for (i = 0; i < s->hdr_len; i++)
		FUZZ_CHECK(field_changes(i, s->v6, tcp) || seg[i] == pkt[i], "segment %u: header byte %zu",
			   index, i);
	if (s->v6) {
		FUZZ_CHECK(seg[0] >> 4 == 6 && ref_be16(seg + 4) == seg_len - 40,
			   "segment %u: IPv6 payload length", index);
	} else {
		size_t ihl = (size_t)(seg[0] & 0xf) * 4;

		/* RFC 791: IHL counts 32-bit words, at least 5; TCP follows the header */
		FUZZ_CHECK(seg[0] >> 4 == 4 && ihl >= 20 && ihl == tcp, "segment %u: IHL %zu, TCP at %zu",
			   index, ihl, tcp);
		FUZZ_CHECK(ref_be16(seg + 2) == seg_len, "segment %u: total length", index);
		FUZZ_CHECK(ref_be16(seg + 4) == (uint16_t)(ref_be16(pkt + 4) + index), "segment %u: ID", index);
		FUZZ_CHECK(ref_ipv4_csum_ok(seg, ihl), "segment %u: IPv4 header checksum", index);
	}
	FUZZ_CHECK((size_t)(seg[tcp + 12] >> 4) * 4 == s->hdr_len - tcp, "segment %u: data offset", index);
	FUZZ_CHECK(ref_be32(seg + tcp + 4) == ref_be32(pkt + tcp + 4) + (uint32_t)(off - s->hdr_len),
		   "segment %u: sequence number", index);
	if (!last)
		want &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (index)
		want &= (uint8_t)~TCP_CWR;
	FUZZ_CHECK(flags == want, "segment %u: flags %02x, want %02x", index, flags, want);
	FUZZ_CHECK(ref_l4_csum_ok(seg, seg_len, tcp, s->v6, 6), "segment %u: TCP checksum", index);
	FUZZ_CHECK(!memcmp(seg + s->hdr_len, pkt + off, payload), "segment %u: payload", index);
}

static void check_split(const uint8_t *pkt, size_t len, const struct gso_hdr *h, size_t cap)
{
	struct gso_split s;
	unsigned int index = 0;
	size_t off, seg_len;
	uint8_t *out;

	if (!gso_split_init(&s, pkt, len, h)) {
		/* a refused packet yields nothing */
		FUZZ_CHECK(gso_split_next(&s, NULL, 0) == 0, "refused packet gives segments");
		return;
	}
	/* this target's checks are TCP's; UDP super-packets: tests/datapath/test_gso.c */
	if (s.udp)
		return;
	FUZZ_CHECK(s.hdr_len > s.l4_off && s.hdr_len < len && s.off == s.hdr_len,
		   "split of %zu bytes: headers %zu, TCP at %zu", len, s.hdr_len, s.l4_off);
	FUZZ_CHECK(s.v6 == (h->gso_type == VIRTIO_NET_HDR_GSO_TCPV6), "address family");
	/* exactly cap bytes: ASan sees a write past the limit */
	out = malloc(cap ? cap : 1);
	if (!out)
		abort();
	for (off = s.hdr_len; (seg_len = gso_split_next(&s, out, cap)) != 0; off += seg_len - s.hdr_len) {
		FUZZ_CHECK(seg_len <= cap, "segment %u of %zu bytes over the limit %zu", index, seg_len, cap);
		FUZZ_CHECK(off < len, "a segment after the end");
		check_segment(out, seg_len, pkt, len, &s, h, off, index);
		index++;
	}
	if (off < len) {
		size_t next = s.hdr_len + (len - off < h->gso_size ? len - off : h->gso_size);

		FUZZ_CHECK(next > cap, "stopped at %zu of %zu with a %zu-byte segment fitting %zu", off, len,
			   next, cap);
	} else {
		FUZZ_CHECK(index == (len - s.hdr_len + h->gso_size - 1) / h->gso_size, "%u segments", index);
	}
	FUZZ_CHECK(gso_split_next(&s, out, cap) == 0, "a segment after the end");
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gso_hdr h;
	uint8_t *pkt;
	size_t len, cap;

	if (size < GSO_VNET_HDR_LEN + 2 || size - GSO_VNET_HDR_LEN - 2 > GSO_MAX_PACKET)
		return 0;
	gso_hdr_parse(&h, data);
	check_hdr_parse(&h, data);
	cap = (size_t)data[GSO_VNET_HDR_LEN] | (size_t)data[GSO_VNET_HDR_LEN + 1] << 8;
	len = size - GSO_VNET_HDR_LEN - 2;
	/* a copy of exactly the packet's length: ASan sees a read past its end */
	pkt = malloc(len ? len : 1);
	if (!pkt)
		abort();
	memcpy(pkt, data + GSO_VNET_HDR_LEN + 2, len);
	check_complete_csum(pkt, len, &h);
	check_split(pkt, len, &h, cap);
	free(pkt);
	return 0;
}
