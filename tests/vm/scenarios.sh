# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Scenarios of the VM tests that hold for any wg0 in the guest that Debian's
# wg configures (the kernel's WireGuard, tests/vm/kernel.sh; the guest's
# wgd, tests/vm/mips.sh) against any daemon on the host: each is a
# function sc_NAME, run by vm_run (tests/vm/lib.sh) after vm_reset.  Their
# messages call the two sides VM_HWHO and VM_GWHO.  tests/vm/README.md says
# what each checks.

# The daemon initiates: the guest's peer has no endpoint, so only the
# daemon can start a handshake; the kernel learns the daemon's endpoint.
sc_handshake-host() {
	vm_guest_setconf none
	vm_both_ways "($VM_HWHO initiated)"
	[ "$(vm_gfield 3)" = "$HOST4:$NT_PORT" ] || nt_fail "$VM_GWHO's endpoint is '$(vm_gfield 3)'"
	nt_ok "handshake initiated by $VM_HWHO; IPv4 and IPv6 inside, both ways"
}

# The kernel initiates; the daemon learns the guest's endpoint.
sc_handshake-guest() {
	vm_host_setconf none
	vm_gping "$HIN4" || nt_fail "ping guest -> host ($VM_GWHO initiates)"
	vm_both_ways "($VM_GWHO initiated)"
	[ "$(vm_hfield 3)" = "$GUEST4:$NT_PORT" ] || nt_fail "$VM_HWHO's endpoint is '$(vm_hfield 3)'"
	nt_ok "handshake initiated by $VM_GWHO; IPv4 and IPv6 inside, both ways"
}

# IPv6 outside, each side initiating once.
sc_outer-ipv6() {
	vm_host_setconf "[$GUEST6]:$NT_PORT"
	vm_guest_setconf none
	vm_both_ways "over IPv6 ($VM_HWHO initiated)"
	[ "$(vm_gfield 3)" = "[$HOST6]:$NT_PORT" ] || nt_fail "$VM_GWHO's endpoint is '$(vm_gfield 3)'"
	vm_host_setconf none
	vm_guest_setconf "[$HOST6]:$NT_PORT"
	vm_gping "$HIN4" || nt_fail "ping guest -> host over IPv6 ($VM_GWHO initiates)"
	vm_both_ways "over IPv6 ($VM_GWHO initiated)"
	[ "$(vm_hfield 3)" = "[$GUEST6]:$NT_PORT" ] || nt_fail "$VM_HWHO's endpoint is '$(vm_hfield 3)'"
	nt_ok "IPv6 outer, each side initiating; IPv4 and IPv6 inside"
}

# A preshared key (whitepaper section 5.2, "psk"): matching keys make a
# session, a mismatch none.
sc_preshared-key() {
	local psk psk2
	psk=$(wg genpsk) && psk2=$(wg genpsk) || nt_fail "wg genpsk"
	printf '%s\n' "$psk2" >"$NT_TMP/psk2"
	nt_wg "$HIF" set "$HIF" peer "$GPUB" preshared-key "$NT_TMP/psk2" || nt_fail "wg set preshared-key"
	vm_g_ok 10 "echo $psk >/run/psk && wg set wg0 peer $HPUB preshared-key /run/psk" "guest psk"
	if vm_h ping -q -c 2 -i 0.5 -W 2 "$GIN4" >/dev/null 2>&1; then
		nt_fail "a session came up with different preshared keys"
	fi
	[ "$(vm_hfield 5)" = 0 ] || nt_fail "$VM_HWHO reports a handshake with different preshared keys"
	printf '%s\n' "$psk" >"$NT_TMP/psk"
	nt_wg "$HIF" set "$HIF" peer "$GPUB" preshared-key "$NT_TMP/psk" || nt_fail "wg set preshared-key"
	[ "$(vm_hfield 2)" = "$psk" ] || nt_fail "$VM_HWHO does not show the preshared key"
	vm_both_ways "with a preshared key"
	nt_ok "a mismatched preshared key makes no session, a matching one does"
}

