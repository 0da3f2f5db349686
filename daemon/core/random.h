/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where the core's random bytes come from (STYLE.md principle 15: random
 * bytes reach the core through one seam).  The core draws them for
 * ephemeral keys and local indices (noise.c), the cookie secret and
 * cookie-reply nonces (cookie.c) and the rate limiter's hash key; all of
 * them per handshake or rarer, never per data packet.
 *
 * A source is a callback and its context.  The zero value (fill NULL), and
 * a NULL source pointer, stand for the system's source, crypto_random()
 * (getrandom(2)).  A test, or a simulation driven by one seed, installs a
 * deterministic one; the core then gives the same bytes on the wire for
 * the same inputs.  A source that fails makes the operation that needed it
 * fail with an error (NOISE_ERR_RANDOM, COOKIE_ERR_RANDOM, false), never
 * proceed with predictable bytes.
 */
#ifndef WGD_DAEMON_CORE_RANDOM_H
#define WGD_DAEMON_CORE_RANDOM_H

#include <stdbool.h>
#include <stddef.h>

struct core_random {
	/* Fill len bytes of buf; false if it cannot.  Must not keep buf. */
	bool (*fill)(void *ctx, void *buf, size_t len);
	void *ctx;
};

/*
 * len bytes from r (NULL or zero value: crypto_random()).  On failure buf
 * is zeroed, so that no partial output is mistaken for random bytes.
 */
bool core_random_fill(const struct core_random *r, void *buf, size_t len);

#endif
