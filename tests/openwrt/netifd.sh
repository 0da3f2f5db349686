#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# contrib/openwrt's netifd handler (proto wgd) under OpenWrt's real netifd,
# ubus and uci, built from ../shared/openwrt (its README: the sources, the
# build, the namespace with OpenWrt's paths).  The stack is built once into
# $WGD_OWRT_CACHE (default /var/cache/wgd-owrt, about a minute); ../shared
# itself is only read.  Namespace "router" runs netifd with /etc/config/network
# from this script; namespace "peer" runs two x86 wgd daemons configured with
# wgctl, reached over a veth pair.  The checks are in t-netifd.sh.
#
#   WGD=build/daemon/wgd WGCTL=build/tools/wgctl/wgctl tests/openwrt/netifd.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SHARED=${WGD_OWRT_SHARED:-$TOP/../shared/openwrt}
CACHE=${WGD_OWRT_CACHE:-/var/cache/wgd-owrt}
WGD=${WGD:?WGD=path to wgd}
WGCTL=${WGCTL:?WGCTL=path to wgctl}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root (network namespaces, mounts)"
	exit 77
fi
if [ ! -f "$SHARED/src/netifd.tar.gz" ] || [ ! -x "$SHARED/scripts/build.sh" ]; then
	echo "SKIP: $SHARED is absent (OpenWrt's netifd, ubus, uci and libubox sources and scripts); nothing to test the handler under"
	exit 77
fi
if [ ! -x /bin/busybox ]; then
	echo "SKIP: no /bin/busybox (OpenWrt's /bin/sh is busybox ash; apt-get install busybox-static)"
	exit 77
fi

# The stack, built once per set of sources (COMMITS.txt), under a lock so
# that two builds of the tree do not race.  bootstrap.sh is not used: it
# installs Debian's busybox, which replaces the busybox-static the VM tests use.
build_stack() {
	local p need=""
	for p in cmake ninja-build pkg-config gcc libc6-dev libjson-c-dev bc; do
		dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
	done
	[ -z "$need" ] || DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $need ||
		return 1
	rm -rf "$CACHE/kheaders" "$CACHE/src" "$CACHE/build" "$CACHE/prefix"
	mkdir -p "$CACHE/kheaders" "$CACHE/src"
	dpkg-deb -x "$(ls "$SHARED"/src/linux-libc-dev_*bpo*.deb | head -1)" "$CACHE/kheaders" || return 1
	for p in libubox ubus uci libnl-tiny ucode udebug netifd; do
		tar -xzf "$SHARED/src/$p.tar.gz" -C "$CACHE/src" || return 1
	done
	S="$CACHE/src" P="$CACHE/prefix" B="$CACHE/build" KH="$CACHE/kheaders" J=2 \
		"$SHARED/scripts/build.sh" > "$CACHE/build.log" 2>&1 || { tail -30 "$CACHE/build.log"; return 1; }
	rm -rf "$CACHE/build"
	cp "$SHARED/src/COMMITS.txt" "$CACHE/stamp"
}
mkdir -p "$CACHE"
exec 9> "$CACHE/lock"
flock 9
if [ ! -x "$CACHE/prefix/sbin/netifd" ] || ! cmp -s "$SHARED/src/COMMITS.txt" "$CACHE/stamp"; then
	echo "building OpenWrt's stack into $CACHE (about a minute)"
	build_stack || { echo "FAIL: building the OpenWrt stack"; exit 1; }
fi
flock -u 9

W=$(mktemp -d /tmp/wgd-owrt.XXXXXX)
R=wgdor$$
P=wgdop$$
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do [ -e "/proc/$p" ] || break; sleep 0.2; done
	done
	for ns in "$R" "$P"; do
		for p in $(ip netns pids "$ns" 2>/dev/null); do
			echo "leftover in $ns: pid $p $(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null)"
			kill "$p"
		done
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$W"
}
trap cleanup EXIT

