// SPDX-License-Identifier: GPL-2.0-only
/* systemd's readiness protocol, written directly (no libsystemd). */
#include "daemon/base/notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/base/log.h"

/*
 * systemd's readiness protocol (sd_notify(3)): one datagram of KEY=VALUE
 * lines to $NOTIFY_SOCKET, a path or, with a leading '@', an abstract
 * name.  Without the variable it does nothing.
 */
void notify_state(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;	/* the family and the path (with its NUL, for checkers) */
	size_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return;
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, path, len + 1);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
		log_debug("sd_notify: %s", strerror(errno));
	close(fd);
}
