#!/usr/bin/env bash
# Crash consistency: two interpayd on loopback (alice asks bob to pay), driven through the real interpay CLI. During
# a burst of `interpay send` (with accepts, rejects and cancels mixed in) one daemon is SIGKILLed again and again
# and restarted on the same state directory and port: first the receiving one (bob), then the sending one
# (alice). After each burst both ledgers must converge: every request the CLI reported as sent is on both sides
# exactly once, in the same state, and nothing exists on one side only.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: IntegrationTests/scenarios/crash.bash [--requests N] [--workers N] [--kills N] [--only receiver|sender] [--deadline SECONDS]

Two interpayd in the calling network namespace, without discovery, on 127.0.0.1 only (static peers on fixed
ports). For each victim (the receiving daemon bob, then the sending daemon alice): N `interpay send alice→bob`
from several parallel workers, with accepts (bob), rejects (bob) and cancels (alice) of already sent requests
alongside, while the victim is SIGKILLed --kills times at random points of the burst and restarted each time
with the same state directory, identity and port. Then both ledgers must converge within --deadline seconds,
and `interpay list --json` on both sides must show:
  - no payment ID twice; every payment on both sides, outgoing on alice and incoming on bob, same state;
  - every request the CLI reported as sent (exit 0 and the ID it printed) among them, with its memo;
  - no send created two payments; no payer decision left unconfirmed;
  - every decision the CLI reported as done holds (a confirmed accept stays accepted, a cancel ends cancelled).

  --requests N      sends per victim (default 1000)
  --workers N       parallel send workers (default 4)
  --kills N         SIGKILL/restart cycles per victim (default 5)
  --only VICTIM     only the receiver or only the sender phase
  --deadline S      how long the ledgers may take to converge after a burst (default 90)

Environment: INTERPAYD, INTERPAY (binaries; default .build/debug), INTERPAY_TEST_LIMITS (TOML lines added to
the daemons' [limits] table, e.g. generous rate limits). Prints PASS/FAIL per check, the run time, and exits
non-zero on any failure. Daemons, workers and the scratch directory are removed on exit.
EOF
}

requests=1000
workers=4
kills=5
deadline=90
victims=(receiver sender)
while (($# > 0)); do
    case $1 in
        --requests) requests=$2; shift 2 ;;
        --workers) workers=$2; shift 2 ;;
        --kills) kills=$2; shift 2 ;;
        --deadline) deadline=$2; shift 2 ;;
        --only)
            [[ $2 == receiver || $2 == sender ]] || { echo "crash: --only receiver|sender" >&2; exit 2; }
            victims=("$2")
            shift 2
            ;;
        -h | --help) usage; exit 0 ;;
        *) echo "crash: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for number in "$requests" "$workers" "$kills" "$deadline"; do
    [[ $number =~ ^[0-9]+$ ]] || { echo "crash: not a number: $number" >&2; exit 2; }
done
((workers > 0 && requests >= 100)) || { echo "crash: want --workers >= 1 and --requests >= 100" >&2; exit 2; }

# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
make_work
log_lines=30
# Info, not debug: thousands of sends and decisions per burst.
daemon_log_level=info

started=$SECONDS
declare -A ports=() peer_of=([alice]=bob [bob]=alice)

