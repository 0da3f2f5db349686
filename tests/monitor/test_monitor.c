// SPDX-License-Identifier: GPL-2.0-only
/*
 * The privileged monitor (daemon/monitor/monitor.h) as a hostile daemon
 * meets it: the real binary, `wgd --monitor`, on socket pairs of this test,
 * sent what a taken-over daemon could send.  Checked: root's hooks run only
 * in wg-quick's order, each once, PreUp and PostUp only before READY, and
 * only root's own commands (a reload's
 * file replaces them; a file that does not parse does not); SaveConfig
 * takes wg(8)'s keys only (a PostUp or DNS smuggled in is refused and the
 * file left alone), once, and only when the file says SaveConfig = true,
 * keeping root's wg-quick keys; a UDP socket only for a port below 1024 of
 * AF_INET or AF_INET6 (and, as root, port 999 is bound and handed over);
 * the socket and pid files are removed only while they are the ones set
 * up; the hooks are root's file's (read at set-up); a message of the wrong length or type, on the wrong channel, before
 * set-up or a second set-up, stops the monitor; without its channels it
 * refuses to run.
 *
 *   test_monitor WGD
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/base/privsep.h"
#include "daemon/config/conffile.h"
#include "tests/lib/testutil.h"

#define CHECK(c) tu_check((c), "%s:%d: %s", __FILE__, __LINE__, #c)

static const char *wgd;
static char dir[] = "/tmp/test_monitor.XXXXXX";
static char conf[64], sock[64], pidf[64], marks[64];

struct mon {
	pid_t pid;
	int fd[2];	/* sync, async */
	uint32_t seq;
};

/* Starts `wgd --monitor tst` with its channels on 3 and 4. */
static void mon_start(struct mon *m)
{
	int s[2], a[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, a) < 0)
		abort();
	m->pid = fork();
	if (m->pid < 0)
		abort();
	if (m->pid == 0) {
		int hs = fcntl(s[1], F_DUPFD, 10), ha = fcntl(a[1], F_DUPFD, 10);

		if (dup2(hs, PRIVSEP_FD_SYNC) < 0 || dup2(ha, PRIVSEP_FD_ASYNC) < 0)
			_exit(126);
		execl(wgd, wgd, PRIVSEP_MONITOR_ARG, "tst", (char *)NULL);
		_exit(127);
	}
	close(s[1]);
	close(a[1]);
	m->fd[0] = s[0];
	m->fd[1] = a[0];
	m->seq = 0;
}

