#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# daemon/config/conffile.c and conffile_print.c against the real wg(8): a wgd
# is configured with `wg setconf` from a file with several peers (preshared
# keys, IPv4, IPv6 and link-local endpoints, keepalives, many allowed IPs, a
# fwmark), and the text of `wg showconf` parsed and printed by conffile_tool
# must be that text byte for byte.  In wg-quick's form, the same text with
# wg-quick's keys put in [Interface] the way its save_config does it must
# come back unchanged too.
# Then a device without peers (wg's blank line at the end, wg-quick's none).
#
# Environment: WGD (the daemon), CONFFILE_TOOL (tests/config/conffile_tool).

. "$(dirname "$0")/lib.sh"

nt_init cf
tool=${CONFFILE_TOOL:-}
[ -x "$tool" ] || nt_fail "CONFFILE_TOOL is not set to conffile_tool (got '$tool'); meson sets it"

NS=$(nt_name "" a)
IF=$(nt_name wg a)
nt_netns "$NS"
nt_daemon "$NS" "$IF" wgd

key() { wg genkey | wg pubkey; }
conf=$NT_TMP/set.conf
{
	echo "[Interface]"
	echo "PrivateKey = $(wg genkey)"
	echo "ListenPort = 51999"
	echo "FwMark = 0x1234"
	echo
	echo "[Peer]"
	echo "PublicKey = $(key)"
	echo "PresharedKey = $(wg genpsk)"
	echo "Endpoint = 192.0.2.7:51820"
	printf 'AllowedIPs = 10.0.0.0/24'
	for i in $(seq 1 40); do printf ', 10.%d.%d.0/24, fd00:%x::/64' "$i" "$((i * 3))" "$i"; done
	echo
	echo "PersistentKeepalive = 25"
	echo
	echo "[Peer]"
	echo "PublicKey = $(key)"
	echo "PresharedKey = $(wg genpsk)"
	echo "Endpoint = [2001:db8::7]:4444"
	echo "AllowedIPs = 0.0.0.0/0, ::/0"
	echo "PersistentKeepalive = 65535"
	echo
	echo "[Peer]"
	echo "PublicKey = $(key)"
	echo "Endpoint = [fe80::1%lo]:1"
	echo
	echo "[Peer]"
	echo "PublicKey = $(key)"
	echo "AllowedIPs = 198.51.100.9/32"
} >"$conf"
nt_wg "$IF" setconf "$IF" "$conf" || nt_fail "wg setconf"
nt_wg "$IF" showconf "$IF" >"$NT_TMP/showconf" 2>/dev/null || nt_fail "wg showconf"

# What wg shows must hold what the file set, or equality would prove little.
sc=$NT_TMP/showconf
[ "$(grep -c '^\[Peer\]$' "$sc")" = 4 ] || nt_fail "showconf has not 4 peers: $(cat "$sc")"
[ "$(grep -c '^PresharedKey = ' "$sc")" = 2 ] || nt_fail "showconf has not 2 preshared keys"
grep -qx 'FwMark = 0x1234' "$sc" || nt_fail "showconf has no fwmark"
grep -qx 'Endpoint = \[fe80::1%lo\]:1' "$sc" || nt_fail "showconf lacks the link-local endpoint"
grep -qx 'Endpoint = \[2001:db8::7\]:4444' "$sc" || nt_fail "showconf lacks the IPv6 endpoint"
[ "$(grep '^AllowedIPs = 10.0.0.0' "$sc" | tr ',' '\n' | wc -l)" = 81 ] ||
	nt_fail "showconf lacks allowed IPs"

# compare NAME EXPECTED FORMAT INPUT
compare() {
	nt_x "$NS" "$tool" print "$3" "$4" >"$NT_TMP/$1.out" || nt_fail "$1: conffile_tool print $3 failed"
	if ! cmp -s "$2" "$NT_TMP/$1.out"; then
		diff -u "$2" "$NT_TMP/$1.out" >&2
		nt_fail "$1: conffile_tool's print differs (- expected, + conffile_tool)"
	fi
	nt_ok "$1: byte for byte ($(wc -c <"$2") bytes)"
}

# wg-quick's save_config: "[Interface]\n" of wg showconf replaced by the
# header with its own keys, the result through $(...) and echo.
quick_form() {
	local current new
	current=$(cat "$1")
	new=$'[Interface]\nAddress = 10.0.0.1/24\nAddress = fd00::1/64\nDNS = 10.0.0.53\nDNS = example.com\n'
	new+=$'MTU = 1380\nTable = 1234\nSaveConfig = true\nPreUp = echo up %i\nPostUp = echo a  b\n'
	new+=$'PostUp = echo c\nPreDown = echo d\nPostDown = echo e\n'
	echo "${current/\[Interface\]$'\n'/$new}"
}

compare showconf "$sc" wg "$sc"
quick_form "$sc" >"$NT_TMP/quick.conf"
compare showconf-quick "$NT_TMP/quick.conf" quick "$NT_TMP/quick.conf"

# No peers: only a private key (the daemon picks a port at link up, as the
# kernel does: the sockets follow the link, doc/protocol.md §8).
printf '[Interface]\nPrivateKey = %s\n' "$(wg genkey)" >"$NT_TMP/bare.conf"
nt_wg "$IF" setconf "$IF" "$NT_TMP/bare.conf" || nt_fail "wg setconf (no peers)"
ip -n "$NS" link set "$IF" up || nt_fail "link up"
nt_wg "$IF" showconf "$IF" >"$NT_TMP/bare.showconf" 2>/dev/null || nt_fail "wg showconf (no peers)"
grep -q '^ListenPort = [1-9]' "$NT_TMP/bare.showconf" || nt_fail "no port in $(cat "$NT_TMP/bare.showconf")"
compare bare "$NT_TMP/bare.showconf" wg "$NT_TMP/bare.showconf"
quick_form "$NT_TMP/bare.showconf" >"$NT_TMP/bare-quick.conf"
compare bare-quick "$NT_TMP/bare-quick.conf" quick "$NT_TMP/bare-quick.conf"

nt_gone "${NT_DPID[$IF]}" && nt_fail "wgd died"
echo "PASS"
