/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Real devices (daemon/datapath/device.h, the data path library) joined in one
 * process: an in-memory network and in-memory TUN devices behind the seam
 * (daemon/datapath/io.h), a fake clock, and one seed for every random choice of the
 * network (faults) and of the devices' own random bytes through the seam.
 *
 * Each device has an outer address 192.0.2.(id+1):(51820+id) and an inner
 * one 198.51.100.(id+1) (TEST-NET ranges, RFC 5737, never leaving the
 * process).  A datagram sent is delivered after the network's delay, unless
 * a fault drops it; what a device writes to its TUN device is recorded
 * and handed to a hook, where tests check invariants.
 */
#ifndef WGD_TESTS_DEVICE_SIMNET_H
#define WGD_TESTS_DEVICE_SIMNET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/base/workers.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/state.h"
#include "tests/lib/testutil.h"

#define SIM_MAX_DEVS 8
#define SIM_MS(x) ((uint64_t)(x) * 1000000ull)
#define SIM_S(x) ((uint64_t)(x) * 1000000000ull)

struct sim_net;

struct sim_dev {
	struct sim_net *net;
	struct device *dev;
	unsigned int id;
	uint8_t private_key[32], public_key[32];
	struct endpoint addr;		/* outer address and port */
	uint32_t inner;			/* inner IPv4 address, host order */
	uint64_t deadline;
	struct tu_rng rng;
	bool fail_send;			/* the host refuses to send (sendmmsg fails) */
	unsigned long unbinds;		/* io.unbind() calls: the link went down */
	bool asleep;			/* suspended: no timers run, datagrams to it are lost */
	/* what reached the TUN device */
	unsigned long tun_packets;
	uint8_t last[2048];
	size_t last_len;
	/*
	 * With offloads (device_set_offloads(dev, true, ...)): writes that
	 * carried a virtio_net_hdr, and the last one's header fields and
	 * length (after the header); tun_packets counts them too.
	 */
	unsigned long tun_vnet_writes;
	uint8_t last_vnet_flags, last_vnet_gso_type;
	uint16_t last_vnet_gso_size;
	size_t last_vnet_len;
	/*
	 * The pieces the last such write was gathered from (the first: the
	 * header and the first segment; then each later payload, where it was
	 * decrypted or copied to), how many of them lay in the device's group
	 * buffer (copied out of the receive buffers), and how many of all
	 * writes' pieces (the first's IP header, the others' start) were not
	 * word-aligned.
	 */
	unsigned int last_vnet_pieces, last_vnet_copied;	/* copied: of them in the group's buffer */
	unsigned long vnet_misaligned;
	/* io.send() calls, and how many datagrams each of the first ones had */
	unsigned long send_calls;
	unsigned int send_sizes[64];
	struct workers workers;		/* with sim_net.threads > 1 */
};

struct sim_dgram {
	uint64_t at;			/* delivery time */
	uint64_t seq;			/* order among equal times */
	unsigned int to;
	struct endpoint from;		/* as the receiver sees it */
	size_t len;
	uint8_t *data;
	bool corrupt;			/* one byte flipped on the way */
	uint8_t tos;			/* outer TOS, as sent (then ecn_mark) */
};

struct sim_net {
	uint64_t now;			/* boot-time ns */
	struct tu_rng rng;
	uint64_t seq;
	struct sim_dev devs[SIM_MAX_DEVS];
	unsigned int ndevs;
	struct sim_dgram *q;		/* in flight */
	size_t qlen, qcap;
	/* faults: percentages, a delay with jitter, cut links */
	unsigned int drop_pct, dup_pct, corrupt_pct;
	uint64_t delay_ns, jitter_ns;
	/* a router on the way sets this ECN field (ip.h) in every outer header, if not 0 */
	uint8_t ecn_mark;
	unsigned int late_pct;		/* held back by up to late_ns more (a stale path) */
	uint64_t late_ns;
	bool cut[SIM_MAX_DEVS][SIM_MAX_DEVS];	/* from, to */
	bool clean[SIM_MAX_DEVS][SIM_MAX_DEVS];	/* from, to: no drop, corruption or lateness */
	unsigned long sent, delivered, dropped;
	unsigned long events;		/* run by sim_step() */
	size_t qmax;			/* the most datagrams ever in flight */
	/* hooks for tests: every datagram sent, every packet to a TUN */
	void (*on_send)(struct sim_net *n, struct sim_dev *from, const struct udp_msg *m);
	void (*on_tun)(struct sim_net *n, struct sim_dev *to, const uint8_t *pkt, size_t len);
	/* every datagram about to be handed to its device (not to a sleeping one) */
	void (*on_deliver)(struct sim_net *n, struct sim_dev *to, const struct sim_dgram *g);
	void *user;
	/*
	 * Threads each device seals and opens on (set before sim_add(); 0 or
	 * 1: one; every job is handed out, to exercise the hand-off), and a
	 * digest of everything the devices did that the
	 * network sees, in order: every datagram handed to io.send() and every
	 * packet written to a TUN device.  The number of threads must not
	 * change it.
	 */
	unsigned int threads;
	uint64_t digest;
};

/*
 * An empty network at a boot time of 1000 s; delay 1 ms, no faults; its
 * devices on sim_threads threads each.
 */
void sim_init(struct sim_net *n, uint64_t seed);

/*
 * For a test program: "--threads N" (1 to WORKERS_MAX + 1) from its
 * arguments into sim_threads, else 1; false on anything else.  Every
 * network's digest is folded into sim_digests at sim_clear(), for the
 * program to print: the same for any number of threads.
 */
extern unsigned int sim_threads;
extern uint64_t sim_digests;
extern unsigned long sim_worker_jobs;	/* jobs the devices' workers ran, in all */
bool sim_parse_threads(int argc, char **argv);
/* Destroys every device (which wipes its keys) and frees what is in flight. */
void sim_clear(struct sim_net *n);

/* A new device with a fresh key pair, bound, link up; NULL if out of room. */
struct sim_dev *sim_add(struct sim_net *n);
/*
 * a gets b as a peer (allowed IP: b's inner /32), with b's endpoint if
 * with_endpoint; psk may be NULL.  0 or -errno from the device.
 */
int sim_peer(struct sim_dev *a, struct sim_dev *b, bool with_endpoint, const uint8_t *psk);
/* Applies a configuration built by the test. */
int sim_set(struct sim_dev *d, const struct config_device *cfg);
/* The device's view of its peer p (get), into *out; false if not found. */
bool sim_get_peer(struct sim_dev *d, const struct sim_dev *p, struct config_peer *out);

/*
 * An IPv4 packet from `from`'s inner address to `to`'s, carrying payload,
 * read from from's TUN device (one read, then the flush the shell does).
 */
void sim_send_inner(struct sim_dev *from, const struct sim_dev *to, const uint8_t *payload, size_t len);

/*
 * Runs the one next event (a delivery, or a deadline of a device that is
 * not asleep) if it is due by until, advancing the clock to it; false if
 * there is none (the clock is left alone).
 */
bool sim_step(struct sim_net *n, uint64_t until);
/* Runs events (deliveries, deadlines) up to time until; the clock ends there. */
void sim_run(struct sim_net *n, uint64_t until);
/* Runs until nothing is in flight, at most for span. */
void sim_settle(struct sim_net *n, uint64_t span);

/* Puts a datagram on the network from `from` to `to`, as if sent now. */
void sim_inject(struct sim_dev *from, struct sim_dev *to, const uint8_t *data, size_t len);

/* Moves a device to another outer port (a NAT rebinding): roaming. */
void sim_rebind(struct sim_dev *d, uint16_t port);

#endif
