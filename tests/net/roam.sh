#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Roaming (whitepaper section 2.1): side a changes its outer address and its
# listen port; traffic continues and side b learns a's new endpoint from the
# first authenticated packet.  Twice: wgd roaming to wgd, and wireguard-go
# roaming to wgd (b, the side that must learn, is wgd both times).  Over
# IPv4 (new address and port) and then IPv6 (new address).

. "$(dirname "$0")/lib.sh"

nt_init ro

# expect_endpoint IF WANT
expect_endpoint() {
	local got
	got=$(nt_endpoint_of "$1")
	[ "$got" = "$2" ] || nt_fail "$1 has endpoint '$got', expected '$2'"
}

both_ways() {
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b $1"
	nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 a -> b $1"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a $1"
	nt_ping "$IF_B" fd00:2::1 -6 || nt_fail "ping6 b -> a $1"
}

round() {
	local role_a=$1
	nt_log "-- $role_a roams, wgd follows"
	nt_pair "$role_a" wgd
	nt_endpoint "$IF_A" 4
	both_ways "before roaming"
	expect_endpoint "$IF_B" "192.0.2.1:$NT_PORT"

	# New IPv4 address (the old one is removed; the new one takes over as
	# primary) and a new port.
	nt_x "$NS_A" sysctl -qw "net.ipv4.conf.$VETH_A.promote_secondaries=1" || nt_fail sysctl
	ip -n "$NS_A" addr add 192.0.2.11/24 dev "$VETH_A" || nt_fail "new address"
	ip -n "$NS_A" addr del 192.0.2.1/24 dev "$VETH_A" || nt_fail "old address"
	nt_wg "$IF_A" set "$IF_A" listen-port 51830 || nt_fail "new listen port"
	[ "$(nt_wg "$IF_A" show "$IF_A" listen-port)" = 51830 ] || nt_fail "listen port not 51830"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b from the new address and port"
	expect_endpoint "$IF_B" "192.0.2.11:51830"
	both_ways "after roaming over IPv4"
	nt_ok "$role_a moved to 192.0.2.11:51830, b learned it, traffic continues"

	# Over IPv6: a talks to b's IPv6 address, then changes its own.
	nt_endpoint "$IF_A" 6
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b over outer IPv6"
	expect_endpoint "$IF_B" "[fd00:1::1]:51830"
	ip -n "$NS_A" addr add fd00:1::11/64 dev "$VETH_A" nodad || nt_fail "new IPv6 address"
	ip -n "$NS_A" addr del fd00:1::1/64 dev "$VETH_A" || nt_fail "old IPv6 address"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b from the new IPv6 address"
	expect_endpoint "$IF_B" "[fd00:1::11]:51830"
	both_ways "after roaming over IPv6"
	nt_ok "$role_a moved to [fd00:1::11]:51830, b learned it, traffic continues"
	for i in "$IF_A" "$IF_B"; do
		nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died"
	done
	nt_teardown
}

round wgd
round wireguard-go
echo "PASS"
