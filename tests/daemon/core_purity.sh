#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The protocol core must stay pure (STYLE.md principle 1): its library may
# call only the crypto library and a handful of libc memory functions.  Any
# other external symbol (socket, clock_gettime, printf, syslog, ...) fails.
# Usage: core_purity.sh path/to/libwgdcore.a
set -u
lib=$1
nm=${NM:-nm}

defined=$("$nm" --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
undefined=$("$nm" -u "$lib" | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u)
[ -n "$undefined" ] || { echo "no undefined symbols read from $lib: nm failed?"; exit 1; }

bad=0
for sym in $undefined; do
	grep -qx -- "$sym" <<<"$defined" && continue
	case $sym in
	# the crypto library
	blake2s*|chacha20*|xchacha20*|hchacha20*|poly1305*|x25519*|crypto_*) ;;
	# memory functions, and calloc/free for allowed-IPs nodes (control path)
	memcpy|memset|memmove|memcmp|calloc|free) ;;
	# compiler runtime: libgcc helpers, stack protector, sanitizers, the GOT
	__*|_GLOBAL_OFFSET_TABLE_) ;;
	*) echo "core calls $sym"; bad=1 ;;
	esac
done
[ $bad = 0 ] && echo "core: $(wc -w <<<"$undefined") external symbols, all crypto, memory or compiler runtime"
exit $bad
