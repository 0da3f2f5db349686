// SPDX-License-Identifier: GPL-2.0-only
/*
 * The core's age rule, defined once (messages.h explains it): it has seven
 * callers, and a copy inlined into each cost more than the calls do.
 */
#include "daemon/core/messages.h"

bool wg_age_reached(uint64_t birth, uint64_t now, uint64_t limit_ns)
{
	return now < birth || now - birth >= limit_ns;
}
