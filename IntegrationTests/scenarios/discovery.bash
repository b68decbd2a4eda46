#!/usr/bin/env bash
# Discovery and session tests with real interpayd processes on simulated LAN hosts (scripts/lan-sandbox).
#
#   IntegrationTests/run discovery    builds nothing; uses .build/debug/interpayd (or $INTERPAYD)
#
# Checks: five daemons on one host all find each other and hold 4 sessions each; two daemons on two hosts see
# each other with the right name, ID and address; avahi-browse shows the TXT record; a restart keeps the peer ID
# and a new key is a new ID; a service advertising another daemon's ID is refused by the dialer; daemons recover
# when avahi-daemon restarts under them. Ends with "discovery: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 2 "$@"
make_work
log_lines=30

# start HOST NAME [ARGS...]: an interpayd on sandbox host HOST (no web app: several daemons share a host here).
start() {
    local host=$1 name=$2
    shift 2
    start_daemon "$host" "$name" --no-web "$@"
}

peer_id() {
    eventually 10 grep -q 'interpayd listening' "$work/$1.log" || true
    "$daemon" --print-id --state-dir "$work/$1"
}
short() { echo "${1:0:7}"; }
sessions_up() { grep 'session up' "$work/$1.log" 2>/dev/null | grep -o 'id=[A-Z2-7]*' | sort -u | wc -l; }
has_session_with() { grep 'session up' "$work/$1.log" 2>/dev/null | grep -q "id=$2"; }
count_sessions_with() { grep 'session up' "$work/$1.log" 2>/dev/null | grep -c "id=$2" || true; }
listening_port() { grep -o 'port=[0-9]*' "$work/$1.log" | head -n1 | cut -d= -f2; }
has_sessions() { [[ $(sessions_up "$1") -ge $2 ]]; }
all_have_sessions() {
    local name
    for name in "${@:2}"; do has_sessions "$name" "$1" || return 1; done
}

echo "== five daemons on one host"
for i in 1 2 3 4 5; do start 1 "loop$i"; done
started=$SECONDS
if eventually 10 all_have_sessions 4 loop1 loop2 loop3 loop4 loop5; then
    pass "5 daemons on one host: each holds 4 authenticated sessions ($((SECONDS - started)) s)"
else
    fail "5 daemons on one host: sessions: $(for i in 1 2 3 4 5; do printf '%s ' "$(sessions_up "loop$i")"; done)"
fi
for i in 1 2 3 4 5; do stop_daemon "loop$i"; done

echo "== two hosts"
start 1 alice
start 2 bob
alice_id=$(peer_id alice)
bob_id=$(peer_id bob)
if eventually 10 has_session_with alice "$(short "$bob_id")" && eventually 5 has_session_with bob "$(short "$alice_id")"
then
    pass "two hosts: a session comes up on both sides"
else
    fail "two hosts: no session between alice and bob"
fi
# sees NAME PEER ID ADDRESS: NAME's log shows PEER appearing with that short ID at that address (prefix).
sees() { grep 'peer appeared' "$work/$1.log" | grep -E "peer=$2( |$)" | grep "id=$3" | grep -q "address=$4"; }
if eventually 10 sees alice bob "$(short "$bob_id")" "$HOST2_ADDR:$(listening_port bob)"; then
    pass "two hosts: alice sees bob with his name, ID and address $HOST2_ADDR"
else
    fail "two hosts: alice's view of bob: $(grep 'peer appeared' "$work/alice.log" | tail -n1)"
fi
if eventually 10 sees bob alice "$(short "$alice_id")" "$HOST1_ADDR:"; then
    pass "two hosts: bob sees alice with her name, ID and address $HOST1_ADDR"
else
    fail "two hosts: bob's view of alice: $(grep 'peer appeared' "$work/bob.log" | tail -n1)"
fi

browse=$("$sandbox" exec 2 -- avahi-browse -rpt _interpay._tcp 2>/dev/null || true)
if grep '^=' <<<"$browse" | grep ';alice;' | grep -q "\"id=$alice_id\"" \
    && grep '^=' <<<"$browse" | grep ';alice;' | grep -q '"v=1"'; then
    pass "avahi-browse on host 2 shows alice's service with TXT id= and v="
