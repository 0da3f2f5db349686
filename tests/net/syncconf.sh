#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wg syncconf applies only differences, so an unchanged configuration keeps
# the session: same handshake time to the nanosecond, and traffic flows
# without a new handshake.  Checked with the file wgd was set up from, with
# wgd's own showconf output, and with a file that adds an allowed IP.  Then a
# file without the peer: the peer is gone and traffic stops both ways.  wgd
# is side a (the one reconfigured); side b is wireguard-go.

. "$(dirname "$0")/lib.sh"

nt_init sc
nt_pair wgd wireguard-go
(umask 077 && wg genpsk >"$NT_TMP/psk") || nt_fail "wg genpsk"

conf() {
	printf '[Interface]\nPrivateKey = %s\nListenPort = %s\n' "$(cat "${NT_PRIV[$IF_A]}")" "$NT_PORT"
	[ "$1" = nopeer ] && return
	printf '\n[Peer]\nPublicKey = %s\nPresharedKey = %s\n' "${NT_PUB[$IF_B]}" "$(cat "$NT_TMP/psk")"
	printf 'AllowedIPs = 198.51.100.2/32, fd00:2::2/128%s\n' "${2:-}"
	printf 'Endpoint = 192.0.2.2:%s\nPersistentKeepalive = 25\n' "$NT_PORT"
}
(umask 077 && conf peer >"$NT_TMP/a.conf" && conf peer ", 10.9.0.0/16" >"$NT_TMP/a-more.conf" &&
	conf nopeer >"$NT_TMP/a-nopeer.conf") || nt_fail "writing configurations"

nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" preshared-key "$NT_TMP/psk" || nt_fail "psk on b"
nt_wg "$IF_A" setconf "$IF_A" "$NT_TMP/a.conf" || nt_fail "wg setconf"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping after setconf"
nt_ping "$IF_B" fd00:2::1 -6 || nt_fail "ping6 b -> a after setconf"
hs_a=$(nt_handshake_ns "$IF_A")
hs_b=$(nt_handshake_ns "$IF_B")
[ "${hs_a%.*}" != 0 ] || nt_fail "no handshake"
sleep 1.1	# a new handshake would now show a different second

same_session() {
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b after $1"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after $1"
	[ "$(nt_handshake_ns "$IF_A")" = "$hs_a" ] ||
		nt_fail "$1 reset wgd's session: handshake $hs_a -> $(nt_handshake_ns "$IF_A")"
	[ "$(nt_handshake_ns "$IF_B")" = "$hs_b" ] ||
		nt_fail "$1 made the peer handshake again: $hs_b -> $(nt_handshake_ns "$IF_B")"
	nt_ok "$1: same session (handshake $hs_a), traffic flows"
}

nt_wg "$IF_A" syncconf "$IF_A" "$NT_TMP/a.conf" || nt_fail "wg syncconf (unchanged)"
same_session "syncconf with the unchanged file"
nt_wg "$IF_A" showconf "$IF_A" >"$NT_TMP/shown.conf" || nt_fail "wg showconf"
grep -q '^Endpoint = 192.0.2.2:51820$' "$NT_TMP/shown.conf" || nt_fail "showconf lacks the endpoint"
nt_wg "$IF_A" syncconf "$IF_A" "$NT_TMP/shown.conf" || nt_fail "wg syncconf (showconf output)"
same_session "syncconf with wgd's own showconf"
nt_wg "$IF_A" syncconf "$IF_A" "$NT_TMP/a-more.conf" || nt_fail "wg syncconf (one more allowed IP)"
nt_wg "$IF_A" show "$IF_A" allowed-ips | grep -q '10\.9\.0\.0/16' || nt_fail "added allowed IP missing"
same_session "syncconf adding an allowed IP"

nt_wg "$IF_A" syncconf "$IF_A" "$NT_TMP/a-nopeer.conf" || nt_fail "wg syncconf (peer removed)"
[ -z "$(nt_wg "$IF_A" show "$IF_A" peers)" ] || nt_fail "the peer is still listed after syncconf removed it"
nt_noping "$IF_A" 198.51.100.2 || nt_fail "traffic a -> b after the peer was removed"
nt_noping "$IF_B" 198.51.100.1 || nt_fail "traffic b -> a after the peer was removed"
[ "$(nt_wg "$IF_A" show "$IF_A" listen-port)" = "$NT_PORT" ] || nt_fail "listen port changed"
nt_ok "syncconf without the peer removed it; traffic stopped both ways"
nt_gone "${NT_DPID[$IF_A]}" && nt_fail "wgd died"
echo "PASS"
