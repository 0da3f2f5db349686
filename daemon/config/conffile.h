/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Configuration files: wg-quick's format (wgd -c FILE, wgd up IFNAME, a
 * reload) and wg's (wgctl setconf / addconf / syncconf, showconf).
 *
 * wg's format is the [Interface] keys PrivateKey, ListenPort and FwMark and
 * the [Peer] keys PublicKey, PresharedKey, Endpoint, AllowedIPs and
 * PersistentKeepalive.  wg-quick's adds, in [Interface], Address, MTU,
 * Table, DNS, PreUp, PostUp, PreDown, PostDown and SaveConfig; in wg's
 * format those are errors, as wg setconf makes them.  Keys are matched
 * without regard to case, '#' starts a comment, blank lines are ignored,
 * and list values (Address, DNS, AllowedIPs) may be separated by commas or
 * whitespace and repeated (AllowedIPs without an empty item, as for wg).  doc/man/wgd.conf.5 describes the format.
 *
 * The wg part lands in the daemon's one configuration model
 * (daemon/config/config.h), ready for device_config_set(): the parser sets
 * CONFIG_DEVICE_HAS_* for the keys present, and for every peer
 * CONFIG_PEER_REPLACE_ALLOWEDIPS, CONFIG_PEER_HAS_PRESHARED_KEY and
 * CONFIG_PEER_HAS_KEEPALIVE when present, and CONFIG_PEER_HAS_ENDPOINT when
 * the endpoint is a numeric address.  An endpoint given as a host name is
 * left to the caller (conffile_peer.endpoint_host), which resolves it.
 *
 * Two [Peer]s with the same PublicKey are one peer, set twice as wg(8) sets
 * the kernel: the later one's keys (and its AllowedIPs, the whole list)
 * replace the earlier one's, at the place of the first.
 *
 * A file either parses completely or not at all: on error nothing of it is
 * kept (cf is left as after conffile_init) and err reads "NAME:LINE:
 * problem", naming the key or value at fault.
 */
#ifndef WGD_CONFFILE_H
#define WGD_CONFFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/config/config.h"
#include "daemon/config/span.h"

enum conffile_format {
	CONFFILE_QUICK,		/* wg-quick(8) */
	CONFFILE_WG,		/* wg(8) setconf */
};

enum conffile_table {
	CONFFILE_TABLE_AUTO,	/* Table = auto, or no Table key */
	CONFFILE_TABLE_OFF,	/* Table = off: no routes */
	CONFFILE_TABLE_ID,	/* Table = N (a number, or a name of /etc/iproute2/rt_tables) */
};

enum conffile_hook {
	CONFFILE_PRE_UP,
	CONFFILE_POST_UP,
	CONFFILE_PRE_DOWN,
	CONFFILE_POST_DOWN,
	CONFFILE_NHOOKS,
};

/* Address = 10.0.0.1/24: the address as written, its prefix length
 * (32 or 128 when not written).  addr in network byte order. */
struct conffile_addr {
	uint8_t family;		/* AF_INET or AF_INET6 */
	uint8_t prefixlen;
	uint8_t addr[16];
};

/* What the model has no field for, per peer: dev.peers[i] <-> peers[i]. */
struct conffile_peer {
	char *endpoint_host;	/* the Endpoint's host as written, without [ ];
				   NULL without an Endpoint */
	uint16_t endpoint_port;
	bool endpoint_is_name;	/* not a numeric address: resolve it */
	unsigned int line;	/* of the [Peer] header, for messages */
};

struct conffile {
	struct config_device dev;
	struct conffile_peer *peers;	/* dev.peers_len entries */

	/* wg-quick only; empty after a CONFFILE_WG parse */
	struct conffile_addr *addrs;
	size_t addrs_len;
	unsigned int mtu;		/* 0: not given */
	enum conffile_table table;
	uint32_t table_id;		/* CONFFILE_TABLE_ID */
	char **dns;			/* servers and search domains, as written */
	size_t dns_len;
	char **hooks[CONFFILE_NHOOKS];	/* commands in file order, %i not yet replaced */
	size_t hooks_len[CONFFILE_NHOOKS];
	bool save_config;

