# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# A real systemd for the tests of tests/systemd: the Debian package built
# from this tree, and a Debian container booted by systemd-nspawn in a
# network namespace that the test makes, with the package installed in it
# as a user would install it.
#
# - sd_image: the container's root, debootstrapped once (minbase and
#   SD_PACKAGES, about 250 MB, 40 s to 2 min) into SD_CACHE and reused;
#   the mirror is the one apt on this machine uses for its own release.
# - sd_deb: the source and binary packages (dpkg-buildpackage) from a copy
#   of the source tree, built in a namespace without a network (so it is
#   proven to build offline), once per content of the tree, in SD_OUT.
# - sd_boot NS: the container booted on an overlay of the cached root
#   (nothing written to the cache), in the network namespace NS:
#   systemd-nspawn -b --register=no --keep-unit (no D-Bus on the host to
#   register with), --network-namespace-path, CAP_NET_ADMIN.  nspawn runs
#   in a cgroup of its own (under the caller's), under which it makes
#   payload/ and supervisor/; the cleanup removes that cgroup whole.
# - sd_in COMMAND...: COMMAND in the container (nsenter -a into its PID 1),
#   with a clean environment, bounded in time.
#
# Source it after tests/net/lib.sh's nt_init (its namespaces, temporary
# directory and checks); the cleanup of both runs at exit.
#
# Environment:
#   SD_SRC   the source tree (meson passes it)
#   SD_OUT   where the package is built and kept (meson: the build directory)
#   WGD_SYSTEMD_CACHE  the container's cache (default /var/cache/wgd-systemd)

. "$(dirname "${BASH_SOURCE[0]}")/../net/lib.sh"

SD_CACHE=${WGD_SYSTEMD_CACHE:-/var/cache/wgd-systemd}
# What the container has besides minbase: systemd as PID 1, what the
# package depends on (dpkg -i fails if this lacks one), and what
# wgd-quick@.service runs (wg-quick: wireguard-tools, nftables).
SD_PACKAGES=(systemd systemd-sysv dbus iproute2 procps libsodium23 libmnl0 wireguard-tools nftables)
SD_TIMEOUT=60		# seconds a command in the container may take

SD_NSPAWN=		# the systemd-nspawn process
SD_LEADER=		# the container's PID 1 (systemd), as seen from here
SD_ROOT=		# the cached root
SD_CT=			# the booted container's directory (overlay)
SD_CGROUPS=()		# the cgroups made for nspawn
SD_DEB=			# the package

# sd_init ID: nt_init, then what booting a container needs; where nspawn
# cannot run here, the test is skipped and says why.
sd_init() {
	[ "$(id -u)" = 0 ] || nt_skip "systemd-nspawn and the namespaces need root"
	nt_init "$1"
	trap sd_cleanup EXIT
	nt_need systemd-nspawn debootstrap nsenter unshare flock mount dpkg-buildpackage dpkg-deb \
		apt-get sha256sum
	[ -n "${SD_SRC:-}" ] && [ -f "$SD_SRC/debian/control" ] ||
		nt_fail "SD_SRC is not set to the source tree (meson sets it)"
	[ -n "${SD_OUT:-}" ] || nt_fail "SD_OUT is not set (meson sets it)"
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
		nt_skip "systemd-nspawn: no overlay file system here for the container's root"
	grep -qw overlay /proc/filesystems ||
		nt_skip "systemd-nspawn: no overlay file system here for the container's root"
	[ -n "$(sd_cgroup_mounts)" ] ||
		nt_skip "systemd-nspawn: no cgroup file system (name=systemd or cgroup2) mounted here"
	unshare -n true 2>/dev/null || nt_skip "systemd-nspawn: cannot make namespaces here (unshare -n)"
}

# The cgroup hierarchies nspawn writes to: cgroup2 and v1's name=systemd.
sd_cgroup_mounts() {
	awk '$3 == "cgroup2" || ($3 == "cgroup" && $4 ~ /(^|,)name=systemd(,|$)/) { print $2 }' /proc/mounts
}

