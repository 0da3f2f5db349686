/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The messages between the daemon and its privileged monitor
 * (daemon/base/privsep.h; the monitor: daemon/monitor/monitor.h).  Both
 * sides are the same binary, so the layouts are plain structs; each
 * request has one exact length, and the monitor checks length and type
 * once, at the edge, before anything else.  Texts (SaveConfig's
 * configuration, a reload's file) travel in a memory file (memfd) passed
 * with SCM_RIGHTS, never in a file on disk.
 *
 * Two socket pairs (SOCK_SEQPACKET):
 *   sync   request, answer; the monitor answers at once (no child
 *          process runs for these), in order;
 *   async  jobs that run a program (a hook, resolvconf): one at a time,
 *          in order, each answered when its program has exited, while
 *          the sync channel goes on being served.
 *
 * The request list (doc/architecture.md, "Privilege separation", says
 * what each may do and why it is safe):
 *
 *   sync
 *     SETUP            first and once, before the daemon serves anything:
 *                      names and paths; the monitor reads the file (its
 *                      hooks and DNS) and writes the pid file
 *     READY            set-up done (no more PreUp or PostUp): the monitor's
 *                      standard descriptors follow the daemon's to
 *                      /dev/null (arg[0]: detach)
 *     READ_CONFIG      the file again (a reload): its text back (memfd)
 *     SAVE_CONFIG      SaveConfig: the device's part, wg(8)'s format
 *                      (memfd, arg[0] bytes)
 *     BIND_UDP         a UDP socket bound to the wildcard address, port
 *                      1-1023 (arg[0] family, arg[1] port), back by SCM_RIGHTS
 *     UNLINK_SOCKET    the control socket file, if still the one bound
 *     UNLINK_PID_FILE  the pid file, if still the one written
 *   async
 *     RUN_HOOK         arg[0] the kind (enum conffile_hook), arg[1] its index
 *     DNS_APPLY        resolvconf to the file's DNS (-a, or -d when none)
 *     DNS_REMOVE       resolvconf -d, if set
 */
#ifndef WGD_PRIVSEP_WIRE_H
#define WGD_PRIVSEP_WIRE_H

#include <limits.h>
#include <stdint.h>

/* argv[1] of the monitor, which the daemon starts as a new image of its
 * own binary, its channels on these descriptors. */
#define PRIVSEP_MONITOR_ARG "--monitor"
#define PRIVSEP_FD_SYNC 3
#define PRIVSEP_FD_ASYNC 4

/* The largest text: a configuration file's limit (daemon/config/conffile.c). */
#define PRIVSEP_TEXT_MAX (4u << 20)
#define PRIVSEP_ERR_LEN 256
/* The control socket's path: sizeof(sockaddr_un.sun_path). */
#define PRIVSEP_SOCKET_PATH_MAX 108
#define PRIVSEP_IFNAME_MAX 16

enum privsep_type {
	PRIVSEP_SETUP = 1,
	PRIVSEP_READY,
	PRIVSEP_READ_CONFIG,
	PRIVSEP_SAVE_CONFIG,
	PRIVSEP_BIND_UDP,
	PRIVSEP_UNLINK_SOCKET,
	PRIVSEP_UNLINK_PID_FILE,
	PRIVSEP_SYNC_LAST = PRIVSEP_UNLINK_PID_FILE,
	PRIVSEP_RUN_HOOK,
	PRIVSEP_DNS_APPLY,
	PRIVSEP_DNS_REMOVE,
	PRIVSEP_TYPE_LAST = PRIVSEP_DNS_REMOVE,
};

struct privsep_req {
	uint32_t type;		/* enum privsep_type */
	uint32_t seq;		/* echoed by the answer */
	uint32_t arg[2];
};

/* PRIVSEP_SETUP's request: the header, then the fixed facts. */
struct privsep_setup {
	struct privsep_req req;
	int32_t log_level;
	uint32_t foreground;
	char ifname[PRIVSEP_IFNAME_MAX];
	char socket_path[PRIVSEP_SOCKET_PATH_MAX];
	char pid_file[PATH_MAX];	/* "" for none */
	char config_path[PATH_MAX];	/* "" without a file */
};

struct privsep_reply {
	uint32_t type, seq;
	/* 0 or -errno; a job: its program's exit status, 128 + the signal
	 * that ended it, or -errno when it could not run (-ENOENT: not found) */
	int32_t status;
	char err[PRIVSEP_ERR_LEN];	/* "" or what went wrong, for the log */
};

#endif
