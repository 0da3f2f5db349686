#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Many peers: wgd on side a takes NT_MANY idle peers (one /32 and one
# endpoint each, as `wg addconf` of a generated file), and the growth of its
# resident memory per peer must stay within a small bound: an idle peer has
# no staging buffers, no keypair storage and no precomputed DH (the old
# daemon allocated 128 staging slots of 2 KiB, 256 KiB, per peer).  All of
# them are listed by `wg show dump` and found by key (`wg set` on the last).
#
# Staging still works among them (doc/architecture.md, Buffers: at most 128
# packets per peer, the oldest dropped): b forgets a, so a's initiations go
# unanswered while 200 numbered datagrams are sent from a to b; b then takes
# a back and initiates; once the session exists exactly the newest 128
# arrive at b, in order, before a datagram sent afterwards.

. "$(dirname "$0")/lib.sh"

nt_init mp
NT_MANY=${NT_MANY:-4000}
NT_TIMEOUT=30
prog=$(nt_impl wgd) || exit 1
# Per idle peer, as VmRSS grows: about 1 KiB in a plain build, 2 KiB under
# AddressSanitizer (redzones, shadow memory, and a quarantine that keeps the
# set message's freed arrays resident).  The daemon that gave every peer
# 128 staging slots needed 139 KiB per peer here in a plain build and
# 49 KiB under AddressSanitizer (4000 peers).
bound_kb=3
if grep -q __asan_init "$prog" 2>/dev/null; then
	bound_kb=6
	nt_note "AddressSanitizer build: the bound per idle peer is $bound_kb KiB"
fi

nt_pair wgd wgd
pid=${NT_DPID[$IF_A]}
port=5555

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

# ---- memory per idle peer ----
conf=$NT_TMP/many.conf
"$NT_PY" - "$NT_MANY" >"$conf" <<'EOF' || nt_fail "generating $NT_MANY peers"
import base64, os, sys
n = int(sys.argv[1])
for i in range(n):
    key = base64.b64encode(os.urandom(32)).decode()
    print("[Peer]\nPublicKey = %s\nAllowedIPs = 10.%d.%d.%d/32\nEndpoint = 172.%d.%d.%d:51820\n"
          % (key, (i >> 16) & 255, (i >> 8) & 255, i & 255, 16 + ((i >> 16) & 15), (i >> 8) & 255, i & 255))
EOF
last=$(awk '/^PublicKey/ { k = $3 } END { print k }' "$conf")
before=$(rss_kb "$pid")
nt_wg "$IF_A" addconf "$IF_A" "$conf" || nt_fail "wg addconf of $NT_MANY peers"
after=$(rss_kb "$pid")
per_peer=$(( (after - before) * 1024 / NT_MANY ))
nt_note "VmRSS $before kB -> $after kB for $NT_MANY peers: $per_peer bytes per peer (bound $bound_kb KiB)"
[ "$per_peer" -le $((bound_kb * 1024)) ] ||
	nt_fail "$per_peer bytes of resident memory per idle peer, more than $bound_kb KiB"
nt_ok "$NT_MANY idle peers: $per_peer bytes of resident memory each (bound $bound_kb KiB)"

lines=$(nt_wg "$IF_A" show "$IF_A" dump | wc -l)
[ "$lines" = $((NT_MANY + 2)) ] || nt_fail "wg show dump: $lines lines, want $((NT_MANY + 2))"
nt_wg "$IF_A" set "$IF_A" peer "$last" allowed-ips 10.255.0.1/32 || nt_fail "wg set on the last peer"
[ "$(nt_wg "$IF_A" show "$IF_A" allowed-ips | awk -v k="$last" '$1 == k { print $2 }')" = 10.255.0.1/32 ] ||
	nt_fail "the last of $NT_MANY peers did not take its new allowed IP"
nt_ok "wg show dump lists all of them; wg set finds the last by its key"

# ---- staging among them: 200 sent before the session, the newest 128 arrive ----
cat >"$NT_TMP/rx.py" <<'EOF'
import socket, sys
out, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((addr, port))
s.settimeout(60)
open(out + ".count", "w").write("0\n")
got = []
try:
    while True:
        n = int(s.recv(64).decode())
        if n == 0:
            break
        got.append(n)
        with open(out + ".count", "w") as f:
            f.write("%d\n" % len(got))
finally:
    with open(out, "w") as f:
        f.write(" ".join(map(str, got)) + "\n")
EOF
cat >"$NT_TMP/tx.py" <<'EOF'
import socket, sys
addr, port, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in range(first, last + 1):
    s.sendto(b"%d" % n, (addr, port))
EOF
got_at_least() { [ "$(cat "$NT_TMP/received.count" 2>/dev/null || echo 0)" -ge "$1" ]; }

# b no longer knows a: a's initiations are dropped, so its packets wait.
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" remove || nt_fail "b forgets a"
nt_endpoint "$IF_A" 4
nt_bg "$NS_B" "$NT_PY" "$NT_TMP/rx.py" "$NT_TMP/received" 198.51.100.2 $port
rx=$NT_BG_PID
nt_until "$NT_TIMEOUT" test -e "$NT_TMP/received.count" || nt_fail "the receiver on b did not start"
nt_x "$NS_A" "$NT_PY" "$NT_TMP/tx.py" 198.51.100.2 $port 1 200 || nt_fail "sending 200 datagrams from a"
[ "$(nt_handshake "$IF_A")" = 0 ] || nt_fail "a has a session with b, which does not know it"
got_at_least 1 && nt_fail "a datagram reached b without a session"
# b takes a back and initiates (its ping is staged on b until then).
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,fd00:2::1/128 \
	endpoint "192.0.2.1:$NT_PORT" || nt_fail "b takes a back"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a"
nt_until "$NT_TIMEOUT" got_at_least 128 ||
	nt_fail "only $(cat "$NT_TMP/received.count") of the staged datagrams arrived"
# The session is confirmed on a now: this one goes out at once, after the staged ones.
nt_x "$NS_A" "$NT_PY" "$NT_TMP/tx.py" 198.51.100.2 $port 0 0 || nt_fail "sending the last datagram"
nt_wait_gone "$rx" "$NT_TIMEOUT" || nt_fail "the receiver on b did not see the last datagram"
want=$(seq -s ' ' 73 200)
got=$(cat "$NT_TMP/received")
[ "$got" = "$want" ] || nt_fail "b received [$got], want the newest 128 in order [$want]"
nt_ok "200 datagrams sent before the handshake: the newest 128 arrived, in order, once it completed"
echo "PASS"
