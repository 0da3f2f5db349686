// SPDX-License-Identifier: GPL-2.0-only
#include "fuzzref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FUZZ PROPERTY FAILED %s:%d: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
