#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writes the seed corpora of the TUN-offload fuzzers (stdlib only):

  corpus/gso/  virtio_net_hdr + 16-bit buffer limit + packet (fuzz_gso.c):
               TCP super-packets over IPv4 (with and without options) and IPv6
               (with and without a hop-by-hop header), one of 64 KiB, one with
               a limit too small; single TCP and UDP packets whose checksum is
               left to us (CHECKSUM_PARTIAL), one UDP summing to zero.
  corpus/gro/  records of op, length, position, mask (fuzz_gro.c): flows of
               full-sized segments over IPv4 and IPv6 ending in a short one
               with PSH, a flow broken by a gap, a UDP packet and another port,
               a short segment in the middle, and a flow too long for one
               64 KiB super-packet.

Packets follow RFC 791 (IPv4), RFC 8200 (IPv6), RFC 793 (TCP), RFC 768 (UDP);
the virtio_net_hdr is the legacy layout of the virtio specification ("Device
Operation: Packet Transmission"), in host byte order: little-endian here, as on
every machine the fuzzers are built for.  Usage: mkcorpus.py [OUTDIR]
(default: corpus/ next to this script); the output is deterministic.
"""
import os
import struct
import sys

NEEDS_CSUM = 1
GSO_NONE, GSO_TCPV4, GSO_UDP, GSO_TCPV6, GSO_ECN = 0, 1, 3, 4, 0x80
ACK, PSH, FIN, CWR = 0x10, 0x08, 0x01, 0x80

SRC4, DST4 = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
SRC6 = bytes.fromhex("fd000000000000000000000000000001")
DST6 = bytes.fromhex("fd000000000000000000000000000002")


def csum(data, start=0):
    """RFC 1071: the ones'-complement sum of 16-bit words, folded."""
    if len(data) % 2:
        data += b"\0"
    s = start + sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def payload(n, salt=0):
    return bytes((i * 7 + salt) & 0xFF for i in range(n))


def tcp(seq, flags, data=b"", sport=40000, dport=5201, ack=0x01020304, timestamps=True):
    opts = bytes([1, 1, 8, 10]) + struct.pack("!II", 1000, 2000) if timestamps else b""
    off = (20 + len(opts)) // 4
    return struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, 512, 0, 0) + opts + data


def udp(data, sport=40000, dport=53):
    return struct.pack("!HHHH", sport, dport, 8 + len(data), 0) + data


def ipv4(proto, l4, ident=0x1234, options=b""):
    ihl = 5 + len(options) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(l4), ident, 0x4000, 64, proto, 0,
                    SRC4, DST4) + options
    h = h[:10] + struct.pack("!H", 0xFFFF - csum(h)) + h[12:]
    return h + l4


