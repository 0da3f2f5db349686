#!/usr/bin/env bash
# A short libFuzzer run as a Meson test, over a checked-in seed corpus that it
# must not write to: new inputs go to a scratch directory in the build tree,
# the first corpus directory given (libFuzzer writes only there), and a
# crashing input to that directory as crash-<sha1>.
#   run.sh FUZZER SEED_CORPUS SCRATCH [libFuzzer flags...]
set -euo pipefail
fuzzer=$1 corpus=$2 scratch=$3
shift 3
rm -rf "$scratch"
mkdir -p "$scratch"
exec "$fuzzer" -error_exitcode=1 -artifact_prefix="$scratch/" "$@" "$scratch" "$corpus"
