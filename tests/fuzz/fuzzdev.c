// SPDX-License-Identifier: GPL-2.0-only
/* Shared by the device fuzzers (fuzzdev.h). */
#include "tests/fuzz/fuzzdev.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/datapath/gso.h"

void fuzzdev_init(void)
{
	log_init("fuzz", LOG_LEVEL_SILENT, true);
	if (!x25519_init())
		abort();
}

size_t fuzzdev_ipv4(uint8_t *out, size_t cap, uint32_t src, uint32_t dst, const uint8_t *payload,
		    size_t len)
{
	size_t total = 20 + len;
	uint32_t s = htonl(src), t = htonl(dst);

	if (total > cap || total > 0xffff)
		abort();
	memset(out, 0, 20);
	out[0] = 0x45;			/* RFC 791: version 4, IHL 5 */
	out[2] = (uint8_t)(total >> 8);
	out[3] = (uint8_t)total;
	out[8] = 64;			/* TTL */
	out[9] = 253;			/* for experimentation (RFC 3692) */
	memcpy(out + 12, &s, 4);
	memcpy(out + 16, &t, 4);
	memcpy(out + 20, payload, len);
	return total;
}

unsigned int fuzzdev_tun_read(struct device *d, const uint8_t *pkt, size_t len, uint64_t now)
{
	size_t size, hdr = d->tun_vnet ? GSO_VNET_HDR_LEN : 0;
	uint8_t *buf = device_tx_buffer(d, &size);

	if (size < hdr)
		abort();
	memset(buf, 0, hdr);
	if (len > size - hdr)
		len = size - hdr;
	memcpy(buf + hdr, pkt, len);
	return device_tx_packet(d, hdr + len, now);
}

void fuzzdev_write_seed(const char *dir, const char *name, const uint8_t *data, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		abort();
	}
}
