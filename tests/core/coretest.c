// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/x25519.h"
#include "tests/core/coretest.h"

static struct noise_remote *lookup(void *ctx, const uint8_t public_key[NOISE_PUBLIC_KEY_LEN])
{
	struct ct_peer *peer = ctx;

	return memcmp(peer->remote.public_key, public_key, NOISE_PUBLIC_KEY_LEN) ? NULL : &peer->remote;
}

int ct_exit(const char *name)
{
	if (!tu_checks)
		tu_check(false, "%s: no checks ran", name);
	return tu_exit_status(name);
}

static void die(const char *what)
{
	fprintf(stderr, "setup failed: %s\n", what);
	exit(99);
}

static void peer_identity(struct ct_peer *x, uint8_t tag)
{
	noise_local_init(&x->local, lookup, x);
	if (!x25519_generate_private(x->private_key) || !noise_local_set_private(&x->local, x->private_key))
		die("identity");
	memset(x->src, tag, sizeof(x->src));
}

struct ct_pair *ct_pair_new(const uint8_t *psk)
{
	struct ct_pair *p = calloc(1, sizeof(*p));

	if (!p || !x25519_init())
		die("alloc/x25519_init");
	peer_identity(&p->a, 0xaa);
	peer_identity(&p->b, 0xbb);
	noise_remote_init(&p->a.remote, &p->a.local, p->b.local.public_key);
	noise_remote_init(&p->b.remote, &p->b.local, p->a.local.public_key);
	noise_remote_set_preshared_key(&p->a.remote, psk);
	noise_remote_set_preshared_key(&p->b.remote, psk);
	p->now = WG_SECONDS(1000);
	p->wall_ns = WG_SECONDS(1700000000);
	return p;
}

void ct_pair_free(struct ct_pair *p)
{
	noise_remote_clear(&p->a.remote);
	noise_remote_clear(&p->b.remote);
	noise_local_clear(&p->a.local);
	noise_local_clear(&p->b.local);
	free(p);
}

struct ct_peer *ct_other(struct ct_pair *p, struct ct_peer *x)
{
	return x == &p->a ? &p->b : &p->a;
}

void ct_timestamp(struct ct_pair *p, uint8_t ts[NOISE_TIMESTAMP_LEN])
{
	p->wall_ns += WG_NSEC_PER_SEC;
	noise_tai64n(ts, p->wall_ns);
}

static bool macs_pass(struct ct_pair *p, struct ct_peer *to, const uint8_t *msg, size_t len, bool under_load,
		      enum cookie_mac_result *verdict)
{
	struct ct_peer *from = ct_other(p, to);

	*verdict = cookie_checker_validate(&to->local.cookie, msg, len, from->src, sizeof(from->src), under_load,
					   p->now);
	return *verdict == COOKIE_PROCEED || *verdict == COOKIE_PROCEED_RATELIMITED;
}

enum noise_result ct_receive_initiation(struct ct_pair *p, struct ct_peer *to, const uint8_t *msg, size_t len,
					bool under_load, enum cookie_mac_result *verdict,
					struct noise_remote **remote)
{
	*remote = NULL;
	*verdict = COOKIE_DROP_BAD_MAC1;
	if (len != MESSAGE_INITIATION_LEN || !macs_pass(p, to, msg, len, under_load, verdict))
		return NOISE_DROP_BAD_TAG;
	return noise_consume_initiation(&to->local, msg, p->now, remote);
}

enum noise_result ct_receive_response(struct ct_pair *p, struct ct_peer *to, const uint8_t *msg, size_t len,
				      bool under_load, enum cookie_mac_result *verdict,
				      struct noise_remote **remote)
{
	*remote = NULL;
	*verdict = COOKIE_DROP_BAD_MAC1;
	if (len != MESSAGE_RESPONSE_LEN || !macs_pass(p, to, msg, len, under_load, verdict))
		return NOISE_DROP_BAD_TAG;
	return noise_consume_response(&to->local, msg, p->now, remote);
}

void ct_check_indices(struct ct_peer *x)
{
	struct noise_keypair *slots[3] = { x->remote.previous, x->remote.current, x->remote.next };
	struct noise_index *e;
	size_t b, n = 0, want = 0, steps = 0;
	bool ok = true;
	int i;

	for (b = 0; b < x->local.nbuckets; b++) {
		for (e = x->local.buckets[b]; e && steps < 1000; e = e->next, steps++) {
			n++;
			if (!e->live || (e->id & (x->local.nbuckets - 1)) != b || e->remote != &x->remote)
				ok = false;
		}
	}
	tu_check(ok && steps < 1000, "index table: entries misplaced, dead or looping");
	if (x->remote.handshake.index.live) {
		want++;
		tu_check(x->remote.handshake.state == NOISE_HANDSHAKE_CREATED_INITIATION,
			 "index table: only an initiation in flight has a live handshake index");
	}
	for (i = 0; i < 3; i++) {
		if (!slots[i])
			continue;
		want++;
		tu_check(slots[i]->index.live && noise_remote_by_index(&x->local, slots[i]->index.id) == &x->remote,
			 "index table: keypair slot %d not registered", i);
		tu_check(slots[i] != slots[(i + 1) % 3], "index table: one keypair in two slots");
	}
	tu_check(n == want, "index table: %zu live entries, want %zu", n, want);
}

size_t ct_seal(struct ct_pair *p, struct ct_peer *from, uint8_t *buf, const uint8_t *plain, size_t len,
	       enum noise_result *res)
{
	if (len)
		memcpy(buf + MESSAGE_DATA_HEADER_LEN, plain, len);
	*res = noise_seal(&from->remote, buf, len, p->now);
	return *res == NOISE_OK ? len + MESSAGE_DATA_OVERHEAD : 0;
}

bool ct_handshake(struct ct_pair *p, struct ct_peer *init)
{
	struct ct_peer *resp = ct_other(p, init);
	uint8_t ts[NOISE_TIMESTAMP_LEN], m1[MESSAGE_INITIATION_LEN], m2[MESSAGE_RESPONSE_LEN];
	uint8_t data[MESSAGE_DATA_OVERHEAD];
	enum cookie_mac_result verdict;
	struct noise_remote *r;
	enum noise_result res;
	size_t n;

	ct_timestamp(p, ts);
	if (noise_create_initiation(&init->remote, m1, ts, p->now) != NOISE_OK)
		return false;
	if (ct_receive_initiation(p, resp, m1, sizeof(m1), false, &verdict, &r) != NOISE_OK || r != &resp->remote)
		return false;
	if (noise_create_response(&resp->remote, m2, p->now) != NOISE_OK)
		return false;
	if (ct_receive_response(p, init, m2, sizeof(m2), false, &verdict, &r) != NOISE_OK || r != &init->remote)
		return false;
	n = ct_seal(p, init, data, NULL, 0, &res);
	if (!n)
		return false;
	res = noise_open(&resp->local, data, n, p->now, &r);
	ct_check_indices(init);
	ct_check_indices(resp);
	return res == NOISE_OK_CONFIRMED && r == &resp->remote;
}
