#!/usr/bin/env python3
"""Compares the ledgers of two interpayd, as `interpay list --json` printed them, after a stress test.

  ledger-consistency.py converged --ledger NAME=FILE --ledger NAME=FILE
      exit 0 when both ledgers hold the same payment IDs in the same states and every payer-side decision is
      confirmed by the payee (nothing left in flight); else exit 1 with one line saying what differs.

  ledger-consistency.py check --ledger NAME=FILE --ledger NAME=FILE [--sent FILE] [--decisions FILE]
      prints PASS/FAIL lines and exits 1 on any FAIL.

--sent lines:      SENDER MEMO EXIT PAYMENT-ID   (one `interpay send` run on SENDER's daemon; ID '-' when none)
--decisions lines: ACTOR KIND PAYMENT-ID EXIT STATE CONFIRMED
                   (one `interpay accept|reject|cancel --json` run on ACTOR's daemon; STATE and CONFIRMED from its
                   output, '-' when it printed none)
"""

import argparse
import collections
import json
import sys


def load(spec):
    name, _, path = spec.partition("=")
    if not name or not path:
        raise SystemExit(f"--ledger wants NAME=FILE, not {spec!r}")
    with open(path, encoding="utf-8") as handle:
        return name, json.load(handle)["payments"]


def by_id(payments):
    return {p["id"]: p for p in payments}


def first(items, count=5):
    items = sorted(items)
    more = f" (+{len(items) - count} more)" if len(items) > count else ""
    return ", ".join(items[:count]) + more


def difference(ledgers):
    """One line describing how the two ledgers differ, or None when they agree and nothing is unconfirmed."""
    (name_a, a), (name_b, b) = ledgers
    ids_a, ids_b = by_id(a), by_id(b)
    only_a, only_b = ids_a.keys() - ids_b.keys(), ids_b.keys() - ids_a.keys()
    if only_a or only_b:
        return f"{len(only_a)} only on {name_a}, {len(only_b)} only on {name_b}"
    states = [i for i in ids_a if ids_a[i]["state"] != ids_b[i]["state"]]
    if states:
        i = states[0]
        return f"{len(states)} in different states, e.g. {i}: {ids_a[i]['state']} / {ids_b[i]['state']}"
    unconfirmed = [p["id"] for p in a + b if not p["confirmed"]]
    if unconfirmed:
        return f"{len(unconfirmed)} unconfirmed, e.g. {unconfirmed[0]}"
    return None


class Report:
    def __init__(self):
        self.failed = 0

    def check(self, ok, text, why=""):
        if ok:
            print(f"PASS {text}")
        else:
            self.failed += 1
            print(f"FAIL {text}: {why}")


def check(args):
    ledgers = [load(spec) for spec in args.ledger]
    (name_a, a), (name_b, b) = ledgers
    report = Report()
    maps, raw = {}, dict(ledgers)
    for name, payments in ledgers:
        counts = collections.Counter(p["id"] for p in payments)
        twice = [i for i, n in counts.items() if n > 1]
        report.check(not twice, f"{name}: no payment ID appears twice ({len(payments)} payments)", first(twice))
        maps[name] = by_id(payments)
    ids_a, ids_b = maps[name_a], maps[name_b]
    report.check(
        ids_a.keys() - ids_b.keys() == set(), f"every payment on {name_a} is also on {name_b}",
        first(ids_a.keys() - ids_b.keys()))
    report.check(
        ids_b.keys() - ids_a.keys() == set(), f"every payment on {name_b} is also on {name_a}",
        first(ids_b.keys() - ids_a.keys()))
    shared = ids_a.keys() & ids_b.keys()
    states = [f"{i} {ids_a[i]['state']}/{ids_b[i]['state']}" for i in shared if ids_a[i]["state"] != ids_b[i]["state"]]
    report.check(not states, f"both sides agree on the state of all {len(shared)} shared payments", first(states))
    roles = [i for i in shared if {ids_a[i]["direction"], ids_b[i]["direction"]} != {"in", "out"}]
    report.check(not roles, "every shared payment is outgoing on one side and incoming on the other", first(roles))
    unconfirmed = [f"{name}:{p['id']}" for name, payments in ledgers for p in payments if not p["confirmed"]]
    report.check(not unconfirmed, "no payer decision is left unconfirmed", first(unconfirmed))
    tally = collections.Counter(p["state"] for p in a)
    print("     states: " + ", ".join(f"{state} {count}" for state, count in sorted(tally.items())))

    if args.sent:
        check_sent(args.sent, maps, raw, report)
    if args.decisions:
        check_decisions(args.decisions, ids_a, report)
    return 1 if report.failed else 0


