#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The data path (device, peers, send, receive, timer actions, configuration
# apply: daemon/datapath/device.h) is a library that reaches the world only through
# its seam (daemon/datapath/io.h).  Its external symbols may be only: the protocol
# core's, the crypto library's (but not crypto_random: random bytes come
# through the seam), the configuration model's (config_*), the logger's
# (log_msg, log_packet, which the executable or a test provides), and a
# handful of libc functions that do no I/O.  A socket, descriptor, clock or
# getrandom call fails this test.
# Usage: datapath_purity.sh libwgddatapath.a libwgdcore.a libwgdcrypto.a
set -u
lib=$1 core=$2 crypto=$3
nm=${NM:-nm}

defs() { "$nm" --defined-only "$@" | awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u; }
own=$(defs "$lib")
allowed=$(defs "$core" "$crypto")
undefined=$("$nm" -u "$lib" | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u)
[ -n "$undefined" ] || { echo "no undefined symbols read from $lib: nm failed?"; exit 1; }

bad=0
for sym in $undefined; do
	case $sym in
	# random bytes only through the seam, never ambient
	crypto_random) echo "data path calls $sym (use device_io.random)"; bad=1; continue ;;
	# the configuration model and the logger
	config_*|log_msg|log_packet) continue ;;
	# memory and formatting, no I/O
	memcpy|memset|memmove|memcmp|bcmp|memchr|strlen|malloc|calloc|realloc|free|snprintf|strerror|inet_ntop) continue ;;
	# compiler runtime: libgcc helpers, stack protector, sanitizers, the GOT
	__*|_GLOBAL_OFFSET_TABLE_) continue ;;
	esac
	grep -qx -- "$sym" <<<"$own" && continue
	grep -qx -- "$sym" <<<"$allowed" && continue
	echo "data path calls $sym"
	bad=1
done
[ $bad = 0 ] && echo "data path: $(wc -w <<<"$undefined") external symbols, all core, crypto, config, log, memory or runtime"
exit $bad
