#!/usr/bin/env bash
# Settlement and receipts end to end: two interpayd on two simulated LAN hosts (scripts/lan-sandbox), driven through
# the real interpay CLI; a third host, with no daemon, checks the receipt offline. Ends with
# "receipts: N passed, M failed".
# shellcheck source=../lib/harness.bash
source "$(dirname "${BASH_SOURCE[0]}")/../lib/harness.bash"
need_binaries daemon cli
in_sandbox 3 "$@"
make_work

# field NAME PAYMENT MEMBER: a member of the payment as NAME's daemon shows it.
field() { on "$1" show "$2" --json | json_get "$3"; }
is_state() { [[ $(field "$1" "$2" state) == "$3" ]]; }
both_state() { is_state alice "$1" "$2" && is_state bob "$1" "$2"; }
settled_with_receipt() { both_state "$1" settled && [[ $(field bob "$1" receipt) == True ]]; }

echo "== setup"
# bob's preferred currency is EUR (rates from a fixture on host 2's own loopback): his accepted payments keep a
# quote, which his books carry as prices.
mkdir -p "$work/rates/v6/latest"
cat >"$work/rates/v6/latest/EUR" <<JSON
{"result":"success","base_code":"EUR","time_last_update_unix":$(date +%s),"time_next_update_unix":$(($(date +%s) + 86400)),
 "conversion_rates":{"EUR":1,"MXN":21.5,"JPY":163.25,"USD":1.16}}
JSON
"$sandbox" exec 2 -- python3 -m http.server --bind 127.0.0.1 --directory "$work/rates" 8765 >"$work/rates.log" 2>&1 &
background+=($!)
bob_flags=(--currency EUR --rates-url "http://127.0.0.1:8765/v6/latest/{base}")
# bob's books name his peers' accounts by their names ([export] account).
daemon_config bob "[export]" 'account = "assets:tills:{name}"'
start_daemon 1 alice
start_daemon 2 bob "${bob_flags[@]}"
sessions_between alice bob

echo "== request → accept → paid (across a payee restart)"
id=$(on alice send bob 12.50 MXN --memo 'tacos, "al pastor"' --category food)
eventually 5 is_state bob "$id" pending || true
on bob accept "$id" >/dev/null
if eventually 5 both_state "$id" accepted; then pass "accepted on both sides"; else fail "accept: $(field bob "$id" state)"; fi
expect_exit 4 "no receipt before settlement" on bob receipt "$id"
expect_match "the CLI says no receipt is available" '*no receipt is available*' "$last_out"
stop_daemon alice
out=$(on bob paid "$id" --method transfer --reference "SPEI 0042")
if [[ $out == *paid* && $out == *"not confirmed"* ]]; then pass "paid while the payee is down: paid, awaiting the payee"; else fail "paid: $out"; fi
start_daemon 1 alice
if eventually 20 both_state "$id" paid && [[ $(field bob "$id" confirmed) == True ]]; then
    pass "after the payee's restart both sides are paid, confirmed"
else
    fail "paid after restart: alice $(field alice "$id" state), bob $(field bob "$id" state)"
fi

echo "== received (across a payer restart) → receipt on both sides"
stop_daemon bob
out=$(on alice received "${id:0:8}")
expect_match "received: settled on the payee's side" '*settled*' "$out"
start_daemon 2 bob "${bob_flags[@]}"
if eventually 20 settled_with_receipt "$id"; then
    pass "after the payer's restart both sides are settled and the payer holds the receipt"
else
    fail "settle after restart: alice $(field alice "$id" state), bob $(field bob "$id" state)"
