// SPDX-License-Identifier: GPL-2.0-only
/* The core's source of random bytes (see random.h). */
#include "daemon/core/random.h"

#include "crypto/util.h"

bool core_random_fill(const struct core_random *r, void *buf, size_t len)
{
	bool ok;

	if (!r || !r->fill)
		ok = crypto_random(buf, len);
	else
		ok = r->fill(r->ctx, buf, len);
	if (!ok)
		crypto_wipe(buf, len);
	return ok;
}