/* Closes the channels; the monitor's exit status (-1: killed or still there). */
static int mon_stop(struct mon *m)
{
	int st;

	close(m->fd[0]);
	close(m->fd[1]);
	if (waitpid(m->pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether the monitor is gone on its own (its channel closed) within 2 s. */
static bool mon_quits(struct mon *m)
{
	struct privsep_reply rep;
	struct timeval tv = { .tv_sec = 2 };
	int fd;

	setsockopt(m->fd[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return privsep_recv(m->fd[0], &rep, sizeof(rep), &fd, 0) == 0 && mon_stop(m) == 1;
}

/* One request of channel ch (0 sync, 1 async) and its answer; the status,
 * or -1000 when no answer came (the monitor stopped). */
static int mon_ask(struct mon *m, int ch, uint32_t type, uint32_t a, uint32_t b, int pass, int *got,
		   char *err)
{
	struct privsep_req req = { .type = type, .seq = ++m->seq, .arg = { a, b } };
	struct privsep_reply rep;
	int fd;

	if (privsep_send(m->fd[ch], &req, sizeof(req), pass) < 0 ||
	    privsep_recv(m->fd[ch], &rep, sizeof(rep), &fd, 0) != (ssize_t)sizeof(rep))
		return -1000;
	if (got)
		*got = fd;
	else if (fd >= 0)
		close(fd);
	if (err)
		snprintf(err, PRIVSEP_ERR_LEN, "%.*s", PRIVSEP_ERR_LEN - 1, rep.err);
	CHECK(rep.seq == req.seq && rep.type == type);
	return rep.status;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	chmod(path, 0600);
}

/* The hooks' marks so far. */
static const char *read_marks(void)
{
	static char buf[512];
	FILE *f = fopen(marks, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Sends SETUP for the file at conf, whose text is quick (written first). */
static void send_setup(struct mon *m, const char *quick, const char *pid_file)
{
	struct privsep_setup s = { .req = { .type = PRIVSEP_SETUP, .seq = ++m->seq } };

	write_file(conf, quick);
	s.log_level = 1;
	s.foreground = 1;
	snprintf(s.ifname, sizeof(s.ifname), "tst");
	snprintf(s.socket_path, sizeof(s.socket_path), "%s", sock);
	snprintf(s.pid_file, sizeof(s.pid_file), "%s", pid_file ? pid_file : "");
	snprintf(s.config_path, sizeof(s.config_path), "%s", conf);
	if (privsep_send(m->fd[0], &s, sizeof(s), -1) < 0)
		abort();
}

/* SETUP and its answer's status. */
static int mon_setup(struct mon *m, const char *quick, const char *pid_file)
{
	struct privsep_reply rep;
	int got;

	send_setup(m, quick, pid_file);
	if (privsep_recv(m->fd[0], &rep, sizeof(rep), &got, 0) != (ssize_t)sizeof(rep))
		abort();
	return rep.status;
}

/* A socket file at sock, as the daemon's control socket is. */
static int make_socket(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	unlink(sock);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", sock);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		abort();
	return fd;
}

static char quick[1024];

static void test_hooks(void)
{
	struct mon m;
	char file[768];
	int s = make_socket();

	snprintf(quick, sizeof(quick),
		 "[Interface]\nPreUp = echo up >>%1$s\nPostUp = echo pu >>%1$s\nPreDown = echo d0 %%i >>%1$s\n"
		 "PreDown = echo d1 >>%1$s\nPostDown = echo pd >>%1$s\n", marks);
	unlink(marks);
	mon_start(&m);
	CHECK(mon_setup(&m, quick, NULL) == 0);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_UP, 0, -1, NULL, NULL) == 0);
	/* set-up's hooks are over with READY (PostUp 0 exists: still refused) */
	CHECK(mon_ask(&m, 0, PRIVSEP_READY, 0, 0, -1, NULL, NULL) == 0);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_POST_UP, 0, -1, NULL, NULL) == -EPERM);
	/* skipping PostUp is allowed; within PreDown, file order, none skipped */
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_DOWN, 1, -1, NULL, NULL) == -EPERM);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_DOWN, 0, -1, NULL, NULL) == 0);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_DOWN, 0, -1, NULL, NULL) == -EPERM);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_UP, 0, -1, NULL, NULL) == -EPERM);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_DOWN, 1, -1, NULL, NULL) == 0);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_PRE_DOWN, 2, -1, NULL, NULL) == -EPERM);
	/* a reload's file replaces root's hooks; one that does not parse does not */
	snprintf(file, sizeof(file), "[Interface]\nPrivateKey = %s\nPostDown = echo new >>%s\n",
		 "KMYYgFSst0UfEQzhsalOJK3J6O+6NAE8/vIbgpB3llg=", marks);
	write_file(conf, file);
	{
		int fd = -1;
		char err[PRIVSEP_ERR_LEN];

		CHECK(mon_ask(&m, 0, PRIVSEP_READ_CONFIG, 0, 0, -1, &fd, err) == 0 && fd >= 0);
		if (fd >= 0) {
			char *t = NULL;
			size_t len = 0;

			CHECK(privsep_read_text(fd, PRIVSEP_TEXT_MAX, &t, &len) == 0 && len == strlen(file) &&
			      !memcmp(t, file, len));
			free(t);
			close(fd);
		}
		write_file(conf, "[Interface]\nPostDown = echo bad\nFrobnicate = 1\n");
		fd = -1;
		CHECK(mon_ask(&m, 0, PRIVSEP_READ_CONFIG, 0, 0, -1, &fd, err) == -EINVAL && fd < 0);
		tu_check(strstr(err, ":3: unknown key") != NULL, "a reload's error: '%s'", err);
	}
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_POST_DOWN, 0, -1, NULL, NULL) == 0);
	CHECK(mon_ask(&m, 1, PRIVSEP_RUN_HOOK, CONFFILE_POST_DOWN, 0, -1, NULL, NULL) == -EPERM);
	tu_check(!strcmp(read_marks(), "up\nd0 tst\nd1\nnew\n"), "hooks ran: '%s'", read_marks());
	CHECK(mon_stop(&m) == 0);
	close(s);
}

