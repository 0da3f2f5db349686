#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""WireGuard messages on one interface, in order, with kernel timestamps.

  wirelog.py sniff IFACE PORT OUT READY
      append one JSON line per IPv4 UDP datagram from or to PORT seen on
      IFACE (both directions) to OUT: kernel receive time (CLOCK_REALTIME
      ns), addresses, message type (WP section 5.4: 1 initiation,
      2 response, 3 cookie reply, 4 data) and its indices; touch READY once
      listening; run until SIGTERM.
  wirelog.py session OUT MARK_NS A B
      after MARK_NS, A (an outer IPv4 address) must have started with an
      initiation and sent data only on a session made after MARK_NS (its
      receiver index is the sender index of a response B sent after
      MARK_NS); B's data after its first such response likewise.  Exit
      status 0 if so, 1 with the reason otherwise.
"""
import json
import signal
import socket
import struct
import sys

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


def parse(pkt, port):
    """(src, dst, payload) of an IPv4 UDP datagram from/to port, else None."""
    if len(pkt) < 20 or pkt[0] >> 4 != 4 or pkt[9] != 17:
        return None
    ihl = (pkt[0] & 0xF) * 4
    udp = pkt[ihl:ihl + 8]
    if len(udp) < 8:
        return None
    sport, dport = struct.unpack("!HH", udp[:4])
    if port not in (sport, dport):
        return None
    return socket.inet_ntoa(pkt[12:16]), socket.inet_ntoa(pkt[16:20]), pkt[ihl + 8:]


def message(payload):
    """type, sender index, receiver index (little-endian, as on the wire)."""
    if len(payload) < 8:
        return None, None, None
    t = payload[0]
    a = struct.unpack("<I", payload[4:8])[0]
    if t == 1:
        return t, a, None
    if t == 2 and len(payload) >= 12:
        return t, a, struct.unpack("<I", payload[8:12])[0]
    if t in (3, 4):
        return t, None, a
    return t, None, None


def sniff(iface, port, out, ready):
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    # ETH_P_ALL: a tap for one protocol sees only what comes in.
    s = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(0x0003))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((iface, 0))
    s.settimeout(0.1)
    open(ready, "w").close()
    with open(out, "a") as f:
        while not stop:
            try:
                pkt, anc, _, addr = s.recvmsg(65535, 64)
            except (socket.timeout, InterruptedError):
                continue
            if addr[1] != 0x0800:
                continue
            ts = None
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack("qq", data[:16])
                    ts = sec * 1000000000 + nsec
            p = parse(pkt, port)
            if p is None or ts is None:
                continue
            t, sender, receiver = message(p[2])
            f.write(json.dumps({"ts": ts, "src": p[0], "dst": p[1], "type": t,
                                "sender": sender, "receiver": receiver}) + "\n")
            f.flush()


def session(out, mark, a, b):
    msgs = [m for m in map(json.loads, open(out)) if m["ts"] > mark]
    from_a = [m for m in msgs if m["src"] == a]
    if not from_a:
        return "a sent nothing after the mark"
    if from_a[0]["type"] != 1:
        return "a's first message after the mark is of type %s, not an initiation" % from_a[0]["type"]
    new_b = set()		# b's sender indices in responses after the mark
    new_a = set()		# a's sender indices in initiations after the mark
    b_answered = False
    data_a = 0
    for m in msgs:
        if m["src"] == a and m["type"] == 1:
            new_a.add(m["sender"])
        elif m["src"] == b and m["type"] == 2:
            new_b.add(m["sender"])
            b_answered = True
        elif m["src"] == a and m["type"] == 4:
            if m["receiver"] not in new_b:
                return "a sent data on receiver index %08x, not of a session made after the mark" % m["receiver"]
            data_a += 1
        elif m["src"] == b and m["type"] == 4 and b_answered and m["receiver"] not in new_a:
            return "b sent data on receiver index %08x after answering a's new initiation" % m["receiver"]
    if not data_a:
        return "a sent no data after the mark"
    print("after the mark: a initiated first, then sent %d data message(s), all on the new session" % data_a)
    return None


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "sniff":
        sniff(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "session":
        why = session(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
        if why:
            print(why)
            return 1
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
