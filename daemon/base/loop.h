/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The event loop: one epoll set and one deadline.
 *
 * A handle (struct loop_fd) is embedded in the struct of the module that owns
 * the descriptor, with one callback; the callback finds its owner with
 * container_of().  Timers are not handles: the protocol core computes the
 * next instant something is due, the owner sets it with loop_set_deadline(),
 * and on_deadline runs once that instant has passed.
 *
 * Time is the boot clock (daemon/base/clock.h).  Every wakeup, by an event or
 * the deadline, first compares it with the monotonic clock: if the system
 * was suspended since the last wakeup, on_resume runs before any callback,
 * so that no packet of this wakeup meets state that should have died in
 * the sleep.  (epoll_wait() counts its timeout on the monotonic clock, so a
 * deadline that passes during a suspend fires late, after the resume; an
 * event that wakes the loop earlier finds it due.)
 */
#ifndef WGD_LOOP_H
#define WGD_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto/util.h"
#include "daemon/base/clock.h"


struct loop;

struct loop_fd {
	int fd;
	uint32_t events;	/* EPOLLIN / EPOLLOUT ... as registered */
	void (*cb)(struct loop_fd *h, uint32_t revents);
};

struct loop {
	int epfd;
	bool running;
	uint64_t deadline;	/* loop_now() ns; UINT64_MAX = none */
	void (*on_deadline)(struct loop *l, uint64_t now);
	/* the system slept for slept_ns (> CLOCK_SUSPEND_MIN_NS) */
	void (*on_resume)(struct loop *l, uint64_t now, uint64_t slept_ns);
	struct clock_suspend suspend;
};

/* Both return 0 or -errno. */
WGD_COLD int loop_init(struct loop *l);
WGD_COLD void loop_clear(struct loop *l);

WGD_OUT_OF_LINE int loop_add(struct loop *l, struct loop_fd *h, int fd, uint32_t events,
	     void (*cb)(struct loop_fd *h, uint32_t revents));
int loop_modify(struct loop *l, struct loop_fd *h, uint32_t events);
/* Removes the handle; does not close the descriptor. */
void loop_remove(struct loop *l, struct loop_fd *h);

/* Moves the single deadline (loop_now() ns); UINT64_MAX clears it. */
void loop_set_deadline(struct loop *l, uint64_t when);

/* Runs until loop_stop(); returns 0, or -errno if epoll fails. */
int loop_run(struct loop *l);
void loop_stop(struct loop *l);

/* Protocol time: CLOCK_BOOTTIME in nanoseconds (daemon/base/clock.h). */
uint64_t loop_now(void);

#endif
