#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# IPv6 replies keep the sticky source address, not the arrival interface
# (doc/protocol.md §9; the kernel's WireGuard sets only the source and lets
# the route choose the way out).  b has two links to a: the standard veth
# and a second one (fd00:3::/64).  a's datagrams come to b's address on the
# second link; b's route back to a's address there goes over the first link
# (two routes of equal metric, one per link).  b's replies must leave by the route (the first
# link), from the address a sent to (fd00:3::2), and the tunnel works.

. "$(dirname "$0")/lib.sh"

nt_init s6
nt_need nft
nt_pair wgd wgd
V2A=$(nt_name w a)
V2B=$(nt_name w b)
ip link add "$V2A" netns "$NS_A" type veth peer name "$V2B" netns "$NS_B" || nt_fail "second veth pair"
ip -n "$NS_A" addr add fd00:3::1/64 dev "$V2A" nodad || nt_fail "address on a's second link"
ip -n "$NS_B" addr add fd00:3::2/64 dev "$V2B" nodad || nt_fail "address on b's second link"
ip -n "$NS_A" link set "$V2A" up
ip -n "$NS_B" link set "$V2B" up
nt_until "$NT_TIMEOUT" nt_x "$NS_A" ping -6 -c 1 -W 1 fd00:3::2 || nt_fail "the second link does not work"
# b reaches a's second-link address over the first link: that route first,
# then one of the same prefix and metric over the second link, which only an
# outgoing interface given with the datagram picks (the kernel's route
# scoring prefers a route over that interface among equal ones)
ip -n "$NS_B" -6 route add fd00:3::1/128 via fd00:1::1 dev "$VETH_B" metric 100 || nt_fail "b's route back"
ip -n "$NS_B" -6 route append fd00:3::1/128 dev "$V2B" metric 100 || nt_fail "b's second route back"
ip -n "$NS_B" -6 route get fd00:3::1 | grep -q "dev $VETH_B" || nt_fail "b's kernel does not route a's address over the first link"
nt_x "$NS_B" nft -f - <<NFT || nt_fail "nft counters on b"
table inet s6 {
	counter first {}
	counter second {}
	chain out {
		type filter hook output priority 0; policy accept;
		oifname "$VETH_B" ip6 saddr fd00:3::2 udp sport $NT_PORT counter name first
		oifname "$V2B" udp sport $NT_PORT counter name second
	}
}
NFT
# counter NAME: its packets.
counter() {
	nt_x "$NS_B" nft list counter inet s6 "$1" | awk '/packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" endpoint "[fd00:3::2]:$NT_PORT" || nt_fail "a's endpoint"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping through the tunnel"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping from b through the tunnel"
[ "$(nt_endpoint_of "$IF_B")" = "[fd00:3::1]:$NT_PORT" ] || nt_fail "b learned $(nt_endpoint_of "$IF_B")"
first=$(counter first)
second=$(counter second)
[ "$second" = 0 ] || nt_fail "b sent $second datagrams out of the interface they arrived on, against its route"
[ "$first" -ge 2 ] || nt_fail "b's replies did not leave by the route from fd00:3::2 ($first)"
nt_ok "b's IPv6 replies: from fd00:3::2 by the route ($first datagrams), none pinned to the arrival link"
nt_gone "${NT_DPID[$IF_B]}" && nt_fail "wgd died"
echo "PASS"
