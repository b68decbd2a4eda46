#!/usr/bin/env bash
# Backup and restore onto another host: alice (host 1) and bob (host 2) pair; alice's backup is taken while
# requests flow, and after a request bob never acknowledged; alice is stopped and restored on host 3 from the
# encrypted file. The restored alice has the same ID, bob takes her session as paired without pairing again, her
# history is the one she had, and the unacknowledged request reaches bob. A backup altered by one byte is refused.
# Ends with "backup: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 3 "$@"
make_work

is_state() { [[ $(on "$1" show "$2" --json | json_get state) == "$3" ]]; }
# history_of NAME: NAME's payments (ID, state, amount, memo), oldest first, one per line.
history_of() {
    on "$1" list --json --limit 100000 | python3 -c '
import json, sys
for p in sorted(json.load(sys.stdin)["payments"], key=lambda p: (p["createdAt"], p["id"])):
    print(p["id"], p["state"], p["amount"], p["currency"], p["memo"])'
}

echo "== setup: alice and bob pair"
start_daemon 1 alice
start_daemon 2 bob
sessions_between alice bob
pair alice bob
alice_id=$(on alice status --json | json_get id)

echo "== the backup, taken while requests flow"
(for n in $(seq 1 20); do on alice send bob "$n.00" EUR --memo "flow $n" >/dev/null 2>&1; done) &
flow=$!
printf 'a long enough passphrase\n' >"$work/passphrase"
chmod 600 "$work/passphrase"
expect_exit 0 "interpay backup while requests flow" on alice backup "$work/during.backup" --passphrase-file "$work/passphrase"
wait "$flow"
# However far the flow got when the backup was taken: "0 payments", "1 payment", "7 payments".
expect_match "it says what it backed up, the identity by its short ID" \
    "backed up * payment* and the identity ${alice_id:0:7} to $work/during.backup (* bytes, encrypted)" "$last_out"
expect_eq "the backup file is the user's alone (0600)" 600 "$(stat -c %a "$work/during.backup")"
if [[ -z $(ls -A "$work/alice/backups" 2>/dev/null) ]]; then pass "nothing is left in the state directory"; else fail "left: $(ls "$work/alice/backups")"; fi

echo "== a request bob never acknowledged, then the backup the restore uses"
# bob's link is cut: alice's session still looks up, so she takes the request, but no ack comes back.
"$sandbox" link 2 down >/dev/null
on alice send bob 7.77 EUR --memo "sent while bob was away" --json >"$work/pending.json"
pending=$(json_get id <"$work/pending.json")
if [[ $(json_get queued <"$work/pending.json") == True && $(on alice status --json | json_get ledger.queuedFrames) -ge 1 ]]; then
    pass "the request waits in alice's outbox, not acknowledged"
else
    fail "the request was acknowledged: $(on alice show "$pending" 2>&1 | head -3)"
fi
expect_exit 0 "the backup is taken with a request in the outbox" \
    on alice backup "$work/alice.backup" --passphrase-file "$work/passphrase"
history_of alice >"$work/history.before"
stop_daemon alice
stop_daemon bob
"$sandbox" link 2 up >/dev/null

echo "== refused: a byte changed, no passphrase, a wrong one, a state directory in use"
python3 - "$work/alice.backup" "$work/altered.backup" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[len(data) // 2] ^= 0x01
open(sys.argv[2], "wb").write(data)
PY
mkdir -p "$work/tries"
expect_exit 1 "a backup with one byte changed is refused" \
    "$daemon" --state-dir "$work/tries/a" --socket "$work/tries/a.sock" --restore "$work/altered.backup" \
    --passphrase-file "$work/passphrase"
expect_match "it says the file was changed" "*was changed*" "$last_err"
expect_exit 1 "an encrypted backup without its passphrase is refused" \
    "$daemon" --state-dir "$work/tries/b" --socket "$work/tries/b.sock" --restore "$work/alice.backup"
expect_match "it says a passphrase is needed" "*encrypted*--passphrase-file*" "$last_err"
printf 'not the passphrase\n' >"$work/wrong"
expect_exit 1 "a wrong passphrase is refused" \
    "$daemon" --state-dir "$work/tries/c" --socket "$work/tries/c.sock" --restore "$work/alice.backup" \
    --passphrase-file "$work/wrong"
start_daemon - carol --no-discovery --no-web --listen 127.0.0.1
expect_exit 1 "a running daemon's state directory is refused" \
    "$daemon" --state-dir "$work/carol" --socket "$work/carol.sock" --restore "$work/alice.backup" \
    --passphrase-file "$work/passphrase"
expect_match "it names the daemon holding it" "*interpayd*pid*" "$last_err"
stop_daemon carol
if [[ ! -e $work/tries/a/ledger.sqlite && ! -e $work/tries/a/identity-key.pem ]]; then
    pass "a refused restore writes nothing"
else
    fail "a refused restore left: $(ls "$work/tries/a")"
fi

echo "== restored on host 3"
mkdir -p "$work/alice3"
expect_exit 0 "interpayd --restore onto a new host" "$sandbox" exec 3 -- "$daemon" --state-dir "$work/alice3" \
    --socket "$work/alice3.sock" --restore "$work/alice.backup" --passphrase-file "$work/passphrase"
expect_match "it says what it restored" "restored $alice_id with * payments*" "$last_out"
cp "$work/alice.toml" "$work/alice3.toml"
start_daemon 3 alice3 --name alice
expect_eq "the restored daemon has alice's ID" "$alice_id" "$(on alice3 status --json | json_get id)"
history_of alice3 >"$work/history.after"
if cmp -s "$work/history.before" "$work/history.after"; then
    pass "its history is the one alice had ($(wc -l <"$work/history.after") payments)"
else
    fail "history differs: $(diff "$work/history.before" "$work/history.after" | head -5)"
fi
start_daemon 2 bob
if eventually 30 session_up bob alice; then pass "bob has a session with the restored alice"; else fail "no session between bob and the restored alice"; fi
expect_eq "bob takes her as paired, without pairing again" paired "$(trust bob alice)"
expect_eq "she takes bob as paired" paired "$(trust alice3 bob)"
if eventually 30 is_state bob "$pending" pending; then
    pass "the request bob never acknowledged reaches him from the restored alice"
else
    fail "the unacknowledged request on bob: $(on bob show "$pending" 2>&1 | head -2)"
fi
out=$(on bob accept "$pending")
if eventually 10 is_state alice3 "$pending" accepted; then pass "and bob's answer reaches her"; else fail "accept: $out"; fi

finish
