/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wgctl show: wg(8)'s views of an interface, byte for byte (the pretty one,
 * `dump` and each field), and one JSON document of every view at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crypto/util.h"
#include "crypto/x25519.h"
#include "daemon/config/conffile.h"
#include "tools/wgctl/ipc.h"
#include "tools/wgctl/wgctl.h"

/* ---- the device ---- */

int wgctl_device_get(struct wgctl_device *dev, const char *ifname)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	dev->name = ifname;
	config_device_init(&dev->cfg);
	ret = ipc_get(ifname, &dev->cfg);
	if (ret < 0) {
		config_device_clear(&dev->cfg);
		return ret;
	}
	/* wg shows the public key of whatever private key the daemon has;
	 * a key that maps to zero (never a clamped one) shows as zeros. */
	if ((dev->cfg.flags & CONFIG_DEVICE_HAS_PRIVATE_KEY) &&
	    !x25519_public(dev->public_key, dev->cfg.private_key))
		memset(dev->public_key, 0, sizeof(dev->public_key));
	return 0;
}

void wgctl_device_clear(struct wgctl_device *dev)
{
	config_device_clear(&dev->cfg);
}

static bool has_private(const struct wgctl_device *dev)
{
	return dev->cfg.flags & CONFIG_DEVICE_HAS_PRIVATE_KEY;
}

/* ---- text pieces ---- */

/* A key in base64, in one of two rotating buffers (a line shows two);
 * b64_wipe() clears them, as they may have held a private key. */
static char b64_buf[2][45];

static const char *b64(const uint8_t key[CONFIG_KEY_LEN])
{
	static unsigned int which;

	which ^= 1;
	conffile_key_to_base64(b64_buf[which], key);
	return b64_buf[which];
}

static void b64_wipe(void)
{
	crypto_wipe(b64_buf, sizeof(b64_buf));
}

static const char *maybe_b64(const uint8_t key[CONFIG_KEY_LEN], bool have)
{
	return have ? b64(key) : "(none)";
}

static bool has_psk(const struct config_peer *p)
{
	return p->flags & CONFIG_PEER_HAS_PRESHARED_KEY;
}

/* The endpoint as wg shows it (conffile_endpoint_text(), which showconf's
 * printer uses too), or getnameinfo()'s error, as wg shows that. */
static const char *endpoint_str(const union config_endpoint *ep)
{
	static char buf[CONFFILE_ENDPOINT_TEXT_MAX];
	int ret = conffile_endpoint_text(buf, sizeof(buf), ep);

	if (ret)
		snprintf(buf, sizeof(buf), "%s", gai_strerror(ret));
	return buf;
}

static const char *ip_str(const struct config_allowedip *aip)
{
	static char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(aip->family, aip->addr, buf, sizeof(buf)))
		buf[0] = '\0';
	return buf;
}

/* ---- colour ---- */

/*
 * The pretty view is written with these one-byte marks; out() turns each
 * into its escape sequence when colour is on and drops it otherwise, so
 * that the text is the same either way.  Colour is on when stdout is a
 * terminal, or as WG_COLOR_MODE=always|never says (as for wg).
 */
#define T_BOLD		"\001"
#define T_RESET		"\002"
#define T_GREEN		"\003"
#define T_YELLOW	"\004"
#define T_CYAN		"\005"
#define T_RED		"\006"

static const char *const t_seq[] = {
	NULL, "\033[1m", "\033[0m", "\033[32m", "\033[33m", "\033[36m", "\033[31m",
};

static bool colour(void)
{
	static int mode = -1;
	const char *var;

	if (mode < 0) {
		var = getenv("WG_COLOR_MODE");
		if (var && strcmp(var, "always") == 0)
			mode = 1;
		else if (var && strcmp(var, "never") == 0)
			mode = 0;
		else
			mode = isatty(STDOUT_FILENO);
	}
	return mode;
}

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void out(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	for (int i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c > 0 && c < sizeof(t_seq) / sizeof(t_seq[0])) {
			if (colour())
				fputs(t_seq[c], stdout);
		} else {
			putchar(c);
		}
	}
}

