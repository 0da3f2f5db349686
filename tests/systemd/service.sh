#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The units as a user runs them: the Debian package built from this tree,
# installed with dpkg -i in a Debian container whose PID 1 is a real
# systemd (tests/systemd/lib.sh), and the README's server quick start
# followed there, command for command.  The peer is wgd (this build) in
# another namespace, configured with wg.  The container's peer has
# AllowedIPs 0.0.0.0/0 and ::/0 (a full tunnel), so that the daemon adds
# addresses, a routing table and rules, and sets src_valid_mark.
#
# wgd@wg0.service:
# - enable --now: active within 2 s of the start, and only once the tunnel
#   is configured (Type=notify: at the moment systemctl returns, the
#   addresses, the rules and the peer are there); the daemon runs as the
#   user wgd; the tunnel pings both ways, wgctl show shows the handshake;
# - Type=notify, with a PreUp hook that takes a second: the unit is
#   "activating" until the tunnel is configured, never "active" before
#   (and a self-check: with Type=simple the same check fails);
# - systemctl reload after an edit of the peer: succeeds, wgctl show has
#   the change, and no new handshake happens (the peer's time of the last
#   handshake, to the nanosecond, is the same);
# - journalctl -u: the daemon's messages at their priorities (info for
#   "serving", err for a reload of a broken file);
# - systemctl stop: the namespace's links, addresses, routes, rules,
#   nftables and src_valid_mark are as they were before the start;
# - SIGKILL to the daemon: Restart= starts it again within RestartSec + 1 s
#   and the tunnel pings again; after a stop, nothing is left but what the
#   killed daemon could not remove (crash_leftovers).
# wgd-quick@wg0.service, on the same file: up (pings, wg and wgctl show the
# peer), reload (wg syncconf) applies an edit, stop leaves the namespace as
# it was (but src_valid_mark, which wg-quick leaves set).
# Threads as wgd(8) says to ask for them: a drop-in with
# Environment=WGD_THREADS=2 gives wgd@ (check_caps) and wgd-quick@
# (check_quick, through wg-quick) a worker thread.
#
# The checks of issue 21 ("Hardening"; WGD_SD_HARDENED=0 skips them): the
# network-facing daemon's capabilities, SaveConfig's root-owned file under
# the unit (see check_hardened).

. "$(dirname "$0")/lib.sh"

sd_init sv
nt_need nft sysctl
nt_topo				# NS_A: the container's; NS_B: the peer's
sd_image
sd_deb

IF_A=wg0
IF_B=$(nt_name wg b)
U=wgd@wg0.service
Q=wgd-quick@wg0.service
CONF=/etc/wireguard/wg0.conf

# netstate: what a daemon may add to the container's namespace.
netstate() {
	ip -n "$NS_A" -o link show | awk '{ print $2 }'
	ip -n "$NS_A" -o addr show | awk '{ print $2, $3, $4 }'
	ip -n "$NS_A" -4 route show table all
	ip -n "$NS_A" -6 route show table all
	ip -n "$NS_A" -4 rule show
	ip -n "$NS_A" -6 rule show
	ip netns exec "$NS_A" nft list ruleset
	printf 'src_valid_mark %s\n' "$(ip netns exec "$NS_A" sysctl -n net.ipv4.conf.all.src_valid_mark)"
}

# same_netstate WHAT [IGNORE-REGEX]: the namespace is as before the start.
same_netstate() {
	local ign=${2:-^\$}
	netstate | grep -Ev "$ign" >"$NT_TMP/after"
	grep -Ev "$ign" "$NT_TMP/before" | diff -u - "$NT_TMP/after" >&2 ||
		nt_fail "$1 left the namespace changed (diff above: - before the start, + after)"
}

# peer: the peer's daemon in NS_B, its key and addresses; the container's
# endpoint is set once its key is known.
peer() {
	nt_daemon "$NS_B" "$IF_B" wgd
	nt_keys "$IF_B"
	nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" ||
		nt_fail "wg set $IF_B"
	nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64
}

