"""Frames of a capability the peer did not announce (SECURITY.md T-CAPS): a peer whose hello names neither `receipts`
nor `subscriptions` sent `paid`, `settle` and `series` frames, and the daemon processed them; an offer stored from it
was approved with exit 0 although the approval could never be delivered; `received` settled towards a payer that
could never be told; a request linked to an approved series was accepted without the user on such a session."""

import json
import subprocess
import time
import uuid

import interpay_wire as wire

DESCRIPTION = ("paid, settle and series frames from a peer without the capability; approve, received and standing "
               "approvals towards it")

BOTH = ["receipts", "subscriptions"]
PERIOD_NAMESPACE = uuid.UUID("6b3f1c52-8e2a-4d7b-9a61-0c4e2f8813d5")


def state(daemon, payment):
    out = daemon.interpay("show", payment, "--json")
    return json.loads(out.stdout).get("state") if out.returncode == 0 else "show failed: " + out.stderr


def series_of(daemon, sid):
    out = daemon.interpay("subscriptions", "--json")
    return [s for s in json.loads(out.stdout or "{}").get("series", []) if s["id"] == sid]


def unknown_type(answer, message_id):
    return (answer is not None and answer.get("type") == "error" and answer.get("code") == "unknown-type"
            and answer.get("ref") == message_id)


def reconnect(h, daemon, identity, conn, capabilities):
    """A new session of the same key with other capabilities (the newer session of one dialer replaces the older)."""
    conn.close()
    h.check(daemon.wait_for_session(identity["id"], up=False), "the daemon sees the old session end")
    fresh = h.connect(daemon, identity, name="old-shop", capabilities=capabilities)
    h.check(daemon.wait_for_session(identity["id"]), "the daemon lists the new session")
    return fresh


def accepted_by_peer(h, alice, conn, peer):
    """Alice asks `peer` to pay; the peer acknowledges the request and accepts it; returns the payment ID."""
    sent = alice.interpay("send", peer["id"], "12.50", "MXN", "--memo", "old peer", "--json")
    payment = json.loads(sent.stdout or "{}").get("id", "")
    request = conn.next_frame(lambda f: f.get("type") == "request")
    conn.send({"type": "ack", "ackedID": request["messageID"], "paymentID": payment, "state": "pending"})
    accept = {"type": "accept", "messageID": str(uuid.uuid4()), "paymentID": payment}
    conn.send(accept)
    conn.answer_to(accept["messageID"])
    return payment


