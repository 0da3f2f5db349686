// SPDX-License-Identifier: GPL-2.0-only
/*
 * Endpoints given as host names, resolved by one worker thread:
 * getaddrinfo() blocks for as long as the resolver takes, and the loop must
 * not.  The loop hands the worker one query at a time in a slot guarded by
 * a mutex; the worker leaves the answer in the same slot and counts an
 * eventfd up, which the loop watches.  So at most one query is out, and a
 * name has at most one pending.  When to query and whether to take the
 * answer is daemon/dnspolicy.h's.
 *
 * The thread starts with the first query (a configuration without names
 * has none), with every signal blocked: the host reads them from a
 * signalfd.  At destroy the worker is told to stop and waited for at most
 * DN_STOP_WAIT_NS; one still inside getaddrinfo() then is left to finish
 * alone (detached).  The slot is shared, and freed by whichever of the two
 * lets go of it last.
 */
#include "daemon/dnsnames.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "daemon/conffile.h"
#include "daemon/dnspolicy.h"
#include "daemon/endpoint.h"
#include "daemon/host.h"
#include "daemon/log.h"
#include "daemon/resolve.h"

#define NS_PER_S 1000000000ull
#define DN_HOST_MAX 256			/* a DNS name has at most 253 characters */
#define DN_STOP_WAIT_NS 1000000000l	/* how long destroy waits for a lookup */

enum dn_slot { DN_IDLE, DN_QUERY, DN_ANSWER };

struct dn_worker {
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* slot, stop or exited changed */
	int refs;			/* the thread's and the owner's */
	bool stop, exited;
	enum dn_slot slot;
	char host[DN_HOST_MAX];		/* the query, written by the owner */
	uint16_t port;
	int ret;			/* the answer, written by the worker */
	union config_endpoint ep;
	char err[160];
	int efd;
};

struct dn_name {
	uint8_t key[CONFIG_KEY_LEN];	/* the peer's public key */
	char *host;
	uint16_t port;
	struct dnspolicy_name st;
	int err;			/* the failure last logged; 0: none since */
};

struct dnsnames {
	struct host *h;
	struct dnspolicy pol;
	struct dn_name *names;
	size_t len;
	struct dn_worker *w;		/* NULL until the first query */
	bool out;			/* a query is out: for out_key */
	uint8_t out_key[CONFIG_KEY_LEN];
	struct loop_fd ev, tick;
};

/* ---- the worker ---- */

static void dn_worker_free(struct dn_worker *w)
{
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
	close(w->efd);
	free(w);
}

/* Drops a reference, with w->mu held, which it releases. */
static void dn_worker_put(struct dn_worker *w)
{
	bool last = --w->refs == 0;

	pthread_mutex_unlock(&w->mu);
	if (last)
		dn_worker_free(w);
}

static void *dn_work(void *arg)
{
	struct dn_worker *w = arg;
	char host[DN_HOST_MAX], err[sizeof(w->err)];
	union config_endpoint ep;
	const uint64_t one = 1;
	uint16_t port;
	int ret;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && w->slot != DN_QUERY)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stop)
			break;
		memcpy(host, w->host, sizeof(host));
		port = w->port;
		pthread_mutex_unlock(&w->mu);
		err[0] = '\0';
		ret = resolve_endpoint(host, port, &ep, err, sizeof(err));
		pthread_mutex_lock(&w->mu);
		w->ret = ret;
		if (!ret)
			w->ep = ep;
		memcpy(w->err, err, sizeof(err));
		w->slot = DN_ANSWER;
		/* Cannot fail: the counter is read before the next query. */
		if (write(w->efd, &one, sizeof(one)) < 0)
			w->ret = -errno;
	}
	w->exited = true;
	pthread_cond_broadcast(&w->cv);
	dn_worker_put(w);
	return NULL;
}

static void dn_on_answer(struct loop_fd *fd, uint32_t revents);

static int dn_worker_start(struct dnsnames *dn)
{
	struct dn_worker *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;
	sigset_t all, old;
	pthread_t t;
	int ret;

	if (!w)
		return -ENOMEM;
	w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->efd < 0) {
		ret = -errno;
		free(w);
		return ret;
	}
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	w->refs = 2;
	ret = loop_add(host_loop(dn->h), &dn->ev, w->efd, EPOLLIN, dn_on_answer);
	if (ret < 0) {
		dn_worker_free(w);
		return ret;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&t, NULL, dn_work, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret < 0) {
		loop_remove(host_loop(dn->h), &dn->ev);
		dn_worker_free(w);
		return ret;
	}
	pthread_detach(t);
	dn->w = w;
	return 0;
}

