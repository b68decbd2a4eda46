"""Names beat IDs (SECURITY.md T-NAMES): a peer announcing another peer's ID, short ID or name as its own."""

import json
import time

import interpay_wire as wire

DESCRIPTION = "a hello name that reads as an ID is refused; send/pair by ID reach that ID; duplicate names are ambiguous"


def hello_answer(h, daemon, identity, name):
    """Sends a hello named `name`; the error the daemon answers with (None if it accepted the hello)."""
    conn = h.connect(daemon, identity, hello=False)
    conn.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": name, "capabilities": [],
               "agent": "hostile/1"})
    try:
        answer = conn.next_frame(lambda f: f.get("type") == "error", timeout=3)
    except wire.Closed:
        answer = None
    conn.close()
    return answer


def listed_offline(daemon, peer_id, timeout=wire.DEADLINE):
    """True once `interpay peers` lists `peer_id` without a session: the ledger has kept it after its session ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        out = daemon.interpay("peers", "--json")
        if out.returncode == 0 and any(p.get("id") == peer_id and p.get("session") == "down"
                                       for p in json.loads(out.stdout).get("peers", [])):
            return True
        time.sleep(0.1)
    return False


def reaches_bob(h, alice, real, bob, text, what):
    """`interpay send TEXT` reaches the real bob's connection `real` (which acknowledges it)."""
    out = alice.interpay("send", text, "2", "EUR", "--json")
    got = None
    try:
        got = real.next_frame(lambda f: f.get("type") == "request", timeout=5)
    except wire.Closed:
        pass
    h.check(out.returncode == 0 and got is not None and got["payment"]["payer"] == bob["id"], what,
            "exit %d: %s" % (out.returncode, out.stderr))
    if got:
        real.send({"type": "ack", "ackedID": got["messageID"], "paymentID": got["payment"]["id"],
                   "state": "pending"})


def run(h):
    alice = h.daemon("alice")
    bob = h.identity("bob")
    mallory = h.identity("mallory")
    short = bob["id"][:7]

    # 1. Names that read as IDs are refused at hello, with invalid-field: also as they look (T-LOOKALIKE).
    fullwidth = "".join(chr(ord(c) + 0xFEE0) for c in short)
    digits = short.replace("O", "0").replace("I", "1").replace("B", "8")
    lookalikes = [("bob's full ID", bob["id"]), ("bob's short ID", short), ("an ID group", bob["id"][:10]),
                  ("bob's short ID in full-width letters", fullwidth),
                  ("bob's short ID and a zero-width space", short + "\u200b"),
                  ("bob's short ID and a trailing space", short + " "),
                  ("bob's short ID after a word joiner", "\u2060" + short)]
    if digits != short:
        lookalikes.append(("bob's short ID with 0/1/8 for O/I/B", digits))
    for label, name in lookalikes:
        answer = hello_answer(h, alice, mallory, name)
        h.check(answer is not None and wire.refused_field(answer),
                "a hello named with %s is refused (malformed-frame, invalid field)" % label, wire.describe(answer))

    # 2. The real bob comes and goes; mallory then takes the name "bob".
    real = h.connect(alice, bob, name="bob")
    h.check(alice.wait_for_session(bob["id"]), "alice lists the real bob's session")
    real.close()
    h.check(listed_offline(alice, bob["id"]), "alice lists the real bob offline once he has gone")
    fake = h.connect(alice, mallory, name="bob")
    h.check(alice.wait_for_session(mallory["id"]), "alice lists the impostor's session")
    out = alice.interpay("send", "bob", "1", "EUR")
    h.check(out.returncode == 4 and short in out.stderr and mallory["id"][:7] in out.stderr,
            "'send bob' with two peers named bob (the real one offline) is ambiguous, exit 4, listing both IDs",
            "exit %d: %s%s" % (out.returncode, out.stdout, out.stderr))
    requests = [f for f in fake.received if f.get("type") == "request"]
    h.check(not requests, "the impostor received no request from the ambiguous send", wire.describe(requests[:1]))

    # 3. send and pair by bob's ID while only impostors are online, one of them (if its hello is let in) named
    #    with bob's short ID: never reach an impostor.
    mimic = h.identity("mimic")
    try:
        named_id = h.connect(alice, mimic, name=short)
    except wire.Closed:
        named_id = None
    time.sleep(0.5)
    for what, args in [("send by short ID", ["send", short, "1", "EUR"]),
                       ("send by full ID", ["send", bob["id"], "1", "EUR"]),
                       ("pair by short ID", ["pair", short])]:
        out = alice.interpay(*args)
        h.check(out.returncode == 6, "%s with bob offline fails as unreachable (exit 6), not sent to mallory" % what,
                "exit %d: %s%s" % (out.returncode, out.stdout, out.stderr))
    for label, impostor in [("named bob", fake), ("named with bob's short ID", named_id)]:
        extra = None
        if impostor is not None:
            try:
                extra = impostor.next_frame(lambda f: f.get("type") in ("request", "pair"), timeout=2)
            except wire.Closed:
                pass
        h.check(extra is None, "the impostor %s received no request or pairing frame" % label, wire.describe(extra))
    if named_id is not None:
        named_id.close()

    # 4. With the real bob back, his ID reaches him.
    real = h.connect(alice, bob, name="bob")
    h.check(alice.wait_for_session(bob["id"]), "alice lists the real bob's session again")
    reaches_bob(h, alice, real, bob, short, "send by short ID reaches the real bob")
    # The short ID typed with the look-alikes 0, 1, 8 (read as O, I, B, PROTOCOL.md §4.3) is bob's ID too.
    typed = short.replace("O", "0").replace("I", "1").replace("B", "8").lower()
    reaches_bob(h, alice, real, bob, typed, "send '%s' (bob's short ID as typed with look-alikes) reaches the real bob"
                % typed)
    peers = json.loads(alice.interpay("peers", "--json").stdout or "{}").get("peers", [])
    h.check(sum(1 for p in peers if p.get("name") == "bob") == 2, "peers lists both peers named bob, by ID",
            json.dumps(peers)[:300])
    real.close()
    fake.close()
