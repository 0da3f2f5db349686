/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket server (wireguard.com/xplatform, "Configuration
 * Protocol"): an AF_UNIX stream socket at RUNDIR/IFNAME.sock.
 *
 * Each connection carries any number of operations, as wireguard-go serves
 * them: "get=1\n\n" or "set=1\n" + lines + "\n"; each is answered with
 * "errno=N\n\n" (after the configuration, for get).  A connection is a small
 * state machine fed from a bounded input buffer; it never blocks:
 *   - while a reply is pending it stops reading, so the reply buffer holds at
 *     most one reply and a slow reader costs memory only for it;
 *   - a line longer than UAPI_LINE_MAX, a set message longer than
 *     CONTROL_MSG_MAX, an unknown operation, or "get=1" not followed by a
 *     blank line is answered with an errno and the connection is closed;
 *   - at most CONTROL_MAX_CLIENTS connections; a new one evicts the one that
 *     has been idle the longest, so stuck clients cannot lock out `wg`.
 * A set message is parsed completely (uapi.h) and handed to ops->set only
 * after its blank line, or at EOF (as wireguard-go): a malformed message
 * changes nothing.
 */
/* accept4() */
#define _GNU_SOURCE
#include "daemon/control/control.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/base/privsep.h"
#include "daemon/config/uapi.h"

#define CONTROL_MAX_CLIENTS	16
/* wg setconf with ten thousand peers is about 2.5 MiB. */
#define CONTROL_MSG_MAX		(8u << 20)
/* One full line and its '\n'. */
#define CONTROL_IN_SIZE		(UAPI_LINE_MAX + 1)
/* Reads per wakeup and connections accepted per wakeup, for fairness. */
#define CONTROL_READS_PER_WAKEUP	16
#define CONTROL_ACCEPTS_PER_WAKEUP	16

enum client_state {
	CLIENT_OP,		/* expecting "get=1" or "set=1" */
	CLIENT_GET,		/* after "get=1": expecting the blank line */
	CLIENT_SET,		/* inside a set message */
};

struct control_client {
	struct loop_fd h;
	struct control *ctl;
	struct control_client *next;
	uint64_t last_active;

	enum client_state state;
	bool eof;		/* the peer will send nothing more */
	bool closing;		/* close once the reply is written */

	/* Holds private keys in transit: wiped as it is consumed. */
	char in[CONTROL_IN_SIZE];
	size_t in_len;

	struct config_device cfg;
	struct uapi_parser parser;
	size_t msg_bytes;

	struct uapi_buf out;
	size_t out_sent;	/* bytes of out already written */
};

struct control {
	int listen_fd;
	int inotify_fd;
	int spare_fd;		/* given up to accept-and-close under EMFILE */
	struct loop *loop;
	struct loop_fd listen_h;
	struct loop_fd inotify_h;
	bool attached;
	bool gone;

	const struct control_ops *ops;
	void *ctx;

	dev_t dev;		/* identity of the socket file we bound */
	ino_t ino;
	int path_fd;		/* O_PATH of it: its link count, where lstat() may not look */

	struct control_client *clients;
	size_t nclients;
	uint64_t ticks;

	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* ---- operations (no I/O: input lines in, reply bytes out) ---- */

static void client_reply_errno(struct control_client *cl, int err)
{
	/* Out of memory for 14 bytes: nothing sensible to say, just hang up. */
	if (uapi_print_errno(&cl->out, err) < 0)
		cl->closing = true;
}

/* Protocol errors end the connection: its remaining bytes cannot be
 * re-synchronised with the framing.  (No client bytes are logged: a
 * malformed line may hold a key.) */
static void client_fail(struct control_client *cl, int err, const char *why)
{
	log_error("control socket: %s (%s); closing the connection", why, strerror(-err));
	if (cl->state == CLIENT_SET)
		config_device_clear(&cl->cfg);
	cl->state = CLIENT_OP;
	client_reply_errno(cl, err);
	cl->closing = true;
}

/* The device's answer as an errno: positive is a contract violation,
 * never sent as errno=0. */
static int ops_result(int ret)
{
	return ret > 0 ? -EIO : ret;
}

static void client_do_get(struct control_client *cl)
{
	struct control *ctl = cl->ctl;
	struct config_device snap;
	int ret;

	config_device_init(&snap);
	ret = ops_result(ctl->ops->get(ctl->ctx, &snap));
	if (ret == 0)
		ret = uapi_print_get(&cl->out, &snap);
	if (ret < 0) {
		log_error_errno(-ret, "control socket: get failed");
		client_reply_errno(cl, ret);
	}
	config_device_clear(&snap);
}

static void client_do_set(struct control_client *cl)
{
	struct control *ctl = cl->ctl;
	int ret = uapi_parse_set_finish(&cl->parser);

	if (ret == 0) {
		ret = ops_result(ctl->ops->set(ctl->ctx, &cl->cfg));
		if (ret < 0)
			log_error_errno(-ret, "control socket: set failed");
	} else if (cl->parser.err_line) {
		log_error_errno(-ret, "control socket: set rejected, nothing applied: line %lu",
				cl->parser.err_line);
	} else {
		log_error("control socket: set rejected, nothing applied: %s", strerror(-ret));
	}
	config_device_clear(&cl->cfg);
	client_reply_errno(cl, ret);
}

static void client_line_op(struct control_client *cl, const char *line, size_t len)
{
	if (len == 5 && memcmp(line, "get=1", 5) == 0) {
		cl->state = CLIENT_GET;
	} else if (len == 5 && memcmp(line, "set=1", 5) == 0) {
		cl->state = CLIENT_SET;
		cl->msg_bytes = 0;
		config_device_init(&cl->cfg);
		uapi_parser_init(&cl->parser, &cl->cfg);
	} else {
		client_fail(cl, -EINVAL, "unknown operation");
	}
}

static void client_line(struct control_client *cl, const char *line, size_t len)
{
	switch (cl->state) {
	case CLIENT_OP:
		client_line_op(cl, line, len);
		break;
	case CLIENT_GET:
		/* wireguard-go: anything but '\n' right after "get=1\n" is EINVAL. */
		if (len != 0) {
			client_fail(cl, -EINVAL, "get=1 not followed by a blank line");
			break;
		}
		cl->state = CLIENT_OP;
		client_do_get(cl);
		break;
	case CLIENT_SET:
		cl->msg_bytes += len + 1;
		if (cl->msg_bytes > CONTROL_MSG_MAX) {
			client_fail(cl, -EMSGSIZE, "set message over the size limit");
			break;
		}
		if (len == 0) {
			cl->state = CLIENT_OP;
			client_do_set(cl);
			break;
		}
		/* After the first error the parser ignores the rest of the
		 * message; the error is answered at its blank line. */
		uapi_parse_set_line(&cl->parser, line, len);
		break;
	}
}

/*
 * EOF inside a set message ends it as its blank line would, after a last
 * line without its newline, if any: the message is applied and answered, as
 * wireguard-go does (a client may close its side instead of sending the
 * blank line).
 */
static void client_set_eof(struct control_client *cl)
{
	if (cl->in_len > 0) {
		client_line(cl, cl->in, cl->in_len);
		crypto_wipe(cl->in, cl->in_len);
		cl->in_len = 0;
	}
	if (!cl->closing && cl->state == CLIENT_SET)
		client_line(cl, "", 0);
}

/*
 * Consumes complete lines from the input buffer until a reply is pending
 * (one reply at a time bounds the output buffer) or the connection is to be
 * closed.  A full buffer without a newline is an overlong line.
 */
static void client_process(struct control_client *cl)
{
	size_t pos = 0;

	while (!cl->closing && cl->out.len == 0 && pos < cl->in_len) {
		char *nl = memchr(cl->in + pos, '\n', cl->in_len - pos);
		size_t len;

		if (!nl)
			break;
		len = (size_t)(nl - (cl->in + pos));
		client_line(cl, cl->in + pos, len);
		pos += len + 1;
	}
	if (pos > 0) {
		memmove(cl->in, cl->in + pos, cl->in_len - pos);
		crypto_wipe(cl->in + cl->in_len - pos, pos);
		cl->in_len -= pos;
	}
	if (!cl->closing && cl->out.len == 0 && cl->in_len == sizeof(cl->in))
		client_fail(cl, -EINVAL, "line too long");
}

/* ---- connections ---- */

static void client_destroy(struct control_client *cl)
{
	struct control *ctl = cl->ctl;
	struct control_client **pp;

	for (pp = &ctl->clients; *pp; pp = &(*pp)->next) {
		if (*pp == cl) {
			*pp = cl->next;
			break;
		}
	}
	ctl->nclients--;
	if (ctl->attached)
		loop_remove(ctl->loop, &cl->h);
	close(cl->h.fd);
	if (cl->state == CLIENT_SET)
		config_device_clear(&cl->cfg);
	uapi_buf_clear(&cl->out);
	crypto_wipe(cl, sizeof(*cl));
	free(cl);
}

/*
 * 0: all written; 1: the socket is full; -1: the connection is dead.  The
 * reply is consumed (wiped) only once all of it is written: dropping each
 * written piece from the front would move the rest every time, quadratic
 * in the size of a `get` of many peers read by a slow client.
 */
static int client_flush(struct control_client *cl)
{
	while (cl->out_sent < cl->out.len) {
		ssize_t n = send(cl->h.fd, cl->out.data + cl->out_sent, cl->out.len - cl->out_sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -1;
		}
		cl->out_sent += (size_t)n;
	}
	uapi_buf_consume(&cl->out, cl->out.len);
	cl->out_sent = 0;
	return 0;
}

/* Waits for events; a client that cannot be waited on is dropped. */
static void client_want(struct control_client *cl, uint32_t events)
{
	if (cl->h.events != events && loop_modify(cl->ctl->loop, &cl->h, events) < 0)
		client_destroy(cl);
}

/* Read, process, write until the client would block; may destroy cl. */
static void client_run(struct control_client *cl)
{
	unsigned int reads = 0;

	cl->last_active = ++cl->ctl->ticks;
	for (;;) {
		ssize_t n;

		client_process(cl);
		switch (client_flush(cl)) {
		case 1:
			client_want(cl, EPOLLOUT);
			return;
		case -1:
			client_destroy(cl);
			return;
		}
		/* A reply held up the processing of complete lines. */
		if (!cl->closing && memchr(cl->in, '\n', cl->in_len))
			continue;
		if (cl->eof && !cl->closing && cl->state == CLIENT_SET) {
			client_set_eof(cl);
			continue;
		}
		/* Whatever else was left unprocessed in the buffer is an
		 * incomplete operation: at EOF it is dropped. */
		if (cl->closing || cl->eof) {
			client_destroy(cl);
			return;
		}
		if (reads++ == CONTROL_READS_PER_WAKEUP) {
			client_want(cl, EPOLLIN);	/* level-triggered: back soon */
			return;
		}
		n = read(cl->h.fd, cl->in + cl->in_len, sizeof(cl->in) - cl->in_len);
		if (n > 0) {
			cl->in_len += (size_t)n;
		} else if (n == 0) {
			cl->eof = true;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			client_want(cl, EPOLLIN);
			return;
		} else if (errno != EINTR) {
			client_destroy(cl);
			return;
		}
	}
}

static void client_cb(struct loop_fd *h, uint32_t revents)
{
	(void)revents;	/* client_run() tries both directions as needed */
	client_run(container_of(h, struct control_client, h));
}

static void control_evict_oldest(struct control *ctl)
{
	struct control_client *oldest = ctl->clients;

	for (struct control_client *cl = ctl->clients; cl; cl = cl->next) {
		if (cl->last_active < oldest->last_active)
			oldest = cl;
	}
	if (oldest)
		client_destroy(oldest);
}

static void control_add_client(struct control *ctl, int fd)
{
	struct control_client *cl;

	if (ctl->nclients >= CONTROL_MAX_CLIENTS)
		control_evict_oldest(ctl);
	cl = calloc(1, sizeof(*cl));
	if (!cl) {
		close(fd);
		return;
	}
	cl->ctl = ctl;
	cl->state = CLIENT_OP;
	cl->last_active = ++ctl->ticks;
	uapi_buf_init(&cl->out);
	if (loop_add(ctl->loop, &cl->h, fd, EPOLLIN, client_cb) < 0) {
		close(fd);
		free(cl);
		return;
	}
	cl->next = ctl->clients;
	ctl->clients = cl;
	ctl->nclients++;
}

/* Out of descriptors: accept with the spare one and hang up, so a pending
 * connection does not keep the level-triggered listener ready forever. */
static void control_shed(struct control *ctl)
{
	int fd;

	if (ctl->spare_fd < 0)
		return;
	close(ctl->spare_fd);
	fd = accept4(ctl->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		close(fd);
	ctl->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void control_listen_cb(struct loop_fd *h, uint32_t revents)
{
	struct control *ctl = container_of(h, struct control, listen_h);

	(void)revents;
	for (unsigned int i = 0; i < CONTROL_ACCEPTS_PER_WAKEUP; i++) {
		int fd = accept4(ctl->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE)
				control_shed(ctl);
			else if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		control_add_client(ctl, fd);
	}
}

/* ---- the socket file ---- */

/*
 * Whether the path still names the socket we bound.  After the privilege
 * drop a run directory only root may enter (WGD_RUN_DIR) cannot be looked
 * into: then the file is ours while it has a name (link count above 0,
 * from its O_PATH descriptor); a rename within that directory goes unseen.
 */
static bool control_file_is_ours(const struct control *ctl)
{
	struct stat st;

	if (lstat(ctl->path, &st) == 0)
		return S_ISSOCK(st.st_mode) && st.st_dev == ctl->dev && st.st_ino == ctl->ino;
	if (errno != EACCES || ctl->path_fd < 0 || fstat(ctl->path_fd, &st) < 0)
		return false;
	return st.st_nlink > 0;
}

/*
 * Any change in the directory may be the deletion or replacement of our
 * file (IN_DELETE, IN_MOVED_FROM, a rename over it: IN_MOVED_TO/IN_CREATE),
 * or of the directory itself.  Rather than decoding names, drain the events
 * and compare the file's identity, as wireguard-go does with lstat.
 */
static void control_inotify_cb(struct loop_fd *h, uint32_t revents)
{
	struct control *ctl = container_of(h, struct control, inotify_h);
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool ours;

	(void)revents;
	for (unsigned int i = 0; i < 64; i++) {
		if (read(ctl->inotify_fd, buf, sizeof(buf)) <= 0)
			break;
	}
	if (ctl->gone)
		return;
	ours = control_file_is_ours(ctl);
	if (ours)
		return;
	ctl->gone = true;
	/* Last: the callback may stop the loop. */
	ctl->ops->socket_gone(ctl->ctx);
}

/*
 * mkdir -p of dir (not empty), with 0755 on what we create (umask
 * notwithstanding); each '/' is cut in place for its mkdir() and put back.
 */
static int make_dir(char *dir)
{
	for (size_t i = 1;; i++) {
		char c = dir[i];
		int ret = 0;

		if (c != '/' && c != '\0')
			continue;
		dir[i] = '\0';
		if (mkdir(dir, 0755) == 0) {
			if (chmod(dir, 0755) < 0)
				ret = -errno;
		} else if (errno != EEXIST) {
			ret = -errno;
		}
		dir[i] = c;
		if (ret < 0 || c == '\0')
			return ret;
	}
}

/* *sun for path, and a non-blocking stream socket to bind or connect with
 * it; the descriptor or -errno. */
static int unix_socket(struct sockaddr_un *sun, const char *path)
{
	int fd;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path))
		return -ENAMETOOLONG;
	strcpy(sun->sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	return fd < 0 ? -errno : fd;
}

/*
 * Whether the path may be bound: absent, or a socket nobody answers on (a
 * daemon that died without unlinking; removed here as wg and wireguard-go
 * do).  A socket that accepts is another live daemon.
 */
static int clear_stale(const char *path)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd, ret;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = unix_socket(&sun, path);
	if (fd < 0)
		return fd;
	ret = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	if (ret == 0 || errno == EAGAIN || errno == EINPROGRESS)
		ret = -EADDRINUSE;	/* alive (EAGAIN: alive, backlog full) */
	else if (errno == ECONNREFUSED)
		ret = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	else if (errno == ENOENT)
		ret = 0;
	else
		ret = -errno;
	close(fd);
	return ret;
}

static int control_bind(struct control *ctl)
{
	struct sockaddr_un sun;
	struct stat st;
	mode_t old_mask;
	int ret;

	ret = unix_socket(&sun, ctl->path);
	if (ret < 0)
		return ret;
	ctl->listen_fd = ret;
	/* The socket file gets 0600 from the umask at bind() (the socket
	 * inode starts at 0777): there is no window in which another user
	 * could connect, as there would be with a chmod() after bind(). */
	old_mask = umask(0177);
	ret = bind(ctl->listen_fd, (struct sockaddr *)&sun, sizeof(sun));
	if (ret < 0)
		ret = -errno;
	umask(old_mask);
	if (ret < 0)
		return ret;
	if (lstat(ctl->path, &st) < 0)
		return -errno;
	ctl->dev = st.st_dev;
	ctl->ino = st.st_ino;
	ctl->path_fd = open(ctl->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (listen(ctl->listen_fd, SOMAXCONN) < 0)
		return -errno;
	return 0;
}

static void control_free(struct control *ctl, bool unlink_file)
{
	while (ctl->clients)
		client_destroy(ctl->clients);
	if (ctl->attached) {
		loop_remove(ctl->loop, &ctl->listen_h);
		if (ctl->inotify_fd >= 0)
			loop_remove(ctl->loop, &ctl->inotify_h);
	}
	if (ctl->inotify_fd >= 0)
		close(ctl->inotify_fd);
	if (ctl->spare_fd >= 0)
		close(ctl->spare_fd);
	/*
	 * Only while the file is still ours: a newer daemon may have replaced
	 * it, and its socket must survive our exit.  Removed before our
	 * listener closes, so that a daemon starting meanwhile finds ours
	 * alive.  After the privilege drop the directory is root's: the
	 * privileged monitor removes it, with the same check.
	 */
	if (unlink_file && ctl->listen_fd >= 0 && privsep_unlink_socket() == -ENOTCONN &&
	    control_file_is_ours(ctl))
		unlink(ctl->path);
	if (ctl->path_fd >= 0)
		close(ctl->path_fd);
	if (ctl->listen_fd >= 0)
		close(ctl->listen_fd);
	free(ctl);
}

int control_open(struct control **out, const char *ifname, const char *run_dir,
		 const struct control_ops *ops, void *ctx)
{
	struct control *ctl;
	int ret;

	run_dir = uapi_run_dir(run_dir);
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	ctl->listen_fd = -1;
	ctl->inotify_fd = -1;
	ctl->path_fd = -1;
	ctl->ops = ops;
	ctl->ctx = ctx;
	ctl->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ret = uapi_socket_path(ctl->path, sizeof(ctl->path), run_dir, ifname);
	if (ret == 0 && strlen(run_dir) >= sizeof(ctl->dir))
		ret = -ENAMETOOLONG;
	if (ret < 0)
		goto fail;
	strcpy(ctl->dir, run_dir);
	ret = make_dir(ctl->dir);
	if (ret == 0)
		ret = clear_stale(ctl->path);
	if (ret == 0)
		ret = control_bind(ctl);
	if (ret < 0)
		goto fail;
	*out = ctl;
	return 0;
fail:
	/* Never unlink here: a failed bind must not remove someone's socket. */
	control_free(ctl, false);
	return ret;
}

int control_attach(struct control *ctl, struct loop *l)
{
	int ret;

	if (ctl->attached)
		return -EALREADY;
	ctl->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (ctl->inotify_fd < 0)
		return -errno;
	if (inotify_add_watch(ctl->inotify_fd, ctl->dir,
			      IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE |
			      IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF |
			      IN_ONLYDIR) < 0)
		goto fail_errno;
	/* Deleted between control_open() and now (e.g. across the fork)? */
	if (!control_file_is_ours(ctl)) {
		ret = -ENOENT;
		goto fail;
	}
	ctl->loop = l;
	ret = loop_add(l, &ctl->listen_h, ctl->listen_fd, EPOLLIN, control_listen_cb);
	if (ret < 0)
		goto fail;
	ret = loop_add(l, &ctl->inotify_h, ctl->inotify_fd, EPOLLIN, control_inotify_cb);
	if (ret < 0) {
		loop_remove(l, &ctl->listen_h);
		goto fail;
	}
	ctl->attached = true;
	return 0;
fail_errno:
	ret = -errno;
fail:
	close(ctl->inotify_fd);
	ctl->inotify_fd = -1;
	return ret;
}

int control_listen_fd(const struct control *ctl)
{
	return ctl ? ctl->listen_fd : -1;
}

const char *control_path(const struct control *ctl)
{
	return ctl->path;
}

const char *control_dir(const struct control *ctl)
{
	return ctl->dir;
}

void control_close(struct control *ctl)
{
	if (ctl)
		control_free(ctl, true);
}

void control_release(struct control *ctl)
{
	if (ctl)
		control_free(ctl, false);
}