# The layer of OpenWrt paths (mkroot.sh writes only under WORK), with
# wgd and wgctl as /usr/sbin/wgd and /usr/sbin/wgctl: links into $W/bin, so
# that the checks can take wgd away or swap it.
ln -s "$CACHE/prefix" "$W/prefix"
ln -s "$CACHE/src" "$W/src"
mkdir -p "$W/bin" "$W/config" "$W/prun"
cp "$WGD" "$W/bin/wgd"
cp "$WGCTL" "$W/bin/wgctl"
WORK=$W PROTO_DIR=$TOP/contrib/openwrt/wgd/files EXTRA=" " "$SHARED/scripts/mkroot.sh" >/dev/null || exit 1
ln -s "$W/bin/wgd" "$W/layer/usr/sbin/wgd"
ln -s "$W/bin/wgctl" "$W/layer/usr/sbin/wgctl"
# uci (the handler stores a generated key with it) with a check that no
# private_key is set on its command line, world-readable in /proc while it
# runs: a line in $W/uci-argv, without the key.
rm "$W/layer/usr/sbin/uci"
cat > "$W/layer/usr/sbin/uci" <<EOF
#!/bin/sh
case "\$*" in *private_key=*) echo "a private_key on uci's command line" >> "$W/uci-argv" ;; esac
exec "$CACHE/prefix/bin/uci" "\$@"
EOF
chmod 755 "$W/layer/usr/sbin/uci"

# Keys, and the peer side: p1 (10.87.0.2, 10.86.0.1 behind it) and p2
# (10.88.0.2) in namespace P, 192.168.87.2 on the veth and 192.168.88.2 (p1's
# endpoint, a name in the checks' /etc/hosts) behind it.
KEY_R=$("$WGCTL" genkey); PUB_R=$(echo "$KEY_R" | "$WGCTL" pubkey)
KEY_1=$("$WGCTL" genkey); PUB_1=$(echo "$KEY_1" | "$WGCTL" pubkey)
KEY_2=$("$WGCTL" genkey); PUB_2=$(echo "$KEY_2" | "$WGCTL" pubkey)
PUB_3=$("$WGCTL" genkey | "$WGCTL" pubkey)
PSK=$("$WGCTL" genpsk)
ip netns add "$R" && ip netns add "$P" || exit 1
ip link add veth-wan netns "$R" type veth peer name veth-p netns "$P" || exit 1
ip -n "$P" link set lo up
ip -n "$P" addr add 192.168.87.2/24 dev veth-p
ip -n "$P" addr add 192.168.88.2/32 dev lo	# p1's endpoint, one hop away
ip -n "$P" link set veth-p up
peer() { # name port private-key tunnel-address [psk]
	local conf=$W/$1.conf
	ip netns exec "$P" env WGD_RUN_DIR="$W/prun" "$WGD" -p "$W/$1.pid" "$1" || return 1
	PIDS+=("$(cat "$W/$1.pid")")
	{
		printf '[Interface]\nPrivateKey = %s\nListenPort = %s\n' "$3" "$2"
		printf '[Peer]\nPublicKey = %s\nAllowedIPs = 10.87.0.1/32, fd87::1/128\n' "$PUB_R"
		[ -z "${5:-}" ] || printf 'PresharedKey = %s\n' "$5"
	} > "$conf"
	WGD_RUN_DIR="$W/prun" "$WGCTL" setconf "$1" "$conf" || return 1
	ip -n "$P" addr add "$4" dev "$1"
	ip -n "$P" link set "$1" up
}
peer p1 51901 "$KEY_1" 10.87.0.2/24 "$PSK" || { echo "FAIL: peer p1"; exit 1; }
ip -n "$P" addr add 10.86.0.1/32 dev p1
ip -n "$P" addr add fd87::2/64 dev p1 nodad
peer p2 51902 "$KEY_2" 10.88.0.2/24 || { echo "FAIL: peer p2"; exit 1; }
# p2's replies to 10.87.0.1 go back through p2, not p1's 10.87.0.0/24
ip -n "$P" route add 10.87.0.1/32 dev p2 table 100
ip -n "$P" rule add from 10.88.0.2 lookup 100

cat > "$W/config/network" <<EOF
config interface 'loopback'
	option device 'lo'
	option proto 'static'
	option ipaddr '127.0.0.1'
	option netmask '255.0.0.0'

config interface 'wan'
	option device 'veth-wan'
	option proto 'static'
	option ipaddr '192.168.87.1'
	option netmask '255.255.255.0'

config route
	option interface 'wan'
	option target '192.168.88.0/24'
	option gateway '192.168.87.2'

