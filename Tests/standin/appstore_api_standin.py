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

Worlds: a test that needs Apple's history to hold its own data (the ledger's sync and refresh)
puts a world under a bundle id of its own, and every request whose token names that bundle id
is answered from it, with Apple's rules for Get Notification History (records by first send
attempt in [startDate, endDate), at most 180 days back, 20 per page, paginationToken bound to
its request), Get Transaction History v2 (the newest version of each of the customer's
transactions, revision = what was already returned) and Get All Subscription Statuses:

    PUT  /standin/world        {"bundleId":…,"now":ms,"pageSize":20,"notifications":[{"signedPayload":…,
                               "sendAttempts":[{"attemptDate":ms,"sendAttemptResult":"SUCCESS"}]}],
                               "transactions":[signed…],"faults":[{"request":N,"errorCode":C}],"delayMs":0,
                               "trickleMs":0}
    POST /standin/world/clock  {"bundleId":…,"now":ms}     moves the world's clock forward
    GET  /standin/world?bundleId=…                         the world's request counters

authorized by `Authorization: Bearer <control token>` (env: GATEKIT_TEST_APPSTORE_CONTROL). A
fault answers the world's Nth history request (notification or transaction history, counted
from 1) with Apple's error C instead, or, as a hostile server would, with the body
{"request":N,"answer":{…}} gives (whatever page token it came with). "trickleMs" sends each
answer's body a byte at a time over that long.

Path arguments steer it, so tests reach every branch through the real client:
  error-CODE          Apple's error CODE with its HTTP status (the model's body when there is one)
  error-text          HTTP 500 with a text/plain body (no Apple error code)
  ratelimit-N-NAME    429 with Retry-After: 1 for the first N requests naming NAME, then success
  hugeretry           429 with a Retry-After of 9e18 seconds (more than any timedelta holds)
  absurdretry         429 with a Retry-After of 10^24 seconds (more than 64 bits hold)
  retryable-N-NAME    Apple's retryable 5000001 for the first N requests naming NAME, then success
  garbage             HTTP 200 whose body is not JSON
  tampered            signed members whose signature does not verify
  wrongbundle         signed members for another bundle id
  slow                answers after 3 seconds
  huge                HTTP 200 with a 17 MiB body