# conf [EXTRA-PEER-LINES]: the README's wg0.conf, as a full tunnel.
conf() {
	cat <<EOF
[Interface]
PrivateKey = $(sd_in cat /etc/wireguard/server.key)
Address = 198.51.100.1/24, fd00:2::1/64
ListenPort = $NT_PORT

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
AllowedIPs = 0.0.0.0/0, ::/0
Endpoint = 192.0.2.2:$NT_PORT
${1:-}
EOF
}

# quick_start: the README's commands (the package did meson install's and
# systemd-sysusers' part): the key, the file, enable --now.
quick_start() {
	sd_in getent passwd wgd >/dev/null || nt_fail "the package did not create the user wgd"
	sd_in sh -c 'umask 077; wgctl genkey > /etc/wireguard/server.key' || nt_fail "wgctl genkey"
	NT_PUB[$IF_A]=$(sd_in sh -c 'wgctl pubkey < /etc/wireguard/server.key') ||
		nt_fail "wgctl pubkey"
	conf | sd_put "$CONF" 600
	nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,fd00:2::1/128 \
		endpoint "192.0.2.1:$NT_PORT" || nt_fail "wg set $IF_B peer"
	netstate >"$NT_TMP/before"
	sd_in systemctl enable --now wgd@wg0 >"$NT_TMP/enable.log" 2>&1 || {
		cat "$NT_TMP/enable.log" >&2
		sd_in journalctl -u "$U" --no-pager >&2
		nt_fail "systemctl enable --now wgd@wg0 failed"
	}
	configured "$IF_A" || nt_fail "systemctl enable --now returned before wg0 was configured"
	nt_ok "systemctl enable --now wgd@wg0 returned with wg0 configured (addresses, rules, peer)"
}

# configured IF: the file is applied: the address, the rules, the peer.
configured() {
	ip -n "$NS_A" -o addr show dev "$1" 2>/dev/null | grep -q ' 198\.51\.100\.1/24 ' &&
		ip -n "$NS_A" -4 rule show | grep -q 'suppress_prefixlength 0' &&
		sd_in wgctl show "$1" peers | grep -qxF "${NT_PUB[$IF_B]}"
}

# check_running: active, the start's time, the user, the tunnel.
check_running() {
	local t0 t1 pid uid
	[ "$(sd_in systemctl is-active "$U")" = active ] || nt_fail "$U is not active"
	[ "$(sd_in systemctl is-enabled "$U")" = enabled ] || nt_fail "$U is not enabled"
	t0=$(sd_show "$U" InactiveExitTimestampMonotonic)
	t1=$(sd_show "$U" ActiveEnterTimestampMonotonic)
	START_MS=$(((t1 - t0) / 1000))
	[ "$START_MS" -le 2000 ] || nt_fail "$U took $START_MS ms from its start to active (bar: 2000)"
	nt_ok "$U: from the start to active in $START_MS ms (bar: 2000)"
	pid=$(sd_show "$U" MainPID)
	uid=$(sd_in awk '$1 == "Uid:" { print $2 "," $3 "," $4 "," $5 }' "/proc/$pid/status")
	[ "$uid" = "$(sd_in id -u wgd | sed 's/.*/&,&,&,&/')" ] ||
		nt_fail "the daemon runs as the uids $uid (real, effective, saved, fs), not as the user wgd"
	nt_ok "the daemon (pid $pid in the container) runs as the user wgd"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "no ping from the peer through the tunnel (IPv4)"
	nt_ping "$IF_B" fd00:2::1 || nt_fail "no ping from the peer through the tunnel (IPv6)"
	nt_x "$NS_A" ping -q -c 1 -W 3 198.51.100.2 >/dev/null || nt_fail "no ping from the container"
	sd_in wgctl show wg0 >"$NT_TMP/show" || nt_fail "wgctl show wg0"
	grep -q 'latest handshake: ' "$NT_TMP/show" || { cat "$NT_TMP/show" >&2; nt_fail "wgctl show: no handshake"; }
	nt_ok "the tunnel pings both ways; wgctl show wg0 in the container shows the handshake"
}

