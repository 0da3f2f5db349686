// SPDX-License-Identifier: GPL-2.0-only
/*
 * For the network tests only, loaded with LD_PRELOAD: a simulated suspend.
 * CLOCK_BOOTTIME (and CLOCK_BOOTTIME_ALARM) read that many seconds ahead as
 * the file named by WGD_TEST_BOOTTIME_OFFSET says, re-read at every call;
 * CLOCK_MONOTONIC and the others are untouched.  That is what a process
 * sees of a real suspend: the boot clock jumps, the monotonic clock does
 * not.  A missing file or variable means no offset.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static long long shim_offset_s(void)
{
	const char *path = getenv("WGD_TEST_BOOTTIME_OFFSET");
	char buf[32];
	ssize_t n;
	int fd, saved = errno;

	if (!path)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		errno = saved;
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	errno = saved;
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10);
}

__attribute__((visibility("default")))
int clock_gettime(clockid_t id, struct timespec *ts)
{
	static clock_gettime_fn next;
	int ret;

	if (!next)
		next = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
	if (!next) {
		errno = ENOSYS;
		return -1;
	}
	ret = next(id, ts);
	if (ret == 0 && (id == CLOCK_BOOTTIME || id == CLOCK_BOOTTIME_ALARM))
		ts->tv_sec += (time_t)shim_offset_s();
	return ret;
}
