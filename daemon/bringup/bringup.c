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
#include "daemon/base/privsep.h"
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
	/* A reload's DNS job is out (privsep_job); another is wanted after it. */
	bool dns_busy, dns_again;
	bool stopping;
};

/* ---- hooks and resolvconf: the privileged monitor's jobs ---- */

/*
 * The hooks of one kind in file order; stops at the first that fails.  The
 * monitor runs each as root from its own copy of the file, named here by
 * kind and index (daemon/base/privsep.h), while the loop serves (a hook may
 * run wg(8) on %i).  0, or -EIO / -EPIPE with the hook named in err;
 * -EINTR when the loop was stopped during PreUp or PostUp (a signal: the
 * start fails; at stop it is the stop going on).
 */
static int bringup_hooks(struct bringup *b, const struct conffile *cf, enum conffile_hook which,
			 char *err, size_t errlen)
{
	const char *name = conffile_hook_key(which);
	bool stopped = false;
	int st, ret = 0;

	for (size_t i = 0; !ret && i < cf->hooks_len[which]; i++) {
		const char *cmd = cf->hooks[which][i];

		st = privsep_job_wait(PRIVSEP_RUN_HOOK, which, (uint32_t)i, host_loop(b->host), &stopped);
		if (!st && stopped && (which == CONFFILE_PRE_UP || which == CONFFILE_POST_UP)) {
			snprintf(err, errlen, "%s '%s': stopped meanwhile", name, cmd);
			ret = -EINTR;
		} else if (st < 0) {
			snprintf(err, errlen, "%s '%s': cannot run /bin/sh: %s", name, cmd, strerror(-st));
			ret = -EIO;
		} else if (st) {
			snprintf(err, errlen, "%s '%s' failed with status %d", name, cmd, st);
			ret = -EIO;
		}
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

/* A DNS job's outcome (st: resolvconf's status, or -errno) for the log;
 * -EIO with err set when it failed. */
static int bringup_dns_result(struct bringup *b, int st, char *err, size_t errlen)
{
	if (st == -ENOENT) {
		log_error("warning: resolvconf is not installed (not in PATH): the DNS servers of "
			  "%s are not set", b->path);
		return 0;
	}
	if (!st)
		return 0;
	if (st < 0)
		snprintf(err, errlen, "resolvconf for tun.%s: %s", host_ifname(b->host), strerror(-st));
	else
		snprintf(err, errlen, "resolvconf for tun.%s failed (%d)", host_ifname(b->host), st);
	return -EIO;
}

/* At start: the file's DNS set, waited for. */
static int bringup_dns_start(struct bringup *b, char *err, size_t errlen)
{
	if (!b->cf.dns_len)
		return 0;
	return bringup_dns_result(b, privsep_job_wait(PRIVSEP_DNS_APPLY, 0, 0, host_loop(b->host), NULL),
				  err, errlen);
}

static void bringup_dns_kick(struct bringup *b);

static void bringup_dns_done(void *ctx, int st)
{
	struct bringup *b = ctx;
	char err[128];

	b->dns_busy = false;
	if (bringup_dns_result(b, st, err, sizeof(err)) < 0)
		log_error("reload: %s", err);
	if (b->dns_again && !b->stopping)
		bringup_dns_kick(b);
}

/*
 * A reload changed DNS: resolvconf runs in the monitor while the loop goes
 * on (it may take seconds; traffic must not wait for it).  One job at a
 * time; the monitor applies the file as it read it last, so a later change
 * during a job needs one more job after it, and no more.
 */
static void bringup_dns_kick(struct bringup *b)
{
	int ret;

	b->dns_again = b->dns_busy;
	if (b->dns_busy)
		return;
	ret = privsep_job(PRIVSEP_DNS_APPLY, 0, 0, bringup_dns_done, b);
	if (ret < 0)
		log_error("reload: cannot set the DNS servers: %s", strerror(-ret));
	b->dns_busy = ret == 0;
}

/* At stop: removed, waited for (after a reload's job still out). */
static void bringup_dns_remove(struct bringup *b)
{
	char err[128];

	b->stopping = true;
	if (bringup_dns_result(b, privsep_job_wait(PRIVSEP_DNS_REMOVE, 0, 0, NULL, NULL), err,
			       sizeof(err)) < 0)
		log_error("%s", err);
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

/* cf in fmt appended to the memfd fd, through a buffer that is wiped (it
 * may hold the private key); 0 or -errno. */
static int bringup_print(int fd, const struct conffile *cf, enum conffile_format fmt)
{
	char buf[4096];
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0), ret;
	FILE *f = dup_fd < 0 ? NULL : fdopen(dup_fd, "w");

	if (!f) {
		ret = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return ret;
	}
	setvbuf(f, buf, _IOFBF, sizeof(buf));
	ret = conffile_print(f, cf, fmt);
	if (fclose(f) && !ret)
		ret = -errno;
	crypto_wipe(buf, sizeof(buf));
	return ret;
}

/*
 * The device's state as wg showconf prints it, in a memfd (never a file
 * on disk), handed to the privileged monitor, which joins it to root's own
 * wg-quick keys and writes the file as wg-quick's SaveConfig does, but
 * atomically, keeping its owner (daemon/monitor/monitor.h).  The daemon
 * itself can no longer write the file, nor any hook into it.
 */
static int bringup_save(struct bringup *b)
{
	struct conffile snap;
	char err[PRIVSEP_ERR_LEN];
	off_t len = 0;
	int fd, ret;

	conffile_init(&snap);
	fd = privsep_memfd("", 0);
	ret = fd < 0 ? fd : host_config_read(b->host, &snap.dev);
	if (!ret)
		ret = bringup_print(fd, &snap, CONFFILE_WG);
	conffile_clear(&snap);
	if (!ret && (len = lseek(fd, 0, SEEK_END)) < 0)
		ret = -errno;
	if (!ret)
		ret = privsep_save_config(fd, (size_t)len, err, sizeof(err));
	else
		snprintf(err, sizeof(err), "the device's configuration: %s", strerror(-ret));
	if (fd >= 0) {
		/* the pages that held the key go now, not when the monitor lets go */
		if (ftruncate(fd, 0) < 0)
			log_debug("SaveConfig: ftruncate: %s", strerror(errno));
		close(fd);
	}
	if (ret < 0)
		log_error("SaveConfig: %s", err);
	else
		log_info("SaveConfig: wrote %s", b->path);
	return ret;
}

/* ---- reload ---- */

/* What wg warns about in a file and takes anyway, logged. */
static void bringup_file_warning(void *ctx, const char *name, unsigned int line, const char *what)
{
	(void)ctx;
	log_error("warning: %s:%u: %s", name, line, what);
}

/*
 * The file as root reads it: the monitor reads it (the daemon may not), keeps
 * its wg-quick keys for the hooks and DNS it runs from now on, and hands
 * the text over; parsed here as there.  0, or -errno with err set.
 */
static int bringup_read(struct bringup *b, struct conffile *next, char *err, size_t errlen)
{
	size_t len = 0;
	char *text = NULL;
	int fd, ret;

	ret = privsep_read_config(&fd, err, errlen);
	if (ret < 0)
		return ret;
	ret = privsep_read_text(fd, PRIVSEP_TEXT_MAX, &text, &len);
	close(fd);
	if (ret < 0) {
		snprintf(err, errlen, "%s: %s", b->path, strerror(-ret));
		return ret;
	}
	ret = conffile_parse(next, b->path, text, len, CONFFILE_QUICK, err, errlen);
	crypto_wipe(text, len);
	free(text);
	return ret;
}

/* Re-reads the file and applies what changed (SIGHUP). */
static void bringup_reload_file(struct bringup *b)
{
	struct config_device set;
	struct confdiff_summary sum;
	struct conffile next;
	char err[300];
	int ret;

	conffile_init(&next);
	next.warn = bringup_file_warning;
	config_device_init(&set);
	ret = bringup_read(b, &next, err, sizeof(err));
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
	if (!bringup_dns_equal(&b->cf, &next))
		bringup_dns_kick(b);
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
	b->cf.warn = bringup_file_warning;
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
	ret = bringup_dns_start(b, err, errlen);
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

void bringup_serve(struct bringup *b)
{
	int ret = dnsnames_start(b->dn);

	if (ret < 0)
		log_error("cannot start resolving the endpoints' host names: %s", strerror(-ret));
}

const char *bringup_path(const struct bringup *b)
{
	return b->path;
}
