#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Packets no peer takes are answered with ICMP unreachable errors written
# back into the TUN device (daemon/datapath/icmp.h, doc/protocol.md §10), as
# the kernel's WireGuard answers them: `ping` to an address no peer covers,
# or to a peer without an endpoint, fails within 100 ms saying
# "unreachable", over IPv4 and IPv6, and a TCP connect fails at once with
# EHOSTUNREACH instead of waiting out its SYN retries.  The namespace runs
# the strict reverse-path filter, which the errors must pass.  Once the
# peer has an endpoint, pings get through and nothing says unreachable.

. "$(dirname "$0")/lib.sh"

nt_init un
nt_pair wgd wgd

for f in all default "$IF_A"; do
	nt_x "$NS_A" sh -c "echo 1 >/proc/sys/net/ipv4/conf/$f/rp_filter" || nt_fail "rp_filter on $f"
done

# The probe, run inside A's namespace so that the timing holds no `ip netns
# exec`: "ping DST [-6]" pings once three times and prints the fastest
# failure in ms with ping's line; "tcp DST" connects to port 9 and prints
# how long the refusal took and its errno.
cat >"$NT_TMP/probe.py" <<'PY'
import errno, socket, subprocess, sys, time
kind, dst = sys.argv[1], sys.argv[2]
if kind == "ping":
    best, line = None, ""
    for _ in range(3):
        t = time.monotonic()
        r = subprocess.run(["ping", "-n", "-c", "1", "-w", "3"] + sys.argv[3:] + [dst],
                           capture_output=True, text=True)
        ms = (time.monotonic() - t) * 1000
        out = r.stdout + r.stderr
        if r.returncode == 0 or "nreachable" not in out:
            print("no-error %.0f %s" % (ms, " | ".join(out.splitlines()[:3])))
            sys.exit(1)
        line = next((l for l in out.splitlines() if "nreachable" in l), "")
        best = ms if best is None else min(best, ms)
    print("%.0f %s" % (best, line))
else:
    s = socket.socket(socket.AF_INET6 if ":" in dst else socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(5)
    t = time.monotonic()
    try:
        s.connect((dst, 9))
        print("connected")
        sys.exit(1)
    except OSError as e:
        ms = (time.monotonic() - t) * 1000
        print("%.0f %s" % (ms, errno.errorcode.get(e.errno, str(e))))
PY

# unreachable WHAT DST [PING-ARGS...]: ping and TCP from A to DST fail fast.
unreachable() {
	local what=$1 dst=$2 out ms
	shift 2
	out=$(nt_x "$NS_A" "$NT_PY" "$NT_TMP/probe.py" ping "$dst" "$@") ||
		nt_fail "ping $dst ($what): no unreachable error: $out"
	ms=${out%% *}
	[ "$ms" -le 100 ] || nt_fail "ping $dst ($what) failed after $ms ms (bar: 100 ms): ${out#* }"
	nt_ok "ping $dst ($what): ${out#* }, after $ms ms"
	out=$(nt_x "$NS_A" "$NT_PY" "$NT_TMP/probe.py" tcp "$dst") || nt_fail "TCP to $dst ($what): $out"
	ms=${out%% *}
	[ "${out#* }" = EHOSTUNREACH ] || nt_fail "TCP to $dst ($what): ${out#* } after $ms ms, not EHOSTUNREACH"
	[ "$ms" -le 500 ] || nt_fail "TCP to $dst ($what) refused after $ms ms (bar: 500 ms)"
	nt_ok "TCP connect to $dst ($what): EHOSTUNREACH after $ms ms"
}

unreachable "peer without an endpoint" "$(nt_inner "$IF_B" 4)"
unreachable "peer without an endpoint" "$(nt_inner "$IF_B" 6)" -6
unreachable "no peer" 198.51.100.77
unreachable "no peer" fd00:2::77 -6

nt_endpoint "$IF_A" 4
nt_ping "$IF_A" "$(nt_inner "$IF_B" 4)" || nt_fail "ping B once A knows its endpoint"
nt_ping "$IF_A" "$(nt_inner "$IF_B" 6)" -6 || nt_fail "ping6 B once A knows its endpoint"
out=$(nt_x "$NS_A" ping -n -c 3 -i 0.2 -W 2 "$(nt_inner "$IF_B" 4)" 2>&1) || nt_fail "pings to B: $out"
case "$out" in *nreachable*) nt_fail "a ping to a peer with an endpoint said unreachable: $out" ;; esac
nt_ok "with an endpoint, pings to the peer get through, no error"
