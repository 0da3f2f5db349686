#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wgctl against Debian's wg, on wgd and on Debian's wireguard-go (the same
# scenario once per implementation).
#
# Side a runs the implementation under test, configured with wgctl; side b is
# wireguard-go, configured with wg.  Side a has three peers: b (preshared
# key, IPv4 endpoint, keepalive, a completed handshake and traffic both
# ways), one with an IPv6 endpoint and one with nothing.  Every view of
# `wgctl show` must then be byte-identical to wg's: dump, each field, `show
# all dump` and `show interfaces` (restricted to this test's interfaces, as
# other tests may run), the pretty view (the handshake's age masked), and
# showconf.  `--json` must parse and say what the dump says; the pretty view
# has no escape sequence in a pipe and wg's colours under a pseudo-terminal.
#
# Then set, setconf, addconf and syncconf: each operation is done by wgctl on
# one interface and by wg on a second one of the same implementation, with
# the same keys, and the two devices must then dump the same.  syncconf with
# an unchanged peer keeps its session (same handshake to the nanosecond).
# `allowed-ips +a,-b` (not in Debian's wg) is checked against the expected
# list.  genkey, genpsk and pubkey are checked against wg pubkey; error
# paths for their exit status and message; `down` stops the daemon and waits
# until its socket is gone.

. "$(dirname "$0")/lib.sh"

nt_init wc
[ -n "${WGCTL:-}" ] && [ -x "$WGCTL" ] || nt_fail "WGCTL is not set to the wgctl executable (meson sets it)"

# The scratch /etc/netns/NS/hosts files (ip netns exec mounts them over
# /etc/hosts) go with the namespaces.
HOSTS_DIRS=()
trap 'rc=$?; for d in "${HOSTS_DIRS[@]}"; do rm -rf "$d"; done; (exit $rc); nt_cleanup' EXIT

# wgc NS ARGS...: wgctl in a namespace, bounded.
wgc() {
	local ns=$1
	shift
	timeout 20 ip netns exec "$ns" "$WGCTL" "$@"
}
wgn() {
	local ns=$1
	shift
	timeout 20 ip netns exec "$ns" wg "$@"
}

# same WHAT FILE1 FILE2: byte-identical, or fail showing the difference.
same() {
	cmp -s "$2" "$3" && return 0
	diff -u "$2" "$3" | head -40 >&2
	nt_fail "$1: wgctl and wg differ"
}

# mine IFNAMES...: keep the lines of these interfaces in an all-view (first
# column), in their order.
mine() {
	awk -F'\t' -v names="$*" 'BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) k[a[i]] = 1 } k[$1]'
}

# Pretty view with the handshake's age masked (it changes by the second).
mask_age() { sed -E 's/(latest handshake[^:]*: ).*/\1AGE/'; }

# canon ROLE VIEW: wgd lists its peers in a stable order, so its views are
# compared byte for byte; wireguard-go lists them in Go's random map order
# on each get, so for it the peers (lines, or blocks of the pretty view and
# showconf) are put in sorted order first, everything else left as it is.
canon() {
	if [ "$1" = wgd ]; then
		cat
	else
		"$NT_PY" -c '
import sys
text, view = sys.stdin.read(), sys.argv[1]
if view in ("pretty", "conf"):
    head, *blocks = text.rstrip("\n").split("\n\n")
    sys.stdout.write("\n\n".join([head] + sorted(blocks)) + "\n")
elif view == "dump":
    lines = text.splitlines(True)
    sys.stdout.write("".join(lines[:1] + sorted(lines[1:])))
else:
    sys.stdout.write("".join(sorted(text.splitlines(True))))
' "$2"
	fi
}

