#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wgctl where it must do what wg(8) does (issue 25, item 8), on wgd:
#  - as an unprivileged user (nobody), every show view fails as wg's does:
#    "Unable to access interface IF: Permission denied" per interface, the
#    same exit status, `show interfaces` still lists the interface.
#  - a set that names a public key twice is taken as the kernel and
#    wireguard-go take it, entry after entry: `peer X remove peer X
#    allowed-ips ...` (wgctl set, and wg set against wgd) resets the peer,
#    and a file with a repeated [Peer] (wgctl setconf, wgd -c) ends as
#    Debian's wg setconf leaves wireguard-go.

. "$(dirname "$0")/lib.sh"

nt_init xc
. "$(dirname "$0")/conflib.sh"
[ -n "${WGCTL:-}" ] && [ -x "$WGCTL" ] || nt_fail "WGCTL is not set to the wgctl executable (meson sets it)"
nt_need setpriv
FAKE=$(nt_name wg f)
FAKE_SOCK=/var/run/wireguard/$FAKE.sock
trap 'rc=$?; rm -f "$FAKE_SOCK"; (exit $rc); nt_cleanup' EXIT

NS=$(nt_name "" a)
IF=$(nt_name wg a)
IF_GO=$(nt_name wg g)
nt_netns "$NS"
nt_daemon "$NS" "$IF" wgd
nt_daemon "$NS" "$IF_GO" wireguard-go
wgc() { timeout 20 ip netns exec "$NS" "$WGCTL" "$@"; }
# dump IF: the peers' lines of wg's dump, sorted (wireguard-go lists its
# peers in random order), without the interface's line.
dump() { nt_wg "$1" show "$1" dump | tail -n +2 | sort; }

# ---- show as nobody ----

# as_nobody TOOL ARGS...: TOOL's stdout and stderr (the lines of this test's
# interface, and the lines naming no interface), then "status N".
as_nobody() {
	local tool=$1 st
	shift
	timeout 20 setpriv --reuid=nobody --regid=nogroup --clear-groups "$tool" "$@" >"$NT_TMP/out" 2>"$NT_TMP/err"
	st=$?
	# other tests' interfaces may come and go between the two runs
	if [ "$*" = "show interfaces" ]; then
		tr ' ' '\n' <"$NT_TMP/out" | grep -x -- "$IF"
	else
		cat "$NT_TMP/out"
	fi
	grep -e "interface $IF:" -e "interface:" -e "interfaces:" "$NT_TMP/err"
	echo "status $st"
}

for view in "" "all" "all dump" "interfaces" "$IF" "$IF dump" "$IF peers"; do
	# shellcheck disable=SC2086 # the view is words
	want=$(as_nobody wg show $view)
	# shellcheck disable=SC2086
	got=$(as_nobody "$WGCTL" show $view)
	[ "$got" = "$want" ] || nt_fail "show $view as nobody: wgctl says
$got
where wg says
$want"
	case $view in
	interfaces) [ "$got" = "$IF"$'\n'"status 0" ] || nt_fail "show interfaces as nobody: $got" ;;
	*) grep -q "Permission denied" <<<"$got" && grep -q "status 1" <<<"$got" ||
		nt_fail "show $view as nobody: no 'Permission denied' and status 1: $got" ;;
	esac
done
got=$(as_nobody "$WGCTL" show --json)
grep -q "interface $IF: Permission denied" <<<"$got" && grep -q "status 1" <<<"$got" ||
	nt_fail "show --json as nobody: $got"
nt_ok "as nobody, every show view fails as wg's: 'Permission denied' per interface, status 1"

# ---- a public key twice in one set ----

X=$(wg genkey | wg pubkey) && Y=$(wg genkey | wg pubkey) || nt_fail "wg genkey"
(umask 077 && wg genpsk >"$NT_TMP/psk") || nt_fail "wg genpsk"
# reset IF TOOL: X with everything, then reset in one call.
reset() {
	local ifc=$1 tool=$2
	nt_wg "$ifc" set "$ifc" peer "$X" preshared-key "$NT_TMP/psk" endpoint 192.0.2.7:7 \
		persistent-keepalive 25 allowed-ips 10.7.0.0/16 || nt_fail "$ifc: configuring X"
	case $tool in
	wgctl) wgc set "$ifc" peer "$X" remove peer "$X" allowed-ips 10.8.0.0/16,fd00:8::/64 ;;
	wg) nt_wg "$ifc" set "$ifc" peer "$X" remove peer "$X" allowed-ips 10.8.0.0/16,fd00:8::/64 ;;
	esac || nt_fail "$tool set $ifc peer X remove peer X allowed-ips ...: refused"
}
reset "$IF_GO" wg
want=$(dump "$IF_GO")
grep -q $'\t(none)\t(none)\t10.8.0.0/16,fd00:8::/64\t0\t0\t0\toff$' <<<"$want" ||
	nt_fail "wireguard-go did not reset X: $want"
