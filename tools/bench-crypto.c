// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench-crypto: speed of the crypto library, printed in the layout of the
 * Linux kernel's crypto speed test (crypto/tcrypt.c):
 *
 *   testing speed of <algorithm> (<implementation>) <direction>
 *   test N (K bit key, B byte blocks): 1 operation in C cycles (B bytes) ...
 *
 * followed, on each line, by cycles per byte and MB/s (10^6 bytes per
 * second).  Cycles come from the time-stamp counter on x86 (rdtsc: reference
 * cycles at the TSC's constant rate, not core clocks) and are "n/a"
 * elsewhere; MB/s comes from CLOCK_MONOTONIC everywhere.  Each figure is the
 * median of REPS timed batches, each batch long enough (>= 0.25 ms) for the
 * clocks to resolve it, so one preempted batch does not move the result.
 *
 * The AEAD is also timed through libsodium's
 * crypto_aead_chacha20poly1305_ietf_encrypt in the same run, and the ratio
 * ours/libsodium is printed per size.
 *
 * ChaCha20 and the AEAD are timed with the generic C core first (the bar of
 * the crypto foundation issue is set on it), then, where crypto/arch has a
 * core chosen at run time (x86-64: AVX2), with the core chacha20_xor()
 * dispatches to, and the ratio to libsodium is printed for both.
 *
 * Last, where it was built with OpenSSL 3's libcrypto, wgd's seal and open
 * (chacha20poly1305_encrypt/_decrypt, the daemon's entry points) against
 * OpenSSL's EVP chacha20-poly1305, one EVP call sequence per packet, at 64,
 * 512, 1420 and 8192 bytes (or the -s sizes): first a check that both
 * produce the same packets, then interleaved timing and the ratio.
 *
 * Usage: bench-crypto [-c] [-r REPS] [-s SIZE]...   (default 31 reps, all
 * sizes; -c: only the comparison with OpenSSL)
 */
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crypto/arch/glue.h"
#include "crypto/blake2s.h"
#include "crypto/chacha20.h"
#include "crypto/chacha20poly1305.h"
#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"

#if defined(BENCH_HAVE_OPENSSL)
#include <openssl/evp.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BENCH_HAVE_CYCLES 1
static uint64_t bench_cycles(void)
{
	return __rdtsc();
}
#else
#define BENCH_HAVE_CYCLES 0
static uint64_t bench_cycles(void)
{
	return 0;
}
#endif

#ifndef BENCH_BUILD
#define BENCH_BUILD "unknown"
#endif

#define MAX_SIZE 65536
#define MAX_REPS 101
#define MIN_BATCH_NS 250000.0

static const size_t bench_sizes[] = { 0, 1, 16, 64, 128, 576, 1280, 1408, 1420, 1440, 1536, 4096 };
#define N_SIZES (sizeof(bench_sizes) / sizeof(bench_sizes[0]))
/* the sizes of the comparison with OpenSSL when no -s is given */
static const size_t openssl_sizes[] = { 64, 512, 1420, 8192 };

static uint8_t key[32], nonce[12], ad[16];
static uint8_t src[MAX_SIZE + 64], dst[MAX_SIZE + 64], sealed[N_SIZES][MAX_SIZE + 16];
static volatile uint8_t sink;

struct result {
	double cycles;	/* per operation; < 0 when there is no cycle counter */
	double ns;	/* per operation */
};

typedef void (*bench_fn)(size_t len, size_t size_index);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Doubles the batch until it lasts MIN_BATCH_NS; also warms caches and clocks. */
static unsigned long calibrate(bench_fn fn, size_t len, size_t idx)
{
	unsigned long iters = 1, i;

	for (;;) {
		double t0 = now_ns();

		for (i = 0; i < iters; i++)
			fn(len, idx);
		if (now_ns() - t0 >= MIN_BATCH_NS || iters >= (1ul << 24))
			return iters;
		iters *= 2;
	}
}

static struct result measure(bench_fn fn, size_t len, size_t idx, int reps)
{
	double cyc[MAX_REPS], ns[MAX_REPS];
	unsigned long iters = calibrate(fn, len, idx), i;
	struct result r;
	int k;

	for (k = 0; k < reps; k++) {
		double t0 = now_ns();
		uint64_t c0 = bench_cycles();

		for (i = 0; i < iters; i++)
			fn(len, idx);
		cyc[k] = (double)(bench_cycles() - c0) / (double)iters;
		ns[k] = (now_ns() - t0) / (double)iters;
	}
	r.cycles = BENCH_HAVE_CYCLES ? median(cyc, reps) : -1;
	r.ns = median(ns, reps);
	return r;
}

/*
 * The ratio of two operations on the same length: batches of a and b
 * alternate, so both see the same load on a shared machine, and the
 * result is the median of the per-pair ratios time(b) / time(a).
 */
static double measure_ratio(bench_fn a, bench_fn b, size_t len, size_t idx, int reps)
{
	unsigned long ia = calibrate(a, len, idx), ib = calibrate(b, len, idx), i;
	double ratio[MAX_REPS];
	int k;

	for (k = 0; k < reps; k++) {
		double t0 = now_ns(), ta, tb;

		for (i = 0; i < ia; i++)
			a(len, idx);
		ta = (now_ns() - t0) / (double)ia;
		t0 = now_ns();
		for (i = 0; i < ib; i++)
			b(len, idx);
		tb = (now_ns() - t0) / (double)ib;
		ratio[k] = tb / ta;
	}
	return median(ratio, reps);
}

/*
 * Which ChaCha20 and Poly1305 cores chacha20_xor() and poly1305_update()
 * (and so the AEAD) use from now on, and their name.  Without a run-time
 * choice in crypto/arch there is one core each.
 */
enum bench_core { CORE_NONE = -1, CORE_GENERIC, CORE_DISPATCHED };

static const char *select_core(enum bench_core c)
{
#if defined(WGD_ASM_X86_64)
	static const char *const names[] = { "", "generic C", "AVX2", "AVX-512" };

	if (c == CORE_NONE)
		return "";
	return names[crypto_x86_set_level(c == CORE_DISPATCHED ? CRYPTO_X86_AVX512 : CRYPTO_X86_GENERIC)];
#else
	return c == CORE_NONE ? "" : "generic C";
#endif
}

/* ---- the operations, one packet each ---- */

static void op_chacha20(size_t len, size_t idx)
{
	struct chacha20_ctx ctx;

	(void)idx;
	chacha20_init(&ctx, key, nonce, 1);
	chacha20_xor(&ctx, dst, src, len);
	chacha20_clear(&ctx);
	sink ^= dst[0];
}

static void op_poly1305(size_t len, size_t idx)
{
	uint8_t mac[16];

	(void)idx;
	poly1305(mac, src, len, key);
	sink ^= mac[0];
}

/* A core driven directly, with RFC 8439 §2.5 padding of the last block. */
static void poly1305_with_core(size_t len, void (*init)(void *, const uint8_t *),
			       void (*blocks)(void *, const uint8_t *, size_t, uint32_t),
			       void (*emit)(void *, uint8_t *, const uint8_t *))
{
	struct poly1305_ctx ctx;
	size_t full = len & ~(size_t)15;
	uint8_t mac[16];

	init(&ctx.core, key);
	if (full > 0)
		blocks(&ctx.core, src, full, 1);
	if (len > full) {
		uint8_t last[16] = { 0 };

		memcpy(last, src + full, len - full);
		last[len - full] = 1;
		blocks(&ctx.core, last, 16, 0);
	}
	emit(&ctx.core, mac, key + 16);
	sink ^= mac[0];
}

static void op_poly1305_32(size_t len, size_t idx)
{
	(void)idx;
	poly1305_with_core(len, poly1305_32_init, poly1305_32_blocks, poly1305_32_emit);
}

#ifdef POLY1305_HAVE_64
static void op_poly1305_64(size_t len, size_t idx)
{
	(void)idx;
	poly1305_with_core(len, poly1305_64_init, poly1305_64_blocks, poly1305_64_emit);
}
#endif

#if defined(WGD_ASM_X86_64)
/* the AVX2 core on every length (the dispatcher uses it from 256 bytes) */
static void op_poly1305_avx2(size_t len, size_t idx)
{
	(void)idx;
	poly1305_with_core(len, poly1305_avx2_init, poly1305_avx2_blocks, poly1305_avx2_emit);
}

/* the AVX-512 core on every length, on the AVX2 core's state */
static void op_poly1305_avx512(size_t len, size_t idx)
{
	(void)idx;
	poly1305_with_core(len, poly1305_avx2_init, poly1305_avx512_blocks, poly1305_avx2_emit);
}
#endif

static void op_aead_encrypt(size_t len, size_t idx)
{
	(void)idx;
	chacha20poly1305_encrypt(dst, src, len, ad, sizeof(ad), 7, key);
	sink ^= dst[len];
}

static void op_aead_decrypt(size_t len, size_t idx)
{
	if (!chacha20poly1305_decrypt(dst, sealed[idx], len + 16, ad, sizeof(ad), 7, key)) {
		fprintf(stderr, "bench-crypto: decrypt refused its own ciphertext\n");
		exit(1);
	}
	sink ^= dst[0];
}

static void op_sodium_encrypt(size_t len, size_t idx)
{
	unsigned long long clen;

	(void)idx;
	crypto_aead_chacha20poly1305_ietf_encrypt(dst, &clen, src, len, ad, sizeof(ad), NULL, nonce,
						  key);
	sink ^= dst[len];
}

static void op_blake2s(size_t len, size_t idx)
{
	uint8_t out[32];

	(void)idx;
	blake2s(out, sizeof(out), src, len, NULL, 0);
	sink ^= out[0];
}

#if defined(BENCH_HAVE_OPENSSL)
/*
 * OpenSSL 3's EVP ChaCha20-Poly1305, called the way a program seals or opens
 * one packet: one context made once and reused, and per packet
 * EVP_CipherInit_ex with key and IV, the AD and the data through
 * EVP_{En,De}cryptUpdate, Final, and the tag through EVP_CIPHER_CTX_ctrl.
 * The IV is WireGuard's nonce for counter BENCH_COUNTER (whitepaper §5.4),
 * so that both sides compute the same packet.
 */
#define BENCH_COUNTER 7

static EVP_CIPHER_CTX *ossl_ctx;
static uint8_t ossl_iv[12];

__attribute__((noreturn)) static void ossl_fail(const char *what)
{
	fprintf(stderr, "bench-crypto: OpenSSL %s failed\n", what);
	exit(1);
}

static void ossl_seal(uint8_t *out, const uint8_t *in, size_t len)
{
	int n = 0, m = 0;

	if (EVP_CipherInit_ex(ossl_ctx, NULL, NULL, key, ossl_iv, 1) != 1 ||
	    EVP_EncryptUpdate(ossl_ctx, NULL, &n, ad, (int)sizeof(ad)) != 1 ||
	    EVP_EncryptUpdate(ossl_ctx, out, &n, in, (int)len) != 1 ||
	    EVP_EncryptFinal_ex(ossl_ctx, out + n, &m) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ossl_ctx, EVP_CTRL_AEAD_GET_TAG, 16, out + len) != 1)
		ossl_fail("seal");
}

/* in: len bytes of ciphertext and the tag; true if the tag is good */
static int ossl_open(uint8_t *out, const uint8_t *in, size_t len)
{
	int n = 0, m = 0;

	if (EVP_CipherInit_ex(ossl_ctx, NULL, NULL, key, ossl_iv, 0) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ossl_ctx, EVP_CTRL_AEAD_SET_TAG, 16, (void *)(in + len)) != 1 ||
	    EVP_DecryptUpdate(ossl_ctx, NULL, &n, ad, (int)sizeof(ad)) != 1 ||
	    EVP_DecryptUpdate(ossl_ctx, out, &n, in, (int)len) != 1)
		ossl_fail("open");
	return EVP_DecryptFinal_ex(ossl_ctx, out + n, &m) == 1;
}