/* ---- pretty ---- */

/* "1 year, 2 days, 3 minutes": the non-zero units, largest first. */
static size_t pretty_time(char *buf, size_t len, uint64_t left)
{
	static const struct { uint64_t secs; const char *name; } units[] = {
		{ 365 * 24 * 3600, "year" }, { 24 * 3600, "day" }, { 3600, "hour" },
		{ 60, "minute" }, { 1, "second" },
	};
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t n = left / units[i].secs;
		int w;

		left %= units[i].secs;
		if (!n)
			continue;
		w = snprintf(buf + off, len - off, "%s%" PRIu64 " " T_CYAN "%s%s" T_RESET,
			     off ? ", " : "", n, units[i].name, n == 1 ? "" : "s");
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
	return off;
}

static const char *ago(int64_t then)
{
	static char buf[256];
	int64_t now = (int64_t)time(NULL);
	size_t off;

	if (now == then)
		return "Now";
	if (now < then)
		return "(" T_RED "System clock wound backward; connection problems may ensue." T_RESET ")";
	off = pretty_time(buf, sizeof(buf), (uint64_t)(now - then));
	snprintf(buf + off, sizeof(buf) - off, " ago");
	return buf;
}

static const char *bytes(uint64_t b)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	static char buf[64];
	double v = (double)b / 1024;
	size_t u = 0;

	if (b < 1024) {
		snprintf(buf, sizeof(buf), "%u " T_CYAN "B" T_RESET, (unsigned int)b);
		return buf;
	}
	/* Up to TiB, and TiB for everything larger. */
	while (u < 3 && b >= (1024ull << (10 * (u + 1))))
		u++;
	for (size_t i = 0; i < u; i++)
		v /= 1024;
	snprintf(buf, sizeof(buf), "%.2f " T_CYAN "%s" T_RESET, v, units[u]);
	return buf;
}

/* Most recent handshake first, peers that never had one last. */
static int peer_cmp(const void *x, const void *y)
{
	const struct config_peer *a = *(const struct config_peer *const *)x;
	const struct config_peer *b = *(const struct config_peer *const *)y;
	bool a_never = !a->last_handshake_sec && !a->last_handshake_nsec;
	bool b_never = !b->last_handshake_sec && !b->last_handshake_nsec;
	int64_t d;

	if (a_never != b_never)
		return a_never ? 1 : -1;
	d = a->last_handshake_sec - b->last_handshake_sec;
	if (!d)
		d = a->last_handshake_nsec - b->last_handshake_nsec;
	return d < 0 ? 1 : d > 0 ? -1 : 0;
}

static const char *hidden_key(const uint8_t key[CONFIG_KEY_LEN])
{
	const char *var = getenv("WG_HIDE_KEYS");

	return var && strcmp(var, "never") == 0 ? b64(key) : "(hidden)";
}

static void pretty_peer(const struct config_peer *p)
{
	out(T_YELLOW T_BOLD "peer" T_RESET ": " T_YELLOW "%s" T_RESET "\n", b64(p->public_key));
	if (has_psk(p))
		out("  " T_BOLD "preshared key" T_RESET ": %s\n", hidden_key(p->preshared_key));
	if (config_peer_has_endpoint(p))
		out("  " T_BOLD "endpoint" T_RESET ": %s\n", endpoint_str(&p->endpoint));
	out("  " T_BOLD "allowed ips" T_RESET ": ");
	for (size_t i = 0; i < p->allowedips_len; i++)
		out("%s" T_CYAN "/" T_RESET "%u%s", ip_str(&p->allowedips[i]), p->allowedips[i].cidr,
		    i + 1 < p->allowedips_len ? ", " : "\n");
	if (!p->allowedips_len)
		out("(none)\n");
	if (p->last_handshake_sec)
		out("  " T_BOLD "latest handshake" T_RESET ": %s\n", ago(p->last_handshake_sec));
	if (p->rx_bytes || p->tx_bytes) {
		out("  " T_BOLD "transfer" T_RESET ": %s received, ", bytes(p->rx_bytes));
		out("%s sent\n", bytes(p->tx_bytes));
	}
	if (p->persistent_keepalive) {
		char every[128];

		pretty_time(every, sizeof(every), p->persistent_keepalive);
		out("  " T_BOLD "persistent keepalive" T_RESET ": every %s\n", every);
	}
}

