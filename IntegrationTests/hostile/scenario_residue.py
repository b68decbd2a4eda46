"""What one peer can leave behind (SECURITY.md T-TIME, T-RESIDUE, T-LINK): a time that crashed every later `list`,
answers remembered for frames that changed nothing, a `hello` with an unbounded list, a series link that made every
refused request fail."""

import os
import sqlite3
import time
import uuid

import interpay_wire as wire

DESCRIPTION = "a late series start, repeated decisions, a long capability list, refused requests naming one period"

LATEST_TIME = 253402300799  # 9999-12-31T23:59:59Z, the latest time a frame may carry
REPEATS = 300


def ledger_count(h, daemon, sql):
    database = sqlite3.connect("file:%s?mode=ro" % os.path.join(h.work, daemon, "ledger.sqlite"), uri=True)
    try:
        return database.execute(sql).fetchone()[0]
    finally:
        database.close()


def offer(payee, payer, start):
    return {"type": "series", "action": "offer", "messageID": str(uuid.uuid4()), "seriesID": str(uuid.uuid4()),
            "offer": {"payee": payee, "payer": payer, "amount": {"currency": "EUR", "minorUnits": 3000},
                      "period": "month", "start": start, "count": 12, "timeZone": "Asia/Tokyo",
                      "memo": "gym"}}


def run(h):
    alice = h.daemon("alice")
    mallory = h.identity("mallory")
    conn = h.connect(alice, mallory, name="gym", capabilities=["receipts", "subscriptions"])

    # T-RESIDUE: one request, cancelled; then the same cancel under new message IDs, and the request again. Each was
    # answered and remembered, a row every time, for as long as the payment is kept.
    frame = wire.request_frame(mallory["id"], alice.id, memo="residue")
    conn.send(frame)
    conn.answer_to(frame["messageID"])
    payment = frame["payment"]["id"]
    for index in range(REPEATS):
        cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": payment}
        conn.send(cancel)
        answer = conn.answer_to(cancel["messageID"])
        if answer is None or answer.get("type") != "ack" or answer.get("state") != "cancelled":
            h.check(False, "every repeated cancel is acknowledged cancelled", wire.describe(answer))
            break
    again = dict(frame, messageID=str(uuid.uuid4()))
    conn.send(again)
    answer = conn.answer_to(again["messageID"])
    h.check(answer is not None and answer.get("state") == "cancelled", "the request again is answered cancelled",
            wire.describe(answer))
    rows = ledger_count(h, "alice", "SELECT count(*) FROM seenMessage WHERE paymentID = '%s'" % payment)
    h.check(rows <= 2, "%d repeated cancels leave no row: %d remembered answers for the payment (request, cancel)"
            % (REPEATS, rows))

    # T-RESIDUE: a hello with thousands of capabilities, kept by the daemon for the session and after it.
    flooder = h.connect(alice, h.identity("lister"), hello=False)
    flooder.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "lister",
                  "capabilities": [""] * 20000, "agent": "x"})
    try:
        answer = flooder.next_frame(lambda f: f.get("type") == "error", timeout=5)
    except wire.Closed:
        answer = None
    h.check(answer is not None and wire.refused_field(answer, "capabilities"),
            "a hello with 20,000 capabilities is refused", wire.describe(answer))
    flooder.close()
    conn.close()

    # T-LINK: with accept_from = paired, requests of a peer not paired are stored rejected; the first one kept its
    # series link, so each later one naming the same period broke a unique index, failed and logged an error.
    bob = h.daemon("bob", args=("--accept-from", "paired"))
    link_conn = h.connect(bob, mallory, name="gym", capabilities=["receipts", "subscriptions"])
    offset = bob.log_size()
    link = {"seriesID": str(uuid.uuid4()), "index": 0}
    answers = []
    for _ in range(20):
        frame = wire.request_frame(mallory["id"], bob.id, memo="period", series=link)
        link_conn.send(frame)
        answers.append(link_conn.answer_to(frame["messageID"]))
    errors = [a for a in answers if a is None or a.get("type") != "ack"]
    h.check(not errors, "20 refused requests naming one period are each acknowledged, none failed",
            wire.describe(errors[0]) if errors else "")
    failures = sum(1 for line in bob.log_lines_since(offset) if "could not process a frame" in line)
    h.check(failures == 0, "no step failed (%d 'could not process a frame' lines)" % failures)
    link_conn.close()

    # T-RESIDUE: offer and end, again and again. Only offers waiting for the user were counted, so every ended one
    # stayed, and every `list` read them all.
    conn = h.connect(alice, mallory, name="gym", capabilities=["receipts", "subscriptions"])
    rounds = 40
    for index in range(rounds):
        frame = offer(mallory["id"], alice.id, int(time.time()) + 86400)
        conn.send(frame)
        answer = conn.next_frame(lambda f: frame["messageID"] in (f.get("messageID"), f.get("ref")))
        end = {"type": "series", "action": "end", "messageID": str(uuid.uuid4()), "seriesID": frame["seriesID"]}
        conn.send(end)
        ended = conn.next_frame(lambda f: end["messageID"] in (f.get("messageID"), f.get("ref")))
        if answer is None or ended is None or ended.get("state") != "ended":
            h.check(False, "each offer and its end are acknowledged", wire.describe(answer) + wire.describe(ended))
            break
    kept = ledger_count(h, "alice", "SELECT count(*) FROM series WHERE peerID = '%s'" % mallory["id"])
    h.check(kept <= 16, "%d offers ended by their payee leave at most 16 series rows: %d" % (rounds, kept))
    conn.close()

    # T-TIME, last (before its fix the daemon died here): an offer starting at the largest integer was stored and
    # acknowledged; adding Tokyo's offset to it then trapped the daemon on every `list` or `subscriptions` (and again
    # after each restart, the row being kept).
    conn = h.connect(alice, mallory, name="gym", capabilities=["receipts", "subscriptions"])
    late = offer(mallory["id"], alice.id, 9223372036854775807)
    conn.send(late)
    answer = conn.answer_to(late["messageID"])
    h.check(wire.refused_field(answer),
            "an offer starting after 9999-12-31 is refused as an invalid field", wire.describe(answer))
    last = offer(mallory["id"], alice.id, LATEST_TIME)
    conn.send(last)
    answer = conn.next_frame(lambda f: last["messageID"] in (f.get("messageID"), f.get("ref")))
    h.check(answer is not None and answer.get("type") == "series" and answer.get("action") == "ack",
            "an offer starting at 9999-12-31T23:59:59 is acknowledged", wire.describe(answer))
    for command in (["list"], ["subscriptions"]):
        out = alice.interpay(*command)
        h.check(out.returncode == 0 and alice.alive(), "interpay %s answers, the daemon alive" % command[0],
                "exit %d: %s" % (out.returncode, out.stderr[-300:]))

    conn.close()
