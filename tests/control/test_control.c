/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket's server (daemon/control/control.c), in process on a
 * temporary directory driven by the real event loop, in front of a fake
 * device: several operations per connection, message and client caps, slow
 * clients, the socket file's life (stale sockets replaced, another daemon's
 * refused, deletion noticed).  The text protocol itself is
 * tests/config/test_uapi.c.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/config/config.h"
#include "daemon/config/uapi.h"
#include "daemon/control/control.h"

#include "tests/lib/ctgrind.h"
#include "tests/lib/testutil.h"

/* the shared counters and reporting of the tests (tests/lib/testutil.h) */
#define check tu_check

/* A key of a fixed pattern, and its hex form (for K1: start 1, step 1). */
#define K1 "0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20"

static void key_fill(uint8_t key[32], uint8_t start, uint8_t step)
{
	for (int i = 0; i < 32; i++)
		key[i] = (uint8_t)(start + i * step);
}

/* What the fake device answers a get with: every field of a device and a peer. */
static void make_snapshot(struct config_device *dev)
{
	struct config_allowedip aip = { .family = AF_INET, .cidr = 24, .addr = { 10, 0, 0, 0 } };
	struct config_peer *p;

	config_device_init(dev);
	dev->flags = CONFIG_DEVICE_HAS_PRIVATE_KEY;
	key_fill(dev->private_key, 1, 1);
	dev->listen_port = 51820;
	dev->fwmark = 7;
	p = config_device_add_peer(dev, (const uint8_t[32]){ 0xab, [31] = 0xcd });
	p->flags = CONFIG_PEER_HAS_PRESHARED_KEY | CONFIG_PEER_HAS_ENDPOINT;
	memset(p->preshared_key, 0x11, 32);
	p->endpoint.in.sin_family = AF_INET;
	p->endpoint.in.sin_port = htons(1234);
	p->endpoint.in.sin_addr.s_addr = htonl(0xc0000201);
	p->persistent_keepalive = 25;
	config_peer_add_allowedip(p, &aip);
}

/* ---- the server ---- */

struct fake_dev {
	struct loop *loop;	/* stopped when the socket is gone, if set */
	struct config_device snap;
	int set_calls;
	int set_ret;
	int get_calls;
	int gone;
	struct uapi_buf last_set;	/* the applied config, printed */
};

static int fake_set(void *ctx, const struct config_device *cfg)
{
	struct fake_dev *f = ctx;

	f->set_calls++;
	uapi_buf_clear(&f->last_set);
	uapi_print_get(&f->last_set, cfg);
	return f->set_ret;
}

static int fake_get(void *ctx, struct config_device *out)
{
	struct fake_dev *f = ctx;

	f->get_calls++;
	return config_device_copy(out, &f->snap);
}

static void fake_gone(void *ctx)
{
	struct fake_dev *f = ctx;

	f->gone++;
	if (f->loop)
		loop_stop(f->loop);
}

static const struct control_ops fake_ops = {
	.set = fake_set, .get = fake_get, .socket_gone = fake_gone,
};

/* A test client driven by the same loop as the server. */
struct tclient {
	struct loop_fd h;
	struct loop *loop;
	int fd;
	const char *out;
	size_t out_len, out_off;
	char *in;
	size_t in_len, in_cap;
	size_t want_replies;	/* stop the loop once this many "\n\n" ended replies arrived */
	bool eof;
	bool reading;		/* false: a slow client that does not read */
};

static size_t count_replies(const struct tclient *c)
{
	size_t n = 0;

	for (size_t i = 0; i + 1 < c->in_len; i++) {
		if (c->in[i] == '\n' && c->in[i + 1] == '\n') {
			n++;
			i++;
		}
	}
	return n;
}

