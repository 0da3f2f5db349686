#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What still needs root after the privilege drop, done by the privileged
# monitor (daemon/base/privsep.h, daemon/monitor/monitor.h), with wgd -c
# FILE --user USER:
# - PreUp, PostUp, PreDown, PostDown and resolvconf (-a at start, -d at
#   exit) run as root, also those at exit, after the drop; the daemon keeps
#   CAP_NET_ADMIN alone meanwhile;
# - a reload that changes DNS does not stall traffic while resolvconf runs
#   (here a stand-in that takes 2 s): pings every 50 ms through the tunnel
#   during the reload, and the slowest answer is printed and must stay under
#   a second; the DNS entries are set (once, the newest);
# - SaveConfig after the file was deleted writes a new file owned by root,
#   mode 0600, with the run-time peer and the file's hooks; an existing file
#   keeps its owner and group (root:USER's group, 0640);
# - SaveConfig under the shipped unit (contrib/wgd@.service.in): its
#   CapabilityBoundingSet, NoNewPrivileges and UMask, read from the unit
#   and applied with setpriv (no systemd runs here; tests/systemd runs the
#   unit under a real one): the file (root:USER's group) is written, its
#   owner and group kept, and the daemon has CAP_NET_ADMIN alone;
# - the pid file is written by the monitor as a new file renamed into place:
#   a symbolic link there is replaced, not written through (its target is
#   untouched), a file another user made in a sticky directory is replaced
#   by root's; it holds the daemon's pid and goes at exit;
# - a daemon killed with SIGKILL takes its monitor with it.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init ps
nt_need ss setpriv

UNIT=$(dirname "$0")/../../contrib/wgd@.service.in
[ -r "$UNIT" ] || nt_fail "no $UNIT"

PS_USER=wgdt$NT_U
PS_MADE=0
ps_cleanup() {
	local rc=$?
	nt_teardown
	[ "$PS_MADE" = 1 ] && userdel "$PS_USER" 2>/dev/null
	(exit "$rc")
	nt_cleanup
}
trap ps_cleanup EXIT
if ! id "$PS_USER" >/dev/null 2>&1; then
	if command -v useradd >/dev/null 2>&1 &&
		useradd -r -M -s /usr/sbin/nologin "$PS_USER" 2>/dev/null; then
		PS_MADE=1
	else
		PS_USER=nobody
	fi
fi
PS_UID=$(id -u "$PS_USER")
PS_GID=$(id -g "$PS_USER")
NET_ADMIN_ONLY=0000000000001000

status() { awk -v f="$2:" '$1 == f { $1 = ""; sub(/^ /, ""); print }' "/proc/$1/status"; }
# net_admin_only PID: every thread has CAP_NET_ADMIN alone in CapEff, CapPrm, CapBnd.
net_admin_only() {
	local t f
	for t in /proc/"$1"/task/*; do
		for f in CapEff CapPrm CapBnd; do
			[ "$(status "$1/task/${t##*/}" $f)" = "$NET_ADMIN_ONLY" ] || return 1
		done
	done
}

nt_topo
IF_A=$(nt_name wg a)
IF_B=$(nt_name wg b)
nt_daemon "$NS_B" "$IF_B" wgd
nt_keys "$IF_A"
nt_keys "$IF_B"
nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" \
	peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32 || nt_fail "wg set $IF_B"
nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64

mkdir -m 0700 "$NT_TMP/etc" "$NT_TMP/bin" || nt_fail "mkdir"
CONF=$NT_TMP/etc/$IF_A.conf
LOG_HOOKS=$NT_TMP/hooks.log
# resolvconf stand-in: records its arguments and uid; -a takes $RESOLV_DELAY s.
cat >"$NT_TMP/bin/resolvconf" <<EOF || nt_fail "resolvconf stand-in"
#!/bin/sh
[ "\$1" = -a ] && sleep "\$(cat "$NT_TMP/delay" 2>/dev/null || echo 0)"
echo "resolvconf \$1 \$2 uid \$(id -u): \$(tr '\n' ' ')" >>"$LOG_HOOKS"
EOF
chmod 0755 "$NT_TMP/bin/resolvconf" "$NT_TMP/bin" || nt_fail "chmod"
CF_ENV=("PATH=$NT_TMP/bin:$PATH")

