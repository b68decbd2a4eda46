#!/usr/bin/env bash
# Payments end to end: two interpayd on two simulated LAN hosts (scripts/lan-sandbox), driven through the real
# interpay CLI. Ends with "payments: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 2 "$@"
make_work

# state NAME PAYMENT: the payment's state as NAME sees it; confirmed NAME PAYMENT: whether the other side confirmed.
state() { on "$1" show "$2" --json | json_get state; }
confirmed() { on "$1" show "$2" --json | json_get confirmed; }
is_state() { [[ $(state "$1" "$2") == "$3" ]]; }
both_state() { is_state alice "$1" "$2" && is_state bob "$1" "$2"; }
# payment_states NAME: every payment of NAME's ledger as sorted (ID, state) pairs.
payment_states() {
    on "$1" list --json | python3 -c 'import json,sys; print(sorted((p["id"], p["state"]) for p in json.load(sys.stdin)["payments"]))'
}
# currency_of NAME: NAME's preferred currency and where it comes from.
currency_of() { on "$1" --json currency | python3 -c 'import json,sys; r = json.load(sys.stdin); print(r["currency"], r["source"])'; }
# jf NAME PATH ARGS...: one member of a CLI command's --json output.
jf() {
    local name=$1 path=$2
    shift 2
    on "$name" "$@" --json | json_get "$path"
}
# peer_trust NAME PEER FIELD: a member of PEER's trust in NAME's peers.
peer_trust() {
    on "$1" peers --json | python3 -c '
import json, sys
print(next(p["trust"][sys.argv[2]] for p in json.load(sys.stdin)["peers"] if p["name"] == sys.argv[1]))' "$2" "$3"
}
# trust_is NAME PEER FIELD VALUE: that member of PEER's trust in NAME's peers has that value (a command for
# eventually, which calls it again and again).
trust_is() { [[ $(peer_trust "$1" "$2" "$3") == "$4" ]]; }

echo "== setup"
# Exchange rates for bob (preferred currency EUR) from a fixture server on host 2's own loopback.
mkdir -p "$work/rates/v6/latest"
next_update=$(($(date +%s) + 86400))
cat >"$work/rates/v6/latest/EUR" <<JSON
{"result":"success","base_code":"EUR","time_last_update_unix":1763769600,"time_next_update_unix":$next_update,
 "conversion_rates":{"EUR":1,"MXN":21.5,"JPY":163.25,"KWD":0.3541,"USD":1.16}}
JSON
"$sandbox" exec 2 -- python3 -m http.server --bind 127.0.0.1 --directory "$work/rates" 8765 \
    >"$work/rates.log" 2>&1 &
background+=($!)
bob_flags=(--currency EUR --rates-url "http://127.0.0.1:8765/v6/latest/{base}")
start_daemon 1 alice
start_daemon 2 bob "${bob_flags[@]}"
sessions_between alice bob
# One of the two dialed the other: both sides still show the other's listening port, never the ephemeral source
# port of the connection that came in.
peer_address() {
    on "$1" peers --json | python3 -c '
import json, sys
print(next(p["address"] for p in json.load(sys.stdin)["peers"] if p["name"] == sys.argv[1] and p["session"] == "up"))' "$2"
}
for pair in "alice bob" "bob alice"; do
    read -r viewer other <<<"$pair"
    port=$(on "$other" status --json | json_get port)
    address=$(peer_address "$viewer" "$other")
    expect_match "$viewer's peers shows $other where it listens (port $port)" "*:$port" "$address"
done

echo "== send → accept"
id=$(on alice send bob 12.50 MXN --memo "tacos" --category food)
if eventually 5 is_state bob "$id" pending; then pass "bob sees the request pending"; else fail "bob does not see $id"; fi
if on bob list --direction in --json | grep -q "$id"; then pass "bob's list --direction in shows it"; else fail "bob's list misses it"; fi
out=$(on bob accept "${id:0:8}")
if [[ $out == *accepted* ]] && both_state "$id" accepted && [[ $(confirmed bob "$id") == True ]]; then
    pass "accept: both sides accepted, confirmed by the payee"
else
    fail "accept: '$out', alice $(state alice "$id"), bob $(state bob "$id")"
