// SPDX-License-Identifier: GPL-2.0-only
/*
 * ECN and the outer DS field across the tunnel (RFC 6040, normal mode;
 * doc/protocol.md §5), in process: the rules of daemon/datapath/ip.h as a
 * table against RFC 6040's Figure 4, over IPv4 (checksum kept valid) and
 * IPv6 (the rest of the traffic class and the flow label untouched); then
 * real devices joined in memory (simnet.h): what the data path gives the
 * host to send (the inner ECN field copied out, handshake messages AF41,
 * keepalives 0) and what a congestion mark on the way does to the inner
 * packet (carried in, or the packet dropped if it is not ECN-capable).
 * tests/net/ecn.sh checks the same end to end through the kernel.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/datapath/ip.h"
#include "tests/core/coretest.h"
#include "tests/datapath/simnet.h"
#include "tests/lib/csum_ref.h"

enum { NOT = IP_ECN_NOT_ECT, E1 = IP_ECN_ECT_1, E0 = IP_ECN_ECT_0, CE = IP_ECN_CE, DROP = -1 };

/*
 * RFC 6040 §4.2, Figure 4: the outgoing (inner) ECN field for each arriving
 * inner (row) and outer (column: Not-ECT, ECT(0), ECT(1), CE) field.
 */
static const struct {
	int inner, out[4];
} rfc6040_fig4[] = {
	{ NOT, { NOT, NOT, NOT, DROP } },
	{ E0, { E0, E0, E1, CE } },
	{ E1, { E1, E1, E1, CE } },
	{ CE, { CE, CE, CE, CE } },
};
static const int outer_cols[4] = { NOT, E0, E1, CE };

/* An IPv4 header (20 bytes) with DSCP dscp and ECN field ecn, checksummed. */
static void ipv4_header(uint8_t *h, uint8_t dscp, uint8_t ecn, uint16_t id)
{
	memset(h, 0, 20);
	h[0] = 0x45;
	h[1] = (uint8_t)(dscp << 2 | ecn);
	h[2] = 0;
	h[3] = 20;
	h[4] = (uint8_t)(id >> 8);
	h[5] = (uint8_t)id;
	h[8] = 64;
	h[9] = 253;
	memcpy(h + 12, (const uint8_t[]){ 198, 51, 100, 1, 198, 51, 100, 2 }, 8);
	ref_ipv4_csum_set(h, 20);
}

/* An IPv6 header (40 bytes) with traffic class dscp << 2 | ecn and a flow label. */
static void ipv6_header(uint8_t *h, uint8_t dscp, uint8_t ecn, uint32_t flow)
{
	uint8_t tclass = (uint8_t)(dscp << 2 | ecn);

	memset(h, 0, 40);
	h[0] = (uint8_t)(0x60 | tclass >> 4);
	h[1] = (uint8_t)((tclass & 0xf) << 4 | ((flow >> 16) & 0xf));
	h[2] = (uint8_t)(flow >> 8);
	h[3] = (uint8_t)flow;
	h[6] = 253;
	h[7] = 64;
	h[8] = 0xfd;
	h[24] = 0xfd;
}

/* Every cell of Figure 4, each with several DSCPs and outer DSCPs, in both families. */
static void test_decapsulate_table(void)
{
	uint8_t h[40], want[40];
	unsigned int r, c, dscp, odscp;

	for (r = 0; r < 4; r++) {
		for (c = 0; c < 4; c++) {
			for (dscp = 0; dscp < 64; dscp += 9) {
				int expect = rfc6040_fig4[r].out[c];
				uint8_t in = (uint8_t)rfc6040_fig4[r].inner, outer;
				bool keep;

				odscp = (dscp * 7 + 5) % 64;	/* the outer DSCP plays no part */
				outer = (uint8_t)(odscp << 2 | outer_cols[c]);

				ipv4_header(h, (uint8_t)dscp, in, (uint16_t)(dscp * 1000 + r * 4 + c));
				keep = ip_ecn_decapsulate(h, outer);
				ipv4_header(want, (uint8_t)dscp, expect == DROP ? in : (uint8_t)expect,
					    (uint16_t)(dscp * 1000 + r * 4 + c));
				tu_check(keep == (expect != DROP) && (!keep || !memcmp(h, want, 20)) &&
						 ref_ipv4_csum_ok(h, 20),
					 "IPv4 inner ECN %u DSCP %u, outer %02x: kept %d, ECN %u, checksum %s", in,
					 dscp, outer, keep, h[1] & 3, ref_ipv4_csum_ok(h, 20) ? "ok" : "bad");

				ipv6_header(h, (uint8_t)dscp, in, 0xabcde);
				keep = ip_ecn_decapsulate(h, outer);
				ipv6_header(want, (uint8_t)dscp, expect == DROP ? in : (uint8_t)expect, 0xabcde);
				tu_check(keep == (expect != DROP) && (!keep || !memcmp(h, want, 40)),
					 "IPv6 inner ECN %u DSCP %u, outer %02x: kept %d, header %02x %02x", in,
					 dscp, outer, keep, h[0], h[1]);
			}
		}
	}
}