# conf DNS [EXTRA-INTERFACE-LINES]: a's file, b as its peer.
conf() {
	cf_write "$CONF.new" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
ListenPort = $NT_PORT
Address = 198.51.100.1/24
DNS = $1
SaveConfig = true
PreUp = echo "PreUp uid \$(id -u)" >>$LOG_HOOKS
PostUp = echo "PostUp uid \$(id -u)" >>$LOG_HOOKS
PreDown = echo "PreDown uid \$(id -u)" >>$LOG_HOOKS
PostDown = echo "PostDown uid \$(id -u)" >>$LOG_HOOKS
${2:-}

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
AllowedIPs = 198.51.100.2/32
Endpoint = 192.0.2.2:$NT_PORT
EOF
	mv "$CONF.new" "$CONF" || nt_fail "mv $CONF"
}

nt_log "-- hooks and resolvconf as root, also after the drop"
conf 10.0.0.53
: >"$LOG_HOOKS"
cf_start "$NS_A" "$IF_A" "$CONF" --user "$PS_USER"
PID=${NT_DPID[$IF_A]}
net_admin_only "$PID" || nt_fail "the daemon has more than cap_net_admin: $(grep Cap "/proc/$PID/status" | tr '\n\t' '  ')"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no ping through the tunnel"

nt_log "-- a reload that changes DNS, resolvconf taking 2 s: traffic goes on"
echo 2 >"$NT_TMP/delay"
conf 10.0.0.54
nt_x "$NS_A" ping -n -i 0.05 -c 60 -W 3 198.51.100.2 >"$NT_TMP/ping.txt" 2>&1 &
PING=$!
sleep 0.3
kill -HUP "$PID"
wait "$PING"
rtt_max=$(awk -F/ '/^rtt/ { print $6 }' "$NT_TMP/ping.txt")
got=$(awk '/packets transmitted/ { print $4 }' "$NT_TMP/ping.txt")
nt_log "during the reload: $got of 60 pings answered (50 ms apart), slowest answer ${rtt_max:-?} ms"
# A stall delays every answer meanwhile (none is lost: -W 3); the slowest
# answer says it.  A loaded machine may lose one or two, never the many.
[ "${got:-0}" -ge 50 ] || nt_fail "pings lost during the reload: $(tail -n 3 "$NT_TMP/ping.txt")"
awk -v m="$rtt_max" 'BEGIN { exit !(m != "" && m < 1000) }' ||
	nt_fail "the reload stalled traffic: slowest ping ${rtt_max} ms"
set_dns() { grep -q "resolvconf -a tun.$IF_A uid 0: nameserver 10.0.0.54" "$LOG_HOOKS"; }
nt_until "$NT_TIMEOUT" set_dns || nt_fail "the reload did not set DNS 10.0.0.54: $(cat "$LOG_HOOKS")"
nt_ok "reload with a 2 s resolvconf: $got/60 pings, slowest ${rtt_max} ms; DNS set by root"
echo 0 >"$NT_TMP/delay"

