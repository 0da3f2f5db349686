// SPDX-License-Identifier: GPL-2.0-only
/* Bring-up, reload and teardown from a wg-quick file (see bringup.h). */
#define _GNU_SOURCE
#include "daemon/bringup/bringup.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/base/notify.h"
#include "daemon/base/privdrop.h"
#include "daemon/bringup/confdiff.h"
#include "daemon/bringup/dnsnames.h"
#include "daemon/bringup/netcfg.h"
#include "daemon/config/conffile.h"

extern char **environ;

struct bringup {
	char *path;
	struct conffile cf;	/* the file as last applied */
	struct host *host;
	struct netcfg *nc;
	struct dnsnames *dn;
	bool dns_set;		/* resolvconf -a succeeded: -d at stop */
	/* "tun.IFNAME": the record name wg-quick uses (resolvconf's interface order) */
	char dns_rec[IFNAMSIZ + 8];
};

static const char *const bringup_hook_names[CONFFILE_NHOOKS] = {
	[CONFFILE_PRE_UP] = "PreUp",
	[CONFFILE_POST_UP] = "PostUp",
	[CONFFILE_PRE_DOWN] = "PreDown",
	[CONFFILE_POST_DOWN] = "PostDown",
};

/* ---- child processes: hooks and resolvconf ---- */

struct bringup_child {
	struct loop_fd h;	/* the child's pidfd */
	struct loop *loop;
	bool exited;
};

static void bringup_child_exited(struct loop_fd *h, uint32_t revents)
{
	struct bringup_child *c = container_of(h, struct bringup_child, h);

	(void)revents;
	c->exited = true;
	loop_stop(c->loop);
}

/*
 * Serves the loop until the child pid exits, so that a hook may talk to
 * its own interface (PostUp = wg set %i ..., PreDown = wg showconf %i):
 * the control socket answers meanwhile.  -EINTR if something else stopped
 * the loop first (a signal, the link's deletion): the caller then waits
 * without serving.  Not called from a loop callback (start and stop only).
 */
static int bringup_serve_until_exit(struct loop *l, pid_t pid)
{
	struct bringup_child c = { .loop = l };
	int fd = (int)syscall(SYS_pidfd_open, pid, 0), ret;

	if (fd < 0)
		return -errno;	/* a kernel before 5.3: waited for without serving */
	ret = loop_add(l, &c.h, fd, EPOLLIN, bringup_child_exited);
	if (!ret) {
		ret = loop_run(l);
		loop_remove(l, &c.h);
		if (!ret && !c.exited)
			ret = -EINTR;
	}
	close(fd);
	return ret;
}

/*
 * Runs argv (searched in PATH) with the daemon's descriptors, input (if
 * not NULL) on its standard input, and waits for it, serving loop l
 * meanwhile if not NULL.  The child gets the signals the host blocks
 * (SIGTERM, SIGINT, SIGHUP go to a signalfd) and SIGPIPE back to their
 * defaults.  Its exit status, 128 + a signal that killed it, or -errno when
 * it could not be started (-ENOENT: not found); *stopped (if l) tells
 * whether the loop was stopped by something else meanwhile.
 */
static int bringup_run(char *const argv[], const char *input, struct loop *l, bool *stopped)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t set;
	int in[2] = { -1, -1 }, st, ret = 0;
	pid_t pid;

	/* The attributes copy the set: empty as the mask, then SIGPIPE's default. */
	sigemptyset(&set);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &set);
	sigaddset(&set, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &set);
	posix_spawn_file_actions_init(&fa);
	if (input) {
		ret = pipe2(in, O_CLOEXEC) < 0 ? -errno : 0;
		/* On failure in[0] is -1: refused, and nothing is spawned. */
		posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	}
	if (!ret)
		ret = -posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (in[0] >= 0) {
		close(in[0]);
		/* A few hundred bytes: the pipe holds them without blocking. */
		if (!ret && write(in[1], input, strlen(input)) < 0)
			log_error("writing to %s: %s", argv[0], strerror(errno));
		close(in[1]);
	}
	if (!ret && l)
		*stopped = bringup_serve_until_exit(l, pid) == -EINTR;
	while (!ret && waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!ret)
		ret = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	return ret;
}