"""
from __future__ import annotations

import base64
import bisect
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
sys.path.insert(0, str(REPO / "python"))
from gatekit.standin._https import StandInHandler, b64url, b64url_decode, publish_and_serve, tls_material, write  # noqa: E402
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO.parent / "shared" / "fixtures"))
MODELS = FIXTURES / "appstore-api" / "models"
KEY_ID = "STANDINKEY"
ISSUER_ID = "99b16628-15e4-4668-972b-eeff55eeff55"
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
SEGMENT = r"[^/]+"

# Apple's HTTP status for each error code the stand-in can send (the first digits say it).
def http_status(code: int) -> int:
    return int(str(code)[:3])


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


def jws_payload(text: str) -> Dict[str, Any]:
    """The payload of a compact JWS, unverified (the world's own data: the client verifies)."""
    value: Dict[str, Any] = json.loads(b64url_decode(text.split(".")[1]))
    return value


class World:
    """A test's App Store history: notifications with their send attempts, the transactions and
    renewal infos they (and any extra signed transactions) carry, a clock and faults."""

    HORIZON_MS = 180 * 86_400_000

    def __init__(self, spec: Dict[str, Any]) -> None:
        self.now: Optional[int] = spec.get("now")
        self.page_size = int(spec.get("pageSize", 20))
        self.delay = float(spec.get("delayMs", 0)) / 1000
        self.trickle = float(spec.get("trickleMs", 0)) / 1000
        self.faults: Dict[int, Dict[str, Any]] = {int(f["request"]): f for f in spec.get("faults", [])}
        self.counters = {"notificationHistory": 0, "transactionHistory": 0, "subscriptionStatuses": 0, "requests": 0}
        self.tokens: Dict[str, Tuple[str, int]] = {}
        records = [(min(a["attemptDate"] for a in record.get("sendAttempts") or []), order, record)
                   for order, record in enumerate(spec.get("notifications", []))]
        records.sort(key=lambda r: (r[0], r[1]))
        self.records = records
        self.first_attempts = [r[0] for r in records]  # for bisect: a page costs O(log n), not O(n)
        self.extra_transactions: List[str] = list(spec.get("transactions", []))
        self.decoded: Optional[Tuple[List[Tuple[Dict[str, Any], str]], List[Tuple[Dict[str, Any], str]]]] = None

    @property
    def transactions(self) -> List[Tuple[Dict[str, Any], str]]:
        return self.decode()[0]

    @property
    def renewals(self) -> List[Tuple[Dict[str, Any], str]]:
        return self.decode()[1]

    def decode(self) -> Tuple[List[Tuple[Dict[str, Any], str]], List[Tuple[Dict[str, Any], str]]]:
        """The transactions and renewal infos the notifications carry, decoded when first asked
        for (a notification-history benchmark never is)."""
        if self.decoded is None:
            transactions: List[Tuple[Dict[str, Any], str]] = []
            renewals: List[Tuple[Dict[str, Any], str]] = []
            for _, _, record in self.records:
                data = jws_payload(record["signedPayload"]).get("data") or {}
                if data.get("signedTransactionInfo"):
                    transactions.append((jws_payload(data["signedTransactionInfo"]), data["signedTransactionInfo"]))
                if data.get("signedRenewalInfo"):
                    renewals.append((jws_payload(data["signedRenewalInfo"]), data["signedRenewalInfo"]))
            transactions += [(jws_payload(signed), signed) for signed in self.extra_transactions]
            self.decoded = (transactions, renewals)
        return self.decoded

    def clock(self) -> int:
        return self.now if self.now is not None else int(time.time() * 1000)

    def fault(self, counter: str) -> Optional[Tuple[int, Dict[str, Any]]]:
        """Counts the request; Apple's error, or a hostile answer, when a fault names it."""
        self.counters[counter] += 1
        self.counters["requests"] += 1
        fault = self.faults.get(self.counters["requests"])
        if fault is None:
            return None
        if "answer" in fault:
            return 200, fault["answer"]
        code = int(fault["errorCode"])
        return http_status(code), {"errorCode": code, "errorMessage": f"stand-in fault {code}"}

    def customer(self, transaction_id: str) -> Tuple[Optional[str], Tuple[int, Dict[str, Any]]]:
        """The original transaction id a transaction id belongs to, or Apple's 404."""
        return self.customer_of(transaction_id), (404, model("transactionIdNotFoundError"))

    def notification_history(self, token: Optional[str], body: Dict[str, Any]) -> Tuple[int, Dict[str, Any]]:
        failed = self.fault("notificationHistory")
        if failed:
            return failed
        now = self.clock()
        start, end = body["startDate"], min(body["endDate"], now)
        if start < now - self.HORIZON_MS:
            return 400, {"errorCode": 4000012, "errorMessage": "Invalid request. The start date is earlier than the allowed start date."}
        if start >= end:
            return 400, {"errorCode": 4000013, "errorMessage": "Invalid request. The end date precedes the start date or the dates are the same."}
        key = json.dumps(body, sort_keys=True)
        offset = 0
        if token is not None:
            issued = self.tokens.get(token)
            if issued is None or issued[0] != key:
                return 400, {"errorCode": 4000014, "errorMessage": "Invalid request. The pagination token is invalid."}
            offset = issued[1]
        first, last = bisect.bisect_left(self.first_attempts, start), bisect.bisect_left(self.first_attempts, end)
        page = self.records[first + offset:min(first + offset + self.page_size, last)]
        more = first + offset + self.page_size < last
        answer: Dict[str, Any] = {"notificationHistory": [r[2] for r in page], "hasMore": more}
        if more:
            next_token = b64url(os.urandom(12))
            self.tokens[next_token] = (key, offset + self.page_size)
            answer["paginationToken"] = next_token
        return 200, answer

    def customer_of(self, transaction_id: str) -> Optional[str]:
        for payload, _ in self.transactions:
            if transaction_id in (payload.get("transactionId"), payload.get("originalTransactionId")):
                return str(payload["originalTransactionId"])
        return None

    def newest_versions(self, original: str) -> List[Tuple[Dict[str, Any], str]]:
        """The newest version of each of the customer's transactions signed by the world's now."""
        now = self.clock()
        newest: Dict[str, Tuple[Dict[str, Any], str]] = {}
        for payload, signed in self.transactions:
            if payload.get("originalTransactionId") != original or payload.get("signedDate", 0) > now:
                continue
            held = newest.get(payload["transactionId"])
            if held is None or payload["signedDate"] >= held[0]["signedDate"]:
                newest[payload["transactionId"]] = (payload, signed)
        return sorted(newest.values(), key=lambda v: (v[0]["signedDate"], v[0]["transactionId"]))

    def transaction_history(self, transaction_id: str, revision: Optional[str]) -> Tuple[int, Dict[str, Any]]:
        failed = self.fault("transactionHistory")
        if failed:
            return failed
        original, not_found = self.customer(transaction_id)
        if original is None:
            return not_found
        versions = self.newest_versions(original)
        after = (0, "")
        if revision is not None:
            try:
                signed_ms, tid = b64url_decode(revision).decode().split("|", 1)
                after = (int(signed_ms), tid)
            except ValueError:
                return 400, {"errorCode": 4000005, "errorMessage": "Invalid request revision."}
        later = [v for v in versions if (v[0]["signedDate"], v[0]["transactionId"]) > after]
        page = later[:self.page_size]
        last = page[-1][0] if page else None
        mark = (last["signedDate"], last["transactionId"]) if last else after
        return 200, {"revision": b64url(f"{mark[0]}|{mark[1]}".encode()), "hasMore": len(later) > len(page),
                     "signedTransactions": [v[1] for v in page]}

    def subscription_statuses(self, transaction_id: str, bundle_id: str, environment: str) -> Tuple[int, Dict[str, Any]]:
        failed = self.fault("subscriptionStatuses")
        if failed:
            return failed
        original, not_found = self.customer(transaction_id)
        if original is None:
            return not_found
        now = self.clock()
        subscriptions = [v for v in self.newest_versions(original) if v[0].get("type") == "Auto-Renewable Subscription"]
        groups: Dict[str, List[Dict[str, Any]]] = {}
        if subscriptions:
            latest = max(subscriptions, key=lambda v: (v[0].get("purchaseDate", 0), v[0]["signedDate"]))
            renewals = [r for r in self.renewals if r[0].get("originalTransactionId") == original and r[0].get("signedDate", 0) <= now]
            renewal = max(renewals, key=lambda r: r[0]["signedDate"]) if renewals else None
            t = latest[0]
            if t.get("revocationDate"):
                status = 5
            elif t.get("expiresDate", 0) > now:
                status = 1
            elif renewal and renewal[0].get("isInBillingRetryPeriod") and renewal[0].get("gracePeriodExpiresDate", 0) > now:
                status = 4
            elif renewal and renewal[0].get("isInBillingRetryPeriod"):
                status = 3
            else:
                status = 2
            entry = {"status": status, "originalTransactionId": original, "signedTransactionInfo": latest[1]}
            if renewal:
                entry["signedRenewalInfo"] = renewal[1]
            groups.setdefault(str(t.get("subscriptionGroupIdentifier")), []).append(entry)
        return 200, {"environment": environment, "bundleId": bundle_id,
                     "data": [{"subscriptionGroupIdentifier": g, "lastTransactions": e} for g, e in groups.items()]}


class StandIn:
    def __init__(self, folder: Path, public_key: ec.EllipticCurvePublicKey, signer: Signer, bundle_id: str) -> None:
        self.folder = folder
        self.public_key = public_key
        self.signer = signer
        self.bundle_id = bundle_id
        self.log_lock = threading.Lock()
        self.counters: Dict[str, int] = {}
        self.answers: Dict[Tuple[str, str], bytes] = {}
        self.worlds: Dict[str, World] = {}
        self.control_token = b64url(os.urandom(24))

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
        expected = {"iss": ISSUER_ID, "aud": "appstoreconnect-v1"}
        for name, value in expected.items():
            if claims.get(name) != value:
                return f"claim {name} is {claims.get(name)!r}, not {value!r}", claims
        if claims.get("bid") != self.bundle_id and claims.get("bid") not in self.worlds:
            return f"claim bid is {claims.get('bid')!r}, not {self.bundle_id!r} or a world's", claims
        # Apple's documentation asks for iat; Apple's own Python library sends only exp.
        iat, exp = claims.get("iat", int(now)), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int):
            return "iat and exp must be integers", claims
        if iat > now + 60 or exp <= now or exp - iat > 3600 or exp > now + 3600:
            return f"iat {iat} / exp {exp} are not a current lifetime of at most 60 minutes", claims
        return None, claims


