/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The control socket, client side: connect, write one operation, read the
 * reply up to its blank line, hand the text to daemon/config/uapi.c.
 */
#define _GNU_SOURCE
#include "tools/wgctl/ipc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/config/uapi.h"
#include "tools/wgctl/kernel.h"

/* A reply is a few hundred bytes per peer; this bounds a runaway daemon. */
#define REPLY_MAX (64u << 20)

/* Where wgd puts the socket (uapi_socket_path(): the same rule, so a name
 * no interface can have is refused here as wgd refuses it). */
static int socket_path(struct sockaddr_un *sun, const char *ifname)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	return uapi_socket_path(sun->sun_path, sizeof(sun->sun_path), uapi_run_dir(NULL), ifname);
}

/* A connected descriptor or -errno.  A socket file that refuses the
 * connection belongs to a daemon that is gone: it is removed. */
static int ipc_connect(const char *ifname)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd, ret;

	ret = socket_path(&sun, ifname);
	if (ret < 0)
		return ret;
	if (stat(sun.sun_path, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EBADF;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		ret = -errno;
		if (ret == -ECONNREFUSED)
			unlink(sun.sun_path);
		close(fd);
		return ret;
	}
	return fd;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads until the reply's blank line ("\n\n"; no line of a reply is
 * empty before it).  0, -EPROTO at an early end, or -errno. */
static int read_reply(int fd, struct uapi_buf *b)
{
	char chunk[4096];
	int ret = 0;

	for (;;) {
		size_t from = b->len ? b->len - 1 : 0;
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			break;
		}
		if (n == 0 || b->len + (size_t)n > REPLY_MAX) {
			ret = -EPROTO;
			break;
		}
		ret = uapi_buf_append(b, chunk, (size_t)n);
		if (ret < 0)
			break;
		if (memmem(b->data + from, b->len - from, "\n\n", 2))
			break;
	}
	crypto_wipe(chunk, sizeof(chunk));	/* it may have held a private key */
	return ret;
}

/* One operation: msg out, the reply into b.  0 or -errno. */
static int exchange(const char *ifname, const char *msg, size_t len, struct uapi_buf *b)
{
	int fd = ipc_connect(ifname);
	int ret;

	if (fd < 0)
		return fd;
	ret = write_all(fd, msg, len);
	if (ret == 0)
		ret = read_reply(fd, b);
	close(fd);
	return ret;
}

/*
 * An interface without a control socket may be the kernel's WireGuard
 * (tools/wgctl/kernel.c), as wg(8) looks for both; when it is not, the
 * socket's error stands.
 */
static bool kernel_answered(int ret)
{
	return ret != -ENODEV && ret != -EOPNOTSUPP;
}

int ipc_get(const char *ifname, struct config_device *out)
{
	static const char get[] = "get=1\n\n";
	struct uapi_buf b;
	int ret, k;

	uapi_buf_init(&b);
	ret = exchange(ifname, get, sizeof(get) - 1, &b);
	if (ret == 0)
		ret = uapi_parse_get(out, b.data, b.len);
	uapi_buf_clear(&b);
	if (ret == -ENOENT && kernel_answered(k = kernel_get(ifname, out)))
		return k;
	return ret;
}

int ipc_set(const char *ifname, const struct config_device *cfg)
{
	struct uapi_buf msg, reply;
	int ret, k;

	if (ipc_socket_exists(ifname) == 0 && kernel_answered(k = kernel_set(ifname, cfg)))
		return k;
	uapi_buf_init(&msg);
	uapi_buf_init(&reply);
	ret = uapi_print_set(&msg, cfg);
	if (ret == 0)
		ret = exchange(ifname, msg.data, msg.len, &reply);
	/* The reply of a set is the errno line alone; a get reply without
	 * its other lines is exactly that. */
	if (ret == 0) {
		struct config_device none;

		config_device_init(&none);
		ret = uapi_parse_get(&none, reply.data, reply.len);
		if (ret == 0 && (none.flags || none.peers_len))
			ret = -EPROTO;
		config_device_clear(&none);
	}
	uapi_buf_clear(&msg);
	uapi_buf_clear(&reply);
	return ret;
}