fi

echo "== amounts in bob's currency"
eventually 5 "$sandbox" exec 2 -- python3 -c 'import urllib.request; urllib.request.urlopen("http://127.0.0.1:8765/v6/latest/EUR")' || true
out=$(on bob convert 12.50 MXN EUR || true)
if [[ $out == *"12.50 MXN = 0.58 EUR"* && $out == *"rate "* ]]; then pass "convert: 12.50 MXN = 0.58 EUR"; else fail "convert: $out"; fi
out=$(on bob convert 1000 JPY KWD || true)
expect_match "convert across the base to a 3-digit currency: 1000 JPY = 2.169 KWD" '*= 2.169 KWD*' "$out"
expect_exit 2 "convert to an unknown currency is a usage error" on bob convert 1 EUR XYZ
conv=$(on bob show "$id" --json | python3 -c 'import json,sys; q=json.load(sys.stdin)["quote"] or {}; print(q.get("amount"), q.get("currency"), q.get("ratesUpdatedAt"))' || true)
if [[ $conv == "0.58 EUR 1763769600" ]]; then
    pass "bob's accepted payment keeps the quote used: 0.58 EUR, rates of the fixture's timestamp"
else
    fail "quote on accept: $conv"
fi
if on bob history | grep "${id: -8}" | grep -q "(= 0.58 EUR when accepted)"; then pass "history shows the quote"; else fail "history: $(on bob history)"; fi
rates=$(on bob rates --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["base"], r["stale"], r["rates"]["MXN"])' || true)
expect_eq "rates: base EUR, fresh, exact decimals" "EUR False 21.5" "$rates"

echo "== send → reject"
id=$(on alice send bob 1500 JPY --memo "ramen")
eventually 5 is_state bob "$id" pending || true
if on bob list --direction in | grep "${id: -8}" | grep -q "1500 JPY (≈ 9.19 EUR)"; then
    pass "bob's list shows an incoming request in his currency: 1500 JPY (≈ 9.19 EUR)"
else
    fail "converted amount in list: $(on bob list --direction in | grep "${id: -8}")"
fi
on bob reject "$id" --reason "not me" >/dev/null
if eventually 5 both_state "$id" rejected \
    && on alice show "$id" --json | grep -q '"reason":"not me"'; then
    pass "reject: both sides rejected, the payee sees the reason"
else
    fail "reject: alice $(state alice "$id"), bob $(state bob "$id")"
fi

echo "== send → cancel, then accept after cancel"
id=$(on alice send bob 1.250 KWD)
eventually 5 is_state bob "$id" pending || true
on alice cancel "$id" >/dev/null
if eventually 5 both_state "$id" cancelled; then pass "cancel: both sides cancelled"; else fail "cancel: bob $(state bob "$id")"; fi
expect_exit 5 "accept after cancel is a conflict" on bob accept "$id"
if [[ $last_err == *cancelled* && $last_err == *ACLR* ]]; then pass "the conflict names the reason"; else fail "reason missing: $last_err"; fi

echo "== expiry"
id=$(on alice send bob 3 EUR --expires 2s)
eventually 5 is_state bob "$id" pending || true
if eventually 8 both_state "$id" expired; then pass "a request expires on both sides"; else fail "expiry: alice $(state alice "$id"), bob $(state bob "$id")"; fi
expect_exit 5 "accept after expiry is a conflict" on bob accept "$id"

echo "== the preferred currency changed at run time"
expect_eq "bob's preferred currency comes from --currency" "EUR configuration" "$(currency_of bob)"
on alice currency mxn >/dev/null
if [[ $(currency_of alice) == "MXN user" && $(on alice --json status | json_get currency) == MXN ]]; then
    pass "interpay currency mxn: alice's preferred currency is MXN, her choice, and status says so"
else
    fail "alice after currency mxn: $(currency_of alice)"
fi
expect_exit 2 "an unknown currency is a usage error" on alice currency XYZ
# A currency chosen at run time is also the base the rates are asked for: bob's fixture has a JPY file whose rates
# differ on purpose from the EUR file's (1 JPY = 0.01 EUR there, 1/163.25 EUR here), so the answer tells which file
# the conversion used.
cat >"$work/rates/v6/latest/JPY" <<JSON
{"result":"success","base_code":"JPY","time_last_update_unix":1763769600,"time_next_update_unix":$next_update,
 "conversion_rates":{"JPY":1,"EUR":0.01,"MXN":0.1,"USD":0.012}}
