#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# No leaks and no memory errors after a run with traffic: wgd under
# valgrind's memcheck on side a, wireguard-go on side b; handshakes both
# ways, IPv4 and IPv6 pings, full-MTU pings, a TCP transfer, reconfiguration
# (peer removed and added back, allowed IPs changed, wg show), jumbo-MTU
# pings (oversize packets staged before a handshake, and some still staged
# for a peer that never answers at exit), then SIGTERM.
# memcheck must report no error and nothing definitely or indirectly lost,
# and wgd must exit with status 0.  An AddressSanitizer build cannot run
# under valgrind; its LeakSanitizer checks every other test's exit instead.

. "$(dirname "$0")/lib.sh"

nt_init lk
nt_need valgrind iperf3 ss
prog=$(nt_impl wgd) || exit 1
if grep -q __asan_init "$prog" 2>/dev/null; then
	nt_skip "$prog is an AddressSanitizer build (LeakSanitizer covers leaks there)"
fi
NT_TIMEOUT=30
NT_WRAP_WGD="valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
--show-leak-kinds=definite,indirect --track-fds=no --log-file=$NT_TMP/valgrind.%p.txt"
nt_pair wgd wireguard-go
NT_WRAP_WGD=
pid=${NT_DPID[$IF_A]}

nt_endpoint "$IF_A" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b"
nt_ping "$IF_A" fd00:2::2 -6 -M "do" -s $((NT_MTU - 48)) || nt_fail "full-MTU ping6 a -> b"
nt_ping "$IF_B" 198.51.100.1 -M "do" -s $((NT_MTU - 28)) || nt_fail "full-MTU ping b -> a"
nt_iperf_server "$IF_B"
g=$(nt_iperf "$NS_A" 198.51.100.2 2) || nt_fail "iperf3 a -> b"
r=$(nt_iperf "$NS_A" 198.51.100.2 2 -R) || nt_fail "iperf3 b -> a"
nt_ok "traffic under valgrind: $g / $r Gbit/s"
nt_peers_reset
nt_endpoint "$IF_B" 6
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping b -> a after the peers were reset"
# Jumbo MTUs: packets larger than a send slot take the oversize path, and
# one staged before a handshake lives in a buffer of its own until sent.
ip -n "$NS_A" link set "$VETH_A" mtu 9000 || nt_fail "veth mtu a"
ip -n "$NS_B" link set "$VETH_B" mtu 9000 || nt_fail "veth mtu b"
ip -n "$NS_A" link set "$IF_A" mtu 8920 || nt_fail "mtu 8920 on $IF_A"
ip -n "$NS_B" link set "$IF_B" mtu 8920 || nt_fail "mtu 8920 on $IF_B"
nt_peers_reset
nt_endpoint "$IF_A" 4
nt_x "$NS_A" ping -q -c 1 -W 20 -M "do" -s 8800 198.51.100.2 >/dev/null ||
	nt_fail "8800-byte ping a -> b, staged before the handshake"
nt_ping "$IF_B" fd00:2::1 -6 -M "do" -s 8800 || nt_fail "8800-byte ping6 b -> a"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" allowed-ips 198.51.100.2/32,fd00:2::2/128,10.0.0.0/8 \
	persistent-keepalive 1 || nt_fail "wg set"
nt_wg "$IF_A" show "$IF_A" dump >/dev/null || nt_fail "wg show dump"
nt_wg "$IF_A" set "$IF_A" peer "$(wg genkey | wg pubkey)" allowed-ips 10.1.0.0/16 endpoint 192.0.2.9:9 ||
	nt_fail "wg set (third peer)"
nt_ping "$IF_A" 10.1.2.3 -c 1 >/dev/null 2>&1	# staged for a peer that never answers
# Oversize packets still staged at exit: their buffers must be freed.
ip -n "$NS_A" route add 10.1.0.0/16 dev "$IF_A" || nt_fail "route to the third peer"
nt_x "$NS_A" ping -q -c 3 -i 0.2 -W 1 -s 8000 10.1.2.3 >/dev/null 2>&1
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 a -> b after reconfiguration"
kill -TERM "$pid"
nt_wait_gone "$pid" 30 || nt_fail "wgd under valgrind still running 30 s after SIGTERM"
wait "$pid"
st=$?
if [ "$st" != 0 ]; then
	cat "$NT_TMP"/valgrind.*.txt >&2
	[ "$st" = 99 ] && nt_fail "valgrind found memory errors or leaks in wgd"
	nt_fail "wgd exited with status $st"
fi
ls "$NT_TMP"/valgrind.*.txt >/dev/null 2>&1 || nt_fail "valgrind left no log: did it run?"
if grep -q . "$NT_TMP"/valgrind.*.txt; then
	cat "$NT_TMP"/valgrind.*.txt >&2
	nt_fail "valgrind reported something"
fi
nt_ok "wgd exited 0; memcheck: no errors, nothing lost"
echo "PASS"
