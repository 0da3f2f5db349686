#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# daemon/bringup/netcfg.c in a network namespace, through its driver
# tests/bringup/netcfg_tool.c (NETCFG_TOOL, set by meson): what netcfg_apply()
# makes of a configuration (addresses, MTU and its default, routes in main
# and in a table of their own, the full-tunnel table and rules of IPv4 and
# IPv6, src_valid_mark), what a reload changes (only the differences, never
# what the administrator added by hand), what teardown leaves (exactly the
# state before), IPv6 disabled (IPv4 goes on, one warning) and errors that
# name the object.  Everything is checked with `ip -j`.
#
#   NETCFG_TOOL=build/tests/bringup/netcfg_tool tests/net/netcfg.sh

# shellcheck source=tests/net/lib.sh
. "$(dirname "$0")/lib.sh"

nt_init nc
export LC_ALL=C
TOOL=${NETCFG_TOOL:-}
if [ -z "$TOOL" ] || [ ! -x "$TOOL" ]; then
	nt_fail "NETCFG_TOOL is not set to the netcfg_tool driver (meson sets it)"
fi

NS=$(nt_name "" a)
VETH=$(nt_name v a)
VPEER=$(nt_name v b)
TUN=$(nt_name wg a)
PTUN=$(nt_name wg p)
WANT=$NT_TMP/want
OUT=$NT_TMP/tool.out
TOOL_PID=
TOOL_LOG=
TOOL_N=0

nt_netns "$NS"
# No duplicate address detection: no address changes state during a snapshot.
ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.accept_dad=0 net.ipv6.conf.all.accept_dad=0
ip link add "$VETH" netns "$NS" type veth peer name "$VPEER" netns "$NS" || nt_fail "veth pair"
ip -n "$NS" addr add 192.0.2.1/24 dev "$VETH"
ip -n "$NS" addr add fd00:1::1/64 dev "$VETH" nodad
ip -n "$NS" link set "$VETH" up
ip -n "$NS" link set "$VPEER" up

nsx() { timeout 10 ip netns exec "$NS" "$@"; }

# q MODE IP-ARGS...: `ip -j IP-ARGS` in the namespace, reduced by MODE:
#   addrs   the addresses (not link-local) as ADDR/LEN, sorted
#   routes  the routes out of $TUN not made by the kernel: DST TABLE, sorted
#   mtu     the first link's MTU
#   rules   the rules as sorted JSON objects
#   raw     the whole answer with every list sorted (a snapshot)
q() {
	local mode=$1
	shift
	timeout 10 ip -n "$NS" -j "$@" | "$NT_PY" -c '
import json, sys
mode, dev = sys.argv[1], sys.argv[2]
d = json.loads(sys.stdin.read() or "[]")
out = []
if mode == "addrs":
    out = ["%s/%d" % (a["local"], a["prefixlen"]) for l in d for a in l.get("addr_info", [])
           if a.get("scope") != "link"]
elif mode == "routes":
    out = ["%s %s" % (r["dst"], r.get("table", "main")) for r in d
           if r.get("dev") == dev and r.get("protocol") != "kernel" and r.get("type", "unicast") == "unicast"]
elif mode == "mtu":
    out = [str(d[0]["mtu"])]
elif mode in ("rules", "raw"):
    out = [json.dumps(x, sort_keys=True) for x in d]
print("\n".join(sorted(out)))
' "$mode" "$TUN"
}

# snapshot: every rule, route and address of the namespace, and src_valid_mark.
snapshot() {
	q raw rule
	q raw -6 rule
	q raw route show table all
	q raw addr
	nsx sysctl -n net.ipv4.conf.all.src_valid_mark
}

rules_all() {
	q rules rule
	q rules -6 rule
}

want() { printf '%s\n' "$@" >"$WANT"; }

lines() { [ -e "$OUT" ] && wc -l <"$OUT" || echo 0; }

has_lines() { [ "$(lines)" -ge "$1" ]; }

# tool_wait N: until the driver has printed N lines; the last in ANS.
tool_wait() {
	nt_until "$NT_TIMEOUT" has_lines "$1" ||
		nt_fail "the driver printed no line $1 (it printed: $(cat "$OUT" 2>/dev/null))"
	ANS=$(tail -n 1 "$OUT")
}

