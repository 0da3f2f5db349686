#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The MIPS router build's two instruction sets (meson.build, -Dmips16): the
# cold code in MIPS16e, for size, the packet path in the 32-bit set, for
# speed.  Link-time optimisation gives every function it compiles the first
# object's set, so a change in how the build is put together can silently
# move the packet path to MIPS16e or the cold code back; this reads the
# instruction set of named functions from the symbol table, where a MIPS16e
# function's address has its low bit (the ISA bit) set.
# Usage: isa.sh READELF BINARY 32=NAME,... 16=NAME,...
# A NAME matches the symbol NAME and its compiler clones (NAME.lto_priv.0,
# NAME.constprop.0, NAME.part.0).
set -u
readelf=$1 bin=$2
shift 2
syms=$("$readelf" -sW "$bin") || { echo "isa: $readelf failed on $bin"; exit 1; }
bad=0
label() { if [ "$1" = 16 ]; then echo MIPS16e; else echo MIPS32r2; fi; }
for spec in "$@"; do
	want=${spec%%=*}
	IFS=, read -r -a names <<<"${spec#*=}"
	for name in "${names[@]}"; do
		addrs=$(awk -v n="$name" '$4 == "FUNC" && ($8 == n || index($8, n ".") == 1) { print $2 }' <<<"$syms")
		if [ -z "$addrs" ]; then
			echo "$name: no such function in $bin"
			bad=1
			continue
		fi
		for addr in $addrs; do
			if (( 16#$addr & 1 )); then got=16; else got=32; fi
			if [ "$got" = "$want" ]; then
				echo "$name: $(label "$got") at 0x$addr, as meant"
			else
				echo "$name: $(label "$got") at 0x$addr, but it belongs in $(label "$want")"
				bad=1
			fi
		done
	done
done
exit $bad
