/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wgctl: wg(8)'s commands over the control socket (so a router needs no
 * wg and no kernel module), and `up` / `down` to start and stop wgd.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/config/conffile.h"
#include "tools/wgctl/ipc.h"
#include "tools/wgctl/wgctl.h"

const char *wgctl_prog = "wgctl";

/* ---- keys ---- */

int wgctl_genkey(int argc, char **argv)
{
	uint8_t key[CONFIG_KEY_LEN];
	char b64[45];
	struct stat st;
	bool ok;

	if (argc != 1) {
		fprintf(stderr, "Usage: %s %s\n", wgctl_prog, argv[0]);
		return 1;
	}
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IRWXO))
		fputs("Warning: writing to world accessible file.\n"
		      "Consider setting the umask to 077 and trying again.\n", stderr);
	/* A private key is clamped (RFC 7748 section 5); a preshared key is
	 * 32 plain random bytes. */
	if (!strcmp(argv[0], "genkey"))
		ok = x25519_generate_private(key);
	else
		ok = crypto_random(key, sizeof(key));
	if (!ok) {
		perror("getrandom");
		return 1;
	}
	conffile_key_to_base64(b64, key);
	puts(b64);
	crypto_wipe(key, sizeof(key));
	crypto_wipe(b64, sizeof(b64));
	return 0;
}

int wgctl_pubkey(int argc, char **argv)
{
	uint8_t key[CONFIG_KEY_LEN];
	char b64[45];
	int ret = 1, c;

	if (argc != 1) {
		fprintf(stderr, "Usage: %s %s\n", wgctl_prog, argv[0]);
		return 1;
	}
	/* 44 characters, then nothing but white space (and NULs), as wg. */
	if (fread(b64, 1, 44, stdin) != 44) {
		fprintf(stderr, "%s: Key is not the correct length or format\n", wgctl_prog);
		goto out;
	}
	b64[44] = '\0';
	while ((c = getc(stdin)) != EOF) {
		if (c && c != ' ' && (c < '\t' || c > '\r')) {
			fprintf(stderr, "%s: Trailing characters found after key\n", wgctl_prog);
			goto out;
		}
	}
	if (!conffile_key_from_base64(key, b64, 44)) {
		fprintf(stderr, "%s: Key is not the correct length or format\n", wgctl_prog);
		goto out;
	}
	if (!x25519_public(key, key))
		memset(key, 0, sizeof(key));
	conffile_key_to_base64(b64, key);
	puts(b64);
	ret = 0;
out:
	crypto_wipe(key, sizeof(key));
	crypto_wipe(b64, sizeof(b64));
	return ret;
}

/* ---- up, down ---- */

/* $WGD, else the wgd next to this program, else "wgd" from PATH. */
static const char *find_wgd(char *buf, size_t len)
{
	const char *env = getenv("WGD");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, len - 1);
	if (n > 0) {
		buf[n] = '\0';
		slash = strrchr(buf, '/');
		if (slash && (size_t)(slash - buf) + sizeof("/wgd") <= len) {
			strcpy(slash, "/wgd");
			if (access(buf, X_OK) == 0)
				return buf;
		}
	}
	return "wgd";
}

/* A configuration file rather than an interface name: a path, or a name
 * that ends in ".conf" (wg-quick's rule). */
static bool is_file(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 5 && !strcmp(arg + n - 5, ".conf"));
}

int wgctl_up(int argc, char **argv)
{
	char path[PATH_MAX];
	const char *wgd;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s %s { <configuration file> | <interface> }\n", wgctl_prog,
			argv[0]);
		return 1;
	}
	wgd = find_wgd(path, sizeof(path));
	/* wgd returns once the control socket answers (or with its error). */
	if (is_file(argv[1]))
		execlp(wgd, wgd, "-c", argv[1], (char *)NULL);
	else
		execlp(wgd, wgd, "up", argv[1], (char *)NULL);
	fprintf(stderr, "%s: cannot run %s: %s\n", wgctl_prog, wgd, strerror(errno));
	return 1;
}

#define DOWN_WAIT_MS 10000
#define DOWN_POLL_MS 20

int wgctl_down(int argc, char **argv)
{
	struct timespec poll = { 0, DOWN_POLL_MS * 1000000L };
	pid_t pid;
	int err;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s %s <interface>\n", wgctl_prog, argv[0]);
		return 1;
	}
	err = ipc_daemon_pid(argv[1], &pid);
	if (err < 0) {
		fprintf(stderr, "Unable to access interface: %s\n", strerror(-err));
		return 1;
	}
	if (kill(pid, SIGTERM) < 0) {
		fprintf(stderr, "%s: cannot stop process %ld: %s\n", wgctl_prog, (long)pid,
			strerror(errno));
		return 1;
	}
	/* The daemon removes its socket as it exits (doc/control.md). */
	for (int waited = 0; waited < DOWN_WAIT_MS; waited += DOWN_POLL_MS) {
		if (!ipc_socket_exists(argv[1]))
			return 0;
		nanosleep(&poll, NULL);
	}
	fprintf(stderr, "%s: %s: process %ld still running after %d s\n", wgctl_prog, argv[1],
		(long)pid, DOWN_WAIT_MS / 1000);
	return 1;
}

/* ---- main ---- */

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "show", wgctl_show, "Shows the current configuration and device information" },
	{ "showconf", wgctl_showconf, "Shows the current configuration of a given WireGuard interface, for use with `setconf'" },
	{ "set", wgctl_set, "Change the current configuration, add peers, remove peers, or change peers" },
	{ "setconf", wgctl_setconf, "Applies a configuration file to a WireGuard interface" },
	{ "addconf", wgctl_setconf, "Appends a configuration file to a WireGuard interface" },
	{ "syncconf", wgctl_setconf, "Synchronizes a configuration file to a WireGuard interface" },
	{ "genkey", wgctl_genkey, "Generates a new private key and writes it to stdout" },
	{ "genpsk", wgctl_genkey, "Generates a new preshared key and writes it to stdout" },
	{ "pubkey", wgctl_pubkey, "Reads a private key from stdin and writes a public key to stdout" },
	{ "up", wgctl_up, "Starts wgd from a configuration file or /etc/wireguard/<interface>.conf" },
	{ "down", wgctl_down, "Stops the daemon of an interface" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: %s <cmd> [<args>]\n\nAvailable subcommands:\n", wgctl_prog);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %s: %s\n", commands[i].name, commands[i].what);
	fprintf(f, "You may pass `--help' to any of these subcommands to view usage.\n");
}

int main(int argc, char **argv)
{
	static char *show_argv[] = { "show", NULL };

	wgctl_prog = argv[0];
	/* A daemon that closes early must give an error, not kill us. */
	signal(SIGPIPE, SIG_IGN);
	if (!x25519_init()) {
		fprintf(stderr, "%s: cannot initialize libsodium\n", wgctl_prog);
		return 1;
	}
	if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version") ||
			  !strcmp(argv[1], "version"))) {
		printf("wgctl %s\n", WGD_VERSION);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
			  !strcmp(argv[1], "help"))) {
		usage(stdout);
		return 0;
	}
	if (argc == 1)
		return wgctl_show(1, show_argv);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "Invalid subcommand: `%s'\n", argv[1]);
	usage(stderr);
	return 1;
}