# tool_start [IFNAME [WRAPPER...]]: the driver on $WANT; its first answer in ANS.
tool_start() {
	local ifc=${1:-$TUN}
	shift || true
	TOOL_N=$((TOOL_N + 1))
	TOOL_LOG=$NT_TMP/tool.$TOOL_N.log
	: >"$OUT"
	ip netns exec "$NS" "$@" "$TOOL" "$ifc" "$WANT" >"$OUT" 2>"$TOOL_LOG" &
	TOOL_PID=$!
	NT_PIDS+=("$TOOL_PID")
	tool_wait 1
}

# tool_reload: SIGHUP; the answer in ANS.
tool_reload() {
	local n
	n=$(lines)
	kill -HUP "$TOOL_PID"
	tool_wait $((n + 1))
}

# tool_down: SIGTERM: teardown, the TUN device kept.
tool_down() {
	local n
	n=$(lines)
	kill -TERM "$TOOL_PID"
	tool_wait $((n + 1))
	[ "$ANS" = down ] || nt_fail "the driver did not tear down: $(cat "$OUT")"
}

# tool_exit: the second SIGTERM: the device goes, the driver exits with 0.
tool_exit() {
	kill -TERM "$TOOL_PID"
	nt_wait_gone "$TOOL_PID" 5 || nt_fail "the driver did not exit"
	wait "$TOOL_PID" || nt_fail "the driver exited with status $?"
}

expect() {
	[ "$2" = "$3" ] || nt_fail "$1: expected [$(echo "$3" | tr '\n' ' ')], got [$(echo "$2" | tr '\n' ' ')]"
}

# ---- addresses, routes in main, the MTU; a reload; teardown ----
BEFORE=$(snapshot)
RULES=$(rules_all)
want "addr 10.1.0.1/24" "addr fd00:a::1/64" "route 10.2.0.0/16" "route 10.2.3.0/24" \
	"route fd00:b::/48" "route 10.1.0.0/24" "endpoint 192.0.2.2:51820"
tool_start
expect "first apply" "$ANS" "fwmark 0 mtu 1420"
expect "addresses" "$(q addrs addr show dev "$TUN")" "$(printf '10.1.0.1/24\nfd00:a::1/64')"
expect "MTU" "$(q mtu link show dev "$TUN")" 1420
expect "routes" "$(q routes route show table all)" \
	"$(printf '10.2.0.0/16 main\n10.2.3.0/24 main\nfd00:b::/48 main')"
"$NT_PY" -c 'import json, sys; sys.exit(not all(a.get("nodad") for l in json.load(sys.stdin)
    for a in l["addr_info"] if a["family"] == "inet6" and a["scope"] == "global"))' \
	< <(ip -n "$NS" -j addr show dev "$TUN") || nt_fail "the IPv6 address lacks nodad"
[ "$(ip -n "$NS" -j link show dev "$TUN" | grep -c '"UP"')" = 1 ] || nt_fail "$TUN is not up"
expect "rules untouched" "$(rules_all)" "$RULES"
# Longest prefix first.
expect "the order of adding routes" "$(grep -o 'added route [^ ]*' "$TOOL_LOG" | cut -d' ' -f3)" \
	"$(printf 'fd00:b::/48\n10.2.3.0/24\n10.2.0.0/16')"
nt_ok "addresses, MTU 1420 from a 1500 link, routes in main, link up"

# The administrator's address and route on the same link.
ip -n "$NS" addr add 10.3.0.1/24 dev "$TUN"
ip -n "$NS" route add 10.4.0.0/24 dev "$TUN"
MARK=$(wc -l <"$TOOL_LOG")
want "addr 10.1.0.1/24" "addr 10.1.1.1/24" "addr 10.3.0.1/24" "route 10.2.0.0/16" "route 10.5.0.0/16" \
	"route 10.4.0.0/24" "mtu 1380" "endpoint 192.0.2.2:51820"
tool_reload
expect "reload" "$ANS" "fwmark 0 mtu 1380"
expect "addresses after reload" "$(q addrs addr show dev "$TUN")" \
	"$(printf '10.1.0.1/24\n10.1.1.1/24\n10.3.0.1/24')"
expect "routes after reload" "$(q routes route show table all)" \
	"$(printf '10.2.0.0/16 main\n10.4.0.0/24 main\n10.5.0.0/16 main')"
expect "explicit MTU" "$(q mtu link show dev "$TUN")" 1380
CHANGES=$(tail -n +$((MARK + 1)) "$TOOL_LOG" | grep -E 'added|removed' | sed 's/.*: //' | sort)
expect "what the reload touched" "$CHANGES" "$(printf '%s\n' 'added address 10.1.1.1/24' \
	'added route 10.5.0.0/16 to table main' 'removed address fd00:a::1/64' \
	'removed route 10.2.3.0/24 to table main' 'removed route fd00:b::/48 to table main' | sort)"
