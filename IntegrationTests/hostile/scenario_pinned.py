"""Paired names are pinned (SECURITY.md T-PINNED): a paired peer comes back announcing another name."""

import json
import os
import time
import uuid

import interpay_wire as wire

DESCRIPTION = "a paired peer that renames itself 'landlord' stays shown under its paired name, the new one flagged"


def pair(h, daemon, identity, conn):
    """Pairs `daemon` with the peer on `conn` honestly; returns whether the daemon's user confirmed the code."""
    mine = identity["bytes"]
    theirs = wire.parse_peer_id(daemon.id)
    daemon.wait_for_session(identity["id"])
    out = daemon.interpay("pair", identity["id"][:7])
    if out.returncode != 0:
        print("pair failed: %s %s" % (out.stdout, out.stderr))
        return False
    commit = conn.next_frame(lambda f: f.get("type") == "pair" and f.get("step") == "commit")
    if commit is None:
        return False
    nonce = os.urandom(32)
    attempt = str(uuid.uuid4())
    conn.send({"type": "pair", "pairingID": attempt, "step": "commit", "value": wire.pairing_commit(mine, nonce)})
    conn.send({"type": "pair", "pairingID": attempt, "step": "reveal", "value": nonce.hex()})
    reveal = conn.next_frame(lambda f: f.get("type") == "pair" and f.get("step") == "reveal")
    if reveal is None:
        return False
    shown = wire.pairing_code(mine, nonce, theirs, bytes.fromhex(reveal["value"]))
    for _ in range(50):
        out = daemon.interpay("pair", identity["id"][:7], "--code", shown)
        if out.returncode == 0:
            return True
        time.sleep(0.1)
    print("confirm failed: %s %s" % (out.stdout, out.stderr))
    return False


def run(h):
    alice = h.daemon("alice")
    bob = h.identity("bob")
    conn = h.connect(alice, bob, name="bob", capabilities=["pairing-v2"])
    h.check(pair(h, alice, bob, conn), "alice pairs with bob by code")
    conn.close()
    time.sleep(1)

    # bob's key comes back as "landlord" and asks for the rent.
    conn = h.connect(alice, bob, name="landlord", capabilities=["pairing-v2"])
    frame = wire.request_frame(bob["id"], alice.id, minor=90000, currency="EUR", memo="rent")
    conn.send(frame)
    conn.answer_to(frame["messageID"])
    listing = alice.interpay("list").stdout
    h.check('bob (%s) (announces "landlord") [name changed]' % bob["id"][:7] in listing,
            "list shows the paired name with the announced one flagged", listing[-400:])
    peers = json.loads(alice.interpay("peers", "--json").stdout)["peers"]
    row = [p for p in peers if p["id"] == bob["id"]]
    h.check(row and row[0]["name"] == "bob" and row[0]["announcedName"] == "landlord"
            and row[0]["trust"]["state"] == "paired", "peers keeps the name confirmed at pairing",
            json.dumps(row)[:300])
    out = alice.interpay("send", "landlord", "1", "EUR")
    h.check(out.returncode == 4, "'send landlord' does not find the paired bob by its new name (exit 4)",
            "exit %d: %s" % (out.returncode, out.stderr))

    # The user renames bob locally; an unpaired peer cannot be renamed.
    out = alice.interpay("rename", bob["id"][:7], "Robert")
    h.check(out.returncode == 0, "interpay rename changes the kept name", out.stderr)
    listing = alice.interpay("list").stdout
    h.check('Robert (%s) (announces "landlord") [name changed]' % bob["id"][:7] in listing,
            "list shows the new kept name",
            listing[-300:])
    stranger = h.identity("stranger")
    other = h.connect(alice, stranger, name="stranger")
    time.sleep(0.3)
    out = alice.interpay("rename", stranger["id"][:7], "friend")
    h.check(out.returncode == 4, "an unpaired peer cannot be renamed (exit 4)",
            "exit %d: %s" % (out.returncode, out.stderr))
    other.close()
    conn.close()
