// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/base/log.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/clock.h"

#define LOG_PACKET_BURST 10
#define LOG_PACKET_PER_SEC 5

static struct {
	enum log_level level;
	bool to_stderr;
	bool journal;		/* stderr is systemd's journal: "<N>" priority prefixes */
	char ident[32];
	/* token bucket of log_packet(), in tokens x 1e9 (nanosecond credit) */
	uint64_t credit;
	uint64_t last;
	unsigned int suppressed;
} logger = { .level = LOG_LEVEL_ERROR, .to_stderr = true };

WGD_COLD int log_parse_level(const char *name)
{
	/* Indexed by level, "info" last as the other name of verbose. */
	static const char names[][8] = { "silent", "error", "verbose", "debug", "info" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(name, names[i]))
			return i == 4 ? LOG_LEVEL_VERBOSE : i;
	return -1;
}

/*
 * Whether stderr is a stream to systemd's journal: systemd then names it in
 * JOURNAL_STREAM as "DEVICE:INODE" (systemd.exec(5)); a stderr that was
 * redirected since (a child's, a shell's) has another identity.
 */
WGD_COLD static bool log_stderr_is_journal(void)
{
	const char *env = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!env || sscanf(env, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

WGD_COLD void log_init(const char *ident, enum log_level level, bool to_stderr)
{
	snprintf(logger.ident, sizeof(logger.ident), "wgd(%s)", ident);
	logger.level = level;
	logger.to_stderr = to_stderr;
	logger.journal = to_stderr && log_stderr_is_journal();
	logger.credit = (uint64_t)LOG_PACKET_BURST * 1000000000ull;
	if (!to_stderr)
		openlog(logger.ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

WGD_COLD void log_clear(void)
{
	if (!logger.to_stderr)
		closelog();
	logger.to_stderr = true;
}

bool log_enabled(enum log_level level)
{
	return level != LOG_LEVEL_SILENT && level <= logger.level;
}

/* err: a positive errno whose strerror() ends the line after ": ", or 0 */
static __attribute__((format(printf, 3, 0))) void log_vmsg(enum log_level level, int err, const char *fmt,
							   va_list ap)
{
	static const char *const names[] = { "", "ERROR", "INFO", "DEBUG" };
	static const int prio[] = { LOG_ERR, LOG_ERR, LOG_INFO, LOG_DEBUG };
	char line[512];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (err && n >= 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, ": %s", strerror(err));
	/* To the journal, the priority as sd-daemon(3)'s "<N>" prefix: the
	 * journal stores it as the line's PRIORITY (journalctl -p) and already
	 * names the program and the unit. */
	if (logger.journal)
		fprintf(stderr, "<%d>%s\n", prio[level], line);
	else if (logger.to_stderr)
		fprintf(stderr, "%s: %s: %s\n", logger.ident, names[level], line);
	else
		syslog(prio[level], "%s", line);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (!log_enabled(level))
		return;
	va_start(ap, fmt);
	log_vmsg(level, 0, fmt, ap);
	va_end(ap);
}

void log_msg_errno(enum log_level level, int err, const char *fmt, ...)
{
	va_list ap;

	if (!log_enabled(level))
		return;
	va_start(ap, fmt);
	log_vmsg(level, err, fmt, ap);
	va_end(ap);
}

/* Refills the bucket by elapsed time; true if a token was taken. */
static bool log_take_token(void)
{
	const uint64_t max = (uint64_t)LOG_PACKET_BURST * 1000000000ull;
	uint64_t now = clock_mono_ns();

	logger.credit += (now - logger.last) * LOG_PACKET_PER_SEC;
	if (logger.credit > max || now - logger.last > 1000000000ull * LOG_PACKET_BURST)
		logger.credit = max;
	logger.last = now;
	if (logger.credit < 1000000000ull)
		return false;
	logger.credit -= 1000000000ull;
	return true;
}

void log_packet(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	if (!log_enabled(level))
		return;
	if (!log_take_token()) {
		logger.suppressed++;
		return;
	}
	if (logger.suppressed) {
		log_msg(level, "%u similar messages suppressed", logger.suppressed);
		logger.suppressed = 0;
	}
	va_start(ap, fmt);
	log_vmsg(level, 0, fmt, ap);
	va_end(ap);
}