/* cmd with every "%i" replaced by ifname; NULL if out of memory. */
static char *bringup_expand(const char *cmd, const char *ifname)
{
	size_t n = 0, len = strlen(ifname);
	const char *p;
	char *out, *o;

	for (p = cmd; (p = strstr(p, "%i")); p += 2)
		n++;
	out = malloc(strlen(cmd) + n * len + 1);
	if (!out)
		return NULL;
	for (o = out; *cmd; ) {
		if (cmd[0] == '%' && cmd[1] == 'i') {
			memcpy(o, ifname, len);
			o += len;
			cmd += 2;
		} else {
			*o++ = *cmd++;
		}
	}
	*o = '\0';
	return out;
}

/*
 * The hooks of one kind in file order; stops at the first that fails.
 * 0, or -EIO / -ENOMEM with the hook named in err; -EINTR when the loop was
 * stopped during PreUp or PostUp (a signal: the start fails; at stop it is
 * the stop going on).
 */
static int bringup_hooks(struct bringup *b, const struct conffile *cf, enum conffile_hook which,
			 char *err, size_t errlen)
{
	char *argv[4] = { "/bin/sh", "-c", NULL, NULL };
	const char *name = bringup_hook_names[which];
	bool stopped = false;
	int st, ret = 0;

	for (size_t i = 0; !ret && i < cf->hooks_len[which]; i++) {
		argv[2] = bringup_expand(cf->hooks[which][i], host_ifname(b->host));
		if (!argv[2]) {
			snprintf(err, errlen, "%s: out of memory", name);
			return -ENOMEM;
		}
		log_info("%s: %s", name, argv[2]);
		st = bringup_run(argv, NULL, host_loop(b->host), &stopped);
		if (!st && stopped && (which == CONFFILE_PRE_UP || which == CONFFILE_POST_UP)) {
			snprintf(err, errlen, "%s '%s': stopped meanwhile", name, argv[2]);
			ret = -EINTR;
		} else if (st < 0) {
			snprintf(err, errlen, "%s '%s': cannot run /bin/sh: %s", name, argv[2],
				 strerror(-st));
			ret = -EIO;
		} else if (st) {
			snprintf(err, errlen, "%s '%s' failed with status %d", name, argv[2], st);
			ret = -EIO;
		}
		free(argv[2]);
	}
	return ret;
}

/* PreDown and PostDown: a failure is logged and the teardown goes on. */
static void bringup_hooks_down(struct bringup *b, enum conffile_hook which)
{
	char err[300];

	if (bringup_hooks(b, &b->cf, which, err, sizeof(err)) < 0)
		log_error("%s", err);
}

/* ---- DNS through resolvconf(8), as wg-quick sets it ---- */

static bool bringup_dns_equal(const struct conffile *a, const struct conffile *b)
{
	if (a->dns_len != b->dns_len)
		return false;
	for (size_t i = 0; i < a->dns_len; i++)
		if (strcmp(a->dns[i], b->dns[i]))
			return false;
	return true;
}

