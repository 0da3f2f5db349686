// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allowed IPs: a table of hand-picked cases, then thousands of random
 * inserts, removals and lookups of IPv4 and IPv6 prefixes compared with a
 * deliberately naive reference (a flat list scanned for the longest match),
 * including each owner's walk in insertion order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/allowedips.h"
#include "tests/core/coretest.h"

#define NPEERS 24

struct fake_peer {
	struct allowedips_owner owner;
	int id;
};

static struct fake_peer peers[NPEERS];

static void init_peers(void)
{
	int i;

	for (i = 0; i < NPEERS; i++) {
		peers[i].id = i;
		allowedips_owner_init(&peers[i].owner, &peers[i]);
	}
}

static const uint8_t *v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	static uint8_t buf[8][4];
	static unsigned int n;
	uint8_t *p = buf[n++ % 8];

	p[0] = a;
	p[1] = b;
	p[2] = c;
	p[3] = d;
	return p;
}

static const uint8_t *v6(uint16_t a, uint16_t b, uint16_t g, uint16_t h)
{
	static uint8_t buf[8][16];
	static unsigned int n;
	uint8_t *p = buf[n++ % 8];

	memset(p, 0, 16);
	p[0] = (uint8_t)(a >> 8);
	p[1] = (uint8_t)a;
	p[2] = (uint8_t)(b >> 8);
	p[3] = (uint8_t)b;
	p[12] = (uint8_t)(g >> 8);
	p[13] = (uint8_t)g;
	p[14] = (uint8_t)(h >> 8);
	p[15] = (uint8_t)h;
	return p;
}

#define P(i) (&peers[i])

static void test_table(void)
{
	struct allowedips t;

	init_peers();
	allowedips_init(&t);
	CHECK(allowedips_lookup(&t, 4, v4(10, 0, 0, 1)) == NULL);
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 0, 0, 0), 8, &P(1)->owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 1, 0, 0), 16, &P(2)->owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 1, 2, 3), 32, &P(3)->owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(0, 0, 0, 0), 0, &P(4)->owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(192, 168, 77, 99), 24, &P(5)->owner), 0);	/* host bits ignored */
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 128, 0, 0), 9, &P(6)->owner), 0);
	CHECK(allowedips_lookup(&t, 4, v4(10, 0, 0, 1)) == P(1));
	CHECK(allowedips_lookup(&t, 4, v4(10, 1, 9, 9)) == P(2));
	CHECK(allowedips_lookup(&t, 4, v4(10, 1, 2, 3)) == P(3));
	CHECK(allowedips_lookup(&t, 4, v4(10, 1, 2, 4)) == P(2));
	CHECK(allowedips_lookup(&t, 4, v4(11, 0, 0, 0)) == P(4));
	CHECK(allowedips_lookup(&t, 4, v4(192, 168, 77, 1)) == P(5));
	CHECK(allowedips_lookup(&t, 4, v4(192, 168, 78, 1)) == P(4));
	CHECK(allowedips_lookup(&t, 4, v4(10, 200, 0, 1)) == P(6));
	CHECK(allowedips_lookup(&t, 4, v4(10, 127, 255, 255)) == P(1));
	/* families are separate */
	CHECK(allowedips_lookup(&t, 6, v6(0x0a00, 0, 0, 1)) == NULL);
	CHECK_EQ(allowedips_insert(&t, 6, v6(0x2001, 0xdb8, 0, 0), 32, &P(7)->owner), 0);
	CHECK_EQ(allowedips_insert(&t, 6, v6(0x2001, 0xdb8, 0, 1), 128, &P(8)->owner), 0);
	CHECK_EQ(allowedips_insert(&t, 6, v6(0, 0, 0, 0), 0, &P(9)->owner), 0);
	CHECK(allowedips_lookup(&t, 6, v6(0x2001, 0xdb8, 0, 1)) == P(8));
	CHECK(allowedips_lookup(&t, 6, v6(0x2001, 0xdb8, 0, 2)) == P(7));
	CHECK(allowedips_lookup(&t, 6, v6(0x2001, 0xdb9, 0, 2)) == P(9));
	/* moving a prefix to another peer */
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 1, 0, 0), 16, &P(3)->owner), 0);
	CHECK(allowedips_lookup(&t, 4, v4(10, 1, 9, 9)) == P(3));
	CHECK_EQ(P(2)->owner.count, 0);
	CHECK_EQ(P(3)->owner.count, 2);
	/* removal needs the exact prefix and the owner */
	CHECK_EQ(allowedips_remove(&t, 4, v4(10, 1, 0, 0), 16, &P(2)->owner), -ENOENT);
	CHECK_EQ(allowedips_remove(&t, 4, v4(10, 1, 0, 0), 15, &P(3)->owner), -ENOENT);
	CHECK_EQ(allowedips_remove(&t, 4, v4(10, 1, 0, 0), 16, &P(3)->owner), 0);
	CHECK(allowedips_lookup(&t, 4, v4(10, 1, 9, 9)) == P(1));
	CHECK(allowedips_lookup(&t, 4, v4(10, 1, 2, 3)) == P(3));
	CHECK_EQ(allowedips_remove(&t, 4, v4(10, 1, 0, 0), 16, &P(3)->owner), -ENOENT);
	/* bad input */
	CHECK_EQ(allowedips_insert(&t, 4, v4(1, 2, 3, 4), 33, &P(1)->owner), -EINVAL);
	CHECK_EQ(allowedips_insert(&t, 6, v6(1, 2, 3, 4), 129, &P(1)->owner), -EINVAL);
	CHECK_EQ(allowedips_insert(&t, 5, v4(1, 2, 3, 4), 8, &P(1)->owner), -EINVAL);
	CHECK_EQ(allowedips_remove(&t, 0, v4(1, 2, 3, 4), 8, &P(1)->owner), -EINVAL);
	CHECK(allowedips_lookup(&t, 7, v4(10, 0, 0, 1)) == NULL);
	/* removing a whole peer */
	allowedips_remove_owner(&t, &P(4)->owner);
	CHECK(allowedips_lookup(&t, 4, v4(11, 0, 0, 0)) == NULL);
	CHECK(allowedips_lookup(&t, 4, v4(10, 0, 0, 1)) == P(1));
	allowedips_remove_owner(&t, &P(1)->owner);
	CHECK(allowedips_lookup(&t, 4, v4(10, 0, 0, 1)) == NULL);
	CHECK(allowedips_lookup(&t, 4, v4(10, 200, 0, 1)) == P(6));
	allowedips_clear(&t);
	CHECK(allowedips_lookup(&t, 6, v6(0x2001, 0xdb8, 0, 1)) == NULL);
	CHECK_EQ(P(8)->owner.count, 0);
	CHECK(P(8)->owner.first == NULL);
}

