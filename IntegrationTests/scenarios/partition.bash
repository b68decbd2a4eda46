#!/usr/bin/env bash
# Partition: two interpayd on two simulated LAN hosts (scripts/lan-sandbox, DNS-SD inside the sandbox), driven
# through the real interpay CLI. Requests, accepts, rejects and cancels go both ways while the link between the hosts
# is cut, first for a short while, then until both daemons have dropped their session; after the link is back both
# ledgers must converge to the same payments in the same states.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: IntegrationTests/scenarios/partition.bash [--cut SECONDS] [--deadline SECONDS]

Two interpayd (alice on host 1, bob on host 2, discovery through the sandbox's avahi). Each asks the other for 12
payments, which are delivered. Then, twice, the link of host 2 is cut (scripts/lan-sandbox link 2 down):
  1. for --cut seconds (default 10): the sessions may survive the cut (TCP retransmits);
  2. until both daemons have dropped their session (keepalive 5 s, so 15-20 s), and 3 s more.
During each cut, in both directions: a stream of new requests (some fail with exit 6 once the session is gone,
which is expected), cancels of some of them by their payee, and decisions on the requests delivered before the
cut: accept and cancel crossing each other, reject and cancel crossing, accepts, rejects and cancels alone.
After the link is back, both ledgers must converge within --deadline seconds (default 120), and then:
  - no payment ID twice; every payment on both sides, in the same state, outgoing on one and incoming on the other;
  - every request the CLI reported as sent is on both sides; no send created two payments;
  - no payer decision is left unconfirmed; every decision the CLI reported holds (a cancel that succeeded
    ends cancelled on both sides, also when the payer's accept crossed it, PROTOCOL.md 8.4).

Environment: INTERPAYD, INTERPAY (binaries; default .build/debug), INTERPAY_TEST_LIMITS (TOML lines added to the
daemons' [limits] table). Needs root (network namespaces). Prints PASS/FAIL per check and the run time, and exits
non-zero on any failure; daemons, workers, the sandbox and the scratch directory are removed on exit.
EOF
}

cut=10
deadline=120
while (($# > 0)); do
    case $1 in
        --cut) cut=$2; shift 2 ;;
        --deadline) deadline=$2; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "partition: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
for number in "$cut" "$deadline"; do
    [[ $number =~ ^[0-9]+$ ]] || { echo "partition: not a number: $number" >&2; exit 2; }
done

# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 2 --cut "$cut" --deadline "$deadline"
make_work
log_lines=30
# A cut link is brought back before the daemons are ended, whatever failed.
on_teardown '"$sandbox" link 2 up'

started=$SECONDS
declare -A peer_of=([alice]=bob [bob]=alice)
deciders=()
on_teardown 'for pid in "${deciders[@]}"; do kill -TERM "$pid"; done'

# start NAME: NAME's daemon on its sandbox host (alice on 1, bob on 2). The test keepalive (5 s) makes a silent peer
# drop after 15-20 s, so the second cut ends the sessions.
start() {
    start_daemon "$([[ $1 == alice ]] && echo 1 || echo 2)" "$1"
}

session() { # NAME: up or down, as NAME's daemon sees its session with the other
    on "$1" peers --json | python3 -c '
import json, sys
peers = [p for p in json.load(sys.stdin)["peers"] if p["name"] == sys.argv[1]]
print(peers[0]["session"] if peers else "unknown")' "${peer_of[$1]}"
}
session_is() { [[ $(session "$1") == "$2" ]]; }
state() { field "$(on "$1" show "$2" --json)" state; }

# send NAME MEMO: NAME asks the other to pay; one line in $work/sent ("NAME MEMO EXIT ID"); prints the ID if sent.
send() {
    local name=$1 memo=$2 status=0 out
    out=$(on "$name" send "${peer_of[$name]}" "$((RANDOM % 90 + 10)).50" MXN --memo "$memo" 2>>"$work/errors") \
        || status=$?
    [[ $status -eq 0 && $out =~ ^[0-9a-f-]{36}$ ]] || out=-
    echo "$name $memo $status $out" >>"$work/sent"
    [[ $out == - ]] || echo "$out"
}

# decide ACTOR KIND PAYMENT [DELAY]: accept, reject or cancel after DELAY seconds; one line in $work/decisions
# ("ACTOR KIND ID EXIT STATE CONFIRMED").
decide() {
    local actor=$1 kind=$2 payment=$3 status=0 out
    sleep "${4:-0}"
    out=$(on "$actor" "$kind" "$payment" --json 2>>"$work/errors") || status=$?
    echo "$actor $kind $payment $status $(field "$out" state) $(field "$out" confirmed)" >>"$work/decisions"
}

# sender NAME PHASE: new requests from NAME until $work/PHASE.stop exists; every 4th is cancelled at once by NAME.
sender() {
    local name=$1 phase=$2 i=0 id
    while [[ ! -e $work/$phase.stop ]]; do
        id=$(send "$name" "$phase-$name-$i") || true
        if [[ -n $id ]] && ((i % 4 == 3)); then decide "$name" cancel "$id"; fi
        i=$((i + 1))
        sleep 0.2
    done
}

# presend PHASE: 12 requests each way, delivered before the cut; their IDs in $work/PHASE.NAME.pre
presend() {
    local phase=$1 name id i
    for name in alice bob; do
        : >"$work/$phase.$name.pre"
        for ((i = 0; i < 12; i++)); do
            id=$(send "$name" "$phase-pre-$name-$i") || true
            [[ -n $id ]] && echo "$id" >>"$work/$phase.$name.pre"
        done
    done
    if eventually 60 delivered "$phase" alice && eventually 60 delivered "$phase" bob \
        && (($(cat "$work/$phase".*.pre | wc -l) == 24)); then
        pass "$phase: 24 requests (12 each way) delivered before the cut"
    else
        fail "$phase: the requests before the cut were not all sent and delivered"
    fi
}

# delivered PHASE NAME: the other side has every request NAME sent before PHASE's cut, pending.
delivered() {
    on "${peer_of[$2]}" list --json --limit 100000 | python3 -c '
import json, sys
wanted = open(sys.argv[1]).read().split()
states = {p["id"]: p["state"] for p in json.load(sys.stdin)["payments"]}
sys.exit(0 if all(states.get(i) == "pending" for i in wanted) else 1)' "$work/$1.$2.pre"
}

# decisions PHASE: the decisions on the requests delivered before the cut, each at a random moment of the cut's
# first seconds, in the background. For requests from PAYEE to PAYER, by index: 0-3 the payer accepts and the payee
# cancels (crossing), 4-5 reject and cancel cross, 6-7 accept, 8-9 the payee cancels, 10-11 reject.
decisions() {
    local phase=$1 payee payer i id
    local -a ids
    for payee in alice bob; do
        payer=${peer_of[$payee]}
        mapfile -t ids <"$work/$phase.$payee.pre"
        for ((i = 0; i < ${#ids[@]}; i++)); do
            id=${ids[i]}
            case $i in
                0 | 1 | 2 | 3 | 6 | 7) decide "$payer" accept "$id" "$((RANDOM % 4)).$((RANDOM % 10))" & deciders+=($!) ;;
                4 | 5 | 10 | 11) decide "$payer" reject "$id" "$((RANDOM % 4)).$((RANDOM % 10))" & deciders+=($!) ;;
            esac
            case $i in
                0 | 1 | 2 | 3 | 4 | 5 | 8 | 9) decide "$payee" cancel "$id" "$((RANDOM % 4)).$((RANDOM % 10))" & deciders+=($!) ;;
            esac
        done
    done
}


# partition PHASE MODE: MODE "timed" cuts for $cut seconds; "drop" until both sessions are down, then 3 s more.
partition() {
    local phase=$1 mode=$2 began cut_began name probe
    echo "== $phase: link cut $([[ $mode == timed ]] && echo "for $cut s" || echo "until both sessions are down")"
    began=$SECONDS
    presend "$phase"
    probe=$(sed -n 9p "$work/$phase.alice.pre")
    touch "$work/decisions"
    local first_decision=$(($(wc -l <"$work/decisions") + 1))
    "$sandbox" link 2 down >/dev/null
    cut_began=$SECONDS
    decisions "$phase"
    local -a workers=()
    for name in alice bob; do
        sender "$name" "$phase" &
        workers+=($!)
        background+=($!)
    done
    if [[ $mode == timed ]]; then
        sleep "$cut"
    else
        if eventually 90 eval 'session_is alice down && session_is bob down'; then
            pass "$phase: both daemons dropped the session ($((SECONDS - cut_began)) s into the cut)"
        else
            fail "$phase: the sessions did not drop during the cut (alice: $(session alice), bob: $(session bob))"
        fi
        sleep 3
    fi
    # Alice cancelled $probe (and only she decided on it) early in the cut; bob cannot have heard of it yet.
    if [[ $(state alice "$probe") == cancelled && $(state bob "$probe") == pending ]]; then
        pass "$phase: the cut is real (bob still sees a request alice cancelled during the cut as pending)"
    else
        fail "$phase: the cut did not hold back alice's cancel: alice $(state alice "$probe"), bob $(state bob "$probe")"
    fi
    touch "$work/$phase.stop"
    for pid in "${workers[@]}"; do wait "$pid" || true; done
    "$sandbox" link 2 up >/dev/null
    local cut_seconds=$((SECONDS - cut_began))
    # Decisions still waiting for the payee's answer finish on their own (bounded); wait for all of them.
    for pid in "${deciders[@]}"; do wait "$pid" || true; done
    deciders=()
    local sessions_during
    sessions_during="alice $(session alice), bob $(session bob)"
    local tries ok refused
    tries=$(grep -c " $phase-[ab]" "$work/sent" || true)
    ok=$(awk -v p="$phase-" '$3 == 0 && index($2, p) == 1 && $2 !~ /-pre-/' "$work/sent" | wc -l)
    refused=$(awk -v p="$phase-" '$3 == 6 && index($2, p) == 1' "$work/sent" | wc -l)
    echo "     cut for $cut_seconds s: $tries requests tried during the cut, $ok sent, $refused refused (exit 6);" \
        "$(tail -n +"$first_decision" "$work/decisions" | wc -l) decisions" \
        "($(tail -n +"$first_decision" "$work/decisions" | awk '{print $2 " exit " $4}' | sort | uniq -c | awk '{printf "%s%s %s %s %s", sep, $2, $3, $4, $1; sep=", "}'));" \
        "sessions after healing: $sessions_during"

    local healed=$SECONDS
    if eventually "$deadline" converged_twice; then
        pass "$phase: both ledgers converged $((SECONDS - healed)) s after the link came back"
    else
        fail "$phase: the ledgers did not converge within $deadline s: $(cat "$work/converge.why" 2>/dev/null)"
    fi
    check_ledgers "$work/sent" "$work/decisions"
    crossing "$phase"
    echo "     $phase took $((SECONDS - began)) s"
}

# crossing PHASE: the requests where the payer's accept or reject crossed the payee's cancel (indexes 0-5 of each
# side's requests before the cut) end the same on both sides, never pending, and cancelled whenever the cancel
# succeeded (PROTOCOL.md 8.4).
crossing() {
    local phase=$1 result
    result=$(python3 - "$work/alice.json" "$work/bob.json" "$work/decisions" "$work/$phase".*.pre <<'PY'
import json, sys
alice, bob = ({p["id"]: p["state"] for p in json.load(open(f))["payments"]} for f in sys.argv[1:3])
cancels = {}
for line in open(sys.argv[3]):
    actor, kind, payment, status = line.split()[:4]
    if kind == "cancel":
        cancels.setdefault(payment, status)
crossed = [i for f in sys.argv[4:] for i in open(f).read().split()[:6]]
bad = [f"{i}: alice {alice.get(i)}, bob {bob.get(i)}, cancel exit {cancels.get(i)}" for i in crossed
       if alice.get(i) != bob.get(i) or alice.get(i) in (None, "pending")
       or (cancels.get(i) == "0" and alice.get(i) != "cancelled")]
outcomes = sorted({alice.get(i) for i in crossed} - {None})
print(f"{len(crossed)} {len(bad)} {'/'.join(outcomes) or '-'} {'; '.join(bad[:3])}")
PY
    )
    local count bad outcomes why
    read -r count bad outcomes why <<<"$result"
    if ((bad == 0 && count == 12)); then
        pass "$phase: all 12 accepts/rejects that crossed a cancel resolved the same on both sides ($outcomes)"
    else
        fail "$phase: $bad of $count crossings resolved differently: $why"
    fi
}

echo "== setup"
start alice
start bob
if eventually 30 session_is alice up && eventually 30 session_is bob up; then
    pass "alice (host 1) and bob (host 2) found each other and have a session"
else
    fail "no session between alice and bob"
    exit 1
fi

partition short-cut timed
if ! eventually 60 eval 'session_is alice up && session_is bob up'; then fail "the session did not come back"; fi
partition long-cut drop

for name in alice bob; do
    if running "$name"; then pass "$name's daemon is still running"; else fail "$name's daemon died"; fi
done
summary_detail="$(awk '$3 == 0' "$work/sent" | wc -l) requests sent, $(wc -l <"$work/decisions") decisions, $((SECONDS - started)) s"
finish
