#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Debian package (debian/) as an administrator meets it:
# - it builds from the tree without a network (tests/systemd/lib.sh), its
#   version is the project's (meson.build), and lintian has nothing to say
#   about the source or the binary package (every override says why);
# - it holds exactly wgd, wgctl, the units, the sysusers.d entry, the
#   manual pages and /etc/wireguard (root's, mode 0700);
# in a Debian container booted by a real systemd:
# - dpkg -i installs it and creates the system user wgd (no login, no
#   home); wgd.target is enabled and active;
# - an upgrade (the same build under a higher version) restarts a running
#   wgd@wg0 onto the new daemon and keeps it enabled;
# - dpkg -r stops the tunnel (its link goes) and removes the programs and
#   units, but keeps /etc/wireguard/wg0.conf and the user;
# - dpkg -P leaves no file of the package and no link of an instance the
#   administrator enabled, and no failed unit.

. "$(dirname "$0")/lib.sh"

sd_init pk
nt_need lintian dpkg-parsechangelog
# The package first: service.sh makes the container first, so that on a
# fresh machine the build and the debootstrap overlap.
sd_deb
sd_image

# version: the package's is the project's.
version() {
	local deb meson
	deb=$(dpkg-parsechangelog -l "$SD_SRC/debian/changelog" -S Version)
	meson=$(sed -n "s/^ *version: *'\([^']*\)'.*/\1/p" "$SD_SRC/meson.build" | head -n 1)
	[ -n "$meson" ] && [ "$deb" = "$meson" ] ||
		nt_fail "debian/changelog has version $deb, meson.build $meson"
	nt_ok "the package's version is the project's ($deb)"
}

# check_lintian: no tag on the source or binary package but overridden ones.
check_lintian() {
	local changes=${SD_DEB%_*}_$(dpkg --print-architecture).changes
	lintian -I -E --pedantic "$changes" >"$NT_TMP/lintian.log" 2>&1
	grep -v '^running with root privileges is not recommended!$' "$NT_TMP/lintian.log" >"$NT_TMP/lintian.tags"
	if [ -s "$NT_TMP/lintian.tags" ]; then
		cat "$NT_TMP/lintian.tags" >&2
		nt_fail "lintian -I -E --pedantic $(basename "$changes") has tags (above)"
	fi
	nt_ok "lintian -I -E --pedantic: no tag on the source and binary packages (overrides explained)"
}

# check_contents: every file and directory of the package, with its mode.
check_contents() {
	dpkg-deb -c "$SD_DEB" | awk '{ print $1, $2, $6 }' | LC_ALL=C sort >"$NT_TMP/contents"
	LC_ALL=C sort >"$NT_TMP/want" <<'EOF'
drwxr-xr-x root/root ./
drwxr-xr-x root/root ./etc/
drwx------ root/root ./etc/wireguard/
drwxr-xr-x root/root ./lib/
drwxr-xr-x root/root ./lib/systemd/
drwxr-xr-x root/root ./lib/systemd/system/
drwxr-xr-x root/root ./usr/
drwxr-xr-x root/root ./usr/lib/
drwxr-xr-x root/root ./usr/sbin/
drwxr-xr-x root/root ./usr/share/
drwxr-xr-x root/root ./usr/share/doc/
drwxr-xr-x root/root ./usr/share/lintian/
drwxr-xr-x root/root ./usr/share/man/
-rw-r--r-- root/root ./lib/systemd/system/wgd-quick@.service
-rw-r--r-- root/root ./lib/systemd/system/wgd.target
-rw-r--r-- root/root ./lib/systemd/system/wgd@.service
drwxr-xr-x root/root ./usr/lib/sysusers.d/
-rw-r--r-- root/root ./usr/lib/sysusers.d/wgd.conf
-rwxr-xr-x root/root ./usr/sbin/wgctl
-rwxr-xr-x root/root ./usr/sbin/wgd
drwxr-xr-x root/root ./usr/share/doc/wgd/
-rw-r--r-- root/root ./usr/share/doc/wgd/changelog.gz
-rw-r--r-- root/root ./usr/share/doc/wgd/copyright
drwxr-xr-x root/root ./usr/share/lintian/overrides/
-rw-r--r-- root/root ./usr/share/lintian/overrides/wgd
drwxr-xr-x root/root ./usr/share/man/man5/
-rw-r--r-- root/root ./usr/share/man/man5/wgd.conf.5.gz
drwxr-xr-x root/root ./usr/share/man/man8/
-rw-r--r-- root/root ./usr/share/man/man8/wgctl.8.gz
-rw-r--r-- root/root ./usr/share/man/man8/wgd.8.gz
EOF
	diff -u "$NT_TMP/want" "$NT_TMP/contents" >&2 ||
		nt_fail "the package's contents differ from what it should hold (- wanted, + found)"
	nt_ok "the package holds wgd, wgctl, the units, sysusers.d/wgd.conf, the man pages, /etc/wireguard 0700"
}

# state: dpkg's status of wgd in the container ("" when it knows none).
state() {
	sd_in dpkg-query -W -f '${Status} ${Version}' wgd 2>/dev/null
}

# instance: wgd@wg0 with a file of its own (no peer), enabled and started.
instance() {
	sd_in sh -c 'umask 077; k=$(wgctl genkey) && printf "[Interface]\nPrivateKey = %s\nListenPort = 51820\nAddress = 198.51.100.1/24\n" "$k" > /etc/wireguard/wg0.conf' ||
		nt_fail "cannot write wg0.conf"
	sd_in systemctl enable --now wgd@wg0 >/dev/null 2>&1 || nt_fail "systemctl enable --now wgd@wg0"
	[ "$(sd_in systemctl is-active wgd@wg0)" = active ] || nt_fail "wgd@wg0 is not active"
}

