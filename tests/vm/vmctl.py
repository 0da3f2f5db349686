#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The host's end of the guest's command channel (tests/vm/init).

  vmctl.py SOCKET SECONDS SCRIPT
      Run SCRIPT (sh) in the guest, killed there after SECONDS; print its
      output (stdout and stderr together) and exit with its status.  The
      request goes again, with the same nonce, while the guest has not
      acknowledged it (the guest runs a nonce once).  Exits
      124 if no reply came within SECONDS + 10 (the channel is then unusable
      until the guest has answered, which later requests wait out: each reply
      carries its request's nonce, and others are skipped).

  vmctl.py SOCKET --wait SECONDS
      Until SECONDS have passed, send a trivial request every second until
      one is answered (the guest is booting); exit 0 once answered, else 1.

SOCKET is qemu's unix socket behind the guest's second serial port.
"""

import base64
import os
import select
import socket
import sys
import time


ACK_TIMEOUT = 2.0  # s before a request is sent again


def request(sock_path, secs, script, deadline):
    """(status, output bytes) or None if no reply by the deadline.  The
    request goes again (same nonce; the guest runs it once) each time no
    acknowledgement has come within ACK_TIMEOUT."""
    nonce = os.urandom(8).hex()
    line = "%s %d %s\n" % (nonce, secs, base64.b64encode(script.encode()).decode())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(max(0.1, deadline - time.monotonic()))
    try:
        s.connect(sock_path)
        s.sendall(line.encode())
        resend = time.monotonic() + ACK_TIMEOUT
        acked = False
        buf = b""
        body = None
        while time.monotonic() < deadline:
            wait = deadline - time.monotonic()
            if not acked:
                wait = min(wait, resend - time.monotonic())
            r, _, _ = select.select([s], [], [], max(0.0, wait))
            if not r:
                if not acked and time.monotonic() >= resend:
                    # The newline first ends whatever part of a line the
                    # guest may hold; it skips lines that are not requests.
                    s.sendall(b"\n" + line.encode())
                    resend = time.monotonic() + ACK_TIMEOUT
                continue
            d = s.recv(65536)
            if not d:
                break
            buf += d
            while b"\n" in buf:
                ln, buf = buf.split(b"\n", 1)
                ln = ln.strip(b"\r").decode("ascii", "replace")
                f = ln.split()
                if len(f) == 2 and f[0] == "ACK" and f[1] == nonce:
                    acked = True
                elif len(f) == 2 and f[0] == "BEGIN" and f[1] == nonce:
                    body = []
                elif len(f) == 3 and f[0] == "END" and f[1] == nonce and body is not None:
                    return int(f[2]), base64.b64decode("".join(body))
                elif body is not None:
                    body.append(ln)
        return None
    except OSError as e:
        print("vmctl: %s: %s" % (sock_path, e), file=sys.stderr)
        return None
    finally:
        s.close()


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "--wait":
        end = time.monotonic() + float(sys.argv[3])
        while time.monotonic() < end:
            t0 = time.monotonic()
            r = None
            if os.path.exists(sys.argv[1]):
                r = request(sys.argv[1], 2, "true", min(end, t0 + 1.0))
            if r is not None and r[0] == 0:
                return 0
            time.sleep(max(0.0, t0 + 1.0 - time.monotonic()))
        return 1
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    secs = int(sys.argv[2])
    r = request(sys.argv[1], secs, sys.argv[3], time.monotonic() + secs + 10)
    if r is None:
        print("vmctl: no reply from the guest within %d s" % (secs + 10), file=sys.stderr)
        return 124
    sys.stdout.buffer.write(r[1])
    sys.stdout.flush()
    return r[0]


if __name__ == "__main__":
    sys.exit(main())
