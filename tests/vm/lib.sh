# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The VM tests' harness, on top of tests/net/lib.sh (names, daemons, keys,
# cleanup): one network namespace "h" on the host with a tap device, and a
# qemu guest (TCG) running Debian 12's kernel whose virtio NIC is that tap;
# the kernel's WireGuard in the guest is the reference peer of the daemon
# under test, which runs in the namespace.
#
#   host namespace: tap   192.0.2.1/24   fd00:1::1/64   (outer)
#                   HIF   198.51.100.1   fd00:2::1      (the daemon's TUN)
#   guest:          eth0  192.0.2.2/24   fd00:1::2/64
#                   wg0   198.51.100.2   fd00:2::2      (the kernel's WireGuard)
#
# Both listen on NT_PORT; MTU 1420 inside, 1500 outside.  Commands run in the
# guest over a serial line (tests/vm/init, tests/vm/vmctl.py); the kernel's
# console goes to $NT_TMP/console.log.  Cleanup (tests/net/lib.sh's EXIT
# trap) kills qemu and the daemon by PID and deletes the namespace, with the
# tap in it.

. "$(dirname "${BASH_SOURCE[0]}")/../net/lib.sh"

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_TOP=$(cd "$VM_DIR/../.." && pwd)
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-120}	# s; TCG on a busy machine
# VM_ARCH: amd64 (the default: qemu-system-x86_64, virtio NIC), mipsel
# (qemu-system-mipsel -M malta, a pcnet NIC; tools/routerbench) or mips
# (big-endian: qemu-system-mips -M malta -cpu 24Kc, a pcnet NIC): the guest
# tests/vm/image.sh makes.  VM_QEMU_ARGS: more arguments for qemu (an array;
# the router benchmark's counting plugin).  VM_NIC: the guest NIC's qemu
# model (MIPS: pcnet, the default, or virtio-net-pci; amd64: virtio-net-pci).
# VM_SMP: the guest's CPUs (qemu -smp; default 1).  VM_GWGD_THREADS: the
# guest's wgd runs with --threads N (empty: without the option, wgd's
# default).
VM_ARCH=${VM_ARCH:-amd64}
VM_SMP=${VM_SMP:-1}
VM_GWGD_THREADS=${VM_GWGD_THREADS:-}
[ -n "${VM_QEMU_ARGS+x}" ] || VM_QEMU_ARGS=()
# Guest programs by path: busybox's sh runs its own applets before PATH.
if [ "$VM_ARCH" = mipsel ] || [ "$VM_ARCH" = mips ]; then
	VM_MEM=${VM_MEM:-256}	# malta's RAM, without highmem
	# iproute2's ip; iputils' ping from Debian's mipsel packages, busybox's
	# in the big-endian guest
	G_PING=/bin/ping
	G_IP=/bin/ip
else
	VM_MEM=${VM_MEM:-384}
	G_PING=/usr/bin/ping
	G_IP=/usr/sbin/ip
	G_NC=/usr/bin/nc.openbsd
fi
# VM_GUEST_WG: what is wg0 in the guest: "kernel" (the default; its
# wireguard.ko) or "wgd" (/usr/local/bin/wgd, the mipsel build that
# VM_EXTRA put there; tests/vm/mips.sh).  VM_HWHO, VM_GWHO: what the
# messages of tests/vm/scenarios.sh call the host's daemon and wg0.
VM_GUEST_WG=${VM_GUEST_WG:-kernel}
VM_HWHO=${VM_HWHO:-the daemon}
VM_GWHO=${VM_GWHO:-the kernel}

HOST4=192.0.2.1
HOST6=fd00:1::1
GUEST4=192.0.2.2
GUEST6=fd00:1::2
HIN4=198.51.100.1
HIN6=fd00:2::1
GIN4=198.51.100.2
GIN6=fd00:2::2

# vm_g SECONDS SCRIPT: run SCRIPT in the guest (sh), killed there after
# SECONDS; its output on stdout, its status returned.
vm_g() {
	"$NT_PY" "$VM_DIR/vmctl.py" "$VM_SOCK" "$1" "$2"
}

# vm_g_ok SECONDS SCRIPT WHAT: as vm_g, failing the test with the output.
vm_g_ok() {
	local out
	out=$(vm_g "$1" "$2" 2>&1) || nt_fail "$3 (in the guest, status $?): $out"
	[ -z "$out" ] || printf '%s\n' "$out"
}