fi
expect_exit 5 "rejecting the settled payment loses" on bob reject "$id"
expect_match "and says where it is, with the protocol's code" '*already settled (ALAC)*' "$last_out"
on alice receipt "$id" --out "$work/alice-receipt.json"
on bob receipt "$id" --out "$work/bob-receipt.json"
if cmp -s "$work/alice-receipt.json" "$work/bob-receipt.json"; then pass "both sides hold the same receipt, byte for byte"; else fail "receipts differ"; fi
if on bob receipt "$id" --format text | grep -q "12.50 MXN"; then pass "the text form shows the amount"; else fail "text form: $(on bob receipt "$id" --format text)"; fi
# --out never writes through a link planted at its path (another user's, in a shared directory).
printf 'keep\n' >"$work/victim"
ln -s "$work/victim" "$work/planted.json"
expect_exit 1 "receipt --out refuses a symbolic link at the path" on bob receipt "$id" --out "$work/planted.json"
if [[ $(cat "$work/victim") == keep ]]; then pass "the link's target is untouched"; else fail "the link's target was overwritten"; fi
if [[ $(stat -c %a "$work/bob-receipt.json") == 600 ]]; then pass "a receipt file is the user's alone (0600)"; else fail "receipt file mode $(stat -c %a "$work/bob-receipt.json")"; fi
expect_exit 5 "received twice is refused" on alice received "$id"

echo "== verify-receipt offline, on a host with no daemon"
expect_exit 0 "a genuine receipt verifies" "$sandbox" exec 3 -- "$cli" verify-receipt "$work/bob-receipt.json"
if [[ $last_out == OK:*"12.50 MXN"* ]]; then pass "one-line summary: ${last_out:0:60}…"; else fail "summary: $last_out"; fi
sed 's/"amount":"1250"/"amount":"9250"/' "$work/bob-receipt.json" >"$work/tampered.json"
expect_exit 1 "a receipt with the amount changed fails" "$sandbox" exec 3 -- "$cli" verify-receipt "$work/tampered.json"
expect_match "it names the signature" '*signature*' "$last_out"
sed 's/"memo":"tacos/"memo": "tacos/' "$work/bob-receipt.json" >"$work/spaced.json"
expect_exit 1 "a receipt with one byte added fails" "$sandbox" exec 3 -- "$cli" verify-receipt "$work/spaced.json"
expect_exit 1 "a receipt file that is not there is named with the reason" \
    "$sandbox" exec 3 -- "$cli" verify-receipt "$work/no-such-receipt.json"
expect_eq "the missing file's error says so in words, no Swift type" \
    "interpay: cannot read $work/no-such-receipt.json: No such file or directory" "$last_err"
expect_exit 3 "a --socket that is a regular file is refused" "$sandbox" exec 3 -- "$cli" --socket "$work/tampered.json" status
expect_match "it says what the path is, not that the daemon may be down" \
    "*cannot use $work/tampered.json as interpayd's control socket: it is a regular file, not a socket*" "$last_err"

echo "== export and stats"
open=$(on alice send bob 1500 JPY --memo "ramen")
eventually 5 is_state bob "$open" pending || true
on bob accept "$open" >/dev/null
eventually 5 both_state "$open" accepted || true
on alice export --format csv >"$work/export.csv"
on alice export --format json >"$work/export.json"
on alice list --json >"$work/list.json"
if python3 - "$work/export.csv" "$work/export.json" "$work/list.json" <<'PY'; then
import csv, datetime, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="", encoding="utf-8")))
exported = json.load(open(sys.argv[2]))["payments"]
listed = {p["id"]: p for p in json.load(open(sys.argv[3]))["payments"]}
iso = lambda t: None if t is None else datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
assert len(rows) == len(listed) == len(exported) == 2, (len(rows), len(listed))
for row, obj in zip(rows, exported):
    # The JSON has the CSV's cells, its yes-or-no columns as booleans.
    cells = {k: (v if v != "" else None) for k, v in row.items()}
    cells.update({k: cells[k] == "true" for k in ("confirmed", "receipt")})
    assert cells == obj, (row, obj)
    assert isinstance(obj["confirmed"], bool) and isinstance(obj["receipt"], bool), obj
    p = listed[row["id"]]
    want = {"state": p["state"], "amount": p["amount"], "currency": p["currency"], "memo": p["memo"],
            "category": p["category"] or "", "created_at": iso(p["createdAt"]), "settled_at": iso(p["settledAt"]) or "",
            "method": p["method"] or "", "reference": p["reference"] or "", "receipt": "true" if p["receipt"] else "false"}
    got = {k: row[k] for k in want}
    assert got == want, (got, want)
