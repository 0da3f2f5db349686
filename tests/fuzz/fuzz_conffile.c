/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the configuration file parser (daemon/config/conffile.c).
 * The first byte picks the format.  Beyond "no crash, no leak" (the
 * sanitizers): a refused file leaves the model empty, and an accepted one
 * prints, re-parses and prints the same.
 *
 *   fuzz_conffile [-runs=N] [CORPUS_DIR]      (built with clang only)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config/conffile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *print(const struct conffile *cf, enum conffile_format fmt, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f || conffile_print(f, cf, fmt) < 0)
		abort();
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct conffile empty;
	enum conffile_format fmt;
	struct conffile cf, back;
	char err[256], *t1, *t2;
	size_t n1, n2;

	if (size < 1)
		return 0;
	/* No table names from the host: the run must not depend on it. */
	conffile_rt_tables = "/dev/null";
	fmt = data[0] & 1 ? CONFFILE_WG : CONFFILE_QUICK;
	conffile_init(&cf);
	if (conffile_parse(&cf, "f", (const char *)data + 1, size - 1, fmt, err, sizeof(err)) < 0) {
		if (memcmp(&cf, &empty, sizeof(cf)) != 0 || strncmp(err, "f:", 2) != 0)
			abort();
		return 0;
	}
	t1 = print(&cf, fmt, &n1);
	conffile_init(&back);
	if (conffile_parse(&back, "p", t1, n1, fmt, err, sizeof(err)) < 0) {
		fprintf(stderr, "printed text refused: %s\n%s", err, t1);
		abort();
	}
	t2 = print(&back, fmt, &n2);
	if (n1 != n2 || memcmp(t1, t2, n1) != 0) {
		fprintf(stderr, "print, parse, print differs:\n%s\n----\n%s", t1, t2);
		abort();
	}
	free(t1);
	free(t2);
	conffile_clear(&cf);
	conffile_clear(&back);
	return 0;
}
