"""Wire helpers shared by the test peers: peer IDs (PROTOCOL.md §4), identities made with openssl, frames
(§5), one TLS connection as a peer, a running daemon seen through its control socket, and PASS/FAIL results."""

import argparse
import hashlib
import json
import os
import re
import select
import socket
import ssl
import struct
import subprocess
import sys
import time
import urllib.request
import uuid

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
DEADLINE = 10.0  # seconds to wait for an answer that must come (generous: the machine may be slow)
QUIET = 2.0  # seconds of silence that show an answer does not come
INT64_MAX = 2**63 - 1


# ------------------------------------------------------------------ results

class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("PASS %s" % what, flush=True)
        else:
            self.failed += 1
            print("FAIL %s%s" % (what, ": " + detail if detail else ""), flush=True)
        return ok


R = Results()


# ------------------------------------------------------------------ peer IDs (PROTOCOL.md §4)

def base32_nopad(data):
    bits = int.from_bytes(data, "big")
    nchars = -(-len(data) * 8 // 5)
    bits <<= nchars * 5 - len(data) * 8
    return "".join(ALPHABET[(bits >> (5 * (nchars - 1 - i))) & 31] for i in range(nchars))


def luhn_mod32(chunk):
    factor, total = 2, 0
    for ch in chunk[::-1]:
        addend = factor * ALPHABET.index(ch)
        factor = 3 - factor
        total += addend // 32 + addend % 32
    return ALPHABET[-total % 32]


def peer_id_from_bytes(digest):
    """The text form of a peer ID's 32 bytes (PROTOCOL.md §4.1): base32, a Luhn mod 32 check per 13 characters,
    groups of 7."""
    b32 = base32_nopad(digest)
    text = "".join(b32[13 * i:13 * i + 13] + luhn_mod32(b32[13 * i:13 * i + 13]) for i in range(4))
    return "-".join(text[7 * i:7 * i + 7] for i in range(8))


def peer_id_text(spki_der):
    """The peer ID of a SubjectPublicKeyInfo (PROTOCOL.md §3.2)."""
    return peer_id_from_bytes(hashlib.sha256(spki_der).digest())


def parse_peer_id(text):
    """The 32 bytes of a peer ID's text form, parsed leniently (user-input rules of PROTOCOL.md §4: any case, with
    or without '-' and spaces, 0/1/8 read as O/I/B); raises ValueError on a bad length, character, check character
    or padding."""
    s = text.upper().replace("-", "").replace(" ", "")
    s = s.translate(str.maketrans({"0": "O", "1": "I", "8": "B"}))
    if len(s) != 56 or any(c not in ALPHABET for c in s):
        raise ValueError("bad length or character")
    data = ""
    for i in range(4):
        chunk, check = s[14 * i:14 * i + 13], s[14 * i + 13]
        if luhn_mod32(chunk) != check:
            raise ValueError("check character %d mismatch" % (i + 1))
        data += chunk
    value = 0
    for c in data:
        value = value * 32 + ALPHABET.index(c)
    if value & 0xF:
        raise ValueError("non-zero padding bits")
    return (value >> 4).to_bytes(32, "big")


def certificate_spki(cert):
    """The DER SubjectPublicKeyInfo of a PEM certificate file, through the openssl CLI."""
    pub = subprocess.run(["openssl", "x509", "-in", cert, "-noout", "-pubkey"], check=True,
                         capture_output=True).stdout
    return subprocess.run(["openssl", "pkey", "-pubin", "-outform", "DER"], input=pub, check=True,
                          capture_output=True).stdout


def make_identity(directory, name):
    """A P-256 key and self-signed certificate (PROTOCOL.md §3.1) made with the openssl CLI; returns the paths, the
    peer ID's text ("id") and its 32 bytes ("bytes")."""
    key = os.path.join(directory, name + "-key.pem")
    cert = os.path.join(directory, name + "-cert.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
         "-pkeyopt", "ec_param_enc:named_curve", "-nodes", "-sha256", "-days", "7300",
         "-subj", "/CN=interpay " + name, "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    spki = certificate_spki(cert)
    if len(spki) != 91:
        raise RuntimeError("unexpected SPKI length %d" % len(spki))
    digest = hashlib.sha256(spki).digest()
    return {"key": key, "cert": cert, "id": peer_id_from_bytes(digest), "bytes": digest}


# ------------------------------------------------------------------ pairing (PROTOCOL.md §7.9)

def pairing_commit(sender_bytes, nonce):
    """The commit value a side sends before revealing its nonce: hex SHA-256 over the sender's ID and the nonce."""
    return hashlib.sha256(b"interpay-pairing-commit-v2" + sender_bytes + nonce).hexdigest()


def pairing_code(one, one_nonce, other, other_nonce):
    """The 6-digit verification code both sides derive from both IDs and both nonces."""
    (low, low_nonce), (high, high_nonce) = sorted([(one, one_nonce), (other, other_nonce)])
    digest = hashlib.sha256(b"interpay-pairing-v2" + low + high + low_nonce + high_nonce).digest()
    return "%06d" % (int.from_bytes(digest[:4], "big") % 1000000)


# ------------------------------------------------------------------ frames

def canonical(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def frame_bytes(body):
    if not isinstance(body, (bytes, bytearray)):
        body = canonical(body)
    return struct.pack(">I", len(body)) + body


class Closed(Exception):
    pass


class PeerConnection:
    """One TLS connection to a daemon, as a peer."""

    def __init__(self, port, identity=None, hello=True, name="prober", capabilities=(), source=None):
        # `source`: another loopback address (127.0.0.2, ...) to connect from, for a host other than the daemons'.
        self.raw = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE,
                                            source_address=(source, 0) if source else None)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1_3
        if identity:
            context.load_cert_chain(identity["cert"], identity["key"])
        self.sock = context.wrap_socket(self.raw, server_hostname=None)
        self.buffer = b""
        self.received = []
        self.their_hello = None
        if hello:
            self.send({"type": "hello", "minVersion": 1, "maxVersion": 1, "name": name,
                       "capabilities": list(capabilities),
                       "agent": "bad-input-probe/1"})
            self.their_hello = self.next_frame(lambda f: f.get("type") == "hello")

    def send_raw(self, data):
        self.sock.sendall(data)

    def send(self, body):
        self.send_raw(frame_bytes(body))

    def _read_frame(self, deadline):
        while True:
            if len(self.buffer) >= 4:
                (n,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + n:
                    body = self.buffer[4:4 + n]
                    self.buffer = self.buffer[4 + n:]
                    return json.loads(body.decode("utf-8"))
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(65536)
            except (socket.timeout, TimeoutError):
                return None
            except (ssl.SSLError, ConnectionError, OSError) as error:
                raise Closed(str(error))
            if not chunk:
                raise Closed("end of stream")
            self.buffer += chunk

    def next_frame(self, predicate=lambda f: True, timeout=DEADLINE):
        """The next frame matching predicate, answering pings; None when none came in time. Raises Closed."""
        deadline = time.monotonic() + timeout
        while True:
            frame = self._read_frame(deadline)
            if frame is None:
                return None
            self.received.append(frame)
            if frame.get("type") == "ping":
                try:
                    self.send({"type": "pong", "nonce": frame.get("nonce", 0)})
                except OSError:
                    pass
                continue
            if predicate(frame):
                return frame

    def answer_to(self, message_id, timeout=DEADLINE):
        """The ack or error that answers message_id."""
        return self.next_frame(
            lambda f: (f.get("type") == "ack" and f.get("ackedID") == message_id)
            or (f.get("type") == "error" and f.get("ref") == message_id), timeout)

    def drain(self, seconds):
        """Every frame that arrives within `seconds` (pings answered), in order."""
        got = []
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return got
            frame = self.next_frame(timeout=remaining)
            if frame is None:
                return got
            got.append(frame)

    def closes_within(self, timeout=DEADLINE):
        """True when the daemon ends the connection within timeout (frames before the end are kept)."""
        try:
            while self.next_frame(timeout=timeout) is not None:
                pass
            return False
        except Closed:
            return True

    def error_then_close(self):
        """The next error frame (None if the connection closed first), and whether the connection then closes."""
        try:
            answer = self.next_frame(lambda f: f.get("type") == "error")
        except Closed:
            answer = None
        return answer, self.closes_within()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# ------------------------------------------------------------------ the web app

def web_owner_status(port, token, timeout):
    """The owner's GET /api/status on the web app at 127.0.0.1:`port` with the token; (status, seconds taken),
    status None when unanswered (a timeout or a refused connection)."""
    request = urllib.request.Request("http://127.0.0.1:%d/api/status" % port,
                                     headers={"Authorization": "Bearer " + token})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, time.monotonic() - started
    except Exception:  # noqa: BLE001 (unanswered is what is measured)
        return None, time.monotonic() - started


# ------------------------------------------------------------------ the daemon under test

class Daemon:
    def __init__(self, label, port, socket_path, pid, log, cli):
        self.label = label
        self.port = port
        self.socket_path = socket_path
        self.pid = pid
        self.log = log
        self.cli = cli
        self.id = self.status()["id"]

    def interpay(self, *args):
        return subprocess.run([self.cli, *args, "--socket", self.socket_path], capture_output=True, text=True,
                              timeout=60)

    def status(self):
        out = self.interpay("status", "--json")
        if out.returncode != 0:
            raise RuntimeError("interpay status failed: " + out.stderr)
        return json.loads(out.stdout)

    def payments(self):
        out = self.interpay("list", "--json")
        if out.returncode != 0:
            raise RuntimeError("interpay list failed: " + out.stderr)
        return json.loads(out.stdout)["payments"]

    def wait_for_session(self, peer_id, timeout=DEADLINE, up=True):
        """True once `interpay peers` lists a session up with `peer_id` (with up=False: lists none).

        The daemon sends its hello before it registers the session, so a peer that has read the daemon's hello
        cannot yet count on the CLI knowing it: wait here before a command that names the peer. Likewise a peer
        that closed its connection waits for the daemon to see the close before it opens the next one."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            out = self.interpay("peers", "--json")
            if out.returncode == 0 and any(p.get("id") == peer_id and p.get("session") == "up"
                                           for p in json.loads(out.stdout).get("peers", [])) == up:
                return True
            time.sleep(0.1)
        return False

    def alive(self):
        try:
            os.kill(self.pid, 0)
            return True
        except OSError:
            return False

    def rss_kib(self):
        with open("/proc/%d/status" % self.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return -1

    def log_text(self):
        with open(self.log, encoding="utf-8", errors="replace") as log:
            return log.read()

    def log_lines_since(self, offset):
        with open(self.log, "rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", errors="replace").splitlines()

    def log_size(self):
        return os.path.getsize(self.log)

    def log_has(self, offset, pattern, timeout=DEADLINE):
        """Whether a line matching pattern appears in the log after offset, waiting up to timeout."""
        deadline = time.monotonic() + timeout
        while True:
            if any(re.search(pattern, line) for line in self.log_lines_since(offset)):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.2)


def request_frame(payee, payer, minor=1250, currency="MXN", memo="probe", created=None, lifetime=900,
                  message_id=None, payment_id=None, **overrides):
    now = int(time.time()) if created is None else created
    payment = {"id": payment_id or str(uuid.uuid4()), "payee": payee, "payer": payer,
               "amount": {"currency": currency, "minorUnits": minor}, "memo": memo,
               "createdAt": now, "expiresAt": now + lifetime}
    payment.update(overrides)
    return {"type": "request", "messageID": message_id or str(uuid.uuid4()), "payment": payment}


def iso_time(seconds):
    """A receipt's time (PROTOCOL.md §17.1): YYYY-MM-DDTHH:MM:SSZ."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def signed_receipt(identity, fields):
    """The receipt text (PROTOCOL.md §17.2) of `fields` with `identity`'s key as payeeKey, signed with that key
    through the openssl CLI: what a payee of the attacker's own can make of any terms it likes."""
    receipt = dict(fields, payeeKey=certificate_spki(identity["cert"]).hex())
    text = json.dumps(receipt, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    der = subprocess.run(["openssl", "dgst", "-sha256", "-sign", identity["key"]], input=text.encode(),
                         check=True, capture_output=True).stdout
    # DER SEQUENCE { INTEGER r, INTEGER s } to r || s, 32 bytes each.
    r_length = der[3]
    r = der[4:4 + r_length]
    s = der[4 + r_length + 2:]
    receipt["signature"] = (r[-32:].rjust(32, b"\0") + s[-32:].rjust(32, b"\0")).hex()
    return json.dumps(receipt, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def refused_field(answer, field=None):
    """Whether `answer` is the error a field that fails validation gets (PROTOCOL.md §5.2: class invalid-field, code
    malformed-frame), naming `field` when given."""
    if answer is None or answer.get("type") != "error" or answer.get("code") != "malformed-frame":
        return False
    message = answer.get("message", "")
    return "invalid field" in message and (field is None or ("'%s'" % field) in message)


def describe(frame):
    return json.dumps(frame, sort_keys=True) if frame is not None else "nothing"
