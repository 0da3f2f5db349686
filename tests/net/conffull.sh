#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A full tunnel (AllowedIPs 0.0.0.0/0, ::/0) under wgd -c is closed to the
# LAN as under wg-quick(8) (issue 21, item 2; the CVE-2019-14899 class):
#   - a neighbour on a's LAN (namespace c, with routes to a's tunnel
#     addresses through a) gets no answer from them, IPv4 or IPv6, while a's
#     LAN address answers it; the same under wg-quick with wgd as its
#     userspace implementation, whose nftables table (wg-quick-IF) has the
#     same chains and rules as wgd's (wgd-IF);
#   - traffic through the tunnel still flows with strict reverse-path
#     filtering on a, the peer reached through a's default route: the
#     answers to the daemon's marked datagrams pass the check only because
#     the CONNMARK rules give them the mark back;
#   - a reload that adds an address closes it too; one that removes the
#     default routes removes the tables and the rules;
#   - nothing (no table, no rule, no route) is left after SIGTERM, after
#     the teardown of a daemon that dropped to an unprivileged user (only
#     CAP_NET_ADMIN left), and after a start that failed half-way (a
#     failing PostUp, after the table was made).
# Without the table the neighbour's pings are answered, and without the
# CONNMARK rules no handshake completes.

. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/conflib.sh"

nt_init cu
nt_need nft wg-quick unshare mount
cf_pair
IF_C=$(nt_name v ac)	# a's end of the LAN to c
VETH_C=$(nt_name v c)
NS_C=$(nt_name "" c)
nt_netns "$NS_C"
ip link add "$IF_C" netns "$NS_A" type veth peer name "$VETH_C" netns "$NS_C" || nt_fail "LAN veth"
ip -n "$NS_A" addr add 198.18.0.1/24 dev "$IF_C" &&
	ip -n "$NS_A" addr add fd00:3::1/64 dev "$IF_C" nodad &&
	ip -n "$NS_C" addr add 198.18.0.2/24 dev "$VETH_C" &&
	ip -n "$NS_C" addr add fd00:3::2/64 dev "$VETH_C" nodad &&
	ip -n "$NS_A" link set "$IF_C" up &&
	ip -n "$NS_C" link set "$VETH_C" up || nt_fail "LAN addresses"
# c believes a's tunnel addresses are reached through a (a spoofing
# neighbour needs no more than that).
ip -n "$NS_C" route add 198.51.100.0/24 via 198.18.0.1 &&
	ip -n "$NS_C" route add fd00:2::/64 via fd00:3::1 || nt_fail "c's routes to the tunnel"
# a reaches b's endpoint address (on b's loopback) through its default
# route: the reverse path of b's datagrams, looked up without the mark, is
# the tunnel, so strict rp_filter drops them unless CONNMARK restores the mark.
ip -n "$NS_B" addr add 198.18.1.1/32 dev lo &&
	ip -n "$NS_A" route add default via 192.0.2.2 dev "$VETH_A" || nt_fail "b's endpoint beyond a's default route"
nt_x "$NS_A" sysctl -qw net.ipv4.conf.all.rp_filter=1 net.ipv4.conf.default.rp_filter=1 \
	"net.ipv4.conf.$VETH_A.rp_filter=1" || nt_fail "rp_filter"
ip -n "$NS_B" addr add 203.0.113.1/32 dev lo || nt_fail "the network behind b"
nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,198.51.100.3/32,fd00:2::1/128 ||
	nt_fail "b's peer"
nt_until "$NT_TIMEOUT" nt_x "$NS_C" ping -c 1 -W 1 198.18.0.1 || nt_fail "c cannot reach a on the LAN"
nt_until "$NT_TIMEOUT" nt_x "$NS_C" ping -6 -c 1 -W 1 fd00:3::1 || nt_fail "c cannot reach a on the LAN (IPv6)"
conf=$NT_TMP/$IF_A.conf
before=$(cf_snapshot "$NS_A")

# full ADDRESSES [ALLOWED-IPS [INTERFACE-LINE]]: a's file.
full() {
	cf_write "$conf" <<EOF
[Interface]
PrivateKey = $(cat "${NT_PRIV[$IF_A]}")
ListenPort = $NT_PORT
Address = $1
${3:-}

[Peer]
PublicKey = ${NT_PUB[$IF_B]}
Endpoint = 198.18.1.1:$NT_PORT
AllowedIPs = ${2:-0.0.0.0/0, ::/0}
EOF
}

# answers DST [PING-ARGS]: how many of c's 2 echo requests to DST were answered.
answers() {
	local dst=$1
	shift
	nt_x "$NS_C" ping -n -c 2 -i 0.3 -W 1 "$@" "$dst" 2>/dev/null |
		sed -n 's/.* \([0-9]*\) received.*/\1/p'
}

