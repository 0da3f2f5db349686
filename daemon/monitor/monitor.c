// SPDX-License-Identifier: GPL-2.0-only
/*
 * The monitor's loop (monitor.h): set-up, then the two channels and the
 * running job's pidfd in one poll(); each request checked once, at the
 * edge, by its type and exact length, then handed to its handler.
 */
#define _GNU_SOURCE
#include "daemon/monitor/monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/base/privsep.h"
#include "daemon/monitor/state.h"

enum { SYNC, ASYNC };

/* What a request may carry, by type: its exact length, and whether a
 * descriptor comes with it. */
static bool monitor_shape(const struct privsep_req *req, size_t len, int fd)
{
	if (len != (req->type == PRIVSEP_SETUP ? sizeof(struct privsep_setup) : sizeof(*req)) ||
	    !req->type || req->type > PRIVSEP_TYPE_LAST)
		return false;
	return (fd >= 0) == (req->type == PRIVSEP_SAVE_CONFIG);
}

static int monitor_answer(struct monitor *m, int ch, const struct privsep_req *req, int status,
			  const char *err, int pass)
{
	struct privsep_reply rep = { .type = req->type, .seq = req->seq, .status = status };

	snprintf(rep.err, sizeof(rep.err), "%s", err ? err : "");
	return privsep_send(m->fd[ch], &rep, sizeof(rep), pass);
}

/* SETUP: names and paths, root's file read, the pid file written, the
 * socket remembered. */
static int monitor_setup(struct monitor *m, const struct privsep_setup *s, char *err, size_t errlen)
{
	struct privsep_setup c = *s;
	char ident[PRIVSEP_IFNAME_MAX + 9];
	int ret;

	c.ifname[sizeof(c.ifname) - 1] = c.socket_path[sizeof(c.socket_path) - 1] = '\0';
	c.pid_file[sizeof(c.pid_file) - 1] = c.config_path[sizeof(c.config_path) - 1] = '\0';
	memcpy(m->ifname, c.ifname, sizeof(m->ifname));
	memcpy(m->config_path, c.config_path, sizeof(m->config_path));
	snprintf(ident, sizeof(ident), "%s monitor", m->ifname);
	log_clear();
	log_init(ident, (enum log_level)c.log_level, c.foreground);
	if (m->config_path[0] && (ret = monitor_load(m, NULL, NULL, err, errlen)) < 0)
		return ret;
	ret = monitor_remember(&m->socket, c.socket_path, S_IFSOCK);
	if (ret < 0) {
		snprintf(err, errlen, "the control socket %s: %s", c.socket_path, strerror(-ret));
		return ret;
	}
	snprintf(m->pid_file.path, sizeof(m->pid_file.path), "%s", c.pid_file);
	if (m->pid_file.path[0] && (ret = monitor_write_pid_file(m, err, errlen)) < 0)
		return ret;
	m->set_up = true;
	return 0;
}

/* One sync request; -errno only when the channel failed. */
static int monitor_sync(struct monitor *m, const struct privsep_req *req, int fd)
{
	char err[PRIVSEP_ERR_LEN] = "";
	int status = 0, out = -1, ret;

	switch (req->type) {
	case PRIVSEP_READY:
		m->ready = true;
		/* with the daemon detached, the monitor (and its jobs) too */
		if (req->arg[0])
			privsep_detach_stdio();
		break;
	case PRIVSEP_READ_CONFIG:
		status = m->config_path[0] ? monitor_read_config(m, &out, err, sizeof(err)) : -EPERM;
		break;
	case PRIVSEP_SAVE_CONFIG:
		status = monitor_save_config(m, fd, req->arg[0], err, sizeof(err));
		break;
	case PRIVSEP_BIND_UDP:
		status = monitor_bind_udp(req->arg[0], req->arg[1], &out);
		if (status == -EPERM)
			log_error("refused: a UDP socket of family %u on port %u", req->arg[0], req->arg[1]);
		break;
	case PRIVSEP_UNLINK_SOCKET:
		status = monitor_unlink(&m->socket, S_IFSOCK);
		break;
	case PRIVSEP_UNLINK_PID_FILE:
		status = monitor_unlink(&m->pid_file, S_IFREG);
		break;
	}
	/* Refused by the rules, not failed: a daemon of ours does not ask so. */
	if ((status == -EPERM || (status == -EINVAL && req->type == PRIVSEP_SAVE_CONFIG)) && err[0])
		log_error("refused: %s", err);
	ret = monitor_answer(m, SYNC, req, status, err, status ? -1 : out);
	if (out >= 0)
		close(out);
	return ret;
}

