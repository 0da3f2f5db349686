// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/endpoint.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

void endpoint_clear_src(struct endpoint *ep)
{
	memset(&ep->src, 0, sizeof(ep->src));
	ep->src_ifindex = 0;
	ep->has_src = false;
}

bool endpoint_addr_equal(const struct endpoint *a, const struct endpoint *b)
{
	if (a->addr.sa.sa_family != b->addr.sa.sa_family)
		return false;
	if (a->addr.sa.sa_family == AF_INET)
		return a->addr.in4.sin_port == b->addr.in4.sin_port &&
		       a->addr.in4.sin_addr.s_addr == b->addr.in4.sin_addr.s_addr;
	if (a->addr.sa.sa_family == AF_INET6)
		return a->addr.in6.sin6_port == b->addr.in6.sin6_port &&
		       a->addr.in6.sin6_scope_id == b->addr.in6.sin6_scope_id &&
		       !memcmp(&a->addr.in6.sin6_addr, &b->addr.in6.sin6_addr,
			       sizeof(struct in6_addr));
	return true;
}

void endpoint_format(const struct endpoint *ep, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "";

	if (ep->addr.sa.sa_family == AF_INET) {
		inet_ntop(AF_INET, &ep->addr.in4.sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%u", ip, ntohs(ep->addr.in4.sin_port));
	} else if (ep->addr.sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &ep->addr.in6.sin6_addr, ip, sizeof(ip));
		snprintf(buf, size, "[%s]:%u", ip, ntohs(ep->addr.in6.sin6_port));
	} else {
		snprintf(buf, size, "(none)");
	}
}
