#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wgctl where it must do what wg(8) does (issue 25, item 8), on wgd:
#  - as an unprivileged user (nobody), every show view fails as wg's does:
#    "Unable to access interface IF: Permission denied" per interface, the
#    same exit status, `show interfaces` still lists the interface.

. "$(dirname "$0")/lib.sh"

nt_init xc
[ -n "${WGCTL:-}" ] && [ -x "$WGCTL" ] || nt_fail "WGCTL is not set to the wgctl executable (meson sets it)"
nt_need setpriv

NS=$(nt_name "" a)
IF=$(nt_name wg a)
nt_netns "$NS"
nt_daemon "$NS" "$IF" wgd

# ---- show as nobody ----

# as_nobody TOOL ARGS...: TOOL's stdout and stderr (the lines of this test's
# interface, and the lines naming no interface), then "status N".
as_nobody() {
	local tool=$1 st
	shift
	timeout 20 setpriv --reuid=nobody --regid=nogroup --clear-groups "$tool" "$@" >"$NT_TMP/out" 2>"$NT_TMP/err"
	st=$?
	# other tests' interfaces may come and go between the two runs
	if [ "${1:-}" = interfaces ]; then
		tr ' ' '\n' <"$NT_TMP/out" | grep -x -- "$IF"
	else
		cat "$NT_TMP/out"
	fi
	grep -e "interface $IF:" -e "interface:" -e "interfaces:" "$NT_TMP/err"
	echo "status $st"
}

for view in "" "all" "all dump" "interfaces" "$IF" "$IF dump" "$IF peers"; do
	# shellcheck disable=SC2086 # the view is words
	want=$(as_nobody wg show $view)
	# shellcheck disable=SC2086
	got=$(as_nobody "$WGCTL" show $view)
	[ "$got" = "$want" ] || nt_fail "show $view as nobody: wgctl says
$got
where wg says
$want"
	case $view in
	interfaces) [ "$got" = "$IF"$'\n'"status 0" ] || nt_fail "show interfaces as nobody: $got" ;;
	*) grep -q "Permission denied" <<<"$got" && grep -q "status 1" <<<"$got" ||
		nt_fail "show $view as nobody: no 'Permission denied' and status 1: $got" ;;
	esac
done
got=$(as_nobody "$WGCTL" show --json)
grep -q "interface $IF: Permission denied" <<<"$got" && grep -q "status 1" <<<"$got" ||
	nt_fail "show --json as nobody: $got"
nt_ok "as nobody, every show view fails as wg's: 'Permission denied' per interface, status 1"
