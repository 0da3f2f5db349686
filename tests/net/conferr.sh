#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A wg-quick file with an error is refused with its name and line number,
# before anything exists: for each kind of error (unknown key, bad key, bad
# address, bad port, a [Peer] without PublicKey, ...) `wgd -f -c FILE` and
# `wgd -c FILE` (the launcher) exit 1 naming FILE:LINE, and no link, no
# socket file and no address or route was made.  A file name that is no
# interface name is refused clearly.  Then the same files, given to a
# running daemon on SIGHUP, are refused with their line numbers and the
# running state (wg showconf, links, addresses, routes, rules) stays as it was;
# that file, readable by others, drew one warning, at start.  Any group or
# other bit of the file (0640, 0620, 0602, 0610, ...) or of its directory
# (0750, 0770, 1777, ...) draws a warning naming the mode; 0600 in 0700, none.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init ce
NS=$(nt_name "" x)
nt_netns "$NS"
IFC=$(nt_name wg x)
prog=$(nt_impl wgd) || exit 1
key=$(wg genkey)
pub=$(wg genkey | wg pubkey)
conf=$NT_TMP/$IFC.conf

# good: a valid file; line numbers below refer to its layout.
good() {
	cat <<EOF
[Interface]
PrivateKey = $key
ListenPort = 51820
Address = 10.99.0.1/24

[Peer]
PublicKey = $pub
AllowedIPs = 10.99.0.2/32
Endpoint = 192.0.2.2:51820
EOF
}

# cases: "LINE|sed expression that breaks that line of good()|what"
cases=(
	"3|3s/.*/Frobnicate = 1/|unknown key"
	"2|2s/= .*/= notbase64/|bad private key"
	"4|4s/24/33/|bad address prefix"
	"4|4s/10.99.0.1/10.99.0.300/|bad address"
	"3|3s/51820/70000/|listen port out of range"
	"3|3s/51820/port/|listen port not a number"
	"7|7s/= .*/= AAAA/|bad public key"
	"8|8s/32/40/|bad allowed IP"
	"9|9s/:51820//|endpoint without a port"
	"6|7d|[Peer] without PublicKey"
	"6|6s/.*/[Peers]/|unknown section"
	"1|1s/.*/Address = 10.0.0.1\/24/|key outside a section"
)

snap0=$(cf_snapshot "$NS")
n=0
for c in "${cases[@]}"; do
	IFS='|' read -r line expr what <<<"$c"
	good | sed "$expr" | cf_write "$conf"
	for mode in -f ""; do
		n=$((n + 1))
		out=$(timeout 20 ip netns exec "$NS" "$prog" $mode -c "$conf" 2>&1)
		st=$?
		[ "$st" = 1 ] || nt_fail "$what: wgd $mode -c exited with $st, not 1: $out"
		grep -q "$(basename "$conf"):$line:" <<<"$out" ||
			nt_fail "$what: the error does not name $(basename "$conf"):$line: $out"
		ip -n "$NS" link show dev "$IFC" >/dev/null 2>&1 && nt_fail "$what: link $IFC exists"
		[ ! -e "/var/run/wireguard/$IFC.sock" ] || nt_fail "$what: socket file exists"
		cf_same_snapshot "$snap0" "$(cf_snapshot "$NS")" "$what"
	done
	nt_ok "$what: refused at start with line $line (${out##*: }), nothing created"
done

# A file whose name is no interface name (a space, too long).
for bad in "has space" "abcdefghijklmnop"; do
	good | cf_write "$NT_TMP/$bad.conf"
	out=$(timeout 20 ip netns exec "$NS" "$prog" -f -c "$NT_TMP/$bad.conf" 2>&1)
	st=$?
	[ "$st" = 1 ] && grep -q "not a valid interface name" <<<"$out" ||
		nt_fail "file '$bad.conf': status $st, $out"
done
nt_ok "a file name that is not an interface name is refused: ${out#*: }"

# wgd up NAME: WGD_CONFIG_DIR/NAME.conf; a missing file is named.
out=$(WGD_CONFIG_DIR=$NT_TMP/nonexistent timeout 20 ip netns exec "$NS" "$prog" -f up "$IFC" 2>&1)
[ $? = 1 ] && grep -q "$NT_TMP/nonexistent/$IFC.conf" <<<"$out" ||
	nt_fail "wgd up with a missing file: $out"
