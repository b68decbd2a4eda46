# shellcheck shell=bash disable=SC2034  # the variables set here are for the scenarios that source this file
# The shared harness of the integration scenarios (IntegrationTests/scenarios/*.bash), sourced by each of them:
# sandbox hosts (scripts/lan-sandbox), interpayd daemons with short test timers, the interpay CLI against them,
# waiting, assertions that say what was expected and what was seen, and a teardown that leaves nothing behind.
#
# A scenario reads:
#     source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
#     need_binaries daemon cli
#     in_sandbox 2 "$@"          # re-runs the scenario inside two sandbox hosts (omit for loopback scenarios)
#     make_work
#     start_daemon 1 alice
#     ...
#     finish                     # "NAME: N passed, M failed", exit status 0 only when nothing failed
#
# Environment: INTERPAYD and INTERPAY override the binaries (default .build/debug); INTERPAY_TEST_LIMITS adds TOML
# lines to every daemon's [limits] table; KEEP_WORK=1 keeps the scratch directory.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tests_dir=$root/IntegrationTests
sandbox=$root/scripts/lan-sandbox
daemon=${INTERPAYD:-$root/.build/debug/interpayd}
cli=${INTERPAY:-$root/.build/debug/interpay}
# The scenario's name (its file name), for messages and the summary line.
scenario=$(basename "${BASH_SOURCE[-1]}" .bash)
passed=0
failed=0
work=
last_out=
last_err=
summary_detail=
# The daemons' process IDs by name, and other background processes the teardown ends.
declare -A pids=()
background=()
# The log level of the daemons start_daemon starts (a scenario may set info, e.g. to keep a burst's logs small).
daemon_log_level=debug
# Words put before the daemon's command line by start_daemon (e.g. env VAR=VALUE), for one start.
daemon_wrapper=()
# Commands the teardown runs first (e.g. bringing a cut link back up), in the order they were added.
teardown_hooks=()
# More options of scripts/lan-sandbox up for in_sandbox (e.g. --segments 2), set before it.
sandbox_flags=()
# How many lines of each log the teardown prints when something failed.
log_lines=40

# Test timers, written into every daemon's configuration by daemon_config: a silent peer is dropped after three
# keepalive intervals, so the smallest interval the daemon allows (5 s) makes a cut session end within 15-20 s
# instead of the 45-60 s meant for people's networks.
test_limits='keepalive_interval = "5s"'

# die MESSAGE: the scenario cannot run here (a binary or tool is missing): exit 2, told apart from a failed check.
die() {
    echo "$scenario: $*" >&2
    exit 2
}

# need_binaries daemon|cli...: the built binaries the scenario runs must exist.
need_binaries() {
    local which path
    for which in "$@"; do
        path=${!which}
        [[ -x $path ]] || die "$path not found; run 'swift build --build-tests' first"
    done
}

# need_tools TOOL...: commands of the machine the scenario needs (scripts/install-deps installs them).
need_tools() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null || die "$tool not found; run scripts/install-deps"
    done
}

# in_sandbox HOSTS ARGS...: unless already inside one, runs this scenario again (with ARGS) inside a fresh
# scripts/lan-sandbox of HOSTS simulated hosts (and $sandbox_flags), which is removed when the scenario ends.
in_sandbox() {
    local hosts=$1
    shift
    [[ -n ${LAN_SANDBOX:-} ]] || exec "$sandbox" run --hosts "$hosts" "${sandbox_flags[@]}" -- "$0" "$@"
}

