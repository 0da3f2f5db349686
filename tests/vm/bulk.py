#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bulk TCP for the big-endian MIPS guest, which has no iperf3 (Debian's
archive here serves no source of it): the host's end, against busybox's nc
in the guest.

  bulk.py send HOST PORT BYTES    connect, send BYTES zeros, shut down the
                                  sending side, wait for the peer's close
  bulk.py sink PORT [-6]          accept one connection, print the bytes
                                  it carried when the peer shuts down
  bulk.py serve PORT BYTES        for tools/routerbench, until killed: on
                                  PORT a sink (each connection's count to
                                  stderr), on PORT + 1 a source of BYTES
                                  zeros per connection

Every socket operation is bounded by a timeout (60 s without progress).
"""

import socket
import sys
import threading

TIMEOUT = 60
CHUNK = 65536


def send_zeros(s, n):
    buf = bytes(CHUNK)
    while n > 0:
        k = s.send(buf[:min(n, CHUNK)])
        n -= k


def drain(s):
    total = 0
    while True:
        b = s.recv(CHUNK)
        if not b:
            return total
        total += len(b)


def listener(port, v6):
    s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::" if v6 else "0.0.0.0", port))
    s.listen(4)
    return s


def send(host, port, n):
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    send_zeros(s, n)
    s.shutdown(socket.SHUT_WR)
    drain(s)
    s.close()


def sink(port, v6):
    ls = listener(port, v6)
    ls.settimeout(TIMEOUT)
    c, _ = ls.accept()
    c.settimeout(TIMEOUT)
    print(drain(c), flush=True)
    c.close()


def serve(port, n):
    # both directions on one address family each; the guest uses IPv4
    sink_ls, src_ls = listener(port, False), listener(port + 1, False)

    def sinks():
        while True:
            c, _ = sink_ls.accept()
            c.settimeout(TIMEOUT)
            try:
                print("sink %d" % drain(c), file=sys.stderr, flush=True)
            finally:
                c.close()

    threading.Thread(target=sinks, daemon=True).start()
    while True:
        c, _ = src_ls.accept()
        c.settimeout(TIMEOUT)
        try:
            send_zeros(c, n)
            c.shutdown(socket.SHUT_WR)
            drain(c)
        finally:
            c.close()


def main(a):
    if len(a) == 4 and a[0] == "send":
        send(a[1], int(a[2]), int(a[3]))
    elif len(a) in (2, 3) and a[0] == "sink":
        sink(int(a[1]), a[2:] == ["-6"])
    elif len(a) == 3 and a[0] == "serve":
        serve(int(a[1]), int(a[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