# vm_h COMMAND...: a command in the host namespace, bounded in time.
vm_h() {
	nt_x "$HNS" "$@"
}

# vm_build DIR MESON-ARGS...: wgd of this tree built in DIR (configured on
# first use with MESON-ARGS, no tests, no manual pages), and the targets in
# VM_BUILD_MORE (wgctl: tools/wgctl/wgctl); 1 with the log's end on stderr
# if that fails.  No root needed.
vm_build() {
	local dir=$1
	shift
	mkdir -p "$(dirname "$dir")" || return 1
	if [ ! -d "$dir/meson-private" ]; then
		meson setup "$dir" "$VM_TOP" -Dtests=false -Dman=disabled "$@" >"$dir.setup.log" 2>&1 ||
			{ tail -n 30 "$dir.setup.log" >&2; echo "meson setup $dir failed" >&2; return 1; }
	fi
	# shellcheck disable=SC2086 # the targets are words
	ninja -C "$dir" -j2 daemon/wgd ${VM_BUILD_MORE:-} >"$dir.build.log" 2>&1 ||
		{ tail -n 30 "$dir.build.log" >&2; echo "the build of $dir failed" >&2; return 1; }
}

# vm_mips_missing: the first program or library that the MIPS guest of
# VM_ARCH (mipsel or mips) and its wgd (cross build) need and this machine
# lacks, with what installs it; nothing if none is missing.
vm_mips_missing() {
	local p
	if [ "$VM_ARCH" = mips ]; then
		for p in qemu-system-mips mips-linux-gnu-gcc mips-linux-gnu-strip mips-linux-gnu-readelf \
			meson ninja dpkg-source autoreconf libtoolize flex bison bc; do
			command -v "$p" >/dev/null 2>&1 || { echo "$p (tools/install-deps installs it)"; return 0; }
		done
		apt-cache showsrc --only-source busybox 2>/dev/null | grep -q '^Version:' ||
			echo "a deb-src entry for Debian's archive, for the guest's sources (tools/install-deps adds it)"
		return 0
	fi
	for p in qemu-system-mipsel mipsel-linux-gnu-gcc mipsel-linux-gnu-strip mipsel-linux-gnu-readelf meson ninja; do
		command -v "$p" >/dev/null 2>&1 || { echo "$p (tools/install-deps installs it)"; return 0; }
	done
	for p in libsodium libmnl; do
		[ -e "/usr/lib/mipsel-linux-gnu/pkgconfig/$p.pc" ] ||
			{ echo "$p-dev:mipsel (tools/install-deps installs it)"; return 0; }
	done
	dpkg --print-foreign-architectures 2>/dev/null | grep -qx mipsel ||
		echo "dpkg's mipsel architecture, for the guest's packages (tools/install-deps adds it)"
}

# vm_mips_wgd BDIR: the wgd of this tree for the guest of VM_ARCH (mipsel:
# cross/mipsel-linux-gnu.ini; mips: cross/mips-linux-gnu.ini with the
# libraries of tools/mips-be-deps), -Dasm=enabled, the default -O2, built
# in BDIR/VM_ARCH and stripped to BDIR/wgd, the guest's copy (VM_EXTRA);
# and wgctl, stripped to BDIR/wgctl (mipsel) or BDIR/wg (mips: the
# big-endian guest's wg).
vm_mips_wgd() {
	if [ "$VM_ARCH" = mips ]; then
		"$VM_TOP/tools/mips-be-deps" >/dev/null || return 1
		VM_BUILD_MORE=tools/wgctl/wgctl vm_build "$1/mips" --cross-file "$VM_TOP/cross/mips-linux-gnu.ini" \
			-Dasm=enabled &&
			mips-linux-gnu-strip -o "$1/wgd" "$1/mips/daemon/wgd" &&
			mips-linux-gnu-strip -o "$1/wg" "$1/mips/tools/wgctl/wgctl"
	else
		VM_BUILD_MORE=tools/wgctl/wgctl vm_build "$1/mipsel" --cross-file "$VM_TOP/cross/mipsel-linux-gnu.ini" \
			-Dasm=enabled &&
			mipsel-linux-gnu-strip -o "$1/wgd" "$1/mipsel/daemon/wgd" &&
			mipsel-linux-gnu-strip -o "$1/wgctl" "$1/mipsel/tools/wgctl/wgctl"
	fi
}