static void tclient_cb(struct loop_fd *h, uint32_t revents)
{
	struct tclient *c = container_of(h, struct tclient, h);

	if ((revents & EPOLLOUT) && c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0)
			c->out_off += (size_t)n;
		else if (n < 0 && errno != EAGAIN)
			c->out_off = c->out_len;	/* server hung up */
	}
	if ((revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->reading && !c->eof) {
		ssize_t n;

		if (c->in_cap - c->in_len < 65536) {
			c->in_cap = c->in_cap * 2 + 65536;
			c->in = realloc(c->in, c->in_cap);
		}
		n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
		if (n > 0)
			c->in_len += (size_t)n;
		else if (n == 0 || errno != EAGAIN)
			c->eof = true;
	}
	if (c->want_replies && count_replies(c) >= c->want_replies)
		loop_stop(c->loop);
	if (c->eof)
		loop_stop(c->loop);
	{
		uint32_t ev = (c->reading && !c->eof ? EPOLLIN : 0) |
			      (c->out_off < c->out_len ? EPOLLOUT : 0);

		if (ev != c->h.events)
			loop_modify(c->loop, &c->h, ev);
	}
}

static int tclient_open(struct tclient *c, struct loop *l, const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	memset(c, 0, sizeof(*c));
	c->loop = l;
	c->reading = true;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		return -1;
	return loop_add(l, &c->h, c->fd, EPOLLIN, tclient_cb);
}

static void tclient_send(struct tclient *c, const char *msg, size_t len)
{
	c->out = msg;
	c->out_len = len;
	c->out_off = 0;
	loop_modify(c->loop, &c->h, (c->reading ? EPOLLIN : 0) | EPOLLOUT);
}

static void tclient_close(struct tclient *c)
{
	loop_remove(c->loop, &c->h);
	close(c->fd);
	free(c->in);
	c->in = NULL;
}

static void on_deadline_stop(struct loop *l, uint64_t now)
{
	(void)now;
	loop_stop(l);
}

/* Runs the loop until a client stops it or ms pass (a bound, not a wait). */
static void pump(struct loop *l, unsigned int ms)
{
	l->on_deadline = on_deadline_stop;
	loop_set_deadline(l, loop_now() + (uint64_t)ms * 1000000u);
	loop_run(l);
	loop_set_deadline(l, UINT64_MAX);
}

/* Sends msg on a fresh connection and waits for n replies (or EOF). */
static void exchange(struct tclient *c, struct loop *l, const char *path,
		     const char *msg, size_t len, size_t n)
{
	check(tclient_open(c, l, path) == 0, "connect %s", path);
	c->want_replies = n;
	tclient_send(c, msg, len);
	for (int i = 0; i < 100 && count_replies(c) < n && !c->eof; i++)
		pump(l, 2000);
}

static bool reply_is(const struct tclient *c, const char *want)
{
	return c->in_len == strlen(want) && memcmp(c->in, want, c->in_len) == 0;
}

/* The reply for an errno of this platform (MIPS numbers differ from x86's
 * above 34, and wg on MIPS reads them as MIPS numbers). */
static const char *errno_reply(int err)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "errno=%d\n\n", err);
	return buf;
}

static void wait_eof(struct tclient *c, struct loop *l)
{
	c->want_replies = 0;
	for (int i = 0; i < 100 && !c->eof; i++)
		pump(l, 2000);
}

