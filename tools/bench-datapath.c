// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-datapath: the data path's real seal and open paths on N threads
 * (datapath/crypt.h), in one process, against one thread in the same run.
 *
 * Two devices of the data path library, A and B, with a session between
 * them, behind a seam of this program's (no sockets, no TUN device, a
 * clock that does not move, so no timer fires): A is fed TUN reads and
 * what it sends is counted (or kept, to feed B); B is fed what A sealed,
 * as the sockets would give it, and what it writes to its TUN device is
 * counted.  Both have TUN offloads on, as the daemon does where the kernel
 * offers them.  The series:
 *
 *   seal tso    TCP super-packets of 64,900 bytes (47 segments of 1,380
 *               bytes, an MTU of 1420), 4 reads per flush, as the shell
 *               reads a TUN device that holds several;
 *   seal small  one 100-byte packet, then the flush: a batch of one;
 *   open gro    what A sealed from super-packets, in reads of 8 UDP GRO
 *               runs of up to 45 datagrams each, as the sockets give them
 *               with UDP GRO (merged again on the way to TUN);
 *   open small  one 132-byte datagram per read.
 *
 * Each series is timed for each thread count in turn, round after round
 * (-r, default 9), and the median of the rounds is printed with its ratio
 * to one thread.  A round of a series is long enough (64 MB, or 20,000
 * small packets) for the clock to resolve it.
 *
 * Usage: bench-datapath [-r ROUNDS] [-t N[,N...]] [-s SERIES] [-b BYTES]
 * (default -t 1,2, every series; SERIES as named above, e.g. "seal tso";
 * -b: hand jobs out from BYTES, device_set_workers())
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/base/workers.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/gso.h"
#include "daemon/datapath/io.h"

#define BENCH_NOW 1000000000000ull	/* boot time: 1000 s, never moving */
#define BENCH_SP_PAYLOAD 64860		/* 47 x 1380 */
#define BENCH_MSS 1380
#define BENCH_KEEP_MAX (160u << 20)	/* what A may keep for B */
#define BENCH_MAX_THREADS 8

struct bdev {
	struct device *dev;
	struct workers workers;
	struct endpoint addr;
	uint32_t inner;			/* host order */
	uint64_t rng;
	/* what it sent: counted, or kept (length-prefixed) when keep is set */
	bool keep;
	uint8_t *kept;
	size_t kept_len;
	unsigned long datagrams;
	uint64_t sent_bytes;
	/* what it wrote to its TUN device */
	uint64_t tun_bytes;
	unsigned long tun_writes;
};

static struct bdev A, B;
static size_t share;		/* -b: device_set_workers()'s share_bytes */

/* ---- the seam ---- */

static uint64_t b_wall_ns(void *ctx)
{
	(void)ctx;
	return 1800000000000000000ull;
}

static bool b_random(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	return crypto_random(buf, len);
}

static void b_keep(struct bdev *d, const uint8_t *data, size_t len)
{
	uint16_t n = (uint16_t)len;

	if (d->kept_len + 2 + len > BENCH_KEEP_MAX) {
		fprintf(stderr, "bench-datapath: more than %u bytes to keep\n", BENCH_KEEP_MAX);
		exit(1);
	}
	memcpy(d->kept + d->kept_len, &n, 2);
	memcpy(d->kept + d->kept_len + 2, data, len);
	d->kept_len += 2 + len;
}

static unsigned int b_send(void *ctx, struct udp_msg *msgs, unsigned int n)
{
	struct bdev *d = ctx;
	unsigned int i;

	for (i = 0; i < n; i++) {
		msgs[i].sent = true;
		d->datagrams++;
		d->sent_bytes += msgs[i].len;
		if (d->keep)
			b_keep(d, msgs[i].data, msgs[i].len);
	}
	return 0;
}

static int b_tun_write(void *ctx, uint8_t *pkt, size_t len)
{
	struct bdev *d = ctx;

	(void)pkt;
	d->tun_writes++;
	d->tun_bytes += len;
	return 0;
}

static int b_tun_write_vnet(void *ctx, const struct iovec *iov, unsigned int n)
{
	struct bdev *d = ctx;
	unsigned int i;

	d->tun_writes++;
	for (i = 0; i < n; i++)
		d->tun_bytes += iov[i].iov_len;
	d->tun_bytes -= GSO_VNET_HDR_LEN;
	return 0;
}

static void b_deadline(void *ctx, uint64_t when)
{
	(void)ctx;
	(void)when;
}

