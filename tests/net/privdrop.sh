#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The privilege drop (daemon/base/privdrop.h) and the privileged monitor
# (daemon/base/privsep.h): wgd --user USER, once set up, runs as USER with
# CAP_NET_ADMIN alone, in every set and every thread, and the tunnel keeps
# working; what needs root is the monitor's.
# - /proc/PID/task/*/status: Uid and Gid are USER's (real, effective, saved,
#   fs); CapEff, CapPrm and CapBnd are exactly CAP_NET_ADMIN, nothing
#   inheritable or ambient, NoNewPrivs set; the monitor is the daemon's one
#   child, root, "wgd --monitor IFNAME";
# - after the drop: a private key, a listen port and a fwmark are set (the
#   rebinding marks the socket: CAP_NET_ADMIN), peers added, the tunnel
#   pings; a change of listen port to another port >= 1024 rebinds and the
#   tunnel pings from the new port; port 999 (below 1024) is bound by the
#   monitor and handed over: the tunnel pings from it, and the daemon still
#   has CAP_NET_ADMIN alone;
# - SIGTERM: exit status 0, the socket file and the link removed, the
#   monitor gone; a SIGKILLed daemon's monitor exits too;
# - --user root: no drop, said in the log; no --user without a user "wgd":
#   no drop, and a warning at the default log level (error); WGD_USER=USER
#   (for wg-quick, which passes no options) as --user USER;
# - WGD_RUN_DIR a directory only root may enter: a change in it does not
#   stop the daemon, the socket file's deletion does (seen through the
#   file's link count, as the daemon may not look into the directory); a
#   sticky directory all may write, alone or inside a root-only one: the
#   daemon has CAP_NET_ADMIN alone and the monitor removes the root-owned
#   socket file at exit;
# - wgd -c FILE --user USER, the file in a directory only root may enter,
#   ListenPort 853 and SaveConfig: CAP_NET_ADMIN alone; a SIGHUP reload after
#   the drop (the file read by the monitor) adds a peer and moves the port to
#   51822, the unchanged peer keeps its session, the tunnel pings from the
#   new port; a second reload moves it back to 853 (the monitor binds it);
#   at SIGTERM, SaveConfig writes the file with a peer added at run time,
#   root's; every thread, the resolver's of a host-name endpoint too, has
#   the user's ids, CAP_NET_ADMIN alone and no-new-privileges, although the
#   loop ran before the drop (PostUp sleeps; a thread made then would keep
#   root's bounding set: capset and prctl act on one thread);
# - a full-tunnel file with --user: the teardown at exit, after the drop,
#   leaves the namespace as it was (rules, routes, src_valid_mark).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

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

CAP_NET_ADMIN=12

# status PID FIELD: the field's value in /proc/PID/status, tabs as spaces.
status() { awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"; }
# capmask BIT...: /proc's notation of the capability set with those bits.
capmask() {
	local m=0 b
	for b in "$@"; do m=$((m | (1 << b))); done
	printf '%016x\n' "$m"
}

# caps_only_net_admin PID WHAT: every thread of PID has CAP_NET_ADMIN alone in
# its effective, permitted and bounding sets, nothing inheritable or ambient,
# no-new-privileges, and uid and gid USER's.
caps_only_net_admin() {
	local pid=$1 what=$2 t f want
	want=$(capmask $CAP_NET_ADMIN)
	for t in /proc/"$pid"/task/*; do
		t=$pid/task/${t##*/}
		for f in CapEff CapPrm CapBnd; do
			[ "$(status "$t" $f)" = "$want" ] || nt_fail "$what: thread ${t##*/} $f $(status "$t" $f), want $want"
		done
		[ "$(status "$t" CapInh)" = "$(capmask)" ] || nt_fail "$what: thread ${t##*/} CapInh $(status "$t" CapInh)"
		[ "$(status "$t" CapAmb)" = "$(capmask)" ] || nt_fail "$what: thread ${t##*/} CapAmb $(status "$t" CapAmb)"
		[ "$(status "$t" NoNewPrivs)" = 1 ] || nt_fail "$what: thread ${t##*/} NoNewPrivs $(status "$t" NoNewPrivs)"
		[ "$(status "$t" Uid)" = "$PD_UID $PD_UID $PD_UID $PD_UID" ] || nt_fail "$what: thread ${t##*/} Uid $(status "$t" Uid)"
		[ "$(status "$t" Gid)" = "$PD_GID $PD_GID $PD_GID $PD_GID" ] || nt_fail "$what: thread ${t##*/} Gid $(status "$t" Gid)"
	done
}
# monitor_of PID: the daemon's privileged monitor (its child "... --monitor IF").
monitor_of() {
	local c
	for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- ' --monitor ' && echo "$c"
	done
}