static void show_pretty(const struct wgctl_device *dev)
{
	const struct config_device *c = &dev->cfg;
	const struct config_peer **sorted;

	out(T_RESET T_GREEN T_BOLD "interface" T_RESET ": " T_GREEN "%s" T_RESET "\n", dev->name);
	if (has_private(dev)) {
		out("  " T_BOLD "public key" T_RESET ": %s\n", b64(dev->public_key));
		out("  " T_BOLD "private key" T_RESET ": %s\n", hidden_key(c->private_key));
	}
	if (c->listen_port)
		out("  " T_BOLD "listening port" T_RESET ": %u\n", c->listen_port);
	if (c->fwmark)
		out("  " T_BOLD "fwmark" T_RESET ": 0x%x\n", c->fwmark);
	if (!c->peers_len)
		return;
	out("\n");
	sorted = calloc(c->peers_len, sizeof(*sorted));
	for (size_t i = 0; i < c->peers_len; i++) {
		if (sorted)
			sorted[i] = &c->peers[i];
	}
	if (sorted)
		qsort(sorted, c->peers_len, sizeof(*sorted), peer_cmp);
	for (size_t i = 0; i < c->peers_len; i++) {
		pretty_peer(sorted ? sorted[i] : &c->peers[i]);
		if (i + 1 < c->peers_len)
			out("\n");
	}
	free(sorted);
}

/* ---- dump and fields ---- */

static void ifprefix(const struct wgctl_device *dev, bool with_if)
{
	if (with_if)
		printf("%s\t", dev->name);
}

static void print_allowedips(const struct config_peer *p, char sep, char end)
{
	for (size_t i = 0; i < p->allowedips_len; i++)
		printf("%s/%u%c", ip_str(&p->allowedips[i]), p->allowedips[i].cidr,
		       i + 1 < p->allowedips_len ? sep : end);
	if (!p->allowedips_len)
		printf("(none)%c", end);
}

static void show_dump(const struct wgctl_device *dev, bool with_if)
{
	const struct config_device *c = &dev->cfg;

	ifprefix(dev, with_if);
	printf("%s\t", maybe_b64(c->private_key, has_private(dev)));
	printf("%s\t%u\t", maybe_b64(dev->public_key, has_private(dev)), c->listen_port);
	if (c->fwmark)
		printf("0x%x\n", c->fwmark);
	else
		printf("off\n");
	for (size_t i = 0; i < c->peers_len; i++) {
		const struct config_peer *p = &c->peers[i];

		ifprefix(dev, with_if);
		printf("%s\t%s\t", b64(p->public_key), maybe_b64(p->preshared_key, has_psk(p)));
		printf("%s\t", config_peer_has_endpoint(p) ? endpoint_str(&p->endpoint) : "(none)");
		print_allowedips(p, ',', '\t');
		printf("%" PRId64 "\t%" PRIu64 "\t%" PRIu64 "\t", p->last_handshake_sec,
		       p->rx_bytes, p->tx_bytes);
		if (p->persistent_keepalive)
			printf("%u\n", p->persistent_keepalive);
		else
			printf("off\n");
	}
}