# free_port: a free port below the kernel's ephemeral range, so that no outgoing connection takes it while its
# daemon is down between a SIGKILL and the restart.
free_port() {
    python3 -c '
import random, socket
low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
candidates = range(20000, low) if low > 21000 else range(low // 2, low)
for port in random.sample(candidates, min(200, len(candidates))):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break'
}

# start NAME: starts NAME's daemon (same state directory, identity and port every time) without discovery, with the
# other as its static peer on loopback. The bursts here are far above the per-peer defaults (100 pending, 600 a
# minute), which the bad-input scenario checks.
start() {
    local name=$1
    [[ -f $work/$name.toml ]] || daemon_config "$name" "max_pending_per_peer = 100000" "max_requests_per_minute = 100000"
    start_daemon - "$name" --no-discovery --no-web --listen 127.0.0.1 --port "${ports[$name]}" \
        --peer "127.0.0.1:${ports[${peer_of[$name]}]}"
}

# crash NAME: SIGKILL, then the same daemon again.
crash() {
    local name=$1
    kill -KILL "${pids[$name]}"
    wait "${pids[$name]}" 2>/dev/null || true
    echo "--- SIGKILL $(date +%T.%N)" >>"$work/$name.log"
    start "$name"
}


# any_session NAME: NAME's daemon has a session up (with its one static peer).
any_session() { on "$1" peers --json | grep -q '"session":"up"'; }

# send_worker PHASE INDEX: sends number INDEX, INDEX+workers, ... of the burst; one line per try in $work/PHASE.sent.W
send_worker() {
    local phase=$1 index=$2 i status out
    for ((i = index; i < requests; i += workers)); do
        status=0
        out=$(on alice send bob "$((i % 97 + 1)).$((i % 10))0" EUR --memo "$phase-$i" 2>>"$work/$phase.errors") \
            || status=$?
        [[ $status -eq 0 && $out =~ ^[0-9a-f-]{36}$ ]] || out=-
        echo "alice $phase-$i $status $out" >>"$work/$phase.sent.$index"
        # A refused send (daemon restarting, no session yet) is retried by no one; just do not spin.
        ((status == 0)) || sleep 0.1
    done
}

# decision_worker PHASE: accepts, rejects (bob) and cancels (alice) requests of the burst until it is told to stop.
decision_worker() {
    local phase=$1 count=0 payment kind actor status out
    local -a sent
    while [[ ! -e $work/$phase.done ]]; do
        sleep 0.2
        mapfile -t sent < <(cat "$work/$phase".sent.* 2>/dev/null | awk '$3 == 0 { print $4 }' | tail -n 40)
        ((${#sent[@]} > 0)) || continue
        payment=${sent[RANDOM % ${#sent[@]}]}
        case $((count++ % 3)) in
            0) kind=accept actor=bob ;;
            1) kind=cancel actor=alice ;;
            *) kind=reject actor=bob ;;
        esac
        status=0
        out=$(on "$actor" "$kind" "$payment" --json 2>>"$work/$phase.errors") || status=$?
        echo "$actor $kind $payment $status $(field "$out" state) $(field "$out" confirmed)" >>"$work/$phase.decisions"
    done
}



progress() { cat "$work/$1".sent.* 2>/dev/null | wc -l; }

# burst PHASE VICTIM
burst() {
    local phase=$1 victim=$2 began=$SECONDS bin threshold k w
    echo "== $phase: $requests sends, $workers workers, $kills SIGKILLs of $victim ($([[ $victim == bob ]] && echo receiver || echo sender))"
    rm -f "$work/$phase.done"
    local -a senders=()
    for ((w = 0; w < workers; w++)); do
        send_worker "$phase" "$w" &
        senders+=($!)
        background+=($!)
    done
    decision_worker "$phase" &
    local decider=$!
    background+=("$decider")
    # Kill points spread over the burst (one random point in each of $kills equal slices of 5 %..90 %), measured in
    # tries, so that the kills happen during the burst however fast this machine is.
    bin=$((requests * 85 / 100 / kills))
    local done_kills=0
    for ((k = 0; k < kills; k++)); do
        threshold=$((requests * 5 / 100 + k * bin + RANDOM % bin))
        while (($(progress "$phase") < threshold)); do sleep 0.05; done
        sleep "0.$((RANDOM % 300))"
        crash "$victim"
        done_kills=$((done_kills + 1))
    done
    for pid in "${senders[@]}"; do wait "$pid" || true; done
    touch "$work/$phase.done"
    wait "$decider" || true
    cat "$work/$phase".sent.* >"$work/$phase.sent"
    local tries ok
    tries=$(wc -l <"$work/$phase.sent")
    ok=$(awk '$3 == 0' "$work/$phase.sent" | wc -l)
    echo "     $tries sends tried, $ok reported sent, $(wc -l <"$work/$phase.decisions" 2>/dev/null || echo 0) decisions," \
        "$done_kills kill cycles in $((SECONDS - began)) s"
    if ((done_kills == kills && tries == requests)); then
        pass "$phase: $kills kill/restart cycles of $victim during $requests sends"
    else
        fail "$phase: $done_kills kills, $tries sends tried"
    fi
    if ((ok >= requests / 2)); then
        pass "$phase: most sends succeeded ($ok of $tries)"
    else
        fail "$phase: only $ok of $tries sends succeeded: $(sort "$work/$phase.errors" | uniq -c | sort -rn | head -3)"
    fi
    for name in alice bob; do
        if kill -0 "${pids[$name]}" 2>/dev/null; then pass "$phase: $name's daemon is running"; else fail "$phase: $name's daemon died"; fi
    done

    began=$SECONDS
    if eventually "$deadline" converged_twice; then
        pass "$phase: both ledgers converged ($((SECONDS - began)) s after the burst)"
    else
        fail "$phase: the ledgers did not converge within $deadline s: $(cat "$work/converge.why" 2>/dev/null)"
    fi
    check_ledgers <(cat "$work"/*.sent) <(cat "$work"/*.decisions 2>/dev/null)
}

echo "== setup"
ports[alice]=$(free_port)
ports[bob]=$(free_port)
while [[ ${ports[bob]} == "${ports[alice]}" ]]; do ports[bob]=$(free_port); done
start alice
start bob
if eventually 30 any_session alice && eventually 30 any_session bob; then
    pass "alice (127.0.0.1:${ports[alice]}) and bob (127.0.0.1:${ports[bob]}) have a session"
else
    fail "no session between alice and bob"
    exit 1
fi

total_kills=0
for victim in "${victims[@]}"; do
    case $victim in
        receiver) burst kill-receiver bob ;;
        sender) burst kill-sender alice ;;
    esac
    total_kills=$((total_kills + kills))
done

sent_total=$(cat "$work"/*.sent | awk '$3 == 0' | wc -l)
summary_detail="$((${#victims[@]} * requests)) sends tried, $sent_total reported sent, $total_kills kill cycles, $((SECONDS - started)) s"
finish
