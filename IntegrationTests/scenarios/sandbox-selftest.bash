#!/usr/bin/env bash
# sandbox-selftest — checks scripts/lan-sandbox for real: a service published
# with avahi on host 1 is resolved on host 2, daemons live only in the
# simulated hosts' namespaces, `avahi HOST restart|stop|start` replaces a
# daemon (and a service published afterwards is resolved again), `link HOST
# down|up` cuts a host off and restores it, and everything is gone after the
# run (also when the run is interrupted by a signal).  Needs root.  Safe to run
# several times at once.
#
# Output: PASS/FAIL lines and a last line "sandbox: N passed, M failed".
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# The tool under test stays with the project's tools (scripts/); this scenario lives in IntegrationTests/scenarios/.
TOOL=$(cd "$HERE/../.." && pwd)/scripts/lan-sandbox
SELF=$HERE/$(basename "${BASH_SOURCE[0]}")
TYPE=_interpay-selftest._tcp
PORT=4242
RUN_TIMEOUT=${SANDBOX_SELFTEST_TIMEOUT:-120}

# ------------------------------------------------------------------ helpers

# RESULTS is a file of "PASS name" / "FAIL name: detail" lines.
pass() { printf 'PASS %s\n' "$1" | tee -a "$RESULTS"; }
fail() { printf 'FAIL %s: %s\n' "$1" "$2" | tee -a "$RESULTS"; }
skip() { printf 'SKIP %s: %s\n' "$1" "$2" | tee -a "$RESULTS"; }