PEER_X=$(wg genkey | wg pubkey)
nt_wg "$IF_A" set "$IF_A" peer "$PEER_X" allowed-ips 10.7.7.7/32 || nt_fail "wg set peer X"
rm "$CONF" || nt_fail "rm $CONF"
cf_stop "$IF_A"
want="PreUp uid 0
resolvconf -a tun.$IF_A uid 0: nameserver 10.0.0.53
PostUp uid 0
resolvconf -a tun.$IF_A uid 0: nameserver 10.0.0.54
PreDown uid 0
resolvconf -d tun.$IF_A uid 0:
PostDown uid 0"
[ "$(sed 's/ *$//' "$LOG_HOOKS")" = "$want" ] || nt_fail "hooks and resolvconf: $(cat "$LOG_HOOKS")"
nt_ok "PreUp, PostUp, PreDown, PostDown and resolvconf -a/-d ran as root, in order, after the drop too"
[ -e "$CONF" ] || nt_fail "SaveConfig did not write the deleted file: $(tail -n 5 "$NT_TMP/$IF_A.$NT_RUN.log")"
[ "$(stat -c %u:%g:%a "$CONF")" = 0:0:600 ] || nt_fail "SaveConfig after a deletion: $(stat -c %U:%G:%a "$CONF"), not root:root 600"
grep -qF "$PEER_X" "$CONF" || nt_fail "SaveConfig lost the run-time peer"
grep -q '^PreDown = echo "PreDown uid $(id -u)"' "$CONF" && grep -q '^DNS = 10.0.0.54$' "$CONF" ||
	nt_fail "SaveConfig lost the wg-quick keys: $(cat "$CONF")"
nt_ok "SaveConfig after the file was deleted: a new file, root:root 0600, with the peer and the hooks"

nt_log "-- SaveConfig keeps an existing file's owner and group"
conf 10.0.0.53
chgrp "$PS_GID" "$CONF" && chmod 0640 "$CONF" || nt_fail "chgrp"
cf_start "$NS_A" "$IF_A" "$CONF" --user "$PS_USER"
nt_wg "$IF_A" set "$IF_A" peer "$PEER_X" allowed-ips 10.7.7.7/32 || nt_fail "wg set peer X"
cf_stop "$IF_A"
[ "$(stat -c %u:%g:%a "$CONF")" = "0:$PS_GID:600" ] || nt_fail "SaveConfig: $(stat -c %u:%g:%a "$CONF"), not 0:$PS_GID:600"
grep -qF "$PEER_X" "$CONF" || nt_fail "SaveConfig lost the run-time peer"
nt_ok "SaveConfig: root:$PS_GID kept (mode 0600, as wg-quick writes it)"