# vm_gwgd_start IF [THREADS]: a guest script that starts /usr/local/bin/wgd
# as IF in the foreground of a background job (with --threads THREADS, by
# default VM_GWGD_THREADS's, when not empty), its PID in /run/wgd-IF.pid,
# its exit status (once it ends) in /run/wgd-IF.rc, its log appended to
# /run/wgd-IF.log, and waits (at most 30 s) until wg can talk to it.
vm_gwgd_start() {
	local f=/run/wgd-$1 t=${2-$VM_GWGD_THREADS}
	cat <<-EOF
	rm -f $f.rc
	(set +e; sh -c 'echo \$\$ >$f.pid; exec env LOG_LEVEL=info /usr/local/bin/wgd -f ${t:+--threads $t }$1'; echo \$? >$f.rc) </dev/null >>$f.log 2>&1 &
	i=0
	until [ -S /run/wireguard/$1.sock ] && wg show $1 >/dev/null 2>&1; do
		[ ! -e $f.rc ] || { echo "wgd -f $1 exited with status \$(cat $f.rc)"; tail -n 20 $f.log; exit 1; }
		i=\$((i + 1))
		[ \$i -lt 300 ] || { echo "wgd -f $1 not answering after 30 s"; tail -n 20 $f.log; exit 1; }
		sleep 0.1
	done
	EOF
}

# vm_gwgd_stop IF [SIGNAL]: a guest script that sends the guest's wgd IF
# SIGNAL (default TERM) and waits (at most 10 s) until it has exited; after
# SIGTERM its status must be 0.
vm_gwgd_stop() {
	local f=/run/wgd-$1 sig=${2:-TERM}
	cat <<-EOF
	kill -$sig \$(cat $f.pid) || exit 1
	i=0
	until [ -e $f.rc ]; do
		i=\$((i + 1))
		[ \$i -lt 100 ] || { echo "wgd -f $1 still running 10 s after SIG$sig"; exit 1; }
		sleep 0.1
	done
	rc=\$(cat $f.rc)
	[ $sig != TERM ] || [ "\$rc" = 0 ] || { echo "wgd -f $1 exited with status \$rc after SIGTERM"; tail -n 20 $f.log; exit 1; }
	EOF
}

# vm_gwg_addr IF V4 V6: a guest script that sets IF's MTU (NT_MTU), its
# addresses (V4 and V6 with prefix lengths; no duplicate address detection,
# so that IPv6 is usable at once) and brings it up.
vm_gwg_addr() {
	printf 'set -e\n%s link set %s mtu %s\n%s addr add %s dev %s\n%s addr add %s dev %s nodad\n%s link set %s up\n' \
		"$G_IP" "$1" "$NT_MTU" "$G_IP" "$2" "$1" "$G_IP" "$3" "$1" "$G_IP" "$1"
}

