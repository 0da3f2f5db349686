# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# A small harness for the integration tests: two network namespaces joined by
# a veth pair, a WireGuard daemon in each (wgd or Debian's wireguard-go, both
# configured with Debian's wg), and cleanup that always runs.
#
# Source it from a bash script, then call nt_init ID (two letters, unique per
# test).  Everything it creates is named after ID and the shell's PID modulo
# 1000 (n), so that runs of different tests, or of one test from two build
# directories, do not collide: namespaces "nt<ID><n><side>", veths
# "ntv<ID><n><side>", WireGuard interfaces "ntwg<ID><n><side>" (side: one or
# two characters; at most 15 in all, the kernel's IFNAMSIZ - 1).
# /var/run/wireguard is shared by every namespace, which is why the interface
# names themselves must be unique.
#
# Addresses exist only inside the namespaces: the outer (veth) network is
# 192.0.2.0/24 and fd00:1::/64, the inner (tunnel) network 198.51.100.0/24 and
# fd00:2::/64; side a is .1/::1, side b is .2/::2.
#
# Environment:
#   WGD        path to the wgd executable (meson passes it)
#   WGD_IMPL   run this program wherever a test asks for "wgd"; WGD_IMPL=wireguard-go
#              proves the harness before wgd exists
#   WGGO2025   the upstream wireguard-go 2025 binary for the role "wireguard-go-2025"
#              (default /var/cache/wgd-wggo; built by ../shared/peers/wireguard-go/build.sh)
#   NT_KEEP=1  do not remove the temporary directory (daemon logs) at exit
#   NT_LOG_LEVEL  LOG_LEVEL for daemons started with nt_daemon (default verbose)
#   NT_WRAP_WGD  a command nt_daemon runs wgd under (e.g. valgrind and options)
#   NT_QUIET=1 no progress details (which daemon started where)

set -u

NT_PORT=51820
NT_MTU=1420
NT_TIMEOUT=10		# seconds any wait loop may take before giving up
NT_POLL=0.05		# seconds between polls

NT_ID=
NT_U=
NT_TMP=
NT_NAMESPACES=()
NT_PIDS=()			# every background process we started
NT_IFACES=()			# every WireGuard interface name we used
NT_RUN=0			# incremented by each nt_teardown; names the logs
NT_BAD=0			# set when a daemon ended badly at teardown
declare -A NT_NS		# interface -> namespace
# shellcheck disable=SC2034 # read by the test scripts
declare -A NT_IMPL		# interface -> program running it
declare -A NT_DPID		# interface -> daemon PID
declare -A NT_PRIV		# interface -> private key file
declare -A NT_PUB		# interface -> public key (base64)

# The tests need only python3's standard library; prefer the system's, since
# a version manager's shim first in PATH costs 0.4 s per start.
NT_PY=python3
[ -x /usr/bin/python3 ] && NT_PY=/usr/bin/python3

nt_log() { printf '%s\n' "$*"; }
# nt_note MSG: progress detail, silenced by NT_QUIET=1 (the demo).
nt_note() { [ "${NT_QUIET:-0}" = 1 ] || printf '%s\n' "$*"; }
nt_ok() { printf 'ok: %s\n' "$*"; }

# nt_fail MSG: the test failed; cleanup runs from the EXIT trap.
nt_fail() {
	printf 'FAIL: %s\n' "$*" >&2
	exit 1
}

# nt_fresh FILE: FILE created empty now, by this shell.  A background
# command's own redirection (`cmd >FILE &`) truncates FILE only once the
# child runs, so a wait that reads FILE right after the launch can still see
# the previous run's lines: conf-hooks saw an earlier start's "serving", went
# on, and then read the new, still empty log.  Start daemons with `>>FILE`
# after this.
nt_fresh() { : >"$1" || nt_fail "cannot create $1"; }

nt_skip() {
	printf 'SKIP: %s\n' "$*"
	exit 77
}

