// SPDX-License-Identifier: GPL-2.0-only
/*
 * Privilege drop without libcap: the capability system calls are two small
 * structures (capget(2), _LINUX_CAPABILITY_VERSION_3: two 32-bit words per
 * set), so the raw syscall costs less than the library.
 *
 * Order, all while still root, in the daemon's one thread:
 *   1. trim the bounding set to CAP_NET_ADMIN (needs CAP_SETPCAP), so
 *      nothing the process executes can regain more;
 *   2. PR_SET_KEEPCAPS, so that setuid() keeps the permitted set;
 *   3. supplementary groups, gid, uid (all three ids each);
 *   4. capset: effective = permitted = CAP_NET_ADMIN, inheritable = none;
 *      the ambient set cleared;
 *   5. PR_SET_NO_NEW_PRIVS, and a check that setuid(0) now fails.
 *
 * prctl() and capset() act on the calling thread alone (glibc carries only
 * the set*id calls to every thread), so a thread made before the drop
 * would keep a full bounding set and no no-new-privileges: the drop checks
 * that there is none (the resolver thread starts after it: dnsnames.h).
 */
#define _GNU_SOURCE
#include "daemon/base/privdrop.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/base/log.h"

#define PRIVDROP_DEFAULT_USER "wgd"

/*
 * The one capability kept is numbered below 32: one word of each set, the
 * first of version 3's two, says all there is to say; the second word is
 * always written as zero.
 */
typedef uint32_t capmask;
#define CAPBIT(c) ((capmask)1 << (c))

/* capget(2) or capset(2) of this thread with the two words of each set. */
static int caps_call(long nr, struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};

	return syscall(nr, &hdr, data) < 0 ? -errno : 0;
}

static int caps_set(capmask effective, capmask permitted)
{
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	data[0].effective = effective;
	data[0].permitted = permitted;
	return caps_call(SYS_capset, data);
}

_Static_assert(CAP_NET_ADMIN < 32, "the kept capability is in the first word");

/* The permitted set's first word now (0 if it cannot be read). */
static capmask caps_permitted(void)
{
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	return caps_call(SYS_capget, data) < 0 ? 0 : data[0].permitted;
}

/*
 * Drops every capability outside keep from the bounding set; -EPERM without
 * CAP_SETPCAP (a service manager may have trimmed it already).
 */
static int bounding_trim(capmask keep)
{
	int c, in;

	for (c = 0; (in = prctl(PR_CAPBSET_READ, c, 0, 0, 0)) >= 0; c++) {
		if (!in || (c < 32 && (keep & CAPBIT(c))))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			return -errno;
	}
	return 0;
}

/* msg is fmt's text and ": " strerror(-err); err 0 means -errno. */
static int fail(char *msg, size_t len, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t len, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!err)
		err = -errno;
	va_start(ap, fmt);
	n = vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < len)
		snprintf(msg + n, len - (size_t)n, ": %s", strerror(-err));
	return err;
}

/*
 * getpwnam() in a child process: the name service (nsswitch.conf's
 * modules, e.g. libnss_systemd with its libraries, dlopen()ed into the
 * caller for good) would otherwise stay mapped in the daemon for its whole
 * life for one lookup at start: 1.2 MB of the 3.2 MB an idle wgd had on
 * Debian 12 (doc/performance.md, "the user lookup").  1 with *uid and *gid
 * set, 0 if there is no such user, -errno.
 */
static int lookup_user(const char *name, uid_t *uid, gid_t *gid)
{
	struct {
		int found, err;
		uid_t uid;
		gid_t gid;
	} r = { 0, 0, 0, 0 };
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (pid == 0) {
		struct passwd *pw;

		close(fds[0]);
		errno = 0;
		pw = getpwnam(name);
		if (pw) {
			r.found = 1;
			r.uid = pw->pw_uid;
			r.gid = pw->pw_gid;
		} else {
			r.err = errno;
		}
		_exit(write(fds[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(fds[1]);
	do
		n = read(fds[0], &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(r))
		return -EIO;
	if (!r.found)
		return r.err ? -r.err : 0;
	*uid = r.uid;
	*gid = r.gid;
	return 1;
}

/* The threads of this process (1 if /proc cannot tell). */
static unsigned int privdrop_threads(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	unsigned int n = 1;
	char line[128];

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The user to change to: 1 with *uid and *gid; 0 when root stays (logged). */
static int privdrop_user(const struct privdrop_opts *o, const char *name, uid_t *uid, gid_t *gid,
			 char *msg, size_t msglen)
{
	int ret = lookup_user(name, uid, gid);

	if (ret <= 0) {
		if (o->user_given)
			return fail(msg, msglen, ret < 0 ? ret : -ENOENT, "no user '%s'", name);
		log_error("warning: no user '%s': running as root after set-up (create the system user "
			  "%s, or give --user USER)", name, name);
		return 0;
	}
	if (*uid == 0) {
		log_info("user '%s' is root: no privilege drop", name);
		return 0;
	}
	if (geteuid() != 0)
		return fail(msg, msglen, -EPERM, "cannot change to user '%s' when not started as root",
			    name);
	return 1;
}

int privdrop_apply(const struct privdrop_opts *o, char *msg, size_t msglen)
{
	const char *name = o->user ? o->user : PRIVDROP_DEFAULT_USER;
	capmask net = CAPBIT(CAP_NET_ADMIN);
	unsigned int threads;
	uid_t uid = 0;
	gid_t gid = 0;
	bool bounded;
	int ret;

	ret = privdrop_user(o, name, &uid, &gid, msg, msglen);
	if (ret <= 0)
		return ret;
	threads = privdrop_threads();
	if (threads > 1)
		return fail(msg, msglen, -EBUSY, "%u threads before the privilege drop, which acts on "
			    "one", threads);
	/* Only what we have can be kept (a service manager may have bounded it). */
	net &= caps_permitted();
	ret = bounding_trim(net);
	if (ret < 0 && ret != -EPERM)
		return fail(msg, msglen, ret, "cannot trim the capability bounding set");
	bounded = ret == 0;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return fail(msg, msglen, 0, "PR_SET_KEEPCAPS");
	if (setgroups(1, &gid) < 0 || setresgid(gid, gid, gid) < 0)
		return fail(msg, msglen, 0, "cannot change to group %u", (unsigned int)gid);
	if (setresuid(uid, uid, uid) < 0)
		return fail(msg, msglen, 0, "cannot change to user '%s'", name);
	ret = caps_set(net, net);
	if (ret < 0)
		return fail(msg, msglen, ret, "capset");
	/* Empty already (nothing inheritable); EINVAL before Linux 4.3, which has none. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return fail(msg, msglen, 0, "PR_CAP_AMBIENT_CLEAR_ALL");
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(msg, msglen, 0, "prctl");
	/* setuid(0) succeeding now would mean the drop did not take. */
	if (setuid(0) == 0)
		return fail(msg, msglen, -EPERM, "still able to become root after the drop");
	log_info("running as user '%s' (uid %u, gid %u) with %s alone%s", name, (unsigned int)uid,
		 (unsigned int)gid, net ? "cap_net_admin" : "no capability",
		 bounded ? "" : "; bounding set unchanged (no cap_setpcap)");
	return 0;
}
