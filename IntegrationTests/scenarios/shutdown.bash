#!/usr/bin/env bash
# A clean stop under any timing: N interpayd on 127.0.0.1, each a static peer of all the others, so that every
# daemon is dialing, accepting and redialing while the others go away. All are sent SIGTERM at the same instant,
# for several rounds (restarted on the same state directories and ports in between). Every exit must be 0 within
# the stop timeout (the systemd units' TimeoutStopSec=), no daemon may trap (NIO's "Deinited NIOAsyncWriter without
# calling finish()" was the SIGILL here), and once a daemon logged "shutting down" it brings no session up again.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: IntegrationTests/scenarios/shutdown.bash [--lan] [--daemons N] [--rounds N] [--stop-timeout SECONDS]

N interpayd in the calling network namespace, without discovery, on 127.0.0.1 only, each with every other as a
static peer; with --lan, on five sandbox hosts (N/5 each, at least one) finding each other by DNS-SD. Each round waits until each daemon has at least half its sessions up (or 60 s), then sends SIGTERM to
all of them at once and checks, per daemon: exit status 0, exit within the stop timeout, no fatal error in its
log, and no "session up" after its "shutting down".

  --daemons N          daemons (default 10)
  --rounds N           rounds (default 5)
  --stop-timeout S     how long a daemon may take to exit after SIGTERM (default 20, the units' TimeoutStopSec)

Environment: INTERPAYD, INTERPAY (binaries; default .build/debug). Prints PASS/FAIL per check and exits non-zero on
any failure. Daemons and the scratch directory are removed on exit.
EOF
}

count=10
rounds=5
stop_timeout=20
lan=
while (($# > 0)); do
    case $1 in
        --lan) lan=1; shift ;;
        --daemons) count=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --stop-timeout) stop_timeout=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "shutdown: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for number in "$count" "$rounds" "$stop_timeout"; do
    [[ $number =~ ^[0-9]+$ ]] || { echo "shutdown: not a number: $number" >&2; exit 2; }
done
((count >= 2 && rounds >= 1)) || { echo "shutdown: want --daemons >= 2 and --rounds >= 1" >&2; exit 2; }

# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
[[ -z $lan ]] || in_sandbox 5 --lan --daemons "$count" --rounds "$rounds" --stop-timeout "$stop_timeout"
make_work
log_lines=15
daemon_log_level=info

# Free ports on 127.0.0.1, one per daemon, kept for every round.
mapfile -t ports < <(python3 -c '
import socket, sys
sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:
    s.bind(("127.0.0.1", 0))
print("\n".join(str(s.getsockname()[1]) for s in sockets))' "$count")

name_of() { echo "d$1"; }

start_all() {
    local i j
    local -a flags
    if [[ -n $lan ]]; then
        for ((i = 0; i < count; i++)); do start_daemon "$((i % 5 + 1))" "$(name_of "$i")" --no-web; done
        return
    fi
    for ((i = 0; i < count; i++)); do
        flags=()
        for ((j = 0; j < count; j++)); do
            ((i == j)) || flags+=(--peer "127.0.0.1:${ports[j]}")
        done
        start_daemon - "$(name_of "$i")" --no-discovery --no-web --listen 127.0.0.1 --port "${ports[i]}" "${flags[@]}"
    done
}

# sessions_of NAME: how many sessions NAME's daemon has up.
sessions_of() { on "$1" peers --json 2>/dev/null | grep -o '"session":"up"' | wc -l; }

# half_meshed: every daemon has at least half of the others as sessions.
half_meshed() {
    local i
    for ((i = 0; i < count; i++)); do
        (($(sessions_of "$(name_of "$i")") * 2 >= count - 1)) || return 1
    done
}

exits_ok=0
for ((round = 1; round <= rounds; round++)); do
    for ((i = 0; i < count; i++)); do echo "--- round $round" >>"$work/$(name_of "$i").log"; done
    start_all
    if eventually 90 half_meshed; then
        pass "round $round: every daemon has at least half its sessions up"
    else
        # Not the point of this scenario (the stop is): the stop still runs with the sessions there are.
        echo "note: round $round: not every daemon had half its sessions up within 90 s"
    fi
    declare -A stopping=()
    for ((i = 0; i < count; i++)); do stopping[$(name_of "$i")]=${pids[$(name_of "$i")]}; done
    kill -TERM "${stopping[@]}"
    sent=$SECONDS
    for name in "${!stopping[@]}"; do
        pid=${stopping[$name]}
        while kill -0 "$pid" 2>/dev/null && ((SECONDS - sent <= stop_timeout)); do sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            fail "round $round: $name still running ${stop_timeout} s after SIGTERM"
            kill -KILL "$pid" 2>/dev/null || true
        fi
        status=0
        wait "$pid" 2>/dev/null || status=$?
        unset "pids[$name]"
        rm -f "$work/$name.sock"
        if ((status == 0)); then
            exits_ok=$((exits_ok + 1))
        else
            fail "round $round: $name exited with status $status$( ((status > 128)) && echo " (signal $((status - 128)))")"
        fi
    done
    for ((i = 0; i < count; i++)); do
        log=$work/$(name_of "$i").log
        # This round's part of the log only.
        part=$(awk -v mark="--- round $round" '$0 == mark { on = 1; next } /^--- round / { on = 0 } on' "$log")
        if grep -q "Fatal error\|Deinited NIOAsyncWriter" <<<"$part"; then
            fail "round $round: $(name_of "$i") trapped: $(grep -m1 "Fatal error" <<<"$part")"
        fi
        after=$(awk '/shutting down/ { on = 1 } on && /session up/' <<<"$part" | wc -l)
        [[ $after -eq 0 ]] || fail "round $round: $(name_of "$i") brought $after sessions up after 'shutting down'"
    done
done
expect_eq "every daemon exited 0 after SIGTERM, $rounds rounds" "$((count * rounds))" "$exits_ok"
summary_detail="$exits_ok of $((count * rounds)) exits 0"
finish
