#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Linux kernel's WireGuard (Debian 12's, in a qemu guest) as the
# reference peer of ROLE, wgd or wireguard-go, in one boot:
#
#   tests/vm/kernel.sh ROLE [SCENARIO...]     (default: every scenario)
#
# Each scenario starts from vm_reset (tests/vm/lib.sh: both sides freshly
# configured, no session) and runs in a subshell, so that a failing one is
# reported and the next still runs; the test fails if any failed.
# tests/vm/README.md says what each checks.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scenarios.sh"

ROLE=${1:-wgd}
shift || true

SCENARIOS=(handshake-host handshake-guest outer-ipv6 preshared-key psk-rotation mtu iperf show roam
	rotate-host rotate-guest rotate-host-guest-sends rotate-guest-host-sends
	keepalive peer-readd restart-host-first restart-guest-first junk replay flood rekey)

# Scenarios that cannot pass against an implementation for a reason in that
# implementation: "ROLE:SCENARIO" -> the reason, printed when it is skipped.
# Empty at present: wireguard-go passes every scenario.
declare -A SKIP=()

# ---- the scenarios -------------------------------------------------------
# (and those of tests/vm/scenarios.sh)

# restart_daemon: the daemon stopped (SIGTERM; it must exit 0 when it is
# our child) and started again with the same configuration; the kernel
# keeps its session.  The new PID goes to $NT_TMP/daemon.pid, for the
# parent shell's cleanup.
restart_daemon() {
	nt_stop_daemon "$HIF"
	[ "$NT_BAD" = 0 ] || nt_fail "the daemon did not stop cleanly"
	NT_RUN=$SECONDS		# the new daemon's log is a new file
	nt_daemon "$HNS" "$HIF" "$ROLE"
	echo "${NT_DPID[$HIF]}" >"$NT_TMP/daemon.pid"
	nt_addr "$HIF" "$HIN4/24" "$HIN6/64"
	vm_host_setconf
}

# The daemon sends first after its restart: its handshake makes a new
# session at once.
sc_restart-host-first() {
	local ms
	vm_both_ways "before the restart"
	restart_daemon
	ms=$(vm_first_reply_ms host "$GIN4" 10)
	[ -n "$ms" ] || nt_fail "no traffic within 10 s of the daemon's restart (the daemon sending)"
	[ "$ms" -le 1000 ] || nt_fail "traffic back ${ms} ms after the restart (the daemon sending; the bar is 1000 ms)"
	vm_both_ways "after the restart"
	nt_ok "restart, the daemon sending first: first echo after ${ms} ms"
}

# The kernel sends first after the daemon's restart, on its old session,
# which the daemon no longer knows: the kernel's own timers make a new
# handshake (KEEPALIVE_TIMEOUT + REKEY_TIMEOUT, 15 s, whitepaper section
# 6.2), within 20 s allowing for jitter and TCG.
sc_restart-guest-first() {
	local ms
	vm_both_ways "before the restart"
	restart_daemon
	ms=$(vm_first_reply_ms guest "$HIN4" 25)
	[ -n "$ms" ] || nt_fail "no traffic within 25 s of the daemon's restart (the kernel sending)"
	[ "$ms" -le 20000 ] || nt_fail "traffic back ${ms} ms after the restart (the kernel sending; the bar is 20 s)"
	vm_both_ways "after the restart"
	nt_ok "restart, the kernel sending first on its old session: first echo after ${ms} ms"
}

# hs_ns: the daemon's latest handshake with the guest's peer, to the
# nanosecond (its own get reply).
hs_ns() { nt_handshake_ns_of "$HIF" "$GPUB"; }

# udp_in WHERE: UDP datagrams received so far (Udp InDatagrams of
# /proc/net/snmp) in the host namespace or the guest; proves that hostile
# datagrams did arrive.
udp_in() {
	local snmp
	if [ "$1" = host ]; then snmp=$(vm_h cat /proc/net/snmp); else snmp=$(vm_g 10 "cat /proc/net/snmp"); fi
	printf '%s\n' "$snmp" | awk '$1 == "Udp:" && $2 ~ /^[0-9]+$/ { print $2; exit }'
}

