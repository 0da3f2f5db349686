/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * conffile_tool print wg|quick FILE: reads FILE with conffile_load() in the
 * format given and prints it back with conffile_print() in the same one.
 * The net test tests/net/conffile.sh compares that with wg showconf.
 */
#include <stdio.h>
#include <string.h>

#include "daemon/config/conffile.h"

int main(int argc, char **argv)
{
	enum conffile_format fmt;
	struct conffile cf;
	char err[512];
	int ret;

	if (argc != 4 || strcmp(argv[1], "print") ||
	    (strcmp(argv[2], "wg") && strcmp(argv[2], "quick"))) {
		fprintf(stderr, "usage: %s print wg|quick FILE\n", argv[0]);
		return 2;
	}
	fmt = strcmp(argv[2], "wg") ? CONFFILE_QUICK : CONFFILE_WG;
	conffile_init(&cf);
	if (conffile_load(&cf, argv[3], fmt, NULL, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	ret = conffile_print(stdout, &cf, fmt);
	conffile_clear(&cf);
	return ret < 0;
}
