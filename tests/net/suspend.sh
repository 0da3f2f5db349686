#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Suspend and resume.  Side a's wgd runs with an LD_PRELOAD shim
# (boottime_shim.c) that moves CLOCK_BOOTTIME ahead on demand, the monotonic
# clock staying put: to a process, exactly what a suspend looks like.  After
# a simulated two-hour sleep every session of a is stale (the peer, awake
# all along, dropped it long ago), so a must wipe its sessions as soon as it
# wakes, before it sends or accepts anything on them:
#  1. woken by a packet: b's data on the old session is not delivered by a;
#     a's next packet is staged, a handshakes first (seen on the wire at b:
#     an initiation, then data only on the new session) and the packet gets
#     through within 2 s; both sides show a new latest handshake;
#  2. a short sleep (30 s, the session still young enough by its age
#     alone), woken by its own deadline (a persistent keepalive, no
#     traffic): a handshakes again by itself within 3 s, and again sends
#     nothing on the old session.
#  3. a packet staged (its handshake lost) before a 30 s sleep survives it,
#     and the wakeup (a control-socket request) handshakes for it at once:
#     it gets through well before the retransmission due 5 s after the
#     first initiation.
# Twice: b is wgd, then wireguard-go.

. "$(dirname "$0")/lib.sh"

nt_init su
nt_need nft
[ -n "${WGD_BOOTTIME_SHIM:-}" ] && [ -f "$WGD_BOOTTIME_SHIM" ] ||
	nt_fail "WGD_BOOTTIME_SHIM is not set to the shim library (meson sets it)"
WIRE="$(dirname "$0")/wirelog.py"
OFFSET=$NT_TMP/boottime-offset

# the standard pair (lib.sh's nt_pair), with the shim under a's daemon only
pair() {
	nt_topo
	IF_A=$(nt_name wg a)
	IF_B=$(nt_name wg b)
	echo 0 >"$OFFSET"
	NT_WRAP_WGD="env LD_PRELOAD=$WGD_BOOTTIME_SHIM WGD_TEST_BOOTTIME_OFFSET=$OFFSET ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
		nt_daemon "$NS_A" "$IF_A" wgd
	NT_WRAP_WGD= nt_daemon "$NS_B" "$IF_B" "$1"
	nt_keys "$IF_A"
	nt_keys "$IF_B"
	nt_wg "$IF_A" set "$IF_A" private-key "${NT_PRIV[$IF_A]}" listen-port "$NT_PORT" || nt_fail "wg set $IF_A"
	nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" || nt_fail "wg set $IF_B"
	nt_peers_add
	nt_addr "$IF_A" 198.51.100.1/24 fd00:2::1/64
	nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64
	nt_endpoint "$IF_A" 4
	nt_endpoint "$IF_B" 4
}

# sleep_for SECONDS: a's boot clock jumps ahead (cumulative); MARK is the
# time just after the jump (CLOCK_REALTIME ns, as the sniffer's timestamps).
slept=0
MARK=
sleep_for() {
	slept=$((slept + $1))
	echo "$slept" >"$OFFSET.new" && mv "$OFFSET.new" "$OFFSET" || nt_fail "offset file"
	MARK=$(date +%s%N)
}

