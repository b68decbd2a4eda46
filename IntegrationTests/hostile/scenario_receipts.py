"""A payee that signs receipts of its own terms (SECURITY.md T-RECEIPT-TERMS): the payer kept, and showed as verified,
receipts settled in 2019 and accepted in 2030, with a method and reference the payer never sent, or naming another
payer. Each verified (the payee's key signed it) and was kept; `show` and `receipt` said nothing of a refusal."""

import json
import subprocess
import time
import uuid

import interpay_wire as wire

DESCRIPTION = "receipts with the payee's own times, method, reference or payer name; an honest one still kept"


def run(h):
    dave = h.daemon("dave")
    mallory = h.identity("mallory-shop")
    conn = h.connect(dave, mallory, name="shop", capabilities=["receipts"])
    now = int(time.time())
    cases = [
        ("times of the payee's choosing (settled 2019, accepted 2030)",
         {"acceptedAt": "2030-01-01T00:00:00Z", "settledAt": "2019-01-01T00:00:00Z"}, "accepted after"),
        ("settled after it arrived", {"settledAt": wire.iso_time(now + 86400)}, "settled after"),
        ("accepted before the payer accepted", {"acceptedAt": wire.iso_time(now - 86400)}, "accepted before"),
        ("a method and reference the payer never sent", {"method": "cash", "reference": "SPEI 9999"},
         "method or reference"),
        ("another payer name", {"payerName": "carol"}, "names the payer"),
    ]
    for what, bent, reason in cases:
        payment = settled(h, dave, mallory, conn, bent)
        shown = json.loads(dave.interpay("show", payment, "--json").stdout or "{}")
        h.check(shown.get("state") == "settled" and shown.get("receipt") is False
                and reason in (shown.get("receiptRefused") or ""),
                "a receipt with %s is refused, and show --json says why" % what,
                "receipt %s, receiptRefused %r" % (shown.get("receipt"), shown.get("receiptRefused")))
        text = dave.interpay("show", payment)
        h.check("refused: " in text.stdout, "show says the receipt was refused", text.stdout[-400:])
        out = dave.interpay("receipt", payment)
        h.check(out.returncode == 4 and "refused" in out.stdout + out.stderr,
                "interpay receipt exits 4 saying the receipt was refused (exit %d)" % out.returncode,
                out.stdout[-200:] + out.stderr[-300:])

    payment = settled(h, dave, mallory, conn, {})
    shown = json.loads(dave.interpay("show", payment, "--json").stdout or "{}")
    h.check(shown.get("receipt") is True and shown.get("receiptRefused") is None,
            "a receipt stating the payment as the payer holds it is kept",
            "receipt %s, receiptRefused %r" % (shown.get("receipt"), shown.get("receiptRefused")))
    conn.close()


def settled(h, dave, mallory, conn, bent):
    """Mallory asks dave to pay; dave accepts and marks it paid (transfer, REF-1); mallory settles it with a receipt
    of its own making: the payment's true terms with `bent` over them. Returns the payment ID."""
    frame = wire.request_frame(mallory["id"], dave.id, minor=1250, currency="MXN", memo="tacos")
    conn.send(frame)
    conn.answer_to(frame["messageID"])
    payment = frame["payment"]["id"]
    for command, kind, acked in ((["accept"], "accept", "accepted"),
                                 (["paid", "--method", "transfer", "--reference", "REF-1"], "paid", "paid")):
        cli = subprocess.Popen([dave.cli, command[0], payment, *command[1:], "--socket", dave.socket_path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        got = conn.next_frame(lambda f, kind=kind: f.get("type") == kind and f.get("paymentID") == payment)
        if got is not None:
            conn.send({"type": "ack", "ackedID": got["messageID"], "paymentID": payment, "state": acked})
        out, err = cli.communicate(timeout=30)
        h.check(cli.returncode == 0, "dave: %s" % " ".join(command), out + err)
    now = int(time.time())
    terms = {"type": "interpay-receipt", "version": "1", "paymentID": payment, "payeeID": mallory["id"],
             "payerID": dave.id, "payeeName": "shop", "payerName": "dave", "amount": "1250", "currency": "MXN",
             "memo": "tacos", "acceptedAt": wire.iso_time(now - 1), "settledAt": wire.iso_time(now),
             "method": "transfer", "reference": "REF-1"}
    terms.update(bent)
    settle = {"type": "settle", "messageID": str(uuid.uuid4()), "paymentID": payment,
              "receipt": wire.signed_receipt(mallory, terms)}
    conn.send(settle)
    answer = conn.answer_to(settle["messageID"])
    h.check(answer is not None and answer.get("state") == "settled", "the settle is acknowledged settled",
            wire.describe(answer))
    return payment