static void test_server_ops(struct loop *l, const char *path, struct fake_dev *f)
{
	struct tclient c;
	struct uapi_buf want;
	static const char set_msg[] = "set=1\nlisten_port=1234\npublic_key=" K1 "\n"
				      "allowed_ip=10.0.0.0/8\n\n";
	static const char bad_then_get[] = "set=1\nlisten_port=99999\npublic_key=" K1 "\n\n"
					   "get=1\n\n";

	uapi_buf_init(&want);
	uapi_print_get(&want, &f->snap);

	/* get */
	exchange(&c, l, path, "get=1\n\n", 7, 1);
	check(c.in_len == want.len && memcmp(c.in, want.data, want.len) == 0, "get reply");
	tclient_close(&c);

	/* set: applied once, with the right content */
	f->set_calls = 0;
	exchange(&c, l, path, set_msg, sizeof(set_msg) - 1, 1);
	check(reply_is(&c, "errno=0\n\n"), "set reply");
	check(f->set_calls == 1 && f->last_set.len > 0 &&
	      strstr(f->last_set.data, "listen_port=1234\npublic_key=" K1) &&
	      strstr(f->last_set.data, "allowed_ip=10.0.0.0/8\n"), "set applied");
	tclient_close(&c);

	/* the device's error is passed on */
	f->set_ret = -EADDRINUSE;
	exchange(&c, l, path, set_msg, sizeof(set_msg) - 1, 1);
	check(reply_is(&c, errno_reply(-EADDRINUSE)), "device error passed on");
	f->set_ret = 0;
	tclient_close(&c);

	/* malformed set: EINVAL, nothing applied, the connection goes on */
	f->set_calls = 0;
	exchange(&c, l, path, bad_then_get, sizeof(bad_then_get) - 1, 2);
	check(f->set_calls == 0, "malformed set not applied");
	check(c.in_len > 11 && memcmp(c.in, "errno=-22\n\n", 11) == 0 &&
	      c.in_len - 11 == want.len && memcmp(c.in + 11, want.data, want.len) == 0,
	      "error then get on one connection");
	tclient_close(&c);

	/* several operations in one write, answered in order */
	{
		static const char three[] = "get=1\n\nset=1\nfwmark=5\n\nget=1\n\n";

		f->set_calls = 0;
		exchange(&c, l, path, three, sizeof(three) - 1, 3);
		check(c.in_len == 2 * want.len + 9 &&
		      memcmp(c.in + want.len, "errno=0\n\n", 9) == 0 &&
		      memcmp(c.in + want.len + 9, want.data, want.len) == 0 &&
		      f->set_calls == 1, "three ops");
		tclient_close(&c);
	}

	/* framing errors: errno reply, then the server hangs up */
	{
		static const struct { const char *what, *msg; const char *reply; } cases[] = {
			{ "get junk", "get=1\nx\n", "errno=-22\n\n" },
			{ "unknown op", "hello=1\n", "errno=-22\n\n" },
			{ "blank op", "\n", "errno=-22\n\n" },
			{ "get=2", "get=2\n\n", "errno=-22\n\n" },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			exchange(&c, l, path, cases[i].msg, strlen(cases[i].msg), 1);
			wait_eof(&c, l);
			check(reply_is(&c, cases[i].reply) && c.eof, "%s", cases[i].what);
			tclient_close(&c);
		}
	}

	/* an overlong line */
	{
		char big[UAPI_LINE_MAX * 3];

		memset(big, 'a', sizeof(big));
		memcpy(big, "set=1\n", 6);
		f->set_calls = 0;
		exchange(&c, l, path, big, sizeof(big), 1);
		wait_eof(&c, l);
		check(reply_is(&c, "errno=-22\n\n") && c.eof && f->set_calls == 0, "overlong line");
		tclient_close(&c);
	}

	/*
	 * EOF instead of the blank line ends a set message (wireguard-go
	 * applies it and answers errno=0), also after a last line without
	 * its newline; a malformed one is still refused; EOF inside a get
	 * request answers nothing.
	 */
	{
		static const struct { const char *what, *msg, *reply, *applied; } cases[] = {
			{ "set ended by EOF", "set=1\nlisten_port=5\n", "errno=0\n\n", "listen_port=5\n" },
			{ "set ended by EOF mid-line", "set=1\nfwmark=7", "errno=0\n\n", "fwmark=7\n" },
			{ "bad set ended by EOF", "set=1\nlisten_port=99999\n", "errno=-22\n\n", NULL },
			{ "get ended by EOF", "get=1\n", "", NULL },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			f->set_calls = 0;
			check(tclient_open(&c, l, path) == 0, "connect %s", cases[i].what);
			send(c.fd, cases[i].msg, strlen(cases[i].msg), MSG_NOSIGNAL);
			shutdown(c.fd, SHUT_WR);
			wait_eof(&c, l);
			check(c.eof && reply_is(&c, cases[i].reply), "%s: reply", cases[i].what);
			check(f->set_calls == (cases[i].applied ? 1 : 0) &&
			      (!cases[i].applied || strstr(f->last_set.data, cases[i].applied)),
			      "%s: applied", cases[i].what);
			tclient_close(&c);
		}
	}

	/* half-close after a whole request: the reply still comes */
	check(tclient_open(&c, l, path) == 0, "connect half-close");
	send(c.fd, "get=1\n\n", 7, MSG_NOSIGNAL);
	shutdown(c.fd, SHUT_WR);
	wait_eof(&c, l);
	check(c.in_len == want.len && memcmp(c.in, want.data, want.len) == 0,
	      "reply after half-close");
	tclient_close(&c);

	uapi_buf_clear(&want);
}

