#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The privilege drop (daemon/privdrop.h): wgd --user USER, once set up, runs
# as USER with only the capabilities it still needs, and the tunnel keeps
# working.
# - /proc/PID/status: Uid and Gid are USER's (real, effective, saved, fs);
#   CapEff is exactly CAP_NET_ADMIN, CapPrm adds CAP_DAC_OVERRIDE (raised only
#   to remove the socket file from the root-owned /var/run/wireguard), the
#   bounding set is CapPrm, nothing inheritable or ambient, NoNewPrivs set;
# - after the drop: a private key, a listen port and a fwmark are set (the
#   rebinding marks the socket: CAP_NET_ADMIN), peers added, the tunnel
#   pings; a change of listen port to another port >= 1024 rebinds and the
#   tunnel pings from the new port; a port below 1024 is refused (no
#   CAP_NET_BIND_SERVICE: the capability is really gone);
# - SIGTERM: exit status 0, the socket file and the link removed;
# - --user root, and no --user without a user "wgd": no drop, said in the log.

. "$(dirname "$0")/lib.sh"

nt_init pd
nt_need ss

# A system user of our own (removed at exit), else nobody.
PD_USER=wgdt$NT_U
PD_MADE=0
pd_cleanup() {
	local rc=$?
	nt_teardown
	[ "$PD_MADE" = 1 ] && userdel "$PD_USER" 2>/dev/null
	(exit "$rc")
	nt_cleanup
}
trap pd_cleanup EXIT
if ! id "$PD_USER" >/dev/null 2>&1; then
	if command -v useradd >/dev/null 2>&1 &&
		useradd -r -M -s /usr/sbin/nologin "$PD_USER" 2>/dev/null; then
		PD_MADE=1
	else
		PD_USER=nobody
	fi
fi
PD_UID=$(id -u "$PD_USER")
PD_GID=$(id -g "$PD_USER")

CAP_DAC_OVERRIDE=1
CAP_NET_BIND_SERVICE=10
CAP_NET_ADMIN=12

