"""The web app held by another local user (SECURITY.md W-DRIBBLE): 40 connections without the token each send a
request head with a body length and then dribble the body, a byte every 4 s. The server read the body of a refused
request to its end before answering the next one, and held its connection meanwhile; with every connection held,
the owner's requests went unanswered. A refused request (no credential, no Origin) is now answered at once and its
connection closed, and a body has a deadline."""

import json
import os
import socket
import threading
import time

import interpay_wire as wire

DESCRIPTION = "40 tokenless connections dribbling request bodies: refused at once; the owner is answered"

DRIBBLERS = 40
SECONDS = 20


def run(h):
    alice = h.daemon("alice", web=True)
    port = json.loads(alice.interpay("status", "--json").stdout)["webPort"]
    token = open(os.path.join(h.work, "alice", "web-token")).read().strip()
    status, _ = wire.web_owner_status(port, token, 5)
    h.check(status == 200, "the owner's request is answered before the attack (%s)" % status)

    head = ("POST /api/send HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n\r\n{" % port).encode()
    sockets = []
    for _ in range(DRIBBLERS):
        connection = socket.create_connection(("127.0.0.1", port), timeout=5)
        connection.sendall(head)
        sockets.append(connection)
    stop = threading.Event()
    closed = [0]

    def dribble():
        while not stop.wait(4):
            for connection in sockets:
                try:
                    connection.sendall(b" ")
                except OSError:
                    pass

    worker = threading.Thread(target=dribble, daemon=True)
    worker.start()
    time.sleep(3)
    status, seconds = wire.web_owner_status(port, token, 10)
    h.check(status == 200 and seconds < 5,
            "during the attack the owner's request is answered within 5 s (%s after %.1f s)" % (status, seconds))

    # Each dribbler got its refusal and lost its connection (an empty read: closed by the daemon).
    answered = 0
    for connection in sockets:
        connection.settimeout(1)
        try:
            data = b""
            while True:
                chunk = connection.recv(4096)
                if not chunk:
                    closed[0] += 1
                    break
                data += chunk
            if data.startswith(b"HTTP/1.1 4"):
                answered += 1
        except OSError:
            pass
    stop.set()
    worker.join()
    for connection in sockets:
        connection.close()
    # A body the app reads has a deadline too: one dribbled with the credential (and an allowed Origin) ends with
    # its connection after WebApp.bodyDeadline (10 s).
    slow = socket.create_connection(("127.0.0.1", port), timeout=5)
    slow.sendall(("POST /api/status HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nOrigin: http://127.0.0.1:%d\r\n"
                  "Authorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
                  % (port, port, token)).encode())
    started = time.monotonic()
    ended = None
    slow.settimeout(1)
    while time.monotonic() - started < 25:
        try:
            slow.sendall(b" ")
            if not slow.recv(4096):
                ended = time.monotonic() - started
                break
        except socket.timeout:
            continue
        except OSError:
            ended = time.monotonic() - started
            break
    slow.close()
    h.check(ended is not None and ended < 15,
            "an authenticated body dribbled a byte a second ends with its connection within 15 s (%s)"
            % ("%.1f s" % ended if ended is not None else "still open after 25 s"))

    print("webdribble: %d of %d dribblers answered 4xx, %d closed by the daemon; owner answered in %.2f s" % (
        answered, DRIBBLERS, closed[0], seconds), flush=True)
    h.check(answered >= DRIBBLERS - 8 and closed[0] >= DRIBBLERS - 8,
            "the dribblers were refused and closed, not held (%d answered 4xx, %d closed, of %d; up to 8 wait "
            "in the backlog beyond the 32 connections served)" % (answered, closed[0], DRIBBLERS))