def run(h):
    alice = h.daemon("alice")
    mallory = h.identity("mallory")
    conn = h.connect(alice, mallory, name="old-shop", capabilities=[])
    h.check(alice.wait_for_session(mallory["id"]), "alice lists the session")

    # `paid` from a payer that announced no `receipts`.
    payment = accepted_by_peer(h, alice, conn, mallory)
    paid = {"type": "paid", "messageID": str(uuid.uuid4()), "paymentID": payment, "method": "cash"}
    conn.send(paid)
    answer = conn.answer_to(paid["messageID"])
    h.check(unknown_type(answer, paid["messageID"]),
            "'paid' from a peer without 'receipts' is answered unknown-type", wire.describe(answer))
    h.check(state(alice, payment) == "accepted", "the payment stays accepted (%s)" % state(alice, payment))

    # `received` towards that payer: it could never be told, nor get its receipt.
    received = alice.interpay("received", payment)
    h.check(received.returncode != 0 and "receipts" in received.stdout + received.stderr,
            "'received' towards a payer without receipts fails (exit %d), naming the capability"
            % received.returncode, received.stdout + received.stderr)
    h.check(state(alice, payment) == "accepted", "nothing was settled (%s)" % state(alice, payment))

    # `settle` from a payee that announced no `receipts`.
    request = wire.request_frame(mallory["id"], alice.id, memo="old payee")
    conn.send(request)
    conn.answer_to(request["messageID"])
    theirs = request["payment"]["id"]
    decision = subprocess.Popen([alice.cli, "accept", theirs, "--socket", alice.socket_path],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    accept = conn.next_frame(lambda f: f.get("type") == "accept")
    if accept is not None:
        conn.send({"type": "ack", "ackedID": accept["messageID"], "paymentID": theirs, "state": "accepted"})
    decision.communicate(timeout=30)
    settle = {"type": "settle", "messageID": str(uuid.uuid4()), "paymentID": theirs}
    conn.send(settle)
    answer = conn.answer_to(settle["messageID"])
    h.check(unknown_type(answer, settle["messageID"]),
            "'settle' from a peer without 'receipts' is answered unknown-type", wire.describe(answer))
    h.check(state(alice, theirs) == "accepted", "alice's payment stays accepted (%s)" % state(alice, theirs))

    # A `series` offer from a peer that announced no `subscriptions`.
    offer = {"type": "series", "action": "offer", "messageID": str(uuid.uuid4()), "seriesID": str(uuid.uuid4()),
             "offer": {"payee": mallory["id"], "payer": alice.id, "amount": {"currency": "EUR", "minorUnits": 3000},
                       "period": "month", "start": int(time.time()), "timeZone": "UTC", "memo": "gym"}}
    conn.send(offer)
    answer = conn.answer_to(offer["messageID"])
    h.check(unknown_type(answer, offer["messageID"]),
            "a series offer from a peer without 'subscriptions' is answered unknown-type", wire.describe(answer))
    h.check(series_of(alice, offer["seriesID"]) == [], "the offer is not stored")

    # An offer made while the peer announced `subscriptions`, approved once the peer's session no longer does (with
    # --peer: the peer is not paired, S-IMPOSTOR).
    conn = reconnect(h, alice, mallory, conn, BOTH)
    offer = dict(offer, messageID=str(uuid.uuid4()), seriesID=str(uuid.uuid4()))
    conn.send(offer)
    # A series frame is acknowledged by a series ack carrying the frame's own messageID.
    answer = conn.next_frame(lambda f: offer["messageID"] in (f.get("messageID"), f.get("ref")))
    h.check(answer is not None and answer.get("action") == "ack", "with the capability the offer is taken",
            wire.describe(answer))
    conn = reconnect(h, alice, mallory, conn, [])
    approved = alice.interpay("approve", offer["seriesID"], "--peer", mallory["id"][:7])
    h.check(approved.returncode != 0 and "subscriptions" in approved.stdout + approved.stderr,
            "approving it on a session without 'subscriptions' fails (exit %d), naming the capability"
            % approved.returncode, approved.stdout + approved.stderr)
    kept = series_of(alice, offer["seriesID"])
    h.check([s["state"] for s in kept] == ["offered"], "the series stays offered: %s" % [s["state"] for s in kept])

    # A series approved with the capability; its period's request comes on a session without it.
    conn = reconnect(h, alice, mallory, conn, BOTH)
    approved = alice.interpay("approve", offer["seriesID"], "--peer", mallory["id"][:7])
    h.check(approved.returncode == 0, "with the capability back, alice approves the series", approved.stderr[-300:])
    conn = reconnect(h, alice, mallory, conn, [])
    sid = offer["seriesID"]
    period = str(uuid.uuid5(PERIOD_NAMESPACE, "%s/0" % sid))
    frame = wire.request_frame(mallory["id"], alice.id, minor=3000, currency="EUR", memo="gym", payment_id=period,
                               series={"seriesID": sid, "index": 0})
    conn.send(frame)
    answer = conn.answer_to(frame["messageID"])
    time.sleep(0.5)  # an automatic accept follows the ack
    shown = json.loads(alice.interpay("show", period, "--json").stdout or "{}")
    h.check(answer is not None and shown.get("state") == "pending" and shown.get("series") is None,
            "a period's request on a session without 'subscriptions' is an ordinary request that waits for the user "
            "(%s, series %s)" % (shown.get("state"), shown.get("series")), wire.describe(answer))
    conn.close()