# check_install: dpkg -i, the user, the target.
check_install() {
	local pw
	sd_install "$SD_DEB" wgd.deb
	[ "$(state)" = "install ok installed $VER" ] || nt_fail "after dpkg -i: '$(state)'"
	pw=$(sd_in getent passwd wgd) || nt_fail "dpkg -i did not create the user wgd"
	awk -F: '$3 > 0 && $3 < 1000 && $6 == "/" && $7 == "/usr/sbin/nologin" { ok = 1 } END { exit !ok }' <<<"$pw" ||
		nt_fail "the user wgd is not a system user without home and login: $pw"
	[ "$(sd_in systemctl is-enabled wgd.target)" = enabled ] && [ "$(sd_in systemctl is-active wgd.target)" = active ] ||
		nt_fail "wgd.target is not enabled and active after dpkg -i"
	sd_in dpkg -L wgd >"$NT_TMP/files" || nt_fail "dpkg -L wgd"
	nt_ok "dpkg -i: installed, the system user wgd ($pw), wgd.target enabled and active"
}

# restarted PID: wgd@wg0 is active with another main process than PID.
restarted() {
	local pid
	pid=$(sd_show wgd@wg0 MainPID)
	[ "$(sd_in systemctl is-active wgd@wg0)" = active ] && [ "$pid" != 0 ] && [ "$pid" != "$1" ]
}

# check_upgrade: the same build as VER+1 restarts the running tunnel.
check_upgrade() {
	local pid0 pid1 d=$NT_TMP/repack
	pid0=$(sd_show wgd@wg0 MainPID)
	rm -rf "$d" && dpkg-deb -R "$SD_DEB" "$d" || nt_fail "dpkg-deb -R"
	sed -i "s/^Version: .*/Version: $VER+1/" "$d/DEBIAN/control"
	dpkg-deb -b "$d" "$NT_TMP/wgd-up.deb" >/dev/null || nt_fail "dpkg-deb -b"
	sd_install "$NT_TMP/wgd-up.deb" wgd-up.deb
	[ "$(state)" = "install ok installed $VER+1" ] || nt_fail "after the upgrade: '$(state)'"
	# systemctl waits for wgd.target's job; the restart of the tunnels that
	# are PartOf= it may finish a moment later.
	nt_until 5 restarted "$pid0" ||
		nt_fail "the upgrade did not restart wgd@wg0 (pid $pid0 before; now $(sd_show wgd@wg0 MainPID)," \
			"$(sd_in systemctl is-active wgd@wg0))"
	pid1=$(sd_show wgd@wg0 MainPID)
	[ "$(sd_in systemctl is-enabled wgd@wg0)" = enabled ] || nt_fail "wgd@wg0 is not enabled after the upgrade"
	nt_ok "an upgrade to $VER+1 restarted the running wgd@wg0 (pid $pid0 -> $pid1), still enabled"
}

# check_remove: dpkg -r stops the tunnel; configuration and user stay.
check_remove() {
	sd_in dpkg -r wgd >"$NT_TMP/dpkg-r.log" 2>&1 || { cat "$NT_TMP/dpkg-r.log" >&2; nt_fail "dpkg -r wgd"; }
	[ "$(state)" = "deinstall ok config-files $VER+1" ] || nt_fail "after dpkg -r: '$(state)'"
	[ "$(sd_in systemctl is-active wgd@wg0)" != active ] || nt_fail "wgd@wg0 still runs after dpkg -r"
	ip -n "$NS" link show wg0 >/dev/null 2>&1 && nt_fail "the link wg0 is left after dpkg -r"
	sd_in test -e /usr/sbin/wgd && nt_fail "/usr/sbin/wgd is left after dpkg -r"
	sd_in test -e /lib/systemd/system/wgd@.service && nt_fail "wgd@.service is left after dpkg -r"
	sd_in test -f /etc/wireguard/wg0.conf || nt_fail "dpkg -r removed the administrator's wg0.conf"
	sd_in getent passwd wgd >/dev/null || nt_fail "dpkg -r removed the user wgd"
	nt_ok "dpkg -r: the tunnel stopped, programs and units gone, wg0.conf and the user kept"
}

# check_purge: nothing of the package is left.
check_purge() {
	local f left=
	sd_in dpkg -P wgd >"$NT_TMP/dpkg-p.log" 2>&1 || { cat "$NT_TMP/dpkg-p.log" >&2; nt_fail "dpkg -P wgd"; }
	[ -z "$(state)" ] || [ "$(state)" = "unknown ok not-installed " ] || nt_fail "after dpkg -P: '$(state)'"
	while read -r f; do
		sd_in test -d "$f" && continue	# a directory that others share (/etc/wireguard, /usr/sbin)
		sd_in test -e "$f" && left="$left $f"
	done <"$NT_TMP/files"
	[ -z "$left" ] || nt_fail "left after dpkg -P:$left"
	sd_in sh -c 'ls /etc/systemd/system/*.wants/ | grep "^wgd"' && nt_fail "an instance's link is left after dpkg -P"
	[ -z "$(sd_in systemctl list-units --failed --plain --no-legend)" ] ||
		nt_fail "failed units after dpkg -P: $(sd_in systemctl list-units --failed --plain --no-legend)"
	nt_ok "dpkg -P: no file of the package, no link of wgd@wg0, no failed unit (the user wgd stays)"
}

VER=$(dpkg-parsechangelog -l "$SD_SRC/debian/changelog" -S Version)
version
check_lintian
check_contents
NS=$(nt_name "" c)
nt_netns "$NS"
sd_boot "$NS"
check_install
instance
check_upgrade
check_remove
check_purge
echo PASS
