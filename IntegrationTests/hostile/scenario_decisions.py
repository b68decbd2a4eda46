"""The same outcome gives the same exit code (SECURITY.md T-EXIT): an accept that crossed the payee's cancel."""

import subprocess
import time
import uuid

import interpay_wire as wire

DESCRIPTION = "accept/reject that crossed the payee's cancel exit 5 naming ACLR, like a cancel that arrived first"


def run(h):
    alice = h.daemon("alice")
    payee = h.identity("payee")
    conn = h.connect(alice, payee, name="shop")

    for decision in ("accept", "reject"):
        frame = wire.request_frame(payee["id"], alice.id, memo="crossing " + decision)
        conn.send(frame)
        conn.answer_to(frame["messageID"])
        payment = frame["payment"]["id"]
        cli = subprocess.Popen([alice.cli, decision, payment[:8], "--socket", alice.socket_path],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # The payee had cancelled before the decision arrived: it answers the decision with its final state.
        got = conn.next_frame(lambda f: f.get("type") == decision)
        if got is not None:
            conn.send({"type": "ack", "ackedID": got["messageID"], "paymentID": payment, "state": "cancelled",
                       "reasonCode": "ACLR"})
        out, err = cli.communicate(timeout=30)
        h.check(got is not None and cli.returncode == 5 and "ACLR" in (out + err),
                "%s that crossed the cancel exits 5 naming ACLR" % decision,
                "exit %s: %s%s" % (cli.returncode, out, err))

        # The cancel that arrives first gives the same answer.
        frame = wire.request_frame(payee["id"], alice.id, memo="cancelled first")
        conn.send(frame)
        conn.answer_to(frame["messageID"])
        cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": frame["payment"]["id"]}
        conn.send(cancel)
        conn.answer_to(cancel["messageID"])
        time.sleep(0.2)
        out = alice.interpay(decision, frame["payment"]["id"][:8])
        h.check(out.returncode == 5 and "ACLR" in out.stdout + out.stderr,
                "%s after the cancel arrived exits 5 naming ACLR" % decision,
                "exit %d: %s%s" % (out.returncode, out.stdout, out.stderr))
    conn.close()