static void op_ossl_seal(size_t len, size_t idx)
{
	(void)idx;
	ossl_seal(dst, src, len);
	sink ^= dst[len];
}

static void op_ossl_open(size_t len, size_t idx)
{
	if (!ossl_open(dst, sealed[idx], len)) {
		fprintf(stderr, "bench-crypto: OpenSSL refused wgd's ciphertext\n");
		exit(1);
	}
	sink ^= dst[0];
}

/*
 * The check behind the timing: for each size, wgd's sealed packet equals
 * OpenSSL's byte for byte, each side opens the other's, and each refuses the
 * other's packet with one bit of the tag flipped.
 */
static int ossl_agree(const size_t *sizes, size_t n)
{
	static uint8_t a[MAX_SIZE + 16], b[MAX_SIZE + 16], p[MAX_SIZE + 16];
	size_t i;

	for (i = 0; i < n; i++) {
		size_t len = sizes[i];
		int ok = 1;

		chacha20poly1305_encrypt(a, src, len, ad, sizeof(ad), BENCH_COUNTER, key);
		ossl_seal(b, src, len);
		ok &= memcmp(a, b, len + 16) == 0;
		ok &= memcmp(a, sealed[i], len + 16) == 0;
		memset(p, 0, len);
		ok &= ossl_open(p, a, len) && memcmp(p, src, len) == 0;
		memset(p, 0, len);
		ok &= chacha20poly1305_decrypt(p, b, len + 16, ad, sizeof(ad), BENCH_COUNTER, key) &&
		      memcmp(p, src, len) == 0;
		a[len + 3] ^= 0x20;
		b[len + 3] ^= 0x20;
		ok &= !ossl_open(p, a, len);
		ok &= !chacha20poly1305_decrypt(p, b, len + 16, ad, sizeof(ad), BENCH_COUNTER, key);
		printf("check %5zu bytes: wgd and OpenSSL packets %s\n", len,
		       ok ? "identical, each opens the other's, both refuse a flipped tag bit"
			  : "DIFFER");
		if (!ok)
			return 0;
	}
	return 1;
}

