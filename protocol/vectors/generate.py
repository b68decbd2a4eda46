#!/usr/bin/env python3
"""Generate protocol/vectors/valid.json, invalid.json, receipts.json and discovery.json (InterPay wire v1).

Deterministic: no clock, no randomness (receipts are signed with RFC 6979 deterministic ECDSA, which needs the
`cryptography` package). UUIDs are derived from fixed labels, peer IDs from
sha256(b"alice") / sha256(b"bob") (test values, not real keys).
Usage:
    python3 protocol/vectors/generate.py          # write both files
    python3 protocol/vectors/generate.py --check  # exit 1 if the committed files differ
"""
import base64
import hashlib
import json
import os
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_FRAME = 65536
INT63 = 9223372036854775807
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


# ---------------------------------------------------------------- helpers

def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def framed(body):
    return len(body).to_bytes(4, "big") + body


def luhn32(chunk):
    factor, total = 2, 0
    for ch in reversed(chunk):
        addend = factor * B32.index(ch)
        factor = 1 if factor == 2 else 2
        total += addend // 32 + addend % 32
    return B32[(32 - total % 32) % 32]


def peer_id_text(id_bytes):
    assert len(id_bytes) == 32
    b32 = base64.b32encode(id_bytes).decode("ascii").rstrip("=")
    assert len(b32) == 52
    s = "".join(b32[i:i + 13] + luhn32(b32[i:i + 13]) for i in range(0, 52, 13))
    return "-".join(s[i:i + 7] for i in range(0, 56, 7))


def test_uuid(label):
    """Deterministic lowercase version-4-shaped UUID derived from a label."""
    return str(uuid.UUID(bytes=hashlib.sha256(label.encode()).digest()[:16], version=4))


ALICE = peer_id_text(hashlib.sha256(b"alice").digest())
BOB = peer_id_text(hashlib.sha256(b"bob").digest())
IDS_NOTE = ("Peer IDs are test values: ALICE = text form of sha256(b\"alice\"), BOB = text form of "
            "sha256(b\"bob\") used as the 32 id bytes.")

T0 = 1795000000          # createdAt used throughout
T_EXP = T0 + 900         # default lifetime: 15 minutes

PAY = test_uuid("payment-1")
MSG_REQ = test_uuid("message-request-1")
MSG_CANCEL = test_uuid("message-cancel-1")
MSG_ACCEPT = test_uuid("message-accept-1")
MSG_REJECT = test_uuid("message-reject-1")
MSG_PAID = test_uuid("message-paid-1")
MSG_SETTLE = test_uuid("message-settle-1")
MSG_SERIES = test_uuid("message-series-1")
MSG_REFUND = test_uuid("message-refund-1")
REFUND = test_uuid("refund-1")
BILL = test_uuid("bill-1")
SERIES = test_uuid("series-1")
SERIES_NAMESPACE = uuid.UUID("6b3f1c52-8e2a-4d7b-9a61-0c4e2f8813d5")
PAIRING = test_uuid("pairing-1")
PAIRING_PEER = test_uuid("pairing-2")


def payment(amount, memo="Tacos al pastor", category=None, pid=PAY, payee=ALICE, payer=BOB,
            created=T0, expires=T_EXP):
    p = {"id": pid, "payee": payee, "payer": payer, "amount": amount, "memo": memo,
         "createdAt": created, "expiresAt": expires}
    if category is not None:
        p["category"] = category
    return p


def request(pay, msg=MSG_REQ):
    return {"type": "request", "messageID": msg, "payment": pay}


def hello(**kw):
    h = {"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "Alice's MacBook",
         "capabilities": [], "agent": "interpayd/0.1.0"}
    h.update(kw)
    return h


def ack(acked, state, reason=None, pid=PAY):
    a = {"type": "ack", "ackedID": acked, "paymentID": pid, "state": state}
    if reason is not None:
        a["reasonCode"] = reason
    return a


def series_offer(**changes):
    o = {"payee": ALICE, "payer": BOB, "amount": {"currency": "EUR", "minorUnits": 3000}, "period": "month",
         "start": T0, "count": 12, "timeZone": "Europe/Berlin", "memo": "Gym, monthly", "category": "sport"}
    for k, val in changes.items():
        if val is None:
            o.pop(k, None)
        else:
            o[k] = val
    return o


def series(action, **members):
    f = {"type": "series", "action": action, "messageID": MSG_SERIES, "seriesID": SERIES}
    f.update(members)
    return f


def mxn(units=1250):
    return {"currency": "MXN", "minorUnits": units}


# ---------------------------------------------------------------- receipts (§17)

def p256_key(label):
    """A test P-256 key whose private scalar is sha256(label)."""
    from cryptography.hazmat.primitives.asymmetric import ec
    return ec.derive_private_key(int.from_bytes(hashlib.sha256(label).digest(), "big"), ec.SECP256R1())


def receipt_key():
    return p256_key(b"receipt-payee")


def spki(key):
    from cryptography.hazmat.primitives import serialization
    return key.public_key().public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


