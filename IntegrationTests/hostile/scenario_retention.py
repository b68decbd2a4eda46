"""Ledger growth from a paired peer (SECURITY.md R-RETENTION): a paired peer sends requests that expire two seconds
after they arrive, as fast as the pending limit lets them in. Each frees its pending slot when it expires, so the
pending limit never binds, and before the fix every one was a row for good (~600 a minute at the default limits,
≈1.3 GB a day). Now a peer's requests that expire unanswered have a day's budget (ten times the pending limit), and
the ledger holds at most that many plus the pending ones."""

import os
import sqlite3
import time

import interpay_wire as wire
from scenario_pinned import pair

DESCRIPTION = "a paired peer's stream of requests that expire unanswered: the ledger holds at most the day's budget"

PENDING = 5                # limits.max_pending_per_peer: 50 may expire unanswered a day
SECONDS = 30
LIFETIME = 2


def ledger_rows(h, name):
    database = sqlite3.connect("file:%s?mode=ro" % os.path.join(h.work, name, "ledger.sqlite"), uri=True)
    try:
        return dict(database.execute("SELECT state, count(*) FROM payment GROUP BY state").fetchall())
    finally:
        database.close()


def run(h):
    alice = h.daemon("alice", config="[limits]\nmax_pending_per_peer = %d\n" % PENDING)
    bob = h.identity("bob")
    conn = h.connect(alice, bob, name="bob", capabilities=["pairing-v2"])
    h.check(pair(h, alice, bob, conn), "alice pairs with bob by code")

    sent = refused = 0
    deadline = time.monotonic() + SECONDS
    while time.monotonic() < deadline:
        frame = wire.request_frame(bob["id"], alice.id, memo="short-lived", lifetime=LIFETIME)
        conn.send(frame)
        sent += 1
        answer = conn.answer_to(frame["messageID"])
        if answer is not None and answer.get("type") == "error" and answer.get("code") == "limit-exceeded":
            refused += 1
            if "expired unanswered" in answer.get("message", ""):
                # The day's budget is spent: nothing more gets in today; a peer would back off here.
                time.sleep(0.5)
            else:
                time.sleep(0.05)
    time.sleep(LIFETIME + 2)
    counts = ledger_rows(h, "alice")
    total = sum(counts.values())
    budget = PENDING * 10
    print("retention: %d requests sent in %d s, %d refused limit-exceeded; alice's ledger: %s" % (
        sent, SECONDS, refused, counts), flush=True)
    h.check(total <= budget + PENDING,
            "alice's ledger holds at most the day's budget of expired requests plus the pending ones (%d + %d): %d"
            % (budget, PENDING, total))
    log = open(alice.log, errors="replace").read()
    h.check("expired unanswered today" in log, "alice says why she refuses bob's requests")
    status = alice.interpay("status", "--json")
    h.check(status.returncode == 0 and '"ledger"' in status.stdout and '"payments":%d' % total in status.stdout,
            "interpay status shows the ledger's size and its %d payments" % total, status.stdout[-400:])
    conn.close()
