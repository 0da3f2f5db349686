// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/datapath/gso.h"

#include <linux/virtio_net.h>
#include <string.h>

#include "crypto/bytes.h"

#define TCP_FLAG_FIN 0x01
#define TCP_FLAG_PSH 0x08
#define TCP_FLAG_CWR 0x80

static uint16_t gso_native16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

void gso_hdr_parse(struct gso_hdr *h, const uint8_t hdr[GSO_VNET_HDR_LEN])
{
	h->flags = hdr[0];
	h->gso_type = hdr[1] & (uint8_t)~VIRTIO_NET_HDR_GSO_ECN;
	/* hdr[2..3] hdr_len is a hint only; we derive it from the headers */
	h->gso_size = gso_native16(hdr + 4);
	h->csum_start = gso_native16(hdr + 6);
	h->csum_offset = gso_native16(hdr + 8);
}

/*
 * The ones'-complement sum does not depend on byte order except for a
 * final swap (RFC 1071 §2(B)): a sum of host-order words, folded to 16
 * bits, is the sum of the host-order 16-bit words, which on a
 * little-endian host swapped is the big-endian (network order) sum.
 */
static uint64_t gso_sum_fold_be(uint64_t acc)
{
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffffffff) + (acc >> 32);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16((uint16_t)acc);
#else
	return acc;
#endif
}

#if defined(__SSE2__) || defined(__ARM_NEON)
/*
 * Where the CPU has 128-bit vectors in its base instruction set: the two
 * 16-bit halves of each 32-bit word are added to 32-bit lanes, 32 bytes a
 * step, with no carry to propagate (a lane takes at most 2 * 0xffff a step,
 * GSO_SUM_CHUNK / 32 steps: below 2^32).  With dst, the bytes are copied
 * there on the way, so that a copy and its checksum are one pass over the
 * data.  Always inlined, so each caller gets the loop with or without the
 * copy.  Returns the number of bytes summed (a multiple of 32).
 */
#define GSO_SUM_BLOCK 32
#define GSO_SUM_CHUNK (1u << 20)
typedef uint32_t gso_v4u32 __attribute__((vector_size(16)));

static inline __attribute__((always_inline)) uint64_t gso_sum_blocks(const uint8_t *p, size_t n, uint8_t *dst)
{
	const gso_v4u32 low = { 0xffff, 0xffff, 0xffff, 0xffff };
	gso_v4u32 lo = { 0 }, hi = { 0 }, x, y;
	uint64_t sum = 0;
	size_t chunk;
	int i;

	while (n >= GSO_SUM_BLOCK) {
		chunk = n < GSO_SUM_CHUNK ? n : GSO_SUM_CHUNK;
		n -= chunk;
		for (; chunk >= GSO_SUM_BLOCK; chunk -= GSO_SUM_BLOCK, p += GSO_SUM_BLOCK) {
			memcpy(&x, p, 16);
			memcpy(&y, p + 16, 16);
			if (dst) {
				memcpy(dst, &x, 16);
				memcpy(dst + 16, &y, 16);
				dst += GSO_SUM_BLOCK;
			}
			lo += (x & low) + (y & low);
			hi += (x >> 16) + (y >> 16);
		}
		for (i = 0; i < 4; i++)
			sum += (uint64_t)lo[i] + hi[i];
		lo = hi = (gso_v4u32){ 0 };
		n += chunk;
	}
	return sum;
}
#elif UINTPTR_MAX == 0xffffffffu
/*
 * 32-bit targets (MIPS32 routers): 32-bit words into one 32-bit sum, its
 * carries counted beside it (a + 2^32 c is the exact total, and 2^32 is 1
 * modulo 0xffff, so gso_sum_fold_be folds it as any other sum).  A 64-bit
 * end-around-carry sum costs a 32-bit core about twice the instructions:
 * each 64-bit add is a chain of adds and compares.  Four words a step, each
 * stored to dst (if any) as it is summed, so that a copy and its checksum
 * are one pass.  Loads and stores go through memcpy(), which the compiler
 * turns into the unaligned pair (lwl/lwr, swl/swr on MIPS) unless the
 * pointer is known to be aligned: without assembly, each alignment case of
 * source and destination gets its own loop (tools/mips-count, 1400 bytes at
 * -O2 -march=1004kc: 1.2 instructions per byte summed from an aligned
 * source, 1.45 from one at offset 2; copied and summed, 1.4 to 1.9, against
 * 2.8 and 4.0 for the 64-bit sum with a separate memcpy()).
 *
 * With the MIPS32r2 assembly (crypto/arch/mips32r2/csum.S), word-aligned
 * data goes there instead (its 64-bit accumulator needs no carry counting:
 * 0.87 instructions per byte copied and summed, 0.61 summed, as above) and
 * takes every whole word; the loops here then take the misaligned cases in
 * whole words too, so that both leave the same tail of at most 3 bytes.
 * The loops return a + c folded to 32 bits, as the assembly does: the
 * 64-bit fold after them is then two 16-bit folds.
 */
