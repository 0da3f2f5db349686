/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The monitor's state and the request handlers its loop (monitor.c) calls:
 * files.c (the pid file, the configuration file, the socket file) and
 * jobs.c (hooks and resolvconf).
 */
#ifndef WGD_MONITOR_STATE_H
#define WGD_MONITOR_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "daemon/base/privsep_wire.h"
#include "daemon/config/conffile.h"

struct monitor_file {
	char path[PATH_MAX];		/* "" for none */
	dev_t dev;			/* the file as set up: removed only while it is */
	ino_t ino;
	bool known;
};

struct monitor {
	int fd[2];			/* PRIVSEP_FD_SYNC, PRIVSEP_FD_ASYNC */
	bool set_up;
	bool ready;			/* READY came: set-up's hooks are over */
	char ifname[PRIVSEP_IFNAME_MAX];
	struct monitor_file socket, pid_file;
	char config_path[PATH_MAX];	/* "" without a file */
	/* the file as the monitor last read it, wg-quick keys only (no key) */
	struct conffile quick;
	bool saved;			/* SaveConfig is written once */
	/* hooks: the last kind run, and the next index of that kind */
	int hook_kind;
	size_t hook_next;
	bool dns_set;			/* resolvconf -a succeeded: -d removes it */
	/* the job whose program runs: pidfd (-1: none), the request */
	pid_t child;
	int child_fd;
	struct privsep_req job;
	bool job_dns_add;		/* the job is resolvconf -a (dns_set on success) */
};

/* files.c: 0 or -errno, err set (if not NULL) with what failed. */
int monitor_write_pid_file(struct monitor *m, char *err, size_t errlen);
int monitor_remember(struct monitor_file *f, const char *path, mode_t type);
int monitor_unlink(struct monitor_file *f, mode_t type);
int monitor_load(struct monitor *m, char **text, size_t *len, char *err, size_t errlen);
int monitor_read_config(struct monitor *m, int *out, char *err, size_t errlen);
int monitor_save_config(struct monitor *m, int fd, size_t len, char *err, size_t errlen);
int monitor_bind_udp(uint32_t family, uint32_t port, int *out);
/* Strips what is not wg-quick's own from cf (wiping every key). */
void monitor_keep_quick(struct conffile *cf);

/*
 * jobs.c: starts the job req (hook or DNS); 0 when its program runs
 * (m->child, m->child_fd set; child_fd -1 when no pidfd could be opened:
 * wait for it), 1 when done at once with *status, or -errno.
 */
int monitor_job_start(struct monitor *m, const struct privsep_req *req, int *status);
/* The running job's exit: its status (exit code, 128 + signal, -errno). */
int monitor_job_reap(struct monitor *m);

#endif