check_views() {
	local role=$1 ns=$NS_A ifc=$IF_A d=$NT_TMP/$1 v i
	mkdir -p "$d"
	for v in dump public-key private-key listen-port fwmark peers preshared-keys endpoints \
		allowed-ips latest-handshakes transfer persistent-keepalive; do
		# transfer counters may move between the two reads (keepalives):
		# take the pair again until one read of each agrees
		for i in 1 2 3; do
			wgn "$ns" show "$ifc" "$v" | canon "$role" "$v" >"$d/wg.$v" || nt_fail "wg show $v"
			wgc "$ns" show "$ifc" "$v" | canon "$role" "$v" >"$d/ctl.$v" || nt_fail "wgctl show $v"
			cmp -s "$d/wg.$v" "$d/ctl.$v" && break
		done
		same "$role: show $v" "$d/wg.$v" "$d/ctl.$v"
	done
	# the reference must show what was set up, or the comparison proves little
	[ "$(grep -c . "$d/wg.dump")" = 4 ] || nt_fail "$role: wg dump has not 1 + 3 lines"
	grep -q "^${NT_PUB[$IF_B]}	[A-Za-z0-9+/]\{43\}=	192.0.2.2:$NT_PORT	.*	[1-9][0-9]*	[1-9][0-9]*	[1-9][0-9]*	25$" "$d/wg.dump" ||
		nt_fail "$role: b's dump line lacks psk, endpoint, handshake, counters or keepalive"
	grep -q '	\[fd00:1::99\]:4444	' "$d/wg.dump" || nt_fail "$role: no IPv6 endpoint in the dump"
	grep -q '^0x1234$' "$d/wg.fwmark" || nt_fail "$role: fwmark not shown"

	for i in 1 2 3; do
		wgn "$ns" show all dump | mine "$IF_A" "$IF_B" | canon "$role" all >"$d/wg.all"
		wgc "$ns" show all dump | mine "$IF_A" "$IF_B" | canon "$role" all >"$d/ctl.all"
		cmp -s "$d/wg.all" "$d/ctl.all" && break
	done
	same "$role: show all dump" "$d/wg.all" "$d/ctl.all"
	[ "$(grep -c . "$d/ctl.all")" = 6 ] || nt_fail "$role: show all dump has not 6 lines of ours"
	wgn "$ns" show interfaces | tr ' ' '\n' | mine "$IF_A" "$IF_B" >"$d/wg.ifs"
	wgc "$ns" show interfaces | tr ' ' '\n' | mine "$IF_A" "$IF_B" >"$d/ctl.ifs"
	same "$role: show interfaces" "$d/wg.ifs" "$d/ctl.ifs"
	[ "$(grep -c . "$d/ctl.ifs")" = 2 ] || nt_fail "$role: show interfaces lacks ours"

	for i in 1 2 3; do
		wgn "$ns" show "$ifc" | mask_age | canon "$role" pretty >"$d/wg.pretty"
		wgc "$ns" show "$ifc" | mask_age | canon "$role" pretty >"$d/ctl.pretty"
		cmp -s "$d/wg.pretty" "$d/ctl.pretty" && break
	done
	same "$role: show (piped)" "$d/wg.pretty" "$d/ctl.pretty"
	grep -q $'\033' "$d/ctl.pretty" && nt_fail "$role: escape sequences in a pipe"
	grep -q 'latest handshake: AGE' "$d/ctl.pretty" || nt_fail "$role: pretty view without a handshake"

	# Under a pseudo-terminal both colour, the same way.
	for i in 1 2 3; do
		ip netns exec "$ns" "$NT_PY" -c "$PTY" wg show "$ifc" | mask_age | canon "$role" pretty >"$d/wg.tty"
		ip netns exec "$ns" "$NT_PY" -c "$PTY" "$WGCTL" show "$ifc" | mask_age | canon "$role" pretty >"$d/ctl.tty"
		cmp -s "$d/wg.tty" "$d/ctl.tty" && break
	done
	same "$role: show (terminal)" "$d/wg.tty" "$d/ctl.tty"
	grep -q $'\033\\[32m' "$d/ctl.tty" || nt_fail "$role: no colour on a terminal"

	wgn "$ns" showconf "$ifc" | canon "$role" conf >"$d/wg.conf" || nt_fail "wg showconf"
	wgc "$ns" showconf "$ifc" | canon "$role" conf >"$d/ctl.conf" || nt_fail "wgctl showconf"
	same "$role: showconf" "$d/wg.conf" "$d/ctl.conf"

	wgc "$ns" show --json >"$d/all.json" || nt_fail "$role: wgctl show --json"
	wgc "$ns" show "$ifc" --json >"$d/one.json" || nt_fail "$role: wgctl show IF --json"
	wgc "$ns" show "$ifc" dump >"$d/ctl.dump2"
	"$NT_PY" -c "$JSON_VS_DUMP" "$ifc" "$d/one.json" "$d/ctl.dump2" ||
		nt_fail "$role: --json does not match the dump"
	"$NT_PY" -c "$JSON_VS_DUMP" "$ifc" "$d/all.json" "$d/ctl.dump2" ||
		nt_fail "$role: show --json (all) does not match the dump"
	nt_ok "$role: every view of wgctl show equals wg's; --json matches the dump"
}

# Runs argv on a pseudo-terminal, prints what it wrote (CR LF -> LF).
PTY='
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.buffer.write(out.replace(b"\r\n", b"\n"))
'