/* ---- the naive reference ---- */

struct entry {
	int version;
	uint8_t addr[16];	/* masked */
	uint8_t cidr;
	struct fake_peer *peer;
	unsigned long seq;	/* when it joined its current owner */
};

#define MAX_ENTRIES 20000

static struct entry entries[MAX_ENTRIES];
static size_t nentries;
static unsigned long seq;

static void mask(uint8_t *out, const uint8_t *in, int len, unsigned int cidr)
{
	int i;

	for (i = 0; i < len; i++) {
		unsigned int bits = cidr >= (unsigned int)(i + 1) * 8 ? 8 : cidr > (unsigned int)i * 8 ? cidr - i * 8 : 0;

		out[i] = in[i] & (uint8_t)(0xff00 >> bits);
	}
}

static int alen(int version)
{
	return version == 4 ? 4 : 16;
}

static struct entry *naive_find(int version, const uint8_t *addr, uint8_t cidr)
{
	uint8_t m[16] = { 0 };
	size_t i;

	mask(m, addr, alen(version), cidr);
	for (i = 0; i < nentries; i++)
		if (entries[i].version == version && entries[i].cidr == cidr &&
		    !memcmp(entries[i].addr, m, (size_t)alen(version)))
			return &entries[i];
	return NULL;
}

static void naive_insert(int version, const uint8_t *addr, uint8_t cidr, struct fake_peer *peer)
{
	struct entry *e = naive_find(version, addr, cidr);

	if (e) {
		/* to the end of its owner's list, even the same owner's (the kernel's list_move_tail()) */
		e->seq = ++seq;
		e->peer = peer;
		return;
	}
	e = &entries[nentries++];
	memset(e, 0, sizeof(*e));
	e->version = version;
	mask(e->addr, addr, alen(version), cidr);
	e->cidr = cidr;
	e->peer = peer;
	e->seq = ++seq;
}