# sd_cleanup: the container, its overlay and cgroups, then nt_cleanup.
sd_cleanup() {
	local rc=$?
	sd_halt
	(exit "$rc")
	nt_cleanup
}

# sd_mirror: the URI of the archive apt uses for this machine's release.
sd_mirror() {
	local codename=$1
	apt-get indextargets --format '$(TARGET_OF) $(RELEASE) $(COMPONENT) $(REPO_URI)' 2>/dev/null |
		awk -v r="$codename" '$1 == "deb" && $2 == r && $3 == "main" { print $4; exit }'
}

# sd_image: SD_ROOT, the cached container root, made now if missing.  The
# cache is named after the release and SD_PACKAGES; an older one is removed.
sd_image() {
	local codename key mirror tmp t0
	codename=$(. /etc/os-release && printf '%s\n' "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || nt_fail "/etc/os-release names no release (VERSION_CODENAME)"
	key=$(printf '%s\n' "$codename" "${SD_PACKAGES[@]}" | sha256sum | cut -c1-12)
	SD_ROOT=$SD_CACHE/root-$codename-$key
	mkdir -p "$SD_CACHE" || nt_fail "mkdir $SD_CACHE"
	exec 8>"$SD_CACHE/lock"
	flock -w 900 8 || nt_fail "cannot lock $SD_CACHE/lock within 900 s"
	if [ ! -e "$SD_ROOT/.complete" ]; then
		mirror=$(sd_mirror "$codename")
		if [ -z "$mirror" ]; then
			apt-get update >"$NT_TMP/apt-update.log" 2>&1 || true
			mirror=$(sd_mirror "$codename")
		fi
		[ -n "$mirror" ] || nt_fail "apt has no archive for '$codename main' (apt-get indextargets)"
		tmp=$SD_CACHE/new-$$
		rm -rf "$tmp"
		t0=$(date +%s)
		nt_log "debootstrap $codename into $SD_ROOT (once; the tests reuse it)"
		if ! debootstrap --variant=minbase --include="$(IFS=,; echo "${SD_PACKAGES[*]}")" \
			"$codename" "$tmp" "$mirror" >"$NT_TMP/debootstrap.log" 2>&1; then
			tail -n 30 "$NT_TMP/debootstrap.log" >&2
			rm -rf "$tmp"
			nt_fail "debootstrap $codename from $mirror failed"
		fi
		touch "$tmp/.complete"
		find "$SD_CACHE" -mindepth 1 -maxdepth 1 -name 'root-*' -exec rm -rf {} +
		mv "$tmp" "$SD_ROOT" || nt_fail "mv $tmp $SD_ROOT"
		nt_log "debootstrap took $(($(date +%s) - t0)) s, $(du -sm "$SD_ROOT" | cut -f1) MB"
	fi
	flock -u 8
	exec 8>&-
}

# sd_tree DEST: the source tree's files (as git lists them when it is a
# checkout, uncommitted changes included; else all but build directories).
sd_tree() {
	local dest=$1
	mkdir -p "$dest" || nt_fail "mkdir $dest"
	if git -C "$SD_SRC" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$SD_SRC" && git ls-files -z -co --exclude-standard |
			while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf -) | tar -xf - -C "$dest"
	else
		(cd "$SD_SRC" && tar --exclude='./build*' --exclude=./.git -cf - .) | tar -xf - -C "$dest"
	fi || nt_fail "cannot copy $SD_SRC to $dest"
}