/* A message over the cap: EMSGSIZE and a hang-up, nothing applied. */
static void test_server_msg_cap(struct loop *l, const char *path, struct fake_dev *f)
{
	size_t line = 14, n = (9u << 20) / line, len = 6 + n * line;
	char *msg = malloc(len);
	struct tclient c;

	memcpy(msg, "set=1\n", 6);
	for (size_t i = 0; i < n; i++)
		memcpy(msg + 6 + i * line, "listen_port=1\n", line);
	f->set_calls = 0;
	exchange(&c, l, path, msg, len, 1);
	wait_eof(&c, l);
	check(reply_is(&c, errno_reply(-EMSGSIZE)) && f->set_calls == 0, "message cap (EMSGSIZE)");
	tclient_close(&c);
	free(msg);
}

/* A big get reply to a client that does not read must not stall others. */
static void test_server_slow_client(struct loop *l, const char *path, struct fake_dev *f)
{
	struct tclient slow, quick;
	struct uapi_buf want;
	struct config_allowedip aip = { .family = AF_INET6, .cidr = 128 };

	/* ~2000 peers of ~400 bytes: far more than a socket buffer. */
	for (unsigned int i = 0; i < 2000; i++) {
		uint8_t key[32] = { (uint8_t)(i >> 8), (uint8_t)i, 0x77 };
		struct config_peer *p = config_device_add_peer(&f->snap, key);

		aip.addr[15] = (uint8_t)i;
		aip.addr[14] = (uint8_t)(i >> 8);
		config_peer_add_allowedip(p, &aip);
	}
	uapi_buf_init(&want);
	uapi_print_get(&want, &f->snap);
	check(want.len > 500000, "big snapshot %zu bytes", want.len);

	check(tclient_open(&slow, l, path) == 0, "connect slow");
	slow.reading = false;
	tclient_send(&slow, "get=1\n\n", 7);
	pump(l, 50);	/* the server fills the socket buffer and must go on */

	exchange(&quick, l, path, "get=1\n\n", 7, 1);
	check(quick.in_len == want.len && memcmp(quick.in, want.data, want.len) == 0,
	      "other client served while one is stalled");
	tclient_close(&quick);

	slow.reading = true;
	slow.want_replies = 1;
	loop_modify(l, &slow.h, EPOLLIN);
	for (int i = 0; i < 200 && count_replies(&slow) < 1 && !slow.eof; i++)
		pump(l, 2000);
	check(slow.in_len == want.len && memcmp(slow.in, want.data, want.len) == 0,
	      "stalled client gets all of it later");
	tclient_close(&slow);
	uapi_buf_clear(&want);
}

