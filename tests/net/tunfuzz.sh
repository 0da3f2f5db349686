#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hostile input from the TUN side and a refused rebind, wgd <-> wgd:
# - an AF_PACKET socket on b's WireGuard interface (PACKET_VNET_HDR) makes
#   the kernel hand b's TUN reads thousands of malformed packets: random
#   bytes, IPv4 headers with bad IHL and total length, IPv6 with bad payload
#   length, and TCP super-packets whose virtio_net_hdr has odd gso_size,
#   csum_start and csum_offset, some with the NEEDS_CSUM flag (the kernel
#   checks little of that; wgd's gso.c must check the rest).  The peer's
#   allowed IPs cover everything, so whatever passes is sealed and sent.
#   Afterwards b still runs (a sanitizer report in its log fails the test
#   in an ASan build) and pings pass both ways.
# - listen-port changed to a port another socket holds: `wg set` fails with
#   "Address in use", the old port stays reported and the tunnel keeps
#   working on it.

. "$(dirname "$0")/lib.sh"

nt_init rv
nt_pair wgd wgd
nt_endpoint "$IF_A" 4
nt_endpoint "$IF_B" 4
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 0.0.0.0/0,::/0 ||
	nt_fail "wide allowed IPs on b"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a before the fuzzing"

nt_log "-- malformed packets and super-packets into b's TUN device"
nt_x "$NS_B" "$NT_PY" - "$IF_B" <<-'PY' || nt_fail "injector failed"
import random, socket, struct, sys

ifname = sys.argv[1]
SOL_PACKET, PACKET_VNET_HDR = 263, 15
F_NEEDS_CSUM = 1
GSO_NONE, GSO_TCPV4, GSO_TCPV6 = 0, 1, 4
rng = random.Random(4242)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
s.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)

def vnet(flags=0, gso=GSO_NONE, hdr_len=0, size=0, start=0, off=0):
    return struct.pack("=BBHHHH", flags, gso, hdr_len, size, start, off)

def ip4(payload_len, ihl=5, total=None, proto=6):
    total = 20 + payload_len if total is None else total
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, total & 0xffff, 1, 0x4000, 64, proto, 0,
                    bytes([198, 51, 100, 2]), bytes([198, 51, 100, 1]))
    return h + bytes(max(0, ihl * 4 - 20))

def ip6(payload_len, plen=None, nh=6):
    plen = payload_len if plen is None else plen
    return struct.pack("!IHBB16s16s", 0x60000000, plen & 0xffff, nh, 64,
                       socket.inet_pton(socket.AF_INET6, "fd00:2::2"),
                       socket.inet_pton(socket.AF_INET6, "fd00:2::1"))

def tcp(doff=5, flags=0x10):
    return struct.pack("!HHIIBBHHH", 40000, 5201, 1, 1, doff << 4, flags, 65535, 0, 0) + \
        bytes(max(0, doff * 4 - 20))

sent = refused = 0
def send(hdr, pkt, proto):
    global sent, refused
    try:
        s.sendto(hdr + pkt, (ifname, proto))
        sent += 1
    except OSError:
        refused += 1	# the kernel's own checks; not wgd's business

P4, P6 = 0x0800, 0x86DD
for i in range(3000):
    kind = i % 6
    n = rng.randrange(0, 2100)
    if kind == 0:
        send(vnet(), bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64))) + bytes(n % 64),
             rng.choice((P4, P6)))
    elif kind == 1:
        ihl = rng.randrange(0, 16)
        pkt = ip4(n, ihl=ihl, total=rng.choice((None, rng.randrange(0, 65536), 0, 19, 20))) + bytes(n)
        send(vnet(), pkt[:rng.randrange(1, len(pkt) + 1)], P4)
    elif kind == 2:
        pkt = ip6(n, plen=rng.choice((None, rng.randrange(0, 65536), 0))) + bytes(n)
        send(vnet(), pkt[:rng.randrange(1, len(pkt) + 1)], P6)
    elif kind == 3:
        # TCP over IPv4 super-packets with odd GSO fields
        ihl = rng.choice((5, 5, 5, 6, 15, 4, 0))
        doff = rng.choice((5, 5, 8, 15, 4, 0))
        pay = rng.randrange(0, 60000)
        pkt = ip4(0, ihl=ihl) + tcp(doff) + bytes(pay)
        start = rng.choice((ihl * 4, 20, 0, rng.randrange(0, len(pkt) + 8)))
        send(vnet(flags=rng.choice((0, F_NEEDS_CSUM)), gso=GSO_TCPV4, hdr_len=rng.randrange(0, 120),
                  size=rng.choice((1, 7, 536, 1380, 2000, 4000, 65535, rng.randrange(1, 65536))),
                  start=start, off=rng.choice((16, 6, 0, rng.randrange(0, 65536)))), pkt, P4)
    elif kind == 4:
        doff = rng.choice((5, 5, 8, 15, 4))
        pay = rng.randrange(0, 60000)
        pkt = ip6(0, plen=None) + tcp(doff) + bytes(pay)
        pkt = pkt[:4] + struct.pack("!H", (len(pkt) - 40) & 0xffff) + pkt[6:]
        start = rng.choice((40, 40, 0, 39, rng.randrange(0, len(pkt) + 8)))
        send(vnet(flags=rng.choice((0, F_NEEDS_CSUM)), gso=GSO_TCPV6, hdr_len=rng.randrange(0, 120),
                  size=rng.choice((1, 536, 1380, 2000, rng.randrange(1, 65536))),
                  start=start, off=rng.choice((16, 0, rng.randrange(0, 65536)))), pkt, P6)
    else:
        # plain packets with a partial checksum at odd offsets
        pkt = ip4(n) + bytes(n)
        send(vnet(flags=F_NEEDS_CSUM, start=rng.randrange(0, len(pkt) + 4),
                  off=rng.randrange(0, 64)), pkt, P4)
print("injected %d packets (%d refused by the kernel)" % (sent, refused))
if sent < 1000:
    sys.exit("too few packets reached the TUN device")
PY
sleep 0.5
nt_gone "${NT_DPID[$IF_B]}" && nt_fail "b's wgd died on TUN input"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after the fuzzing"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b after the fuzzing"
nt_ok "b survived malformed TUN input; the tunnel works"

nt_log "-- listen-port change to a port in use"
busy=51999
nt_bg "$NS_B" "$NT_PY" -c "
import socket, time
s4 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s4.bind(('0.0.0.0', $busy))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1); s6.bind(('::', $busy))
open('$NT_TMP/busy', 'w').close()
time.sleep(60)"
nt_until "$NT_TIMEOUT" test -e "$NT_TMP/busy" || nt_fail "port holder did not start"
out=$(nt_wg "$IF_B" set "$IF_B" listen-port "$busy" 2>&1) && nt_fail "rebinding to a busy port succeeded"
case "$out" in
*"in use"*) ;;
*) nt_fail "rebinding to a busy port: expected EADDRINUSE, wg said: $out" ;;
esac
[ "$(nt_wg "$IF_B" show "$IF_B" listen-port)" = "$NT_PORT" ] || nt_fail "listen port changed after a failed rebind"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b after a failed rebind"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after a failed rebind"
nt_ok "a refused rebind reports EADDRINUSE and keeps the old socket"