static void dn_worker_stop(struct dnsnames *dn)
{
	struct dn_worker *w = dn->w;
	struct timespec until;
	int ret = 0;

	if (!w)
		return;
	loop_remove(host_loop(dn->h), &dn->ev);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += DN_STOP_WAIT_NS % NS_PER_S;
	until.tv_sec += DN_STOP_WAIT_NS / NS_PER_S + until.tv_nsec / NS_PER_S;
	until.tv_nsec %= NS_PER_S;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_broadcast(&w->cv);
	while (!w->exited && ret != ETIMEDOUT)
		ret = pthread_cond_timedwait(&w->cv, &w->mu, &until);
	if (!w->exited)
		log_info("the lookup of %s is still running; not waiting for it", w->host);
	dn_worker_put(w);
	dn->w = NULL;
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

static const struct config_peer *dn_peer(const struct config_device *snap, const uint8_t *key)
{
	size_t i;

	for (i = 0; i < snap->peers_len; i++)
		if (!memcmp(snap->peers[i].public_key, key, CONFIG_KEY_LEN))
			return &snap->peers[i];
	return NULL;
}

static int64_t dn_wall_s(void)
{
	return (int64_t)(clock_real_ns() / NS_PER_S);
}

/* A peer that is gone from the device is not stale: nothing to point. */
static bool dn_stale(const struct dnsnames *dn, const struct config_peer *p)
{
	return p && dnspolicy_stale(&dn->pol, p->last_handshake_sec, dn_wall_s());
}

static void dn_format(const union config_endpoint *ep, char *buf, size_t size)
{
	struct endpoint e;

	memcpy(&e.addr, ep, sizeof(e.addr));
	endpoint_format(&e, buf, size);
}

static void dn_free_names(struct dn_name *names, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		free(names[i].host);
	free(names);
}

/* ---- queries and answers ---- */

/* Logged once per change of the failure, not at every retry. */
static void dn_failed(struct dnsnames *dn, struct dn_name *n, int ret, const char *why)
{
	dnspolicy_failed(&dn->pol, &n->st, loop_now());
	if (ret == n->err)
		return;
	n->err = ret;
	log_error("endpoint %s:%u: %s; the peer keeps its endpoint, trying again", n->host, n->port, why);
}

static void dn_send(struct dnsnames *dn, struct dn_name *n)
{
	int ret = dn->w ? 0 : dn_worker_start(dn);

	dnspolicy_sent(&n->st);
	if (ret < 0) {
		dn_failed(dn, n, ret, "cannot start the resolver thread");
		return;
	}
	pthread_mutex_lock(&dn->w->mu);
	strcpy(dn->w->host, n->host);	/* fits: checked by dnsnames_update */
	dn->w->port = n->port;
	dn->w->slot = DN_QUERY;
	pthread_cond_broadcast(&dn->w->cv);
	pthread_mutex_unlock(&dn->w->mu);
	memcpy(dn->out_key, n->key, CONFIG_KEY_LEN);
	dn->out = true;
}

/* Sends the first name that is due, if no query is out. */
static void dn_check(struct dnsnames *dn)
{
	struct config_device snap;
	bool have = false;
	uint64_t now = loop_now();
	size_t i;

	if (dn->out)
		return;
	config_device_init(&snap);
	for (i = 0; i < dn->len; i++) {
		struct dn_name *n = &dn->names[i];
		bool stale = false;

		if (!dnspolicy_due(&n->st, true, now))
			continue;
		if (!have && host_config_read(dn->h, &snap) < 0)
			break;
		have = true;
		stale = dn_stale(dn, dn_peer(&snap, n->key));
		if (dnspolicy_due(&n->st, stale, now)) {
			dn_send(dn, n);
			break;
		}
	}
	config_device_clear(&snap);
}

static void dn_set(struct dnsnames *dn, const struct dn_name *n, const union config_endpoint *ep)
{
	struct config_peer p = { .flags = CONFIG_PEER_UPDATE_ONLY | CONFIG_PEER_HAS_ENDPOINT, .endpoint = *ep };
	struct config_device cfg = { .peers = &p, .peers_len = 1, .peers_cap = 1 };
	char buf[INET6_ADDRSTRLEN + 9];
	int ret;

	memcpy(p.public_key, n->key, CONFIG_KEY_LEN);
	dn_format(ep, buf, sizeof(buf));
	ret = host_config_apply(dn->h, &cfg);
	if (ret < 0)
		log_error("endpoint %s:%u: cannot set %s: %s", n->host, n->port, buf, strerror(-ret));
	else
		log_info("endpoint %s:%u: the peer's endpoint is now %s", n->host, n->port, buf);
}

static void dn_take(struct dnsnames *dn, struct dn_name *n, const union config_endpoint *ep)
{
	union config_endpoint cur = { .addr.sa_family = AF_UNSPEC };
	char buf[INET6_ADDRSTRLEN + 9];
	const struct config_peer *p;
	struct config_device snap;
	int ret;

	config_device_init(&snap);
	ret = host_config_read(dn->h, &snap);
	if (ret < 0) {
		dn_failed(dn, n, ret, strerror(-ret));
		return;
	}
	if (n->err)
		log_info("endpoint %s:%u resolves again", n->host, n->port);
	n->err = 0;
	p = dn_peer(&snap, n->key);
	if (p && (p->flags & CONFIG_PEER_HAS_ENDPOINT))
		cur = p->endpoint;
	if (dnspolicy_answered(&dn->pol, &n->st, dn_stale(dn, p), ep, &cur, loop_now()) && p) {
		dn_set(dn, n, ep);
	} else if (log_enabled(LOG_LEVEL_DEBUG)) {
		dn_format(ep, buf, sizeof(buf));
		log_debug("endpoint %s:%u is %s; the peer's endpoint is kept", n->host, n->port, buf);
	}
	config_device_clear(&snap);
}

static void dn_on_answer(struct loop_fd *fd, uint32_t revents)
{
	struct dnsnames *dn = container_of(fd, struct dnsnames, ev);
	struct dn_worker *w = dn->w;
	union config_endpoint ep;
	char err[sizeof(w->err)];
	struct dn_name *n;
	uint64_t count;
	int ret;

	(void)revents;
	if (read(w->efd, &count, sizeof(count)) < 0)
		return;
	pthread_mutex_lock(&w->mu);
	if (w->slot != DN_ANSWER) {
		pthread_mutex_unlock(&w->mu);
		return;
	}
	ret = w->ret;
	ep = w->ep;
	memcpy(err, w->err, sizeof(err));
	w->slot = DN_IDLE;
	pthread_mutex_unlock(&w->mu);
	dn->out = false;
	/* The name may have gone with a reload while its query was out. */
	n = dn_find(dn, dn->out_key, w->host, w->port);
	if (n && ret < 0)
		dn_failed(dn, n, ret, err);
	else if (n)
		dn_take(dn, n, &ep);
	dn_check(dn);
}

static void dn_on_tick(struct loop_fd *fd, uint32_t revents)
{
	struct dnsnames *dn = container_of(fd, struct dnsnames, tick);
	uint64_t count;

	(void)revents;
	if (read(fd->fd, &count, sizeof(count)) < 0)
		return;
	dn_check(dn);
}

/* ---- the interface ---- */

int dnsnames_create(struct dnsnames **out, struct host *h)
{
	const char *env = getenv("WGD_RERESOLVE_SECONDS");
	struct dnsnames *dn = calloc(1, sizeof(*dn));
	int fd, ret;

	if (!dn)
		return -ENOMEM;
	dn->h = h;
	if (!dnspolicy_init(&dn->pol, env))
		log_error("WGD_RERESOLVE_SECONDS=%s is not a number of seconds from 1 to %u; using %u",
			  env, DNSPOLICY_STALE_MAX_S, DNSPOLICY_STALE_S);
	fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		free(dn);
		return ret;
	}
	ret = loop_add(host_loop(h), &dn->tick, fd, EPOLLIN, dn_on_tick);
	if (ret < 0) {
		close(fd);
		free(dn);
		return ret;
	}
	*out = dn;
	return 0;
}