#if defined(WGD_ASM_MIPS32R2)
#define GSO_SUM_BLOCK 4
#else
#define GSO_SUM_BLOCK 16
#endif

#define GSO_SUM_WORD(k)							\
	do {								\
		uint32_t w_;						\
		memcpy(&w_, p + 4 * (k), sizeof(w_));			\
		if (copy)						\
			memcpy(dst + 4 * (k), &w_, sizeof(w_));		\
		a += w_;						\
		c += a < w_;						\
	} while (0)

static inline __attribute__((always_inline)) uint32_t gso_sum_words(const uint8_t *p, size_t n, uint8_t *dst,
								     bool copy)
{
	uint32_t a = 0, c = 0;

	for (; n >= 16; n -= 16, p += 16) {
		GSO_SUM_WORD(0);
		GSO_SUM_WORD(1);
		GSO_SUM_WORD(2);
		GSO_SUM_WORD(3);
		if (copy)
			dst += 16;
	}
	for (; GSO_SUM_BLOCK < 16 && n; n -= 4, p += 4) {
		GSO_SUM_WORD(0);
		if (copy)
			dst += 4;
	}
	/* a + c, end-around: congruent to a + 2^32 c modulo 2^32 - 1 */
	a += c;
	return a + (a < c);
}

#define GSO_ALIGNED4(x) (((uintptr_t)(x) & 3) == 0)
#define GSO_A4(x) __builtin_assume_aligned((x), 4)

#if defined(WGD_ASM_MIPS32R2)
/* crypto/arch/mips32r2/csum.S: 4-byte aligned pointers, n a multiple of 4 */
uint32_t gso_csum_mips_add(const uint8_t *p, size_t n);
uint32_t gso_csum_mips_copy(uint8_t *dst, const uint8_t *src, size_t n);

/*
 * The daemon's copies always have an aligned destination (a 16-byte
 * aligned send slot past whole-word headers) and, but for the first
 * segment, a source misaligned only if the segment size is not a multiple
 * of 4 (TCP's are, for MTUs that are: 1368 and 1348 bytes at wgd's 1420).
 * So every misaligned case shares one loop: against a loop of its own for
 * a misaligned source into an aligned destination, that costs such a copy
 * 0.3 instructions per byte (2.06 against 1.74 for 1400 bytes) and saves
 * 288 bytes of code (mipsel wgd, -O2).
 */
