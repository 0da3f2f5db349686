#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Every manual page in doc/man renders without a warning: man(1) with
# --warnings, and groff with every warning (-ww) checking the man macros
# (-z: no output).  Any line on standard error, or a non-zero status, fails.
# First a self-check: a page with an unknown macro and one with a bad
# escape must fail the same check.
#
#   man.sh MANDIR
set -u -o pipefail

MANDIR=$1
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
for p in man groff; do
	command -v "$p" >/dev/null || fail "'$p' is not installed (tools/install-deps installs it)"
done
export LC_ALL=C.UTF-8 MANWIDTH=80

T=$(mktemp -d /tmp/wgd-man.XXXXXX) || fail mktemp
trap 'rm -rf "$T"' EXIT

# check PAGE: no warning from man or groff.
check() {
	local out rc=0
	out=$({ man --warnings -l "$1" >/dev/null; } 2>&1) || rc=1
	out+=$({ groff -ww -man -z "$1"; } 2>&1 | sed 's/^/ /') || rc=1
	[ "$rc" = 0 ] && [ -z "$out" ] && return 0
	printf '%s\n' "$out" >&2
	return 1
}

printf '.TH BAD 8\n.SH NAME\nbad \\- a test\n.XQ unknown macro\n' >"$T/bad1.8"
printf '.TH BAD 8\n.SH NAME\nbad \\- a test\n.SH DESCRIPTION\nA bad \\escape and \\fQfont\\fR.\n' >"$T/bad2.8"
for b in bad1 bad2; do
	check "$T/$b.8" 2>"$T/$b.out" && fail "a broken page ($b) passes the check"
done
echo "ok: broken pages fail the check: $(cat "$T/bad1.out" "$T/bad2.out" | tr '\n' ' ')"

n=0
for page in "$MANDIR"/*.[0-9]; do
	[ -e "$page" ] || continue
	check "$page" || fail "$(basename "$page") renders with warnings"
	echo "ok: $(basename "$page")"
	n=$((n + 1))
done
[ "$n" -gt 0 ] || fail "no manual pages in $MANDIR"
echo PASS
