// SPDX-License-Identifier: GPL-2.0-only
#include "daemon/datapath/endpoint.h"

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

/* "a.b.c.d:port", "[v6]:port" or "(none)". */
void endpoint_format(const struct endpoint *ep, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN] = "";
	int family = ep->addr.sa.sa_family;
	bool v6 = family == AF_INET6;

	if (family != AF_INET && !v6) {
		snprintf(buf, size, "(none)");
		return;
	}
	inet_ntop(family, v6 ? (const void *)&ep->addr.in6.sin6_addr : (const void *)&ep->addr.in4.sin_addr,
		  ip, sizeof(ip));
	/* sin_port and sin6_port are at the same offset. */
	snprintf(buf, size, "%s%s%s:%u", v6 ? "[" : "", ip, v6 ? "]" : "", ntohs(ep->addr.in4.sin_port));
}
