#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# netifd protocol handler "wgd": a WireGuard interface served by the userspace
# daemon wgd, configured from the same UCI options as OpenWrt's
# "proto wireguard" (interface: private_key, listen_port, addresses, mtu,
# fwmark, ip6prefix, nohostroute; sections of type wireguard_<interface>:
# disabled, public_key, preshared_key, allowed_ips, route_allowed_ips,
# endpoint_host, endpoint_port, persistent_keepalive), and wgd's own
# "threads" on the interface: the daemon seals and opens on that many
# threads (wgd --threads N; unset: wgd's default).  The daemon cannot change
# it while it runs: a new value applies when netifd restarts the interface
# ("ubus call network reload" does, the option being declared; ifup too),
# not on renew.
#
# The device is named after the interface.  netifd runs "wgd -f NAME" as the
# interface's process (proto_run_command): wgd creates the TUN device and its
# control socket, and this script then sets keys and peers through the socket
# with wgctl (never wg, whose package pulls in the kernel module) and hands the
# addresses, routes and endpoint host dependencies to netifd.  On renew the
# keys and peers are synchronised (wgctl syncconf) in the running daemon;
# netifd restarts the interface when the daemon dies.
#
# Keys never leave memory and root: the configuration is built in a shell
# variable and piped to wgctl (a builtin printf, so no command line carries
# it), never written to a file; and private_key is read from UCI here rather
# than declared to netifd, which would pass it to this script on its command
# line (readable by every user in /proc/PID/cmdline).

[ -n "$INCLUDE_ONLY" ] || {
	. /lib/functions.sh
	. ../netifd-proto.sh
	init_proto "$@"
}

WGD_BIN=/usr/sbin/wgd

# private_key is not declared (see above): netifd does not compare it on
# "ubus call network reload"; a new key is applied by renew or ifup.
proto_wgd_init_config() {
	proto_config_add_int "listen_port"
	proto_config_add_int "mtu"
	proto_config_add_string "fwmark"
	proto_config_add_array "addresses"
	proto_config_add_array "ip6prefix"
	proto_config_add_boolean "nohostroute"
	proto_config_add_int "threads"
	available=1
	no_device=1
	renew_handler=1
	lasterror=1	# the reason stays in the status across netifd's retries
}

# Reports why the interface cannot come up (ubus call network.interface.NAME
# status shows it under "errors") and ends the setup.  The error goes first:
# once the daemon has exited, netifd ends this script.  How:
#   block       nothing runs yet; netifd is not to retry (a configuration
#               error: fix it, then ifup)
#   kill-block  the same, with the daemon started
#   retry       stop the daemon and let netifd set up again, after a pause
#               (netifd retries at once, and an error that persists would
#               otherwise restart wgd several times a second)
#   keep        a failed renew: the daemon keeps running as it was
wgd_fail() {
	local config="$1" how="$2" code="$3"
	shift 3
	echo "wgd: $config: $code: $*" >&2
	proto_notify_error "$config" "$code" "$*"
	case "$how" in
	keep) exit 1 ;;
	block) proto_block_restart "$config" ;;
	kill-block) proto_block_restart "$config"; proto_kill_command "$config" ;;
	retry) sleep 5; proto_kill_command "$config" ;;
	esac
	proto_setup_failed "$config"
	exit 1
}

# A key as wg(8) writes one: 32 bytes in base64.  wgctl pubkey refuses
# anything else.
wgd_key_ok() {
	[ -n "$1" ] && echo "$1" | "$WGCTL" pubkey >/dev/null 2>&1
}

# OpenWrt's handler makes a key for "private_key generate"; a missing key is
# generated too.  It is stored with a private uci save directory so that other
# uncommitted changes to /etc/config/network are not committed with it.  The
# save directory holds the key until the commit: it is made (0700, a fresh
# name) beside the file the key goes to, not in /tmp, and uci reads its
# commands from standard input so that the key is on no command line.
wgd_private_key() {
	local config="$1" dir
	config_get private_key "$config" private_key
	[ -z "$private_key" ] || [ "$private_key" = generate ] || return 0
	private_key=$("$WGCTL" genkey) || return 1
	dir=$(mktemp -d /etc/config/.wgd-uci.XXXXXX) || return 1
	printf 'set network.%s.private_key=%s\ncommit network\n' "$config" "$private_key" |
		uci -q -t "$dir" batch >/dev/null
	rm -rf "$dir"
	[ "$(uci -q get "network.$config.private_key")" = "$private_key" ]
}