/*
 * Seal and open against OpenSSL: batches of wgd and OpenSSL alternate, REPS
 * pairs per size; each figure is the median over the pairs, and the ratio
 * (throughput wgd / OpenSSL = time OpenSSL / time wgd) the median of the
 * per-pair ratios.
 */
static void ossl_compare_one(const char *dir, bench_fn ours, bench_fn theirs, size_t n_test,
			     size_t len, size_t idx, int reps)
{
	unsigned long ia = calibrate(ours, len, idx), ib = calibrate(theirs, len, idx), i;
	double ns_a[MAX_REPS], ns_b[MAX_REPS], cy_a[MAX_REPS], cy_b[MAX_REPS], ratio[MAX_REPS];
	double na, nb, ca, cb;
	int k;

	for (k = 0; k < reps; k++) {
		double t0 = now_ns();
		uint64_t c0 = bench_cycles();

		for (i = 0; i < ia; i++)
			ours(len, idx);
		cy_a[k] = (double)(bench_cycles() - c0) / (double)ia;
		ns_a[k] = (now_ns() - t0) / (double)ia;
		t0 = now_ns();
		c0 = bench_cycles();
		for (i = 0; i < ib; i++)
			theirs(len, idx);
		cy_b[k] = (double)(bench_cycles() - c0) / (double)ib;
		ns_b[k] = (now_ns() - t0) / (double)ib;
		ratio[k] = ns_b[k] / ns_a[k];
	}
	na = median(ns_a, reps);
	nb = median(ns_b, reps);
	ca = median(cy_a, reps);
	cb = median(cy_b, reps);
	printf("test %2zu (%5zu byte packets) %s: wgd %8.1f ns", n_test, len, dir, na);
	if (BENCH_HAVE_CYCLES)
		printf(" %5.2f c/B", ca / (double)len);
	printf(" %7.1f MB/s | OpenSSL %8.1f ns", (double)len / na * 1e3, nb);
	if (BENCH_HAVE_CYCLES)
		printf(" %5.2f c/B", cb / (double)len);
	printf(" %7.1f MB/s | ratio wgd/OpenSSL %.2f\n", (double)len / nb * 1e3,
	       median(ratio, reps));
	fflush(stdout);
}