# vm_boot ROLE: the namespace, the tap, the guest booted and its command
# channel answering, the daemon ROLE (wgd or wireguard-go) as HIF, the keys;
# then vm_reset configures both sides.
vm_boot() {
	local img qemu devs
	VM_T0=$SECONDS
	if [ "$VM_ARCH" = mipsel ]; then
		qemu=(qemu-system-mipsel -M malta -cpu 34Kf)
		devs=(-global virtio-net-pci.romfile=)
	elif [ "$VM_ARCH" = mips ]; then
		# the 24Kc of ath79 routers (no FPU: the guest's programs are
		# built for it, unlike Debian's glibc under qemu-user)
		qemu=(qemu-system-mips -M malta -cpu 24Kc)
		devs=(-global virtio-net-pci.romfile=)
	else
		qemu=(qemu-system-x86_64 -accel tcg)
		devs=(-device virtio-rng-pci -global virtio-net-pci.romfile=)
	fi
	nt_need "${qemu[0]}" ip wg "$NT_PY" iperf3 nft
	img=$(VM_ARCH=$VM_ARCH "$VM_DIR/image.sh") || nt_fail "tests/vm/image.sh could not make the guest image"
	eval "$img"
	HNS=$(nt_name "" h)
	TAP=$(nt_name t h)
	HIF=$(nt_name wg h)
	VM_ROLE=$1
	VM_SOCK=$NT_TMP/cmd.sock
	nt_netns "$HNS"
	ip -n "$HNS" tuntap add dev "$TAP" mode tap || nt_fail "tap $TAP"
	ip -n "$HNS" addr add "$HOST4/24" dev "$TAP"
	ip -n "$HNS" addr add "$HOST6/64" dev "$TAP" nodad
	ip -n "$HNS" link set "$TAP" up
	local t0=$SECONDS
	local model=${VM_NIC:-virtio-net-pci}
	[ "$VM_ARCH" = amd64 ] || model=${VM_NIC:-pcnet}
	nt_bg "$HNS" "${qemu[@]}" -nographic -m "$VM_MEM" -smp "$VM_SMP" -no-reboot \
		-kernel "$KERNEL" -initrd "$INITRD" -append "console=ttyS0 panic=-1 loglevel=6" \
		-serial "file:$NT_TMP/console.log" \
		-chardev "socket,id=cmd,path=$VM_SOCK,server=on,wait=off" -serial chardev:cmd \
		-monitor none "${devs[@]}" \
		-nic "tap,ifname=$TAP,script=no,downscript=no,model=$model" \
		"${VM_QEMU_ARGS[@]}" </dev/null >"$NT_TMP/qemu.log" 2>&1
	VM_QEMU=$NT_BG_PID
	if ! "$NT_PY" "$VM_DIR/vmctl.py" "$VM_SOCK" --wait "$VM_BOOT_TIMEOUT"; then
		echo "---- qemu ----" >&2
		tail -n 20 "$NT_TMP/qemu.log" >&2
		echo "---- console ----" >&2
		tail -n 40 "$NT_TMP/console.log" >&2
		nt_fail "the guest did not answer on its command channel within ${VM_BOOT_TIMEOUT}s"
	fi
	nt_ok "guest ($KVER) booted in $((SECONDS - t0)) s, qemu pid $VM_QEMU"
	# -smp N: the kernel must bring up N CPUs, or the threads run on one
	[ "$VM_SMP" = 1 ] || vm_g_ok 10 "[ \$(cat /sys/devices/system/cpu/online) = 0-$((VM_SMP - 1)) ]" \
		"the guest's CPUs online are '$(vm_g 5 "cat /sys/devices/system/cpu/online")', not 0-$((VM_SMP - 1)) (-smp $VM_SMP)"
	vm_g_ok 10 "test -d /sys/module/wireguard && test -e /sys/class/net/eth0" \
		"the guest has no wireguard module or no eth0 (see $NT_TMP/console.log)"
	# Until then the kernel's WireGuard drops handshake messages.
	nt_until 30 vm_g 5 "dmesg | grep -q 'crng init done'" ||
		nt_fail "the guest's random number generator is not initialized 30 s after boot"
	vm_g_ok 20 "
		set -e
		$G_IP link set eth0 up
		$G_IP addr add $GUEST4/24 dev eth0
		$G_IP addr add $GUEST6/64 dev eth0 nodad
		mkdir -p /run/bg" "guest network setup"
	if [ "$VM_GUEST_WG" = wgd ]; then
		vm_g_ok 60 "$(vm_gwgd_start wg0)" "wgd in the guest"
	else
		vm_g_ok 10 "$G_IP link add wg0 type wireguard" "the kernel's wg0 in the guest"
	fi
	vm_g_ok 20 "$(vm_gwg_addr wg0 $GIN4/24 $GIN6/64)" "wg0's addresses in the guest"
	nt_until "$NT_TIMEOUT" vm_h ping -c 1 -W 1 "$GUEST4" || nt_fail "no outer IPv4 between host and guest"
	nt_until "$NT_TIMEOUT" vm_h ping -6 -c 1 -W 1 "$GUEST6" || nt_fail "no outer IPv6 between host and guest"
	nt_daemon "$HNS" "$HIF" "$VM_ROLE"
	nt_keys "$HIF"
	nt_keys guest
	GKEY=$(cat "${NT_PRIV[guest]}")
	GPUB=${NT_PUB[guest]}
	HPUB=${NT_PUB[$HIF]}
	nt_addr "$HIF" "$HIN4/24" "$HIN6/64"
	vm_reset
}

# vm_host_conf [ENDPOINT]: the daemon's configuration (wg setconf format);
# peer endpoint ENDPOINT (default the guest's IPv4 one; "none" for none).
vm_host_conf() {
	local ep=${1:-$GUEST4:$NT_PORT}
	printf '[Interface]\nPrivateKey = %s\nListenPort = %s\n\n' "$(cat "${NT_PRIV[$HIF]}")" "$NT_PORT"
	printf '[Peer]\nPublicKey = %s\nAllowedIPs = %s/32, %s/128\n' "$GPUB" "$GIN4" "$GIN6"
	[ "$ep" = none ] || printf 'Endpoint = %s\n' "$ep"
}