# Appends a line to the configuration in WGD_CFG.
wgd_cfg() {
	WGD_CFG="$WGD_CFG$1$N"
}

# One [Peer] of the configuration, and its routes when route_allowed_ips
# is set.  WGD_ERROR names the first bad peer.
wgd_peer() {
	local section="$1" disabled public_key preshared_key allowed_ips
	local route_allowed_ips endpoint_host endpoint_port persistent_keepalive
	local ip list=""

	config_get_bool disabled "$section" disabled 0
	[ "$disabled" = 1 ] && return 0
	config_get public_key "$section" public_key
	config_get preshared_key "$section" preshared_key
	config_get allowed_ips "$section" allowed_ips
	config_get_bool route_allowed_ips "$section" route_allowed_ips 0
	config_get endpoint_host "$section" endpoint_host
	config_get endpoint_port "$section" endpoint_port 51820
	config_get persistent_keepalive "$section" persistent_keepalive

	wgd_key_ok "$public_key" || {
		[ -n "$WGD_ERROR" ] || WGD_ERROR="INVALID_PUBLIC_KEY peer $section"
		return 0
	}
	[ -z "$preshared_key" ] || wgd_key_ok "$preshared_key" || {
		[ -n "$WGD_ERROR" ] || WGD_ERROR="INVALID_PRESHARED_KEY peer $section"
		return 0
	}
	for ip in $allowed_ips; do
		list="${list:+$list, }$ip"
		[ "$route_allowed_ips" = 1 ] && append WGD_ROUTES "$ip"
	done
	wgd_cfg "[Peer]"
	wgd_cfg "PublicKey = $public_key"
	[ -z "$preshared_key" ] || wgd_cfg "PresharedKey = $preshared_key"
	[ -z "$list" ] || wgd_cfg "AllowedIPs = $list"
	case "$endpoint_host" in
	"") ;;
	*:*) wgd_cfg "Endpoint = [$endpoint_host]:$endpoint_port" ;;
	*) wgd_cfg "Endpoint = $endpoint_host:$endpoint_port" ;;
	esac
	[ -z "$persistent_keepalive" ] ||
		wgd_cfg "PersistentKeepalive = $persistent_keepalive"
}

# ADDRESS[/PREFIX] to netifd, a bare address as a host address.
wgd_add_address() {
	case "$1" in
	*:*/*) proto_add_ipv6_address "${1%%/*}" "${1##*/}" ;;
	*:*) proto_add_ipv6_address "$1" 128 ;;
	*/*) proto_add_ipv4_address "${1%%/*}" "${1##*/}" ;;
	*) proto_add_ipv4_address "$1" 32 ;;
	esac
}

wgd_add_route() {
	case "$1" in
	*:*/*) proto_add_ipv6_route "${1%%/*}" "${1##*/}" ;;
	*:*) proto_add_ipv6_route "$1" 128 ;;
	*/*) proto_add_ipv4_route "${1%%/*}" "${1##*/}" ;;
	*) proto_add_ipv4_route "$1" 32 ;;
	esac
}

# The interface's keys, port, fwmark and peers from UCI into WGD_CFG (wg(8)'s
# format), the routes of route_allowed_ips into WGD_ROUTES.  Sets
# private_key; fails the setup (or renew) as $early says.
wgd_read_config() {
	local config="$1" early="$2" listen_port fwmark

	wgd_private_key "$config" ||
		wgd_fail "$config" $early KEY_GENERATION_FAILED "wgctl genkey or uci failed"
	wgd_key_ok "$private_key" ||
		wgd_fail "$config" $early INVALID_PRIVATE_KEY "private_key is not a base64 WireGuard key"
	config_get listen_port "$config" listen_port
	config_get fwmark "$config" fwmark
	WGD_CFG=""
	WGD_ROUTES=""
	WGD_ERROR=""
	wgd_cfg "[Interface]"
	wgd_cfg "PrivateKey = $private_key"
	[ -z "$listen_port" ] || wgd_cfg "ListenPort = $listen_port"
	[ -z "$fwmark" ] || wgd_cfg "FwMark = $fwmark"
	config_foreach wgd_peer "wireguard_$config"
	[ -z "$WGD_ERROR" ] ||
		wgd_fail "$config" $early ${WGD_ERROR%% *} "${WGD_ERROR#* }: not a base64 WireGuard key"
}

