// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoints given as host names, resolved by one worker thread:
 * getaddrinfo() blocks for as long as the resolver takes, and the loop must
 * not.  Loop and worker share nothing but a SOCK_SEQPACKET socket pair:
 * the loop sends a query (a struct dn_msg), the worker sends it back with
 * the answer, and the loop reads that when its end turns readable.  One
 * query is out at a time, so a name has at most one pending.  When to
 * query and whether to take an answer is daemon/bringup/dnspolicy.h's.
 *
 * The thread starts with the first query (a configuration without names
 * has none), on the loop, once dnsnames_start() has come (after the
 * privilege drop), with every signal blocked: the host reads them from a
 * signalfd.  At destroy the loop shuts its end for writing, which
 * ends the worker's wait for a query, and waits at most DN_STOP_WAIT_MS
 * for the worker's end to close.  A worker still inside getaddrinfo() then
 * is left to finish alone (it is detached): its answer meets a closed
 * socket, and it exits.
 */
#include "daemon/bringup/dnsnames.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/bringup/dnspolicy.h"
#include "daemon/bringup/resolve.h"
#include "daemon/config/conffile.h"
#include "daemon/datapath/endpoint.h"
#include "daemon/host/host.h"

#define DN_HOST_MAX 256		/* a DNS name has at most 253 characters */
#define DN_STOP_WAIT_MS 1000	/* how long destroy waits for a lookup (whole seconds) */

/* A query, and the same sent back with its answer. */
struct dn_msg {
	char host[DN_HOST_MAX];
	uint16_t port;
	int ret;
	union config_endpoint ep;
	char err[128];
};

struct dn_name {
	uint8_t key[CONFIG_KEY_LEN];	/* the peer's public key */
	char *host;			/* in the block of the names (dnsnames_update) */
	uint16_t port;
	struct dnspolicy_name st;
	int err;			/* the failure last logged; 0: none since */
};

struct dnsnames {
	struct host *h;
	struct dnspolicy pol;
	struct dn_name *names;
	size_t len;
	bool out;			/* a query is out, for the peer out_key */
	uint8_t out_key[CONFIG_KEY_LEN];
	struct loop_fd ev;		/* our end of the worker's socket; fd -1: no worker */
	struct loop_fd tick;
	bool started;			/* dnsnames_start(): ticks may run */
};

static void *dn_work(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct dn_msg m;

	while (recv(fd, &m, sizeof(m), 0) == (ssize_t)sizeof(m)) {
		m.host[DN_HOST_MAX - 1] = '\0';
		m.ret = resolve_endpoint(m.host, m.port, &m.ep, m.err, sizeof(m.err));
		if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) < 0)
			break;
	}
	close(fd);
	return NULL;
}

static void dn_on_answer(struct loop_fd *fd, uint32_t revents);

static int dn_worker_start(struct dnsnames *dn)
{
	sigset_t all, old;
	pthread_t t;
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&t, NULL, dn_work, (void *)(intptr_t)sv[1]);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		close(sv[1]);
	} else {
		pthread_detach(t);
		ret = loop_add(host_loop(dn->h), &dn->ev, sv[0], EPOLLIN, dn_on_answer);
		if (!ret)
			return 0;
	}
	close(sv[0]);	/* a worker that started sees the end and exits */
	dn->ev.fd = -1;
	return ret;
}

static void dn_worker_stop(struct dnsnames *dn)
{
	const struct timeval wait = { .tv_sec = DN_STOP_WAIT_MS / 1000 };
	int fd = dn->ev.fd;
	struct dn_msg m;
	ssize_t n;

	if (fd < 0)
		return;
	loop_remove(host_loop(dn->h), &dn->ev);
	shutdown(fd, SHUT_WR);
	/* An answer may come first; the worker's close reads as 0, and each
	 * read waits at most DN_STOP_WAIT_MS (our end blocks: the loop reads
	 * it with MSG_DONTWAIT). */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	do
		n = recv(fd, &m, sizeof(m), 0);
	while (n > 0);
	if (n < 0)
		log_info("a name lookup is still running; not waiting for it");
	close(fd);
	dn->ev.fd = -1;
}

/* ---- names and peers ---- */

static struct dn_name *dn_find(struct dnsnames *dn, const uint8_t *key, const char *host, uint16_t port)
{
	size_t i;

	for (i = 0; i < dn->len; i++) {
		struct dn_name *n = &dn->names[i];

		if (!memcmp(n->key, key, CONFIG_KEY_LEN) && n->port == port && !strcmp(n->host, host))
			return n;
	}
	return NULL;
}

