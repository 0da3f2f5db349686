/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers for the protocol-core tests: two devices joined in memory, each
 * with one remote (the other), a fake monotonic clock and a fake wall clock.
 */
#ifndef WGD_TESTS_DAEMON_CORETEST_H
#define WGD_TESTS_DAEMON_CORETEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/core/noise.h"
#include "tests/lib/testutil.h"

/* A check that names itself on failure. */
#define CHECK(cond) tu_check((cond), "%s:%d: %s", __FILE__, __LINE__, #cond)
/* Evaluates each side once (they often are calls with side effects). */
#define CHECK_EQ(got, want)                                                                        \
	do {                                                                                       \
		unsigned long long got_ = (unsigned long long)(got);                               \
		unsigned long long want_ = (unsigned long long)(want);                             \
		tu_check(got_ == want_, "%s:%d: %s == %s (got %llu, want %llu)", __FILE__, __LINE__, \
			 #got, #want, got_, want_);                                                \
	} while (0)

/* A test run that checked nothing has proved nothing: fail it. */
int ct_exit(const char *name);

struct ct_peer {
	struct noise_local local;
	struct noise_remote remote;	/* the other device, as seen from here */
	uint8_t private_key[NOISE_PUBLIC_KEY_LEN];
	uint8_t src[18];		/* a fake outer source address and port */
};

struct ct_pair {
	struct ct_peer a, b;
	uint64_t now;		/* monotonic ns, shared by both */
	uint64_t wall_ns;	/* unix ns for TAI64N timestamps */
};

/* Exits with a message if setup fails (no point in testing then). */
struct ct_pair *ct_pair_new(const uint8_t *psk);
void ct_pair_free(struct ct_pair *p);

/* The other peer of the pair. */
struct ct_peer *ct_other(struct ct_pair *p, struct ct_peer *x);

/* A TAI64N timestamp strictly newer than the previous one (wall clock + 1 s). */
void ct_timestamp(struct ct_pair *p, uint8_t ts[NOISE_TIMESTAMP_LEN]);

/*
 * The core's contract for a received handshake message, nothing of the
 * data path's (that is tested with real devices, tests/datapath): its macs
 * (cookie_checker_validate(), mac2 only when under_load), then consume.
 * Returns the noise result, or NOISE_DROP_BAD_TAG standing for "refused by
 * the macs" with *edge set to the cookie verdict (COOKIE_PROCEED when they
 * passed).
 */
enum noise_result ct_receive_initiation(struct ct_pair *p, struct ct_peer *to, const uint8_t *msg, size_t len,
					bool under_load, enum cookie_mac_result *edge,
					struct noise_remote **remote);
enum noise_result ct_receive_response(struct ct_pair *p, struct ct_peer *to, const uint8_t *msg, size_t len,
				      bool under_load, enum cookie_mac_result *edge,
				      struct noise_remote **remote);

/*
 * The local index table of x is consistent: every entry sits in the bucket
 * of its id, is marked live and appears once; the live entries are exactly
 * x's live handshake plus its keypair slots, each found by its id.
 */
void ct_check_indices(struct ct_peer *x);

/*
 * A complete handshake initiated by `init`, followed by a keepalive from the
 * initiator that confirms the session at the responder.  True if every step
 * gave the expected result.
 */
bool ct_handshake(struct ct_pair *p, struct ct_peer *init);

/*
 * Seal `len` bytes from `from` into buf (which must hold len + 32) and
 * return the message length, or 0 with *res set when sealing failed.
 */
size_t ct_seal(struct ct_pair *p, struct ct_peer *from, uint8_t *buf, const uint8_t *plain, size_t len,
	       enum noise_result *res);

#endif