# check_reload: an edited peer applied by systemctl reload, no handshake.
check_reload() {
	local hs0 hs1
	hs0=$(nt_handshake_ns "$IF_B")
	conf "PersistentKeepalive = 25" | sd_put "$CONF" 600
	sd_in systemctl reload wgd@wg0 >"$NT_TMP/reload.log" 2>&1 || {
		cat "$NT_TMP/reload.log" >&2
		sd_in journalctl -u "$U" --no-pager -n 20 >&2
		nt_fail "systemctl reload wgd@wg0 failed"
	}
	nt_until 5 shows wg0 'persistent keepalive: every 25 seconds' ||
		nt_fail "systemctl reload: wgctl show wg0 does not show the edited peer (PersistentKeepalive)"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "no ping through the tunnel after the reload"
	hs1=$(nt_handshake_ns "$IF_B")
	[ "$hs0" = "$hs1" ] || nt_fail "a new handshake after the reload ($hs0 -> $hs1): the session was dropped"
	[ "$(sd_in systemctl is-active "$U")" = active ] || nt_fail "$U is not active after the reload"
	nt_ok "systemctl reload wgd@wg0 applied the edited peer, same session (handshake at $hs1)"
}

# shows IF TEXT: wgctl show IF in the container has a line with TEXT.
shows() {
	sd_in wgctl show "$1" | grep -qF "$2"
}

# journal PRIORITY: the daemon's own lines in the unit's journal at exactly
# that priority (3 err, 6 info).
journal() {
	sd_in journalctl -u "$U" SYSLOG_IDENTIFIER=wgd -p "$1..$1" -o cat --no-pager
}

# journal_has PRIORITY TEXT
journal_has() {
	journal "$1" | grep -qF "$2"
}

# check_journal: info and err lines where they belong; a broken file's
# reload is an error and changes nothing.
check_journal() {
	printf '[Interface]\nNoSuchKey = 1\n' | sd_put "$CONF" 600
	sd_in systemctl reload wgd@wg0 || nt_fail "systemctl reload (broken file) failed"
	nt_until 5 journal_has 3 'nothing changed' || {
		sd_in journalctl -u "$U" -o short-monotonic --output-fields=PRIORITY,MESSAGE --no-pager >&2
		nt_fail "journalctl -u $U -p err: no error for the reload of a broken file"
	}
	conf "PersistentKeepalive = 25" | sd_put "$CONF" 600
	sd_in systemctl reload wgd@wg0 || nt_fail "systemctl reload failed"
	journal 6 | grep -q '^serving wg0 ' || nt_fail "journalctl -u $U -p info: no 'serving wg0'"
	journal 3 | grep -q 'serving' && nt_fail "journalctl -u $U -p err has an info message"
	nt_ok "journalctl -u $U: 'serving wg0' at info, the broken file's reload at err"
}

# check_stop: stop undoes exactly what the start did.
check_stop() {
	sd_in systemctl stop wgd@wg0 || nt_fail "systemctl stop wgd@wg0 failed"
	[ "$(sd_in systemctl is-active "$U")" = inactive ] || nt_fail "$U is not inactive after stop"
	sd_in test -e /run/wireguard/wg0.sock && nt_fail "the control socket is left after stop"
	same_netstate "systemctl stop wgd@wg0"
	nt_ok "systemctl stop wgd@wg0: links, addresses, routes, rules, nftables, src_valid_mark as before"
}