# sd_deb: SD_DEB, the package built from the tree as it is now (and
# SD_DEB_LOG, its build log).  Built once per content: a second test
# waits for the first one's build and takes it.
sd_deb() {
	local ver src key dir t0
	ver=$(dpkg-parsechangelog -l "$SD_SRC/debian/changelog" -S Version) || nt_fail "debian/changelog"
	mkdir -p "$SD_OUT" || nt_fail "mkdir $SD_OUT"
	exec 7>"$SD_OUT/deb.lock"
	flock -w 900 7 || nt_fail "cannot lock $SD_OUT/deb.lock within 900 s"
	src=$SD_OUT/src-$$/wgd-$ver
	rm -rf "$SD_OUT/src-$$"
	sd_tree "$src"
	key=$(cd "$src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
	dir=$SD_OUT/deb-$key
	SD_DEB=$dir/wgd_${ver}_$(dpkg --print-architecture).deb
	SD_DEB_LOG=$dir/build.log
	if [ ! -e "$dir/.complete" ]; then
		find "$SD_OUT" -mindepth 1 -maxdepth 1 -name 'deb-*' -exec rm -rf {} +
		mkdir -p "$dir"
		t0=$(date +%s)
		# unshare -n: a network namespace with nothing but a loopback that is down
		if ! (cd "$src" && DEB_BUILD_OPTIONS="parallel=2 nocheck" unshare -n \
			dpkg-buildpackage -us -uc) >"$SD_DEB_LOG" 2>&1; then
			tail -n 40 "$SD_DEB_LOG" >&2
			rm -rf "$SD_OUT/src-$$"
			nt_fail "dpkg-buildpackage failed without a network (log: $SD_DEB_LOG)"
		fi
		mv "$(dirname "$src")"/*.deb "$(dirname "$src")"/*.dsc "$(dirname "$src")"/*.tar.* \
			"$(dirname "$src")"/*.buildinfo "$(dirname "$src")"/*.changes "$dir/" ||
			nt_fail "dpkg-buildpackage left no package"
		[ -f "$SD_DEB" ] || nt_fail "dpkg-buildpackage made no $(basename "$SD_DEB")"
		touch "$dir/.complete"
		nt_log "built $(basename "$SD_DEB") offline in $(($(date +%s) - t0)) s"
	fi
	rm -rf "$SD_OUT/src-$$"
	flock -u 7
	exec 7>&-
}

# sd_leader: the container's PID 1 once nspawn has started it (its child
# running systemd), else nothing.
sd_leader() {
	local p
	for p in $(cat "/proc/$SD_NSPAWN/task/$SD_NSPAWN/children" 2>/dev/null); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ] && { printf '%s\n' "$p"; return 0; }
	done
	return 1
}

# sd_boot NS: boot the container in namespace NS; returns once its systemd
# reports the boot finished ("running").  Sets SD_LEADER.
sd_boot() {
	local ns=$1 mnt cg state i
	[ -n "$SD_ROOT" ] || nt_fail "sd_boot before sd_image"
	SD_CT=$NT_TMP/ct
	mkdir -p "$SD_CT/up" "$SD_CT/work" "$SD_CT/root"
	mount -t overlay "wgd-sd-$NT_ID" \
		-o "lowerdir=$SD_ROOT,upperdir=$SD_CT/up,workdir=$SD_CT/work" "$SD_CT/root" ||
		nt_fail "cannot mount an overlay over $SD_ROOT"
	cg=wgd-sd-$NT_ID-$$
	for mnt in $(sd_cgroup_mounts); do
		mkdir "$mnt/$cg" || nt_fail "cannot make the cgroup $mnt/$cg"
		SD_CGROUPS+=("$mnt/$cg")
	done
	nt_fresh "$NT_TMP/nspawn.log"
	(
		for d in "${SD_CGROUPS[@]}"; do
			echo "$BASHPID" >"$d/cgroup.procs" || exit 90
		done
		exec systemd-nspawn -q -D "$SD_CT/root" -M "wgd-sd-$NT_ID" -b --register=no --keep-unit \
			--network-namespace-path="/run/netns/$ns" --capability=CAP_NET_ADMIN \
			--console=read-only
	) >>"$NT_TMP/nspawn.log" 2>&1 </dev/null &
	SD_NSPAWN=$!
	for ((i = 0; i < 200; i++)); do
		SD_LEADER=$(sd_leader) && break
		nt_gone "$SD_NSPAWN" && break
		sleep "$NT_POLL"
	done
	[ -n "$SD_LEADER" ] || { tail -n 20 "$NT_TMP/nspawn.log" >&2; nt_fail "systemd-nspawn did not start systemd"; }
	# systemctl answers once systemd listens on its private socket
	nt_until 30 sd_booting || nt_fail "the container's systemd does not answer systemctl"
	# nspawn mounts /proc/sys read-only, and makes /proc/sys/net writable
	# only for a network namespace of its own (--private-network), not for
	# one given by path: done here as nspawn does it, so that the
	# container's net.* sysctls (src_valid_mark) can be set, as on a host.
	nsenter -t "$SD_LEADER" -m sh -c \
		'mount --bind /proc/sys/net /proc/sys/net && mount -o remount,bind,rw /proc/sys/net' ||
		nt_fail "cannot make the container's /proc/sys/net writable"
	state=$(sd_in systemctl is-system-running --wait)
	[ "$state" = running ] || {
		sd_in systemctl --failed --no-pager >&2
		nt_fail "the container's systemd says '$state' after booting, not 'running'"
	}
}

# sd_booting: the container's systemd answers systemctl, whatever its state
# (systemctl says "offline" while it cannot reach systemd's private socket).
sd_booting() {
	local st
	sd_in test -S /run/systemd/private || return 1
	st=$(sd_in systemctl is-system-running 2>/dev/null)
	[ -n "$st" ] && [ "$st" != offline ]
}

# sd_in COMMAND...: COMMAND inside the container, as root, with only PATH
# and LANG in its environment; at most SD_TIMEOUT seconds.
sd_in() {
	timeout "$SD_TIMEOUT" nsenter -t "$SD_LEADER" -a \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"
}

# sd_halt: the container stopped (nspawn turns SIGTERM into a shutdown of
# its systemd; SIGKILL after 20 s), the overlay unmounted, the cgroups
# that nspawn and the container's systemd left removed.
sd_halt() {
	local d
	if [ -n "$SD_NSPAWN" ]; then
		kill -TERM "$SD_NSPAWN" 2>/dev/null
		if ! nt_wait_gone "$SD_NSPAWN" 20; then
			echo "FAIL: the container did not shut down within 20 s" >&2
			NT_BAD=1
			kill -KILL "$SD_NSPAWN" 2>/dev/null
			[ -n "$SD_LEADER" ] && kill -KILL "$SD_LEADER" 2>/dev/null
			nt_wait_gone "$SD_NSPAWN" 5
		fi
		wait "$SD_NSPAWN" 2>/dev/null
		SD_NSPAWN=
		SD_LEADER=
	fi
	for d in "${SD_CGROUPS[@]}"; do
		[ -d "$d" ] && find "$d" -depth -type d -exec rmdir {} + 2>/dev/null
		[ -d "$d" ] && { echo "FAIL: cannot remove the cgroup $d" >&2; NT_BAD=1; }
	done
	SD_CGROUPS=()
	if [ -n "$SD_CT" ] && mountpoint -q "$SD_CT/root"; then
		umount "$SD_CT/root" || umount -l "$SD_CT/root"
	fi
	[ -n "$SD_CT" ] && rm -rf "$SD_CT"
	SD_CT=
}

# sd_install DEB [PATH]: copy DEB into the container (as /root/PATH) and
# install it with dpkg -i, which must end with status 0.
sd_install() {
	local name=${2:-$(basename "$1")}
	sd_in sh -c 'cat >"/root/$1"' sh "$name" <"$1" || nt_fail "cannot copy $1 into the container"
	sd_in dpkg -i "/root/$name" >"$NT_TMP/dpkg-i-$name.log" 2>&1 || {
		cat "$NT_TMP/dpkg-i-$name.log" >&2
		nt_fail "dpkg -i $name failed in the container"
	}
}

# sd_put PATH MODE: stdin written to PATH in the container, with MODE.
sd_put() {
	sd_in sh -c 'umask 077 && cat >"$1" && chmod "$2" "$1"' sh "$1" "$2" || nt_fail "cannot write $1"
}

# sd_show UNIT PROPERTY: one property's value (systemctl show).
sd_show() {
	sd_in systemctl show -p "$2" --value "$1"
}