nt_log "-- SaveConfig under the shipped unit's sandbox (emulated with setpriv)"
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT")
[ -n "$caps" ] || nt_fail "no CapabilityBoundingSet in $UNIT"
grep -qx 'NoNewPrivileges=yes' "$UNIT" || nt_fail "the unit has no NoNewPrivileges=yes"
umask_unit=$(sed -n 's/^UMask=//p' "$UNIT")
bset=-all
for c in $caps; do
	c=${c#CAP_}
	bset="$bset,+${c,,}"
done
nt_log "unit: bounding set $caps, NoNewPrivileges, UMask ${umask_unit:-none}"
conf 10.0.0.53
chgrp "$PS_GID" "$CONF" && chmod 0640 "$CONF" || nt_fail "chgrp"
: >"$LOG_HOOKS"
nt_fresh "$NT_TMP/$IF_A.unit.log"
(umask "${umask_unit:-0022}" &&
	LOG_LEVEL=verbose exec ip netns exec "$NS_A" env "${CF_ENV[@]}" \
		setpriv --bounding-set "$bset" --inh-caps -all --no-new-privs \
		"$WGD" -f -c "$CONF" --user "$PS_USER" "$IF_A") >>"$NT_TMP/$IF_A.unit.log" 2>&1 &
PID=$!
NT_DPID[$IF_A]=$PID
nt_until "$NT_TIMEOUT" grep -q "INFO: serving $IF_A " "$NT_TMP/$IF_A.unit.log" ||
	nt_fail "under the unit's sandbox: not serving: $(tail -n 5 "$NT_TMP/$IF_A.unit.log")"
net_admin_only "$PID" || nt_fail "under the unit: the daemon has $(grep Cap "/proc/$PID/status" | tr '\n\t' '  ')"
nt_wg "$IF_A" set "$IF_A" peer "$PEER_X" allowed-ips 10.7.7.7/32 || nt_fail "wg set peer X"
cf_stop "$IF_A"
grep -qF "$PEER_X" "$CONF" || nt_fail "SaveConfig under the unit did not write the peer: $(grep SaveConfig "$NT_TMP/$IF_A.unit.log")"
[ "$(stat -c %u:%g:%a "$CONF")" = "0:$PS_GID:600" ] || nt_fail "SaveConfig under the unit: $(stat -c %u:%g:%a "$CONF"), not 0:$PS_GID:600"
grep -q "PostDown uid 0" "$LOG_HOOKS" || nt_fail "under the unit: PostDown did not run as root: $(cat "$LOG_HOOKS")"
nt_ok "under the unit's bounding set and no-new-privileges: SaveConfig wrote the file (root:$PS_GID kept); hooks as root"

nt_log "-- the pid file: written anew by root, never through a link; removed at exit"
# pid_start ARGS...: wgd -f --user USER IF_A with ARGS; sets PID.
pid_start() {
	nt_fresh "$NT_TMP/$IF_A.pid.log"
	LOG_LEVEL=verbose ip netns exec "$NS_A" "$WGD" -f --user "$PS_USER" "$@" "$IF_A" >>"$NT_TMP/$IF_A.pid.log" 2>&1 &
	PID=$!
	NT_DPID[$IF_A]=$PID
	nt_until "$NT_TIMEOUT" nt_sock_ready "$IF_A" || nt_fail "wgd $*: not serving: $(cat "$NT_TMP/$IF_A.pid.log")"
}
echo "precious" >"$NT_TMP/victim"
ln -s "$NT_TMP/victim" "$NT_TMP/etc/wgd.pid" || nt_fail "ln"
pid_start --pid-file "$NT_TMP/etc/wgd.pid"
[ "$(cat "$NT_TMP/victim")" = precious ] || nt_fail "the pid file was written through a symbolic link"
[ ! -L "$NT_TMP/etc/wgd.pid" ] && [ "$(cat "$NT_TMP/etc/wgd.pid")" = "$PID" ] ||
	nt_fail "the pid file: $(ls -l "$NT_TMP/etc/wgd.pid"), holding '$(cat "$NT_TMP/etc/wgd.pid")', not $PID"
cf_stop "$IF_A"
[ ! -e "$NT_TMP/etc/wgd.pid" ] || nt_fail "the pid file is left behind"
nt_ok "a symbolic link in the pid file's place replaced, its target untouched; removed at exit"
mkdir -m 1777 "$NT_TMP/shared" && chmod 1777 "$NT_TMP/shared" && chmod 0711 "$NT_TMP" || nt_fail "mkdir shared"
setpriv --reuid="$PS_UID" --regid="$PS_GID" --clear-groups sh -c \
	"echo 1 >'$NT_TMP/shared/wgd.pid' && chmod 0666 '$NT_TMP/shared/wgd.pid'" || nt_fail "a user's file"
pid_start --pid-file "$NT_TMP/shared/wgd.pid"
[ "$(stat -c %u:%a "$NT_TMP/shared/wgd.pid")" = 0:644 ] && [ "$(cat "$NT_TMP/shared/wgd.pid")" = "$PID" ] ||
	nt_fail "a user's pid file in a sticky directory: $(stat -c %U:%a "$NT_TMP/shared/wgd.pid"), '$(cat "$NT_TMP/shared/wgd.pid")'"
cf_stop "$IF_A"
chmod 0700 "$NT_TMP"
[ ! -e "$NT_TMP/shared/wgd.pid" ] || nt_fail "the pid file is left behind"
nt_ok "another user's file in a sticky directory replaced by root's 0644 pid file; removed at exit"

nt_log "-- a daemon killed with SIGKILL: its monitor goes too"
pid_start
MON=$(cat "/proc/$PID/task/$PID/children")
[ -n "$MON" ] || nt_fail "no monitor"
kill -KILL "$PID"
wait "$PID" 2>/dev/null
NT_DPID[$IF_A]=
nt_wait_gone "$MON" 3 || nt_fail "the monitor $MON outlived its SIGKILLed daemon"
rm -f "/var/run/wireguard/$IF_A.sock"	# a SIGKILLed daemon's, stale
nt_ok "the monitor exits with its daemon"
echo "PASS"
