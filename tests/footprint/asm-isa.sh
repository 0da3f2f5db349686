#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The MIPS32r2 assembly in crypto/arch/mips32r2 says which instruction set
# it is written in: a build system that compiles C for MIPS16e (-mips16 in
# CFLAGS, as router build systems can do for every package) must neither
# fail to assemble it nor mark its functions MIPS16e.  Each file is
# assembled with -mips16 and its functions read from the symbol table.
# Usage: asm-isa.sh READELF TOP CC [CC-ARGS...] -- FILE.S...
set -u
readelf=$1 top=$2
shift 2
cc=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	cc+=("$1")
	shift
done
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for src in "$@"; do
	obj=$tmp/$(basename "$src").o
	if ! "${cc[@]}" -mips16 -I"$top" -c "$src" -o "$obj" 2>"$tmp/err"; then
		echo "$src: does not assemble with -mips16:"
		head -n 5 "$tmp/err"
		bad=1
		continue
	fi
	funcs=$("$readelf" -sW "$obj" | awk '$4 == "FUNC"')
	if [ -z "$funcs" ]; then
		echo "$src: no function in the object"
		bad=1
	elif grep -q 'MIPS16' <<<"$funcs"; then
		echo "$src: functions marked MIPS16e when C is compiled with -mips16:"
		grep 'MIPS16' <<<"$funcs"
		bad=1
	else
		echo "$src: $(wc -l <<<"$funcs") function(s) in MIPS32r2 with -mips16 on the command line"
	fi
done
exit $bad
