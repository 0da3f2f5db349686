#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Interoperation of two daemons: usage pair.sh ID ROLE_A ROLE_B (roles "wgd" or
# "wireguard-go").  Each side initiates in turn, on a fresh session (both
# peers removed and added back): only the initiator knows an endpoint, so
# the responder can only answer once the handshake taught it where the
# initiator is.  Over IPv4 and then IPv6 outer addresses (the responder must
# follow the switch), IPv4 and IPv6 inner pings both ways and full-MTU pings
# with DF set; then iperf3 TCP in both directions.

. "$(dirname "$0")/lib.sh"

nt_init "$1"
ROLE_A=$2
ROLE_B=$3
nt_need iperf3 ss
nt_pair "$ROLE_A" "$ROLE_B"

# traffic FROM: inner pings from FROM's side to the other, IPv4 and IPv6, small
# and exactly MTU-sized with fragmentation forbidden (IPv4 header 20 + ICMP 8,
# IPv6 header 40 + ICMPv6 8).
traffic() {
	local from=$1 to
	to=$(nt_other "$from")
	nt_ping "$from" "$(nt_inner "$to" 4)" || nt_fail "inner IPv4 ping $from -> $to"
	nt_ping "$from" "$(nt_inner "$to" 6)" -6 || nt_fail "inner IPv6 ping $from -> $to"
	nt_ping "$from" "$(nt_inner "$to" 4)" -M "do" -s $((NT_MTU - 28)) ||
		nt_fail "full-MTU ($NT_MTU) IPv4 ping with DF $from -> $to"
	nt_ping "$from" "$(nt_inner "$to" 6)" -6 -M "do" -s $((NT_MTU - 48)) ||
		nt_fail "full-MTU ($NT_MTU) IPv6 ping $from -> $to"
}

# round INIT FAM1 FAM2: INIT initiates over outer FAM1, then moves to FAM2.
round() {
	local init=$1 f1=$2 f2=$3 resp hs want got
	resp=$(nt_other "$init")
	nt_log "-- ${NT_IMPL[$init]##*/} ($init) initiates over outer IPv$f1"
	[ "$(nt_handshake "$init")" = 0 ] || nt_fail "$init has a handshake before the round"
	[ "$(nt_handshake "$resp")" = 0 ] || nt_fail "$resp has a handshake before the round"
	[ "$(nt_endpoint_of "$resp")" = "(none)" ] || nt_fail "$resp knows an endpoint before the round"
	nt_endpoint "$init" "$f1"
	nt_ping "$init" "$(nt_inner "$resp" 4)" || nt_fail "first inner ping $init -> $resp (handshake)"
	for i in "$init" "$resp"; do
		hs=$(nt_handshake "$i")
		[ -n "$hs" ] && [ "$hs" != 0 ] || nt_fail "$i: no latest handshake after the first ping"
		[ $(( $(date +%s) - hs )) -le 30 ] || nt_fail "$i: latest handshake $hs is not recent"
	done
	want=$(nt_endpoint_str "$(nt_outer "$init" "$f1")" "$NT_PORT")
	got=$(nt_endpoint_of "$resp")
	[ "$got" = "$want" ] || nt_fail "$resp learned endpoint '$got', expected '$want'"
	nt_ok "handshake, $init initiating; $resp learned $got"
	traffic "$init"
	traffic "$resp"
	nt_ok "IPv4 + IPv6 inner, full MTU, both ways, over outer IPv$f1"

	nt_endpoint "$init" "$f2"
	nt_ping "$init" "$(nt_inner "$resp" 4)" || nt_fail "inner ping $init -> $resp after moving to outer IPv$f2"
	want=$(nt_endpoint_str "$(nt_outer "$init" "$f2")" "$NT_PORT")
	got=$(nt_endpoint_of "$resp")
	[ "$got" = "$want" ] || nt_fail "$resp endpoint '$got' after the switch, expected '$want'"
	traffic "$init"
	traffic "$resp"
	nt_ok "IPv4 + IPv6 inner, full MTU, both ways, over outer IPv$f2 ($resp follows to $got)"
}

round "$IF_A" 4 6
nt_peers_reset
round "$IF_B" 6 4

nt_iperf_server "$IF_B"
fwd=$(nt_iperf "$NS_A" "$(nt_inner "$IF_B" 4)" 3) || nt_fail "iperf3 $ROLE_A -> $ROLE_B"
rev=$(nt_iperf "$NS_A" "$(nt_inner "$IF_B" 4)" 3 -R) || nt_fail "iperf3 $ROLE_B -> $ROLE_A"
for v in "$fwd" "$rev"; do
	awk -v v="$v" 'BEGIN { exit !(v > 0) }' || nt_fail "iperf3 throughput is zero ($fwd, $rev)"
done
nt_ok "iperf3 TCP 3 s: $ROLE_A -> $ROLE_B $fwd Gbit/s, $ROLE_B -> $ROLE_A $rev Gbit/s"
for i in "$IF_A" "$IF_B"; do
	nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died"
done
echo "PASS"
