"""Ledger and CPU growth (SECURITY.md T-FLOOD, T-GROWTH): twenty fresh keys flood a daemon with requests, half of them
already expired; then requests that expire within a second, which free their pending slots at once."""

import json
import os
import sqlite3
import time

import interpay_wire as wire

DESCRIPTION = ("20 fresh keys × 150 requests (half expired on arrival): shared limits bound the ledger; idle CPU after; "
               "requests expiring at once: the day's budget bounds the ledger")

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

    fast_expiring(h)


def fast_expiring(h):
    """T-GROWTH: requests that expire a second after they arrive leave the pending counts at once, so before the
    day's budget keys no one paired could store ~1,200 payments a minute (1.4 KB each, kept at least 7 days after
    expiry: about 2.4 GB a day). With 10 pending per peer, the unpaired share 100 a day."""
    bob = h.daemon("bob", "[limits]\nmax_pending_per_peer = 10\n")
    identities = [h.identity("brief%02d" % index) for index in range(4)]
    connections = [h.connect(bob, identity, name="brief %d" % index) for index, identity in enumerate(identities)]
    stored = 0
    sent = 0
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline:
        frames = []
        for identity, conn in zip(identities, connections):
            for _ in range(5):
                frame = wire.request_frame(identity["id"], bob.id, memo="brief", lifetime=1)
                conn.send(frame)
                frames.append((conn, frame))
        for conn, frame in frames:
            answer = conn.answer_to(frame["messageID"])
            sent += 1
            stored += 1 if answer is not None and answer.get("type") == "ack" else 0
        time.sleep(1.1)  # the requests expire; their pending slots are free again
    database = sqlite3.connect("file:%s?mode=ro" % os.path.join(h.work, "bob", "ledger.sqlite"), uri=True)
    rows = database.execute("SELECT count(*) FROM payment").fetchone()[0]
    database.close()
    print("flood: %d requests expiring at once sent in 12 s, %d stored" % (sent, rows), flush=True)
    h.check(rows <= 100, "keys no one paired store at most the day's budget of 100: %d of %d" % (rows, sent))
    refused = [conn.received[-1] for conn in connections if conn.received]
    h.check(any(f.get("code") == "limit-exceeded" and "today" in f.get("message", "") for f in refused),
            "the rest are refused limit-exceeded, saying it is the day's budget",
            wire.describe(refused[0]) if refused else "")
    for conn in connections:
        conn.close()
