#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The tables of tools/routerbench, from what one run left in its directory.

  analyse.py DIR BYTES [--detail N] [--check]

DIR holds, for each MODE (plain, kernel, wgd, and wgd-tN for wgd on N
threads: routerbench -t) and DIRECTION (send, recv: the guest sends or
receives):
  MODE-DIRECTION.count   the plugin's window (tools/routerbench/count.c)
  MODE-DIRECTION.json    iperf3 -J of the guest's client
and kallsyms (the guest's text symbols), modules (its /proc/modules),
wgd-hwm (wgd's VmHWM in kB, or nothing; wgd-tN-hwm on N threads).  Rounds
after the first (routerbench
-r) have the same files with .rK before the extension (wgd-hwm.rK): each
round's totals and ratio are listed, with the medians; the other tables are
the first round's.

Instructions per byte are per byte of TCP payload (iperf3 -n BYTES); the
tunnel rows are beyond plain TCP (the plain run's counts subtracted, column
by column).  Columns: user space; the kernel image (kseg0); the WireGuard
modules (wireguard and the crypto and UDP-tunnel modules it pulls in); the
other modules (tun, pcnet32, mii).  Then, with --detail, the kernel
functions that differ most between wgd and the kernel's WireGuard, and the
calls of the functions that say how the I/O batches.  With wgd-tN, a table
of wgd on N threads against wgd on one, each round and the median:
instructions per byte beyond plain TCP, emulated throughput, peak RSS.

--check (the smoke test, tests/vm/meson.build): exit 1 unless the split is
plausible: beyond plain TCP, the kernel's WireGuard runs its crypto in its
modules (10-60 instructions per byte there, under 3 in user space) and wgd
in user space (10-80 there, under 3 in the WireGuard modules), in both
directions; each tunnel costs at least 10 instructions per byte beyond
plain TCP; and wgd's peak RSS is known; wgd-tN's split as wgd's.  Each
figure is judged in the median over the rounds: the counts cover the whole
guest, and a window that its background work falls into moves one round.
"""

import bisect
import glob
import json
import os
import subprocess
import sys

WG_MODULES = {"wireguard", "libchacha20poly1305", "chacha_mips", "poly1305_mips",
              "libcurve25519_generic", "udp_tunnel", "ip6_udp_tunnel"}
COLUMNS = ("user", "kernel", "wg-modules", "other-modules")
KSEG0 = 0x80000000

# Functions whose calls (executions of the block at their first address)
# say how the data path batches: system calls, the TUN device, UDP, TCP.
CALLS = [
    ("handle_sys", "system calls (all)"),
    ("sock_read_iter", "read on a socket"), ("sock_write_iter", "write on a socket"),
    ("timerfd_read", "read on a timerfd"), ("eventfd_read", "read on an eventfd"),
    ("pipe_read", "read on a pipe"), ("pipe_write", "write on a pipe"),
    ("sys_read", "read"), ("sys_write", "write"), ("sys_readv", "readv"), ("sys_writev", "writev"),
    ("sys_sendmmsg", "sendmmsg"), ("sys_recvmmsg", "recvmmsg"), ("sys_sendmsg", "sendmsg"),
    ("sys_recvmsg", "recvmsg"), ("sys_sendto", "sendto"), ("sys_recvfrom", "recvfrom"),
    ("sys_epoll_pwait", "epoll_pwait"), ("sys_epoll_wait", "epoll_wait"), ("sys_ppoll", "ppoll"),
    ("sys_poll", "poll"), ("sys_pselect6", "pselect6"), ("sys_select", "select"),
    ("tun_chr_read_iter", "TUN reads"), ("tun_chr_write_iter", "TUN writes"),
    ("tun_get_user", "TUN packets in (tun_get_user)"), ("tun_put_user", "TUN packets out (tun_put_user)"),
    ("udp_sendmsg", "udp_sendmsg"), ("udp_recvmsg", "udp_recvmsg"),
    ("__udp_gso_segment", "UDP GSO segmentations"), ("udp_gro_receive", "UDP GRO receive"),
    ("skb_segment", "skb_segment"), ("__skb_gso_segment", "__skb_gso_segment"),
    ("ip_output", "ip_output (IP packets sent)"), ("ip_rcv", "ip_rcv (IP packets received)"),
    ("tcp_v4_rcv", "tcp_v4_rcv (TCP segments in)"), ("tcp_transmit_skb", "__tcp_transmit_skb"),
    ("__tcp_transmit_skb", "__tcp_transmit_skb"),
    ("pcnet32_start_xmit", "pcnet32 frames out"), ("pcnet32_rx", "pcnet32 rx polls"),
    ("pcnet32_interrupt", "pcnet32 interrupts"), ("pcnet32_poll", "pcnet32 NAPI polls"),
    ("net_tx_action", "net_tx_action (NET_TX softirq)"),
    ("wg_xmit", "wireguard xmit"), ("wg_packet_receive", "wireguard packets in"),
    ("napi_gro_receive", "napi_gro_receive"), ("netif_receive_skb", "netif_receive_skb"),
    ("memcpy", "memcpy"), ("__raw_copy_to_user", "copies to or from user space"),
    ("csum_partial", "csum_partial"),
    ("__csum_partial_copy_to_user", "copies with a checksum, to, from user space or within"),
]


def read_window(path):
    tot = {}
    tbs = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "total":
                tot = {w[i]: int(w[i + 1]) for i in range(0, len(w), 2)}
            elif w[0] == "tb":
                tbs[int(w[1], 16)] = (int(w[2]), int(w[3]))
    if not tot:
        sys.exit("analyse: no window in %s" % path)
    return tot, tbs


class Symbols:
    def __init__(self, kallsyms, modules):
        syms = []
        with open(kallsyms) as f:
            for line in f:
                w = line.split()
                if len(w) >= 3 and w[1] in "tT":
                    mod = w[3].strip("[]") if len(w) > 3 else ""
                    syms.append((int(w[0], 16), w[2], mod))
        syms.sort()
        self.by_name = {}
        for a, n, m in syms:
            self.by_name.setdefault(n, a)
        # Names at one address are one function (memcpy.S's entry points
        # share a body): one entry, the names joined.
        merged = []
        for a, n, m in syms:
            if merged and merged[-1][0] == a:
                merged[-1] = (a, merged[-1][1] + "/" + n, m)
            else:
                merged.append((a, n, m))
        self.addr = [s[0] for s in merged]
        self.syms = merged
        self.mods = []
        with open(modules) as f:
            for line in f:
                w = line.split()
                if len(w) >= 6:
                    self.mods.append((int(w[5], 16), int(w[1]), w[0]))

    def module_of(self, pc):
        for base, size, name in self.mods:
            if base <= pc < base + size:
                return name
        return None

    def name_of(self, pc):
        i = bisect.bisect_right(self.addr, pc) - 1
        if i < 0:
            return "?"
        a, n, m = self.syms[i]
        return n + ("[%s]" % m if m else "")


def split(tot, tbs, syms):
    """Instructions by column."""
    c = dict.fromkeys(COLUMNS, 0)
    c["user"] = tot["user"]
    ksum = 0
    for pc, (ins, _) in tbs.items():
        if pc < KSEG0:
            continue
        ksum += ins
        if pc < 0xC0000000:
            c["kernel"] += ins
        else:
            m = syms.module_of(pc)
            c["wg-modules" if m in WG_MODULES else "other-modules"] += ins
    # blocks the plugin could not keep apart (its table full)
    c["kernel"] += tot.get("kernel", 0) + tot.get("vmalloc", 0) - ksum
    return c


def per_function(tbs, syms):
    f = {}
    for pc, (ins, _) in tbs.items():
        if pc < KSEG0:
            continue
        n = syms.name_of(pc)
        f[n] = f.get(n, 0) + ins
    return f


def calls(tbs, syms, name):
    a = syms.by_name.get(name)
    if a is None or a not in tbs:
        return 0
    return tbs[a][1]


class UserSymbols:
    """wgd's executable mappings (DIR/wgd-maps, its /proc/PID/maps in the
    guest) and the symbols of the files mapped there (DIR/elf-paths: guest
    path, host path), read with mipsel-linux-gnu-nm and -readelf."""

    def __init__(self, d):
        self.maps = []
        self.files = {}
        try:
            paths = dict(line.split() for line in open(os.path.join(d, "elf-paths")) if line.strip())
            maps = open(os.path.join(d, "wgd-maps")).read().splitlines()
        except (OSError, ValueError):
            return
        for line in maps:
            w = line.split()
            if len(w) < 6 or "x" not in w[1] or w[5] not in paths:
                continue
            lo, hi = (int(x, 16) for x in w[0].split("-"))
            self.maps.append((lo, hi, int(w[2], 16), w[5]))
        for g, h in paths.items():
            self.files[g] = self._elf(h)

    @staticmethod
    def _elf(path):
        loads = []
        try:
            out = subprocess.run(["mipsel-linux-gnu-readelf", "-lW", path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                w = line.split()
                if w and w[0] == "LOAD":
                    loads.append((int(w[1], 16), int(w[2], 16), int(w[4], 16)))  # offset vaddr filesz
            syms = []
            for opt in ([], ["-D"]):
                out = subprocess.run(["mipsel-linux-gnu-nm", "--defined-only"] + opt + [path],
                                     capture_output=True, text=True).stdout
                for line in out.splitlines():
                    w = line.split()
                    if len(w) == 3 and w[1] in "tTwW":
                        syms.append((int(w[0], 16), w[2]))
                if syms:
                    break
        except OSError:
            return ([], [], [])
        syms.sort()
        return (loads, [a for a, _ in syms], [n for _, n in syms])

    def name_of(self, pc):
        """The function of wgd's process at pc, or None if pc is not in
        wgd's executable mappings."""
        for lo, hi, off, path in self.maps:
            if lo <= pc < hi:
                foff = pc - lo + off
                loads, addrs, names = self.files[path]
                va = foff
                for o, v, sz in loads:
                    if o <= foff < o + sz:
                        va = foff - o + v
                        break
                i = bisect.bisect_right(addrs, va) - 1
                base = os.path.basename(path)
                return "%s:%s" % (base, names[i] if i >= 0 else "?")
        return None


def mbit(path):
    try:
        with open(path) as f:
            d = json.load(f)["end"]
        return d["sum_received"]["bits_per_second"] / 1e6
    except (OSError, ValueError, KeyError):
        return float("nan")


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def thread_modes(d):
    """The wgd-tN modes of the run (routerbench -t), by N."""
    found = glob.glob(os.path.join(d, "wgd-t*-send.count"))
    modes = [os.path.basename(f)[:-len("-send.count")] for f in found]
    return sorted(modes, key=lambda m: int(m[len("wgd-t"):]))


def load_round(d, direction, k, syms):
    """Round k's runs in one direction: mode -> (totals, blocks, split, Mbit/s)."""
    sfx = "" if k == 1 else ".r%d" % k
    runs = {}
    for mode in ("plain", "kernel", "wgd") + tuple(thread_modes(d)):
        tot, tbs = read_window(os.path.join(d, "%s-%s%s.count" % (mode, direction, sfx)))
        runs[mode] = (tot, tbs, split(tot, tbs, syms),
                      mbit(os.path.join(d, "%s-%s%s.json" % (mode, direction, sfx))))
    return runs


def print_rounds(d, nbytes, direction, title, rounds, syms):
    """Each round's totals beyond plain TCP and its ratio, then the medians."""
    mib = nbytes / 1048576.0
    rows = []
    for k in range(1, rounds + 1):
        r = load_round(d, direction, k, syms)
        kern = (r["kernel"][0]["total"] - r["plain"][0]["total"]) / nbytes
        wgd = (r["wgd"][0]["total"] - r["plain"][0]["total"]) / nbytes
        rows.append((k, kern, wgd, wgd / kern, calls(r["wgd"][1], syms, "tun_chr_write_iter") / mib,
                     calls(r["wgd"][1], syms, "udp_recvmsg") / mib, r["kernel"][3], r["wgd"][3]))
    print("\n%s, %d rounds in one boot: guest instructions per byte of TCP payload beyond plain TCP" %
          (title, rounds))
    print("| round | the kernel's WireGuard | wgd | ratio | wgd's TUN writes per MiB |"
          " wgd's datagrams in per MiB | Mbit/s kernel / wgd (emulated) |")
    print("|---|---|---|---|---|---|---|")
    for k, kern, wgd, ratio, tw, ur, mk, mw in rows:
        print("| %d | %.2f | %.2f | %.2fx | %.1f | %.1f | %.1f / %.1f |" % (k, kern, wgd, ratio, tw, ur, mk, mw))
    print("| median | %.2f | %.2f | %.2fx | %.1f | %.1f | %.1f / %.1f |" % tuple(
        median([row[i] for row in rows]) for i in range(1, 8)))
    # each tunnel costs its crypto beyond plain TCP, in the median round: a
    # window the guest's own background work fell into (one plain round
    # once counted 4x its usual, and both tunnels came out below zero) moves
    # one round, not the median of three
    kern, wgd = median([row[1] for row in rows]), median([row[2] for row in rows])
    return [] if kern >= 10 and wgd >= 10 else [
        "%s, median of %d rounds: the kernel's WireGuard %.2f, wgd %.2f instructions/byte beyond plain TCP" %
        (title, rounds, kern, wgd)]


def read_hwm(d, mode, k):
    """MODE's peak RSS in round k, in kB, or None."""
    try:
        return int(open(os.path.join(d, "%s-hwm%s" % (mode, "" if k == 1 else ".r%d" % k))).read())
    except (OSError, ValueError):
        return None


def print_threads(d, nbytes, direction, title, rounds, syms, mode):
    """wgd on N threads (mode wgd-tN) against wgd on one, each round and the
    median: instructions per byte beyond plain TCP, emulated Mbit/s, and the
    peak RSS.  Returns what --check finds implausible."""
    n = int(mode[len("wgd-t"):])
    rows = []
    for k in range(1, rounds + 1):
        r = load_round(d, direction, k, syms)
        one = (r["wgd"][0]["total"] - r["plain"][0]["total"]) / nbytes
        many = (r[mode][0]["total"] - r["plain"][0]["total"]) / nbytes
        rows.append((k, one, many, many / one, r["wgd"][3], r[mode][3], r[mode][3] / r["wgd"][3]))
    print("\n%s: wgd on %d threads against one thread, in the same boot (issue 22's bar: at most 1.05x"
          " the instructions per byte)" % (title, n))
    print("| round | instructions/byte beyond plain, 1 thread | %d threads | ratio |"
          " Mbit/s 1 thread (emulated) | %d threads | ratio |" % (n, n))
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| %d | %.2f | %.2f | %.3fx | %.1f | %.1f | %.2fx |" % row)
    med = tuple(median([row[i] for row in rows]) for i in range(1, 7))
    print("| median | %.2f | %.2f | %.3fx | %.1f | %.1f | %.2fx |" % med)
    print("%s: wgd on %d threads costs %.3fx the instructions per byte of one thread (median): %s" % (
        title, n, med[2], "within issue 22's 1.05x" if med[2] <= 1.05 else "OVER issue 22's 1.05x"))
    return [] if med[1] >= 10 else ["%s, %s, median of %d rounds: %.2f instructions/byte beyond plain TCP" % (
        title, mode, rounds, med[1])]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d = sys.argv[1]
    nbytes = int(sys.argv[2])
    detail = 0
    check = False
    args = sys.argv[3:]
    while args:
        if args[0] == "--detail" and len(args) > 1:
            detail = int(args[1])
            args = args[2:]
        elif args[0] == "--check":
            check = True
            args = args[1:]
        else:
            sys.exit(__doc__)
    bad = []
    syms = Symbols(os.path.join(d, "kallsyms"), os.path.join(d, "modules"))
    usyms = UserSymbols(d)
    hwm = ""
    try:
        hwm = open(os.path.join(d, "wgd-hwm")).read().strip()
    except OSError:
        pass
    mib = nbytes / 1048576.0
    rounds = 1
    while os.path.exists(os.path.join(d, "wgd-recv.r%d.count" % (rounds + 1))):
        rounds += 1
    for k in range(2, rounds + 1):
        try:
            v = open(os.path.join(d, "wgd-hwm.r%d" % k)).read().strip()
            if v and (not hwm or int(v) > int(hwm)):
                hwm = v
        except (OSError, ValueError):
            pass
    tmodes = thread_modes(d)
    for direction, title in (("send", "guest sends"), ("recv", "guest receives")):
        if rounds > 1:
            bad += print_rounds(d, nbytes, direction, title, rounds, syms)
        for mode in tmodes:
            bad += print_threads(d, nbytes, direction, title, rounds, syms, mode)
        runs = load_round(d, direction, 1, syms)
        later = [load_round(d, direction, k, syms) for k in range(2, rounds + 1)]
        print("\n%s (iperf3 -n %d in the guest%s): guest instructions per byte of TCP payload" %
              (title, nbytes, "" if direction == "send" else " -R"))
        print("| | total | user | kernel | WireGuard modules | other modules | ratio to the kernel's | Mbit/s (emulated) |")
        print("|---|---|---|---|---|---|---|---|")
        p = runs["plain"]
        print("| plain TCP (absolute) | %.2f | %.2f | %.2f | %.2f | %.2f | | %.1f |" % (
            p[0]["total"] / nbytes, *(p[2][k] / nbytes for k in COLUMNS), p[3]))
        ref = None
        for mode, label in (("kernel", "the kernel's WireGuard, beyond plain"), ("wgd", "wgd, beyond plain")) + \
                tuple((m, "wgd on %s threads, beyond plain" % m[len("wgd-t"):]) for m in tmodes):
            r = runs[mode]
            tot = (r[0]["total"] - p[0]["total"]) / nbytes
            cols = [(r[2][k] - p[2][k]) / nbytes for k in COLUMNS]
            if ref is None:
                ref = tot
                ratio = ""
            else:
                ratio = "%.2fx" % (tot / ref)
            print("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.1f |" % (label, tot, *cols, ratio, r[3]))
            # the crypto's place: the modules for the kernel, user space for
            # wgd; in the median over the rounds, as above
            home, away = (2, 0) if mode == "kernel" else (0, 2)
            each = [cols] + [[(e[mode][2][c] - e["plain"][2][c]) / nbytes for c in COLUMNS] for e in later]
            mhome, maway = median([c[home] for c in each]), median([c[away] for c in each])
            if not 10 <= mhome <= (60 if mode == "kernel" else 80) or maway > 3:
                bad.append("%s, %s (median of %d rounds): %s %.2f and %s %.2f instructions/byte beyond plain TCP" % (
                    title, label, rounds, COLUMNS[home], mhome, COLUMNS[away], maway))
        if not detail:
            continue
        fk = per_function(runs["kernel"][1], syms)
        fw = per_function(runs["wgd"][1], syms)
        fp = per_function(runs["plain"][1], syms)
        diff = sorted(set(fk) | set(fw), key=lambda n: -(fw.get(n, 0) - fk.get(n, 0)))
        print("\n%s: the %d kernel functions where wgd's run costs most over the kernel's WireGuard run" % (title, detail))
        print("(instructions per byte of payload in each run)")
        print("| function | plain | kernel WG | wgd | wgd - kernel WG |")
        print("|---|---|---|---|---|")
        for n in diff[:detail]:
            print("| %s | %.3f | %.3f | %.3f | %+.3f |" % (n, fp.get(n, 0) / nbytes, fk.get(n, 0) / nbytes,
                                                      fw.get(n, 0) / nbytes, (fw.get(n, 0) - fk.get(n, 0)) / nbytes))
        print("\n%s: calls per MiB of payload (executions of each function's first block)" % title)
        print("| function | plain | kernel WG | wgd |")
        print("|---|---|---|---|")
        seen = set()
        for name, what in CALLS:
            if name in seen:
                continue
            seen.add(name)
            v = [calls(runs[m][1], syms, name) / mib for m in ("plain", "kernel", "wgd")]
            if any(v):
                print("| %s (%s) | %.1f | %.1f | %.1f |" % (name, what, *v))
        if usyms.maps:
            f = {}
            for pc, (ins, _) in runs["wgd"][1].items():
                if pc < KSEG0:
                    n = usyms.name_of(pc)
                    if n:
                        f[n] = f.get(n, 0) + ins
            inwgd = sum(f.values())
            print("\n%s: wgd's process in user space, %.2f instructions per byte of payload (of %.2f in all"
                  " user space, %.2f in the plain run), by function" % (
                      title, inwgd / nbytes, runs["wgd"][0]["user"] / nbytes, p[0]["user"] / nbytes))
            print("| function | instructions/byte | share |")
            print("|---|---|---|")
            for n in sorted(f, key=lambda n: -f[n])[:detail]:
                print("| %s | %.3f | %.1f%% |" % (n, f[n] / nbytes, 100.0 * f[n] / inwgd))
    if hwm:
        print("\nwgd in the guest: peak RSS (VmHWM) %s kB" % hwm)
    elif check:
        bad.append("no peak RSS of wgd")
    for mode in tmodes:
        v = [read_hwm(d, mode, k) for k in range(1, rounds + 1)]
        v = [x for x in v if x is not None]
        if v:
            print("wgd on %s threads in the guest: peak RSS (VmHWM) %d kB (issue 22's bar: 2,560 kB)" % (
                mode[len("wgd-t"):], max(v)))
        elif check:
            bad.append("no peak RSS of %s" % mode)
    if check:
        for b in bad:
            print("check: implausible: " + b)
        if bad:
            sys.exit(1)
        print("check: the split is plausible")


if __name__ == "__main__":
    main()
