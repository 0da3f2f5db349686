// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's side of privilege separation (privsep.h): the monitor's
 * start, the two channels, and each request as one call.
 *
 * The monitor is a new image of this binary (fexecve of /proc/self/exe,
 * opened before the fork), not a fork that goes on running: a fork would
 * keep a copy of everything the daemon holds, the private key included,
 * for as long as it lives.  It finds its channels on PRIVSEP_FD_SYNC and
 * PRIVSEP_FD_ASYNC.
 */
#define _GNU_SOURCE
#include "daemon/base/privsep.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/log.h"

extern char **environ;

/* Jobs out at once: hooks are waited for one by one; a reload's DNS job is
 * one at a time (daemon/bringup/bringup.c), with DNS_REMOVE behind it. */
#define PRIVSEP_JOBS_MAX 8
/* How long privsep_stop() waits for the monitor to exit. */
#define PRIVSEP_REAP_MS 2000

enum { SYNC, ASYNC };

static struct {
	pid_t pid;			/* the monitor; 0: none */
	int fd[2];			/* SYNC, ASYNC; -1 once closed */
	uint32_t seq;
	struct loop *loop;		/* where jobs' answers are read */
	struct loop_fd h;		/* fd[ASYNC] on loop */
	struct {
		privsep_done_fn *done;
		void *ctx;
		uint32_t seq;
	} jobs[PRIVSEP_JOBS_MAX];
	unsigned int first, count;
} ps = { .fd = { -1, -1 } };

/* ---- messages ---- */

int privsep_send(int fd, const void *msg, size_t len, int pass)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (pass >= 0) {
		memset(&c, 0, sizeof(c));
		mh.msg_control = c.buf;
		mh.msg_controllen = sizeof(c.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &pass, sizeof(int));
	}
	do
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

