#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wg-quick uses wgd where the kernel has no WireGuard module:
# WG_QUICK_USERSPACE_IMPLEMENTATION=wgd wg-quick up brings up side a (keys,
# addresses, MTU, routes from a wg-quick file) facing wireguard-go on side b;
# pings pass; wg-quick down deletes the link, which must end the daemon and
# remove its socket file.

. "$(dirname "$0")/lib.sh"

nt_init wq
nt_need wg-quick unshare mount
ROLE=${1:-wgd}
prog=$(nt_impl "$ROLE") || exit 1
nt_topo
# wg-quick falls back to a userspace implementation only if "ip link add
# ... type wireguard" fails and /sys/module/wireguard does not exist.  So that
# the test means the same on a kernel with WireGuard (Debian's loads the
# module on demand), wg-quick runs with an ip that refuses that one command
# and, in a private mount namespace, an empty /sys/module.
shim=$NT_TMP/shim
mkdir -p "$shim" || nt_fail "mkdir"
cat >"$shim/ip" <<-EOF2 || nt_fail "ip shim"
	#!/bin/sh
	case " \$* " in
	*" type wireguard "*) echo "ip: kernel WireGuard links hidden by the test" >&2; exit 2 ;;
	esac
	exec $(command -v ip) "\$@"
	EOF2
chmod +x "$shim/ip"
# wg-quick puts its own directory first in PATH: run a copy from the shim's.
cp "$(command -v wg-quick)" "$shim/wg-quick" || nt_fail "copying wg-quick"
wgquick() {
	WG_QUICK_USERSPACE_IMPLEMENTATION=$prog LOG_LEVEL=verbose PATH="$shim:$PATH" \
		timeout 30 ip netns exec "$NS_A" unshare -m --propagation private sh -c \
		'mount -t tmpfs ntnomodules /sys/module && exec "$0" "$@"' "$shim/wg-quick" "$@"
}
IF_A=$(nt_name wg a)
IF_B=$(nt_name wg b)
nt_daemon "$NS_B" "$IF_B" wireguard-go
nt_keys "$IF_A"
nt_keys "$IF_B"
NT_NS[$IF_A]=$NS_A
NT_IFACES+=("$IF_A")
nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" \
	peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,fd00:2::1/128 || nt_fail "configuring b"
nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64

conf=$NT_TMP/$IF_A.conf
(umask 077 && cat >"$conf" <<-EOF2
	[Interface]
	PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
	ListenPort = $NT_PORT
	Address = 198.51.100.1/24, fd00:2::1/64
	MTU = $NT_MTU

	[Peer]
	PublicKey = ${NT_PUB[$IF_B]}
	AllowedIPs = 198.51.100.2/32, fd00:2::2/128
	Endpoint = 192.0.2.2:$NT_PORT
	EOF2
) || nt_fail "writing $conf"

wgquick up "$conf" >"$NT_TMP/wg-quick-up.$NT_RUN.log" 2>&1 ||
	nt_fail "wg-quick up: $(cat "$NT_TMP/wg-quick-up.$NT_RUN.log")"
pid=$(nt_find_daemon "$prog" "$IF_A")
[ -n "$pid" ] || nt_fail "no '$prog $IF_A' process after wg-quick up"
NT_DPID[$IF_A]=$pid
grep -q "$prog $IF_A" "$NT_TMP/wg-quick-up.$NT_RUN.log" || nt_fail "wg-quick did not run $prog"
[ "$(nt_x "$NS_A" cat "/sys/class/net/$IF_A/mtu")" = "$NT_MTU" ] || nt_fail "MTU not set"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping through the wg-quick interface"
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "ping6 through the wg-quick interface"
nt_ping "$IF_B" 198.51.100.1 || nt_fail "ping back to the wg-quick interface"
nt_ok "wg-quick up with $ROLE: addresses, MTU, routes; pings pass"

wgquick down "$conf" >"$NT_TMP/wg-quick-down.$NT_RUN.log" 2>&1 ||
	nt_fail "wg-quick down: $(cat "$NT_TMP/wg-quick-down.$NT_RUN.log")"
nt_wait_gone "$pid" 5 || nt_fail "$ROLE still running 5 s after wg-quick down"
[ ! -e "/var/run/wireguard/$IF_A.sock" ] || nt_fail "socket file left after wg-quick down"
ip -n "$NS_A" link show dev "$IF_A" >/dev/null 2>&1 && nt_fail "link left after wg-quick down"
nt_ok "wg-quick down: $ROLE gone with its socket file and link"
echo "PASS"
