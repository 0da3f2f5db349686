#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# tests/style/limits.py catches what it must and only that: in a copy of
# daemon/ and tools/, which must pass unchanged, plant
#   - a function of 81 lines (name to closing brace) whose body holds braces
#     in a comment, a string, a character literal and a #define, which a
#     line-based counter would take for the function's end;
#   - a function of exactly 80 lines with its return type on the line above
#     its name (not counted), which must pass;
#   - a file padded to 801 lines, and one padded to exactly 800, which must
#     pass;
# and expect the check to fail naming the first and the third, and nothing
# else.
# Usage: planted.sh SRCROOT
set -u
src=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/daemon" "$src/tools" "$tmp/" || exit 1

if ! python3 "$here/limits.py" "$tmp" >"$tmp/out" 2>&1; then
	cat "$tmp/out"
	echo "the check fails on the unchanged tree"
	exit 1
fi

# a function whose name is on its first line and whose closing brace is on
# line $2, with tricky braces in between
plant() {
	local head=$1 total=$2 i
	printf '%s\n{\n' "$head"
	printf '\t/* } a closing brace in a comment { */\n'
	printf '\tconst char *s = "}}\\"{";\n'
	printf "\tchar c = '}';\n"
	printf '#define LIM_PLANTED_BRACE } \\\n\t}\n'
	printf '\tx += (int)c + (int)s[0]; // }\n'
	# 8 lines so far; the last two are "return x;" and "}"
	for ((i = 9; i <= total - 2; i++)); do
		printf '\tif (x > %d) { x--; }\n' "$i"
	done
	printf '\treturn x;\n}\n'
}

f=$tmp/daemon/core/replay.c
{
	echo
	plant 'static int lim_planted_long(int x)' 81
	echo
	echo 'static int'
	plant 'lim_planted_fits(int x)' 80
} >>"$f"
# padding as comment lines, to an exact length
pad() {
	local n
	n=$(wc -l <"$1")
	while [ "$n" -lt "$2" ]; do echo "/* padding */"; n=$((n + 1)); done >>"$1"
}
pad "$tmp/tools/wgctl/ipc.c" 801
pad "$tmp/daemon/base/log.c" 800
[ "$(wc -l <"$tmp/tools/wgctl/ipc.c")" = 801 ] && [ "$(wc -l <"$tmp/daemon/base/log.c")" = 800 ] ||
	{ echo "padding failed"; exit 1; }

python3 "$here/limits.py" "$tmp" >"$tmp/out" 2>&1
st=$?
cat "$tmp/out"
bad=0
[ $st = 1 ] || { echo "the check exited $st on the planted tree, not 1"; bad=1; }
grep -q "^daemon/core/replay.c:[0-9]*: lim_planted_long is 81 lines (limit 80)$" "$tmp/out" ||
	{ echo "missed the 81-line function"; bad=1; }
grep -q "^tools/wgctl/ipc.c: 801 lines (limit 800)$" "$tmp/out" ||
	{ echo "missed the 801-line file"; bad=1; }
if grep -q "lim_planted_fits\|log.c\|cannot measure" "$tmp/out"; then
	echo "named what is within the limits"
	bad=1
fi
[ "$(grep -c ' lines (limit ' "$tmp/out")" = 2 ] || { echo "expected exactly two findings"; bad=1; }
[ $bad = 0 ] && echo "planted: the 81-line function and the 801-line file caught, the 80s passed"
exit $bad
