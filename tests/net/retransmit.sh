#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Handshake retransmission and staging (whitepaper sections 6.1 and 6.4):
# side b drops the first handshake initiation (nftables); wgd on side a must
# send a new one after REKEY_TIMEOUT (5 s, plus up to 1/3 s of jitter), the
# handshake then completes, and the ping that started it all, staged while
# the handshake was pending, is delivered and answered.  b is wireguard-go
# and then wgd.

. "$(dirname "$0")/lib.sh"

nt_init rt
nt_need nft

# dropped: initiations the rule has dropped so far.
dropped() {
	nt_x "$NS_B" nft list chain inet ntloss input |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }'
}

some_dropped() { [ "$(dropped)" -ge 1 ]; }

round() {
	local t0 t1 ms handle pid st
	nt_log "-- wgd initiates to $1 through a lost initiation"
	nt_pair wgd "$1"
	# The first byte of the UDP payload is the message type; 1 = initiation.
	nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft rule"
	table inet ntloss {
		chain input {
			type filter hook input priority 0; policy accept;
			udp dport $NT_PORT @th,64,8 1 counter drop
		}
	}
	NFT
	nt_endpoint "$IF_A" 4
	t0=$EPOCHREALTIME
	ip netns exec "$NS_A" ping -q -c 1 -W 12 198.51.100.2 >"$NT_TMP/ping.log" 2>&1 &
	pid=$!
	NT_PIDS+=("$pid")
	nt_until 3 some_dropped || nt_fail "no initiation reached b"
	handle=$(nt_x "$NS_B" nft -a list chain inet ntloss input | awk '/counter/ { print $NF }')
	nt_x "$NS_B" nft delete rule inet ntloss input handle "$handle" || nt_fail "nft delete rule"
	wait "$pid"
	st=$?
	t1=$EPOCHREALTIME
	[ "$st" = 0 ] || nt_fail "the staged ping got no reply after the retransmitted initiation: $(cat "$NT_TMP/ping.log")"
	ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')
	[ "$ms" -ge 4900 ] || nt_fail "answered after $ms ms: the initiation was retransmitted before REKEY_TIMEOUT"
	[ "$ms" -le 9000 ] || nt_fail "answered only after $ms ms: retransmission too late"
	nt_ok "initiation dropped, retransmitted; staged ping answered after $ms ms"
	nt_gone "${NT_DPID[$IF_A]}" && nt_fail "wgd died"
	nt_teardown
}

round wireguard-go
round wgd
echo "PASS"