# status PID FIELD: the field's value in /proc/PID/status, tabs as spaces.
status() { awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"; }
# capmask BIT...: /proc's notation of the capability set with those bits.
capmask() {
	local m=0 b
	for b in "$@"; do m=$((m | (1 << b))); done
	printf '%016x\n' "$m"
}

# start_wgd NS IF ARGS...: wgd -f ARGS IF in NS, as nt_daemon does.
start_wgd() {
	local ns=$1 ifc=$2 pid
	shift 2
	NT_NS[$ifc]=$ns
	NT_IMPL[$ifc]=$WGD
	NT_IFACES+=("$ifc")
	LOG_LEVEL=verbose ip netns exec "$ns" "$WGD" -f "$@" "$ifc" >"$NT_TMP/$ifc.$NT_RUN.log" 2>&1 &
	pid=$!
	NT_DPID[$ifc]=$pid
	nt_until "$NT_TIMEOUT" nt_sock_ready "$ifc" ||
		nt_fail "wgd -f $* $ifc did not serve: $(tail -n 5 "$NT_TMP/$ifc.$NT_RUN.log")"
}

[ -n "${WGD:-}" ] && [ -x "$WGD" ] || nt_fail "WGD is not set to an executable wgd"
nt_topo
IF_A=$(nt_name wg a)
IF_B=$(nt_name wg b)
start_wgd "$NS_A" "$IF_A" --user "$PD_USER"
nt_daemon "$NS_B" "$IF_B" wgd
PID=${NT_DPID[$IF_A]}

nt_log "-- /proc/$PID/status after the drop to $PD_USER ($PD_UID:$PD_GID)"
[ "$(status "$PID" Uid)" = "$PD_UID $PD_UID $PD_UID $PD_UID" ] ||
	nt_fail "Uid: $(status "$PID" Uid), want $PD_UID four times"
[ "$(status "$PID" Gid)" = "$PD_GID $PD_GID $PD_GID $PD_GID" ] ||
	nt_fail "Gid: $(status "$PID" Gid), want $PD_GID four times"
[ "$(status "$PID" Groups)" = "$PD_GID" ] || nt_fail "Groups: '$(status "$PID" Groups)', want $PD_GID"
want_eff=$(capmask $CAP_NET_ADMIN)
want_prm=$(capmask $CAP_NET_ADMIN $CAP_DAC_OVERRIDE)
[ "$(status "$PID" CapEff)" = "$want_eff" ] || nt_fail "CapEff $(status "$PID" CapEff), want $want_eff"
[ "$(status "$PID" CapPrm)" = "$want_prm" ] || nt_fail "CapPrm $(status "$PID" CapPrm), want $want_prm"
[ "$(status "$PID" CapBnd)" = "$want_prm" ] || nt_fail "CapBnd $(status "$PID" CapBnd), want $want_prm"
[ "$(status "$PID" CapInh)" = "$(capmask)" ] || nt_fail "CapInh $(status "$PID" CapInh)"
[ "$(status "$PID" CapAmb)" = "$(capmask)" ] || nt_fail "CapAmb $(status "$PID" CapAmb)"
[ "$(status "$PID" NoNewPrivs)" = 1 ] || nt_fail "NoNewPrivs $(status "$PID" NoNewPrivs)"
grep -q "running as user '$PD_USER'.*kept: cap_net_admin;.*file access: cap_dac_override" \
	"$NT_TMP/$IF_A.$NT_RUN.log" || nt_fail "the log does not say what was kept"
nt_ok "uid/gid $PD_UID/$PD_GID, CapEff $want_eff, CapPrm = CapBnd $want_prm, no new privileges"

nt_log "-- the tunnel after the drop"
nt_keys "$IF_A"
nt_keys "$IF_B"
nt_wg "$IF_A" set "$IF_A" private-key "${NT_PRIV[$IF_A]}" listen-port "$NT_PORT" fwmark 0x77 ||
	nt_fail "wg set private-key, listen-port, fwmark after the drop"
nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" ||
	nt_fail "wg set $IF_B"
nt_peers_add
nt_addr "$IF_A" 198.51.100.1/24 fd00:2::1/64
nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64
nt_endpoint "$IF_A" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping through the tunnel after the drop"
nt_ping "$IF_A" fd00:2::2 || nt_fail "no IPv6 ping through the tunnel after the drop"
[ "$(nt_wg "$IF_A" show "$IF_A" fwmark)" = 0x77 ] || nt_fail "fwmark not kept"
nt_ok "key, port $NT_PORT and fwmark set, peer added, pings pass"

nt_log "-- listen-port change after the drop"
NEW_PORT=$((NT_PORT + 1))
nt_wg "$IF_A" set "$IF_A" listen-port "$NEW_PORT" || nt_fail "wg set listen-port $NEW_PORT refused"
[ "$(nt_wg "$IF_A" show "$IF_A" listen-port)" = "$NEW_PORT" ] || nt_fail "listen-port not $NEW_PORT"
nt_x "$NS_A" ss -uanH "sport = :$NEW_PORT" | grep -q . || nt_fail "nothing bound to port $NEW_PORT"
nt_x "$NS_A" ss -uanH "sport = :$NT_PORT" | grep -q . && nt_fail "port $NT_PORT is still bound"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping after the port change"
ep=$(nt_endpoint_of "$IF_B")
[ "$ep" = "192.0.2.1:$NEW_PORT" ] || nt_fail "b sees a at $ep, not from port $NEW_PORT"
nt_ok "rebound to $NEW_PORT (with the fwmark), pings pass, b sees the new port"
if nt_wg "$IF_A" set "$IF_A" listen-port 999 2>/dev/null; then
	nt_fail "listen-port 999 accepted without CAP_NET_BIND_SERVICE"
fi
[ "$(nt_wg "$IF_A" show "$IF_A" listen-port)" = "$NEW_PORT" ] || nt_fail "a refused port change moved the port"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping after the refused port change"
nt_ok "port 999 refused (no CAP_NET_BIND_SERVICE); still on $NEW_PORT"

nt_log "-- exit after the drop"
kill -TERM "$PID"
nt_wait_gone "$PID" 5 || nt_fail "still running 5 s after SIGTERM"
wait "$PID"
st=$?
[ "$st" = 0 ] || nt_fail "exit status $st after SIGTERM"
[ -e "/var/run/wireguard/$IF_A.sock" ] && nt_fail "the socket file is left behind"
ip -n "$NS_A" link show dev "$IF_A" >/dev/null 2>&1 && nt_fail "the link is left behind"
NT_DPID[$IF_A]=
nt_ok "exit status 0, socket file and link removed"

nt_log "-- no drop: --user root, or no user \"wgd\""
IF_C=$(nt_name wg c)
start_wgd "$NS_A" "$IF_C" --user root
[ "$(status "${NT_DPID[$IF_C]}" Uid)" = "0 0 0 0" ] || nt_fail "--user root changed the uid"
grep -q "user 'root' is root: no privilege drop" "$NT_TMP/$IF_C.$NT_RUN.log" ||
	nt_fail "--user root: the log does not say that nothing was dropped"
if ! id wgd >/dev/null 2>&1; then
	[ "$(status "${NT_DPID[$IF_B]}" Uid)" = "0 0 0 0" ] || nt_fail "no --user and no user wgd: uid changed"
	grep -q "no user 'wgd': keeping root privileges" "$NT_TMP/$IF_B.$NT_RUN.log" ||
		nt_fail "no --user: the log does not say why nothing was dropped"
fi
if ip netns exec "$NS_A" "$WGD" -f --user "nosuchuser$NT_U" "$(nt_name wg d)" >"$NT_TMP/nouser.log" 2>&1; then
	nt_fail "an unknown --user was accepted"
fi
grep -q "no user 'nosuchuser$NT_U'" "$NT_TMP/nouser.log" || nt_fail "unknown user: $(cat "$NT_TMP/nouser.log")"
nt_ok "root and the absent default user keep root, logged; an unknown user is an error"
echo "PASS"
