#!/usr/bin/env python3
"""Bad input against running interpayd daemons: the peer port (TLS 1.3, length-prefixed JSON frames) and the control
socket (JSON-RPC lines). Run by the bad-input scenario (IntegrationTests/scenarios/bad-input.bash), which starts the
daemons; each check prints PASS or FAIL with what was expected, and the run ends with "bad-input: N passed, M failed".

Expected answers follow protocol/PROTOCOL.md: §5.2 decoding classes, §13 error codes, §8.3 payer rules, §9.2
duplicates, and the local limits of §13.1/§16.
"""

import argparse
import os
import socket
import ssl
import struct
import subprocess
import sys
import time
import uuid

from interpay_wire import *  # noqa: F401,F403 - the shared wire helpers


# ------------------------------------------------------------------ checks

class Prober:
    def __init__(self, daemon, identity, work):
        self.d = daemon
        self.me = identity
        self.work = work

    def connect(self, **kwargs):
        return PeerConnection(self.d.port, self.me, **kwargs)

    def use_fresh_identity(self, label):
        """Speaks as a new key from now on: a group that checks log lines must not inherit the earlier groups'
        use of this peer's log budget (lines a peer causes are budgeted, SECURITY.md T-LOG)."""
        self.me = make_identity(self.work, label)

    def still_serves(self, group):
        """After each group: the process is alive, `interpay status` answers, a valid request is acked."""
        R.check(self.d.alive(), "%s: %s daemon still running" % (group, self.d.label))
        try:
            status = self.d.status()
            R.check(status.get("id") == self.d.id, "%s: interpay status answers" % group, describe(status))
        except Exception as error:  # noqa: BLE001 - any failure is a FAIL line
            R.check(False, "%s: interpay status answers" % group, str(error))
        try:
            conn = self.connect()
            frame = request_frame(self.me["id"], self.d.id, memo="health check after " + group)
            conn.send(frame)
            answer = conn.answer_to(frame["messageID"])
            conn.close()
            R.check(answer is not None and answer.get("type") == "ack" and answer.get("state") == "pending",
                    "%s: a valid request is acked pending" % group, describe(answer))
        except Exception as error:  # noqa: BLE001
            R.check(False, "%s: a valid request is acked pending" % group, str(error))

    def expect_error(self, conn, body, code, what, ref=None, raw=False):
        """Sends body (a frame object, or raw frame bytes) and expects `error` code (with ref when given)."""
        if raw:
            conn.send_raw(body)
        else:
            conn.send(body)
        try:
            answer = conn.next_frame(lambda f: f.get("type") in ("error", "ack"))
        except Closed as closed:
            R.check(False, what + " → error %s" % code, "connection closed: %s" % closed)
            return None
        ok = answer is not None and answer.get("type") == "error" and answer.get("code") == code
        if ref is not None:
            ok = ok and answer.get("ref") == ref
        R.check(ok, what + " → error %s%s" % (code, " with ref" if ref else ""), describe(answer))
        return answer

    # --- before a session

    def group_pre_session(self):
        print("== before a session: junk, no client certificate, no hello", flush=True)
        raw = socket.create_connection(("127.0.0.1", self.d.port), timeout=DEADLINE)
        raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n" + os.urandom(512))
        closed = False
        data = b""
        try:
            while True:
                chunk = raw.recv(4096)
                if not chunk:
                    closed = True
                    break
                data += chunk
        except (socket.timeout, TimeoutError):
            pass
        except ConnectionError:
            closed = True
        raw.close()
        R.check(closed and b"{" not in data, "junk bytes before TLS: the connection is closed, no frame sent",
                "closed=%s, %d bytes" % (closed, len(data)))

        hello_seen = False
        ended = False
        try:
            conn = PeerConnection(self.d.port, identity=None, hello=False)
            conn.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "no cert", "capabilities": [],
                       "agent": "x"})
            hello_seen = conn.next_frame(lambda f: f.get("type") == "hello") is not None
            ended = conn.closes_within()
            conn.close()
        except (ssl.SSLError, ConnectionError, OSError, Closed):
            ended = True
        R.check(ended and not hello_seen, "TLS without a client certificate: refused, no hello",
                "hello=%s ended=%s" % (hello_seen, ended))

        conn = self.connect(hello=False)
        conn.send({"type": "ping", "nonce": 1})
        answer, ended = conn.error_then_close()
        R.check(answer is not None and answer.get("code") == "malformed-frame" and ended,
                "a first frame that is not hello → error malformed-frame, then close", describe(answer))
        conn.close()
        self.still_serves("before a session")

    # --- framing

    def group_framing(self):
        print("== framing: oversize, truncated, invalid UTF-8 and JSON", flush=True)
        conn = self.connect()
        rss_before = self.d.rss_kib()
        offset = self.d.log_size()
        conn.send_raw(struct.pack(">I", 0xFFFFFFFF))
        answer, ended = conn.error_then_close()
        conn.close()
        R.check(answer is not None and answer.get("code") == "limit-exceeded" and ended,
                "a 4 GiB length prefix → error limit-exceeded, then close", describe(answer))
        rss_after = self.d.rss_kib()
        R.check(rss_after - rss_before < 32 * 1024,
                "the 4 GiB prefix did not make the daemon allocate (VmRSS %d → %d KiB, less than 32 MiB more)"
                % (rss_before, rss_after))
        R.check(self.d.log_has(offset, r"oversize|frame of \d+ bytes|limit"), "the oversize frame is logged")

        conn = self.connect()
        conn.send_raw(struct.pack(">I", 65537) + b"{")
        answer, ended = conn.error_then_close()
        R.check(answer is not None and answer.get("code") == "limit-exceeded" and ended,
                "a 65537-byte frame (one over the maximum) → error limit-exceeded, then close", describe(answer))
        conn.close()

        conn = self.connect(hello=False)
        conn.send_raw(struct.pack(">I", 0x7FFFFFFF))
        answer, ended = conn.error_then_close()
        conn.close()
        R.check(answer is not None and answer.get("code") == "limit-exceeded" and ended,
                "an oversize prefix instead of hello → error limit-exceeded, then close", describe(answer))

        conn = self.connect()
        frame = frame_bytes(request_frame(self.me["id"], self.d.id))
        conn.send_raw(frame[:len(frame) // 2])
        early = conn.next_frame(lambda f: f.get("type") in ("error", "ack"), timeout=QUIET)
        R.check(early is None, "half a frame: nothing is answered while the rest may still come", describe(early))
        conn.close()
        conn = self.connect()
        conn.send_raw(b"\x00\x00")
        conn.close()
        self.still_serves("truncated frames")

        conn = self.connect()
        mid = str(uuid.uuid4())
        body = canonical(request_frame(self.me["id"], self.d.id, message_id=mid, memo="MEMO"))
        self.expect_error(conn, frame_bytes(body.replace(b"MEMO", b"\xff\xfe")), "malformed-frame",
                          "invalid UTF-8 in a memo", ref=mid, raw=True)
        self.expect_error(conn, frame_bytes(body.replace(b"MEMO", b"\xc0\xaf")), "malformed-frame",
                          "an overlong UTF-8 form", raw=True)
        self.expect_error(conn, frame_bytes(body.replace(b"MEMO", b"\xed\xa0\x80")), "malformed-frame",
                          "an encoded surrogate", raw=True)
        self.expect_error(conn, frame_bytes(b'{"type":"request","messageID":'), "malformed-frame",
                          "truncated JSON", raw=True)
        self.expect_error(conn, frame_bytes(b""), "malformed-frame", "an empty body (length 0)", raw=True)
        self.expect_error(conn, frame_bytes(b"[1,2,3]"), "malformed-frame", "a JSON array", raw=True)
        self.expect_error(conn, frame_bytes(b"\xef\xbb\xbf" + canonical({"type": "ping", "nonce": 1})),
                          "malformed-frame", "a byte order mark", raw=True)
        self.expect_error(conn, frame_bytes(b'{"type":"ping","nonce":NaN}'), "malformed-frame", "NaN",
                          raw=True)
        self.expect_error(conn, frame_bytes(b'{"type":"ping","nonce":1} {"type":"ping","nonce":2}'),
                          "malformed-frame", "two JSON values in one frame", raw=True)
        self.expect_error(conn, frame_bytes(b'{"type":"ping","nonce":1,"nonce":2}'), "malformed-frame",
                          "duplicate member names", raw=True)
        self.expect_error(conn, {"nonce": 1}, "malformed-frame", "no type member")
        self.expect_error(conn, {"type": "payment", "messageID": mid}, "unknown-type", "an unknown type")
        self.expect_error(conn, {"type": "Ping", "nonce": 1}, "unknown-type", "a type in the wrong case")
        conn.send({"type": "ping", "nonce": 77})
        pong = conn.next_frame(lambda f: f.get("type") in ("pong", "error"))
        R.check(pong is not None and pong == {"type": "pong", "nonce": 77},
                "the session continues after the bad frames: ping 77 → pong 77", describe(pong))
        conn.send({"type": "error", "code": "no-such-code", "message": "x"})
        answer = conn.next_frame(lambda f: f.get("type") == "error", timeout=QUIET)
        R.check(answer is None, "an invalid error frame is not answered (no error for an error)", describe(answer))
        conn.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": "again", "capabilities": [],
                   "agent": "x"})
        answer, ended = conn.error_then_close()
        R.check(answer is not None and answer.get("code") == "malformed-frame" and ended,
                "a second hello → error malformed-frame, then close", describe(answer))
        conn.close()
        self.still_serves("invalid frames")

    # --- request fields

    def group_fields(self):
        print("== request fields: wrong types, amounts, currencies, peers, expiry", flush=True)
        conn = self.connect()
        me, them = self.me["id"], self.d.id

        def bad(what, code="malformed-frame", **kwargs):
            frame = request_frame(me, them, **kwargs)
            self.expect_error(conn, frame, code, what, ref=frame["messageID"])
            return frame

        def bad_frame(what, frame, code="malformed-frame", ref=True):
            self.expect_error(conn, frame, code, what, ref=frame["messageID"] if ref else None)

        frame = request_frame(me, them)
        frame["payment"]["amount"]["minorUnits"] = "1250"
        bad_frame("minorUnits as a string", frame)
        frame = request_frame(me, them)
        frame["payment"]["memo"] = 42
        bad_frame("memo as a number", frame)
        frame = request_frame(me, them)
        frame["payment"] = [frame["payment"]]
        bad_frame("payment as an array", frame)
        frame = request_frame(me, them)
        frame["payment"]["category"] = None
        bad_frame("category null", frame)
        frame = request_frame(me, them)
        del frame["payment"]["expiresAt"]
        bad_frame("no expiresAt", frame)
        frame = request_frame(me, them)
        frame["messageID"] = "not-a-uuid"
        self.expect_error(conn, frame, "malformed-frame", "a messageID that is not a UUID (no ref)")
        bad("zero amount", minor=0)
        bad("negative amount", minor=-5)
        bad("amount 2^63 (overflows Int64)", minor=2**63)
        bad("amount 2^64 + 1", minor=2**64 + 1)
        frame = request_frame(me, them)
        body = canonical(frame).replace(b'"minorUnits":1250', b'"minorUnits":1e400')
        self.expect_error(conn, frame_bytes(body), "malformed-frame", "amount 1e400", ref=frame["messageID"],
                          raw=True)
        bad("a fractional amount 12.5", minor=12.5)
        bad("unknown currency XYZ", currency="XYZ")
        bad("lowercase currency mxn", currency="mxn")
        bad("empty currency", currency="")
        bad("a withdrawn currency code (DEM)", currency="DEM")
        bad("expiresAt equal to createdAt", lifetime=0)
        bad("expiresAt before createdAt", lifetime=-10)
        bad("a negative createdAt", created=-5)
        frame = request_frame(me, them)
        frame["payment"]["payee"] = me.lower()
        bad_frame("a peer ID not in canonical form", frame)
        bad_frame("payee = payer", request_frame(them, them))
        other = make_identity(self.work, "stranger")["id"]
        bad_frame("payee is not the sender", request_frame(other, them), code="not-authorized")
        bad_frame("payer is not the receiver", request_frame(me, other), code="not-authorized")

        frame = request_frame(me, them, minor=INT64_MAX, currency="JPY")
        conn.send(frame)
        answer = conn.answer_to(frame["messageID"])
        R.check(answer is not None and answer.get("type") == "ack" and answer.get("state") == "pending",
                "the largest amount 2^63-1 JPY is accepted (ack pending)", describe(answer))

        frame = request_frame(me, them, created=int(time.time()) - 2000, lifetime=1000)
        conn.send(frame)
        answer = conn.answer_to(frame["messageID"])
        R.check(answer is not None and answer.get("type") == "ack" and answer.get("state") == "expired"
                and answer.get("reasonCode") == "AEXR",
                "a request already expired on arrival → ack state expired, AEXR (R2)", describe(answer))
        stored = [p for p in self.d.payments() if p["id"] == frame["payment"]["id"]]
        R.check(len(stored) == 0, "the request expired on arrival is not stored (R2)",
                describe(stored))

        frame = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": str(uuid.uuid4())}
        bad_frame("cancel of an unknown payment", frame, code="unknown-payment")
        frame = {"type": "accept", "messageID": str(uuid.uuid4()), "paymentID": str(uuid.uuid4())}
        bad_frame("accept of an unknown payment", frame, code="unknown-payment")
        conn.close()
        self.still_serves("request fields")

    # --- replays

    def group_replay(self):
        print("== replayed message IDs", flush=True)
        conn = self.connect()
        frame = request_frame(self.me["id"], self.d.id, memo="replayed")
        answers = []
        for _ in range(3):
            conn.send(frame)
            answers.append(conn.answer_to(frame["messageID"]))
        R.check(answers[0] is not None and answers[0].get("state") == "pending" and answers[0] == answers[1] ==
                answers[2], "the same request three times → the same ack three times", describe(answers))
        conn.close()
        conn = self.connect()
        conn.send(frame)
        again = conn.answer_to(frame["messageID"])
        R.check(again == answers[0], "the same request on a new session → the same stored ack", describe(again))
        mine = [p for p in self.d.payments() if p["id"] == frame["payment"]["id"]]
        R.check(len(mine) == 1, "interpay list shows one payment for it", "%d payments" % len(mine))

        changed = dict(frame)
        changed["payment"] = dict(frame["payment"], memo="changed content")
        conn.send(changed)
        again = conn.answer_to(frame["messageID"])
        R.check(again == answers[0], "a replay with changed content → the stored ack, nothing changes",
                describe(again))
        resend = dict(frame, messageID=str(uuid.uuid4()))
        conn.send(resend)
        answer = conn.answer_to(resend["messageID"])
        R.check(answer is not None and answer.get("type") == "ack" and answer.get("state") == "pending",
                "the same payment under a new messageID → ack with its current state (R3)", describe(answer))
        cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": frame["payment"]["id"]}
        conn.send(cancel)
        first = conn.answer_to(cancel["messageID"])
        conn.send(cancel)
        second = conn.answer_to(cancel["messageID"])
        R.check(first is not None and first.get("state") == "cancelled" and first == second,
                "a replayed cancel → the same ack (cancelled)", describe([first, second]))
        conn.send(frame)
        again = conn.answer_to(frame["messageID"])
        R.check(again == answers[0], "the original request after the cancel → still its first ack (pending)",
                describe(again))
        mine = [p for p in self.d.payments() if p["id"] == frame["payment"]["id"]]
        R.check(len(mine) == 1 and mine[0]["state"] == "cancelled" and mine[0]["memo"] == "replayed",
                "the payment is cancelled once, with its first content", describe(mine))
        conn.close()
        self.still_serves("replays")

    # --- memo

    def group_memo(self):
        print("== memo length (200 code points)", flush=True)
        self.use_fresh_identity("memo-prober")
        conn = self.connect()
        memo = "€" * 199 + "😀"  # 200 code points, 601 UTF-8 bytes
        frame = request_frame(self.me["id"], self.d.id, memo=memo)
        conn.send(frame)
        answer = conn.answer_to(frame["messageID"])
        R.check(answer is not None and answer.get("type") == "ack",
                "a memo of 200 code points (601 bytes) is accepted", describe(answer))
        offset = self.d.log_size()
        frame = request_frame(self.me["id"], self.d.id, memo="a" * 201)
        self.expect_error(conn, frame, "malformed-frame", "a memo of 201 code points", ref=frame["messageID"])
        R.check(frame["payment"]["id"] not in [p["id"] for p in self.d.payments()], "the long memo is not stored")
        R.check(self.d.log_has(offset, r"undecodable frame"), "the refused memo is logged")
        frame = request_frame(self.me["id"], self.d.id, category="c" * 41)
        self.expect_error(conn, frame, "malformed-frame", "a category of 41 code points", ref=frame["messageID"])
        conn.close()
        self.still_serves("memo")

    # --- the control socket

    def control(self, data, read_until_close=False, timeout=DEADLINE):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        sock.connect(self.d.socket_path)
        try:
            sock.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = b""
        closed = False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except (socket.timeout, TimeoutError):
                break
            except ConnectionError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            out += chunk
            if not read_until_close and out.endswith(b"\n"):
                break
        sock.close()
        lines = [json.loads(line) for line in out.splitlines() if line.strip()]
        return lines, closed

    def expect_rpc_error(self, data, code, what, rpc_id="absent"):
        lines, _ = self.control(data)
        answer = lines[0] if lines else None
        ok = answer is not None and answer.get("error", {}).get("code") == code and answer.get("jsonrpc") == "2.0"
        if rpc_id != "absent":
            ok = ok and answer.get("id") == rpc_id
        R.check(ok, "control: %s → JSON-RPC error %d" % (what, code), describe(answer))

    def group_control(self):
        print("== the control socket", flush=True)
        self.expect_rpc_error(b"{not json\n", -32700, "invalid JSON", rpc_id=None)
        self.expect_rpc_error(b'{"jsonrpc":"2.0","method":"status","id":1\xff}\n', -32700, "invalid UTF-8")
        self.expect_rpc_error(b"[]\n", -32600, "an empty batch")
        self.expect_rpc_error(b"42\n", -32600, "a number instead of an object")
        self.expect_rpc_error(b'{"jsonrpc":"1.0","method":"status","id":1}\n', -32600, "jsonrpc 1.0")
        self.expect_rpc_error(b'{"jsonrpc":"2.0","id":2}\n', -32600, "no method", rpc_id=2)
        self.expect_rpc_error(b'{"jsonrpc":"2.0","method":7,"id":3}\n', -32600, "a numeric method", rpc_id=3)
        self.expect_rpc_error(b'{"jsonrpc":"2.0","method":"status","id":{"a":1}}\n', -32600, "an object id")
        self.expect_rpc_error(b'{"jsonrpc":"2.0","method":"nosuchmethod","id":4}\n', -32601, "an unknown method",
                              rpc_id=4)
        self.expect_rpc_error(b'{"jsonrpc":"2.0","method":"send","params":[1,2],"id":5}\n', -32602,
                              "params as an array", rpc_id=5)
        self.expect_rpc_error(
            b'{"jsonrpc":"2.0","method":"send","params":{"peer":"x","amount":"1","currency":"ZZZ"},"id":6}\n',
            -32602, "send with an unknown currency", rpc_id=6)

        offset = self.d.log_size()
        rss_before = self.d.rss_kib()
        lines, closed = self.control(b"x" * (4 * 1024 * 1024), read_until_close=True)
        answer = lines[0] if lines else None
        R.check(answer is not None and answer.get("error", {}).get("code") == -32600 and closed,
                "control: a 4 MiB line without newline → error -32600, then close", describe(answer))
        R.check(self.d.log_has(offset, r"control request line too long"), "control: the long line is logged")
        R.check(self.d.rss_kib() - rss_before < 32 * 1024, "control: the long line was not buffered (VmRSS)")
        lines, closed = self.control(b"{" + b" " * (70 * 1024) + b"}\n", read_until_close=True)
        answer = lines[0] if lines else None
        R.check(answer is not None and answer.get("error", {}).get("code") == -32600 and closed,
                "control: a 70 KiB line with newline → error -32600, then close", describe(answer))
        lines, _ = self.control(b'{"jsonrpc":"2.0","method":"nosuchmethod"}\n{"jsonrpc":"2.0","method":"status",'
                                b'"id":9}\n')
        R.check(len(lines) == 1 and lines[0].get("id") == 9 and "result" in lines[0],
                "control: a notification gets no answer; the next request on the connection does",
                describe(lines))
        self.still_serves("control socket")


