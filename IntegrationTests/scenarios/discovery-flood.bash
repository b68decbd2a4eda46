#!/usr/bin/env bash
# Announcements that point elsewhere (SECURITY.md R-DIAL-AMP): in a three-host sandbox, host 2 announces --fakes
# `_interpay._tcp` instances, each with its own random peer ID, whose SRV records all point at host 3, where a plain
# TCP listener counts the connections it gets (and closes them: host 3 is not a peer). The daemon on host 1 must
# keep at most DiscoveryTargets.maxPerHost targets for host 3, and give up on each after giveUpAfter dials without
# a handshake: host 3 gets at most 8 × 6 = 48 connections, then none (20 s without one ends the run), and the
# daemon keeps serving. Before the caps, the same announcements made the daemon dial host 3 about 20 times a second for as long
# as they stayed.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: IntegrationTests/scenarios/discovery-flood.bash [--fakes N] [--seconds S]

  --fakes N     fake instances announced (default 200)
  --seconds S   how long the announcements stay at least (default 45); then the run ends after 20 s without a
                connection (at most 60 s more)

Runs inside a fresh three-host scripts/lan-sandbox. Environment: INTERPAYD, INTERPAY (binaries; default
.build/debug). Prints PASS/FAIL per check and exits non-zero on any failure.
EOF
}

fakes=200
seconds=45
while (($# > 0)); do
    case $1 in
        --fakes) fakes=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "discovery-flood: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for number in "$fakes" "$seconds"; do
    [[ $number =~ ^[0-9]+$ ]] || { echo "discovery-flood: not a number: $number" >&2; exit 2; }
done

# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
need_tools avahi-publish
in_sandbox 3 "$@"
make_work
daemon_log_level=info
# The caps of DiscoveryTargets (Sources/InterPayDaemon/Peers/DiscoveryTargets.swift).
per_host=8
give_up_after=6

# Host 3: a TCP listener that is not a peer: it counts each connection (a line with its time) and closes it.
victim_port=7999
"$sandbox" exec 3 -- python3 -c '
import socket, sys, time
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("0.0.0.0", int(sys.argv[1])))
server.listen(128)
with open(sys.argv[2], "a", buffering=1) as out:
    while True:
        connection, _ = server.accept()
        out.write(f"{time.monotonic():.3f}\n")
        connection.close()' "$victim_port" "$work/accepts" &
background+=($!)
touch "$work/accepts"

start_daemon 1 alice --no-web
eventually 10 grep -q advertising "$work/alice.log" || true

# Host 2: an address record naming host 3, and the fake instances pointing at it.
"$sandbox" exec 2 -- avahi-publish -a -R interpay-victim.local "$HOST3_ADDR" >"$work/address.log" 2>&1 &
background+=($!)
mapfile -t ids < <(python3 -c '
import os, sys
sys.path.insert(0, sys.argv[1])
from interpay_wire import peer_id_from_bytes
for _ in range(int(sys.argv[2])):
    print(peer_id_from_bytes(os.urandom(32)))' "$tests_dir/lib" "$fakes")
for ((i = 0; i < fakes; i++)); do
    "$sandbox" exec 2 -- avahi-publish -s -H interpay-victim.local "fake-$i" _interpay._tcp "$victim_port" \
        "v=1" "id=${ids[i]}" >>"$work/publish.log" 2>&1 &
    background+=($!)
done
# The announcements stay for --seconds; then, however slowly a loaded machine resolved them, the connections must
# stop: the run ends once none came for 20 s (within 60 s more), and the total is what the caps allow.
started=$SECONDS
last=0
changed=$SECONDS
while true; do
    count=$(wc -l <"$work/accepts")
    if ((count != last)); then
        last=$count
        changed=$SECONDS
    fi
    elapsed=$((SECONDS - started))
    if ((elapsed >= seconds && SECONDS - changed >= 20)) || ((elapsed >= seconds + 60)); then break; fi
    sleep 1
done
quiet=$((SECONDS - changed))
total=$(wc -l <"$work/accepts")
appeared=$(grep -c "peer appeared.*address=$HOST3_ADDR" "$work/alice.log" || true)
echo "fake instances announced: $fakes; seen by alice: $appeared; connections to host 3: $total in $((SECONDS - started)) s, none in the last $quiet s"

if ((appeared > per_host)); then
    pass "alice resolved more fake instances ($appeared) than she keeps targets for host 3"
else
    fail "alice resolved only $appeared fake instances: the cap was not exercised"
fi
if ((total <= per_host * give_up_after)); then
    pass "connections to host 3: $total, at most $per_host × $give_up_after"
else
    fail "connections to host 3: $total, more than $per_host × $give_up_after"
fi
if ((quiet >= 20)); then
    pass "the connections to host 3 stopped (none in the last $quiet s)"
else
    fail "connections to host 3 went on to the end (the last $quiet s before it)"
fi
answers() { on alice status >/dev/null; }
check "alice still answers" answers
summary_detail="$total connections to the announced host in $seconds s"
finish
