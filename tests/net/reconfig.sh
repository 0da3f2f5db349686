#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Reconfiguring keys on a running wgd (side a; b is wireguard-go), as the
# kernel and wireguard-go do it:
# - a peer with wgd's own public key is ignored;
# - a new private key ends the sessions (b, which still expects the old
#   public key, gets no more traffic) and removes a peer whose public key is
#   the new one; once b knows the new key, a new handshake carries traffic;
# - a preshared key that differs from b's makes handshakes fail; the same
#   key on both sides makes them work again;
# - a rotation of the private key right after a handshake carries traffic
#   within a second (the initiation rate limit goes with the old keys);
# - a new preshared key on both sides is only stored: the session carries
#   on, with no new handshake (doc/protocol.md §7);
# - a packet staged while a had no private key leaves as soon as it gets
#   one.

. "$(dirname "$0")/lib.sh"

nt_init rc
nt_pair wgd wireguard-go
nt_endpoint "$IF_A" 4
nt_ping "$IF_A" 198.51.100.2 || nt_fail "ping a -> b"
old_pub=${NT_PUB[$IF_A]}

nt_wg "$IF_A" set "$IF_A" peer "$old_pub" allowed-ips 10.5.0.0/16 || nt_fail "wg set own key as peer"
nt_wg "$IF_A" show "$IF_A" peers | grep -qxF "$old_pub" && nt_fail "wgd accepted its own public key as a peer"
nt_ok "a peer with wgd's own public key is ignored"

(umask 077 && wg genkey >"$NT_TMP/new.key") || nt_fail "wg genkey"
new_pub=$(wg pubkey <"$NT_TMP/new.key")
nt_wg "$IF_A" set "$IF_A" peer "$new_pub" allowed-ips 10.6.0.0/16 || nt_fail "wg set peer with the new key"
hs0=$(nt_handshake_ns "$IF_A")
nt_wg "$IF_A" set "$IF_A" private-key "$NT_TMP/new.key" || nt_fail "wg set private-key"
[ "$(nt_wg "$IF_A" show "$IF_A" public-key)" = "$new_pub" ] || nt_fail "public key not updated"
nt_wg "$IF_A" show "$IF_A" peers | grep -qxF "$new_pub" &&
	nt_fail "the peer with the new public key was not removed"
nt_wg "$IF_A" show "$IF_A" peers | grep -qxF "${NT_PUB[$IF_B]}" || nt_fail "peer b is gone"
nt_noping "$IF_A" 198.51.100.2 || nt_fail "traffic still flows to b, which knows only the old key"
nt_ok "new private key: public key updated, the peer with it removed, old session ended"

nt_wg "$IF_B" set "$IF_B" peer "$old_pub" remove || nt_fail "b: remove old key"
nt_wg "$IF_B" set "$IF_B" peer "$new_pub" allowed-ips 198.51.100.1/32,fd00:2::1/128 || nt_fail "b: new key"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no traffic after b learned the new key"
nt_ping "$IF_B" fd00:2::1 -6 || nt_fail "no traffic b -> a after b learned the new key"
[ "$(nt_handshake_ns "$IF_A")" != "$hs0" ] || nt_fail "no new handshake with the new key"
nt_ok "with the new key on both sides, a new handshake; traffic both ways"

(umask 077 && wg genpsk >"$NT_TMP/psk1" && wg genpsk >"$NT_TMP/psk2") || nt_fail "wg genpsk"
nt_wg "$IF_B" set "$IF_B" peer "$new_pub" preshared-key "$NT_TMP/psk1" || nt_fail "b: psk"
# Remove and re-add b on a, so the next packet needs a new handshake.
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" remove || nt_fail "a: remove b"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" preshared-key "$NT_TMP/psk2" \
	allowed-ips 198.51.100.2/32,fd00:2::2/128 endpoint 192.0.2.2:$NT_PORT || nt_fail "a: b with psk2"
nt_noping "$IF_A" 198.51.100.2 || nt_fail "a handshake succeeded with different preshared keys"
[ "$(nt_handshake "$IF_A")" = 0 ] || nt_fail "a reports a handshake with different preshared keys"
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" preshared-key "$NT_TMP/psk1" || nt_fail "a: psk1"
nt_ping "$IF_A" 198.51.100.2 || nt_fail "no traffic with equal preshared keys"
nt_ok "different preshared keys: no handshake; equal: traffic"

# once: one ping, its reply within W seconds (nt_ping retries, this may not).
once() { nt_x "$NS_A" ping -q -c 1 -W "$1" 198.51.100.2 >/dev/null 2>&1; }

# Rotation within seconds of a handshake, as the kernel does it: b learns
# the new public key first, then a takes the new private key; the next
# packet handshakes at once (the 5 s initiation limit goes with the old
# keys) and its reply is back within a second.
(umask 077 && wg genkey >"$NT_TMP/key3") || nt_fail "wg genkey"
key3_pub=$(wg pubkey <"$NT_TMP/key3")
once 1 || nt_fail "no traffic before the rotation"
nt_wg "$IF_B" set "$IF_B" peer "$new_pub" remove peer "$key3_pub" preshared-key "$NT_TMP/psk1" \
	allowed-ips 198.51.100.1/32,fd00:2::1/128 || nt_fail "b: key3"
nt_wg "$IF_A" set "$IF_A" private-key "$NT_TMP/key3" || nt_fail "a: key3"
once 1 || nt_fail "no reply within 1 s of a key rotation"
nt_ok "key rotation right after a handshake: traffic back within a second"

# A preshared key changed on a first, then on b, as the kernel and
# wireguard-go take it: only stored, the session carries on (its rekey will
# use the new key), so traffic keeps flowing on it with no new handshake.
hs1=$(nt_handshake_ns "$IF_A")
nt_wg "$IF_A" set "$IF_A" peer "${NT_PUB[$IF_B]}" preshared-key "$NT_TMP/psk2" || nt_fail "a: psk2"
once 1 || nt_fail "no reply within 1 s once a alone changed its preshared key"
nt_wg "$IF_B" set "$IF_B" peer "$key3_pub" preshared-key "$NT_TMP/psk2" || nt_fail "b: psk2"
once 1 || nt_fail "no reply within 1 s of a preshared-key change"
[ "$(nt_handshake_ns "$IF_A")" = "$hs1" ] ||
	nt_fail "a new handshake for the new preshared key: the session must run to its rekey"
nt_ok "preshared key changed on a, then on b: the same session carries on"

# Packets sent while a has no private key are staged; giving it one sends
# them at once behind a handshake (b already knows the key).
nt_wg "$IF_A" set "$IF_A" private-key /dev/null || nt_fail "a: remove the private key"
[ "$(nt_wg "$IF_A" show "$IF_A" public-key)" = "(none)" ] || nt_fail "a still has a key"
nt_x "$NS_A" ping -q -c 1 -W 3 198.51.100.2 >"$NT_TMP/staged.ping" 2>&1 &
staged=$!
sleep 0.5
nt_wg "$IF_A" set "$IF_A" private-key "$NT_TMP/key3" || nt_fail "a: key3 again"
wait "$staged" || nt_fail "a packet staged without a key was not sent once the key came"
nt_ok "staged without a private key: sent as soon as the key is set"
nt_gone "${NT_DPID[$IF_A]}" && nt_fail "wgd died"
echo "PASS"
