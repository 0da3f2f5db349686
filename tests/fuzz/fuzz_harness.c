// SPDX-License-Identifier: GPL-2.0-only
/*
 * A target that crashes on purpose, for the test of run.sh itself
 * (fuzz-harness in meson.build): a finding must fail a meson test, and
 * libFuzzer's own exit status for one, 77, is what meson counts as
 * "skipped".
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 5 && !memcmp(data, "crash", 5))
		abort();
	return 0;
}