# start_wgd NS IF ARGS...: wgd -f ARGS IF in NS, as nt_daemon does.
start_wgd() {
	local ns=$1 ifc=$2 pid
	shift 2
	NT_NS[$ifc]=$ns
	NT_IMPL[$ifc]=$WGD
	NT_IFACES+=("$ifc")
	nt_fresh "$NT_TMP/$ifc.$NT_RUN.log"
	LOG_LEVEL=verbose ip netns exec "$ns" "$WGD" -f "$@" "$ifc" >>"$NT_TMP/$ifc.$NT_RUN.log" 2>&1 &
	pid=$!
	NT_DPID[$ifc]=$pid
	nt_until "$NT_TIMEOUT" nt_sock_ready "$ifc" ||
		nt_fail "wgd -f $* $ifc did not serve: $(tail -n 5 "$NT_TMP/$ifc.$NT_RUN.log")"
}

[ -n "${WGD:-}" ] && [ -x "$WGD" ] || nt_fail "WGD is not set to an executable wgd"
nt_topo
IF_A=$(nt_name wg a)
IF_B=$(nt_name wg b)
# two workers, so that "every thread" covers the data path's too
start_wgd "$NS_A" "$IF_A" --user "$PD_USER" --threads 3
nt_daemon "$NS_B" "$IF_B" wgd
PID=${NT_DPID[$IF_A]}
[ "$(cat /proc/"$PID"/task/*/comm | grep -c '^wgd-work/')" = 2 ] ||
	nt_fail "--threads 3: not two worker threads: $(cat /proc/"$PID"/task/*/comm | tr '\n' ' ')"

nt_log "-- /proc/$PID/status after the drop to $PD_USER ($PD_UID:$PD_GID)"
[ "$(status "$PID" Groups)" = "$PD_GID" ] || nt_fail "Groups: '$(status "$PID" Groups)', want $PD_GID"
caps_only_net_admin "$PID" "after the drop"
grep -q "running as user '$PD_USER'.* with cap_net_admin alone" "$NT_TMP/$IF_A.$NT_RUN.log" ||
	nt_fail "the log does not say what was kept"
MON=$(monitor_of "$PID")
[ -n "$MON" ] && [ "$(wc -w <<<"$MON")" = 1 ] || nt_fail "not one monitor process under $PID: '$MON'"
[ "$(status "$MON" Uid)" = "0 0 0 0" ] || nt_fail "the monitor runs as $(status "$MON" Uid), not root"
[ "$(tr '\0' ' ' <"/proc/$MON/cmdline")" = "$WGD --monitor $IF_A " ] ||
	nt_fail "the monitor's command line: $(tr '\0' ' ' <"/proc/$MON/cmdline")"