def ipv6(proto, l4, ext=b""):
    nh = 0 if ext else proto          # hop-by-hop options first, if any
    if ext:
        ext = bytes([proto, len(ext) // 8 - 1]) + ext[2:]
    return struct.pack("!IHBB16s16s", 0x60000000, len(ext) + len(l4), nh, 64, SRC6, DST6) + ext + l4


def with_csum(pkt, l4_off, v6, proto, partial):
    """The L4 checksum: complete (RFC 793/768) or, partial, the pseudo-header sum only."""
    l4 = pkt[l4_off:]
    if v6:
        pseudo = csum(pkt[8:40] + struct.pack("!IxxxB", len(l4), proto))
    else:
        pseudo = csum(pkt[12:20] + struct.pack("!xBH", proto, len(l4)))
    field = 16 if proto == 6 else 6
    value = pseudo if partial else 0xFFFF - csum(l4, pseudo)
    if proto == 17 and not partial and value == 0:
        value = 0xFFFF
    return pkt[:l4_off + field] + struct.pack("!H", value) + pkt[l4_off + field + 2:]


def vnet(flags, gso_type, hdr_len, gso_size, csum_start, csum_offset):
    return struct.pack("<BBHHHH", flags, gso_type, hdr_len, gso_size, csum_start, csum_offset)


def gso_seed(flags, gso_type, hdr_len, gso_size, l4_off, csum_offset, limit, pkt):
    return vnet(flags, gso_type, hdr_len, gso_size, l4_off, csum_offset) + struct.pack("<H", limit) + pkt


def gso_corpus():
    seeds = {}
    # TSO over IPv4, timestamps: MSS 1448, segments of 1500 bytes (RFC 793 header + options)
    t = tcp(0xFFFFF000, ACK | PSH, payload(10000))
    p = with_csum(ipv4(6, t), 20, False, 6, True)
    seeds["tso4"] = gso_seed(NEEDS_CSUM, GSO_TCPV4, 52, 1448, 20, 16, 1500, p)
    # with IP options (a No Operation and End of Option List, RFC 791), FIN and CWR + ECN
    t = tcp(1, ACK | FIN | CWR, payload(3000, 1))
    p = with_csum(ipv4(6, t, options=bytes([1, 1, 1, 0])), 24, False, 6, True)
    seeds["tso4-options-ecn"] = gso_seed(NEEDS_CSUM, GSO_TCPV4 | GSO_ECN, 56, 1000, 24, 16, 1500, p)
    # the largest super-packet: 65535 bytes
    t = tcp(7, ACK, payload(65535 - 52, 2))
    p = with_csum(ipv4(6, t), 20, False, 6, True)
    seeds["tso4-64k"] = gso_seed(NEEDS_CSUM, GSO_TCPV4, 52, 1448, 20, 16, 65535, p)
    # a limit below one segment: nothing may be written
    seeds["tso4-small-limit"] = gso_seed(NEEDS_CSUM, GSO_TCPV4, 52, 1448, 20, 16, 1000,
                                         with_csum(ipv4(6, tcp(9, ACK, payload(4000, 3))), 20, False, 6, True))
    # TSO over IPv6: MSS 1428
    t = tcp(0x80000000, ACK | PSH, payload(5000, 4))
    p = with_csum(ipv6(6, t), 40, True, 6, True)
    seeds["tso6"] = gso_seed(NEEDS_CSUM, GSO_TCPV6, 72, 1428, 40, 16, 1500, p)
    # with a hop-by-hop options header (RFC 8200 §4.3): TCP at 48
    t = tcp(5, ACK, payload(2900, 5), timestamps=False)
    p = ipv6(6, t, ext=bytes([0, 0, 1, 4, 0, 0, 0, 0]))
    p = with_csum(p, 48, True, 6, True)
    seeds["tso6-hopbyhop"] = gso_seed(NEEDS_CSUM, GSO_TCPV6, 68, 1400, 48, 16, 1500, p)
    # single packets with the checksum left to us (GSO none, NEEDS_CSUM)
    for name, pkt, l4, v6, proto in [
        ("csum-tcp4", ipv4(6, tcp(3, ACK | PSH, payload(101, 6))), 20, False, 6),
        ("csum-tcp6", ipv6(6, tcp(3, ACK | PSH, payload(333, 7))), 40, True, 6),
        ("csum-udp4", ipv4(17, udp(payload(99, 8))), 20, False, 17),
        ("csum-udp6", ipv6(17, udp(payload(1200, 9))), 40, True, 17),
    ]:
        pkt = with_csum(pkt, l4, v6, proto, True)
        seeds[name] = gso_seed(NEEDS_CSUM, GSO_NONE, 0, 0, l4, 16 if proto == 6 else 6, 1500, pkt)
    # UDP whose checksum comes to zero, to be sent as all ones (RFC 768)
    pkt = ipv4(17, udp(payload(50, 11) + b"\0\0"))
    pkt = with_csum(pkt, 20, False, 17, True)
    rest = 0xFFFF - csum(pkt[20:])
    pkt = pkt[:-2] + struct.pack("!H", rest)
    seeds["csum-udp4-zero"] = gso_seed(NEEDS_CSUM, GSO_NONE, 0, 0, 20, 6, 1500, pkt)
    # a plain packet, nothing asked
    seeds["plain-udp4"] = gso_seed(0, GSO_NONE, 0, 0, 0, 0, 1500,
                                   with_csum(ipv4(17, udp(payload(40, 10))), 20, False, 17, False))
    return seeds


RAW, CONT, CONT_PSH = 0, 1, 3


def raw(pkt, at=0, xor=0):
    return struct.pack("<BHBB", RAW, len(pkt), at, xor) + pkt


def cont(n, op=CONT, at=0, xor=0):
    return struct.pack("<BHBB", op, n, at, xor)


def segment(v6, seq, n, flags=ACK, sport=40000):
    t = tcp(seq, flags, payload(n, seq & 0xFF), sport=sport)
    return with_csum(ipv6(6, t), 40, True, 6, False) if v6 else with_csum(ipv4(6, t), 20, False, 6, False)


def gro_corpus():
    seeds = {}
    for v6, mss in [(False, 1448), (True, 1428)]:
        fam = "6" if v6 else "4"
        # a burst: full segments, the last short with PSH
        seeds["flow" + fam] = raw(segment(v6, 1000, mss)) + cont(mss) * 5 + cont(300, CONT_PSH)
        # one segment alone
        seeds["single" + fam] = raw(segment(v6, 1, 500, ACK | PSH))
        # raw segments that continue one another
        seeds["raw-flow" + fam] = b"".join(raw(segment(v6, 77 + i * mss, mss)) for i in range(4))
    # a gap in the sequence (the byte XORed is in the sequence number), a UDP
    # packet, another port: four groups
    seeds["broken4"] = (raw(segment(False, 5, 1448)) + cont(1448) + cont(1448, at=24 + 3, xor=1) +
                        cont(1448) + raw(ipv4(17, udp(payload(64)))) + raw(segment(False, 9, 1448)) +
                        raw(segment(False, 9 + 1448, 1448, sport=40001)))
    # a short segment ends a group: what follows starts the next one
    seeds["short-middle4"] = raw(segment(False, 3, 1448)) + cont(1448) + cont(1447) + cont(1000) + cont(1000)
    # 50 full segments: more than 64 KiB, so two super-packets
    seeds["long4"] = raw(segment(False, 0xFFFF0000, 1448)) + cont(1448) * 49
    return seeds


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    for harness, seeds in [("gso", gso_corpus()), ("gro", gro_corpus())]:
        d = os.path.join(out, harness)
        os.makedirs(d, exist_ok=True)
        for name, data in sorted(seeds.items()):
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
