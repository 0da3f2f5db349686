/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging: four levels, stderr in the foreground and syslog otherwise; on a
 * stderr that is systemd's journal, each line carries its syslog priority.
 *
 * Messages caused by packets from the network go through log_packet(), which
 * a token bucket limits so that a flood of bad datagrams cannot flood the
 * log.  No caller ever passes key material.
 */
#ifndef WGD_LOG_H
#define WGD_LOG_H

#include <stdbool.h>

#include "crypto/util.h"

enum log_level {
	LOG_LEVEL_SILENT = 0,
	LOG_LEVEL_ERROR = 1,
	LOG_LEVEL_VERBOSE = 2,
	LOG_LEVEL_DEBUG = 3,
};

/* "silent", "error", "verbose", "debug" (and "info" = verbose); -1 if unknown. */
WGD_COLD int log_parse_level(const char *name);

/* ident names the interface in every line; syslog when !to_stderr. */
WGD_COLD void log_init(const char *ident, enum log_level level, bool to_stderr);
WGD_COLD void log_clear(void);

bool log_enabled(enum log_level level);

void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* As log_msg(), the message followed by ": " and strerror(err). */
void log_msg_errno(enum log_level level, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As log_msg(), at most a burst of 10 then 5 per second (per process). */
void log_packet(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_VERBOSE, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
/* log_error() of "fmt: strerror(err)", err a positive errno */
#define log_error_errno(err, ...) log_msg_errno(LOG_LEVEL_ERROR, err, __VA_ARGS__)

#endif