static inline __attribute__((always_inline)) uint32_t gso_sum_blocks(const uint8_t *p, size_t n, uint8_t *dst)
{
	if (!dst)
		return GSO_ALIGNED4(p) ? gso_csum_mips_add(p, n) : gso_sum_words(p, n, NULL, false);
	if (GSO_ALIGNED4((uintptr_t)p | (uintptr_t)dst))
		return gso_csum_mips_copy(dst, p, n);
	return gso_sum_words(p, n, dst, true);
}
#else
static inline __attribute__((always_inline)) uint32_t gso_sum_blocks(const uint8_t *p, size_t n, uint8_t *dst)
{
	if (!dst)
		return GSO_ALIGNED4(p) ? gso_sum_words(GSO_A4(p), n, NULL, false) : gso_sum_words(p, n, NULL, false);
	if (GSO_ALIGNED4(p))
		return GSO_ALIGNED4(dst) ? gso_sum_words(GSO_A4(p), n, GSO_A4(dst), true)
					 : gso_sum_words(GSO_A4(p), n, dst, true);
	return GSO_ALIGNED4(dst) ? gso_sum_words(p, n, GSO_A4(dst), true) : gso_sum_words(p, n, dst, true);
}
#endif
#else
/*
 * Other 64-bit targets without vectors in their base instruction set: 8
 * bytes a step, host-order 64-bit words with an end-around carry.  The
 * copy, if any, is a memcpy() of its own.
 */
#define GSO_SUM_BLOCK 8

static inline __attribute__((always_inline)) uint64_t gso_sum_blocks(const uint8_t *p, size_t n, uint8_t *dst)
{
	uint64_t acc = 0, w;

	if (dst)
		memcpy(dst, p, n & ~(size_t)(GSO_SUM_BLOCK - 1));
	for (; n >= GSO_SUM_BLOCK; n -= GSO_SUM_BLOCK, p += GSO_SUM_BLOCK) {
		memcpy(&w, p, sizeof(w));
		acc += w;
		acc += acc < w;
	}
	return acc;
}
#endif

/*
 * The tail (fewer than GSO_SUM_BLOCK bytes), at an even offset, as
 * big-endian words; copied to dst on the way if dst is not NULL.
 */
static inline __attribute__((always_inline)) uint64_t gso_sum_tail(const uint8_t *p, size_t len, uint8_t *dst)
{
	uint64_t sum = 0;

	while (len >= 2) {
		if (dst) {
			dst[0] = p[0];
			dst[1] = p[1];
			dst += 2;
		}
		sum += be16_load(p);
		p += 2;
		len -= 2;
	}
	if (len) {
		if (dst)
			dst[0] = p[0];
		sum += (uint64_t)p[0] << 8;
	}
	return sum;
}

/*
 * The tail first: then only sum is live across the call of the body's loop
 * where that is a function (the MIPS32r2 assembly), not len and the pointers.
 */
uint64_t gso_csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
	size_t body = len & ~(size_t)(GSO_SUM_BLOCK - 1);

	sum += gso_sum_tail(p + body, len - body, NULL);
	return sum + gso_sum_fold_be(gso_sum_blocks(p, body, NULL));
}

uint64_t gso_csum_copy(uint64_t sum, uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t body = len & ~(size_t)(GSO_SUM_BLOCK - 1);

	sum += gso_sum_tail(src + body, len - body, dst + body);
	return sum + gso_sum_fold_be(gso_sum_blocks(src, body, dst));
}

uint16_t gso_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

bool gso_complete_csum(uint8_t *pkt, size_t len, const struct gso_hdr *h)
{
	size_t field = (size_t)h->csum_start + h->csum_offset;
	uint16_t csum;

	if (h->csum_start >= len || field + 2 > len)
		return false;
	/* The field already holds the folded pseudo-header sum (CHECKSUM_PARTIAL). */
	csum = gso_csum_fold(gso_csum_add(0, pkt + h->csum_start, len - h->csum_start));
	/* UDP (checksum at offset 6) sends a zero sum as 0xffff (RFC 768). */
	if (!csum && h->csum_offset == 6)
		csum = 0xffff;
	be16_store(pkt + field, csum);
	return true;
}

/*
 * The IP header of a super-packet: IPv4 with the protocol proto, its
 * header length (RFC 791: IHL counts 32-bit words and is at least 5) the
 * offset of the TCP or UDP header, which must not overlap it; or IPv6, the
 * TCP or UDP header past the fixed header (and any extension headers).
 */
