"""Every surface shows a peer, an ID and an amount by the same rules (SECURITY.md T-SHORTID, T-PASTE, T-CSV,
T-STATEDIR).

Against one real daemon: five payments made in the same second show five different short IDs in `interpay list`,
and each one typed back finds its payment; a peer named like a shell command gets no text of its own into the
command `watch` suggests to paste; a peer's name, memo and category cannot break out of their CSV cells or become
formulas; a second daemon on the same state directory stops at once, naming the first; a state directory or key
of another user is refused.
"""

import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import uuid

import interpay_wire as wire

DESCRIPTION = "short IDs unique in lists, no peer text in a command to paste, CSV cells safe, one daemon per state dir"


def short_ids(h, alice):
    """T-SHORTID: five payments of one second get five short IDs in `list`, each of which `show` finds back."""
    eve = h.identity("eve")
    conn = h.connect(alice, eve, name="eve")
    h.check(alice.wait_for_session(eve["id"]), "alice lists eve's session")
    sent = []
    for amount in ["1", "2", "3", "4", "5"]:
        out = alice.interpay("send", eve["id"][:7], amount, "EUR", "--json")
        if out.returncode == 0:
            sent.append(json.loads(out.stdout)["id"])
    h.check(len(sent) == 5, "five requests sent to eve at once", "%d sent" % len(sent))
    prefixes = {payment[:8] for payment in sent}
    listed = alice.interpay("list").stdout.splitlines()[1:]
    shown = [line.split()[0] for line in listed if line.strip()]
    mine = [s for s in shown if any(payment.endswith(s) for payment in sent)]
    h.check(len(mine) == 5 and len(set(mine)) == 5,
            "list shows five distinct short IDs for them (their time prefixes: %d distinct)" % len(prefixes),
            "\n".join(listed))
    found = 0
    for short in mine:
        out = alice.interpay("show", short, "--json")
        if out.returncode == 0 and json.loads(out.stdout)["id"].endswith(short):
            found += 1
    h.check(found == 5, "each short ID typed back shows its payment", "%d of %d found" % (found, len(mine)))
    ambiguous = alice.interpay("show", sent[0][:8])
    if len(prefixes) == 1:
        h.check(ambiguous.returncode == 4 and all(payment[-8:] in ambiguous.stderr for payment in sent),
                "their shared time prefix is ambiguous (exit 4), listing each candidate by its short ID",
                ambiguous.stderr)
    for frame in conn.drain(1.0):
        if frame.get("type") == "request":
            conn.send({"type": "ack", "ackedID": frame["messageID"], "paymentID": frame["payment"]["id"],
                       "state": "pending"})
    conn.close()


def paste(h, alice, work):
    """T-PASTE: `watch` suggests `interpay pair SHORTID --code CODE`; a name with `$(...)` stays out of it."""
    mallory = h.identity("mallory")
    name = "shop$(touch pwned)"
    short = mallory["id"][:7]
    watch_out = open(os.path.join(work, "surfaces-watch.out"), "w")
    watch = subprocess.Popen([alice.cli, "watch", "--socket", alice.socket_path], stdout=watch_out,
                             stderr=subprocess.STDOUT)
    try:
        time.sleep(0.5)
        conn = h.connect(alice, mallory, hello=False)
        conn.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": name, "capabilities": ["pairing-v2"],
                   "agent": "hostile-surfaces/1"})
        conn.next_frame(lambda f: f.get("type") == "hello")
        alice.wait_for_session(mallory["id"])
        out = alice.interpay("pair", short, "--json")
        h.check(out.returncode == 0, "alice starts pairing with the peer named %r" % name, out.stdout + out.stderr)
        conn.next_frame(lambda f: f.get("type") == "pair" and f.get("step") == "commit")
        mine = str(uuid.uuid4())
        nonce = os.urandom(32)
        conn.send({"type": "pair", "pairingID": mine, "step": "commit",
                   "value": wire.pairing_commit(mallory["bytes"], nonce)})
        conn.drain(1.0)
        conn.send({"type": "pair", "pairingID": mine, "step": "reveal", "value": nonce.hex()})
        deadline = time.monotonic() + 10
        line = None
        while time.monotonic() < deadline and line is None:
            time.sleep(0.2)
            with open(os.path.join(work, "surfaces-watch.out"), errors="replace") as file:
                line = next((l for l in file if "verification code" in l), None)
        h.check(line is not None, "watch shows the verification code", line or "")
        command = re.search(r"run '([^']*)'", line or "")
        command = command.group(1) if command else ""
        h.check(re.fullmatch(r"interpay pair [A-Z2-7]{7} --code [0-9]{6}", command) is not None,
                "the command watch suggests holds the short ID and the code only", command)
        # Pasted into a shell (with interpay replaced by true), it runs nothing else.
        scratch = tempfile.mkdtemp(dir=work)
        if command.startswith("interpay "):
            subprocess.run(["bash", "-c", "true " + command[len("interpay "):]], cwd=scratch, timeout=10)
        h.check(not os.path.exists(os.path.join(scratch, "pwned")), "pasting it runs no command of the peer's",
                command)
        peers = json.loads(alice.interpay("peers", "--json").stdout or "{}").get("peers", [])
        shutil.rmtree(scratch, ignore_errors=True)
        conn.close()
        h.check(any(p.get("id") == mallory["id"] for p in peers), "the peer is listed by ID")
    finally:
        watch.terminate()
        watch.wait(timeout=10)
        watch_out.close()


