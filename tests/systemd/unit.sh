#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# systemd-analyze verify on the units exactly as meson configured them for
# installation (contrib/*.service.in): no output, exit status 0.  verify
# checks that ExecStart's program exists and that every Documentation= page
# opens with man(1), so this runs in a private mount namespace in which the
# built wgd sits at the installed path (an overlay over SBINDIR) and MANPATH
# has doc/man first.  First, a self-check: a unit with an unknown key and
# one naming a missing program must fail the same check.
# The sysusers.d entry: systemd-sysusers --dry-run on an empty root would
# create the user wgd, without a warning (a broken entry fails first).
#
#   unit.sh WGD SBINDIR MANDIR SYSUSERS UNIT...
set -u

WGD=$1 SBINDIR=$2 MANDIR=$3 SYSUSERS=$4
shift 4

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a private mount namespace)"; exit 77; }
for p in systemd-analyze systemd-sysusers unshare mount man; do
	command -v "$p" >/dev/null || fail "'$p' is not installed (tools/install-deps installs it)"
done

T=$(mktemp -d /tmp/wgd-unit.XXXXXX) || fail mktemp
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/units" "$T/man/man5" "$T/man/man8"
for page in "$MANDIR"/*.[0-9]; do
	[ -e "$page" ] || continue
	cp "$page" "$T/man/man${page##*.}/"
done

cat >"$T/verify.sh" <<'INNER'
set -u
T=$1 WGD=$2 SBINDIR=$3
shift 3
top=$SBINDIR
while [ ! -d "$top" ]; do top=$(dirname "$top"); done
mount -t tmpfs wgd-unit-test "$T/ov" &&
	mkdir "$T/ov/up" "$T/ov/work" &&
	mount -t overlay overlay -o "lowerdir=$top,upperdir=$T/ov/up,workdir=$T/ov/work" "$top" ||
	{ echo "cannot overlay $top" >&2; exit 2; }
mkdir -p "$SBINDIR" && cp "$WGD" "$SBINDIR/wgd" || exit 2
MANPATH=$T/man:/usr/share/man exec systemd-analyze verify "$@"
INNER
mkdir "$T/ov"

# verify UNIT...: the units pass: status 0 and not a line of output.
verify() {
	local out rc
	out=$(unshare -m --propagation private bash "$T/verify.sh" "$T" "$WGD" "$SBINDIR" "$@" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ -z "$out" ] && return 0
	printf '%s\n' "$out" >&2
	return 1
}

# Each template as an instance, the other units as they are, from a
# directory of our own.
instances=()
for u in "$@"; do
	name=$(basename "$u")
	cp "$u" "$T/units/$name"
	case "$name" in
	*@.service)
		ln -s "$name" "$T/units/${name%@.service}@wgt0.service"
		instances+=("$T/units/${name%@.service}@wgt0.service")
		;;
	*) instances+=("$T/units/$name") ;;
	esac
done

# The self-check: broken copies of the first unit must fail.
cp "$1" "$T/units/bad1@.service"
sed -i 's/^\[Service\]$/[Service]\nProtectSystm=full/' "$T/units/bad1@.service"
ln -s bad1@.service "$T/units/bad1@wgt0.service"
cp "$1" "$T/units/bad2@.service"
sed -i "s|^ExecStart=$SBINDIR/wgd|ExecStart=$SBINDIR/wgd-missing|" "$T/units/bad2@.service"
ln -s bad2@.service "$T/units/bad2@wgt0.service"
for b in bad1 bad2; do
	verify "$T/units/$b@wgt0.service" 2>"$T/$b.out" && fail "a broken unit ($b) passes the check"
done
echo "ok: broken units fail the check: $(cat "$T/bad1.out" "$T/bad2.out" | tr "\n" " ")"

verify "${instances[@]}" || fail "systemd-analyze verify: $*"
echo "ok: systemd-analyze verify is clean on ${instances[*]##*/}"

# sysusers SYSUSERS-FILE: systemd-sysusers would create exactly the user wgd.
sysusers() {
	local out rc
	rm -rf "$T/root" && mkdir -p "$T/root/etc" || fail "mkdir"
	out=$(systemd-sysusers --dry-run --root="$T/root" "$1" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && [ "$(printf '%s\n' "$out" | grep -c "^Creating user 'wgd' ")" = 1 ] &&
		! printf '%s\n' "$out" | grep -q "$1" && return 0
	printf '%s\n' "$out" >&2
	return 1
}
printf 'u wgd - "x" - - extra\n' >"$T/bad.sysusers"
sysusers "$T/bad.sysusers" 2>/dev/null && fail "a broken sysusers.d entry passes the check"
sysusers "$SYSUSERS" || fail "systemd-sysusers --dry-run $SYSUSERS"
echo "ok: $(basename "$SYSUSERS") creates the user wgd (systemd-sysusers --dry-run)"
echo PASS
