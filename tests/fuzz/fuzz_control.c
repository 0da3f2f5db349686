// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target of the control socket end to end (doc/control.md): the
 * real server (daemon/control/control.c) on the real event loop (daemon/base/loop.c),
 * in this process, on a socket in a temporary directory, in front of a
 * real device (daemon/datapath/device.h) with no network behind its seam, as
 * tests/control/uapi_fakedev.c serves it.
 *
 * Each input is written to one connection, which is then closed for
 * writing; every reply is read until the server hangs up.  A second
 * connection then asks `get=1\n\n`.  Every input meets a new device.
 *
 * Properties, besides no crash, leak or undefined behaviour:
 *  - the server hangs up the first connection, within a bound of the
 *    loop's time, and answers each operation once, in order, as the
 *    framing of the protocol has it ("Configuration Protocol" of
 *    wireguard.com/xplatform, and control.c's header): get=1 and a blank
 *    line is a configuration and errno=0; set=1, lines, then a blank line
 *    or the end of the input is one errno=N, the parser's error if the
 *    message does not parse (uapi_parse_set()); any other line, a get=1
 *    followed by anything but a blank line, or a line longer than
 *    UAPI_LINE_MAX is answered with an errno and ends the connection;
 *  - every reply is lines of key=value with the keys of a get reply, and
 *    ends with exactly one errno line and a blank line;
 *  - the second connection's get ends with errno=0, and when the input's
 *    last operation was a set answered errno=0, the get shows it: the
 *    private key, clamped (or none, for a zero key), the listen port, the fwmark,
 *    each peer added or removed, its preshared key, IPv4 endpoint,
 *    persistent keepalive, and allowed IPs not moved on or removed by a
 *    later entry of the same message (the order of config.h).
 */
/* memmem() */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/config/uapi.h"
#include "daemon/control/control.h"
#include "daemon/datapath/device.h"
#include "daemon/datapath/io.h"
#include "tests/fuzz/fuzzref.h"
#include "tests/lib/testutil.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_TIMEOUT_NS 5000000000ull	/* loop time for one connection */
#define FUZZ_MAX_OPS 4096		/* operations modelled per input */
#define FUZZ_NOW 1000000000000ull	/* boot-time ns of every set */

/* The client end of one connection, served on the same loop. */
struct conn {
	struct loop_fd h;
	const uint8_t *out;
	size_t out_len, sent;
	char *in;
	size_t in_len, in_cap;
	bool done;
};

static struct fuzz_state {
	struct loop loop;
	struct control *ctl;
	char dir[64];
	struct device *dev;
	struct tu_rng rng;
	bool timed_out;
} st;

/* ---- the device's seam: no network, a fixed clock, reproducible random bytes ---- */

static uint64_t fz_wall_ns(void *ctx)
{
	(void)ctx;
	return 1800000000000000000ull;
}

static bool fz_random(void *ctx, void *buf, size_t len)
{
	(void)ctx;
	tu_rng_fill(&st.rng, buf, len);	/* reproducible, not secret */
	return true;
}

static unsigned int fz_send(void *ctx, struct udp_msg *msgs, unsigned int n)
{
	unsigned int i;

	(void)ctx;
	for (i = 0; i < n; i++)
		msgs[i].sent = false;
	return n;
}

static int fz_tun_write(void *ctx, uint8_t *pkt, size_t len)
{
	(void)ctx;
	(void)pkt;
	(void)len;
	return -ENODEV;
}

static int fz_tun_write_vnet(void *ctx, const struct iovec *iov, unsigned int n)
{
	(void)ctx;
	(void)iov;
	(void)n;
	return -ENODEV;
}

static void fz_deadline(void *ctx, uint64_t when)
{
	/* the device's timers are not run: the loop's deadline bounds the connection */
	(void)ctx;
	(void)when;
}

static int fz_bind(void *ctx, uint16_t port, uint32_t fwmark, uint16_t *bound, bool *gro)
{
	(void)ctx;
	(void)fwmark;
	*bound = port ? port : 43210;
	*gro = false;
	return 0;
}

/* No sockets to close. */
static void fz_unbind(void *ctx)
{
	(void)ctx;
}

static int fz_set_fwmark(void *ctx, uint32_t fwmark)
{
	(void)ctx;
	(void)fwmark;
	return 0;
}

static int fz_set(void *ctx, const struct config_device *cfg)
{
	(void)ctx;
	return device_config_set(st.dev, cfg, FUZZ_NOW);
}

static int fz_get(void *ctx, struct config_device *out)
{
	(void)ctx;
	return device_config_get(st.dev, out);
}

static void fz_gone(void *ctx)
{
	(void)ctx;
	FUZZ_CHECK(0, "the control socket's file went away");
}

static const struct control_ops fz_ops = { .set = fz_set, .get = fz_get, .socket_gone = fz_gone };

/* ---- one connection, driven by the loop alongside the server ---- */

static void conn_cb(struct loop_fd *h, uint32_t revents)
{
	struct conn *c = container_of(h, struct conn, h);

	if ((revents & EPOLLOUT) && c->sent < c->out_len) {
		ssize_t n = send(h->fd, c->out + c->sent, c->out_len - c->sent, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0)
			c->sent += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			c->sent = c->out_len;	/* the server hung up first */
		if (c->sent == c->out_len) {
			shutdown(h->fd, SHUT_WR);
			loop_modify(&st.loop, h, EPOLLIN);
		}
	}
	if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		ssize_t n;

		if (c->in_cap - c->in_len < 4096) {
			c->in_cap = c->in_cap * 2 + 4096;
			c->in = realloc(c->in, c->in_cap);
			if (!c->in)
				abort();
		}
		n = recv(h->fd, c->in + c->in_len, c->in_cap - c->in_len - 1, MSG_DONTWAIT);
		if (n > 0) {
			c->in_len += (size_t)n;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			c->done = true;
			loop_stop(&st.loop);
		}
	}
}

