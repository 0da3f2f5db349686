/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the TUN-offload fuzzers (fuzz_gso.c, fuzz_gro.c) check the real code
 * against: the checksum reference every test uses (tests/lib/csum_ref.h),
 * and the IP and TCP header rules of RFC 791, RFC 793 and RFC 8200, read
 * straight from the bytes.  Deliberately naive: it shares no code with
 * daemon/datapath/gso.c.
 */
#ifndef WGD_FUZZREF_H
#define WGD_FUZZREF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tests/lib/csum_ref.h"

/* A failed property: print where and why, then abort() so libFuzzer saves the input. */
#define FUZZ_CHECK(cond, ...)                                                 \
	do {                                                                  \
		if (!(cond))                                                  \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);    \
	} while (0)

__attribute__((noreturn, format(printf, 4, 5)))
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...);

#endif
