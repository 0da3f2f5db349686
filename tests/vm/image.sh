#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The guest of the VM tests: Debian 12's kernel and a minimal initramfs.
#
#   tests/vm/image.sh [CACHE]      prints KERNEL=... INITRD=... KVER=... lines
#                                  (MIPS: and USERLAND=..., the guest's programs and libraries)
#
# VM_ARCH chooses the guest (default amd64):
#   amd64   Debian's linux-image-6.1.0-*-amd64 (what linux-image-amd64
#           depends on), for qemu-system-x86_64; the host's own programs.
#   mipsel  Debian's linux-image-6.1.0-*-4kc-malta:mipsel, for
#           qemu-system-mipsel -M malta (tools/routerbench); the programs
#           and libraries from Debian's mipsel packages (apt-get download,
#           dpkg -x), the libraries found from each ELF's NEEDED entries.
#   mips    big-endian, for qemu-system-mips -M malta -cpu 24Kc: Debian has
#           no such port, so the kernel (Linux 6.1 from linux-source-6.1)
#           and the programs (busybox, iproute2's ip) are built from
#           Debian's sources by tests/vm/mips-be-guest, cached under CACHE;
#           the libraries as for mipsel.
# VM_EXTRA: more programs of the guest's architecture (paths on the host),
#   copied to /usr/local/bin with the libraries they need (MIPS only).
#
# The kernel is fetched with apt-get download and unpacked with dpkg -x; only
# vmlinuz and the modules the guest loads are
# kept, under CACHE/kernel-PACKAGE_VERSION-HASH (HASH: of the list of modules
# wanted; CACHE: WGD_VM_CACHE, default /var/cache/wgd-vm, and CACHE/ARCH for
# mipsel and mips).
# The modules' order of loading comes from modules.dep, which the package
# does not ship (its postinst runs depmod): depmod -b makes it from the
# unpacked tree.
#
# The initramfs (cpio, newc, gzip; written by busybox cpio) holds
# busybox-static, the programs below with their shared libraries, the
# modules (decompressed if they were .ko.xz or .ko.gz), the list to load in
# order, and tests/vm/init.  It is rebuilt when any of its inputs changes: it
# is cached under a hash of them.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-${WGD_VM_CACHE:-/var/cache/wgd-vm}}
arch=${VM_ARCH:-amd64}
busybox=/bin/busybox		# the host's (busybox-static): cpio, xz
# Another architecture's guest in a directory of its own: the amd64 images'
# clean-up (below, and in older copies of this script) removes the other
# kernel-* directories beside its own.
[ "$arch" = amd64 ] || cache=$cache/$arch
# the MIPS guests' programs
readelf=mipsel-linux-gnu-readelf
[ "$arch" != mips ] || readelf=mips-linux-gnu-readelf
read -r -a extra <<<"${VM_EXTRA:-}"