ssize_t privsep_recv(int fd, void *msg, size_t len, int *got, int flags)
{
	/* Room for one descriptor: the kernel drops any more (MSG_CTRUNC). */
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { .iov_base = msg, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = c.buf,
		.msg_controllen = sizeof(c.buf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*got = -1;
	do
		n = recvmsg(fd, &mh, flags | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(got, CMSG_DATA(cm), sizeof(int));
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || (cm && *got < 0)) {
		if (*got >= 0)
			close(*got);
		*got = -1;
		return -EMSGSIZE;
	}
	return n;
}

/* ---- texts in memory files ---- */

int privsep_memfd(const char *text, size_t len)
{
	int fd = memfd_create("wgd", MFD_CLOEXEC);
	size_t off = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (off < len) {
		n = write(fd, text + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			n = n < 0 ? -errno : -EIO;
			close(fd);
			return (int)n;
		}
		off += (size_t)n;
	}
	return fd;
}

int privsep_read_text(int fd, size_t max, char **text, size_t *len)
{
	struct stat st;
	size_t off = 0, size;
	ssize_t n;
	char *t;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < 0)
		return -EINVAL;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	size = (size_t)st.st_size;
	t = malloc(size + 1);
	if (!t)
		return -ENOMEM;
	while (off < size) {
		n = pread(fd, t + off, size - off, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	if (off != size) {
		crypto_wipe(t, off);
		free(t);
		return -EIO;
	}
	t[size] = '\0';
	*text = t;
	*len = size;
	return 0;
}

void privsep_detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	dup2(fd, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	if (fd > STDERR_FILENO)
		close(fd);
}

/* ---- the sync channel ---- */

/* The monitor does not answer: nothing more is asked of it. */
static void ps_broken(int which, int err)
{
	if (ps.fd[which] < 0)
		return;
	log_error("the privileged monitor %s (%s); what needs root is no longer done",
		  err == -ETIMEDOUT || err == -EAGAIN ? "does not answer" : "is gone",
		  strerror(err == -EAGAIN ? ETIMEDOUT : -err));
	if (which == ASYNC && ps.loop) {
		loop_remove(ps.loop, &ps.h);
		ps.loop = NULL;
	}
	close(ps.fd[which]);
	ps.fd[which] = -1;
}

/*
 * One request of reqlen bytes (with the descriptor pass unless -1) and its
 * answer in *rep, with the descriptor that came with it in *got (if got is
 * not NULL; else one that came is closed).  The answer's status, or -errno.
 */
static int ps_call(struct privsep_req *req, size_t reqlen, int pass, struct privsep_reply *rep, int *got)
{
	int fd = -1, ret;
	ssize_t n;

	if (got)
		*got = -1;
	memset(rep, 0, sizeof(*rep));
	if (ps.fd[SYNC] < 0)
		return -ENOTCONN;
	req->seq = ++ps.seq;
	ret = privsep_send(ps.fd[SYNC], req, reqlen, pass);
	if (ret < 0) {
		ps_broken(SYNC, ret);
		return ret;
	}
	n = privsep_recv(ps.fd[SYNC], rep, sizeof(*rep), &fd, 0);
	if (n != (ssize_t)sizeof(*rep) || rep->seq != req->seq || rep->type != req->type) {
		if (fd >= 0)
			close(fd);
		ret = n < 0 ? (int)n : -EPIPE;
		ps_broken(SYNC, ret);
		return ret;
	}
	rep->err[sizeof(rep->err) - 1] = '\0';
	if (got)
		*got = fd;
	else if (fd >= 0)
		close(fd);
	return rep->status;
}

/* A request that carries no more than its header and answers a status. */
static int ps_simple(enum privsep_type type, uint32_t a, uint32_t b)
{
	struct privsep_req req = { .type = type, .arg = { a, b } };
	struct privsep_reply rep;

	return ps_call(&req, sizeof(req), -1, &rep, NULL);
}

int privsep_ready(bool detach)
{
	return ps_simple(PRIVSEP_READY, detach, 0);
}

int privsep_read_config(int *fd, char *err, size_t errlen)
{
	struct privsep_req req = { .type = PRIVSEP_READ_CONFIG };
	struct privsep_reply rep;
	int ret = ps_call(&req, sizeof(req), -1, &rep, fd);

	if (ret == 0 && *fd < 0)
		ret = -EPROTO;
	if (ret < 0) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		snprintf(err, errlen, "%s", rep.err[0] ? rep.err : strerror(-ret));
	}
	return ret;
}

int privsep_save_config(int fd, size_t len, char *err, size_t errlen)
{
	struct privsep_req req = { .type = PRIVSEP_SAVE_CONFIG, .arg = { (uint32_t)len } };
	struct privsep_reply rep;
	int ret;

	if (len > PRIVSEP_TEXT_MAX)
		ret = -EFBIG;
	else
		ret = ps_call(&req, sizeof(req), fd, &rep, NULL);
	if (ret < 0)
		snprintf(err, errlen, "%s", ret != -EFBIG && rep.err[0] ? rep.err : strerror(-ret));
	return ret;
}

int privsep_bind_udp(int family, uint16_t port)
{
	struct privsep_req req = { .type = PRIVSEP_BIND_UDP, .arg = { (uint32_t)family, port } };
	struct privsep_reply rep;
	int fd, ret = ps_call(&req, sizeof(req), -1, &rep, &fd);

	if (ret == 0 && fd < 0)
		ret = -EPROTO;
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		return ret;
	}
	return fd;
}

int privsep_unlink_socket(void)
{
	return ps_simple(PRIVSEP_UNLINK_SOCKET, 0, 0);
}

int privsep_unlink_pid_file(void)
{
	return ps_simple(PRIVSEP_UNLINK_PID_FILE, 0, 0);
}

/* ---- jobs ---- */

/* Reads one job's answer and runs its done(); 0, -EAGAIN (none yet with
 * MSG_DONTWAIT), or -errno when the channel broke (every job then fails). */
static int ps_job_answer(int flags)
{
	struct privsep_reply rep;
	privsep_done_fn *done;
	void *ctx;
	ssize_t n;
	int fd;

	n = privsep_recv(ps.fd[ASYNC], &rep, sizeof(rep), &fd, flags);
	if (n == -EAGAIN)
		return -EAGAIN;
	if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(rep) || !ps.count || rep.seq != ps.jobs[ps.first].seq) {
		ps_broken(ASYNC, n < 0 ? (int)n : -EPIPE);
		while (ps.count) {
			done = ps.jobs[ps.first].done;
			ctx = ps.jobs[ps.first].ctx;
			ps.first = (ps.first + 1) % PRIVSEP_JOBS_MAX;
			ps.count--;
			done(ctx, -EPIPE);
		}
		return -EPIPE;
	}
	done = ps.jobs[ps.first].done;
	ctx = ps.jobs[ps.first].ctx;
	ps.first = (ps.first + 1) % PRIVSEP_JOBS_MAX;
	ps.count--;
	done(ctx, rep.status);
	return 0;
}