static bool bringup_is_addr(const char *s)
{
	uint8_t a[16];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/*
 * resolvconf's input: a "nameserver" line per address, one "search" line
 * with every other entry (a domain), as wg-quick writes them.
 */
static char *bringup_dns_text(const struct conffile *cf)
{
	size_t cap = 16, len = 0, n = 0;
	char *t;

	for (size_t i = 0; i < cf->dns_len; i++)
		cap += strlen(cf->dns[i]) + 12;
	t = malloc(cap);
	if (!t)
		return NULL;
	/* Pass 0: the addresses; pass 1: the domains. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < cf->dns_len; i++)
			if (bringup_is_addr(cf->dns[i]) != pass)
				len += (size_t)snprintf(t + len, cap - len, "%s%s%s",
							!pass ? "nameserver " : n++ ? " " : "search ",
							cf->dns[i], pass ? "" : "\n");
	if (n)
		t[len++] = '\n';
	t[len] = '\0';
	return t;
}

static void bringup_dns_remove(struct bringup *b)
{
	char *del[] = { "resolvconf", "-d", b->dns_rec, "-f", NULL };
	int st;

	if (!b->dns_set)
		return;
	st = bringup_run(del, NULL, NULL, NULL);
	if (st)
		log_error("resolvconf -d %s failed (%d)", b->dns_rec, st);
	b->dns_set = false;
}

/* Sets (or, with no DNS in cf, removes) the record; 0 or -errno with err. */
static int bringup_dns_apply(struct bringup *b, const struct conffile *cf, char *err, size_t errlen)
{
	char *add[] = { "resolvconf", "-a", b->dns_rec, "-m", "0", "-x", NULL }, *text;
	int st;

	if (!cf->dns_len) {
		bringup_dns_remove(b);
		return 0;
	}
	snprintf(b->dns_rec, sizeof(b->dns_rec), "tun.%s", host_ifname(b->host));
	text = bringup_dns_text(cf);
	if (!text) {
		snprintf(err, errlen, "DNS: out of memory");
		return -ENOMEM;
	}
	st = bringup_run(add, text, NULL, NULL);
	free(text);
	if (st == -ENOENT) {
		log_error("warning: resolvconf is not installed (not in PATH): the DNS servers of "
			  "%s are not set", b->path);
		return 0;
	}
	if (st) {
		snprintf(err, errlen, "resolvconf -a %s failed (%d)", b->dns_rec, st);
		return -EIO;
	}
	b->dns_set = true;
	return 0;
}

/* ---- addresses, routes, rules and the fwmark they need ---- */

/* The file's addresses and its peers' allowed IPs and endpoints, to netcfg. */
static int bringup_netcfg(struct bringup *b, const struct conffile *cf, char *err, size_t errlen)
{
	const struct config_device *d = &cf->dev;
	struct config_device mark = { .flags = CONFIG_DEVICE_HAS_FWMARK };
	struct netcfg_want w = {
		.addrs = cf->addrs,
		.addrs_len = cf->addrs_len,
		.mtu = cf->mtu,
		.table = cf->table,
		.table_id = cf->table_id,
		.peers = d->peers,
		.peers_len = d->peers_len,
		.fwmark = (d->flags & CONFIG_DEVICE_HAS_FWMARK) ? d->fwmark : 0,
	};
	int ret;

	ret = netcfg_apply(b->nc, &w, &mark.fwmark, err, errlen);
	/* The device re-marks its sockets only when the mark differs. */
	if (!ret && (ret = host_config_apply(b->host, &mark)) < 0)
		snprintf(err, errlen, "cannot set fwmark 0x%x: %s", mark.fwmark, strerror(-ret));
	return ret;
}

/* ---- SaveConfig ---- */

/*
 * The device's state as wg showconf prints it plus the file's wg-quick
 * keys, written as wg-quick's SaveConfig does, but atomically: a temporary
 * file (0600) beside it, given the old file's owner and group, then
 * rename().  After a privilege drop the temporary file is created by the
 * unprivileged user; left so, the user could write the hooks that root runs
 * at the next start.
 */
static int bringup_save(struct bringup *b)
{
	struct conffile snap = b->cf;	/* the wg-quick keys, borrowed */
	struct stat old;
	char *tmp;
	FILE *f;
	int fd, ret;

	config_device_init(&snap.dev);
	snap.peers = NULL;
	ret = host_config_read(b->host, &snap.dev);
	if (ret < 0)
		goto out;
	if (asprintf(&tmp, "%s.XXXXXX", b->path) < 0) {
		ret = -ENOMEM;
		goto out;
	}
	privdrop_file_begin();
	fd = mkostemp(tmp, O_CLOEXEC);	/* mode 0600 */
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
	} else {
		ret = 0;
		if (stat(b->path, &old) == 0 && fchown(fd, old.st_uid, old.st_gid) < 0)
			ret = -errno;
		if (!ret)
			ret = conffile_print(f, &snap, CONFFILE_QUICK);
		if (!ret && (fflush(f) || fsync(fd) < 0))
			ret = -errno;
		if (fclose(f) && !ret)
			ret = -errno;
		if (!ret && rename(tmp, b->path) < 0)
			ret = -errno;
	}
	if (ret < 0 && fd >= 0)
		unlink(tmp);
	privdrop_file_end();
	free(tmp);
out:
	config_device_clear(&snap.dev);
	if (ret < 0)
		log_error("SaveConfig: cannot write %s: %s", b->path, strerror(-ret));
	else
		log_info("SaveConfig: wrote %s", b->path);
	return ret;
}

/* ---- reload ---- */

/* Re-reads the file and applies what changed (SIGHUP). */
static void bringup_reload_file(struct bringup *b)
{
	struct config_device set;
	struct confdiff_summary sum;
	struct conffile next;
	char err[300];
	int ret;

	conffile_init(&next);
	config_device_init(&set);
	privdrop_file_begin();
	ret = conffile_load(&next, b->path, CONFFILE_QUICK, NULL, err, sizeof(err));
	privdrop_file_end();
	if (ret < 0) {
		log_error("reload: %s; nothing changed", err);
		return;
	}
	ret = confdiff_make(&set, &b->cf, &next, &sum);
	if (ret < 0) {
		log_error("reload: out of memory; nothing changed");
		conffile_clear(&next);
		return;
	}
	/* From here the new file is the applied one, even if a step fails:
	 * the next reload compares with what was asked for. */
	if ((set.flags || set.peers_len) && (ret = host_config_apply(b->host, &set)) < 0)
		log_error("reload: cannot apply the peers of %s: %s", b->path, strerror(-ret));
	config_device_clear(&set);
	if (bringup_netcfg(b, &next, err, sizeof(err)) < 0)
		log_error("reload: %s", err);
	if (dnsnames_update(b->dn, &next) < 0)
		log_error("reload: cannot resolve the host names of %s", b->path);
	if (!bringup_dns_equal(&b->cf, &next) && bringup_dns_apply(b, &next, err, sizeof(err)) < 0)
		log_error("reload: %s", err);
	conffile_clear(&b->cf);
	b->cf = next;
	crypto_wipe(&next, sizeof(next));	/* the private key, moved */
	log_info("reloaded %s: peers %u added, %u removed, %u changed%s", b->path, sum.added,
		 sum.removed, sum.changed, sum.device ? "; interface key or port changed" : "");
}

static void bringup_reload(void *ctx)
{
	struct bringup *b = ctx;
	char state[64];
	struct timespec ts;

	/* systemd (sd_notify(3)): reloading since this instant of CLOCK_MONOTONIC,
	 * until the READY=1 that follows, whatever the reload's outcome */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(state, sizeof(state), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long)(ts.tv_nsec / 1000));
	notify_state(state);
	bringup_reload_file(b);
	notify_state("READY=1");
}