# JSON document vs. the dump of the same interface (read just after it).
JSON_VS_DUMP='
import json, sys
ifc, jpath, dpath = sys.argv[1:4]
doc = json.load(open(jpath))
devs = [d for d in doc["interfaces"] if d["name"] == ifc]
assert len(devs) == 1, "interface missing from the JSON"
dev = devs[0]
lines = [l.split("\t") for l in open(dpath).read().splitlines()]
n = lambda v: None if v == "(none)" else v
head = lines[0]
assert [dev["private_key"], dev["public_key"], str(dev["listen_port"])] == [n(head[0]), n(head[1]), head[2]], "interface keys/port"
assert (hex(dev["fwmark"]) if dev["fwmark"] else "off") == head[3], "fwmark"
peers = {p["public_key"]: p for p in dev["peers"]}
assert len(peers) == len(lines) - 1, "peer count"
for f in lines[1:]:
    p = peers[f[0]]
    assert p["preshared_key"] == n(f[1]), "psk"
    assert p["endpoint"] == n(f[2]), "endpoint"
    assert ",".join(p["allowed_ips"]) == (f[3] if f[3] != "(none)" else ""), "allowed ips"
    assert p["latest_handshake"] == int(f[4]), "handshake"
    # counters may only grow between the two reads
    assert 0 <= int(f[5]) - p["rx_bytes"] < 10000 and 0 <= int(f[6]) - p["tx_bytes"] < 10000, "counters"
    assert (p["persistent_keepalive"] or "off") == (int(f[7]) if f[7] != "off" else "off"), "keepalive"
'

# ---- the views, on a device with traffic ----

views() {
	local role=$1
	nt_pair "$role" wireguard-go
	[ -f "$NT_TMP/psk" ] || (umask 077 && wg genpsk >"$NT_TMP/psk") || nt_fail "wg genpsk"
	[ -n "${PUB_C:-}" ] || PUB_C=$(wg genkey | wg pubkey) || nt_fail "third key"
	[ -n "${PUB_D:-}" ] || PUB_D=$(wg genkey | wg pubkey) || nt_fail "fourth key"
	nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" preshared-key "$NT_TMP/psk" \
		endpoint 192.0.2.1:$NT_PORT || nt_fail "wg set on b"
	# One set per peer: Debian's wireguard-go carries a keepalive that was
	# turned on over to the next peer of the same set.
	wgc "$NS_A" set "$IF_A" fwmark 0x1234 peer "$PUB_C" allowed-ips 10.10.0.0/16,fd00:9::/64 \
		endpoint "[fd00:1::99]:4444" || nt_fail "$role: wgctl set (peer c)"
	wgc "$NS_A" set "$IF_A" peer "$PUB_D" || nt_fail "$role: wgctl set (peer d)"
	wgc "$NS_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" preshared-key "$NT_TMP/psk" \
		endpoint 192.0.2.2:$NT_PORT allowed-ips 198.51.100.2/32,fd00:2::2/128,10.9.0.0/16 \
		persistent-keepalive 25 || nt_fail "$role: wgctl set (peer b)"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "$role: ping a -> b"
	nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "$role: ping6 a -> b"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "$role: ping b -> a"
	check_views "$role"
	sessions "$role"
	down "$role"
	nt_teardown
}

# syncconf of a file in which b is unchanged (wgctl's own showconf, peer c
# dropped, an allowed IP added to d) keeps b's session; c is gone.
sessions() {
	local role=$1 hs
	hs=$(nt_handshake_ns "$IF_A")
	[ "${hs%.*}" != 0 ] || nt_fail "$role: no handshake before syncconf"
	wgc "$NS_A" showconf "$IF_A" >"$NT_TMP/$role.shown" || nt_fail "$role: showconf"
	"$NT_PY" -c '
import sys
text, drop, more = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
head, *peers = text.split("\n[Peer]\n")
keep = []
for p in peers:
    if "PublicKey = " + drop in p:
        continue
    if "PublicKey = " + more in p:
        p = p.rstrip("\n") + "\nAllowedIPs = 10.77.0.0/16\n"
    keep.append(p)
print("\n[Peer]\n".join([head] + keep))
' "$NT_TMP/$role.shown" "$PUB_C" "$PUB_D" >"$NT_TMP/$role.sync" || nt_fail "editing the configuration"
	sleep 1.1	# a new handshake would show another second
	wgc "$NS_A" syncconf "$IF_A" "$NT_TMP/$role.sync" || nt_fail "$role: wgctl syncconf"
	[ "$(nt_handshake_ns "$IF_A")" = "$hs" ] || nt_fail "$role: syncconf reset the unchanged peer's session"
	nt_wg "$IF_A" show "$IF_A" peers | grep -qx "$PUB_C" && nt_fail "$role: syncconf kept a peer not in the file"
	nt_wg "$IF_A" show "$IF_A" allowed-ips | grep -q "^$PUB_D	10.77.0.0/16$" ||
		nt_fail "$role: syncconf did not set d's allowed IP"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "$role: ping after syncconf"
	[ "$(nt_handshake_ns "$IF_A")" = "$hs" ] || nt_fail "$role: traffic after syncconf needed a new handshake"
	nt_ok "$role: wgctl syncconf kept the session of the unchanged peer ($hs), removed the dropped one"
}

