# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the network benchmarks (tools/netbench, tools/onesided) share:
# finding the wgd to measure, medians and ratios, the bars, and CPU time
# per thread.  Source it; every name starts with bench_.

# bench_is_asan FILE: an AddressSanitizer build (its figures mean little).
bench_is_asan() { grep -q __asan_init "$1" 2>/dev/null; }

# bench_find_wgd PROG [WGD-BINARY | BUILD-DIR]: the absolute path of the wgd
# to measure; without an argument the newest build*/daemon/wgd of this tree
# that is not a sanitizer build.  Fails with a message naming PROG.
bench_find_wgd() {
	local prog=$1 arg=${2:-} top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	if [ -z "$arg" ]; then
		# shellcheck disable=SC2012 # ls -t: newest first
		arg=$(ls -t "$top"/build*/daemon/wgd 2>/dev/null | while read -r w; do
			bench_is_asan "$w" || { echo "$w"; break; }
		done)
	fi
	[ -d "$arg" ] && arg=$arg/daemon/wgd
	if [ -z "$arg" ] || [ ! -x "$arg" ]; then
		echo "$prog: no wgd executable found (give the binary or a build directory)" >&2
		return 1
	fi
	bench_is_asan "$arg" && echo "$prog: warning: $arg is an AddressSanitizer build; its figures mean little" >&2
	echo "$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")"
}

# bench_median V...: the median (the lower middle of an even count).
bench_median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# bench_ratio A B: A / B to two places, "-" when B is not positive.
bench_ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
bench_max() { awk -v a="$1" -v b="$2" 'BEGIN { print (a > b) ? a : b }'; }
# bench_bar VALUE OP LIMIT: "met" or "NOT met" ("-" as a value is not met).
bench_bar() {
	[ "$1" = - ] && { echo "NOT met"; return; }
	awk -v r="$1" -v b="$3" "BEGIN { exit !(r $2 b) }" && echo met || echo "NOT met"
}

# bench_loadavg: the 1-, 5- and 15-minute load averages.
bench_loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# bench_thread_ticks PID: one line per thread of the process, "TID NAME
# TICKS" (user + system CPU time in clock ticks, /proc/PID/task/TID/stat).
bench_thread_ticks() {
	local t
	for t in /proc/"$1"/task/*; do
		[ -r "$t/stat" ] || continue
		# the name is in parentheses and may hold spaces: split at the last ')'
		awk -v tid="${t##*/}" '{
			i = index($0, "("); j = 0
			for (k = length($0); k > 0; k--) if (substr($0, k, 1) == ")") { j = k; break }
			name = substr($0, i + 1, j - i - 1); gsub(/ /, "_", name)
			n = split(substr($0, j + 2), f, " ")
			print tid, name, f[12] + f[13]
		}' "$t/stat" 2>/dev/null
	done
}

# bench_thread_delta BEFORE AFTER: from two bench_thread_ticks outputs (as
# strings), "NAME TICKS" for each thread over the interval, busiest first.
# A thread that started in between counts from zero.
bench_thread_delta() {
	awk 'NR == FNR { b[$1] = $3; next } { printf "%s %.0f\n", $2, $3 - ($1 in b ? b[$1] : 0) }' \
		<(printf '%s\n' "$1") <(printf '%s\n' "$2") | sort -k2,2nr
}

# bench_cpu_busy: clock ticks the whole machine spent busy so far (user,
# nice, system, irq, softirq of /proc/stat's cpu line; not idle, iowait or
# steal).
bench_cpu_busy() { awk '$1 == "cpu" { printf "%.0f\n", $2 + $3 + $4 + $7 + $8; exit }' /proc/stat; }
