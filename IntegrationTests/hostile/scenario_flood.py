"""Ledger and CPU growth (SECURITY.md T-FLOOD): twenty fresh keys flood a daemon with requests, half of them
already expired."""

import json
import os
import sqlite3
import time

import interpay_wire as wire

DESCRIPTION = "20 fresh keys × 150 requests (half expired on arrival): shared limits bound the ledger; idle CPU after"

KEYS = 20
PER_KEY = 150


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(h):
    alice = h.daemon("alice")
    identities = [h.identity("flood%02d" % index) for index in range(KEYS)]
    connections = [h.connect(alice, identity, name="flood %d" % index) for index, identity in enumerate(identities)]
    now = int(time.time())
    sent = {}
    for round_index in range(PER_KEY):
        for identity, conn in zip(identities, connections):
            expired = round_index % 2 == 1
            frame = wire.request_frame(identity["id"], alice.id, memo="flood",
                                       created=now - 2000 if expired else now, lifetime=900)
            conn.send(frame)
            sent[frame["messageID"]] = expired
    answered = {}
    deadline = time.monotonic() + 120
    for conn in connections:
        while time.monotonic() < deadline:
            try:
                frame = conn.next_frame(lambda f: f.get("type") in ("ack", "error"), timeout=5)
            except wire.Closed:
                break
            if frame is None:
                break
            key = frame.get("ackedID") or frame.get("ref")
            answered[key] = frame
            if sum(1 for message in sent if message in answered) == len(sent):
                break
    h.check(len(answered) == len(sent), "every one of the %d requests is answered (%d)" % (len(sent), len(answered)))
    expired_acks = [answered[m] for m, expired in sent.items() if expired and m in answered]
    h.check(all(a.get("type") == "ack" and a.get("state") == "expired" for a in expired_acks),
            "requests expired on arrival are answered expired")
    refused = sum(1 for a in answered.values() if a.get("type") == "error" and a.get("code") == "limit-exceeded")

    ledger = os.path.join(h.work, "alice", "ledger.sqlite")
    if not os.path.exists(ledger):
        candidates = [os.path.join(root, name) for root, _, names in os.walk(os.path.join(h.work, "alice"))
                      for name in names if name.endswith(".sqlite")]
        ledger = candidates[0] if candidates else ledger
    database = sqlite3.connect("file:%s?mode=ro" % ledger, uri=True)
    rows = database.execute("SELECT state, count(*) FROM payment GROUP BY state").fetchall()
    database.close()
    counts = dict(rows)
    total = sum(counts.values())
    print("flood: %d requests sent, %d refused limit-exceeded, ledger rows by state %s" % (
        len(sent), refused, json.dumps(counts)), flush=True)
    h.check(counts.get("expired", 0) == 0, "no request expired on arrival was stored (%d)" % counts.get("expired", 0))
    h.check(total <= 1050, "the ledger holds at most the shared pending limit of 1,000 (+5%%): %d rows" % total)

    # Afterwards the idle daemon uses next to no CPU, and history answers at once.
    for conn in connections:
        conn.close()
    time.sleep(2)
    before = cpu_seconds(alice.pid)
    time.sleep(5)
    used = (cpu_seconds(alice.pid) - before) / 5
    print("flood: idle CPU afterwards %.1f %% of a core" % (used * 100), flush=True)
    h.check(used < 0.05, "the idle daemon afterwards uses under 5 %% of a core (%.1f %%)" % (used * 100))
    started = time.monotonic()
    out = alice.interpay("history", "--limit", "20")
    elapsed = time.monotonic() - started
    print("flood: interpay history --limit 20 took %.0f ms" % (elapsed * 1000), flush=True)
    h.check(out.returncode == 0, "history answers after the flood", out.stderr)
