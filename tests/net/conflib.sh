# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for the tests of wgd's bring-up from a wg-quick file (wgd -c FILE,
# wgd up IFNAME): source after lib.sh.

# cf_write FILE: standard input into FILE, mode 0600 (it holds a private key).
cf_write() {
	(umask 077 && cat >"$1") || nt_fail "writing $1"
}

# Environment assignments (VAR=VALUE) for the daemons cf_start starts.
CF_ENV=()

# cf_start NS IF FILE [ARGS...]: wgd -f -c FILE IF [ARGS...] in NS, our child
# (so its PID and exit status are known); waits until the file is applied:
# the daemon logs "serving" then (the control socket answers earlier, while
# hooks run).  Log: $NT_TMP/IF.RUN.log.
cf_start() {
	local ns=$1 ifc=$2 conf=$3 prog pid
	shift 3
	prog=$(nt_impl wgd) || exit 1
	NT_NS[$ifc]=$ns
	NT_IFACES+=("$ifc")
	nt_fresh "$NT_TMP/$ifc.$NT_RUN.log"	# several starts of one run share the name
	LOG_LEVEL=${NT_LOG_LEVEL:-verbose} ip netns exec "$ns" env "${CF_ENV[@]}" "$prog" -f -c "$conf" "$ifc" "$@" \
		>>"$NT_TMP/$ifc.$NT_RUN.log" 2>&1 &
	pid=$!
	NT_DPID[$ifc]=$pid
	if ! nt_until "$NT_TIMEOUT" grep -q "INFO: serving $ifc " "$NT_TMP/$ifc.$NT_RUN.log"; then
		nt_gone "$pid" && nt_fail "wgd -f -c $conf exited at start: $(tail -n 5 "$NT_TMP/$ifc.$NT_RUN.log")"
		nt_fail "wgd -f -c $conf: not serving after ${NT_TIMEOUT}s"
	fi
	nt_note "started wgd -c $(basename "$conf") as $ifc in $ns, pid $pid"
}

# cf_stop IF: SIGTERM; the daemon must end within 5 s with status 0.
cf_stop() {
	local pid=${NT_DPID[$1]} st
	kill -TERM "$pid" 2>/dev/null
	nt_wait_gone "$pid" 5 || nt_fail "$1: wgd still running 5 s after SIGTERM"
	wait "$pid"
	st=$?
	[ "$st" = 0 ] || nt_fail "$1: wgd exited with status $st"
	unset "NT_DPID[$1]"
}

# cf_log IF: the daemon's log of the current run.
cf_log() { cat "$NT_TMP/$1.$NT_RUN.log"; }

cf_no_tentative() { [ -z "$(ip -n "$1" -6 addr show tentative)" ]; }

# cf_snapshot NS: the namespace's links, addresses, routes of every table,
# policy rules (IPv4 and IPv6), nftables ruleset and src_valid_mark,
# normalized, one JSON document: equal before a bring-up and after its
# teardown.
cf_snapshot() {
	local ns=$1
	nt_need nft
	# A link-local address still in duplicate address detection would
	# change (and get its local route) between two snapshots.
	nt_until "$NT_TIMEOUT" cf_no_tentative "$ns" || nt_fail "$ns: addresses stay tentative"
	{
		ip -n "$ns" -j link show
		echo
		ip -n "$ns" -j addr show
		echo
		ip -n "$ns" -4 -j route show table all
		echo
		ip -n "$ns" -6 -j route show table all
		echo
		ip -n "$ns" -4 -j rule show
		echo
		ip -n "$ns" -6 -j rule show
		echo
		ip netns exec "$ns" nft -j list ruleset
		echo
		printf '"%s"\n' "$(ip netns exec "$ns" sysctl -n net.ipv4.conf.all.src_valid_mark)"
	} | "$NT_PY" -c '
import json, sys
docs = [json.loads(d) for d in sys.stdin.read().split("\n\n")]
# Counters and the link state of the veth are not what a bring-up changes;
# the version of nft and the handles it numbers objects with are not state.
def clean(o):
    if isinstance(o, dict):
        return {k: clean(v) for k, v in o.items()
                if k not in ("stats", "stats64", "operstate", "metainfo", "handle")}
    if isinstance(o, list):
        return [clean(v) for v in o]
    return o
print(json.dumps(clean(docs), indent=1, sort_keys=True))
'
}

# cf_same_snapshot BEFORE AFTER WHAT: the two snapshots are equal, else the difference.
cf_same_snapshot() {
	[ "$1" = "$2" ] && return 0
	diff <(printf '%s\n' "$1") <(printf '%s\n' "$2") | head -40 >&2
	nt_fail "$3: the namespace's network configuration differs from before the bring-up"
}

# cf_json NS ARGS... PYTHON: ip -j ARGS parsed as `d`; fails unless the last
# line of PYTHON (an expression, after the statements before it) is true.
cf_json() {
	local ns=$1 expr=${*: -1} out
	local args=("${@:2:$#-2}")
	out=$(ip -n "$ns" -j "${args[@]}") || nt_fail "ip -j ${args[*]}"
	printf '%s' "$out" | "$NT_PY" -c '
import json, sys
d = json.load(sys.stdin)
lines = sys.argv[1].strip().split("\n")
exec("\n".join(lines[:-1]))
sys.exit(0 if eval(lines[-1]) else 1)
' "$expr"
}

# cf_pair: the two namespaces (nt_topo), IF_A for the test's wgd -c and, in
# b, a wgd configured with wg whose peer is a at the tunnel's .1 addresses.
cf_pair() {
	nt_topo
	IF_A=$(nt_name wg a)
	IF_B=$(nt_name wg b)
	nt_daemon "$NS_B" "$IF_B" wgd
	nt_keys "$IF_A"
	nt_keys "$IF_B"
	nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" \
		peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,fd00:2::1/128 || nt_fail "configuring b"
	nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64
}