# closed WHAT ADDR...: c's pings to each ADDR get no answer, a's LAN address answers.
closed() {
	local what=$1 a n
	shift
	[ "$(answers 198.18.0.1)" = 2 ] || nt_fail "$what: a's LAN address does not answer c"
	for a in "$@"; do
		n=$(answers "$a")
		[ "$n" = 0 ] || nt_fail "$what: the neighbour's ping to $a was answered $n of 2"
	done
}

# tables NAME: the chains and rules of a's nftables tables NAME (ip and
# ip6), NAME and handles left out, rules sorted within a chain; the drop of
# link-local addresses left out (wg-quick lists the TUN device's fe80::, to
# which the kernel never delivers from another link anyway).
tables() {
	nt_x "$NS_A" nft -j list ruleset | "$NT_PY" -c '
import json, sys
name = sys.argv[1]
out = {}
for o in json.load(sys.stdin)["nftables"]:
    (kind, v), = o.items()
    if kind not in ("chain", "rule") or v["table"] != name:
        continue
    key = "%s %s" % (v["family"], v["chain" if kind == "rule" else "name"])
    if kind == "chain":
        out.setdefault(key, {})["hook"] = [v.get(k) for k in ("type", "hook", "prio", "policy")]
    elif "fe80:" not in json.dumps(v["expr"]):
        out.setdefault(key, {}).setdefault("rules", []).append(json.dumps(v["expr"], sort_keys=True))
for c in out.values():
    c.get("rules", []).sort()
print(json.dumps(out, indent=1, sort_keys=True))
' "$1"
}

# reload: SIGHUP, then until the daemon has logged one more "reloaded".
reload() {
	local log=$NT_TMP/$IF_A.$NT_RUN.log cnt
	cnt=$(grep -c "INFO: reloaded " "$log")
	kill -HUP "${NT_DPID[$IF_A]}"
	nt_until "$NT_TIMEOUT" eval '[ "$(grep -c "INFO: reloaded " "$log")" -gt "$cnt" ]' ||
		nt_fail "no reload: $(tail -n 5 "$log")"
}

# no_rules: a has no policy rule but the kernel's three (per family).
no_rules() {
	cf_json "$NS_A" -4 rule show 'len(d) == 3' && cf_json "$NS_A" -6 rule show 'len(d) == 2'
}

# ---- wgd -c: the neighbour gets no answer, the tunnel works ----
full "198.51.100.1/24, fd00:2::1/64"
cf_start "$NS_A" "$IF_A" "$conf"
closed "wgd -c" 198.51.100.1 fd00:2::1
nt_ok "wgd -c: c's pings to 198.51.100.1 and fd00:2::1 answered 0 of 2; a's LAN address answers"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "full tunnel: ping b's tunnel address"
nt_ping "$IF_A" 203.0.113.1 || nt_fail "full tunnel: ping the network behind b"
nt_ping "$IF_A" fd00:2::2 -6 || nt_fail "full tunnel: ping6 b's tunnel address"
[ "$(nt_endpoint_of "$IF_A")" = "198.18.1.1:$NT_PORT" ] ||
	nt_fail "b's endpoint moved to $(nt_endpoint_of "$IF_A"): the test no longer tests the reverse path"
nt_ok "wgd -c, strict rp_filter, b beyond the default route: the tunnel carries IPv4 and IPv6"
wgd_tables=$(tables "wgd-$IF_A")
[ "$wgd_tables" != "{}" ] || nt_fail "wgd -c: no nftables table wgd-$IF_A: $(nt_x "$NS_A" nft list ruleset)"

# ---- reloads: an address added; the default routes gone and back ----
full "198.51.100.1/24, 198.51.100.3/24, fd00:2::1/64"
reload
closed "reload with 198.51.100.3" 198.51.100.1 198.51.100.3 fd00:2::1
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b after the first reload"
nt_ok "reload: the added 198.51.100.3 is closed to c too"
full "198.51.100.1/24, fd00:2::1/64" "198.51.100.2/32, fd00:2::2/128, 203.0.113.0/24"
reload
[ "$(tables "wgd-$IF_A")" = "{}" ] || nt_fail "split tunnel after a reload: a table is left: $(nt_x "$NS_A" nft list ruleset)"
[ -z "$(nt_x "$NS_A" nft list tables)" ] || nt_fail "split tunnel after a reload: $(nt_x "$NS_A" nft list tables)"
no_rules || nt_fail "split tunnel after a reload: rules left: $(ip -n "$NS_A" rule show)"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping b after the reload to a split tunnel"
nt_ok "reload without the default routes: no table, no rule left"
full "198.51.100.1/24, fd00:2::1/64"
reload
[ "$(tables "wgd-$IF_A")" = "$wgd_tables" ] || nt_fail "the table after the default routes came back"
closed "reload back to a full tunnel" 198.51.100.1 fd00:2::1
cf_stop "$IF_A"
cf_same_snapshot "$before" "$(cf_snapshot "$NS_A")" "wgd -c, SIGTERM"
nt_ok "reload back to a full tunnel: closed again; after SIGTERM nothing is left"