static bool gso_split_ip(struct gso_split *s, const uint8_t *pkt, size_t len, const struct gso_hdr *h,
			 bool v6, uint8_t proto)
{
	if (!v6)
		return len >= 20 && pkt[0] >> 4 == 4 && pkt[9] == proto && h->csum_start >= 20 &&
		       (size_t)(pkt[0] & 0xf) * 4 == h->csum_start;
	s->v6 = true;
	return len >= 40 && pkt[0] >> 4 == 6 && h->csum_start >= 40;
}

bool gso_split_init(struct gso_split *s, const uint8_t *pkt, size_t len, const struct gso_hdr *h)
{
	size_t l4_hlen;

	memset(s, 0, sizeof(*s));
	switch (h->gso_type) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (!gso_split_ip(s, pkt, len, h, h->gso_type == VIRTIO_NET_HDR_GSO_TCPV6, 6) ||
		    (size_t)h->csum_start + 20 > len)
			return false;
		l4_hlen = (size_t)(pkt[h->csum_start + 12] >> 4) * 4;
		if (l4_hlen < 20)
			return false;
		break;
	case GSO_VNET_UDP_L4:
		/* either family: the version field says which */
		if (!gso_split_ip(s, pkt, len, h, len && pkt[0] >> 4 == 6, 17))
			return false;
		s->udp = true;
		l4_hlen = 8;
		break;
	default:
		return false;
	}
	s->l4_off = h->csum_start;
	if (s->l4_off + l4_hlen > len || !h->gso_size)
		return false;
	s->pkt = pkt;
	s->len = len;
	s->hdr_len = s->l4_off + l4_hlen;
	s->off = s->hdr_len;
	s->seg = h->gso_size;
	return s->hdr_len < len;
}

/*
 * The TCP or UDP checksum of one segment: pseudo header (RFC 793, RFC 768
 * / RFC 8200 §8.1) + its header + the payload's sum (payload_sum, from the
 * copy; the payload starts at an even offset of the header, a multiple of 4
 * bytes long, so the sums add up as they are).  UDP sends a zero sum as
 * all ones (RFC 768).
 */
static void gso_l4_csum(uint8_t *out, const struct gso_split *s, size_t seg_len, uint64_t payload_sum)
{
	size_t l4_len = seg_len - s->l4_off, field = s->l4_off + (s->udp ? 6 : 16);
	uint64_t sum = payload_sum;
	uint16_t csum;

	if (s->v6)
		sum = gso_csum_add(sum, out + 8, 32);
	else
		sum = gso_csum_add(sum, out + 12, 8);
	sum += (s->udp ? 17 : 6) + (uint64_t)l4_len;
	be16_store(out + field, 0);
	sum = gso_csum_add(sum, out + s->l4_off, s->hdr_len - s->l4_off);
	csum = gso_csum_fold(sum);
	be16_store(out + field, s->udp && !csum ? 0xffff : csum);
}

unsigned int gso_split_count(const struct gso_split *s)
{
	/* a split gso_split_init() refused is all zeros: no segment */
	if (!s->seg)
		return 0;
	return (unsigned int)((s->len - s->hdr_len + s->seg - 1) / s->seg);
}

size_t gso_split_len(const struct gso_split *s, unsigned int k)
{
	size_t off = s->hdr_len + (size_t)k * s->seg;
	size_t payload = s->len - off;

	return s->hdr_len + (payload > s->seg ? s->seg : payload);
}