JSON
on bob currency JPY >/dev/null
expect_match "after 'currency JPY', bob's conversions use the JPY rates (1000 JPY = 10.00 EUR)" '*= 10.00 EUR*' \
    "$(on bob convert 1000 JPY EUR)"
on bob currency --clear >/dev/null
expect_match "back to the configuration's EUR, the EUR rates again (1000 JPY = 6.13 EUR)" '*= 6.13 EUR*' \
    "$(on bob convert 1000 JPY EUR)"

echo "== restarts keep everything"
# alice's watch goes on across her daemon's restart: it connects again and shows what happens after it.
on alice watch >"$work/watch-restart.out" 2>"$work/watch-restart.err" &
watcher=$!
background+=("$watcher")
keep=$(on alice send bob 7 USD --memo "kept")
eventually 5 is_state bob "$keep" pending || true
before_alice=$(payment_states alice)
before_bob=$(payment_states bob)
stop_daemon bob
start_daemon 2 bob "${bob_flags[@]}"
stop_daemon alice
start_daemon 1 alice
after_alice=$(payment_states alice)
after_bob=$(payment_states bob)
if [[ $before_alice == "$after_alice" && $before_bob == "$after_bob" ]]; then
    pass "restarting both daemons keeps every payment and state"
else
    fail "ledger changed across restarts"
fi
expect_eq "alice's choice of currency survives her restart" "MXN user" "$(currency_of alice)"
on alice currency --clear >/dev/null
expect_eq "--clear goes back to the configuration's (none)" "None none" "$(currency_of alice)"
if eventually 15 session_up bob alice && [[ $(on bob accept "$keep") == *accepted* ]] && eventually 5 both_state "$keep" accepted; then
    pass "a request pending across restarts can still be accepted"
else
    fail "pending request after restart: alice $(state alice "$keep"), bob $(state bob "$keep")"
fi
watched_after_restart() { grep -q "accepted.*${keep: -8}" "$work/watch-restart.out"; }
if kill -0 "$watcher" 2>/dev/null && eventually 10 watched_after_restart \
    && grep -q "connecting again" "$work/watch-restart.err" && grep -q "connected again" "$work/watch-restart.err"; then
    pass "watch connects again after the daemon's restart and shows the acceptance that came after it"
else
    fail "watch across a restart: $(cat "$work/watch-restart.out" "$work/watch-restart.err")"
fi
kill "$watcher" 2>/dev/null || true

echo "== link cut while a cancel is pending"
id=$(on alice send bob 42 MXN --memo "partition")
eventually 5 is_state bob "$id" pending || true
"$sandbox" link 2 down >/dev/null
on alice cancel "$id" >/dev/null
sleep 2
if is_state bob "$id" pending; then pass "while the link is down, bob still sees pending"; else fail "bob changed during the cut: $(state bob "$id")"; fi
"$sandbox" link 2 up >/dev/null
if eventually 60 both_state "$id" cancelled; then pass "after the link is back the cancel is delivered; both cancelled"; else fail "after the cut: bob $(state bob "$id")"; fi

