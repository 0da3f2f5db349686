# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The checks of netifd.sh, sourced by ../shared/openwrt/scripts/ns-inner.sh
# inside the router namespace after ns-common.sh (check, waitfor, step,
# ifup_state, start_stack, stop_stack; $O is the run's directory).  Every
# UCI option the handler reads changes something a check looks at.

# wgd's process under netifd for interface $1 (its command line is the
# handler's proto_run_command; the checks look at its --threads).
wgd_pid() {
	local p
	for p in /proc/[0-9]*; do
		case "$(tr '\0' ' ' 2>/dev/null < "$p/cmdline")" in
		"/usr/sbin/wgd -f $1 " | "/usr/sbin/wgd -f --user root $1 " | "/usr/sbin/wgd -f --threads "*" $1 ")
			echo "${p#/proc/}" ;;
		esac
	done
}
cmdline() { tr '\0' ' ' < "/proc/$1/cmdline"; }
# The number of worker threads of process $1 (wgd names them wgd-work/N).
workers() { cat /proc/"$1"/task/*/comm 2>/dev/null | grep -c '^wgd-work/'; }
# A field of wgctl's dump: the interface line ($2 = interface) or a peer's
# line ($2 = its public key), field $3 (1-based, the peer's key excluded).
dump_field() {
	wgctl show "$1" dump | awk -v k="$2" -v f="$3" -v i="$1" '
		NR == 1 && k == "interface" { print $f; exit }
		NR > 1 && $1 == k { print $(f + 1); exit }'
}
status_json() { ubus call "network.interface.$1" status; }
# The codes of netifd's errors for interface $1.
error_codes() {
	status_json "$1" | python3 -c 'import json,sys; print(" ".join(e["code"] for e in json.load(sys.stdin).get("errors", [])))'
}
has_error() { case " $(error_codes "$1") " in *" $2 "*) return 0 ;; esac; return 1; }
is() { eval "$1"; }
tunnel_ping() { ping -c 1 -W 2 "$@" >/dev/null; }
waitping() { waitfor "tunnel_ping $*" 10; }
# KEY_R, KEY_2, PSK (netifd.sh keeps them out of the environment)
. "$O/keys.sh"

# The accounts of an OpenWrt image (base-files), in this namespace's /etc
# only, so that the host's users do not count; then the package's USERID as
# opkg's postinst applies it (base-files' add_group_and_user reads it as
# Require-User): "user[=uid]:group[=gid]", a missing id the first free one
# from 32768.
openwrt_accounts() {
	printf '%s\n' 'root:x:0:0:root:/root:/bin/ash' 'daemon:*:1:1:daemon:/var:/bin/false' \
		'network:*:101:101:network:/var:/bin/false' 'nobody:*:65534:65534:nobody:/var:/bin/false' > /etc/passwd
	printf '%s\n' 'root:x:0:' 'daemon:x:1:' 'network:x:101:' 'nogroup:x:65534:' > /etc/group
	sed 's/:.*/:*:0:0:99999:7:::/' /etc/passwd > /etc/shadow
}
first_free() { # file start
	local id=$2
	while cut -d: -f3 "$1" | grep -qx "$id"; do id=$((id + 1)); done
	echo "$id"
}
require_user() { # user[=uid]:group[=gid]
	local u=${1%%:*} g=${1#*:} uid gid
	g=${g%%:*}
	uid=${u#*=}; u=${u%%=*}; [ "$uid" != "$u" ] || uid=$(first_free /etc/passwd 32768)
	gid=${g#*=}; g=${g%%=*}; [ "$gid" != "$g" ] || gid=$(first_free /etc/group 32768)
	grep -q "^$g:" /etc/group || echo "$g:x:$gid:$u" >> /etc/group
	grep -q "^$u:" /etc/passwd || {
		echo "$u:x:$uid:$gid:$u:/var/run/$u:/bin/false" >> /etc/passwd
		echo "$u:*:0:0:99999:7:::" >> /etc/shadow
	}
}
# Whether /etc/config/network holds private_key $1 (not only a uci delta);
# the key goes to grep through a pipe, not its command line.
committed_key() {
	[ -n "$1" ] && grep -qF -f <(printf "option private_key '%s'\n" "$1") /etc/config/network
}
uid_of() { awk -F: -v u="$1" '$1 == u { print $3 }' /etc/passwd; }
# "real effective saved fs" uids of process $1
uids() { awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$1/status"; }
# Every thread of wgd $1: CAP_NET_ADMIN alone in its permitted, effective
# and bounding sets, nothing inheritable or ambient, no new privileges
# (capabilities are per thread: a worker could keep what the owner dropped).
net_admin_only() {
	local t n=0
	for t in /proc/"$1"/task/*; do
		awk '/^Cap(Prm|Eff|Bnd):/ && $2 != "0000000000001000" { bad = 1 }
			/^Cap(Inh|Amb):/ && $2 != "0000000000000000" { bad = 1 }
			/^NoNewPrivs:/ && $2 != 1 { bad = 1 }
			END { exit bad }' "$t/status" || return 1
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# A local user's trap: /tmp/wgd and a 0666 file for each interface, made by
# nobody before netifd starts.  The handler must neither write nor remove
# them (a reader would learn the keys, a writer inject peers).
hostile_state() { stat -c '%n %u %g %a %s %Y %i' /tmp/wgd /tmp/wgd/* 2>&1; }
hostile_unchanged() { [ "$(hostile_state)" = "$HOSTILE" ]; }

# Files that hold a key (base64 or hex; $O/secrets): every file written since
# the stack started in /tmp, /run, /dev/shm, /var and /etc, but for the
# test's own folder $O and /etc/config/network (where UCI keeps the keys by
# design); and the logs of netifd (with the handler's and wgd's output) and
# ubusd.  The patterns come from a file, not grep's command line.
key_files() {
	{
		find /tmp /run /dev/shm /var /etc \( -path "$O" -o -path /etc/config/network \) -prune \
			-o -type f -newer "$O/stamp" -print0 2>/dev/null
		printf '%s\0' "$OUT/netifd.log" "$OUT/ubusd.log"
	} | xargs -0 -r grep -lsF -f "$O/secrets" --
}
no_key_files() { local f; f=$(key_files); [ -z "$f" ] || { echo "key in: $f"; return 1; }; }

# A local reader's view of the command lines (world-readable in /proc)
# while the handler runs: every 20 ms, each process of this namespace whose
# command line holds a secret, or a private_key option (netifd's JSON for a
# declared option, "uci set ...private_key=").  One line per process and
# pattern in $OUT/cmdline-hits, the pattern by its number only.
SAMPLER='
import os, sys, time
# split, or this command line would match itself
pats = [l.strip().encode() for l in sys.stdin if l.strip()] + [b"\"private" b"_key\"", b"private" b"_key="]
me = os.readlink("/proc/self/ns/net")
seen = set()
end = time.monotonic() + 300
while time.monotonic() < end:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/ns/net") != me:
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read()
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
        except OSError:
            continue
        for i, p in enumerate(pats):
            if p in line and (pid, i) not in seen:
                seen.add((pid, i))
                print(f"pid {pid} ({comm}): pattern {i}", flush=True)
    time.sleep(0.02)
'

step "environment"
echo "/bin/sh -> $(readlink -f /bin/sh)"
check "/bin/sh is busybox ash (pitfall 1)" is '[ "$(readlink -f /bin/sh)" = "$(readlink -f /bin/busybox)" ]'
ip link set lo up
echo "192.168.88.2 peer1.wgd.test" >> /etc/hosts
openwrt_accounts
echo "the package's USERID: $WGD_USERID"
for spec in $WGD_USERID; do require_user "$spec"; done
WGD_UID=$(uid_of wgd)
check "the package creates the user wgd" is '[ -n "$WGD_UID" ] && [ "$WGD_UID" != 0 ]'
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	'mkdir /tmp/wgd && chmod 0777 /tmp/wgd && touch /tmp/wgd/wgo.conf /tmp/wgd/wgg.conf && chmod 0666 /tmp/wgd/*'
HOSTILE=$(hostile_state)
echo "$HOSTILE"
touch "$O/stamp"
python3 -c "$SAMPLER" < "$O/secrets" > "$OUT/cmdline-hits" 2>&1 &
SAMPLER_PID=$!
start_stack
waitfor "ubus list network.interface.wgo" || echo "network.interface.wgo never appeared"
ubus call network get_proto_handlers | python3 -c 'import json,sys; print("wgd:", json.dumps(json.load(sys.stdin).get("wgd")))'

step "wgo comes up from UCI"
check "wgo up" waitfor '[ "$(ifup_state wgo)" = True ]' 75
status_json wgo > "$OUT/wgo-status-up.json"
cat "$OUT/wgo-status-up.json"
wgctl show wgo; ip addr show dev wgo; ip route; ip -6 route
PID1=$(wgd_pid wgo)
echo "wgd pid $PID1, netifd $NETIFD"
check "wgd -f wgo runs as netifd's child" is "[ -n '$PID1' ] && [ \"\$(awk '/^PPid:/ {print \$2}' /proc/$PID1/status)\" = $NETIFD ]"
echo "wgd's capabilities:" $(grep -E '^Cap(Prm|Eff|Bnd)' "/proc/$PID1/status")
check "threads 2: wgd -f --threads 2 wgo" is "[ \"\$(cmdline $PID1)\" = '/usr/sbin/wgd -f --threads 2 wgo ' ]"
check "... sealing and opening on 2 threads (one worker)" is "[ \"\$(workers $PID1)\" = 1 ]"
check "wgg (no threads option): wgd -f wgg, no worker" waitfor \
	'[ -n "$(wgd_pid wgg)" ] && [ "$(cmdline $(wgd_pid wgg))" = "/usr/sbin/wgd -f wgg " ] && [ "$(workers $(wgd_pid wgg))" = 0 ]' 50
check "wgd runs as the user wgd (uid $WGD_UID), not root" is "[ \"\$(uids $PID1)\" = '$WGD_UID $WGD_UID $WGD_UID $WGD_UID' ]"
check "... each of its threads with cap_net_admin alone (CapPrm, CapEff, CapBnd), no new privileges" is "net_admin_only $PID1"
check "private_key: wgo's public key" is "[ \"\$(wgctl show wgo public-key)\" = '$PUB_R' ]"
check "listen_port 51900"               is '[ "$(dump_field wgo interface 3)" = 51900 ]'
check "fwmark 0x4d2"                    is '[ "$(dump_field wgo interface 4)" = 0x4d2 ]'
check "mtu 1380 on the link"            is 'ip link show wgo | grep -q "mtu 1380 "'
check "wgo is UP"                       is 'ip link show wgo | grep -q "[<,]UP[,>]"'
check "addresses: 10.87.0.1/24"         is 'ip -4 addr show dev wgo | grep -q "inet 10.87.0.1/24"'
# Waited for: once in a run it was missing for a moment after netifd
# reported the interface up.
check "addresses: fd87::1/64"           waitfor 'ip -6 addr show dev wgo | grep -q "inet6 fd87::1/64"' 25
check "ip6prefix: fd87:1::/48 in netifd's status" python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
sys.exit(not any(p["address"] == "fd87:1::" and p["mask"] == 48 for p in s.get("ipv6-prefix", [])))' "$OUT/wgo-status-up.json"
check "public_key: peer1 configured"    is "wgctl show wgo peers | grep -qx '$PUB_1'"
check "preshared_key of peer1"          is "[ \"\$(dump_field wgo '$PUB_1' 1)\" = '$PSK' ]"
check "endpoint_host (a name) + endpoint_port" is "[ \"\$(dump_field wgo '$PUB_1' 2)\" = 192.168.88.2:51901 ]"
check "allowed_ips of peer1"            is "[ \"\$(dump_field wgo '$PUB_1' 3)\" = 10.87.0.2/32,10.86.0.0/24,fd87::2/128 ]"
check "persistent_keepalive 25"         is "[ \"\$(dump_field wgo '$PUB_1' 7)\" = 25 ]"
check "disabled: peer2 absent"          is "! wgctl show wgo peers | grep -qx '$PUB_2'"
# Waited for: once in five runs a route was missing for a moment after
# netifd reported the interface up.
check "route_allowed_ips=1: 10.86.0.0/24 dev wgo" waitfor 'ip route | grep -q "^10.86.0.0/24 dev wgo"' 25
check "route_allowed_ips=1: fd87::2 dev wgo" waitfor 'ip -6 route | grep -q "^fd87::2 dev wgo"' 25
check "route_allowed_ips=0: peer3's 10.85.0.0/24 allowed, no route" is \
	"[ \"\$(dump_field wgo '$PUB_3' 3)\" = 10.85.0.0/24 ] && ! ip route | grep -q '^10.85.0.0/24'"
check "endpoint host route through wan (nohostroute unset)" waitfor 'ip route show exact 192.168.88.2/32 | grep -q "via 192.168.87.2 dev veth-wan"' 25
check "the tunnel pings p1 (10.87.0.2)" waitping 10.87.0.2
check "route_allowed_ips route carries traffic (10.86.0.1)" waitping 10.86.0.1
check "and IPv6 (fd87::2)" waitping -6 fd87::2
check "p1 saw a handshake with the preshared key" is \
	"WGD_RUN_DIR=$O/prun wgctl show p1 dump | P=\$PSK awk -v k='$PUB_R' '\$1 == k && \$2 == ENVIRON[\"P\"] && \$5 > 0 {f = 1} END {exit !f}'"
check "no key in a file after ifup" no_key_files
check "the hostile /tmp/wgd is unchanged" hostile_unchanged

step "wgg: no private_key in UCI"
check "wgg up" waitfor '[ "$(ifup_state wgg)" = True ]' 50
GEN=$(uci -q get network.wgg.private_key)
echo "generated key stored: ${GEN:+yes}"
check "private_key generated and committed" committed_key "$GEN"
check "... not through uci's command line" is '[ ! -e "$O/uci-argv" ]'
check "... with no change left in uci's save directories" is '[ -z "$(uci changes)" ] && [ -z "$(ls -A /etc/config | grep -v "^network$")" ]'
[ -z "$GEN" ] || printf '%s\n%s\n' "$GEN" "$(echo "$GEN" | base64 -d | od -An -tx1 | tr -d ' \n')" >> "$O/secrets"
check "no key in a file (the generated one either)" no_key_files
check "wgg runs with the stored key" is "[ \"\$(wgctl show wgg public-key)\" = \"\$(echo '$GEN' | wgctl pubkey)\" ]"
check "wgg listen_port 51909" is '[ "$(dump_field wgg interface 3)" = 51909 ]'

step "renew after peer changes (uci + ubus call network.interface.wgo renew)"
HS1=$(dump_field wgo "$PUB_1" 4)
uci set network.peer2.disabled=0
uci delete network.peer1.allowed_ips
uci add_list network.peer1.allowed_ips=10.87.0.2/32
uci add_list network.peer1.allowed_ips=fd87::2/128
uci commit network
ubus call network.interface.wgo renew
check "peer2 added" waitfor "wgctl show wgo peers | grep -qx '$PUB_2'" 50
check "renew kept the daemon (pid $PID1)" is "[ \"\$(wgd_pid wgo)\" = '$PID1' ]"
check "peer1's allowed_ips changed" waitfor "[ \"\$(dump_field wgo '$PUB_1' 3)\" = 10.87.0.2/32,fd87::2/128 ]" 25
check "route 10.88.0.0/24 dev wgo (peer2)" waitfor 'ip route | grep -q "^10.88.0.0/24 dev wgo"' 25
check "route 10.86.0.0/24 gone" waitfor '! ip route | grep -q "^10.86.0.0/24"' 25
check "peer1's session kept (same handshake time)" is "[ \"\$(dump_field wgo '$PUB_1' 4)\" = '$HS1' ]"
check "the tunnel pings p2 (10.88.0.2)" waitping 10.88.0.2
check "and still p1" waitping 10.87.0.2
uci delete network.peer2.allowed_ips
uci add_list network.peer2.allowed_ips=not-an-ip
uci commit network
ubus call network.interface.wgo renew
check "a renew with a bad allowed_ips: CONFIGURATION_FAILED" waitfor 'has_error wgo CONFIGURATION_FAILED' 50
check "... the daemon kept (pid $PID1)" is "[ \"\$(wgd_pid wgo)\" = '$PID1' ] && [ \"\$(ifup_state wgo)\" = True ]"
check "... and its peers" is "wgctl show wgo peers | grep -qx '$PUB_2'"
uci delete network.peer2.allowed_ips
uci add_list network.peer2.allowed_ips=10.88.0.0/24
uci commit network
ubus call network.interface.wgo renew
check "fixed and renewed: p2 pings" waitping 10.88.0.2
check "no key in a file after the renews" no_key_files
check "the hostile /tmp/wgd is still unchanged" hostile_unchanged
kill "$SAMPLER_PID"
wait "$SAMPLER_PID" 2>/dev/null
cat "$OUT/cmdline-hits"
check "no secret on a command line during the setups and renews" is '[ ! -s "$OUT/cmdline-hits" ]'

step "kill -9 of the daemon: netifd restarts the interface"
kill -KILL "$PID1"
check "wgo goes down" waitfor '[ -z "$(wgd_pid wgo)" ] || [ "$(wgd_pid wgo)" != "'"$PID1"'" ]' 50
check "wgo up again with a new daemon" waitfor '[ "$(ifup_state wgo)" = True ] && [ -n "$(wgd_pid wgo)" ] && [ "$(wgd_pid wgo)" != "'"$PID1"'" ]' 100
PID2=$(wgd_pid wgo)
echo "new wgd pid $PID2"
check "the first setup after it worked (the dead daemon's socket ignored)" is \
	'! grep -q "wgd: wgo: CONFIGURATION_FAILED: wgctl setconf" "$OUT/netifd.log"'
check "the tunnel pings p1 again" waitping 10.87.0.2
check "and p2" waitping 10.88.0.2

step "netifd killed (SIGKILL) and started again"
PID4=$(wgd_pid wgo)
PIDG=$(wgd_pid wgg)
kill -KILL "$NETIFD"
wait "$NETIFD" 2>/dev/null
check "wgd ($PID4) outlives netifd and keeps wgo" is "[ -e /proc/$PID4 ] && ip link show wgo"
/sbin/netifd -S -l 4 >> "$OUT/netifd.log" 2>&1 &
NETIFD=$!
echo "netifd pid $NETIFD"
check "wgo up again under the new netifd" waitfor '[ "$(ifup_state wgo)" = True ] && [ -n "$(wgd_pid wgo)" ] && [ "$(wgd_pid wgo)" != "'"$PID4"'" ]' 150
check "... its wgd the new netifd's child" is "[ \"\$(awk '/^PPid:/ {print \$2}' /proc/\$(wgd_pid wgo)/status)\" = $NETIFD ]"
check "... the stray wgd $PID4 stopped" waitfor "[ ! -e /proc/$PID4 ]" 25
check "... and pings p1" waitping 10.87.0.2
check "wgg up again too, its stray $PIDG stopped" waitfor '[ "$(ifup_state wgg)" = True ] && [ ! -e /proc/'"$PIDG"' ] && [ -n "$(wgd_pid wgg)" ]' 100
check "no DEVICE_EXISTS" is '! has_error wgo DEVICE_EXISTS && ! has_error wgg DEVICE_EXISTS'

step "threads changed (uci + ubus call network reload)"
PID5=$(wgd_pid wgo)
uci set network.wgo.threads=03
uci commit network
ubus call network reload
check "wgo restarted by the reload: wgd -f --threads 3 wgo" waitfor \
	'[ "$(ifup_state wgo)" = True ] && [ -n "$(wgd_pid wgo)" ] && [ "$(wgd_pid wgo)" != '"$PID5"' ] && [ "$(cmdline $(wgd_pid wgo))" = "/usr/sbin/wgd -f --threads 3 wgo " ]' 100
check "... with two workers" is '[ "$(workers $(wgd_pid wgo))" = 2 ]'
check "... and pings p1" waitping 10.87.0.2

step "nohostroute=1 (uci + ubus call network reload, then wan restarted)"
# netifd keeps a host route with the interface that carries it (wan), so wan
# is restarted: wgo, which depends on it, comes back without asking again.
uci set network.wgo.nohostroute=1
uci commit network
ubus call network reload
check "wgo up after the reload" waitfor '[ "$(ifup_state wgo)" = True ] && [ -n "$(wgd_pid wgo)" ]' 100
ubus call network.interface.wan down
waitfor '[ "$(ifup_state wan)" = False ]' 25
ubus call network.interface.wan up
check "wan up again" waitfor '[ "$(ifup_state wan)" = True ]' 50
check "wgo up again" waitfor '[ "$(ifup_state wgo)" = True ] && [ -n "$(wgd_pid wgo)" ]' 100
check "no endpoint host route" waitfor '! ip route show exact 192.168.88.2/32 | grep -q .' 25
check "the tunnel pings p1 (through wan's route)" waitping 10.87.0.2

step "setup failures name their reason"
ubus call network.interface.wgbad up
check "bad private_key: INVALID_PRIVATE_KEY" waitfor 'has_error wgbad INVALID_PRIVATE_KEY' 50
status_json wgbad | python3 -c 'import json,sys; s=json.load(sys.stdin); print("wgbad up:", s["up"], "errors:", s.get("errors"))'
check "wgbad stays down, no daemon" is '[ "$(ifup_state wgbad)" = False ] && [ -z "$(wgd_pid wgbad)" ]'
ubus call network.interface.wgp up
check "a peer's bad public_key: INVALID_PUBLIC_KEY" waitfor 'has_error wgp INVALID_PUBLIC_KEY' 50
ubus call network.interface.wgt up
check "threads 65: INVALID_THREADS, wgd's own reason" waitfor 'has_error wgt INVALID_THREADS' 50
status_json wgt | python3 -c 'import json,sys; print("wgt errors:", json.load(sys.stdin).get("errors"))'
sleep 2
check "... no daemon, not retried" is '[ -z "$(wgd_pid wgt)" ] && [ "$(grep -c "wgd: wgt: INVALID_THREADS: threads .65.: not a number of threads from 1 to 64" "$OUT/netifd.log")" = 1 ]'
ip link add wgx type veth peer name wgxp	# no dummy module on the host
ubus call network.interface.wgx up
check "device name taken: DEVICE_EXISTS" waitfor 'has_error wgx DEVICE_EXISTS' 50
check "... and that device is left alone" is 'ip -d link show wgx | grep -q "veth"'
ip link del wgx
mount -t tmpfs tmpfs /dev/net	# this namespace's mounts only
ubus call network.interface.wgm up
check "no /dev/net/tun: NO_TUN" waitfor 'has_error wgm NO_TUN' 50
ubus call network.interface.wgm down
umount /dev/net
mv "$O/bin/wgd" "$O/bin/wgd.away"
ubus call network.interface.wgm up
check "wgd missing: MISSING_WGD" waitfor 'has_error wgm MISSING_WGD' 50
ubus call network.interface.wgm down
FAKE="sleep 59.$$"
printf '#!/bin/sh\nexec %s\n' "$FAKE" > "$O/bin/wgd"
chmod +x "$O/bin/wgd"
ubus call network.interface.wgm up
waitfor "pgrep -fx '$FAKE'" 25
FAKE_PID=$(pgrep -ofx "$FAKE")
check "a daemon that never serves: DAEMON_NOT_RUNNING" waitfor 'has_error wgm DAEMON_NOT_RUNNING' 100
check "... and it was stopped" waitfor "[ -n '$FAKE_PID' ] && [ ! -e /proc/$FAKE_PID ]" 50
ubus call network.interface.wgm down
check "ifdown wgm stops netifd's retries" waitfor "! pgrep -fx '$FAKE'" 75
rm -f "$O/bin/wgd"
mv "$O/bin/wgd.away" "$O/bin/wgd"

ubus call network.interface.wgq up
check "mtu refused: INVALID_MTU" waitfor 'has_error wgq INVALID_MTU' 50
sleep 3
check "... once: netifd does not retry it" is '[ "$(grep -c "wgd: wgq: INVALID_MTU" "$OUT/netifd.log")" = 1 ]'
check "... and its daemon was stopped" waitfor '[ -z "$(wgd_pid wgq)" ] && ! ip link show wgq' 25

step "listen_port below 1024"
ubus call network.interface.wgl up
check "wgl up with listen_port 853" waitfor '[ "$(ifup_state wgl)" = True ] && [ "$(dump_field wgl interface 3)" = 853 ]' 75
# Set after the drop: its privileged monitor binds the port (wgd(8), PRIVILEGES).
check "... its wgd runs as the user wgd with cap_net_admin alone" is \
	"[ \"\$(uids \$(wgd_pid wgl))\" = '$WGD_UID $WGD_UID $WGD_UID $WGD_UID' ] && net_admin_only \$(wgd_pid wgl)"
check "... and owns port 853" is "ss -uanpH 'sport = :853' | grep -q \"pid=\$(wgd_pid wgl),\""
PIDL=$(wgd_pid wgl)
uci set network.wgl.listen_port=443
uci commit network
ubus call network.interface.wgl renew
check "renew to listen_port 443, the same daemon" waitfor "[ \"\$(dump_field wgl interface 3)\" = 443 ] && [ \"\$(wgd_pid wgl)\" = '$PIDL' ]" 50
uci set network.wgl.listen_port=853
uci commit network
ubus call network.interface.wgl down
check "wgl down" waitfor '[ -z "$(wgd_pid wgl)" ] && ! ip link show wgl' 50

step "the init script: wgd's options from /etc/config/wgd (the real uci)"
mkdir -p -m 700 "$O/wireguard"
printf '[Interface]\nPrivateKey = %s\nListenPort = 51941\nAddress = 10.95.0.1/24\n' "$KEY_2" > "$O/wireguard/wgi.conf"
printf '[Interface]\nPrivateKey = %s\n' "$KEY_2" > "$O/wireguard/wgk.conf"
printf '[Interface]\nPrivateKey = %s\n' "$KEY_2" > "$O/wireguard/wgn.conf"
chmod 600 "$O"/wireguard/*.conf
printf "config interface 'wgi'\n\toption threads '2'\nconfig interface 'wgk'\n\toption threads 'two'\n" > /etc/config/wgd
# procd's calls recorded, one line per instance (tests/openwrt/initscript.sh)
busybox sh -c '. /lib/functions.sh
	procd_open_instance() { INST="instance=$1"; }
	procd_set_param() { local k="$1"; shift; INST="$INST|$k=$*"; }
	procd_close_instance() { echo "$INST"; }
	. "$1/wgd.init"
	WGD_CONFIG_DIR=$1/wireguard
	start_service' sh "$O" > "$OUT/init-instances" 2> "$OUT/init-err"
cat "$OUT/init-instances" "$OUT/init-err"
check "threads 2: wgd -f --threads 2 -c FILE" grep -q "^instance=wgi|command=/usr/sbin/wgd -f --threads 2 -c $O/wireguard/wgi.conf|" "$OUT/init-instances"
check "no section: wgd -f -c FILE" grep -q "^instance=wgn|command=/usr/sbin/wgd -f -c $O/wireguard/wgn.conf|" "$OUT/init-instances"
check "threads 'two': not started, and why" is "! grep -q '^instance=wgk' '$OUT/init-instances' &&
	grep -qx \"wgd: /etc/config/wgd: wgk: threads 'two': not a number of threads from 1 to 64; wgk not started\" '$OUT/init-err'"
INIT_CMD=$(sed -n 's/^instance=wgi|command=\([^|]*\)|.*/\1/p' "$OUT/init-instances")
$INIT_CMD > "$OUT/init-wgi.log" 2>&1 &
INIT_PID=$!
check "the command brings wgi up from its file" waitfor 'ip -4 addr show dev wgi | grep -q "inet 10.95.0.1/24"' 50
check "... sealing and opening on 2 threads (one worker)" is "[ \"\$(workers $INIT_PID)\" = 1 ]"
kill -TERM "$INIT_PID"
wait "$INIT_PID"
check "... and SIGTERM takes it down" is '! ip link show wgi 2>/dev/null'
rm -f /etc/config/wgd

step "ifdown wgo removes everything"
PID3=$(wgd_pid wgo)
ubus call network.interface.wgo down
check "wgo reported down" waitfor '[ "$(ifup_state wgo)" = False ]' 50
check "device wgo gone" waitfor '! ip link show wgo' 50
check "daemon $PID3 gone" waitfor "[ ! -e /proc/$PID3 ]" 25
check "control socket gone" is '[ ! -e /var/run/wireguard/wgo.sock ]'
check "no route left on wgo" is '! ip route | grep -q "dev wgo" && ! ip -6 route | grep -q "dev wgo"'
check "no route to 10.88.0.0/24" is '! ip route | grep -q "^10.88.0.0/24"'

stop_stack
check "netifd's exit stopped wgg's daemon" waitfor '[ -z "$(wgd_pid wgg)" ] && ! ip link show wgg' 25
