#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What Debian's wg shows about wgd is what it shows about wireguard-go.  The
# same scenario runs twice with the same keys and interface names: side a is
# first wgd, then wireguard-go; side b is always wireguard-go.  Side a has a
# fwmark, a peer with a preshared key, endpoint, several allowed IPs and a
# persistent keepalive that has completed a handshake and carried traffic,
# and a second peer that never did.  Every view of wg (show, show dump, each
# show field, showconf) is captured; values that depend on timing (the
# handshake time, byte counts) are replaced by what they must satisfy, the
# order inside allowed-IP lists is ignored, and the two runs must then be
# identical.

. "$(dirname "$0")/lib.sh"

nt_init sh

NORM='
import re, sys, time
now = int(time.time())
def hs(v):
    v = int(v)
    if v == 0:
        return "0"
    return "RECENT" if 0 <= now - v <= 60 else "STALE(%d)" % (now - v)
def pos(v):
    return "POS" if int(v) > 0 else "0"
def ips(v, sep):
    return sep.join(sorted(x.strip() for x in v.split(sep.strip() or sep)))
view = sys.argv[1]
out = []
for line in sys.stdin.read().splitlines():
    f = line.split("\t")
    if view == "dump" and len(f) == 8:
        f[3] = ips(f[3], ",")
        f[4] = hs(f[4]); f[5] = pos(f[5]); f[6] = pos(f[6])
    elif view == "latest-handshakes" and len(f) == 2:
        f[1] = hs(f[1])
    elif view == "transfer" and len(f) == 3:
        f[1] = pos(f[1]); f[2] = pos(f[2])
    elif view == "allowed-ips" and len(f) == 2:
        f[1] = ips(f[1], " ")
    line = "\t".join(f)
    line = re.sub(r"(latest handshake: ).*", r"\1RECENT", line)
    m = re.match(r"(\s*transfer: )(.*) received, (.*) sent$", line)
    if m:
        line = m.group(1) + " received, ".join(
            "0" if v == "0 B" else "POS" for v in m.group(2, 3)) + " sent"
    m = re.match(r"(\s*allowed ips: )(.*)", line)
    if m and m.group(2) != "(none)":
        line = m.group(1) + ips(m.group(2), ", ")
    m = re.match(r"(AllowedIPs = )(.*)", line)
    if m:
        line = m.group(1) + ips(m.group(2), ", ")
    out.append(line)
# wg prints peers in the order the daemon lists them (wireguard-go: a Go map,
# so random) except in the pretty "show", which sorts by handshake time.
if view == "dump":
    out = out[:1] + sorted(out[1:])
elif view == "showconf":
    text = "\n".join(out)
    head, *peers = text.split("\n[Peer]\n")
    out = [head] + ["[Peer]\n" + p.strip("\n") for p in sorted(peers)]
elif view != "show":
    out = sorted(out)
print("\n".join(out))
'

VIEWS="dump public-key private-key listen-port fwmark peers preshared-keys endpoints allowed-ips latest-handshakes transfer persistent-keepalive"

