// SPDX-License-Identifier: GPL-2.0-only
/*
 * The monitor's files: the pid file, the configuration file (a reload's
 * read, SaveConfig's write), the control socket's removal, and a bound UDP
 * socket for a port below 1024.  Every path is the one given at set-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/privsep.h"
#include "daemon/monitor/state.h"

/* ---- files set up at the start, removed only while they are ours ---- */

int monitor_remember(struct monitor_file *f, const char *path, mode_t type)
{
	struct stat st;

	if ((size_t)snprintf(f->path, sizeof(f->path), "%s", path) >= sizeof(f->path))
		return -ENAMETOOLONG;
	if (!path[0])
		return 0;
	if (lstat(path, &st) < 0)
		return -errno;
	if ((st.st_mode & S_IFMT) != type)
		return -EINVAL;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->known = true;
	return 0;
}

int monitor_unlink(struct monitor_file *f, mode_t type)
{
	struct stat st;

	if (!f->known)
		return -ENOENT;
	if (lstat(f->path, &st) < 0)
		return -errno;
	/* Replaced meanwhile (a newer daemon's socket): not ours to remove. */
	if ((st.st_mode & S_IFMT) != type || st.st_dev != f->dev || st.st_ino != f->ino)
		return -ESTALE;
	f->known = false;
	return unlink(f->path) < 0 ? -errno : 0;
}

/*
 * A new file beside path (mkostemp: created, never opened through a
 * symbolic link, mode 0600), which the caller fills and renames over path.
 * The descriptor, or -errno; *tmp the name to free.
 */
static int files_temp(const char *path, char **tmp)
{
	int fd;

	if (asprintf(tmp, "%s.XXXXXX", path) < 0) {
		*tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(*tmp, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		free(*tmp);
		*tmp = NULL;
	}
	return fd;
}

/*
 * The daemon's pid, written as a new file renamed over the path: whatever
 * was there (a symbolic link, a file another user made in a shared
 * directory) is replaced, never written through, and the file is root's,
 * mode 0644.
 */
int monitor_write_pid_file(struct monitor *m, char *err, size_t errlen)
{
	struct monitor_file *f = &m->pid_file;
	char *tmp, line[24];
	struct stat st;
	int fd, n, ret = 0;

	fd = files_temp(f->path, &tmp);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	n = snprintf(line, sizeof(line), "%ld\n", (long)getppid());
	if (fchmod(fd, 0644) < 0 || fstat(fd, &st) < 0)
		ret = -errno;
	else if (write(fd, line, (size_t)n) != n)
		ret = -EIO;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (!ret && rename(tmp, f->path) < 0)
		ret = -errno;
	if (ret)
		unlink(tmp);
	free(tmp);
	if (!ret) {
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->known = true;
	}
out:
	if (ret)
		snprintf(err, errlen, "cannot write %s: %s", f->path, strerror(-ret));
	return ret;
}

/* ---- the configuration file ---- */

void monitor_keep_quick(struct conffile *cf)
{
	for (size_t i = 0; cf->peers && i < cf->dev.peers_len; i++)
		free(cf->peers[i].endpoint_host);
	free(cf->peers);
	cf->peers = NULL;
	config_device_clear(&cf->dev);
}

/* The monitor's and the daemon's limit of a file are the files' own. */
_Static_assert(PRIVSEP_TEXT_MAX == CONFFILE_MAX, "privsep_wire.h and conffile.h disagree");

/* The file at path, whole (at most PRIVSEP_TEXT_MAX bytes); 0 or -errno. */
static int files_slurp(const char *path, char **text, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), ret;

	if (fd < 0)
		return -errno;
	ret = privsep_read_text(fd, PRIVSEP_TEXT_MAX, text, len);
	close(fd);
	return ret;
}

/*
 * Root reads the file, and keeps its wg-quick keys (the hooks and DNS it
 * runs from now on): at set-up, and on a reload, when the text (*text,
 * *len, not NULL) goes on to the daemon.  A file that does not parse changes
 * nothing (err: "FILE:LINE: problem").
 */