enum field {
	F_PUBLIC_KEY, F_PRIVATE_KEY, F_LISTEN_PORT, F_FWMARK, F_PEERS, F_PRESHARED_KEYS,
	F_ENDPOINTS, F_ALLOWED_IPS, F_LATEST_HANDSHAKES, F_TRANSFER, F_KEEPALIVE, F_DUMP,
	F_NONE,
};

static const char *const field_names[] = {
	"public-key", "private-key", "listen-port", "fwmark", "peers", "preshared-keys",
	"endpoints", "allowed-ips", "latest-handshakes", "transfer", "persistent-keepalive",
	"dump",
};

static enum field field_of(const char *name)
{
	for (size_t i = 0; i < F_NONE; i++)
		if (strcmp(name, field_names[i]) == 0)
			return (enum field)i;
	return F_NONE;
}

static void show_peer_field(const struct wgctl_device *dev, const struct config_peer *p,
			    enum field f, bool with_if)
{
	ifprefix(dev, with_if);
	printf("%s", b64(p->public_key));
	switch (f) {
	case F_PRESHARED_KEYS:
		printf("\t%s\n", maybe_b64(p->preshared_key, has_psk(p)));
		break;
	case F_ENDPOINTS:
		printf("\t%s\n", config_peer_has_endpoint(p) ? endpoint_str(&p->endpoint) : "(none)");
		break;
	case F_ALLOWED_IPS:
		putchar('\t');
		print_allowedips(p, ' ', '\n');
		break;
	case F_LATEST_HANDSHAKES:
		printf("\t%" PRId64 "\n", p->last_handshake_sec);
		break;
	case F_TRANSFER:
		printf("\t%" PRIu64 "\t%" PRIu64 "\n", p->rx_bytes, p->tx_bytes);
		break;
	case F_KEEPALIVE:
		if (p->persistent_keepalive)
			printf("\t%u\n", p->persistent_keepalive);
		else
			printf("\toff\n");
		break;
	default:
		putchar('\n');	/* F_PEERS */
		break;
	}
}

static void show_field(const struct wgctl_device *dev, enum field f, bool with_if)
{
	const struct config_device *c = &dev->cfg;

	switch (f) {
	case F_DUMP:
		show_dump(dev, with_if);
		return;
	case F_PUBLIC_KEY:
		ifprefix(dev, with_if);
		printf("%s\n", maybe_b64(dev->public_key, has_private(dev)));
		return;
	case F_PRIVATE_KEY:
		ifprefix(dev, with_if);
		printf("%s\n", maybe_b64(c->private_key, has_private(dev)));
		return;
	case F_LISTEN_PORT:
		ifprefix(dev, with_if);
		printf("%u\n", c->listen_port);
		return;
	case F_FWMARK:
		ifprefix(dev, with_if);
		if (c->fwmark)
			printf("0x%x\n", c->fwmark);
		else
			printf("off\n");
		return;
	default:
		for (size_t i = 0; i < c->peers_len; i++)
			show_peer_field(dev, &c->peers[i], f, with_if);
		return;
	}
}

/* ---- JSON ---- */

/* A JSON string; the names and keys shown are ASCII, but escape anyway. */
static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void json_key_or_null(const char *name, const uint8_t key[CONFIG_KEY_LEN], bool have)
{
	printf("\"%s\": ", name);
	if (have)
		json_str(b64(key));
	else
		printf("null");
}

static void json_peer(const struct config_peer *p)
{
	printf("{");
	json_key_or_null("public_key", p->public_key, true);
	printf(", ");
	json_key_or_null("preshared_key", p->preshared_key, has_psk(p));
	printf(", \"endpoint\": ");
	if (config_peer_has_endpoint(p))
		json_str(endpoint_str(&p->endpoint));
	else
		printf("null");
	printf(", \"allowed_ips\": [");
	for (size_t i = 0; i < p->allowedips_len; i++)
		printf("%s\"%s/%u\"", i ? ", " : "", ip_str(&p->allowedips[i]), p->allowedips[i].cidr);
	printf("], \"latest_handshake\": %" PRId64 ", \"latest_handshake_nsec\": %" PRId64
	       ", \"rx_bytes\": %" PRIu64 ", \"tx_bytes\": %" PRIu64
	       ", \"persistent_keepalive\": %u}",
	       p->last_handshake_sec, p->last_handshake_nsec, p->rx_bytes, p->tx_bytes,
	       p->persistent_keepalive);
}