static int ossl_compare(const size_t *sizes, size_t n, int reps)
{
	const EVP_CIPHER *cipher = EVP_chacha20_poly1305();
	const char *core = select_core(CORE_DISPATCHED);
	size_t i;

	ossl_ctx = EVP_CIPHER_CTX_new();
	if (ossl_ctx == NULL || cipher == NULL ||
	    EVP_CipherInit_ex(ossl_ctx, cipher, NULL, NULL, NULL, 1) != 1 ||
	    EVP_CIPHER_CTX_ctrl(ossl_ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, NULL) != 1)
		ossl_fail("context setup");
	memset(ossl_iv, 0, 4);
	for (i = 0; i < 8; i++)
		ossl_iv[4 + i] = (uint8_t)((uint64_t)BENCH_COUNTER >> (8 * i));

	printf("\nwgd (chacha20poly1305_encrypt/_decrypt%s%s) against %s EVP chacha20-poly1305, "
	       "one call sequence per packet, %zu-byte AD, out of place\n",
	       core[0] ? ", " : "", core, OpenSSL_version(OPENSSL_VERSION), sizeof(ad));
	if (!ossl_agree(sizes, n)) {
		EVP_CIPHER_CTX_free(ossl_ctx);
		return 0;
	}
	printf("median of %d interleaved pairs of batches; ratio = throughput wgd / OpenSSL "
	       "(> 1.00: wgd is faster)\n", reps);
	for (i = 0; i < n; i++) {
		ossl_compare_one("seal", op_aead_encrypt, op_ossl_seal, i, sizes[i], i, reps);
		ossl_compare_one("open", op_aead_decrypt, op_ossl_open, i, sizes[i], i, reps);
	}
	EVP_CIPHER_CTX_free(ossl_ctx);
	return 1;
}
#endif

