"""A payee or payer of a subscription who bends it (SECURITY.md S-PAST, S-PERIOD-ID, S-NEVER, S-STRETCH,
S-IMPOSTOR): a start years back that had every period since accepted at once, the payment IDs of periods still to
come taken first, requests naming offers never approved that made those offers rows no pruning could remove, a
"monthly" offer of 1-second periods that billed 601 periods in 7.5 s on one approval, and an unpaired peer's offer
approved like a contact's. And a payee whose signed receipt carries terminal escapes in its rate
(T-RECEIPT-TEXT)."""

import hashlib
import json
import os
import sqlite3
import time
import uuid

import interpay_wire as wire

DESCRIPTION = ("periods from a start years back, a payer taking its future periods' IDs, links to offers never "
               "approved, 1-second periods in a monthly offer, an unpaired peer's offer, receipts with terminal "
               "escapes and bidi overrides")

# PROTOCOL.md §8.6: a period's payment ID is the UUIDv5 of "<seriesID>/<index>" in this namespace.
PERIOD_NAMESPACE = uuid.UUID("6b3f1c52-8e2a-4d7b-9a61-0c4e2f8813d5")
SUBSCRIBER = ["receipts", "subscriptions"]


def period_id(series, index):
    return str(uuid.uuid5(PERIOD_NAMESPACE, "%s/%d" % (series, index)))


def ledger_rows(h, daemon, sql, arguments=()):
    database = sqlite3.connect("file:%s?mode=ro" % os.path.join(h.work, daemon, "ledger.sqlite"), uri=True)
    try:
        return database.execute(sql, arguments).fetchall()
    finally:
        database.close()


def offer(payee, payer, start, count=None, period_seconds=None):
    terms = {"payee": payee, "payer": payer, "amount": {"currency": "EUR", "minorUnits": 3000}, "period": "month",
             "start": start, "timeZone": "UTC", "memo": "gym"}
    if count is not None:
        terms["count"] = count
    if period_seconds is not None:
        terms["periodSeconds"] = period_seconds
    return {"type": "series", "action": "offer", "messageID": str(uuid.uuid4()), "seriesID": str(uuid.uuid4()),
            "offer": terms}


def answer(conn, frame):
    """The ack or error that names `frame`, skipping anything else the daemon sends meanwhile."""
    return conn.next_frame(lambda f: frame["messageID"] in (f.get("messageID"), f.get("ref"), f.get("ackedID")))


def run(h):
    past_start(h)
    future_period_ids(h)
    never_approved(h)
    stretched(h)
    impostor(h)
    receipt_rate(h)


def past_start(h):
    """S-PAST: a monthly series offered with a start 400 days back, approved; the payee then asks for every period
    since. The payer accepted each one without its user (the amount within the cap): 14 accepted promises."""
    alice = h.daemon("alice")
    mallory = h.identity("mallory")
    conn = h.connect(alice, mallory, name="gym", capabilities=SUBSCRIBER)
    series = offer(mallory["id"], alice.id, int(time.time()) - 400 * 86400)
    conn.send(series)
    acked = answer(conn, series)
    h.check(acked is not None and acked.get("action") == "ack", "the offer is acknowledged", wire.describe(acked))
    approved = alice.interpay("approve", series["seriesID"], "--peer", mallory["id"])
    h.check(approved.returncode == 0, "alice approves the series", approved.stderr[-300:])
    sid = series["seriesID"]
    for index in range(14):
        frame = wire.request_frame(mallory["id"], alice.id, minor=3000, currency="EUR", memo="gym",
                                   payment_id=period_id(sid, index), series={"seriesID": sid, "index": index})
        conn.send(frame)
        answer(conn, frame)
    time.sleep(0.5)  # the automatic accepts follow the acks
    accepted = ledger_rows(h, "alice", "SELECT count(*) FROM payment WHERE seriesID = ? AND state = 'accepted'",
                           (sid,))[0][0]
    waiting = ledger_rows(h, "alice", "SELECT count(*) FROM payment WHERE seriesID = ? AND state = 'pending'",
                          (sid,))[0][0]
    latest = ledger_rows(h, "alice", "SELECT state FROM payment WHERE id = ?", (period_id(sid, 13),))
    h.check(accepted == 1 and waiting == 13 and latest == [("accepted",)],
            "of the 14 periods due since a start 400 days back, only the latest (13) is accepted without the user "
            "(%d accepted, %d waiting)" % (accepted, waiting))
    conn.close()


