// SPDX-License-Identifier: GPL-2.0-only
/*
 * Privilege drop without libcap: the capability system calls are two small
 * structures (capget(2), _LINUX_CAPABILITY_VERSION_3: two 32-bit words per
 * set), so the raw syscall costs less than the library.
 *
 * Order, all while still root:
 *   1. trim the bounding set to what will be kept (needs CAP_SETPCAP), so
 *      nothing the process or a hook it runs executes can regain more;
 *   2. PR_SET_KEEPCAPS, so that setuid() keeps the permitted set;
 *   3. supplementary groups, gid, uid (all three ids each);
 *   4. capset: effective = the network capabilities, permitted = those plus
 *      the file ones, inheritable = none (which also empties the ambient set);
 *   5. PR_SET_NO_NEW_PRIVS, and a check that setuid(0) now fails.
 *
 * prctl() and capset() act on the calling thread alone (glibc carries only
 * the set*id calls to every thread): the drop must come before any other
 * thread exists, as it does (dnsnames starts its resolver on the loop).
 *
 * The file capabilities (CAP_DAC_OVERRIDE, CAP_FOWNER for a sticky run
 * directory, CAP_CHOWN for SaveConfig) stay out of the effective set except between
 * privdrop_file_begin() and privdrop_file_end(): the socket's lstat() and
 * unlink() in a root-owned run directory, a reload's read of a root-only
 * configuration file, SaveConfig's write.
 */
#define _GNU_SOURCE
#include "daemon/base/privdrop.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/base/log.h"

#define PRIVDROP_DEFAULT_USER "wgd"

/*
 * Every capability kept or raised (cap_names below) is numbered below 32:
 * one word of each set, the first of version 3's two, says all there is to
 * say; the second word is always written as zero (none of those kept).
 */
typedef uint32_t capmask;
#define CAPBIT(c) ((capmask)1 << (c))

static struct {
	bool dropped;
	unsigned int depth;	/* privdrop_file_begin() nesting */
	capmask effective;	/* the effective set outside file operations */
	capmask file;		/* raised by privdrop_file_begin() */
} pd;

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

static const struct {
	int cap;
	const char *name;
} cap_names[] = {
	{ CAP_NET_ADMIN, "cap_net_admin" },
	{ CAP_NET_BIND_SERVICE, "cap_net_bind_service" },
	{ CAP_DAC_OVERRIDE, "cap_dac_override" },
	{ CAP_FOWNER, "cap_fowner" },
	{ CAP_CHOWN, "cap_chown" },
};
_Static_assert(CAP_NET_ADMIN < 32 && CAP_NET_BIND_SERVICE < 32 && CAP_DAC_OVERRIDE < 32 &&
	       CAP_FOWNER < 32 && CAP_CHOWN < 32, "the kept capabilities are in the first word");

/* Appends the names of the capabilities in m ("none" if empty). */
static void cap_list(char *buf, size_t len, capmask m)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (!(m & CAPBIT(cap_names[i].cap)) || n >= len)
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", cap_names[i].name);
	}
	if (!n)
		snprintf(buf, len, "none");
}

/* Whether uid/gid (primary group only) has the owner-class bits want on st. */
static bool may(const struct stat *st, uid_t uid, gid_t gid, mode_t want)
{
	if (st->st_uid != uid)
		want >>= st->st_gid == gid ? 3 : 6;
	return (st->st_mode & want) == want;
}

/*
 * The capabilities the socket file's lstat() and unlink() at exit need:
 * none when the run directory is writable and every directory on the way
 * searchable for uid/gid, else DAC_OVERRIDE; in a sticky directory the user
 * does not own, the root-owned socket can be unlinked only with FOWNER.
 */
static capmask run_dir_caps(const char *dir, uid_t uid, gid_t gid)
{
	mode_t want = S_IWUSR | S_IXUSR;
	char path[PATH_MAX];
	capmask m = 0;
	struct stat st;
	char *slash;
	size_t n;

	n = strlen(dir);
	if (n >= sizeof(path) || stat(dir, &st) < 0)
		return CAPBIT(CAP_DAC_OVERRIDE);
	if ((st.st_mode & S_ISVTX) && st.st_uid != uid)
		m |= CAPBIT(CAP_FOWNER);
	memcpy(path, dir, n + 1);
	for (;;) {
		if (stat(path, &st) < 0 || !may(&st, uid, gid, want))
			return m | CAPBIT(CAP_DAC_OVERRIDE);
		want = S_IXUSR;
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			return m;
		*slash = '\0';
	}
}

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