static void test_save_config(void)
{
	static const char *good = "[Interface]\nListenPort = 51999\nPrivateKey = "
				  "KMYYgFSst0UfEQzhsalOJK3J6O+6NAE8/vIbgpB3llg=\n\n[Peer]\n"
				  "PublicKey = CRtF9Co7tyJjlfqcaGh1U08FAhsBmkIQfpDxCQZkQ3w=\nAllowedIPs = 10.1.1.1/32\n";
	const char *smuggled[] = {
		"[Interface]\nListenPort = 1\nPostUp = touch /tmp/owned\n",
		"[Interface]\nDNS = 192.0.2.53\n",
		"[Interface]\nListenPort = 1\n\n[Peer]\nPreDown = x\n",
	};
	char err[PRIVSEP_ERR_LEN], *t = NULL;
	struct stat st;
	struct mon m;
	size_t len;
	int s = make_socket(), fd;

	mon_start(&m);
	CHECK(mon_setup(&m, "[Interface]\nSaveConfig = true\nPostUp = echo root's\n", NULL) == 0);
	for (size_t i = 0; i < sizeof(smuggled) / sizeof(smuggled[0]); i++) {
		fd = privsep_memfd(smuggled[i], strlen(smuggled[i]));
		tu_check(mon_ask(&m, 0, PRIVSEP_SAVE_CONFIG, (uint32_t)strlen(smuggled[i]), 0, fd, NULL, err) ==
			 -EINVAL, "SaveConfig of '%s' not refused: '%s'", smuggled[i], err);
		close(fd);
	}
	fd = open(conf, O_RDONLY);
	CHECK(fd >= 0 && privsep_read_text(fd, 4096, &t, &len) == 0 &&
	      !strcmp(t, "[Interface]\nSaveConfig = true\nPostUp = echo root's\n"));
	free(t);
	close(fd);
	/* a length that is not the memfd's */
	fd = privsep_memfd(good, strlen(good));
	CHECK(mon_ask(&m, 0, PRIVSEP_SAVE_CONFIG, (uint32_t)strlen(good) - 1, 0, fd, NULL, err) < 0);
	CHECK(mon_ask(&m, 0, PRIVSEP_SAVE_CONFIG, (uint32_t)strlen(good), 0, fd, NULL, err) == 0);
	CHECK(mon_ask(&m, 0, PRIVSEP_SAVE_CONFIG, (uint32_t)strlen(good), 0, fd, NULL, err) == -EPERM);
	close(fd);
	fd = open(conf, O_RDONLY);
	t = NULL;
	CHECK(fd >= 0 && privsep_read_text(fd, 4096, &t, &len) == 0);
	tu_check(t && strstr(t, "SaveConfig = true\nPostUp = echo root's\nListenPort = 51999\n") &&
		 strstr(t, "AllowedIPs = 10.1.1.1/32"), "the file written: '%s'", t ? t : "");
	free(t);
	CHECK(fstat(fd, &st) == 0 && (st.st_mode & 07777) == 0600);
	close(fd);
	CHECK(mon_stop(&m) == 0);

	/* a file that does not say SaveConfig = true is never written */
	mon_start(&m);
	CHECK(mon_setup(&m, "[Interface]\n", NULL) == 0);
	fd = privsep_memfd(good, strlen(good));
	CHECK(mon_ask(&m, 0, PRIVSEP_SAVE_CONFIG, (uint32_t)strlen(good), 0, fd, NULL, err) == -EPERM);
	close(fd);
	CHECK(stat(conf, &st) == 0 && st.st_size == (off_t)strlen("[Interface]\n"));
	CHECK(mon_stop(&m) == 0);
	close(s);
}

