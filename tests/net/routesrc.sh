#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The sticky source address follows route changes, wgd <-> wgd.  Side a has
# two outer addresses of each family; its datagrams to b leave from the
# first (the kernel's choice) and a caches it.  Then a route towards b with
# the other address as preferred source appears: a more specific one, then
# a replaced one, then it is deleted again (RTM_NEWROUTE, RTM_DELROUTE);
# each time b must see a's datagrams arrive from the address the kernel now
# prefers (b's endpoint for a follows, whitepaper section 2.1) within 3 s of
# traffic.  Over IPv4 and IPv6.  Last, a route out of a's own WireGuard
# interface leaves a sticky source alone.

. "$(dirname "$0")/lib.sh"

nt_init rs
nt_pair wgd wgd
ip -n "$NS_A" addr add 192.0.2.21/24 dev "$VETH_A" || nt_fail "second IPv4 address"
ip -n "$NS_A" addr add fd00:1::21/64 dev "$VETH_A" nodad || nt_fail "second IPv6 address"
nt_endpoint "$IF_A" 4

# b_sees ADDR DST: a sends (one ping through the tunnel to DST) and b's
# endpoint for a is ADDR:port.
b_sees() {
	nt_x "$NS_A" ping -q -c 1 -W 1 "$2" >/dev/null 2>&1
	[ "$(nt_endpoint_of "$IF_B")" = "$(nt_endpoint_str "$1" "$NT_PORT")" ]
}

# expect ADDR DST WHAT
expect() {
	local t0 ms
	t0=$(date +%s%N)
	nt_until 3 b_sees "$1" "$2" ||
		nt_fail "$3: b sees a at $(nt_endpoint_of "$IF_B"), expected $(nt_endpoint_str "$1" "$NT_PORT")"
	ms=$((($(date +%s%N) - t0) / 1000000))
	nt_ok "$3: b sees a's datagrams from $1 (after $ms ms)"
}

# kernel_src FAMILY DST: the source address a's kernel picks towards DST.
kernel_src() {
	ip -n "$NS_A" -"$1" route get "$2" | sed -n 's/.* src \([^ ]*\).*/\1/p'
}

family() {
	local f=$1 peer first second dst
	if [ "$f" = 6 ]; then
		peer=fd00:1::2 first=fd00:1::1 second=fd00:1::21 dst=fd00:2::2
	else
		peer=192.0.2.2 first=192.0.2.1 second=192.0.2.21 dst=198.51.100.2
	fi
	# "first" is the one the kernel prefers now (for IPv6 the newer one)
	if [ "$(kernel_src "$f" "$peer")" = "$second" ]; then
		second=$first
		first=$(kernel_src "$f" "$peer")
	fi
	[ "$(kernel_src "$f" "$peer")" = "$first" ] || nt_fail "IPv$f: the kernel prefers neither address"
	nt_log "-- IPv$f"
	nt_endpoint "$IF_A" "$f"
	expect "$first" "$dst" "IPv$f, before any route change"
	ip -n "$NS_A" -"$f" route add "$peer" dev "$VETH_A" src "$second" ||
		nt_fail "more specific route with src $second"
	expect "$second" "$dst" "IPv$f, a more specific route with src $second"
	ip -n "$NS_A" -"$f" route replace "$peer" dev "$VETH_A" src "$first" ||
		nt_fail "route replace with src $first"
	expect "$first" "$dst" "IPv$f, the route replaced with src $first"
	ip -n "$NS_A" -"$f" route replace "$peer" dev "$VETH_A" src "$second" ||
		nt_fail "route replace with src $second"
	expect "$second" "$dst" "IPv$f, the route replaced with src $second"
	ip -n "$NS_A" -"$f" route del "$peer" dev "$VETH_A" || nt_fail "route del"
	expect "$first" "$dst" "IPv$f, the route deleted"
}

family 4
family 6

# Sticky still: b talks to a's address that the kernel does not prefer, so a
# answers from it; a route out of a's own WireGuard interface (as wg-quick
# adds for allowed IPs) cannot be a route to b and must not undo that.
nt_log "-- a route out of the WireGuard interface"
# Link-local addresses finishing duplicate address detection add routes
# (through the veth too) that rightly make a forget its sources: let them
# all be done first.
settled() { [ -z "$(ip -n "$NS_A" -6 addr show tentative)" ]; }
nt_until 5 settled || nt_fail "a's IPv6 addresses are still tentative after 5 s"
sleep 0.2
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" endpoint "192.0.2.21:$NT_PORT" || nt_fail "b's endpoint"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a's second address"
b_sees 192.0.2.21 198.51.100.2 || nt_fail "a does not answer from the address b talks to"
ip -n "$NS_A" route add 10.98.0.0/16 dev "$IF_A" || nt_fail "route via $IF_A"
for ((i = 0; i < 5; i++)); do
	b_sees 192.0.2.21 198.51.100.2 ||
		nt_fail "after a route out of $IF_A, b sees a at $(nt_endpoint_of "$IF_B"), expected 192.0.2.21:$NT_PORT"
	sleep 0.1
done
nt_ok "a route out of $IF_A leaves the source b talks to in place"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a at the end"
for i in "$IF_A" "$IF_B"; do
	nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died"
done
echo "PASS"