# usec SPAN: systemd's time span ("100ms", "1s", "1min 30s") in microseconds.
usec() {
	awk '{ t = 0; for (i = 1; i <= NF; i++) { v = $i + 0; u = $i; sub(/^[0-9.]+/, "", u);
		t += v * (u == "us" ? 1 : u == "ms" ? 1e3 : u == "s" ? 1e6 : u == "min" ? 6e7 : 3.6e9) }
		printf "%d\n", t }' <<<"$1"
}

# check_crash: SIGKILL, restarted by Restart= in time, tunnel back; stop.
check_crash() {
	local pid npid rs t_exit t_act ms bar i
	sd_in systemctl start wgd@wg0 || nt_fail "systemctl start wgd@wg0 failed"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "no ping before the crash"
	pid=$(sd_show "$U" MainPID)
	rs=$(sd_show "$U" RestartUSec)
	sd_in kill -KILL "$pid" || nt_fail "kill -KILL $pid"
	for ((i = 0; i < 100; i++)); do
		npid=$(sd_show "$U" MainPID)
		[ "$npid" != 0 ] && [ "$npid" != "$pid" ] && [ "$(sd_in systemctl is-active "$U")" = active ] && break
		sleep 0.05
	done
	[ "$(sd_in systemctl is-active "$U")" = active ] || nt_fail "$U was not restarted after SIGKILL"
	# left "active" at the crash; entered it again after the restart
	t_exit=$(sd_show "$U" ActiveExitTimestampMonotonic)
	t_act=$(sd_show "$U" ActiveEnterTimestampMonotonic)
	ms=$(((t_act - t_exit) / 1000))
	bar=$(($(usec "$rs") / 1000 + 1000))
	[ "$ms" -le "$bar" ] || nt_fail "back $ms ms after SIGKILL (bar: RestartSec $rs + 1 s)"
	[ "$(sd_show "$U" NRestarts)" -ge 1 ] || nt_fail "NRestarts is not counted"
	nt_x "$NS_A" ping -q -c 1 -W 3 198.51.100.2 >/dev/null || nt_fail "no ping after the restart"
	nt_ok "SIGKILL: Restart= had $U active again in $ms ms (bar: RestartSec $rs + 1 s), tunnel back"
	sd_in systemctl stop wgd@wg0 || nt_fail "systemctl stop after the restart failed"
	crash_leftovers
}

# crash_leftovers: after the crash, the restart and the stop, the
# namespace is as before but for what the killed daemon could not undo:
# its full tunnel's two rules per family (the restarted daemon added and
# removed its own) and src_valid_mark, which the restarted daemon found
# set.  Links, addresses and routes went with the killed daemon's TUN
# device.  The leftovers are then removed, as an administrator would.
crash_leftovers() {
	local left
	same_netstate "the crash, the restart and the stop" '^[0-9]+:|^src_valid_mark '
	left=$(netstate | grep -E '^[0-9]+:|^src_valid_mark ' | grep -vxFf "$NT_TMP/before")
	[ "$(grep -c 'suppress_prefixlength 0' <<<"$left")" = 2 ] &&
		[ "$(grep -c 'not from all fwmark 0xca6c lookup 51820' <<<"$left")" = 2 ] &&
		[ "$(wc -l <<<"$left")" = 5 ] || { printf '%s\n' "$left" >&2; nt_fail "after a crash: unexpected leftovers"; }
	nt_log "known: a SIGKILLed daemon leaves its rules and src_valid_mark (not its links, addresses, routes):" \
		"$(tr '\n\t' '; ' <<<"$left")"
	for f in -4 -6; do
		ip -n "$NS_A" "$f" rule del table 51820 && ip -n "$NS_A" "$f" rule del table main suppress_prefixlength 0 ||
			nt_fail "cannot remove the leftover rules"
	done
	ip netns exec "$NS_A" sysctl -q net.ipv4.conf.all.src_valid_mark=0
	same_netstate "the crash, the restart, the stop and the removal of the leftovers"
	nt_ok "after the crash, the restart and the stop, the namespace is as before but for the killed daemon's rules"
}

