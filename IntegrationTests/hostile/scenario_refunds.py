"""Refunds from a hostile peer (SECURITY.md T-REFUND): a `refund` frame is the payee's word that it gave money back,
and the payer's ledger stores it as a payment linked to its own. A peer speaking the wire protocol with its own key
tries to have refunds stored that no conforming payee could give: more than what is left, from the payer's side, of
a payment it never accepted or never shared, more than 16 for one payment, replays under the same and under new
message IDs, on a session that did not announce `refunds`, and with a receipt that is not this refund's."""

import json
import subprocess
import time
import uuid

import interpay_wire as wire

DESCRIPTION = ("refund frames beyond what is left, from the payer, of unaccepted or unknown payments, beyond 16, "
               "replayed, without the capability, with a receipt of other terms")

BOTH = ["receipts", "refunds"]


def refunds_of(daemon, payment):
    """The refunds daemon's ledger links to `payment`: (id, minorUnits, receipt kept)."""
    out = daemon.interpay("list", "--json", "--limit", "100000")
    return sorted((p["id"], p["minorUnits"], p["receipt"]) for p in json.loads(out.stdout or "{}").get("payments", [])
                  if p.get("refundOf") == payment)


def refund_frame(payment, minor, refund_id=None, message_id=None, currency="EUR", **extra):
    frame = {"type": "refund", "messageID": message_id or str(uuid.uuid4()), "paymentID": refund_id or str(uuid.uuid4()),
             "refundOf": payment, "amount": {"currency": currency, "minorUnits": minor}, "memo": "probe",
             "createdAt": int(time.time())}
    frame.update(extra)
    return frame


def refused(answer, message_id, code):
    return (answer is not None and answer.get("type") == "error" and answer.get("code") == code
            and answer.get("ref") == message_id)


def acked_settled(answer, message_id):
    return answer is not None and answer.get("type") == "ack" and answer.get("ackedID") == message_id \
        and answer.get("state") == "settled"


