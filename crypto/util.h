/* SPDX-License-Identifier: GPL-2.0-only */
/* Constant-time comparison, wiping of secrets, the system's random bytes; container_of(). */
#ifndef WGD_CRYPTO_UTIL_H
#define WGD_CRYPTO_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A function that must keep one copy.  With link-time optimisation (the MIPS
 * cross files) gcc copies a small function into every caller; for the few
 * marked with this, called from many sites and never inside a per-byte loop,
 * the copies cost a router's flash kilobytes and the call costs a few
 * cycles per handshake or batch (doc/performance.md, "Footprint").
 */
#define WGD_OUT_OF_LINE __attribute__((noinline))

/*
 * Set-up and teardown that shares a file with the packet path (the host's
 * sockets, TUN device and loop handlers): compiled for size, as the cold
 * libraries are with meson's cold_options, and its calls taken as
 * unlikely.  Never on a function that runs per packet or per batch
 * (doc/performance.md, "Footprint: cold code for size").
 */
#if defined(WGD_MIPS16) && defined(__mips__)
/* ... and, where the build puts the cold code in MIPS16e (meson.build,
 * -Dmips16), in that instruction set too.  An attribute, unlike the cold
 * libraries' -mips16, outlives link-time optimisation. */
#define WGD_COLD __attribute__((cold, mips16))
#else
#define WGD_COLD __attribute__((cold))
#endif

/* The struct of type that embeds member at ptr (handles embedded in their owner). */
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* Overwrites n bytes with zeros in a way the compiler cannot elide.  Out of
 * line also so that no caller's copy can be reasoned away. */
WGD_OUT_OF_LINE void crypto_wipe(void *p, size_t n);

/* Equality of two n-byte buffers in time that depends only on n. */
WGD_OUT_OF_LINE bool crypto_equal(const void *a, const void *b, size_t n);
/*
 * 32 bytes (a key, a hash, a chaining key) copied: one call, where memcpy()
 * of 32 bytes of unknown alignment, inlined at each site, is 32 unaligned
 * loads and stores on 32-bit MIPS.
 */
WGD_OUT_OF_LINE void crypto_copy32(void *dst, const void *src);

/* Whether all n bytes are zero, in time that depends only on n. */
bool crypto_is_zero(const void *p, size_t n);

/* Fills buf with n bytes from getrandom(2); false only if the kernel fails. */
bool crypto_random(void *buf, size_t n);

/*
 * Declares n bytes at p public from here on: a value computed from secrets
 * that is the function's public result anyway (an AEAD tag verdict).  A
 * no-op in the library; the constant-time check (tests/crypto/test_ct.c,
 * under valgrind, or built with MemorySanitizer: WGD_CT_MSAN) builds a
 * copy with WGD_CT_CHECK, where it tells the checker that a branch on this
 * value is allowed, and every other branch on secrets still fails the check.
 */
#if defined(WGD_CT_CHECK) && defined(WGD_CT_MSAN)
/* the same check with MemorySanitizer's shadow instead of memcheck's */
#include <sanitizer/msan_interface.h>
#define crypto_declassify(p, n) __msan_unpoison((p), (n))
#elif defined(WGD_CT_CHECK)
#include <valgrind/memcheck.h>
#define crypto_declassify(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#else
#define crypto_declassify(p, n) ((void)(p), (void)(n))
#endif

#endif