for tool in wgctl wg; do
	reset "$IF" "$tool"
	got=$(dump "$IF")
	[ "$got" = "$want" ] || nt_fail "$tool set peer X remove peer X ... on wgd: got
$got
wireguard-go with wg:
$want"
done
nt_ok "peer X remove peer X allowed-ips ...: X reset, by wgctl and by wg on wgd, as on wireguard-go"

# A file with a repeated [Peer]: the later one's settings apply to the peer.
cf_write "$NT_TMP/twice.conf" <<EOF
[Interface]
PrivateKey = $(wg genkey)

[Peer]
PublicKey = $X
PresharedKey = $(cat "$NT_TMP/psk")
Endpoint = 192.0.2.7:7
PersistentKeepalive = 25
AllowedIPs = 10.7.0.0/16

[Peer]
PublicKey = $Y
AllowedIPs = 10.9.0.0/16

[Peer]
PublicKey = $X
Endpoint = 192.0.2.8:8
AllowedIPs = 10.8.0.0/16
EOF
nt_wg "$IF_GO" setconf "$IF_GO" "$NT_TMP/twice.conf" || nt_fail "wg setconf of a repeated [Peer] on wireguard-go"
want=$(dump "$IF_GO")
grep -q "^$X"$'\t[^\t]*\t192.0.2.8:8\t10.8.0.0/16\t0\t0\t0\t25$' <<<"$want" ||
	nt_fail "wireguard-go: X is not what the second [Peer] makes it: $want"
wgc setconf "$IF" "$NT_TMP/twice.conf" || nt_fail "wgctl setconf of a repeated [Peer]"
got=$(dump "$IF")
[ "$got" = "$want" ] || nt_fail "wgctl setconf of a repeated [Peer]: got
$got
wireguard-go with wg setconf:
$want"
IF_C=$(nt_name wg c)
cf_start "$NS" "$IF_C" "$NT_TMP/twice.conf"
got=$(dump "$IF_C")
[ "$got" = "$want" ] || nt_fail "wgd -c with a repeated [Peer]: got
$got
wireguard-go with wg setconf:
$want"
cf_stop "$IF_C"
nt_ok "a repeated [Peer]: wgctl setconf and wgd -c end as wg setconf leaves wireguard-go"

# ---- syncconf when the daemon's state cannot be read ----

# A daemon whose get reply breaks off after a peer and its prefixes: wgctl
# syncconf must fail as wg does and free what it had read (LeakSanitizer in
# an ASan build, valgrind's memcheck otherwise).
rm -f "$FAKE_SOCK"
"$NT_PY" - "$FAKE_SOCK" "$(printf '%064x' 7)" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(4)
s.settimeout(60)
for _ in range(4):
    try:
        c, _ = s.accept()
    except OSError:
        break
    c.recv(4096)
    c.sendall(("private_key=%s\nlisten_port=1\npublic_key=%s\nallowed_ip=10.0.0.0/8\n"
               "allowed_ip=10.1.0.0/16\nallowed_ip=10.2.0.0/16\nallowed_ip=10.3.0.0/16\n"
               "allowed_ip=10.4.0.0/16\nbroken line\nerrno=0\n\n" % (sys.argv[2], sys.argv[2])).encode())
    c.close()
os.unlink(sys.argv[1])
PY
FAKE_PID=$!
NT_PIDS+=("$FAKE_PID")
nt_until "$NT_TIMEOUT" test -S "$FAKE_SOCK" || nt_fail "the fake daemon's socket"
cf_write "$NT_TMP/sync.conf" <<EOF
[Interface]
ListenPort = 1
[Peer]
PublicKey = $Y
AllowedIPs = 10.9.0.0/16
EOF
if ldd "$WGCTL" | grep -q libasan; then
	leakcheck=()
else
	nt_need valgrind
	leakcheck=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99)
