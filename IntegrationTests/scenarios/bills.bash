#!/usr/bin/env bash
# Split bills end to end (PROTOCOL.md §8.8): four interpayd on four sandbox hosts, driven through the real interpay
# CLI. alice splits a 90.00 EUR dinner among bob, carol and dave; dave's daemon does not announce `bills` and gets a
# plain request; bob and carol pay, dave rejects; the bill is one row that says what is left, in `bills`, `list`
# and `watch`. Uneven and named splits lose no cent; cancelling a bill cancels only what is pending.
# Ends with "bills: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 4 "$@"
make_work

field() { on "$1" show "$2" --json | json_get "$3"; }
is_state() { [[ $(field "$1" "$2" state) == "$3" ]]; }
# bill_field BILL MEMBER: a member of alice's bill as `bills --json` shows it.
bill_field() {
    on alice bills --json | python3 -c '
import json, sys
bill = next(b for b in json.load(sys.stdin)["bills"] if b["id"] == sys.argv[1])
print(bill[sys.argv[2]])' "$1" "$2"
}
bill_is() { [[ $(bill_field "$1" state) == "$2" ]]; }
# share_of BILL-JSON-FILE PEER-NAME: the payment ID of that payer's share.
share_of() {
    python3 -c '
import json, sys
print(next(s["id"] for s in json.load(open(sys.argv[1]))["shares"] if s["peer"]["name"] == sys.argv[2]))' "$1" "$2"
}

echo "== setup: alice, and three friends; dave's daemon predates bills"
daemon_config dave "[bills]" "enabled = false"
start_daemon 1 alice
start_daemon 2 bob
start_daemon 3 carol
start_daemon 4 dave
for friend in bob carol dave; do sessions_between alice "$friend"; done
on alice watch >"$work/watch.out" 2>"$work/watch.err" &
background+=($!)

echo "== 90.00 EUR split three ways"
expect_exit 0 "alice splits the dinner among bob, carol and dave" \
    on alice split bob,carol,dave 90.00 EUR --memo dinner --json
printf '%s' "$last_out" >"$work/dinner.json"
bill=$(json_get id <"$work/dinner.json")
expect_eq "three shares of 30.00 EUR, in the order named" "30.00 30.00 30.00 bob carol dave" "$(python3 -c '
import json, sys
shares = json.load(open(sys.argv[1]))["shares"]
print(" ".join([s["amount"] for s in shares] + [s["peer"]["name"] for s in shares]))' "$work/dinner.json")"
bob_share=$(share_of "$work/dinner.json" bob)
carol_share=$(share_of "$work/dinner.json" carol)
dave_share=$(share_of "$work/dinner.json" dave)
for who in bob carol dave; do
    share_var="${who}_share"
    if eventually 10 is_state "$who" "${!share_var}" pending; then pass "$who holds his share, pending"; else
        fail "$who's share: $(on "$who" show "${!share_var}" 2>&1 | head -2)"
    fi
done
expect_eq "bob sees a share of a bill of 3 payers, not who the others are" "$bill 3" \
    "$(on bob show "$bob_share" --json | python3 -c 'import json,sys; b=json.load(sys.stdin)["bill"]; print(b["id"], b["payers"])')"
expect_eq "dave (no bills) gets a plain request" None "$(field dave "$dave_share" bill)"

on bob accept "$bob_share" >/dev/null
on carol accept "$carol_share" >/dev/null
on dave reject "$dave_share" --reason "I only had water" >/dev/null
if eventually 10 bill_is "$bill" partial; then pass "two paid, one rejected: the bill is partial"; else
    fail "the bill is $(bill_field "$bill" state)"
fi
expect_eq "it says 60.00 collected and 30.00 left" "60.00 30.00" "$(bill_field "$bill" collected) $(bill_field "$bill" left)"
expect_match "interpay list shows the bill as one row with what is left" \
    "*bill ${bill: -8}  partial  90.00 EUR  3 payers: 2 accepted, 1 declined; 30.00 EUR left  \"dinner\"*" "$(on alice list)"
if eventually 5 grep -q "bill ${bill: -8}  partial" "$work/watch.out"; then pass "interpay watch shows the bill's row as it changes"; else
    fail "watch: $(tail -5 "$work/watch.out")"
fi

echo "== no cent lost: an uneven split, named shares"
expect_exit 0 "100.00 EUR among three" on alice split bob,carol,dave 100.00 EUR --memo "taxi" --json
expect_eq "33.34, 33.33, 33.33: the cent left goes to the first payer named" "33.34 33.33 33.33" \
    "$(python3 -c 'import json,sys; print(" ".join(s["amount"] for s in json.loads(sys.argv[1])["shares"]))' "$last_out")"
expect_exit 0 "named shares" on alice split --shares bob=40,carol=25 65.00 EUR --memo "groceries" --json
expect_eq "40.00 and 25.00" "40.00 25.00" \
    "$(python3 -c 'import json,sys; print(" ".join(s["amount"] for s in json.loads(sys.argv[1])["shares"]))' "$last_out")"
expect_exit 2 "named shares that do not add up are refused (invalid params)" on alice split --shares bob=40,carol=20 65.00 EUR
expect_match "it says what they add up to" "*add up to 60.00 EUR, not 65.00 EUR*" "$last_err$last_out"
expect_exit 2 "a bill of one payer is refused" on alice split bob 10.00 EUR

echo "== cancelling a bill cancels what is pending, keeps what was paid"
on alice split bob,carol 20.00 EUR --memo "cinema" --json >"$work/cinema.json"
cinema=$(json_get id <"$work/cinema.json")
bob_cinema=$(share_of "$work/cinema.json" bob)
carol_cinema=$(share_of "$work/cinema.json" carol)
eventually 10 is_state bob "$bob_cinema" pending || true
on bob accept "$bob_cinema" >/dev/null
eventually 10 is_state alice "$bob_cinema" accepted || true
expect_exit 0 "alice cancels the cinema bill" on alice cancel-bill "${cinema: -8}"
if eventually 10 is_state carol "$carol_cinema" cancelled; then pass "carol's pending share is cancelled on her side"; else
    fail "carol's share: $(field carol "$carol_cinema" state)"
fi
expect_eq "bob's accepted share stays; the bill is partial, 10.00 left" "accepted partial 10.00" \
    "$(field alice "$bob_cinema" state) $(bill_field "$cinema" state) $(bill_field "$cinema" left)"

finish
