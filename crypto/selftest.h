/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef WGD_CRYPTO_SELFTEST_H
#define WGD_CRYPTO_SELFTEST_H

#include <stdbool.h>

#include "crypto/util.h"

/*
 * A few known answers per primitive, run once at start-up (as the kernel
 * module does at load); false if any primitive gives a wrong answer.
 */
WGD_COLD bool crypto_selftest(void);

#endif