size_t gso_split_segment(const struct gso_split *s, unsigned int k, uint8_t *out, size_t cap)
{
	size_t off = s->hdr_len + (size_t)k * s->seg;
	size_t payload, seg_len;
	uint64_t payload_sum;
	uint8_t *l4;
	bool last;

	if (k >= gso_split_count(s))
		return 0;
	seg_len = gso_split_len(s, k);
	payload = seg_len - s->hdr_len;
	if (seg_len > cap)
		return 0;
	last = off + payload == s->len;
	memcpy(out, s->pkt, s->hdr_len);
	payload_sum = gso_csum_copy(0, out + s->hdr_len, s->pkt + off, payload);

	if (s->v6) {
		be16_store(out + 4, (uint16_t)(seg_len - 40));
	} else {
		size_t ihl = (size_t)(out[0] & 0xf) * 4;

		be16_store(out + 2, (uint16_t)seg_len);
		be16_store(out + 4, (uint16_t)(be16_load(s->pkt + 4) + k));
		be16_store(out + 10, 0);
		be16_store(out + 10, gso_csum_fold(gso_csum_add(0, out, ihl)));
	}
	l4 = out + s->l4_off;
	if (s->udp) {
		be16_store(l4 + 4, (uint16_t)(seg_len - s->l4_off));
	} else {
		be32_store(l4 + 4, be32_load(s->pkt + s->l4_off + 4) + (uint32_t)(off - s->hdr_len));
		if (!last)
			l4[13] &= (uint8_t)~(TCP_FLAG_FIN | TCP_FLAG_PSH);
		if (k)
			l4[13] &= (uint8_t)~TCP_FLAG_CWR;
	}
	gso_l4_csum(out, s, seg_len, payload_sum);
	return seg_len;
}

size_t gso_split_next(struct gso_split *s, uint8_t *out, size_t cap)
{
	size_t seg_len = gso_split_segment(s, s->index, out, cap);

	if (seg_len) {
		s->off += seg_len - s->hdr_len;
		s->index++;
	}
	return seg_len;
}

#define TCP_FLAG_ACK 0x10

/* The header length of a TCP segment GRO can take, or 0. */
static size_t gro_tcp_header(const uint8_t *pkt, size_t len, bool *v6, size_t *ip_hlen)
{
	size_t iph, thl;
	uint8_t flags;

	if (len < 40)
		return 0;
	if (pkt[0] == 0x45) {
		/* IPv4 without options, TCP, DF, not a fragment */
		if (pkt[9] != 6 || (be16_load(pkt + 6) & 0xbfff) != 0 || !(pkt[6] & 0x40))
			return 0;
		iph = 20;
		*v6 = false;
	} else if (pkt[0] >> 4 == 6) {
		if (pkt[6] != 6 || len < 60)
			return 0;
		iph = 40;
		*v6 = true;
	} else {
		return 0;
	}
	thl = (size_t)(pkt[iph + 12] >> 4) * 4;
	flags = pkt[iph + 13];
	if (thl < 20 || iph + thl >= len)
		return 0;
	if ((flags & ~TCP_FLAG_PSH) != TCP_FLAG_ACK)
		return 0;
	*ip_hlen = iph;
	return iph + thl;
}

bool gro_start(struct gro *g, uint8_t *pkt, size_t len)
{
	size_t hdr = gro_tcp_header(pkt, len, &g->v6, &g->ip_hlen);

	g->count = 0;
	if (!hdr)
		return false;
	g->iov[0] = (struct iovec){ .iov_base = pkt, .iov_len = len };
	g->hdr_len = hdr;
	g->seg = len - hdr;
	g->len = len;
	g->pieces = 0;
	g->held = 0;
	g->next_seq = be32_load(pkt + g->ip_hlen + 4) + (uint32_t)g->seg;
	g->count = 1;
	/* PSH ends a burst: the kernel flushes after it, so do we. */
	g->closed = pkt[g->ip_hlen + 13] & TCP_FLAG_PSH;
	return true;
}

/*
 * Whether n header bytes are equal: word by word, not through libc's
 * memcmp(), which costs a call and a byte loop for each of the few short
 * runs compared per segment.
 */
static bool gro_bytes_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
	uint32_t d = 0, x, y;

	for (; n >= 4; n -= 4, a += 4, b += 4) {
		memcpy(&x, a, sizeof(x));
		memcpy(&y, b, sizeof(y));
		d |= x ^ y;
	}
	while (n--)
		d |= (uint32_t)(a[n] ^ b[n]);
	return !d;
}

/* The group's first segment, whose headers the merged packet takes. */
static uint8_t *gro_first(const struct gro *g)
{
	return g->iov[0].iov_base;
}