/* ---- output ---- */

struct series {
	const char *algorithm;
	const char *driver;
	const char *direction;
	int key_bits;	/* 0: no key */
	bench_fn fn;
	enum bench_core core;	/* the ChaCha20 core to time it with, if any */
	struct result res[N_SIZES];
};

static void print_line(unsigned int n, int key_bits, size_t len, const struct result *r)
{
	double mbs = r->ns > 0 ? (double)len / r->ns * 1e3 : 0;

	if (key_bits)
		printf("test %2u (%d bit key, %4zu byte blocks): ", n, key_bits, len);
	else
		printf("test %2u (%4zu byte blocks): ", n, len);
	if (r->cycles >= 0)
		printf("1 operation in %lu cycles (%zu bytes)", (unsigned long)(r->cycles + 0.5), len);
	else
		printf("1 operation in n/a cycles (%zu bytes)", len);
	if (r->cycles >= 0 && len > 0)
		printf(", %6.2f cycles/byte", r->cycles / (double)len);
	else
		printf(",    n/a cycles/byte");
	printf(", %8.1f ns, %8.1f MB/s\n", r->ns, mbs);
}

static void run_series(struct series *s, const size_t *sizes, const size_t *idx, size_t n,
		       int reps)
{
	const char *core = select_core(s->core);
	size_t i;

	printf("\ntesting speed of %s (%s%s%s)%s%s\n", s->algorithm, s->driver,
	       core[0] ? ", " : "", core, s->direction[0] ? " " : "", s->direction);
	for (i = 0; i < n; i++) {
		s->res[i] = measure(s->fn, sizes[i], idx[i], reps);
		print_line((unsigned int)i, s->key_bits, sizes[i], &s->res[i]);
		fflush(stdout);
	}
}

/*
 * Throughput ratio ours/libsodium = time(libsodium) / time(ours), from the
 * tables above and from alternating batches (less sensitive to other load
 * on the machine), with our AEAD on the given ChaCha20 core.
 */