# ---- the teardown of an unprivileged daemon (CAP_NET_ADMIN only) ----
cf_start "$NS_A" "$IF_A" "$conf" --user nobody
pid=${NT_DPID[$IF_A]}
grep -q '^CapEff:.*00001000$' "/proc/$pid/status" || nt_fail "--user nobody: $(grep Cap "/proc/$pid/status")"
[ "$(tables "wgd-$IF_A")" = "$wgd_tables" ] || nt_fail "--user nobody: the table"
cf_stop "$IF_A"
cf_same_snapshot "$before" "$(cf_snapshot "$NS_A")" "wgd -c --user nobody, SIGTERM"
nt_ok "dropped to nobody with CAP_NET_ADMIN: the table is removed at exit all the same"

# ---- a start that fails half-way ----
full "198.51.100.1/24, fd00:2::1/64" "0.0.0.0/0, ::/0" "PostUp = nft list table ip wgd-%i && false"
NT_RUN=$((NT_RUN + 1))
log=$NT_TMP/$IF_A.$NT_RUN.log
nt_fresh "$log"
st=0
LOG_LEVEL=verbose timeout 30 ip netns exec "$NS_A" "$(nt_impl wgd)" -f -c "$conf" "$IF_A" >>"$log" 2>&1 || st=$?
[ "$st" != 0 ] || nt_fail "a failing PostUp: wgd exited with 0"
grep -q 'chain preraw' "$log" || nt_fail "a failing PostUp: the table did not exist when it ran: $(tail -n 5 "$log")"
cf_same_snapshot "$before" "$(cf_snapshot "$NS_A")" "a failing PostUp"
nt_ok "a start that fails at PostUp (the table in place by then): nothing left"

# ---- the same file under wg-quick, wgd its userspace implementation ----
shim=$NT_TMP/shim
mkdir -p "$shim" || nt_fail "mkdir"
cat >"$shim/ip" <<-EOF2 || nt_fail "ip shim"
	#!/bin/sh
	case " \$* " in
	*" type wireguard "*) echo "ip: kernel WireGuard links hidden by the test" >&2; exit 2 ;;
	esac
	exec $(command -v ip) "\$@"
	EOF2
chmod +x "$shim/ip"
cp "$(command -v wg-quick)" "$shim/wg-quick" || nt_fail "copying wg-quick"
wgquick() {
	WG_QUICK_USERSPACE_IMPLEMENTATION=$(nt_impl wgd) LOG_LEVEL=verbose PATH="$shim:$PATH" \
		timeout 30 ip netns exec "$NS_A" unshare -m --propagation private sh -c \
		'mount -t tmpfs ntnomodules /sys/module && exec "$0" "$@"' "$shim/wg-quick" "$@"
}
full "198.51.100.1/24, fd00:2::1/64"
wgquick up "$conf" >"$NT_TMP/wg-quick-up.log" 2>&1 || nt_fail "wg-quick up: $(cat "$NT_TMP/wg-quick-up.log")"
pid=$(nt_find_daemon "$(nt_impl wgd)" "$IF_A")
[ -n "$pid" ] && NT_DPID[$IF_A]=$pid
nt_ping "$IF_A" 198.51.100.2 || nt_fail "wg-quick: ping b's tunnel address"
closed "wg-quick" 198.51.100.1 fd00:2::1
quick_tables=$(tables "wg-quick-$IF_A")
wgquick down "$conf" >"$NT_TMP/wg-quick-down.log" 2>&1 || nt_fail "wg-quick down: $(cat "$NT_TMP/wg-quick-down.log")"
[ -z "$pid" ] || nt_wait_gone "$pid" 5 || nt_fail "wgd still running after wg-quick down"
unset "NT_DPID[$IF_A]"
if [ "$quick_tables" != "$wgd_tables" ]; then
	diff <(printf '%s\n' "$quick_tables") <(printf '%s\n' "$wgd_tables") >&2
	nt_fail "wg-quick's table wg-quick-$IF_A (<) and wgd's wgd-$IF_A (>) differ"
fi
nt_ok "wg-quick with wgd: answered 0 of 2 as well; its chains and rules are wgd's"
echo "PASS"