def make_handler(standin: StandIn) -> type:
    class Handler(StandInHandler):
        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            query = parse_qsl(url.query, keep_blank_values=True)
            if url.path.startswith("/standin/"):
                return self.control(url.path, dict(query), raw_body)
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
            world = standin.worlds.get(claims.get("bid", ""))
            if world is not None and self.from_world(world, claims["bid"], url.path, dict(query), raw_body):
                return
            self.respond(route, segments)

        def from_world(self, world: World, bundle_id: str, path: str, query: Dict[str, str], raw: bytes) -> bool:
            """Answers a history endpoint from the world; False for any other endpoint."""
            with standin.log_lock:
                if path == "/inApps/v1/notifications/history":
                    status, body = world.notification_history(query.get("paginationToken"), json.loads(raw))
                elif re.fullmatch(rf"/inApps/v2/history/{SEGMENT}", path):
                    status, body = world.transaction_history(unquote(path.rsplit("/", 1)[1]), query.get("revision"))
                elif re.fullmatch(rf"/inApps/v1/subscriptions/{SEGMENT}", path):
                    status, body = world.subscription_statuses(unquote(path.rsplit("/", 1)[1]), bundle_id, standin.signer.environment)
                else:
                    return False
            time.sleep(world.delay)  # a slow API, for tests that act while a sync runs
            # The real clock in Date, as for every answer: it is the clock the bearer token is
            # judged by too (a world's clock is the history's, not the server's).
            self.answer(status, json.dumps(body).encode(), trickle=world.trickle)
            return True

        def control(self, path: str, query: Dict[str, str], raw: bytes) -> None:
            if self.headers.get("Authorization") != f"Bearer {standin.control_token}":
                return self.answer(401, b'{"error":"not the control token"}')
            try:
                body = json.loads(raw) if raw else {}
                with standin.log_lock:
                    if self.command == "PUT" and path == "/standin/world":
                        standin.worlds[body["bundleId"]] = World(body)
                        return self.answer(200, b"{}")
                    if self.command == "POST" and path == "/standin/world/clock":
                        world = standin.worlds[body["bundleId"]]
                        world.now = max(world.clock(), int(body["now"]))
                        return self.answer(200, b"{}")
                    if self.command == "GET" and path == "/standin/world":
                        return self.answer(200, json.dumps(standin.worlds[query["bundleId"]].counters).encode())
            except (KeyError, ValueError, TypeError) as e:
                return self.answer(400, json.dumps({"error": f"{type(e).__name__}: {e}"}).encode())
            self.answer(404, b'{"error":"no such control endpoint"}')

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
                          or s in ("garbage", "tampered", "wrongbundle", "slow", "huge", "hugeretry", "absurdretry")), "")
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
            if steer in ("hugeretry", "absurdretry"):
                seconds = "9000000000000000000" if steer == "hugeretry" else "1" + "0" * 24
                return self.answer(429, json.dumps(model("apiTooManyRequestsException")).encode(), headers={"Retry-After": seconds})
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
           "GATEKIT_TEST_APPSTORE_LOG": folder / "requests.jsonl", "GATEKIT_TEST_APPSTORE_CONTROL": standin.control_token}
    publish_and_serve(server, folder, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