# nt_need PROGRAM...: every tool must be installed (CI installs them first);
# a missing one fails the test clearly rather than skipping it.
nt_need() {
	local p
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 ||
			nt_fail "required program '$p' is not installed (tools/install-deps installs it)"
	done
}

# The upstream wireguard-go of 2025 (TUN TSO/USO, UDP GSO/GRO), where it was built.
NT_WGGO2025_DEFAULT=/var/cache/wgd-wggo

# nt_impl ROLE: the program to run for ROLE ("wgd", "wireguard-go" for
# Debian's, "wireguard-go-2025" for upstream's of 2025: the same
# "PROGRAM [-f] IFNAME" contract and control socket).
nt_impl() {
	case "$1" in
	wgd)
		if [ -n "${WGD_IMPL:-}" ]; then
			command -v "$WGD_IMPL" || nt_fail "WGD_IMPL=$WGD_IMPL not found"
		elif [ -n "${WGD:-}" ] && [ -x "$WGD" ]; then
			printf '%s\n' "$WGD"
		else
			nt_fail "WGD is not set to an executable wgd (got '${WGD:-}'); meson sets it"
		fi
		;;
	wireguard-go)
		command -v wireguard-go || nt_fail "wireguard-go is not installed"
		;;
	wireguard-go-2025)
		local w=${WGGO2025:-$NT_WGGO2025_DEFAULT}
		[ -x "$w" ] || nt_fail "no wireguard-go 2025 at $w (../shared/peers/wireguard-go/build.sh $w builds it)"
		printf '%s\n' "$w"
		;;
	*)
		nt_fail "unknown implementation role '$1'"
		;;
	esac
}

