#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# ECN and DSCP across the tunnel (RFC 6040, normal mode; doc/protocol.md
# §11), end to end through the kernel: two wgd, over outer IPv4 and IPv6.
#   - out: the inner packet's ECN field is copied to the outer header (an
#     nftables counter on a's output matches the outer ECN field); handshake
#     messages leave marked AF41 (DSCP 34).
#   - in: a congested router on the way (an nftables rule in b's prerouting
#     setting CE in the outer header of every datagram) marks the inner
#     packet CE when it is ECN-capable (counted on b's tunnel interface), and
#     the packet is dropped when it is not (RFC 6040 §4.2: the mark must not
#     be lost): the ping fails, and passes again once the marking stops.

. "$(dirname "$0")/lib.sh"

nt_init ec
nt_need nft ping

# count NS TABLE: "NAME PACKETS" of every named counter of the table.
count() {
	nt_x "$1" nft list counters table inet "$2" |
		awk '/counter / { name = $2 } /packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print name, $(i + 1) }'
}
# counter NS TABLE NAME: its packets.
counter() { count "$1" "$2" | awk -v n="$3" '$1 == n { print $2 }'; }

nt_pair wgd wgd
nt_x "$NS_A" nft -f - <<NFT || nt_fail "nft counters on a"
table inet ecnout {
	counter hs4 {}
	counter hs6 {}
	counter ect0 {}
	counter ect1 {}
	counter ce {}
	counter notect {}
	chain out {
		type filter hook output priority 0; policy accept;
		udp dport $NT_PORT udp length 156 ip dscp af41 counter name hs4
		udp dport $NT_PORT udp length 156 ip6 dscp af41 counter name hs6
		udp dport $NT_PORT udp length > 100 ip ecn ect0 counter name ect0
		udp dport $NT_PORT udp length > 100 ip6 ecn ect0 counter name ect0
		udp dport $NT_PORT udp length > 100 ip ecn ect1 counter name ect1
		udp dport $NT_PORT udp length > 100 ip6 ecn ect1 counter name ect1
		udp dport $NT_PORT udp length > 100 ip ecn ce counter name ce
		udp dport $NT_PORT udp length > 100 ip6 ecn ce counter name ce
		udp dport $NT_PORT udp length > 100 ip ecn not-ect counter name notect
		udp dport $NT_PORT udp length > 100 ip6 ecn not-ect counter name notect
	}
}
NFT
nt_x "$NS_B" nft -f - <<NFT || nt_fail "nft counters on b"
table inet ecnin {
	counter ce4 {}
	counter ce6 {}
	chain in {
		type filter hook input priority 0; policy accept;
		iifname "$IF_B" ip ecn ce icmp type echo-request counter name ce4
		iifname "$IF_B" ip6 ecn ce icmpv6 type echo-request counter name ce6
	}
}
NFT

# copied TOS NAME FAMILY: a ping with inner TOS from a raises a's counter NAME.
copied() {
	local before after
	before=$(counter "$NS_A" ecnout "$3")
	nt_ping "$IF_A" "$(nt_inner "$IF_B" "$2")" "-$2" -Q "$1" || nt_fail "ping with TOS $1 over IPv$2"
	after=$(counter "$NS_A" ecnout "$3")
	[ "$after" -gt "$before" ] || nt_fail "inner TOS $1 (IPv$2): no outer datagram with ECN $3 ($before -> $after)"
}

for fam in 4 6; do
	nt_peers_reset
	nt_endpoint "$IF_A" "$fam"
	nt_ping "$IF_A" "$(nt_inner "$IF_B" 4)" || nt_fail "first ping over outer IPv$fam"
	[ "$(counter "$NS_A" ecnout "hs$fam")" -ge 1 ] || nt_fail "no AF41 handshake initiation over IPv$fam"
	for inner in 4 6; do
		copied 0x02 "$inner" ect0
		copied 0x01 "$inner" ect1
		copied 0xb8 "$inner" notect
		copied 0xbb "$inner" ce
	done
	nt_ok "outer IPv$fam: handshake AF41; inner ECN fields ECT(0), ECT(1), Not-ECT, CE copied out"
done

nt_x "$NS_B" nft -f - <<NFT || nt_fail "nft CE marking on b"
table inet ecnmark {
	chain pre {
		type filter hook prerouting priority -300; policy accept;
		udp dport $NT_PORT ip ecn set ce
		udp dport $NT_PORT ip6 ecn set ce
	}
}
NFT
for fam in 4 6; do
	nt_endpoint "$IF_A" "$fam"
	for inner in 4 6; do
		before=$(counter "$NS_B" ecnin "ce$inner")
		nt_ping "$IF_A" "$(nt_inner "$IF_B" "$inner")" "-$inner" -Q 0x02 ||
			nt_fail "ECT(0) ping under outer CE (outer IPv$fam, inner IPv$inner)"
		after=$(counter "$NS_B" ecnin "ce$inner")
		[ "$after" -gt "$before" ] ||
			nt_fail "outer IPv$fam CE: the inner IPv$inner packet arrived without CE ($before -> $after)"
		nt_noping "$IF_A" "$(nt_inner "$IF_B" "$inner")" "-$inner" ||
			nt_fail "a Not-ECT inner IPv$inner packet under outer IPv$fam CE was delivered"
	done
	nt_ok "outer IPv$fam CE: carried into ECN-capable inner packets, Not-ECT ones dropped"
done
nt_x "$NS_B" nft delete table inet ecnmark || nt_fail "nft delete"
nt_ping "$IF_A" "$(nt_inner "$IF_B" 4)" || nt_fail "Not-ECT ping once the marking stopped"
nt_gone "${NT_DPID[$IF_B]}" && nt_fail "wgd died"
echo "PASS"
