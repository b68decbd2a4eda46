"""Pairing cannot be ground (SECURITY.md, "Pairing: the threat and what stops it"; PROTOCOL.md §7.9).

A peer with a key of its own and the pairing-v2 capability first sends commits to a daemon whose user has not run
`interpay pair`: it must get no answer at all, and the daemon must log (once, not per commit) that the peer wants to
pair. Then the daemon's user starts pairing with it, three times, and the peer tries to grind: it answers each
attempt's commit with a commit, receives the daemon's reveal, then tries to re-roll — a second, different commit;
an abort followed by a fresh commit; silence until the user types a wrong code. It must get at most one reveal per
attempt the user started, never a reveal for a commit sent outside one, and after the third failed attempt the
lockout must engage, be reported by `interpay pair` and `interpay peers`, and survive a restart of the daemon.
"""

import json
import os
import time
import uuid

import interpay_wire as wire

DESCRIPTION = "pairing: no answer before the user starts, one reveal per attempt, lockout after 3"

CAPABILITY = "pairing-v2"


def commit_frame(sender_bytes, attempt, nonce):
    """A pair frame committing to `nonce` in pairing attempt `attempt`."""
    return {"type": "pair", "pairingID": attempt, "step": "commit", "value": wire.pairing_commit(sender_bytes, nonce)}


def pair_frames(frames, step=None):
    return [f for f in frames if f.get("type") == "pair" and (step is None or f.get("step") == step)]


def run(h):
    victim = h.daemon("victim")
    mallory = h.identity("mallory")
    mallory_bytes = mallory["bytes"]
    short = mallory["id"][:7]

    conn = h.connect(victim, mallory, hello=False)
    conn.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "bob", "capabilities": [CAPABILITY],
               "agent": "hostile-pairing/1"})
    hello = conn.next_frame(lambda f: f.get("type") == "hello")
    h.check(hello is not None and CAPABILITY in hello.get("capabilities", []),
            "the daemon announces the %s capability" % CAPABILITY, wire.describe(hello))

    # 1. The victim's user has not started: commits get nothing back, and one log line.
    offset = victim.log_size()
    for _ in range(2):
        conn.send(commit_frame(mallory_bytes, str(uuid.uuid4()), os.urandom(32)))
    answers = pair_frames(conn.drain(wire.QUIET))
    h.check(not answers, "commits before the user starts are not answered", json.dumps(answers))
    h.check(victim.log_has(offset, r"wants to pair.*%s" % short),
            "the daemon logs that the peer wants to pair")
    noticed = [line for line in victim.log_lines_since(offset) if "wants to pair" in line]
    h.check(len(noticed) == 1, "the notice is rate-limited (one line for two commits)", "%d lines" % len(noticed))
    time.sleep(5)  # one commit of the per-peer budget comes back

    # 2. The user starts three attempts; the peer tries to re-roll in each.
    reveals = 0
    attempts = 0
    for attempt in range(3):
        offset = victim.log_size()
        out = victim.interpay("pair", short, "--json")
        attempts += 1
        started = json.loads(out.stdout) if out.returncode == 0 else {}
        h.check(started.get("trust", {}).get("pairing") == "waiting",
                "attempt %d: 'interpay pair' waits for the peer's user" % (attempt + 1), out.stdout + out.stderr)
        h.check(victim.log_has(offset, r"pairing attempt started.*%s" % short),
                "attempt %d is logged with the peer's short ID" % (attempt + 1))
        their_commit = conn.next_frame(lambda f: f.get("type") == "pair" and f.get("step") == "commit")
        h.check(their_commit is not None, "attempt %d: the daemon sends its commit" % (attempt + 1))
        mine = str(uuid.uuid4())
        conn.send(commit_frame(mallory_bytes, mine, os.urandom(32)))
        got = pair_frames(conn.drain(wire.QUIET))
        reveals += len(pair_frames(got, "reveal"))
        h.check([f["step"] for f in got] == ["commit", "reveal"],
                "attempt %d: the daemon resends its commit, then reveals" % (attempt + 1), json.dumps(got))
        if attempt == 0:
            # Re-roll: a second, different commit in the same attempt.
            conn.send(commit_frame(mallory_bytes, str(uuid.uuid4()), os.urandom(32)))
            got = pair_frames(conn.drain(wire.QUIET))
            reveals += len(pair_frames(got, "reveal"))
            h.check([f["step"] for f in got] == ["abort"], "a second, different commit ends the attempt",
                    json.dumps(got))
        elif attempt == 1:
            # Re-roll: abort, then commit afresh.
            conn.send({"type": "pair", "pairingID": mine, "step": "abort", "reason": "try again"})
            time.sleep(0.5)
            conn.send(commit_frame(mallory_bytes, str(uuid.uuid4()), os.urandom(32)))
            got = pair_frames(conn.drain(wire.QUIET))
            reveals += len(pair_frames(got, "reveal"))
            h.check(not got, "after an abort, a fresh commit gets nothing until the user starts again",
                    json.dumps(got))
        else:
            # No reveal from the peer: the user, with no code to type, guesses one.
            out = victim.interpay("pair", short, "--code", "123456")
            h.check(out.returncode != 0, "the attempt has no code to confirm", out.stdout + out.stderr)
            conn.send({"type": "pair", "pairingID": mine, "step": "reveal", "value": os.urandom(32).hex()})
            got = pair_frames(conn.drain(wire.QUIET))
            reveals += len(pair_frames(got, "reveal"))
            h.check([f["step"] for f in got] == ["abort"], "a reveal that does not match its commit ends the attempt",
                    json.dumps(got))
        time.sleep(5)  # the per-peer commit budget refills

    h.check(reveals <= attempts, "at most one reveal per attempt the user started",
            "%d reveals for %d attempts" % (reveals, attempts))

    # 3. Three failures: locked, and said so.
    out = victim.interpay("pair", short)
    h.check(out.returncode != 0 and "locked" in (out.stdout + out.stderr),
            "'interpay pair' reports the lockout", out.stdout + out.stderr)
    out = victim.interpay("peers", "--json")
    rows = json.loads(out.stdout).get("peers", []) if out.returncode == 0 else []
    row = next((r for r in rows if r.get("id") == mallory["id"]), None)
    h.check(row is not None and row.get("trust", {}).get("pairing") == "locked",
            "'interpay peers' shows pairing with the peer locked", json.dumps(row))
    conn.send(commit_frame(mallory_bytes, str(uuid.uuid4()), os.urandom(32)))
    got = pair_frames(conn.drain(wire.QUIET))
    h.check(not got, "while locked, a commit gets no answer", json.dumps(got))
    conn.close()

    # 4. A restart lifts nothing: the lockout is in the ledger.
    h.check(h.stop(victim), "the victim daemon exits 0 on SIGTERM before its restart")
    h.daemons.remove(victim)
    victim = h.daemon("victim")
    conn = h.connect(victim, mallory, hello=False)
    conn.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "bob", "capabilities": [CAPABILITY],
               "agent": "hostile-pairing/1"})
    conn.next_frame(lambda f: f.get("type") == "hello")
    h.check(victim.wait_for_session(mallory["id"]), "after the restart, the victim lists the peer's session")
    out = victim.interpay("pair", short)
    h.check(out.returncode != 0 and "locked" in (out.stdout + out.stderr),
            "after a restart, 'interpay pair' still reports the lockout", out.stdout + out.stderr)
    conn.close()
