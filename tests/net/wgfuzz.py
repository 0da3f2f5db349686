#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Capture WireGuard datagrams and throw malformed and replayed ones at a daemon.

  wgfuzz.py sniff IFACE PORT OUT READY SECONDS
      Record every UDP datagram to or from PORT seen on IFACE (AF_PACKET, both
      directions, IPv4 and IPv6) as JSON lines, until SIGTERM or SECONDS.
      Creates the file READY once the socket is bound.

  wgfuzz.py flood CAPTURE TARGET PORT COUNT
      Replay the captured initiations toward TARGET:PORT COUNT times, as
      fast as possible, from their real source.

  wgfuzz.py junk TARGET PORT COUNT
      Send COUNT initiation-sized datagrams of random contents (invalid
      mac1) toward TARGET:PORT in a burst, from one ordinary socket.

  wgfuzz.py inject CAPTURE TARGET PORT SEED [TARGET6]
      Send to TARGET:PORT, from the addresses and ports the captured packets
      really came from (raw IPv4 socket, so replays are exact): random bytes of
      every size from 0 to 1472, each message type truncated, exact and
      oversized, every byte of a captured initiation, response and data
      message flipped, cookie replies and data messages aimed at the live
      session indices with garbage contents and extreme counters, reserved
      bytes set, and every captured datagram replayed.  Then more of the same
      from an ordinary socket on another port (an unauthenticated packet must
      not move the peer's endpoint), and, with TARGET6, over IPv6.

Message sizes are those of the WireGuard whitepaper, section 5.4: initiation
148, response 92, cookie reply 64, data 32 + padded payload.
"""

import json
import random
import signal
import socket
import struct
import sys
import time

INITIATION, RESPONSE, COOKIE, DATA = 1, 2, 3, 4
SIZES = {INITIATION: 148, RESPONSE: 92, COOKIE: 64, DATA: 32}


def parse_frame(frame):
    """(src, sport, dst, dport, payload) of an Ethernet frame holding a
    whole UDP datagram, else None."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    ip = frame[14:]
    if ethertype == 0x0800 and len(ip) >= 20:
        ihl = (ip[0] & 15) * 4
        frag = struct.unpack("!H", ip[6:8])[0]
        if ip[9] != 17 or frag & 0x3FFF or len(ip) < ihl + 8:
            return None
        src = socket.inet_ntop(socket.AF_INET, ip[12:16])
        dst = socket.inet_ntop(socket.AF_INET, ip[16:20])
        udp = ip[ihl:]
    elif ethertype == 0x86DD and len(ip) >= 48:
        if ip[6] != 17:
            return None
        src = socket.inet_ntop(socket.AF_INET6, ip[8:24])
        dst = socket.inet_ntop(socket.AF_INET6, ip[24:40])
        udp = ip[40:]
    else:
        return None
    sport, dport, ulen = struct.unpack("!HHH", udp[:6])
    if ulen < 8 or ulen > len(udp):
        return None
    return src, sport, dst, dport, udp[8:ulen]


def sniff(iface, port, out, ready, seconds):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.bind((iface, 0))
    s.settimeout(0.1)
    open(ready, "w").close()
    deadline = time.monotonic() + seconds
    with open(out, "w") as f:
        while not stop and time.monotonic() < deadline:
            try:
                frame = s.recv(65535)
            except socket.timeout:
                continue
            except InterruptedError:
                continue
            p = parse_frame(frame)
            if p is None or port not in (p[1], p[3]):
                continue
            f.write(json.dumps({"src": p[0], "sport": p[1], "dst": p[2],
                                "dport": p[3], "payload": p[4].hex()}) + "\n")
            f.flush()


class Sender:
    """Raw IPv4 (spoofed source) and ordinary UDP senders, with counts."""

    def __init__(self, target, port, target6):
        self.target, self.port, self.target6 = target, port, target6
        self.raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp6 = None
        if target6:
            self.udp6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        self.sent = 0
        self.refused = 0

    def _count(self, fn):
        try:
            fn()
            self.sent += 1
        except OSError:
            # Datagrams larger than the path allows on a raw socket, or ICMP
            # errors reported back on the UDP socket: not the daemon's doing.
            self.refused += 1
        if self.sent % 64 == 0:
            time.sleep(0.002)  # let the daemon drain its socket buffer

    def spoofed(self, src, sport, payload):
        pkt = _spoof(src, sport, self.target, self.port, payload)
        self._count(lambda: self.raw.sendto(pkt, (self.target, 0)))

    def plain(self, payload):
        self._count(lambda: self.udp.sendto(payload, (self.target, self.port)))

    def plain6(self, payload):
        if self.udp6:
            self._count(lambda: self.udp6.sendto(payload, (self.target6, self.port)))


def rbytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def header(t):
    return bytes([t, 0, 0, 0])


def malformed(rng, captured):
    """Every bad datagram, built from the captured ones where useful."""
    out = []
    for n in list(range(0, 200)) + [255, 256, 511, 512, 1000, 1200, 1400, 1472]:
        out.append(rbytes(rng, n))
    for t in (INITIATION, RESPONSE, COOKIE, DATA, 0, 5, 255):
        for n in (0, 1, 2, 3, 4, 8, 16, 31, 32, 33, 47, 48, 63, 64, 65, 91, 92, 93,
                  147, 148, 149, 200, 1000, 1472):
            if n >= 4:
                out.append(header(t) + rbytes(rng, n - 4))
            else:
                out.append(header(t)[:n])
    for t, msgs in captured.items():
        if not msgs:
            continue
        m = msgs[0] if t != DATA else min(msgs, key=len)
        # Every byte flipped: type, reserved, indices, ephemeral, sealed
        # fields, mac1, mac2, counter, ciphertext, tag.
        for i in range(len(m)):
            b = bytearray(m)
            b[i] ^= 1 << rng.randrange(8)
            out.append(bytes(b))
        # Every truncation, and oversized.
        for n in range(len(m)):
            out.append(m[:n])
        for extra in (1, 15, 16, 100, 1000):
            out.append(m + rbytes(rng, extra))
        # Reserved bytes set on an otherwise intact message.
        for i in (1, 2, 3):
            b = bytearray(m)
            b[i] = 1
            out.append(bytes(b))
        # mac2 present but meaningless (initiation/response), mac1 zeroed.
        if t in (INITIATION, RESPONSE):
            size = SIZES[t]
            out.append(m[:size - 16] + rbytes(rng, 16))
            out.append(m[:size - 32] + bytes(16) + m[size - 16:])
    # Messages aimed at the live session: the indices the peers chose.
    indices = set()
    for m in captured.get(INITIATION, []) + captured.get(RESPONSE, []):
        indices.add(m[4:8])
    for m in captured.get(RESPONSE, []) + captured.get(DATA, []):
        indices.add(m[8:12] if m[0] == RESPONSE else m[4:8])
    for idx in sorted(indices):
        out.append(header(COOKIE) + idx + rbytes(rng, 56))
        for counter in (0, 1, 2**13, 2**60, 2**64 - 2**13 - 1, 2**64 - 1):
            for plen in (0, 16, 64, 1420):
                out.append(header(DATA) + idx + struct.pack("<Q", counter) +
                           rbytes(rng, plen + 16))
    return out


def inject(capture, target, port, seed, target6=None):
    rng = random.Random(seed)
    toward = []  # (src, sport, payload) of datagrams the target received
    captured = {INITIATION: [], RESPONSE: [], COOKIE: [], DATA: []}
    legit = None
    with open(capture) as f:
        for line in f:
            r = json.loads(line)
            p = bytes.fromhex(r["payload"])
            if p and p[0] in captured and r["dst"] == target and r["dport"] == port:
                captured[p[0]].append(p)
                toward.append((r["src"], r["sport"], p))
                legit = legit or (r["src"], r["sport"])
    if legit is None or ":" in legit[0]:
        print("inject: no IPv4 datagram toward %s:%d was captured" % (target, port))
        return 2
    s = Sender(target, port, target6)
    bad = malformed(rng, captured)
    for m in bad:
        s.spoofed(legit[0], legit[1], m)
    for src, sport, p in toward:
        for _ in range(2):
            s.spoofed(src, sport, p)
    for m in bad:
        s.plain(m)
    for _, _, p in toward:
        s.plain(p)
    for n in (2000, 4000, 9000, 65507):
        s.plain(rbytes(rng, n))
        s.plain(header(DATA) + rbytes(rng, n - 4))
    for m in bad[::3]:
        s.plain6(m)
    for _, _, p in toward:
        s.plain6(p)
    print("inject: %d datagrams sent to %s:%d (%d refused locally), seed %d, "
          "captured %s" % (s.sent, target, port, s.refused, seed,
                           {k: len(v) for k, v in captured.items()}))
    return 0


def flood(capture, target, port, count):
    """The captured initiations toward TARGET, replayed COUNT times in a
    burst from their real source: valid mac1, so the responder must weigh
    each one (under-load detection, cookie replies, rate limiting)."""
    inits = []
    with open(capture) as f:
        for line in f:
            r = json.loads(line)
            p = bytes.fromhex(r["payload"])
            if p and p[0] == INITIATION and r["dst"] == target and r["dport"] == port:
                inits.append((r["src"], r["sport"], p))
    if not inits:
        print("flood: no initiation toward %s:%d was captured" % (target, port))
        return 2
    s = Sender(target, port, None)
    for i in range(count):
        src, sport, p = inits[i % len(inits)]
        try:
            s.raw.sendto(_spoof(src, sport, target, port, p), (target, 0))
            s.sent += 1
        except OSError:
            s.refused += 1
    print("flood: %d initiations replayed to %s:%d (%d refused locally)"
          % (s.sent, target, port, s.refused))
    return 0


def junk(target, port, count):
    """COUNT datagrams of an initiation's size and type but random contents
    (so no valid mac1), in a burst from one ordinary socket: what anybody
    can send without keys.  A responder must not take them for load."""
    rng = random.Random(7)
    s = socket.socket(socket.AF_INET6 if ":" in target else socket.AF_INET, socket.SOCK_DGRAM)
    sent = refused = 0
    for _ in range(count):
        try:
            s.sendto(header(INITIATION) + rbytes(rng, SIZES[INITIATION] - 4), (target, port))
            sent += 1
        except OSError:
            refused += 1
    print("junk: %d random initiations sent to %s:%d (%d refused locally)"
          % (sent, target, port, refused))
    return 0


def _spoof(src, sport, dst, dport, payload):
    """An IPv4 + UDP datagram from any source.  On a raw IPPROTO_RAW socket
    the kernel fills in the IPv4 total length, identification and header
    checksum; a UDP checksum of 0 means none (RFC 768)."""
    udp = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                     socket.inet_aton(src), socket.inet_aton(dst))
    return ip + udp


def main(argv):
    if len(argv) == 6 and argv[0] == "sniff":
        sniff(argv[1], int(argv[2]), argv[3], argv[4], float(argv[5]))
        return 0
    if len(argv) == 5 and argv[0] == "flood":
        return flood(argv[1], argv[2], int(argv[3]), int(argv[4]))
    if len(argv) == 4 and argv[0] == "junk":
        return junk(argv[1], int(argv[2]), int(argv[3]))
    if len(argv) in (5, 6) and argv[0] == "inject":
        return inject(argv[1], argv[2], int(argv[3]), int(argv[4]),
                      argv[5] if len(argv) == 6 else None)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