# A preshared key rotated one side at a time, the daemon first: the kernel's
# set_peer only stores a new key, and so must the daemon, so that the side
# that changed keeps sending on the live session until its next rekey
# (doc/protocol.md section 7).  No new handshake on either side when either
# changes.
sc_psk-rotation() {
	local psk psk2 hs gs ms
	psk=$(wg genpsk) && psk2=$(wg genpsk) || nt_fail "wg genpsk"
	printf '%s\n' "$psk" >"$NT_TMP/psk"
	printf '%s\n' "$psk2" >"$NT_TMP/psk2"
	nt_wg "$HIF" set "$HIF" peer "$GPUB" preshared-key "$NT_TMP/psk" || nt_fail "wg set preshared-key"
	vm_g_ok 10 "echo $psk >/run/psk && wg set wg0 peer $HPUB preshared-key /run/psk" "guest psk"
	vm_both_ways "with the first preshared key"
	hs=$(vm_hfield 5)
	gs=$(vm_gfield 5)
	nt_wg "$HIF" set "$HIF" peer "$GPUB" preshared-key "$NT_TMP/psk2" || nt_fail "wg set preshared-key"
	ms=$(vm_first_reply_ms host "$GIN4" 5)
	[ -n "$ms" ] || nt_fail "no echo within 5 s once $VM_HWHO alone changed its preshared key"
	[ "$ms" -le 1000 ] || nt_fail "echo ${ms} ms after $VM_HWHO alone changed its preshared key (bar: 1000 ms)"
	vm_both_ways "once $VM_HWHO alone changed its preshared key"
	vm_g_ok 10 "echo $psk2 >/run/psk && wg set wg0 peer $HPUB preshared-key /run/psk" "guest psk"
	vm_both_ways "once both changed their preshared key"
	[ "$(vm_hfield 2)" = "$psk2" ] || nt_fail "$VM_HWHO does not show the new preshared key"
	[ "$(vm_hfield 5)" = "$hs" ] && [ "$(vm_gfield 5)" = "$gs" ] ||
		nt_fail "a new handshake ($VM_HWHO $hs -> $(vm_hfield 5), $VM_GWHO $gs -> $(vm_gfield 5)): the session must run to its rekey"
	nt_ok "preshared key changed on $VM_HWHO, then on $VM_GWHO: first echo after ${ms} ms, the same session throughout"
}

# Full-size packets (inner MTU 1420, outer 1500) with DF, both ways, over
# IPv4 and IPv6 outside: 1420 inside is 1480 + 20 outside over IPv4 and
# exactly 1500 over IPv6.
sc_mtu() {
	local outer
	for outer in 4 6; do
		if [ "$outer" = 6 ]; then
			vm_host_setconf "[$GUEST6]:$NT_PORT"
			vm_guest_setconf "[$HOST6]:$NT_PORT"
		fi
		vm_hping "$GIN4" -M "do" -s $((NT_MTU - 28)) || nt_fail "1420-byte DF ping host -> guest (outer IPv$outer)"
		vm_hping "$GIN6" -6 -M "do" -s $((NT_MTU - 48)) || nt_fail "1420-byte ping6 host -> guest (outer IPv$outer)"
		vm_gping "$HIN4" -M "do" -s $((NT_MTU - 28)) || nt_fail "1420-byte DF ping guest -> host (outer IPv$outer)"
		vm_gping "$HIN6" -6 -M "do" -s $((NT_MTU - 48)) || nt_fail "1420-byte ping6 guest -> host (outer IPv$outer)"
		# One byte more does not fit the tunnel's MTU: ping says so itself.
		vm_h ping -q -c 1 -W 1 -M "do" -s $((NT_MTU - 27)) "$GIN4" >/dev/null 2>&1 &&
			nt_fail "a 1421-byte DF ping went through a 1420 MTU"
		vm_h ping -6 -q -c 1 -W 1 -M "do" -s $((NT_MTU - 47)) "$GIN6" >/dev/null 2>&1 &&
			nt_fail "a 1421-byte ping6 went through a 1420 MTU"
	done
	nt_ok "1420-byte packets with DF both ways, outer IPv4 and IPv6"
}

