// SPDX-License-Identifier: GPL-2.0-only
/*
 * wgd: a userspace WireGuard daemon.
 *
 *   wgd [-f|--foreground] [--log-level LEVEL] [--pid-file FILE] [--user USER] IFNAME
 *   wgd [OPTIONS] -c FILE [IFNAME]
 *   wgd [OPTIONS] up IFNAME|FILE
 *
 * The first form is wireguard-go's contract, so that
 * WG_QUICK_USERSPACE_IMPLEMENTATION=wgd wg-quick up ... works; the others
 * bring the interface up from a wg-quick file (daemon/bringup/bringup.h), parsed
 * before anything is created.  Without -f the launcher returns only once
 * the control socket is listening (and the file is applied).  The TUN
 * device and the control socket are created before the fork (so errors such
 * as "device busy" reach the caller), the child sets up the rest and reports
 * "ready" or its error over a pipe; the launcher exits 0 or 1 accordingly.
 *
 * main wires the modules together and tears them down in reverse.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "crypto/selftest.h"
#include "crypto/x25519.h"
#include "daemon/base/log.h"
#include "daemon/base/loop.h"
#include "daemon/base/notify.h"
#include "daemon/base/privdrop.h"
#include "daemon/base/privsep.h"
#include "daemon/base/workers.h"
#include "daemon/bringup/bringup.h"
#include "daemon/config/uapi.h"
#include "daemon/control/control.h"
#include "daemon/host/host.h"
#include "daemon/host/tun.h"
#include "daemon/monitor/monitor.h"

#ifndef WGD_VERSION
#define WGD_VERSION "unknown"
#endif

/* wgd up IFNAME reads CONFIG_DIR/IFNAME.conf; $WGD_CONFIG_DIR overrides it. */
#define CONFIG_DIR "/etc/wireguard"

struct options {
	const char *ifname;
	const char *config;	/* -c FILE, or from wgd up */
	char config_buf[PATH_MAX];
	char ifname_buf[IFNAMSIZ];
	const char *pid_file;
	const char *user;	/* --user: NULL for the default (privdrop.h) */
	bool foreground;
	int log_level;
	unsigned int threads;	/* --threads: 0 for the default (threads_default()) */
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %1$s [OPTIONS] IFNAME\n"
		"       %1$s [OPTIONS] -c FILE [IFNAME]\n"
		"       %1$s [OPTIONS] up IFNAME|FILE\n"
		"       %1$s --version | --help\n"
		"\n"
		"Serves WireGuard on a new TUN interface IFNAME, configured by wg(8) through\n"
		"the control socket " UAPI_RUN_DIR "/IFNAME.sock.  A wg-quick(8) file also\n"
		"sets keys, peers, addresses, MTU, routes, DNS and hooks, is reloaded on SIGHUP\n"
		"and undone at exit; IFNAME defaults to its name without .conf, and up IFNAME\n"
		"reads " CONFIG_DIR "/IFNAME.conf.\n"
		"\n"
		"  -c, --config FILE  bring the interface up from the wg-quick file FILE\n"
		"  -f, --foreground   stay in the foreground, log to stderr\n"
		"  -l, --log-level L  silent, error, verbose or debug (default $LOG_LEVEL, else error)\n"
		"  -p, --pid-file F   write the daemon's process id to F\n"
		"  -t, --threads N    seal and open on N threads (1: one thread for everything;\n"
		"                     default $WGD_THREADS, else 1)\n"
		"  -u, --user USER    once set up, run as USER (default $WGD_USER, else wgd if it\n"
		"                     exists; root: no change), keeping CAP_NET_ADMIN\n"
		"  -h, --help | -v, --version\n"
		"\n"
		"Environment: WG_PROCESS_FOREGROUND=1 (as -f), WGD_USER, WGD_THREADS, WGD_RUN_DIR, WGD_CONFIG_DIR (for\n"
		"up: instead of " CONFIG_DIR "), NOTIFY_SOCKET (systemd Type=notify: READY=1\n"
		"once serving).\n",
		prog);
}

