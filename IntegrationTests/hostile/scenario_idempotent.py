"""Idempotent send (SECURITY.md T-RETRY): the answer to a send is lost after the daemon committed it."""

import json
import os
import socket
import subprocess
import threading
import time

DESCRIPTION = "a send whose answer is lost is retried with its key: one payment; the key reused otherwise is exit 5"


def read_line(sock):
    """Bytes up to and including the first newline (or the end of the stream)."""
    data = b""
    while not data.endswith(b"\n"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


class LosingProxy:
    """A Unix socket in front of the daemon's: relays each request line, and for the first connection drops the
    daemon's answer and closes, as if the daemon had died after committing."""

    def __init__(self, path, target):
        self.path = path
        self.target = target
        self.connections = 0
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(8)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self.relay, args=(client, self.connections == 1), daemon=True).start()

    def relay(self, client, lose):
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        upstream.connect(self.target)
        upstream.sendall(read_line(client))
        answer = read_line(upstream)
        if not lose:
            client.sendall(answer)
        client.close()
        upstream.close()

    def close(self):
        self.server.close()


def run(h):
    alice = h.daemon("alice")
    payer = h.identity("payer")
    peer_conn = h.connect(alice, payer, name="payer")
    payer_id = payer["id"]
    h.check(alice.wait_for_session(payer_id), "alice lists the payer's session")

    proxy_path = os.path.join(h.work, "proxy.sock")
    proxy = LosingProxy(proxy_path, alice.socket_path)
    started = time.monotonic()
    sent = subprocess.run([alice.cli, "send", payer_id[:8], "3.50", "EUR", "--memo", "retry me", "--json",
                           "--socket", proxy_path], capture_output=True, text=True, timeout=60)
    elapsed = time.monotonic() - started
    proxy.close()
    payments = [p for p in alice.payments() if p.get("memo") == "retry me"]
    h.check(sent.returncode == 0 and proxy.connections >= 2,
            "the send whose answer was lost succeeds on its retry (%d connections, %.1f s)" % (
                proxy.connections, elapsed), "exit %d: %s" % (sent.returncode, sent.stderr))
    h.check(len(payments) == 1, "exactly one payment was made (%d)" % len(payments))
    if sent.returncode == 0 and payments:
        h.check(json.loads(sent.stdout).get("id") == payments[0]["id"], "the retry returned that payment")

    # An explicit key: the same send again returns the same payment; other parameters with it are exit 5.
    first = alice.interpay("send", payer_id[:8], "1", "EUR", "--idempotency-key", "order-42", "--json")
    again = alice.interpay("send", payer_id[:8], "1", "EUR", "--idempotency-key", "order-42", "--json")
    h.check(first.returncode == 0 and again.returncode == 0
            and json.loads(first.stdout)["id"] == json.loads(again.stdout)["id"],
            "the same key twice gives the same payment", first.stderr + again.stderr)
    other = alice.interpay("send", payer_id[:8], "2", "EUR", "--idempotency-key", "order-42")
    h.check(other.returncode == 5 and "idempotency key" in other.stderr,
            "the same key with another amount is refused (exit 5)", "exit %d: %s" % (other.returncode, other.stderr))
    h.check(len([p for p in alice.payments() if p.get("amount") in ("1.00", "2.00")]) == 1,
            "only one payment was made with the key")
    peer_conn.close()