case "$arch" in
amd64)
	meta=linux-image-amd64
	flavour=amd64
	# The modules the guest needs; their dependencies are added from
	# modules.dep.  virtio-rng: the kernel's WireGuard drops every
	# handshake message until the kernel's random number generator is
	# initialized, which without a source of entropy takes minutes under TCG.
	want_modules=(wireguard virtio_net virtio_pci virtio-rng)
	# Programs copied from the host (Debian 12 packages wireguard-tools,
	# iproute2, iputils-ping, iperf3, netcat-openbsd: busybox's ping has no
	# -M do and its nc no -u; iproute2's ip for the same syntax as on the host).
	host_programs=(/usr/bin/wg /usr/sbin/ip /usr/bin/ping /usr/bin/iperf3 /usr/bin/nc.openbsd)
	[ ${#extra[@]} = 0 ] || { echo "image.sh: VM_EXTRA is for mipsel only" >&2; exit 1; }
	;;
mipsel)
	meta=linux-image-4kc-malta:mipsel
	flavour=4kc-malta
	# malta's NIC is a pcnet (no checksum offload, no GRO) or, with
	# VM_NIC=virtio-net-pci (tests/vm/lib.sh), a virtio one; tun for wgd.
	# The kernel's WireGuard pulls in the MIPS ChaCha20 and Poly1305
	# modules (chacha-mips, poly1305-mips).
	want_modules=(wireguard tun pcnet32 virtio_net virtio_pci)
	# Debian's mipsel packages whose programs the guest runs (busybox is
	# static), and the libraries those and VM_EXTRA (wgd) need.  iproute2's
	# ip (busybox's has no nodad, netns or veth) and iputils' ping
	# (busybox's has no -M do).
	user_packages=(busybox-static wireguard-tools iperf3 libiperf0 libsctp1 libssl3 libatomic1 libc6 libsodium23 libmnl0
		iproute2 libbpf1 libelf1 zlib1g libbsd0 libmd0 libcap2 iputils-ping libidn2-0 libunistring2)
	user_programs=(/usr/bin/wg /usr/bin/iperf3 /bin/ip /bin/ping)
	host_programs=()
	;;
mips)
	flavour=mips-be
	want_modules=(wireguard tun pcnet32 virtio_net virtio_pci)
	# busybox's applets, iproute2's ip (busybox's has no nodad or netns);
	# Debian's sources of wireguard-tools, iperf3 and iputils are not to be
	# had here: VM_EXTRA brings wgctl as wg (tests/vm/mips.sh).
	user_programs=(/bin/ip)
	host_programs=()
	;;
*)
	echo "image.sh: VM_ARCH '$arch': amd64, mipsel or mips" >&2
	exit 1
	;;
esac

die() {
	echo "image.sh: $*" >&2
	exit 1
}

need=(apt-get apt-cache dpkg depmod gzip flock sha256sum "$busybox")
[ "$arch" = amd64 ] && need+=(ldd) || need+=("$readelf")
for p in "${need[@]}" "${host_programs[@]}"; do
	command -v "$p" >/dev/null 2>&1 || die "required program '$p' is missing (tools/install-deps installs it)"
done
"$busybox" --list 2>/dev/null | grep -x sh >/dev/null || die "$busybox is not busybox (package busybox-static)"
ldd "$busybox" >/dev/null 2>&1 && die "$busybox is dynamically linked: install busybox-static"

mkdir -p "$cache"
exec 9>"$cache/lock"
# (the big-endian kernel's first build holds it for about 10 min)
flock -w 1800 9 || die "cannot lock $cache/lock within 1800 s"

# resolve: the real kernel package and its candidate version.
resolve() {
	if [ "$arch" = mips ]; then
		echo linux-source-6.1
		return
	fi
	apt-cache depends "$meta" 2>/dev/null |
		awk -v f="$flavour" '$1 == "Depends:" && $2 ~ "^linux-image-[0-9.]+-[0-9]+-" f "(:mipsel)?$" { print $2; exit }'
}
pkg=$(resolve)
if [ -z "$pkg" ]; then
	apt-get update >"$cache/apt-update.log" 2>&1 || { cat "$cache/apt-update.log" >&2; die "apt-get update failed"; }
	pkg=$(resolve)
