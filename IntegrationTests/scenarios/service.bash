#!/usr/bin/env bash
# interpayd as a service, on two simulated LAN hosts (scripts/lan-sandbox): sd_notify through a fake NOTIFY_SOCKET
# (READY=1 only once the control socket answers, WATCHDOG=1 pings, STOPPING=1 on SIGTERM), graceful shutdown
# (exit 0 within 2 s, socket file removed, the peer on the other host sees the daemon leave), and configuration
# errors (exit 78, the key named). Ends with "service: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 2 "$@"
make_work
log_lines=30

# The fake systemd: receives sd_notify datagrams and, the moment READY=1 arrives, asks the control socket for the
# daemon's status. Each line of notify.log: seconds since start, the datagram, and for READY the status answer.
cat >"$work/notify.py" <<'PY'
import json, socket, sys, time
path, control, out = sys.argv[1:4]
server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
server.bind(path)
start = time.monotonic()
with open(out, "w", buffering=1) as log:
    while True:
        message = server.recv(4096).decode()
        note = ""
        if message.startswith("READY=1"):
            try:
                client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                client.settimeout(2)
                client.connect(control)
                client.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n')
                answer = json.loads(client.makefile().readline())
                note = "control=answered" if "result" in answer else "control=error"
            except Exception as error:
                note = "control=unreachable(%s)" % error
        log.write("%.3f %s %s\n" % (time.monotonic() - start, message.replace("\n", "|"), note))
PY

echo "== readiness and the watchdog"
python3 "$work/notify.py" "$work/notify.sock" "$work/alice.sock" "$work/notify.log" &
background+=($!)
eventually 5 test -S "$work/notify.sock"
start_daemon 2 bob
daemon_wrapper=(env NOTIFY_SOCKET="$work/notify.sock" WATCHDOG_USEC=400000)
start_daemon 1 alice
daemon_wrapper=()
alice=${pids[alice]}
if eventually 15 grep -q "READY=1" "$work/notify.log"; then
    if grep "READY=1" "$work/notify.log" | grep -q "control=answered"; then
        pass "READY=1 is sent, and the control socket answers the moment it arrives"
    else
        fail "READY=1 came before the control socket answered: $(grep READY=1 "$work/notify.log")"
    fi
    if grep -q "advertising" "$work/alice.log"; then
        pass "READY=1 comes after the DNS-SD registration"
    else
        fail "READY=1 before the service was registered"
    fi
else
    fail "no READY=1 within 15 s"
fi
sleep 1.2
pings=$(grep -c "WATCHDOG=1" "$work/notify.log" || true)
if ((pings >= 2)); then pass "WATCHDOG=1 pings at half the interval ($pings in about a second)"; else fail "watchdog pings: $pings"; fi

session_with() { grep "session up" "$work/$1.log" | grep -qE "peer=$2( |$)"; }
eventually 15 session_with bob alice || true

echo "== SIGHUP"
kill -HUP "$alice"
if eventually 5 grep -q "SIGHUP ignored" "$work/alice.log" && kill -0 "$alice" 2>/dev/null \
    && "$cli" --json --socket "$work/alice.sock" status >/dev/null; then
    pass "SIGHUP is logged as ignored; the daemon carries on and answers 'interpay --json --socket S status'"
else
    fail "SIGHUP: $(grep -c "SIGHUP" "$work/alice.log" || true) log lines, daemon alive: $(kill -0 "$alice" 2>/dev/null && echo yes || echo no)"
fi

echo "== SIGTERM"
started=$(date +%s%N)
kill -TERM "$alice"
status=0
wait "$alice" || status=$?
unset "pids[alice]"
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
if ((status == 0 && elapsed_ms <= 2000)); then
    pass "SIGTERM: exit 0 after $elapsed_ms ms"
else
    fail "SIGTERM: exit $status after $elapsed_ms ms"
fi
if eventually 2 grep -q "STOPPING=1" "$work/notify.log"; then pass "STOPPING=1 on SIGTERM"; else fail "no STOPPING=1"; fi
if [[ ! -e $work/alice.sock ]]; then pass "the control socket file is removed"; else fail "socket file left behind"; fi
if eventually 10 grep -q "peer disappeared.*peer=alice\|peer=alice.*peer disappeared" "$work/bob.log" \
    && grep "session down" "$work/bob.log" | grep -q "peer=alice"; then
    pass "bob on the other host sees alice's service go and her session end"
else
    fail "bob did not see alice leave"
fi

echo "== configuration errors"
printf '[discovery]\nenabeld = true\n' >"$work/bad.toml"
status=0
"$daemon" --check-config --config "$work/bad.toml" 2>"$work/err" || status=$?
if ((status == 78)) && grep -q "bad.toml:2: unknown key 'discovery.enabeld'" "$work/err"; then
    pass "an unknown key: exit 78 naming the file, line and key"
