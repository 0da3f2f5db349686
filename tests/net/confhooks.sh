#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The wg-quick keys around the device, with wgd -c FILE / wgd up IFNAME:
#   - PreUp, PostUp, PreDown, PostDown run in order, several of a kind in
#     file order, with %i replaced; PostUp sees the addresses, PostDown runs
#     once they are gone; a PostUp's `wg set %i` and a PreDown's `wg
#     showconf %i` are answered (the daemon serves while a hook runs);
#   - DNS goes to resolvconf (-a tun.IFNAME -m 0 -x, nameserver and search
#     lines; -d tun.IFNAME -f at exit), here a recording stand-in in PATH;
#     without resolvconf a warning says DNS is not set; on reload, DNS is
#     set again only when it changed, and removed when the file drops it;
#   - a failing PreUp aborts the start (exit 1, the hook named, in the
#     foreground and through the launcher), a failing PostUp too, and either
#     leaves nothing behind;
#   - SaveConfig = true writes back, at exit, a peer added at run time with
#     wg set, mode 0600, keeping the wg-quick keys; the file starts again;
#   - wgd up IFNAME reads $WGD_CONFIG_DIR/IFNAME.conf and returns once up.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init ck
NS=$(nt_name "" x)
nt_netns "$NS"
IFC=$(nt_name wg x)
prog=$(nt_impl wgd) || exit 1
nt_keys "$IFC"
etc=$NT_TMP/etc
mkdir -p "$etc" "$NT_TMP/bin" || nt_fail "mkdir"
conf=$etc/$IFC.conf
hl=$NT_TMP/hooks.log
rl=$NT_TMP/resolvconf.log
cat >"$NT_TMP/bin/resolvconf" <<EOF || nt_fail "resolvconf stand-in"
#!/bin/sh
echo "args: \$*" >>"$rl"
[ "\$1" != -a ] || cat >>"$rl"
EOF
chmod +x "$NT_TMP/bin/resolvconf"

# file EXTRA-INTERFACE-LINES
file() {
	cf_write "$conf" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IFC]}")
Address = 10.98.0.1/24
$1

[Peer]
PublicKey = $(wg genkey | wg pubkey)
AllowedIPs = 10.98.0.2/32
EOF
}

snap0=$(cf_snapshot "$NS")

# ---- hooks in order, %i, DNS ----
hookpeer=$(wg genkey | wg pubkey)
file "PreUp = echo pre-up-1 %i >>$hl
PreUp = echo pre-up-2 %i >>$hl; ip -o addr show dev %i | grep -q 10.98 || echo pre-up-no-address >>$hl
PostUp = ip -o addr show dev %i | grep -q 10.98.0.1 && echo post-up %i has-address >>$hl
PreDown = echo pre-down %i >>$hl
PostDown = echo post-down %i >>$hl; ip -o addr show dev %i | grep -q 10.98 || echo post-down-no-address >>$hl
PostDown = echo post-down-2 >>$hl
PostUp = wg set %i peer $hookpeer allowed-ips 10.96.0.0/24
PreDown = wg showconf %i >$NT_TMP/predown.conf
DNS = 192.0.2.53, example.com, 2001:db8::53, corp.example"
CF_ENV=("PATH=$NT_TMP/bin:$PATH")
cf_start "$NS" "$IFC" "$conf"
nt_wg "$IFC" show "$IFC" allowed-ips | grep -q "^$hookpeer	10.96.0.0/24\$" ||
	nt_fail "PostUp's wg set did not add its peer"
cf_stop "$IFC"
grep -q "^PublicKey = $hookpeer\$" "$NT_TMP/predown.conf" ||
	nt_fail "PreDown's wg showconf: $(cat "$NT_TMP/predown.conf")"
nt_ok "hooks talk to their interface: PostUp's wg set, PreDown's wg showconf"
want="pre-up-1 $IFC
pre-up-2 $IFC
pre-up-no-address
post-up $IFC has-address
pre-down $IFC
post-down $IFC
post-down-no-address
post-down-2"
got=$(cat "$hl")
[ "$got" = "$want" ] || nt_fail "hooks: expected
$want
got
$got"
nt_ok "hooks ran in order with %i replaced; PostUp saw the addresses"
want_rl="args: -a tun.$IFC -m 0 -x
nameserver 192.0.2.53
nameserver 2001:db8::53
search example.com corp.example
args: -d tun.$IFC -f"
[ "$(cat "$rl")" = "$want_rl" ] || nt_fail "resolvconf: expected
$want_rl
got
$(cat "$rl")"
nt_ok "DNS: resolvconf -a tun.$IFC -m 0 -x with nameserver/search lines, -d at exit"
cf_same_snapshot "$snap0" "$(cf_snapshot "$NS")" "hooks"