def accepted_request(alice, conn, mallory, minor):
    """Mallory asks alice for `minor` cents of EUR and alice accepts: a payment mallory could refund."""
    request = wire.request_frame(mallory["id"], alice.id, minor=minor, currency="EUR", memo="sale")
    conn.send(request)
    conn.answer_to(request["messageID"])
    payment = request["payment"]["id"]
    decision = subprocess.Popen([alice.cli, "accept", payment, "--socket", alice.socket_path],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    accept = conn.next_frame(lambda f: f.get("type") == "accept")
    if accept is not None:
        conn.send({"type": "ack", "ackedID": accept["messageID"], "paymentID": payment, "state": "accepted"})
    decision.communicate(timeout=30)
    return payment


def run(h):
    alice = h.daemon("alice")
    mallory = h.identity("mallory")
    conn = h.connect(alice, mallory, name="shop", capabilities=BOTH)
    h.check(alice.wait_for_session(mallory["id"]), "alice lists the session")

    sale = accepted_request(alice, conn, mallory, 30_00)
    shown = json.loads(alice.interpay("show", sale, "--json").stdout or "{}")
    h.check(shown.get("state") == "accepted", "alice accepted mallory's 30.00 EUR (%s)" % shown.get("state"))

    # More than the payment.
    big = refund_frame(sale, 30_01)
    conn.send(big)
    h.check(refused(conn.answer_to(big["messageID"]), big["messageID"], "not-authorized"),
            "a refund of 30.01 of a 30.00 payment is refused not-authorized")
    # Another currency.
    other = refund_frame(sale, 1_00, currency="USD")
    conn.send(other)
    h.check(refused(conn.answer_to(other["messageID"]), other["messageID"], "not-authorized"),
            "a refund in another currency is refused")
    h.check(refunds_of(alice, sale) == [], "nothing was stored")

    # A genuine refund, then its replays.
    good = refund_frame(sale, 10_00)
    conn.send(good)
    first = conn.answer_to(good["messageID"])
    h.check(acked_settled(first, good["messageID"]), "a refund of 10.00 is acknowledged settled", wire.describe(first))
    conn.send(good)
    again = conn.answer_to(good["messageID"])
    h.check(again == first, "the same frame again gets the same ack", wire.describe(again))
    renewed = dict(good, messageID=str(uuid.uuid4()), amount={"currency": "EUR", "minorUnits": 20_00})
    conn.send(renewed)
    answer = conn.answer_to(renewed["messageID"])
    h.check(acked_settled(answer, renewed["messageID"]),
            "the same refund ID under a new message ID is answered with its state", wire.describe(answer))
    kept = refunds_of(alice, sale)
    h.check([m for _, m, _ in kept] == [10_00], "one refund of 10.00 is stored, its terms unchanged: %s" % kept)

    # What is left is 20.00: 20.01 more is refused, even split over frames.
    over = refund_frame(sale, 20_01)
    conn.send(over)
    h.check(refused(conn.answer_to(over["messageID"]), over["messageID"], "not-authorized"),
            "20.01 more (beyond what is left) is refused")

    # At most 16 refunds for one payment.
    answers = []
    for _ in range(16):
        small = refund_frame(sale, 1)
        conn.send(small)
        answers.append((small["messageID"], conn.answer_to(small["messageID"])))
    settled = sum(acked_settled(a, m) for m, a in answers)
    h.check(settled == 15 and refused(answers[-1][1], answers[-1][0], "not-authorized"),
            "15 more refunds are taken, the 17th is refused (%d taken)" % settled)
    h.check(len(refunds_of(alice, sale)) == 16, "16 refunds are stored")

    # From the payer's side: alice asks mallory to pay, mallory accepts and then "refunds" alice's payment.
    sent = alice.interpay("send", mallory["id"][:7], "5.00", "EUR", "--json")
    mine = json.loads(sent.stdout or "{}").get("id", "")
    request = conn.next_frame(lambda f: f.get("type") == "request")
    if request is not None:
        conn.send({"type": "ack", "ackedID": request["messageID"], "paymentID": mine, "state": "pending"})
    accept = {"type": "accept", "messageID": str(uuid.uuid4()), "paymentID": mine}
    conn.send(accept)
    conn.answer_to(accept["messageID"])
    backwards = refund_frame(mine, 1_00)
    conn.send(backwards)
    h.check(refused(conn.answer_to(backwards["messageID"]), backwards["messageID"], "not-authorized"),
            "a refund from the payment's payer is refused not-authorized")
    h.check(refunds_of(alice, mine) == [], "nothing was stored for it")

    # Of a payment alice never accepted, and of one she does not share with mallory.
    pending = wire.request_frame(mallory["id"], alice.id, minor=5_00, currency="EUR")
    conn.send(pending)
    conn.answer_to(pending["messageID"])
    early = refund_frame(pending["payment"]["id"], 1_00)
    conn.send(early)
    h.check(refused(conn.answer_to(early["messageID"]), early["messageID"], "not-authorized"),
            "a refund of a request alice never accepted is refused")
    stranger = refund_frame(str(uuid.uuid4()), 1_00)
    conn.send(stranger)
    h.check(refused(conn.answer_to(stranger["messageID"]), stranger["messageID"], "unknown-payment"),
            "a refund of a payment alice does not know is unknown-payment")
    taken = refund_frame(sale, 1, refund_id=sale)
    conn.send(taken)
    answer = conn.answer_to(taken["messageID"])
    h.check(answer is not None and answer.get("type") == "error", "a refund whose ID is the payment's own is refused",
            wire.describe(answer))

    # A receipt that is not this refund's: the refund is the payee's word; its receipt is not kept.
    second = accepted_request(alice, conn, mallory, 8_00)
    refund_id = str(uuid.uuid4())
    lie = wire.signed_receipt(mallory, {
        "type": "interpay-receipt", "version": "1", "kind": "refund", "refundOf": second, "paymentID": refund_id,
        "payeeID": mallory["id"], "payeeName": "shop", "payerID": alice.id, "payerName": "alice",
        "amount": "80000", "currency": "EUR", "memo": "probe", "acceptedAt": wire.iso_time(time.time() - 60),
        "settledAt": wire.iso_time(time.time())})
    with_lie = refund_frame(second, 8_00, refund_id=refund_id, receipt=lie)
    conn.send(with_lie)
    h.check(acked_settled(conn.answer_to(with_lie["messageID"]), with_lie["messageID"]),
            "a refund with a receipt of other terms is taken (the payee's word)")
    h.check(refunds_of(alice, second) == [(refund_id, 8_00, False)],
            "its receipt (800.00 EUR signed for 8.00) is not kept: %s" % refunds_of(alice, second))
    receipt = alice.interpay("receipt", refund_id)
    h.check(receipt.returncode == 4 and "refused" in receipt.stdout + receipt.stderr,
            "interpay receipt says the refund's receipt was refused, and why (exit %d)" % receipt.returncode,
            (receipt.stdout + receipt.stderr)[-300:])
    conn.close()

    # On a session that did not announce `refunds`.
    h.check(alice.wait_for_session(mallory["id"], up=False), "alice sees the session end")
    plain = h.connect(alice, mallory, name="shop", capabilities=["receipts"])
    h.check(alice.wait_for_session(mallory["id"]), "alice lists the new session")
    unannounced = refund_frame(second, 1_00)
    plain.send(unannounced)
    h.check(refused(plain.answer_to(unannounced["messageID"]), unannounced["messageID"], "unknown-type"),
            "a refund on a session without 'refunds' is unknown-type")
    h.check(len(refunds_of(alice, second)) == 1, "nothing more was stored")
    plain.close()