static void print_ratios(const struct series *ours, enum bench_core core,
			 const struct series *theirs, const size_t *sizes, const size_t *idx,
			 size_t n, int reps)
{
	const char *name = select_core(core);
	size_t i;

	printf("\nratio ours/libsodium, chacha20poly1305 encryption, ours with %s ChaCha20 "
	       "(throughput; > 1.00: ours is faster)\n", name);
	for (i = 0; i < n; i++) {
		double r = ours->res[i].ns > 0 ? theirs->res[i].ns / ours->res[i].ns : 0;
		double paired = measure_ratio(op_aead_encrypt, op_sodium_encrypt, sizes[i], idx[i],
					      reps);

		printf("test %2zu (256 bit key, %4zu byte blocks): ours %8.1f ns, libsodium %8.1f ns, "
		       "ratio %.2f, paired-batch ratio %.2f\n",
		       i, sizes[i], ours->res[i].ns, theirs->res[i].ns, r, paired);
	}
}

static void print_cpu(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "model name", 10) == 0 || strncmp(line, "cpu model", 9) == 0) {
			printf("cpu: %s", strchr(line, ':') ? strchr(line, ':') + 2 : line);
			break;
		}
	}
	fclose(f);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-crypto [-c] [-r REPS (1..%d)] [-s SIZE (0..%d)]...\n",
		MAX_REPS, MAX_SIZE);
	exit(2);
}

/* what to run: the sizes (indices into sealed[]) and the repetitions */
struct plan {
	size_t sizes[N_SIZES], idx[N_SIZES];
	size_t n;
	size_t given;		/* sizes given with -s; 0: the defaults */
	int reps;
	int compare_only;	/* -c */
};

static void parse_args(int argc, char **argv, struct plan *p)
{
	int a;

	p->n = 0;
	p->reps = 31;
	p->compare_only = 0;
	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "-c") == 0) {
			p->compare_only = 1;
		} else if (strcmp(argv[a], "-r") == 0 && a + 1 < argc) {
			p->reps = atoi(argv[++a]);
			if (p->reps < 1 || p->reps > MAX_REPS)
				usage();
		} else if (strcmp(argv[a], "-s") == 0 && a + 1 < argc && p->n < N_SIZES) {
			long v = atol(argv[++a]);

			if (v < 0 || v > MAX_SIZE)
				usage();
			p->idx[p->n] = p->n;
			p->sizes[p->n++] = (size_t)v;
		} else {
			usage();
		}
	}
	p->given = p->n;
	if (p->n == 0)
		for (p->n = 0; p->n < N_SIZES; p->n++) {
			p->sizes[p->n] = bench_sizes[p->n];
			p->idx[p->n] = p->n;
		}
}

/* sealed[i] holds src sealed at sizes[i], for the decryption benchmarks */
static void seal_inputs(const size_t *sizes, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		chacha20poly1305_encrypt(sealed[i], src, sizes[i], ad, sizeof(ad), 7, key);
}

static struct series series[] = {
	{ "chacha20", "chacha20_xor", "encryption", 256, op_chacha20, CORE_GENERIC,
	  { { 0, 0 } } },
	{ "poly1305", "poly1305, default core", "", 256, op_poly1305, CORE_DISPATCHED,
	  { { 0, 0 } } },
	{ "poly1305", "poly1305_32, 26-bit limbs", "", 256, op_poly1305_32, CORE_NONE,
	  { { 0, 0 } } },
#ifdef POLY1305_HAVE_64
	{ "poly1305", "poly1305_64, 44-bit limbs", "", 256, op_poly1305_64, CORE_NONE,
	  { { 0, 0 } } },
#endif
	{ "rfc7539(chacha20,poly1305)", "chacha20poly1305_encrypt", "encryption", 256,
	  op_aead_encrypt, CORE_GENERIC, { { 0, 0 } } },
	{ "rfc7539(chacha20,poly1305)", "chacha20poly1305_decrypt", "decryption", 256,
	  op_aead_decrypt, CORE_GENERIC, { { 0, 0 } } },
	{ "rfc7539(chacha20,poly1305)", "libsodium crypto_aead_chacha20poly1305_ietf_encrypt",
	  "encryption", 256, op_sodium_encrypt, CORE_NONE, { { 0, 0 } } },
	{ "blake2s-256", "blake2s", "", 0, op_blake2s, CORE_NONE, { { 0, 0 } } },
#if defined(WGD_ASM_X86_64)
	{ "chacha20", "chacha20_xor", "encryption", 256, op_chacha20, CORE_DISPATCHED,
	  { { 0, 0 } } },
	{ "poly1305", "poly1305_avx2, 4 x 26-bit limbs", "", 256, op_poly1305_avx2,
	  CORE_NONE, { { 0, 0 } } },
	{ "poly1305", "poly1305_avx512, 8 x 44-bit limbs (IFMA)", "", 256, op_poly1305_avx512,
	  CORE_NONE, { { 0, 0 } } },
	{ "rfc7539(chacha20,poly1305)", "chacha20poly1305_encrypt", "encryption", 256,
	  op_aead_encrypt, CORE_DISPATCHED, { { 0, 0 } } },
	{ "rfc7539(chacha20,poly1305)", "chacha20poly1305_decrypt", "decryption", 256,
	  op_aead_decrypt, CORE_DISPATCHED, { { 0, 0 } } },
#endif
};