# The processes "$WGD_BIN -f $1" or "$WGD_BIN -f --threads N $1" (wgd_start,
# with any N: the option may have changed since; "-f --user root $1" from the
# handler of an earlier package) that this netifd did not start: left running
# by a netifd that died (SIGKILL, a crash; procd starts a new one), they hold
# the device and the socket.  Matched by command line and executable (also
# one replaced since, by an upgrade); a wgd started by hand for the same
# device, with other options, is not one (the setup then fails with
# DEVICE_EXISTS).
wgd_strays() {
	local p bin exe comm
	bin=$(readlink -f "$WGD_BIN")
	for p in /proc/[0-9]*; do
		# comm first: a builtin read, no process per entry
		{ read -r comm < "$p/comm"; } 2>/dev/null && [ "$comm" = "${bin##*/}" ] || continue
		case "$(tr '\0' ' ' 2>/dev/null < "$p/cmdline")" in
		"$WGD_BIN -f $1 " | "$WGD_BIN -f --user root $1 ") ;;
		"$WGD_BIN -f --threads "[1-9]" $1 " | "$WGD_BIN -f --threads "[1-9][0-9]" $1 ") ;;
		*) continue ;;
		esac
		exe=$(readlink "$p/exe")
		[ "$exe" = "$bin" ] || [ "$exe" = "$bin (deleted)" ] || continue
		[ "$(awk '/^PPid:/ { print $2 }' "$p/status" 2>/dev/null)" != "$PPID" ] || continue
		echo "${p#/proc/}"
	done
}

# Stops the strays of interface $1 (SIGTERM: each wipes its keys and removes
# its device; SIGKILL after 5 s) and waits for the device to go, so that the
# setup starts a daemon of this netifd's own.
wgd_stop_strays() {
	local config="$1" pids pid i=0
	pids=$(wgd_strays "$config")
	[ -n "$pids" ] || return 0
	echo "wgd: $config: stopping wgd (pid $pids), left by an earlier netifd" >&2
	kill -TERM $pids 2>/dev/null
	while [ $i -lt 100 ]; do
		for pid in $pids; do
			[ -d "/proc/$pid" ] && break
			pid=""
		done
		[ -z "$pid" ] && [ ! -e "/sys/class/net/$config" ] && return 0
		[ $i = 50 ] && kill -KILL $pids 2>/dev/null
		sleep 0.1
		i=$((i + 1))
	done
}

