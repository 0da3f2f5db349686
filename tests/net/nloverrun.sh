#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Link state after lost netlink events, wgd <-> wgd: b's wgd is stopped
# (SIGSTOP) while its link goes down, thousands of address events overrun
# its netlink socket (the kernel then drops further events and reports
# ENOBUFS), and the link comes back up; the "up" event is among the lost
# ones.  Once b runs again (SIGCONT) it must learn the real link state by
# asking the kernel, not stay "down" and drop every datagram: pings pass
# both ways.  Then two quick down/up cycles: each handshakes at once.

. "$(dirname "$0")/lib.sh"

nt_init rn
nt_pair wgd wgd
nt_endpoint "$IF_A" 4
nt_endpoint "$IF_B" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b before the overrun"

batch=$NT_TMP/addrs.batch
for ((i = 0; i < 3000; i++)); do
	printf 'address add 10.99.%d.%d/32 dev lo\n' $((i / 250)) $((i % 250 + 1))
done >"$batch"
for ((i = 0; i < 3000; i++)); do
	printf 'address del 10.99.%d.%d/32 dev lo\n' $((i / 250)) $((i % 250 + 1))
done >>"$batch"

pid=${NT_DPID[$IF_B]}
kill -STOP "$pid" || nt_fail "SIGSTOP"
ip -n "$NS_B" link set "$IF_B" down || nt_fail "link down"
ip -n "$NS_B" -batch "$batch" || { kill -CONT "$pid"; nt_fail "address events"; }
ip -n "$NS_B" link set "$IF_B" up || { kill -CONT "$pid"; nt_fail "link up"; }
kill -CONT "$pid" || nt_fail "SIGCONT"
sleep 0.5
nt_gone "$pid" && nt_fail "b's wgd died"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b after lost link events: b still thinks its link is down"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after lost link events"

# A quick down/up forgets the 5 s initiation rate limit with the sessions
# (as the kernel and wireguard-go do).  The first down/up makes b initiate
# (its sessions are gone); right after it, a second down/up must not wait
# out the 5 s since that initiation: the first ping gets through in 2 s.
ip -n "$NS_B" link set "$IF_B" down || nt_fail "link down (1)"
ip -n "$NS_B" link set "$IF_B" up || nt_fail "link up (1)"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after a down/up"
# (TAI64N timestamps have 2^24 ns granularity: an initiation within 17 ms
# of the last would be refused by a as a replay, here as by any peer.)
sleep 0.1
ip -n "$NS_B" link set "$IF_B" down || nt_fail "link down (2)"
ip -n "$NS_B" link set "$IF_B" up || nt_fail "link up (2)"
nt_x "$NS_B" ping -q -c 1 -W 2 198.51.100.1 >/dev/null 2>&1 ||
	nt_fail "ping b -> a within 2 s of a quick down/up: the initiation waited for the rate limit"
nt_ok "b resynchronised its link state after a netlink overrun; a quick down/up handshakes at once"