# down: SIGTERM to the process on the socket, back when the socket is gone.
down() {
	local ifc pid
	for ifc in "$IF_A" "$IF_B"; do
		pid=${NT_DPID[$ifc]}
		wgc "${NT_NS[$ifc]}" down "$ifc" || nt_fail "wgctl down $ifc"
		[ -e "/var/run/wireguard/$ifc.sock" ] && nt_fail "wgctl down returned before the socket was gone"
		nt_wait_gone "$pid" 5 || nt_fail "${NT_IMPL[$ifc]} still runs after wgctl down"
		wgc "${NT_NS[$ifc]}" down "$ifc" 2>"$NT_TMP/down.err" && nt_fail "wgctl down of a stopped interface succeeded"
		grep -qx 'Unable to access interface: No such file or directory' "$NT_TMP/down.err" ||
			nt_fail "wgctl down of a stopped interface: $(cat "$NT_TMP/down.err")"
		nt_ok "wgctl down stopped ${NT_IMPL[$ifc]##*/} (pid $pid) and waited for its socket"
	done
}

# ---- set, setconf, addconf, syncconf: the device as wg leaves it ----

conffile() {
	printf '[Interface]\nPrivateKey = %s\nListenPort = 51830\nFwMark = 0x42\n\n' "$(cat "$K1")"
	printf '[Peer]\nPublicKey = %s\nPresharedKey = %s\nAllowedIPs = 10.1.0.0/16, fd00:a::/64\n' "$P1" "$(cat "$NT_TMP/psk")"
	printf 'Endpoint = 192.0.2.50:1000\nPersistentKeepalive = 15\n\n'
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.2.0.0/24\nEndpoint = peer.test:2000\n' "$P2"
	[ "$1" = 3 ] && printf '\n[Peer]\nPublicKey = %s\nEndpoint = [fd00::7]:3000\n' "$P3"
	return 0
}
addfile() { printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.4.0.0/16\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.5.0.0/16\n' "$P3" "$P4"; }
syncfile() {
	printf '[Interface]\nPrivateKey = %s\nListenPort = 51831\n\n' "$(cat "$K1")"
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.1.0.0/16\nEndpoint = 192.0.2.50:1000\n\n' "$P1"
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.6.0.0/16\n' "$P4"
}

# both ARGS...: the same command, by wgctl on X and by wg on Y.
both() {
	local cmd=$1
	shift
	wgc "$NS_X" "$cmd" "$IF_X" "$@" || nt_fail "wgctl $cmd $*"
	wgn "$NS_Y" "$cmd" "$IF_Y" "$@" || nt_fail "wg $cmd $*"
	compare_xy "$cmd $*"
}

# The two devices' dumps, counters and handshake times left out (a keepalive
# to an endpoint nobody answers sends initiations).
compare_xy() {
	wgn "$NS_X" show "$IF_X" dump | cut -f1-4,8 | sort >"$NT_TMP/x.dump"
	wgn "$NS_Y" show "$IF_Y" dump | cut -f1-4,8 | sort >"$NT_TMP/y.dump"
	same "$1" "$NT_TMP/y.dump" "$NT_TMP/x.dump"
}

# The allowed IPs of peer P1 on X, one per line, sorted.
x_aips() { wgn "$NS_X" show "$IF_X" allowed-ips | awk -v k="$P1" '$1 == k { for (i = 2; i <= NF; i++) print $i }' | sort | tr '\n' ' '; }

setops() {
	local role=$1
	NS_X=$(nt_name "" x)
	NS_Y=$(nt_name "" y)
	IF_X=$(nt_name wg x)
	IF_Y=$(nt_name wg y)
	nt_netns "$NS_X"
	nt_netns "$NS_Y"
	for ns in "$NS_X" "$NS_Y"; do
		mkdir -p "/etc/netns/$ns" && HOSTS_DIRS+=("/etc/netns/$ns")
		printf '127.0.0.1 localhost\n192.0.2.77 peer.test\n' >"/etc/netns/$ns/hosts"
		# a name server nobody can reach: other names fail for now (EAI_AGAIN)
		printf 'nameserver 192.0.2.253\noptions timeout:1 attempts:1\n' >"/etc/netns/$ns/resolv.conf"
	done
	nt_daemon "$NS_X" "$IF_X" "$role"
	nt_daemon "$NS_Y" "$IF_Y" "$role"
	K1=$NT_TMP/k1
	[ -f "$K1" ] || (umask 077 && wg genkey >"$K1" && : >"$NT_TMP/empty") || nt_fail "keys"
	[ -n "${P1:-}" ] || { P1=$(wg genkey | wg pubkey); P2=$(wg genkey | wg pubkey)
		P3=$(wg genkey | wg pubkey); P4=$(wg genkey | wg pubkey); }
	both set listen-port 51821 fwmark 0x20 private-key "$K1"
	both set peer "$P1" preshared-key "$NT_TMP/psk" endpoint 192.0.2.9:1234 persistent-keepalive 25 \
		allowed-ips "10.1.0.0/16, fd00:a::/64" peer "$P2" endpoint "[fd00::9]:99" allowed-ips 10.2.0.0/24
	both set peer "$P1" allowed-ips 10.3.0.0/24 endpoint peer.test:51820 persistent-keepalive off
	both set peer "$P2" remove
	both set peer "$P1" preshared-key "$NT_TMP/empty" allowed-ips ""
	both set fwmark off listen-port 51822
	conffile 2 >"$NT_TMP/set.conf"
	conffile 3 >"$NT_TMP/set3.conf"
	addfile >"$NT_TMP/add.conf"
	syncfile >"$NT_TMP/sync.conf"
	both setconf "$NT_TMP/set3.conf"
	both setconf "$NT_TMP/set.conf"
	both addconf "$NT_TMP/add.conf"
	# The file drops P1's preshared key and keepalive: wgctl clears them, as
	# wg does since 2025 (the device becomes the file); Debian's wg leaves
	# them, so on Y they are cleared by hand.
	wgc "$NS_X" syncconf "$IF_X" "$NT_TMP/sync.conf" || nt_fail "wgctl syncconf"
	wgn "$NS_Y" syncconf "$IF_Y" "$NT_TMP/sync.conf" || nt_fail "wg syncconf"
	wgn "$NS_Y" set "$IF_Y" peer "$P1" preshared-key "$NT_TMP/empty" persistent-keepalive off ||
		nt_fail "wg set (what newer wg's syncconf does)"
	compare_xy "syncconf dropping a preshared key and a keepalive"
	both syncconf "$NT_TMP/set3.conf"
	nt_ok "$role: set, setconf, addconf and syncconf by wgctl leave the device as wg does"

	# Incremental allowed IPs (newer wg's syntax, not Debian's wg).
	wgc "$NS_X" set "$IF_X" peer "$P1" allowed-ips 10.1.0.0/16,fd00:a::/64 || nt_fail "reset P1's allowed IPs"
	wgc "$NS_X" set "$IF_X" peer "$P1" allowed-ips "+10.8.0.0/24, +10.8.1.0/24" || nt_fail "allowed-ips +"
	[ "$(x_aips)" = "10.1.0.0/16 10.8.0.0/24 10.8.1.0/24 fd00:a::/64 " ] || nt_fail "$role: allowed-ips + gave: $(x_aips)"
	if [ "$role" = wgd ]; then
		# Debian's wireguard-go (0.0.20220316) predates allowed_ip=-prefix.
		wgc "$NS_X" set "$IF_X" peer "$P1" allowed-ips "-10.8.0.0/24,+10.9.9.0/24,-fd00:a::/64" ||
			nt_fail "allowed-ips -"
		[ "$(x_aips)" = "10.1.0.0/16 10.8.1.0/24 10.9.9.0/24 " ] || nt_fail "$role: allowed-ips - gave: $(x_aips)"
	fi
	nt_ok "$role: allowed-ips with + and - prefixes change only the prefixes named"
	errors "$role"
	if [ "$role" = wgd ]; then
		down_waits
		up_down
	fi
	nt_teardown
}

# expect_err WHAT MESSAGE-REGEX ARGS...: wgctl fails with status 1 and says so.
expect_err() {
	local what=$1 re=$2 st=0
	shift 2
	wgc "$NS_X" "$@" >/dev/null 2>"$NT_TMP/err" || st=$?
	[ "$st" = 1 ] || nt_fail "$what: exit status $st, not 1 ($(cat "$NT_TMP/err"))"
	grep -Eq "$re" "$NT_TMP/err" || nt_fail "$what: message '$(cat "$NT_TMP/err")' does not match /$re/"
}

errors() {
	local role=$1 before
	before=$(wgn "$NS_X" show "$IF_X" dump | canon "$role" dump)
	expect_err "no such interface" '^Unable to access interface: No such file or directory$' show nosuch0
	expect_err "no such interface (dump)" '^Unable to access interface: No such file or directory$' show nosuch0 dump
	expect_err "no such interface (json)" '^Unable to access interface: No such file or directory$' show nosuch0 --json
	[ -s "$NT_TMP/err" ] && wgc "$NS_X" show --json nosuch0 2>/dev/null | grep -q . && nt_fail "--json of no interface printed a document"
	expect_err "set on no such interface" '^Unable to modify interface: No such file or directory$' set nosuch0 listen-port 1
	# A name no interface can have, refused by wgctl as wgd refuses to serve
	# it (uapi_socket_path: one rule for both ends of the socket).
	expect_err "name over 15 characters" '^Unable to access interface: Invalid argument$' show 0123456789abcdef
	expect_err "name .." '^Unable to modify interface: Invalid argument$' set .. listen-port 1
	expect_err "bad key" "^Key is not the correct length or format: \`notakey'$" set "$IF_X" peer notakey
	expect_err "bad argument" '^Invalid argument: bogus$' set "$IF_X" bogus 1
	expect_err "bad field" "^Invalid parameter: \`bogus'$" show "$IF_X" bogus
	expect_err "bad port" "^Port is not in 0-65535: \`99999'$" set "$IF_X" listen-port 99999
	expect_err "bad fwmark" "^Fwmark is neither 0/off nor 0-0xffffffff: \`x1'$" set "$IF_X" fwmark x1
	# Values are read as in a file (span_num, conffile_endpoint), where wg
	# reads them otherwise: a port is digits (wg takes "+5", and wraps
	# " 99999" to 34463); an endpoint's brackets hold an IPv6 address and
	# nothing else, and an IPv6 address has them (wg takes all three);
	# hexadecimal is "0x", in a file too (wg refuses "0X" in both).
	expect_err "port with a sign" "^Port is not in 0-65535: \`\\+5'$" set "$IF_X" listen-port +5
	expect_err "port wg wraps" "^Port is not in 0-65535: \` 99999'$" set "$IF_X" listen-port " 99999"
	expect_err "IPv6 endpoint without brackets" \
		"^Endpoint is not host:port, IPv4:port or \\[IPv6\\]:port: \`fd00::9:98'$" \
		set "$IF_X" peer "$P1" endpoint fd00::9:98
	expect_err "IPv4 endpoint in brackets" "^Endpoint is not .*: \`\\[192.0.2.2\\]:5'$" \
		set "$IF_X" peer "$P1" endpoint "[192.0.2.2]:5"
	expect_err "host name in brackets" "^Endpoint is not .*: \`\\[peer.test\\]:5'$" \
		set "$IF_X" peer "$P1" endpoint "[peer.test]:5"
	printf '[Interface]\nFwMark = 0X10\n' >"$NT_TMP/fw.conf"
	expect_err "0X in a file's FwMark" "fw\\.conf:2: invalid FwMark \`0X10'" setconf "$IF_X" "$NT_TMP/fw.conf"
	expect_err "bad allowed ip" "^Unable to parse IP address: \`10.0.0.256'$" set "$IF_X" peer "$P1" allowed-ips 10.0.0.256/8
	expect_err "missing key file" '^fopen: No such file or directory$' set "$IF_X" private-key /nonexistent
	printf '[Interface]\nListenPort = 1\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.0.0.0/33\n' "$P1" >"$NT_TMP/bad.conf"
	expect_err "bad file line" "bad\\.conf:6:" setconf "$IF_X" "$NT_TMP/bad.conf"
	expect_err "subcommand" "^Invalid subcommand: \`bogus'$" bogus
	[ "$(wgn "$NS_X" show "$IF_X" dump | canon "$role" dump)" = "$before" ] || nt_fail "$role: a refused command changed the device"
	# a port another socket holds: the daemon's own error, passed on
	# (wireguard-go is left without a port then; wgd unchanged).  The link
	# is up: while it is down, a port is only stored (doc/protocol.md §8).
	ip -n "$NS_X" link set "$IF_X" up || nt_fail "link up"
	nt_bg "$NS_X" "$NT_PY" -c 'import socket, time
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.bind(("::", 5999)); time.sleep(60)'
	nt_until "$NT_TIMEOUT" sh -c "ip netns exec '$NS_X' ss -ulnH 'sport = :5999' | grep -q ." ||
		nt_fail "could not hold port 5999"
	expect_err "daemon refuses" '^Unable to modify interface: Address already in use$' set "$IF_X" listen-port 5999
	if [ "$role" = wgd ]; then
		[ "$(wgn "$NS_X" show "$IF_X" dump | canon "$role" dump)" = "$before" ] || nt_fail "wgd: a refused port changed the device"
	fi
	nt_ok "$role: error paths: status 1, wg's messages, device unchanged"
	[ "$role" = wgd ] || return 0

	# A name that cannot be resolved for now is tried again, as wg does.
	st=0
	WG_ENDPOINT_RESOLUTION_RETRIES=1 wgc "$NS_X" set "$IF_X" peer "$P1" endpoint nosuch.example:1 \
		2>"$NT_TMP/err" || st=$?
	[ "$st" = 1 ] && [ "$(grep -c 'Trying again in 1.00 seconds' "$NT_TMP/err")" = 1 ] &&
		grep -q 'Temporary failure' "$NT_TMP/err" ||
		nt_fail "a temporary resolution failure: status $st, $(cat "$NT_TMP/err")"
	nt_ok "a temporary resolution failure is tried again WG_ENDPOINT_RESOLUTION_RETRIES times"
}

# pid_of TEXT: the process whose command line (spaces for NULs) ends in TEXT.
pid_of() {
	local d
	for d in /proc/[0-9]*; do
		case "$(tr '\0' ' ' 2>/dev/null <"$d/cmdline")" in
		*"$1 ") printf '%s\n' "${d#/proc/}"; return 0 ;;
		esac
	done
	return 0
}