nt_ok "uid/gid $PD_UID/$PD_GID, CapEff = CapPrm = CapBnd = cap_net_admin in every thread (the two workers too), no new privileges; monitor $MON is root"
# The user lookup runs in a child (privdrop.c lookup_user): the name
# service's modules (libnss_systemd and what it pulls in: 1.2 MB) are never
# mapped into the daemon.  b's daemon runs without --user, so the default
# user "wgd" was looked up: absent from the files, every module is asked.
# Only meaningful where passwd has a module beyond glibc's built-in "files".
PID_B=${NT_DPID[$IF_B]}
if grep -Eq '^passwd:.*[[:space:]](systemd|sss|ldap|winbind|mymachines|extrausers)' /etc/nsswitch.conf &&
	! getent passwd wgd >/dev/null; then
	for p in "$PID" "$PID_B"; do
		! grep -q 'libnss_' "/proc/$p/maps" ||
			nt_fail "name-service modules mapped in daemon $p: $(grep -o 'libnss_[^ ]*' "/proc/$p/maps" | sort -u | tr '\n' ' ')"
	done
	nt_ok "no name-service module in the daemons, with and without --user ($(grep '^passwd:' /etc/nsswitch.conf | tr -s ' '))"
else
	nt_log "(passwd is looked up in files only here, or a user wgd exists: no name-service module to keep out)"
fi

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
nt_wg "$IF_A" set "$IF_A" listen-port 999 || nt_fail "listen-port 999 refused after the drop"
[ "$(nt_wg "$IF_A" show "$IF_A" listen-port)" = 999 ] || nt_fail "listen-port not 999"
nt_x "$NS_A" ss -uanpH "sport = :999" | grep -q "pid=$PID," || nt_fail "port 999 is not the daemon's: $(nt_x "$NS_A" ss -uanpH "sport = :999")"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping from port 999"
[ "$(nt_endpoint_of "$IF_B")" = "192.0.2.1:999" ] || nt_fail "b sees a at $(nt_endpoint_of "$IF_B"), not from port 999"
caps_only_net_admin "$PID" "on port 999"
nt_ok "port 999 bound by the monitor and handed over: pings from it, the daemon still has cap_net_admin alone"
nt_log "-- exit after the drop"
kill -TERM "$PID"
nt_wait_gone "$PID" 5 || nt_fail "still running 5 s after SIGTERM"
wait "$PID"
st=$?
[ "$st" = 0 ] || nt_fail "exit status $st after SIGTERM"
[ -e "/var/run/wireguard/$IF_A.sock" ] && nt_fail "the socket file is left behind"
ip -n "$NS_A" link show dev "$IF_A" >/dev/null 2>&1 && nt_fail "the link is left behind"
NT_DPID[$IF_A]=
nt_wait_gone "$MON" 3 || nt_fail "the monitor outlived the daemon"
nt_ok "exit status 0, socket file and link removed, the monitor gone"

nt_log "-- no drop: --user root, or no user \"wgd\""
IF_C=$(nt_name wg c)
start_wgd "$NS_A" "$IF_C" --user root
[ "$(status "${NT_DPID[$IF_C]}" Uid)" = "0 0 0 0" ] || nt_fail "--user root changed the uid"
grep -q "user 'root' is root: no privilege drop" "$NT_TMP/$IF_C.$NT_RUN.log" ||
	nt_fail "--user root: the log does not say that nothing was dropped"
nt_stop_daemon "$IF_C"
NT_DPID[$IF_C]=
WGD_USER=$PD_USER start_wgd "$NS_A" "$IF_C"
[ "$(status "${NT_DPID[$IF_C]}" Uid)" = "$PD_UID $PD_UID $PD_UID $PD_UID" ] ||
	nt_fail "WGD_USER=$PD_USER: Uid $(status "${NT_DPID[$IF_C]}" Uid)"
if ! id wgd >/dev/null 2>&1; then
	[ "$(status "${NT_DPID[$IF_B]}" Uid)" = "0 0 0 0" ] || nt_fail "no --user and no user wgd: uid changed"
	# At the default log level (error): a warning, not an info line.
	nt_stop_daemon "$IF_C"
	NT_DPID[$IF_C]=
	nt_fresh "$NT_TMP/$IF_C.default.log"
	env -u LOG_LEVEL ip netns exec "$NS_A" "$WGD" -f "$IF_C" >>"$NT_TMP/$IF_C.default.log" 2>&1 &
	NT_DPID[$IF_C]=$!
	nt_until "$NT_TIMEOUT" nt_sock_ready "$IF_C" || nt_fail "wgd -f $IF_C did not serve"
	grep -q "warning: no user 'wgd': running as root" "$NT_TMP/$IF_C.default.log" ||
		nt_fail "no --user, no user wgd: no warning at the default log level: $(cat "$NT_TMP/$IF_C.default.log")"