/* ---- start and stop ---- */

/*
 * What wg-quick warns about, and more: the file holds the private key and
 * names the commands root runs (hooks), so any access of other users to it
 * (read: the key; write: the hooks) or to its directory (replacing it, or
 * learning of it) is worth a warning.  mode is the opened file's.
 */
static void bringup_warn_exposed(const char *path, unsigned int mode)
{
	char *dir = strdup(path), *slash;
	struct stat st;

	if (mode & 077)
		log_error("warning: %s has mode %04o: other users may %s it; it holds the private "
			  "key and root runs its hooks (chmod 600)", path, mode,
			  (mode & 044) && (mode & 022) ? "read and write" : (mode & 044) ? "read" :
			  (mode & 022) ? "write" : "reach");
	slash = dir ? strrchr(dir, '/') : NULL;
	if (!slash)
		goto out;
	slash[slash == dir] = '\0';	/* the parent; "/" for a file in / */
	if (stat(dir, &st) == 0 && (st.st_mode & 077))
		log_error("warning: %s, the directory of %s, has mode %04o: other users may %s "
			  "(chmod 700)", dir, path, (unsigned int)st.st_mode & 07777,
			  (st.st_mode & 022) ? "replace the file" : "look into it");
out:
	free(dir);
}

int bringup_load(struct bringup **out, const char *path, char *err, size_t errlen)
{
	struct bringup *b = calloc(1, sizeof(*b));
	unsigned int mode = 0;
	int ret;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	conffile_init(&b->cf);
	ret = conffile_load(&b->cf, path, CONFFILE_QUICK, &mode, err, errlen);
	if (ret < 0) {
		free(b);
		return ret;
	}
	/* Reloads read the same file whatever the working directory. */
	b->path = realpath(path, NULL);
	if (!b->path) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		bringup_destroy(b);
		return ret;
	}
	bringup_warn_exposed(b->path, mode);
	*out = b;
	return 0;
}