def check_sent(path, maps, raw, report):
    reported, attempts = {}, 0
    memos = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) != 4:
                continue
            sender, memo, status, payment = fields
            attempts += 1
            memos.add(memo)
            if status == "0":
                reported[payment] = (sender, memo)
    names = list(maps)
    missing, wrong = [], []
    for payment, (sender, memo) in reported.items():
        for name in names:
            record = maps[name].get(payment)
            if record is None:
                missing.append(f"{payment} on {name}")
                continue
            outgoing = name == sender
            if record["direction"] != ("out" if outgoing else "in") or record["memo"] != memo:
                wrong.append(f"{payment} on {name}")
    report.check(
        not missing, f"all {len(reported)} requests the CLI reported as sent (of {attempts} tries) are on both sides",
        first(missing))
    report.check(not wrong, "each of them has the direction and memo of the send that created it", first(wrong))
    for name in names:
        per_memo = collections.Counter(p["memo"] for p in raw[name] if p["memo"] in memos)
        twice = [memo for memo, count in per_memo.items() if count > 1]
        report.check(not twice, f"{name}: no send created two payments", first(twice))
    unreported = [
        p["id"] for name in names for p in maps[name].values() if p["direction"] == "out" and p["id"] not in reported
    ]
    stray = [p["memo"] for name in names for p in maps[name].values() if p["memo"] not in memos]
    report.check(not stray, "every payment comes from a send of this test", first(stray))
    print(f"     {len(unreported)} payments were committed although their send did not report success")


def check_decisions(path, final, report):
    counts = collections.Counter()
    bad = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) != 6:
                continue
            actor, kind, payment, status, state, confirmed = fields
            counts[f"{kind} exit {status}"] += 1
            end = final.get(payment, {}).get("state", "missing")
            if status != "0":
                if status == "5" and end == "pending":
                    bad.append(f"{kind} {payment}: refused as a conflict but still pending")
                continue
            if end == "pending":
                bad.append(f"{kind} {payment} by {actor} succeeded but the payment is still pending")
            elif kind == "cancel" and end != "cancelled":
                bad.append(f"cancel {payment} succeeded but it ended {end}")
            elif kind in ("accept", "reject"):
                wanted = "accepted" if kind == "accept" else "rejected"
                if confirmed == "true" and state != end:
                    bad.append(f"{kind} {payment} was confirmed {state} but ended {end}")
                elif end not in (wanted, "cancelled", "expired"):
                    bad.append(f"{kind} {payment} ended {end}, which no crossing explains")
    summary = ", ".join(f"{key} {n}" for key, n in sorted(counts.items())) or "none"
    report.check(not bad, f"every decision the CLI reported holds on both sides ({summary})", first(bad))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["converged", "check"])
    parser.add_argument("--ledger", action="append", required=True, help="NAME=FILE (exactly two)")
    parser.add_argument("--sent")
    parser.add_argument("--decisions")
    args = parser.parse_args()
    if len(args.ledger) != 2:
        parser.error("give exactly two --ledger")
    if args.command == "converged":
        why = difference([load(spec) for spec in args.ledger])
        if why:
            print(why)
            return 1
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