/*
 * wg-quick's rule for interface names, which also tells a name from a path
 * in `up`: 1 to 15 of [a-zA-Z0-9_=+.-] (and not "." or "..", which the
 * kernel refuses).
 */
static bool valid_ifname(const char *s, size_t len)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_=+.-";

	if (!len || len >= IFNAMSIZ || (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.'))))
		return false;
	/* The first len characters are all in ok (the NUL is not). */
	return strspn(s, ok) >= len;
}

/* The interface name a file implies: its base name without ".conf". */
static int ifname_from_path(struct options *o, const char *prog)
{
	const char *base = strrchr(o->config, '/');
	size_t len;

	base = base ? base + 1 : o->config;
	len = strlen(base);
	if (len > 5 && !strcmp(base + len - 5, ".conf"))
		len -= 5;
	if (!valid_ifname(base, len)) {
		fprintf(stderr,
			"%s: '%.*s' (from %s) is not a valid interface name: 1 to %d of "
			"a-z A-Z 0-9 _ = + . -; give IFNAME after the file\n",
			prog, (int)len, base, o->config, IFNAMSIZ - 1);
		return -1;
	}
	memcpy(o->ifname_buf, base, len);
	o->ifname_buf[len] = '\0';
	o->ifname = o->ifname_buf;
	return 0;
}

/* wgd up IFNAME|FILE: a name means CONFIG_DIR/IFNAME.conf, as wg-quick has it. */
static int config_for_up(struct options *o, const char *arg, const char *prog)
{
	const char *dir = getenv("WGD_CONFIG_DIR");

	if (!valid_ifname(arg, strlen(arg))) {
		o->config = arg;
		return 0;
	}
	if (!dir || !*dir)
		dir = CONFIG_DIR;
	if ((size_t)snprintf(o->config_buf, sizeof(o->config_buf), "%s/%s.conf", dir, arg) >=
	    sizeof(o->config_buf)) {
		fprintf(stderr, "%s: %s/%s.conf: path too long\n", prog, dir, arg);
		return -1;
	}
	o->config = o->config_buf;
	o->ifname = arg;
	return 0;
}

/* The arguments after the options: IFNAME, [IFNAME] after -c, or up X;
 * 0, -1 after an error message, -2 for the usage. */
static int parse_operands(struct options *o, int n, char **args, const char *prog)
{
	if (!o->config && n == 2 && !strcmp(args[0], "up")) {
		if (config_for_up(o, args[1], prog) < 0)
			return -1;
	} else if (n == 1) {
		o->ifname = args[0];
		if (o->config && !valid_ifname(o->ifname, strlen(o->ifname))) {
			fprintf(stderr, "%s: '%s' is not a valid interface name\n", prog, o->ifname);
			return -1;
		}
	} else if (!(o->config && n == 0)) {
		return -2;
	}
	if (!o->ifname)
		return ifname_from_path(o, prog);
	return 0;
}

/* N of --threads (or WGD_THREADS): 1 to WORKERS_MAX + 1; 0 if not. */
static unsigned int parse_threads(const char *s)
{
	char *end;
	unsigned long n;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n < 1 || n > WORKERS_MAX + 1)
		return 0;
	return (unsigned int)n;
}

/* What the environment sets, for launchers that pass no options (wg-quick). */
static int options_from_env(struct options *o, const char *prog)
{
	const char *env = getenv("LOG_LEVEL");

	o->log_level = env ? log_parse_level(env) : -1;
	if (o->log_level < 0)
		o->log_level = LOG_LEVEL_ERROR;
	env = getenv("WG_PROCESS_FOREGROUND");
	o->foreground = env && !strcmp(env, "1");
	env = getenv("WGD_USER");
	if (env && *env)
		o->user = env;
	env = getenv("WGD_THREADS");
	if (env && *env && !(o->threads = parse_threads(env))) {
		fprintf(stderr, "%s: WGD_THREADS=%s: not a number of threads from 1 to %d\n", prog, env,
			WORKERS_MAX + 1);
		return -1;
	}
	return 0;
}