fi
out=$(timeout 60 ip netns exec "$NS" "${leakcheck[@]}" "$WGCTL" syncconf "$FAKE" "$NT_TMP/sync.conf" 2>&1)
st=$?
[ "$st" = 1 ] && grep -q "^Unable to retrieve current interface configuration: Protocol error$" <<<"$out" ||
	nt_fail "syncconf against a broken get reply: status $st (1 expected, no leak): $out"
nt_ok "syncconf with a broken get reply: 'Protocol error', status 1, nothing leaked"

# ---- a large file ----

# 10,000 peers with a preshared key, an endpoint and two prefixes each: 2.2
# MB, over the old 1 MiB limit, under the 4 MiB one.  wgd -c (the monitor
# and the daemon each read it) and wgctl setconf take all of them.
"$NT_PY" - "$NT_TMP/big.conf" "$(wg genkey)" <<'PY' || nt_fail "writing the large file"
import base64, os, sys
with open(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
    f.write("[Interface]\nPrivateKey = %s\n" % sys.argv[2])
    for i in range(10000):
        k = lambda: base64.b64encode(os.urandom(32)).decode()
        f.write("\n[Peer]\nPublicKey = %s\nPresharedKey = %s\nEndpoint = 192.0.2.%d:%d\n"
                "PersistentKeepalive = 25\nAllowedIPs = 10.%d.%d.0/24, fd00:%x:%x::/64\n"
                % (k(), k(), i % 250 + 1, 10000 + i, i >> 8, i & 255, i >> 8, i & 255))
PY
size=$(stat -c %s "$NT_TMP/big.conf")
[ "$size" -gt $((2000 * 1000)) ] && [ "$size" -lt $((4 << 20)) ] || nt_fail "the large file is $size bytes"
IF_L=$(nt_name wg l)
cf_start "$NS" "$IF_L" "$NT_TMP/big.conf"
n=$(nt_wg "$IF_L" show "$IF_L" peers | wc -l)
[ "$n" = 10000 ] || nt_fail "wgd -c with a $size-byte file: $n peers"
cf_stop "$IF_L"
wgc setconf "$IF" "$NT_TMP/big.conf" || nt_fail "wgctl setconf of a $size-byte file"
n=$(nt_wg "$IF" show "$IF" peers | wc -l)
[ "$n" = 10000 ] || nt_fail "wgctl setconf with a $size-byte file: $n peers"
nt_ok "a $size-byte file of 10,000 peers: wgd -c and wgctl setconf take it"

# ---- AllowedIPs: wg's warning for host bits, its refusal of an empty item ----

printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.0.0.1/8, fd00::1/64\n' "$X" >"$NT_TMP/host.conf"
want=$(nt_wg "$IF_GO" setconf "$IF_GO" "$NT_TMP/host.conf" 2>&1) || nt_fail "wg setconf with host bits: $want"
got=$(wgc setconf "$IF" "$NT_TMP/host.conf" 2>&1) || nt_fail "wgctl setconf with host bits: $got"
[ "$got" = "$want" ] && grep -q "^Warning: AllowedIP has nonzero host part: 10.0.0.1/8$" <<<"$got" ||
	nt_fail "setconf with host bits: wgctl says '$got', wg says '$want'"
[ "$(dump "$IF")" = "$(dump "$IF_GO")" ] || nt_fail "setconf with host bits: wgd and wireguard-go differ"
want=$(nt_wg "$IF_GO" set "$IF_GO" peer "$X" allowed-ips 10.9.9.9/16 2>&1)
got=$(wgc set "$IF" peer "$X" allowed-ips 10.9.9.9/16 2>&1)
[ "$got" = "$want" ] && [ -n "$got" ] || nt_fail "set with host bits: wgctl says '$got', wg says '$want'"
for v in "10.0.0.0/8," "10.0.0.0/8,,10.1.0.0/16" ""; do
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = %s\n' "$X" "$v" >"$NT_TMP/empty.conf"
	nt_wg "$IF_GO" setconf "$IF_GO" "$NT_TMP/empty.conf" 2>/dev/null && nt_fail "wg took AllowedIPs = '$v'"
	out=$(wgc setconf "$IF" "$NT_TMP/empty.conf" 2>&1) && nt_fail "wgctl took AllowedIPs = '$v'"
	grep -q "empty.conf:3: " <<<"$out" || nt_fail "AllowedIPs = '$v': $out"
done
nt_ok "AllowedIPs: wg's host-bits warning from wgctl setconf and set; an empty item refused, as by wg"

# ---- whitespace inside tokens, where wg drops it ----

key=$(wg genkey)
cf_write "$NT_TMP/spaces.conf" <<EOF
[ Interface ]
Private Key = ${key:0:20} ${key:20}
[ Peer ]
Public Key = $X
Endpoint = 192.0.2.1 : 5
Persistent Keepalive = 2 5
AllowedIPs = 10.0.0.0 /8, fd00:: /64
EOF
nt_wg "$IF_GO" setconf "$IF_GO" "$NT_TMP/spaces.conf" || nt_fail "wg setconf with whitespace inside tokens"
wgc setconf "$IF" "$NT_TMP/spaces.conf" || nt_fail "wgctl setconf with whitespace inside tokens"
[ "$(dump "$IF")" = "$(dump "$IF_GO")" ] && [ "$(nt_wg "$IF" show "$IF" private-key)" = "$key" ] ||
	nt_fail "whitespace inside tokens: wgd has
$(nt_wg "$IF" show "$IF" dump)
wireguard-go has
$(nt_wg "$IF_GO" show "$IF_GO" dump)"
nt_ok "whitespace inside sections, wg's keys and values: wgctl setconf reads the file as wg does"

# ---- where wgctl stays stricter than wg (doc/man/wgctl.8, DIFFERENCES FROM WG) ----

# expect_refused WHAT PATTERN ARGS...: wgctl ARGS exits 1 with PATTERN on stderr.
expect_refused() {
	local what=$1 pat=$2 out st
	shift 2
	out=$(wgc "$@" 2>&1)
	st=$?
	[ "$st" = 1 ] && grep -q -- "$pat" <<<"$out" || nt_fail "$what: status $st, '$out'"
}
before=$(dump "$IF")
# wg wraps 65536 to 0 and takes it
expect_refused "endpoint port 65536" "^Endpoint is not host:port" set "$IF" peer "$X" endpoint 192.0.2.1:65536
expect_refused "keepalive 65536" "^Persistent keepalive interval is neither" set "$IF" peer "$X" persistent-keepalive 65536
expect_refused "listen-port 65536" "^Port is not in 0-65535" set "$IF" listen-port 65536
# wg truncates the name to 15 characters and changes that interface
long=${IF}xxxxxxxxxxxxxxxx
long=${long:0:16}
expect_refused "an interface name of 16 characters" "^Unable to access interface: Invalid argument$" show "$long"
expect_refused "set on an interface name of 16 characters" "^Unable to modify interface: " set "$long" listen-port 1
# a file's error: its name and line, never the key
bad=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
printf '[Interface]\nPrivateKey = %s\n' "$bad" >"$NT_TMP/badkey.conf"
expect_refused "a bad PrivateKey" "badkey\\.conf:2: invalid PrivateKey (a 44-character base64 key)$" \
	setconf "$IF" "$NT_TMP/badkey.conf"
wgc setconf "$IF" "$NT_TMP/badkey.conf" 2>&1 | grep -q "$bad" && nt_fail "a file's error quoted its PrivateKey"
[ "$(dump "$IF")" = "$before" ] || nt_fail "a refused command changed the device"
# errno=N and errno=-N (wireguard-go's sign) both name error N; wg takes
# only the negative one ("Unknown error -98" for errno=98)
for reply in 98 -98; do
	rm -f "$FAKE_SOCK"
	"$NT_PY" - "$FAKE_SOCK" "$reply" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1])
s.listen(4)
s.settimeout(20)
try:
    c, _ = s.accept()
    d = b""
    while not d.endswith(b"\n\n"):
        x = c.recv(4096)
        if not x:
            break
        d += x
    c.sendall(("errno=%s\n\n" % sys.argv[2]).encode())
    c.close()
finally:
    os.unlink(sys.argv[1])
PY
	NT_PIDS+=("$!")
	nt_until "$NT_TIMEOUT" test -S "$FAKE_SOCK" || nt_fail "the fake daemon's socket"
	expect_refused "a daemon's errno=$reply" "^Unable to modify interface: Address already in use$" \
		set "$FAKE" listen-port 1
done
nt_ok "stricter than wg: ports and keepalives over 65535, names over 15 characters, no key in a file's error, errno=N and errno=-N"