nt_ok "reload: only the differences, the administrator's address and route kept though wanted"

# Unwanted now, but not ours: they stay too.
want "addr 10.1.0.1/24"
tool_reload
expect "reload" "$ANS" "fwmark 0 mtu 1420"
expect "addresses after a second reload" "$(q addrs addr show dev "$TUN")" \
	"$(printf '10.1.0.1/24\n10.3.0.1/24')"
expect "routes after a second reload" "$(q routes route show table all)" "10.4.0.0/24 main"
tool_down
expect "addresses after teardown" "$(q addrs addr show dev "$TUN")" "10.3.0.1/24"
expect "routes after teardown" "$(q routes route show table all)" "10.4.0.0/24 main"
expect "MTU after teardown" "$(q mtu link show dev "$TUN")" 1500
tool_exit
expect "the namespace after the driver" "$(snapshot)" "$BEFORE"
nt_ok "teardown: the administrator's address and route stay, everything else as before"

# ---- the MTU default: the largest path MTU towards the endpoints, less 80 ----
ip -n "$NS" link set "$VETH" mtu 1400
ip -n "$NS" route add 198.18.0.0/24 dev "$VETH" mtu 1300
want "endpoint 192.0.2.2:51820"
tool_start
expect "MTU towards a 1400 link" "$ANS" "fwmark 0 mtu 1320"
expect "MTU of the link" "$(q mtu link show dev "$TUN")" 1320
want "endpoint [fd00:1::2]:51820"
tool_reload
expect "MTU towards a 1400 link over IPv6" "$ANS" "fwmark 0 mtu 1320"
want "endpoint 198.18.0.5:1"
tool_reload
expect "MTU of a route" "$ANS" "fwmark 0 mtu 1220"
want "endpoint 198.18.0.5:1" "endpoint 192.0.2.9:2"
tool_reload
expect "MTU towards two endpoints" "$ANS" "fwmark 0 mtu 1320"
want "endpoint 203.0.113.1:1"
tool_reload
expect "MTU without a route" "$ANS" "fwmark 0 mtu 1420"
want "addr 10.1.0.1/24"
tool_reload
expect "MTU without endpoints" "$ANS" "fwmark 0 mtu 1420"
tool_down
tool_exit
# Once a full tunnel is up, the path to an endpoint beyond main's default
# route is the one of the daemon's marked datagrams, not the tunnel.
ip -n "$NS" route add default via 192.0.2.2 dev "$VETH"
want "route 0.0.0.0/0" "endpoint 203.0.113.1:1"
tool_start
expect "MTU of a full tunnel" "$ANS" "fwmark 51820 mtu 1320"
tool_reload
expect "MTU of a full tunnel, reloaded" "$ANS" "fwmark 51820 mtu 1320"
tool_down
tool_exit
ip -n "$NS" route del default via 192.0.2.2 dev "$VETH"
ip -n "$NS" route del 198.18.0.0/24 dev "$VETH"
ip -n "$NS" link set "$VETH" mtu 1500
nt_ok "MTU default: 1320 towards a 1400 link (IPv4, IPv6, a full tunnel's), 1220 by a route's MTU, the largest of two, 1420 without"

# ---- Table = N and Table = off; an error that names the object ----
BEFORE=$(snapshot)
RULES=$(rules_all)
want "table 1234" "route 10.6.0.0/24" "route 0.0.0.0/0" "route ::/0" "route fd00:c::/64" "addr 10.1.0.1/24"
tool_start
expect "Table = 1234" "$ANS" "fwmark 0 mtu 1420"
expect "routes in table 1234" "$(q routes route show table all)" \
	"$(printf '10.6.0.0/24 1234\ndefault 1234\ndefault 1234\nfd00:c::/64 1234')"
expect "no rules for Table = 1234" "$(rules_all)" "$RULES"
ip -n "$NS" route add 10.7.0.0/24 dev "$VETH" table 1234
want "table 1234" "route 10.6.0.0/24" "route 10.7.0.0/24" "addr 10.1.0.1/24"
tool_reload
expect "a route in the way" "$ANS" "error: cannot add route 10.7.0.0/24 to table 1234: File exists"
want "table off" "route 10.6.0.0/24" "route 0.0.0.0/0" "addr 10.1.0.1/24"
tool_reload
expect "Table = off" "$ANS" "fwmark 0 mtu 1420"
expect "no routes for Table = off" "$(q routes route show table all)" ""
expect "the address with Table = off" "$(q addrs addr show dev "$TUN")" "10.1.0.1/24"
tool_down
tool_exit
ip -n "$NS" route del 10.7.0.0/24 dev "$VETH" table 1234
expect "the namespace after Table = N" "$(snapshot)" "$BEFORE"
nt_ok "Table = 1234: every route there (/0 too), no rules; a route in the way named; Table = off: no routes"

