#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# An outer path narrower than a full data message, wgd <-> wgd: the veths
# have MTU 1400 while the tunnel keeps 1420, so a full-size data message
# (1420 + 32 + 28 bytes over IPv4, + 48 over IPv6) must be fragmented by
# the IP layer, as the kernel's WireGuard lets it be.  The kernel refuses a
# UDP GSO send whose segments exceed the device MTU (EINVAL), so a run of
# full-size packets must then go out one datagram at a time: a burst of
# large pings (all one size, read in one wakeup) and a TCP transfer pass,
# over IPv4 and IPv6 endpoints.

. "$(dirname "$0")/lib.sh"

nt_init rm
nt_need iperf3
nt_pair wgd wgd
ip -n "$NS_A" link set "$VETH_A" mtu 1400 || nt_fail "veth mtu a"
ip -n "$NS_B" link set "$VETH_B" mtu 1400 || nt_fail "veth mtu b"
nt_iperf_server "$IF_B"

for fam in 4 6; do
	nt_endpoint "$IF_A" "$fam"
	nt_endpoint "$IF_B" "$fam"
	nt_ping "$IF_A" 198.51.100.2 || nt_fail "small ping a -> b over IPv$fam"
	# 20 echo requests of 1420 bytes at once; most must come back.
	got=$(nt_x "$NS_A" ping -q -c 20 -l 20 -i 0.2 -W 2 -s 1392 198.51.100.2 |
		awk '/received/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^received/) print $i }')
	[ "${got:-0}" -ge 15 ] || nt_fail "burst of full-size pings over IPv$fam: ${got:-0} of 20 came back"
	gbps=$(nt_iperf "$NS_A" 198.51.100.2 2) || nt_fail "iperf3 over IPv$fam"
	awk -v g="$gbps" 'BEGIN { exit !(g >= 0.01) }' ||
		nt_fail "TCP over IPv$fam through a 1400-byte outer MTU: $gbps Gbit/s"
	nt_ok "IPv$fam outer MTU 1400: $got of 20 full-size pings, TCP $gbps Gbit/s"
done