def future_period_ids(h):
    """S-PERIOD-ID: bob bills mallory monthly; mallory, the payer, sends requests of its own under the payment IDs
    of the periods to come. Stored, each such period could never be requested: bob's daemon passed over it."""
    bob = h.daemon("bob")
    mallory = h.identity("mallory-payer")
    conn = h.connect(bob, mallory, name="member", capabilities=SUBSCRIBER)
    h.check(bob.wait_for_session(mallory["id"]), "bob lists mallory's session")
    offered = bob.interpay("subscribe", mallory["id"], "30.00", "EUR", "--every", "month", "--json")
    h.check(offered.returncode == 0, "bob offers mallory a monthly subscription", offered.stderr[-300:])
    sid = json.loads(offered.stdout or "{}").get("id", "")
    answers = []
    for index in range(1, 4):
        frame = wire.request_frame(mallory["id"], bob.id, minor=100, currency="EUR", memo="mine now",
                                   payment_id=period_id(sid, index))
        conn.send(frame)
        answers.append(answer(conn, frame))
    refused = [a for a in answers if a is not None and a.get("type") == "error" and a.get("code") == "not-authorized"]
    h.check(len(refused) == 3, "the payer's requests under the IDs of periods 1 to 3 are refused (not-authorized)",
            "; ".join(wire.describe(a) for a in answers))
    taken = ledger_rows(h, "bob", "SELECT count(*) FROM payment WHERE id IN (?, ?, ?)",
                        tuple(period_id(sid, index) for index in range(1, 4)))[0][0]
    h.check(taken == 0, "none of those IDs is stored (%d taken)" % taken)
    conn.close()


def never_approved(h):
    """S-NEVER: offers never approved, each named by a request and then ended. The request kept its link, so the
    ended offer was a row no pruning could remove; with 16 such, every later offer of the peer was refused for good
    (and with 256 of 16 keys, every offer from anyone)."""
    carol = h.daemon("carol")
    mallory = h.identity("mallory-offers")
    conn = h.connect(carol, mallory, name="club", capabilities=SUBSCRIBER)
    for _ in range(16):
        series = offer(mallory["id"], carol.id, int(time.time()) - 86400, count=12)
        conn.send(series)
        answer(conn, series)
        sid = series["seriesID"]
        frame = wire.request_frame(mallory["id"], carol.id, minor=3000, currency="EUR", memo="club",
                                   payment_id=period_id(sid, 0), series={"seriesID": sid, "index": 0})
        conn.send(frame)
        answer(conn, frame)
        end = {"type": "series", "action": "end", "messageID": str(uuid.uuid4()), "seriesID": sid}
        conn.send(end)
        answer(conn, end)
    linked = ledger_rows(h, "carol", "SELECT count(*) FROM payment WHERE seriesID IS NOT NULL")[0][0]
    h.check(linked == 0, "requests naming offers never approved are ordinary ones (%d linked)" % linked)
    late = offer(mallory["id"], carol.id, int(time.time()) + 86400, count=12)
    conn.send(late)
    reply = answer(conn, late)
    h.check(reply is not None and reply.get("type") == "series" and reply.get("action") == "ack",
            "after 16 such offers ended, the next offer is still taken", wire.describe(reply))
    conn.close()


def accepted_periods(h, daemon, sid):
    return ledger_rows(h, daemon, "SELECT count(*) FROM payment WHERE seriesID = ? AND state = 'accepted'",
                       (sid,))[0][0]


