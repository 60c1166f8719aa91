"""What GateKit's local HTTPS stand-ins share: a throw-away CA and a server certificate for
loopback, the handler base (keep-alive, quiet, one way to answer), base64url, owner-only files,
and serving until SIGTERM once the settings file is in place."""
from __future__ import annotations

import base64
import datetime
import ipaddress
import os
import signal
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Optional

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StandInHandler(BaseHTTPRequestHandler):
    """What every stand-in's handler shares: keep-alive, quiet, and one way to answer."""
    protocol_version = "HTTP/1.1"  # keep-alive, as Apple's and Google's servers do
    # Headers and body are written separately: with Nagle's algorithm the body would wait
    # for the client's delayed ACK (40 ms on Linux) on every answer.
    disable_nagle_algorithm = True

    def log_message(self, *args: Any) -> None:  # quiet: requests.jsonl is the log
        pass

    def answer(self, status: int, body: bytes = b"", content_type: str = "application/json",
               headers: Optional[Dict[str, str]] = None, trickle: float = 0) -> None:
        """``trickle``: seconds over which the body goes out a byte at a time."""
        self.send_response(status)
        if body:
            self.send_header("Content-Type", content_type)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and trickle > 0:
            for i in range(len(body)):
                self.wfile.write(body[i:i + 1])
                self.wfile.flush()
                time.sleep(trickle / len(body))
        elif body:
            self.wfile.write(body)


def tls_material(folder: Path) -> ssl.SSLContext:
    """A throw-away CA and a server certificate for 127.0.0.1 / localhost signed by it."""
    now = datetime.datetime.now(datetime.timezone.utc)
    # Valid from a day ago, as a real server's certificate is: a host whose clock is hours slow
    # still reaches it (the ledger's clock tests run such hosts).
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "GateKit stand-in CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    write(folder / "ca.pem", ca.public_bytes(serialization.Encoding.PEM))
    write(folder / "server.pem", cert.public_bytes(serialization.Encoding.PEM) + key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(folder / "server.pem")
    return context


def publish_and_serve(server: ThreadingHTTPServer, folder: Path, env: Dict[str, Any]) -> None:
    """Writes DIR/env (shell assignments, renamed into place once complete: the wrapper waits
    for it) and serves until SIGTERM."""
    write(folder / "env.tmp", "".join(f"export {k}='{v}'\n" for k, v in env.items()).encode())
    os.rename(folder / "env.tmp", folder / "env")
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()


def write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
