#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# SIGHUP makes wgd -c FILE re-read its file and apply only what changed:
# a peer removed, a peer added, a peer's PersistentKeepalive changed, an
# address added, the MTU and FwMark changed; the routes follow the peers.  The session
# with the unchanged peer b survives (the same handshake time to the
# nanosecond, on both sides), and b's endpoint as learned at run time stays,
# as b's Endpoint line did not change.  Then a file with an error is refused
# on SIGHUP with its line number, and nothing changes.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init cl
cf_pair
# A second address of b's, to which a's endpoint of b moves at run time.
ip -n "$NS_B" addr add 192.0.2.12/24 dev "$VETH_B" || nt_fail "second outer address of b"
X=$(wg genkey | wg pubkey)
Y=$(wg genkey | wg pubkey)
conf=$NT_TMP/$IF_A.conf

# conf_with "PEER-X-OR-Y-SECTION" ADDRESSES MTU KEEPALIVE-LINE [INTERFACE-LINE]
conf_with() {
	cf_write "$conf" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
ListenPort = $NT_PORT
Address = $2
MTU = $3
${5:-}

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
Endpoint = 192.0.2.2:$NT_PORT
AllowedIPs = 198.51.100.2/32, fd00:2::2/128
$4

$1
EOF
}

conf_with "[Peer]
PublicKey = $X
AllowedIPs = 10.7.0.0/24" "198.51.100.1/24, fd00:2::1/64" 1420 ""
cf_start "$NS_A" "$IF_A" "$conf"
cf_log "$IF_A" | grep -q "warning: .* has mode" && nt_fail "a warning about a file of mode 0600: $(cf_log "$IF_A" | grep "has mode")"
cf_json "$NS_A" -4 route show dev "$IF_A" 'any(r["dst"] == "10.7.0.0/24" for r in d)' ||
	nt_fail "no route for x's 10.7.0.0/24"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b before the reload"
# b's endpoint moves as by roaming: a now reaches b at 192.0.2.12.
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" endpoint "192.0.2.12:$NT_PORT" || nt_fail "endpoint"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b at its second address"
hs_a=$(nt_handshake_ns_of "$IF_A" "${NT_PUB[$IF_B]}")
hs_b=$(nt_handshake_ns_of "$IF_B" "${NT_PUB[$IF_A]}")
[ "${hs_a%.*}" != 0 ] || nt_fail "no handshake with b"

# ---- reload: x gone, y new, b's keepalive, an address, the MTU ----
conf_with "[Peer]
PublicKey = $Y
AllowedIPs = 10.8.0.0/24" "198.51.100.1/24, fd00:2::1/64, 198.51.100.11/32" 1400 \
	"PersistentKeepalive = 25" "FwMark = 0x1234"
kill -HUP "${NT_DPID[$IF_A]}"
peers_now() {
	[ "$(nt_wg "$IF_A" show "$IF_A" peers | sort)" = "$(printf '%s\n' "${NT_PUB[$IF_B]}" "$Y" | sort)" ]
}
nt_until "$NT_TIMEOUT" peers_now || nt_fail "after SIGHUP: peers are $(nt_wg "$IF_A" show "$IF_A" peers)"
cf_log "$IF_A" | grep -q "1 added, 1 removed, 1 changed" ||
	nt_fail "no reload summary in the log: $(cf_log "$IF_A" | tail -n 3)"
nt_ok "reload: peer x removed, peer y added, b changed (summary logged)"
[ "$(nt_field "$IF_A" "${NT_PUB[$IF_B]}" 8)" = 25 ] || nt_fail "b's keepalive not 25 after the reload"
[ "$(nt_endpoint_of "$IF_A")" = "192.0.2.12:$NT_PORT" ] ||
	nt_fail "b's endpoint learned at run time replaced by the reload: $(nt_endpoint_of "$IF_A")"
cf_json "$NS_A" -4 route show dev "$IF_A" '
r = {x["dst"] for x in d}
"10.8.0.0/24" in r and "10.7.0.0/24" not in r' ||
	nt_fail "routes did not follow the peers: $(ip -n "$NS_A" -4 route show dev "$IF_A")"
cf_json "$NS_A" addr show dev "$IF_A" '
any(x["local"] == "198.51.100.11" for x in d[0]["addr_info"]) and d[0]["mtu"] == 1400' ||
	nt_fail "address 198.51.100.11 and MTU 1400 expected: $(ip -n "$NS_A" addr show dev "$IF_A")"
[ "$(nt_wg "$IF_A" show "$IF_A" fwmark)" = 0x1234 ] || nt_fail "FwMark 0x1234 not applied by the reload"
nt_ok "reload: routes, the new address, MTU 1400 and FwMark follow the file; b's endpoint stays"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b after the reload"
[ "$(nt_handshake_ns_of "$IF_A" "${NT_PUB[$IF_B]}")" = "$hs_a" ] ||
	nt_fail "a's session with b did not survive the reload (handshake $hs_a, now $(nt_handshake_ns_of "$IF_A" "${NT_PUB[$IF_B]}"))"
[ "$(nt_handshake_ns_of "$IF_B" "${NT_PUB[$IF_A]}")" = "$hs_b" ] ||
	nt_fail "b saw a new handshake after a's reload"
nt_ok "reload: b's session survives (same handshake time on both sides)"

# ---- a bad file on reload changes nothing ----
state() { nt_wg "$IF_A" showconf "$IF_A"; cf_snapshot "$NS_A"; }
good=$(state)
cp "$conf" "$conf.good"
sed -i 's/^MTU = 1400/MTU = 1300\nFrobnicate = yes/' "$conf"
line=$(grep -n '^Frobnicate' "$conf" | cut -d: -f1)
kill -HUP "${NT_DPID[$IF_A]}"
nt_until "$NT_TIMEOUT" sh -c "grep -q '$(basename "$conf"):$line:' '$NT_TMP/$IF_A.$NT_RUN.log'" ||
	nt_fail "no error naming $(basename "$conf"):$line after SIGHUP: $(cf_log "$IF_A" | tail -n 3)"
[ "$(state)" = "$good" ] || nt_fail "a bad file changed the running state"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b after the refused reload"
nt_ok "reload of a bad file: error at line $line logged, nothing changed"
cf_stop "$IF_A"
echo "PASS"
