/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * libFuzzer target for the `set` parser, fed line by line as the control
 * socket feeds it.  Beyond "no crash, no leak" (the sanitizers), it checks a
 * property: whatever is accepted prints, re-parses and prints the same.
 *
 *   fuzz_uapi [-runs=N] [CORPUS_DIR]      (built with clang only)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/config/config.h"
#include "daemon/config/uapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Interface names are looked up by a pure stand-in: no system calls. */
static unsigned int fuzz_scope(const char *name)
{
	return strcmp(name, "eth0") == 0 ? 2 : 0;
}

/* Body of a message up to its blank line, line by line; 0 or -errno. */
static int parse_lines(struct config_device *cfg, const char *msg, size_t len)
{
	struct uapi_parser p;
	size_t pos = 0;

	uapi_parser_init(&p, cfg);
	p.scope_index = fuzz_scope;
	while (pos < len) {
		const char *nl = memchr(msg + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (msg + pos)) : len - pos;

		if (!nl)
			return -1;
		if (n == 0)
			return uapi_parse_set_finish(&p);
		uapi_parse_set_line(&p, msg + pos, n);
		pos += n + 1;
	}
	return -1;
}

/* The get reply as a set message: the get-only lines and errno dropped. */
static char *get_to_set(const struct uapi_buf *b, size_t *out_len)
{
	static const char *const get_only[] = {
		"last_handshake_time_sec=", "last_handshake_time_nsec=",
		"tx_bytes=", "rx_bytes=", "errno=",
	};
	char *out = malloc(b->len + 1);
	size_t o = 0, pos = 0;

	if (!out)
		abort();
	while (pos < b->len) {
		const char *nl = memchr(b->data + pos, '\n', b->len - pos);
		size_t n = (size_t)(nl - (b->data + pos)) + 1;
		bool drop = n == 1;

		for (size_t i = 0; i < sizeof(get_only) / sizeof(get_only[0]); i++)
			drop |= strncmp(b->data + pos, get_only[i], strlen(get_only[i])) == 0;
		if (!drop) {
			memcpy(out + o, b->data + pos, n);
			o += n;
		}
		pos += n;
	}
	out[o++] = '\n';
	*out_len = o;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_device cfg, back;
	struct uapi_buf b1, b2;
	size_t n;
	char *set;

	config_device_init(&cfg);
	if (parse_lines(&cfg, (const char *)data, size) != 0) {
		config_device_clear(&cfg);
		return 0;
	}
	uapi_buf_init(&b1);
	uapi_buf_init(&b2);
	if (uapi_print_get(&b1, &cfg) != 0)
		abort();
	set = get_to_set(&b1, &n);
	config_device_init(&back);
	if (parse_lines(&back, set, n) != 0 || uapi_print_get(&b2, &back) != 0 ||
	    b1.len != b2.len || memcmp(b1.data, b2.data, b1.len) != 0)
		abort();	/* accepted input that does not round-trip */
	free(set);
	uapi_buf_clear(&b1);
	uapi_buf_clear(&b2);
	config_device_clear(&back);
	config_device_clear(&cfg);
	return 0;
}