# notify_watch: start wgd@wg1 (--no-block) and poll it: it must be seen
# "activating", and be "active" only with wg1's address in place.  NOTIFY_WHY
# says what went wrong.
notify_watch() {
	local st seen=0 i
	sd_in systemctl start --no-block wgd@wg1 || { NOTIFY_WHY="systemctl start failed"; return 1; }
	for ((i = 0; i < 200; i++)); do
		st=$(sd_in systemctl is-active wgd@wg1)
		case $st in
		activating) seen=1 ;;
		active)
			ip -n "$NS_A" -o addr show dev wg1 2>/dev/null | grep -q ' 198\.51\.100\.101/32 ' ||
				{ NOTIFY_WHY="active while wg1 had no address yet"; return 1; }
			[ "$seen" = 1 ] || { NOTIFY_WHY="never seen activating (PreUp takes 1 s)"; return 1; }
			return 0
			;;
		failed | inactive) NOTIFY_WHY="the unit is $st"; return 1 ;;
		esac
		sleep 0.05
	done
	NOTIFY_WHY="not active within 10 s"
	return 1
}

# check_notify: Type=notify holds the unit in "activating" for a PreUp
# that takes a second; the same watch fails with Type=simple.
check_notify() {
	local dropin=/run/systemd/system/wgd@wg1.service.d
	sd_in sh -c 'umask 077; wgctl genkey > /etc/wireguard/wg1.key' || nt_fail "wgctl genkey"
	printf '[Interface]\nPrivateKey = %s\nListenPort = %s\nAddress = 198.51.100.101/32\nPreUp = sleep 1\n' \
		"$(sd_in cat /etc/wireguard/wg1.key)" $((NT_PORT + 1)) | sd_put /etc/wireguard/wg1.conf 600
	notify_watch || nt_fail "Type=notify: $NOTIFY_WHY"
	sd_in systemctl stop wgd@wg1 || nt_fail "systemctl stop wgd@wg1"
	sd_in mkdir -p "$dropin" && printf '[Service]\nType=simple\n' | sd_put "$dropin/simple.conf" 644 &&
		sd_in systemctl daemon-reload || nt_fail "cannot add a drop-in"
	notify_watch && nt_fail "self-check: the watch passes wgd@wg1 with Type=simple"
	nt_log "ok: self-check: with Type=simple the watch fails: $NOTIFY_WHY"
	sd_in systemctl stop wgd@wg1
	sd_in rm -r "$dropin" && sd_in systemctl daemon-reload || nt_fail "cannot remove the drop-in"
	same_netstate "wgd@wg1"
	nt_ok "Type=notify: wgd@wg1 was 'activating' through its 1 s PreUp, 'active' only once configured"
}

# ---- what issue 21 ("Hardening") changes ----
# These checks fail on a tree without issue 21 (the daemon kept
# CAP_DAC_OVERRIDE permitted, and SaveConfig could not give the file back
# to root inside the unit's bounding set); they run by default since it
# landed (privilege separation), WGD_SD_HARDENED=0 skips them.
SD_HARDENED=${WGD_SD_HARDENED:-1}

check_hardened() {
	if [ "$SD_HARDENED" != 1 ]; then
		nt_log "not checked (WGD_SD_HARDENED=0): the network-facing" \
			"daemon's capabilities; SaveConfig's root-owned file under the unit"
		return 0
	fi
	check_caps
	check_saveconfig
}

# threads_dropin UNIT [N]: a drop-in with Environment=WGD_THREADS=N, as
# wgd(8) (SYSTEMD) says; without N the drop-in goes.
threads_dropin() {
	local d=/run/systemd/system/$1.service.d
	if [ -n "${2:-}" ]; then
		sd_in mkdir -p "$d" && printf '[Service]\nEnvironment=WGD_THREADS=%s\n' "$2" | sd_put "$d/threads.conf" 644
	else
		sd_in rm -f "$d/threads.conf"
	fi && sd_in systemctl daemon-reload || nt_fail "the drop-in of $1 (WGD_THREADS)"
}

