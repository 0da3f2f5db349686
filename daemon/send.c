// SPDX-License-Identifier: GPL-2.0-only
/*
 * The outbound path, one batch per wakeup (WP §3, §5.4.6):
 *
 *   TUN read (up to PACKET_BATCH packets, until EAGAIN)
 *   -> inner destination -> allowed-IPs lookup -> peer   (none: drop, count)
 *   -> endpoint known?                                    (no: drop, count)
 *   -> pad to 16 within the MTU -> seal in place on the current keypair
 *        (no usable keypair: stage the packet, initiate a handshake)
 *   -> one sendmmsg() per address family for the whole batch
 *   -> timers: data sent, rekey-on-send rules
 *
 * Each packet is read into slot.buf + MESSAGE_DATA_HEADER_LEN so that the
 * header goes in front of it and the tag behind it without copying.
 */
#include <errno.h>
#include <string.h>

#include "crypto/bytes.h"
#include "daemon/device.h"
#include "daemon/log.h"
#include "daemon/peer.h"

/*
 * The inner packet's IP version and destination address, after checking
 * that the IP header is whole and its length field matches what the TUN
 * device gave us.  Returns the version (4 or 6), or 0 to drop.
 */
static int send_inner_destination(const uint8_t *pkt, size_t len, const uint8_t **dst)
{
	if (len < 1)
		return 0;
	switch (pkt[0] >> 4) {
	case 4:
		if (len < 20 || be16_load(pkt + 2) != len)
			return 0;
		*dst = pkt + 16;
		return 4;
	case 6:
		if (len < 40 || (size_t)be16_load(pkt + 4) + 40 != len)
			return 0;
		*dst = pkt + 24;
		return 6;
	default:
		return 0;
	}
}

/*
 * Routes and seals one packet read into slot; returns the peer if the
 * packet is ready to send (msg filled), NULL if it was dropped or staged.
 */
static struct peer *send_one(struct device *d, struct packet *slot, size_t len,
			     struct udp_msg *msg, uint64_t now)
{
	uint8_t *inner = slot->buf + MESSAGE_DATA_HEADER_LEN;
	const uint8_t *dst = NULL;
	struct peer *p;
	size_t padded;
	int version;

	version = send_inner_destination(inner, len, &dst);
	if (!version) {
		d->stats.tx_bad_packet++;
		return NULL;
	}
	p = allowedips_lookup(&d->table, version, dst);
	if (!p) {
		d->stats.tx_no_route++;
		log_packet(LOG_LEVEL_DEBUG, "no peer for an outgoing IPv%d packet; dropped", version);
		return NULL;
	}
	if (p->endpoint.addr.sa.sa_family == AF_UNSPEC) {
		d->stats.tx_no_endpoint++;
		log_packet(LOG_LEVEL_DEBUG, "peer has no endpoint; packet dropped");
		return NULL;
	}
	/* WP §5.4.6: zero padding to a multiple of 16, never beyond the MTU. */
	padded = message_data_padded_len(len, d->mtu);
	memset(inner + len, 0, padded - len);
	if (p->staged.count || noise_seal(&p->remote, slot->buf, padded, now) != NOISE_OK) {
		/* Behind staged packets or without a session: wait for one. */
		peer_stage(p, inner, len);
		peer_want_handshake(p, now);
		return NULL;
	}
	msg->data = slot->buf;
	msg->len = padded + MESSAGE_DATA_OVERHEAD;
	msg->ep = &p->endpoint;
	return p;
}

/* Reads one batch from the TUN device; the number of packets, or -errno. */
static int send_read_batch(struct device *d, size_t *lens)
{
	int n;

	for (n = 0; n < PACKET_BATCH; n++) {
		ssize_t r = tun_read(&d->tun, d->tx[n].buf + MESSAGE_DATA_HEADER_LEN,
				     PACKET_MAX_INNER);

		if (r == 0)
			break;
		if (r < 0)
			return n ? n : (int)r;
		lens[n] = (size_t)r;
	}
	return n;
}

void send_tun_readable(struct device *d)
{
	size_t lens[PACKET_BATCH];
	struct peer *last = NULL;
	unsigned int i, n = 0;
	uint64_t now;
	int got;

	got = send_read_batch(d, lens);
	if (got < 0) {
		if (got == -EBADFD || got == -EIO) {
			log_info("interface %s is gone; exiting", d->tun.name);
			loop_stop(&d->loop);
		} else {
			log_packet(LOG_LEVEL_ERROR, "TUN read: %s", strerror(-got));
		}
		return;
	}
	now = loop_now();
	for (i = 0; i < (unsigned int)got; i++) {
		struct peer *p = send_one(d, &d->tx[i], lens[i], &d->tx_msgs[n], now);

		if (p) {
			d->tx_peers[n] = p;
			p->tx_bytes += d->tx_msgs[n].len;
			n++;
		}
	}
	if (!n)
		return;
	d->stats.tx_udp_dropped += udp_send(&d->udp, d->tx_msgs, n);
	/* The timers once per run of packets to the same peer. */
	for (i = 0; i < n; i++) {
		struct peer *p = d->tx_peers[i];

		if (p == last)
			continue;
		last = p;
		timers_on_authenticated_sent(&p->timers, now);
		timers_on_data_sent(&p->timers, now, device_jitter(d));
		if (timers_rekey_on_send(&p->remote, now))
			peer_want_handshake(p, now);
		device_timer_touch(d, timers_next_deadline(&p->timers));
	}
}
