// SPDX-License-Identifier: GPL-2.0-only
/*
 * The handshake rate limiter: burst of 5 then 20 per second per source,
 * IPv6 sources keyed by /64, refills capped at the burst, a clock that goes
 * backwards, bad input, and a flood of distinct sources that must neither
 * grow the table, nor gain fresh bursts by cycling, nor starve a
 * well-behaved source; and a table on fresh pages that init and clear
 * leave unbacked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/core/messages.h"
#include "daemon/core/ratelimiter.h"
#include "tests/core/coretest.h"

#define MS(x) ((uint64_t)(x) * WG_NSEC_PER_MSEC)
#define T0 WG_SECONDS(5000)

static unsigned int burst(struct ratelimiter *rl, int version, const uint8_t *addr, uint64_t now, unsigned int n)
{
	unsigned int ok = 0;

	while (n--)
		ok += ratelimiter_allow(rl, version, addr, now);
	return ok;
}

static void test_bucket(struct ratelimiter *rl)
{
	static const uint8_t a4[4] = { 192, 0, 2, 1 }, b4[4] = { 192, 0, 2, 2 };
	uint64_t now;
	unsigned int ok = 0, i;

	CHECK(ratelimiter_init(rl));
	CHECK_EQ(burst(rl, 4, a4, T0, 10), RATELIMITER_BURST);
	/* another source is independent */
	CHECK_EQ(burst(rl, 4, b4, T0, 10), RATELIMITER_BURST);
	/* one token per 50 ms */
	CHECK_EQ(burst(rl, 4, a4, T0 + MS(49), 1), 0);
	CHECK_EQ(burst(rl, 4, a4, T0 + MS(50), 2), 1);
	CHECK_EQ(burst(rl, 4, a4, T0 + MS(100), 2), 1);
	/* steady state: 20 per second whatever the attempt rate */
	for (now = T0 + MS(101), i = 0; i < 10000; i++, now += MS(1))
		ok += ratelimiter_allow(rl, 4, a4, now);
	tu_check(ok >= 199 && ok <= 201, "10 s at 1000/s: %u allowed", ok);
	/* a long pause refills only up to the burst */
	CHECK_EQ(burst(rl, 4, a4, now + WG_SECONDS(3600), 20), RATELIMITER_BURST);
	/* a clock going backwards adds nothing and breaks nothing */
	CHECK_EQ(burst(rl, 4, a4, T0, 3), 0);
	CHECK_EQ(burst(rl, 4, a4, now + WG_SECONDS(3600) + MS(50), 2), 1);
	ratelimiter_clear(rl);
}

static void test_ipv6_prefix(struct ratelimiter *rl)
{
	uint8_t a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1 }, b[16];
	unsigned int i;

	CHECK(ratelimiter_init(rl));
	/* every address of one /64 shares one bucket */
	for (i = 0; i < 5; i++) {
		a[15] = (uint8_t)i;
		a[9] = (uint8_t)(i * 7);
		CHECK_EQ(burst(rl, 6, a, T0, 1), 1);
	}
	a[15] = 99;
	CHECK_EQ(burst(rl, 6, a, T0, 1), 0);
	/* the neighbouring /64 is someone else */
	memcpy(b, a, 16);
	b[7] = 2;
	CHECK_EQ(burst(rl, 6, b, T0, 10), RATELIMITER_BURST);
	/* an IPv4 address equal to the first bytes is not the same source */
	CHECK_EQ(burst(rl, 4, a, T0, 10), RATELIMITER_BURST);
	memset(b, 0, 16);
	b[0] = 10;
	CHECK_EQ(burst(rl, 6, b, T0, 10), RATELIMITER_BURST);	/* 0a00:0000:0000:0000::/64 */
	CHECK_EQ(burst(rl, 4, b, T0, 10), RATELIMITER_BURST);	/* 10.0.0.0 */
	/* bad input is refused */
	CHECK(!ratelimiter_allow(rl, 5, a, T0));
	CHECK(!ratelimiter_allow(rl, 4, NULL, T0));
	ratelimiter_clear(rl);
	CHECK(crypto_is_zero(rl, sizeof(*rl)));
}