# up FILE and up IFNAME start wgd (wgd -c FILE, wgd up IFNAME: returning
# once the socket answers); down stops it and its interface goes.
up_down() {
	local ns=$NS_X ifc conf pid how st=0
	ifc=$(nt_name wg u)
	conf=$NT_TMP/$ifc.conf
	(umask 077 && printf '[Interface]\nPrivateKey = %s\nListenPort = 51840\nAddress = 10.99.0.1/24\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.99.1.0/24\n' \
		"$(cat "$K1")" "$P1" >"$conf") || nt_fail "writing $conf"
	NT_NS[$ifc]=$ns
	NT_IFACES+=("$ifc")	# the teardown stops and removes what is left
	for how in "$conf" "$ifc"; do
		# the daemon keeps the launcher's output: a log the cleanup scans
		WGD_CONFIG_DIR=$NT_TMP wgc "$ns" up "$how" >>"$NT_TMP/$ifc.up.log" 2>&1 ||
			nt_fail "wgctl up $how: $(tail -n 5 "$NT_TMP/$ifc.up.log")"
		nt_sock_ready "$ifc" || nt_fail "wgctl up $how returned before the socket answered"
		if [ "$how" = "$conf" ]; then pid=$(pid_of "-c $conf"); else pid=$(pid_of "up $ifc"); fi
		[ -n "$pid" ] || nt_fail "no wgd process for wgctl up $how"
		NT_DPID[$ifc]=$pid
		[ "$(wgc "$ns" show "$ifc" listen-port)" = 51840 ] || nt_fail "wgctl up $how: not the file's port"
		ip -n "$ns" -br addr show dev "$ifc" | grep -q '10\.99\.0\.1/24' || nt_fail "wgctl up $how: no address"
		wgc "$ns" down "$ifc" || nt_fail "wgctl down after up $how"
		[ -e "/var/run/wireguard/$ifc.sock" ] && nt_fail "the socket outlived wgctl down"
		nt_wait_gone "$pid" 5 || nt_fail "wgd (pid $pid) still runs after wgctl down"
		ip -n "$ns" link show "$ifc" >/dev/null 2>&1 && nt_fail "$ifc outlived wgctl down"
	done
	printf '[Interface]\nListenPort = 51841\nBogus = 1\n' >"$NT_TMP/$(nt_name wg v).conf"
	WGD_CONFIG_DIR=$NT_TMP wgc "$ns" up "$NT_TMP/$(nt_name wg v).conf" 2>"$NT_TMP/err" && nt_fail "wgctl up of a bad file succeeded"
	grep -q ':3:' "$NT_TMP/err" || nt_fail "wgctl up of a bad file: $(cat "$NT_TMP/err")"
	WGD=/nonexistent/wgd wgc "$ns" up "$conf" 2>"$NT_TMP/err" || st=$?
	[ "$st" = 1 ] && grep -q 'cannot run /nonexistent/wgd' "$NT_TMP/err" ||
		nt_fail "wgctl up without a wgd: status $st, $(cat "$NT_TMP/err")"
	nt_ok "wgctl up FILE and up IFNAME start wgd, wgctl down stops it and its interface goes"

	# A wireguard-go that went to the background: the process that made
	# the socket (SO_PEERCRED) is gone, the one holding it is stopped.
	ifc=$(nt_name wg g)
	nt_daemon_bg "$ns" "$ifc" wireguard-go
	pid=${NT_DPID[$ifc]}
	wgc "$ns" down "$ifc" || nt_fail "wgctl down of a background wireguard-go"
	nt_wait_gone "$pid" 5 || nt_fail "the background wireguard-go (pid $pid) still runs after wgctl down"
	nt_ok "wgctl down stopped a wireguard-go that went to the background"
}

