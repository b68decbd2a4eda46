"""Static peers (SECURITY.md T-STATIC): `--peer HOST:PORT` pins the first key and keeps the pin; `ID@HOST:PORT`."""

import json
import socket
import time

DESCRIPTION = "a static peer's first key is pinned across restarts; another key there is refused and shown"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def peers(daemon):
    out = daemon.interpay("peers", "--json")
    return json.loads(out.stdout) if out.returncode == 0 else {}


def session_with(daemon, peer_id, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(p["id"] == peer_id and p["session"] == "up" for p in peers(daemon).get("peers", [])):
            return True
        time.sleep(0.3)
    return False


def static_row(daemon):
    rows = peers(daemon).get("static", [])
    return rows[0] if rows else {}


def run(h):
    port = free_port()
    bob = h.daemon("bob", port=port)
    alice = h.daemon("alice", args=["--peer", "127.0.0.1:%d" % port])
    h.check(session_with(alice, bob.id), "alice reaches the static peer")
    time.sleep(1)
    row = static_row(alice)
    h.check(row.get("pin") == "first-seen" and row.get("peerID") == bob.id, "the first key seen is pinned",
            json.dumps(row))

    # A restart keeps the pin; then another key answers at that address.
    h.stop(alice)
    h.stop(bob)
    mallory = h.daemon("mallory", port=port)
    alice = h.daemon("alice", args=["--peer", "127.0.0.1:%d" % port])
    time.sleep(4)
    h.check(not session_with(alice, mallory.id, seconds=2), "after a restart, another key at the address is refused")
    row = static_row(alice)
    h.check(row.get("peerID") == bob.id and row.get("refusedID") == mallory.id,
            "peers shows the pinned key and the refused one", json.dumps(row))
    shown = alice.interpay("peers").stdout
    h.check("a different key" in shown and mallory.id[:7] in shown, "the table says so", shown[-300:])
    h.check(alice.log_has(0, r"does not match"), "the refusal is logged")

    # The user accepts the new key by untrusting the old one.
    out = alice.interpay("untrust", bob.id[:7])
    h.check(out.returncode == 0 and "no longer pinned" in out.stdout, "interpay untrust forgets the pin",
            out.stdout + out.stderr)
    h.check(session_with(alice, mallory.id), "the next key seen is pinned and used")

    # With ID@HOST:PORT only that key is accepted, from the first contact on.
    carol = h.daemon("carol", args=["--peer", "%s@127.0.0.1:%d" % (bob.id, port)])
    time.sleep(3)
    h.check(not session_with(carol, mallory.id, seconds=2), "ID@HOST:PORT refuses any other key at first contact")
    row = static_row(carol)
    h.check(row.get("pin") == "configured" and row.get("refusedID") == mallory.id, "and shows the refusal",
            json.dumps(row))