/* A peer that is gone from the device is not stale: nothing to point. */
static bool dn_stale(const struct dnsnames *dn, const struct config_peer *p, int64_t wall)
{
	return p && dnspolicy_stale(&dn->pol, p->last_handshake_sec, wall);
}

/* The policy's clock: the boot clock's seconds, as protocol time counts. */
static uint32_t dn_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint32_t)ts.tv_sec;
}

/* ---- queries and answers ---- */

/* Logged once per change of the failure, not at every retry. */
static void dn_failed(struct dnsnames *dn, struct dn_name *n, int ret, const char *why, uint32_t now)
{
	dnspolicy_failed(&dn->pol, &n->st, now);
	if (ret != n->err)
		log_error("endpoint %s:%u: %s; trying again", n->host, n->port, why);
	n->err = ret;
}

static void dn_send(struct dnsnames *dn, struct dn_name *n, uint32_t now)
{
	struct dn_msg m = { .port = n->port };
	int ret = dn->ev.fd >= 0 ? 0 : dn_worker_start(dn);

	dnspolicy_sent(&n->st);
	memcpy(m.host, n->host, strlen(n->host));	/* fits: checked by dnsnames_update */
	if (!ret && send(dn->ev.fd, &m, sizeof(m), MSG_NOSIGNAL) < 0)
		ret = -errno;
	if (ret < 0) {
		dn_failed(dn, n, ret, "cannot reach the resolver thread", now);
		return;
	}
	crypto_copy32(dn->out_key, n->key);
	dn->out = true;
}

/* Sets what m answered as n's peer's endpoint, if the policy says so. */
static void dn_take(struct dnsnames *dn, struct dn_name *n, const struct config_peer *p, const struct dn_msg *m,
		    uint32_t now, int64_t wall)
{
	struct config_peer set = { .flags = CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_ENDPOINT, .endpoint = m->ep };
	struct config_device cfg = { .peers = &set, .peers_len = 1, .peers_cap = 1 };
	union config_endpoint cur = { .addr.sa_family = AF_UNSPEC };
	struct endpoint e;
	char buf[INET6_ADDRSTRLEN + 9];
	bool apply;
	int ret;

	if (m->ret < 0) {
		dn_failed(dn, n, m->ret, m->err, now);
		return;
	}
	if (n->err)
		log_info("endpoint %s:%u resolves again", n->host, n->port);
	n->err = 0;
	if (p && (p->flags & CONFIG_PEER_HAS_ENDPOINT))
		cur = p->endpoint;
	apply = dnspolicy_answered(&dn->pol, &n->st, dn_stale(dn, p, wall), &m->ep, &cur, now) && p;
	memcpy(&e.addr, &m->ep, sizeof(e.addr));
	endpoint_format(&e, buf, sizeof(buf));
	if (!apply) {
		log_debug("endpoint %s:%u is %s; the peer's endpoint is kept", n->host, n->port, buf);
		return;
	}
	crypto_copy32(set.public_key, n->key);
	ret = host_config_apply(dn->h, &cfg);
	if (ret < 0)
		log_error_errno(-ret, "endpoint %s:%u: cannot set %s", n->host, n->port, buf);
	else
		log_info("endpoint %s:%u: the peer's endpoint is now %s", n->host, n->port, buf);
}

/*
 * Takes the answer m (NULL: none), then sends the first name that is due,
 * if no query is out: both from one snapshot of the device.
 */
static void dn_run(struct dnsnames *dn, const struct dn_msg *m)
{
	struct config_device snap;
	uint32_t now = dn_now();
	int64_t wall = (int64_t)time(NULL);	/* the handshake times' clock */
	struct dn_name *n;
	size_t i;

	if (!m && dn->out)
		return;
	config_device_init(&snap);
	if (host_config_read(dn->h, &snap) < 0) {
		/* Out of memory: the answer is lost, the name retried. */
		if (m && (n = dn_find(dn, dn->out_key, m->host, m->port)))
			dnspolicy_failed(&dn->pol, &n->st, now);
		goto out;
	}
	/* The name may have gone with a reload while its query was out. */
	if (m && (n = dn_find(dn, dn->out_key, m->host, m->port)))
		dn_take(dn, n, config_device_find_peer(&snap, n->key), m, now, wall);
	for (i = 0; i < dn->len && !dn->out; i++) {
		n = &dn->names[i];
		if (dnspolicy_due(&n->st, dn_stale(dn, config_device_find_peer(&snap, n->key), wall), now))
			dn_send(dn, n, now);
	}
out:
	config_device_clear(&snap);
}