/* Whether this CPU lacks the instructions the series needs (says so if it does). */
static int series_unsupported(const struct series *s)
{
#if defined(WGD_ASM_X86_64)
	if (s->fn == op_poly1305_avx2 && crypto_x86_cpu_level() < CRYPTO_X86_AVX2) {
		printf("\n%s: this CPU has no AVX2; skipped\n", s->driver);
		return 1;
	}
	if (s->fn == op_poly1305_avx512 && crypto_x86_cpu_level() < CRYPTO_X86_AVX512) {
		printf("\n%s: this CPU has no AVX-512 (F, VL, BW, IFMA); skipped\n", s->driver);
		return 1;
	}
#else
	(void)s;
#endif
	return 0;
}

/* Every series in the kernel's layout, then our AEAD against libsodium's. */
static void run_tables(const struct plan *p)
{
	struct series *ours[2] = { NULL, NULL }, *theirs = NULL;
	size_t i;

	for (i = 0; i < sizeof(series) / sizeof(series[0]); i++) {
		if (series_unsupported(&series[i]))
			continue;
		run_series(&series[i], p->sizes, p->idx, p->n, p->reps);
		if (series[i].fn == op_aead_encrypt)
			ours[series[i].core] = &series[i];
		if (series[i].fn == op_sodium_encrypt)
			theirs = &series[i];
	}
	print_ratios(ours[CORE_GENERIC], CORE_GENERIC, theirs, p->sizes, p->idx, p->n, p->reps);
	if (ours[CORE_DISPATCHED] != NULL)
		print_ratios(ours[CORE_DISPATCHED], CORE_DISPATCHED, theirs, p->sizes, p->idx, p->n,
			     p->reps);
}

/* Against OpenSSL: the -s sizes, or the packet sizes of issue 9. */
static int run_openssl(struct plan *p)
{
	if (p->given == 0) {
		for (p->n = 0; p->n < sizeof(openssl_sizes) / sizeof(openssl_sizes[0]); p->n++)
			p->sizes[p->n] = openssl_sizes[p->n];
	}
	seal_inputs(p->sizes, p->n);
#if defined(BENCH_HAVE_OPENSSL)
	return ossl_compare(p->sizes, p->n, p->reps) ? 0 : 1;
#else
	printf("\nOpenSSL comparison skipped: built without libcrypto (OpenSSL 3, libssl-dev)\n");
	return 0;
#endif
}

int main(int argc, char **argv)
{
	struct plan p;

	parse_args(argc, argv, &p);
	if (sodium_init() < 0)
		return 1;
	randombytes_buf(key, sizeof(key));
	randombytes_buf(nonce, sizeof(nonce));
	randombytes_buf(ad, sizeof(ad));
	randombytes_buf(src, sizeof(src));
	seal_inputs(p.sizes, p.n);

	print_cpu();
	printf("compiler: %s; build: %s; cycles: %s; median of %d batches of >= %.2f ms\n",
	       __VERSION__, BENCH_BUILD,
	       BENCH_HAVE_CYCLES ? "rdtsc (TSC reference cycles)" : "n/a", p.reps,
	       MIN_BATCH_NS / 1e6);
	if (!p.compare_only)
		run_tables(&p);
	return run_openssl(&p);
}
