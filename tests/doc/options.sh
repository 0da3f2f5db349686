#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# wgd(8) documents what `wgd --help` offers: every option of the help, short
# and long, has its entry under OPTIONS (a tag line such as
# `.BR \-t ", " \-\-threads " \fIN\fR"`), and every environment variable the
# help names (its Environment paragraph, and the $NAME of a default) has
# its entry under ENVIRONMENT (`.B NAME`).  First a self-check: the page
# with the entries of --user and WGD_USER taken out must lack both.
#
#   options.sh WGD MANPAGE
set -u -o pipefail

WGD=$1 PAGE=$2
fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
T=$(mktemp -d /tmp/wgd-options.XXXXXX) || fail mktemp
trap 'rm -rf "$T"' EXIT

# a cross build's wgd runs under its exe_wrapper (qemu-user), which meson names
${MESON_EXE_WRAPPER:-} "$WGD" --help >"$T/help" || fail "wgd --help failed"
# "-x, --long" pairs of the help's option lines, one a line: "x long"
sed -n 's/^  -\([a-z]\), --\([a-z-]*\).*/\1 \2/p; s/.* | -\([a-z]\), --\([a-z-]*\).*/\1 \2/p' "$T/help" \
	| sort -u >"$T/opts"
# NAME of every $NAME, and every NAME_WITH_UNDERSCORE of the Environment paragraph
{
	grep -o '\$[A-Z][A-Z0-9_]*' "$T/help" | tr -d '$'
	sed -n '/^Environment:/,$p' "$T/help" | grep -o '\<[A-Z][A-Z0-9]*_[A-Z0-9_]*\>'
} | sort -u >"$T/envs"
[ "$(wc -l <"$T/opts")" -ge 5 ] || fail "too few options read from wgd --help: $(tr '\n' ' ' <"$T/opts")"
[ "$(wc -l <"$T/envs")" -ge 3 ] || fail "too few environment variables read from wgd --help: $(tr '\n' ' ' <"$T/envs")"

# section PAGE NAME: the lines of section NAME
section() { awk -v s=".SH $2" '$0 == s { on = 1; next } /^\.SH / { on = 0 } on' "$1"; }

# missing PAGE: what the help has and PAGE lacks, one a line
missing() {
	local s l e
	section "$1" OPTIONS >"$T/options"
	section "$1" ENVIRONMENT >"$T/environment"
	while read -r s l; do
		grep -qF -- ".BR \\-$s \", \" \\-\\-${l//-/\\-}" "$T/options" || echo "option -$s, --$l"
	done <"$T/opts"
	while read -r e; do
		grep -qx "\.B $e" "$T/environment" || echo "environment variable $e"
	done <"$T/envs"
}

# the self-check: the entries of --user and WGD_USER taken out
awk '/^\.TP$/ { tp = $0; skip = 0; next }
	tp != "" && (/\\-\\-user "/ || /^\.B WGD_USER$/) { skip = 1; tp = ""; next }
	/^\.(SH|PP)/ { skip = 0 }
	tp != "" { print tp; tp = "" }
	!skip' "$PAGE" >"$T/broken.8"
got=$(missing "$T/broken.8" | tr '\n' ';')
case "$got" in
*"option -u, --user;"*"environment variable WGD_USER;"*) ;;
*) fail "self-check: the page without --user and WGD_USER gives '$got'" ;;
esac
echo "ok: self-check: a page without --user and WGD_USER lacks: $got"

echo "the help's options: $(tr '\n' ',' <"$T/opts")"
echo "the help's environment: $(tr '\n' ' ' <"$T/envs")"
got=$(missing "$PAGE")
[ -z "$got" ] || fail "$(basename "$PAGE") lacks what wgd --help offers: $(echo "$got" | tr '\n' ';')"
echo PASS
