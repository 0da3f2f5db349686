#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The daemon ends cleanly, as the cross-platform userspace contract asks: on
# SIGTERM and SIGINT, when its control socket file is deleted, and when its
# TUN link is deleted (wg-quick down relies on that).  Each time the process
# must be gone within 5 s, with its socket file and its link.  Started the
# ordinary way (no -f), which must return only once the control socket
# answers; in the foreground, the exit status on a signal must be 0.  In the
# background the daemon, and wgd's privileged monitor with it, keep nothing
# of the terminal it was started from: standard input, output and error are
# /dev/null once it is up.

. "$(dirname "$0")/lib.sh"

nt_init ex
ROLE=${1:-wgd}
NS=$(nt_name "" x)
nt_netns "$NS"
n=0

# start MODE: a configured, up interface; sets IFC and PID.
start() {
	n=$((n + 1))
	IFC=$(nt_name wg "$n")
	if [ "$1" = fg ]; then
		nt_daemon "$NS" "$IFC" "$ROLE"
	else
		nt_daemon_bg "$NS" "$IFC" "$ROLE"
	fi
	PID=${NT_DPID[$IFC]}
	nt_keys "$IFC"
	nt_wg "$IFC" set "$IFC" private-key "${NT_PRIV[$IFC]}" listen-port 0 \
		peer "$(wg genkey | wg pubkey)" allowed-ips 10.0.0.0/8 endpoint 192.0.2.77:51820 ||
		nt_fail "configuring $IFC"
	ip -n "$NS" addr add 198.51.100.1/24 dev "$IFC" && ip -n "$NS" link set "$IFC" up ||
		nt_fail "$IFC up"
}

link_gone() { ! ip -n "$NS" link show dev "$1" >/dev/null 2>&1; }
sock_gone() { [ ! -e "/var/run/wireguard/$1.sock" ]; }

# ended HOW: the process, the socket file and the link are gone in time.
ended() {
	nt_wait_gone "$PID" 5 || nt_fail "$1: process $PID still running after 5 s"
	nt_until 2 sock_gone "$IFC" || nt_fail "$1: socket file /var/run/wireguard/$IFC.sock left behind"
	nt_until 2 link_gone "$IFC" || nt_fail "$1: link $IFC left behind"
	nt_ok "$1: process, socket file and link gone"
}

# detached PID: fds 0, 1 and 2 of PID and of its children are /dev/null.
detached() {
	local p fd pids
	pids="$1 $(cat /proc/"$1"/task/*/children 2>/dev/null)"
	for p in $pids; do
		for fd in 0 1 2; do
			[ "$(readlink "/proc/$p/fd/$fd")" = /dev/null ] || return 1
		done
	done
}

start bg
if ! nt_until 2 detached "$PID"; then
	for p in $PID $(cat /proc/"$PID"/task/*/children 2>/dev/null); do
		nt_log "$p ($(tr '\0' ' ' </proc/"$p"/cmdline)): 0 $(readlink /proc/"$p"/fd/0), 1 $(readlink /proc/"$p"/fd/1), 2 $(readlink /proc/"$p"/fd/2)"
	done
	nt_fail "in the background, $ROLE $IFC keeps the launcher's standard streams"
fi
nt_ok "in the background, $ROLE $IFC and its children have /dev/null for fds 0, 1 and 2 ($(cat /proc/"$PID"/task/*/children 2>/dev/null | wc -w) children)"
HOW="SIGTERM"
kill -TERM "$PID"
ended "$HOW"

start bg
HOW="socket file deleted"
rm "/var/run/wireguard/$IFC.sock"
ended "$HOW"

start bg
HOW="ip link del"
ip -n "$NS" link del "$IFC" || nt_fail "ip link del $IFC"
ended "$HOW"

for sig in TERM INT; do
	start fg
	HOW="SIG$sig in the foreground"
	kill -"$sig" "$PID"
	ended "$HOW"
	wait "$PID"
	st=$?
	[ "$st" = 0 ] || nt_fail "$HOW: exit status $st"
	nt_ok "$HOW: exit status 0"
done
echo "PASS"
