#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The daemon's layers, read from its #include lines (doc/architecture.md).

Usage: layers.py SRCROOT

  - daemon/ holds main.c and one folder per layer, nothing else;
  - no file includes a header of a layer above its own, lowest first:
      crypto < core < base < config < monitor < datapath < control < host < bringup < main
    (an inline helper can only be called where its header is included, so
    this also sees the calls that the objects' symbols cannot);
  - inside the data path, the files' own order (STYLE.md principle 17):
      device, receive, expiry, device_config > send > peer > state, crypt,
      icmp > io, ip, endpoint, gso
    a file includes only headers of its rank or below, except device.h, the
    library's interface, which declares and defines nothing inline, so that
    any file may include it to define its entry points;
  - the include graph among the data path's files has no cycle.
Prints every violation and exits 1 if there is one.
"""
import os
import re
import sys

LAYERS = ["crypto", "core", "base", "config", "monitor", "datapath", "control", "host", "bringup", "main"]
DATAPATH_RANK = {
    "device": 0, "receive": 1, "expiry": 1, "device_config": 1,
    "send": 2, "peer": 3, "state": 4, "crypt": 4, "icmp": 4,
    "io": 5, "ip": 5, "endpoint": 5, "gso": 5,
}
INTERFACE = "daemon/datapath/device.h"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The layer of a repository path, or None outside crypto/ and daemon/."""
    parts = path.split("/")
    if parts[0] == "crypto":
        return "crypto"
    if parts[0] != "daemon":
        return None
    if len(parts) == 2:
        return "main"
    return parts[1]


def module_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def sources(root):
    for top in ("crypto", "daemon"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def check_folders(root, bad):
    for n in sorted(os.listdir(os.path.join(root, "daemon"))):
        p = os.path.join(root, "daemon", n)
        if os.path.isdir(p):
            if n not in LAYERS:
                bad.append(f"daemon/{n}/: not a layer ({', '.join(LAYERS)})")
        elif n not in ("main.c", "meson.build"):
            bad.append(f"daemon/{n}: daemon/ holds main.c and the layers' folders only")


def check_interface(root, bad):
    text = re.sub(r"/\*.*?\*/", "", open(os.path.join(root, INTERFACE)).read(), flags=re.S)
    if "inline" in text or "{" in text:
        bad.append(f"{INTERFACE}: the interface only declares (no inline code, no struct body)")


def find_cycle(graph):
    state = {}

    def visit(n, path):
        state[n] = 1
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return path + [n, m]
            if m not in state:
                found = visit(m, path + [n])
                if found:
                    return found
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n, [])
            if found:
                return found[found.index(found[-1]):]
    return None


def main():
    root = sys.argv[1]
    bad = []
    check_folders(root, bad)
    check_interface(root, bad)
    edges = 0
    graph = {}
    for src in sources(root):
        mine = layer_of(src)
        for inc in INCLUDE.findall(open(os.path.join(root, src)).read()):
            theirs = layer_of(inc)
            if theirs is None or not os.path.exists(os.path.join(root, inc)):
                continue
            edges += 1
            if LAYERS.index(theirs) > LAYERS.index(mine):
                bad.append(f"{src} includes {inc}: {mine} is below {theirs}")
            if mine != "datapath" or theirs != "datapath" or inc == INTERFACE:
                continue
            graph.setdefault(src, set()).add(inc)
            a, b = module_of(src), module_of(inc)
            if a != b and DATAPATH_RANK.get(b, 9) < DATAPATH_RANK.get(a, 9):
                bad.append(f"{src} includes {inc}: up the data path's order ({a} is below {b})")
    cycle = find_cycle(graph)
    if cycle:
        bad.append("the data path's includes form a cycle: " + " -> ".join(cycle))
    if edges == 0:
        bad.append("no #include read: wrong SRCROOT?")
    for b in bad:
        print(b)
    if not bad:
        print(f"layers: {edges} includes, none upward; the data path's include graph is acyclic")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