static void on_timeout(struct loop *l, uint64_t now)
{
	(void)now;
	st.timed_out = true;
	loop_stop(l);
}

/* Writes out to a new connection and reads every reply until the server hangs up. */
static void converse(struct conn *c, const uint8_t *out, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	unsigned int rounds;
	int fd;

	memset(c, 0, sizeof(*c));
	c->out = out;
	c->out_len = len;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", control_path(st.ctl));
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
		abort();
	if (!len)
		shutdown(fd, SHUT_WR);
	if (loop_add(&st.loop, &c->h, fd, len ? EPOLLIN | EPOLLOUT : EPOLLIN, conn_cb) < 0)
		abort();
	st.timed_out = false;
	loop_set_deadline(&st.loop, loop_now() + FUZZ_TIMEOUT_NS);
	/* loop_run() returns at each loop_stop(): the server may stop nothing else */
	for (rounds = 0; rounds < 2 && !c->done && !st.timed_out; rounds++)
		if (loop_run(&st.loop) < 0)
			abort();
	loop_set_deadline(&st.loop, UINT64_MAX);
	loop_remove(&st.loop, &c->h);
	close(fd);
	FUZZ_CHECK(c->done, "the server did not hang up within %llu ns", FUZZ_TIMEOUT_NS);
	if (c->in)
		c->in[c->in_len] = '\0';
}

/* ---- the protocol's framing, as a reference ---- */

enum op_kind { OP_GET, OP_SET, OP_FAIL };

struct op {
	enum op_kind kind;
	int parse_err;		/* OP_SET: what uapi_parse_set() says of the message */
	size_t msg_off, msg_len;	/* OP_SET: the message's lines */
};

struct model {
	struct op ops[FUZZ_MAX_OPS];
	unsigned int n;
	bool overflow;
};

/*
 * uapi_parse_set() of a set message's lines (each ended by its newline, but
 * perhaps the last at the end of the input), with the blank line that ends
 * it, which the server reads or supplies at the end of the input.
 */
static int parse_msg(struct config_device *cfg, const uint8_t *lines, size_t len)
{
	char *msg = malloc(len + 2);
	size_t n = len;
	int ret;

	if (!msg)
		abort();
	memcpy(msg, lines, len);
	if (n && msg[n - 1] != '\n')
		msg[n++] = '\n';
	msg[n++] = '\n';
	ret = uapi_parse_set(cfg, msg, n);
	crypto_wipe(msg, n);
	free(msg);
	return ret;
}

static void model_op(struct model *m, enum op_kind kind, const uint8_t *in, size_t off, size_t len)
{
	struct op *o;
	struct config_device cfg;

	if (m->n == FUZZ_MAX_OPS) {
		m->overflow = true;
		return;
	}
	o = &m->ops[m->n++];
	o->kind = kind;
	o->msg_off = off;
	o->msg_len = len;
	o->parse_err = 0;
	if (kind == OP_SET) {
		config_device_init(&cfg);
		o->parse_err = parse_msg(&cfg, in + off, len);
		config_device_clear(&cfg);
	}
}

