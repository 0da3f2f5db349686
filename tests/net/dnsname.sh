#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Endpoints given as host names (daemon/bringup/dnsnames.c, through wgd -c FILE),
# with names from an /etc/hosts the test controls: `ip netns exec`
# bind-mounts the files of /etc/netns/NS over /etc, and a file rewritten in
# place is seen at once.  Side a runs wgd -c with two peers by name, b as
# peerb.test and c as nothere.test (which does not resolve at first), and
# drops to the user nobody.  WGD_RERESOLVE_SECONDS=12: a peer is stale
# after 12 s without a handshake.
#
#   1. peerb.test resolves to b: the tunnel pings.  The thread that
#      resolves has the dropped privileges: every thread of the daemon has
#      its user, capabilities, bounding set and no_new_privs.
#   2. b's outer address changes (the old one is gone) and b forgets a, so
#      that only the name can bring them together: a re-resolves the stale
#      peer and the tunnel pings again.
#   3. b roams once more while handshaking, the name still pointing at the
#      old address: a reload (SIGHUP) re-resolves every name, but b's
#      endpoint stays where its authenticated packets put it.
#   4. nothere.test: logged once, retried; when it appears, c gets it.
#   5. Shutdown while a lookup hangs (a DNS server that never answers):
#      the daemon exits within 2.5 s all the same.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init dn
nt_need ss

ETC_NS=
dn_cleanup() {
	local rc=$?
	# /etc/netns itself stays: other tests may be using it.
	[ -n "$ETC_NS" ] && rm -rf "$ETC_NS"
	(exit "$rc")
	nt_cleanup
}
trap dn_cleanup EXIT
CF_ENV=(WGD_RERESOLVE_SECONDS=12)
NT_LOG_LEVEL=debug

# within SECONDS COMMAND...: COMMAND succeeds within SECONDS of wall time
# (nt_until counts polls, which a slow COMMAND stretches).
within() {
	local end=$(($(date +%s) + $1))
	shift
	while [ "$(date +%s)" -lt "$end" ]; do
		"$@" >/dev/null 2>&1 && return 0
		sleep "$NT_POLL"
	done
	return 1
}

count_in_log() { cf_log "$1" | grep -c -- "$2"; }
has_endpoint() { [ "$(nt_wg "$1" show "$1" endpoints | awk -v k="$2" '$1 == k { print $2 }')" = "$3" ]; }
status_of() { awk -v k="$2:" '$1 == k { $1 = ""; print }' "$1/status"; }

nt_topo
IF_A=$(nt_name wg a)
IF_B=$(nt_name wg b)
nt_keys "$IF_A"
nt_keys "$IF_B"
PUB_C=$(wg genkey | wg pubkey) || nt_fail "wg genkey"

ETC_NS=/etc/netns/$NS_A
mkdir -p "$ETC_NS" || nt_fail "mkdir $ETC_NS"
printf 'hosts: files\n' >"$ETC_NS/nsswitch.conf"
HOSTS=$ETC_NS/hosts
printf '127.0.0.1 localhost\n192.0.2.2 peerb.test\n' >"$HOSTS"

cf_write "$NT_TMP/$IF_A.conf" <<END
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
ListenPort = $NT_PORT
Address = 198.51.100.1/24
Table = off

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
AllowedIPs = 198.51.100.2/32
Endpoint = peerb.test:$NT_PORT

[Peer]
PublicKey = $PUB_C
AllowedIPs = 198.51.100.3/32
Endpoint = nothere.test:$NT_PORT
END
nt_daemon "$NS_B" "$IF_B" wgd
nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" \
	peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32 || nt_fail "wg set $IF_B"
nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64
cf_start "$NS_A" "$IF_A" "$NT_TMP/$IF_A.conf" --user nobody

# 1. The name resolves.
nt_until "$NT_TIMEOUT" has_endpoint "$IF_A" "${NT_PUB[$IF_B]}" "192.0.2.2:$NT_PORT" ||
	nt_fail "peerb.test did not become b's endpoint: $(nt_wg "$IF_A" show "$IF_A" endpoints)"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping through the tunnel to peerb.test"
nt_ok "peerb.test resolved to 192.0.2.2, the tunnel pings"
main=/proc/${NT_DPID[$IF_A]}
[ "$(status_of "$main" NoNewPrivs)" = " 1" ] || nt_fail "the daemon did not drop its privileges"
threads=0
for t in "$main"/task/*; do
	threads=$((threads + 1))
	for k in Uid Gid NoNewPrivs CapBnd CapPrm CapEff; do
		[ "$(status_of "$t" "$k")" = "$(status_of "$main" "$k")" ] ||
			nt_fail "thread ${t##*/}: $k is$(status_of "$t" "$k"), the daemon's$(status_of "$main" "$k")"
	done
done
[ "$threads" -ge 2 ] || nt_fail "no resolver thread"
nt_ok "all $threads threads run with the dropped user, capabilities and no_new_privs"