static void ps_on_answer(struct loop_fd *h, uint32_t revents)
{
	(void)h;
	(void)revents;
	/* Bounded: each answer is one job that ran to its end. */
	for (unsigned int i = 0; i < PRIVSEP_JOBS_MAX && ps.fd[ASYNC] >= 0; i++)
		if (ps_job_answer(MSG_DONTWAIT) < 0)
			break;
}

int privsep_job(enum privsep_type type, uint32_t a, uint32_t b, privsep_done_fn *done, void *ctx)
{
	struct privsep_req req = { .type = type, .arg = { a, b } };
	unsigned int slot;
	int ret;

	if (ps.fd[ASYNC] < 0)
		return -ENOTCONN;
	if (ps.count == PRIVSEP_JOBS_MAX)
		return -EBUSY;
	req.seq = ++ps.seq;
	ret = privsep_send(ps.fd[ASYNC], &req, sizeof(req), -1);
	if (ret < 0) {
		ps_broken(ASYNC, ret);
		return ret;
	}
	slot = (ps.first + ps.count++) % PRIVSEP_JOBS_MAX;
	ps.jobs[slot].done = done;
	ps.jobs[slot].ctx = ctx;
	ps.jobs[slot].seq = req.seq;
	return 0;
}

struct ps_waiter {
	struct loop *loop;	/* stopped when the answer comes; NULL: not serving */
	bool done;
	int status;
};

static void ps_wake(void *ctx, int status)
{
	struct ps_waiter *w = ctx;

	w->done = true;
	w->status = status;
	if (w->loop)
		loop_stop(w->loop);
}

int privsep_job_wait(enum privsep_type type, uint32_t a, uint32_t b, struct loop *l, bool *stopped)
{
	struct ps_waiter w = { .loop = l && l == ps.loop ? l : NULL };
	int ret = privsep_job(type, a, b, ps_wake, &w);

	if (ret < 0)
		return ret;
	if (w.loop) {
		/* Not called from a loop callback: start and stop only. */
		loop_run(w.loop);
		w.loop = NULL;
		if (!w.done && stopped)
			*stopped = true;
	}
	while (!w.done)
		if (ps_job_answer(0) == -EPIPE && !w.done)
			return -EPIPE;
	return w.status;
}

/* ---- the monitor's life ---- */

/* In the child: the channels on their fixed descriptors, a clean signal
 * mask, and the new image; on failure the reason as SETUP's answer. */
static void __attribute__((noreturn)) ps_exec_monitor(int exe, int s, int a, const char *ifname)
{
	char *argv[] = { program_invocation_name, (char *)PRIVSEP_MONITOR_ARG, (char *)ifname, NULL };
	struct privsep_reply rep = { .type = PRIVSEP_SETUP, .seq = 1 };
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Above the fixed numbers first, so that dup2() cannot close one. */
	s = fcntl(s, F_DUPFD_CLOEXEC, 10);
	a = fcntl(a, F_DUPFD_CLOEXEC, 10);
	if (s < 0 || a < 0 || dup2(s, PRIVSEP_FD_SYNC) < 0 || dup2(a, PRIVSEP_FD_ASYNC) < 0)
		_exit(127);
	fexecve(exe, argv, environ);
	rep.status = -errno;
	snprintf(rep.err, sizeof(rep.err), "cannot execute /proc/self/exe: %s", strerror(errno));
	send(PRIVSEP_FD_SYNC, &rep, sizeof(rep), MSG_NOSIGNAL);
	_exit(127);
}

