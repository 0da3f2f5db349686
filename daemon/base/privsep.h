/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Privilege separation, the daemon's side (STYLE.md principle 20; OpenSSH's
 * and OpenBSD's model).  Before it serves anything, still root, the daemon
 * starts its monitor: a fresh image of its own binary (so it holds none of
 * the daemon's memory, keys included), root, which stays for the daemon's
 * life and does the few things that still need root after the privilege
 * drop (daemon/base/privdrop.h), each on request over a socket pair and
 * checked there (daemon/base/privsep_wire.h lists them; daemon/monitor/
 * is the other side):
 *
 *   the hooks (PreUp ... PostDown) and resolvconf, as root, from root's own
 *   copy of the file: the daemon names a hook by kind and index, never by
 *   its text; SaveConfig's write, of wg(8)'s part only, joined to root's
 *   wg-quick keys; a reload's read of the file; a UDP port below 1024; the
 *   removal of the control socket and of the pid file (which it writes).
 *
 * The monitor exits when the daemon's ends of the channels close (the
 * daemon's exit, whatever its cause).  Without a monitor (a program that
 * never started one: the tests of a layer) every request is -ENOTCONN.
 *
 * Requests on the sync channel block until answered (at most
 * PRIVSEP_SYNC_TIMEOUT_S); jobs (a hook, resolvconf) are answered later, on
 * the loop the daemon attaches, in the order asked, to their done().
 */
#ifndef WGD_PRIVSEP_H
#define WGD_PRIVSEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "daemon/base/loop.h"
#include "daemon/base/privsep_wire.h"

#define PRIVSEP_SYNC_TIMEOUT_S 30

struct privsep_config {
	const char *ifname;
	const char *socket_path;	/* the control socket, to be removed at exit */
	const char *pid_file;		/* NULL: none */
	const char *config_path;	/* NULL without a file: root reads it */
	bool foreground;		/* the monitor logs to stderr, else syslog */
	int log_level;
};

/* Forks and executes the monitor and sets it up (it writes the pid file);
 * 0, or -errno with the reason in err. */
int privsep_start(const struct privsep_config *c, char *err, size_t errlen);
/* Jobs' answers are read on l from now on; detach before l goes. */
int privsep_attach(struct loop *l);
void privsep_detach(void);
/* Closes the channels (the monitor exits) and reaps it. */
void privsep_stop(void);

/* ---- sync requests: 0 or -errno (-ENOTCONN without a monitor) ---- */

/* Set-up is done; detach: the daemon leaves its terminal, so does the monitor. */
int privsep_ready(bool detach);
/* The configuration file read again by root: *fd a memfd with its text. */
int privsep_read_config(int *fd, char *err, size_t errlen);
/* SaveConfig: fd a memfd holding len bytes, the device's part in wg(8)'s format. */
int privsep_save_config(int fd, size_t len, char *err, size_t errlen);
/* A non-blocking UDP socket of family bound to the wildcard address and
 * port (1-1023), IPv6 only for AF_INET6; the descriptor, or -errno. */
int privsep_bind_udp(int family, uint16_t port);
int privsep_unlink_socket(void);
int privsep_unlink_pid_file(void);

/* ---- jobs ---- */

typedef void privsep_done_fn(void *ctx, int status);
/*
 * Asks for job type (PRIVSEP_RUN_HOOK: a = kind, b = index; DNS_APPLY,
 * DNS_REMOVE) and returns: done(ctx, status) runs on the attached loop
 * once it has run.  0 or -errno (-EBUSY: too many out).
 */
int privsep_job(enum privsep_type type, uint32_t a, uint32_t b, privsep_done_fn *done, void *ctx);
/*
 * The same, waited for: the loop l serves meanwhile (a hook may talk to the
 * daemon), unless something else stops it, which sets *stopped and the wait
 * goes on without serving.  The job's status, or -errno.
 */
int privsep_job_wait(enum privsep_type type, uint32_t a, uint32_t b, struct loop *l, bool *stopped);

/* ---- for both sides ---- */

/* One message of len bytes on fd, with the descriptor pass unless -1; 0 or -errno. */
int privsep_send(int fd, const void *msg, size_t len, int pass);
/*
 * One message into msg (at most len bytes; flags for recvmsg, e.g.
 * MSG_DONTWAIT) and at most one descriptor (*got, -1 if none;
 * close-on-exec).  Its length, 0 at the end of the stream, or -errno:
 * -EMSGSIZE for a message or control data cut short, or more than one
 * descriptor (all closed).
 */
ssize_t privsep_recv(int fd, void *msg, size_t len, int *got, int flags);

/* Standard input, output and error to /dev/null: the daemon once it has
 * reported that it is up in the background, and the monitor with it. */
void privsep_detach_stdio(void);

/* A memfd holding len bytes of text, at offset 0; -errno. */
int privsep_memfd(const char *text, size_t len);
/* The whole of fd from offset 0, at most max bytes (-EFBIG beyond) into a
 * new buffer (NUL-terminated); the caller wipes and frees it.  0 or -errno. */
int privsep_read_text(int fd, size_t max, char **text, size_t *len);

#endif