/* More connections than the cap: the longest idle one is evicted. */
static void test_server_client_cap(struct loop *l, const char *path)
{
	struct tclient c[17];

	pump(l, 5);	/* the server notices earlier tests' hang-ups */
	for (int i = 0; i < 17; i++)
		check(tclient_open(&c[i], l, path) == 0, "connect %d", i);
	/* Accepted in connection order; the 17th evicts the first, whose EOF
	 * stops the loop. */
	for (int i = 0; i < 100 && !c[0].eof; i++)
		pump(l, 2000);
	pump(l, 10);
	check(c[0].eof, "oldest idle client evicted");
	for (int i = 1; i < 17; i++)
		check(!c[i].eof, "client %d kept", i);
	for (int i = 0; i < 17; i++)
		tclient_close(&c[i]);

	{
		struct tclient q;

		exchange(&q, l, path, "get=1\n\n", 7, 1);
		check(count_replies(&q) == 1, "served after eviction");
		tclient_close(&q);
	}
}

static int bind_stale(const char *path, bool listening, int *keep)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		return -1;
	if (listening && listen(fd, 4) < 0)
		return -1;
	if (keep)
		*keep = fd;
	else
		close(fd);	/* bound, then closed: the file stays, refusing */
	return 0;
}

static void test_socket_file(const char *dir)
{
	struct fake_dev f = { 0 };
	struct control *c1, *c2;
	char sub[200], path[300], other[300];
	struct stat st;
	struct loop l;
	int ret, keep = -1;

	/* The directory is created 0755 even under a strict umask. */
	snprintf(sub, sizeof(sub), "%s/run/wireguard", dir);
	umask(0077);
	ret = control_open(&c1, "wgtest0", sub, &fake_ops, &f);
	umask(0022);
	check(ret == 0, "open in new dir: %d", ret);
	if (ret)
		return;
	snprintf(path, sizeof(path), "%s/wgtest0.sock", sub);
	check(strcmp(control_path(c1), path) == 0, "path %s", control_path(c1));
	memset(&st, 0, sizeof(st));
	stat(sub, &st);
	check((st.st_mode & 07777) == 0755, "dir mode %o", (unsigned int)(st.st_mode & 07777));
	memset(&st, 0, sizeof(st));
	lstat(path, &st);
	check(S_ISSOCK(st.st_mode) && (st.st_mode & 07777) == 0600,
	      "socket mode %o", (unsigned int)(st.st_mode & 07777));
	check(control_listen_fd(c1) >= 0, "listen fd");

	/* A live socket belongs to another daemon. */
	ret = control_open(&c2, "wgtest0", sub, &fake_ops, &f);
	check(ret == -EADDRINUSE, "live socket: %d", ret);
	check(lstat(path, &st) == 0, "live socket left alone");
	control_close(c1);
	check(lstat(path, &st) < 0 && errno == ENOENT, "close unlinks");

	/* A stale socket is replaced. */
	check(bind_stale(path, false, NULL) == 0, "make stale socket");
	ret = control_open(&c1, "wgtest0", sub, &fake_ops, &f);
	check(ret == 0, "stale socket replaced: %d", ret);

	/* control_close() unlinks only its own file. */
	if (ret == 0) {
		unlink(path);
		check(bind_stale(path, true, &keep) == 0, "someone else's socket");
		control_close(c1);
		check(lstat(path, &st) == 0, "foreign socket survives our close");
		close(keep);
		unlink(path);
	}

	/* Not a socket: refused, untouched. */
	close(open(path, O_WRONLY | O_CREAT, 0600));
	ret = control_open(&c1, "wgtest0", sub, &fake_ops, &f);
	check(ret == -EEXIST && lstat(path, &st) == 0 && S_ISREG(st.st_mode),
	      "regular file refused: %d", ret);
	unlink(path);

	/* Bad names. */
	check(control_open(&c1, "", sub, &fake_ops, &f) == -EINVAL, "empty ifname");
	check(control_open(&c1, "a/b", sub, &fake_ops, &f) == -EINVAL, "slash ifname");
	check(control_open(&c1, "..", sub, &fake_ops, &f) == -EINVAL, "dotdot ifname");
	check(control_open(&c1, "0123456789abcdef", sub, &fake_ops, &f) == -EINVAL, "16 chars");

	/* control_release() (the launcher after fork) keeps the file. */
	check(control_open(&c1, "wgtest0", sub, &fake_ops, &f) == 0, "reopen");
	control_release(c1);
	check(lstat(path, &st) == 0, "release keeps the file");

	/* Deletion and replacement are seen through inotify. */
	check(loop_init(&l) == 0, "loop");
	f.loop = &l;
	check(control_open(&c1, "wgtest0", sub, &fake_ops, &f) == 0, "open (stale after release)");
	check(control_attach(c1, &l) == 0, "attach");
	pump(&l, 20);
	check(f.gone == 0, "not gone while present");
	unlink(path);
	pump(&l, 2000);
	check(f.gone == 1, "deletion noticed");
	control_close(c1);

	f.gone = 0;
	check(control_open(&c1, "wgtest0", sub, &fake_ops, &f) == 0, "open for rename");
	check(control_attach(c1, &l) == 0, "attach 2");
	snprintf(other, sizeof(other), "%s/other.sock", sub);
	check(bind_stale(other, false, NULL) == 0, "other socket");
	check(rename(other, path) == 0, "rename over ours");
	pump(&l, 2000);
	check(f.gone == 1, "replacement noticed");
	control_close(c1);
	check(lstat(path, &st) == 0, "replacement not unlinked by us");
	unlink(path);

	/* Deleted before attach: attach refuses. */
	check(control_open(&c1, "wgtest0", sub, &fake_ops, &f) == 0, "open 3");
	unlink(path);
	check(control_attach(c1, &l) == -ENOENT, "attach after deletion");
	control_close(c1);
	loop_clear(&l);
	rmdir(sub);
}

