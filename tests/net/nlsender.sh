#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Netlink events count only when the kernel sent them (port 0): a process
# with CAP_NET_ADMIN may send datagrams to the daemon's own netlink port.
# wgd <-> wgd with a tunnel up; into a's namespace, messages forged in the
# kernel's format are sent to every route-netlink port of a's daemon: an
# RTM_NEWLINK saying its link is down and has MTU 1280, then an RTM_DELLINK
# of its link.  a must take none of them: still running, still pinging
# both ways, MTU unchanged in its log.  Then a real `ip link del` (from the
# kernel) still stops it, so the check drops only what it should.

. "$(dirname "$0")/lib.sh"

nt_init nf
nt_pair wgd wgd
nt_endpoint "$IF_A" 4
nt_endpoint "$IF_B" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping before the forged events"
PID=${NT_DPID[$IF_A]}
LOG=$NT_TMP/$IF_A.$NT_RUN.log
IFINDEX=$(cat "/proc/$PID/root/sys/class/net/$IF_A/ifindex" 2>/dev/null ||
	ip -n "$NS_A" -o link show dev "$IF_A" | cut -d: -f1)

# forge PID IFINDEX TYPE: sends one message of TYPE ("down" or "del") for
# the link to each NETLINK_ROUTE socket of process PID (its port from
# /proc/net/netlink, matched by inode); prints how many ports it reached.
forge() {
	nt_x "$NS_A" "$NT_PY" - "$@" <<'PY'
import os, socket, struct, sys
pid, ifindex, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
inodes = set()
for fd in os.listdir(f"/proc/{pid}/fd"):
    try:
        t = os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        continue
    if t.startswith("socket:["):
        inodes.add(int(t[8:-1]))
ports = []
with open("/proc/net/netlink") as f:
    next(f)
    for line in f:
        c = line.split()
        if int(c[1]) == 0 and int(c[9]) in inodes:   # Eth 0: NETLINK_ROUTE
            ports.append(int(c[2]))
RTM_NEWLINK, RTM_DELLINK, IFLA_MTU, IFF_UP = 16, 17, 4, 1
if kind == "down":
    # ifinfomsg: family, pad, type, index, flags (not IFF_UP), change IFF_UP
    body = struct.pack("=BxHiII", 0, 0, ifindex, 0, IFF_UP) + struct.pack("=HHI", 8, IFLA_MTU, 1280)
    mtype = RTM_NEWLINK
else:
    body = struct.pack("=BxHiII", 0, 0, ifindex, 0, 0)
    mtype = RTM_DELLINK
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
s.bind((0, 0))
for p in ports:
    msg = struct.pack("=IHHII", 16 + len(body), mtype, 0, 0, s.getsockname()[0]) + body
    s.sendto(msg, (p, 0))
print(len(ports))
PY
}

n=$(forge "$PID" "$IFINDEX" down) || nt_fail "forging RTM_NEWLINK"
[ "$n" -ge 1 ] || nt_fail "no netlink socket of a's daemon found"
sleep 0.5
nt_gone "$PID" && nt_fail "a's daemon died"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "no ping b -> a after a forged 'link down': a took it"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping a -> b after a forged 'link down'"
grep -q 1280 "$LOG" && nt_fail "a took the forged MTU 1280: $(grep 1280 "$LOG")"
nt_ok "a forged RTM_NEWLINK (down, MTU 1280) to $n port(s) of a's daemon changed nothing"

n=$(forge "$PID" "$IFINDEX" del) || nt_fail "forging RTM_DELLINK"
sleep 0.5
nt_gone "$PID" && nt_fail "a forged RTM_DELLINK stopped a's daemon: $(tail -n 3 "$LOG")"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping a -> b after a forged RTM_DELLINK"
nt_ok "a forged RTM_DELLINK to $n port(s) of a's daemon changed nothing"

ip -n "$NS_A" link del "$IF_A" || nt_fail "ip link del"
nt_wait_gone "$PID" 5 || nt_fail "a real RTM_DELLINK (ip link del) did not stop a's daemon"
nt_ok "the kernel's RTM_DELLINK still stops it"
