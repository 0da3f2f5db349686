#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Calls among the data path's files go one way (STYLE.md principle 17):
# device -> {receive, expiry, device_config} -> send -> peer -> the core.
# From the library's objects, every call from one file to a function
# another file defines is an edge; tsort fails on a cycle.  Also fails if
# a file calls up the listed order.
# Usage: datapath_calls.sh libwgddatapath.a
set -u
lib=$1
nm=${NM:-nm}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "archive:member.c.o: [address] T symbol" (nm -A; thin archives too)
member() { sed -E 's|^[^:]*:([^:]*/)?([^/:]*)\.c\.o:|\2 |'; }
"$nm" -A --defined-only "$lib" | member | awk '$3 == "T" { print $4, $1 }' | sort >"$tmp/defs"
edges=$tmp/edges
"$nm" -A -u "$lib" | member | awk '$2 == "U" { print $3, $1 }' | sort -u |
	join - "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' | sort -u >"$edges"
[ -s "$edges" ] || { echo "no calls between files found: nm failed?"; exit 1; }
cat "$edges"
if ! tsort "$edges" >/dev/null 2>"$tmp/err"; then
	cat "$tmp/err"
	echo "the data path's files call each other in a cycle"
	exit 1
fi
# The layers, top to bottom; a call may only go down (or to the helpers).
rank() {
	case $1 in
	device) echo 0 ;; receive|expiry|device_config) echo 1 ;; send) echo 2 ;;
	peer) echo 3 ;; endpoint|gso) echo 4 ;; *) echo 9 ;;
	esac
}
bad=0
while read -r from to; do
	if [ "$(rank "$from")" -ge "$(rank "$to")" ]; then
		echo "$from calls $to: not down the layers"
		bad=1
	fi
done <"$edges"
[ $bad = 0 ] && echo "data path calls: $(wc -l <"$edges") edges, all down the layers"
exit $bad