pid_alive() { # PID exists and is not a zombie
    local st=''
    [[ $1 =~ ^[0-9]+$ ]] || return 1
    { read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
    st=${st##*) }
    [[ ${st%% *} != [ZX] ]]
}

root_netns_ids() {
    local f
    for f in /proc/1/ns/net /proc/2/ns/net /proc/$$/ns/net; do
        readlink "$f" 2>/dev/null || true
    done | sort -u
}

# Prints the avahi-daemon processes that run in the root network namespace.
avahi_in_root_netns() {
    local roots p ns
    roots=$(root_netns_ids)
    for p in $(pgrep -x avahi-daemon || true); do
        ns=$(readlink "/proc/$p/ns/net" 2>/dev/null) || continue # gone / zombie
        if grep -qxF -- "$ns" <<<"$roots"; then
            printf '%s %s\n' "$p" "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null || true)"
        fi
    done
}

SAFETY_ISSUES=''
safety_probe() { # WHEN
    local bad
    bad=$(avahi_in_root_netns)
    if [[ -n $bad ]]; then
        printf '!!! DANGER (%s): avahi-daemon running in the ROOT network namespace:\n%s\n' "$1" "$bad" >&2
        SAFETY_ISSUES+="$1: $(tr '\n' ' ' <<<"$bad"); "
    fi
}

# What is left of run ID (namespaces, processes, mounts, run dir DIR).
leftovers() { # ID DIR
    local id=$1 dir=$2 out=''
    local nss procs mounts
    nss=$(ip netns list 2>/dev/null | awk '{print $1}' | grep -F -- "-$id-" || true)
    [[ -z $nss ]] || out+="namespaces: $(tr '\n' ' ' <<<"$nss"); "
    procs=$(pgrep -af -- "$id" || true)
    [[ -z $procs ]] || out+="processes: $(tr '\n' ' ' <<<"$procs"); "
    # /proc/*/mountinfo covers every mount namespace that still has a process
    mounts=$(grep -lF -- "$id" /proc/[0-9]*/mountinfo 2>/dev/null || true)
    [[ -z $mounts ]] || out+="mounts seen by: $(tr '\n' ' ' <<<"$mounts"); "
    [[ ! -e $dir ]] || out+="run dir $dir still exists; "
    printf '%s' "$out"
}

check_clean() { # NAME ID DIR
    local left
    if [[ -z $2 ]]; then
        fail "$1" "run id unknown (the run did not come up?)"
        return
    fi
    left=$(leftovers "$2" "$3")
    if [[ -z $left ]]; then
        pass "$1"
    else
        fail "$1" "$left"
    fi
}

# ------------------------------------------- inner part (inside `run`)

# publish_resolve NAME: publishes service NAME on h1 and browses for it on h2
# for up to 10 s; sets FOUND ("ifc proto host addr port txt", or empty) and
# RESOLVE_MS.
publish_resolve() {
    local name=$1 pubpid out line deadline t0 t1
    local kind ifc proto sname host addr port txt
    FOUND=''
    t0=$(date +%s%N)
    "$LAN_SANDBOX_TOOL" exec 1 -- avahi-publish -s "$name" "$TYPE" "$PORT" "run=$SANDBOX_ID" \
        >"$SANDBOX_DIR/selftest-publish.log" 2>&1 &
    pubpid=$!
    deadline=$(($(date +%s) + 10))
    while [[ -z $FOUND ]] && (($(date +%s) < deadline)); do
        out=$("$LAN_SANDBOX_TOOL" exec 2 -- timeout 5 avahi-browse -rpt "$TYPE" 2>/dev/null || true)
        while IFS= read -r line; do
            IFS=';' read -r kind ifc proto sname _ _ host addr port txt <<<"$line"
            if [[ $kind == = && $sname == "$name" ]]; then
                FOUND="$ifc $proto $host $addr $port $txt"
                break
            fi
        done <<<"$out"
        [[ -n $FOUND ]] || sleep 0.2
    done
    t1=$(date +%s%N)
    RESOLVE_MS=$(((t1 - t0) / 1000000))
    kill -TERM "$pubpid" 2>/dev/null || true
    wait "$pubpid" 2>/dev/null || true
}

check_resolved() { # TEST NAME
    if [[ -z $FOUND ]]; then
        fail "$1" "not resolved within 10 s; publisher log: $(tr '\n' ' ' <"$SANDBOX_DIR/selftest-publish.log")"
    elif [[ $FOUND != "lan0 IPv4 $HOST1_FQDN $HOST1_ADDR $PORT \"run=$SANDBOX_ID\"" ]]; then
        fail "$1" "resolved as '$FOUND', expected $HOST1_FQDN $HOST1_ADDR:$PORT on lan0"
    else
        pass "$1 as $HOST1_ADDR:$PORT in $RESOLVE_MS ms"
    fi
}

# Current value of KEY in the sandbox description.
env_value() { sed -n "s/^$1=//p" "$LAN_SANDBOX_ENV"; }

# reach FROM ADDR: can host FROM reach ADDR?  ping when installed, else a TCP
# connect to port 9 (nothing listens there: "refused" proves reachability).
reach() {
    local out rc=0
    if command -v ping >/dev/null 2>&1; then
        "$LAN_SANDBOX_TOOL" exec "$1" -- ping -c1 -W1 "$2" >/dev/null 2>&1
        return
    fi
    # shellcheck disable=SC2016
    out=$("$LAN_SANDBOX_TOOL" exec "$1" -- timeout 1 bash -c 'exec 3<>"/dev/tcp/$1/9"' reach "$2" 2>&1) || rc=$?
    ((rc == 0)) || [[ $out == *refused* ]]
}

# "carrier" or "no-carrier": state of host I's lan0.
carrier() { # I
    local ns=HOST${1}_NS
    if [[ $(ip -n "${!ns}" -o link show dev lan0 2>/dev/null) == *NO-CARRIER* ]]; then
        echo no-carrier
    else
        echo carrier
    fi
}

# avahi-daemon PID is alive and runs in host I's namespace.
avahi_in_host() { # PID I
    local ns=HOST${2}_NS
    pid_alive "$1" && [[ $(cat "/proc/$1/comm" 2>/dev/null) == avahi-daemon ]] &&
        [[ $(readlink "/proc/$1/ns/net" 2>/dev/null) == "net:[$(stat -L -c %i "/run/netns/${!ns}")]" ]]
}

# GetState of host I's avahi-daemon over its private bus (empty if none).
avahi_state() { # I
    local bus=HOST${1}_DBUS out
    out=$(DBUS_SYSTEM_BUS_ADDRESS=${!bus} dbus-send --system --print-reply --reply-timeout=1000 \
        --dest=org.freedesktop.Avahi / org.freedesktop.Avahi.Server.GetState 2>/dev/null || true)
    [[ $out =~ int32\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
    return 0
}

inner() {
    local i pid ns want got roots out t0 t1 rc old new envpid detail how
    printf 'ID %s\nDIR %s\n' "$SANDBOX_ID" "$SANDBOX_DIR" >>"$RESULTS"
    safety_probe "while up"

    # daemons live in their host's namespace, never in the root one
    roots=$(root_netns_ids)
    got=''
    for ((i = 1; i <= SANDBOX_HOSTS; i++)); do
        ns=HOST${i}_NS
        want="net:[$(stat -L -c %i "/run/netns/${!ns}")]"
        for pid in HOST${i}_AVAHI_PID HOST${i}_DBUS_PID; do
            ns=$(readlink "/proc/${!pid}/ns/net" 2>/dev/null || echo gone)
            if [[ $ns != "$want" ]] || grep -qxF -- "$ns" <<<"$roots"; then
                got+="$pid=${!pid} in $ns (want $want); "
            fi
        done
    done
    if [[ -z $got ]]; then
        pass "daemons run in their host namespaces"
    else
        fail "daemons run in their host namespaces" "$got"
    fi

    # exec: right namespace, environment and exit status
    rc=0
    # shellcheck disable=SC2016
    "$LAN_SANDBOX_TOOL" exec 2 -- sh -c '
        [ "$LAN_SANDBOX_ADDR" = "$1" ] && [ "$LAN_SANDBOX_HOST" = 2 ] &&
        [ "$DBUS_SYSTEM_BUS_ADDRESS" = "$2" ] && [ "$AVAHI_COMPAT_NOWARN" = 1 ] &&
        ip -4 -o addr show dev lan0 | grep -qF " $1/" && exit 42
        exit 1' exec-check "$HOST2_ADDR" "$HOST2_DBUS" || rc=$?
    if ((rc == 42)); then
        pass "exec runs in the host with its environment and exit status"
    else
        fail "exec runs in the host with its environment and exit status" "exit status $rc, expected 42"
    fi

    # every host knows the others' link-layer addresses from the start (permanent neighbour entries: the kernel's
    # ARP table is shared by all namespaces and would overflow with a full mesh of more than ~30 hosts)
    out=$("$LAN_SANDBOX_TOOL" exec 1 -- ip -4 neigh show dev lan0 nud permanent 2>&1 || true)
    if grep -qF "$HOST2_ADDR lladdr" <<<"$out"; then
        pass "hosts have permanent neighbour entries for each other"
    else
        fail "hosts have permanent neighbour entries for each other" "h1: ${out:-none}"
    fi

    # publish on host 1, resolve on host 2
    publish_resolve "selftest-$SANDBOX_ID"
    check_resolved "publish on h1 resolved on h2"

    # host names resolve through nss-mdns in exec'd commands (if installed)
    if grep -qE '^hosts:.*mdns' /etc/nsswitch.conf 2>/dev/null && command -v getent >/dev/null; then
        out=$("$LAN_SANDBOX_TOOL" exec 2 -- timeout 5 getent ahostsv4 "$HOST1_FQDN" 2>/dev/null || true)
        if [[ ${out%% *} == "$HOST1_ADDR" ]]; then
            pass "h1's host name resolves on h2 (nss-mdns)"
        else
            fail "h1's host name resolves on h2 (nss-mdns)" "getent gave '${out%%$'\n'*}'"
        fi
    else
        skip "h1's host name resolves on h2 (nss-mdns)" "nss-mdns not configured"
    fi

    # avahi HOST restart: a new daemon (recorded in the description), ready
    old=$HOST1_AVAHI_PID
    t0=$(date +%s%N)
    rc=0
    new=$("$LAN_SANDBOX_TOOL" avahi 1 restart 2>"$SANDBOX_DIR/selftest-avahi.log") || rc=$?
    t1=$(date +%s%N)
    envpid=$(env_value HOST1_AVAHI_PID)
    [[ -z $new ]] || printf 'PID %s\n' "$new" >>"$RESULTS"
    detail=''
    ((rc == 0)) || detail+="exit status $rc; "
    [[ $new =~ ^[0-9]+$ && $new != "$old" ]] || detail+="pid '$new' (was $old); "
    [[ $envpid == "$new" ]] || detail+="HOST1_AVAHI_PID=$envpid; "
    ! pid_alive "$old" || detail+="old pid $old still alive; "
    avahi_in_host "$new" 1 || detail+="pid '$new' is not an avahi-daemon in h1's namespace; "
    [[ $(avahi_state 1) == 2 ]] || detail+="GetState is '$(avahi_state 1)', not 2; "
    if [[ -z $detail ]]; then
        pass "avahi 1 restart: pid $old -> $new, ready in $(((t1 - t0) / 1000000)) ms"
    else
        fail "avahi 1 restart" "$detail log: $(tr '\n' ' ' <"$SANDBOX_DIR/selftest-avahi.log")"
    fi

    # avahi HOST stop, then start
    old=$(env_value HOST2_AVAHI_PID)
    rc=0
    "$LAN_SANDBOX_TOOL" avahi 2 stop 2>"$SANDBOX_DIR/selftest-avahi.log" || rc=$?
    detail=''
    ((rc == 0)) || detail+="stop: exit status $rc; "
    ! pid_alive "$old" || detail+="pid $old still alive after stop; "
    [[ -z $(env_value HOST2_AVAHI_PID) ]] || detail+="HOST2_AVAHI_PID=$(env_value HOST2_AVAHI_PID) after stop; "
    [[ -z $(avahi_state 2) ]] || detail+="GetState answered after stop; "
    t0=$(date +%s%N)
    new=$("$LAN_SANDBOX_TOOL" avahi 2 start 2>>"$SANDBOX_DIR/selftest-avahi.log") || rc=$?
    t1=$(date +%s%N)
    [[ -z $new ]] || printf 'PID %s\n' "$new" >>"$RESULTS"
    ((rc == 0)) || detail+="start: exit status $rc; "
    [[ $new =~ ^[0-9]+$ && $new != "$old" && $(env_value HOST2_AVAHI_PID) == "$new" ]] \
        || detail+="start: pid '$new', HOST2_AVAHI_PID=$(env_value HOST2_AVAHI_PID) (was $old); "
    avahi_in_host "$new" 2 || detail+="pid '$new' is not an avahi-daemon in h2's namespace; "
    [[ $(avahi_state 2) == 2 ]] || detail+="GetState is '$(avahi_state 2)', not 2; "
    if [[ -z $detail ]]; then
        pass "avahi 2 stop, start: pid $old -> $new, start ready in $(((t1 - t0) / 1000000)) ms"
    else
        fail "avahi 2 stop, start" "$detail log: $(tr '\n' ' ' <"$SANDBOX_DIR/selftest-avahi.log")"
    fi

    # a service published after the restarts is resolved again
    publish_resolve "selftest-after-restart-$SANDBOX_ID"
    check_resolved "publish on h1 after the avahi restarts resolved on h2"

    # link HOST down|up: a partition, and back
    if command -v ping >/dev/null 2>&1; then how=ping; else how="tcp connect"; fi
    detail=''
    if ! reach 1 "$HOST2_ADDR"; then detail+="h1 cannot reach h2 before link down; "; fi
    "$LAN_SANDBOX_TOOL" link 2 down 2>/dev/null || detail+="link 2 down: exit status $?; "
    if reach 1 "$HOST2_ADDR"; then detail+="h1 reaches h2 after link 2 down; "; fi
    [[ $(carrier 2) == no-carrier ]] || detail+="h2's lan0 has carrier after link down; "
    if [[ -z $detail ]]; then
        pass "link 2 down: h1 cannot reach $HOST2_ADDR ($how)"
    else
        fail "link 2 down" "$detail"
    fi
    detail=''
    t0=$(date +%s%N)
    "$LAN_SANDBOX_TOOL" link 2 up 2>/dev/null || detail+="link 2 up: exit status $?; "
    if ! reach 1 "$HOST2_ADDR"; then detail+="h1 cannot reach h2 after link 2 up; "; fi
    t1=$(date +%s%N)
    [[ $(carrier 2) == carrier ]] || detail+="h2's lan0 has no carrier after link up; "
    if [[ -z $detail ]]; then
        pass "link 2 up: h1 reaches $HOST2_ADDR again ($how, $(((t1 - t0) / 1000000)) ms)"
    else
        fail "link 2 up" "$detail"
    fi

    safety_probe "while up (after tests)"
    [[ -z $SAFETY_ISSUES ]] || printf 'SAFETY %s\n' "$SAFETY_ISSUES" >>"$RESULTS"
    exit 3 # checked by the outer part: run must propagate it
}

# ------------------------------------------------------------ outer part

summary() {
    local npass nfail nskip
    npass=$(grep -c '^PASS ' "$RESULTS" || true)
    nfail=$(grep -c '^FAIL ' "$RESULTS" || true)
    nskip=$(grep -c '^SKIP ' "$RESULTS" || true)
    if ((nskip)); then
        echo "sandbox: $npass passed, $nfail failed, $nskip skipped"
    else
        echo "sandbox: $npass passed, $nfail failed"
    fi
    ((nfail == 0))
}

BG_RUN=''
on_interrupt() {
    trap '' INT TERM HUP
    # a background run ignores SIGINT: end it (it tears its LAN down)
    if [[ -n $BG_RUN ]] && pid_alive "$BG_RUN"; then
        kill -TERM "$BG_RUN" 2>/dev/null || true
        wait "$BG_RUN" 2>/dev/null || true
    fi
    fail "selftest" "interrupted"
    summary || true
    exit 130
}

main() {
    local work rc id dir log envf pidfile cpid deadline p f pids left
    if [[ $EUID -ne 0 ]]; then
        echo "sandbox-selftest: must run as root" >&2
        exit 2
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/sandbox-selftest.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf -- '$work'" EXIT
    RESULTS=$work/results
    : >"$RESULTS"
    export RESULTS
    trap on_interrupt INT TERM HUP

    safety_probe "before"

    # 1. a full run with 2 hosts
    echo "== run --hosts 2"
    rc=0
    timeout --foreground --kill-after=20 "$RUN_TIMEOUT" "$TOOL" run --hosts 2 -- "$SELF" --inner || rc=$?
    id=$(awk '$1 == "ID" {print $2}' "$RESULTS")
    dir=$(awk '$1 == "DIR" {print $2}' "$RESULTS")
    if ((rc == 3)); then
        pass "run propagates the command's exit status"
    else
        fail "run propagates the command's exit status" "exit status $rc, expected 3"
    fi
    check_clean "nothing of the run is left after it (namespaces, processes, mounts, run dir)" "$id" "$dir"
    left=''
    pids=$(awk '$1 == "PID" {print $2}' "$RESULTS")
    for p in $pids; do
        # (its process title names the host, which contains the run id)
        if pid_alive "$p" && [[ $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) == *"$id"* ]]; then left+="$p "; fi
    done
    if [[ -z $pids ]]; then
        fail "restarted avahi-daemons are gone after the run" "no restarted pid was recorded"
    elif [[ -z $left ]]; then
        pass "restarted avahi-daemons are gone after the run ($(tr '\n' ' ' <<<"$pids"| sed 's/ $//'))"
    else
        fail "restarted avahi-daemons are gone after the run" "still running: $left"
    fi

    # 2. a run interrupted by SIGTERM
    echo "== run --hosts 1, interrupted"
    log=$work/interrupted.log
    pidfile=$work/child.pid
    rc=0
    # shellcheck disable=SC2016
    "$TOOL" run --hosts 1 -- sh -c 'echo $$ > "$1"; exec sleep 120' child "$pidfile" 2>"$log" &
    p=$!
    BG_RUN=$p
    envf=''
    deadline=$(($(date +%s) + 60))
    while (($(date +%s) < deadline)) && kill -0 "$p" 2>/dev/null; do
        envf=$(sed -n 's/^lan-sandbox: up: .* ready in .*: \(.*\)$/\1/p' "$log")
        [[ -n $envf && -s $pidfile ]] && break
        sleep 0.1
    done
    cpid=$(cat "$pidfile" 2>/dev/null || true)
    kill -TERM "$p" 2>/dev/null || true
    wait "$p" || rc=$?
    BG_RUN=''
    id=$(sed -n 's/^SANDBOX_ID=//p' "$envf" 2>/dev/null || true)
    [[ -n $id ]] || id=$(sed -n 's/^lan-sandbox: creating .*(id \(.*\))$/\1/p' "$log")
    dir=${envf%/*}
    if ((rc == 143)) && [[ -n $cpid ]] && ! pid_alive "$cpid"; then
        pass "SIGTERM ends run with status 143 and ends its command"
    else
        fail "SIGTERM ends run with status 143 and ends its command" "status $rc, command pid '${cpid:-?}'; log: $(tr '\n' ' ' <"$log")"
        if pid_alive "$cpid"; then kill "$cpid" 2>/dev/null || true; fi
    fi
    check_clean "nothing of the interrupted run is left" "$id" "$dir"

    # 3. safety: never an avahi-daemon in the root network namespace
    safety_probe "after"
    f=$(sed -n 's/^SAFETY //p' "$RESULTS")
    if [[ -z $SAFETY_ISSUES && -z $f ]]; then
        pass "no avahi-daemon in the root network namespace (before, during, after)"
    else
        fail "no avahi-daemon in the root network namespace (before, during, after)" "DANGER: $SAFETY_ISSUES $f"
    fi

    summary
}

if [[ ${1:-} == --inner ]]; then
    inner
else
    main "$@"
fi
