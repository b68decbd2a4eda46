#!/usr/bin/env bash
# Refunds end to end (PROTOCOL.md §8.7): two interpayd on two sandbox hosts, driven through the real interpay CLI; a
# third host, with no daemon, checks the refund receipts offline. A settled 30.00 EUR payment is refunded 10.00,
# then the 20.00 left; a third refund is refused; both ledgers link the refunds to the payment; stats net to zero.
# Ends with "refunds: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 3 "$@"
make_work

field() { on "$1" show "$2" --json | json_get "$3"; }
is_state() { [[ $(field "$1" "$2" state) == "$3" ]]; }
both_state() { is_state alice "$1" "$2" && is_state bob "$1" "$2"; }
# refund_on_bob REFUND: bob holds the refund, settled, linked to the payment, with a receipt he kept. Money comes to
# him, so it is his "out" direction, as a payment he asked for would be.
refund_on_bob() {
    [[ $(on bob show "$1" --json | python3 -c '
import json, sys
p = json.load(sys.stdin)
print(p["state"], p["direction"], p["refundOf"], p["receipt"])') == "settled out $id True" ]]
}
# net NAME: NAME's stats rows as (direction, currency, count, total).
net() {
    on "$1" stats --period all --json | python3 -c '
import json, sys
print(sorted((r["direction"], r["currency"], r["count"], r["total"]) for r in json.load(sys.stdin)["rows"]))'
}

echo "== setup: alice sells bob a 30.00 EUR pair of shoes, settled"
start_daemon 1 alice
start_daemon 2 bob
sessions_between alice bob
id=$(on alice send bob 30.00 EUR --memo "shoes" --category clothes)
eventually 10 is_state bob "$id" pending || true
on bob accept "$id" >/dev/null
eventually 10 both_state "$id" accepted || true
on alice received "$id" >/dev/null
if eventually 10 both_state "$id" settled; then pass "the payment is settled on both sides"; else
    fail "settle: alice $(field alice "$id" state), bob $(field bob "$id" state)"
fi

echo "== refunded 10.00, then the 20.00 left; a third refund is refused"
expect_exit 0 "alice refunds 10.00" on alice refund "$id" 10.00 --memo "one shoe was scuffed" --json
first=$(json_get id <<<"$last_out")
expect_eq "the refund is 10.00 EUR, settled, linked to the payment" "10.00 EUR settled $id" \
    "$(json_get amount <<<"$last_out") $(json_get currency <<<"$last_out") $(json_get state <<<"$last_out") $(json_get refundOf <<<"$last_out")"
expect_eq "the payment shows 10.00 refunded and 20.00 left" "10.00 20.00" \
    "$(field alice "$id" refunded) $(field alice "$id" refundable)"
expect_match "interpay show says so" "*refunded*10.00 EUR*refundable*20.00 EUR*" "$(on alice show "$id")"
expect_exit 0 "alice refunds what is left" on alice refund "$id" --memo "returned"
expect_match "it says what it refunded, naming the payment by its short ID" "refunded 20.00 EUR of ${id: -8} as *" "$last_out"
second=$(on alice list --json --limit 100 | python3 -c '
import json, sys
print(next(p["id"] for p in json.load(sys.stdin)["payments"] if p["refundOf"] and p["minorUnits"] == 2000))')
expect_exit 1 "a third refund is refused" on alice refund "$id" 0.01
expect_match "it says the payment was refunded in full" "*refunded in full*" "$last_err$last_out"
expect_exit 1 "a refund by the payer is refused" on bob refund "$id" 1.00
expect_match "it says only the payee gives refunds" "*only the payee*" "$last_err$last_out"
for refund in "$first" "$second"; do
    if eventually 10 refund_on_bob "$refund"; then pass "bob holds refund ${refund: -8}, linked, with its receipt"; else
        fail "refund ${refund: -8} on bob: $(on bob show "$refund" --json 2>&1 | head -c 400)"
    fi
done
expect_eq "the payment stays settled, 30.00 refunded, nothing left to refund" "settled 30.00 None" \
    "$(field alice "$id" state) $(field alice "$id" refunded) $(field alice "$id" refundable)"

echo "== the refund receipts verify offline, on a host with no daemon"
for refund in "$first" "$second"; do
    on bob receipt "$refund" --out "$work/refund-${refund: -8}.json"
    expect_exit 0 "refund receipt ${refund: -8} verifies" "$sandbox" exec 3 -- "$cli" verify-receipt "$work/refund-${refund: -8}.json"
    expect_match "it is named a refund receipt of the payment" "*refund receipt*for payment $id*" "$last_out"
done
sed 's/"amount":"1000"/"amount":"3000"/' "$work/refund-${first: -8}.json" >"$work/inflated.json"
expect_exit 1 "a refund receipt with the amount raised fails" "$sandbox" exec 3 -- "$cli" verify-receipt "$work/inflated.json"

echo "== statistics net the refunds out"
expect_eq "alice's sales net to zero: one payment, 0.00 EUR" "[('out', 'EUR', 1, '0.00')]" "$(net alice)"
expect_eq "bob's spending nets to zero" "[('in', 'EUR', 1, '0.00')]" "$(net bob)"

echo "== the books net them out too"
# income:… (alice's sales) and expenses:… (bob's purchases) per account, as hledger sums them.
books() {
    on "$1" export --format ledger >"$work/$1.journal"
    hledger -f "$work/$1.journal" balance -E '^(income|expenses):' -O csv --no-total | python3 -c '
import csv, sys
print(sorted((row["account"], row["balance"]) for row in csv.DictReader(sys.stdin)))'
}
expect_eq "alice's income from clothes nets to zero in hledger" "[('income:interpay:clothes', '0')]" "$(books alice)"
expect_eq "bob's expenses for clothes net to zero in hledger" "[('expenses:interpay:clothes', '0')]" "$(books bob)"
on alice export --format beancount >"$work/alice.beancount"
expect_exit 0 "bean-check accepts alice's books with the refunds" bean-check "$work/alice.beancount"

finish