int dnsnames_update(struct dnsnames *dn, const struct conffile *cf)
{
	struct itimerspec its = { 0 };
	struct dn_name *names = NULL, *old;
	size_t i, len = 0;

	for (i = 0; i < cf->dev.peers_len; i++)
		len += cf->peers[i].endpoint_is_name && cf->peers[i].endpoint_host;
	if (len && !(names = calloc(len, sizeof(*names))))
		return -ENOMEM;
	len = 0;
	for (i = 0; i < cf->dev.peers_len; i++) {
		const struct conffile_peer *cp = &cf->peers[i];
		struct dn_name *n = &names[len];

		if (!cp->endpoint_is_name || !cp->endpoint_host)
			continue;
		if (strlen(cp->endpoint_host) >= DN_HOST_MAX) {
			log_error("line %u: the Endpoint's host name is too long", cp->line);
			continue;
		}
		/* The same name of the same peer keeps its state. */
		old = dn_find(dn, cf->dev.peers[i].public_key, cp->endpoint_host, cp->endpoint_port);
		if (old)
			*n = *old;
		memcpy(n->key, cf->dev.peers[i].public_key, CONFIG_KEY_LEN);
		n->port = cp->endpoint_port;
		n->host = strdup(cp->endpoint_host);
		if (!n->host) {
			dn_free_names(names, len);
			return -ENOMEM;
		}
		n->st.now = true;	/* every name at once */
		len++;
	}
	dn_free_names(dn->names, dn->len);
	dn->names = names;
	dn->len = len;
	/* No names, no ticks. */
	if (len) {
		its.it_interval.tv_sec = (time_t)(dn->pol.retry_ns / NS_PER_S);
		its.it_value = its.it_interval;
	}
	if (timerfd_settime(dn->tick.fd, 0, &its, NULL) < 0)
		return -errno;
	dn_check(dn);
	return 0;
}

void dnsnames_destroy(struct dnsnames *dn)
{
	if (!dn)
		return;
	dn_worker_stop(dn);
	loop_remove(host_loop(dn->h), &dn->tick);
	close(dn->tick.fd);
	dn_free_names(dn->names, dn->len);
	free(dn);
}