static void test_server(void)
{
	char dir[] = "/tmp/wgd-test-control-XXXXXX";
	struct fake_dev f = { 0 };
	struct control *ctl;
	struct loop l;
	int ret;

	if (!mkdtemp(dir)) {
		check(false, "mkdtemp: %s", strerror(errno));
		return;
	}
	make_snapshot(&f.snap);
	uapi_buf_init(&f.last_set);
	check(loop_init(&l) == 0, "loop_init");
	/* The default comes from WGD_RUN_DIR when no directory is given. */
	setenv("WGD_RUN_DIR", dir, 1);
	ret = control_open(&ctl, "wgtest1", NULL, &fake_ops, &f);
	check(ret == 0, "control_open: %d", ret);
	if (ret == 0) {
		check(strncmp(control_path(ctl), dir, strlen(dir)) == 0, "WGD_RUN_DIR used");
		check(control_attach(ctl, &l) == 0, "control_attach");
		test_server_ops(&l, control_path(ctl), &f);
		test_server_msg_cap(&l, control_path(ctl), &f);
		test_server_client_cap(&l, control_path(ctl));
		test_server_slow_client(&l, control_path(ctl), &f);
		check(f.gone == 0, "never reported gone");
		control_close(ctl);
	}
	loop_clear(&l);
	config_device_clear(&f.snap);
	uapi_buf_clear(&f.last_set);

	test_socket_file(dir);
	{
		char p[sizeof(dir) + 8];

		snprintf(p, sizeof(p), "%s/run", dir);
		rmdir(p);
	}
	check(rmdir(dir) == 0, "temp dir empty at the end: %s", strerror(errno));
}

int main(void)
{
	/* The server logs every rejected message; TEST_CONTROL_VERBOSE shows it. */
	log_init("test_control", getenv("TEST_CONTROL_VERBOSE") ? LOG_LEVEL_DEBUG : LOG_LEVEL_SILENT,
		 true);
	test_server();
	printf("test_control: %lu checks, %lu failures\n", tu_checks, tu_failures);
	return tu_failures ? 1 : 0;
}