else
    fail "unknown key: exit $status: $(cat "$work/err")"
fi
status=0
"$daemon" --config "$work/missing.toml" 2>"$work/err" || status=$?
if ((status == 78)) && grep -q "does not exist" "$work/err"; then pass "a missing --config file: exit 78"; else fail "missing file: exit $status"; fi

echo "== the CLI finds the socket the daemon's configuration file names"
# A daemon whose [control] socket is set only in its file: the CLI reaches it with --config (before or after the
# command), and through $CONFIGURATION_DIRECTORY as the daemon's unit would set it; no --socket, no INTERPAY_SOCKET.
mkdir -p "$work/configured"
daemon_config configured "[control]" "socket = \"$work/configured/custom.sock\"" "[discovery]" "enabled = false"
cp "$work/configured.toml" "$work/configured/interpayd.toml"
"$daemon" --config "$work/configured.toml" --name configured --state-dir "$work/configured" --listen 127.0.0.1 \
    --port 0 --no-web --no-discovery >>"$work/configured.log" 2>&1 &
pids[configured]=$!
without_socket=(env -u INTERPAY_SOCKET)
if eventually 30 "${without_socket[@]}" "$cli" --config "$work/configured.toml" status; then
    pass "interpay --config FILE status reaches the socket the file names"
else
    fail "the CLI did not reach $work/configured/custom.sock through --config"
fi
expect_eq "status --config FILE names the configured daemon" configured \
    "$("${without_socket[@]}" "$cli" status --json --config "$work/configured.toml" | json_get name)"
expect_eq "\$CONFIGURATION_DIRECTORY is where the CLI looks, as the daemon does" configured \
    "$("${without_socket[@]}" CONFIGURATION_DIRECTORY="$work/configured" "$cli" status --json | json_get name)"
printf '[control]\nsocket = "%s" junk\n' "$work/configured/custom.sock" >"$work/broken.toml"
expect_exit 2 "a configuration file the CLI cannot follow" "${without_socket[@]}" "$cli" --config "$work/broken.toml" status
expect_match "... is named with its line" "*broken.toml:2: unexpected text after a value*" "$last_err"
stop_daemon configured

echo "== a control.group member while /proc hides other users' processes (the unit's ProtectProc=invisible)"
# The daemon runs as uid 65534 in a PID and mount namespace whose /proc is mounted hidepid=invisible, as the system
# unit's ProtectProc=invisible does: it cannot see the client's /proc entry. A member of the socket's group must
# still get in (its groups come from SO_PEERGROUPS, not /proc); a non-member must not.
group_dir="$work/group"
mkdir -p "$group_dir/state" "$group_dir/run"
chmod 0755 "$work" "$group_dir"
chown 65534:65534 "$group_dir/state" && chmod 0700 "$group_dir/state"
chown 65534:4242 "$group_dir/run" && chmod 0750 "$group_dir/run"
: >"$group_dir/empty.toml" && chmod 0644 "$group_dir/empty.toml"
out=$(unshare --mount --pid --fork bash -c '
    mount -t proc -o hidepid=invisible proc /proc || { echo "hidepid-mount-failed"; exit 0; }
    setpriv --reuid=65534 --regid=65534 --groups=4242 "$1" --config "$2/empty.toml" --name groupd --no-discovery \
        --web 127.0.0.1:0 --listen 127.0.0.1 --port 0 --state-dir "$2/state" --socket "$2/run/interpayd.sock" --socket-group 4242 \
        >"$2/daemon.log" 2>&1 &
    for _ in $(seq 150); do [[ -S $2/run/interpayd.sock ]] && break; sleep 0.1; done
    if setpriv --reuid=65533 --regid=65533 --groups=4242 ls /proc | grep -qx "$!"; then echo "daemon-visible"; fi
    setpriv --reuid=65533 --regid=65533 --groups=4242 "$3" status --socket "$2/run/interpayd.sock" >/dev/null 2>&1
    echo "member=$?"
    setpriv --reuid=65533 --regid=65533 --clear-groups "$3" status --socket "$2/run/interpayd.sock" >/dev/null 2>&1
    echo "other=$?"
    kill -TERM %1
    wait
' _ "$daemon" "$group_dir" "$cli" 2>&1 || true)
if grep -q "hidepid-mount-failed" <<<"$out"; then
    fail "cannot mount /proc with hidepid=invisible here: $out"
elif grep -q "member=0" <<<"$out" && grep -q "other=3" <<<"$out" && ! grep -q "daemon-visible" <<<"$out"; then
    pass "with /proc hidden, a member of control.group gets in (exit 0) and a non-member does not (exit 3)"
else
    fail "control.group under hidepid=invisible: $out $(tail -n 5 "$group_dir/daemon.log" 2>/dev/null)"
fi

finish