echo "== pairing"
if on bob list --direction in | grep -qE "alice \([A-Z2-7]{7}\) \[unverified\]"; then pass "before pairing, bob's list flags alice's requests unverified"; else fail "no unverified flag: $(on bob list --direction in | head -3)"; fi
# pair_both: alice starts (bob's user has not: alice waits, bob is told), then bob starts and gets the code.
pair_both() {
    local started
    started=$(jf alice trust.pairing pair bob || true)
    if [[ $started == waiting ]]; then pass "alice's pair waits for bob's user"; else fail "alice's pair: $started"; fi
    if eventually 5 trust_is bob alice pairing requested; then
        pass "bob's peers shows that alice wants to pair"
    else
        fail "bob's pairing state for alice: $(peer_trust bob alice pairing 2>&1)"
    fi
    code=$(jf bob trust.code pair alice || true)
    if [[ $code =~ ^[0-9]{6}$ ]]; then pass "bob's pair gives a 6-digit code"; else fail "pair: no code ($code)"; fi
    if eventually 5 trust_is alice bob code "$code"; then
        pass "alice's peers shows the same code for bob"
    else
        fail "alice's code: $(peer_trust alice bob code 2>&1)"
    fi
}
pair_both
wrong=$(( (10#$code + 1) % 1000000 ))
wrong=$(printf '%06d' "$wrong")
expect_exit 1 "a wrong code is refused" on bob pair alice --code "$wrong"
expect_match "the refusal says how many attempts are left" '*2 attempts left*' "$last_err"
expect_exit 1 "the wrong code ended the attempt: the right one has nothing to confirm" on bob pair alice --code "$code"
# bob's abort ends alice's attempt too.
if eventually 5 trust_is alice bob pairing idle; then pass "the wrong code ends alice's attempt too"; else fail "alice's pairing: $(peer_trust alice bob pairing)"; fi
if grep -q "pairing attempt failed" "$work/bob.log"; then pass "the failed attempt is logged"; else fail "no failed-attempt log line"; fi
expect_exit 2 "a code that is not 6 digits is a usage error" on alice pair bob --code 12ab
# (The lockout after 3 failed attempts, and that it survives a restart, are checked by IntegrationTests/scenarios/hostile.bash.)

echo "== accept_from = paired"
stop_daemon bob
bob_flags=(--accept-from paired)
start_daemon 2 bob "${bob_flags[@]}"
eventually 15 session_up alice bob || true
id=$(on alice send bob 5 EUR --memo "stranger")
if eventually 10 is_state alice "$id" rejected && [[ $(jf alice reason show "$id") == *"not paired"* ]]; then
    pass "a request from a peer that is not paired is rejected, and the payee sees why"
else
    fail "accept_from paired: alice $(state alice "$id")"
fi
pair_both
out=$(on bob pair alice --code "$code" 2>&1 || true)
if [[ $out == "Paired with alice"* && $(peer_trust bob alice state) == paired ]]; then pass "the right code pairs: bob trusts alice"; else fail "pair: $out"; fi
on alice pair bob --code "$code" >/dev/null 2>&1 || true
expect_eq "alice confirms too: alice trusts bob" paired "$(peer_trust alice bob state)"
id=$(on alice send bob 6 EUR --memo "friend")
if eventually 5 is_state bob "$id" pending && ! on bob list --direction in | grep "${id: -8}" | grep -q unverified; then
    pass "once paired, bob takes alice's requests, not flagged"
else
    fail "after pairing: bob $(state bob "$id" 2>&1)"
fi
expect_exit 0 "bob renames alice" on bob rename alice "Alice at the bakery"
out=$(on bob list --direction in)
if [[ $out == *"Alice at the bakery ("* && $out != *"name changed"* ]]; then
    pass "bob's own rename shows alice under his name, not flagged as her name changing"
else
    fail "after rename: $out"
fi
expect_exit 0 "and back to the name she announces" on bob rename "$(on alice status --json | json_get shortID)" alice
stop_daemon bob
start_daemon 2 bob "${bob_flags[@]}"
expect_eq "the pairing survives a restart" paired "$(peer_trust bob alice state)"
expect_exit 0 "untrust forgets the pairing" on bob untrust alice
expect_exit 4 "untrust of a peer that is not paired: not found" on bob untrust alice
expect_eq "after untrust, alice is unverified again" unverified "$(peer_trust bob alice state)"
eventually 15 session_up bob alice || true

echo "== a send into a link that died says it is queued"
eventually 15 session_up alice bob || true
incoming=$(on bob send alice 3 EUR --memo "to accept during the cut")
eventually 10 is_state alice "$incoming" pending || true
"$sandbox" link 2 down >/dev/null
queued=$(on alice send bob 2 EUR --memo "while the link is down" 2>"$work/queued.err")
expect_match "send exits 0 with the payment ID" '????????-????-????-????-????????????' "$queued"
expect_match "and says the request is queued, not silently sent" '*queued: bob (*) has not acknowledged*' \
    "$(cat "$work/queued.err")"
# Ctrl-C while a command waits for the peer's answer (alice accepts bob's request; bob cannot confirm it during the
# cut): the CLI says what stays recorded (the daemon committed it).
"$cli" accept "$incoming" --socket "$work/alice.sock" >"$work/interrupted.out" 2>"$work/interrupted.err" &
canceller=$!
sleep 1
kill -INT "$canceller" 2>/dev/null || true
status=0
wait "$canceller" || status=$?
expect_eq "Ctrl-C while accept waits for bob's answer: exit 130" 130 "$status"
expect_match "it says the acceptance stays recorded and how to see what became of it" \
    "*interrupted while waiting for the peer's answer: the daemon recorded 'accept'*interpay show ${incoming}*" \
    "$(cat "$work/interrupted.err")"
expect_eq "alice's daemon has the acceptance recorded" accepted "$(state alice "$incoming")"
# missed PEER: how many keepalives alice's session with PEER has gone unanswered (her peers --json).
missed() {
    on alice peers --json | python3 -c '
import json, sys
print(next(p["missedKeepalives"] for p in json.load(sys.stdin)["peers"] if p["name"] == sys.argv[1] and p["session"] == "up"))' "$1" 2>/dev/null
}
missed_some() { (($(missed bob || echo 0) >= 1)); }
if eventually 12 missed_some; then
    pass "while the link is down, peers marks bob's session as missing keepalives ($(on alice peers | grep '^bob ' | tr -s ' '))"
else
    fail "peers during the cut: $(on alice peers)"
fi
"$sandbox" link 2 up >/dev/null
# Once the link is back the queued request reaches bob (who takes only paired peers' requests here: rejected),
# and alice's interrupted acceptance reaches him too.
bob_holds_it() { is_state bob "$queued" rejected && is_state bob "$incoming" accepted; }
if eventually 60 bob_holds_it; then
    pass "once the link is back, the queued request reaches bob, and the acceptance interrupted on alice's side too"
else
    fail "queued request: alice $(state alice "$queued" 2>&1), bob $(state bob "$queued" 2>&1)"
fi

echo "== the CLI's errors"
expect_exit 4 "an unknown payment is not found" on alice show ffffffff
expect_exit 4 "send to an unknown peer: not found" on alice send nobody-here 1 EUR
# Time-ordered IDs share their first characters: a prefix names several payments, listed one per line.
expect_exit 4 "a prefix of several payments is ambiguous" on alice show "${id:0:4}"
if [[ $last_err == *"is ambiguous; it matches:"$'\n'"  "* && $last_err != *'\u{'* ]] && (($(wc -l <<<"$last_err") >= 3)); then
    pass "the candidates are listed one per line, not as escapes on one line"
else
    fail "ambiguous prefix: $last_err"
fi
stop_daemon bob
expect_exit 6 "send to a known peer without a session fails fast" on alice send bob 1 EUR
expect_match "the message names the peer as every surface does, name (SHORTID), and says it is not reachable" \
    '*no session with bob (???????): *not reachable*' "$last_err"
expect_exit 2 "a bad amount is a usage error" on alice send bob 1.234 EUR
expect_exit 2 "a negative amount is a usage error" on alice send bob -1 EUR
expect_match "it says the amount is negative, not that an argument is missing" "*'-1' is a negative number*" "$last_err"
expect_exit 2 "an amount whose comma could group thousands is a usage error" on alice send bob 1,250 EUR
expect_match "it names both readings" "*'1,250' could mean *write 1250 or 1.25*" "$last_err"
expect_exit 2 "a day that does not exist is a usage error" on alice export --from 2026-02-30
expect_match "it says the date does not exist, not that the format is wrong" \
    "*--from 2026-02-30 is not a date or time of the calendar*" "$last_err"
expect_exit 3 "no daemon: exit 3" "$cli" status --socket "$work/none.sock"
expect_match "no daemon: the message says how to start it" '*Is it running[?]*' "$last_err"
if command -v setpriv >/dev/null; then
    expect_exit 3 "another uid is refused by the control socket" \
        setpriv --reuid=65534 --regid=65534 --clear-groups "$cli" status --socket "$work/alice.sock"
fi

finish
