#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Cryptokey routing with several peers (whitepaper section 2): a hub (wgd)
# and three spokes (wgd, wireguard-go, wgd), each spoke in its own namespace
# on its own veth.  The spokes' allowed IPs nest (10.0.0.0/8, 10.1.0.0/16,
# 10.1.2.0/24), so only the longest match delivers: each spoke alone owns an
# address in its range and answers pings to it.  With forwarding on, the
# hub relays spoke-to-spoke traffic.  Finally a prefix given to another peer
# moves to it (the kernel's and wireguard-go's semantics): traffic follows.

. "$(dirname "$0")/lib.sh"

nt_init hb
HUB_NS=$(nt_name "" h)
HUB=$(nt_name wg h)
nt_netns "$HUB_NS"
nt_daemon "$HUB_NS" "$HUB" wgd
nt_keys "$HUB"
nt_wg "$HUB" set "$HUB" private-key "${NT_PRIV[$HUB]}" listen-port "$NT_PORT" || nt_fail "hub keys"
ip -n "$HUB_NS" link set "$HUB" mtu "$NT_MTU" up || nt_fail "hub up"
ip -n "$HUB_NS" addr add 198.51.100.1/24 dev "$HUB" || nt_fail "hub address"
nt_x "$HUB_NS" sysctl -qw net.ipv4.ip_forward=1 || nt_fail "forwarding"

declare -A SPOKE_IF OWN
OWN[1]=10.0.0.1
OWN[2]=10.1.0.1
OWN[3]=10.1.2.1
RANGE=([1]=10.0.0.0/8 [2]=10.1.0.0/16 [3]=10.1.2.0/24)
ROLE=([1]=wgd [2]=wireguard-go [3]=wgd)

for i in 1 2 3; do
	ns=$(nt_name "" "s$i")
	ifc=$(nt_name wg "s$i")
	veth_h=$(nt_name v "h$i")
	veth_s=$(nt_name v "s$i")
	SPOKE_IF[$i]=$ifc
	nt_netns "$ns"
	ip link add "$veth_h" netns "$HUB_NS" type veth peer name "$veth_s" netns "$ns" || nt_fail "veth $i"
	ip -n "$HUB_NS" addr add "192.0.2.$((4 * i + 1))/30" dev "$veth_h"
	ip -n "$ns" addr add "192.0.2.$((4 * i + 2))/30" dev "$veth_s"
	ip -n "$HUB_NS" link set "$veth_h" up
	ip -n "$ns" link set "$veth_s" up
	nt_daemon "$ns" "$ifc" "${ROLE[$i]}"
	nt_keys "$ifc"
	nt_wg "$ifc" set "$ifc" private-key "${NT_PRIV[$ifc]}" listen-port "$NT_PORT" \
		peer "${NT_PUB[$HUB]}" allowed-ips 198.51.100.0/24 \
		endpoint "192.0.2.$((4 * i + 1)):$NT_PORT" persistent-keepalive 1 || nt_fail "spoke $i"
	ip -n "$ns" link set "$ifc" mtu "$NT_MTU" up || nt_fail "spoke $i up"
	ip -n "$ns" addr add "198.51.100.$((10 + i))/24" dev "$ifc" || nt_fail "spoke $i address"
	ip -n "$ns" addr add "${OWN[$i]}/32" dev "$ifc" || nt_fail "spoke $i own address"
	nt_wg "$HUB" set "$HUB" peer "${NT_PUB[$ifc]}" \
		allowed-ips "198.51.100.$((10 + i))/32,${RANGE[$i]}" || nt_fail "hub peer $i"
done
ip -n "$HUB_NS" route add 10.0.0.0/8 dev "$HUB" || nt_fail "hub route"

for i in 1 2 3; do
	nt_ping "$HUB" "${OWN[$i]}" || nt_fail "hub -> ${OWN[$i]} (${RANGE[$i]}, spoke $i ${ROLE[$i]})"
	nt_ping "$HUB" "198.51.100.$((10 + i))" || nt_fail "hub -> spoke $i inner address"
done
nt_ok "longest match: 10.0.0.1 -> spoke 1 (/8), 10.1.0.1 -> spoke 2 (/16), 10.1.2.1 -> spoke 3 (/24)"

for i in 1 2 3; do
	for j in 1 2 3; do
		[ "$i" = "$j" ] && continue
		nt_ping "${SPOKE_IF[$i]}" "198.51.100.$((10 + j))" ||
			nt_fail "spoke $i -> spoke $j through the hub"
	done
done
nt_ok "the hub relays between every pair of spokes"

# 10.1.2.0/24 given to spoke 2 moves from spoke 3 to spoke 2.
nt_wg "$HUB" set "$HUB" peer "${NT_PUB[${SPOKE_IF[2]}]}" \
	allowed-ips "198.51.100.12/32,10.1.0.0/16,10.1.2.0/24" || nt_fail "moving a prefix"
shows=$(nt_wg "$HUB" show "$HUB" allowed-ips)
grep -F "${NT_PUB[${SPOKE_IF[2]}]}" <<<"$shows" | grep -q '10\.1\.2\.0/24' ||
	nt_fail "10.1.2.0/24 not listed for spoke 2: $shows"
grep -F "${NT_PUB[${SPOKE_IF[3]}]}" <<<"$shows" | grep -q '10\.1\.2\.0/24' &&
	nt_fail "10.1.2.0/24 still listed for spoke 3: $shows"
nt_noping "$HUB" 10.1.2.1 || nt_fail "10.1.2.1 still reaches spoke 3 after the prefix moved"
nt_ping "$HUB" 198.51.100.13 || nt_fail "spoke 3 lost its own address"
nt_ok "a prefix given to another peer moved; traffic follows"
for ifc in "$HUB" "${SPOKE_IF[@]}"; do
	nt_gone "${NT_DPID[$ifc]}" && nt_fail "$ifc's daemon died"
done
echo "PASS"