/* A job: started, or answered at once when it cannot or need not run. */
static int monitor_async(struct monitor *m, const struct privsep_req *req)
{
	int status;

	if (monitor_job_start(m, req, &status) == 1)
		return monitor_answer(m, ASYNC, req, status, NULL, -1);
	if (m->child_fd < 0)
		return monitor_answer(m, ASYNC, req, monitor_job_reap(m), NULL, -1);
	return 0;
}

/*
 * Reads and runs one request of channel ch.  1 to go on, 0 when the daemon
 * is gone, -1 after a request no daemon of ours sends (logged).
 */
static int monitor_request(struct monitor *m, int ch)
{
	union {
		struct privsep_req req;
		struct privsep_setup setup;
	} u;
	char err[PRIVSEP_ERR_LEN] = "";
	int fd, ret;
	ssize_t n;

	n = privsep_recv(m->fd[ch], &u, sizeof(u), &fd, 0);
	if (n <= 0)
		return n == 0 || n == -ECONNRESET ? 0 : -1;
	if ((size_t)n < sizeof(u.req) || !monitor_shape(&u.req, (size_t)n, fd) ||
	    (ch == SYNC) != (u.req.type <= PRIVSEP_SYNC_LAST) ||
	    (u.req.type == PRIVSEP_SETUP) == m->set_up) {
		log_error("the daemon sent a request no wgd sends (type %u, %zd bytes%s); stopping",
			  (size_t)n >= sizeof(u.req) ? u.req.type : 0, n, fd >= 0 ? ", a descriptor" : "");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (u.req.type == PRIVSEP_SETUP) {
		ret = monitor_setup(m, &u.setup, err, sizeof(err));
		ret = monitor_answer(m, SYNC, &u.req, ret, err, -1) < 0 ? 0 : ret < 0 ? -1 : 1;
	} else if (ch == SYNC) {
		ret = monitor_sync(m, &u.req, fd) < 0 ? 0 : 1;
	} else {
		ret = monitor_async(m, &u.req) < 0 ? 0 : 1;
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The channels are ours: AF_UNIX SOCK_SEQPACKET on the fixed descriptors. */
static bool monitor_channels(struct monitor *m)
{
	int type, domain;
	socklen_t l;

	m->fd[SYNC] = PRIVSEP_FD_SYNC;
	m->fd[ASYNC] = PRIVSEP_FD_ASYNC;
	for (int i = 0; i < 2; i++) {
		l = sizeof(type);
		if (getsockopt(m->fd[i], SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_SEQPACKET)
			return false;
		l = sizeof(domain);
		if (getsockopt(m->fd[i], SOL_SOCKET, SO_DOMAIN, &domain, &l) < 0 || domain != AF_UNIX)
			return false;
		if (fcntl(m->fd[i], F_SETFD, FD_CLOEXEC) < 0)
			return false;
	}
	return true;
}

/* Serves until the daemon is gone (0) or breaks the protocol (-1). */
static int monitor_serve(struct monitor *m)
{
	struct pollfd p[3];
	int ret = 1;

	while (ret > 0) {
		p[SYNC] = (struct pollfd){ .fd = m->fd[SYNC], .events = POLLIN };
		/* Jobs wait in the socket while one runs. */
		p[ASYNC] = (struct pollfd){ .fd = m->child ? -1 : m->fd[ASYNC], .events = POLLIN };
		p[2] = (struct pollfd){ .fd = m->child ? m->child_fd : -1, .events = POLLIN };
		if (poll(p, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (p[2].revents)
			ret = monitor_answer(m, ASYNC, &m->job, monitor_job_reap(m), NULL, -1) < 0 ? 0 : 1;
		if (ret > 0 && p[SYNC].revents)
			ret = monitor_request(m, SYNC);
		if (ret > 0 && p[ASYNC].revents && m->set_up)
			ret = monitor_request(m, ASYNC);
		else if (ret > 0 && p[ASYNC].revents & (POLLHUP | POLLERR))
			ret = 0;
	}
	return ret;
}

int monitor_main(void)
{
	struct monitor m = { .hook_kind = -1, .child_fd = -1 };
	int ret;

	/* A service manager's SIGTERM reaches the whole group; the daemon's
	 * teardown (PreDown, SaveConfig, PostDown) still needs the monitor. */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	log_init("monitor", LOG_LEVEL_ERROR, true);
	conffile_init(&m.quick);
	if (!monitor_channels(&m)) {
		log_error("%s is started by wgd itself, with its channels on descriptors %d and %d",
			  PRIVSEP_MONITOR_ARG, PRIVSEP_FD_SYNC, PRIVSEP_FD_ASYNC);
		return EXIT_FAILURE;
	}
	ret = monitor_serve(&m);
	if (m.child_fd >= 0)
		close(m.child_fd);
	conffile_clear(&m.quick);
	log_clear();
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