/* Normal mode (RFC 6040 §4.1): the ECN field copied, the DSCP not. */
static void test_encapsulate(void)
{
	uint8_t h[40];
	unsigned int e, dscp;

	for (e = 0; e < 4; e++) {
		for (dscp = 0; dscp < 64; dscp += 21) {
			ipv4_header(h, (uint8_t)dscp, (uint8_t)e, 1);
			CHECK_EQ(ip_ecn_encapsulate(h), e);
			ipv6_header(h, (uint8_t)dscp, (uint8_t)e, 0xfffff);
			CHECK_EQ(ip_ecn_encapsulate(h), e);
		}
	}
}

/* What the devices gave the host to send: the TOS of each kind of datagram seen. */
struct seen {
	unsigned int initiation, response, keepalive, data, other;
	uint8_t data_tos;
};

static void on_send(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m)
{
	struct seen *s = n->user;

	(void)from;
	switch (m->data[0]) {
	case MESSAGE_HANDSHAKE_INITIATION:
		s->initiation += m->tos == IP_TOS_HANDSHAKE;
		s->other += m->tos != IP_TOS_HANDSHAKE;
		break;
	case MESSAGE_HANDSHAKE_RESPONSE:
		s->response += m->tos == IP_TOS_HANDSHAKE;
		s->other += m->tos != IP_TOS_HANDSHAKE;
		break;
	case MESSAGE_DATA:
		if (m->len == MESSAGE_DATA_OVERHEAD) {
			s->keepalive += m->tos == 0;
			s->other += m->tos != 0;
		} else {
			s->data++;
			s->data_tos = m->tos;
		}
		break;
	default:
		s->other++;
	}
}

/* An IPv4 packet with TOS byte tos from a to b, read from a's TUN; then 50 ms. */
static void send_tos(struct sim_dev *a, const struct sim_dev *b, uint8_t tos)
{
	size_t size;
	uint8_t *buf = device_tx_buffer(a->dev, &size);
	uint32_t src = htonl(a->inner), dst = htonl(b->inner);

	ipv4_header(buf, 0, 0, 7);
	buf[1] = tos;
	buf[3] = 28;
	memcpy(buf + 12, &src, 4);
	memcpy(buf + 16, &dst, 4);
	ref_ipv4_csum_set(buf, 20);
	memcpy(buf + 20, "ecn test", 8);
	device_tx_packet(a->dev, 28, a->net->now);
	device_tx_flush(a->dev, a->net->now);
	sim_run(a->net, a->net->now + SIM_MS(50));
}

static void test_devices(void)
{
	struct sim_net n;
	struct sim_dev *a, *b;
	struct seen s = { 0 };
	unsigned long before;
	unsigned int e;

	sim_init(&n, 6040);
	n.on_send = on_send;
	n.user = &s;
	a = sim_add(&n);
	b = sim_add(&n);
	if (!a || !b)
		abort();
	CHECK_EQ(sim_peer(a, b, true, NULL), 0);
	CHECK_EQ(sim_peer(b, a, true, NULL), 0);
	/* the first packet is staged behind the handshake: the staged path too */
	for (e = 0; e < 4; e++) {
		send_tos(a, b, (uint8_t)(0xb8 | e));	/* DSCP EF (46), which is not copied */
		tu_check(s.data_tos == e, "inner TOS %02x: outer TOS %02x, want %02x", 0xb8 | e, s.data_tos, e);
		CHECK(b->last_len == 28 && b->last[1] == (0xb8 | e) && ref_ipv4_csum_ok(b->last, 20));
	}
	sim_run(&n, n.now + SIM_S(15));	/* b's passive keepalive */
	tu_check(s.initiation == 1 && s.response == 1 && s.keepalive >= 1, "%u initiations, %u responses, %u keepalives",
		 s.initiation, s.response, s.keepalive);
	tu_check(s.other == 0, "%u handshake messages or keepalives with another TOS", s.other);

	/* a congested router on the way marks every datagram CE */
	n.ecn_mark = IP_ECN_CE;
	for (e = IP_ECN_ECT_1; e <= IP_ECN_CE; e++) {
		send_tos(a, b, (uint8_t)(0x20 | e));
		tu_check(b->last_len == 28 && b->last[1] == (0x20 | IP_ECN_CE) && ref_ipv4_csum_ok(b->last, 20),
			 "inner ECN %u under an outer CE: arrived with TOS %02x", e, b->last[1]);
	}
	before = b->tun_packets;
	send_tos(a, b, 0x20);
	tu_check(b->tun_packets == before && b->dev->stats.rx_ecn_dropped == 1,
		 "Not-ECT inner under an outer CE: %lu delivered, %llu dropped", b->tun_packets - before,
		 (unsigned long long)b->dev->stats.rx_ecn_dropped);
	/* ECT(1) on the way turns ECT(0) into ECT(1), leaves Not-ECT alone */
	n.ecn_mark = IP_ECN_ECT_1;
	send_tos(a, b, IP_ECN_ECT_0);
	CHECK(b->last_len == 28 && b->last[1] == IP_ECN_ECT_1 && ref_ipv4_csum_ok(b->last, 20));
	send_tos(a, b, 0);
	CHECK(b->last_len == 28 && b->last[1] == 0);
	sim_clear(&n);
}

int main(void)
{
	log_init("test_ecn", getenv("WGD_TEST_LOG") ? LOG_LEVEL_DEBUG : LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		return 99;
	test_decapsulate_table();
	test_encapsulate();
	test_devices();
	log_clear();
	return ct_exit("device-ecn");
}
