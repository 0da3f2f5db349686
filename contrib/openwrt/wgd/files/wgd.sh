#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# netifd protocol handler "wgd": a WireGuard interface served by the userspace
# daemon wgd, configured from the same UCI options as OpenWrt's
# "proto wireguard" (interface: private_key, listen_port, addresses, mtu,
# fwmark, ip6prefix, nohostroute; sections of type wireguard_<interface>:
# disabled, public_key, preshared_key, allowed_ips, route_allowed_ips,
# endpoint_host, endpoint_port, persistent_keepalive).
#
# The device is named after the interface.  netifd runs "wgd -f NAME" as the
# interface's process (proto_run_command): wgd creates the TUN device and its
# control socket, and this script then sets keys and peers through the socket
# with wgctl (never wg, whose package pulls in the kernel module) and hands the
# addresses, routes and endpoint host dependencies to netifd.  On renew the
# peers are synchronised (wgctl syncconf) in the running daemon; netifd
# restarts the interface when the daemon dies.

[ -n "$INCLUDE_ONLY" ] || {
	. /lib/functions.sh
	. ../netifd-proto.sh
	init_proto "$@"
}

WGD_BIN=/usr/sbin/wgd

proto_wgd_init_config() {
	proto_config_add_string "private_key"
	proto_config_add_int "listen_port"
	proto_config_add_int "mtu"
	proto_config_add_string "fwmark"
	proto_config_add_array "addresses"
	proto_config_add_array "ip6prefix"
	proto_config_add_boolean "nohostroute"
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
# uncommitted changes to /etc/config/network are not committed with it.
wgd_private_key() {
	local config="$1" tmp
	config_get private_key "$config" private_key
	[ -z "$private_key" ] || [ "$private_key" = generate ] || return 0
	private_key=$("$WGCTL" genkey) || return 1
	tmp=$(mktemp -d) || return 1
	uci -q -t "$tmp" set "network.$config.private_key=$private_key" &&
		uci -q -t "$tmp" commit network
	rm -rf "$tmp"
}

# One [Peer] of the configuration file, and its routes when route_allowed_ips
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
	{
		echo "[Peer]"
		echo "PublicKey = $public_key"
		[ -n "$preshared_key" ] && echo "PresharedKey = $preshared_key"
		[ -n "$list" ] && echo "AllowedIPs = $list"
		case "$endpoint_host" in
		"") ;;
		*:*) echo "Endpoint = [$endpoint_host]:$endpoint_port" ;;
		*) echo "Endpoint = $endpoint_host:$endpoint_port" ;;
		esac
		[ -n "$persistent_keepalive" ] &&
			echo "PersistentKeepalive = $persistent_keepalive"
	} >> "$WGD_CONF"
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

# setup and renew: the same configuration, started or synchronised.
wgd_configure() {
	local config="$1" action="$2"
	local private_key listen_port mtu fwmark addresses ip6prefix nohostroute
	local sock i item endpoint early=block late=kill-block

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
	wgd_private_key "$config" ||
		wgd_fail "$config" $early KEY_GENERATION_FAILED "wgctl genkey or uci failed"
	wgd_key_ok "$private_key" ||
		wgd_fail "$config" $early INVALID_PRIVATE_KEY "private_key is not a base64 WireGuard key"
	config_get listen_port "$config" listen_port
	config_get mtu "$config" mtu
	config_get fwmark "$config" fwmark
	config_get addresses "$config" addresses
	config_get ip6prefix "$config" ip6prefix
	config_get_bool nohostroute "$config" nohostroute 0

	umask 077
	mkdir -p /tmp/wgd
	WGD_CONF=/tmp/wgd/$config.conf
	WGD_ROUTES=""
	WGD_ERROR=""
	{
		echo "[Interface]"
		echo "PrivateKey = $private_key"
		[ -n "$listen_port" ] && echo "ListenPort = $listen_port"
		[ -n "$fwmark" ] && echo "FwMark = $fwmark"
	} > "$WGD_CONF"
	config_foreach wgd_peer "wireguard_$config"
	[ -z "$WGD_ERROR" ] ||
		wgd_fail "$config" $early ${WGD_ERROR%% *} "${WGD_ERROR#* }: not a base64 WireGuard key"

	sock="${WGD_RUN_DIR:-/var/run/wireguard}/$config.sock"
	if [ "$action" = setup ]; then
		# What would make wgd exit at once, named before it starts (netifd
		# ends this script when the daemon exits during the setup).
		[ -c /dev/net/tun ] ||
			wgd_fail "$config" block NO_TUN "/dev/net/tun is missing (kmod-tun)"
		[ ! -e "/sys/class/net/$config" ] ||
			wgd_fail "$config" block DEVICE_EXISTS "a network device $config exists already"
		proto_run_command "$config" "$WGD_BIN" -f "$config"
		# wgd answers on its socket once the TUN device exists (10 s).
		# Answers, not the socket file: a daemon killed with SIGKILL
		# leaves its file behind until the new one replaces it.
		i=0
		until "$WGCTL" show "$config" public-key >/dev/null 2>&1; do
			[ $i -lt 100 ] ||
				wgd_fail "$config" retry DAEMON_NOT_RUNNING "wgd -f $config did not answer on $sock within 10 s"
			sleep 0.1
			i=$((i + 1))
		done
		"$WGCTL" setconf "$config" "$WGD_CONF" ||
			wgd_fail "$config" retry CONFIGURATION_FAILED "wgctl setconf $config failed (its message is in the log)"
	else
		"$WGCTL" syncconf "$config" "$WGD_CONF" ||
			wgd_fail "$config" keep CONFIGURATION_FAILED "wgctl syncconf $config failed (its message is in the log); the running configuration is kept"
	fi
	rm -f "$WGD_CONF"
	[ -z "$mtu" ] || ip link set dev "$config" mtu "$mtu" ||
		wgd_fail "$config" $late INVALID_MTU "mtu $mtu refused"

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

	# Each peer's endpoint stays reachable outside the tunnel (a default
	# route through it would otherwise capture the tunnel's own packets):
	# netifd keeps a host route to it through the interface that reaches it.
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

proto_wgd_setup() {
	wgd_configure "$1" setup
}

proto_wgd_renew() {
	wgd_configure "$1" renew
}

proto_wgd_teardown() {
	# SIGTERM: wgd wipes its keys, removes its socket and the device.
	proto_kill_command "$1"
	rm -f "/tmp/wgd/$1.conf"
}

[ -n "$INCLUDE_ONLY" ] || {
	add_protocol wgd
}
