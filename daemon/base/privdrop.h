/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Privilege drop: once the TUN device, the UDP sockets, netlink and the
 * control socket are set up, the daemon changes to an unprivileged user and
 * keeps only the capabilities its running work needs (issue 10):
 * CAP_NET_ADMIN for routes, rules and rebinding with a fwmark,
 * CAP_NET_BIND_SERVICE only for a listen port below 1024, and CAP_DAC_OVERRIDE
 * in the permitted set only, raised around file operations that need it.
 */
#ifndef WGD_PRIVDROP_H
#define WGD_PRIVDROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct privdrop_opts {
	const char *user;	/* NULL: the dedicated user "wgd" when it exists, else no change */
	bool user_given;	/* --user was given */
	uint16_t port;		/* listen port: CAP_NET_BIND_SERVICE kept only when 0 < port < 1024 */
	bool file_access;	/* a config file will be re-read / written (reload, SaveConfig) */
	bool save_config;	/* SaveConfig: CAP_CHOWN too, to give the rewritten file its owner back */
	bool root_hooks;	/* the file has PreDown/PostDown/DNS: without --user, do not drop (log why) */
	const char *run_dir;	/* the control socket's directory, whose file is removed at exit */
};

/* 0 with what was done/kept in msg, or -errno with the reason in msg. */
int privdrop_apply(const struct privdrop_opts *o, char *msg, size_t msglen);
/* Raise the kept file capability around a config read/write and a socket unlink. */
void privdrop_file_begin(void);
void privdrop_file_end(void);

#endif