# scenario ROLE_A OUTDIR
scenario() {
	local role=$1 out=$2 v
	mkdir -p "$out"
	nt_pair "$role" wireguard-go
	[ -f "$NT_TMP/psk" ] || (umask 077 && wg genpsk >"$NT_TMP/psk") || nt_fail "wg genpsk"
	[ -n "${PUB_C:-}" ] || PUB_C=$(wg genkey | wg pubkey) || nt_fail "third key"
	# b first: a's keepalive starts a handshake at once, which needs b's PSK.
	nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" preshared-key "$NT_TMP/psk" \
		endpoint 192.0.2.1:$NT_PORT || nt_fail "wg set on the wireguard-go side"
	# Peer c in its own set: wireguard-go 0.0.20220316 carries the "keepalive
	# turned on" flag over to the next peer of the same set operation and
	# would send c a keepalive, which wgd rightly does not.
	nt_wg "$IF_A" set "$IF_A" fwmark 0x1234 \
		peer "$PUB_C" allowed-ips 10.10.0.0/16,fd00:9::/64 endpoint "[fd00:1::99]:4444" ||
		nt_fail "wg set on $role"
	nt_wg "$IF_A" set "$IF_A" \
		peer "${NT_PUB[$IF_B]}" preshared-key "$NT_TMP/psk" endpoint 192.0.2.2:$NT_PORT \
		allowed-ips 198.51.100.2/32,fd00:2::2/128,10.9.0.0/16,fd00:99::/48 persistent-keepalive 25 ||
		nt_fail "wg set on $role"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "$role: ping a -> b"
	nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "$role: ping6 a -> b"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "$role: ping b -> a"
	nt_wg "$IF_A" show "$IF_A" | "$NT_PY" -c "$NORM" show >"$out/show" || nt_fail "wg show ($role)"
	nt_wg "$IF_A" showconf "$IF_A" | "$NT_PY" -c "$NORM" showconf >"$out/showconf" ||
		nt_fail "wg showconf ($role)"
	for v in $VIEWS; do
		if [ "$v" = dump ]; then
			nt_wg "$IF_A" show "$IF_A" dump
		else
			nt_wg "$IF_A" show "$IF_A" "$v"
		fi | "$NT_PY" -c "$NORM" "$v" >"$out/$v" || nt_fail "wg show $IF_A $v ($role)"
	done
	nt_wg "$IF_A" show interfaces | tr ' ' '\n' | grep -qx "$IF_A" ||
		nt_fail "wg show interfaces does not list $IF_A ($role)"
	nt_wg "$IF_A" show all dump | awk -F'\t' -v i="$IF_A" '$1 == i' | cut -f2- |
		"$NT_PY" -c "$NORM" dump >"$out/all-dump" || nt_fail "wg show all dump ($role)"
	[ "$(grep -c . "$out/all-dump")" = 3 ] || nt_fail "wg show all dump: not 3 lines for $IF_A ($role)"
	nt_gone "${NT_DPID[$IF_A]}" && nt_fail "$role died"
	nt_teardown
}

scenario wgd "$NT_TMP/wgd"
scenario wireguard-go "$NT_TMP/ref"

# The reference itself must show what the scenario set up, or the comparison
# would prove nothing.
grep -q "^fwmark: 0x1234" "$NT_TMP/ref/show" || grep -q "fwmark: 0x1234" "$NT_TMP/ref/show" ||
	nt_fail "reference shows no fwmark"
awk -F'\t' 'NR > 1 && $2 != "(none)" && $3 == "192.0.2.2:51820" && $5 == "RECENT" &&
	$6 == "POS" && $7 == "POS" && $8 == 25 { ok++ }
	NR > 1 && $2 == "(none)" && $3 == "[fd00:1::99]:4444" && $5 == 0 && $6 == 0 && $7 == 0 &&
	$8 == "off" { ok++ } END { exit ok != 2 }' "$NT_TMP/ref/dump" ||
	nt_fail "reference dump lacks the expected peer line: $(cat "$NT_TMP/ref/dump")"

status=0
for v in show showconf all-dump $VIEWS; do
	if ! diff -u "$NT_TMP/ref/$v" "$NT_TMP/wgd/$v" >"$NT_TMP/diff" 2>&1; then
		echo "FAIL: 'wg $v' differs (- wireguard-go, + wgd):" >&2
		cat "$NT_TMP/diff" >&2
		status=1
	else
		case "$v" in
		show | showconf) nt_ok "wg $v matches" ;;
		all-dump) nt_ok "wg show all dump matches" ;;
		*) nt_ok "wg show IF $v matches" ;;
		esac
	fi
done
[ "$status" = 0 ] || nt_fail "wg shows wgd differently from wireguard-go"
echo "--- wg show, normalized, as both show it:"
cat "$NT_TMP/wgd/show"
echo "PASS"
