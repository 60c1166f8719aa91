#!/usr/bin/env python3
"""A local HTTPS stand-in for Apple's App Store Server API, for tests and benchmarks.

It listens on 127.0.0.1 only, with a server certificate from its own throw-away CA, and checks
every request as Apple would: the bearer token's ES256 signature with the public half of the
API key it issued, its header (alg, kid, typ) and claims (iss, bid, aud, iat, exp, at most 60
minutes), the method, the path, the query parameters and the body of each endpoint. It answers
with Apple's documented bodies (../shared/fixtures/appstore-api/models), whose signed members
it signs with the project's test PKI (Tests/scripts/jws-test-pki.sh), so a client can verify
them with that PKI's root as test anchor. No traffic leaves loopback.

    appstore_api_standin.py DIR [--bundle-id ID] [--environment Sandbox]

writes into DIR (mode 0700): ca.pem (trust it), key.p8 (the API key to sign with), pki/
(root.der is the test anchor), requests.jsonl (one line per request: what was asked and what
the check found), and last `env` (shell assignments of everything above, written once the
server listens). It serves until SIGTERM.

Path arguments steer it, so tests reach every branch through the real client:
  error-CODE          Apple's error CODE with its HTTP status (the model's body when there is one)
  error-text          HTTP 500 with a text/plain body (no Apple error code)
  ratelimit-N-NAME    429 with Retry-After: 1 for the first N requests naming NAME, then success
  hugeretry           429 with a Retry-After of 9e18 seconds (more than any timedelta holds)
  retryable-N-NAME    Apple's retryable 5000001 for the first N requests naming NAME, then success
  garbage             HTTP 200 whose body is not JSON
  tampered            signed members whose signature does not verify
  wrongbundle         signed members for another bundle id
  slow                answers after 3 seconds
  huge                HTTP 200 with a 17 MiB body
"""
from __future__ import annotations

import base64
import datetime
import ipaddress
import json
import os
import re
import signal
import ssl
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple
from urllib.parse import parse_qsl, unquote, urlsplit

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import NameOID

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO.parent / "shared" / "fixtures"))
MODELS = FIXTURES / "appstore-api" / "models"
KEY_ID = "STANDINKEY"
ISSUER_ID = "99b16628-15e4-4668-972b-eeff55eeff55"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
SEGMENT = r"[^/]+"

# Apple's HTTP status for each error code the stand-in can send (the first digits say it).
def http_status(code: int) -> int:
    return int(str(code)[:3])


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def model(name: str) -> Any:
    return json.loads((MODELS / f"{name}.json").read_text())