	/* Set by the caller after conffile_init(), or NULL: told of what wg
	 * warns about and takes anyway (what, e.g. "AllowedIP has nonzero
	 * host part: 10.0.0.1/8"; the prefix is kept masked), with the file's
	 * name and the line. */
	void (*warn)(void *ctx, const char *name, unsigned int line, const char *what);
	void *warn_ctx;
};

void conffile_init(struct conffile *cf);
/* Wipes every key, frees everything, leaves cf as after conffile_init. */
void conffile_clear(struct conffile *cf);

/*
 * Parses text (len bytes, need not be NUL-terminated) named name in
 * messages.  0, -EINVAL with the message in err, or -ENOMEM.  cf must be
 * empty (as after conffile_init).
 */
int conffile_parse(struct conffile *cf, const char *name, const char *text, size_t len,
		   enum conffile_format fmt, char *err, size_t errlen);

/*
 * The largest file: 10,000 peers with a preshared key, an endpoint and two
 * prefixes each are 2.2 MB, which a router with 64 MB must still take,
 * and the text is held at most twice at once (the privileged monitor's
 * copy and the daemon's, daemon/monitor/files.c), beside the parsed model.
 */
#define CONFFILE_MAX (4u << 20)
#define CONFFILE_MAX_TEXT "4 MiB"

/*
 * Makes the [Peer]s of each PublicKey one, at the place of the first, as
 * the later ones set it again: their keys replace the earlier ones', and
 * so does their AllowedIPs list (each [Peer] states the whole list).
 * conffile_parse() does it; 0 or -ENOMEM.
 */
int conffile_merge_peers(struct conffile *cf);

/*
 * Reads and parses the file at path (at most CONFFILE_MAX bytes).  -errno with "PATH:
 * reason" in err when it cannot be read.  *mode (may be NULL) is the
 * opened file's permission bits (st_mode & 07777), so that the caller can
 * warn when users other than the owner have any access to it (it holds the
 * private key, and root runs its hooks).
 */
int conffile_load(struct conffile *cf, const char *path, enum conffile_format fmt,
		  unsigned int *mode, char *err, size_t errlen);

/*
 * Writes cf in fmt: for CONFFILE_WG exactly what `wg showconf` prints for
 * the same device (given cf->dev from a get, peers' endpoints from
 * dev.peers[i].endpoint); for CONFFILE_QUICK that with the wg-quick keys
 * added to [Interface], as wg-quick's SaveConfig writes the file back.
 * 0 or -errno.
 */
int conffile_print(FILE *f, const struct conffile *cf, enum conffile_format fmt);

/* The key of a hook as the files spell it: "PreUp", "PostUp", "PreDown", "PostDown". */
const char *conffile_hook_key(enum conffile_hook h);

/*
 * An Endpoint as the files take it, and wgctl set's endpoint argument:
 * host:port, IPv4:port or [IPv6]:port (span_endpoint()), the host a
 * numeric address of the family the brackets tell (IPv6 with an optional
 * %scope, a number or an interface's name) or, without brackets, a host
 * name (letters, digits, '-', '.', '_'; at most 253).  An IPv6 address
 * needs its brackets, an IPv4 address or a name must not have them (as
 * wireguard-go reads an address and port).  *host (without the brackets)
 * and *port are set either way.  0 with *ep set for an address, 1 for a
 * name (to be resolved), -EINVAL.
 */
int conffile_endpoint(struct span v, union config_endpoint *ep, struct span *host,
		      uint16_t *port);

/*
 * An endpoint's text as wg(8) shows and prints it: the address as
 * getnameinfo(NI_NUMERICHOST) gives it (an IPv6 scope by its interface's
 * name), in brackets when IPv6, then ':' and the port.  0, or getnameinfo()'s
 * EAI_* code (buf is then left as it was).  CONFFILE_ENDPOINT_TEXT_MAX
 * holds any.
 */
#define CONFFILE_ENDPOINT_TEXT_MAX 80
int conffile_endpoint_text(char *buf, size_t len, const union config_endpoint *ep);

/* The file Table names are looked up in (iproute2's); tests point it at
 * their own. */
extern const char *conffile_rt_tables;

/* Keys in the files' and wg's base64 (44 characters with one '='). */
bool conffile_key_from_base64(uint8_t key[CONFIG_KEY_LEN], const char *b64, size_t len);
void conffile_key_to_base64(char out[45], const uint8_t key[CONFIG_KEY_LEN]);	/* NUL-terminated */

#endif
