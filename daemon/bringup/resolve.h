/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A peer's Endpoint host to an address.  Blocking (getaddrinfo()): the
 * event loop never calls it; daemon/bringup/dnsnames.c runs it on a worker thread.
 */
#ifndef WGD_RESOLVE_H
#define WGD_RESOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "daemon/config/config.h"

/*
 * host (a name, or a numeric address with an optional IPv6 "%scope") and
 * port (host order) to an endpoint, as wg(8) resolves one: getaddrinfo()
 * for UDP with AF_UNSPEC and without AI_ADDRCONFIG (an address of a
 * family the host has no address of yet is taken: the network may come up
 * later), and the first answer taken, in the resolver's own order
 * (RFC 6724, /etc/gai.conf) -- no IPv4 preference of our own.  Returns 0;
 * or -EAGAIN when the failure is temporary (EAI_AGAIN: try again later),
 * -ENOENT when the name has no address, -ENOMEM, -errno of EAI_SYSTEM,
 * else -EINVAL; every failure with "host: reason" in err.
 */
int resolve_endpoint(const char *host, uint16_t port, union config_endpoint *out, char *err, size_t errlen);

#endif