class Signer:
    """Signs payloads with the test PKI's leaf, with the x5c chain Apple's data carries."""

    def __init__(self, pki: Path, bundle_id: str, environment: str) -> None:
        self.bundle_id = bundle_id
        self.environment = environment
        self.key = serialization.load_pem_private_key((pki / "leaf.key").read_bytes(), None)
        self.x5c = [base64.b64encode((pki / f"{n}.der").read_bytes()).decode() for n in ("leaf", "int", "root")]

    def sign(self, payload: Dict[str, Any], tamper: bool = False) -> str:
        header = b64url(json.dumps({"alg": "ES256", "x5c": self.x5c}).encode())
        body = b64url(json.dumps(payload).encode())
        der = self.key.sign(f"{header}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        raw = bytearray(r.to_bytes(32, "big") + s.to_bytes(32, "big"))
        if tamper:
            raw[5] ^= 0x01
        return f"{header}.{body}.{b64url(bytes(raw))}"

    def payload(self, kind: str, bundle_id: str) -> Dict[str, Any]:
        now = int(time.time() * 1000)
        if kind == "appTransaction":
            p = model("appTransaction")
            p.update(receiptType=self.environment, bundleId=bundle_id, receiptCreationDate=now)
            return p
        p = model({"transaction": "signedTransaction", "renewalInfo": "signedRenewalInfo"}[kind])
        p.update(environment=self.environment, signedDate=now)
        if kind == "transaction":
            p["bundleId"] = bundle_id
        return p

    def signed(self, kind: str, steer: str) -> str:
        bundle_id = "com.example.someone.else" if steer == "wrongbundle" else self.bundle_id
        tamper = steer == "tampered"
        if kind == "notification":
            n = model("signedNotification")
            n["signedDate"] = int(time.time() * 1000)
            n["data"].update(environment=self.environment, bundleId=bundle_id,
                             signedTransactionInfo=self.sign(self.payload("transaction", bundle_id)),
                             signedRenewalInfo=self.sign(self.payload("renewalInfo", bundle_id)))
            n["data"].pop("appAppleId", None)
            return self.sign(n, tamper)
        return self.sign(self.payload(kind, bundle_id), tamper)


SIGNED_KINDS = {"signedTransactionInfo": "transaction", "signedTransactions": "transaction",
                "signedRenewalInfo": "renewalInfo", "signedAppTransactionInfo": "appTransaction",
                "signedPayload": "notification"}


def with_signed_members(value: Any, signer: Signer, steer: str) -> Any:
    """Apple's model with each placeholder signed member replaced by real signed data."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            kind = SIGNED_KINDS.get(k)
            if kind and isinstance(v, list):
                out[k] = [signer.signed(kind, steer) for _ in v]
            elif kind and isinstance(v, str):
                out[k] = signer.signed(kind, steer)
            else:
                out[k] = with_signed_members(v, signer, steer)
        return out
    if isinstance(value, list):
        return [with_signed_members(v, signer, steer) for v in value]
    return value


# ---- the endpoints: method, path pattern, allowed query names, body check, answer ----------

Check = Callable[[Any], Optional[str]]


def fields(**types: Any) -> Check:
    """A JSON object body holding at least these members with these Python types."""
    def check(body: Any) -> Optional[str]:
        if not isinstance(body, dict):
            return "the body is not a JSON object"
        for name, t in types.items():
            if name not in body:
                return f"the body lacks {name}"
            if not isinstance(body[name], t) or (t is int and isinstance(body[name], bool)):
                return f"{name} is {type(body[name]).__name__}, not {t}"
        return None
    return check


HISTORY_QUERY = {"revision", "startDate", "endDate", "productId", "productType", "sort",
                 "subscriptionGroupIdentifier", "inAppOwnershipType", "revoked"}
ENDPOINTS: List[Tuple[str, str, set, Optional[Check], Optional[str], int]] = [
    # method, path, query names, body check, answer model (None: empty), success status
    ("GET", rf"/inApps/v1/transactions/appTransactions/{SEGMENT}", set(), None, "appTransactionInfoResponse", 200),
    ("PUT", rf"/inApps/v1/transactions/consumption/{SEGMENT}", set(),
     fields(customerConsented=bool, consumptionStatus=int, platform=int, sampleContentProvided=bool, deliveryStatus=int), None, 202),
    ("PUT", rf"/inApps/v2/transactions/consumption/{SEGMENT}", set(),
     fields(customerConsented=bool, sampleContentProvided=bool, deliveryStatus=str), None, 202),
    ("PUT", rf"/inApps/v1/transactions/{SEGMENT}/appAccountToken", set(), fields(appAccountToken=str), None, 200),
    ("POST", rf"/inApps/v1/transactions/{SEGMENT}/finish", set(), None, None, 200),
    ("GET", rf"/inApps/v1/transactions/{SEGMENT}", set(), None, "transactionInfoResponse", 200),
    ("GET", rf"/inApps/v[12]/history/{SEGMENT}", HISTORY_QUERY, None, "transactionHistoryResponse", 200),
    ("GET", rf"/inApps/v1/subscriptions/extend/mass/{SEGMENT}/{SEGMENT}", set(), None,
     "getStatusOfSubscriptionRenewalDateExtensionsResponse", 200),
    ("POST", r"/inApps/v1/subscriptions/extend/mass", set(),
     fields(extendByDays=int, extendReasonCode=int, requestIdentifier=str, productId=str),
     "extendRenewalDateForAllActiveSubscribersResponse", 200),
    ("PUT", rf"/inApps/v1/subscriptions/extend/{SEGMENT}", set(),
     fields(extendByDays=int, extendReasonCode=int, requestIdentifier=str), "extendSubscriptionRenewalDateResponse", 200),
    ("GET", rf"/inApps/v1/subscriptions/{SEGMENT}", {"status"}, None, "getAllSubscriptionStatusesResponse", 200),
    ("GET", rf"/inApps/v2/refund/lookup/{SEGMENT}", {"revision"}, None, "getRefundHistoryResponse", 200),
    ("GET", rf"/inApps/v1/lookup/{SEGMENT}", set(), None, "lookupOrderIdResponse", 200),
    ("POST", r"/inApps/v1/notifications/history", {"paginationToken"}, fields(startDate=int, endDate=int),
     "getNotificationHistoryResponse", 200),
    ("POST", r"/inApps/v1/notifications/test", set(), None, "requestTestNotificationResponse", 200),
    ("GET", rf"/inApps/v1/notifications/test/{SEGMENT}", set(), None, "getTestNotificationStatusResponse", 200),
    ("GET", r"/inApps/v1/messaging/image/list", set(), None, "getImageListResponse", 200),
    ("PUT", rf"/inApps/v1/messaging/image/{UUID}", {"imageSize"}, None, None, 200),
    ("DELETE", rf"/inApps/v1/messaging/image/{UUID}", set(), None, None, 200),
    ("GET", r"/inApps/v1/messaging/message/list", set(), None, "getMessageListResponse", 200),
    ("PUT", rf"/inApps/v1/messaging/message/{UUID}", set(), fields(header=str, body=str), None, 200),
    ("DELETE", rf"/inApps/v1/messaging/message/{UUID}", set(), None, None, 200),
    ("PUT", rf"/inApps/v1/messaging/default/{SEGMENT}/{SEGMENT}", set(), fields(messageIdentifier=str), None, 200),
    ("DELETE", rf"/inApps/v1/messaging/default/{SEGMENT}/{SEGMENT}", set(), None, None, 200),
    ("GET", rf"/inApps/v1/messaging/default/{SEGMENT}/{SEGMENT}", set(), None, "getDefaultMessageResponse", 200),
    ("PUT", r"/inApps/v1/messaging/realtime/url", set(), fields(realtimeURL=str), None, 200),
    ("DELETE", r"/inApps/v1/messaging/realtime/url", set(), None, None, 200),
    ("GET", r"/inApps/v1/messaging/realtime/url", set(), None, "getRealtimeUrlResponse", 200),
    ("POST", r"/inApps/v1/messaging/performanceTest", set(), fields(originalTransactionId=str), "performanceTestResponse", 200),
    ("GET", rf"/inApps/v1/messaging/performanceTest/result/{SEGMENT}", set(), None, "performanceTestResultResponse", 200),
]
ERROR_MODELS = {4040010: "transactionIdNotFoundError", 4000006: "invalidTransactionIdError", 5000000: "apiException",
                4290000: "apiTooManyRequestsException", 4040019: "appTransactionDoesNotExistError",
                4000185: "familyTransactionNotSupportedError", 4000187: "transactionIdNotOriginalTransactionId"}


class StandIn:
    def __init__(self, folder: Path, public_key: ec.EllipticCurvePublicKey, signer: Signer, bundle_id: str) -> None:
        self.folder = folder
        self.public_key = public_key
        self.signer = signer
        self.bundle_id = bundle_id
        self.log_lock = threading.Lock()
        self.counters: Dict[str, int] = {}
        self.answers: Dict[Tuple[str, str], bytes] = {}

    def log(self, entry: Dict[str, Any]) -> None:
        with self.log_lock, open(self.folder / "requests.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")

    def signed_answer(self, answer_model: str, steer: str) -> bytes:
        """Apple's model with its members signed; signed once per model and steer (ECDSA in
        Python would otherwise dominate the client benchmarks)."""
        key = (answer_model, steer)
        body = self.answers.get(key)
        if body is None:
            body = json.dumps(with_signed_members(model(answer_model), self.signer, steer)).encode()
            self.answers[key] = body
        return body

    def count(self, name: str) -> int:
        with self.log_lock:
            self.counters[name] = self.counters.get(name, 0) + 1
            return self.counters[name]

    def check_token(self, authorization: Optional[str]) -> Tuple[Optional[str], Dict[str, Any]]:
        """None when the bearer token is what Apple accepts, else why not; and its claims."""
        if not authorization or not authorization.startswith("Bearer "):
            return "no bearer token", {}
        parts = authorization[7:].split(".")
        if len(parts) != 3:
            return "the token is not a compact JWS", {}
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            raw = b64url_decode(parts[2])
        except ValueError:
            return "the token does not decode", {}
        if header != {"alg": "ES256", "kid": KEY_ID, "typ": "JWT"}:
            return f"unexpected header {header}", claims
        if len(raw) != 64:
            return "the signature is not 64 bytes", claims
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            self.public_key.verify(der, f"{parts[0]}.{parts[1]}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "the token's signature does not verify", claims
        now = time.time()
        expected = {"iss": ISSUER_ID, "aud": "appstoreconnect-v1", "bid": self.bundle_id}
        for name, value in expected.items():
            if claims.get(name) != value:
                return f"claim {name} is {claims.get(name)!r}, not {value!r}", claims
        # Apple's documentation asks for iat; Apple's own Python library sends only exp.
        iat, exp = claims.get("iat", int(now)), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int):
            return "iat and exp must be integers", claims
        if iat > now + 60 or exp <= now or exp - iat > 3600 or exp > now + 3600:
            return f"iat {iat} / exp {exp} are not a current lifetime of at most 60 minutes", claims
        return None, claims


def make_handler(standin: StandIn) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Apple's servers do
        # Headers and body are written separately: with Nagle's algorithm the body would wait
        # for the client's delayed ACK (40 ms on Linux) on every answer.
        disable_nagle_algorithm = True

        def log_message(self, *args: Any) -> None:  # quiet: requests.jsonl is the log
            pass

        def answer(self, status: int, body: bytes = b"", content_type: str = "application/json",
                   headers: Optional[Dict[str, str]] = None) -> None:
            self.send_response(status)
            if body:
                self.send_header("Content-Type", content_type)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if body:
                self.wfile.write(body)

        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            query = parse_qsl(url.query, keep_blank_values=True)
            problem, claims = standin.check_token(self.headers.get("Authorization"))
            entry: Dict[str, Any] = {"method": self.command, "path": url.path, "query": query,
                                     "contentType": self.headers.get("Content-Type"),
                                     "accept": self.headers.get("Accept"), "userAgent": self.headers.get("User-Agent"),
                                     "claims": claims}
            ctype = self.headers.get("Content-Type") or ""
            if ctype == "image/png":
                entry["bodyBase64"] = base64.b64encode(raw_body).decode()
            else:
                entry["body"] = raw_body.decode("utf-8", "replace") if raw_body else None
            segments = [unquote(s) for s in url.path.split("/")]
            route = next((r for r in ENDPOINTS if r[0] == self.command and re.fullmatch(r[1], url.path)), None)
            if problem is None and self.headers.get("Accept") != "application/json":
                problem = "Accept is not application/json"
            if problem is None and route is None:
                problem = f"no endpoint {self.command} {url.path}"
            if problem is None:
                problem = self.check_request(route, query, raw_body, ctype)
            entry["problem"] = problem
            standin.log(entry)
            if problem is not None:
                status = 401 if "token" in problem or "claim" in problem or "iat" in problem or "header" in problem else 400
                return self.answer(status, json.dumps({"errorCode": 4000000, "errorMessage": f"stand-in: {problem}"}).encode())
            self.respond(route, segments)

        def check_request(self, route: Any, query: List[Tuple[str, str]], raw: bytes, ctype: str) -> Optional[str]:
            _, _, allowed, check, _, _ = route
            unknown = [k for k, _ in query if k not in allowed]
            if unknown:
                return f"unexpected query parameters {unknown}"
            if route[0] == "PUT" and "messaging/image" in route[1]:
                if ctype != "image/png" or not raw:
                    return "an image upload is a non-empty image/png body"
                return None
            if check is None:
                return "a body where the endpoint takes none" if raw else None
            if ctype != "application/json":
                return f"Content-Type is {ctype!r}, not application/json"
            try:
                body = json.loads(raw)
            except ValueError:
                return "the body is not JSON"
            return check(body)

        def respond(self, route: Any, segments: List[str]) -> None:
            steer = next((s for s in segments if s.startswith(("error-", "ratelimit-", "retryable-"))
                          or s in ("garbage", "tampered", "wrongbundle", "slow", "huge", "hugeretry")), "")
            if steer.startswith("error-"):
                what = steer[6:]
                if what == "text":
                    return self.answer(500, b"Internal Server Error", "text/plain")
                code = int(what)
                name = ERROR_MODELS.get(code)
                body = model(name) if name else {"errorCode": code, "errorMessage": f"Apple error {code}."}
                return self.answer(http_status(code), json.dumps(body).encode())
            m = re.fullmatch(r"(ratelimit|retryable)-(\d+)-(.+)", steer)
            if m and standin.count(steer) <= int(m.group(2)):
                if m.group(1) == "ratelimit":
                    return self.answer(429, json.dumps(model("apiTooManyRequestsException")).encode(), headers={"Retry-After": "1"})
                return self.answer(500, json.dumps({"errorCode": 5000001, "errorMessage": "An unknown error occurred. Please try again."}).encode())
            if steer == "hugeretry":
                return self.answer(429, json.dumps(model("apiTooManyRequestsException")).encode(),
                                   headers={"Retry-After": "9000000000000000000"})
            if steer == "slow":
                time.sleep(3)
            if steer == "garbage":
                return self.answer(200, b"<html>not json</html>", "text/html")
            if steer == "huge":
                return self.answer(200, b"{\"x\":\"" + b"a" * (17 << 20) + b"\"}")
            _, _, _, _, answer_model, status = route
            if answer_model is None:
                return self.answer(status)
            self.answer(status, standin.signed_answer(answer_model, steer))

        do_GET = do_POST = do_PUT = do_DELETE = handle_any

    return Handler


def tls_material(folder: Path) -> ssl.SSLContext:
    """A throw-away CA and a server certificate for 127.0.0.1 / localhost signed by it."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "GateKit stand-in CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=2))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=2))
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


