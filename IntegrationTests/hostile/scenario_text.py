"""Terminal escapes and log forging (SECURITY.md T-TEXT, T-LOG): control characters in names, memos and reasons."""

import re
import time

import interpay_wire as wire

DESCRIPTION = "control characters refused on the wire and the control socket; CLI and log output escaped; log budget"

ESCAPES = ["\x1b[8m", "\x1b]0;pwned\x07", "\r\x1b[2K", "\u202e", "\n<2>forged"]


def run(h):
    alice = h.daemon("alice")
    mallory = h.identity("mallory")
    conn = h.connect(alice, mallory, name="mallory")
    offset = alice.log_size()

    # Memos, categories and reasons with control characters: invalid-field, nothing stored.
    for index, bad in enumerate(ESCAPES):
        frame = wire.request_frame(mallory["id"], alice.id, memo="rent" + bad)
        conn.send(frame)
        answer = conn.answer_to(frame["messageID"])
        h.check(answer is not None and wire.refused_field(answer),
                "a memo with control character #%d is refused (malformed-frame, invalid field)" % index, wire.describe(answer))
    frame = wire.request_frame(mallory["id"], alice.id, category="food\x1b[8m")
    conn.send(frame)
    answer = conn.answer_to(frame["messageID"])
    h.check(answer is not None and wire.refused_field(answer), "a category with ESC is refused",
            wire.describe(answer))
    h.check(all("\x1b" not in p.get("memo", "") for p in alice.payments()), "no stored memo holds ESC")

    # A hello whose name carries a newline and a syslog priority is refused; the log has no forged line.
    other = h.identity("forger")
    forger = h.connect(alice, other, hello=False)
    forger.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "bob\n<2>root login accepted",
                 "capabilities": [], "agent": "x\x1b[2J"})
    try:
        answer = forger.next_frame(lambda f: f.get("type") == "error", timeout=3)
    except wire.Closed:
        answer = None
    h.check(answer is not None and wire.refused_field(answer), "a hello name with a newline is refused",
            wire.describe(answer))
    forger.close()

    # The control socket refuses them too (exit 2), and nothing reaches the peer.
    for what, args in [("memo", ["send", mallory["id"], "1", "EUR", "--memo", "a\x1b[8mb"]),
                       ("category", ["send", mallory["id"], "1", "EUR", "--category", "x\ny"])]:
        out = alice.interpay(*args)
        h.check(out.returncode == 2, "interpay send with ESC in the %s exits 2" % what,
                "exit %d: %s" % (out.returncode, out.stderr))

    # An unverified peer is shown with its short ID and flagged in list and show.
    frame = wire.request_frame(mallory["id"], alice.id, memo="lunch")
    conn.send(frame)
    conn.answer_to(frame["messageID"])
    listing = alice.interpay("list").stdout
    h.check(re.search(r"mallory \(%s\) \[unverified\]" % re.escape(mallory["id"][:7]), listing) is not None,
            "list shows the unverified peer with its short ID", listing[-300:])
    shown = alice.interpay("show", frame["payment"]["id"][:8]).stdout
    h.check(mallory["id"][:7] in shown and "[unverified]" in shown, "show flags it too", shown[-300:])

    # 2,000 undecodable frames cost the log a bounded number of lines.
    flood_offset = alice.log_size()
    for _ in range(2000):
        conn.send_raw(wire.frame_bytes(b"{not json"))
    # The errors come back in order; wait for the last one before counting.
    probe = {"type": "ping", "nonce": 7}
    conn.send(probe)
    conn.next_frame(lambda f: f.get("type") == "pong", timeout=60)
    time.sleep(0.5)
    lines = alice.log_lines_since(flood_offset)
    h.check(len(lines) <= 60, "2,000 undecodable frames gave at most 60 log lines (%d)" % len(lines))

    text = "\n".join(alice.log_lines_since(offset))
    h.check("\x1b" not in text and "\x07" not in text, "the log holds no raw ESC or BEL")
    h.check(not any(line.startswith("<2>") or line.startswith("root login") for line in alice.log_lines_since(offset)),
            "no forged log line")
    conn.close()
