"""The web app held by another local user with requests that need no token (SECURITY.md W-HOLD): 40 connections
of another uid, each a keep-alive `GET /` every 3 s, so none is ever idle for the 10 s idle timeout. Every one of
the 32 connections the app serves was held for as long as the user liked; the owner's requests waited in the
listen backlog unanswered. A client (the local user owning the socket) now holds at most 16 connections."""

import json
import os
import subprocess
import sys
import time

import interpay_wire as wire

DESCRIPTION = "another local user's 40 keep-alive connections: held to 16, the owner answered"

HOLDERS = 40
SECONDS = 24
OTHER_USER = 65534  # nobody
# The holder runs as that user, so from an interpreter every user may run (the one running the suite may live
# under a directory only its owner can read).
SYSTEM_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

# Run as the other user: one thread per connection, a `GET /` every 3 s on a keep-alive connection, reconnecting
# when it ends; every second it prints how many of its connections were answered on their last try.
HOLDER = r"""
import http.client, sys, threading, time
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
served = [False] * count
end = time.monotonic() + seconds

def hold(index):
    connection = None
    while time.monotonic() < end:
        try:
            if connection is None:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=4)
            connection.request("GET", "/")
            answer = connection.getresponse()
            answer.read()
            served[index] = answer.status == 200
        except Exception:
            served[index] = False
            if connection is not None:
                connection.close()
            connection = None
            time.sleep(0.5)
            continue
        time.sleep(3)

threads = [threading.Thread(target=hold, args=(index,), daemon=True) for index in range(count)]
for thread in threads:
    thread.start()
while time.monotonic() < end:
    time.sleep(1)
    print("served %d" % sum(served), flush=True)
"""


def run(h):
    if os.geteuid() != 0:
        h.check(False, "this scenario acts as another local user (uid %d), which needs root" % OTHER_USER)
        return
    alice = h.daemon("alice", web=True)
    port = json.loads(alice.interpay("status", "--json").stdout)["webPort"]
    token = open(os.path.join(h.work, "alice", "web-token")).read().strip()
    status, _ = wire.web_owner_status(port, token, 5)
    h.check(status == 200, "the owner's request is answered before the attack (%s)" % status)

    holder = subprocess.Popen([SYSTEM_PYTHON, "-c", HOLDER, str(port), str(HOLDERS), str(SECONDS)],
                              user=OTHER_USER, group=OTHER_USER, cwd="/", stdout=subprocess.PIPE, text=True)
    try:
        # Let the holder take what it can and settle into its keep-alive rounds, then ask as the owner, twice.
        time.sleep(10)
        answers = [wire.web_owner_status(port, token, 10) for _ in range(2)]
        out, _ = holder.communicate(timeout=SECONDS + 30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    samples = [int(line.split()[1]) for line in out.splitlines() if line.startswith("served ")]
    most = max(samples) if samples else 0
    print("webhold: the other user's connections served at once: at most %d of %d (samples %s); owner: %s" % (
        most, HOLDERS, samples, ", ".join("%s in %.2f s" % answer for answer in answers)), flush=True)
    h.check(most >= 8, "the other user's holder ran and was served (at most %d at once)" % most)
    h.check(most <= 16, "the other user holds at most 16 connections at once (%d)" % most)
    for status, seconds in answers:
        h.check(status == 200 and seconds < 5,
                "while another user holds connections, the owner's request is answered within 5 s (%s after %.1f s)"
                % (status, seconds))