/* The operations a server must answer for input in, in order. */
static void model_run(struct model *m, const uint8_t *in, size_t size)
{
	enum { S_OP, S_GET, S_SET } state = S_OP;
	size_t pos = 0, msg = 0;

	m->n = 0;
	m->overflow = false;
	while (pos < size && !m->overflow) {
		const uint8_t *nl = memchr(in + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - (in + pos)) : size - pos;

		/* a line must fit the server's buffer with its newline */
		if (len > UAPI_LINE_MAX) {
			model_op(m, OP_FAIL, in, 0, 0);
			return;
		}
		if (!nl) {
			/* the end inside a set ends it (after this last line) */
			if (state == S_SET)
				model_op(m, OP_SET, in, msg, size - msg);
			return;
		}
		switch (state) {
		case S_OP:
			if (len == 5 && !memcmp(in + pos, "get=1", 5)) {
				state = S_GET;
			} else if (len == 5 && !memcmp(in + pos, "set=1", 5)) {
				state = S_SET;
				msg = pos + len + 1;
			} else {
				model_op(m, OP_FAIL, in, 0, 0);
				return;
			}
			break;
		case S_GET:
			if (len) {
				model_op(m, OP_FAIL, in, 0, 0);
				return;
			}
			model_op(m, OP_GET, in, 0, 0);
			state = S_OP;
			break;
		case S_SET:
			if (!len) {
				model_op(m, OP_SET, in, msg, pos - msg);
				state = S_OP;
			}
			break;
		}
		pos += len + 1;
	}
	if (state == S_SET)
		model_op(m, OP_SET, in, msg, size - msg);
}

/* ---- the replies ---- */

static bool get_key(const char *line, size_t len)
{
	static const char *const keys[] = {
		"private_key", "listen_port", "fwmark", "public_key", "preshared_key", "protocol_version",
		"endpoint", "last_handshake_time_sec", "last_handshake_time_nsec", "tx_bytes", "rx_bytes",
		"persistent_keepalive_interval", "allowed_ip",
	};
	const char *eq = memchr(line, '=', len);
	size_t i;

	for (i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i]) == (size_t)(eq - line) && !memcmp(line, keys[i], (size_t)(eq - line)))
			return true;
	}
	return false;
}

/*
 * One reply from *pos: lines of a get, then errno=N and a blank line.
 * Returns whether one was there; *err the errno, *lines the lines before it.
 */
static bool next_reply(const char *in, size_t len, size_t *pos, int *err, unsigned int *lines)
{
	*lines = 0;
	while (*pos < len) {
		const char *line = in + *pos, *nl = memchr(line, '\n', len - *pos);
		size_t l;

		FUZZ_CHECK(nl, "a reply's last line has no newline");
		l = (size_t)(nl - line);
		*pos += l + 1;
		if (l > 6 && !memcmp(line, "errno=", 6)) {
			char num[16];

			FUZZ_CHECK(l - 6 < sizeof(num), "errno line of %zu bytes", l);
			memcpy(num, line + 6, l - 6);
			num[l - 6] = '\0';
			*err = atoi(num);
			FUZZ_CHECK(*pos < len && in[*pos] == '\n', "errno line not followed by a blank line");
			(*pos)++;
			return true;
		}
		FUZZ_CHECK(get_key(line, l), "reply line '%.*s' is no key=value of a get", (int)l, line);
		(*lines)++;
	}
	FUZZ_CHECK(*lines == 0, "a reply ends without errno");
	return false;
}

/* ---- what a set must leave in the get that follows ---- */

static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);
	const char *p = text;

	/* a whole line: at the start or after a newline, ending in one */
	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			return true;
		p += len;
	}
	return false;
}

static void key_line(char *out, size_t cap, const char *name, const uint8_t key[CONFIG_KEY_LEN])
{
	char hex[2 * CONFIG_KEY_LEN + 1];

	uapi_key_to_hex(hex, key);
	hex[2 * CONFIG_KEY_LEN] = '\0';
	snprintf(out, cap, "%s=%s", name, hex);
}

/* The text of peer pk's section of a get: from its public_key line to the next. */
static char *peer_section(const char *get, const uint8_t pk[CONFIG_KEY_LEN])
{
	char line[128], *s;
	const char *start, *end;

	key_line(line, sizeof(line), "public_key", pk);
	start = strstr(get, line);
	if (!start)
		return NULL;
	end = strstr(start + 1, "\npublic_key=");
	if (!end)
		end = strstr(start, "\nerrno=");
	if (!end)
		return NULL;
	s = strndup(start, (size_t)(end - start) + 1);
	if (!s)
		abort();
	return s;
}