# ---- full tunnel ----
nsx sysctl -qw net.ipv4.conf.all.src_valid_mark=0
# Table 51820 is in use: the first free one after it.
ip -n "$NS" route add 10.99.0.0/24 dev "$VETH" table 51820
BEFORE=$(snapshot)
RULES=$(rules_all)
# full_rules FAMILY TABLE: the rules a full tunnel into TABLE adds (as wg-quick(8) makes them).
full_rules() {
	q rules "$1" rule | "$NT_PY" -c '
import json, sys
t = sys.argv[1]
rs = [json.loads(l) for l in sys.stdin if l.strip()]
a = [r["priority"] for r in rs if "not" in r and r.get("fwmark") == hex(int(t)) and r["table"] == t]
b = [r["priority"] for r in rs if r["table"] == "main" and r.get("suppress_prefixlen") == 0]
print(a, b)' "$2"
}
want "addr 10.8.0.1/24" "addr fd00:d::1/64" "route 0.0.0.0/0" "route ::/0" "route 10.9.0.0/24" \
	"endpoint 192.0.2.2:51820"
tool_start
expect "full tunnel" "$ANS" "fwmark 51821 mtu 1420"
expect "full-tunnel routes" "$(q routes route show table all)" \
	"$(printf '10.9.0.0/24 main\ndefault 51821\ndefault 51821')"
expect "IPv4 full-tunnel rules" "$(full_rules -4 51821)" "[32765] [32764]"
expect "IPv6 full-tunnel rules" "$(full_rules -6 51821)" "[32765] [32764]"
expect "src_valid_mark" "$(nsx sysctl -n net.ipv4.conf.all.src_valid_mark)" 1
nt_ok "full tunnel: table 51821 (51820 in use), rules of wg-quick for IPv4 and IPv6, src_valid_mark=1"

want "addr 10.8.0.1/24" "addr fd00:d::1/64" "route 0.0.0.0/0" "route ::/0" "fwmark 4660"
tool_reload
expect "full tunnel with FwMark" "$ANS" "fwmark 4660 mtu 1420"
expect "FwMark's routes" "$(q routes route show table all)" "$(printf 'default 4660\ndefault 4660')"
expect "IPv4 rules of FwMark" "$(full_rules -4 4660)" "[32765] [32764]"
expect "IPv6 rules of FwMark" "$(full_rules -6 4660)" "[32765] [32764]"
expect "the old table's rules" "$(full_rules -4 51821; full_rules -6 51821)" "$(printf '[] [32764]\n[] [32764]')"
want "addr 10.8.0.1/24" "route 0.0.0.0/0" "route fd00:e::/64" "fwmark 4660"
tool_reload
expect "IPv4 full tunnel only" "$ANS" "fwmark 4660 mtu 1420"
expect "IPv4 full tunnel only: IPv6 rules" "$(full_rules -6 4660)" "[] []"
expect "IPv4 full tunnel only: IPv4 rules" "$(full_rules -4 4660)" "[32765] [32764]"
expect "IPv4 full tunnel only: routes" "$(q routes route show table all)" \
	"$(printf 'default 4660\nfd00:e::/64 main')"
want "addr 10.8.0.1/24" "route ::/0" "fwmark 4660"
tool_reload
expect "IPv6 full tunnel only" "$ANS" "fwmark 4660 mtu 1420"
expect "IPv6 full tunnel only: IPv4 rules" "$(full_rules -4 4660)" "[] []"
expect "src_valid_mark without an IPv4 full tunnel" "$(nsx sysctl -n net.ipv4.conf.all.src_valid_mark)" 0
want "route 0.0.0.0/0" "route ::/0"
tool_reload
expect "full tunnel again" "$ANS" "fwmark 51821 mtu 1420"
expect "src_valid_mark again" "$(nsx sysctl -n net.ipv4.conf.all.src_valid_mark)" 1
tool_down
expect "rules after teardown" "$(rules_all)" "$RULES"
expect "src_valid_mark after teardown" "$(nsx sysctl -n net.ipv4.conf.all.src_valid_mark)" 0
tool_exit
expect "the namespace after a full tunnel" "$(snapshot)" "$BEFORE"
nt_ok "full tunnel reloads: FwMark's table, one family at a time, src_valid_mark restored; teardown as before"