/*
 * A flood of 200,000 distinct sources within half a second (one per
 * 2.5 us) next to one honest source sending 20 per second: the table stays
 * fixed, no more new sources are admitted than it holds (a full bucket
 * refuses rather than evicts, so cycling sources buys no fresh bursts), the
 * honest source keeps its whole rate, a newcomer is refused while the
 * table is full, and once the flooders have been idle for
 * RATELIMITER_IDLE_TIME new sources are admitted again.
 */
static void test_flood(struct ratelimiter *rl)
{
	static const uint8_t honest[4] = { 198, 51, 100, 7 }, late[4] = { 203, 0, 113, 9 };
	uint8_t addr[4];
	uint64_t now = T0;
	unsigned long i, flood_ok = 0, honest_ok = 0, honest_sent = 0;

	CHECK(ratelimiter_init(rl));
	for (i = 0; i < 200000; i++) {
		now += 2500;
		le32_store(addr, (uint32_t)i ^ 0x0a000000u);
		flood_ok += ratelimiter_allow(rl, 4, addr, now);
		if (i % 20000 == 0) {
			honest_sent++;
			honest_ok += ratelimiter_allow(rl, 4, honest, now);
		}
	}
	tu_check(flood_ok > RATELIMITER_BUCKETS && flood_ok < RATELIMITER_BUCKETS * RATELIMITER_WAYS,
		 "flood of 200000 sources in 0.5 s: %lu admitted (table of %d)", flood_ok,
		 RATELIMITER_BUCKETS * RATELIMITER_WAYS);
	CHECK_EQ(honest_ok, honest_sent);
	/* every bucket is full of live entries: a newcomer waits */
	CHECK_EQ(burst(rl, 4, late, now, 10), 0);
	/* after a quiet second the table takes new sources again */
	CHECK_EQ(burst(rl, 4, late, now + WG_SECONDS(RATELIMITER_IDLE_TIME), 10), RATELIMITER_BURST);
	ratelimiter_clear(rl);
}

/* This process's resident pages (/proc/self/statm), -1 if unknown. */
static long resident_pages(void)
{
	char buf[128];
	long size, res;
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "%ld %ld", &size, &res) == 2 ? res : -1;
}

/*
 * The daemon's table (128 KiB, calloc()) is only used under a flood of
 * handshakes: init and clear must leave it on the zero pages it came on,
 * writing only the entries in use and the key, or those 128 KiB count in
 * the daemon's resident memory from its start (doc/performance.md, the
 * MIPS guest's peak RSS).  Fresh anonymous pages stand for calloc()'s;
 * fewer than half of them may become resident (under qemu-user the
 * emulator's own pages count too).  A table full of garbage is emptied
 * all the same.
 */
static void test_untouched(void)
{
	static const uint8_t a4[4] = { 192, 0, 2, 1 };
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (sizeof(struct ratelimiter) + page - 1) / page * page;
	struct ratelimiter *rl = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long before, after;

	if (rl == MAP_FAILED) {
		tu_check(0, "mmap of %zu bytes failed", len);
		return;
	}
	resident_pages();	/* sscanf()'s first call sets up what it needs */
	before = resident_pages();
	CHECK(ratelimiter_init(rl));
	CHECK_EQ(burst(rl, 4, a4, T0, 10), RATELIMITER_BURST);
	ratelimiter_clear(rl);
	after = resident_pages();
	tu_check(before >= 0 && after >= 0 && (size_t)(after - before) < len / page / 2,
		 "init, one source and clear on a fresh table: %ld of its %zu pages became resident",
		 after - before, len / page);
	memset(rl, 0xa5, sizeof(*rl));
	CHECK(ratelimiter_init(rl));
	CHECK(crypto_is_zero(rl->entries, sizeof(rl->entries)));
	CHECK_EQ(burst(rl, 4, a4, T0, 10), RATELIMITER_BURST);
	ratelimiter_clear(rl);
	CHECK(crypto_is_zero(rl, sizeof(*rl)));
	munmap(rl, len);
}

int main(void)
{
	struct ratelimiter *rl = malloc(sizeof(*rl));

	if (!rl)
		return 99;
	test_bucket(rl);
	test_ipv6_prefix(rl);
	test_flood(rl);
	free(rl);
	test_untouched();
	return ct_exit("core-ratelimiter");
}
