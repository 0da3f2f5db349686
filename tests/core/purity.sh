#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The protocol core must stay pure (STYLE.md principle 1): its library may
# call only functions that our crypto library itself defines, a handful of
# libc memory functions, and the compiler's runtime.  Anything else fails:
# socket, clock_gettime, printf, syslog, and libsodium too (randombytes_buf,
# crypto_aead_*): the core reaches libsodium's X25519 only through
# crypto/x25519.c, and its random bytes only through daemon/core/random.c.
# Usage: core_purity.sh path/to/libwgdcore.a path/to/libwgdcrypto.a
set -u
[ $# = 2 ] || { echo "usage: $0 CORE_LIB CRYPTO_LIB"; exit 2; }
lib=$1
crypto=$2
nm=${NM:-nm}

# Global definitions only ("T blake2s", not "t helper" nor "U memcpy").
globals() { "$nm" --defined-only "$1" | awk 'NF == 3 && $2 ~ /^[TDBRVWG]$/ { print $3 }' | sort -u; }

defined=$(globals "$lib")
crypto_defined=$(globals "$crypto")
undefined=$("$nm" -u "$lib" | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u)
[ -n "$undefined" ] || { echo "no undefined symbols read from $lib: nm failed?"; exit 1; }
grep -qx crypto_wipe <<<"$crypto_defined" ||
	{ echo "crypto_wipe not defined in $crypto: not the crypto library?"; exit 1; }

bad=0
from_crypto=0
internal=0
for sym in $undefined; do
	if grep -qx -- "$sym" <<<"$defined"; then
		internal=$((internal + 1))
		continue
	fi
	if grep -qx -- "$sym" <<<"$crypto_defined"; then
		from_crypto=$((from_crypto + 1))
		continue
	fi
	case $sym in
	# memory functions (fortified or not), and calloc/free for allowed-IPs
	# nodes, the index table and keypair slots (control path, first session)
	memcpy|memset|memmove|memcmp|calloc|free|__memcpy_chk|__memset_chk|__memmove_chk) ;;
	# compiler runtime: sanitizers, stack protector, libgcc/compiler-rt
	# integer helpers (__udivdi3, __popcountdi2, ...), the GOT
	__asan_*|__ubsan_*|__sanitizer_*|__stack_chk_fail|__stack_chk_guard) ;;
	__[a-z]*[dst]i[234]|_GLOBAL_OFFSET_TABLE_) ;;
	*) echo "core calls $sym"; bad=1 ;;
	esac
done
[ $bad = 0 ] && echo "core: $(wc -w <<<"$undefined") undefined symbols: $internal between its own objects," \
	"$from_crypto from $(basename "$crypto"), the rest memory or compiler runtime"
exit $bad