assert [r["state"] for r in rows] == ["settled", "accepted"]
PY
    pass "the CSV export, parsed with Python's csv module, equals list --json (and the JSON export)"
else
    fail "export differs from list --json"
fi
if [[ $(on alice export --format csv --state settled | wc -l) -eq 2 ]]; then pass "export --state settled: one row"; else fail "export --state"; fi
today=$(date -u +%F)
if [[ $(on alice export --from "$today" --to "$today" | wc -l) -eq 3 && $(on alice export --to 2000-01-01 | wc -l) -eq 1 ]]; then
    pass "export --from/--to select by creation date (UTC)"
else
    fail "export --from/--to"
fi
settled=$(on alice stats --period all --json | python3 -c 'import json,sys; print(sorted((r["currency"], r["count"], r["settledCount"]) for r in json.load(sys.stdin)["rows"]))')
expect_eq "stats count settled payments apart from accepted ones" "[('JPY', 1, 0), ('MXN', 1, 1)]" "$settled"
bob_short=$(on bob status --json | json_get shortID)
expect_match "stats --by peer names the peer as every surface does: name (SHORTID) and its trust" \
    "*bob ($bob_short) \\[unverified\\]*" "$(on alice stats --period all --by peer)"
expect_match "stats by currency has one currency column" "SIDE  CURRENCY  COUNT*" "$(on alice stats --period all | head -n 1)"