# snapshot: what hostile datagrams must not change on the daemon's side.
snapshot() {
	printf '%s %s %s\n' "$(hs_ns)" "$(vm_hfield 3)" "$(nt_rx_packets "$HIF")"
}

# Junk from the guest (netcat, UDP, from other ports than the kernel's):
# random bytes of many sizes, and every message type at its size with
# random contents.  The daemon stays up, its session, endpoint and TUN
# counters do not move, and the tunnel works without a new handshake.
sc_junk() {
	local before after u0 u1 out n
	vm_both_ways "before"
	before=$(snapshot)
	u0=$(udp_in host)
	out=$(vm_g 120 "HOST=$HOST4 PORT=$NT_PORT NC=$G_NC
$(cat <<'EOF'
n=0
for len in 1 3 4 31 32 33 47 48 63 64 65 91 92 93 147 148 149 200 1000 1400; do
	head -c $len /dev/urandom >/tmp/j.$n
	$NC -u -w 1 -q 0 $HOST $PORT </tmp/j.$n 2>/dev/null &
	n=$((n + 1))
done
for t in 1 2 3 4; do
	for len in 32 48 64 92 148 1000; do
		{ printf "\\00${t}\\000\\000\\000"; head -c $((len - 4)) /dev/urandom; } >/tmp/j.$n
		$NC -u -w 1 -q 0 $HOST $PORT </tmp/j.$n 2>/dev/null &
		n=$((n + 1))
	done
done
wait
rm -f /tmp/j.*
echo "sent $n junk datagrams"
EOF
)") || nt_fail "sending junk from the guest: $out"
	nt_log "$out"
	n=${out#sent }
	n=${n%% *}
	vm_daemon_alive || nt_fail "the daemon died under junk"
	u1=$(udp_in host)
	[ $((u1 - u0)) -ge "$n" ] || nt_fail "only $((u1 - u0)) of the $n junk datagrams arrived"
	after=$(snapshot)
	[ "$after" = "$before" ] || nt_fail "junk changed the daemon's state (handshake endpoint rx-packets): '$before' -> '$after'"
	vm_both_ways "after the junk"
	[ "$(hs_ns)" = "${before%% *}" ] || nt_fail "the junk forced a new handshake"
	nt_ok "junk dropped: daemon up, session, endpoint and TUN counters unchanged, tunnel up"
}

# Every datagram of a session captured on the tap (initiation, response,
# data both ways) and replayed exactly, each toward where it went: the
# daemon and the kernel drop all (replay window, whitepaper section 5.4.6;
# the initiation's timestamp, section 5.1), nothing is delivered twice, and
# the session stays.
sc_replay() {
	local cap=$NT_TMP/replay.jsonl sniffer before after g0 g1 hu0 hu1 gu0 gu1 n_out n_in
	nt_bg "$HNS" "$NT_PY" "$VM_DIR/pkt.py" sniff "$TAP" "$NT_PORT" "$cap" "$NT_TMP/sniffing" 60
	sniffer=$NT_BG_PID
	nt_until "$NT_TIMEOUT" test -e "$NT_TMP/sniffing" || nt_fail "sniffer did not start"
	vm_both_ways "(captured)"
	vm_h ping -q -c 5 -i 0.1 -s 1000 "$GIN4" >/dev/null || nt_fail "pings (captured)"
	sleep 0.3
	nt_stop_pid "$sniffer"
	nt_log "captured $(wc -l <"$cap") datagrams"
	before=$(snapshot)
	g0=$(vm_g 10 "cat /sys/class/net/wg0/statistics/rx_packets; wg show wg0 latest-handshakes" | tr '\n\t' '  ')
	hu0=$(udp_in host)
	gu0=$(udp_in guest)
	vm_h "$NT_PY" "$VM_DIR/pkt.py" replay "$cap" "$TAP" >"$NT_TMP/replay.out" || nt_fail "replay failed"
	cat "$NT_TMP/replay.out"
	read -r _ n_out _ _ _ _ n_in _ <"$NT_TMP/replay.out"
	[ "$n_out" -ge 5 ] && [ "$n_in" -ge 5 ] || nt_fail "too few datagrams captured to replay"
	sleep 0.5
	hu1=$(udp_in host)
	gu1=$(udp_in guest)
	[ $((hu1 - hu0)) -ge "$n_in" ] || nt_fail "only $((hu1 - hu0)) of $n_in replays reached the host's UDP"
	[ $((gu1 - gu0)) -ge "$n_out" ] || nt_fail "only $((gu1 - gu0)) of $n_out replays reached the guest's UDP"
	vm_daemon_alive || nt_fail "the daemon died"
	after=$(snapshot)
	g1=$(vm_g 10 "cat /sys/class/net/wg0/statistics/rx_packets; wg show wg0 latest-handshakes" | tr '\n\t' '  ')
	[ "$after" = "$before" ] || nt_fail "replays changed the daemon's state (handshake endpoint rx-packets): '$before' -> '$after'"
	[ "$g1" = "$g0" ] || nt_fail "replays changed the kernel's state (rx-packets handshake): '$g0' -> '$g1'"
	vm_both_ways "after the replays"
	[ "$(hs_ns)" = "${before%% *}" ] || nt_fail "the replays forced a new handshake"
	nt_ok "replayed datagrams dropped on both sides; session unchanged"
}

# The cookie replies the host has sent: to the kernel, then to the flood.
vm_flood_cookies() {
	vm_h nft list chain inet vmflood output |
		awk '/counter packets/ { for (i = 1; i < NF; i++) if ($i == "packets") print $(i + 1) }' | tr '\n' ' '
}

# flood_once: one flood, and the kernel's first handshake made once the
# daemon answers the flood with cookie replies; sets FLOOD_MS (the first
# echo, empty if none) and FLOOD_KC (cookie replies to the kernel).
flood_once() {
	local flood n secs i
	vm_h nft -f - <<-NFT || nt_fail "nft counter"
	table inet vmflood {
		chain output {
			type filter hook output priority 0; policy accept;
			ip daddr $GUEST4 udp sport $NT_PORT @th,64,8 3 counter
			ip daddr != $GUEST4 udp sport $NT_PORT @th,64,8 3 counter
		}
	}
	NFT
	nt_bg "$HNS" "$NT_PY" "$VM_DIR/pkt.py" flood "$HPUB" "$HOST4" "$NT_PORT" 40 20000 "$NT_TMP/flood.count"
	flood=$NT_BG_PID
	# The flood first builds its pool of messages, which takes a varying
	# time: the kernel initiates once the daemon is seen under load.
	for ((i = 0; i < 40; i++)); do
		sleep 0.5
		set -- $(vm_flood_cookies)
		[ "${2:-0}" -ge 100 ] && break
	done
	[ "${2:-0}" -ge 100 ] || nt_fail "the daemon sent the flood ${2:-0} cookie replies in 20 s (not under load)"
	FLOOD_MS=$(vm_first_reply_ms guest "$HIN4" 25)
	set -- $(vm_flood_cookies)
	FLOOD_KC=${1:-0}
	nt_stop_pid "$flood"
	vm_h nft delete table inet vmflood
	read -r n secs <"$NT_TMP/flood.count" || nt_fail "the flood wrote no count"
	nt_log "flood: $n initiations in $secs s; cookie replies: $FLOOD_KC to the kernel, ${2:-0} to the flood"
	vm_daemon_alive || nt_fail "the daemon died under the flood"
}

# The daemon flooded with initiations that have a valid mac1 (from the host
# namespace, 16 source ports, 20000 a second) while the kernel makes its
# first handshake: the daemon, under load, must answer the kernel with a
# cookie reply (whitepaper section 5.4.7) and accept its next initiation,
# which carries mac2; the session must be up within 20 s.  The load lasts
# UNDER_LOAD_AFTER_TIME (1 s) after the last backlog, and answering the
# flood with cookies drains it, so the daemon has short spells out of load
# in which it handles the flood's initiations in full until the backlog is
# back; a kernel initiation that lands in one is answered without a cookie.
# Then the scenario starts again from no session, up to three times.
sc_flood() {
	local try
	for ((try = 1; try <= 3; try++)); do
		flood_once
		[ -n "$FLOOD_MS" ] || nt_fail "the kernel got no session within 25 s under the flood ($FLOOD_KC cookie replies to it)"
		[ "$FLOOD_MS" -le 20000 ] || nt_fail "the kernel's session took ${FLOOD_MS} ms under the flood (the bar is 20 s)"
		[ "$FLOOD_KC" -ge 1 ] && break
		nt_log "the kernel's initiation was answered in a spell out of load; again from no session"
		vm_reset
	done
	[ "$FLOOD_KC" -ge 1 ] || nt_fail "the daemon sent the kernel no cookie reply while flooded, in 3 tries"
	vm_both_ways "after the flood"
	nt_ok "under a flood of initiations the kernel got its session after ${FLOOD_MS} ms, through $FLOOD_KC cookie replies (try $try)"
}

# One rekey after REKEY_AFTER_TIME (120 s, whitepaper section 6.1) with
# traffic flowing: the daemon initiates the first session and sends 5 pings
# a second for 135 s.  Its latest handshake, sampled every 2 s, must take
# exactly one new value, 119-125 s after the first, and at most 2 pings may
# be lost across it.
sc_rekey() {
	local hs0 hs i pinger out loss values
	vm_guest_setconf none
	vm_hping "$GIN4" || nt_fail "first ping"
	hs0=$(vm_hfield 5)
	values=$hs0
	nt_bg "$HNS" ping -q -c 675 -i 0.2 -W 2 "$GIN4" >"$NT_TMP/rekey-ping.out" 2>&1
	pinger=$NT_BG_PID
	for ((i = 0; i < 80; i++)); do
		nt_gone "$pinger" && break
		sleep 2
		hs=$(vm_hfield 5)
		[ "$hs" = "${values##* }" ] || values="$values $hs"
	done
	nt_gone "$pinger" || nt_fail "ping still running after 160 s"
	wait "$pinger" 2>/dev/null
	out=$(grep 'packets transmitted' "$NT_TMP/rekey-ping.out")
	loss=$(printf '%s\n' "$out" | awk '{ print $1 - $4 }')
	nt_log "latest handshakes seen: $values; $out"
	set -- $values
	[ $# = 2 ] || nt_fail "expected one rekey in 135 s of traffic, saw latest handshakes $values"
	[ $(($2 - $1)) -ge 119 ] && [ $(($2 - $1)) -le 125 ] ||
		nt_fail "the rekey came $(($2 - $1)) s after the first handshake (REKEY_AFTER_TIME is 120 s)"
	[ -n "$loss" ] && [ "$loss" -le 2 ] || nt_fail "${loss:-all} pings lost across the rekey"
	vm_both_ways "after the rekey"
	nt_ok "one rekey, $(($2 - $1)) s after the first handshake, with traffic flowing; $loss pings lost"
}

# ---- the run -------------------------------------------------------------

nt_init vk
case "$ROLE" in
wgd | wireguard-go) ;;
*) nt_fail "unknown role '$ROLE' (wgd or wireguard-go)" ;;
esac
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${SCENARIOS[@]}")
for s in "${want[@]}"; do
	declare -F "sc_$s" >/dev/null || nt_fail "no scenario '$s' (scenarios: ${SCENARIOS[*]})"
done

vm_boot "$ROLE"
vm_run "${want[@]}"