config interface 'wgo'
	option proto 'wgd'
	option private_key '$KEY_R'
	option listen_port '51900'
	list addresses '10.87.0.1/24'
	list addresses 'fd87::1/64'
	option mtu '1380'
	option fwmark '0x4d2'
	option ip6prefix 'fd87:1::/48'
	option threads '2'

# endpoint by name (the namespace's /etc/hosts), preshared key, keepalive
config wireguard_wgo 'peer1'
	option public_key '$PUB_1'
	option preshared_key '$PSK'
	list allowed_ips '10.87.0.2/32'
	list allowed_ips '10.86.0.0/24'
	list allowed_ips 'fd87::2/128'
	option route_allowed_ips '1'
	option endpoint_host 'peer1.wgd.test'
	option endpoint_port '51901'
	option persistent_keepalive '25'

config wireguard_wgo 'peer2'
	option disabled '1'
	option public_key '$PUB_2'
	list allowed_ips '10.88.0.0/24'
	option route_allowed_ips '1'
	option endpoint_host '192.168.87.2'
	option endpoint_port '51902'

# allowed IPs without a route
config wireguard_wgo 'peer3'
	option public_key '$PUB_3'
	list allowed_ips '10.85.0.0/24'
	option route_allowed_ips '0'

# no private_key: the handler generates and stores one
config interface 'wgg'
	option proto 'wgd'
	option listen_port '51909'

# started by the checks only
config interface 'wgbad'
	option proto 'wgd'
	option auto '0'
	option private_key 'not-a-key'

config interface 'wgm'
	option proto 'wgd'
	option auto '0'
	option private_key '$KEY_2'

config interface 'wgp'
	option proto 'wgd'
	option auto '0'
	option private_key '$KEY_2'

config wireguard_wgp 'badpeer'
	option public_key 'bogus'

config interface 'wgq'
	option proto 'wgd'
	option auto '0'
	option private_key '$KEY_2'
	option mtu '70000'

# a port only root binds (the daemon's monitor does)
config interface 'wgl'
	option proto 'wgd'
	option auto '0'
	option private_key '$KEY_2'
	option listen_port '853'

# more threads than wgd takes
config interface 'wgt'
	option proto 'wgd'
	option auto '0'
	option private_key '$KEY_2'
	option threads '65'

# a veth device of that name exists (t-netifd.sh)
config interface 'wgx'
	option proto 'wgd'
	option auto '0'
	option private_key '$KEY_2'
EOF

# The secrets reach the checks through files in $W (0700), never the
# environment, which netifd, the handler and wgd would inherit: base64 and
# hex, one a line, for the checks that look for them in files and on
# command lines; and as shell assignments.
hex() { echo "$1" | base64 -d | od -An -tx1 | tr -d ' \n'; }
for k in "$KEY_R" "$KEY_1" "$KEY_2" "$PSK"; do
	printf '%s\n%s\n' "$k" "$(hex "$k")"
done > "$W/secrets"
printf 'KEY_R=%s\nKEY_2=%s\nPSK=%s\n' "$KEY_R" "$KEY_2" "$PSK" > "$W/keys.sh"
# The package's USERID (the users its installation creates), for the checks.
WGD_USERID=$(sed -n 's/^[[:space:]]*USERID[[:space:]]*:=[[:space:]]*//p' "$TOP/contrib/openwrt/wgd/Makefile")
# The checks from $W: the namespace has a /tmp of its own, and this tree may
# be under the host's.
cp "$HERE/t-netifd.sh" "$TOP/contrib/openwrt/wgd/files/wgd.init" "$W/"
export WORK=$W TEST=wgd CONFIG_DIR=$W/config TEST_SCRIPT=$W/t-netifd.sh
export PUB_R PUB_1 PUB_2 PUB_3 WGD_USERID
timeout 400 ip netns exec "$R" "$SHARED/scripts/ns-inner.sh" | tee "$W/result"
rc=${PIPESTATUS[0]}
# ns-inner.sh succeeds when the checks could not even be read.
grep -q '^RESULT(wgd): [1-9][0-9]* passed' "$W/result" || { echo "FAIL: no check ran"; rc=1; }
echo "netifd.sh: rc=$rc"
exit $rc
