// SPDX-License-Identifier: GPL-2.0-only
#include "tests/lib/csum_ref.h"

uint16_t ref_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint32_t ref_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

uint16_t ref_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	size_t i;

	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	for (i = 0; i + 1 < len; i += 2) {
		sum += ref_be16(p + i);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	/* an odd last byte is padded with a zero byte on the right (RFC 1071 §1) */
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

bool ref_sum_is_zero(uint16_t folded)
{
	return folded == 0xffff || folded == 0;
}

bool ref_ipv4_csum_ok(const uint8_t *ip, size_t ihl)
{
	return ref_sum(ip, ihl, 0) == 0xffff;
}

static void ref_store(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void ref_ipv4_csum_set(uint8_t *ip, size_t ihl)
{
	ref_store(ip + 10, 0);
	ref_store(ip + 10, (uint16_t)~ref_sum(ip, ihl, 0));
}

uint16_t ref_pseudo_sum(const uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto)
{
	uint32_t sum = proto;

	if (v6) {
		/* source, destination, 32-bit upper-layer length, next header */
		sum = ref_sum(pkt + 8, 32, sum);
		sum += (uint32_t)((len - l4) >> 16);
		sum += (uint32_t)((len - l4) & 0xffff);
	} else {
		/* source, destination, zero, protocol, 16-bit TCP/UDP length */
		sum = ref_sum(pkt + 12, 8, sum);
		sum += (uint32_t)((len - l4) & 0xffff);
	}
	return ref_sum(NULL, 0, sum);
}

bool ref_l4_csum_ok(const uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto)
{
	return ref_sum(pkt + l4, len - l4, ref_pseudo_sum(pkt, len, l4, v6, proto)) == 0xffff;
}

void ref_l4_csum_set(uint8_t *pkt, size_t len, size_t l4, bool v6, uint8_t proto, size_t field)
{
	ref_store(pkt + field, 0);
	ref_store(pkt + field, (uint16_t)~ref_sum(pkt + l4, len - l4, ref_pseudo_sum(pkt, len, l4, v6, proto)));
}
