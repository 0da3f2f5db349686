/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the crypto tests: a failure counter, hex decoding, a
 * seeded PRNG (so that every failure can be reproduced from the printed
 * seed), and a reader for the one-record-per-line vector files.
 */
#ifndef WGD_TESTS_CRYPTO_TESTUTIL_H
#define WGD_TESTS_CRYPTO_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Number of failed checks so far; tu_exit_status() turns it into an exit code. */
extern unsigned long tu_failures;
extern unsigned long tu_checks;

/*
 * Records one check.  Prints the message only on failure, and stops
 * printing after 50 failures so that a broken primitive does not flood the
 * log (the count stays exact).
 */
bool tu_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like tu_check() for two byte strings; prints both in hex on a mismatch. */
bool tu_check_mem(const void *got, const void *want, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Prints the summary line and returns 0 if every check passed, 1 otherwise. */
int tu_exit_status(const char *name);

void tu_print_hex(FILE *f, const char *label, const void *p, size_t len);

/*
 * Decodes hex (even length, no separators) into out.  Returns the number of
 * bytes, or -1 if hex is malformed or longer than max bytes.  "-" is the
 * empty string (used by the vector files for empty fields).
 */
long tu_hex_decode(uint8_t *out, size_t max, const char *hex);

/* Decodes a hex constant that the test knows to be well formed; aborts if not. */
size_t tu_hex(uint8_t *out, size_t max, const char *hex);

/* xoshiro256** seeded through splitmix64 (Blackman & Vigna). */
struct tu_rng {
	uint64_t s[4];
};

void tu_rng_seed(struct tu_rng *rng, uint64_t seed);
uint64_t tu_rng_next(struct tu_rng *rng);
/* Uniform in [0, bound); bound > 0. */
uint64_t tu_rng_below(struct tu_rng *rng, uint64_t bound);
void tu_rng_fill(struct tu_rng *rng, void *buf, size_t len);

/*
 * The seed for this run: WGD_TEST_SEED from the environment (decimal or
 * 0x-hex) if set, the given default otherwise.  Printed, so a failing run
 * can be repeated exactly.
 */
uint64_t tu_seed(const char *name, uint64_t fallback);

/*
 * Vector files: '#' starts a comment line; every other non-empty line is one
 * record of whitespace-separated fields.  tu_vec_next() returns the number
 * of fields of the next record (0 at the end of the file) and points
 * fields[] into an internal buffer that the next call reuses.
 */
#define TU_VEC_MAX_FIELDS 16

struct tu_vec {
	FILE *f;
	char *line;
	size_t cap;
	unsigned long lineno;
	const char *path;
};

/* Opens dir/name; prints why and returns false on failure. */
bool tu_vec_open(struct tu_vec *v, const char *dir, const char *name);
int tu_vec_next(struct tu_vec *v, char *fields[TU_VEC_MAX_FIELDS]);
void tu_vec_close(struct tu_vec *v);

/*
 * The directory holding the vector files: argv[1] if given, else
 * WGD_CRYPTO_VECTORS from the environment; NULL (after a message) if neither.
 */
const char *tu_vector_dir(int argc, char **argv);

/*
 * The Poly1305 block cores of crypto/poly1305_impl.h, so that a test can run
 * a message through each core directly (RFC 8439 §2.5 padding done here).
 */
struct tu_poly_core {
	const char *name;
	void (*init)(void *core, const uint8_t r[16]);
	void (*blocks)(void *core, const uint8_t *in, size_t len, uint32_t padbit);
	void (*emit)(void *core, uint8_t mac[16], const uint8_t s[16]);
};

extern const struct tu_poly_core tu_poly_cores[];
extern const size_t tu_poly_ncores;

/* mac = Poly1305(key, msg) computed with one core, in one call to its _blocks. */
void tu_poly1305_core(const struct tu_poly_core *c, uint8_t mac[16], const uint8_t *msg,
		      size_t len, const uint8_t key[32]);

#endif
