// SPDX-License-Identifier: GPL-2.0-only
/*
 * The monitor's jobs: root's hooks and resolvconf(8), as wg-quick runs
 * them, from the monitor's own copy of the file (state.h).  A job's
 * program runs with the monitor's descriptors 0-2 (the daemon's at its
 * start: the terminal or journal; /dev/null once a daemonized wgd has
 * detached) and environment, and the signal dispositions of a fresh
 * process.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crypto/util.h"
#include "daemon/base/log.h"
#include "daemon/monitor/state.h"

extern char **environ;

/*
 * Starts argv (searched in PATH) with input (if not NULL) on its standard
 * input; 0 with *pid, or -errno (-ENOENT: not found).  The monitor ignores
 * SIGTERM, SIGINT and SIGHUP, and the daemon ignores SIGPIPE: all back to
 * their defaults, and no signal blocked.
 */
static int jobs_spawn(char *const argv[], const char *input, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t set;
	int in[2] = { -1, -1 }, ret = 0;

	sigemptyset(&set);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &set);
	sigaddset(&set, SIGPIPE);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	posix_spawnattr_setsigdefault(&attr, &set);
	posix_spawn_file_actions_init(&fa);
	if (input) {
		ret = pipe2(in, O_CLOEXEC) < 0 ? -errno : 0;
		/* On failure in[0] is -1: refused, and nothing is spawned. */
		posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	}
	if (!ret)
		ret = -posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (in[0] >= 0) {
		close(in[0]);
		/* A few hundred bytes: the pipe holds them without blocking. */
		if (!ret && write(in[1], input, strlen(input)) < 0)
			log_error("writing to %s: %s", argv[0], strerror(errno));
		close(in[1]);
	}
	return ret;
}

/* cmd with every "%i" replaced by ifname; NULL if out of memory. */
static char *jobs_expand(const char *cmd, const char *ifname)
{
	size_t n = 0, len = strlen(ifname);
	const char *p;
	char *out, *o;

	for (p = cmd; (p = strstr(p, "%i")); p += 2)
		n++;
	out = malloc(strlen(cmd) + n * len + 1);
	if (!out)
		return NULL;
	for (o = out; *cmd;) {
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

static bool jobs_is_addr(const char *s)
{
	uint8_t a[16];

	return inet_pton(AF_INET, s, a) == 1 || inet_pton(AF_INET6, s, a) == 1;
}

/*
 * resolvconf's input: a "nameserver" line per address, one "search" line
 * with every other entry (a domain), as wg-quick writes them.
 */
static char *jobs_dns_text(const struct conffile *cf)
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
			if (jobs_is_addr(cf->dns[i]) != pass)
				len += (size_t)snprintf(t + len, cap - len, "%s%s%s",
							!pass ? "nameserver " : n++ ? " " : "search ",
							cf->dns[i], pass ? "" : "\n");
	if (n)
		t[len++] = '\n';
	t[len] = '\0';
	return t;
}

/*
 * Whether hook (kind, index) may run now: wg-quick's order, each at most
 * once.  A kind may follow only an earlier one (or itself), and its hooks
 * run in file order, none skipped; a kind may be skipped (a failed start
 * runs no PreDown).  PreUp and PostUp only during set-up (before READY): a
 * reload that adds one does not make it runnable.
 */
static bool jobs_hook_allowed(const struct monitor *m, uint32_t kind, uint32_t index)
{
	if (kind >= CONFFILE_NHOOKS || index >= m->quick.hooks_len[kind] ||
	    (m->ready && kind < CONFFILE_PRE_DOWN))
		return false;
	if ((int)kind == m->hook_kind)
		return index == m->hook_next;
	return (int)kind > m->hook_kind && index == 0;
}

static int jobs_hook(struct monitor *m, uint32_t kind, uint32_t index)
{
	char *argv[4] = { "/bin/sh", "-c", NULL, NULL };
	int ret;

	if (!jobs_hook_allowed(m, kind, index)) {
		log_error("refused: hook %u of kind %u now (the last run: %d, next %zu)", index, kind,
			  m->hook_kind, m->hook_next);
		return -EPERM;
	}
	m->hook_kind = (int)kind;
	m->hook_next = index + 1;
	argv[2] = jobs_expand(m->quick.hooks[kind][index], m->ifname);
	if (!argv[2])
		return -ENOMEM;
	log_info("%s: %s", conffile_hook_key((enum conffile_hook)kind), argv[2]);
	ret = jobs_spawn(argv, NULL, &m->child);
	free(argv[2]);
	return ret;
}

/* resolvconf -a (the file's DNS) or -d; 1 with nothing to do. */
static int jobs_dns(struct monitor *m, bool apply)
{
	char rec[PRIVSEP_IFNAME_MAX + 8];
	char *add[] = { "resolvconf", "-a", rec, "-m", "0", "-x", NULL };
	char *del[] = { "resolvconf", "-d", rec, "-f", NULL };
	char *text;
	int ret;

	/* "tun.IFNAME": the record name wg-quick uses (resolvconf's interface order) */
	snprintf(rec, sizeof(rec), "tun.%s", m->ifname);
	m->job_dns_add = apply && m->quick.dns_len;
	if (!m->job_dns_add)
		return m->dns_set ? jobs_spawn(del, NULL, &m->child) : 1;
	text = jobs_dns_text(&m->quick);
	if (!text)
		return -ENOMEM;
	ret = jobs_spawn(add, text, &m->child);
	free(text);
	return ret;
}

int monitor_job_start(struct monitor *m, const struct privsep_req *req, int *status)
{
	int ret;

	m->job = *req;
	m->child_fd = -1;
	if (req->type == PRIVSEP_RUN_HOOK)
		ret = jobs_hook(m, req->arg[0], req->arg[1]);
	else if (!m->config_path[0])
		ret = -EPERM;	/* no file, no DNS */
	else
		ret = jobs_dns(m, req->type == PRIVSEP_DNS_APPLY);
	if (ret) {
		*status = ret > 0 ? 0 : ret;
		return 1;
	}
	/* Watched on the loop; a kernel before 5.3 has no pidfd: waited for. */
	m->child_fd = (int)syscall(SYS_pidfd_open, m->child, 0);
	return 0;
}

int monitor_job_reap(struct monitor *m)
{
	int st;

	while (waitpid(m->child, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (m->child_fd >= 0)
		close(m->child_fd);
	m->child_fd = -1;
	m->child = 0;
	st = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	if (m->job.type != PRIVSEP_RUN_HOOK && st == 0)
		m->dns_set = m->job_dns_add;
	return st;
}