static int naive_remove(int version, const uint8_t *addr, uint8_t cidr, struct fake_peer *peer)
{
	struct entry *e = naive_find(version, addr, cidr);

	if (!e || e->peer != peer)
		return -ENOENT;
	*e = entries[--nentries];
	return 0;
}

static void naive_remove_peer(struct fake_peer *peer)
{
	size_t i = 0;

	while (i < nentries) {
		if (entries[i].peer == peer)
			entries[i] = entries[--nentries];
		else
			i++;
	}
}

static struct fake_peer *naive_lookup(int version, const uint8_t *addr)
{
	struct entry *best = NULL;
	uint8_t m[16];
	size_t i;

	for (i = 0; i < nentries; i++) {
		if (entries[i].version != version || (best && entries[i].cidr <= best->cidr))
			continue;
		mask(m, addr, alen(version), entries[i].cidr);
		if (!memcmp(m, entries[i].addr, (size_t)alen(version)))
			best = &entries[i];
	}
	return best ? best->peer : NULL;
}

/* ---- random prefixes that nest and overlap ---- */

static void random_addr(struct tu_rng *rng, int version, uint8_t *addr)
{
	size_t i;

	tu_rng_fill(rng, addr, (size_t)alen(version));
	/* often derived from an existing prefix, so that prefixes nest */
	if (nentries && tu_rng_below(rng, 4)) {
		struct entry *e = &entries[tu_rng_below(rng, nentries)];

		if (e->version == version) {
			unsigned int keep = e->cidr;

			for (i = 0; i < (size_t)alen(version); i++) {
				unsigned int bits = keep >= (i + 1) * 8 ? 8 : keep > i * 8 ? keep - (unsigned int)i * 8 : 0;
				uint8_t m = (uint8_t)(0xff00 >> bits);

				addr[i] = (uint8_t)((e->addr[i] & m) | (addr[i] & ~m));
			}
		}
	}
	/* a small address space, so that lookups hit */
	if (version == 4)
		addr[0] = (uint8_t)(10 + (addr[0] & 1));
	else
		addr[0] = 0x20, addr[1] = (uint8_t)(addr[1] & 1);
}

static uint8_t random_cidr(struct tu_rng *rng, int version)
{
	unsigned int bits = version == 4 ? 32 : 128;
	uint64_t r = tu_rng_below(rng, 10);

	if (r == 0)
		return (uint8_t)bits;
	if (r == 1)
		return (uint8_t)tu_rng_below(rng, 9);
	return (uint8_t)(8 + tu_rng_below(rng, bits - 7));
}

struct walk_ctx {
	struct fake_peer *peer;
	unsigned long last_seq;
	size_t n;
	bool ok;
};

static int walk_check(void *ctx, int version, const uint8_t *addr, uint8_t cidr)
{
	struct walk_ctx *w = ctx;
	struct entry *e = naive_find(version, addr, cidr);

	w->n++;
	if (!e || e->peer != w->peer || e->seq <= w->last_seq || memcmp(e->addr, addr, (size_t)alen(version)))
		w->ok = false;
	if (e)
		w->last_seq = e->seq;
	return 0;
}