def sign_receipt(terms, key):
    """The receipt text: canonical(terms + signature), the signature r || s over canonical(terms)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    der = key.sign(canonical(terms), ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    r, s_ = decode_dss_signature(der)
    signature = r.to_bytes(32, "big") + s_.to_bytes(32, "big")
    return canonical(dict(terms, signature=signature.hex())).decode("utf-8")


def receipt_terms(key, **changes):
    public = spki(key)
    terms = {
        "type": "interpay-receipt", "version": "1", "paymentID": PAY,
        "payeeID": peer_id_text(hashlib.sha256(public).digest()), "payeeName": "Café \"Ana\"",
        "payerID": BOB, "payerName": "Bob", "amount": "1250", "currency": "MXN", "memo": "Tacos al pastor",
        "category": "food", "acceptedAt": "2026-11-18T08:13:20Z", "settledAt": "2026-11-18T08:30:00Z",
        "method": "transfer", "reference": "SPEI 0042",
        "quote": {"amount": "62", "currency": "EUR", "rate": "0.0496", "ratesAt": "2026-11-18T06:00:00Z"},
        "payeeKey": public.hex(),
    }
    terms.update(changes)
    return {k: v for k, v in terms.items() if v is not None}


def refund_terms(key):
    """The terms of a refund receipt: 5.00 MXN of PAY given back (§17.1)."""
    return receipt_terms(key, paymentID=REFUND, refundOf=PAY, kind="refund", amount="500",
                         memo="one taco was missing", category=None, method=None, reference=None, quote=None,
                         settledAt="2026-11-18T09:00:00Z")


def refund_receipt(key):
    return sign_receipt(refund_terms(key), key)


def receipt_vectors():
    key = receipt_key()
    other = p256_key(b"receipt-other")
    v = []

    def add(name, description, text, error=None):
        entry = {"name": name, "description": description, "receipt": text}
        if error is None:
            entry["valid"] = True
        else:
            entry["valid"] = False
            entry["error"] = error
        v.append(entry)

    good = sign_receipt(receipt_terms(key), key)
    add("receipt-valid", "A settled payment's receipt with every optional member (category, method, reference, "
        "quote), signed by the payee key sha256(b\"receipt-payee\") as a P-256 scalar. Verifies.", good)
    add("receipt-valid-minimal", "A receipt without the optional members. Verifies.",
        sign_receipt(receipt_terms(key, category=None, method=None, reference=None, quote=None, memo=""), key))
    add("receipt-amount-changed", "The valid receipt with the amount changed to 9250 after signing: still "
        "canonical, but the signature does not verify.", good.replace('"amount":"1250"', '"amount":"9250"'),
        "bad-signature")
    add("receipt-not-canonical", "The valid receipt with a space after one comma: the same members, but not the "
        "signed bytes.", good.replace('","amount"', '", "amount"', 1), "not-canonical")
    add("receipt-key-not-payee", "Signed correctly by another key that is in payeeKey, but payeeID names the test "
        "payee: the key does not hash to the payee ID.",
        sign_receipt(receipt_terms(other, payeeID=receipt_terms(key)["payeeID"]), other), "key-mismatch")
    add("receipt-missing-member", "A receipt without settledAt.",
        sign_receipt(receipt_terms(key, settledAt=None), key), "malformed")
    add("receipt-refund-valid", "A refund receipt (kind refund, §17.1): 5.00 MXN of payment PAY given back, signed "
        "by the refunding payee's key. Verifies.", refund_receipt(key))
    add("receipt-refund-without-refund-of", "A receipt of kind refund without refundOf.",
        sign_receipt({k: v for k, v in refund_terms(key).items() if k != "refundOf"}, key), "malformed")
    add("receipt-unknown-kind", "A receipt whose kind is neither absent nor 'refund'.",
        sign_receipt(dict(refund_terms(key), kind="chargeback"), key), "malformed")
    return v


# ---------------------------------------------------------------- valid vectors

def valid_vectors():
    v = []

    def add(name, description, frame, **flags):
        body = canonical(frame)
        assert len(body) <= MAX_FRAME, name
        entry = {"name": name, "description": description, "frame": frame}
        entry.update(flags)
        entry["hex"] = framed(body).hex()
        v.append(entry)

    # hello
    add("hello-minimal",
        "hello offering exactly version 1, no capabilities, ASCII display name and agent.",
        hello())
    add("hello-version-range",
        "hello offering versions 1 through 3 with one capability string, a non-ASCII display name and an "
        "empty agent string. Against a v1-only peer the negotiated version is 1.",
        hello(maxVersion=3, name="Café Ölé ☕", capabilities=["x-example-capability"], agent=""))
    add("hello-name-capitals-and-words",
        "hello whose display name holds 4 capitals of the ID alphabet followed by a word: only a name that is written "
        "like an ID as a whole is refused (§7.2), so 'DAVE phone' is a name.",
        hello(name="DAVE phone"))
    add("hello-max-name",
        "hello whose display name has the maximum 63 code points (Ñ is one code point, 2 UTF-8 bytes) and "
        "whose agent has the maximum 64 code points.",
        hello(name="Ñ" * 63, agent="a" * 64))
    # request
    add("request-mxn-with-category",
        "Payee ALICE asks payer BOB for 12.50 MXN (minorUnits 1250, MXN has 2 minor digits), memo and "
        "optional category present, default 15-minute lifetime (expiresAt = createdAt + 900). " + IDS_NOTE,
        request(payment(mxn(), category="food")))
    add("request-eur-empty-memo-no-category",
        "Request for 0.01 EUR (the smallest amount, minorUnits 1) with an empty memo, no category and a "
        "non-default lifetime of one hour. "
        + IDS_NOTE,
        request(payment({"currency": "EUR", "minorUnits": 1}, memo="",
                        pid=test_uuid("payment-eur"), expires=T0 + 3600),
                msg=test_uuid("message-request-eur")))
    add("request-jpy-zero-digits",
        "Request for 1500 JPY: JPY has 0 minor digits, so minorUnits 1500 means ¥1500. " + IDS_NOTE,
        request(payment({"currency": "JPY", "minorUnits": 1500}, memo="Ramen",
                        pid=test_uuid("payment-jpy")), msg=test_uuid("message-request-jpy")))
    add("request-kwd-three-digits",
        "Request for 12.345 KWD: KWD has 3 minor digits, so minorUnits 12345. " + IDS_NOTE,
        request(payment({"currency": "KWD", "minorUnits": 12345}, memo="Dinner",
                        pid=test_uuid("payment-kwd")), msg=test_uuid("message-request-kwd")))
    add("request-clf-four-digits",
        "Request for 1.0000 CLF: CLF has 4 minor digits, so minorUnits 10000. " + IDS_NOTE,
        request(payment({"currency": "CLF", "minorUnits": 10000}, memo="Unidad de fomento",
                        pid=test_uuid("payment-clf")), msg=test_uuid("message-request-clf")))
    add("request-non-ascii-memo",
        "Request with the non-ASCII memo \"café ☕ für Ölé\" (precomposed characters, 14 code points), "
        "emitted as raw UTF-8, not \\u escapes. Payer ALICE, payee BOB (roles swapped). " + IDS_NOTE,
        request(payment(mxn(9900), memo="café ☕ für Ölé", payee=BOB, payer=ALICE,
                        pid=test_uuid("payment-cafe")), msg=test_uuid("message-request-cafe")))
    add("request-max-memo-ascii",
        "Request whose memo has the maximum 200 code points (ASCII). " + IDS_NOTE,
        request(payment(mxn(), memo=("Rent share " + "x" * 200)[:200], pid=test_uuid("payment-max-memo")),
                msg=test_uuid("message-request-max-memo")))
    mixed = ("e\u0301" * 50) + ("😀" * 50) + ("ü" * 50)  # 100 + 50 + 50 = 200 code points
    assert len(mixed) == 200
    add("request-max-memo-mixed",
        "Request whose memo has exactly 200 code points but only 150 grapheme clusters and 250 UTF-16 "
        "code units: 50 x (e + U+0301 COMBINING ACUTE ACCENT), 50 x U+1F600, 50 x U+00FC. Lengths are "
        "counted in code points (Swift: unicodeScalars.count). " + IDS_NOTE,
        request(payment(mxn(), memo=mixed, pid=test_uuid("payment-max-memo-mixed")),
                msg=test_uuid("message-request-max-memo-mixed")))
    add("request-memo-escapes",
        "Request whose memo needs JSON escaping: quote and backslash; slash and U+2028 are emitted literally. "
        "Control characters (U+0000-U+001F, U+007F-U+009F) and bidi controls are not allowed in text at all "
        "(§5.3; see the invalid request-memo-control-* vectors). " + IDS_NOTE,
        request(payment(mxn(), memo="A \"quote\" \\ back/slash line\u2028sep",
                        pid=test_uuid("payment-escapes")), msg=test_uuid("message-request-escapes")))
    add("request-max-amount-max-category",
        "Request with the largest allowed amount (minorUnits 9223372036854775807 USD cents) and a "
        "40-code-point category. " + IDS_NOTE,
        request(payment({"currency": "USD", "minorUnits": INT63}, memo="Big", category="c" * 40,
                        pid=test_uuid("payment-max-amount")), msg=test_uuid("message-request-max-amount")))
    add("request-uppercase-uuids",
        "Request whose messageID and payment id are written in uppercase. Encoders emit lowercase UUIDs, "
        "but decoders MUST accept either case (decodeOnly: re-encoding yields lowercase). " + IDS_NOTE,
        request(payment(mxn(), pid=test_uuid("payment-upper").upper()),
                msg=test_uuid("message-request-upper").upper()),
        decodeOnly=True)
    add("request-amount-integral-float",
        "Request whose minorUnits is 1250.0: an integral value written with a fraction. §5.3 lets a receiver "
        "accept it, and interpayd does (decodeOnly: re-encoding writes 1250). A fractional value such as 12.5 "
        "is invalid-field (request-amount-float). " + IDS_NOTE,
        request(payment(mxn(1250.0), pid=test_uuid("payment-integral-float")),
                msg=test_uuid("message-request-integral-float")),
        decodeOnly=True)
    add("request-unknown-fields",
        "Request carrying unknown members at top level and inside payment and amount; they MUST be "
        "ignored and the frame processed as without them. " + IDS_NOTE,
        request(dict(payment(dict(mxn(), xRounding="none"), category="food"),
                     xLocation={"lat": 19.43, "lon": -99.13}),
                msg=test_uuid("message-request-unknown")) | {"xPriority": "high"},
        ignoresUnknown=True, decodeOnly=True)
    # cancel / accept / reject
    add("cancel",
        "Payee cancels pending payment PAY.",
        {"type": "cancel", "messageID": MSG_CANCEL, "paymentID": PAY})
    add("accept",
        "Payer accepts pending payment PAY.",
        {"type": "accept", "messageID": MSG_ACCEPT, "paymentID": PAY})
    add("reject-with-reason",
        "Payer rejects payment PAY with a free-text reason.",
        {"type": "reject", "messageID": MSG_REJECT, "paymentID": PAY, "reason": "Ya te pagué en efectivo"})
    add("reject-without-reason",
        "Payer rejects payment PAY; the optional reason is absent.",
        {"type": "reject", "messageID": MSG_REJECT, "paymentID": PAY})
    add("reject-empty-reason",
        "Payer rejects payment PAY with an empty reason string (allowed: 0-200 code points).",
        {"type": "reject", "messageID": MSG_REJECT, "paymentID": PAY, "reason": ""})
    # ack
    add("ack-request-pending",
        "Payer acknowledges the request: it stored payment PAY as pending.",
        ack(MSG_REQ, "pending"))
    add("ack-request-expired",
        "Payer acknowledges a request that arrived at or after expiresAt: stored as expired, reason AEXR.",
        ack(MSG_REQ, "expired", "AEXR"))
    add("ack-accept-accepted",
        "Payee acknowledges the accept: payment is now accepted (no reason code, the accept won).",
        ack(MSG_ACCEPT, "accepted"))
    add("ack-reject-rejected",
        "Payee acknowledges the reject: payment is now rejected.",
        ack(MSG_REJECT, "rejected"))
    add("ack-accept-already-cancelled",
        "Payee answers an accept that crossed its cancel: the payment stays cancelled, reason ACLR.",
        ack(MSG_ACCEPT, "cancelled", "ACLR"))
    add("ack-accept-already-expired",
        "Payee answers an accept that arrived at or after expiresAt: expired, reason AEXR.",
        ack(MSG_ACCEPT, "expired", "AEXR"))
    add("ack-reject-already-accepted",
        "Payee answers a reject for a payment that is already accepted: accepted, reason ALAC.",
        ack(MSG_REJECT, "accepted", "ALAC"))
    add("ack-accept-already-rejected",
        "Payee answers an accept for a payment that is already rejected: rejected, reason ARFR.",
        ack(MSG_ACCEPT, "rejected", "ARFR"))
    add("ack-cancel",
        "Payer acknowledges the cancel: it adopted cancelled (no reason code).",
        ack(MSG_CANCEL, "cancelled"))
    add("ack-unknown-field",
        "ack with an unknown member that MUST be ignored.",
        ack(MSG_CANCEL, "cancelled") | {"zNote": "ignored"},
        ignoresUnknown=True, decodeOnly=True)
    # error
    add("error-unsupported-version",
        "Sent before closing when the hellos share no version; no ref.",
        {"type": "error", "code": "unsupported-version", "message": "no common version: peer offers 2-3, I support 1"})
    add("error-malformed-frame-with-ref",
        "Reports a request that failed validation; ref is the offending messageID.",
        {"type": "error", "code": "malformed-frame", "message": "payment.amount.minorUnits out of range",
         "ref": MSG_REQ})
    add("error-unknown-type",
        "Answer to a frame with an unknown type; the session continues.",
        {"type": "error", "code": "unknown-type", "message": "unknown frame type \"teleport\""})
    add("error-unknown-payment",
        "Answer to an accept for a payment ID the payee does not know.",
        {"type": "error", "code": "unknown-payment", "message": "", "ref": MSG_ACCEPT})
    add("error-not-authorized",
        "Answer to a cancel sent by the payer of the payment (only the payee may cancel).",
        {"type": "error", "code": "not-authorized", "message": "only the payee may cancel", "ref": MSG_CANCEL})
    add("error-limit-exceeded",
        "Answer to a request the payer refuses for a local limit (too many pending requests).",
        {"type": "error", "code": "limit-exceeded", "message": "too many pending requests", "ref": MSG_REQ})
    add("error-internal",
        "Transient internal failure (e.g. storage unavailable); the sender retries in a later session.",
        {"type": "error", "code": "internal", "message": "storage unavailable", "ref": MSG_REQ})
    # paid / settle (§8.5, 'receipts' capability)
    add("paid-with-method", "Payer -> payee: the payer handed the money over by transfer, with its reference.",
        {"type": "paid", "messageID": MSG_PAID, "paymentID": PAY, "method": "transfer", "reference": "SPEI 0042"})
    add("paid-minimal", "Payer -> payee: paid, without method or reference.",
        {"type": "paid", "messageID": MSG_PAID, "paymentID": PAY})
    add("settle-with-receipt", "Payee -> payer: settled, with the signed receipt 'receipt-valid' of receipts.json "
        "as its text.", {"type": "settle", "messageID": MSG_SETTLE, "paymentID": PAY,
                         "receipt": sign_receipt(receipt_terms(receipt_key()), receipt_key())})
    add("settle-without-receipt", "Payee -> payer: settled, no receipt (the payee could not make one).",
        {"type": "settle", "messageID": MSG_SETTLE, "paymentID": PAY})
    add("settle-receipt-empty", "Payee -> payer: settled, with an empty receipt: a valid frame (a receipt has no "
        "minimum length, only at most 8192 UTF-8 bytes); the receipt does not verify, so the payer keeps none and "
        "the payment is settled on the payee's word (§7.10).",
        {"type": "settle", "messageID": MSG_SETTLE, "paymentID": PAY, "receipt": ""})
    add("ack-paid", "Payee's ack of a paid frame: the payment is paid on its side.", ack(MSG_PAID, "paid"))
    add("ack-settle", "Payer's ack of a settle frame.", ack(MSG_SETTLE, "settled"))
    add("ack-paid-already-settled", "Payee's ack of a paid frame that crossed its settle: settled.",
        ack(MSG_PAID, "settled"))
    # refund (§7.12, §8.7, 'refunds' capability)
    refund = {"type": "refund", "messageID": MSG_REFUND, "paymentID": REFUND, "refundOf": PAY,
              "amount": {"currency": "MXN", "minorUnits": 500}, "memo": "one taco was missing",
              "createdAt": T0 + 600}
    add("refund-with-receipt", "Payee -> payer: 5.00 MXN of PAY given back, with the refund receipt "
        "'receipt-refund-valid' of receipts.json.", dict(refund, receipt=refund_receipt(receipt_key())))
    add("refund-without-receipt", "Payee -> payer: a refund without a receipt, an empty memo.",
        dict(refund, memo=""))
    add("ack-refund", "Payer's ack of a refund frame: the refund is settled on its side.",
        {"type": "ack", "ackedID": MSG_REFUND, "paymentID": REFUND, "state": "settled"})
    # series (§7.11, §8.6, 'subscriptions' capability)
    add("series-offer", "Payee -> payer: a monthly series of 30.00 EUR for 12 periods, due dates kept in "
        "Europe/Berlin.", series("offer", offer=series_offer()))
    add("series-offer-open-ended", "Payee -> payer: a weekly series without count or category, with fixed "
        "periods of 60 s (the payee's daemon runs with [subscriptions] period_seconds).",
        series("offer", offer=series_offer(period="week", count=None, category=None, periodSeconds=60, memo="")))
    add("series-approve", "Payer -> payee: approved, with a cap of 35.00 EUR per period.",
        series("approve", cap={"currency": "EUR", "minorUnits": 3500}))
    add("series-decline", "Payer -> payee: declined, with a reason.", series("decline", reason="not now"))
    add("series-end", "Either side: the series ends.", series("end"))
    add("series-ack", "The answer to a series frame: the sender's state of the series.",
        series("ack", state="approved"))
    in_series = payment({"currency": "EUR", "minorUnits": 3000}, memo="Gym, monthly",
                        pid=str(uuid.uuid5(SERIES_NAMESPACE, SERIES + "/3")))
    in_series["series"] = {"seriesID": SERIES, "index": 3}
    add("request-in-series", "A request for period 3 (the fourth) of a series; its payment ID is the UUIDv5 of "
        "the name '<seriesID>/3' in the series namespace 6b3f1c52-8e2a-4d7b-9a61-0c4e2f8813d5 (§8.6).",
        request(in_series, msg=str(uuid.uuid5(SERIES_NAMESPACE, SERIES + "/3/request"))))
    share = payment({"currency": "EUR", "minorUnits": 3334}, memo="Dinner")
    share["bill"] = {"billID": BILL, "payers": 3}
    add("request-bill-share", "A request that is one share of a split bill of 3 payers: 33.34 EUR of 100.00 "
        "(§8.8: 33.33 each, the cent left to the first payer named); the member names the bill and how many pay, "
        "never who.", request(share))
    # ping / pong / close
    add("ping-zero", "Keepalive ping with nonce 0.", {"type": "ping", "nonce": 0})
    add("ping-max-nonce", "Keepalive ping with the largest nonce 9223372036854775807.",
        {"type": "ping", "nonce": INT63})
    add("pong", "Answer to a ping with nonce 42.", {"type": "pong", "nonce": 42})
    add("close-with-reason", "Orderly close with a reason.", {"type": "close", "reason": "shutting down"})
    add("close-empty-reason", "Orderly close with an empty reason.", {"type": "close", "reason": ""})
    # pair (§7.9): the worked example's nonces are 32 bytes of 0x01 (ALICE's) and 0x02 (BOB's); each side commits
    # under its own attempt ID, binding its own peer ID bytes (here sha256(b"alice"), sha256(b"bob"))
    nonce_a, nonce_b = bytes([1] * 32), bytes([2] * 32)
    alice_bytes, bob_bytes = hashlib.sha256(b"alice").digest(), hashlib.sha256(b"bob").digest()
    commit_a = hashlib.sha256(b"interpay-pairing-commit-v2" + alice_bytes + nonce_a).hexdigest()
    commit_b = hashlib.sha256(b"interpay-pairing-commit-v2" + bob_bytes + nonce_b).hexdigest()
    add("pair-commit", "ALICE's commit: SHA-256(\"interpay-pairing-commit-v2\" || ALICE's 32 ID bytes || nonce), "
        "under ALICE's attempt ID.",
        {"type": "pair", "pairingID": PAIRING, "step": "commit", "value": commit_a})
    add("pair-commit-peer", "BOB's commit under BOB's own attempt ID.",
        {"type": "pair", "pairingID": PAIRING_PEER, "step": "commit", "value": commit_b})
    add("pair-reveal", "ALICE reveals the nonce it committed to, once it holds BOB's commit.",
        {"type": "pair", "pairingID": PAIRING, "step": "reveal", "value": nonce_a.hex()})
    add("pair-abort", "Either side ends an attempt (its own or the peer's ID).",
        {"type": "pair", "pairingID": PAIRING, "step": "abort", "reason": "a second, different commit in one attempt"})
    # exactly the maximum frame size
    base = {"type": "ping", "nonce": 7, "xPadding": ""}
    pad = MAX_FRAME - len(canonical(base))
    add("ping-exactly-max-size",
        "ping padded with an unknown member so that the body is exactly 65536 bytes, the largest frame a "
        "receiver with the default limit MUST accept.",
        dict(base, xPadding="p" * pad), ignoresUnknown=True, decodeOnly=True)
    assert len(bytes.fromhex(v[-1]["hex"])) == 4 + MAX_FRAME
    return v


# ---------------------------------------------------------------- invalid vectors

def corrupt_check_char(pid):
    """Change one data character of the first chunk, keeping the old check characters."""
    chars = list(pid)
    chars[2] = "B" if chars[2] != "B" else "C"
    return "".join(chars)


def bad_padding_id(pid):
    """Set a padding bit in the last base32 data character and recompute the check character."""
    raw = pid.replace("-", "")
    chunk = raw[42:55]
    last = B32[B32.index(chunk[-1]) | 1]
    chunk = chunk[:-1] + last
    raw = raw[:42] + chunk + luhn32(chunk)
    return "-".join(raw[i:i + 7] for i in range(0, 56, 7))


def invalid_vectors():
    v = []

    def add(name, description, data, error, **extra):
        entry = {"name": name, "description": description, "hex": data.hex(), "error": error}
        entry.update(extra)
        v.append(entry)

    def addj(name, description, obj, error, **extra):
        add(name, description, framed(canonical(obj)), error, **extra)

    def addb(name, description, body, error, **extra):
        add(name, description, framed(body), error, **extra)

    good = request(payment(mxn(), category="food"))

    def req_with(**changes):
        p = dict(good["payment"])
        for k, val in changes.items():
            if val is None:
                p.pop(k, None)
            else:
                p[k] = val
        return request(p)

    # ---- framing
    add("oversize-prefix-only", "Length prefix 0x00010001 = 65537, one byte over the 64 KiB limit, and no "
        "body. Must be reported as oversize from the prefix alone, without waiting for the body.",
        bytes.fromhex("00010001"), "oversize")
    add("oversize-prefix-ffffffff", "Length prefix 0xFFFFFFFF followed by two body bytes: oversize from the "
        "prefix alone; a receiver MUST NOT try to buffer 4 GiB.", bytes.fromhex("ffffffff7b7d"), "oversize")
    ping = {"type": "ping", "nonce": 1, "xPadding": ""}
    ping["xPadding"] = "p" * (4097 - len(canonical(ping)))
    assert len(canonical(ping)) == 4097
    addj("oversize-configured-limit", "A well-formed ping frame padded with an unknown member to a 4097-byte "
         "body, received by a peer configured with maxFrameSize 4096 (the lowest permitted limit): oversize.",
         ping, "oversize", maxFrameSize=4096)
    add("truncated-prefix-1-byte", "Input ends after 1 byte of the length prefix.", bytes.fromhex("00"),
        "truncated")
    add("truncated-prefix-3-bytes", "Input ends after 3 bytes of the length prefix.", bytes.fromhex("000000"),
        "truncated")
    body = canonical({"type": "ping", "nonce": 1})
    add("truncated-body", "Prefix announces %d body bytes, input ends after %d." % (len(body), len(body) - 5),
        framed(body)[:-5], "truncated")
    add("zero-length", "Length prefix 0: an empty body is not a JSON object.", bytes.fromhex("00000000"),
        "invalid-json")
    addb("invalid-utf8-continuation", "Body contains a lone continuation byte 0x80 inside a string.",
         b'{"type":"close","reason":"a\x80b"}', "invalid-utf8")
    addb("invalid-utf8-truncated-sequence", "Body contains 0xC3 followed by '(' (0x28), an incomplete "
         "two-byte sequence.", b'{"type":"close","reason":"\xc3("}', "invalid-utf8")
    addb("invalid-utf8-overlong", "Body contains the overlong encoding 0xC0 0xAF of '/'.",
         b'{"type":"close","reason":"\xc0\xaf"}', "invalid-utf8")
    addb("invalid-utf8-surrogate", "Body contains 0xED 0xA0 0x80, a UTF-8-encoded surrogate U+D800 "
         "(not allowed in UTF-8).", b'{"type":"close","reason":"\xed\xa0\x80"}', "invalid-utf8")
    addb("invalid-json-not-json", "Body is plain text, not JSON.", b"hello there", "invalid-json")
    addb("invalid-json-unterminated", "Body is a JSON object missing its closing brace.",
         b'{"type":"ping","nonce":1', "invalid-json")
    addb("invalid-json-trailing-data", "Body is a JSON object followed by extra non-whitespace bytes.",
         b'{"type":"ping","nonce":1}x', "invalid-json")
    addb("invalid-json-array", "Body is a JSON array (containing a ping object) instead of an object.",
         b'[{"nonce":1,"type":"ping"}]', "invalid-json")
    addb("invalid-json-string", "Body is a JSON string, not an object.", b'"ping"', "invalid-json")
    addb("invalid-json-null", "Body is the JSON literal null.", b"null", "invalid-json")
    addb("invalid-json-nan", "Body uses NaN, which is not JSON (RFC 8259).", b'{"nonce":NaN,"type":"ping"}',
         "invalid-json")
    addb("invalid-json-bom", "Body starts with a UTF-8 byte order mark (EF BB BF); frames MUST NOT carry a BOM.",
         b'\xef\xbb\xbf{"nonce":1,"type":"ping"}', "invalid-json")
    addb("invalid-json-lone-surrogate-escape", "A string contains the escape \\ud800 (a lone surrogate), which "
         "does not denote a Unicode scalar value.", b'{"reason":"\\ud800","type":"close"}', "invalid-json")
    addb("invalid-json-control-char", "A string contains a raw U+000A line feed; control characters MUST be "
         "escaped in JSON strings.", b'{"reason":"a\nb","type":"close"}', "invalid-json")

    # ---- type discrimination
    addj("missing-type", "Object without a type member.", {"nonce": 1}, "missing-field")
    addj("type-not-string", "type is a number; an object without a string type is missing-field.",
         {"type": 7, "nonce": 1}, "missing-field")
    addj("unknown-type-teleport", "Unknown frame type \"teleport\": answered with error unknown-type, the "
         "session continues.", {"type": "teleport", "to": "mars"}, "unknown-type")
    addj("unknown-type-wrong-case", "Frame types are case-sensitive: \"Ping\" is unknown.",
         {"type": "Ping", "nonce": 1}, "unknown-type")

    # ---- request
    addj("request-missing-payment", "request without its payment object.",
         {"type": "request", "messageID": MSG_REQ}, "missing-field")
    addj("request-missing-messageID", "request without messageID.",
         {"type": "request", "payment": good["payment"]}, "missing-field")
    addj("request-missing-amount", "payment without amount.", req_with(amount=None), "missing-field")
    addj("request-missing-memo", "payment without memo (memo is required, may be empty).",
         req_with(memo=None), "missing-field")
    addj("request-amount-zero", "minorUnits 0: amounts MUST be at least 1.", req_with(amount=mxn(0)),
         "invalid-field")
    addj("request-amount-negative", "minorUnits -1250.", req_with(amount=mxn(-1250)), "invalid-field")
    addj("request-amount-too-large", "minorUnits 9223372036854775808, one above the signed 64-bit maximum.",
         req_with(amount=mxn(INT63 + 1)), "invalid-field")
    addj("request-amount-float", "minorUnits 12.5 is not an integer.", req_with(amount=mxn(12.5)),
         "invalid-field")
    addj("request-amount-string", "minorUnits given as the string \"1250\".", req_with(amount=mxn("1250")),
         "invalid-field")
    addj("request-currency-unknown", "Currency \"XYZ\" is not in the ISO 4217 list.",
         req_with(amount={"currency": "XYZ", "minorUnits": 1250}), "invalid-field")
    addj("request-currency-lowercase", "Currency codes are uppercase: \"mxn\" is invalid.",
         req_with(amount={"currency": "mxn", "minorUnits": 1250}), "invalid-field")
    addj("request-memo-201-ascii", "Memo of 201 code points (ASCII), one over the limit.",
         req_with(memo="m" * 201), "invalid-field")
    addj("request-memo-201-combining", "Memo of 201 code points but only 101 grapheme clusters: 100 x "
         "(e + U+0301) + \"!\". Lengths are code points, so this is over the limit.",
         req_with(memo="e\u0301" * 100 + "!"), "invalid-field")
    for label, text, what in [("esc", "rent\u001b[8m", "ESC (U+001B), which starts terminal escape sequences"),
                              ("newline", "line\nbreak", "a newline (U+000A)"),
                              ("tab", "a\tb", "a tab (U+0009)"),
                              ("c1", "x\u0085y", "the C1 control NEL (U+0085)"),
                              ("bidi", "invoice \u202etxt.exe", "RIGHT-TO-LEFT OVERRIDE (U+202E)"),
                              ("isolate", "\u2066pay\u2069", "the bidi isolates U+2066 and U+2069")]:
        addj("request-memo-control-" + label, "Memo holding %s: text must not contain control characters "
             "(Unicode Cc) or bidi controls (§5.3)." % what, req_with(memo=text), "invalid-field")
    addj("request-category-control", "Category holding ESC (U+001B).", req_with(category="food\u001b[2J"),
         "invalid-field")
    addj("request-memo-null", "memo is null; null is never a valid value.",
         dict(good, payment=dict(good["payment"], memo=None)), "invalid-field")
    addj("request-category-null", "Optional category present as null: optional fields are omitted, "
         "never null.", dict(good, payment=dict(good["payment"], category=None)),
         "invalid-field")
    addj("request-category-empty", "Optional category present but empty (must be 1-40 code points).",
         req_with(category=""), "invalid-field")
    addj("request-category-41", "Category of 41 code points.", req_with(category="c" * 41), "invalid-field")
    addj("request-bad-uuid", "payment.id is not a UUID.", req_with(id="not-a-uuid"), "invalid-field")
    addj("request-bad-messageID-no-hyphens", "messageID is 32 hex digits without hyphens.",
         dict(good, messageID=MSG_REQ.replace("-", "")), "invalid-field")
    addj("request-bad-uuid-non-hex", "payment.id contains the non-hex character 'g'.",
         req_with(id="g" + PAY[1:]), "invalid-field")
    addj("request-peer-id-lowercase", "payee written in lowercase: on the wire peer IDs MUST use the canonical "
         "uppercase grouped form (lenient parsing is for user input only).", req_with(payee=ALICE.lower()),
         "invalid-field")
    addj("request-peer-id-ungrouped", "payer written as 56 characters without '-' separators.",
         req_with(payer=BOB.replace("-", "")), "invalid-field")
    addj("request-peer-id-padding-bits", "payee whose last base32 data character has a non-zero padding bit "
         "(check character recomputed so Luhn passes): not the canonical encoding of any 32 bytes.",
         req_with(payee=bad_padding_id(ALICE)), "invalid-field")
    addj("request-peer-id-bad-check", "payee is ALICE's ID with one data character changed (third character), "
         "so the first Luhn mod 32 check character no longer matches. " + IDS_NOTE,
         req_with(payee=corrupt_check_char(ALICE)), "invalid-field",
         schemaDetectable=False, semanticCheck="peer-id-check")
    addj("request-payee-equals-payer", "payee and payer are both ALICE; they MUST differ. " + IDS_NOTE,
         req_with(payer=ALICE), "invalid-field", schemaDetectable=False, semanticCheck="payee-differs-payer")
    addj("request-expires-equals-created", "expiresAt == createdAt; expiresAt MUST be greater.",
         req_with(expiresAt=T0), "invalid-field", schemaDetectable=False,
         semanticCheck="expires-after-created")
    addj("request-expires-before-created", "expiresAt < createdAt.",
         req_with(expiresAt=T0 - 1), "invalid-field", schemaDetectable=False,
         semanticCheck="expires-after-created")
    addj("request-created-negative", "createdAt is negative.", req_with(createdAt=-1), "invalid-field")
    addj("request-expires-too-large", "expiresAt 9223372036854775808, above the signed 64-bit maximum.",
         req_with(expiresAt=INT63 + 1), "invalid-field")
    addj("request-payment-not-object", "payment is a string.", dict(good, payment="PAY"), "invalid-field")

    # ---- hello
    addj("hello-max-below-min", "hello with maxVersion 1 < minVersion 2.", hello(minVersion=2, maxVersion=1),
         "invalid-field", schemaDetectable=False, semanticCheck="version-range")
    addj("hello-min-version-zero", "minVersion 0; versions start at 1.", hello(minVersion=0), "invalid-field")
    addj("hello-max-version-too-large", "maxVersion 65536; versions are 1-65535.", hello(maxVersion=65536),
         "invalid-field")
    addj("hello-empty-name", "Display name is empty (must be 1-63 code points).", hello(name=""),
         "invalid-field")
    addj("hello-name-64", "Display name of 64 code points.", hello(name="n" * 64), "invalid-field")
    addj("hello-capabilities-17", "hello with 17 capabilities (at most 16).",
         hello(capabilities=["c%d" % i for i in range(17)]), "invalid-field")
    addj("hello-capability-33", "hello with a capability of 33 code points (1-32).",
         hello(capabilities=["receipts", "c" * 33]), "invalid-field")
    addj("hello-capability-empty", "hello with an empty capability.", hello(capabilities=[""]), "invalid-field")
    addj("hello-name-newline", "Display name holding a newline, which could forge a log line (§5.3).",
         hello(name="bob\n<2>root login"), "invalid-field")
    addj("hello-name-peer-id", "Display name that is a whole peer ID (another peer's): names must never read as "
         "IDs (§7.2).", hello(name=BOB), "invalid-field")
    addj("hello-name-short-id", "Display name that is a short ID: 7 capitals of the ID alphabet (§7.2).",
         hello(name=BOB[:7]), "invalid-field")
    addj("hello-name-id-group", "Display name written like an ID prefix with a group separator, in small "
         "letters (§7.2).", hello(name=BOB[:10].lower()), "invalid-field")
    addj("hello-name-capitals", "Display name of 4 or more capitals of the ID alphabet (A-Z, 2-7) reads as an "
         "ID prefix (§7.2).", hello(name="DAVE"), "invalid-field")
    addj("hello-name-zero-width", "Display name ending in a zero-width space (U+200B), an invisible "
         "(default-ignorable) code point (§7.2).", hello(name="bob\u200b"), "invalid-field")
    addj("hello-name-trailing-space", "Display name ending in a space (§7.2).", hello(name="bob "), "invalid-field")
    addj("hello-name-lookalike-digits", "Display name of a short ID with 8 for B and 0 for O: read as the ID "
         "characters they resemble (§4.3), it is 7 capitals of the ID alphabet (§7.2).", hello(name="HS8EJ80"),
         "invalid-field", schemaDetectable=False, semanticCheck="name-lookalike")
    addj("hello-name-lookalike-fullwidth", "Display name of a short ID in full-width letters (U+FF21...), which look "
         "like the ID's capitals (§7.2).", hello(name="".join(chr(ord(c) + 0xFEE0) for c in BOB[:7])),
         "invalid-field", schemaDetectable=False, semanticCheck="name-lookalike")
    addj("hello-name-lookalike-cyrillic", "Display name of a short ID with a Cyrillic capital Ie (U+0415) for E "
         "(§7.2).", hello(name="HSB\u0415JBT"), "invalid-field", schemaDetectable=False,
         semanticCheck="name-lookalike")
    addj("hello-name-peer-id-lowercase", "Display name that is a whole peer ID in small letters without its "
         "separators: a whole ID is refused in any case, however it is written (§7.2, §4.3 lenient form); the check "
         "characters make it a check in code.", hello(name=BOB.lower().replace("-", "")), "invalid-field",
         schemaDetectable=False, semanticCheck="name-like-id")
    addj("hello-name-peer-id-spaces", "Display name that is a whole peer ID in small letters with spaces for its "
         "separators (§7.2, §4.3 lenient form).", hello(name=BOB.lower().replace("-", " ")), "invalid-field",
         schemaDetectable=False, semanticCheck="name-like-id")
    addj("hello-agent-65", "agent of 65 code points.", hello(agent="a" * 65), "invalid-field")
    addj("hello-capabilities-not-array", "capabilities is a string instead of an array.",
         hello(capabilities="none"), "invalid-field")
    addj("hello-capability-not-string", "capabilities contains a number.", hello(capabilities=[1]),
         "invalid-field")
    h = hello()
    del h["agent"]
    addj("hello-missing-agent", "hello without agent (required, may be empty).", h, "missing-field")

    # ---- cancel / accept / reject
    addj("accept-missing-paymentID", "accept without paymentID.",
         {"type": "accept", "messageID": MSG_ACCEPT}, "missing-field")
    addj("cancel-bad-paymentID", "cancel whose paymentID is a number.",
         {"type": "cancel", "messageID": MSG_CANCEL, "paymentID": 12345}, "invalid-field")
    addj("reject-reason-201", "reject reason of 201 code points.",
         {"type": "reject", "messageID": MSG_REJECT, "paymentID": PAY, "reason": "r" * 201}, "invalid-field")

    # ---- ack
    addj("ack-invalid-state", "ack with state \"done\".", ack(MSG_REQ, "done"), "invalid-field")
    addj("ack-state-uppercase", "ack with state \"PENDING\"; states are lowercase.", ack(MSG_REQ, "PENDING"),
         "invalid-field")
    addj("ack-invalid-reason-code", "ack with reasonCode \"XXXX\".", ack(MSG_ACCEPT, "cancelled", "XXXX"),
         "invalid-field")
    addj("ack-reason-code-lowercase", "ack with reasonCode \"aclr\"; reason codes are uppercase.",
         ack(MSG_ACCEPT, "cancelled", "aclr"), "invalid-field")
    a = ack(MSG_REQ, "pending")
    del a["ackedID"]
    addj("ack-missing-ackedID", "ack without ackedID.", a, "missing-field")

    # ---- error / ping / pong / close
    addj("error-unknown-code", "error with an undefined code.",
         {"type": "error", "code": "oops", "message": "?"}, "invalid-field")
    addj("error-message-201", "error message of 201 code points.",
         {"type": "error", "code": "internal", "message": "e" * 201}, "invalid-field")
    addj("ping-nonce-string", "ping whose nonce is the string \"42\".", {"type": "ping", "nonce": "42"},
         "invalid-field")
    addj("ping-nonce-negative", "ping whose nonce is -1.", {"type": "ping", "nonce": -1}, "invalid-field")
    addj("ping-nonce-too-large", "ping whose nonce is 9223372036854775808: every integer in v1 fits a signed "
         "64-bit integer, so this is out of range even for an unsigned decoder.",
         {"type": "ping", "nonce": INT63 + 1}, "invalid-field")
    addj("pong-nonce-float", "pong whose nonce is 1.5.", {"type": "pong", "nonce": 1.5}, "invalid-field")
    addj("pong-missing-nonce", "pong without nonce.", {"type": "pong"}, "missing-field")
    addj("close-missing-reason", "close without reason (required, may be empty).", {"type": "close"},
         "missing-field")
    pv = {"type": "pair", "pairingID": PAIRING, "step": "reveal", "value": "02" * 32}
    addj("pair-value-short", "pair value of 31 bytes.", dict(pv, value="02" * 31), "invalid-field")
    addj("pair-value-uppercase", "pair value in uppercase hex (lowercase only).", dict(pv, value="AB" * 32),
         "invalid-field")
    addj("pair-missing-value", "pair reveal step without its value.", {k: v for k, v in pv.items() if k != "value"},
         "missing-field")
    addj("pair-unknown-step", "pair with an undefined step.", dict(pv, step="shout"), "invalid-field")
    addj("pair-nonce-step-removed", "pair 'nonce' step of the first pairing exchange: removed, so undefined.",
         dict(pv, step="nonce"), "invalid-field")
    addj("pair-abort-missing-reason", "pair abort without reason.",
         {"type": "pair", "pairingID": PAIRING, "step": "abort"}, "missing-field")
    paid = {"type": "paid", "messageID": MSG_PAID, "paymentID": PAY}
    addj("paid-unknown-method", "paid with an undefined method.", dict(paid, method="cheque"), "invalid-field")
    addj("paid-reference-empty", "paid with an empty reference (absent, or 1-100 code points).",
         dict(paid, reference=""), "invalid-field")
    addj("paid-reference-too-long", "paid with a reference of 101 code points.", dict(paid, reference="r" * 101),
         "invalid-field")
    addj("paid-missing-payment", "paid without paymentID.", {"type": "paid", "messageID": MSG_PAID},
         "missing-field")
    addj("settle-receipt-not-string", "settle whose receipt is an object, not its canonical text.",
         {"type": "settle", "messageID": MSG_SETTLE, "paymentID": PAY, "receipt": {"amount": "1250"}},
         "invalid-field")
    addj("settle-receipt-over-8192-bytes", "settle whose receipt has 4097 code points but 8194 UTF-8 bytes: the "
         "limit is 8192 bytes (§7.10), which JSON Schema cannot count; a check in code.",
         {"type": "settle", "messageID": MSG_SETTLE, "paymentID": PAY, "receipt": "\u00e9" * 4097},
         "invalid-field", schemaDetectable=False, semanticCheck="receipt-bytes")
    addj("ack-unknown-state", "ack with a state that does not exist.", ack(MSG_PAID, "refunded"), "invalid-field")
    refund = {"type": "refund", "messageID": MSG_REFUND, "paymentID": REFUND, "refundOf": PAY,
              "amount": {"currency": "MXN", "minorUnits": 500}, "memo": "", "createdAt": T0 + 600}
    addj("refund-missing-refund-of", "refund without refundOf.",
         {k: v for k, v in refund.items() if k != "refundOf"}, "missing-field")
    addj("refund-zero-amount", "refund of 0 minor units.", dict(refund, amount={"currency": "MXN", "minorUnits": 0}),
         "invalid-field")
    addj("refund-memo-too-long", "refund whose memo has 201 code points.", dict(refund, memo="m" * 201),
         "invalid-field")
    addj("refund-of-itself", "refund whose refundOf is its own paymentID.", dict(refund, refundOf=REFUND),
         "invalid-field", schemaDetectable=False, semanticCheck="refund-of-itself")
    # series
    addj("series-unknown-action", "series with an undefined action.", series("renew"), "invalid-field")
    addj("series-offer-missing", "series offer without its terms.", series("offer"), "missing-field")
    addj("series-approve-without-cap", "series approve without a cap.", series("approve"), "missing-field")
    addj("series-approve-zero-cap", "series approve with a cap of zero.",
         series("approve", cap={"currency": "EUR", "minorUnits": 0}), "invalid-field")
    addj("series-offer-bad-period", "series offer every day (only week, month, year).",
         series("offer", offer=series_offer(period="day")), "invalid-field")
    addj("series-offer-count-zero", "series offer with count 0 (1 to 10000).",
         series("offer", offer=series_offer(count=0)), "invalid-field")
    addj("series-offer-count-too-large", "series offer with count 10001.",
         series("offer", offer=series_offer(count=10001)), "invalid-field")
    addj("series-offer-start-too-late", "series offer whose start is after 9999-12-31T23:59:59Z (the largest "
         "integer: its zone's offset added to it overflowed).",
         series("offer", offer=series_offer(start=9223372036854775807, timeZone="Asia/Tokyo")), "invalid-field")
    addj("request-created-too-late", "createdAt one second after 9999-12-31T23:59:59Z.",
         req_with(createdAt=253402300800, expiresAt=253402301700), "invalid-field")
    addj("series-offer-same-peer", "series offer whose payer is its payee.",
         series("offer", offer=series_offer(payer=ALICE)), "invalid-field", schemaDetectable=False,
         semanticCheck="payee-differs-payer")
    addj("series-ack-unknown-state", "series ack with a state that does not exist.", series("ack", state="paused"),
         "invalid-field")
    addj("series-end-with-offer", "series end carrying an offer's terms (members of other actions are refused).",
         series("end", offer=series_offer()), "invalid-field")
    addj("request-series-negative-index", "request whose series index is negative.",
         req_with(series={"seriesID": SERIES, "index": -1}), "invalid-field")
    addj("request-bill-one-payer", "request whose bill has 1 payer (a bill has 2 to 32).",
         req_with(bill={"billID": BILL, "payers": 1}), "invalid-field")
    addj("request-bill-33-payers", "request whose bill has 33 payers.",
         req_with(bill={"billID": BILL, "payers": 33}), "invalid-field")
    addj("request-bill-without-id", "request whose bill member has no billID.", req_with(bill={"payers": 3}),
         "missing-field")
    return v


# ---------------------------------------------------------------- output

def fnv1a64(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def discovery_vectors():
    """The pair rule of §2.1: which side of two instance names resolves the other first."""
    pairs = [
        ("alice", "bob"), ("bob", "alice"), ("h25-001", "h25-002"), ("Bob's till", "Café Ünïcode"),
        ("café", "Café"), ("Till 1", "Till 10"), ("Ana", "Ana #2"), ("x", "y"),
    ]
    out = []
    for a, b in pairs:
        low, high = sorted((a.encode("utf-8"), b.encode("utf-8")))
        digest = fnv1a64(low + b"\n" + high)
        first = low if digest % 2 == 0 else high
        out.append({"name": "pair rule: %s / %s" % (a, b), "a": a, "b": b, "fnv1a": "%016x" % digest,
                    "resolvesFirst": "a" if first == a.encode("utf-8") else "b"})
    return out


def render():
    out = {}
    for name, items in (("valid.json", valid_vectors()), ("invalid.json", invalid_vectors()),
                        ("receipts.json", receipt_vectors()), ("discovery.json", discovery_vectors())):
        names = [i["name"] for i in items]
        assert len(names) == len(set(names)), "duplicate vector name in " + name
        out[name] = json.dumps(items, indent=2, ensure_ascii=False) + "\n"
    return out


def main():
    check = "--check" in sys.argv[1:]
    status = 0
    for name, text in render().items():
        path = os.path.join(HERE, name)
        current = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if check:
            if current != text:
                print(name + ": out of date; run protocol/vectors/generate.py")
                status = 1
            else:
                print(name + ": up to date")
        elif current != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print(name + ": written")
        else:
            print(name + ": unchanged")
    return status


if __name__ == "__main__":
    sys.exit(main())
