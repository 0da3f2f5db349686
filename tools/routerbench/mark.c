// SPDX-License-Identifier: GPL-2.0-only
/*
 * mark.c: the guest's marker for tools/routerbench/count.c.
 *   mark start | mark stop
 * executes "lui $zero, 0x7701" or "lui $zero, 0x7702": no-ops for the CPU
 * (writes to $zero are discarded), recognised by the counting plugin when it
 * translates them.  Built static for the guest.
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "start")) {
		__asm__ volatile(".word 0x3c007701" ::: "memory");
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		__asm__ volatile(".word 0x3c007702" ::: "memory");
		return 0;
	}
	fprintf(stderr, "usage: mark start|stop\n");
	return 2;
}
