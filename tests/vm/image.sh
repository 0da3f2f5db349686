#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest of the VM tests: Debian 12's kernel and a minimal initramfs.
#
#   tests/vm/image.sh [CACHE]      prints KERNEL=... and INITRD=... lines
#
# The kernel is Debian's linux-image-6.1.0-*-amd64 (the package that
# linux-image-amd64 depends on), fetched with apt-get download, unpacked with
# dpkg -x; only vmlinuz and the modules the guest loads are kept, under
# CACHE/kernel-PACKAGE_VERSION-HASH (HASH: of the list of modules wanted;
# CACHE: WGD_VM_CACHE, default /var/cache/wgd-vm).
# The modules' order of loading comes from modules.dep, which the package
# does not ship (its postinst runs depmod): depmod -b makes it from the
# unpacked tree.
#
# The initramfs (cpio, newc, gzip; written by busybox cpio) holds
# busybox-static, the host programs below with the shared libraries ldd
# lists, the modules (decompressed if they were .ko.xz or .ko.gz), the list
# to load in order, and tests/vm/init.  It is rebuilt when any of its inputs changes: it is cached
# under a hash of them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-${WGD_VM_CACHE:-/var/cache/wgd-vm}}

# The modules the guest needs; their dependencies are added from modules.dep.
# virtio-rng: the kernel's WireGuard drops every handshake message until the
# kernel's random number generator is initialized, which without a source
# of entropy takes minutes under TCG.
want_modules=(wireguard virtio_net virtio_pci virtio-rng)
# Programs copied from the host (Debian 12 packages wireguard-tools,
# iproute2, iputils-ping, iperf3, netcat-openbsd: busybox's ping has no -M do
# and its nc no -u; iproute2's ip for the same syntax as on the host).
host_programs=(/usr/bin/wg /usr/sbin/ip /usr/bin/ping /usr/bin/iperf3 /usr/bin/nc.openbsd)
busybox=/bin/busybox

die() {
	echo "image.sh: $*" >&2
	exit 1
}

for p in apt-get apt-cache dpkg depmod gzip ldd flock sha256sum "${host_programs[@]}"; do
	command -v "$p" >/dev/null 2>&1 || die "required program '$p' is missing (tools/install-deps installs it)"
done
"$busybox" --list 2>/dev/null | grep -qx sh || die "$busybox is not busybox (package busybox-static)"
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is dynamically linked: install busybox-static"

mkdir -p "$cache"
exec 9>"$cache/lock"
flock -w 600 9 || die "cannot lock $cache/lock within 600 s"

# resolve: the real kernel package and its candidate version.
resolve() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9.]+-[0-9]+-amd64$/ { print $2; exit }'
}
pkg=$(resolve)
if [ -z "$pkg" ]; then
	apt-get update >"$cache/apt-update.log" 2>&1 || { cat "$cache/apt-update.log" >&2; die "apt-get update failed"; }
	pkg=$(resolve)
fi
[ -n "$pkg" ] || die "apt-cache depends linux-image-amd64 names no linux-image-6.1.0-*-amd64"
ver=$(apt-cache policy "$pkg" | awk '$1 == "Candidate:" { print $2 }')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no candidate version of $pkg"
# Keyed by the package's version and the modules wanted.
kdir=$cache/kernel-${pkg}_$ver-$(printf '%s\n' "${want_modules[@]}" | sha256sum | cut -c1-8)