# down against daemons of our own making (in a run directory of the test's):
# one that takes a second to remove its socket after SIGTERM (down must wait
# for it), one that ignores SIGTERM (down gives up after 10 s, status 1).
FAKE='
import os, signal, socket, sys, time
path, mode = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
s.listen(4)
def term(*_):
    time.sleep(1)
    os.unlink(path)
    sys.exit(0)
signal.signal(signal.SIGTERM, term if mode == "slow" else signal.SIG_IGN)
while True:
    s.accept()[0].close()
'
down_waits() {
	local run=$NT_TMP/run t0 t1 st=0
	mkdir -p "$run"
	nt_bg "$NS_X" "$NT_PY" -c "$FAKE" "$run/slow.sock" slow
	nt_until "$NT_TIMEOUT" test -S "$run/slow.sock" || nt_fail "fake daemon did not start"
	t0=$(date +%s%N)
	WGD_RUN_DIR=$run wgc "$NS_X" down slow || nt_fail "wgctl down (slow daemon)"
	t1=$(date +%s%N)
	[ -e "$run/slow.sock" ] && nt_fail "wgctl down returned before the slow daemon removed its socket"
	[ $(((t1 - t0) / 1000000)) -ge 900 ] || nt_fail "wgctl down did not wait for the slow daemon"
	nt_bg "$NS_X" "$NT_PY" -c "$FAKE" "$run/stuck.sock" stuck
	nt_until "$NT_TIMEOUT" test -S "$run/stuck.sock" || nt_fail "fake daemon did not start"
	WGD_RUN_DIR=$run wgc "$NS_X" down stuck 2>"$NT_TMP/err" || st=$?
	[ "$st" = 1 ] && grep -q 'still running after 10 s' "$NT_TMP/err" ||
		nt_fail "wgctl down of a daemon that ignores SIGTERM: status $st, $(cat "$NT_TMP/err")"
	kill -KILL "$NT_BG_PID"	# it ignores the teardown's SIGTERM too
	nt_ok "wgctl down waited $(((t1 - t0) / 1000000)) ms for a slow daemon's socket to go, and gives up after 10 s"
}