static void json_device(const struct wgctl_device *dev)
{
	const struct config_device *c = &dev->cfg;

	printf("{\"name\": ");
	json_str(dev->name);
	printf(", ");
	json_key_or_null("private_key", c->private_key, has_private(dev));
	printf(", ");
	json_key_or_null("public_key", dev->public_key, has_private(dev));
	printf(", \"listen_port\": %u, \"fwmark\": %" PRIu32 ", \"peers\": [", c->listen_port,
	       c->fwmark);
	for (size_t i = 0; i < c->peers_len; i++) {
		printf(i ? ",\n    " : "\n    ");
		json_peer(&c->peers[i]);
	}
	printf("%s]}", c->peers_len ? "\n  " : "");
}

/* ---- the command ---- */

static void show_usage(const char *cmd)
{
	fprintf(stderr, "Usage: %s %s { <interface> | all | interfaces } [public-key | private-key | "
		"listen-port | fwmark | peers | preshared-keys | endpoints | allowed-ips | "
		"latest-handshakes | transfer | persistent-keepalive | dump]\n"
		"       %s %s --json [<interface> | all]\n",
		wgctl_prog, cmd, wgctl_prog, cmd);
}

static void access_error(int err)
{
	fprintf(stderr, "Unable to access interface: %s\n", strerror(-err));
}

/* One JSON document: {"interfaces": [...]} of the one interface or all. */
static int show_json(const char *which)
{
	char *names, *name;
	size_t count, n = 0;
	int ret;

	if (which && strcmp(which, "all") != 0) {
		struct wgctl_device dev;
		int err = wgctl_device_get(&dev, which);

		/* One named interface that cannot be read: no document. */
		if (err < 0) {
			access_error(err);
			return 1;
		}
		printf("{\"interfaces\": [\n  ");
		json_device(&dev);
		printf("\n]}\n");
		wgctl_device_clear(&dev);
		return 0;
	}
	ret = ipc_list(&names, &count);
	if (ret < 0) {
		fprintf(stderr, "Unable to list interfaces: %s\n", strerror(-ret));
		return 1;
	}
	printf("{\"interfaces\": [");
	name = names;
	for (size_t i = 0; i < count; i++, name += strlen(name) + 1) {
		struct wgctl_device dev;
		int err = wgctl_device_get(&dev, name);

		/* as in "show all": the others are still shown */
		if (err < 0) {
			fprintf(stderr, "Unable to access interface %s: %s\n", name, strerror(-err));
			continue;
		}
		printf(n++ ? ",\n  " : "\n  ");
		json_device(&dev);
		wgctl_device_clear(&dev);
	}
	printf("%s]}\n", n ? "\n" : "");
	free(names);
	/* As "show all": a failure when there are interfaces and none could be read. */
	return count > 0 && n == 0;
}

static int show_all(const char *param)
{
	enum field f = param ? field_of(param) : F_NONE;
	char *names, *name;
	size_t count;
	int ret;

	ret = ipc_list(&names, &count);
	if (ret < 0) {
		fprintf(stderr, "Unable to list interfaces: %s\n", strerror(-ret));
		return 1;
	}
	/* As wg: a failure when there are interfaces and none could be read. */
	ret = count > 0;
	name = names;
	for (size_t i = 0; i < count; i++, name += strlen(name) + 1) {
		struct wgctl_device dev;
		int err;

		err = wgctl_device_get(&dev, name);
		if (err < 0) {
			fprintf(stderr, "Unable to access interface %s: %s\n", name, strerror(-err));
			continue;
		}
		if (param && f == F_NONE) {
			fprintf(stderr, "Invalid parameter: `%s'\n", param);
			show_usage("show");
			wgctl_device_clear(&dev);
			ret = 1;
			break;
		}
		ret = 0;
		if (param) {
			show_field(&dev, f, true);
		} else {
			show_pretty(&dev);
			if (i + 1 < count)
				printf("\n");
		}
		wgctl_device_clear(&dev);
	}
	free(names);
	return ret;
}