int privdrop_apply(const struct privdrop_opts *o, char *msg, size_t msglen)
{
	const char *name = o->user ? o->user : PRIVDROP_DEFAULT_USER;
	char kept[96], file[64];
	capmask have, net, files;
	bool bounded;
	uid_t uid = 0;
	gid_t gid = 0;
	int ret;

	ret = lookup_user(name, &uid, &gid);
	if (ret <= 0) {
		if (o->user_given)
			return fail(msg, msglen, ret < 0 ? ret : -ENOENT, "no user '%s'", name);
		snprintf(msg, msglen, "no user '%s': keeping root privileges (--user USER drops them)",
			 name);
		return 0;
	}
	if (uid == 0) {
		snprintf(msg, msglen, "user '%s' is root: no privilege drop", name);
		return 0;
	}
	if (o->root_hooks && !o->user_given) {
		snprintf(msg, msglen, "keeping root privileges: PreDown, PostDown or DNS must run as root "
			 "at exit (--user USER drops them anyway)");
		return 0;
	}
	if (geteuid() != 0)
		return fail(msg, msglen, -EPERM, "cannot change to user '%s' when not started as root",
			    name);

	/* Only what we have can be kept (a service manager may have bounded it). */
	have = caps_permitted();
	net = CAPBIT(CAP_NET_ADMIN);
	if (o->port > 0 && o->port < 1024)
		net |= CAPBIT(CAP_NET_BIND_SERVICE);
	files = run_dir_caps(o->run_dir, uid, gid);
	if (o->file_access)
		files |= CAPBIT(CAP_DAC_OVERRIDE);
	/* SaveConfig's new file is the user's until fchown()ed to the old one's
	 * owner: without it, the user could edit what root runs next (PreUp). */
	if (o->save_config)
		files |= CAPBIT(CAP_CHOWN);
	net &= have;
	files &= have & ~net;

	ret = bounding_trim(net | files);
	if (ret < 0 && ret != -EPERM)
		return fail(msg, msglen, ret, "cannot trim the capability bounding set");
	bounded = ret == 0;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return fail(msg, msglen, 0, "PR_SET_KEEPCAPS");
	if (setgroups(1, &gid) < 0 || setresgid(gid, gid, gid) < 0)
		return fail(msg, msglen, 0, "cannot change to group %u", (unsigned int)gid);
	if (setresuid(uid, uid, uid) < 0)
		return fail(msg, msglen, 0, "cannot change to user '%s'", name);
	ret = caps_set(net, net | files);
	if (ret < 0)
		return fail(msg, msglen, ret, "capset");
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail(msg, msglen, 0, "prctl");
	/* setuid(0) succeeding now would mean the drop did not take. */
	if (setuid(0) == 0)
		return fail(msg, msglen, -EPERM, "still able to become root after the drop");
	pd.dropped = true;
	pd.effective = net;
	pd.file = files;

	cap_list(kept, sizeof(kept), net);
	cap_list(file, sizeof(file), files);
	snprintf(msg, msglen, "running as user '%s' (uid %u, gid %u); capabilities kept: %s; "
		 "permitted only, raised for file access: %s%s",
		 name, (unsigned int)uid, (unsigned int)gid, kept, file,
		 bounded ? "" : "; bounding set unchanged (no cap_setpcap)");
	return 0;
}

void privdrop_file_begin(void)
{
	int ret;

	if (!pd.dropped || !pd.file || pd.depth++)
		return;
	ret = caps_set(pd.effective | pd.file, pd.effective | pd.file);
	if (ret < 0)
		log_error_errno(-ret, "cannot raise the file capabilities");
}

void privdrop_file_end(void)
{
	int ret;

	if (!pd.dropped || !pd.file || !pd.depth || --pd.depth)
		return;
	ret = caps_set(pd.effective, pd.effective | pd.file);
	if (ret < 0)
		log_error_errno(-ret, "cannot lower the file capabilities");
}
