#!/usr/bin/env bash
# Desktop notifications (issue V): bob's daemon runs with a session bus, a private dbus-daemon in his sandbox host
# with a notification server on it (lib/notification-server.py); alice asks bob to pay. bob's desktop is told, with
# alice named as every surface names her, the amount and Accept / Reject; choosing Accept on the notification
# accepts the payment. A subscription offer and a pairing attempt are told too; with --no-desktop-notifications
# nothing is. Ends with "notifications: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
need_tools dbus-daemon gdbus
python3 -c 'import dbus_next' 2>/dev/null || die "the Python module dbus-next is missing; run scripts/install-deps"
in_sandbox 2 "$@"
make_work

bus=$work/bob-bus
notified=$work/notified.jsonl
# The session bus and the notification server live in bob's host, like his desktop session.
"$sandbox" exec 2 -- dbus-daemon --session --nofork --nopidfile --address="unix:path=$bus" >"$work/dbus.log" 2>&1 &
background+=($!)
eventually 10 test -S "$bus" || { fail "the session bus did not start: $(cat "$work/dbus.log")"; exit 1; }
"$sandbox" exec 2 -- env DBUS_SESSION_BUS_ADDRESS="unix:path=$bus" \
    python3 "$tests_dir/lib/notification-server.py" "$notified" >"$work/server.log" 2>&1 &
background+=($!)
eventually 10 test -e "$notified.ready" || { fail "the notification server did not start: $(cat "$work/server.log")"; exit 1; }

# notifications: how many notifications bob's desktop was shown.
notifications() { [[ -f $notified ]] && wc -l <"$notified" || echo 0; }
# notification N MEMBER: a member of the Nth notification (1-based).
notification() { sed -n "${1}p" "$notified" | json_get "$2"; }
state() { on "$1" show "$2" --json | json_get state; }
# at_least N: bob's desktop was shown N notifications or more; is_state NAME PAYMENT STATE.
at_least() { (($(notifications) >= $1)); }
is_state() { [[ $(state "$1" "$2") == "$3" ]]; }

echo "== setup"
start_daemon 1 alice
daemon_wrapper=(env DBUS_SESSION_BUS_ADDRESS="unix:path=$bus")
start_daemon 2 bob
daemon_wrapper=()
sessions_between alice bob

echo "== a request is told, and Accept on it accepts"
id=$(on alice send bob 12.50 MXN --memo tacos)
if eventually 10 at_least 1; then pass "bob's desktop is told of the request"; else fail "no notification: $(tail -5 "$work/bob.log")"; fi
alice_short=$(on alice status --json | json_get shortID)
expect_eq "its title" "Payment request" "$(notification 1 summary)"
expect_eq "it names alice as every surface does, with the amount and the memo" \
    "alice ($alice_short) [unverified] asks you to pay 12.50 MXN: tacos" "$(notification 1 body)"
expect_eq "it offers Accept and Reject" "['accept', 'Accept', 'reject', 'Reject']" "$(notification 1 actions)"
expect_eq "the app is InterPay" "InterPay" "$(notification 1 app)"
expect_eq "the request waits for bob" pending "$(state bob "$id")"
echo "$(notification 1 id) accept" >>"$notified.actions"
if eventually 10 is_state alice "$id" accepted; then
    pass "Accept on the notification accepts: alice's daemon has it accepted"
else
    fail "after Accept: bob $(state bob "$id"), alice $(state alice "$id")"
fi

echo "== Reject on another request rejects it; an unknown notification's action does nothing"
other=$(on alice send bob 3 EUR --memo parking)
eventually 10 at_least 2 || true
echo "999 accept" >>"$notified.actions"
echo "$(notification 2 id) reject" >>"$notified.actions"
if eventually 10 is_state alice "$other" rejected; then pass "Reject on the notification rejects"; else fail "after Reject: $(state bob "$other")"; fi

echo "== a peer's markup is shown as text"
on alice send bob 1 EUR --memo '<a href="http://198.18.0.1/">pay here</a>' >/dev/null
if eventually 10 at_least 3; then
    expect_eq "the server reads markup, so the memo's tags arrive as entities, never as a link" \
        "alice ($alice_short) [unverified] asks you to pay 1.00 EUR: &lt;a href=\"http://198.18.0.1/\"&gt;pay here&lt;/a&gt;" \
        "$(notification 3 body)"
else
    fail "no notification of the request with markup"
fi

echo "== an offer and a pairing attempt are told"
on alice subscribe bob 5 EUR --every month --memo gym >/dev/null
if eventually 10 at_least 4; then
    expect_eq "the offer's title" "Subscription offered" "$(notification 4 summary)"
    expect_match "it names alice and the terms" "*offers a subscription of 5.00 EUR every month*" "$(notification 4 body)"
    expect_eq "alice as every surface names her" "alice ($alice_short) [unverified]" \
        "$(notification 4 body | sed 's/ offers a subscription.*//')"
else
    fail "no notification of the offer"
fi
on alice pair bob >/dev/null
if eventually 10 grep -q '"summary": "Pairing' "$notified"; then pass "a pairing attempt is told"; else fail "no notification of the pairing attempt"; fi

echo "== off by configuration"
stop_daemon bob
before=$(notifications)
daemon_wrapper=(env DBUS_SESSION_BUS_ADDRESS="unix:path=$bus")
start_daemon 2 bob --no-desktop-notifications
daemon_wrapper=()
sessions_between alice bob
last=$(on alice send bob 1 EUR)
eventually 10 is_state bob "$last" pending || true
sleep 1
expect_eq "with --no-desktop-notifications bob's desktop is not told" "$before" "$(notifications)"

finish