# Starts "wgd -f [--threads N] NAME" as netifd's process of the interface
# and waits until it answers on its socket.  wgd changes to the user wgd once its device and
# socket exist, before this script configures it, keeping CAP_NET_ADMIN
# alone; a listen_port below 1024, set only then, is bound by its privileged
# monitor (wgd(8), PRIVILEGES), so no port needs root.
wgd_start() {
	local config="$1" sock threads why i=0

	# What would make wgd exit at once, named before it starts (netifd ends
	# this script when the daemon exits during the setup).  The number of
	# threads is checked by wgd itself, which parses its options in order
	# and stops at --version.
	[ -c /dev/net/tun ] ||
		wgd_fail "$config" block NO_TUN "/dev/net/tun is missing (kmod-tun)"
	config_get threads "$config" threads
	[ -z "$threads" ] || why=$("$WGD_BIN" --threads "$threads" --version 2>&1 >/dev/null) ||
		wgd_fail "$config" block INVALID_THREADS "threads '$threads': ${why#*": --threads $threads: "}"
	# without leading zeros, as wgd_strays matches it
	threads=${threads#"${threads%%[!0]*}"}
	wgd_stop_strays "$config"
	[ ! -e "/sys/class/net/$config" ] ||
		wgd_fail "$config" block DEVICE_EXISTS "a network device $config exists already"
	proto_run_command "$config" "$WGD_BIN" -f ${threads:+--threads "$threads"} "$config"
	# wgd answers on its socket once the TUN device exists (10 s).  Answers,
	# not the socket file: a daemon killed with SIGKILL leaves its file
	# behind until the new one replaces it.
	sock="${WGD_RUN_DIR:-/var/run/wireguard}/$config.sock"
	until "$WGCTL" show "$config" public-key >/dev/null 2>&1; do
		[ $i -lt 100 ] ||
			wgd_fail "$config" retry DAEMON_NOT_RUNNING "wgd -f $config did not answer on $sock within 10 s"
		sleep 0.1
		i=$((i + 1))
	done
}

# Addresses, routes and prefixes to netifd; each peer's endpoint stays
# reachable outside the tunnel (a default route through it would otherwise
# capture the tunnel's own packets): netifd keeps a host route to it through
# the interface that reaches it, unless nohostroute.
wgd_announce() {
	local config="$1" addresses ip6prefix nohostroute item endpoint

	config_get addresses "$config" addresses
	config_get ip6prefix "$config" ip6prefix
	config_get_bool nohostroute "$config" nohostroute 0
	proto_init_update "$config" 1
	for item in $addresses; do
		wgd_add_address "$item"
	done
	for item in $WGD_ROUTES; do
		wgd_add_route "$item"
	done
	for item in $ip6prefix; do
		proto_add_ipv6_prefix "$item"
	done
	proto_send_update "$config"

	[ "$nohostroute" = 1 ] && return 0
	"$WGCTL" show "$config" endpoints | while read -r item endpoint; do
		endpoint="${endpoint%:*}"
		case "$endpoint" in
		"(none)") continue ;;
		\[*) endpoint="${endpoint#[}"; endpoint="${endpoint%]}" ;;
		esac
		proto_add_host_dependency "$config" "$endpoint"
	done
}

# setup and renew: the same configuration, started or synchronised.
wgd_configure() {
	local config="$1" action="$2" private_key mtu early=block late=kill-block

	# A renew that fails leaves the daemon as it was.
	[ "$action" = renew ] && early=keep late=keep

	WGCTL=$(command -v wgctl)
	[ -x "$WGD_BIN" ] ||
		wgd_fail "$config" $early MISSING_WGD "$WGD_BIN is not installed"
	[ -n "$WGCTL" ] ||
		wgd_fail "$config" $early MISSING_WGCTL "wgctl is not installed"
	[ ${#config} -le 15 ] ||
		wgd_fail "$config" $early INVALID_IFNAME "an interface name has at most 15 characters"

	config_load network
	wgd_read_config "$config" $early
	if [ "$action" = setup ]; then
		wgd_start "$config"
		printf '%s' "$WGD_CFG" | "$WGCTL" setconf "$config" /dev/stdin ||
			wgd_fail "$config" retry CONFIGURATION_FAILED "wgctl setconf $config failed (its message is in the log)"
	else
		printf '%s' "$WGD_CFG" | "$WGCTL" syncconf "$config" /dev/stdin ||
			wgd_fail "$config" keep CONFIGURATION_FAILED "wgctl syncconf $config failed (its message is in the log); the running configuration is kept"
	fi
	WGD_CFG=""
	private_key=""
	config_get mtu "$config" mtu
	[ -z "$mtu" ] || ip link set dev "$config" mtu "$mtu" ||
		wgd_fail "$config" $late INVALID_MTU "mtu $mtu refused"
	wgd_announce "$config"
}

proto_wgd_setup() {
	wgd_configure "$1" setup
}

proto_wgd_renew() {
	wgd_configure "$1" renew
}

proto_wgd_teardown() {
	# SIGTERM: wgd wipes its keys, removes its socket and the device.
	proto_kill_command "$1"
}

[ -n "$INCLUDE_ONLY" ] || {
	add_protocol wgd
}