/* 0 to run, 1 after --help/--version, -1 on a usage error. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "log-level", required_argument, NULL, 'l' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "user", required_argument, NULL, 'u' },
		{ "threads", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret = 0;

	memset(o, 0, sizeof(*o));
	if (options_from_env(o, argv[0]) < 0)
		return -1;
	while (!ret && (c = getopt_long(argc, argv, "c:fl:p:t:u:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 'f':
			o->foreground = true;
			break;
		case 'l':
			o->log_level = log_parse_level(optarg);
			if (o->log_level < 0) {
				fprintf(stderr, "%s: unknown log level '%s'\n", argv[0], optarg);
				return -1;
			}
			break;
		case 'p':
			o->pid_file = optarg;
			break;
		case 'u':
			o->user = optarg;
			break;
		case 't':
			if (!(o->threads = parse_threads(optarg))) {
				fprintf(stderr, "%s: --threads %s: not a number of threads from 1 to %d\n",
					argv[0], optarg, WORKERS_MAX + 1);
				return -1;
			}
			break;
		case 'h':
			ret = 1;	/* the usage, on stdout */
			break;
		case 'v':
			fputs("wgd " WGD_VERSION "\n", stdout);
			return 1;
		default:
			ret = -1;
			break;
		}
	}
	if (!ret) {
		ret = parse_operands(o, argc - optind, argv + optind, argv[0]);
		if (ret != -2)
			return ret;
		ret = -1;
	}
	usage(ret > 0 ? stdout : stderr, argv[0]);
	return ret;
}

/*
 * The launcher's side of the fork: waits for the child's report.  The child
 * writes one byte 0 when ready, or a message; EOF without either means it
 * died.  Returns the process exit status.
 */
static int launcher_wait(int fd)
{
	char buf[256];
	ssize_t n;

	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n == 1 && buf[0] == '\0')
		return EXIT_SUCCESS;
	if (n > 0)
		buf[n] = '\0';
	fprintf(stderr, "wgd: %s\n", n > 0 ? buf : "the daemon exited during start-up");
	return EXIT_FAILURE;
}

/* The child's report to the launcher (or stderr in the foreground). */
static void report(int fd, const char *msg)
{
	bool failed = true;	/* to log msg instead */

	if (fd >= 0) {
		failed = write(fd, msg ? msg : "", msg ? strlen(msg) : 1) < 0;
		if (failed && !msg)
			log_error_errno(errno, "cannot report readiness");
		close(fd);
	}
	if (failed && msg)
		log_error("%s", msg);
}

/*
 * The privileged monitor, started before anything is served: it reads the
 * file (its hooks and DNS), writes the pid file, and does what needs root.
 */
static int start_monitor(const struct options *o, struct control *control, struct bringup *b,
			 char *msg, size_t msglen)
{
	const struct privsep_config c = {
		.ifname = o->ifname,
		.socket_path = control_path(control),
		.pid_file = o->pid_file,
		.config_path = b ? bringup_path(b) : NULL,
		.foreground = o->foreground,
		.log_level = o->log_level,
	};

	return privsep_start(&c, msg, msglen);
}

/* The threads by default: one (see doc/performance.md, "Threads"). */
static unsigned int threads_default(void)
{
	return 1;
}

/* After the privilege drop, so that each thread holds only what is left. */
static void start_workers(const struct options *o, struct host *host)
{
	unsigned int n = o->threads ? o->threads : threads_default();
	int ret = host_start_workers(host, n, 0);

	if (ret < 0)
		log_error_errno(-ret, "cannot start %u threads; sealing and opening on one", n);
	else if (n > 1)
		log_info("sealing and opening on %u threads", n);
}

/*
 * Runs the daemon on an open TUN device and control socket until it stops;
 * with a configuration file (b), brought up from it and torn down at exit.
 * A failure is reported, then what was set up is undone in reverse.
 */
static int serve(const struct options *o, struct host *host, struct tun *tun,
		 struct control *control, struct bringup *b, int report_fd)
{
	const struct privdrop_opts drop = { .user = o->user, .user_given = o->user != NULL };
	enum { SET_UP_HOST, SET_UP_MONITOR, SET_UP_BRINGUP } done = SET_UP_HOST;
	char msg[300];
	int ret;