/*
 * Whether name (in the run directory, without ".sock") is an interface's
 * socket, as wg(8) decides it: a socket file whose connection is not
 * refused.  One this user may not connect to (EACCES: not root) is still
 * an interface, for `show` to report as "Permission denied".
 */
static int answers(const char *name)
{
	int fd = ipc_connect(name);

	if (fd >= 0)
		close(fd);
	return fd >= 0 || (fd != -ECONNREFUSED && fd != -ENOENT && fd != -EBADF && fd != -EINVAL &&
			   fd != -ENAMETOOLONG);
}

int ipc_list(char **names, size_t *count)
{
	DIR *dir = opendir(uapi_run_dir(NULL));
	struct dirent *ent;
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int ret = 0;

	*names = NULL;
	*count = 0;
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((ent = readdir(dir))) {
		size_t n = strlen(ent->d_name), suffix = strlen(UAPI_SOCK_SUFFIX);

		if (n <= suffix || strcmp(ent->d_name + n - suffix, UAPI_SOCK_SUFFIX) != 0)
			continue;
		ent->d_name[n - suffix] = '\0';
		n -= suffix;
		if (!answers(ent->d_name))
			continue;
		if (len + n + 1 > cap) {
			char *grown;

			cap = (len + n + 1) * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			buf = grown;
		}
		memcpy(buf + len, ent->d_name, n + 1);
		len += n + 1;
		(*count)++;
	}
	closedir(dir);
	if (ret < 0) {
		free(buf);
		*count = 0;
		return ret;
	}
	*names = buf;
	return 0;
}

/* The inode of the socket listening on path, from /proc/net/unix (this
 * network namespace's sockets); 0 if it is not there. */
static unsigned long listener_inode(const char *path)
{
	char line[256 + sizeof(((struct sockaddr_un *)0)->sun_path)];
	char name[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned long flags, inode, found = 0;
	FILE *f = fopen("/proc/net/unix", "re");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		/* Num RefCount Protocol Flags Type St Inode Path; a listening
		 * socket has __SO_ACCEPTCON (0x10000) in its flags. */
		if (sscanf(line, "%*s %*x %*x %lx %*x %*x %lu %107s", &flags, &inode, name) == 3 &&
		    (flags & 0x10000) && strcmp(name, path) == 0)
			found = inode;
	}
	fclose(f);
	return found;
}

/* A process with the socket inode among its descriptors; 0 if none. */
static pid_t inode_holder(unsigned long inode)
{
	char want[32], link[64], path[64];
	struct dirent *p, *d;
	DIR *proc = opendir("/proc");
	pid_t found = 0;

	if (!proc)
		return 0;
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	while (!found && (p = readdir(proc))) {
		DIR *fds;

		if (p->d_name[0] < '1' || p->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/fd", p->d_name);
		fds = opendir(path);
		if (!fds)
			continue;
		while (!found && (d = readdir(fds))) {
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%.16s/fd/%.16s", p->d_name, d->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0 && (link[n] = '\0', strcmp(link, want) == 0))
				found = (pid_t)atol(p->d_name);
		}
		closedir(fds);
	}
	closedir(proc);
	return found;
}

/*
 * SO_PEERCRED names the process that called listen(), which for a daemon
 * that creates its socket before it forks (wgd, wireguard-go) is the
 * launcher, gone since.  So the process is the one that holds the
 * listening socket now; SO_PEERCRED only when the socket is not in this
 * network namespace's list.
 */
int ipc_daemon_pid(const char *ifname, pid_t *pid)
{
	struct sockaddr_un sun;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	unsigned long inode;
	int fd = ipc_connect(ifname);
	int ret = 0;

	if (fd < 0)
		return fd;
	socket_path(&sun, ifname);
	inode = listener_inode(sun.sun_path);
	*pid = inode ? inode_holder(inode) : 0;
	if (*pid) {
		/* found */
	} else if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		ret = -errno;
	} else if (cred.pid <= 0) {
		ret = -ESRCH;
	} else {
		*pid = cred.pid;
	}
	close(fd);
	return ret;
}

int ipc_socket_exists(const char *ifname)
{
	struct sockaddr_un sun;
	struct stat st;

	if (socket_path(&sun, ifname) < 0)
		return 0;
	return lstat(sun.sun_path, &st) == 0;
}