# vm_guest_setconf [ENDPOINT]: the same for the guest's wg0, applied there.
vm_guest_setconf() {
	local ep=${1:-$HOST4:$NT_PORT} epl=
	[ "$ep" = none ] || epl="Endpoint = $ep"
	vm_g_ok 10 "cat >/run/wg0.conf <<EOF
[Interface]
PrivateKey = $GKEY
ListenPort = $NT_PORT

[Peer]
PublicKey = $HPUB
AllowedIPs = $HIN4/32, $HIN6/128
$epl
EOF
wg setconf wg0 /run/wg0.conf" "wg setconf wg0"
}

# vm_host_setconf [ENDPOINT]
vm_host_setconf() {
	vm_host_conf "$@" >"$NT_TMP/host.conf"
	nt_wg "$HIF" setconf "$HIF" "$NT_TMP/host.conf" || nt_fail "wg setconf $HIF"
}

# vm_reset: the state every scenario starts from: both sides configured as
# above, IPv4 endpoints, no session, no background jobs in the guest, the
# guest's outer addresses and port as at boot.
vm_reset() {
	# A MIPS guest's clock runs at the rate its kernel calibrated against the
	# emulated RTC at boot, a few per cent off on a loaded host: it is set
	# from the host's before each scenario, whose handshake times are
	# compared across the two (tests/vm/scenarios.sh, show).
	[ "$VM_ARCH" = amd64 ] || vm_g_ok 10 "date -u -s '$(date -u '+%Y-%m-%d %H:%M:%S')' >/dev/null" "the guest's clock"
	vm_g_ok 20 "
		for f in /run/bg/*.pid; do [ -e \"\$f\" ] && kill \$(cat \"\$f\") 2>/dev/null; rm -f \"\$f\"; done
		$G_IP addr flush dev eth0
		$G_IP addr add $GUEST4/24 dev eth0
		$G_IP addr add $GUEST6/64 dev eth0 nodad
		true" "guest reset"
	GKEY=$(cat "${NT_PRIV[guest]}")
	GPUB=${NT_PUB[guest]}
	HPUB=${NT_PUB[$HIF]}
	vm_guest_setconf
	vm_host_setconf
}

# vm_dump_host: the peer line of the daemon's "wg show dump" (the guest's peer):
# public-key psk endpoint allowed-ips latest-handshake rx tx keepalive
vm_dump_host() {
	nt_wg "$HIF" show "$HIF" dump | awk -v k="$GPUB" 'NR > 1 && $1 == k'
}

# vm_dump_guest: the same line from the guest's wg0 (the daemon's peer).
vm_dump_guest() {
	vm_g 10 "wg show wg0 dump" | awk -v k="$HPUB" 'NR > 1 && $1 == k'
}

# vm_hfield N / vm_gfield N: field N of those lines.
vm_hfield() { vm_dump_host | awk -v n="$1" '{ print $n }'; }
vm_gfield() { vm_dump_guest | awk -v n="$1" '{ print $n }'; }

# vm_hping DST [PING-ARGS...]: one echo from the host namespace within three
# tries of 3 s (the first may wait for a handshake; one that an ICMP
# unreachable ends at once, the daemon's peer having no endpoint yet, still
# takes its 3 s).
vm_hping() {
	local dst=$1 i t0
	shift
	for ((i = 0; i < 3; i++)); do
		t0=$SECONDS
		vm_h ping -q -c 1 -W 3 "$@" "$dst" >/dev/null 2>&1 && return 0
		[ $((SECONDS - t0)) -ge 3 ] || sleep $((3 - (SECONDS - t0)))
	done
	return 1
}

# vm_gping DST [PING-ARGS...]: the same from the guest.
vm_gping() {
	local dst=$1
	shift
	vm_g 20 "for i in 1 2 3; do $G_PING -q -c 1 -W 3 $* $dst >/dev/null 2>&1 && exit 0; done; exit 1" >/dev/null
}

# vm_both_ways WHAT: IPv4 and IPv6 inner pings in both directions.
vm_both_ways() {
	vm_hping "$GIN4" || nt_fail "ping host -> guest $1"
	vm_hping "$GIN6" -6 || nt_fail "ping6 host -> guest $1"
	vm_gping "$HIN4" || nt_fail "ping guest -> host $1"
	vm_gping "$HIN6" -6 || nt_fail "ping6 guest -> host $1"
}

# vm_now_ms: host wall clock in ms (the guest's clock starts from the same
# RTC; handshake times are wall-clock seconds on both sides).
vm_now_ms() { date +%s%3N; }

# vm_first_reply_ms WHERE DST SECONDS [PING-ARGS...]: milliseconds until
# the first echo from DST comes back, pinging every 0.1 s from WHERE ("host"
# or "guest") for at most SECONDS; empty if none.  Measured by ping itself,
# so the command channel's delay does not count: (sequence number of the
# first reply - 1) * 0.1 s + its round-trip time.
vm_first_reply_ms() {
	local where=$1 dst=$2 s=$3 out
	shift 3
	if [ "$where" = host ]; then
		out=$(vm_h ping -n -c 1 -i 0.1 -w "$s" "$@" "$dst" 2>&1)
	else
		out=$(vm_g $((s + 5)) "$G_PING -n -c 1 -i 0.1 -w $s $* $dst" 2>&1)
	fi
	printf '%s\n' "$out" | awk '/bytes from/ {
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^icmp_seq=/) { sub(/^icmp_seq=/, "", $i); seq = $i }
			if ($i ~ /^time=/) { sub(/^time=/, "", $i); rtt = $i }
		}
		printf "%d\n", (seq - 1) * 100 + rtt; exit
	}'
}

# vm_daemon_alive: the daemon under test still runs and answers wg.
vm_daemon_alive() {
	! nt_gone "${NT_DPID[$HIF]}" && nt_sock_ready "$HIF"
}

# vm_settle_host: after a scenario, the host's daemon: a restarted one's PID
# taken from $NT_TMP/daemon.pid (written in the scenario's subshell); one
# that is gone or does not answer is started again (1 returned).
vm_settle_host() {
	if [ -e "$NT_TMP/daemon.pid" ]; then
		NT_DPID[$HIF]=$(cat "$NT_TMP/daemon.pid")
		rm -f "$NT_TMP/daemon.pid"
	fi
	vm_daemon_alive && return 0
	echo "FAIL: $VM_HWHO (pid ${NT_DPID[$HIF]}) is gone or does not answer; starting it again" >&2
	NT_RUN=$SECONDS		# the new daemon's log is a new file
	nt_daemon "$HNS" "$HIF" "$VM_ROLE"
	nt_addr "$HIF" "$HIN4/24" "$HIN6/64"
	return 1
}

# vm_run SCENARIO...: after vm_boot, each scenario (function sc_NAME) in
# order, in a subshell (a failure is reported and the rest still run; the
# helpers it started are stopped when it ends), then VM_SETTLE (a function;
# default vm_settle_host; non-zero fails the scenario) and vm_reset.
# Scenarios in SKIP (an associative array "ROLE:SCENARIO" -> the reason, if
# the caller declared it) are skipped with the reason printed.  The last
# line sums up; exits 1 if any failed.
vm_run() {
	local s why t0 base rc passed=() failed=() skipped=()
	for s in "$@"; do
		why=
		if declare -p SKIP >/dev/null 2>&1; then
			why=${SKIP[$VM_ROLE:$s]:-}
		fi
		if [ -n "$why" ]; then
			nt_log "==== $s: SKIP against $VM_ROLE: $why"
			skipped+=("$s")
			continue
		fi
		nt_log "==== $s"
		t0=$SECONDS
		base=${#NT_PIDS[@]}
		(
			trap 'for p in "${NT_PIDS[@]:'"$base"'}"; do nt_stop_pid "$p"; done' EXIT
			"sc_$s"
		)
		rc=$?
		"${VM_SETTLE:-vm_settle_host}" || rc=1
		if [ "$rc" = 0 ]; then
			nt_log "==== $s: PASS ($((SECONDS - t0)) s)"
			passed+=("$s")
		else
			nt_log "==== $s: FAIL ($((SECONDS - t0)) s)"
			failed+=("$s")
		fi
		vm_reset
	done
	nt_log "against $VM_ROLE, $((SECONDS - VM_T0)) s: ${#passed[@]} passed, ${#failed[@]} failed (${failed[*]}), ${#skipped[@]} skipped (${skipped[*]})"
	[ ${#failed[@]} = 0 ] || exit 1
	echo PASS
}
