/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inner packet's IP header, read once for both directions: the version
 * (RFC 791, RFC 8200), the length the header claims, and where the source
 * and destination addresses lie.  The send path requires that length to be
 * exactly what the TUN device gave; the receive path trims the padding to
 * it (WP §5.4.6).
 */
#ifndef WGD_IP_H
#define WGD_IP_H

#include <stddef.h>
#include <stdint.h>

#include "crypto/bytes.h"

/*
 * The IP version of pkt (4 or 6), with *ip_len the length its header
 * claims and *src / *dst its addresses; 0 if it is neither version, its
 * fixed header is cut, or it claims more bytes than len or fewer than its
 * header (for IPv4, an IHL below 5 or past the total length).
 */
static inline int ip_parse(const uint8_t *pkt, size_t len, size_t *ip_len, const uint8_t **src,
			   const uint8_t **dst)
{
	if (len < 1)
		return 0;
	switch (pkt[0] >> 4) {
	case 4:
		if (len < 20)
			return 0;
		*ip_len = be16_load(pkt + 2);
		if (*ip_len < 20 || *ip_len > len)
			return 0;
		/* RFC 791: IHL counts 32-bit words, at least 5, within the packet */
		if ((pkt[0] & 0xf) < 5 || (size_t)(pkt[0] & 0xf) * 4 > *ip_len)
			return 0;
		*src = pkt + 12;
		*dst = pkt + 16;
		return 4;
	case 6:
		if (len < 40)
			return 0;
		*ip_len = (size_t)be16_load(pkt + 4) + 40;
		if (*ip_len > len)
			return 0;
		*src = pkt + 8;
		*dst = pkt + 24;
		return 6;
	default:
		return 0;
	}
}

#endif