static int b_bind(void *ctx, uint16_t port, uint32_t fwmark, uint16_t *bound, bool *gro)
{
	(void)ctx;
	(void)fwmark;
	*bound = port;
	*gro = true;
	return 0;
}

/* No sockets to close. */
static void b_unbind(void *ctx)
{
	(void)ctx;
}

static int b_set_fwmark(void *ctx, uint32_t fwmark)
{
	(void)ctx;
	(void)fwmark;
	return 0;
}

static void b_kick(void *ctx)
{
	struct bdev *d = ctx;

	workers_kick(&d->workers);
}

static void b_relax(void *ctx)
{
	(void)ctx;
	sched_yield();
}

static bool b_work(void *ctx)
{
	return device_work(ctx);
}

static bool b_work_pending(void *ctx)
{
	return device_work_pending(ctx);
}

/* ---- setup ---- */

static void die(const char *what)
{
	fprintf(stderr, "bench-datapath: %s\n", what);
	exit(1);
}

static void b_create(struct bdev *d, const char *name, uint32_t outer, uint32_t inner, uint8_t priv[32],
		     uint8_t pub[32])
{
	struct device_io io = {
		.ctx = d, .wall_ns = b_wall_ns, .random = b_random, .send = b_send,
		.tun_write = b_tun_write, .tun_write_vnet = b_tun_write_vnet, .deadline = b_deadline,
		.bind = b_bind, .unbind = b_unbind, .set_fwmark = b_set_fwmark, .kick = b_kick, .relax = b_relax,
	};

	d->addr.addr.in4.sin_family = AF_INET;
	d->addr.addr.in4.sin_addr.s_addr = htonl(outer);
	d->addr.addr.in4.sin_port = htons(51820);
	d->inner = inner;
	d->dev = device_create(&io, name);
	if (!d->dev || !x25519_generate_private(priv) || !x25519_public(pub, priv))
		die("cannot create a device");
	d->kept = malloc(BENCH_KEEP_MAX);
	if (!d->kept)
		die("out of memory");
	device_set_bound(d->dev, 51820, true);
	device_set_offloads(d->dev, true, true);
	device_set_mtu(d->dev, 1420);
	device_set_link(d->dev, true, BENCH_NOW);
}

/* d gets its private key and peer p (p's inner /32, p's endpoint). */
static void b_configure(struct bdev *d, const uint8_t priv[32], const struct bdev *p, const uint8_t pub[32])
{
	struct config_allowedip aip = { .family = AF_INET, .cidr = 32 };
	uint32_t be = htonl(p->inner);
	struct config_device cfg;
	struct config_peer *cp;

	config_device_init(&cfg);
	cfg.flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	memcpy(cfg.private_key, priv, 32);
	cp = config_device_add_peer(&cfg, pub);
	memcpy(aip.addr, &be, 4);
	if (!cp || config_peer_add_allowedip(cp, &aip) < 0)
		die("out of memory");
	cp->flags |= CONFIG_PEER_HAS_ENDPOINT;
	cp->endpoint.in = p->addr.addr.in4;
	if (device_config_set(d->dev, &cfg, BENCH_NOW) < 0)
		die("configuration refused");
	config_device_clear(&cfg);
}

/*
 * Hands what from kept to `to`, as reads of the sockets: 8 UDP GRO runs of
 * equal-sized datagrams per read (the last of a run may be shorter), or
 * with single, one datagram per read.
 */
static void b_deliver(struct bdev *from, struct bdev *to, bool single)
{
	size_t off = 0;

	while (off < from->kept_len) {
		unsigned int n, got = 0;
		struct udp_msg *m = device_rx_buffers(to->dev, &n);

		if (single)
			n = 1;

		while (got < n && off < from->kept_len) {
			size_t cap = m[got].len, used = 0, seg = 0;
			uint16_t len;

			while (off < from->kept_len) {
				memcpy(&len, from->kept + off, 2);
				if (used + len > cap || (seg && (len > seg || used % seg)))
					break;
				memcpy(m[got].data + used, from->kept + off + 2, len);
				if (!seg)
					seg = len;
				used += len;
				off += 2 + len;
				if (len < seg || single)
					break;	/* a shorter one ends a run */
			}
			m[got].len = used;
			m[got].seg = used > seg ? seg : 0;
			m[got].truncated = false;
			*m[got].ep = from->addr;
			got++;
		}
		device_rx_batch(to->dev, UDP_V4, got, BENCH_NOW);
		device_rx_flush(to->dev);
	}
	from->kept_len = 0;
}

/* ---- packets ---- */