# nt_init ID: root check, tools, names, temporary directory, cleanup trap.
nt_init() {
	NT_ID=$1
	if [ "$(id -u)" != 0 ]; then
		nt_skip "network namespace tests need root"
	fi
	nt_need ip wg ping "$NT_PY" timeout
	NT_U=$(($$ % 1000))
	NT_TMP=$(mktemp -d "/tmp/nt$NT_ID.XXXXXX") || nt_fail "mktemp"
	trap nt_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# nt_name KIND SIDE: the name of an object of this test (KIND "" = namespace,
# "v" = veth, "wg" = WireGuard interface; SIDE one letter).
nt_name() {
	printf 'nt%s%s%s%s\n' "$1" "$NT_ID" "$NT_U" "$2"
}

# nt_gone PID: true once the process no longer exists or is a zombie.
nt_gone() {
	local st
	[ -r "/proc/$1/stat" ] || return 0
	st=$(cut -d')' -f2- "/proc/$1/stat" 2>/dev/null | awk '{print $1}')
	[ -z "$st" ] || [ "$st" = Z ] || [ "$st" = X ]
}

# nt_wait_gone PID SECONDS: bounded wait for a process to end.
nt_wait_gone() {
	local i n
	n=$(awk -v s="$2" -v p="$NT_POLL" 'BEGIN { printf "%d", s / p }')
	for ((i = 0; i < n; i++)); do
		nt_gone "$1" && return 0
		sleep "$NT_POLL"
	done
	nt_gone "$1"
}

# nt_until SECONDS COMMAND...: poll COMMAND until it succeeds, at most SECONDS.
nt_until() {
	local s=$1 i n
	shift
	n=$(awk -v s="$s" -v p="$NT_POLL" 'BEGIN { printf "%d", s / p }')
	for ((i = 0; i < n; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep "$NT_POLL"
	done
	"$@" >/dev/null 2>&1
}

nt_stop_pid() {
	local pid=$1
	nt_gone "$pid" && return 0
	kill -TERM "$pid" 2>/dev/null
	if ! nt_wait_gone "$pid" 5; then
		kill -KILL "$pid" 2>/dev/null
		nt_wait_gone "$pid" 2
	fi
	wait "$pid" 2>/dev/null
	return 0
}

# nt_stop_daemon IF: SIGTERM to the interface's daemon, which must end
# within 5 s, with status 0 if it is our child (started with -f); a daemon
# that crashed earlier shows here too.  Failures are recorded in NT_BAD.
nt_stop_daemon() {
	local ifc=$1 pid=${NT_DPID[$1]:-} st
	[ -n "$pid" ] || return 0
	if ! nt_gone "$pid"; then
		kill -TERM "$pid" 2>/dev/null
		if ! nt_wait_gone "$pid" 5; then
			kill -KILL "$pid" 2>/dev/null
			nt_wait_gone "$pid" 2
			echo "FAIL: $ifc's daemon (pid $pid) did not exit within 5 s of SIGTERM" >&2
			NT_BAD=1
		fi
	fi
	wait "$pid" 2>/dev/null
	st=$?
	# 127: not our child (a daemon that went to the background) or reaped
	# already by the test itself.
	if [ "$st" != 0 ] && [ "$st" != 127 ]; then
		echo "FAIL: $ifc's daemon (pid $pid) exited with status $st" >&2
		NT_BAD=1
	fi
	return 0
}

# nt_teardown: stop helpers and daemons by their PIDs, delete the namespaces
# (and with them the veths) and the socket files.  Logs stay until exit; the
# next daemons log under a new run number.
nt_teardown() {
	local pid ns ifc
	for pid in "${NT_PIDS[@]}"; do
		nt_stop_pid "$pid"
	done
	for ifc in "${NT_IFACES[@]}"; do
		nt_stop_daemon "$ifc"
	done
	for ns in "${NT_NAMESPACES[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	for ifc in "${NT_IFACES[@]}"; do
		rm -f "/var/run/wireguard/$ifc.sock" "/var/run/wireguard/$ifc.name"
	done
	NT_PIDS=()
	NT_NAMESPACES=()
	NT_IFACES=()
	NT_DPID=()
	NT_RUN=$((NT_RUN + 1))
}

# Runs at every exit: teardown, then fail the test if a sanitizer or runtime
# reported anything in a daemon's log, and show the logs of a failed test.
nt_cleanup() {
	local rc=$? log
	trap - EXIT INT TERM
	nt_teardown
	[ "$NT_BAD" = 1 ] && [ "$rc" != 77 ] && rc=1
	if [ -n "$NT_TMP" ] && [ -d "$NT_TMP" ]; then
		for log in "$NT_TMP"/*.log; do
			[ -e "$log" ] || continue
			if grep -qE 'Sanitizer|runtime error:|panic:' "$log"; then
				echo "FAIL: $(basename "$log"): sanitizer or runtime error:" >&2
				grep -E -A30 'Sanitizer|runtime error:|panic:' "$log" | head -60 >&2
				rc=1
			fi
			if [ "$rc" != 0 ] && [ "$rc" != 77 ]; then
				echo "---- last lines of $(basename "$log") ----" >&2
				tail -n 25 "$log" >&2
			fi
		done
		if [ "${NT_KEEP:-0}" = 1 ]; then
			echo "kept $NT_TMP" >&2
		else
			rm -rf "$NT_TMP"
		fi
	fi
	exit "$rc"
}

# nt_x NS COMMAND...: run a command inside a namespace, bounded in time.
nt_x() {
	local ns=$1
	shift
	timeout 30 ip netns exec "$ns" "$@"
}

# nt_wg IF ARGS...: wg against the interface's daemon, from its namespace.
nt_wg() {
	local ifc=$1
	shift
	timeout 10 ip netns exec "${NT_NS[$ifc]}" wg "$@"
}

# nt_netns NAME: create a namespace with loopback up.
nt_netns() {
	ip netns add "$1" || nt_fail "ip netns add $1"
	NT_NAMESPACES+=("$1")
	ip -n "$1" link set lo up || nt_fail "lo up in $1"
}

nt_carrier() {
	[ "$(ip netns exec "$1" cat "/sys/class/net/$2/operstate")" = up ]
}

# nt_topo: namespaces NS_A and NS_B joined by VETH_A <-> VETH_B, with the
# outer addresses (no duplicate address detection, so IPv6 is usable at once).
nt_topo() {
	NS_A=$(nt_name "" a)
	NS_B=$(nt_name "" b)
	VETH_A=$(nt_name v a)
	VETH_B=$(nt_name v b)
	nt_netns "$NS_A"
	nt_netns "$NS_B"
	ip link add "$VETH_A" netns "$NS_A" type veth peer name "$VETH_B" netns "$NS_B" ||
		nt_fail "veth pair"
	ip -n "$NS_A" addr add 192.0.2.1/24 dev "$VETH_A"
	ip -n "$NS_B" addr add 192.0.2.2/24 dev "$VETH_B"
	ip -n "$NS_A" addr add fd00:1::1/64 dev "$VETH_A" nodad
	ip -n "$NS_B" addr add fd00:1::2/64 dev "$VETH_B" nodad
	ip -n "$NS_A" link set "$VETH_A" up
	ip -n "$NS_B" link set "$VETH_B" up
	# Until both ends have carrier, the first neighbor solicitation is lost
	# and the first IPv6 ping waits a whole retransmission second.
	nt_until "$NT_TIMEOUT" nt_carrier "$NS_A" "$VETH_A" || nt_fail "$VETH_A has no carrier"
	nt_until "$NT_TIMEOUT" nt_carrier "$NS_B" "$VETH_B" || nt_fail "$VETH_B has no carrier"
	nt_until "$NT_TIMEOUT" nt_x "$NS_A" ping -c 1 -W 1 192.0.2.2 ||
		nt_fail "outer IPv4 between the namespaces does not work"
	nt_until "$NT_TIMEOUT" nt_x "$NS_A" ping -6 -c 1 -W 1 fd00:1::2 ||
		nt_fail "outer IPv6 between the namespaces does not work"
}

# nt_sock_ready IF: the control socket answers.
nt_sock_ready() {
	[ -S "/var/run/wireguard/$1.sock" ] && nt_wg "$1" show "$1" >/dev/null 2>&1
}

# nt_daemon NS IF ROLE: start a daemon in the foreground (so its PID is known:
# ip netns exec execs it) and wait until its control socket answers.
nt_daemon() {
	local ns=$1 ifc=$2 prog pid
	prog=$(nt_impl "$3") || exit 1
	NT_NS[$ifc]=$ns
	NT_IMPL[$ifc]=$prog
	NT_IFACES+=("$ifc")
	local wrap=
	[ "$3" = wgd ] && wrap=${NT_WRAP_WGD:-}
	nt_fresh "$NT_TMP/$ifc.$NT_RUN.log"
	# shellcheck disable=SC2086 # the wrapper is a command line (valgrind ...)
	LOG_LEVEL=${NT_LOG_LEVEL:-verbose} ip netns exec "$ns" $wrap "$prog" -f "$ifc" >>"$NT_TMP/$ifc.$NT_RUN.log" 2>&1 &
	pid=$!
	NT_DPID[$ifc]=$pid
	if ! nt_until "$NT_TIMEOUT" nt_sock_ready "$ifc"; then
		nt_gone "$pid" && nt_fail "$prog -f $ifc exited at start"
		nt_fail "$prog -f $ifc: control socket not answering after ${NT_TIMEOUT}s"
	fi
	nt_note "started $3 ($prog) as $ifc in $ns, pid $pid"
}

# nt_find_daemon PROG IF: the PID of a daemonized "PROG IF" (the process that
# went to the background), from /proc; empty if none.
nt_find_daemon() {
	local want d
	want=$(printf '%s\0%s\0' "$1" "$2" | od -An -tx1 | tr -d ' \n')
	for d in /proc/[0-9]*; do
		[ "${d#/proc/}" = "$$" ] && continue
		if [ "$(od -An -tx1 "$d/cmdline" 2>/dev/null | tr -d ' \n')" = "$want" ]; then
			nt_gone "${d#/proc/}" || { printf '%s\n' "${d#/proc/}"; return 0; }
		fi
	done
	return 0
}

# nt_daemon_bg NS IF ROLE: start a daemon the ordinary way (no -f); it must
# return only once its control socket is listening, which is checked at once,
# without waiting.
nt_daemon_bg() {
	local ns=$1 ifc=$2 prog pid i
	prog=$(nt_impl "$3") || exit 1
	NT_NS[$ifc]=$ns
	# shellcheck disable=SC2034 # read by the test scripts
	NT_IMPL[$ifc]=$prog
	NT_IFACES+=("$ifc")
	timeout 20 ip netns exec "$ns" "$prog" "$ifc" >"$NT_TMP/$ifc.$NT_RUN.launch.log" 2>&1 ||
		nt_fail "'$prog $ifc' exited with status $?: $(tail -n 5 "$NT_TMP/$ifc.$NT_RUN.launch.log")"
	nt_sock_ready "$ifc" ||
		nt_fail "'$prog $ifc' returned before its control socket was listening"
	for ((i = 0; i < 100; i++)); do
		pid=$(nt_find_daemon "$prog" "$ifc")
		[ -n "$pid" ] && break
		sleep "$NT_POLL"
	done
	[ -n "$pid" ] || nt_fail "cannot find the background process of '$prog $ifc'"
	NT_DPID[$ifc]=$pid
	nt_note "started $3 ($prog) in the background as $ifc in $ns, pid $pid"
}

# nt_keys IF: a key pair for the interface (made once per test and name).
nt_keys() {
	local ifc=$1
	[ -n "${NT_PUB[$ifc]:-}" ] && return 0	# stable for the whole test
	NT_PRIV[$ifc]=$NT_TMP/$ifc.key
	(umask 077 && wg genkey >"${NT_PRIV[$ifc]}") || nt_fail "wg genkey"
	NT_PUB[$ifc]=$(wg pubkey <"${NT_PRIV[$ifc]}") || nt_fail "wg pubkey"
}

# nt_addr IF V4 V6: inner addresses (with prefix length) on the interface, MTU, up.
nt_addr() {
	local ifc=$1 ns=${NT_NS[$1]}
	ip -n "$ns" link set "$ifc" mtu "$NT_MTU" || nt_fail "mtu on $ifc"
	ip -n "$ns" addr add "$2" dev "$ifc" || nt_fail "address $2 on $ifc"
	ip -n "$ns" addr add "$3" dev "$ifc" nodad || nt_fail "address $3 on $ifc"
	ip -n "$ns" link set "$ifc" up || nt_fail "link up $ifc"
}

# nt_pair ROLE_A ROLE_B: the standard two-sided tunnel.  Keys, listen port
# NT_PORT on both sides, each side the other's peer with its inner /32 and
# /128 as allowed IPs, no endpoints (see nt_endpoint), inner addresses and
# MTU on the interfaces.  Sets IF_A, IF_B.
nt_pair() {
	nt_topo
	IF_A=$(nt_name wg a)
	IF_B=$(nt_name wg b)
	nt_daemon "$NS_A" "$IF_A" "$1"
	nt_daemon "$NS_B" "$IF_B" "$2"
	nt_keys "$IF_A"
	nt_keys "$IF_B"
	nt_wg "$IF_A" set "$IF_A" private-key "${NT_PRIV[$IF_A]}" listen-port "$NT_PORT" ||
		nt_fail "wg set $IF_A private-key/listen-port"
	nt_wg "$IF_B" set "$IF_B" private-key "${NT_PRIV[$IF_B]}" listen-port "$NT_PORT" ||
		nt_fail "wg set $IF_B private-key/listen-port"
	nt_peers_add
	nt_addr "$IF_A" 198.51.100.1/24 fd00:2::1/64
	nt_addr "$IF_B" 198.51.100.2/24 fd00:2::2/64
}

# nt_peers_add: each side gets the other as a peer (no endpoint).
nt_peers_add() {
	nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" allowed-ips 198.51.100.2/32,fd00:2::2/128 ||
		nt_fail "wg set $IF_A peer"
	nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" allowed-ips 198.51.100.1/32,fd00:2::1/128 ||
		nt_fail "wg set $IF_B peer"
}

# nt_peers_reset: remove both peers (ending every session) and add them back.
nt_peers_reset() {
	nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" remove || nt_fail "wg set $IF_A peer remove"
	nt_wg "$IF_B" set "$IF_B" peer "${NT_PUB[$IF_A]}" remove || nt_fail "wg set $IF_B peer remove"
	[ -z "$(nt_wg "$IF_A" show "$IF_A" peers)" ] || nt_fail "$IF_A still lists a peer after remove"
	[ -z "$(nt_wg "$IF_B" show "$IF_B" peers)" ] || nt_fail "$IF_B still lists a peer after remove"
	nt_peers_add
}

# nt_other IF: the other side of the standard pair.
nt_other() {
	if [ "$1" = "$IF_A" ]; then printf '%s\n' "$IF_B"; else printf '%s\n' "$IF_A"; fi
}

# nt_outer IF FAMILY: the outer address of IF's side (4 or 6).
nt_outer() {
	local n=1
	[ "$1" = "$IF_B" ] && n=2
	if [ "$2" = 6 ]; then printf 'fd00:1::%s\n' "$n"; else printf '192.0.2.%s\n' "$n"; fi
}

# nt_inner IF FAMILY: the inner address of IF's side.
nt_inner() {
	local n=1
	[ "$1" = "$IF_B" ] && n=2
	if [ "$2" = 6 ]; then printf 'fd00:2::%s\n' "$n"; else printf '198.51.100.%s\n' "$n"; fi
}

# nt_endpoint_str ADDR PORT: wg's endpoint notation.
nt_endpoint_str() {
	case "$1" in
	*:*) printf '[%s]:%s\n' "$1" "$2" ;;
	*) printf '%s:%s\n' "$1" "$2" ;;
	esac
}

# nt_endpoint IF FAMILY: point IF's peer at the other side's outer address.
nt_endpoint() {
	local o
	o=$(nt_other "$1")
	nt_wg "$1" set "$1" peer "${NT_PUB[$o]}" endpoint "$(nt_endpoint_str "$(nt_outer "$o" "$2")" "$NT_PORT")" ||
		nt_fail "wg set $1 endpoint"
}

# nt_dump_peer IF PEERPUB: the peer's line of "wg show IF dump":
# public-key preshared-key endpoint allowed-ips latest-handshake rx tx keepalive
nt_dump_peer() {
	nt_wg "$1" show "$1" dump | awk -v k="$2" 'NR > 1 && $1 == k'
}

# nt_field IF PEERPUB N: field N (1-based) of that line.
nt_field() {
	nt_dump_peer "$1" "$2" | awk -v n="$3" '{ print $n }'
}

nt_handshake() { nt_field "$1" "$(nt_peer_of "$1")" 5; }
nt_endpoint_of() { nt_field "$1" "$(nt_peer_of "$1")" 3; }
nt_peer_of() { printf '%s\n' "${NT_PUB[$(nt_other "$1")]}"; }

# Nanosecond-exact handshake time, from the daemon's own get reply.
nt_handshake_ns() { nt_handshake_ns_of "$1" "$(nt_peer_of "$1")"; }

# nt_get SOCKET: the daemon's whole reply to a get=1 on the control socket at
# path SOCKET (fails if it cannot connect within 5 s).
nt_get() {
	printf 'get=1\n\n' | timeout 5 "$NT_PY" -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
buf = b""
while not buf.endswith(b"\n\n"):
    d = s.recv(65536)
    if not d: break
    buf += d
sys.stdout.write(buf.decode())
' "$1"
}

# nt_handshake_ns_of IF PEERPUB: the same for any peer of IF's daemon.
nt_handshake_ns_of() {
	local hex
	hex=$(printf '%s' "$2" | base64 -d | od -An -tx1 | tr -d ' \n')
	nt_get "/var/run/wireguard/$1.sock" | "$NT_PY" -c '
import sys
want, sec, nsec, cur = sys.argv[1], None, None, None
for l in sys.stdin.read().splitlines():
    k, _, v = l.partition("=")
    if k == "public_key": cur = v
    elif cur == want and k == "last_handshake_time_sec": sec = v
    elif cur == want and k == "last_handshake_time_nsec": nsec = v
print("%s.%s" % (sec, nsec))
' "$hex"
}

# nt_ping IF DST [PING-ARGS...]: from IF's namespace; one echo must come back
# within a few tries (the first may wait for a handshake).  A try that an
# ICMP unreachable ends at once (wgd's peer has no endpoint yet: it learns
# one from the peer's handshake) still takes its 3 s before the next.
nt_ping() {
	local ifc=$1 dst=$2 i t0
	shift 2
	for ((i = 0; i < 3; i++)); do
		t0=$SECONDS
		nt_x "${NT_NS[$ifc]}" ping -q -c 1 -W 3 "$@" "$dst" >/dev/null 2>&1 && return 0
		[ $((SECONDS - t0)) -ge 3 ] || sleep $((3 - (SECONDS - t0)))
	done
	return 1
}

# nt_noping IF DST [PING-ARGS...]: no echo comes back.
nt_noping() {
	local ifc=$1 dst=$2
	shift 2
	! nt_x "${NT_NS[$ifc]}" ping -q -c 3 -i 0.3 -W 1 "$@" "$dst" >/dev/null 2>&1
}

# nt_rx_packets IF: packets the daemon delivered to the kernel through its TUN
# device (the TUN's receive counter).
nt_rx_packets() {
	nt_x "${NT_NS[$1]}" cat "/sys/class/net/$1/statistics/rx_packets"
}

# nt_bg NS COMMAND...: a helper process in a namespace, stopped at cleanup.
# Sets NT_BG_PID.
nt_bg() {
	local ns=$1
	shift
	ip netns exec "$ns" "$@" &
	NT_BG_PID=$!
	NT_PIDS+=("$NT_BG_PID")
}

# nt_iperf_server IF: iperf3 server on IF's side (all addresses).
nt_iperf_server() {
	nt_need iperf3
	nt_bg "${NT_NS[$1]}" iperf3 -s -p 5201 >"$NT_TMP/iperf3-server-$1.log" 2>&1
	nt_until "$NT_TIMEOUT" sh -c "ip netns exec '${NT_NS[$1]}' ss -ltnH 'sport = :5201' | grep -q ." ||
		nt_fail "iperf3 server did not start"
}

# nt_iperf NS DST SECONDS [IPERF-ARGS...]: one TCP run; prints Gbit/s received.
nt_iperf() {
	local ns=$1 dst=$2 t=$3 out
	shift 3
	out=$NT_TMP/iperf3-$RANDOM.json
	timeout $((t + 20)) ip netns exec "$ns" iperf3 -c "$dst" -p 5201 -t "$t" -J "$@" >"$out" 2>&1 ||
		{ echo "iperf3 failed: $(head -c 600 "$out")" >&2; return 1; }
	"$NT_PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
print("%.3f" % (d["end"]["sum_received"]["bits_per_second"] / 1e9))
' "$out"
}

# nt_cpu_ticks PID: user + system CPU time of a process, in clock ticks.
nt_cpu_ticks() {
	cut -d')' -f2- "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

# nt_hwm_kb PID: peak resident set size (VmHWM), in kB.
nt_hwm_kb() {
	awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"
}