static int walk_stop(void *ctx, int version, const uint8_t *addr, uint8_t cidr)
{
	(void)version;
	(void)addr;
	(void)cidr;
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void check_walks(void)
{
	size_t i, j, want;
	struct walk_ctx w;

	for (i = 0; i < NPEERS; i++) {
		want = 0;
		for (j = 0; j < nentries; j++)
			want += entries[j].peer == &peers[i];
		w = (struct walk_ctx){ .peer = &peers[i], .ok = true };
		CHECK_EQ(allowedips_walk_owner(&peers[i].owner, walk_check, &w), 0);
		tu_check(w.ok && w.n == want && peers[i].owner.count == want, "walk of peer %zu: %zu of %zu%s", i,
			 w.n, want, w.ok ? "" : ", wrong entries or order");
	}
}

static void test_random(uint64_t seed)
{
	struct allowedips t;
	struct tu_rng rng;
	uint8_t addr[16];
	unsigned long op, mismatches = 0, lookups = 0, hits = 0, max_entries = 0;
	int version, stop = 0;
	uint8_t cidr;
	struct fake_peer *peer;
	struct entry *e;

	init_peers();
	allowedips_init(&t);
	nentries = 0;
	seq = 0;
	tu_rng_seed(&rng, seed);
	for (op = 0; op < 8000; op++) {
		uint64_t kind = tu_rng_below(&rng, 100);

		version = tu_rng_below(&rng, 2) ? 4 : 6;
		peer = &peers[tu_rng_below(&rng, NPEERS)];
		if (kind < 55 && nentries < MAX_ENTRIES) {
			random_addr(&rng, version, addr);
			cidr = random_cidr(&rng, version);
			if (allowedips_insert(&t, version, addr, cidr, &peer->owner) != 0)
				mismatches++;
			naive_insert(version, addr, cidr, peer);
		} else if (kind < 85 && nentries) {
			/* remove an existing prefix, sometimes naming the wrong owner */
			e = &entries[tu_rng_below(&rng, nentries)];
			version = e->version;
			cidr = e->cidr;
			memcpy(addr, e->addr, 16);
			if (tu_rng_below(&rng, 5))
				peer = e->peer;
			if (allowedips_remove(&t, version, addr, cidr, &peer->owner) !=
			    naive_remove(version, addr, cidr, peer))
				mismatches++;
		} else if (kind < 86) {
			allowedips_remove_owner(&t, &peer->owner);
			naive_remove_peer(peer);
		} else {
			random_addr(&rng, version, addr);
			cidr = random_cidr(&rng, version);
			if (allowedips_remove(&t, version, addr, cidr, &peer->owner) !=
			    naive_remove(version, addr, cidr, peer))
				mismatches++;
		}
		/* lookups after every operation */
		for (int k = 0; k < 6; k++) {
			struct fake_peer *want;

			version = tu_rng_below(&rng, 2) ? 4 : 6;
			random_addr(&rng, version, addr);
			lookups++;
			want = naive_lookup(version, addr);
			hits += want != NULL;
			if (allowedips_lookup(&t, version, addr) != want)
				mismatches++;
		}
		if (nentries > max_entries)
			max_entries = nentries;
		if (op % 2000 == 1999)
			check_walks();
	}
	tu_check(mismatches == 0, "allowedips vs naive: %lu mismatches in %lu lookups (seed %llu)", mismatches,
		 lookups, (unsigned long long)seed);
	/* the random data must have exercised something */
	tu_check(max_entries > 500 && hits > lookups / 3 && hits < lookups,
		 "random prefixes: %lu entries at most, %lu of %lu lookups matched", max_entries, hits, lookups);
	check_walks();
	CHECK_EQ(allowedips_walk_owner(&peers[0].owner, walk_stop, &stop), peers[0].owner.count >= 2 ? 42 : 0);
	allowedips_clear(&t);
	for (int i = 0; i < NPEERS; i++)
		CHECK(peers[i].owner.count == 0 && peers[i].owner.first == NULL);
}

/* The prefixes a walk of peer p gives, as "a.b.c.d/n " each, into out. */
static int walk_print(void *ctx, int version, const uint8_t *addr, uint8_t cidr)
{
	char *out = ctx;
	size_t len = strlen(out);

	(void)version;
	snprintf(out + len, 128 - len, "%u.%u.%u.%u/%u ", addr[0], addr[1], addr[2], addr[3], cidr);
	return 0;
}

/* Re-adding a prefix the peer has moves it to the end of its list (wg show's order). */
static void test_readd_moves_to_end(void)
{
	struct allowedips t;
	char out[128] = "";

	init_peers();
	allowedips_init(&t);
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 0, 0, 0), 8, &peers[0].owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 1, 0, 0), 16, &peers[0].owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(192, 0, 2, 0), 24, &peers[0].owner), 0);
	CHECK_EQ(allowedips_insert(&t, 4, v4(10, 0, 0, 0), 8, &peers[0].owner), 0);
	CHECK_EQ(allowedips_walk_owner(&peers[0].owner, walk_print, out), 0);
	tu_check(!strcmp(out, "10.1.0.0/16 192.0.2.0/24 10.0.0.0/8 "), "walk after re-adding 10.0.0.0/8: %s", out);
	CHECK_EQ(peers[0].owner.count, 3);
	CHECK(allowedips_lookup(&t, 4, v4(10, 9, 9, 9)) == &peers[0]);
	allowedips_clear(&t);
}

int main(void)
{
	test_table();
	test_readd_moves_to_end();
	test_random(tu_seed("core-allowedips", 0xa11011ed));
	return ct_exit("core-allowedips");
}