	/* From here on the host owns tun and control; host_stop frees them.
	 * Nothing is served before host_run(), but while a hook runs. */
	ret = host_start(host, tun, control, msg, sizeof(msg));
	if (ret < 0)
		goto fail;
	ret = start_monitor(o, control, b, msg, sizeof(msg));
	if (ret < 0)
		goto fail;
	done = SET_UP_MONITOR;
	privsep_attach(host_loop(host));
	if (b && (ret = bringup_start(b, host, msg, sizeof(msg))) < 0)
		goto fail;
	done = SET_UP_BRINGUP;
	ret = privdrop_apply(&drop, msg, sizeof(msg));
	if (ret < 0)
		goto fail;
	/* Threads, from here on only: they share the drop. */
	start_workers(o, host);
	if (b)
		bringup_serve(b);
	log_info("serving %s on control socket %s", o->ifname, control_path(control));
	report(report_fd, NULL);
	notify_state("READY=1");
	privsep_ready(report_fd >= 0);
	if (report_fd >= 0)
		privsep_detach_stdio();
	ret = host_run(host);
	notify_state("STOPPING=1");
	goto stop;
fail:
	report(report_fd, msg);
stop:
	if (b && done == SET_UP_BRINGUP)
		bringup_stop(b);
	privsep_detach();
	host_stop(host);
	if (done >= SET_UP_MONITOR && o->pid_file)
		privsep_unlink_pid_file();
	privsep_stop();
	return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* From the TUN device to the daemon's exit, in the foreground or not. */
static int start(const struct options *o, struct bringup *b)
{
	struct control *control = NULL;
	struct host *host;
	struct tun tun;
	int ret, pipefd[2], wait_fd = -1;
	pid_t pid;

	ret = tun_open(&tun, o->ifname);
	if (ret < 0) {
		log_error_errno(-ret, "cannot create TUN device %s", o->ifname);
		return EXIT_FAILURE;
	}
	host = host_create(tun.name);
	if (!host) {
		log_error("out of memory or random bytes");
		goto close_tun;
	}
	ret = control_open(&control, tun.name, NULL, host_control_ops(), host);
	if (ret < 0) {
		log_error_errno(-ret, "cannot open the control socket for %s", tun.name);
		goto destroy;
	}
	if (o->foreground)
		return serve(o, host, &tun, control, b, -1);

	if (pipe2(pipefd, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		log_error_errno(errno, "cannot fork");
		control_close(control);
		goto destroy;
	}
	if (pid > 0) {
		/* The launcher lets go of everything before it waits. */
		close(pipefd[1]);
		control_release(control);
		wait_fd = pipefd[0];
		goto destroy;
	}
	close(pipefd[0]);
	setsid();
	log_clear();
	log_init(tun.name, (enum log_level)o->log_level, false);
	ret = serve(o, host, &tun, control, b, pipefd[1]);
	log_clear();
	return ret;
destroy:
	host_destroy(host);
close_tun:
	tun_close(&tun);
	return wait_fd >= 0 ? launcher_wait(wait_fd) : EXIT_FAILURE;
}

int main(int argc, char **argv)
{
	struct bringup *b = NULL;
	struct options o;
	int ret;

	/* The privileged monitor: the daemon runs its binary again (privsep.h). */
	if (argc == 3 && !strcmp(argv[1], PRIVSEP_MONITOR_ARG))
		return monitor_main();
	ret = parse_options(argc, argv, &o);
	if (ret)
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	log_init(o.ifname, (enum log_level)o.log_level, true);
	if (!crypto_selftest()) {
		log_error("the crypto self-test failed; refusing to start");
		return EXIT_FAILURE;
	}
	if (!x25519_init()) {
		log_error("cannot initialise X25519");
		return EXIT_FAILURE;
	}
	/* SIGPIPE: a control client that hangs up must not kill us. */
	signal(SIGPIPE, SIG_IGN);

	if (o.config) {
		char err[300];

		/* A bad file is refused before anything exists. */
		if (bringup_load(&b, o.config, err, sizeof(err)) < 0) {
			log_error("%s", err);
			return EXIT_FAILURE;
		}
	}
	ret = start(&o, b);
	bringup_destroy(b);
	return ret;
}
