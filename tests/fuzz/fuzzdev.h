/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the device fuzzers (fuzz_receive.c, fuzz_tun.c) share: two real
 * devices of tests/datapath/simnet.h from one fixed seed, so that their keys,
 * sender indices and session keys are the same in every run and a corpus of
 * captured messages stays valid; inner packets built by hand; a TUN read
 * handed to a device the way the shell hands it (daemon/datapath/device.h); and the
 * writing of seed files.
 */
#ifndef WGD_FUZZDEV_H
#define WGD_FUZZDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/datapath/simnet.h"

/* The seed of every device fuzzer's network: fixed, see above. */
#define FUZZDEV_SEED 0x5eed

/* Once per process: X25519, a silent log. */
void fuzzdev_init(void);

/* An IPv4 packet src -> dst (host order) of protocol 253 (RFC 3692) carrying payload; its length. */
size_t fuzzdev_ipv4(uint8_t *out, size_t cap, uint32_t src, uint32_t dst, const uint8_t *payload,
		    size_t len);

/*
 * One TUN read of pkt into d: behind a virtio_net_hdr of zeros (no
 * offload asked) when the device reads one (tun_vnet); cut to the buffer
 * like a read.  Returns what device_tx_packet() returns.
 */
unsigned int fuzzdev_tun_read(struct device *d, const uint8_t *pkt, size_t len, uint64_t now);

/* Writes len bytes to dir/name; aborts on failure (a seed-writing run). */
void fuzzdev_write_seed(const char *dir, const char *name, const uint8_t *data, size_t len);

#endif
