// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/bringup/resolve.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

int resolve_endpoint(const char *host, uint16_t port, union config_endpoint *out, char *err, size_t errlen)
{
	const struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_DGRAM,
		.ai_protocol = IPPROTO_UDP,
		/* No AI_ADDRCONFIG: it refuses a family the host has no
		 * address of yet (an IPv6-only uplink, a boot before DHCP),
		 * so a name with only A records failed as a temporary error
		 * where wg(8) takes it.  The resolver's RFC 6724 order still
		 * puts a reachable family first. */
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res, *ai;
	char service[6];
	int ret;

	snprintf(service, sizeof(service), "%u", port);
	ret = getaddrinfo(host, service, &hints, &res);
	if (ret) {
		int e = errno;

		snprintf(err, errlen, "%s: %s", host, ret == EAI_SYSTEM ? strerror(e) : gai_strerror(ret));
		switch (ret) {
		case EAI_AGAIN:
			return -EAGAIN;
		case EAI_NONAME:
#ifdef EAI_NODATA
		case EAI_NODATA:
#endif
			return -ENOENT;
		case EAI_MEMORY:
			return -ENOMEM;
		case EAI_SYSTEM:
			return e ? -e : -EIO;
		default:
			return -EINVAL;
		}
	}
	for (ai = res; ai; ai = ai->ai_next)
		if ((ai->ai_family == AF_INET && ai->ai_addrlen == sizeof(out->in)) ||
		    (ai->ai_family == AF_INET6 && ai->ai_addrlen == sizeof(out->in6)))
			break;
	if (ai) {
		memset(out, 0, sizeof(*out));
		memcpy(out, ai->ai_addr, ai->ai_addrlen);
	} else {
		snprintf(err, errlen, "%s: no IPv4 or IPv6 address", host);
	}
	freeaddrinfo(res);
	return ai ? 0 : -ENOENT;
}
