#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# systemd's readiness protocol as wgd@.service (Type=notify) relies on it:
# wgd -f with $NOTIFY_SOCKET set to a datagram socket this test binds (a
# path, then an abstract name) sends
# - READY=1 once it serves: at that moment the control socket answers a
#   get (with -c FILE, showing the file's listen port: the file is applied),
#   and the sender (SCM_CREDENTIALS) is the daemon's pid already running as
#   the --user it dropped to;
# - STOPPING=1 at exit (SIGTERM), from the same pid, after the drop too;
# and nothing else.

. "$(dirname "$0")/lib.sh"

nt_init nf
[ -n "${WGD:-}" ] && [ -x "$WGD" ] || nt_fail "WGD is not set to an executable wgd"
NS=$(nt_name "" x)
nt_netns "$NS"

# listen ADDRESS LOG: bind ADDRESS (a path or @name), log every datagram as
# "PID UID STATE-LINES GET" (GET, for READY=1: "port=N" from the answer to
# a get=1 on the control socket right then, "-" if none), until STOPPING=1
# or 30 s.
listen() {
	nt_bg "$NS" "$NT_PY" -c '
import os, socket, struct, sys, time
addr, log, ctl = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
if addr.startswith("@"):
    s.bind("\0" + addr[1:])
else:
    s.bind(addr)
    os.chmod(addr, 0o666)   # as systemd makes its notify socket: the daemon drops root
out = open(log, "w")
out.write("bound\n"); out.flush()
s.settimeout(30)
def serving():
    try:
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(2)
        c.connect(ctl)
        c.sendall(b"get=1\n\n")
        buf = b""
        while not buf.endswith(b"\n\n"):
            d = c.recv(65536)
            if not d:
                break
            buf += d
        if b"errno=0\n" not in buf:
            return "-"
        for l in buf.decode().splitlines():
            if l.startswith("listen_port="):
                return "port=" + l[12:]
        return "port=none"
    except OSError:
        return "-"
while True:
    try:
        msg, anc, flags, _ = s.recvmsg(4096, socket.CMSG_SPACE(12))
    except socket.timeout:
        break
    pid = uid = -1
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_CREDENTIALS:
            pid, uid, gid = struct.unpack("iII", data[:12])
    state = msg.decode().strip().replace("\n", ",")
    got = serving() if "READY=1" in state else "-"
    out.write("%d %d %s %s\n" % (pid, uid, state, got)); out.flush()
    if "STOPPING=1" in state:
        break
' "$1" "$2" "/var/run/wireguard/$IFC.sock"
	nt_until 5 grep -q bound "$2" || nt_fail "the notify listener did not start"
}

# run ADDRESS PORT WGD-ARGS...: one daemon's life; checks the datagrams
# (PORT: the listen port the get at READY=1 must show, * for any).
n=0
run() {
	local addr=$1 port=$2 log pid want_uid lines first
	shift 2
	n=$((n + 1))
	IFC=$(nt_name wg "$n")
	log=$NT_TMP/notify$n.log
	listen "$addr" "$log"
	NT_NS[$IFC]=$NS
	NT_IFACES+=("$IFC")
	NOTIFY_SOCKET=$addr LOG_LEVEL=verbose ip netns exec "$NS" "$WGD" -f "$@" "$IFC" \
		>"$NT_TMP/$IFC.log" 2>&1 &
	pid=$!
	NT_DPID[$IFC]=$pid
	nt_until "$NT_TIMEOUT" grep -q READY=1 "$log" || nt_fail "$addr: no READY=1"
	want_uid=0
	[ "${1:-}" = --user ] && want_uid=$(id -u "$2")
	[ "${1:-}" = -c ] && [ "${3:-}" = --user ] && want_uid=$(id -u "$4")
	first=$(sed -n 2p "$log")
	# shellcheck disable=SC2053 # PORT may be the pattern *
	[[ "$first" == "$pid $want_uid READY=1 port="$port ]] ||
		nt_fail "$addr: first datagram '$first', want '$pid $want_uid READY=1 port=$port'"
	kill -TERM "$pid"
	nt_wait_gone "$pid" 5 || nt_fail "$addr: wgd still running after SIGTERM"
	wait "$pid" || nt_fail "$addr: exit status $? after SIGTERM"
	NT_DPID[$IFC]=
	nt_until 5 grep -q STOPPING=1 "$log" || nt_fail "$addr: no STOPPING=1"
	[ "$(sed -n 3p "$log")" = "$pid $want_uid STOPPING=1 -" ] ||
		nt_fail "$addr: second datagram '$(sed -n 3p "$log")', want '$pid $want_uid STOPPING=1 -'"
	lines=$(wc -l <"$log")
	[ "$lines" = 3 ] || nt_fail "$addr: $((lines - 1)) datagrams, want 2: $(cat "$log")"
	nt_ok "$addr ${*:-(no options)}: READY=1 from pid $pid, uid $want_uid, serving (${first##* }); STOPPING=1 at exit"
}

run "$NT_TMP/notify.sock" "*"
run "@wgdnotify$NT_U.$RANDOM" "*"
# systemd's socket is reachable by every user; the daemon sends after the drop.
chmod 0711 "$NT_TMP"
run "$NT_TMP/notify-drop.sock" "*" --user nobody
# With a file: READY=1 once it is applied (its listen port is bound).
umask 077
printf '[Interface]\nPrivateKey = %s\nListenPort = 51777\nAddress = 198.51.100.1/24\n' "$(wg genkey)" \
	>"$NT_TMP/nf.conf" || nt_fail "writing the file"
run "$NT_TMP/notify-file.sock" 51777 -c "$NT_TMP/nf.conf" --user nobody
echo "PASS"
