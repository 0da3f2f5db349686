#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The data path's behaviour does not depend on its number of threads
# (datapath/crypt.h): PROGRAM --threads N for N = 1..4 prints the same
# thing (checks, and the digest of every datagram sent and every packet
# written to a TUN device, tests/datapath/simnet.h), and with N > 1 the
# workers did run jobs (its standard error says how many), so the hand-off
# was exercised.  In a ThreadSanitizer build the same runs are its check.
# Usage: threads.sh PROGRAM [ARGS...]
set -u
prog=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
for n in 1 2 3 4; do
	if ! "$prog" "$@" --threads "$n" >"$tmp/out.$n" 2>"$tmp/err.$n"; then
		cat "$tmp/out.$n" "$tmp/err.$n"
		echo "$prog --threads $n failed"
		exit 1
	fi
	# CPU times vary; the thread count is named in the sim's digest line
	grep -v 'CPU-s' "$tmp/out.$n" | sed 's/ ([0-9]* threads per device)//' >"$tmp/cmp.$n"
	jobs=$(sed -n 's/^\(sim: \)\?\([0-9]*\) jobs run by workers$/\2/p' "$tmp/err.$n")
	if [ "$n" -gt 1 ] && [ "${jobs:-0}" -eq 0 ]; then
		echo "--threads $n: no job was run by a worker"
		bad=1
	fi
	if ! cmp -s "$tmp/cmp.1" "$tmp/cmp.$n"; then
		echo "--threads $n differs from --threads 1:"
		diff "$tmp/cmp.1" "$tmp/cmp.$n" | head -20
		bad=1
	fi
	echo "--threads $n: $(grep -i digest "$tmp/out.$n"), ${jobs:-0} jobs by workers"
done
[ $bad = 0 ] && echo "identical for 1 to 4 threads"
exit $bad