fi
if ip netns exec "$NS_A" "$WGD" -f --user "nosuchuser$NT_U" "$(nt_name wg d)" >"$NT_TMP/nouser.log" 2>&1; then
	nt_fail "an unknown --user was accepted"
fi
grep -q "no user 'nosuchuser$NT_U'" "$NT_TMP/nouser.log" || nt_fail "unknown user: $(cat "$NT_TMP/nouser.log")"
nt_ok "--user root keeps root, logged; no user wgd: root, and a warning at the default level; WGD_USER as --user; an unknown user is an error"
nt_stop_daemon "$IF_C"
NT_DPID[$IF_C]=

nt_log "-- run directories other than /var/run/wireguard (WGD_RUN_DIR)"
# sock_answers PATH: a get on the control socket at PATH is answered.
sock_answers() { nt_get "$1" 2>/dev/null | grep -qx 'errno=0'; }
# rundir_start DIR: wgd --user with WGD_RUN_DIR=DIR as IF_C; sets PID.
rundir_start() {
	nt_fresh "$NT_TMP/$IF_C.rd.log"
	WGD_RUN_DIR=$1 ip netns exec "$NS_A" "$WGD" -f --user "$PD_USER" "$IF_C" >>"$NT_TMP/$IF_C.rd.log" 2>&1 &
	PID=$!
	NT_DPID[$IF_C]=$PID
	nt_until "$NT_TIMEOUT" sock_answers "$1/$IF_C.sock" || nt_fail "WGD_RUN_DIR=$1: socket not answering"
}
# A directory only root may enter: the daemon cannot look into it, and sees
# its socket file's deletion by the file's link count (an O_PATH
# descriptor); the monitor removes the file at exit.
mkdir -m 0700 "$NT_TMP/run" || nt_fail "mkdir run"
rundir_start "$NT_TMP/run"
caps_only_net_admin "$PID" "root-only run directory"
touch "$NT_TMP/run/other" && rm "$NT_TMP/run/other"
sleep 0.5
nt_gone "$PID" && nt_fail "a change in the root-only run directory stopped the daemon"
rm "$NT_TMP/run/$IF_C.sock"
nt_wait_gone "$PID" 5 || nt_fail "the deletion of the socket file did not stop the daemon after the drop"
wait "$PID"
rundir_start "$NT_TMP/run"
kill -TERM "$PID"
nt_wait_gone "$PID" 5 || nt_fail "root-only run directory: still running after SIGTERM"
wait "$PID" || nt_fail "root-only run directory: exit status $?"
NT_DPID[$IF_C]=
[ -e "$NT_TMP/run/$IF_C.sock" ] && nt_fail "root-only run directory: the socket file is left behind"
nt_ok "root-only run directory: another file's change ignored, the socket's deletion seen; removed at exit"
# A sticky directory everyone may write: the root-owned socket file could be
# removed only with CAP_FOWNER, which the daemon has not; the monitor does it.
mkdir -m 1777 "$NT_TMP/sticky" && chmod 1777 "$NT_TMP/sticky" || nt_fail "mkdir sticky"
chmod 0711 "$NT_TMP"
rundir_start "$NT_TMP/sticky"
caps_only_net_admin "$PID" "sticky run directory"
kill -TERM "$PID"
nt_wait_gone "$PID" 5 || nt_fail "sticky run directory: still running after SIGTERM"
wait "$PID" || nt_fail "sticky run directory: exit status $?"
NT_DPID[$IF_C]=
[ -e "$NT_TMP/sticky/$IF_C.sock" ] && nt_fail "sticky run directory: the socket file is left behind"
chmod 0700 "$NT_TMP"
nt_ok "sticky run directory: cap_net_admin alone; the socket removed by the monitor"
# The same directory inside one only root may enter.
rundir_start "$NT_TMP/sticky"
caps_only_net_admin "$PID" "sticky run directory in a root-only one"
kill -TERM "$PID"
nt_wait_gone "$PID" 5 || nt_fail "sticky run directory: still running after SIGTERM"
wait "$PID" || nt_fail "sticky run directory: exit status $?"
NT_DPID[$IF_C]=
[ -e "$NT_TMP/sticky/$IF_C.sock" ] && nt_fail "sticky run directory in a root-only one: the socket file is left behind"
nt_ok "sticky run directory in a root-only one: cap_net_admin alone; socket removed"