newer() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
handshake_newer() { newer "$(nt_handshake_ns "$1")" "$2"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

round() {
	local role_b=$1 wire hs_a hs_b rx t0 ms
	nt_log "-- wgd suspends, $role_b stays awake"
	slept=0
	pair "$role_b"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b before the suspend"
	wire=$NT_TMP/wire.$NT_RUN
	nt_bg "$NS_B" "$NT_PY" "$WIRE" sniff "$VETH_B" "$NT_PORT" "$wire" "$wire.ready"
	nt_until "$NT_TIMEOUT" test -e "$wire.ready" || nt_fail "sniffer did not start"
	hs_a=$(nt_handshake_ns "$IF_A")
	hs_b=$(nt_handshake_ns "$IF_B")
	rx=$(nt_rx_packets "$IF_A")

	# 1. two hours asleep; b's data on the old session wakes a
	sleep_for 7200
	nt_x "$NS_B" ping -q -c 1 -W 1 198.51.100.1 >/dev/null 2>&1 &&
		nt_fail "a answered b's ping on a session from before the suspend"
	[ "$(nt_rx_packets "$IF_A")" = "$rx" ] ||
		nt_fail "a delivered data on a session from before the suspend"
	nt_ok "a refused b's data on the session from before the suspend"
	t0=$(now_ms)
	nt_x "$NS_A" ping -q -c 1 -W 2 198.51.100.2 >/dev/null 2>&1 ||
		nt_fail "ping a -> b not answered within 2 s of the resume"
	ms=$(($(now_ms) - t0))
	handshake_newer "$IF_A" "$hs_a" || nt_fail "a shows no new handshake after the resume"
	handshake_newer "$IF_B" "$hs_b" || nt_fail "b saw no new handshake after a's resume"
	"$NT_PY" "$WIRE" session "$wire" "$MARK" 192.0.2.1 192.0.2.2 || nt_fail "on the wire at b"
	nt_ok "after the resume a handshook before sending, and its ping came back in $ms ms (ping included)"

	# 2. asleep for 30 s with the tunnel idle but for a's keepalives: a's
	# own deadline wakes it
	nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" persistent-keepalive 1 || nt_fail "persistent keepalive"
	sleep 1.5
	hs_b=$(nt_handshake_ns "$IF_B")
	t0=$(now_ms)
	sleep_for 30
	nt_until 3 handshake_newer "$IF_B" "$hs_b" ||
		nt_fail "no new handshake within 3 s of a resume that only a's timer saw"
	ms=$(($(now_ms) - t0))
	"$NT_PY" "$WIRE" session "$wire" "$MARK" 192.0.2.1 192.0.2.2 || nt_fail "on the wire at b, second resume"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after the second resume"
	nt_ok "woken by its keepalive deadline, a handshook again ${ms} ms after the resume"

	# 3. asleep while a packet waits for a handshake: it survives, and the
	# wakeup (here by the control socket) starts a new handshake for it
	# at once rather than at the next retransmission, 5 s after the first
	nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" persistent-keepalive 0 || nt_fail "keepalive off"
	nt_x "$NS_B" nft -f - <<-NFT || nt_fail "nft drop"
	table inet ntsu { chain input { type filter hook input priority 0; udp dport $NT_PORT drop; }; }
	NFT
	ip -n "$NS_A" link set "$IF_A" down && ip -n "$NS_A" link set "$IF_A" up || nt_fail "a down/up"
	t0=$(now_ms)
	nt_x "$NS_A" ping -q -c 1 -W 4 198.51.100.2 >"$NT_TMP/ping3" 2>&1 &
	local ping=$!
	sleep 0.5
	nt_x "$NS_B" nft delete table inet ntsu || nt_fail "nft delete"
	sleep_for 30
	nt_wg "$IF_A" show "$IF_A" >/dev/null || nt_fail "wg show"
	wait "$ping" || nt_fail "the packet staged before the suspend did not get through within 4 s"
	ms=$(($(now_ms) - t0))
	nt_ok "a packet staged before the suspend got through, $ms ms after it was sent"
	for i in "$IF_A" "$IF_B"; do
		nt_gone "${NT_DPID[$i]}" && nt_fail "$i's daemon died"
	done
	grep -q "the system was suspended for 7200 s" "$NT_TMP/$IF_A.$NT_RUN.log" ||
		nt_fail "a's log does not report the suspend"
	[ "$(grep -c "the system was suspended for 30 s" "$NT_TMP/$IF_A.$NT_RUN.log")" = 2 ] ||
		nt_fail "a's log does not report the 30 s suspends"
	nt_teardown
}

round wgd
round wireguard-go
echo "PASS"
