#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Jumbo frames: veths with MTU 9000 and the tunnel MTU wg-quick derives from
# them (9000 - 80 = 8920), so inner packets are far larger than the 2048-byte
# slots of wgd's batches and must take its oversize path.  wgd against wgd,
# then against Debian's wireguard-go, each over outer IPv4 and then outer
# IPv6, on a fresh session each time:
#   - the very first packet is an 8828-byte ping with DF set, sent before any
#     handshake: it is staged and must go out once the session exists;
#   - 8800-byte and exactly MTU-sized pings with DF both ways, IPv4 and IPv6
#     inner;
#   - iperf3 TCP both ways (MSS ~8880: wgd's TUN hands it TSO super-packets
#     whose segments are larger than a slot).
# Then an asymmetric pair: side a MTU 8920, side b 1420; a pings b with 8800
# bytes, so b must take datagrams much larger than its own MTU (the kernel's
# WireGuard and wireguard-go do) and its fragmented answer must come back.
# At the end each wgd's exit statistics must show no packet dropped as
# malformed or too large (tx) and no invalid or truncated datagram (rx).
# That b loses none assumes UDP GRO (Linux >= 5.0), which gives every receive
# a 64 KiB buffer; without it b loses the first such datagram (counted), then
# switches to 64 KiB buffers.

. "$(dirname "$0")/lib.sh"

nt_init jb
nt_need iperf3 ss
NT_MTU=8920
OUTER_MTU=9000
PING=8800

nt_veth_mtu() {
	ip -n "$NS_A" link set "$VETH_A" mtu "$OUTER_MTU" || nt_fail "veth mtu a"
	ip -n "$NS_B" link set "$VETH_B" mtu "$OUTER_MTU" || nt_fail "veth mtu b"
}

# stats_clean IF: the daemon's exit statistics (logged at SIGTERM, info
# level) count nothing malformed or oversize on send and nothing invalid on
# receive.  The daemon must have been stopped (nt_teardown) first.
stats_clean() {
	local log=$NT_TMP/$1.$((NT_RUN - 1)).log line
	line=$(grep 'dropped on send:' "$log") || nt_fail "$1: no send statistics in its log"
	case "$line" in
	*" 0 malformed,"*) ;;
	*) nt_fail "$1 dropped packets on send: $line" ;;
	esac
	line=$(grep 'dropped on receive:' "$log") || nt_fail "$1: no receive statistics in its log"
	case "$line" in
	*"dropped on receive: 0 invalid,"*) ;;
	*) nt_fail "$1 dropped datagrams on receive: $line" ;;
	esac
	nt_ok "$1: nothing dropped as malformed, oversize or truncated"
}

# big_pings FROM: 8800-byte and MTU-sized pings with DF, IPv4 and IPv6 inner.
big_pings() {
	local from=$1 to
	to=$(nt_other "$from")
	nt_ping "$from" "$(nt_inner "$to" 4)" -M "do" -s "$PING" ||
		nt_fail "IPv4 ping -s $PING $from -> $to"
	nt_ping "$from" "$(nt_inner "$to" 6)" -6 -M "do" -s "$PING" ||
		nt_fail "IPv6 ping -s $PING $from -> $to"
	nt_ping "$from" "$(nt_inner "$to" 4)" -M "do" -s $((NT_MTU - 28)) ||
		nt_fail "full-MTU ($NT_MTU) IPv4 ping $from -> $to"
	nt_ping "$from" "$(nt_inner "$to" 6)" -6 -M "do" -s $((NT_MTU - 48)) ||
		nt_fail "full-MTU ($NT_MTU) IPv6 ping $from -> $to"
}

# round FAM: a fresh session over outer FAM, started by an oversize packet.
round() {
	local fam=$1 inner=4 fwd rev
	[ "$fam" = 6 ] && inner=6
	[ "$(nt_handshake "$IF_A")" = 0 ] || nt_fail "$IF_A has a handshake before the round"
	nt_endpoint "$IF_A" "$fam"
	# One try only: the echo request itself must be staged and sent after
	# the handshake, not dropped and retried by a second ping.
	nt_x "$NS_A" ping -q -c 1 -W 8 -M "do" -s "$PING" "$(nt_inner "$IF_B" 4)" >/dev/null ||
		nt_fail "the first packet, a $PING-byte ping before any handshake, got no answer (outer IPv$fam)"
	[ "$(nt_handshake "$IF_A")" != 0 ] || nt_fail "no handshake after the first ping"
	nt_ok "oversize packet staged and sent after the handshake (outer IPv$fam)"
	big_pings "$IF_A"
	big_pings "$IF_B"
	nt_ok "$PING-byte and $NT_MTU-byte pings both ways, IPv4 + IPv6 inner, outer IPv$fam"
	fwd=$(nt_iperf "$NS_A" "$(nt_inner "$IF_B" "$inner")" 3) || nt_fail "iperf3 a -> b"
	rev=$(nt_iperf "$NS_A" "$(nt_inner "$IF_B" "$inner")" 3 -R) || nt_fail "iperf3 b -> a"
	for v in "$fwd" "$rev"; do
		# 3 s at 0.01 Gbit/s: at least 3.75 MB went through
		awk -v v="$v" 'BEGIN { exit !(v >= 0.01) }' ||
			nt_fail "iperf3 over IPv$inner inner, outer IPv$fam: $fwd / $rev Gbit/s"
	done
	nt_ok "iperf3 TCP 3 s, IPv$inner inner, outer IPv$fam: a -> b $fwd, b -> a $rev Gbit/s"
}

# pair ROLE_B: wgd on side a, ROLE_B on side b, jumbo MTU on both.
pair() {
	local role=$1
	nt_log "-- wgd <-> $role, tunnel MTU $NT_MTU over veth MTU $OUTER_MTU"
	nt_pair wgd "$role"
	nt_veth_mtu
	nt_iperf_server "$IF_B"
	round 4
	nt_peers_reset
	round 6
	for i in "$IF_A" "$IF_B"; do
		nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died"
	done
	nt_teardown
	stats_clean "$IF_A"
	[ "$role" = wgd ] && stats_clean "$IF_B"
	return 0
}

pair wgd
if command -v wireguard-go >/dev/null 2>&1; then
	pair wireguard-go
else
	nt_log "wireguard-go is not installed: its half is left out"
fi

nt_log "-- asymmetric: a has MTU $NT_MTU, b has MTU 1420"
nt_pair wgd wgd
nt_veth_mtu
ip -n "$NS_B" link set "$IF_B" mtu 1420 || nt_fail "mtu 1420 on $IF_B"
for fam in 4 6; do
	nt_endpoint "$IF_A" "$fam"
	nt_ping "$IF_A" 198.51.100.2 -M "do" -s "$PING" ||
		nt_fail "IPv4 ping -s $PING from the MTU $NT_MTU side to the MTU 1420 side (outer IPv$fam)"
	nt_ping "$IF_A" fd00:2::2 -6 -M "do" -s "$PING" ||
		nt_fail "IPv6 ping -s $PING from the MTU $NT_MTU side to the MTU 1420 side (outer IPv$fam)"
	nt_ping "$IF_B" 198.51.100.1 -s "$PING" ||
		nt_fail "IPv4 ping -s $PING (fragmented) from the MTU 1420 side (outer IPv$fam)"
	nt_ok "the MTU 1420 side takes and answers $PING-byte pings (outer IPv$fam)"
done
for i in "$IF_A" "$IF_B"; do
	nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died"
done
nt_teardown
stats_clean "$IF_A"
stats_clean "$IF_B"
echo "PASS"