nt_log "-- wgd -c FILE --user $PD_USER: reload and port changes after the drop"
CONF=$NT_TMP/cf/$IF_A.conf
mkdir -m 0700 "$NT_TMP/cf" || nt_fail "mkdir $NT_TMP/cf"
# conf PORT [PEER-LINES...]: A's file, with B as its peer and extra [Peer] sections.
conf() {
	local port=$1 extra
	shift
	{
		printf '[Interface]\nPrivateKey = %s\nListenPort = %s\nAddress = 198.51.100.1/24\n' \
			"$(cat "${NT_PRIV[$IF_A]}")" "$port"
		# The loop serves while PostUp runs, before the drop: no thread may start then.
		printf 'SaveConfig = true\nPostUp = sleep 0.3\n\n[Peer]\nPublicKey = %s\n' "${NT_PUB[$IF_B]}"
		printf 'AllowedIPs = 198.51.100.2/32, fd00:2::2/128\nEndpoint = 192.0.2.2:%s\n' "$NT_PORT"
		# A host-name endpoint: a resolver thread, which must have the drop too.
		printf '\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.6.6.6/32\nEndpoint = localhost:9\n' "$PEER_N"
		for extra in "$@"; do
			printf '\n[Peer]\nPublicKey = %s\nAllowedIPs = 10.7.7.7/32\n' "$extra"
		done
	} >"$CONF.new" && chmod 0600 "$CONF.new" && mv "$CONF.new" "$CONF" || nt_fail "writing $CONF"
}
PEER_N=$(wg genkey | wg pubkey)
port_is() { [ "$(nt_wg "$IF_A" show "$IF_A" listen-port)" = "$1" ]; }
has_peer() { nt_wg "$IF_A" show "$IF_A" peers | grep -qxF "$1"; }
conf 853
LOG_LEVEL=verbose ip netns exec "$NS_A" "$WGD" -f --user "$PD_USER" -c "$CONF" "$IF_A" \
	>"$NT_TMP/$IF_A.cf.log" 2>&1 &
PID=$!
NT_DPID[$IF_A]=$PID
NT_IFACES+=("$IF_A")
nt_until "$NT_TIMEOUT" nt_sock_ready "$IF_A" ||
	nt_fail "wgd -c --user did not serve: $(tail -n 5 "$NT_TMP/$IF_A.cf.log")"
threads() { [ "$(ls "/proc/$PID/task" | wc -l)" -ge 2 ]; }
nt_until "$NT_TIMEOUT" threads || nt_fail "-c: no resolver thread for the host-name endpoint"
caps_only_net_admin "$PID" "-c, ListenPort 853, SaveConfig"
nt_ok "-c: every thread (the resolver's too) runs as $PD_UID with cap_net_admin alone and no new privileges"
nt_wg "$IF_B" set "$IF_B" listen-port "$NT_PORT" || nt_fail "b's port"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "-c: no ping after the drop"
[ "$(nt_endpoint_of "$IF_B")" = "192.0.2.1:853" ] || nt_fail "-c: b sees a at $(nt_endpoint_of "$IF_B")"
nt_ok "-c, ListenPort 853 (bound before the drop): pings from port 853"

