#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The layer checks catch an upward call through an inline helper, which the
# optimised objects hide: in a copy of the tree, send.h gets an inline helper
# that reads a device field and peer.c (below send) calls it.  tests/layers.py
# and tests/datapath/calls.py must both pass on the unchanged copy and both
# fail, naming peer and send, on the planted one.
# Usage: planted.sh CC NM SRCROOT
set -u
cc=$1 nm=$2 src=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/crypto" "$src/daemon" "$tmp/" || exit 1

checks() {
	python3 "$here/../layers.py" "$tmp" >"$tmp/layers.out" 2>&1
	echo $? >"$tmp/layers.st"
	python3 "$here/calls.py" "$cc" "$nm" "$tmp" >"$tmp/calls.out" 2>&1
	echo $? >"$tmp/calls.st"
}

checks
if [ "$(cat "$tmp/layers.st")" != 0 ] || [ "$(cat "$tmp/calls.st")" != 0 ]; then
	cat "$tmp/layers.out" "$tmp/calls.out"
	echo "the checks fail on the unchanged tree"
	exit 1
fi

dp=$tmp/daemon/datapath
sed -i 's|^#endif|/* planted: an inline helper of a higher file */\
static inline unsigned int send_pending(const struct device *d)\
{\
	return d->tx_count;\
}\
\
#endif|' "$dp/send.h"
sed -i 's|^#include "daemon/datapath/peer.h"|&\n#include "daemon/datapath/send.h"|' "$dp/peer.c"
cat >>"$dp/peer.c" <<'EOF'

unsigned int peer_planted(struct peer *p);
unsigned int peer_planted(struct peer *p)
{
	return send_pending(p->dev);
}
EOF
grep -q send_pending "$dp/send.h" && grep -q '"daemon/datapath/send.h"' "$dp/peer.c" ||
	{ echo "planting failed"; exit 1; }

checks
bad=0
if [ "$(cat "$tmp/layers.st")" = 0 ] || ! grep -q "peer.c includes daemon/datapath/send.h" "$tmp/layers.out"; then
	cat "$tmp/layers.out"
	echo "layers.py missed peer.c including send.h"
	bad=1
fi
if [ "$(cat "$tmp/calls.st")" = 0 ] || ! grep -q "peer calls send" "$tmp/calls.out"; then
	cat "$tmp/calls.out"
	echo "calls.py missed peer calling send's inline helper"
	bad=1
fi
[ $bad = 0 ] && echo "planted upward inline call: caught by both checks ($(grep -c . "$tmp/layers.out") and $(grep -c 'not down' "$tmp/calls.out") findings)"
exit $bad
