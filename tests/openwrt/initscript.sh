#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# contrib/openwrt's /etc/init.d/wgd without procd (not built here): its
# start_service runs under busybox ash with OpenWrt's functions.sh (as
# rc.common sources it; no /sbin/uci here, so /etc/config/wgd is empty:
# t-netifd.sh checks its options with the real uci) and procd's calls
# recorded, and the command it gives procd for each /etc/wireguard/NAME.conf
# is run in a namespace, where it must bring NAME up from the file and take
# it down at SIGTERM (procd's stop).
#   WGD=build/daemon/wgd tests/openwrt/initscript.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
INIT=$HERE/../../contrib/openwrt/wgd/files/wgd.init
SHARED=${WGD_OWRT_SHARED:-$HERE/../../../shared/openwrt}
WGD=${WGD:?WGD=path to wgd}
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
[ -x /bin/busybox ] || { echo "SKIP: no /bin/busybox (OpenWrt's sh)"; exit 77; }
BASE=$SHARED/openwrt-base-files/lib
[ -f "$BASE/functions.sh" ] && [ -f "$BASE/config/uci.sh" ] ||
	{ echo "SKIP: no OpenWrt functions.sh in $BASE"; exit 77; }
[ ! -e /sbin/uci ] || { echo "SKIP: this host has a /sbin/uci, whose configuration the init script would read"; exit 77; }

T=$(mktemp -d /tmp/wgd-init.XXXXXX)
NS=wgdinit$$
PID=""
cleanup() {
	[ -z "$PID" ] || kill "$PID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
pass=0 fail=0
check() { if "${@:2}"; then echo "PASS: $1"; pass=$((pass + 1)); else echo "FAIL: $1"; fail=$((fail + 1)); fi; }

mkdir "$T/wireguard"
printf '[Interface]\nPrivateKey = %s\nListenPort = 51931\nAddress = 10.93.0.1/24\n' \
	"$(head -c 32 /dev/urandom | base64)" > "$T/wireguard/wgi$$.conf"
printf '[Interface]\nPrivateKey = %s\nAddress = 10.94.0.1/24\n' \
	"$(head -c 32 /dev/urandom | base64)" > "$T/wireguard/wgj$$.conf"
echo "not a configuration file" > "$T/wireguard/README"

# procd's shell API, recording: one line per instance, its parameters.
cat > "$T/procd-shim.sh" <<'EOF'
procd_open_instance() { INST="instance=$1"; }
procd_set_param() { local k="$1"; shift; INST="$INST|$k=$*"; }
procd_close_instance() { echo "$INST"; }
procd_add_reload_trigger() { echo "reload_trigger=$*"; }
EOF
busybox sh -c ". '$BASE/functions.sh'; . '$BASE/config/uci.sh'; . '$T/procd-shim.sh'; . '$INIT'
	WGD_CONFIG_DIR='$T/wireguard'; WGD_BIN='$WGD'; start_service; service_triggers > '$T/triggers'" \
	> "$T/instances" 2> "$T/err"
cat "$T/instances" "$T/triggers" "$T/err"
check "USE_PROCD=1" grep -qx "USE_PROCD=1" "$INIT"
check "a change of /etc/config/wgd reloads the service" grep -qx "reload_trigger=wgd" "$T/triggers"
check "one instance per .conf file" [ "$(wc -l < "$T/instances")" = 2 ]
check "instance wgi$$: wgd -f -c FILE, respawn, reload by SIGHUP" grep -qx \
	"instance=wgi$$|command=$WGD -f -c $T/wireguard/wgi$$.conf|file=$T/wireguard/wgi$$.conf|reload_signal=HUP|respawn=|stdout=1|stderr=1" "$T/instances"
check "instance wgj$$" grep -q "^instance=wgj$$|command=$WGD -f -c $T/wireguard/wgj$$.conf|" "$T/instances"
check "nothing on stderr" [ ! -s "$T/err" ]

# The recorded command, as procd would run it (in the foreground).
cmd=$(sed -n "s/^instance=wgi$$|command=\([^|]*\)|.*/\1/p" "$T/instances")
ip netns add "$NS"
ip netns exec "$NS" $cmd > "$T/wgd.log" 2>&1 &
PID=$!
n=0
until ip -n "$NS" -4 addr show dev "wgi$$" 2>/dev/null | grep -q "inet 10.93.0.1/24" || [ $n -ge 50 ]; do
	sleep 0.2
	n=$((n + 1))
done
check "the command brings wgi$$ up from its file" ip -n "$NS" -4 addr show dev "wgi$$" up
check "... and stays in the foreground" kill -0 "$PID"
kill -TERM "$PID"
wait "$PID"
PID=""
check "SIGTERM takes the interface down" bash -c "! ip -n $NS link show wgi$$ 2>/dev/null"
cat "$T/wgd.log"
echo "RESULT(initscript): $pass passed, $fail failed"
[ "$fail" = 0 ]