def write(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(args[0])
    bundle_id = args[args.index("--bundle-id") + 1] if "--bundle-id" in args else "com.example"
    environment = args[args.index("--environment") + 1] if "--environment" in args else "Sandbox"
    if not MODELS.is_dir():
        print(f"stand-in: Apple's models are not at {MODELS} (set GATEKIT_FIXTURES)", file=sys.stderr)
        return 1
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    born = time.time()
    subprocess.run([str(REPO / "Tests" / "scripts" / "jws-test-pki.sh"), str(folder / "pki")], check=True,
                   stdout=subprocess.DEVNULL)
    # Signed data dated in the PKI's first second would sit on its certificates' notBefore,
    # where GateKit's verified-chain cache (strictly inside the validity window) never answers:
    # every verification would be a cold one, unlike with Apple's long-lived certificates.
    time.sleep(max(0.0, born + 1.1 - time.time()))
    api_key = ec.generate_private_key(ec.SECP256R1())
    write(folder / "key.p8", api_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                   serialization.NoEncryption()))
    context = tls_material(folder)
    standin = StandIn(folder, api_key.public_key(), Signer(folder / "pki", bundle_id, environment), bundle_id)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(standin))
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    port = server.server_address[1]
    env = {"GATEKIT_TEST_APPSTORE_URL": f"https://127.0.0.1:{port}", "GATEKIT_TEST_APPSTORE_CA": folder / "ca.pem",
           "GATEKIT_TEST_APPSTORE_KEY": folder / "key.p8", "GATEKIT_TEST_APPSTORE_KEY_ID": KEY_ID,
           "GATEKIT_TEST_APPSTORE_ISSUER": ISSUER_ID, "GATEKIT_TEST_APPSTORE_BUNDLE_ID": bundle_id,
           "GATEKIT_TEST_APPSTORE_ENVIRONMENT": environment, "GATEKIT_TEST_APPSTORE_ANCHOR": folder / "pki" / "root.der",
           "GATEKIT_TEST_APPSTORE_LOG": folder / "requests.jsonl"}
    write(folder / "env.tmp", "".join(f"export {k}='{v}'\n" for k, v in env.items()).encode())
    os.rename(folder / "env.tmp", folder / "env")
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