int monitor_load(struct monitor *m, char **text, size_t *len, char *err, size_t errlen)
{
	struct conffile next;
	size_t n = 0;
	char *t = NULL;
	int ret;

	conffile_init(&next);
	ret = files_slurp(m->config_path, &t, &n);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", m->config_path,
			 ret == -EFBIG ? "larger than " CONFFILE_MAX_TEXT : strerror(-ret));
		return ret;
	}
	ret = conffile_parse(&next, m->config_path, t, n, CONFFILE_QUICK, err, errlen);
	if (!ret) {
		monitor_keep_quick(&next);
		conffile_clear(&m->quick);
		m->quick = next;
	}
	if (!ret && text) {
		*text = t;
		*len = n;
		return 0;
	}
	crypto_wipe(t, n);
	free(t);
	return ret;
}

/* A reload: the file as root reads it, to the daemon in a memfd (*out). */
int monitor_read_config(struct monitor *m, int *out, char *err, size_t errlen)
{
	size_t len = 0;
	char *text = NULL;
	int ret = monitor_load(m, &text, &len, err, errlen);

	if (ret < 0)
		return ret;
	ret = privsep_memfd(text, len);
	crypto_wipe(text, len);
	free(text);
	if (ret < 0) {
		snprintf(err, errlen, "memfd: %s", strerror(-ret));
		return ret;
	}
	*out = ret;
	return 0;
}

/* cf (the daemon's device joined to root's wg-quick keys) as a new file
 * renamed over path, with the owner and group path had; 0 or -errno. */
static int files_write_config(const char *path, const struct conffile *cf, char *err, size_t errlen)
{
	char *tmp, buf[4096];
	struct stat old;
	FILE *f = NULL;
	int fd, ret = 0;

	fd = files_temp(path, &tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a file beside %s: %s", path, strerror(-fd));
		return fd;
	}
	/* Our own buffer, wiped: it holds the private key. */
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out;
	}
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	/* A file that is gone is written anew as root's; else it keeps its
	 * owner and group (CAP_CHOWN only when they are not root's). */
	if (stat(path, &old) == 0 && (old.st_uid != geteuid() || old.st_gid != getegid()) &&
	    fchown(fd, old.st_uid, old.st_gid) < 0)
		ret = -errno;
	if (!ret)
		ret = conffile_print(f, cf, CONFFILE_QUICK);
	if (!ret && (fflush(f) || fsync(fd) < 0))
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path) < 0)
		ret = -errno;
out:
	crypto_wipe(buf, sizeof(buf));
	if (ret < 0) {
		unlink(tmp);
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	}
	free(tmp);
	return ret;
}

int monitor_save_config(struct monitor *m, int fd, size_t len, char *err, size_t errlen)
{
	struct conffile dev, out;
	size_t got = 0;
	char *text = NULL;
	int ret;

	if (!m->config_path[0] || !m->quick.save_config || m->saved) {
		snprintf(err, errlen, "SaveConfig refused: %s", !m->config_path[0] ? "no file" :
			 m->saved ? "written once already" : "the file does not say SaveConfig = true");
		return -EPERM;
	}
	conffile_init(&dev);
	ret = privsep_read_text(fd, PRIVSEP_TEXT_MAX, &text, &got);
	if (!ret && got != len)
		ret = -EIO;
	if (ret < 0) {
		snprintf(err, errlen, "SaveConfig: the device's configuration: %s", strerror(-ret));
		goto out;
	}
	/* wg(8)'s keys only: a PreUp or a DNS in it is refused here. */
	ret = conffile_parse(&dev, "SaveConfig", text, len, CONFFILE_WG, err, errlen);
	if (ret < 0)
		goto out;
	m->saved = true;
	out = m->quick;
	out.dev = dev.dev;
	out.peers = dev.peers;
	ret = files_write_config(m->config_path, &out, err, errlen);
out:
	if (text) {
		crypto_wipe(text, got);
		free(text);
	}
	conffile_clear(&dev);
	return ret;
}

/* ---- a port below 1024 ---- */

int monitor_bind_udp(uint32_t family, uint32_t port, int *out)
{
	union {
		struct sockaddr sa;
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} a;
	int fd, one = 1, ret;

	if ((family != AF_INET && family != AF_INET6) || port < 1 || port > 1023)
		return -EPERM;
	memset(&a, 0, sizeof(a));
	a.sa.sa_family = (sa_family_t)family;
	/* sin_port and sin6_port share their place */
	a.in4.sin_port = htons((uint16_t)port);
	fd = socket((int)family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if ((family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    bind(fd, &a.sa, family == AF_INET ? sizeof(a.in4) : sizeof(a.in6)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	*out = fd;
	return 0;
}