/* What bringup_start made, undone (the device's own state goes with the host). */
static void bringup_undo(struct bringup *b)
{
	bringup_dns_remove(b);
	dnsnames_destroy(b->dn);
	b->dn = NULL;
	if (b->nc) {
		netcfg_teardown(b->nc);
		netcfg_destroy(b->nc);
		b->nc = NULL;
	}
}

int bringup_start(struct bringup *b, struct host *h, char *err, size_t errlen)
{
	int ret;

	b->host = h;
	ret = bringup_hooks(b, &b->cf, CONFFILE_PRE_UP, err, errlen);
	if (ret < 0)
		return ret;
	ret = host_config_apply(h, &b->cf.dev);
	if (ret < 0) {
		snprintf(err, errlen, "cannot apply %s: %s", b->path, strerror(-ret));
		return ret;
	}
	ret = netcfg_create(&b->nc, host_ifindex(h), host_ifname(h));
	if (ret < 0) {
		snprintf(err, errlen, "netlink: %s", strerror(-ret));
		goto fail;
	}
	ret = bringup_netcfg(b, &b->cf, err, errlen);
	if (ret < 0)
		goto fail;
	ret = dnsnames_create(&b->dn, h);
	if (!ret)
		ret = dnsnames_update(b->dn, &b->cf);
	if (ret < 0) {
		snprintf(err, errlen, "cannot resolve the endpoints' host names: %s", strerror(-ret));
		goto fail;
	}
	ret = bringup_dns_apply(b, &b->cf, err, errlen);
	if (ret < 0)
		goto fail;
	ret = bringup_hooks(b, &b->cf, CONFFILE_POST_UP, err, errlen);
	if (ret < 0)
		goto fail;
	host_set_reload(h, bringup_reload, b);
	return 0;
fail:
	bringup_undo(b);
	return ret;
}

void bringup_stop(struct bringup *b)
{
	host_set_reload(b->host, NULL, NULL);
	bringup_hooks_down(b, CONFFILE_PRE_DOWN);
	if (b->cf.save_config)
		bringup_save(b);
	bringup_undo(b);
	bringup_hooks_down(b, CONFFILE_POST_DOWN);
}

void bringup_destroy(struct bringup *b)
{
	if (!b)
		return;
	conffile_clear(&b->cf);
	free(b->path);
	free(b);
}

bool bringup_saves_config(const struct bringup *b)
{
	return b->cf.save_config;
}

bool bringup_root_at_stop(const struct bringup *b)
{
	return b->cf.dns_len || b->cf.hooks_len[CONFFILE_PRE_DOWN] ||
	       b->cf.hooks_len[CONFFILE_POST_DOWN];
}
