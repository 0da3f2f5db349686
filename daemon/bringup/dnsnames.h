/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Endpoints given as host names: resolved off the event loop, and
 * re-resolved while their peer completes no handshake, so that a peer at a
 * dynamic address is reached again.  Roaming still wins: an answer is
 * applied only to a peer that has been silent for the staleness time.
 */
#ifndef WGD_DNSNAMES_H
#define WGD_DNSNAMES_H

struct conffile;
struct host;

/*
 * Create and update after host_start(), in the process that runs the loop;
 * destroy before host_stop().  The queries, and the worker thread that
 * runs them, start on the loop once dnsnames_start() was called, which is
 * after the privilege drop (the loop also runs earlier, while a hook runs:
 * a thread made then would keep root's bounding set and no
 * no-new-privileges, as capset and prctl act on one thread).  Every name's first answer becomes its peer's endpoint; the peer is
 * then re-resolved while it is stale (daemon/bringup/dnspolicy.h), every 135 s
 * without a handshake or the seconds in the environment variable
 * WGD_RERESOLVE_SECONDS (1..86400).  A name that fails is logged once per
 * kind of failure, and retried.
 */
struct dnsnames;
int dnsnames_create(struct dnsnames **out, struct host *h);	/* 0 or -errno */
/* The peers of cf whose Endpoint is a host name (cf->peers[i].endpoint_is_name): resolved now, off the event
   loop, their endpoint set when the answer comes; and re-resolved while a peer has completed no handshake for
   a while. Called at start and on every reload (which re-resolves them all). 0 or -errno. */
int dnsnames_update(struct dnsnames *dn, const struct conffile *cf);
/* From now on the queries may start (the first at once); 0 or -errno. */
int dnsnames_start(struct dnsnames *dn);
void dnsnames_destroy(struct dnsnames *dn);

#endif
