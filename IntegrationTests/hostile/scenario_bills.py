"""Split bills and a hostile peer (SECURITY.md T-BILL): a bill's ID reaches every payer whose daemon announces
`bills`, so a payer learns it. A peer speaking the wire protocol with its own key tries to use it: its own request
naming the victim's bill (to join it, or to be shown as part of it), a bill member beyond 32 payers, decisions
replayed to count twice, a cancel of a share from the payer's side, and a bill member on a session that did not
announce `bills`."""

import json
import time
import uuid

import interpay_wire as wire

DESCRIPTION = ("a share naming the victim's bill, more than 32 payers, replayed decisions, a payer's cancel, a bill "
               "member without the capability")

WITH_BILLS = ["receipts", "bills"]


def bill_of(daemon, bill_id):
    out = daemon.interpay("bills", "--json")
    return next((b for b in json.loads(out.stdout or "{}").get("bills", []) if b["id"] == bill_id), None)


def shown(daemon, payment):
    return json.loads(daemon.interpay("show", payment, "--json").stdout or "{}")


def run(h):
    alice = h.daemon("alice")
    mallory, trudy = h.identity("mallory"), h.identity("trudy")
    conn = h.connect(alice, mallory, name="mallory", capabilities=WITH_BILLS)
    other = h.connect(alice, trudy, name="trudy", capabilities=WITH_BILLS)
    h.check(alice.wait_for_session(mallory["id"]) and alice.wait_for_session(trudy["id"]), "alice lists both sessions")

    split = alice.interpay("split", "%s,%s" % (mallory["id"][:7], trudy["id"][:7]), "20.00", "EUR", "--memo", "pizza",
                           "--json")
    bill = json.loads(split.stdout or "{}")
    h.check(split.returncode == 0 and len(bill.get("shares", [])) == 2, "alice splits 20.00 between mallory and trudy",
            split.stderr[-300:])
    share = conn.next_frame(lambda f: f.get("type") == "request")
    other_share = other.next_frame(lambda f: f.get("type") == "request")
    h.check(share is not None and share["payment"].get("bill", {}).get("billID") == bill.get("id"),
            "mallory's share names the bill (so mallory knows its ID)", wire.describe(share))
    for c, s in ((conn, share), (other, other_share)):
        if s is not None:
            c.send({"type": "ack", "ackedID": s["messageID"], "paymentID": s["payment"]["id"], "state": "pending"})

    # Mallory's own request naming alice's bill: an ordinary request of mallory's, never a share of alice's bill.
    forged = wire.request_frame(mallory["id"], alice.id, minor=1000_00, currency="EUR", memo="pizza",
                                bill={"billID": bill.get("id"), "payers": 2})
    conn.send(forged)
    answer = conn.answer_to(forged["messageID"])
    h.check(answer is not None and answer.get("type") == "ack", "alice takes mallory's request as a request",
            wire.describe(answer))
    after = bill_of(alice, bill.get("id")) or {}
    h.check([s["id"] for s in after.get("shares", [])] == [s["id"] for s in bill.get("shares", [])]
            and after.get("total") == "20.00" and after.get("state") == "open",
            "alice's bill keeps its two shares and its total: %s" % {k: after.get(k) for k in ("state", "total")})
    theirs = shown(alice, forged["payment"]["id"])
    h.check(theirs.get("direction") == "in" and (theirs.get("bill") or {}).get("id") == bill.get("id"),
            "the request is mallory's, linked only to mallory's own claim (%s)" % theirs.get("bill"))

    # More than 32 payers.
    big = wire.request_frame(mallory["id"], alice.id, minor=1_00, currency="EUR",
                             bill={"billID": str(uuid.uuid4()), "payers": 40})
    conn.send(big)
    answer = conn.answer_to(big["messageID"])
    h.check(answer is not None and answer.get("type") == "error" and answer.get("code") == "malformed-frame",
            "a bill of 40 payers is malformed-frame", wire.describe(answer))
    h.check(shown(alice, big["payment"]["id"]) == {}, "and is not stored")

    # Mallory accepts its share, then replays the accept: it counts once.
    accept = {"type": "accept", "messageID": str(uuid.uuid4()), "paymentID": share["payment"]["id"]}
    conn.send(accept)
    first = conn.answer_to(accept["messageID"])
    conn.send(accept)
    again = conn.answer_to(accept["messageID"])
    renewed = dict(accept, messageID=str(uuid.uuid4()))
    conn.send(renewed)
    conn.answer_to(renewed["messageID"])
    state = bill_of(alice, bill.get("id")) or {}
    h.check(first == again and state.get("accepted") == 1 and state.get("collected") == "10.00",
            "a replayed accept counts once: %s" % {k: state.get(k) for k in ("accepted", "collected", "left")})

    # A cancel from the payer's side of trudy's share (mallory is no payee of it) and of its own.
    for payment in (other_share["payment"]["id"] if other_share else str(uuid.uuid4()), share["payment"]["id"]):
        cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": payment}
        conn.send(cancel)
        answer = conn.answer_to(cancel["messageID"])
        h.check(answer is not None and answer.get("type") == "error"
                and answer.get("code") in ("not-authorized", "unknown-payment"),
                "a cancel of a share from a payer is refused", wire.describe(answer))
    state = bill_of(alice, bill.get("id")) or {}
    h.check([s["state"] for s in state.get("shares", [])] == ["accepted", "pending"],
            "the shares stay accepted and pending: %s" % [s["state"] for s in state.get("shares", [])])
    conn.close()

    # A bill member on a session without `bills`: a member this session does not know, ignored.
    h.check(alice.wait_for_session(mallory["id"], up=False), "alice sees the session end")
    plain = h.connect(alice, mallory, name="mallory", capabilities=["receipts"])
    h.check(alice.wait_for_session(mallory["id"]), "alice lists the new session")
    member = wire.request_frame(mallory["id"], alice.id, minor=5_00, currency="EUR",
                                bill={"billID": str(uuid.uuid4()), "payers": 3})
    plain.send(member)
    plain.answer_to(member["messageID"])
    time.sleep(0.2)
    h.check(shown(alice, member["payment"]["id"]).get("bill", "missing") is None,
            "a request with a bill member on a session without 'bills' is a plain request")
    plain.close()
    other.close()
