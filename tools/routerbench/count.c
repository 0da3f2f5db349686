// SPDX-License-Identifier: GPL-2.0-only
/*
 * count.c: a light TCG plugin for qemu-system-mipsel 7.2 (tools/routerbench).
 *
 * Counts the guest instructions executed between two markers, by where
 * they run: user space (below 0x80000000), the kernel image (kseg0 and
 * kseg1, 0x80000000-0xbfffffff) and vmalloc space (0xc0000000 and up: on
 * 32-bit MIPS loadable modules are placed there), and per translation block
 * start address, so that the host can put names on them from the guest's
 * /proc/kallsyms and, for a user process, its /proc/PID/maps and its ELF
 * files' symbols.  (A user address is a counter for every process that
 * runs code there; with address space randomisation, different programs
 * rarely share one.)
 *
 * The cost to the guest is two inline 64-bit adds per executed translation
 * block (its instruction count, and one execution), decided once when the
 * block is translated: no call into the plugin on the data path, so the
 * guest runs near its uninstrumented speed and packets batch as they would
 * without the plugin.
 *
 * Markers: a guest program (tools/routerbench/mark.c) executes one of two
 * instructions that no compiler or kernel emits: "lui $zero, 0x7701" (start)
 * and "lui $zero, 0x7702" (stop), no-ops since $zero ignores writes.  When a
 * block holding one is translated, a callback is attached to that one
 * instruction only.  Start zeroes every counter; stop appends the window to
 * the output file:
 *
 *   window N
 *   total ALL user USER kernel KERNEL vmalloc VMALLOC
 *   tb ADDR INSNS EXECS             (one line per block start address
 *                                    that ran in the window)
 *   end N
 *
 * Arguments:  out=FILE (required).
 *
 * A block is counted whole when it starts: an exception in its middle (a
 * TLB miss on a load, a system call) makes the count of its tail too large
 * by a few instructions; the kernel and user counts are exact otherwise.
 * One vCPU (-smp 1): the counters are not atomic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu72-plugin.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;

#define MARK_START 0x3c007701u	/* lui $zero, 0x7701 */
#define MARK_STOP 0x3c007702u	/* lui $zero, 0x7702 */
#define KSEG0 0x80000000u
#define KSEG2 0xc0000000u

struct counter {
	uint64_t pc;
	uint64_t insns;
	uint64_t execs;
};

/*
 * One counter per block start address; an open
 * addressing table of indices into a fixed array (the inline adds hold
 * pointers into it, so it never moves).  Far more than a 6.1 kernel and a
 * few programs run; blocks past it are counted in overflow[] by region.
 */
#define NCOUNTERS (1u << 18)
#define NSLOTS (NCOUNTERS * 2)
static struct counter *counters;
static uint32_t *slots;		/* index + 1; 0: empty */
static uint32_t ncounters;
static struct counter overflow[3];	/* user, kernel, vmalloc */
static FILE *out;
static int big_endian;
static int counting;
static unsigned window;

static struct counter *counter_of(uint64_t pc)
{
	uint32_t h = (uint32_t)((pc >> 2) * 2654435761u) & (NSLOTS - 1);

	while (slots[h]) {
		if (counters[slots[h] - 1].pc == pc)
			return &counters[slots[h] - 1];
		h = (h + 1) & (NSLOTS - 1);
	}
	if (ncounters == NCOUNTERS)
		return &overflow[pc < KSEG0 ? 0 : pc < KSEG2 ? 1 : 2];
	counters[ncounters].pc = pc;
	slots[h] = ++ncounters;
	return &counters[ncounters - 1];
}

static void zero_all(void)
{
	for (uint32_t i = 0; i < ncounters; i++)
		counters[i].insns = counters[i].execs = 0;
	memset(overflow, 0, sizeof(overflow));
}

static void on_start(unsigned int vcpu, void *data)
{
	(void)vcpu;
	(void)data;
	zero_all();
	counting = 1;
}

static void on_stop(unsigned int vcpu, void *data)
{
	uint64_t u = overflow[0].insns, k = overflow[1].insns, v = overflow[2].insns;

	(void)vcpu;
	(void)data;
	if (!counting)
		return;
	counting = 0;
	for (uint32_t i = 0; i < ncounters; i++) {
		if (counters[i].pc < KSEG0)
			u += counters[i].insns;
		else if (counters[i].pc < KSEG2)
			k += counters[i].insns;
		else
			v += counters[i].insns;
	}
	window++;
	fprintf(out, "window %u\ntotal %" PRIu64 " user %" PRIu64 " kernel %" PRIu64 " vmalloc %" PRIu64 "\n",
		window, u + k + v, u, k, v);
	if (overflow[0].insns + overflow[1].insns + overflow[2].insns)
		fprintf(out, "overflow %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", overflow[0].insns,
			overflow[1].insns, overflow[2].insns);
	for (uint32_t i = 0; i < ncounters; i++)
		if (counters[i].insns)
			fprintf(out, "tb %08" PRIx64 " %" PRIu64 " %" PRIu64 "\n", counters[i].pc,
				counters[i].insns, counters[i].execs);
	fprintf(out, "end %u\n", window);
	fflush(out);
}

static uint32_t insn_word(const struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);

	if (qemu_plugin_insn_size(insn) != 4)
		return 0;
	if (big_endian)
		return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
	return (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	struct counter *c = counter_of(pc);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->insns, n);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &c->execs, 1);
	/* The markers run in user space only. */
	if (pc >= KSEG0)
		return;
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t w = insn_word(insn);

		if (w == MARK_START)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_start, QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (w == MARK_STOP)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_stop, QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *data)
{
	(void)id;
	(void)data;
	fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	const char *path = NULL;

	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4))
			path = argv[i] + 4;
		else {
			fprintf(stderr, "routerbench count: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "routerbench count: out=FILE is required\n");
		return -1;
	}
	if (!info || !info->system_emulation || strncmp(info->target_name, "mips", 4)) {
		fprintf(stderr, "routerbench count: for qemu-system-mips* only\n");
		return -1;
	}
	big_endian = strcmp(info->target_name, "mipsel") != 0;
	counters = calloc(NCOUNTERS, sizeof(*counters));
	slots = calloc(NSLOTS, sizeof(*slots));
	out = fopen(path, "w");
	if (!counters || !slots || !out) {
		perror("routerbench count");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