# ------------------------------------------------------------------ the local limits

class LimitsProber(Prober):
    def __init__(self, daemon, identity, work, max_pending, max_per_minute, max_unauthenticated):
        super().__init__(daemon, identity, work)
        self.max_pending = max_pending
        self.max_per_minute = max_per_minute
        self.max_unauthenticated = max_unauthenticated

    def group_pending(self):
        print("== pending incoming requests per peer (limits.max_pending_per_peer = %d)" % self.max_pending,
              flush=True)
        self.use_fresh_identity("pending-prober")
        conn = self.connect()
        frames = []
        for i in range(self.max_pending):
            frame = request_frame(self.me["id"], self.d.id, memo="pending %d" % i)
            conn.send(frame)
            frames.append((frame, conn.answer_to(frame["messageID"])))
        R.check(all(a is not None and a.get("state") == "pending" for _, a in frames),
                "%d requests are acked pending" % self.max_pending, describe([a for _, a in frames]))
        offset = self.d.log_size()
        over = request_frame(self.me["id"], self.d.id, memo="one too many")
        self.expect_error(conn, over, "limit-exceeded", "request %d while %d are pending" % (
            self.max_pending + 1, self.max_pending), ref=over["messageID"])
        R.check(over["payment"]["id"] not in [p["id"] for p in self.d.payments()],
                "the refused request is not stored")
        R.check(self.d.log_has(offset, r"notice.*(pending|limit)"), "the refusal is logged at notice")
        cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": frames[0][0]["payment"]["id"]}
        conn.send(cancel)
        answer = conn.answer_to(cancel["messageID"])
        R.check(answer is not None and answer.get("state") == "cancelled", "one pending request cancelled",
                describe(answer))
        conn.send(over)
        answer = conn.answer_to(over["messageID"])
        R.check(answer is not None and answer.get("type") == "ack" and answer.get("state") == "pending",
                "the refused request resent with the same messageID is now acked pending (it was not stored as "
                "seen)", describe(answer))
        # Leave room for the health check and the next group.
        for frame, _ in frames[1:]:
            cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": frame["payment"]["id"]}
            conn.send(cancel)
            conn.answer_to(cancel["messageID"])
        cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": over["payment"]["id"]}
        conn.send(cancel)
        conn.answer_to(cancel["messageID"])
        conn.close()
        self.still_serves("pending limit")

    def group_rate(self):
        print("== requests per peer per minute (limits.max_requests_per_minute = %d)" % self.max_per_minute,
              flush=True)
        self.use_fresh_identity("rate-prober")
        conn = self.connect()
        offset = self.d.log_size()
        admitted = 0
        refused = None
        # Each admitted request is cancelled at once, so that only the rate limit (not the pending one) can refuse.
        for _ in range(3 * self.max_per_minute):
            frame = request_frame(self.me["id"], self.d.id)
            conn.send(frame)
            answer = conn.answer_to(frame["messageID"])
            if answer is not None and answer.get("type") == "ack":
                admitted += 1
                cancel = {"type": "cancel", "messageID": str(uuid.uuid4()), "paymentID": frame["payment"]["id"]}
                conn.send(cancel)
                conn.answer_to(cancel["messageID"])
                continue
            refused = (frame, answer)
            break
        R.check(refused is not None and refused[1] is not None and refused[1].get("code") == "limit-exceeded"
                and refused[1].get("ref") == refused[0]["messageID"],
                "a burst of requests is cut off with error limit-exceeded and its ref (after %d acks)" % admitted,
                describe(refused[1] if refused else None))
        R.check(admitted + 1 >= self.max_per_minute // 2,
                "at least half the per-minute budget was admitted before the cut-off (%d)" % admitted)
        if refused:
            R.check(refused[0]["payment"]["id"] not in [p["id"] for p in self.d.payments()],
                    "the refused request is not stored")
        R.check(self.d.log_has(offset, r"notice.*(rate|per minute|limit)"), "the refusal is logged at notice")
        for _ in range(20):
            frame = request_frame(self.me["id"], self.d.id, created=int(time.time()) - 2000, lifetime=1000)
            conn.send(frame)
            conn.answer_to(frame["messageID"])
        lines = [l for l in self.d.log_lines_since(offset) if re.search(r"notice.*(rate|per minute)", l)]
        R.check(len(lines) <= 3, "20 more refusals add no log line per refusal (%d lines)" % len(lines))
        conn.close()
        # A different peer has its own budget.
        other = make_identity(self.work, "other-peer")
        conn = PeerConnection(self.d.port, other)
        frame = request_frame(other["id"], self.d.id)
        conn.send(frame)
        answer = conn.answer_to(frame["messageID"])
        R.check(answer is not None and answer.get("type") == "ack", "another peer is not limited by the first",
                describe(answer))
        conn.close()

    def group_unauthenticated(self, handshake_timeout):
        limit = self.max_unauthenticated
        print("== unauthenticated connections (limits.max_unauthenticated = %d)" % limit, flush=True)
        offset = self.d.log_size()
        # limit + 1 silent connections: exactly one is closed at once. (Which one depends on the order the daemon's
        # event loops take them, so none is singled out.) The rest stay unauthenticated until handshake_timeout. Each
        # comes from its own loopback address: one address may hold only a quarter of the places (PROTOCOL.md §16).
        opened = [socket.create_connection(("127.0.0.1", self.d.port), timeout=DEADLINE,
                                           source_address=("127.0.0.%d" % (10 + i), 0)) for i in range(limit + 1)]
        closed_at_once = []
        deadline = time.monotonic() + DEADLINE
        while not closed_at_once and time.monotonic() < deadline:
            readable, _, _ = select.select(opened, [], [], max(0.0, deadline - time.monotonic()))
            for s in readable:
                try:
                    if s.recv(1) == b"":
                        closed_at_once.append(s)
                except ConnectionError:
                    closed_at_once.append(s)
        held = [s for s in opened if s not in closed_at_once]
        readable, _, _ = select.select(held, [], [], 0.5)
        R.check(len(closed_at_once) == 1 and not readable,
                "%d silent connections: exactly one is closed at once, %d stay open" % (limit + 1, limit),
                "%d closed, %d more readable" % (len(closed_at_once), len(readable)))
        for s in closed_at_once:
            s.close()
        # With limit connections held, a further one fails even with a valid certificate and hello.
        refused = False
        try:
            conn = self.connect()
            refused = conn.closes_within()
            conn.close()
        except (ssl.SSLError, ConnectionError, OSError, Closed):
            refused = True
        R.check(refused, "with %d unauthenticated connections held, TLS + hello with a valid certificate fail"
                % limit)
        R.check(self.d.log_has(offset, r"unauthenticated"), "the refused connection is logged")
        flood_offset = self.d.log_size()
        flood = 200
        for _ in range(flood):
            extra = socket.create_connection(("127.0.0.1", self.d.port), timeout=DEADLINE)
            extra.close()
        time.sleep(1)
        lines = [l for l in self.d.log_lines_since(flood_offset) if "unauthenticated" in l]
        R.check(len(lines) <= flood // 10, "a flood of %d connections logs %d lines (rate-limited)" % (
            flood, len(lines)))

        # The handshake deadline closes the held connections.
        start = time.monotonic()
        ended = 0
        for s in held:
            s.settimeout(max(1.0, handshake_timeout * 4 + DEADLINE - (time.monotonic() - start)))
            try:
                if s.recv(1) == b"":
                    ended += 1
            except ConnectionError:
                ended += 1
            except (socket.timeout, TimeoutError):
                pass
            s.close()
        R.check(ended == limit, "the limits.handshake_timeout deadline closes the %d silent connections (%d)" % (
            limit, ended))
        R.check(self.d.log_has(offset, r"handshake"), "the handshake deadline is logged")
        self.still_serves("unauthenticated limit")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cli", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--main", nargs=4, metavar=("PORT", "SOCKET", "PID", "LOG"), required=True)
    parser.add_argument("--limits", nargs=4, metavar=("PORT", "SOCKET", "PID", "LOG"), required=True)
    parser.add_argument("--max-pending", type=int, required=True)
    parser.add_argument("--max-per-minute", type=int, required=True)
    parser.add_argument("--max-unauthenticated", type=int, required=True)
    parser.add_argument("--handshake-timeout", type=int, required=True)
    parser.add_argument("--only", help="run only the groups whose names contain this")
    args = parser.parse_args()

    identity = make_identity(args.work, "prober")
    port, sock, pid, log = args.main
    main_daemon = Daemon("main", int(port), sock, int(pid), log, args.cli)
    port, sock, pid, log = args.limits
    limits_daemon = Daemon("limits", int(port), sock, int(pid), log, args.cli)
    prober = Prober(main_daemon, identity, args.work)
    limits = LimitsProber(limits_daemon, identity, args.work, args.max_pending, args.max_per_minute,
                          args.max_unauthenticated)
    groups = [
        ("pre-session", prober.group_pre_session),
        ("framing", prober.group_framing),
        ("fields", prober.group_fields),
        ("replay", prober.group_replay),
        ("memo", prober.group_memo),
        ("control", prober.group_control),
        ("pending", limits.group_pending),
        ("rate", limits.group_rate),
        ("unauthenticated", lambda: limits.group_unauthenticated(args.handshake_timeout)),
    ]
    for name, run in groups:
        if args.only and args.only not in name:
            continue
        try:
            run()
        except Exception as error:  # noqa: BLE001 - a crash of the prober is a failed check, then go on
            R.check(False, "group %s ran to its end" % name, "%s: %s" % (type(error).__name__, error))
    print("bad-input: %d passed, %d failed" % (R.passed, R.failed))
    return 0 if R.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
