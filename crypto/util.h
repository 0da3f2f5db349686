/* SPDX-License-Identifier: GPL-2.0-only */
/* Constant-time comparison, wiping of secrets, and the system's random bytes. */
#ifndef WGD_CRYPTO_UTIL_H
#define WGD_CRYPTO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Overwrites n bytes with zeros in a way the compiler cannot elide. */
void crypto_wipe(void *p, size_t n);

/* Equality of two n-byte buffers in time that depends only on n. */
bool crypto_equal(const void *a, const void *b, size_t n);

/* Whether all n bytes are zero, in time that depends only on n. */
bool crypto_is_zero(const void *p, size_t n);

/* Fills buf with n bytes from getrandom(2); false only if the kernel fails. */
bool crypto_random(void *buf, size_t n);

#endif