/* Whether entry k of peer i's allowed IPs is undone later in the message. */
static bool aip_undone(const struct config_device *cfg, size_t i, size_t k)
{
	const struct config_allowedip *a = &cfg->peers[i].allowedips[k];
	size_t j, m;

	for (j = i; j < cfg->peers_len; j++) {
		const struct config_peer *p = &cfg->peers[j];

		/* a later peer removed takes nothing; any other may take the prefix */
		if (j > i && (p->flags & CONFIG_PEER_REMOVE))
			continue;
		for (m = j == i ? k + 1 : 0; m < p->allowedips_len; m++) {
			const struct config_allowedip *b = &p->allowedips[m];

			if (b->family == a->family && b->cidr == a->cidr && !memcmp(b->addr, a->addr, 16))
				return true;
		}
	}
	return false;
}

static void check_peer(const struct config_device *cfg, size_t i, const char *get)
{
	const struct config_peer *p = &cfg->peers[i];
	char line[256], host[INET6_ADDRSTRLEN], *sec = peer_section(get, p->public_key);
	size_t k;

	if (p->flags & CONFIG_PEER_REMOVE) {
		FUZZ_CHECK(!sec, "peer %zu removed, still in the get", i);
		return;
	}
	FUZZ_CHECK(sec, "peer %zu set, not in the get", i);
	if (p->flags & CONFIG_PEER_HAS_PRESHARED_KEY) {
		key_line(line, sizeof(line), "preshared_key", p->preshared_key);
		FUZZ_CHECK(has_line(sec, line), "peer %zu: preshared key", i);
	}
	if ((p->flags & CONFIG_PEER_HAS_ENDPOINT) && p->endpoint.addr.sa_family == AF_INET) {
		inet_ntop(AF_INET, &p->endpoint.in.sin_addr, host, sizeof(host));
		snprintf(line, sizeof(line), "endpoint=%s:%u", host, ntohs(p->endpoint.in.sin_port));
		FUZZ_CHECK(has_line(sec, line), "peer %zu: %s", i, line);
	}
	if (p->flags & CONFIG_PEER_HAS_KEEPALIVE) {
		snprintf(line, sizeof(line), "persistent_keepalive_interval=%u", p->persistent_keepalive);
		FUZZ_CHECK(has_line(sec, line), "peer %zu: %s", i, line);
	}
	for (k = 0; k < p->allowedips_len; k++) {
		const struct config_allowedip *a = &p->allowedips[k];

		if (a->remove || aip_undone(cfg, i, k))
			continue;
		inet_ntop(a->family, a->addr, host, sizeof(host));
		snprintf(line, sizeof(line), "allowed_ip=%s/%u", host, a->cidr);
		FUZZ_CHECK(has_line(sec, line), "peer %zu: %s", i, line);
	}
	free(sec);
}

static void check_reflected(const uint8_t *msg, size_t len, const char *get)
{
	struct config_device cfg;
	uint8_t own[CONFIG_KEY_LEN];
	char line[128];
	size_t i;

	config_device_init(&cfg);
	if (parse_msg(&cfg, msg, len) != 0)
		abort();	/* the model said it parses */
	if (cfg.flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) {
		bool zero = crypto_is_zero(cfg.private_key, CONFIG_KEY_LEN);

		/* kept clamped (RFC 7748 §5), as the kernel's WireGuard keeps it */
		x25519_clamp(cfg.private_key);
		key_line(line, sizeof(line), "private_key", cfg.private_key);
		if (zero)
			FUZZ_CHECK(!strstr(get, "private_key="), "a zero private key, still one in the get");
		else
			FUZZ_CHECK(has_line(get, line), "the private key set is not in the get");
	}
	if ((cfg.flags & CONFIG_DEVICE_HAS_LISTEN_PORT) && cfg.listen_port) {
		snprintf(line, sizeof(line), "listen_port=%u", cfg.listen_port);
		FUZZ_CHECK(has_line(get, line), "%s not in the get", line);
	}
	if ((cfg.flags & CONFIG_DEVICE_HAS_FWMARK) && cfg.fwmark) {
		snprintf(line, sizeof(line), "fwmark=%u", cfg.fwmark);
		FUZZ_CHECK(has_line(get, line), "%s not in the get", line);
	}
	/* a peer with the device's own public key is ignored (config.h) */
	memset(own, 0, sizeof(own));
	for (i = 0; i < cfg.peers_len; i++) {
		struct config_device now;

		if (cfg.peers[i].flags & CONFIG_PEER_UPDATE_ONLY)
			continue;
		config_device_init(&now);
		if (device_config_get(st.dev, &now) != 0)
			abort();
		if ((now.flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) && !crypto_is_zero(now.private_key, 32) &&
		    !x25519_public(own, now.private_key))
			abort();
		config_device_clear(&now);
		if (!memcmp(own, cfg.peers[i].public_key, CONFIG_KEY_LEN))
			continue;
		check_peer(&cfg, i, get);
	}
	config_device_clear(&cfg);
}