static void be16_put(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* An IPv4 TCP packet from A's inner address to B's, with payload bytes, at pkt. */
static size_t b_tcp(uint8_t *pkt, size_t payload)
{
	uint32_t src = htonl(A.inner), dst = htonl(B.inner);
	size_t i, len = 40 + payload;

	memset(pkt, 0, 40);
	pkt[0] = 0x45;
	be16_put(pkt + 2, (uint16_t)(len > 65535 ? 0 : len));
	pkt[6] = 0x40;	/* DF */
	pkt[8] = 64;
	pkt[9] = 6;
	memcpy(pkt + 12, &src, 4);
	memcpy(pkt + 16, &dst, 4);
	be16_put(pkt + 20, 40000);
	be16_put(pkt + 22, 5201);
	pkt[32] = 5 << 4;
	pkt[33] = 0x18;	/* PSH, ACK */
	be16_put(pkt + 34, 65535);
	for (i = 0; i < payload; i++)
		pkt[40 + i] = (uint8_t)(i * 7);
	return len;
}

/* A TUN read: the virtio_net_hdr, then a super-packet (gso) or a plain packet. */
static size_t b_read(uint8_t *buf, size_t payload, bool gso)
{
	size_t len = b_tcp(buf + GSO_VNET_HDR_LEN, payload);

	memset(buf, 0, GSO_VNET_HDR_LEN);
	if (gso) {
		buf[0] = 1;	/* VIRTIO_NET_HDR_F_NEEDS_CSUM */
		buf[1] = 1;	/* VIRTIO_NET_HDR_GSO_TCPV4 */
		/* native order, as the kernel gives them (no virtio 1.0 flag) */
		*(uint16_t *)(void *)(buf + 4) = BENCH_MSS;
		*(uint16_t *)(void *)(buf + 6) = 20;
		*(uint16_t *)(void *)(buf + 8) = 16;
		be16_put(buf + GSO_VNET_HDR_LEN + 2, (uint16_t)len);
	} else {
		/* the IP checksum is not checked on the way out; the TCP one not either */
		be16_put(buf + GSO_VNET_HDR_LEN + 2, (uint16_t)len);
	}
	return GSO_VNET_HDR_LEN + len;
}

/* ---- the series ---- */

static uint8_t sp[GSO_VNET_HDR_LEN + 65535], small[GSO_VNET_HDR_LEN + 200];
static size_t sp_len, small_len;

static double b_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * n TUN reads of the packet at pkt into A, a flush after every per_flush.
 * The read itself is the kernel's copy, not the data path's work: the
 * packet is copied only into a buffer that does not hold it yet (A reads
 * into one or two buffers, and leaves a super-packet as it was).
 */
static void b_feed(const uint8_t *pkt, size_t len, unsigned int n, unsigned int per_flush)
{
	static const uint8_t *held[4];
	static size_t held_len[4];
	unsigned int i, k;
	size_t cap;

	for (i = 0; i < n; i++) {
		uint8_t *buf = device_tx_buffer(A.dev, &cap);

		for (k = 0; k < 4 && !(held[k] == buf && held_len[k] == len && !memcmp(buf, pkt, 64)); k++)
			;
		if (k == 4) {
			memcpy(buf, pkt, len);
			memmove(held + 1, held, 3 * sizeof(held[0]));
			memmove(held_len + 1, held_len, 3 * sizeof(held_len[0]));
			held[0] = buf;
			held_len[0] = len;
		}
		device_tx_packet(A.dev, len, BENCH_NOW);
		if ((i + 1) % per_flush == 0)
			device_tx_flush(A.dev, BENCH_NOW);
	}
	device_tx_flush(A.dev, BENCH_NOW);
}

enum series { SEAL_TSO, SEAL_SMALL, OPEN_GRO, OPEN_SMALL, NSERIES };

static const char *const series_name[NSERIES] = {
	"seal tso", "seal small", "open gro", "open small",
};

/* One round of series s; returns its inner bytes per second (or packets for small). */
static double b_round(enum series s)
{
	unsigned int n = s == SEAL_TSO || s == OPEN_GRO ? 1500 : 30000;
	bool tso = s == SEAL_TSO || s == OPEN_GRO;
	double t0, t;

	if (s == SEAL_TSO || s == SEAL_SMALL) {
		t0 = b_now();
		b_feed(tso ? sp : small, tso ? sp_len : small_len, n, tso ? 4 : 1);
		t = b_now() - t0;
	} else {
		A.keep = true;
		b_feed(tso ? sp : small, tso ? sp_len : small_len, n, tso ? 4 : 1);
		A.keep = false;
		t0 = b_now();
		b_deliver(&A, &B, !tso);
		t = b_now() - t0;
	}
	return tso ? n * (double)BENCH_SP_PAYLOAD / t : n / t;
}

static int b_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void b_threads(unsigned int n)
{
	struct bdev *d[2] = { &A, &B };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unsigned long jobs;

		device_set_workers(d[i]->dev, 0, 0);
		jobs = workers_stop(&d[i]->workers);
		if (jobs && getenv("BENCH_JOBS"))
			fprintf(stderr, "%c: %lu jobs by workers\n", i ? 'B' : 'A', jobs);
		if (n > 1) {
			if (workers_start(&d[i]->workers, n - 1, b_work, b_work_pending, d[i]->dev, 0) < 0)
				die("cannot start threads");
			device_set_workers(d[i]->dev, n - 1, share);
		}
	}
}

