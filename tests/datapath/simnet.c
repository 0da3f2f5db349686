// SPDX-License-Identifier: GPL-2.0-only
/* In-memory network, TUN devices and clock for real devices (simnet.h). */
#include "tests/datapath/simnet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/util.h"
#include "crypto/x25519.h"

#define SIM_EPOCH_NS 1800000000000000000ull	/* wall clock at boot time 0 */
#define SIM_MAX_EVENTS 50000000ul		/* a bound on any one run */

static void sim_endpoint(struct endpoint *ep, uint32_t addr, uint16_t port)
{
	memset(ep, 0, sizeof(*ep));
	ep->addr.in4.sin_family = AF_INET;
	ep->addr.in4.sin_addr.s_addr = htonl(addr);
	ep->addr.in4.sin_port = htons(port);
}

static struct sim_dev *sim_find(struct sim_net *n, const struct endpoint *ep)
{
	unsigned int i;

	for (i = 0; i < n->ndevs; i++) {
		if (n->devs[i].dev && endpoint_addr_equal(&n->devs[i].addr, ep))
			return &n->devs[i];
	}
	return NULL;
}

static void sim_enqueue(struct sim_net *n, struct sim_dev *from, struct sim_dev *to, const uint8_t *data,
			size_t len, uint8_t tos)
{
	struct sim_dgram *g;

	if (n->qlen == n->qcap) {
		n->qcap = n->qcap ? 2 * n->qcap : 256;
		n->q = realloc(n->q, n->qcap * sizeof(*n->q));
		if (!n->q)
			abort();
	}
	g = &n->q[n->qlen++];
	g->at = n->now + n->delay_ns + (n->jitter_ns ? tu_rng_next(&n->rng) % n->jitter_ns : 0);
	g->seq = n->seq++;
	g->to = to->id;
	g->from = from->addr;
	g->len = len;
	g->data = malloc(len ? len : 1);
	if (!g->data)
		abort();
	memcpy(g->data, data, len);
	g->corrupt = false;
	g->tos = n->ecn_mark ? (uint8_t)((tos & ~3) | (n->ecn_mark & 3)) : tos;
	if (n->late_pct && n->late_ns && !n->clean[from->id][to->id] && tu_rng_next(&n->rng) % 100 < n->late_pct)
		g->at += tu_rng_next(&n->rng) % n->late_ns;
	if (len && n->corrupt_pct && !n->clean[from->id][to->id] && tu_rng_next(&n->rng) % 100 < n->corrupt_pct) {
		g->data[tu_rng_next(&n->rng) % len] ^= (uint8_t)(1u << (tu_rng_next(&n->rng) % 8));
		g->corrupt = true;
	}
	if (n->qlen > n->qmax)
		n->qmax = n->qlen;
}

/* ---- the seam, in memory ---- */

/* FNV-1a: the digest's order and bytes, not a secret. */
static void sim_digest(struct sim_net *n, unsigned int id, const uint8_t *p, size_t len)
{
	uint64_t h = n->digest ^ (id + 1);
	size_t i;

	h *= 0x100000001b3ull;
	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	n->digest = h;
}

static void sim_kick(void *ctx)
{
	struct sim_dev *d = ctx;

	workers_kick(&d->workers);
}

static void sim_relax(void *ctx)
{
	(void)ctx;
	sched_yield();
}

static bool sim_work(void *ctx)
{
	return device_work(ctx);
}

static bool sim_work_pending(void *ctx)
{
	return device_work_pending(ctx);
}

static uint64_t sim_wall_ns(void *ctx)
{
	struct sim_dev *d = ctx;

	return SIM_EPOCH_NS + d->net->now;
}

static bool sim_random(void *ctx, void *buf, size_t len)
{
	struct sim_dev *d = ctx;

	tu_rng_fill(&d->rng, buf, len);
	return true;
}