# iperf3 TCP, 3 s each way, the server in the guest.
sc_iperf() {
	local dir out mbit
	vm_g_ok 10 "iperf3 -s -D -I /run/bg/iperf3.pid --logfile /run/iperf3.log" "iperf3 server in the guest"
	nt_until "$NT_TIMEOUT" vm_g 5 "netstat -ltn | grep -q ':5201 '" || nt_fail "iperf3 server did not start"
	for dir in "" -R; do
		out=$NT_TMP/iperf3$dir.json
		timeout 40 ip netns exec "$HNS" iperf3 -c "$GIN4" -t 3 -J $dir >"$out" 2>&1 ||
			nt_fail "iperf3 $dir failed: $(head -c 600 "$out")"
		mbit=$("$NT_PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))["end"]["sum_received"]
print("%.1f" % (d["bits_per_second"] / 1e6) if d["bytes"] > 100000 else "")
' "$out")
		[ -n "$mbit" ] || nt_fail "iperf3 $dir: less than 100 kB went through"
		nt_ok "iperf3 TCP ${dir:-(forward)}: $mbit Mbit/s"
	done
}

# wg show on each side after known traffic: endpoints are each other's
# addresses, handshake times agree with each other and with now, and what
# one side sent is what the other received.  The transfer is compared over a
# round of pings in which neither side's ping lost a packet (a busy machine
# can drop one on the emulated NIC: the sender counted it, the receiver never
# saw it); at most three rounds.  All that could differ then is whatever was
# in flight, which is nothing once the pings have returned.
sc_show() {
	local h g h0 g0 now round hout gout
	vm_hping "$GIN4" || nt_fail "first ping"
	for round in 1 2 3; do
		h0=$(vm_dump_host)
		g0=$(vm_dump_guest)
		hout=$(vm_h ping -q -c 50 -i 0.02 -s 1000 "$GIN4" 2>&1) || nt_fail "50 pings host -> guest: $hout"
		gout=$(vm_g 30 "$G_PING -q -c 50 -i 0.02 -s 500 $HIN4" 2>&1) || nt_fail "50 pings guest -> host: $gout"
		sleep 0.5
		h=$(vm_dump_host)
		g=$(vm_dump_guest)
		grep -q ' 0% packet loss' <<<"$hout" && grep -q ' 0% packet loss' <<<"$gout" && break
		nt_log "round $round: a ping lost packets ($(grep -h 'packet loss' <<<"$hout"$'\n'"$gout" | tr '\n' ' ')); again"
		[ "$round" != 3 ] || nt_fail "pings lost packets in three rounds out of three"
	done
	now=$(date +%s)
	nt_log "$VM_HWHO: $h"
	nt_log "$VM_GWHO: $g"
	set -- $h0
	local h_rx0=$6 h_tx0=$7
	set -- $g0
	local g_rx0=$6 g_tx0=$7
	set -- $h
	local h_ep=$3 h_hs=$5 h_rx=$6 h_tx=$7
	set -- $g
	local g_ep=$3 g_hs=$5 g_rx=$6 g_tx=$7
	[ "$h_ep" = "$GUEST4:$NT_PORT" ] || nt_fail "$VM_HWHO's endpoint is $h_ep"
	[ "$g_ep" = "$HOST4:$NT_PORT" ] || nt_fail "$VM_GWHO's endpoint is $g_ep"
	[ "$h_hs" -gt 0 ] && [ "$g_hs" -gt 0 ] || nt_fail "no latest handshake on one side ($h_hs, $g_hs)"
	[ $((h_hs - g_hs)) -le 2 ] && [ $((g_hs - h_hs)) -le 2 ] ||
		nt_fail "latest handshakes differ by more than 2 s: $VM_HWHO $h_hs, $VM_GWHO $g_hs"
	[ $((now - h_hs)) -ge 0 ] && [ $((now - h_hs)) -le 60 ] ||
		nt_fail "$VM_HWHO's latest handshake ($h_hs) is not within the last minute ($now)"
	[ $((h_tx - h_tx0)) -gt 50000 ] && [ $((h_rx - h_rx0)) -gt 25000 ] ||
		nt_fail "transfer too small in the last round: rx $((h_rx - h_rx0)), tx $((h_tx - h_tx0))"
	[ $((h_tx - h_tx0)) = $((g_rx - g_rx0)) ] ||
		nt_fail "$VM_HWHO sent $((h_tx - h_tx0)) bytes, $VM_GWHO received $((g_rx - g_rx0)) (round $round; totals $h_tx, $g_rx)"
	[ $((g_tx - g_tx0)) = $((h_rx - h_rx0)) ] ||
		nt_fail "$VM_GWHO sent $((g_tx - g_tx0)) bytes, $VM_HWHO received $((h_rx - h_rx0)) (round $round; totals $g_tx, $h_rx)"
	nt_ok "wg show consistent: endpoints, handshake times, transfer ($((h_tx - h_tx0)) / $((h_rx - h_rx0)) bytes in round $round)"
}

# The guest roams to a new address and port (IPv4, then a new IPv6
# address); the daemon learns it from the first authenticated packet
# (whitepaper section 2.1) and answers there.
sc_roam() {
	vm_both_ways "before roaming"
	vm_g_ok 10 "
		set -e
		echo 1 >/proc/sys/net/ipv4/conf/eth0/promote_secondaries
		$G_IP addr add 192.0.2.3/24 dev eth0
		$G_IP addr del $GUEST4/24 dev eth0
		wg set wg0 listen-port $((NT_PORT + 1))" "guest roams"
	vm_gping "$HIN4" || nt_fail "ping guest -> host after roaming"
	[ "$(vm_hfield 3)" = "192.0.2.3:$((NT_PORT + 1))" ] ||
		nt_fail "$VM_HWHO's endpoint is '$(vm_hfield 3)', expected 192.0.2.3:$((NT_PORT + 1))"
	vm_hping "$GIN4" || nt_fail "ping host -> guest at its new address"
	nt_ok "IPv4 roam to a new address and port learnt"
	vm_g_ok 10 "
		set -e
		wg set wg0 peer $HPUB endpoint [$HOST6]:$NT_PORT
		$G_IP addr add fd00:1::3/64 dev eth0 nodad
		$G_IP addr del $GUEST6/64 dev eth0" "guest roams to IPv6"
	vm_gping "$HIN6" -6 || nt_fail "ping6 guest -> host after roaming to IPv6"
	[ "$(vm_hfield 3)" = "[fd00:1::3]:$((NT_PORT + 1))" ] ||
		nt_fail "$VM_HWHO's endpoint is '$(vm_hfield 3)', expected [fd00:1::3]:$((NT_PORT + 1))"
	vm_hping "$GIN6" -6 || nt_fail "ping6 host -> guest at its new address"
	nt_ok "roam to a new IPv6 address learnt"
}

# rotate SIDE SENDER: a new private key on SIDE (host or guest), the other
# side's peer replaced by the new public key; then SENDER (host or guest)
# sends first, and the first echo must be back within a second (a handshake
# at once, not after REKEY_TIMEOUT).
rotate() {
	local side=$1 sender=$2 ms new="$NT_TMP/new-$1.key" pub
	vm_both_ways "before the rotation"
	(umask 077 && wg genkey >"$new") && pub=$(wg pubkey <"$new") || nt_fail "wg genkey"
	if [ "$side" = host ]; then
		nt_wg "$HIF" set "$HIF" private-key "$new" || nt_fail "wg set private-key"
		vm_g_ok 10 "wg set wg0 peer $HPUB remove && wg set wg0 peer $pub allowed-ips $HIN4/32,$HIN6/128 endpoint $HOST4:$NT_PORT" \
			"guest takes $VM_HWHO's new key"
		HPUB=$pub
		[ "$(nt_wg "$HIF" show "$HIF" public-key)" = "$pub" ] || nt_fail "wg show public-key after rotation"
	else
		vm_g_ok 10 "echo $(cat "$new") >/run/new.key && wg set wg0 private-key /run/new.key" "guest key rotation"
		nt_wg "$HIF" set "$HIF" peer "$GPUB" remove || nt_fail "wg set peer remove"
		nt_wg "$HIF" set "$HIF" peer "$pub" allowed-ips "$GIN4/32,$GIN6/128" endpoint "$GUEST4:$NT_PORT" ||
			nt_fail "wg set peer (the guest's new key)"
		GPUB=$pub
	fi
	if [ "$sender" = host ]; then
		ms=$(vm_first_reply_ms host "$GIN4" 10)
	else
		ms=$(vm_first_reply_ms guest "$HIN4" 10)
	fi
	[ -n "$ms" ] || nt_fail "no traffic within 10 s of the $side's key rotation ($sender sending)"
	[ "$ms" -le 1000 ] ||
		nt_fail "traffic back ${ms} ms after the $side's key rotation ($sender sending; the bar is 1000 ms)"
	vm_both_ways "after the rotation"
	nt_ok "$side key rotation, $sender sending: first echo after ${ms} ms, then both ways"
}
sc_rotate-host() { rotate host host; }
sc_rotate-guest() { rotate guest guest; }
sc_rotate-host-guest-sends() { rotate host guest; }
sc_rotate-guest-host-sends() { rotate guest host; }

# Persistent keepalive (whitepaper section 6.5) on each side in turn: the
# other side's receive counter grows by keepalives (32-byte data messages)
# while nothing else is sent.
sc_keepalive() {
	local r0 r1 n
	vm_both_ways "before"
	sleep 0.5
	vm_g_ok 10 "wg set wg0 peer $HPUB persistent-keepalive 1" "guest keepalive on"
	sleep 0.5
	r0=$(vm_hfield 6)
	sleep 4
	r1=$(vm_hfield 6)
	vm_g_ok 10 "wg set wg0 peer $HPUB persistent-keepalive 0" "guest keepalive off"
	n=$(((r1 - r0) / 32))
	[ $(((r1 - r0) % 32)) = 0 ] && [ "$n" -ge 3 ] && [ "$n" -le 6 ] ||
		nt_fail "$VM_HWHO received $((r1 - r0)) bytes in 4 idle s with $VM_GWHO's keepalive at 1 s (expected 3-6 x 32)"
	nt_ok "$VM_GWHO's keepalives reach $VM_HWHO: $n in 4 s"
	sleep 1.5
	nt_wg "$HIF" set "$HIF" peer "$GPUB" persistent-keepalive 1 || nt_fail "$VM_HWHO: keepalive on"
	sleep 0.5
	r0=$(vm_gfield 6)
	sleep 4
	r1=$(vm_gfield 6)
	nt_wg "$HIF" set "$HIF" peer "$GPUB" persistent-keepalive 0 || nt_fail "$VM_HWHO: keepalive off"
	n=$(((r1 - r0) / 32))
	[ $(((r1 - r0) % 32)) = 0 ] && [ "$n" -ge 3 ] && [ "$n" -le 6 ] ||
		nt_fail "$VM_GWHO received $((r1 - r0)) bytes in 4 idle s with $VM_HWHO's keepalive at 1 s (expected 3-6 x 32)"
	nt_ok "$VM_HWHO's keepalives reach $VM_GWHO: $n in 4 s"
}

# The daemon's peer removed (its session with it) and added back.
sc_peer-readd() {
	vm_both_ways "before"
	nt_wg "$HIF" set "$HIF" peer "$GPUB" remove || nt_fail "wg set peer remove"
	[ -z "$(nt_wg "$HIF" show "$HIF" peers)" ] || nt_fail "the peer is still listed after remove"
	vm_h ping -q -c 1 -W 1 "$GIN4" >/dev/null 2>&1 && nt_fail "a ping went through with the peer removed"
	nt_wg "$HIF" set "$HIF" peer "$GPUB" allowed-ips "$GIN4/32,$GIN6/128" endpoint "$GUEST4:$NT_PORT" ||
		nt_fail "wg set peer (re-added)"
	[ "$(vm_hfield 5)" = 0 ] || nt_fail "the re-added peer has a handshake already"
	vm_both_ways "after the peer was re-added"
	nt_ok "peer removed (no traffic) and re-added (traffic both ways)"
}