fi
[ -n "$pkg" ] || die "apt-cache depends $meta names no linux-image-6.1.0-*-$flavour"
ver=$(apt-cache policy "$pkg" | awk '$1 == "Candidate:" { print $2 }')
[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "no candidate version of $pkg"
# Keyed by the package's version and the modules wanted (mips: and the
# build's directory, named by the hash of its inputs).
kroot=
if [ "$arch" = mips ]; then
	kroot=$("$here/mips-be-guest" kernel "$cache/build") || die "the big-endian kernel's build failed"
	ver=$(basename "$(dirname "$kroot")")
	ver=${ver#kernel-}
fi
kdir=$cache/kernel-${pkg%:*}_$ver-$(printf '%s\n' "${want_modules[@]}" | sha256sum | cut -c1-8)

if [ ! -e "$kdir/complete" ]; then
	rm -rf "$kdir" "$kdir.tmp"
	mkdir -p "$kdir.tmp/deb"
	if [ -n "$kroot" ]; then
		cp -a "$kroot" "$kdir.tmp/root"
	else
		(cd "$kdir.tmp/deb" && apt-get download "$pkg=$ver") >"$kdir.tmp/download.log" 2>&1 ||
			{ cat "$kdir.tmp/download.log" >&2; die "apt-get download $pkg=$ver failed"; }
		dpkg -x "$kdir.tmp"/deb/*.deb "$kdir.tmp/root" || die "dpkg -x failed"
	fi
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
	# malta boots the ELF image (the big-endian build's vmlinux)
	cp "$kdir.tmp/root/boot/vmlinuz-$kver" "$kdir.tmp/vmlinuz" 2>/dev/null ||
		cp "$kdir.tmp/root/boot/vmlinux-$kver" "$kdir.tmp/vmlinuz" || die "no kernel image in $pkg"
	printf '%s\n' "$kver" >"$kdir.tmp/kver"
	rm -rf "$kdir.tmp/deb" "$kdir.tmp/root" "$kdir.tmp/order"
	touch "$kdir.tmp/complete"
	mv "$kdir.tmp" "$kdir"
	# Other versions, or other module sets, of this flavour are of no further use.
	find "$cache" -mindepth 1 -maxdepth 1 -name "kernel-linux-image-*-${flavour}_*" ! -name "$(basename "$kdir")" \
		-exec rm -rf {} +
fi

# ---- amd64: the host's programs ------------------------------------------

# libs: the shared libraries of the host programs, as ldd lists them (the
# dynamic loader's own line has no "=>"; the per-program header lines end
# with a colon).
libs() {
	ldd "${host_programs[@]}" |
		awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $1 !~ /:$/ { print $1 }' | sort -u
}

# ---- mipsel: Debian's mipsel packages ------------------------------------

# The packages at their candidate versions, unpacked once under
# CACHE/userland-mipsel-HASH (HASH: of the package=version list).
userland() {
	local p v list= u cand
	# One apt-cache call for all (each takes seconds): "PACKAGE:mipsel VERSION" lines.
	cand=$(apt-cache policy "${user_packages[@]/%/:mipsel}" 2>/dev/null |
		awk '/^[^ ].*:$/ { p = substr($0, 1, length($0) - 1) } $1 == "Candidate:" { print p, $2 }')
	for p in "${user_packages[@]}"; do
		v=$(printf '%s\n' "$cand" | awk -v p="$p:mipsel" '$1 == p { print $2 }')
		[ -n "$v" ] && [ "$v" != "(none)" ] || die "no candidate version of $p:mipsel (dpkg --add-architecture mipsel; apt-get update)"
		list="$list $p:mipsel=$v"
	done
	u=$cache/userland-mipsel-$(printf '%s\n' $list | sha256sum | cut -c1-12)
	if [ ! -e "$u/complete" ]; then
		rm -rf "$u" "$u.tmp"
		mkdir -p "$u.tmp/deb"
		# shellcheck disable=SC2086 # the list is words
		(cd "$u.tmp/deb" && apt-get download $list) >"$u.tmp/download.log" 2>&1 ||
			{ cat "$u.tmp/download.log" >&2; die "apt-get download of the mipsel userland failed"; }
		for d in "$u.tmp"/deb/*.deb; do
			dpkg -x "$d" "$u.tmp/root" || die "dpkg -x $d failed"
		done
		rm -rf "$u.tmp/deb"
		touch "$u.tmp/complete"
		mv "$u.tmp" "$u"
		find "$cache" -mindepth 1 -maxdepth 1 -name 'userland-mipsel-*' ! -name "$(basename "$u")" -exec rm -rf {} +
	fi
	printf '%s\n' "$u/root"
}

# mips_libs ROOT ELF...: the shared libraries the ELFs need, recursively
# (their NEEDED entries, found in ROOT's library directories), as paths
# relative to ROOT; and the dynamic loader.
mips_libs() {
	local root=$1 todo=() seen=" " f n d found
	shift
	todo=("$@")
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $("$readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case "$seen" in *" $n "*) continue ;; esac
			seen="$seen$n "
			found=
			for d in lib/mipsel-linux-gnu usr/lib/mipsel-linux-gnu lib usr/lib; do
				if [ -e "$root/$d/$n" ]; then
					found=$d/$n
					break
				fi
			done
			[ -n "$found" ] || die "$f needs $n, which no $arch library of the image has"
			printf '%s\n' "$found"
			todo+=("$root/$found")
		done
	done
	printf '%s\n' lib/ld.so.1
}

if [ "$arch" = mips ]; then
	uroot=$("$here/mips-be-guest" userland "$cache/build") || die "the big-endian programs' build failed"
fi
if [ "$arch" != amd64 ]; then
	[ "$arch" = mips ] || uroot=$(userland)
	busybox_guest=$uroot/bin/busybox
	[ -x "$busybox_guest" ] || die "busybox-static:mipsel has no /bin/busybox"
	for x in "${extra[@]}"; do
		[ -f "$x" ] || die "VM_EXTRA: no file $x"
	done
	progs=()
	for p in "${user_programs[@]}"; do
		progs+=("$uroot$p")
	done
	mlibs=$(mips_libs "$uroot" "${progs[@]}" "${extra[@]}" | sort -u)
	key=$( {
		cat "$here/init" "$0" "$kdir/modules/order"
		printf '%s\n' "$uroot" "${extra[@]}"
		sha256sum "${extra[@]}" /dev/null
	} | sha256sum | cut -c1-16)
else
	busybox_guest=$busybox
	key=$( {
		cat "$here/init" "$0" "$kdir/modules/order"
		sha256sum "$busybox" "${host_programs[@]}" $(libs)
	} | sha256sum | cut -c1-16)
fi

# The initramfs, keyed by everything that goes into it.
initrd=$kdir/initrd-$key.cpio.gz
if [ ! -e "$initrd" ]; then
	t=$(mktemp -d "$cache/initrd.XXXXXX")
	r=$t/root
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,usr/local/bin,lib,lib64,lib/modules,proc,sys,dev,tmp,run,var,etc}
	ln -s ../run "$r/var/run"
	cp "$busybox_guest" "$r/bin/busybox"
	if [ "$arch" != amd64 ]; then
		for p in "${user_programs[@]}"; do
			cp "$uroot$p" "$r$p"
		done
		for x in "${extra[@]}"; do
			cp "$x" "$r/usr/local/bin/"
		done
		for l in $mlibs; do
			mkdir -p "$r/$(dirname "$l")"
			cp -L "$uroot/$l" "$r/$l"
		done
	else
		for p in "${host_programs[@]}"; do
			cp "$p" "$r$p"
		done
		for l in $(libs); do
			mkdir -p "$r$(dirname "$l")"
			cp -L "$l" "$r$l"
		done
	fi
	cp "$kdir"/modules/* "$r/lib/modules/"
	cp "$here/init" "$r/init"
	chmod 755 "$r/init"
	(cd "$r" && find . | LC_ALL=C sort | "$busybox" cpio -o -H newc 2>/dev/null | gzip -1) >"$t/initrd" || die "cpio failed"
	mv "$t/initrd" "$initrd"
	rm -rf "$t"
	# Older initramfs images of this kernel: the four newest are kept (the
	# mipsel guest's tests put different programs in theirs, and each
	# would otherwise delete the other's).
	find "$kdir" -maxdepth 1 -name 'initrd-*.cpio.gz' -printf '%T@ %p\n' | sort -rn | tail -n +5 |
		cut -d' ' -f2- | xargs -r rm -f
fi
printf 'KERNEL=%s\nINITRD=%s\nKVER=%s\n' "$kdir/vmlinuz" "$initrd" "$(cat "$kdir/kver")"
# MIPS: where the guest's programs and libraries are on the host (their symbols)
[ "$arch" = amd64 ] || printf 'USERLAND=%s\n' "$uroot"