static struct model model;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t get[] = "get=1\n\n";
	struct device_io io = {
		.wall_ns = fz_wall_ns, .random = fz_random, .send = fz_send, .tun_write = fz_tun_write,
		.tun_write_vnet = fz_tun_write_vnet, .deadline = fz_deadline, .bind = fz_bind,
		.unbind = fz_unbind, .set_fwmark = fz_set_fwmark,
	};
	struct conn c1, c2;
	size_t pos = 0;
	unsigned int i, lines;
	int err;

	tu_rng_seed(&st.rng, 1);
	st.dev = device_create(&io, "fz0");
	if (!st.dev)
		abort();
	device_set_bound(st.dev, 43210, false);
	device_set_link(st.dev, true, FUZZ_NOW);
	model_run(&model, data, size);
	converse(&c1, data, size);
	for (i = 0; !model.overflow && i < model.n; i++) {
		const struct op *o = &model.ops[i];

		FUZZ_CHECK(next_reply(c1.in, c1.in_len, &pos, &err, &lines), "operation %u of %u not answered",
			   i, model.n);
		if (o->kind == OP_GET)
			FUZZ_CHECK(err == 0, "get %u answered errno=%d", i, err);
		else
			FUZZ_CHECK(lines == 0, "operation %u answered with %u lines of configuration", i, lines);
		if (o->kind == OP_FAIL)
			FUZZ_CHECK(err < 0, "a protocol error answered errno=%d", err);
		if (o->kind == OP_SET && o->parse_err)
			FUZZ_CHECK(err == o->parse_err, "set %u that does not parse (%d) answered errno=%d", i,
				   o->parse_err, err);
	}
	FUZZ_CHECK(model.overflow || pos == c1.in_len, "%zu bytes after the last reply", c1.in_len - pos);
	converse(&c2, get, sizeof(get) - 1);
	pos = 0;
	FUZZ_CHECK(next_reply(c2.in, c2.in_len, &pos, &err, &lines) && err == 0 && pos == c2.in_len,
		   "the get after the input: %.*s", (int)c2.in_len, c2.in ? c2.in : "");
	if (!model.overflow && model.n && model.ops[model.n - 1].kind == OP_SET) {
		const struct op *o = &model.ops[model.n - 1];
		size_t p = 0;

		/* the last reply of the first connection is the set's */
		for (i = 0; i < model.n; i++)
			next_reply(c1.in, c1.in_len, &p, &err, &lines);
		if (err == 0)
			check_reflected(data + o->msg_off, o->msg_len, c2.in);
		if (getenv("FUZZ_VERBOSE"))
			fprintf(stderr, "last set answered errno=%d%s\n", err, err ? "" : ", checked in the get");
	}
	if (c1.in)
		crypto_wipe(c1.in, c1.in_cap);
	if (c2.in)
		crypto_wipe(c2.in, c2.in_cap);
	free(c1.in);
	free(c2.in);
	device_destroy(st.dev);
	st.dev = NULL;
	return 0;
}

static void cleanup(void)
{
	control_close(st.ctl);
	loop_clear(&st.loop);
	rmdir(st.dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	log_init("fuzz", LOG_LEVEL_SILENT, true);
	if (!x25519_init())
		abort();
	snprintf(st.dir, sizeof(st.dir), "/tmp/wgd-fuzz-control-XXXXXX");
	if (!mkdtemp(st.dir) || loop_init(&st.loop) < 0)
		abort();
	st.loop.on_deadline = on_timeout;
	if (control_open(&st.ctl, "fz0", st.dir, &fz_ops, NULL) < 0 || control_attach(st.ctl, &st.loop) < 0)
		abort();
	atexit(cleanup);
	return 0;
}