/* Copies s into a field of n bytes; false if it does not fit. */
static bool ps_copy(char *dst, size_t n, const char *s)
{
	return (size_t)snprintf(dst, n, "%s", s ? s : "") < n;
}

/* SETUP: the names and paths; root reads the file itself. */
static int ps_setup(const struct privsep_config *c, char *err, size_t errlen)
{
	struct privsep_setup *m = calloc(1, sizeof(*m));
	struct privsep_reply rep = { .err = "" };
	int ret = -ENAMETOOLONG;

	if (!m)
		return -ENOMEM;
	m->req.type = PRIVSEP_SETUP;
	m->log_level = c->log_level;
	m->foreground = c->foreground;
	if (ps_copy(m->ifname, sizeof(m->ifname), c->ifname) &&
	    ps_copy(m->socket_path, sizeof(m->socket_path), c->socket_path) &&
	    ps_copy(m->pid_file, sizeof(m->pid_file), c->pid_file) &&
	    ps_copy(m->config_path, sizeof(m->config_path), c->config_path))
		ret = ps_call(&m->req, sizeof(*m), -1, &rep, NULL);
	if (ret < 0)
		snprintf(err, errlen, "%s%s", rep.err[0] ? "" : "cannot start the privileged monitor: ",
			 rep.err[0] ? rep.err : strerror(-ret));
	free(m);
	return ret;
}

int privsep_start(const struct privsep_config *c, char *err, size_t errlen)
{
	int s[2] = { -1, -1 }, a[2] = { -1, -1 }, exe, ret;
	const struct timeval wait = { .tv_sec = PRIVSEP_SYNC_TIMEOUT_S };
	pid_t pid;

	exe = open("/proc/self/exe", O_PATH | O_CLOEXEC);
	if (exe < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a) < 0 || (pid = fork()) < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot start the privileged monitor: %s", strerror(-ret));
		goto fail;
	}
	if (pid == 0)
		ps_exec_monitor(exe, s[1], a[1], c->ifname);
	close(exe);
	close(s[1]);
	close(a[1]);
	ps.pid = pid;
	ps.fd[SYNC] = s[0];
	ps.fd[ASYNC] = a[0];
	setsockopt(s[0], SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	ret = ps_setup(c, err, errlen);
	if (ret < 0)
		privsep_stop();
	return ret;
fail:
	if (exe >= 0)
		close(exe);
	for (int i = 0; i < 2; i++) {
		if (s[i] >= 0)
			close(s[i]);
		if (a[i] >= 0)
			close(a[i]);
	}
	return ret;
}

int privsep_attach(struct loop *l)
{
	int ret;

	if (ps.fd[ASYNC] < 0 || ps.loop)
		return ps.fd[ASYNC] < 0 ? -ENOTCONN : -EALREADY;
	ret = loop_add(l, &ps.h, ps.fd[ASYNC], EPOLLIN, ps_on_answer);
	if (!ret)
		ps.loop = l;
	return ret;
}

void privsep_detach(void)
{
	if (ps.loop)
		loop_remove(ps.loop, &ps.h);
	ps.loop = NULL;
}

void privsep_stop(void)
{
	struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

	privsep_detach();
	for (int i = 0; i < 2; i++) {
		if (ps.fd[i] >= 0)
			close(ps.fd[i]);
		ps.fd[i] = -1;
	}
	/* The monitor exits as its channels close; a job it runs is left to
	 * finish alone.  Not waited for without end: a stuck monitor is
	 * reparented to init when we exit. */
	for (int i = 0; ps.pid > 0 && i < PRIVSEP_REAP_MS / 10; i++) {
		if (waitpid(ps.pid, NULL, WNOHANG) != 0)
			break;
		nanosleep(&tick, NULL);
	}
	ps.pid = 0;
	ps.count = 0;
}