# DNS on reload: set again only when it changed; removed with the key.
rm -f "$rl"
file "DNS = 192.0.2.53"
cf_start "$NS" "$IFC" "$conf"
reload() {
	local n
	n=$(grep -c "reloaded" "$NT_TMP/$IFC.$NT_RUN.log")
	kill -HUP "${NT_DPID[$IFC]}"
	nt_until "$NT_TIMEOUT" sh -c "[ \$(grep -c reloaded '$NT_TMP/$IFC.$NT_RUN.log') -gt $n ]" ||
		nt_fail "no reload logged"
}
sed -i 's/^PrivateKey/ListenPort = 51998\nPrivateKey/' "$conf"
reload
sed -i 's/^DNS = 192.0.2.53/DNS = 192.0.2.54, example.net/' "$conf"
reload
sed -i '/^DNS/d' "$conf"
reload
cf_stop "$IFC"
want_rl="args: -a tun.$IFC -m 0 -x
nameserver 192.0.2.53
args: -a tun.$IFC -m 0 -x
nameserver 192.0.2.54
search example.net
args: -d tun.$IFC -f"
[ "$(cat "$rl")" = "$want_rl" ] || nt_fail "DNS on reload: expected
$want_rl
got
$(cat "$rl")"
nt_ok "DNS on reload: untouched when unchanged, set again when changed, removed with the key"

# Without resolvconf: a warning, and the interface comes up.
file "DNS = 192.0.2.53"
CF_ENV=(PATH=/nonexistent)
cf_start "$NS" "$IFC" "$conf"
cf_log "$IFC" | grep -q "resolvconf is not installed.*DNS servers.*not set" ||
	nt_fail "no warning that DNS is not set: $(cf_log "$IFC")"
cf_stop "$IFC"
CF_ENV=()
nt_ok "DNS without resolvconf: a warning, the interface up"

# ---- failing PreUp, failing PostUp ----
rm -f "$hl"
file "PreUp = exit 3
PostUp = echo post-up >>$hl
PostDown = echo post-down >>$hl"
for mode in -f ""; do
	out=$(timeout 20 ip netns exec "$NS" "$prog" $mode -c "$conf" 2>&1)
	st=$?
	[ "$st" = 1 ] && grep -q "PreUp 'exit 3' failed with status 3" <<<"$out" ||
		nt_fail "failing PreUp ($mode): status $st: $out"
	ip -n "$NS" link show dev "$IFC" >/dev/null 2>&1 && nt_fail "failing PreUp: link left"
	[ ! -e "/var/run/wireguard/$IFC.sock" ] || nt_fail "failing PreUp: socket file left"
done
[ ! -e "$hl" ] || nt_fail "hooks ran after a failing PreUp: $(cat "$hl")"
cf_same_snapshot "$snap0" "$(cf_snapshot "$NS")" "failing PreUp"
nt_ok "a failing PreUp aborts the start (exit 1, named, in both modes); nothing left"
file "PostUp = false
Table = 123"
out=$(timeout 20 ip netns exec "$NS" "$prog" -c "$conf" 2>&1)
[ $? = 1 ] && grep -q "PostUp 'false' failed with status 1" <<<"$out" ||
	nt_fail "failing PostUp: $out"
cf_same_snapshot "$snap0" "$(cf_snapshot "$NS")" "failing PostUp"
nt_ok "a failing PostUp aborts the start; its routes undone"

# ---- SaveConfig ----
file "SaveConfig = true
ListenPort = 51999
PostUp = true"
new=$(wg genkey | wg pubkey)
cf_start "$NS" "$IFC" "$conf"
nt_wg "$IFC" set "$IFC" peer "$new" allowed-ips 10.97.0.0/24 endpoint 192.0.2.9:1234 ||
	nt_fail "wg set at run time"
cf_stop "$IFC"
[ "$(stat -c %a "$conf")" = 600 ] || nt_fail "SaveConfig: mode $(stat -c %a "$conf")"
"$NT_PY" - "$conf" "$new" <<'EOF' || nt_fail "SaveConfig wrote: $(cat "$conf")"
import sys
text = open(sys.argv[1]).read()
secs = text.split("[Peer]")
iface = secs[0]
assert "SaveConfig = true" in iface and "Address = 10.98.0.1/24" in iface
assert "PostUp = true" in iface and "ListenPort = 51999" in iface
peer = [s for s in secs[1:] if sys.argv[2] in s]
assert len(peer) == 1 and "AllowedIPs = 10.97.0.0/24" in peer[0] and "Endpoint = 192.0.2.9:1234" in peer[0]
assert len(secs) == 3
EOF
ls "$etc" | grep -v "^$IFC.conf\$" && nt_fail "SaveConfig left a temporary file"
nt_ok "SaveConfig: the peer added with wg set written back (0600, wg-quick keys kept)"

# ---- wgd up IFNAME, through the launcher; the saved file starts again ----
timeout 20 env WGD_CONFIG_DIR="$etc" ip netns exec "$NS" "$prog" --pid-file "$NT_TMP/pid" up "$IFC" \
	>"$NT_TMP/up.log" 2>&1 || nt_fail "wgd up $IFC: $(cat "$NT_TMP/up.log")"
NT_NS[$IFC]=$NS
NT_IFACES+=("$IFC")
NT_DPID[$IFC]=$(cat "$NT_TMP/pid")
cf_json "$NS" addr show dev "$IFC" 'any(x["local"] == "10.98.0.1" for x in d[0]["addr_info"])' ||
	nt_fail "wgd up returned before the address was set"
nt_wg "$IFC" show "$IFC" peers | grep -qx "$new" || nt_fail "the saved peer is not back"
nt_stop_daemon "$IFC"
nt_wait_gone "${NT_DPID[$IFC]}" 5
nt_ok "wgd up $IFC: \$WGD_CONFIG_DIR/$IFC.conf, up on return; the saved peer back"
echo "PASS"