static void dn_on_answer(struct loop_fd *fd, uint32_t revents)
{
	struct dnsnames *dn = container_of(fd, struct dnsnames, ev);
	struct dn_msg m;

	(void)revents;
	dn->out = false;
	if (recv(fd->fd, &m, sizeof(m), MSG_DONTWAIT) == (ssize_t)sizeof(m)) {
		m.host[DN_HOST_MAX - 1] = '\0';
		dn_run(dn, &m);
		return;
	}
	/* The worker is gone (it cannot be): another starts with the next query. */
	log_error("the resolver thread stopped");
	dn_worker_stop(dn);
	for (size_t i = 0; i < dn->len; i++)
		if (dn->names[i].st.pending)
			dnspolicy_failed(&dn->pol, &dn->names[i].st, dn_now());
	dn_run(dn, NULL);
}

static void dn_on_tick(struct loop_fd *fd, uint32_t revents)
{
	uint64_t count;

	(void)revents;
	if (read(fd->fd, &count, sizeof(count)) == (ssize_t)sizeof(count))
		dn_run(container_of(fd, struct dnsnames, tick), NULL);
}

/* ---- the interface ---- */

int dnsnames_create(struct dnsnames **out, struct host *h)
{
	const char *env = getenv("WGD_RERESOLVE_SECONDS");
	struct dnsnames *dn = calloc(1, sizeof(*dn));
	int fd, ret = -ENOMEM;

	if (!dn)
		return ret;
	dn->h = h;
	dn->ev.fd = -1;
	if (!dnspolicy_init(&dn->pol, env))
		log_error("WGD_RERESOLVE_SECONDS=%s is not a number of seconds from 1 to %u; using %u",
			  env, DNSPOLICY_STALE_MAX_S, DNSPOLICY_STALE_S);
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	ret = fd < 0 ? -errno : loop_add(host_loop(h), &dn->tick, fd, EPOLLIN, dn_on_tick);
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		free(dn);
		return ret;
	}
	*out = dn;
	return 0;
}

/*
 * No names, or not started, no ticks.  Else the first tick at once, on the
 * loop: the worker starts there, never before dnsnames_start(), which
 * comes after the privilege drop.
 */
static int dnsnames_arm(struct dnsnames *dn)
{
	struct itimerspec its = { 0 };
	bool on = dn->len && dn->started;

	its.it_interval.tv_sec = on ? (time_t)dn->pol.retry_s : 0;
	its.it_value.tv_nsec = on ? 1 : 0;
	return timerfd_settime(dn->tick.fd, 0, &its, NULL) < 0 ? -errno : 0;
}

int dnsnames_update(struct dnsnames *dn, const struct conffile *cf)
{
	struct dn_name *names, *old;
	size_t i, len = 0, text_len = 0, host_len;
	char *text;

	for (i = 0; i < cf->dev.peers_len; i++) {
		if (cf->peers[i].endpoint_is_name && cf->peers[i].endpoint_host) {
			len++;
			text_len += strlen(cf->peers[i].endpoint_host) + 1;
		}
	}
	/* One block: the names, then their host names' text. */
	names = calloc(1, (len + 1) * sizeof(*names) + text_len);
	if (!names)
		return -ENOMEM;
	text = (char *)(names + len + 1);
	for (len = 0, i = 0; i < cf->dev.peers_len; i++) {
		const struct conffile_peer *cp = &cf->peers[i];
		struct dn_name *n = &names[len];

		if (!cp->endpoint_is_name || !cp->endpoint_host)
			continue;
		host_len = strlen(cp->endpoint_host);
		if (host_len >= DN_HOST_MAX) {
			log_error("line %u: the Endpoint's host name is too long", cp->line);
			continue;
		}
		/* The same name of the same peer keeps its state. */
		old = dn_find(dn, cf->dev.peers[i].public_key, cp->endpoint_host, cp->endpoint_port);
		if (old)
			*n = *old;
		crypto_copy32(n->key, cf->dev.peers[i].public_key);
		n->port = cp->endpoint_port;
		n->host = memcpy(text, cp->endpoint_host, host_len + 1);
		text += host_len + 1;
		n->st.now = true;	/* every name at once */
		len++;
	}
	free(dn->names);
	dn->names = names;
	dn->len = len;
	return dnsnames_arm(dn);
}

int dnsnames_start(struct dnsnames *dn)
{
	dn->started = true;
	return dnsnames_arm(dn);
}

void dnsnames_destroy(struct dnsnames *dn)
{
	if (!dn)
		return;
	dn_worker_stop(dn);
	loop_remove(host_loop(dn->h), &dn->tick);
	close(dn->tick.fd);
	free(dn->names);
	free(dn);
}
