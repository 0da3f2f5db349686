// SPDX-License-Identifier: GPL-2.0-only
/*
 * The event loop: epoll plus one deadline (see loop.h).
 *
 * The deadline becomes the epoll_wait() timeout, rounded up to a whole
 * millisecond so that the loop never wakes early and spins; it is a boot
 * clock instant, and every wakeup checks for a suspend first.  A handle removed
 * by a callback while later events of the same epoll_wait() batch still name
 * it is blanked out of that batch, so no callback ever sees a freed handle.
 */
#include "daemon/base/loop.h"
#include "crypto/util.h"
#include "daemon/core/messages.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#define LOOP_MAX_EVENTS 32

/* The batch being dispatched, so loop_remove() can blank stale entries. */
static struct epoll_event *loop_batch;
static int loop_batch_len;

WGD_COLD int loop_init(struct loop *l)
{
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -errno;
	l->running = false;
	l->deadline = UINT64_MAX;
	l->on_deadline = NULL;
	l->on_resume = NULL;
	l->suspend = (struct clock_suspend){ 0 };
	return 0;
}

WGD_COLD void loop_clear(struct loop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
	l->running = false;
}

int loop_add(struct loop *l, struct loop_fd *h, int fd, uint32_t events,
	     void (*cb)(struct loop_fd *h, uint32_t revents))
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	h->fd = fd;
	h->events = events;
	h->cb = cb;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

int loop_modify(struct loop *l, struct loop_fd *h, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = h };

	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, h->fd, &ev) < 0)
		return -errno;
	h->events = events;
	return 0;
}

void loop_remove(struct loop *l, struct loop_fd *h)
{
	int i;

	if (h->fd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, h->fd, NULL);
	for (i = 0; i < loop_batch_len; i++) {
		if (loop_batch[i].data.ptr == h)
			loop_batch[i].data.ptr = NULL;
	}
}

void loop_set_deadline(struct loop *l, uint64_t when)
{
	l->deadline = when;
}

uint64_t loop_now(void)
{
	return clock_boot_ns();
}

/*
 * At every wakeup, before any callback: was the system suspended since the
 * last one?  Two clock reads per wakeup, not per packet (both in the vDSO
 * on current kernels, so no system call).
 */
static void loop_check_resume(struct loop *l)
{
	uint64_t boot = clock_boot_ns();
	uint64_t slept = clock_suspend_check(&l->suspend, boot, clock_mono_ns());

	if (slept && l->on_resume)
		l->on_resume(l, boot, slept);
}

/*
 * Milliseconds until the deadline, rounded up; -1 when there is none.
 * Through seconds (wg_ns_to_sec(), daemon/core/messages.h): the
 * milliseconds of ns + 999999 are its seconds * 1000 plus those of the
 * nanoseconds left.
 */
static int loop_timeout_ms(const struct loop *l, uint64_t now)
{
	uint64_t sec;
	uint32_t nsec;

	if (l->deadline == UINT64_MAX)
		return -1;
	if (l->deadline <= now)
		return 0;
	sec = wg_ns_to_sec(l->deadline - now + 999999, &nsec);
	if (sec > INT_MAX / 1000)
		return INT_MAX;
	sec = sec * 1000 + nsec / 1000000;
	return sec > INT_MAX ? INT_MAX : (int)sec;
}

static void loop_run_deadline(struct loop *l)
{
	uint64_t now = loop_now();

	if (l->deadline == UINT64_MAX || now < l->deadline)
		return;
	/* Cleared first: on_deadline sets the next one. */
	l->deadline = UINT64_MAX;
	if (l->on_deadline)
		l->on_deadline(l, now);
}

int loop_run(struct loop *l)
{
	struct epoll_event events[LOOP_MAX_EVENTS];
	int n, i, err;

	l->running = true;
	loop_check_resume(l);
	while (l->running) {
		n = epoll_wait(l->epfd, events, LOOP_MAX_EVENTS,
			       loop_timeout_ms(l, loop_now()));
		err = errno;
		loop_check_resume(l);
		if (n < 0) {
			if (err == EINTR)
				continue;
			l->running = false;
			return -err;
		}
		loop_batch = events;
		loop_batch_len = n;
		for (i = 0; i < n && l->running; i++) {
			struct loop_fd *h = events[i].data.ptr;

			if (h)
				h->cb(h, events[i].events);
		}
		loop_batch = NULL;
		loop_batch_len = 0;
		if (l->running)
			loop_run_deadline(l);
	}
	return 0;
}

void loop_stop(struct loop *l)
{
	l->running = false;
}