/* Same flow and the same header bytes where GRO requires them. */
static bool gro_same_headers(const struct gro *g, const uint8_t *pkt)
{
	const uint8_t *a = gro_first(g), *ta = a + g->ip_hlen, *tb = pkt + g->ip_hlen;

	/* addresses, then the ports right after them */
	if (g->v6) {
		if (!gro_bytes_equal(a, pkt, 4) || a[6] != pkt[6] || a[7] != pkt[7] ||
		    !gro_bytes_equal(a + 8, pkt + 8, 36))
			return false;
	} else {
		if (a[1] != pkt[1] || a[6] != pkt[6] || a[8] != pkt[8] || !gro_bytes_equal(a + 12, pkt + 12, 12))
			return false;
	}
	/* ack and data offset, window; then options */
	return gro_bytes_equal(ta + 8, tb + 8, 5) && ta[14] == tb[14] && ta[15] == tb[15] &&
	       gro_bytes_equal(ta + 20, tb + 20, g->hdr_len - g->ip_hlen - 20);
}

bool gro_append(struct gro *g, const uint8_t *pkt, size_t len)
{
	size_t hdr, payload, ip_hlen;
	bool v6;

	if (!g->count || g->closed || g->pieces + 1 == GRO_MAX_PIECES)
		return false;
	hdr = gro_tcp_header(pkt, len, &v6, &ip_hlen);
	if (hdr != g->hdr_len || v6 != g->v6 || !gro_same_headers(g, pkt))
		return false;
	payload = len - hdr;
	if (payload > g->seg || be32_load(pkt + ip_hlen + 4) != g->next_seq)
		return false;
	if (g->len + payload > GSO_MAX_PACKET)
		return false;
	g->iov[++g->pieces] = (struct iovec){ .iov_base = (void *)(uintptr_t)(pkt + hdr), .iov_len = payload };
	g->len += payload;
	g->next_seq += (uint32_t)payload;
	g->count++;
	if (pkt[ip_hlen + 13] & TCP_FLAG_PSH) {
		gro_first(g)[g->ip_hlen + 13] |= TCP_FLAG_PSH;
		g->closed = true;
	}
	if (payload < g->seg)
		g->closed = true;
	return true;
}

static bool gro_in_buf(const struct gro *g, const void *p)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)g->buf;

	return a >= lo && a < lo + sizeof(g->buf);
}

bool gro_hold(struct gro *g, bool (*reused)(const void *ctx, const uint8_t *p, size_t n), const void *ctx)
{
	uint8_t *pkt = g->buf + GSO_VNET_HDR_LEN;
	uint64_t moved = 0;	/* bit i: piece i (0: the first segment) is copied */
	size_t copy = 0;
	unsigned int i;

	if (!g->count)
		return true;
	for (i = 0; i <= g->pieces; i++) {
		if (gro_in_buf(g, g->iov[i].iov_base) || !reused(ctx, g->iov[i].iov_base, g->iov[i].iov_len))
			continue;
		moved |= (uint64_t)1 << i;
		copy += g->iov[i].iov_len;
	}
	if (copy > GRO_HOLD_MAX)
		return false;
	/* the first segment at the start (its header room before it), the payloads after its place */
	for (i = 0; moved; i++, moved >>= 1) {
		uint8_t *to = i ? pkt + g->iov[0].iov_len + g->held : pkt;

		if (!(moved & 1))
			continue;
		memcpy(to, g->iov[i].iov_base, g->iov[i].iov_len);
		g->iov[i].iov_base = to;
		if (i)
			g->held += g->iov[i].iov_len;
	}
	return true;
}

