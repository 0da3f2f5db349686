#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Calls among the data path's files go one way (STYLE.md principle 17).

Usage: calls.py CC NM SRCROOT

Compiles daemon/datapath/*.c with inlining off (-O0 -fno-inline -g), so
that every inline helper a file calls is a function of its own in that
file's object, and reads the calls from the objects:
  - a reference from X.o to a function that Y.c defines is an edge X -> Y;
  - a local function in X.o whose definition is in header Y.h (nm -l reads
    it from the debug information) is an inline helper X calls: X -> Y.
The edges must go down the order of tests/layers.py (device, receive,
expiry, device_config > send > peer > state, crypt, icmp > io, ip, endpoint, gso) and
form no cycle.  Optimised objects hide the second kind: an inlined helper
leaves no symbol.
"""
import os
import subprocess
import sys
import tempfile

RANK = {
    "device": 0, "receive": 1, "expiry": 1, "device_config": 1,
    "send": 2, "peer": 3, "state": 4, "crypt": 4, "icmp": 4,
    "io": 5, "ip": 5, "endpoint": 5, "gso": 5,
}


def module(path):
    return os.path.splitext(os.path.basename(path))[0]


def nm(prog, args):
    return subprocess.run([prog] + args, check=True, capture_output=True, text=True).stdout


def main():
    cc, nm_prog, root = sys.argv[1:4]
    src_dir = os.path.join(root, "daemon", "datapath")
    srcs = sorted(n for n in os.listdir(src_dir) if n.endswith(".c"))
    defined = {}		# global function -> module
    local = []		# (module of the object, helper, file it is defined in)
    undefined = []		# (module, symbol)
    with tempfile.TemporaryDirectory() as tmp:
        for s in srcs:
            obj = os.path.join(tmp, module(s) + ".o")
            subprocess.run([cc, "-std=gnu11", "-O0", "-fno-inline", "-g", "-I", root, "-c",
                            os.path.join(src_dir, s), "-o", obj], check=True)
            me = module(s)
            for line in nm(nm_prog, ["--defined-only", "-l", obj]).splitlines():
                f = line.split()
                if len(f) < 3 or f[1] not in "Tt":
                    continue
                if f[1] == "T":
                    defined[f[2]] = me
                elif len(f) == 4:
                    local.append((me, f[2], f[3].rsplit(":", 1)[0]))
            for line in nm(nm_prog, ["-u", obj]).splitlines():
                f = line.split()
                if len(f) == 2 and f[0] == "U":
                    undefined.append((me, f[1]))
    edges = set()
    for me, sym in undefined:
        if sym in defined and defined[sym] != me:
            edges.add((me, defined[sym], sym))
    for me, sym, where in local:
        owner = module(where)
        if os.path.dirname(os.path.abspath(where)) == os.path.abspath(src_dir) and owner != me:
            edges.add((me, owner, sym + " (inline)"))
    if not edges:
        print("no calls between the data path's files found: nm failed?")
        return 1
    bad = 0
    graph = {}
    for a, b, sym in sorted(edges):
        print(f"{a} -> {b}: {sym}")
        graph.setdefault(a, set()).add(b)
        if RANK.get(a, 9) >= RANK.get(b, 9):
            print(f"  {a} calls {b}: not down the data path's order")
            bad = 1
    # a cycle among ranks is already an upward edge; this names one if the
    # order above ever lists two files at one rank that call each other
    for a in graph:
        for b in graph[a]:
            if a in graph.get(b, ()):
                print(f"  {a} and {b} call each other")
                bad = 1
    if not bad:
        print(f"data path calls: {len(edges)} edges, all down the order, inline helpers included")
    return bad


if __name__ == "__main__":
    sys.exit(main())
