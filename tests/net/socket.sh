#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What wgd does with its UDP sockets, seen from outside:
# - replies leave from the address the peer's packet arrived on: b (wgd)
#   has two addresses, a (wireguard-go, which roams to the source of every
#   authenticated packet) talks to the one the kernel would not choose as
#   source and must keep it as its endpoint, over IPv4 and IPv6;
# - fwmark: every datagram wgd sends carries the mark (an nftables counter
#   in wgd's namespace), and stops carrying it once the mark is turned off;
# - listen-port 0: a random port is bound, reported by wg, and used;
# - a namespace with IPv6 disabled: wgd starts and the tunnel works over IPv4.

. "$(dirname "$0")/lib.sh"

nt_init so
nt_need nft ss

counter() {	# counter NS TABLE CHAIN: packets counted by the chain's rule
	nt_x "$1" nft list chain inet "$2" "$3" |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

nt_log "-- reply source address"
nt_pair wireguard-go wgd
ip -n "$NS_B" addr add 192.0.2.3/24 dev "$VETH_B" || nt_fail "second IPv4 address"
ip -n "$NS_B" addr add fd00:1::3/64 dev "$VETH_B" nodad || nt_fail "second IPv6 address"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" endpoint 192.0.2.3:$NT_PORT || nt_fail "endpoint"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping to b's second address"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping from b"
ep=$(nt_endpoint_of "$IF_A")
[ "$ep" = "192.0.2.3:$NT_PORT" ] || nt_fail "wgd answered from another address: a's endpoint became $ep"
# The kernel's own choice of source is the primary IPv4 address (192.0.2.2)
# but the newest IPv6 one (fd00:1::3): the endpoints are the other ones.
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" endpoint "[fd00:1::2]:$NT_PORT" || nt_fail "endpoint6"
[ "$(nt_x "$NS_B" ip -6 route get fd00:1::1 | grep -o 'src [^ ]*')" = "src fd00:1::3" ] ||
	nt_fail "the kernel's IPv6 source choice is not the one this test assumes"
[ "$(nt_x "$NS_B" ip -4 route get 192.0.2.1 | grep -o 'src [^ ]*')" = "src 192.0.2.2" ] ||
	nt_fail "the kernel's IPv4 source choice is not the one this test assumes"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping to b's first IPv6 address"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping from b over IPv6"
ep=$(nt_endpoint_of "$IF_A")
[ "$ep" = "[fd00:1::2]:$NT_PORT" ] || nt_fail "wgd answered from another IPv6 address: a's endpoint became $ep"
nt_ok "wgd replies from the address it was reached at (192.0.2.3, fd00:1::2)"

nt_log "-- fwmark"
nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft counters"
table inet ntmark {
	chain output {
		type filter hook output priority 0; policy accept;
		udp sport $NT_PORT meta mark 0x00001234 counter
		udp sport $NT_PORT meta mark 0 counter
	}
}
NFT
marked() { counter "$NS_B" ntmark output | sed -n 1p; }
unmarked() { counter "$NS_B" ntmark output | sed -n 2p; }
nt_wg "$IF_B" set "$IF_B" fwmark 0x1234 || nt_fail "wg set fwmark"
[ "$(nt_wg "$IF_B" show "$IF_B" fwmark)" = 0x1234 ] || nt_fail "fwmark not reported"
u0=$(unmarked)
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping with fwmark set"
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 with fwmark set"
[ "$(marked)" -ge 2 ] || nt_fail "wgd's datagrams do not carry fwmark 0x1234 ($(marked) marked)"
[ "$(unmarked)" = "$u0" ] || nt_fail "some of wgd's datagrams left without the mark"
nt_wg "$IF_B" set "$IF_B" fwmark 0 || nt_fail "wg set fwmark 0"
[ "$(nt_wg "$IF_B" show "$IF_B" fwmark)" = off ] || nt_fail "fwmark still reported after 0"
m0=$(marked)
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping after fwmark off"
[ "$(marked)" = "$m0" ] || nt_fail "datagrams still marked after fwmark off"
nt_ok "fwmark 0x1234 on every datagram wgd sends; none once turned off"

nt_log "-- listen-port 0"
nt_wg "$IF_B" set "$IF_B" listen-port 0 || nt_fail "wg set listen-port 0"
port=$(nt_wg "$IF_B" show "$IF_B" listen-port)
[ -n "$port" ] && [ "$port" != 0 ] || nt_fail "no random port reported ('$port')"
nt_x "$NS_B" ss -ulnH "sport = :$port" | grep -q . || nt_fail "reported port $port is not bound"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" endpoint "192.0.2.2:$port" || nt_fail "endpoint"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping to the random port $port"
nt_ok "listen-port 0: bound and reported port $port, traffic flows"
nt_teardown

nt_log "-- IPv6 disabled"
nt_topo
nt_x "$NS_A" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 \
	"net.ipv6.conf.$VETH_A.disable_ipv6=1" net.ipv6.conf.lo.disable_ipv6=1 || nt_fail "sysctl"
IF_A=$(nt_name wg a)
IF_B=$(nt_name wg b)
nt_daemon "$NS_A" "$IF_A" wgd
nt_daemon "$NS_B" "$IF_B" wireguard-go
nt_keys "$IF_A"
nt_keys "$IF_B"
nt_wg "$IF_A" set "$IF_A" private-key "${NT_PRIV[$IF_A]}" listen-port "$NT_PORT" || nt_fail "wg set a"
nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" || nt_fail "wg set b"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" allowed-ips 198.51.100.2/32 endpoint 192.0.2.2:$NT_PORT ||
	nt_fail "peer on a"
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32 || nt_fail "peer on b"
ip -n "$NS_A" addr add 198.51.100.1/24 dev "$IF_A" && ip -n "$NS_A" link set "$IF_A" up ||
	nt_fail "a up"
ip -n "$NS_B" addr add 198.51.100.2/24 dev "$IF_B" && ip -n "$NS_B" link set "$IF_B" up ||
	nt_fail "b up"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping from wgd in a namespace without IPv6"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping to wgd in a namespace without IPv6"
nt_ok "IPv6 disabled: wgd starts and the tunnel works over IPv4"
nt_gone "${NT_DPID[$IF_A]}" && nt_fail "wgd died"
echo "PASS"
