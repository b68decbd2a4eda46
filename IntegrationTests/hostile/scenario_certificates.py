"""Certificate keys (SECURITY.md T-SPKI, T-LOG): a P-256 key in a non-canonical encoding must not make a session,
and one host refused again and again costs the log a few lines, not one per connection."""

import os
import subprocess

import interpay_wire as wire

DESCRIPTION = "certificates with a compressed point or explicit curve parameters are refused at the handshake"


def identity(work, label, key_args):
    """A key made by `openssl` with `key_args` and a self-signed certificate for it."""
    base = os.path.join(work, label)
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", *key_args,
                    "-out", base + "-raw.pem"], check=True, capture_output=True)
    return base


def run(h):
    alice = h.daemon("alice")
    cases = []
    base = identity(h.work, "compressed", [])
    subprocess.run(["openssl", "ec", "-in", base + "-raw.pem", "-conv_form", "compressed", "-out", base + "-key.pem"],
                   check=True, capture_output=True)
    cases.append(("a compressed point", base))
    base = identity(h.work, "explicit", ["-pkeyopt", "ec_param_enc:explicit"])
    os.rename(base + "-raw.pem", base + "-key.pem")
    cases.append(("explicit curve parameters", base))
    for label, base in cases:
        subprocess.run(["openssl", "req", "-x509", "-new", "-key", base + "-key.pem", "-subj", "/CN=interpay " + label,
                        "-days", "30", "-sha256", "-out", base + "-cert.pem"], check=True, capture_output=True)
        offset = alice.log_size()
        peer = {"key": base + "-key.pem", "cert": base + "-cert.pem", "id": "?"}
        try:
            conn = h.connect(alice, peer, name="odd key")
            hello = conn.their_hello
            conn.close()
        except (wire.Closed, OSError) as error:
            hello = None
            print("handshake with %s refused: %s" % (label, error))
        h.check(hello is None, "a certificate with %s gets no session" % label, wire.describe(hello))
        if label == "a compressed point":
            # (Explicit parameters are refused by the TLS library while it decodes the certificate, before the
            # peer check runs; that handshake failure is counted with the other failed handshakes.)
            h.check(alice.log_has(offset, r"certificate refused"), "the refusal is logged")
    sessions = alice.status().get("sessions")
    h.check(sessions == 0, "no session is up (%s)" % sessions)

    # T-LOG: each refusal logged a warning that named no peer or address, so it escaped the per-peer log budget:
    # 2,000 connections, 2,000 lines. Now the lines name the host's address and share its budget (30 at once).
    compressed = {"key": cases[0][1] + "-key.pem", "cert": cases[0][1] + "-cert.pem", "id": "?"}
    offset = alice.log_size()
    attempts = 200
    for _ in range(attempts):
        try:
            h.connect(alice, compressed, name="odd key").close()
        except (wire.Closed, OSError):
            pass
    lines = [line for line in alice.log_lines_since(offset) if "certificate refused" in line]
    h.check(0 < len(lines) <= 40, "%d refused handshakes from one host log %d lines (its budget)" % (attempts, len(lines)))
    h.check(all("address=" in line or "127.0.0.1" in line for line in lines), "each names the address",
            lines[0] if lines else "")
