#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Allowed IPs as a source filter (whitepaper section 2, cryptokey routing):
# a packet that decrypts correctly but whose inner source address is not
# among the sending peer's allowed IPs is dropped by the receiver, IPv4 and
# IPv6.  The receiver is wgd; the sender once wireguard-go, once wgd.  Proof
# of arrival is an nftables counter on the receiver's host; proof of non-delivery is its
# TUN receive counter and the missing echo reply.  Also: the receiver drops
# packets it has no peer for (unroutable) and sends nothing.  Transfer
# counters count only what was delivered, and only what the host sent.

. "$(dirname "$0")/lib.sh"

nt_init sf
nt_need nft

# udp_in: WireGuard datagrams that reached b's host (an nftables counter).
udp_in() {
	nt_x "$NS_B" nft list chain inet ntcount input |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

# refused FAMILY SRC DST
refused() {
	local fam=$1 src=$2 dst=$3 tun0 veth0 tun1 veth1 rx0 rx1
	tun0=$(nt_rx_packets "$IF_B")
	veth0=$(udp_in)
	rx0=$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 6)
	nt_noping "$IF_A" "$dst" "-$fam" -I "$src" || nt_fail "b answered a ping from $src (not allowed)"
	tun1=$(nt_rx_packets "$IF_B")
	veth1=$(udp_in)
	rx1=$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 6)
	[ $((veth1 - veth0)) -ge 3 ] || nt_fail "the pings from $src did not reach b at all ($veth0 -> $veth1)"
	[ "$tun1" = "$tun0" ] || nt_fail "b delivered $((tun1 - tun0)) packets from $src to its TUN"
	# The kernel counts received bytes only for what it delivers.
	[ "$rx1" = "$rx0" ] || nt_fail "b counted $((rx1 - rx0)) received bytes for packets it refused"
	nt_ok "from $src: $((veth1 - veth0)) datagrams reached b, 0 delivered, no reply"
}

# allowed FAMILY SRC DST: the positive control, same path.
allowed() {
	local tun0
	tun0=$(nt_rx_packets "$IF_B")
	nt_ping "$IF_A" "$3" "-$1" -I "$2" || nt_fail "ping from the allowed $2 failed"
	[ "$(nt_rx_packets "$IF_B")" -gt "$tun0" ] || nt_fail "allowed ping not counted on b's TUN"
}

round() {
	nt_log "-- $1 sends to wgd"
	nt_pair "$1" wgd
	nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft counter"
	table inet ntcount {
		chain input {
			type filter hook input priority 0; policy accept;
			udp dport $NT_PORT counter
		}
	}
	NFT
	nt_endpoint "$IF_A" 4
	ip -n "$NS_A" addr add 198.51.100.77/32 dev "$IF_A" || nt_fail "extra address"
	ip -n "$NS_A" addr add fd00:2::77/128 dev "$IF_A" nodad || nt_fail "extra IPv6 address"
	allowed 4 198.51.100.1 198.51.100.2
	allowed 6 fd00:2::1 fd00:2::2
	refused 4 198.51.100.77 198.51.100.2
	refused 6 fd00:2::77 fd00:2::2
	allowed 4 198.51.100.1 198.51.100.2
	nt_ok "the session survives refused packets"

	# b has no peer for 198.51.100.50: nothing may leave b.
	local tx0
	tx0=$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 7)
	nt_noping "$IF_B" 198.51.100.50 || nt_fail "a reply from an address nobody has"
	[ "$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 7)" = "$tx0" ] ||
		nt_fail "b sent something for an unroutable destination"
	nt_ok "unroutable destination: dropped, nothing sent"

	# b's datagrams refused by its own host (an nftables drop in the output
	# hook makes sendmmsg fail): nothing was sent, so nothing is counted.
	nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft output drop"
	table inet ntdrop {
		chain output {
			type filter hook output priority 0; policy accept;
			udp sport $NT_PORT drop
		}
	}
	NFT
	tx0=$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 7)
	nt_noping "$IF_B" 198.51.100.1 || nt_fail "a ping got through an output drop"
	[ "$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 7)" = "$tx0" ] ||
		nt_fail "b counted bytes as sent that its host refused to send"
	nt_x "$NS_B" nft delete table inet ntdrop || nt_fail "nft delete"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "no ping once the drop is gone"
	[ "$(nt_field "$IF_B" "${NT_PUB[$IF_A]}" 7)" -gt "$tx0" ] || nt_fail "sent bytes not counted"
	nt_ok "failed sends: not counted as sent"
	nt_gone "${NT_DPID[$IF_B]}" && nt_fail "wgd died"
	nt_teardown
}

round wireguard-go
round wgd
echo "PASS"