# make_work: the scenario's scratch directory ($work, readable by the users the sandbox runs tools as) and the
# teardown on exit or signal.
make_work() {
    work=$(mktemp -d "/tmp/interpay-$scenario.XXXXXX")
    chmod 755 "$work"
    trap teardown EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# on_teardown COMMAND: a command (a string for eval) the teardown runs before it ends the daemons.
on_teardown() {
    teardown_hooks+=("$1")
}

# teardown: runs the hooks, ends background processes and daemons (SIGTERM, then SIGKILL after 5 s), prints the
# logs' last lines when anything failed, and removes the scratch directory.
teardown() {
    local status=$? hook pid name log
    trap - EXIT INT TERM
    for hook in "${teardown_hooks[@]}"; do eval "$hook" >/dev/null 2>&1 || true; done
    for pid in "${background[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for name in "${!pids[@]}"; do kill -TERM "${pids[$name]}" 2>/dev/null || true; done
    for name in "${!pids[@]}"; do
        for _ in {1..25}; do kill -0 "${pids[$name]}" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "${pids[$name]}" 2>/dev/null || true
    done
    # Helpers (rates servers, watchers, workers) had the daemons' grace to end on SIGTERM; one still running must
    # not hold up the wait below.
    for pid in "${background[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    if [[ -n $work ]] && crash_reports; then
        fail "a daemon crashed (its crash report is above)"
        ((status != 0)) || status=1
    fi
    if ((failed > 0 || status != 0)) && [[ -n $work ]]; then
        for log in "$work"/*.log; do [[ -f $log ]] && { echo "--- $log"; tail -n "$log_lines" "$log"; }; done
    fi
    if [[ -n ${KEEP_WORK:-} ]]; then echo "$scenario: work directory kept: $work"; else rm -rf "$work"; fi
    exit "$status"
}

# crash_reports: prints whole every crash report a daemon's log holds (the Swift runtime writes one, with every
# thread's backtrace, when the process crashes; the teardown's last lines of each log would show only its end);
# true when there was one.
crash_reports() {
    local log found=1
    for log in "$work"/*.log; do
        if [[ ! -f $log ]] || ! grep -q '^\*\*\* Program crashed' "$log"; then continue; fi
        found=0
        echo "--- crash report in $log"
        sed -n '/^\*\*\* Program crashed/,/^Backtrace took/p' "$log" | head -n 600
    done
    return "$found"
}

# pass DESCRIPTION / fail DESCRIPTION: one PASS or FAIL line, counted for the summary.
pass() {
    echo "PASS $*"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL $*"
    failed=$((failed + 1))
}

# check DESCRIPTION COMMAND...: PASS when COMMAND succeeds, else FAIL with DESCRIPTION.
check() {
    local description=$1
    shift
    if "$@"; then pass "$description"; else fail "$description"; fi
}

# expect_eq DESCRIPTION EXPECTED SEEN: PASS when they are equal, else FAIL saying both.
expect_eq() {
    if [[ $3 == "$2" ]]; then pass "$1"; else fail "$1: expected '$2', saw '$3'"; fi
}

# expect_match DESCRIPTION PATTERN SEEN: PASS when SEEN matches the glob PATTERN (e.g. '*not reachable*'), else FAIL
# saying both.
expect_match() {
    # shellcheck disable=SC2053  # the pattern is a glob on purpose
    if [[ $3 == $2 ]]; then pass "$1"; else fail "$1: expected '$2', saw '$3'"; fi
}

# expect_exit CODE DESCRIPTION COMMAND...: runs COMMAND and checks its exit status. Its standard error is kept in
# $last_err, its standard output followed by its standard error in $last_out, for further checks.
expect_exit() {
    local code=$1 description=$2 status=0
    shift 2
    "$@" >"$work/expect.out" 2>"$work/expect.err" || status=$?
    last_err=$(cat "$work/expect.err")
    last_out=$(cat "$work/expect.out" "$work/expect.err")
    if ((status == code)); then
        pass "$description (exit $code)"
    else
        fail "$description: expected exit $code, saw exit $status: $last_out"
    fi
}

# eventually SECONDS COMMAND...: polls COMMAND (output discarded) every 0.2 s until it succeeds (status 0) or
# SECONDS have passed (status 1).
eventually() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

# daemon_config NAME [TOML...]: writes NAME's configuration file ($work/NAME.toml): the test timers and
# $INTERPAY_TEST_LIMITS in [limits], then TOML (more [limits] keys, or tables of their own). Nothing of this
# machine's configuration applies to a daemon started with it.
daemon_config() {
    local name=$1
    shift
    {
        echo "[limits]"
        echo "$test_limits"
        [[ -z ${INTERPAY_TEST_LIMITS:-} ]] || echo "$INTERPAY_TEST_LIMITS"
        [[ $# -eq 0 ]] || printf '%s\n' "$@"
    } >"$work/$name.toml"
}

# start_daemon HOST NAME [FLAG...]: starts interpayd NAME on sandbox host HOST ("-": in this network namespace)
# with its own state directory, control socket and log ($work/NAME/, NAME.sock, NAME.log, appended across
# restarts), its configuration ($work/NAME.toml; daemon_config writes one when there is none) and FLAGs, and waits
# until its control socket answers. A daemon that does not come up ends the scenario.
start_daemon() {
    local host=$1 name=$2
    shift 2
    mkdir -p "$work/$name"
    [[ -f $work/$name.toml ]] || daemon_config "$name"
    local -a command=("${daemon_wrapper[@]}" "$daemon" --log-level "$daemon_log_level" --config "$work/$name.toml"
        --name "$name" --state-dir "$work/$name" --socket "$work/$name.sock" "$@")
    if [[ $host == - ]]; then
        "${command[@]}" >>"$work/$name.log" 2>&1 &
    else
        "$sandbox" exec "$host" -- "${command[@]}" >>"$work/$name.log" 2>&1 &
    fi
    pids[$name]=$!
    if ! eventually 30 on "$name" status; then
        fail "$name's daemon did not come up within 30 s"
        exit 1
    fi
}

# stop_daemon NAME [SIGNAL]: sends SIGNAL (default TERM) to NAME's daemon and waits until it has exited; its
# socket file is removed, so that a restart is not mistaken for the old daemon.
stop_daemon() {
    kill "-${2:-TERM}" "${pids[$1]}" 2>/dev/null || true
    wait "${pids[$1]}" 2>/dev/null || true
    unset "pids[$1]"
    rm -f "$work/$1.sock"
}

# running NAME: NAME's daemon is still alive.
running() {
    kill -0 "${pids[$1]}" 2>/dev/null
}

# on NAME ARGS...: the interpay CLI against NAME's daemon.
on() {
    local name=$1
    shift
    "$cli" "$@" --socket "$work/$name.sock"
}

# json_get PATH: one member of the JSON document on standard input ("a.b.0" walks objects and lists), printed as
# Python prints it (True, None, 'x' inside lists).
json_get() {
    python3 -c '
import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    value = value[int(key)] if isinstance(value, list) else value[key]
print(value)' "$1"
}

# session_up NAME PEER: NAME's daemon has a session with the peer named PEER.
session_up() {
    on "$1" peers --json | python3 -c '
import json, sys
sys.exit(0 if any(p["name"] == sys.argv[1] and p["session"] == "up" for p in json.load(sys.stdin)["peers"]) else 1)' "$2"
}

# trust NAME PEER: the trust state NAME's daemon shows for the peer named PEER (paired, untrusted…), or "-".
trust() {
    on "$1" peers --json | python3 -c '
import json, sys
print(next((p["trust"]["state"] for p in json.load(sys.stdin)["peers"] if p["name"] == sys.argv[1]), "-"))' "$2"
}

# pairing_requested NAME PEER: NAME's daemon shows that the peer named PEER asked to pair.
pairing_requested() {
    on "$1" peers --json | python3 -c '
import json, sys
peers = json.load(sys.stdin)["peers"]
sys.exit(0 if any(p["name"] == sys.argv[1] and p["trust"]["pairing"] == "requested" for p in peers) else 1)' "$2"
}

# pair NAME PEER: pairs two daemons with a session through the CLI, as their users would: NAME asks, PEER's user
# reads the code PEER's daemon shows, and both confirm it. PASS when both show each other paired; else FAIL, and the
# scenario ends (what follows needs them paired).
pair() {
    local code attempt
    # Started again (up to three times) if the request never shows: a session replaced just then (both daemons
    # dialed at once) makes the first start fail as unreachable.
    for attempt in 1 2 3; do
        on "$1" pair "$2" >/dev/null || true
        if eventually 10 pairing_requested "$2" "$1"; then break; fi
        echo "pairing $1 with $2: the request did not show (attempt $attempt); starting again"
        eventually 10 session_up "$1" "$2" || true
    done
    code=$(on "$2" pair "$1" --json | json_get trust.code 2>/dev/null || true)
    on "$2" pair "$1" --code "$code" >/dev/null 2>&1 || true
    on "$1" pair "$2" --code "$code" >/dev/null 2>&1 || true
    if [[ $(trust "$1" "$2") == paired && $(trust "$2" "$1") == paired ]]; then
        pass "$1 and $2 are paired"
    else
        fail "pairing: $1 sees $2 $(trust "$1" "$2"), $2 sees $1 $(trust "$2" "$1")"
        exit 1
    fi
}

# sessions_between NAME PEER: both daemons have a session with each other (within 15 s, then 5 s); the scenario
# ends when they do not, since nothing after it could pass.
sessions_between() {
    if eventually 15 session_up "$1" "$2" && eventually 5 session_up "$2" "$1"; then
        pass "$1 and $2 have a session"
    else
        fail "no session between $1 and $2"
        exit 1
    fi
}

# ---- the ledgers of alice and bob (the crash and partition scenarios), compared by lib/ledger-consistency.py

# field JSON NAME: a string or boolean member of the CLI's compact JSON output ('-' when there is none), read without
# a Python process: the bursts call it thousands of times.
field() { if [[ $1 =~ \"$2\":\"?([a-z]+) ]]; then echo "${BASH_REMATCH[1]}"; else echo -; fi; }

# ledger NAME: NAME's whole ledger (list --json) into $work/NAME.json, replaced only by a complete new one.
ledger() { on "$1" list --json --limit 100000 >"$work/$1.json.new" && mv "$work/$1.json.new" "$work/$1.json"; }

# converged: alice's and bob's ledgers hold the same payments in the same states; why not is in $work/converge.why.
converged() {
    ledger alice && ledger bob \
        && python3 "$tests_dir/lib/ledger-consistency.py" converged --ledger alice="$work/alice.json" \
            --ledger bob="$work/bob.json" >"$work/converge.why"
}

# converged_twice: two equal snapshots a second apart: nothing was still moving.
converged_twice() { converged && sleep 1 && converged; }

# check_ledgers SENT DECISIONS: the checks of lib/ledger-consistency.py on the final ledgers against what the CLI
# reported (SENT: "NAME MEMO EXIT ID" lines, DECISIONS: "ACTOR KIND ID EXIT STATE CONFIRMED" lines), counted as
# this scenario's, prefixed with $phase.
check_ledgers() {
    ledger alice
    ledger bob
    relay_results python3 "$tests_dir/lib/ledger-consistency.py" check --ledger alice="$work/alice.json" \
        --ledger bob="$work/bob.json" --sent "$1" --decisions "$2"
}

# count_results FILE: adds the PASS and FAIL lines of a helper's output to the totals, and prints them.
count_results() {
    cat "$1"
    passed=$((passed + $(grep -c '^PASS' "$1" || true)))
    failed=$((failed + $(grep -c '^FAIL' "$1" || true)))
}

# relay_results COMMAND...: runs a checker and counts its "PASS ..." and "FAIL ..." lines, prefixed with $phase
# when set; other lines are printed as they are. The checker's own exit status does not matter: its lines do.
relay_results() {
    local line prefix=${phase:+$phase: }
    while IFS= read -r line; do
        case $line in
            PASS\ *) pass "$prefix${line#PASS }" ;;
            FAIL\ *) fail "$prefix${line#FAIL }" ;;
            *) echo "$line" ;;
        esac
    done < <("$@" || true)
}

# finish: the summary line "NAME: N passed, M failed" (and "; $summary_detail" when a scenario set it); exits 0 only
# when nothing failed.
finish() {
    echo "$scenario: $passed passed, $failed failed${summary_detail:+; $summary_detail}"
    ((failed == 0)) || exit 1
    exit 0
}
