#!/usr/bin/env python3
"""Check the InterPay wire v1 schemas and test vectors (protocol/schema, protocol/vectors).

Needs only the Python standard library plus jsonschema 4.x and referencing; works offline.
Prints one line per vector group and ends with `vectors: N passed, M failed`; exits 1 on any failure.
"""
import json
import os
import sys

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PROTO = os.path.join(ROOT, "protocol")
SCHEMA_DIR = os.path.join(PROTO, "schema")
VECTOR_DIR = os.path.join(PROTO, "vectors")

DEFAULT_MAX_FRAME = 65536
FRAME_TYPES = ["hello", "request", "cancel", "accept", "reject", "ack", "error", "ping", "pong", "close", "pair",
               "paid", "settle", "series", "refund"]
FRAMING_ERRORS = {"oversize", "truncated", "invalid-utf8", "invalid-json"}
FIELD_ERRORS = {"unknown-type", "missing-field", "invalid-field"}
SEMANTIC_CHECKS = {"peer-id-check", "payee-differs-payer", "expires-after-created", "version-range", "name-like-id",
                   "receipt-bytes", "name-lookalike", "refund-of-itself"}
MAX_RECEIPT_BYTES = 8192

passed = 0          # vectors that passed
failed = 0          # vectors that failed
other_failures = 0  # failed checks that are not vectors (schemas, generator, self-test)


def report(group, problems, count, vectors=True):
    """Record a group result. problems: list of (subject, message); count: subjects checked."""
    global passed, failed, other_failures
    bad = len({subject for subject, _ in problems})
    if vectors:
        passed += count - bad
        failed += bad
    else:
        other_failures += bad
    print("%-28s %3d checked, %3d failed  %s" % (group, count, bad, "FAIL" if problems else "ok"))
    for subject, message in problems:
        message = " ".join(str(message).split())
        print("    - %s: %s" % (subject, message if len(message) <= 240 else message[:237] + "..."))


# ------------------------------------------------------------------ peer ID (independent implementation)

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


# The peer ID text form (PROTOCOL.md §4), written once for every Python tool (IntegrationTests/lib/interpay_wire.py);
# independent of the Swift code.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "IntegrationTests", "lib"))
from interpay_wire import base32_nopad, luhn_mod32 as luhn_mod32_check, parse_peer_id, peer_id_from_bytes  # noqa: E402,F401,E501


def peer_id_ok(text):
    try:
        return peer_id_from_bytes(parse_peer_id(text)) == text
    except ValueError:
        return False


def self_test_peer_id():
    import hashlib
    problems = []
    example = peer_id_from_bytes(bytes(range(32)))
    if example != "AAAQEAY-EAUDAO5-CAJBIFQ-YDIOB4X-IBCEQTC-QKRMFYM-YDENBWH-A5DYPQS":
        problems.append(("worked-example", "got " + example))
    for label in (b"alice", b"bob", b"", b"\xff" * 5):
        data = hashlib.sha256(label).digest()
        t = peer_id_from_bytes(data)
        if parse_peer_id(t) != data or parse_peer_id(t.lower().replace("O", "0")) != data:
            problems.append(("round-trip", repr(label)))
    for data in (bytes(32), b"\xff" * 32):
        if parse_peer_id(peer_id_from_bytes(data)) != data:
            problems.append(("round-trip", repr(data[:1])))
    return problems


# ------------------------------------------------------------------ schemas

def load_schemas():
    schemas = {}
    for fn in sorted(os.listdir(SCHEMA_DIR)):
        if fn.endswith(".json"):
            with open(os.path.join(SCHEMA_DIR, fn), encoding="utf-8") as f:
                schemas[fn] = json.load(f)
    return schemas


def build_validators(schemas):
    registry = Registry().with_resources(
        (s["$id"], Resource.from_contents(s, default_specification=DRAFT202012)) for s in schemas.values())
    validators = {}
    for fn, s in schemas.items():
        validators[fn[:-5]] = jsonschema.Draft202012Validator(s, registry=registry)
    return validators