static unsigned int sim_io_send(void *ctx, struct udp_msg *msgs, unsigned int count)
{
	struct sim_dev *d = ctx;
	struct sim_net *n = d->net;
	unsigned int i, dropped = 0;

	if (d->send_calls < sizeof(d->send_sizes) / sizeof(d->send_sizes[0]))
		d->send_sizes[d->send_calls] = count;
	d->send_calls++;
	for (i = 0; i < count; i++) {
		struct sim_dev *to;

		msgs[i].sent = !d->fail_send;
		if (d->fail_send) {
			dropped++;
			continue;
		}
		n->sent++;
		sim_digest(n, d->id, msgs[i].data, msgs[i].len);
		if (n->on_send)
			n->on_send(n, d, &msgs[i]);
		to = sim_find(n, msgs[i].ep);
		if (!to || n->cut[d->id][to->id] ||
		    (n->drop_pct && !n->clean[d->id][to->id] && tu_rng_next(&n->rng) % 100 < n->drop_pct)) {
			n->dropped++;
			continue;
		}
		sim_enqueue(n, d, to, msgs[i].data, msgs[i].len, msgs[i].tos);
		if (n->dup_pct && tu_rng_next(&n->rng) % 100 < n->dup_pct)
			sim_enqueue(n, d, to, msgs[i].data, msgs[i].len, msgs[i].tos);
	}
	return dropped;
}

static int sim_tun_record(struct sim_dev *d, const uint8_t *pkt, size_t len)
{
	d->tun_packets++;
	sim_digest(d->net, d->id + SIM_MAX_DEVS, pkt, len);
	d->last_len = len < sizeof(d->last) ? len : sizeof(d->last);
	memcpy(d->last, pkt, d->last_len);
	if (d->net->on_tun)
		d->net->on_tun(d->net, d, pkt, len);
	return 0;
}

static int sim_tun_write(void *ctx, uint8_t *pkt, size_t len)
{
	return sim_tun_record(ctx, pkt, len);
}

/*
 * A write with its virtio_net_hdr first (offloads on), gathered as the
 * kernel's writev() would: recorded after the header, from a buffer
 * aligned as the kernel's packets are.
 */
