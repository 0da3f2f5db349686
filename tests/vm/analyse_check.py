#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""analyse.py --check (tools/routerbench), the judge of routerbench-smoke,
on run directories written here: three rounds of plain TCP, the kernel's
WireGuard, wgd and wgd on two threads, each window a total and a few
translation blocks in the kernel image, the WireGuard module and user space.

  analyse_check.py ANALYSE_PY

- a run with the usual split passes;
- one round whose plain TCP window caught 4x its usual instructions (the
  guest's own background work: both tunnels come out below zero beyond it,
  as a CI run once saw) still passes: the check judges the median round;
- the same in two rounds of three fails, and so does a run where wgd's
  crypto runs in the WireGuard module, or where a peak RSS is missing.
"""

import os
import subprocess
import sys
import tempfile

NBYTES = 4194304
WG_BASE = 0xC0100000
KTEXT = 0x80100000
# instructions per byte of payload, by column: (user, kernel image, WireGuard module)
USUAL = {
    "send": {"plain": (1.6, 8.8, 0.0), "kernel": (1.6, 16.0, 23.0), "wgd": (25.0, 20.0, 0.0)},
    "recv": {"plain": (1.6, 9.6, 0.0), "kernel": (1.6, 12.0, 25.5), "wgd": (25.4, 15.6, 0.0)},
}
USUAL["send"]["wgd-t2"] = USUAL["send"]["wgd"]
USUAL["recv"]["wgd-t2"] = USUAL["recv"]["wgd"]


def window(user, kern, wgmod):
    """One counting window as count.c writes it, per byte figures times NBYTES."""
    u, k, w = (int(x * NBYTES) for x in (user, kern, wgmod))
    lines = ["window 1", "total %d user %d kernel %d vmalloc %d" % (u + k + w, u, k, w)]
    if u:
        lines.append("tb %x %d %d" % (0x00400000, u, u // 10))
    if k:
        lines.append("tb %x %d %d" % (KTEXT + 0x40, k, k // 10))
    if w:
        lines.append("tb %x %d %d" % (WG_BASE + 0x80, w, w // 10))
    lines.append("end 1")
    return "\n".join(lines) + "\n"


def write_run(d, change=None, hwm=True):
    """A three-round run in D; change(direction, mode, round, figures) may
    alter a window's figures."""
    with open(os.path.join(d, "kallsyms"), "w") as f:
        f.write("%x T tcp_sendmsg\n%x t wg_packet_encrypt [wireguard]\n" % (KTEXT, WG_BASE))
    with open(os.path.join(d, "modules"), "w") as f:
        f.write("wireguard 65536 0 - Live 0x%x\n" % WG_BASE)
    for k in (1, 2, 3):
        sfx = "" if k == 1 else ".r%d" % k
        for direction, modes in USUAL.items():
            for mode, fig in modes.items():
                if change:
                    fig = change(direction, mode, k, fig)
                with open(os.path.join(d, "%s-%s%s.count" % (mode, direction, sfx)), "w") as f:
                    f.write(window(*fig))
        if hwm:
            for mode in ("wgd", "wgd-t2"):
                with open(os.path.join(d, "%s-hwm%s" % (mode, sfx)), "w") as f:
                    f.write("2500\n")


def check(analyse, **kw):
    with tempfile.TemporaryDirectory() as d:
        write_run(d, **kw)
        p = subprocess.run([sys.executable, analyse, d, str(NBYTES), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
        return p.returncode, p.stdout


def main():
    analyse = sys.argv[1]
    failed = 0

    def expect(name, ok, **kw):
        nonlocal failed
        rc, out = check(analyse, **kw)
        said = "check: the split is plausible" if ok else "check: implausible: "
        if (rc == 0) != ok or said not in out:
            failed += 1
            print("FAIL: %s: analyse.py --check exited %d, expected %s and \"%s\"" % (
                name, rc, "0" if ok else "1", said))
            print(out[-3000:])
        else:
            print("ok: %s (exit %d)" % (name, rc))

    def plain_4x(rounds):
        def change(direction, mode, k, fig):
            return tuple(4 * x for x in fig) if direction == "send" and mode == "plain" and k in rounds else fig
        return change

    def wgd_in_module(direction, mode, k, fig):
        # wgd's crypto counted in the WireGuard module: a mislabelled split
        return (fig[0] - 23.0, fig[1], fig[2] + 23.0) if mode == "wgd" else fig

    expect("the usual split", True)
    expect("round 1's plain TCP window at 4x", True, change=plain_4x({1}))
    expect("round 3's plain TCP window at 4x", True, change=plain_4x({3}))
    expect("rounds 1 and 2's plain TCP windows at 4x", False, change=plain_4x({1, 2}))
    expect("wgd's crypto in the WireGuard module", False, change=wgd_in_module)
    expect("no peak RSS", False, hwm=False)
    print("%d failed" % failed)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