def stretched(h):
    """S-STRETCH: a "monthly" offer carrying periodSeconds 1 with a start 300 s back, approved once with --max 30.00;
    the payee then asked for periods 0 to 600, each within the cap, due and later than the last: 601 were accepted
    without the user in 7.5 s (18,030 EUR on a 30 EUR cap), and the offer showed as "30.00 EUR every month".
    A daemon that does not take test periods declines such an offer; one that does (its own configuration) accepts at
    most one period per period of wall time."""
    frank = h.daemon("frank")
    mallory = h.identity("mallory-stretch")
    conn = h.connect(frank, mallory, name="gym", capabilities=SUBSCRIBER)
    series = offer(mallory["id"], frank.id, int(time.time()) - 300, period_seconds=1)
    conn.send(series)
    acked = answer(conn, series)
    h.check(acked is not None and acked.get("action") == "ack" and acked.get("state") == "declined",
            "an offer of 1-second periods is declined by a daemon that does not take test periods",
            wire.describe(acked))
    approved = frank.interpay("approve", series["seriesID"], "--max", "30.00", "--peer", mallory["id"])
    h.check(approved.returncode != 0, "and cannot be approved", approved.stdout[-300:])
    conn.close()

    # Limits high enough that only the standing approval's rules decide (the earlier periods wait for the user).
    grace = h.daemon("grace", config="[limits]\nmax_requests_per_minute = 10000\nmax_pending_per_peer = 10000\n"
                                     "[subscriptions]\naccept_test_periods = true\n")
    mallory = h.identity("mallory-stretch-test")
    conn = h.connect(grace, mallory, name="gym", capabilities=SUBSCRIBER)
    series = offer(mallory["id"], grace.id, int(time.time()) - 300, period_seconds=1)
    sid = series["seriesID"]
    conn.send(series)
    acked = answer(conn, series)
    h.check(acked is not None and acked.get("state") == "offered",
            "a daemon configured to take test periods takes the offer", wire.describe(acked))
    shown = grace.interpay("subscriptions").stdout
    h.check("1 s (test period)" in shown and "month" not in shown,
            "subscriptions shows the real period, not 'month'", shown[-400:])
    began = time.monotonic()
    approved = grace.interpay("approve", sid, "--max", "30.00", "--periods", "10000", "--peer", mallory["id"])
    h.check(approved.returncode == 0, "grace approves it, for 10000 periods", approved.stderr[-300:])
    for index in range(601):
        frame = wire.request_frame(mallory["id"], grace.id, minor=3000, currency="EUR", memo="gym",
                                   payment_id=period_id(sid, index), series={"seriesID": sid, "index": index})
        conn.send(frame)
        answer(conn, frame)
    time.sleep(0.5)  # the automatic accepts follow the acks
    elapsed = time.monotonic() - began
    accepted = accepted_periods(h, "grace", sid)
    # Times are whole seconds: one per second from the first, in every second touched.
    h.check(1 <= accepted <= int(elapsed) + 2,
            "601 requests of 1-second periods in %.1f s: %d accepted without the user (at most one per second)"
            % (elapsed, accepted))
    conn.close()


def impostor(h):
    """S-IMPOSTOR: an unpaired peer calling itself "bob" offers a subscription; `interpay approve` approved it as if it
    were the paired bob's. It now needs the offering peer's ID (--peer), and says so."""
    heidi = h.daemon("heidi")
    mallory = h.identity("mallory-bob")
    conn = h.connect(heidi, mallory, name="bob", capabilities=SUBSCRIBER)
    series = offer(mallory["id"], heidi.id, int(time.time()))
    sid = series["seriesID"]
    conn.send(series)
    answer(conn, series)
    refused = heidi.interpay("approve", sid, "--max", "30.00")
    state = ledger_rows(h, "heidi", "SELECT state FROM series WHERE id = ?", (sid,))
    h.check(refused.returncode != 0 and state == [("offered",)],
            "approving an unpaired peer's offer without --peer fails and leaves it offered (exit %d, %s)"
            % (refused.returncode, state), refused.stdout[-300:])
    h.check("--peer" in refused.stderr and mallory["id"][:7] in refused.stderr,
            "the refusal names the peer's short ID and --peer", refused.stderr[-300:])
    wrong = heidi.interpay("approve", sid, "--max", "30.00", "--peer", "bob")
    h.check(wrong.returncode != 0, "--peer with a name is not an ID", wrong.stdout[-300:])
    approved = heidi.interpay("approve", sid, "--max", "30.00", "--peer", mallory["id"][:7])
    h.check(approved.returncode == 0, "approve --peer with its short ID approves it", approved.stderr[-300:])
    decision = conn.next_frame(lambda f: f.get("type") == "series" and f.get("action") == "approve")
    h.check(decision is not None and decision.get("seriesID") == sid, "the payee gets the approval only then",
            wire.describe(decision))
    conn.close()