# workers PID: the number of wgd's worker threads (named wgd-work/N).
workers() {
	sd_in sh -c "cat /proc/$1/task/*/comm" | grep -c '^wgd-work/'
}

# check_caps: the process that holds the UDP socket runs as wgd with only
# CAP_NET_ADMIN (bit 12): permitted, effective and bounding exactly that,
# inheritable and ambient empty, in every thread (read from the
# container's /proc), with a worker thread (WGD_THREADS=2 in a drop-in).
check_caps() {
	local pid t want caps
	threads_dropin wgd@wg0 2
	sd_in systemctl start wgd@wg0 || nt_fail "systemctl start wgd@wg0"
	pid=$(sd_in ss -Hulnp "sport = :$NT_PORT" | sed -n 's/.*pid=\([0-9]*\),.*/\1/p' | sort -u)
	[ -n "$pid" ] && [ "$(wc -w <<<"$pid")" = 1 ] || nt_fail "no one process holds UDP port $NT_PORT: '$pid'"
	[ "$(workers "$pid")" = 1 ] || nt_fail "wgd@wg0 with WGD_THREADS=2 in a drop-in: $(workers "$pid") worker threads, not 1"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "wgd@wg0 on 2 threads: no ping from the peer"
	want="CapInh:0000000000000000 CapPrm:0000000000001000 CapEff:0000000000001000"
	want="$want CapBnd:0000000000001000 CapAmb:0000000000000000"
	for t in $(sd_in ls "/proc/$pid/task"); do
		caps=$(sd_in grep '^Cap' "/proc/$pid/task/$t/status" | tr -d '\t' | tr '\n' ' ')
		caps=${caps% }
		[ "$caps" = "$want" ] || nt_fail "thread $t of the daemon (pid $pid): $caps; want $want"
	done
	sd_in grep -q "^Uid:[[:space:]]*$(sd_in id -u wgd)[[:space:]]" "/proc/$pid/status" ||
		nt_fail "the network-facing daemon (pid $pid) does not run as wgd"
	nt_ok "the network-facing daemon (pid $pid) runs as wgd with only CAP_NET_ADMIN in every set and thread, its worker's too (WGD_THREADS=2 in a drop-in)"
	sd_in systemctl stop wgd@wg0 || nt_fail "systemctl stop wgd@wg0"
	threads_dropin wgd@wg0
}

# check_saveconfig: SaveConfig = true; a peer added at run time is in the
# file after stop, and the file is root's, mode 0600.
check_saveconfig() {
	local key
	key=$(sd_in sh -c 'wgctl genkey | wgctl pubkey') || nt_fail "wgctl genkey"
	conf | sed 's/^\[Interface\]$/[Interface]\nSaveConfig = true/' | sd_put "$CONF" 600
	sd_in systemctl start wgd@wg0 || nt_fail "systemctl start wgd@wg0 (SaveConfig)"
	sd_in wgctl set wg0 peer "$key" allowed-ips 203.0.113.7/32 || nt_fail "wgctl set wg0 peer"
	sd_in systemctl stop wgd@wg0 || nt_fail "systemctl stop wgd@wg0 (SaveConfig)"
	sd_in grep -q "^PublicKey = $key\$" "$CONF" ||
		{ sd_in journalctl -u "$U" -n 20 --no-pager >&2; nt_fail "SaveConfig: the added peer is not in $CONF"; }
	[ "$(sd_in stat -c '%u:%g %a' "$CONF")" = "0:0 600" ] ||
		nt_fail "SaveConfig: $CONF is $(sd_in stat -c '%U:%G %a' "$CONF"), not root:root 600"
	nt_ok "SaveConfig wrote the added peer to $CONF under the unit, root:root 0600"
	conf | sd_put "$CONF" 600
}