hs=$(nt_handshake_ns "$IF_A")
PEER_C=$(wg genkey | wg pubkey)
conf 51822 "$PEER_C"
kill -HUP "$PID"
nt_until "$NT_TIMEOUT" has_peer "$PEER_C" || nt_fail "reload after the drop did not add the peer: $(tail -n 3 "$NT_TMP/$IF_A.cf.log")"
nt_until "$NT_TIMEOUT" port_is 51822 || nt_fail "reload after the drop did not move the port to 51822"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping after the reload"
[ "$(nt_endpoint_of "$IF_B")" = "192.0.2.1:51822" ] || nt_fail "after the reload b sees a at $(nt_endpoint_of "$IF_B")"
[ "$(nt_handshake_ns "$IF_A")" = "$hs" ] || nt_fail "the reload renewed the unchanged peer's session"
nt_ok "SIGHUP after the drop: peer added, port 51822, same session, pings from 51822"
conf 853 "$PEER_C"
kill -HUP "$PID"
nt_until "$NT_TIMEOUT" port_is 853 || nt_fail "a reload after the drop could not move the port back to 853"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping after the reload back to 853"
caps_only_net_admin "$PID" "-c, back on port 853"
nt_ok "second SIGHUP: back on port 853 (bound by the monitor), cap_net_admin alone"

PEER_D=$(wg genkey | wg pubkey)
nt_wg "$IF_A" set "$IF_A" peer "$PEER_D" allowed-ips 10.8.8.8/32 || nt_fail "wg set peer D"
kill -TERM "$PID"
nt_wait_gone "$PID" 5 || nt_fail "-c: still running 5 s after SIGTERM"
wait "$PID"
st=$?
NT_DPID[$IF_A]=
[ "$st" = 0 ] || nt_fail "-c: exit status $st"
grep -qF "$PEER_D" "$CONF" || nt_fail "SaveConfig after the drop did not write the run-time peer: $(tail -n 3 "$NT_TMP/$IF_A.cf.log")"
# written by the monitor, root's: the user must not be able to edit root's hooks
[ "$(stat -c %u:%g:%a "$CONF")" = 0:0:600 ] || nt_fail "SaveConfig after the drop left $CONF as $(stat -c %U:%G:%a "$CONF")"
grep -q "^PostUp = sleep 0.3$" "$CONF" || nt_fail "SaveConfig lost the PostUp hook: $(cat "$CONF")"
[ -e "/var/run/wireguard/$IF_A.sock" ] && nt_fail "-c: the socket file is left behind"
nt_ok "SIGTERM: SaveConfig wrote the file in the root-only directory, still owned by root; socket removed"

nt_log "-- a full tunnel: the teardown after the drop removes the rules, routes and src_valid_mark"
NS_F=$(nt_name "" f)
IF_F=$(nt_name wg f)
nt_netns "$NS_F"
before=$(cf_snapshot "$NS_F")
printf '[Interface]\nPrivateKey = %s\nAddress = 10.5.5.1/24, fd00:5::1/64\n\n[Peer]\nPublicKey = %s\nAllowedIPs = 0.0.0.0/0, ::/0\nEndpoint = 192.0.2.99:51820\n' \
	"$(wg genkey)" "$(wg genkey | wg pubkey)" | cf_write "$NT_TMP/cf/$IF_F.conf"
cf_start "$NS_F" "$IF_F" "$NT_TMP/cf/$IF_F.conf" --user "$PD_USER"
[ "$(status "${NT_DPID[$IF_F]}" Uid)" = "$PD_UID $PD_UID $PD_UID $PD_UID" ] || nt_fail "full tunnel: no drop"
[ -n "$(ip -n "$NS_F" rule show | grep suppress_prefixlength)" ] || nt_fail "full tunnel: no suppress rule"
[ "$(ip netns exec "$NS_F" sysctl -n net.ipv4.conf.all.src_valid_mark)" = 1 ] || nt_fail "full tunnel: src_valid_mark not set"
cf_stop "$IF_F"
cf_same_snapshot "$before" "$(cf_snapshot "$NS_F")" "full tunnel torn down after the drop"
nt_ok "full tunnel after the drop: rules, routes, addresses and src_valid_mark back as before"
echo "PASS"
