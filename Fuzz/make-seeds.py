#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora and dictionaries into OUTDIR.

OUTDIR/frames/   every frame of protocol/vectors/valid.json and invalid.json, plus streams of several frames
OUTDIR/control/  JSON-RPC request lines as `interpay` sends them (one method each), and broken ones
OUTDIR/frames.dict, OUTDIR/control.dict   libFuzzer dictionaries (member names, frame types, methods)

Usage: Fuzz/make-seeds.py OUTDIR
"""

import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"


def compact(value):
    """The control protocol's text form: compact, sorted keys (as JSONValue.jsonText)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def request(method, params=None, id=1):
    message = {"jsonrpc": "2.0", "method": method}
    if id is not None:
        message["id"] = id
    if params is not None:
        message["params"] = params
    return compact(message)


PAYMENT = "0b5f0c8e-3f7a-4d7e-9c52-4a0e1b2c3d4e"

# One request per method of the daemon (InterPayDaemon's ControlMethods, plus the server's own `subscribe`), with
# the params the CLI sends.
REQUESTS = [
    request("status"),
    request("peers"),
    request("send", {"peer": "bob", "amount": "12.50", "currency": "MXN", "memo": "lunch",
                     "category": "food", "expiresInSeconds": 900}),
    request("accept", {"payment": PAYMENT}),
    request("reject", {"payment": "0b5f", "reason": "not mine"}),
    request("cancel", {"payment": PAYMENT}),
    request("paid", {"payment": PAYMENT, "method": "transfer", "reference": "SPEI 0042"}),
    request("received", {"payment": PAYMENT}),
    request("receipt", {"payment": PAYMENT}),
    request("export", {"from": 1795000000, "to": 1795086400, "state": "settled"}),
    request("list", {"state": "pending", "direction": "in", "peer": "bob", "limit": 200}),
    request("show", {"payment": PAYMENT}),
    request("history", {"limit": 50}),
    request("stats", {"period": "month", "by": "currency"}),
    request("convert", {"amount": "12.50", "from": "MXN", "to": "EUR"}),
    request("rates", {"base": "EUR", "all": True}),
    request("offer", {"peer": "bob", "amount": "30", "currency": "EUR", "every": "month", "count": 12,
                      "start": "2026-01-31T09:00", "memo": "gym", "category": "sport"}),
    request("approve", {"series": "0b5f", "max": "35"}),
    request("decline", {"series": PAYMENT, "reason": "not now"}),
    request("unsubscribe", {"series": PAYMENT}),
    request("subscriptions"),
    request("subscribe"),
    request("status", id="a-string-id"),
    request("status", id=None),
    request("list", [1, -2.5e-3, None, False, "\u00e9\\u00e9", {"nested": [[[]]]}]),
]

BROKEN = [
    "",
    "   \t\r",
    "[" + request("status") + "]",
    '{"jsonrpc":"1.0","id":1,"method":"status"}',
    '{"jsonrpc":"2.0","id":1.5,"method":"status"}',
    '{"jsonrpc":"2.0","id":1,"method":7}',
    '{"jsonrpc":"2.0","id":1,"method":"list","params":"x"}',
    '{"jsonrpc":"2.0","id":1,"method":"st\\ud83d\\ude00tus"}',
    '{"jsonrpc":"2.0","id":9223372036854775807,"method":"status","params":{}}',
    '{"jsonrpc":"2.0","id":1,"method":"status"',
    "nul\x00l",
]


def frames():
    valid = json.loads((VECTORS / "valid.json").read_text())
    invalid = json.loads((VECTORS / "invalid.json").read_text())
    seeds = {}
    for vector in valid:
        seeds["valid-" + vector["name"]] = bytes.fromhex(vector["hex"])
    for vector in invalid:
        seeds["invalid-" + vector["name"]] = bytes.fromhex(vector["hex"])
    small = [bytes.fromhex(v["hex"]) for v in valid if len(v["hex"]) < 2048]
    seeds["stream-valid"] = b"".join(small[:6])
    seeds["stream-valid-then-invalid"] = b"".join(small[:2]) + bytes.fromhex(invalid[-1]["hex"])
    return seeds, valid


def dictionary(tokens):
    lines = []
    for token in sorted(set(tokens)):
        escaped = "".join(
            chr(b) if 0x20 <= b < 0x7F and chr(b) not in '"\\' else "\\x%02X" % b for b in token.encode())
        lines.append('"%s"' % escaped)
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) == 2 else 2
    out = pathlib.Path(sys.argv[1])
    (out / "frames").mkdir(parents=True, exist_ok=True)
    (out / "control").mkdir(parents=True, exist_ok=True)

    seeds, valid = frames()
    for name, data in seeds.items():
        (out / "frames" / name).write_bytes(data)
    for index, line in enumerate(REQUESTS + BROKEN):
        (out / "control" / ("line-%02d" % index)).write_bytes(line.encode() + b"\n")
    (out / "control" / "several-lines").write_bytes("\r\n".join(REQUESTS[:4]).encode() + b"\n\n")
    (out / "control" / "unterminated").write_bytes(REQUESTS[0].encode())

    json_tokens = ['{', '}', '[', ']', ':', ',', '"', 'true', 'false', 'null', '\\u', '\\"', '\\\\',
                   '\\ud83d\\ude00', '-0', '1e400', '0.5', '9223372036854775808']
    keys = set()

    def walk(value):
        if isinstance(value, dict):
            for key, member in value.items():
                keys.add(json.dumps(key, ensure_ascii=False) + ":")
                walk(member)
        elif isinstance(value, list):
            for member in value:
                walk(member)
        elif isinstance(value, str) and len(value) <= 40:
            keys.add(json.dumps(value, ensure_ascii=False))

    for vector in valid:
        walk(vector["frame"])
    (out / "frames.dict").write_text(dictionary(json_tokens + sorted(keys) + ["\x00\x00\x00", "\x00\x01\x00\x00"]))

    control_tokens = set(json_tokens + ['"jsonrpc":"2.0"', '"id":', '"method":', '"params":', "\r\n", "\n"])
    for line in REQUESTS:
        walk(json.loads(line))
    control_tokens |= keys
    (out / "control.dict").write_text(dictionary(control_tokens))
    print("make-seeds: %d frame seeds, %d control seeds in %s"
          % (len(seeds), len(REQUESTS) + len(BROKEN) + 2, out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