static int sim_tun_write_vnet(void *ctx, const struct iovec *iov, unsigned int n)
{
	static struct {
		uint8_t skew[GSO_BUF_SKEW] __attribute__((aligned(16)));
		uint8_t buf[GSO_VNET_HDR_LEN + GSO_MAX_PACKET];
	} g;
	struct sim_dev *d = ctx;
	size_t len = 0;
	unsigned int i;

	d->last_vnet_copied = 0;
	for (i = 0; i < n; i++) {
		uintptr_t at = (uintptr_t)iov[i].iov_base, buf = (uintptr_t)d->dev->gro.buf;

		if (iov[i].iov_len > sizeof(g.buf) - len)
			abort();
		d->last_vnet_copied += at >= buf && at < buf + sizeof(d->dev->gro.buf);
		d->vnet_misaligned += ((uintptr_t)iov[i].iov_base + (i ? 0 : GSO_VNET_HDR_LEN)) & 3 ? 1 : 0;
		memcpy(g.buf + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	if (len < GSO_VNET_HDR_LEN)
		abort();
	d->tun_vnet_writes++;
	d->last_vnet_pieces = n;
	d->last_vnet_flags = g.buf[0];
	d->last_vnet_gso_type = g.buf[1];
	memcpy(&d->last_vnet_gso_size, g.buf + 4, 2);
	d->last_vnet_len = len - GSO_VNET_HDR_LEN;
	return sim_tun_record(d, g.buf + GSO_VNET_HDR_LEN, len - GSO_VNET_HDR_LEN);
}

static void sim_deadline(void *ctx, uint64_t when)
{
	struct sim_dev *d = ctx;

	d->deadline = when;
}

static int sim_bind(void *ctx, uint16_t port, uint32_t fwmark, uint16_t *bound, bool *gro)
{
	struct sim_dev *d = ctx;

	(void)fwmark;
	if (port)
		d->addr.addr.in4.sin_port = htons(port);
	*bound = ntohs(d->addr.addr.in4.sin_port);
	*gro = false;
	return 0;
}

/* A sleeping or down device loses what is sent to it anyway: nothing to close. */
static void sim_unbind(void *ctx)
{
	struct sim_dev *d = ctx;

	d->unbinds++;
}

static int sim_set_fwmark(void *ctx, uint32_t fwmark)
{
	(void)ctx;
	(void)fwmark;
	return 0;
}

/* ---- the network ---- */

unsigned int sim_threads = 1;
uint64_t sim_digests;
unsigned long sim_worker_jobs;

bool sim_parse_threads(int argc, char **argv)
{
	char *end;

	if (argc == 1)
		return true;
	if (argc != 3 || strcmp(argv[1], "--threads"))
		return false;
	sim_threads = (unsigned int)strtoul(argv[2], &end, 10);
	return !*end && sim_threads >= 1 && sim_threads <= WORKERS_MAX + 1;
}

void sim_init(struct sim_net *n, uint64_t seed)
{
	memset(n, 0, sizeof(*n));
	tu_rng_seed(&n->rng, seed);
	n->threads = sim_threads;
	n->now = SIM_S(1000);
	n->delay_ns = SIM_MS(1);
}

void sim_clear(struct sim_net *n)
{
	unsigned int i;
	size_t k;

	for (i = 0; i < n->ndevs; i++) {
		device_set_workers(n->devs[i].dev, 0, 0);
		sim_worker_jobs += workers_stop(&n->devs[i].workers);
		device_destroy(n->devs[i].dev);
		crypto_wipe(n->devs[i].private_key, sizeof(n->devs[i].private_key));
	}
	for (k = 0; k < n->qlen; k++)
		free(n->q[k].data);
	free(n->q);
	sim_digests = (sim_digests ^ n->digest) * 0x100000001b3ull;
	memset(n, 0, sizeof(*n));
}

int sim_set(struct sim_dev *d, const struct config_device *cfg)
{
	return device_config_set(d->dev, cfg, d->net->now);
}

struct sim_dev *sim_add(struct sim_net *n)
{
	struct sim_dev *d;
	struct config_device cfg;
	struct device_io io = {
		.wall_ns = sim_wall_ns,
		.random = sim_random,
		.send = sim_io_send,
		.tun_write = sim_tun_write,
		.tun_write_vnet = sim_tun_write_vnet,
		.deadline = sim_deadline,
		.bind = sim_bind,
		.unbind = sim_unbind,
		.set_fwmark = sim_set_fwmark,
		.kick = sim_kick,
		.relax = sim_relax,
	};
	char name[16];

	if (n->ndevs == SIM_MAX_DEVS)
		return NULL;
	d = &n->devs[n->ndevs];
	memset(d, 0, sizeof(*d));
	d->net = n;
	d->id = n->ndevs;
	tu_rng_seed(&d->rng, tu_rng_next(&n->rng));
	d->deadline = UINT64_MAX;
	d->inner = 0xc6336401u + d->id;			/* 198.51.100.(id+1) */
	sim_endpoint(&d->addr, 0xc0000201u + d->id, (uint16_t)(51820 + d->id));	/* 192.0.2.(id+1) */
	tu_rng_fill(&d->rng, d->private_key, sizeof(d->private_key));
	x25519_clamp(d->private_key);
	if (!x25519_public(d->public_key, d->private_key))
		return NULL;
	io.ctx = d;
	snprintf(name, sizeof(name), "sim%u", d->id);
	d->dev = device_create(&io, name);
	if (!d->dev)
		return NULL;
	n->ndevs++;
	/* the workers spin briefly: the simulation's CPU budget is not theirs */
	if (n->threads > 1 && workers_start(&d->workers, n->threads - 1, sim_work, sim_work_pending, d->dev,
					    1000) == 0)
		device_set_workers(d->dev, n->threads - 1, 1);
	device_set_bound(d->dev, ntohs(d->addr.addr.in4.sin_port), false);
	config_device_init(&cfg);
	cfg.flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	memcpy(cfg.private_key, d->private_key, 32);
	sim_set(d, &cfg);
	config_device_clear(&cfg);
	device_set_link(d->dev, true, n->now);
	return d;
}

int sim_peer(struct sim_dev *a, struct sim_dev *b, bool with_endpoint, const uint8_t *psk)
{
	struct config_device cfg;
	struct config_peer *p;
	struct config_allowedip aip = { .family = AF_INET, .cidr = 32 };
	uint32_t be = htonl(b->inner);
	int ret;

	config_device_init(&cfg);
	p = config_device_add_peer(&cfg, b->public_key);
	if (!p)
		return -ENOMEM;
	memcpy(aip.addr, &be, 4);
	ret = config_peer_add_allowedip(p, &aip);
	if (with_endpoint) {
		p->flags |= CONFIG_PEER_HAS_ENDPOINT;
		p->endpoint.in = b->addr.addr.in4;
	}
	if (psk) {
		p->flags |= CONFIG_PEER_HAS_PRESHARED_KEY;
		memcpy(p->preshared_key, psk, 32);
	}
	if (!ret)
		ret = sim_set(a, &cfg);
	config_device_clear(&cfg);
	return ret;
}

bool sim_get_peer(struct sim_dev *d, const struct sim_dev *p, struct config_peer *out)
{
	struct config_device cfg;
	bool found = false;
	size_t i;

	config_device_init(&cfg);
	if (device_config_get(d->dev, &cfg) == 0) {
		for (i = 0; i < cfg.peers_len; i++) {
			if (memcmp(cfg.peers[i].public_key, p->public_key, 32))
				continue;
			*out = cfg.peers[i];
			out->allowedips = NULL;
			out->allowedips_len = out->allowedips_cap = 0;
			found = true;
		}
	}
	config_device_clear(&cfg);
	return found;
}

void sim_send_inner(struct sim_dev *from, const struct sim_dev *to, const uint8_t *payload, size_t len)
{
	struct device *d = from->dev;
	size_t size, total = 20 + len;
	uint8_t *buf = device_tx_buffer(d, &size);
	uint32_t src = htonl(from->inner), dst = htonl(to->inner);

	if (total > size)
		abort();
	memset(buf, 0, 20);
	buf[0] = 0x45;
	buf[2] = (uint8_t)(total >> 8);
	buf[3] = (uint8_t)total;
	buf[8] = 64;		/* TTL */
	buf[9] = 253;		/* protocol: for experimentation (RFC 3692) */
	memcpy(buf + 12, &src, 4);
	memcpy(buf + 16, &dst, 4);
	memcpy(buf + 20, payload, len);
	device_tx_packet(d, total, from->net->now);
	device_tx_flush(d, from->net->now);
}

static void sim_deliver(struct sim_net *n, size_t k)
{
	struct sim_dgram g = n->q[k];
	struct sim_dev *to = &n->devs[g.to];
	struct udp_msg *msgs;
	unsigned int count;

	n->q[k] = n->q[--n->qlen];
	if (to->asleep) {
		/* a suspended host reads nothing: the datagram is lost */
		n->dropped++;
		free(g.data);
		return;
	}
	if (n->on_deliver)
		n->on_deliver(n, to, &g);
	msgs = device_rx_buffers(to->dev, &count);
	if (count && g.len <= msgs[0].len) {
		memcpy(msgs[0].data, g.data, g.len);
		msgs[0].len = g.len;
		msgs[0].seg = 0;
		msgs[0].truncated = false;
		msgs[0].tos = g.tos;
		*msgs[0].ep = g.from;
		msgs[0].ep->src.v4 = to->addr.addr.in4.sin_addr;
		msgs[0].ep->has_src = true;
		n->delivered++;
		device_rx_batch(to->dev, UDP_V4, 1, n->now);
		device_rx_flush(to->dev);
	}
	free(g.data);
}

bool sim_step(struct sim_net *n, uint64_t until)
{
	uint64_t next = UINT64_MAX;
	size_t k, best = 0;
	unsigned int i, dev = SIM_MAX_DEVS;

	for (k = 0; k < n->qlen; k++) {
		if (n->q[k].at < next || (n->q[k].at == next && n->q[k].seq < n->q[best].seq)) {
			next = n->q[k].at;
			best = k;
		}
	}
	for (i = 0; i < n->ndevs; i++) {
		if (!n->devs[i].asleep && n->devs[i].deadline < next) {
			next = n->devs[i].deadline;
			dev = i;
		}
	}
	if (next > until || next == UINT64_MAX)
		return false;
	if (next > n->now)
		n->now = next;
	n->events++;
	if (dev < SIM_MAX_DEVS) {
		n->devs[dev].deadline = UINT64_MAX;	/* forgotten as it fires (io.h) */
		device_run_timers(n->devs[dev].dev, n->now);
	} else {
		sim_deliver(n, best);
	}
	return true;
}

void sim_run(struct sim_net *n, uint64_t until)
{
	unsigned long events;

	for (events = 0; events < SIM_MAX_EVENTS; events++) {
		if (!sim_step(n, until))
			break;
	}
	if (events == SIM_MAX_EVENTS)
		abort();	/* a livelock: the test's bound */
	if (until > n->now && until != UINT64_MAX)
		n->now = until;
}

void sim_settle(struct sim_net *n, uint64_t span)
{
	uint64_t end = n->now + span;

	while (n->qlen && n->now < end) {
		uint64_t next = UINT64_MAX;
		size_t k;

		for (k = 0; k < n->qlen; k++)
			if (n->q[k].at < next)
				next = n->q[k].at;
		sim_run(n, next < end ? next : end);
	}
}

void sim_inject(struct sim_dev *from, struct sim_dev *to, const uint8_t *data, size_t len)
{
	sim_enqueue(from->net, from, to, data, len, 0);
}

void sim_rebind(struct sim_dev *d, uint16_t port)
{
	d->addr.addr.in4.sin_port = htons(port);
}
