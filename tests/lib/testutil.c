// SPDX-License-Identifier: GPL-2.0-only
#include "tests/lib/testutil.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "crypto/poly1305.h"
#include "crypto/poly1305_impl.h"

unsigned long tu_failures;
unsigned long tu_checks;

#ifndef TU_MAX_REPORTED
#define TU_MAX_REPORTED 50
#endif

static bool tu_report(void)
{
	tu_failures++;
	if (tu_failures == TU_MAX_REPORTED + 1)
		printf("(further failures are counted, not printed)\n");
	return tu_failures <= TU_MAX_REPORTED;
}

bool tu_check(bool ok, const char *fmt, ...)
{
	va_list ap;

	tu_checks++;
	if (ok)
		return true;
	if (tu_report()) {
		printf("FAIL: ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	return false;
}

bool tu_check_mem(const void *got, const void *want, size_t len, const char *fmt, ...)
{
	va_list ap;

	tu_checks++;
	if (len == 0 || memcmp(got, want, len) == 0)
		return true;
	if (tu_report()) {
		printf("FAIL: ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		tu_print_hex(stdout, "  got ", got, len);
		tu_print_hex(stdout, "  want", want, len);
	}
	return false;
}

int tu_exit_status(const char *name)
{
	printf("%s: %lu checks, %lu failed\n", name, tu_checks, tu_failures);
	fflush(stdout);
	return tu_failures == 0 ? 0 : 1;
}

void tu_print_hex(FILE *f, const char *label, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t shown = len > 96 ? 96 : len;
	size_t i;

	fprintf(f, "%s (%zu): ", label, len);
	for (i = 0; i < shown; i++)
		fprintf(f, "%02x", b[i]);
	fprintf(f, "%s\n", shown < len ? "..." : "");
}

static int tu_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long tu_hex_decode(uint8_t *out, size_t max, const char *hex)
{
	size_t len, i;

	if (strcmp(hex, "-") == 0)
		return 0;
	len = strlen(hex);
	if (len % 2 != 0 || len / 2 > max)
		return -1;
	for (i = 0; i < len / 2; i++) {
		int hi = tu_nibble(hex[2 * i]);
		int lo = tu_nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(len / 2);
}

size_t tu_hex(uint8_t *out, size_t max, const char *hex)
{
	long n = tu_hex_decode(out, max, hex);

	if (n < 0) {
		fprintf(stderr, "bad hex constant in the test itself: %.40s\n", hex);
		abort();
	}
	return (size_t)n;
}

static uint64_t tu_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void tu_rng_seed(struct tu_rng *rng, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		rng->s[i] = tu_splitmix64(&seed);
}

static uint64_t tu_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t tu_rng_next(struct tu_rng *rng)
{
	uint64_t *s = rng->s;
	uint64_t result = tu_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = tu_rotl(s[3], 45);
	return result;
}

uint64_t tu_rng_below(struct tu_rng *rng, uint64_t bound)
{
	/* The modulo bias is below 2^-40 for the small bounds the tests use. */
	return tu_rng_next(rng) % bound;
}

void tu_rng_fill(struct tu_rng *rng, void *buf, size_t len)
{
	uint8_t *p = buf;

	while (len >= 8) {
		uint64_t v = tu_rng_next(rng);

		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	if (len > 0) {
		uint64_t v = tu_rng_next(rng);

		memcpy(p, &v, len);
	}
}

uint64_t tu_seed(const char *name, uint64_t fallback)
{
	const char *env = getenv("WGD_TEST_SEED");
	uint64_t seed = fallback;

	if (env != NULL && *env != '\0') {
		char *end;

		errno = 0;
		seed = strtoull(env, &end, 0);
		if (errno != 0 || *end != '\0') {
			fprintf(stderr, "%s: WGD_TEST_SEED=%s is not a number\n", name, env);
			exit(2);
		}
	}
	printf("%s: seed 0x%016llx (set WGD_TEST_SEED to repeat or vary)\n", name,
	       (unsigned long long)seed);
	return seed;
}

bool tu_vec_open(struct tu_vec *v, const char *dir, const char *name)
{
	static char path[4096];
	int n;

	memset(v, 0, sizeof(*v));
	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		printf("FAIL: vector path too long\n");
		tu_failures++;
		return false;
	}
	v->f = fopen(path, "r");
	if (v->f == NULL) {
		printf("FAIL: cannot open %s: %s\n", path, strerror(errno));
		tu_failures++;
		return false;
	}
	v->path = name;
	return true;
}

int tu_vec_next(struct tu_vec *v, char *fields[TU_VEC_MAX_FIELDS])
{
	for (;;) {
		ssize_t len = getline(&v->line, &v->cap, v->f);
		char *save = NULL, *tok;
		int n = 0;

		if (len < 0)
			return 0;
		v->lineno++;
		if (v->line[0] == '#')
			continue;
		for (tok = strtok_r(v->line, " \t\r\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == TU_VEC_MAX_FIELDS)
				break;
			fields[n++] = tok;
		}
		if (n > 0)
			return n;
	}
}

void tu_vec_close(struct tu_vec *v)
{
	if (v->f != NULL)
		fclose(v->f);
	free(v->line);
	memset(v, 0, sizeof(*v));
}

const char *tu_vector_dir(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("WGD_CRYPTO_VECTORS");

	if (dir == NULL || *dir == '\0') {
		fprintf(stderr, "usage: %s VECTOR_DIR (or set WGD_CRYPTO_VECTORS)\n", argv[0]);
		return NULL;
	}
	return dir;
}

const struct tu_poly_core tu_poly_cores[] = {
	{ "poly1305_32", poly1305_32_init, poly1305_32_blocks, poly1305_32_emit },
#ifdef POLY1305_HAVE_64
	{ "poly1305_64", poly1305_64_init, poly1305_64_blocks, poly1305_64_emit },
#endif
};

const size_t tu_poly_ncores = sizeof(tu_poly_cores) / sizeof(tu_poly_cores[0]);

void tu_poly1305_core(const struct tu_poly_core *c, uint8_t mac[16], const uint8_t *msg,
		      size_t len, const uint8_t key[32])
{
	struct poly1305_ctx ctx;
	size_t full = len & ~(size_t)15;
	size_t rem = len - full;

	c->init(&ctx.core, key);
	if (full > 0)
		c->blocks(&ctx.core, msg, full, 1);
	if (rem > 0) {
		/* RFC 8439 §2.5: the last partial block gets a 0x01 byte and zeros. */
		uint8_t last[16] = { 0 };

		memcpy(last, msg + full, rem);
		last[rem] = 1;
		c->blocks(&ctx.core, last, 16, 0);
	}
	c->emit(&ctx.core, mac, key + 16);
}