static void test_bind_and_unlink(void)
{
	char moved[80];
	struct stat st;
	struct mon m;
	int s = make_socket(), fd = -1;

	mon_start(&m);
	CHECK(mon_setup(&m, "[Interface]\n", pidf) == 0);
	CHECK(stat(pidf, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(mon_ask(&m, 0, PRIVSEP_BIND_UDP, AF_INET, 1024, -1, &fd, NULL) == -EPERM && fd < 0);
	CHECK(mon_ask(&m, 0, PRIVSEP_BIND_UDP, AF_INET, 0, -1, &fd, NULL) == -EPERM && fd < 0);
	CHECK(mon_ask(&m, 0, PRIVSEP_BIND_UDP, AF_UNIX, 999, -1, &fd, NULL) == -EPERM && fd < 0);
	if (geteuid() == 0) {
		struct sockaddr_in6 a;
		socklen_t alen = sizeof(a);
		int type = 0;

		CHECK(mon_ask(&m, 0, PRIVSEP_BIND_UDP, AF_INET6, 999, -1, &fd, NULL) == 0 && fd >= 0);
		alen = sizeof(type);
		CHECK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &alen) == 0 && type == SOCK_DGRAM);
		alen = sizeof(a);
		CHECK(getsockname(fd, (struct sockaddr *)&a, &alen) == 0 && a.sin6_family == AF_INET6 &&
		      ntohs(a.sin6_port) == 999);
		if (fd >= 0)
			close(fd);
	}
	/* replaced since set-up (a newer daemon's): not removed */
	snprintf(moved, sizeof(moved), "%s.old", sock);
	CHECK(rename(sock, moved) == 0);
	close(make_socket());
	CHECK(mon_ask(&m, 0, PRIVSEP_UNLINK_SOCKET, 0, 0, -1, NULL, NULL) == -ESTALE);
	CHECK(lstat(sock, &st) == 0);
	CHECK(rename(moved, sock) == 0);
	CHECK(mon_ask(&m, 0, PRIVSEP_UNLINK_SOCKET, 0, 0, -1, NULL, NULL) == 0);
	CHECK(lstat(sock, &st) < 0 && errno == ENOENT);
	CHECK(mon_ask(&m, 0, PRIVSEP_UNLINK_PID_FILE, 0, 0, -1, NULL, NULL) == 0);
	CHECK(lstat(pidf, &st) < 0 && errno == ENOENT);
	CHECK(mon_ask(&m, 0, PRIVSEP_UNLINK_PID_FILE, 0, 0, -1, NULL, NULL) < 0);
	CHECK(mon_stop(&m) == 0);
	close(s);
}

/* Messages no daemon of ours sends: the monitor stops (status 1). */
static void test_violations(void)
{
	struct privsep_req req = { .type = PRIVSEP_READY };
	struct mon m;
	int s = make_socket(), fd;

	/* before set-up */
	mon_start(&m);
	CHECK(privsep_send(m.fd[0], &req, sizeof(req), -1) == 0);
	CHECK(mon_quits(&m));
	/* a second set-up */
	mon_start(&m);
	CHECK(mon_setup(&m, "[Interface]\n", NULL) == 0);
	send_setup(&m, "[Interface]\n", NULL);
	CHECK(mon_quits(&m));
	/* a short message; a job on the sync channel; a request on the async
	 * one that belongs to the sync one; a descriptor with a READY */
	for (int k = 0; k < 4; k++) {
		mon_start(&m);
		CHECK(mon_setup(&m, "[Interface]\n", NULL) == 0);
		req.type = k == 1 ? PRIVSEP_RUN_HOOK : PRIVSEP_READY;
		fd = k == 3 ? privsep_memfd("x", 1) : -1;
		CHECK(privsep_send(m.fd[k == 2], &req, k == 0 ? sizeof(req) - 1 : sizeof(req), fd) == 0);
		if (fd >= 0)
			close(fd);
		tu_check(mon_quits(&m), "violation %d: the monitor goes on", k);
	}
	close(s);
}

int main(int argc, char **argv)
{
	int st;
	pid_t pid;

	if (argc != 2)
		return 2;
	wgd = argv[1];
	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return 99;
	snprintf(conf, sizeof(conf), "%s/tst.conf", dir);
	snprintf(sock, sizeof(sock), "%s/tst.sock", dir);
	snprintf(pidf, sizeof(pidf), "%s/tst.pid", dir);
	snprintf(marks, sizeof(marks), "%s/marks", dir);
	write_file(conf, "[Interface]\n");
	test_hooks();
	test_save_config();
	test_bind_and_unlink();
	test_violations();
	/* without its channels: refused */
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, PRIVSEP_FD_SYNC);
		dup2(null, PRIVSEP_FD_ASYNC);
		execl(wgd, wgd, PRIVSEP_MONITOR_ARG, "tst", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 1);
	unlink(conf);
	unlink(marks);
	rmdir(dir);
	return tu_exit_status("monitor");
}