def csv_cells(h, alice):
    """T-CSV: a name `x"` + U+0301 and formula cells stay inside their cells, formulas neutralised."""
    carol = h.identity("carol")
    name = 'x"\u0301,1000000.00,USD'
    conn = h.connect(alice, carol, name=name)
    payment = str(uuid.uuid4())
    conn.send(wire.request_frame(carol["id"], alice.id, minor=100, currency="EUR", memo="=HYPERLINK(\"http://x\")",
                                 payment_id=payment, category="@SUM(A1)"))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not any(p["id"] == payment for p in alice.payments()):
        time.sleep(0.2)
    out = alice.interpay("export")
    rows = list(csv.reader(io.StringIO(out.stdout, newline="")))
    header = rows[0] if rows else []
    row = next((r for r in rows[1:] if r and r[0] == payment), None)
    cells = dict(zip(header, row or []))
    h.check(row is not None and len(row) == len(header), "the row has exactly the header's columns",
            json.dumps(row))
    h.check(cells.get("peer_name") == name and cells.get("amount") == "1.00" and cells.get("currency") == "EUR",
            "the name stays in its cell; amount and currency are the payment's (1.00 EUR)", json.dumps(cells))
    h.check(cells.get("memo", "").startswith("'=") and cells.get("category", "").startswith("'@"),
            "formula cells (=, @) are neutralised with a leading '", json.dumps(cells))
    h.check(cells.get("peer_trust") == "unverified", "the export says the peer is not paired", json.dumps(cells))
    conn.close()


def state_directory(h, alice, work):
    """T-STATEDIR: one daemon per state directory; another user's directory or key is refused."""
    state = os.path.join(work, "alice")
    started = time.monotonic()
    second = subprocess.run(
        [h.daemon_binary, "--config", os.path.join(work, "alice.toml"), "--name", "twin",
         "--no-discovery", "--no-web", "--listen", "127.0.0.1", "--port", "0",
         "--state-dir", state, "--socket", os.path.join(work, "twin.sock")],
        capture_output=True, text=True, timeout=20)
    took = time.monotonic() - started
    said = second.stdout + second.stderr
    h.check(second.returncode != 0 and took < 5 and ("pid %d" % alice.pid) in said,
            "a second daemon on alice's state directory exits non-zero within 5 s, naming the first's pid",
            "exit %d after %.1f s: %s" % (second.returncode, took, said[-400:]))
    h.check(alice.interpay("status").returncode == 0, "the first daemon keeps serving")
    if os.geteuid() != 0:
        return
    # Another user's directory, with a key planted in it: a root daemon must not take that key as its identity.
    planted = os.path.join(work, "planted")
    os.makedirs(planted, exist_ok=True)
    shutil.copy(os.path.join(state, "identity-key.pem"), os.path.join(planted, "identity-key.pem"))
    for path in [planted, os.path.join(planted, "identity-key.pem")]:
        os.chown(path, 65534, 65534)
    refused = subprocess.run(
        [h.daemon_binary, "--config", os.path.join(work, "alice.toml"), "--name", "root",
         "--no-discovery", "--no-web", "--listen", "127.0.0.1", "--port", "0",
         "--state-dir", planted, "--socket", os.path.join(work, "planted.sock")],
        capture_output=True, text=True, timeout=20)
    h.check(refused.returncode != 0 and "belongs to uid 65534" in (refused.stdout + refused.stderr),
            "a root daemon refuses a state directory of another user (uid 65534) holding a key",
            (refused.stdout + refused.stderr)[-400:])


def run(h):
    alice = h.daemon("alice")
    short_ids(h, alice)
    paste(h, alice, h.work)
    csv_cells(h, alice)
    state_directory(h, alice, h.work)