nt_ok "wgd up: a missing file is refused with its path"

# ---- the same errors on reload ----
good | cf_write "$conf"
chmod 644 "$conf"	# others may read it: warned about once, not at each reload
cf_start "$NS" "$IFC" "$conf"
state() { nt_wg "$IFC" showconf "$IFC"; cf_snapshot "$NS"; }
before=$(state)
k=0
for c in "${cases[@]}"; do
	IFS='|' read -r line expr what <<<"$c"
	good | sed "$expr" | cf_write "$conf"
	k=$((k + 1))
	kill -HUP "${NT_DPID[$IFC]}"
	# The k-th refusal in the log.
	got() { [ "$(grep -c 'reload: .*nothing changed' "$NT_TMP/$IFC.$NT_RUN.log")" -ge "$k" ]; }
	nt_until "$NT_TIMEOUT" got || nt_fail "$what: no refusal logged after SIGHUP"
	grep 'reload: .*nothing changed' "$NT_TMP/$IFC.$NT_RUN.log" | sed -n "${k}p" |
		grep -q "$(basename "$conf"):$line:" || nt_fail "$what: the reload error does not name line $line"
	[ "$(state)" = "$before" ] || nt_fail "$what: the refused reload changed the running state"
done
nt_ok "every error refused on SIGHUP with its line; the running state unchanged"
[ "$(grep -c "$(basename "$conf") has mode 0644: other users may read it; it holds the private key" \
	"$NT_TMP/$IFC.$NT_RUN.log")" = 1 ] || nt_fail "no single warning about a file others may read"
nt_ok "a file others may read: one warning at start"
cf_stop "$IFC"

# ---- exposure: any access of others to the file or its directory ----
# As wg-quick warns, and on group bits and writes too: the file holds the
# private key and names root's hooks.  Each start fails right after the
# load (IFNAME lo is no TUN device), so only the warnings are looked at.
mkdir -m 0700 "$NT_TMP/ex" || nt_fail "mkdir"
good | cf_write "$NT_TMP/ex/x.conf"
# exposed DIRMODE FILEMODE: the warnings of a start with those modes.
exposed() {
	chmod "$1" "$NT_TMP/ex" && chmod "$2" "$NT_TMP/ex/x.conf" || nt_fail "chmod $1 $2"
	ip netns exec "$NS" "$prog" -f -c "$NT_TMP/ex/x.conf" lo 2>&1 | grep 'warning: .* mode'
}
[ -z "$(exposed 0700 0600)" ] || nt_fail "a warning for a 0600 file in a 0700 directory: $(exposed 0700 0600)"
[ -z "$(exposed 0700 0400)" ] || nt_fail "a warning for a 0400 file in a 0700 directory"
for m in 0640:read 0604:read 0620:write 0602:write 0660:"read and write" 0606:"read and write" 0610:reach 0601:reach; do
	out=$(exposed 0700 "${m%%:*}")
	grep -q "x.conf has mode ${m%%:*}: other users may ${m#*:} it;" <<<"$out" ||
		nt_fail "file mode ${m%%:*}: no warning that others may ${m#*:} it: '$out'"
	[ "$(wc -l <<<"$out")" = 1 ] || nt_fail "file mode ${m%%:*}: not one warning: $out"
done
nt_ok "a file with any group or other bit (read, write or execute alone): one warning naming the mode"
for m in 0750:"look into it" 0705:"look into it" 0710:"look into it" 0770:"replace the file" 0702:"replace the file" 1777:"replace the file"; do
	out=$(exposed "${m%%:*}" 0600)
	grep -q "ex, the directory of .*x.conf, has mode ${m%%:*}: other users may ${m#*:}" <<<"$out" ||
		nt_fail "directory mode ${m%%:*}: no warning that others may ${m#*:}: '$out'"
	[ "$(wc -l <<<"$out")" = 1 ] || nt_fail "directory mode ${m%%:*}: not one warning: $out"
done
[ "$(exposed 0755 0644 | wc -l)" = 2 ] || nt_fail "a 0644 file in a 0755 directory: not two warnings"
chmod 0700 "$NT_TMP/ex"
nt_ok "a directory with any group or other bit: one warning naming its mode; both: two"
echo "PASS"
