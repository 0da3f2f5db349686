#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Persistent keepalive (whitepaper section 6.5), wgd on side a: turned on
# while the interface is up, a keepalive leaves at once (as the kernel and
# wireguard-go do); then one every interval while the tunnel is otherwise
# idle; none after it is turned off.  A keepalive is a data message with an
# empty payload: 32 bytes of UDP payload, type 4, counted by nftables at b.

. "$(dirname "$0")/lib.sh"

nt_init ka
nt_need nft
nt_pair wgd wireguard-go
nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft counter"
table inet ntka {
	chain input {
		type filter hook input priority 0; policy accept;
		udp dport $NT_PORT udp length 40 @th,64,8 4 counter
	}
}
NFT
keepalives() {
	nt_x "$NS_B" nft list chain inet ntka input |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}
more_than() { [ "$(keepalives)" -gt "$1" ]; }

nt_endpoint "$IF_A" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b"
sleep 0.3
k0=$(keepalives)
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" persistent-keepalive 2 || nt_fail "wg set keepalive"
nt_until 1 more_than "$k0" || nt_fail "no keepalive within 1 s of turning persistent keepalive on"
nt_ok "a keepalive left at once"
k1=$(keepalives)
sleep 6.5
n=$(($(keepalives) - k1))
[ "$n" -ge 2 ] && [ "$n" -le 4 ] || nt_fail "$n keepalives in 6.5 idle seconds at a 2 s interval (expected 3)"
nt_ok "$n keepalives in 6.5 idle seconds at a 2 s interval"
[ "$(nt_wg "$IF_A" show "$IF_A" persistent-keepalive | awk '{ print $2 }')" = 2 ] ||
	nt_fail "persistent keepalive not reported"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" persistent-keepalive 0 || nt_fail "keepalive off"
sleep 0.5
k2=$(keepalives)
sleep 4.5
[ "$(keepalives)" = "$k2" ] || nt_fail "keepalives continue after persistent keepalive was turned off"
nt_ok "none after turning it off"
nt_gone "${NT_DPID[$IF_A]}" && nt_fail "wgd died"
echo "PASS"