def check_schemas(schemas):
    problems = []
    expected = {"common.json", "frame.json"} | {t + ".json" for t in FRAME_TYPES}
    if set(schemas) != expected:
        problems.append(("schema files", "expected %s, found %s" % (sorted(expected), sorted(schemas))))
    base = None
    for fn, s in sorted(schemas.items()):
        try:
            jsonschema.Draft202012Validator.check_schema(s)
        except jsonschema.SchemaError as e:
            problems.append((fn, "not a valid 2020-12 schema: " + e.message))
        if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
            problems.append((fn, "$schema is not 2020-12"))
        sid = s.get("$id", "")
        if not sid.endswith("/" + fn):
            problems.append((fn, "$id %r does not end with the file name" % sid))
        if base is None:
            base = sid[: -len(fn)]
        elif sid[: -len(fn)] != base:
            problems.append((fn, "$id base differs"))
        if fn[:-5] in FRAME_TYPES:
            if s.get("properties", {}).get("type") != {"const": fn[:-5]}:
                problems.append((fn, "properties.type must be {\"const\": %r}" % fn[:-5]))
            if "additionalProperties" in s:
                problems.append((fn, "additionalProperties must not be restricted"))
    with open(os.path.join(PROTO, "currencies.json"), encoding="utf-8") as f:
        currencies = json.load(f)["currencies"]
    enum = schemas.get("common.json", {}).get("$defs", {}).get("currency", {}).get("enum")
    if enum != sorted(currencies):
        problems.append(("currency enum", "common.json enum differs from currencies.json "
                                          "(run protocol/schema/generate.py)"))
    # every $ref must resolve offline against the registry built from these files
    registry = Registry().with_resources(
        (doc["$id"], Resource.from_contents(doc, default_specification=DRAFT202012)) for doc in schemas.values())

    def refs(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "$ref" and isinstance(v, str):
                    yield v
                else:
                    yield from refs(v)
        elif isinstance(node, list):
            for v in node:
                yield from refs(v)

    for fn, doc in sorted(schemas.items()):
        resolver = registry.resolver(base_uri=doc.get("$id", ""))
        for ref in refs(doc):
            if ":" in ref.split("#")[0] or ref.startswith("/"):
                problems.append((fn, "$ref %r is not a relative reference" % ref))
            try:
                resolver.lookup(ref)
            except Exception as e:  # referencing.exceptions.Unresolvable and friends
                problems.append((fn, "$ref %r does not resolve: %s" % (ref, type(e).__name__)))
    return problems


# ------------------------------------------------------------------ framing and classification

class FramingError(Exception):
    def __init__(self, kind, detail):
        super().__init__(detail)
        self.kind = kind


def _reject_constant(name):
    raise ValueError("non-JSON constant " + name)


def _check_scalars(value):
    """Reject strings that contain surrogates (from \\ud800-style escapes)."""
    if isinstance(value, str):
        value.encode("utf-8")
    elif isinstance(value, list):
        for v in value:
            _check_scalars(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_scalars(k)
            _check_scalars(v)


def decode_frame(data, max_frame=DEFAULT_MAX_FRAME):
    """Decode exactly one frame from data. Returns (length, body_bytes, object)."""
    if len(data) < 4:
        raise FramingError("truncated", "fewer than 4 bytes")
    n = int.from_bytes(data[:4], "big")
    if n > max_frame:
        raise FramingError("oversize", "length %d > %d" % (n, max_frame))
    if len(data) < 4 + n:
        raise FramingError("truncated", "body has %d of %d bytes" % (len(data) - 4, n))
    if len(data) > 4 + n:
        raise ValueError("vector holds trailing bytes after the frame")
    if n == 0:
        raise FramingError("invalid-json", "empty body")
    body = data[4:]
    try:
        text = body.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise FramingError("invalid-utf8", str(e))
    if text.startswith("\ufeff"):
        raise FramingError("invalid-json", "byte order mark")
    try:
        obj = json.loads(text, parse_constant=_reject_constant)
        _check_scalars(obj)
    except (ValueError, UnicodeEncodeError) as e:
        raise FramingError("invalid-json", str(e))
    if not isinstance(obj, dict):
        raise FramingError("invalid-json", "not a JSON object")
    return n, body, obj


def classify_fields(obj, validators):
    """Schema-level class of a decoded object: None if valid, else an error class and details."""
    if not isinstance(obj.get("type"), str):
        return "missing-field", "no string type"
    if obj["type"] not in FRAME_TYPES:
        return "unknown-type", obj["type"]
    errors = list(validators[obj["type"]].iter_errors(obj))
    if not errors:
        return None, ""
    kinds = {"missing-field" if e.validator == "required" else "invalid-field" for e in errors}
    detail = "; ".join("%s at /%s" % (e.validator, "/".join(map(str, e.absolute_path))) for e in errors)
    if len(kinds) > 1:
        return "mixed", detail
    return kinds.pop(), detail


def semantic_failures(obj):
    """Rules JSON Schema cannot express. Returns the set of failed check names."""
    failures = set()
    t = obj.get("type")
    if t == "request":
        p = obj["payment"]
        if not (peer_id_ok(p["payee"]) and peer_id_ok(p["payer"])):
            failures.add("peer-id-check")
        if p["payee"] == p["payer"]:
            failures.add("payee-differs-payer")
        if not p["expiresAt"] > p["createdAt"]:
            failures.add("expires-after-created")
    elif t == "series" and isinstance(obj.get("offer"), dict):
        o = obj["offer"]
        if not (peer_id_ok(o["payee"]) and peer_id_ok(o["payer"])):
            failures.add("peer-id-check")
        if o["payee"] == o["payer"]:
            failures.add("payee-differs-payer")
    elif t == "hello":
        if obj["maxVersion"] < obj["minVersion"]:
            failures.add("version-range")
        try:
            # A whole peer ID in its lenient form (any case, '-' or spaces or none, 0/1/8 for O/I/B): the check
            # characters decide, which no pattern can (PROTOCOL.md §7.2).
            parse_peer_id(obj["name"])
            failures.add("name-like-id")
        except ValueError:
            pass
        if name_looks_like_id(obj["name"]):
            failures.add("name-lookalike")
    elif t in ("settle", "refund"):
        if len(obj.get("receipt", "").encode("utf-8")) > MAX_RECEIPT_BYTES:
            failures.add("receipt-bytes")
        if t == "refund" and str(obj["refundOf"]).lower() == str(obj["paymentID"]).lower():
            failures.add("refund-of-itself")
    return failures


# Letters of other scripts drawn as a Latin capital of the ID alphabet (a subset of UTS #39's confusables).
LOOKALIKES = {"\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H",
              "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0423": "Y",
              "\u0405": "S", "\u0406": "I", "\u0408": "J", "\u0417": "3", "\u0391": "A", "\u0392": "B",
              "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K", "\u039c": "M",
              "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
              "0": "O", "1": "I", "8": "B"}


def name_looks_like_id(name):
    """PROTOCOL.md §7.2's look-alike rule, written apart from the Swift code: the name read as the ID characters
    its code points resemble (NFKC folds full-width and mathematical letters; the table the rest) reads as an ID."""
    import re
    import unicodedata
    if not isinstance(name, str):
        return False
    skeleton = "".join(LOOKALIKES.get(c, c) for c in unicodedata.normalize("NFKC", name))
    skeleton = re.sub("[\u2010-\u2015\u2212\ufe58\ufe63]", "-", skeleton)
    return (re.fullmatch("[A-Z2-7]{4,}", skeleton) is not None
            or re.fullmatch("[A-Za-z2-7]{7}(-[A-Za-z2-7]{7})*-[A-Za-z2-7]{0,7}", skeleton) is not None
            or peer_id_ok(skeleton))


def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# ------------------------------------------------------------------ vector groups

def check_each(vectors, check):
    """Runs `check` on every vector; an AssertionError is its problem, any other exception (a crash, e.g. an
    unresolvable $ref) fails the vector too, with the exception's type."""
    problems = []
    for v in vectors:
        try:
            check(v)
        except Exception as e:
            problems.append((v.get("name", "?"),
                             "%s: %s" % (type(e).__name__, e) if not isinstance(e, AssertionError) else str(e)))
    return problems


def require_keys(vector, keys):
    for key in keys:
        if key not in vector:
            raise AssertionError("missing key " + key)


def check_valid(vectors, validators):
    return check_each(vectors, lambda v: check_valid_vector(v, validators))


def check_valid_vector(v, validators):
    require_keys(v, ("name", "description", "frame", "hex"))
    data = bytes.fromhex(v["hex"])
    if v["hex"] != data.hex():
        raise AssertionError("hex is not lowercase")
    n, body, obj = decode_frame(data)
    if n != len(body):
        raise AssertionError("length prefix mismatch")
    if body != canonical(v["frame"]):
        raise AssertionError("body is not the canonical dump of frame")
    if obj != v["frame"]:
        raise AssertionError("decoded body differs from frame")
    if not validators["frame"].is_valid(obj):
        raise AssertionError("frame.json rejects it: " +
                             jsonschema.exceptions.best_match(validators["frame"].iter_errors(obj)).message)
    cls, detail = classify_fields(obj, validators)
    if cls is not None:
        raise AssertionError("%s schema rejects it (%s): %s" % (obj.get("type"), cls, detail))
    sem = semantic_failures(obj)
    if sem:
        raise AssertionError("semantic checks fail: " + ", ".join(sorted(sem)))
    if v.get("ignoresUnknown") and not v.get("decodeOnly"):
        raise AssertionError("ignoresUnknown vectors must be decodeOnly")


def check_invalid(vectors, validators):
    return check_each(vectors, lambda v: check_invalid_vector(v, validators))


def check_invalid_vector(v, validators):
    require_keys(v, ("name", "description", "hex", "error"))
    expected = v["error"]
    if expected not in FRAMING_ERRORS | FIELD_ERRORS:
        raise AssertionError("unknown error class " + expected)
    detectable = v.get("schemaDetectable", True)
    check = v.get("semanticCheck")
    data = bytes.fromhex(v["hex"])
    if "maxFrameSize" in v:
        if not 4096 <= v["maxFrameSize"] <= DEFAULT_MAX_FRAME:
            raise AssertionError("maxFrameSize outside the permitted 4096..65536")
        # single defect: with the default limit the frame must be fine
        _, _, obj = decode_frame(data)
        if classify_fields(obj, validators)[0] is not None or semantic_failures(obj):
            raise AssertionError("frame is invalid even without the lowered limit")
    try:
        _, _, obj = decode_frame(data, v.get("maxFrameSize", DEFAULT_MAX_FRAME))
    except FramingError as e:
        if e.kind != expected:
            raise AssertionError("framing says %s (%s), vector says %s" % (e.kind, e, expected))
        if not detectable or check:
            raise AssertionError("framing error vector must not be marked semantic")
        return
    if expected in FRAMING_ERRORS:
        raise AssertionError("expected framing error %s but the frame decoded" % expected)
    frame_ok = validators["frame"].is_valid(obj)
    cls, detail = classify_fields(obj, validators)
    if detectable:
        if check:
            raise AssertionError("semanticCheck set on a schema-detectable vector")
        if frame_ok:
            raise AssertionError("frame.json accepts it")
        if cls != expected:
            raise AssertionError("schema class %s (%s), vector says %s" % (cls, detail, expected))
    else:
        if check not in SEMANTIC_CHECKS:
            raise AssertionError("schemaDetectable false needs a known semanticCheck")
        if expected != "invalid-field":
            raise AssertionError("semantic failures are invalid-field")
        if not frame_ok or cls is not None:
            raise AssertionError("not single-fault: schema rejects it too (%s)" % detail)
        sem = semantic_failures(obj)
        if sem != {check}:
            raise AssertionError("semantic failures %s, expected {%s}" % (sorted(sem), check))


def verify_receipt(text):
    """Independent receipt check (PROTOCOL.md §17). Returns None if valid, else the error class."""
    import hashlib
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
    try:
        obj = json.loads(text)
    except ValueError:
        return "malformed"
    required = {"type", "version", "paymentID", "payeeID", "payeeName", "payerID", "payerName", "amount",
                "currency", "memo", "acceptedAt", "settledAt", "payeeKey", "signature"}
    if not isinstance(obj, dict) or not required <= set(obj) or obj["type"] != "interpay-receipt":
        return "malformed"
    # A refund's receipt names the refunded payment; a payment's names none (§17.1).
    if obj.get("kind", "refund") != "refund" or ("refundOf" in obj) != ("kind" in obj):
        return "malformed"
    if canonical(obj).decode("utf-8") != text:
        return "not-canonical"
    key_der = bytes.fromhex(obj["payeeKey"])
    try:
        key = serialization.load_der_public_key(key_der)
    except ValueError:
        return "invalid-key"
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
        return "invalid-key"
    if peer_id_from_bytes(hashlib.sha256(key_der).digest()) != obj["payeeID"]:
        return "key-mismatch"
    raw = bytes.fromhex(obj["signature"])
    if len(raw) != 64:
        return "malformed"
    signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    terms = {k: v for k, v in obj.items() if k != "signature"}
    try:
        key.verify(signature, canonical(terms), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "bad-signature"
    return None


def check_receipts(vectors):
    return check_each(vectors, check_receipt_vector)


def check_receipt_vector(v):
    got = verify_receipt(v["receipt"])
    want = None if v["valid"] else v["error"]
    if got != want:
        raise AssertionError("verification says %s, vector says %s" % (got or "valid", want or "valid"))


def check_generated():
    """The committed vector files must equal a fresh run of the generator."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("vector_generate", os.path.join(VECTOR_DIR, "generate.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    problems = []
    for fn, text in mod.render().items():
        with open(os.path.join(VECTOR_DIR, fn), encoding="utf-8") as f:
            if f.read() != text:
                problems.append((fn, "differs from protocol/vectors/generate.py output"))
    return problems


def check_pair_rule(vectors):
    """PROTOCOL.md §2.1's pair rule, computed here on its own: FNV-1a 64 over low, LF, high (UTF-8 octet order)."""
    problems = []
    for v in vectors:
        a, b = v["a"].encode("utf-8"), v["b"].encode("utf-8")
        low, high = min(a, b), max(a, b)
        digest = 0xCBF29CE484222325
        for byte in low + b"\n" + high:
            digest = ((digest ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        side = "a" if (low if digest % 2 == 0 else high) == a else "b"
        if "%016x" % digest != v["fnv1a"] or side != v["resolvesFirst"]:
            problems.append((v["name"], "expected %s, side %s; computed %016x, side %s"
                             % (v["fnv1a"], v["resolvesFirst"], digest, side)))
    return problems


def main():
    schemas = load_schemas()
    p = check_schemas(schemas)
    report("schemas", p, len(schemas) + 1, vectors=False)  # +1: currency enum
    validators = build_validators(schemas)

    p = self_test_peer_id()
    report("peer-id self-test", p, 1, vectors=False)

    with open(os.path.join(VECTOR_DIR, "valid.json"), encoding="utf-8") as f:
        valid = json.load(f)
    with open(os.path.join(VECTOR_DIR, "invalid.json"), encoding="utf-8") as f:
        invalid = json.load(f)
    names = [v.get("name") for v in valid + invalid]
    dup = sorted({n for n in names if names.count(n) > 1})
    report("vector names unique", [("names", "duplicates %s" % dup)] if dup else [], 1, vectors=False)

    groups = {}
    for v in valid:
        groups.setdefault("valid/" + v.get("frame", {}).get("type", "?"), []).append(v)
    for g in sorted(groups):
        report(g, check_valid(groups[g], validators), len(groups[g]))
    missing = set(FRAME_TYPES) - {g.split("/")[1] for g in groups}
    report("valid coverage", [("frame types", "no valid vector for %s" % sorted(missing))] if missing else [], 1,
           vectors=False)

    igroups = {}
    for v in invalid:
        igroups.setdefault("invalid/" + v.get("error", "?"), []).append(v)
    for g in sorted(igroups):
        report(g, check_invalid(igroups[g], validators), len(igroups[g]))

    with open(os.path.join(VECTOR_DIR, "receipts.json"), encoding="utf-8") as f:
        receipts = json.load(f)
    report("receipts", check_receipts(receipts), len(receipts))

    with open(os.path.join(VECTOR_DIR, "discovery.json"), encoding="utf-8") as f:
        discovery = json.load(f)
    report("discovery pair rule", check_pair_rule(discovery), len(discovery))

    p = check_generated()
    report("generator up to date", p, 1, vectors=False)

    if other_failures:
        print("other checks: %d failed" % other_failures)
    print("vectors: %d passed, %d failed" % (passed, failed))
    return 1 if failed or other_failures else 0


if __name__ == "__main__":
    sys.exit(main())