# check_quick: wgd-quick@.service (wg-quick with wgd) on the same file.
check_quick() {
	conf | sd_put "$CONF" 600
	sd_in systemctl start wgd-quick@wg0 >"$NT_TMP/quick.log" 2>&1 || {
		cat "$NT_TMP/quick.log" >&2
		sd_in journalctl -u "$Q" --no-pager >&2
		nt_fail "systemctl start wgd-quick@wg0 failed"
	}
	sd_in pgrep -u wgd -x wgd >/dev/null || nt_fail "wgd-quick@wg0: no wgd running as the user wgd"
	[ "$(workers "$(sd_in pgrep -u wgd -x wgd)")" = 0 ] || nt_fail "wgd-quick@wg0: a worker thread without WGD_THREADS"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "wgd-quick@wg0: no ping from the peer"
	nt_x "$NS_A" ping -q -c 1 -W 3 198.51.100.2 >/dev/null || nt_fail "wgd-quick@wg0: no ping from the container"
	sd_in wg show wg0 latest-handshakes | awk '$2 > 0 { ok = 1 } END { exit !ok }' ||
		nt_fail "wgd-quick@wg0: wg show wg0 has no handshake"
	shows wg0 "peer: ${NT_PUB[$IF_B]}" || nt_fail "wgd-quick@wg0: wgctl show wg0 lacks the peer"
	conf "PersistentKeepalive = 25" | sd_put "$CONF" 600
	sd_in systemctl reload wgd-quick@wg0 || nt_fail "systemctl reload wgd-quick@wg0 failed"
	shows wg0 'persistent keepalive: every 25 seconds' || nt_fail "wgd-quick@wg0: reload did not apply the edit"
	[ "$(sd_in wg show wg0 fwmark)" = 0xca6c ] ||
		nt_fail "wgd-quick@wg0: the reload lost wg-quick's fwmark ($(sd_in wg show wg0 fwmark))"
	nt_x "$NS_A" ping -q -c 1 -W 3 198.51.100.2 >/dev/null || nt_fail "wgd-quick@wg0: no ping after the reload"
	sd_in systemctl stop wgd-quick@wg0 || nt_fail "systemctl stop wgd-quick@wg0 failed"
	# wg-quick sets src_valid_mark for a full tunnel and leaves it so.
	same_netstate "systemctl stop wgd-quick@wg0" '^src_valid_mark '
	nt_ok "wgd-quick@wg0: up (ping, wg and wgctl show), reload applies an edit, stop cleans up"
	threads_dropin wgd-quick@wg0 2
	sd_in systemctl start wgd-quick@wg0 || nt_fail "systemctl start wgd-quick@wg0 (WGD_THREADS=2)"
	[ "$(workers "$(sd_in pgrep -u wgd -x wgd)")" = 1 ] ||
		nt_fail "wgd-quick@wg0 with WGD_THREADS=2 in a drop-in: no worker thread (wg-quick did not pass it on?)"
	nt_ping "$IF_B" 198.51.100.1 || nt_fail "wgd-quick@wg0 on 2 threads: no ping from the peer"
	sd_in systemctl stop wgd-quick@wg0 || nt_fail "systemctl stop wgd-quick@wg0 (WGD_THREADS=2)"
	threads_dropin wgd-quick@wg0
	nt_ok "wgd-quick@wg0 with WGD_THREADS=2 in a drop-in: wg-quick's wgd seals and opens on 2 threads"
}

peer
sd_boot "$NS_A"
sd_install "$SD_DEB" wgd.deb
nt_ok "the package installs with dpkg -i in the container"
quick_start
check_running
check_reload
check_journal
check_stop
check_crash
check_notify
check_hardened
check_quick
echo PASS
