#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The UDP sockets follow the link, as the kernel's WireGuard's do (they
# open in ndo_open, close in ndo_stop; doc/protocol.md §8): while b's
# interface is down its port is free (another program binds it) and a
# datagram to it draws port unreachable; a listen-port set while down is
# only stored (shown, not bound) and bound at the next up, where the tunnel
# works on it.  listen-port 0 picks a random port at up, and set again
# while up a new one (the kernel's set_port() compares with the port in
# use).

. "$(dirname "$0")/lib.sh"

nt_init ds
nt_need ss

# bound NS PORT: a UDP socket is bound to PORT in NS.
bound() { [ -n "$(nt_x "$1" ss -Huln "sport = :$2")" ]; }
# wait_bound NS PORT [not]: until PORT is bound (or, with "not", free), 5 s at most.
wait_bound() {
	local i
	for ((i = 0; i < 100; i++)); do
		if bound "$1" "$2"; then [ -z "${3:-}" ] && return 0; else [ -n "${3:-}" ] && return 0; fi
		sleep 0.05
	done
	return 1
}
# port IF: the listen port wg shows.
port() { nt_wg "$1" show "$1" listen-port; }
# refused NS ADDR PORT: a datagram to ADDR:PORT draws port unreachable.
refused() {
	nt_x "$1" "$NT_PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
s.connect((sys.argv[1], int(sys.argv[2])))
for _ in range(3):
    s.send(b"x" * 148)
    try:
        s.recv(100)
    except ConnectionRefusedError:
        sys.exit(0)
    except socket.timeout:
        pass
sys.exit(1)
' "$2" "$3"
}
# takeable NS PORT: another program can bind the port (both families).
takeable() {
	nt_x "$1" "$NT_PY" -c '
import socket, sys
for fam, addr in ((socket.AF_INET, "0.0.0.0"), (socket.AF_INET6, "::")):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.bind((addr, int(sys.argv[1])))
    s.close()
' "$2"
}

nt_pair wgd wgd
nt_endpoint "$IF_A" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "first ping"
bound "$NS_B" "$NT_PORT" || nt_fail "b is not listening on $NT_PORT while up"

ip -n "$NS_B" link set "$IF_B" down || nt_fail "link down"
wait_bound "$NS_B" "$NT_PORT" not || nt_fail "b's port $NT_PORT is still bound while its interface is down"
takeable "$NS_B" "$NT_PORT" || nt_fail "port $NT_PORT cannot be bound by another program while b is down"
refused "$NS_A" 192.0.2.2 "$NT_PORT" || nt_fail "no port unreachable from b while it is down"
nt_ok "down: sockets closed, the port free, peers get port unreachable"

nt_wg "$IF_B" set "$IF_B" listen-port 51999 || nt_fail "listen-port while down"
[ "$(port "$IF_B")" = 51999 ] || nt_fail "listen-port set while down shows '$(port "$IF_B")', want 51999"
bound "$NS_B" 51999 && nt_fail "listen-port set while down was bound at once"
bound "$NS_B" "$NT_PORT" && nt_fail "the old port was bound again while down"
ip -n "$NS_B" link set "$IF_B" up || nt_fail "link up"
wait_bound "$NS_B" 51999 || nt_fail "the stored port 51999 is not bound at up"
# b's sessions ended with the link (§8): a starts afresh rather than wait for its rekey
nt_peers_reset
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" endpoint 192.0.2.2:51999 || nt_fail "a's endpoint"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping to b's new port after up"
nt_ok "listen-port set while down: stored, bound at up, the tunnel works on it"

ip -n "$NS_B" link set "$IF_B" down || nt_fail "link down"
nt_wg "$IF_B" set "$IF_B" listen-port 0 || nt_fail "listen-port 0 while down"
ip -n "$NS_B" link set "$IF_B" up || nt_fail "link up"
p1=$(port "$IF_B")
[ "$p1" != 0 ] && wait_bound "$NS_B" "$p1" || nt_fail "no random port bound at up ($p1)"
[ "$p1" != 51999 ] || nt_fail "listen-port 0 kept 51999"
nt_wg "$IF_B" set "$IF_B" listen-port 0 || nt_fail "listen-port 0 again"
p2=$(port "$IF_B")
[ "$p2" != "$p1" ] && [ "$p2" != 0 ] || nt_fail "listen-port 0 set again kept port $p1 (want a new random one)"
bound "$NS_B" "$p2" || nt_fail "the new random port $p2 is not bound"
bound "$NS_B" "$p1" && nt_fail "the old random port $p1 is still bound"
nt_ok "listen-port 0: random at up ($p1), a new one when set again ($p2)"
nt_gone "${NT_DPID[$IF_B]}" && nt_fail "wgd died"
echo "PASS"