if [ ! -e "$kdir/complete" ]; then
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp/deb"
	(cd "$kdir.tmp/deb" && apt-get download "$pkg=$ver") >"$kdir.tmp/download.log" 2>&1 ||
		{ cat "$kdir.tmp/download.log" >&2; die "apt-get download $pkg=$ver failed"; }
	dpkg -x "$kdir.tmp"/deb/*.deb "$kdir.tmp/root" || die "dpkg -x failed"
	kver=$(ls "$kdir.tmp/root/lib/modules")
	[ "$(printf '%s\n' "$kver" | wc -l)" = 1 ] || die "not exactly one module tree in $pkg: $kver"
	depmod -b "$kdir.tmp/root" "$kver" || die "depmod failed"
	mtree=$kdir.tmp/root/lib/modules/$kver
	# Each wanted module after its dependencies, each dependency after its
	# own (recursively; a module is listed once).
	: >"$kdir.tmp/order"
	add_module() {
		local m=$1 line deps d
		grep -qxF "$m" "$kdir.tmp/order" && return 0
		line=$(grep -E "^([^:]*/)?$2\.ko(\.xz|\.zst|\.gz)?:" "$mtree/modules.dep" | head -n 1) || true
		[ -n "$line" ] || die "module $2 is not in $pkg's modules.dep"
		deps=${line#*:}
		for d in $deps; do
			add_module "$d" "$(basename "$d" | sed -E 's/\.ko(\.xz|\.zst|\.gz)?$//')"
		done
		printf '%s\n' "$m" >>"$kdir.tmp/order"
	}
	for w in "${want_modules[@]}"; do
		line=$(grep -E "^([^:]*/)?$w\.ko(\.xz|\.zst|\.gz)?:" "$mtree/modules.dep" | head -n 1) || true
		[ -n "$line" ] || die "module $w is not in $pkg's modules.dep"
		add_module "${line%%:*}" "$w"
	done
	mkdir -p "$kdir.tmp/modules"
	while read -r m; do
		b=$(basename "$m")
		case "$b" in
		*.ko.xz) "$busybox" xz -dc "$mtree/$m" >"$kdir.tmp/modules/${b%.xz}"; b=${b%.xz} ;;
		*.ko.gz) gzip -dc "$mtree/$m" >"$kdir.tmp/modules/${b%.gz}"; b=${b%.gz} ;;
		*.ko.zst) die "$m: zstd-compressed modules are not handled" ;;
		*) cp "$mtree/$m" "$kdir.tmp/modules/$b" ;;
		esac
		printf '%s\n' "$b" >>"$kdir.tmp/modules/order"
	done <"$kdir.tmp/order"
	cp "$kdir.tmp/root/boot/vmlinuz-$kver" "$kdir.tmp/vmlinuz"
	printf '%s\n' "$kver" >"$kdir.tmp/kver"
	rm -rf "$kdir.tmp/deb" "$kdir.tmp/root" "$kdir.tmp/order"
	touch "$kdir.tmp/complete"
	mv "$kdir.tmp" "$kdir"
	# Other versions, or other module sets, are of no further use.
	find "$cache" -mindepth 1 -maxdepth 1 -name 'kernel-*' ! -name "$(basename "$kdir")" -exec rm -rf {} +
fi

# libs: the shared libraries of the host programs, as ldd lists them (the
# dynamic loader's own line has no "=>"; the per-program header lines end
# with a colon).
libs() {
	ldd "${host_programs[@]}" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u
}

# The initramfs, keyed by everything that goes into it.
key=$( {
	cat "$here/init" "$0" "$kdir/modules/order"
	sha256sum "$busybox" "${host_programs[@]}" $(libs)
} | sha256sum | cut -c1-16)
initrd=$kdir/initrd-$key.cpio.gz
if [ ! -e "$initrd" ]; then
	t=$(mktemp -d "$cache/initrd.XXXXXX")
	r=$t/root
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,lib/modules,proc,sys,dev,tmp,run,var,etc}
	ln -s ../run "$r/var/run"
	cp "$busybox" "$r/bin/busybox"
	for p in "${host_programs[@]}"; do
		cp "$p" "$r$p"
	done
	for l in $(libs); do
		mkdir -p "$r$(dirname "$l")"
		cp -L "$l" "$r$l"
	done
	cp "$kdir"/modules/* "$r/lib/modules/"
	cp "$here/init" "$r/init"
	chmod 755 "$r/init"
	(cd "$r" && find . | LC_ALL=C sort | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$t/initrd" || die "cpio failed"
	mv "$t/initrd" "$initrd"
	rm -rf "$t"
	# Older initramfs images of this kernel are of no further use.
	find "$kdir" -maxdepth 1 -name 'initrd-*.cpio.gz' ! -name "initrd-$key.cpio.gz" -delete
fi
printf 'KERNEL=%s\nINITRD=%s\nKVER=%s\n' "$kdir/vmlinuz" "$initrd" "$(cat "$kdir/kver")"
