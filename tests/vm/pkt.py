#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Hostile datagrams for the VM tests.

  pkt.py flood PUBKEY DST PORT SECONDS RATE OUT
      Send handshake initiations to DST:PORT for SECONDS at about RATE per
      second, from 16 UDP sockets (16 source ports).  Only mac1 is valid: it
      needs nothing but the responder's public key PUBKEY (base64); the
      ephemeral key, the encrypted static and timestamp are random, so a
      responder that is not under load does a Diffie-Hellman for each and
      then rejects it.  Writes the number sent and the seconds taken to OUT
      when done or on SIGTERM.

  pkt.py sniff IFACE PORT OUT READY SECONDS
      Record every IPv4 UDP datagram to or from PORT on IFACE (AF_PACKET, both
      directions) as JSON lines {"out": bool, "frame": hex}, until SIGTERM or
      SECONDS; creates READY once the socket is bound.

  pkt.py replay CAPTURE IFACE
      Send every captured datagram again, exactly (only the IPv4 and UDP
      checksums are computed afresh, as offload may have left them
      partial when captured): frames that left through
      IFACE leave through it again (AF_PACKET, toward the guest); datagrams
      that arrived on IFACE are handed to the local stack again from their
      real source (raw IPv4 socket, IP_HDRINCL).  Prints the counts.

Sizes and offsets are those of the WireGuard whitepaper, section 5.4:
an initiation is type (1) || reserved (3) || sender (4) || ephemeral (32) ||
encrypted static (48) || encrypted timestamp (28) || mac1 (16) || mac2 (16);
section 5.4.4: mac1 = MAC(HASH(LABEL-MAC1 || Spub_responder), msg up to mac1),
with MAC the keyed BLAKE2s-128 and HASH BLAKE2s-256.
"""

import base64
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


def mac1_key(pub):
    return hashlib.blake2s(b"mac1----" + pub).digest()


def initiation(key):
    body = b"\x01\x00\x00\x00" + os.urandom(4 + 32 + 48 + 28)
    mac1 = hashlib.blake2s(body, digest_size=16, key=key).digest()
    return body + mac1 + bytes(16)


def flood(pub_b64, dst, port, seconds, rate, out):
    key = mac1_key(base64.b64decode(pub_b64))
    fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
    socks = []
    for _ in range(16):
        s = socket.socket(fam, socket.SOCK_DGRAM)
        s.setblocking(False)
        s.connect((dst, port))
        socks.append(s)
    # A pool of distinct messages, so that nothing is a byte-exact repeat
    # within a short window; sending is then only a syscall each.
    pool = [initiation(key) for _ in range(4096)]
    sent = 0
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    t0 = time.monotonic()
    end = t0 + seconds
    while not stop[0]:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - t0) * rate)
        while sent < due:
            try:
                socks[sent % 16].send(pool[sent % len(pool)])
            except (BlockingIOError, ConnectionRefusedError):
                pass
            sent += 1
        time.sleep(0.001)
    with open(out, "w") as f:
        f.write("%d %.1f\n" % (sent, time.monotonic() - t0))


def udp_ports(frame):
    """(out-of-frame IPv4 packet, sport, dport) of an IPv4 UDP frame, else None."""
    if len(frame) < 14 + 28 or struct.unpack("!H", frame[12:14])[0] != 0x0800:
        return None
    ip = frame[14:]
    ihl = (ip[0] & 15) * 4
    if ip[9] != 17 or struct.unpack("!H", ip[6:8])[0] & 0x3FFF or len(ip) < ihl + 8:
        return None
    sport, dport = struct.unpack("!HH", ip[ihl:ihl + 4])
    return ip, sport, dport


def csum(data):
    if len(data) % 2:
        data += b"\x00"
    t = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while t >> 16:
        t = (t & 0xFFFF) + (t >> 16)
    return ~t & 0xFFFF


def fix_checksums(ip):
    """The IPv4 packet with its header and UDP checksums computed: a frame
    captured on the tap may carry a partial checksum left for offload."""
    ip = bytearray(ip)
    ihl = (ip[0] & 15) * 4
    total = struct.unpack("!H", ip[2:4])[0]
    ip = ip[:total]
    ip[10:12] = b"\x00\x00"
    ip[10:12] = struct.pack("!H", csum(bytes(ip[:ihl])))
    udp = ip[ihl:]
    udp[6:8] = b"\x00\x00"
    pseudo = bytes(ip[12:20]) + struct.pack("!BBH", 0, 17, len(udp))
    c = csum(pseudo + bytes(udp)) or 0xFFFF
    ip[ihl + 6:ihl + 8] = struct.pack("!H", c)
    return bytes(ip)


def sniff(iface, port, out, ready, seconds):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(0.2)
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))
    open(ready, "w").close()
    end = time.monotonic() + seconds
    with open(out, "w") as f:
        while not stop[0] and time.monotonic() < end:
            try:
                frame, addr = s.recvfrom(65535)
            except socket.timeout:
                continue
            except InterruptedError:
                continue
            p = udp_ports(frame)
            if p is None or port not in (p[1], p[2]):
                continue
            f.write(json.dumps({"out": addr[2] == PACKET_OUTGOING, "frame": frame.hex()}) + "\n")
            f.flush()


def replay(capture, iface):
    link = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    link.bind((iface, 0))
    raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    raw.setsockopt(socket.IPPROTO_IP, socket.IP_HDRINCL, 1)
    n_out = n_in = 0
    with open(capture) as f:
        for line in f:
            r = json.loads(line)
            frame = bytes.fromhex(r["frame"])
            ip = fix_checksums(udp_ports(frame)[0])
            if r["out"]:
                link.send(frame[:14] + ip)
                n_out += 1
            else:
                raw.sendto(ip, (socket.inet_ntoa(ip[16:20]), 0))
                n_in += 1
            time.sleep(0.002)
    print("replayed %d datagrams toward the guest, %d toward the host" % (n_out, n_in))


def main():
    a = sys.argv[1:]
    if len(a) == 7 and a[0] == "flood":
        flood(a[1], a[2], int(a[3]), float(a[4]), float(a[5]), a[6])
    elif len(a) == 6 and a[0] == "sniff":
        sniff(a[1], int(a[2]), a[3], a[4], float(a[5]))
    elif len(a) == 3 and a[0] == "replay":
        replay(a[1], a[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