echo "== books for hledger, ledger and beancount"
# A memo and a category written to break out of their fields in either format: a quote, a comment start, a
# payee/note bar, a code's parenthesis, a backslash, and a directive after them.
hostile=$(on alice send bob 3.00 EUR --memo '(x) "; 2020-01-01 open Assets:Evil | \" \\ ; * !' --category 'food; 1 EUR')
eventually 5 is_state bob "$hostile" pending || true
on bob accept "$hostile" >/dev/null
eventually 5 both_state "$hostile" accepted || true
for side in alice bob; do
    on "$side" export --format ledger >"$work/$side.journal"
    on "$side" export --format beancount >"$work/$side.beancount"
    expect_exit 0 "hledger check accepts $side's journal" hledger -f "$work/$side.journal" check
    expect_exit 0 "bean-check accepts $side's beancount file" bean-check "$work/$side.beancount"
    # Income (sales) and expenses (purchases) per currency, against `stats --json` (minor units).
    books=$(hledger -f "$work/$side.journal" register '^(income|expenses):' -O csv | python3 -c '
import csv, sys
digits = {"JPY": 0, "KWD": 3}
totals = {}
for row in csv.DictReader(sys.stdin):
    number, currency = row["amount"].split()
    side = "out" if row["account"].startswith("income") else "in"
    minor = round(abs(float(number)) * 10 ** digits.get(currency, 2))
    totals[(side, currency)] = totals.get((side, currency), 0) + minor
print(sorted(totals.items()))')
    bean=$(bean-query -q -f csv "$work/$side.beancount" \
        "SELECT account, currency, sum(number) AS total WHERE account ~ '^(Income|Expenses):' GROUP BY account, currency" |
        python3 -c '
import csv, sys
digits = {"JPY": 0, "KWD": 3}
totals = {}
for row in csv.reader(sys.stdin):
    if not row or row[0].strip() == "account":
        continue
    account, currency, number = (cell.strip() for cell in row)
    side = "out" if account.startswith("Income") else "in"
    totals[(side, currency)] = totals.get((side, currency), 0) + round(abs(float(number)) * 10 ** digits.get(currency, 2))
print(sorted(totals.items()))')
    stats=$(on "$side" stats --period all --json | python3 -c '
import json, sys
print(sorted(((r["direction"], r["currency"]), r["totalMinor"]) for r in json.load(sys.stdin)["rows"]))')
    expect_eq "$side's journal balances equal stats --json, per side and currency ($stats)" "$stats" "$books"
    expect_eq "$side's beancount balances equal stats --json too" "$stats" "$bean"
done
if grep -q '  assets:tills:alice  ' "$work/bob.journal" && grep -q '  Assets:Tills:Alice  ' "$work/bob.beancount" &&
    ! grep -q 'assets:interpay:' "$work/bob.journal"; then
    pass "bob's books use his [export] account pattern (beancount's capitalized)"
else
    fail "bob's accounts: $(grep -ho '  [aA]ssets:[^ ]*' "$work/bob.journal" "$work/bob.beancount" | sort -u | tr '\n' ' ')"
fi
expect_match "--account overrides the configured pattern" "*  assets:cash:alice  *" \
    "$(on bob export --format ledger --account 'assets:cash:{name}')"
prices=$(grep -c '^P .* MXN .* EUR$\|^P .* JPY .* EUR$' "$work/bob.journal" || true)
bean_prices=$(grep -c ' price \(MXN\|JPY\) .* EUR$' "$work/bob.beancount" || true)
if ((prices == 2 && bean_prices == 2)); then
    pass "bob's books price MXN and JPY in EUR on the days he accepted them (his stored quotes)"
else
    fail "prices in bob's books: $prices / $bean_prices: $(grep -h 'price\|^P ' "$work/bob.journal" "$work/bob.beancount")"
fi
evil=$(grep -F 'open Assets:Evil' "$work/alice.journal")
if [[ $(wc -l <<<"$evil") -eq 1 && $evil == 20??-??-??" * "*" | "* ]]; then
    pass "the hostile memo stays in its transaction's description: $evil"
else
    fail "the hostile memo in the journal: $evil"
fi
if grep -q '^2020-01-01' "$work/alice.journal" "$work/alice.beancount"; then
    fail "a peer's text made a line of its own"
else
    pass "no peer text starts a line of either journal"
fi
expect_exit 2 "a beancount account pattern of the wrong form is refused" \
    on alice export --format beancount --account 'assets:interpay:{peer}'

echo "== paid and received cross during a link cut"
cut=$(on alice send bob 42 MXN --memo "cut")
eventually 5 is_state bob "$cut" pending || true
on bob accept "$cut" >/dev/null
eventually 5 both_state "$cut" accepted || true
"$sandbox" link 2 down >/dev/null
on bob paid "$cut" --method cash >/dev/null
on alice received "$cut" >/dev/null
"$sandbox" link 2 up >/dev/null
if eventually 60 settled_with_receipt "$cut" && [[ $(field bob "$cut" confirmed) == True ]]; then
    pass "after the link is back both sides are settled, confirmed, and the payer holds the receipt"
else
    fail "after the cut: alice $(field alice "$cut" state), bob $(field bob "$cut" state)"
fi

echo "== a peer without receipts (carol, --no-receipts) still completes request → accept"
start_daemon 3 carol --no-receipts
if eventually 15 session_up alice carol && eventually 5 session_up carol alice; then
    pass "alice and carol (no receipts capability) have a session"
else
    fail "no session between alice and carol"
fi
# carol asks alice for money: alice (with receipts) is the payer, carol (without) the payee that would sign.
old_peer=$(on carol send alice 7 MXN --memo "no receipts")
eventually 5 is_state alice "$old_peer" pending || true
on alice accept "$old_peer" >/dev/null
if eventually 5 is_state carol "$old_peer" accepted && is_state alice "$old_peer" accepted; then
    pass "request → accept with a payee without receipts"
else
    fail "with carol: alice $(field alice "$old_peer" state), carol $(field carol "$old_peer" state)"
fi
expect_exit 4 "no receipt from a payee without the capability" on alice receipt "$old_peer"
if [[ $last_out == *"no receipt is available"*"does not support receipts"* ]]; then
    pass "the CLI says no receipt is available: the peer's daemon does not support receipts"
else
    fail "message: $last_out"
fi
status=0
on alice paid "$old_peer" >"$work/out" 2>&1 || status=$?
if ((status != 0)) && grep -q "receipts" "$work/out"; then
    pass "'paid' towards a payee without receipts is refused (exit $status), naming the missing capability"
else
    fail "paid towards carol: exit $status: $(cat "$work/out")"
fi
if is_state alice "$old_peer" accepted && is_state carol "$old_peer" accepted; then
    pass "nothing changed on either side"
else
    fail "after the refusal: alice $(field alice "$old_peer" state), carol $(field carol "$old_peer" state)"
fi

finish
