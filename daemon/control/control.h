/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket: the cross-platform userspace API (wireguard.com/xplatform)
 * on RUNDIR/IFNAME.sock, served on the event loop.
 *
 * The server does the I/O and the framing (`get=1\n\n`, `set=1\n...\n\n`,
 * several operations per connection); it parses and prints with uapi.h and
 * asks the device through struct control_ops.  It never blocks: reads and
 * writes are non-blocking, messages and clients are capped.
 *
 * Life cycle:
 *   control_open()     before fork: the socket is bound and listening, so a
 *                      launcher may return as soon as the child is forked.
 *                      Its descriptors are close-on-exec: a launcher that
 *                      re-executes itself clears FD_CLOEXEC on
 *                      control_listen_fd() first.
 *   control_attach()   in the process that serves: registers the listener
 *                      and an inotify watch on the loop.
 *   control_close()    unlinks the socket file if it is still ours, closes.
 *   control_release()  the launcher's side after fork: closes, never unlinks.
 */
#ifndef WGD_CONTROL_H
#define WGD_CONTROL_H

#include "daemon/base/loop.h"
#include "daemon/config/config.h"

/* Implemented by the device (the shell). */
struct control_ops {
	/* Applies a complete, validated message; 0 or -errno (sent as errno=). */
	int (*set)(void *ctx, const struct config_device *cfg);
	/* Fills an initialized *out with a snapshot; 0 or -errno.  The server
	 * clears (and wipes) *out afterwards. */
	int (*get)(void *ctx, struct config_device *out);
	/* The socket file was deleted or replaced: the daemon should exit.
	 * Called once.  None of the three may call control_close(); they may
	 * stop the loop. */
	void (*socket_gone)(void *ctx);
};

struct control;

/*
 * Creates run_dir (0755) if needed and listens on run_dir/ifname.sock with
 * mode 0600 (uapi_socket_path(): run_dir NULL means $WGD_RUN_DIR, else
 * UAPI_RUN_DIR; -EINVAL for a name no interface can have).  A stale
 * socket (connection refused) is replaced; a socket another daemon answers on
 * gives -EADDRINUSE; a path that is not a socket gives -EEXIST.
 * Returns 0 or -errno; *out is set only on success.
 */
int control_open(struct control **out, const char *ifname, const char *run_dir,
		 const struct control_ops *ops, void *ctx);

/* Starts serving on the loop (accept, clients, deletion watch); 0 or -errno. */
int control_attach(struct control *c, struct loop *l);

/* The listening descriptor (e.g. to keep it across exec), or -1. */
int control_listen_fd(const struct control *c);

/* Full path of the socket file, and the directory it is in. */
const char *control_path(const struct control *c);
const char *control_dir(const struct control *c);

/* Disconnects every client, leaves the loop, unlinks the socket file only if
 * it is still the one we bound (same device and inode), frees.  NULL is ok. */
void control_close(struct control *c);

/* Like control_close() but never unlinks: for the launcher after fork, whose
 * child keeps serving the same socket.  Call it on a control that was never
 * attached (the loop's epoll set is shared with the child).  NULL is ok. */
void control_release(struct control *c);

#endif