# ---- keys ----

keys() {
	local k p1 p2 psk i
	for i in 1 2 3; do
		k=$("$WGCTL" genkey) || nt_fail "wgctl genkey"
		p1=$(printf '%s\n' "$k" | wg pubkey) || nt_fail "wg pubkey of wgctl's key"
		p2=$(printf '%s\n' "$k" | "$WGCTL" pubkey) || nt_fail "wgctl pubkey"
		[ "$p1" = "$p2" ] || nt_fail "wgctl pubkey $p2, wg pubkey $p1"
		# a private key is clamped: low 3 bits clear, top bit clear, bit 254 set
		printf '%s' "$k" | base64 -d | od -An -tu1 | "$NT_PY" -c '
import sys
b = [int(x) for x in sys.stdin.read().split()]
sys.exit(0 if len(b) == 32 and b[0] & 7 == 0 and b[31] & 0xc0 == 0x40 else 1)' || nt_fail "genkey: not clamped: $k"
		k=$(wg genkey)
		[ "$(printf '%s' "$k" | "$WGCTL" pubkey)" = "$(printf '%s' "$k" | wg pubkey)" ] ||
			nt_fail "wgctl pubkey of wg's key"
		psk=$("$WGCTL" genpsk) || nt_fail "wgctl genpsk"
		[ "$(printf '%s' "$psk" | base64 -d | wc -c)" = 32 ] || nt_fail "genpsk: not 32 bytes"
	done
	[ "$("$WGCTL" genpsk)" != "$("$WGCTL" genpsk)" ] || nt_fail "two genpsk alike"
	st=0
	printf 'short\n' | "$WGCTL" pubkey 2>"$NT_TMP/err" || st=$?
	[ "$st" = 1 ] && grep -q 'Key is not the correct length or format' "$NT_TMP/err" ||
		nt_fail "pubkey of a bad key: status $st, $(cat "$NT_TMP/err")"
	st=0
	printf '%s x\n' "$k" | "$WGCTL" pubkey 2>"$NT_TMP/err" || st=$?
	[ "$st" = 1 ] && grep -q 'Trailing characters found after key' "$NT_TMP/err" ||
		nt_fail "pubkey with trailing text: status $st"
	nt_ok "genkey (clamped), genpsk and pubkey agree with wg pubkey"
}

keys
[ -f "$NT_TMP/psk" ] || (umask 077 && wg genpsk >"$NT_TMP/psk") || nt_fail "wg genpsk"
for role in wgd wireguard-go; do
	views "$role"
	setops "$role"
done