static void gso_native16_store(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

size_t gro_finish(struct gro *g, const struct iovec **iov, unsigned int *n)
{
	uint8_t *hdr, *pkt = gro_first(g);
	uint64_t sum;
	size_t tcp_len;

	if (!g->count)
		return 0;
	hdr = pkt - GSO_VNET_HDR_LEN;
	*iov = g->iov;
	*n = g->pieces + 1;
	g->iov[0] = (struct iovec){ .iov_base = hdr, .iov_len = GSO_VNET_HDR_LEN + g->iov[0].iov_len };
	memset(hdr, 0, GSO_VNET_HDR_LEN);
	if (g->count == 1) {
		/* nothing merged: the segment as it lies, a plain header before it */
		g->count = 0;
		return g->len + GSO_VNET_HDR_LEN;
	}
	if (g->v6) {
		be16_store(pkt + 4, (uint16_t)(g->len - 40));
		sum = gso_csum_add(0, pkt + 8, 32);
	} else {
		be16_store(pkt + 2, (uint16_t)g->len);
		be16_store(pkt + 10, 0);
		be16_store(pkt + 10, gso_csum_fold(gso_csum_add(0, pkt, 20)));
		sum = gso_csum_add(0, pkt + 12, 8);
	}
	/* CHECKSUM_PARTIAL: the field holds the folded pseudo-header sum. */
	tcp_len = g->len - g->ip_hlen;
	sum += 6 + (uint64_t)tcp_len;
	be16_store(pkt + g->ip_hlen + 16, (uint16_t)~gso_csum_fold(sum));

	hdr[0] = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	hdr[1] = g->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 : VIRTIO_NET_HDR_GSO_TCPV4;
	gso_native16_store(hdr + 2, (uint16_t)g->hdr_len);
	gso_native16_store(hdr + 4, (uint16_t)g->seg);
	gso_native16_store(hdr + 6, (uint16_t)g->ip_hlen);
	gso_native16_store(hdr + 8, 16);
	g->count = 0;
	return g->len + GSO_VNET_HDR_LEN;
}

/* The TCP header's offset in a pure ACK, or 0 if pkt is not one. */
static size_t gro_ack_tcp(const uint8_t *pkt, size_t len)
{
	static const uint8_t ts_layout[4] = { 1, 1, 8, 10 };	/* NOP, NOP, kind 8, length 10 */
	size_t iph, thl;

	if (len < 20)
		return 0;
	if (pkt[0] == 0x45) {
		/* no options (IHL 5), the exact length, TCP, not a fragment, not CE (RFC 3168 §5) */
		if (be16_load(pkt + 2) != len || pkt[9] != 6 || (be16_load(pkt + 6) & 0x3fff) || (pkt[1] & 3) == 3)
			return 0;
		iph = 20;
	} else if (pkt[0] >> 4 == 6) {
		/* TCP as the first next header; ECN is the low two bits of the traffic class */
		if (len < 60 || pkt[6] != 6 || be16_load(pkt + 4) != len - 40 || ((pkt[1] >> 4) & 3) == 3)
			return 0;
		iph = 40;
	} else {
		return 0;
	}
	if (len < iph + 20)
		return 0;
	thl = (size_t)(pkt[iph + 12] >> 4) * 4;
	/* no payload; the ACK flag alone, reserved and AE bits clear */
	if (iph + thl != len || (pkt[iph + 12] & 0x0f) || pkt[iph + 13] != TCP_FLAG_ACK)
		return 0;
	if (thl == 20)
		return iph;
	if (thl == 32 && !memcmp(pkt + iph + 20, ts_layout, sizeof(ts_layout)))
		return iph;
	return 0;
}

bool gro_pure_ack(const uint8_t *pkt, size_t len)
{
	return gro_ack_tcp(pkt, len) != 0;
}

bool gro_ack_supersedes(const uint8_t *older, size_t older_len, const uint8_t *newer, size_t newer_len)
{
	size_t iph = gro_ack_tcp(older, older_len);
	const uint8_t *to = older + iph, *tn = newer + iph;

	if (!iph || gro_ack_tcp(newer, newer_len) != iph || older_len != newer_len)
		return false;
	/* the same flow: addresses (IPv4 12..19, IPv6 8..39) and ports */
	if (iph == 20 ? memcmp(older + 12, newer + 12, 8) : memcmp(older + 8, newer + 8, 32))
		return false;
	if (memcmp(to, tn, 4) || memcmp(to + 4, tn + 4, 4))
		return false;
	/* acknowledges more (sequence space arithmetic, RFC 9293 §3.4) */
	return (int32_t)(be32_load(tn + 8) - be32_load(to + 8)) > 0;
}
