#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Garbage on the UDP port is dropped silently and the tunnel is unaffected.
# wgd <-> wgd: the datagrams of a first handshake and pings are captured
# (AF_PACKET, tests/net/wgfuzz.py), then each daemon receives thousands of
# malformed, mutated and replayed datagrams (see wgfuzz.py), spoofed from
# its peer's real address and port and from elsewhere, over IPv4 and IPv6;
# then b gets a burst of 20000 replayed initiations (valid mac1) from a's
# real address.
# Afterwards both daemons live, both keep the same handshake (nanosecond
# exact) and endpoint, nothing was delivered to either TUN device, and
# pings still pass both ways without a new handshake.  Last, a burst of
# random initiation-sized junk must not count as load: the next real
# initiation gets its response at once, not a cookie reply.

. "$(dirname "$0")/lib.sh"

nt_init gb
nt_need nft
FUZZ=$(dirname "$0")/wgfuzz.py
UNDER_LOAD_AFTER=1	# s, UNDER_LOAD_AFTER_TIME
ROLE_A=${1:-wgd}
ROLE_B=${2:-wgd}
nt_pair "$ROLE_A" "$ROLE_B"

# Cookie replies b sends (message type 3, the payload's first byte): shown,
# not required, since when a responder counts as under load is its own choice.
nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft counter"
table inet ntcookie {
	chain output {
		type filter hook output priority 0; policy accept;
		udp sport $NT_PORT @th,64,8 3 counter
	}
}
NFT
cookies() {
	nt_x "$NS_B" nft list chain inet ntcookie output |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

cap=$NT_TMP/capture.jsonl
nt_bg "$NS_B" "$NT_PY" "$FUZZ" sniff "$VETH_B" "$NT_PORT" "$cap" "$NT_TMP/sniffing" 60
sniffer=$NT_BG_PID
nt_until "$NT_TIMEOUT" test -e "$NT_TMP/sniffing" || nt_fail "sniffer did not start"

nt_endpoint "$IF_A" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b"
nt_ping "$IF_A" 198.51.100.2 -s 1000 || nt_fail "ping a -> b, 1000 bytes"
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 a -> b"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a"
sleep 0.2
nt_stop_pid "$sniffer"
for t in 01 02 04; do
	grep -q "\"payload\": \"$t" "$cap" || nt_fail "no message of type $t was captured"
done
nt_ok "captured $(wc -l <"$cap") datagrams of the first session"

hs_a=$(nt_handshake_ns "$IF_A")
hs_b=$(nt_handshake_ns "$IF_B")
ep_a=$(nt_endpoint_of "$IF_A")
ep_b=$(nt_endpoint_of "$IF_B")
rx_a=$(nt_rx_packets "$IF_A")
rx_b=$(nt_rx_packets "$IF_B")

nt_x "$NS_A" "$NT_PY" "$FUZZ" inject "$cap" 192.0.2.2 "$NT_PORT" 1 fd00:1::2 ||
	nt_fail "injecting into b"
nt_x "$NS_B" "$NT_PY" "$FUZZ" inject "$cap" 192.0.2.1 "$NT_PORT" 2 fd00:1::1 ||
	nt_fail "injecting into a"
nt_x "$NS_A" "$NT_PY" "$FUZZ" flood "$cap" 192.0.2.2 "$NT_PORT" 20000 || nt_fail "flooding b"
sleep 0.5
nt_log "b answered the flood of replayed initiations with $(cookies) cookie replies"

for i in "$IF_A" "$IF_B"; do
	nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died under garbage"
	nt_sock_ready "$i" || nt_fail "$i's control socket no longer answers"
done
nt_ok "both daemons alive"
[ "$(nt_rx_packets "$IF_A")" = "$rx_a" ] || nt_fail "garbage delivered to a's TUN ($rx_a -> $(nt_rx_packets "$IF_A") packets)"
[ "$(nt_rx_packets "$IF_B")" = "$rx_b" ] || nt_fail "garbage delivered to b's TUN ($rx_b -> $(nt_rx_packets "$IF_B") packets)"
nt_ok "nothing delivered to either TUN"
[ "$(nt_endpoint_of "$IF_A")" = "$ep_a" ] || nt_fail "a's endpoint moved: $ep_a -> $(nt_endpoint_of "$IF_A")"
[ "$(nt_endpoint_of "$IF_B")" = "$ep_b" ] || nt_fail "b's endpoint moved: $ep_b -> $(nt_endpoint_of "$IF_B")"
nt_ok "endpoints unchanged ($ep_a, $ep_b)"

check_session() {
	[ "$(nt_handshake_ns "$IF_A")" = "$hs_a" ] || nt_fail "a's handshake changed $1: $hs_a -> $(nt_handshake_ns "$IF_A")"
	[ "$(nt_handshake_ns "$IF_B")" = "$hs_b" ] || nt_fail "b's handshake changed $1: $hs_b -> $(nt_handshake_ns "$IF_B")"
}
check_session "under garbage"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b after garbage"
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 a -> b after garbage"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after garbage"
nt_ping "$IF_B" fd00:2::1 -6 || nt_fail "ping6 b -> a after garbage"
check_session "after garbage"
nt_ok "same session (handshake $hs_a / $hs_b), pings pass both ways"

# Junk is no load: thousands of random initiation-sized datagrams (no keys,
# no valid mac1) must not make b answer the next real initiation with a
# cookie reply, which would hold the new session back by a retransmission
# (5 s).  a forgets b and meets it again right after the burst.
sleep "$(awk "BEGIN { print $UNDER_LOAD_AFTER + 0.1 }")"	# the replay flood's second is over
c0=$(cookies)
nt_x "$NS_A" "$NT_PY" "$FUZZ" junk 192.0.2.2 "$NT_PORT" 3000 || nt_fail "junk to b"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" remove || nt_fail "wg set $IF_A peer remove"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" allowed-ips 198.51.100.2/32 \
	endpoint 192.0.2.2:"$NT_PORT" || nt_fail "wg set $IF_A peer"
nt_x "$NS_A" ping -q -c 1 -W 2 198.51.100.2 >/dev/null ||
	nt_fail "no new session within 2 s of a junk burst ($(($(cookies) - c0)) cookie replies from b)"
[ "$(cookies)" = "$c0" ] || nt_fail "b sent $(($(cookies) - c0)) cookie replies after junk"
nt_ok "a junk burst is no load: new session at once, no cookie reply"
echo "PASS"
