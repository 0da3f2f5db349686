#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wgd -c FILE brings an interface up from a wg-quick file by itself: the
# addresses, MTU, link state and a route per allowed IP are there (ip -j);
# pings pass to the peer's tunnel address and to a network behind it.  A
# full-tunnel file (AllowedIPs 0.0.0.0/0, ::/0) gets wg-quick's policy rules
# and fwmark and carries traffic without its own datagrams entering the
# tunnel.  After SIGTERM, or the link's deletion, or the socket file's, the
# namespace's links, addresses, routes of every table, rules and
# src_valid_mark are exactly what they were before.
# Side b is wgd configured with wg, with 203.0.113.1 and 2001:db8:9::1 on its
# loopback behind it.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init cf
cf_pair
ip -n "$NS_B" addr add 203.0.113.1/32 dev lo &&
	ip -n "$NS_B" addr add 2001:db8:9::1/128 dev lo || nt_fail "the network behind b"

conf=$NT_TMP/$IF_A.conf
before=$(cf_snapshot "$NS_A")

# ---- split tunnel: addresses, MTU, routes ----
cf_write "$conf" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
ListenPort = $NT_PORT
Address = 198.51.100.1/24, fd00:2::1/64
MTU = 1380

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
Endpoint = 192.0.2.2:$NT_PORT
AllowedIPs = 198.51.100.2/32, fd00:2::2/128
AllowedIPs = 203.0.113.0/24, 2001:db8:9::/48
EOF
cf_start "$NS_A" "$IF_A" "$conf"
cf_json "$NS_A" addr show dev "$IF_A" '
a = {(x["local"], x["prefixlen"]) for x in d[0]["addr_info"]}
{("198.51.100.1", 24), ("fd00:2::1", 64)} <= a and d[0]["mtu"] == 1380 and "UP" in d[0]["flags"]' ||
	nt_fail "addresses, MTU 1380 and UP expected on $IF_A: $(ip -n "$NS_A" addr show dev "$IF_A")"
cf_json "$NS_A" -4 route show dev "$IF_A" 'any(r["dst"] == "203.0.113.0/24" for r in d)' ||
	nt_fail "no route 203.0.113.0/24 dev $IF_A: $(ip -n "$NS_A" -4 route show dev "$IF_A")"
cf_json "$NS_A" -6 route show dev "$IF_A" 'any(r["dst"] == "2001:db8:9::/48" for r in d)' ||
	nt_fail "no route 2001:db8:9::/48 dev $IF_A: $(ip -n "$NS_A" -6 route show dev "$IF_A")"
cf_json "$NS_A" -4 rule show 'len(d) == 3' || nt_fail "a split tunnel added policy rules"
nt_ok "wgd -c: addresses, MTU 1380, link up, routes per allowed IP"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b's tunnel address"
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 b's tunnel address"
nt_ping "$IF_A" 203.0.113.1 || nt_fail "ping the network behind b"
nt_ping "$IF_A" 2001:db8:9::1 -6 || nt_fail "ping6 the network behind b"
nt_ok "wgd -c: pings to b and behind it pass"
cf_stop "$IF_A"
cf_same_snapshot "$before" "$(cf_snapshot "$NS_A")" "split tunnel"
nt_ok "after SIGTERM: links, addresses, routes, rules as before"

# ---- full tunnel: wg-quick's rules and fwmark; no loop ----
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" remove &&
	nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,fd00:2::1/128 ||
	nt_fail "resetting b's peer"
cf_write "$conf" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
ListenPort = $NT_PORT
Address = 198.51.100.1/24, fd00:2::1/64

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
Endpoint = 192.0.2.2:$NT_PORT
AllowedIPs = 0.0.0.0/0, ::/0
EOF
cf_start "$NS_A" "$IF_A" "$conf"
mark=$(nt_wg "$IF_A" show "$IF_A" fwmark)
[ -n "$mark" ] && [ "$mark" != off ] || nt_fail "full tunnel: no fwmark on $IF_A"
table=$((mark))
for v in 4 6; do
	cf_json "$NS_A" -"$v" rule show "
m = any('not' in r and r.get('fwmark') == '$mark' and str(r.get('table')) == '$table' for r in d)
m and any(r.get('table') == 'main' and r.get('suppress_prefixlen') == 0 for r in d)" ||
		nt_fail "IPv$v: no 'not fwmark $mark table $table' and 'table main suppress_prefixlength 0' rules: $(ip -n "$NS_A" -"$v" rule show)"
	cf_json "$NS_A" -"$v" route show table "$table" "any(r['dst'] == 'default' and r['dev'] == '$IF_A' for r in d)" ||
		nt_fail "IPv$v: no default route dev $IF_A in table $table"
done
nt_ok "full tunnel: fwmark $mark, default routes in table $table, wg-quick's rules"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "full tunnel: ping b's tunnel address"
nt_ping "$IF_A" 203.0.113.1 || nt_fail "full tunnel: ping the network behind b"
nt_ping "$IF_A" 2001:db8:9::1 -6 || nt_fail "full tunnel: ping6 the network behind b"
# The daemon's datagrams left by the veth: had they been routed into the
# tunnel, no handshake would ever complete and the TUN would see them again.
[ "$(nt_handshake "$IF_A")" != 0 ] || nt_fail "full tunnel: no handshake"
nt_ok "full tunnel: traffic to b and behind it passes, no loop"
cf_stop "$IF_A"
cf_same_snapshot "$before" "$(cf_snapshot "$NS_A")" "full tunnel"
nt_ok "after SIGTERM: links, addresses, routes, rules, src_valid_mark as before"

# ---- the other ways out: the link deleted, the socket file removed ----
for how in "ip link del" "socket file removed"; do
	cf_start "$NS_A" "$IF_A" "$conf"
	if [ "$how" = "ip link del" ]; then
		ip -n "$NS_A" link del "$IF_A" || nt_fail "ip link del $IF_A"
	else
		rm "/var/run/wireguard/$IF_A.sock"
	fi
	pid=${NT_DPID[$IF_A]}
	nt_wait_gone "$pid" 5 || nt_fail "$how: wgd still running after 5 s"
	wait "$pid" || nt_fail "$how: wgd exited with status $?"
	unset "NT_DPID[$IF_A]"
	cf_same_snapshot "$before" "$(cf_snapshot "$NS_A")" "full tunnel, $how"
	nt_ok "full tunnel, $how: wgd gone, its rules and routes too"
done
echo "PASS"
