#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Endpoints of a family the host has no address of yet (issue 25, item 8):
# an IPv6-only uplink, or a boot before DHCP, must not stop an IPv4 endpoint,
# as it does not stop wg(8).  Namespace 6 has IPv6 (a veth's fd00:1::1 and
# link-local) and loopback only; namespace 4 has IPv4 only (IPv6 disabled).
# In each, `wgd -c` with a file naming the other family's endpoint by
# number and by a host name (from the namespace's own hosts file), and
# `wgctl set` with both, must end with those endpoints set: a name must not
# fail as a temporary error (getaddrinfo()'s AI_ADDRCONFIG did that).

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init ef
[ -n "${WGCTL:-}" ] && [ -x "$WGCTL" ] || nt_fail "WGCTL is not set to the wgctl executable (meson sets it)"

ETC_DIRS=()
trap 'rc=$?; for d in "${ETC_DIRS[@]}"; do rm -rf "$d"; done; (exit $rc); nt_cleanup' EXIT

# endpoint_of IF KEY: the peer's endpoint as wg shows it.
endpoint_of() { nt_wg "$1" show "$1" endpoints | awk -v k="$2" '$1 == k { print $2 }'; }
has_endpoint() { [ "$(endpoint_of "$1" "$2")" = "$3" ]; }

# family NS FAMILY NUMERIC NAMED: one namespace, one daemon, four peers.
# NUMERIC and NAMED are an address of FAMILY as an endpoint's host shows it
# (IPv6 in brackets); the hosts file maps name.test to NAMED.
family() {
	local ns=$1 fam=$2 num=$3 named=$4 ifc conf p1 p2 p3 p4 out
	ifc=$(nt_name wg "$fam")
	mkdir -p "/etc/netns/$ns" && ETC_DIRS+=("/etc/netns/$ns") || nt_fail "mkdir /etc/netns/$ns"
	printf 'hosts: files\n' >"/etc/netns/$ns/nsswitch.conf"
	printf '127.0.0.1 localhost\n%s name.test\n' "$(tr -d '[]' <<<"$named")" >"/etc/netns/$ns/hosts"
	nt_keys "$ifc"
	p1=$(wg genkey | wg pubkey) && p2=$(wg genkey | wg pubkey) &&
		p3=$(wg genkey | wg pubkey) && p4=$(wg genkey | wg pubkey) || nt_fail "wg genkey"
	conf=$NT_TMP/$ifc.conf
	cf_write "$conf" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$ifc]}")

[Peer]
PublicKey = $p1
Endpoint = $num:51001
AllowedIPs = 10.9.0.1/32

[Peer]
PublicKey = $p2
Endpoint = name.test:51002
AllowedIPs = 10.9.0.2/32
EOF
	cf_start "$ns" "$ifc" "$conf"
	has_endpoint "$ifc" "$p1" "$num:51001" ||
		nt_fail "IPv$fam only: wgd -c did not set the numeric endpoint $num:51001 ($(endpoint_of "$ifc" "$p1"))"
	# The name is resolved after start, on a worker: a first try that
	# fails for good is logged, a temporary failure is retried later.
	nt_until "$NT_TIMEOUT" has_endpoint "$ifc" "$p2" "$named:51002" ||
		nt_fail "IPv$fam only: wgd -c did not resolve name.test to $named ($(endpoint_of "$ifc" "$p2")): $(cf_log "$ifc" | grep -i endpoint)"
	nt_ok "IPv$fam only: wgd -c sets $num:51001 and name.test:51002"

	out=$(WG_ENDPOINT_RESOLUTION_RETRIES=0 timeout 20 ip netns exec "$ns" "$WGCTL" set "$ifc" \
		peer "$p3" endpoint "$num:51003" peer "$p4" endpoint name.test:51004 2>&1) ||
		nt_fail "IPv$fam only: wgctl set endpoint: $out"
	has_endpoint "$ifc" "$p3" "$num:51003" && has_endpoint "$ifc" "$p4" "$named:51004" ||
		nt_fail "IPv$fam only: wgctl set did not set both endpoints: $(nt_wg "$ifc" show "$ifc" endpoints)"
	nt_ok "IPv$fam only: wgctl set sets $num:51003 and name.test:51004"
	cf_stop "$ifc"
}

# IPv6 and loopback only: IPv4 endpoints.
NS6=$(nt_name "" 6)
nt_netns "$NS6"
V6=$(nt_name v 6)
ip -n "$NS6" link add "$V6" type veth peer name "${V6}p" &&
	ip -n "$NS6" addr add fd00:1::1/64 dev "$V6" nodad &&
	ip -n "$NS6" link set "$V6" up && ip -n "$NS6" link set "${V6}p" up || nt_fail "veth in $NS6"
[ -z "$(ip -n "$NS6" -4 addr show scope global)" ] || nt_fail "$NS6 has an IPv4 address"
family "$NS6" 6 192.0.2.9 192.0.2.10

# IPv4 only (IPv6 disabled before the veth exists, so it has no link-local
# address either): IPv6 endpoints.
NS4=$(nt_name "" 4)
nt_netns "$NS4"
ip netns exec "$NS4" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	nt_fail "disabling IPv6 in $NS4"
V4=$(nt_name v 4)
ip -n "$NS4" link add "$V4" type veth peer name "${V4}p" &&
	ip -n "$NS4" addr add 192.0.2.1/24 dev "$V4" &&
	ip -n "$NS4" link set "$V4" up && ip -n "$NS4" link set "${V4}p" up || nt_fail "veth in $NS4"
[ -z "$(ip -n "$NS4" -6 addr show)" ] || nt_fail "$NS4 has an IPv6 address: $(ip -n "$NS4" -6 addr show)"
family "$NS4" 4 "[2001:db8::9]" "[2001:db8::10]"
