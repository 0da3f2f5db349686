#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Differential test of the control socket: the same wg(8) commands against
# wireguard-go and against our server (uapi_fakedev: daemon/control/control.c +
# daemon/config/uapi.c in front of the real data path library with no TUN device
# or sockets behind it), then `wg showconf` and
# `wg show dump` must agree, and raw malformed messages must get the same
# errno.  Runs in private mount and network namespaces (a tmpfs on
# /var/run/wireguard), so it never sees or disturbs other daemons.
#
# Usage: test_wg_compat.sh SERVER [ARGS...]   (root; exit 77 otherwise)
# runs `SERVER ARGS... IFNAME` in the foreground in a network namespace of
# its own: tests/control/uapi_fakedev, or the real daemon as `wgd -f`.
set -u

[ $# -ge 1 ] || { echo "usage: $0 SERVER [ARGS...]"; exit 2; }
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
for t in wg wireguard-go unshare python3; do
	command -v "$t" >/dev/null || { echo "skip: no $t"; exit 77; }
done

if [ -z "${WGD_COMPAT_INNER:-}" ]; then
	WGD_COMPAT_INNER=1 exec timeout 150 unshare --mount --net --propagation private \
		bash "$0" "$@"
fi

mkdir -p /var/run/wireguard
mount -t tmpfs -o mode=0755 tmpfs /var/run/wireguard || { echo "skip: no tmpfs"; exit 77; }
TMP=$(mktemp -d)
GO=wgo0
US=wgf0
fail=0
GO_PID=
FAKE_PID=
cleanup() {
	rm -f /var/run/wireguard/*.sock
	for p in $GO_PID $FAKE_PID; do kill "$p" 2>/dev/null; done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# In the foreground (under our control), so that a timeout kills it too.
LOG_LEVEL=silent wireguard-go -f "$GO" 2>/dev/null &
GO_PID=$!
for _ in $(seq 100); do
	[ -S /var/run/wireguard/$GO.sock ] && break
	sleep 0.05
done
[ -S /var/run/wireguard/$GO.sock ] || { echo "skip: wireguard-go cannot start"; exit 77; }
# Its own network namespace, so that it can bind the same UDP ports.
unshare --net "$@" "$US" &
FAKE_PID=$!
for _ in $(seq 100); do
	[ -S /var/run/wireguard/$US.sock ] && break
	sleep 0.05
done
[ -S /var/run/wireguard/$US.sock ] || { echo "FAIL: $* did not open its socket"; exit 1; }

# Only root may connect: wireguard-go's socket is 0700 (umask 077), ours
# 0600 (the execute bit means nothing on a socket).
m=$(stat -c %a /var/run/wireguard/$US.sock)
[ "$m" = 600 ] || { echo "FAIL: $US.sock mode $m"; fail=1; }
m=$(stat -c %a /var/run/wireguard/$GO.sock)
[ "${m%00}" != "$m" ] || { echo "FAIL: wireguard-go's socket mode $m (test assumption)"; fail=1; }

k() { wg genkey; }
PRIV1=$(k); PRIV2=$(k)
P1=$(k | wg pubkey); P2=$(k | wg pubkey); P3=$(k | wg pubkey); P4=$(k | wg pubkey)
PSK=$(wg genpsk)
printf '%s\n' "$PRIV2" >"$TMP/priv2"
printf '%s\n' "$PSK" >"$TMP/psk"

cat >"$TMP/c1" <<EOF
[Interface]
PrivateKey = $PRIV1
ListenPort = 51820
FwMark = 0x1234

[Peer]
PublicKey = $P1
PresharedKey = $PSK
Endpoint = 192.0.2.1:51820
AllowedIPs = 10.1.2.3/24, fd00:1::/64, 0.0.0.0/0
PersistentKeepalive = 25

[Peer]
PublicKey = $P2
Endpoint = [2001:db8::7]:65535
AllowedIPs = 10.2.0.0/16, 2001:db8:ffff::1/33

[Peer]
PublicKey = $P3
AllowedIPs = 10.3.0.1/32
EOF

cat >"$TMP/c2" <<EOF
[Peer]
PublicKey = $P4
Endpoint = 198.51.100.4:1
AllowedIPs = 10.4.0.0/16

[Peer]
PublicKey = $P3
AllowedIPs = 10.33.0.0/16
EOF

cat >"$TMP/c3" <<EOF
[Interface]
PrivateKey = $PRIV1
ListenPort = 51821

[Peer]
PublicKey = $P1
Endpoint = 192.0.2.1:51820
AllowedIPs = 10.1.2.0/24

[Peer]
PublicKey = $P4
AllowedIPs = 10.4.0.0/16, 10.44.0.0/16
PersistentKeepalive = 5
EOF

# One python per comparison (the interpreter's start-up dominates): wg
# showconf, wg show dump and wg show of both interfaces, made canonical
# (peers sorted, allowed IPs sorted), must be equal.
cat >"$TMP/cmp.py" <<'PYEOF'
import subprocess, sys, difflib
what, go, us = sys.argv[1:4]

def run(*args):
    return subprocess.run(["wg"] + list(args), capture_output=True, text=True).stdout

def conf(text):
    blocks, cur = [], []
    for line in text.splitlines():
        if line.startswith("[") and cur:
            blocks.append(cur); cur = []
        if line.startswith("AllowedIPs"):
            k, v = line.split("=", 1)
            line = k + "= " + ", ".join(sorted(x.strip() for x in v.split(",")))
        if line.strip():
            cur.append(line)
    if cur:
        blocks.append(cur)
    return [l for b in blocks[:1] + sorted(blocks[1:]) for l in b]

def dump(text):
    lines = text.splitlines()
    head = ["\t".join(lines[0].split("\t")[1:])] if lines else []
    peers = []
    for l in lines[1:]:
        f = l.split("\t")
        f[4] = ",".join(sorted(f[4].split(",")))
        peers.append("\t".join(f))
    return head + sorted(peers)

def show(text, name):
    # Only the interface line names the interface; a random base64 key can
    # contain the name too ("...XeYxwgo0EY="), so never replace elsewhere.
    return sorted("interface: IF" if l == "interface: " + name else l
                  for l in text.splitlines())

bad = 0
for kind, a, b in (
        ("showconf", conf(run("showconf", go)), conf(run("showconf", us))),
        ("dump", dump(run("show", go, "dump")), dump(run("show", us, "dump"))),
        ("show", show(run("show", go), go), show(run("show", us), us))):
    if a != b:
        print("FAIL: %s after %s" % (kind, what))
        print("\n".join(difflib.unified_diff(a, b, "wireguard-go", "ours", lineterm="")))
        bad = 1
sys.exit(bad)
PYEOF

compare() {
	python3 "$TMP/cmp.py" "$1" "$GO" "$US" || fail=1
}

both() {
	local what=$1 ra rb; shift
	"$@" "$GO" >"$TMP/outa" 2>&1; ra=$?
	"$@" "$US" >"$TMP/outb" 2>&1; rb=$?
	# wg is the first word; the interface name is appended by the caller.
	if [ $ra != $rb ]; then
		echo "FAIL: $what: exit $ra vs $rb"; cat "$TMP/outa" "$TMP/outb"; fail=1
	fi
	compare "$what"
}

wgcmd() {	# wgcmd SUBCOMMAND ARGS... IFNAME -> wg SUBCOMMAND IFNAME ARGS...
	local n=$#; local ifn=${!n}; local sub=$1
	set -- "${@:2:$((n - 2))}"
	wg "$sub" "$ifn" "$@"
}

# (Not compared before the first set: wireguard-go binds a random port at
# start, which the in-memory device does not emulate.)
both "setconf" wgcmd setconf "$TMP/c1"
both "addconf" wgcmd addconf "$TMP/c2"
both "set allowed-ips" wgcmd set peer "$P1" allowed-ips 10.9.0.0/16,fd00:9::/64
both "set remove" wgcmd set peer "$P2" remove
both "set endpoint v6 keepalive psk" wgcmd set peer "$P3" endpoint '[::1]:1234' \
	persistent-keepalive 7 preshared-key "$TMP/psk"
both "set keepalive off" wgcmd set peer "$P3" persistent-keepalive off
both "set port fwmark" wgcmd set listen-port 51999 fwmark 0
both "move prefix" wgcmd set peer "$P4" allowed-ips 10.9.0.0/16
both "syncconf" wgcmd syncconf "$TMP/c3"
both "private key" wgcmd set private-key "$TMP/priv2"
both "setconf again" wgcmd setconf "$TMP/c1"
# A link-local endpoint keeps its scope with us; Debian's wireguard-go drops
# it (and then cannot send there).  Checked on our side only, then undone.
wg set $US peer "$P1" endpoint '[fe80::1%lo]:7'
wg show $US endpoints | grep -q '\[fe80::1%lo\]:7' ||
	{ echo "FAIL: link-local endpoint lost its scope: $(wg show $US endpoints)"; fail=1; }
wg set $US peer "$P1" endpoint 192.0.2.1:51820
compare "link-local endpoint undone"

# A large configuration: replies far bigger than a socket buffer.
python3 - "$TMP/big" <<'PYEOF'
import base64, os, sys
with open(sys.argv[1], "w") as f:
    f.write("[Interface]\nListenPort = 51830\nPrivateKey = %s\n" %
            base64.b64encode(os.urandom(32)).decode())
    for i in range(2000):
        f.write("[Peer]\nPublicKey = %s\nAllowedIPs = 10.%d.%d.0/24, fd00:%x::/64\n"
                "Endpoint = 192.0.2.%d:%d\n" % (base64.b64encode(os.urandom(32)).decode(),
                i >> 8, i & 255, i, i % 250 + 1, 1000 + i))
PYEOF
both "setconf 2000 peers" wgcmd setconf "$TMP/big"
both "syncconf back" wgcmd syncconf "$TMP/c1"

# Raw messages: the same errno from both (wireguard-go applies a message
# line by line, so only messages that fail on their first line are used).
python3 - "$GO" "$US" <<'PYEOF' || fail=1
import socket, sys
go, us = sys.argv[1:3]
msgs = [b"set=1\nlisten_port=65536\n\n", b"set=1\nfoo=bar\n\n", b"set=1\nlisten_port\n\n",
        b"set=1\nreplace_peers=false\n\n", b"set=1\nprivate_key=abc\n\n",
        b"set=1\npublic_key=zz\n\n", b"set=1\nfwmark=-1\n\n", b"get=1\nx\n",
        b"set=1\nendpoint=1.2.3.4:1\n\n", b"set=1\nprotocol_version=1\n\n",
        b"set=1\nlisten_port=1x\n\n", b"set=1\n\n", b"get=1\n\n"]

def last_line(ifname, msg):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect("/var/run/wireguard/%s.sock" % ifname)
    s.sendall(msg)
    buf = b""
    while not buf.endswith(b"\n\n"):
        d = s.recv(65536)
        if not d:
            break
        buf += d
    s.close()
    lines = [l for l in buf.decode(errors="replace").splitlines() if l]
    return lines[-1] if lines else "(closed)"

bad = 0
for m in msgs:
    a, b = last_line(go, m), last_line(us, m)
    if a != b:
        print("FAIL: raw %r: wireguard-go %r vs ours %r" % (m, a, b))
        bad = 1
sys.exit(bad)
PYEOF
compare "raw messages"

# Deleting the socket file stops both daemons.
rm -f /var/run/wireguard/$US.sock
for _ in $(seq 50); do
	kill -0 $FAKE_PID 2>/dev/null || break
	sleep 0.05
done
if kill -0 $FAKE_PID 2>/dev/null; then
	echo "FAIL: server still running after its socket was deleted"; fail=1
else
	wait $FAKE_PID || { echo "FAIL: server exit status $?"; fail=1; }
	FAKE_PID=
fi

[ $fail = 0 ] && echo "wg compat: wg show/showconf/dump and errno identical to wireguard-go"
exit $fail