# 2. b moves, the name follows; a's pings fail until a re-resolves.  b
# forgets a (its session and the endpoint it learnt), so that it cannot
# reach a first: only the name can bring them together again.
nt_x "$NS_B" sysctl -qw "net.ipv4.conf.$VETH_B.promote_secondaries=1" || nt_fail sysctl
ip -n "$NS_B" addr add 192.0.2.12/24 dev "$VETH_B" || nt_fail "new address"
ip -n "$NS_B" addr del 192.0.2.2/24 dev "$VETH_B" || nt_fail "old address"
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" remove || nt_fail "remove a on b"
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32 || nt_fail "re-add a on b"
printf '127.0.0.1 localhost\n192.0.2.12 peerb.test\n' >"$HOSTS"
t0=$(date +%s)
within 60 nt_x "$NS_A" ping -q -c 1 -W 1 198.51.100.2 ||
	nt_fail "the tunnel did not follow peerb.test to 192.0.2.12 within 60 s"
has_endpoint "$IF_A" "${NT_PUB[$IF_B]}" "192.0.2.12:$NT_PORT" || nt_fail "b's endpoint is not 192.0.2.12"
cf_log "$IF_A" | grep -q "peerb.test:$NT_PORT: the peer's endpoint is now 192.0.2.12:$NT_PORT" ||
	nt_fail "the move is not logged"
nt_ok "b moved to 192.0.2.12 and the tunnel followed the name after $(($(date +%s) - t0)) s"

# 3. b roams to 192.0.2.22 and handshakes from there (a fresh session it
# starts); the name still says 192.0.2.12.  A reload re-resolves it, and
# the answer is not taken: b is not stale.
ip -n "$NS_B" addr add 192.0.2.22/24 dev "$VETH_B" || nt_fail "roaming address"
ip -n "$NS_B" addr del 192.0.2.12/24 dev "$VETH_B" || nt_fail "address before roaming"
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" remove || nt_fail "remove a on b"
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32 \
	endpoint "192.0.2.1:$NT_PORT" || nt_fail "re-add a on b"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "no ping from b after roaming"
has_endpoint "$IF_A" "${NT_PUB[$IF_B]}" "192.0.2.22:$NT_PORT" || nt_fail "a did not learn b's roaming address"
KEPT="peerb.test:$NT_PORT is 192.0.2.12:$NT_PORT; the peer's endpoint is kept"
kept=$(count_in_log "$IF_A" "$KEPT")
kept_again() { [ "$(count_in_log "$IF_A" "$KEPT")" -gt "$kept" ]; }
kill -HUP "${NT_DPID[$IF_A]}" || nt_fail "SIGHUP"
nt_until "$NT_TIMEOUT" kept_again || nt_fail "the reload did not re-resolve peerb.test (or moved b)"
has_endpoint "$IF_A" "${NT_PUB[$IF_B]}" "192.0.2.22:$NT_PORT" ||
	nt_fail "the re-resolution moved b back from where it roamed: $(nt_wg "$IF_A" show "$IF_A" endpoints)"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping to b at its roaming address"
nt_ok "b roamed to 192.0.2.22 while handshaking; a reload's re-resolution left it there"

# 4. The name that did not resolve: one error in the log, though tried
# again and again; the daemon runs on, and takes the name when it appears.
[ "$(count_in_log "$IF_A" "endpoint nothere.test:$NT_PORT: nothere.test: .*trying again")" = 1 ] ||
	nt_fail "nothere.test's failure is not logged exactly once: $(cf_log "$IF_A" | grep nothere | head -5)"
printf '127.0.0.1 localhost\n192.0.2.12 peerb.test\n192.0.2.99 nothere.test\n' >"$HOSTS"
nt_until 30 has_endpoint "$IF_A" "$PUB_C" "192.0.2.99:$NT_PORT" ||
	nt_fail "nothere.test was not retried once it resolved"
cf_log "$IF_A" | grep -q "endpoint nothere.test:$NT_PORT resolves again" || nt_fail "the recovery is not logged"
nt_ok "nothere.test: logged once, retried, taken when it resolved"
cf_stop "$IF_A"

# 5. A lookup that hangs: a DNS server (a socket that never answers) and a
# name only DNS knows.  SIGTERM while it runs.
printf 'hosts: files dns\n' >"$ETC_NS/nsswitch.conf"
printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:1\n' >"$ETC_NS/resolv.conf"
nt_bg "$NS_A" "$NT_PY" -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
time.sleep(100)'
queued() { ip netns exec "$NS_A" ss -uanH 'sport = :53' | awk '$2 > 0 { f = 1 } END { exit !f }'; }
nt_until "$NT_TIMEOUT" sh -c "ip netns exec '$NS_A' ss -uanH 'sport = :53' | grep -q ." ||
	nt_fail "the silent DNS server did not start"
IF_C=$(nt_name wg c)
cf_write "$NT_TMP/$IF_C.conf" <<END
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
AllowedIPs = 198.51.100.2/32
Endpoint = slow.test:$NT_PORT
END
cf_start "$NS_A" "$IF_C" "$NT_TMP/$IF_C.conf" --user nobody
nt_until "$NT_TIMEOUT" queued || nt_fail "no DNS query for slow.test"
pid=${NT_DPID[$IF_C]}
t0=$(date +%s%N)
kill -TERM "$pid"
nt_wait_gone "$pid" 2.5 || nt_fail "the daemon did not exit within 2.5 s of SIGTERM during a lookup"
wait "$pid"
st=$?
unset "NT_DPID[$IF_C]"
[ "$st" = 0 ] || nt_fail "the daemon exited with status $st"
cf_log "$IF_C" | grep -q "a name lookup is still running; not waiting for it" ||
	nt_fail "the abandoned lookup is not logged"
nt_ok "SIGTERM during a hanging lookup: exited after $((($(date +%s%N) - t0) / 1000000)) ms"
echo "PASS"