/* Until B has opened what A sent: the session exists both ways. */
static void b_session(void)
{
	unsigned int i;

	for (i = 0; i < 10 && B.tun_writes == 0; i++) {
		A.keep = B.keep = true;
		b_feed(small, small_len, 1, 1);
		b_deliver(&A, &B, true);
		b_deliver(&B, &A, true);
		b_deliver(&A, &B, true);
		A.keep = B.keep = false;
	}
	if (!B.tun_writes)
		die("no session between the two devices");
}

static const char *only;	/* -s: one series */

static void b_run(unsigned int rounds, const unsigned int *threads, unsigned int nthreads)
{
	static double v[BENCH_MAX_THREADS][64];
	unsigned int s, r, k;
	double base = 0, med;

	for (s = 0; s < NSERIES; s++) {
		if (only && strcmp(only, series_name[s]))
			continue;
		for (r = 0; r < rounds; r++) {
			for (k = 0; k < nthreads; k++) {
				b_threads(threads[k]);
				v[k][r] = b_round((enum series)s);
			}
		}
		printf("%-11s", series_name[s]);
		for (k = 0; k < nthreads; k++) {
			qsort(v[k], rounds, sizeof(double), b_cmp);
			med = v[k][rounds / 2];
			if (k == 0)
				base = med;
			if (s == SEAL_TSO || s == OPEN_GRO)
				printf("  %u: %6.3f GB/s %5.2fx", threads[k], med / 1e9, med / base);
			else
				printf("  %u: %7.0f pkt/s %5.2fx", threads[k], med, med / base);
		}
		printf("\n");
		fflush(stdout);
	}
	b_threads(1);
}

int main(int argc, char **argv)
{
	unsigned int rounds = 9, threads[BENCH_MAX_THREADS] = { 1, 2 }, nthreads = 2;
	uint8_t priv_a[32], pub_a[32], priv_b[32], pub_b[32];
	int c;

	while ((c = getopt(argc, argv, "b:r:s:t:")) != -1) {
		char *p;

		switch (c) {
		case 'r':
			rounds = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 's':
			only = optarg;
			break;
		case 'b':
			share = strtoul(optarg, NULL, 10);
			break;
		case 't':
			for (nthreads = 0, p = optarg; nthreads < BENCH_MAX_THREADS && *p; nthreads++) {
				threads[nthreads] = (unsigned int)strtoul(p, &p, 10);
				if (*p == ',')
					p++;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-r ROUNDS] [-t N[,N...]] [-s SERIES] [-b BYTES]\n", argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || rounds > 64 || !nthreads || threads[0] < 1)
		die("rounds 1..64, threads 1..8");
	log_init("bench-datapath", LOG_LEVEL_ERROR, true);
	if (!x25519_init())
		die("no X25519");
	b_create(&A, "bencha", 0xc0000201u, 0xc6336401u, priv_a, pub_a);
	b_create(&B, "benchb", 0xc0000202u, 0xc6336402u, priv_b, pub_b);
	b_configure(&A, priv_a, &B, pub_b);
	b_configure(&B, priv_b, &A, pub_a);
	sp_len = b_read(sp, BENCH_SP_PAYLOAD, true);
	small_len = b_read(small, 60, false);
	b_session();
	printf("bench-datapath: %ld CPUs online; median of %u rounds per thread count; ratios to %u thread%s\n",
	       sysconf(_SC_NPROCESSORS_ONLN), rounds, threads[0], threads[0] > 1 ? "s" : "");
	b_run(rounds, threads, nthreads);
	device_destroy(A.dev);
	device_destroy(B.dev);
	return 0;
}