# ---- the link deleted under the daemon: teardown still removes the rules ----
RULES=$(rules_all)
want "addr 10.8.0.1/24" "route 0.0.0.0/0" "route ::/0" "route 10.9.0.0/24"
tool_start
expect "full tunnel before the link goes" "$ANS" "fwmark 51821 mtu 1420"
ip -n "$NS" link del "$TUN" || nt_fail "cannot delete $TUN"
tool_down
expect "rules after teardown without the link" "$(rules_all)" "$RULES"
expect "src_valid_mark after teardown without the link" "$(nsx sysctl -n net.ipv4.conf.all.src_valid_mark)" 0
expect "complaints of teardown without the link" "$(grep -c 'cannot' "$TOOL_LOG")" 0
tool_exit
expect "the namespace after the link went" "$(snapshot)" "$BEFORE"
nt_ok "the link deleted first: teardown removes the rules and restores src_valid_mark, quietly"

# ---- an identical rule of the administrator's: ours goes before it, and it stays ----
# (and src_valid_mark=1 already: left as it is)
ip -n "$NS" rule add table main suppress_prefixlength 0
nsx sysctl -qw net.ipv4.conf.all.src_valid_mark=1
BEFORE=$(snapshot)
want "route 0.0.0.0/0"
tool_start
expect "full tunnel beside the administrator's rule" "$ANS" "fwmark 51821 mtu 1420"
expect "rules beside the administrator's" "$(full_rules -4 51821)" "[32764] [32763, 32765]"
tool_down
expect "the administrator's rule after teardown" "$(full_rules -4 51821)" "[] [32765]"
tool_exit
expect "the namespace after the administrator's rule" "$(snapshot)" "$BEFORE"
ip -n "$NS" rule del table main suppress_prefixlength 0
ip -n "$NS" route del 10.99.0.0/24 dev "$VETH" table 51820
nsx sysctl -qw net.ipv4.conf.all.src_valid_mark=0
nt_ok "beside an identical rule of the administrator's: ours in front, theirs left alone; src_valid_mark=1 kept"

# ---- IPv6 disabled: IPv4 goes on, one warning ----
nsx sysctl -qw net.ipv6.conf.all.disable_ipv6=1
BEFORE=$(snapshot)
want "addr 10.10.0.1/24" "addr fd00:f::1/64" "route 10.11.0.0/16" "route fd00:f1::/48" "route 0.0.0.0/0" \
	"route ::/0" "endpoint [fd00:1::2]:1"
tool_start
expect "IPv6 disabled" "$ANS" "fwmark 51820 mtu 1420"
expect "IPv4 address without IPv6" "$(q addrs addr show dev "$TUN")" "10.10.0.1/24"
expect "IPv4 routes without IPv6" "$(q routes route show table all)" "$(printf '10.11.0.0/16 main\ndefault 51820')"
expect "IPv4 rules without IPv6" "$(full_rules -4 51820)" "[32765] [32764]"
expect "no IPv6 rules" "$(full_rules -6 51820)" "[] []"
tool_reload
expect "reload without IPv6" "$ANS" "fwmark 51820 mtu 1420"
tool_down
tool_exit
expect "warnings" "$(grep -c 'IPv6 is disabled' "$TOOL_LOG")" 1
expect "the namespace after IPv6 disabled" "$(snapshot)" "$BEFORE"
nsx sysctl -qw net.ipv6.conf.all.disable_ipv6=0
nt_ok "IPv6 disabled: IPv4 address, routes and rules, one warning"

# ---- without CAP_NET_ADMIN: the error names the object ----
nt_need setpriv
ip -n "$NS" tuntap add name "$PTUN" mode tun user 0 || nt_fail "persistent TUN"
want "addr 10.12.0.1/24"
tool_start "$PTUN" setpriv --bounding-set=-net_admin
expect "without CAP_NET_ADMIN" "$ANS" \
	"error: cannot add address 10.12.0.1/24: Operation not permitted"
tool_down
tool_exit
ip -n "$NS" tuntap del name "$PTUN" mode tun
nt_ok "without CAP_NET_ADMIN: 'cannot add address 10.12.0.1/24: Operation not permitted'"