else
    fail "avahi-browse on host 2: $browse"
fi

echo "== static peers without DNS-SD"
start 1 erin --no-discovery --peer "$HOST2_ADDR:$(listening_port bob)"
if eventually 10 has_session_with erin "$(short "$bob_id")" && eventually 5 has_session_with bob "$(short "$(peer_id erin)")"
then
    pass "--no-discovery --peer HOST:PORT: erin holds a session with bob"
else
    fail "static peer: no session between erin and bob"
fi
if ! grep -q 'advertising' "$work/erin.log" \
    && ! "$sandbox" exec 2 -- avahi-browse -pt _interpay._tcp 2>/dev/null | grep -q ';erin;'; then
    pass "--no-discovery: erin neither advertises nor is browsable"
else
    fail "--no-discovery: erin was advertised"
fi
stop_daemon erin

echo "== restarts and keys"
stop_daemon bob
expect_eq "restart keeps the peer ID" "$bob_id" "$(peer_id bob)"
before=$(count_sessions_with alice "$(short "$bob_id")")
start 2 bob
if eventually 15 bash -c "[[ \$(grep 'session up' '$work/alice.log' | grep -c 'id=$(short "$bob_id")') -gt $before ]]"; then
    pass "restarted bob is seen again with the same ID"
else
    fail "restarted bob not seen again by alice"
fi
stop_daemon bob
rm -f "$work/bob/identity-key.pem"
start 2 bob
new_bob_id=$(peer_id bob)
if [[ $new_bob_id != "$bob_id" ]] && eventually 15 has_session_with alice "$(short "$new_bob_id")"; then
    pass "a daemon whose key changed is seen as a different ID"
else
    fail "new key: old $bob_id new $new_bob_id"
fi
bob_id=$new_bob_id

echo "== impostor"
start 2 carol
eventually 10 has_session_with alice "$(short "$(peer_id carol)")" || true
carol_port=$(listening_port carol)
# While bob is connected, alice never dials a second service claiming his ID; the attack is while he is away.
stop_daemon bob
"$sandbox" exec 2 -- avahi-publish -s impostor _interpay._tcp "$carol_port" "v=1" "id=$bob_id" \
    >"$work/impostor.log" 2>&1 &
impostor=$!
background+=("$impostor")
if eventually 15 grep -q "peer key does not match its advertised ID" "$work/alice.log" \
    && grep "peer key does not match" "$work/alice.log" | grep -q "expected=$bob_id"; then
    pass "a service advertising bob's ID but answering with carol's key is refused by the dialer"
else
    fail "impostor was not refused"
fi
kill "$impostor" 2>/dev/null || true
stop_daemon carol

echo "== a service that speaks only another protocol version"
future_id=$("$daemon" --print-id --state-dir "$work/future")
"$sandbox" exec 2 -- avahi-publish -s future _interpay._tcp 4999 "v=2" "id=$future_id" >"$work/future.log" 2>&1 &
future=$!
background+=("$future")
if eventually 15 grep -q "no protocol version in common; not dialing.*peer=future\|peer=future.*no protocol version in common" \
    "$work/alice.log" && ! grep -q "address=$HOST2_ADDR:4999 .*\(dial failed\|connection ended\|session up\)" \
    "$work/alice.log"; then
    pass "a service advertising only v=2 is not dialed"
else
    fail "a v=2-only service was dialed or not noticed"
fi
kill "$future" 2>/dev/null || true

echo "== avahi-daemon restarts under running daemons"
"$sandbox" avahi 1 restart >/dev/null
"$sandbox" avahi 2 restart >/dev/null
start 2 dave
dave_id=$(peer_id dave)
if eventually 20 has_session_with alice "$(short "$dave_id")" && eventually 5 has_session_with dave "$(short "$alice_id")"
then
    pass "after avahi restarts, alice re-advertises and discovers a newcomer"
else
    fail "after avahi restarts, alice and dave did not find each other"
fi
if grep -q "discovery available" "$work/alice.log"; then
    pass "alice logged discovery coming back"
else
    fail "alice did not log discovery coming back"
fi

finish