static int show_interfaces(void)
{
	char *names, *name;
	size_t count;
	int ret = ipc_list(&names, &count);

	if (ret < 0) {
		fprintf(stderr, "Unable to list interfaces: %s\n", strerror(-ret));
		return 1;
	}
	name = names;
	for (size_t i = 0; i < count; i++, name += strlen(name) + 1)
		printf("%s%c", name, i + 1 < count ? ' ' : '\n');
	free(names);
	return 0;
}

static int show_one(const char *ifname, const char *param)
{
	enum field f = param ? field_of(param) : F_NONE;
	struct wgctl_device dev;
	int err = wgctl_device_get(&dev, ifname);

	if (err < 0) {
		access_error(err);
		return 1;
	}
	if (param && f == F_NONE) {
		fprintf(stderr, "Invalid parameter: `%s'\n", param);
		show_usage("show");
		wgctl_device_clear(&dev);
		return 1;
	}
	if (param)
		show_field(&dev, f, false);
	else
		show_pretty(&dev);
	wgctl_device_clear(&dev);
	return 0;
}

/* show --json [IFNAME|all], the option before or after the name. */
static int show_json_args(int argc, char **argv, int i)
{
	/* the other argument, if any, names the interface */
	if (argc > 3 || (argc == 3 && strcmp(argv[3 - i], "interfaces") == 0)) {
		show_usage(argv[0]);
		return 1;
	}
	return show_json(argc == 3 ? argv[3 - i] : NULL);
}

int wgctl_show(int argc, char **argv)
{
	int ret = -1;

	for (int i = 1; i < argc && ret < 0; i++)
		if (strcmp(argv[i], "--json") == 0)
			ret = show_json_args(argc, argv, i);
	if (ret >= 0) {
		/* done */
	} else if (argc > 3) {
		show_usage(argv[0]);
		ret = 1;
	} else if (argc == 1 || strcmp(argv[1], "all") == 0) {
		ret = show_all(argc == 3 ? argv[2] : NULL);
	} else if (strcmp(argv[1], "interfaces") == 0) {
		if (argc > 2) {
			show_usage(argv[0]);
			ret = 1;
		} else {
			ret = show_interfaces();
		}
	} else if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
				 strcmp(argv[1], "help") == 0)) {
		show_usage(argv[0]);
		ret = 0;
	} else {
		ret = show_one(argv[1], argc == 3 ? argv[2] : NULL);
	}
	fflush(stdout);
	b64_wipe();
	return ret;
}

/* ---- showconf ---- */

int wgctl_showconf(int argc, char **argv)
{
	struct wgctl_device dev;
	struct conffile cf;
	int err;

	if (argc != 2) {
		fprintf(stderr, "Usage: %s %s <interface>\n", wgctl_prog, argv[0]);
		return 1;
	}
	err = wgctl_device_get(&dev, argv[1]);
	if (err < 0) {
		access_error(err);
		return 1;
	}
	conffile_init(&cf);
	cf.dev = dev.cfg;	/* moved: cleared through cf */
	cf.peers = calloc(cf.dev.peers_len ? cf.dev.peers_len : 1, sizeof(*cf.peers));
	err = cf.peers ? conffile_print(stdout, &cf, CONFFILE_WG) : -ENOMEM;
	conffile_clear(&cf);
	if (err < 0) {
		fprintf(stderr, "Unable to print the configuration: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
