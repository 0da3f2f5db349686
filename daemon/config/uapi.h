/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The text of the cross-platform userspace API (wireguard.com/xplatform):
 * parsing a `set=1` message into a struct config_device and printing one as
 * the `get=1` reply.  Pure: no sockets, no clock, no logging.
 *
 * The parser takes one line at a time (without its '\n'), so it needs no
 * buffering of its own and fuzzes well.  Errors are negative errno values,
 * as wireguard-go reports them:
 *   -EPROTO  a line without '=', a message without its blank line;
 *   -EINVAL  an unknown key, a malformed or out-of-range value, an interface
 *            key after the first public_key;
 *   -ENOMEM  out of memory.
 * The first error sticks: later lines are ignored and return it again.
 */
#ifndef WGD_UAPI_H
#define WGD_UAPI_H

#include <stddef.h>

#include "daemon/config/config.h"

/* Longest line the parser accepts (without '\n'); longer ones are -EINVAL.
 * The longest valid line is well under 128 bytes. */
#define UAPI_LINE_MAX 512

struct uapi_parser {
	struct config_device *cfg;
	size_t peer;		/* index of the current peer + 1; 0 = none yet */
	int err;		/* first error, or 0 */
	unsigned long line;	/* lines seen, for messages */
	unsigned long err_line;	/* line of the first error; 0 = whole message */
	/* Reading a `get` reply (a client, wgctl) rather than a `set`: the
	 * get-only keys are taken, unknown keys are skipped (as wg skips
	 * them, so newer daemons' keys do not break older clients), and an
	 * all-zero preshared key means none. */
	bool get;
	/* Resolves the scope of `[fe80::1%eth0]:port` when it is not a
	 * number; returns 0 if unknown.  Defaults to if_nametoindex(). */
	unsigned int (*scope_index)(const char *name);
};

/* Starts a `set` message; cfg must be initialized (and is filled). */
void uapi_parser_init(struct uapi_parser *p, struct config_device *cfg);

/* One line of the message after "set=1", without '\n', not the blank line.
 * Returns 0 or the first -errno. */
int uapi_parse_set_line(struct uapi_parser *p, const char *line, size_t len);

/* At the blank line: the message's result, 0 or the first -errno.  A
 * public_key named again starts another entry for the same peer (config.h:
 * the entries are applied in order). */
int uapi_parse_set_finish(struct uapi_parser *p);

/*
 * Parses one whole message body: the bytes after "set=1\n", up to and
 * including the terminating blank line, with nothing after it.
 * Returns 0 or -errno; on error cfg holds a partial result to be cleared.
 */
int uapi_parse_set(struct config_device *cfg, const char *msg, size_t len);

/*
 * Parses a whole `get` reply: the key=value lines, "errno=N", the blank
 * line, nothing after it.  Returns N (0, or the daemon's -errno), or
 * -EPROTO when the reply is malformed (a bad value, no errno line, no
 * blank line), as wg(8) reports one.  cfg must be initialized; on error it
 * holds a partial result to be cleared.
 */
int uapi_parse_get(struct config_device *cfg, const char *msg, size_t len);

/* A growing byte buffer whose contents may be secret: every reallocation and
 * uapi_buf_clear() wipes the old bytes. */
struct uapi_buf {
	char *data;
	size_t len;
	size_t cap;
};

void uapi_buf_init(struct uapi_buf *b);
void uapi_buf_clear(struct uapi_buf *b);
/* Drops the first n bytes (wiping them). */
void uapi_buf_consume(struct uapi_buf *b, size_t n);

/* Appends n bytes; 0 or -ENOMEM (then b is unchanged). */
int uapi_buf_append(struct uapi_buf *b, const void *data, size_t n);

/* Appends the whole `get` reply for cfg, ending in "errno=0\n\n".
 * 0 or -ENOMEM (then b is unchanged). */
int uapi_print_get(struct uapi_buf *b, const struct config_device *cfg);

/*
 * Appends the `set` message for cfg, from "set=1" to its blank line, as
 * wg(8) writes one: private_key, listen_port and fwmark when their
 * CONFIG_DEVICE_HAS_* flag is set, replace_peers; per peer public_key, then
 * remove=true alone, or preshared_key, endpoint, the keepalive, replace_allowed_ips
 * by their flags and every allowed IP (`-prefix` for a removal), update_only
 * too when flagged.  0 or -ENOMEM / -EINVAL (then b is unchanged).
 */
int uapi_print_set(struct uapi_buf *b, const struct config_device *cfg);

/* Appends "errno=N\n\n"; err is 0 or a negative errno.  0 or -ENOMEM. */
int uapi_print_errno(struct uapi_buf *b, int err);

/*
 * Where the control socket of an interface is: the cross-platform API's
 * /var/run/wireguard/IFNAME.sock, one rule for the daemon that listens
 * there (daemon/control) and wgctl that connects.  The directory is run_dir
 * when not NULL, else $WGD_RUN_DIR when set and not empty, else
 * UAPI_RUN_DIR.
 */
#define UAPI_RUN_DIR "/var/run/wireguard"
#define UAPI_SOCK_SUFFIX ".sock"
const char *uapi_run_dir(const char *run_dir);

/*
 * dir/IFNAME.sock (UAPI_SOCK_SUFFIX) into path (len bytes).  IFNAME must be a name an interface
 * can have: 1 to 15 bytes (IFNAMSIZ - 1), no '/', not "." or "..".  0,
 * -EINVAL for the name, or -ENAMETOOLONG.
 */
int uapi_socket_path(char *path, size_t len, const char *dir, const char *ifname);

/* Constant-time hex codec for 32-byte keys: no branch and no table index
 * depends on the key.  decode: exactly 64 hex digits (either case); returns
 * false otherwise (out is then wiped). */
bool uapi_key_from_hex(uint8_t out[CONFIG_KEY_LEN], const char *hex, size_t len);
void uapi_key_to_hex(char out[2 * CONFIG_KEY_LEN], const uint8_t key[CONFIG_KEY_LEN]);

#endif