def signed_receipt(identity, fields):
    """The receipt text (PROTOCOL.md §17.2) of `fields`, signed with `identity`'s key (the shared helper)."""
    return wire.signed_receipt(identity, fields)


def receipt_rate(h):
    receipt_text(h, "dave", {"rate": "\u001b[1A\u001b[2KAmount    0.01 MXN"}, "tacos")
    receipt_text(h, "erin", {"memo": "tacos \u202e0009 RUE\u202c \u009b8m hidden \u007f"}, "tacos")


def receipt_text(h, name, bent, memo):
    """T-RECEIPT-TEXT: the payee signs its own receipt, with escape sequences in the quote's rate, or a memo other than
    the payment's with a right-to-left override, a C1 CSI and DEL (canonical JSON escapes only C0). Each verified and
    was kept, and `interpay receipt` wrote it as it came: the escapes rewrote the Amount line, the override reordered
    the memo."""
    dave = h.daemon(name)
    mallory = h.identity("mallory-shop-" + name)
    conn = h.connect(dave, mallory, name="shop", capabilities=["receipts"])
    frame = wire.request_frame(mallory["id"], dave.id, minor=1250, currency="MXN", memo=memo)
    conn.send(frame)
    conn.answer_to(frame["messageID"])
    payment = frame["payment"]["id"]
    accepted = dave.interpay("accept", payment)
    h.check(accepted.returncode == 0, "dave accepts mallory's request", accepted.stderr[-300:])
    conn.next_frame(lambda f: f.get("type") == "accept")
    quote = {"amount": "68", "currency": "USD", "rate": "0.054", "ratesAt": "2026-01-01T00:00:00Z"}
    quote.update({key: value for key, value in bent.items() if key == "rate"})
    receipt = signed_receipt(mallory, {
        "type": "interpay-receipt", "version": "1", "paymentID": payment, "payeeID": mallory["id"],
        "payerID": dave.id, "payeeName": "shop", "payerName": "dave", "amount": "1250", "currency": "MXN",
        "memo": bent.get("memo", memo), "acceptedAt": "2026-01-01T00:00:00Z", "settledAt": "2026-01-01T00:01:00Z",
        "quote": quote})
    settle = {"type": "settle", "messageID": str(uuid.uuid4()), "paymentID": payment, "receipt": receipt}
    conn.send(settle)
    conn.answer_to(settle["messageID"])
    printed = ""
    for args in (["receipt", payment, "--format", "text"], ["receipt", payment], ["show", payment]):
        out = dave.interpay(*args)
        printed += out.stdout + out.stderr
    bad = [c for c in printed if ord(c) < 0x20 and c not in "\n" or 0x7F <= ord(c) <= 0x9F
           or c in "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]
    h.check(not bad, "no control or bidi character of a receipt (%s) reaches the terminal" % ", ".join(bent),
            repr(bad[:5]))
    stored = ledger_rows(h, name, "SELECT state, receipt IS NULL FROM payment WHERE id = ?", (payment,))
    h.check(stored == [("settled", 1)],
            "the payment is settled on the payee's word, the receipt (%s) refused" % ", ".join(bent), repr(stored))
    conn.close()
