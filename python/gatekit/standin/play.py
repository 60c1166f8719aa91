"""A local HTTPS stand-in for Google's side of Google Play, for tests and benchmarks.

It listens on 127.0.0.1 only, with a server certificate from its own throw-away CA, and
serves, checking every request as Google would:

  POST /token                     OAuth 2.0 token endpoint: the JWT bearer grant's form
                                  (grant_type, assertion), the assertion's RS256 signature with
                                  the public half of the service account key it issued, its
                                  header (alg RS256, kid = private_key_id) and claims (iss the
                                  client_email, scope androidpublisher, aud Google's token
                                  endpoint as Google documents it, iat within
                                  a minute of now, exp at most an hour after iat)
  GET  /oauth2/v3/certs           the push issuer's JSON Web Key Set, Cache-Control max-age
  /androidpublisher/v3/applications/{package}/...
                                  the Play Developer API paths GateKit calls, each request's
                                  bearer token one the token endpoint issued and has not
                                  revoked, answered from the world below with Google's JSON
                                  shapes, errors ({"error":{"code","message","status",
                                  "errors":[{"reason"}]}}) and token pagination

    python -m gatekit.standin.play DIR [--package com.example.app]

(`pip install 'libgatekit[standin]'`: it needs the `cryptography` package for its own CA and
keys; GateKit itself uses OpenSSL.) It writes into DIR (mode 0700): ca.pem (trust it), service-account.json (the key file to use:
its token_uri is this stand-in), requests.jsonl (one line per request: what was asked and
what the check found), and last `env` (GATEKIT_TEST_PLAY_* shell assignments, written once
the server listens). It serves until SIGTERM.

Control (`Authorization: Bearer <GATEKIT_TEST_PLAY_CONTROL>`):

    PUT  /standin/play/world     {"subscriptions":{token: SubscriptionPurchaseV2},
                                  "products":{"productId/token": ProductPurchase},
                                  "productsV2":{token: ProductPurchaseV2},
                                  "voided":[VoidedPurchase…], "orders":{orderId: Order},
                                  "pageSize":1000, "voidedTokenCycle":false,
                                  "faults":[{"request":N,"status":503,
                                  "body":{…}|null,"retryAfter":"1"}], "delayMs":0,
                                  "token":{"delayMs":0,"status":200,"error":"invalid_grant",
                                  "failures":0,"expiresIn":3599,"dateOffsetSeconds":0,"tokenType":"Bearer",
                                  "description":"…"},
                                  "keysMaxAge":300, "keysStatus":503, "keysDelayMs":0}
                                 replaces the world (and zeroes the request counters)
    POST /standin/play/rotate    the push issuer's next key becomes its only key
    POST /standin/play/revoke    every access token issued so far is refused (401)
    POST /standin/play/push-token {"header":{…},"claims":{…},"sign":"current"|"old"|"none"}
                                 a compact JWT signed with the issuer's key (claims as given)
    POST /standin/play/access-token  an access token as the token endpoint issues them (a bench's bare GET)
    GET  /standin/play/counters  {"api":N,"token":N,"keys":N}

A fault answers the world's Nth API request (counted from 1 since the world was set) with
its status and body. Path steering, as the App Store stand-in has: a purchase token
"error-STATUS-REASON", "slow" (3 s), "garbage" (200, not JSON), "huge" (17 MiB) or
"ratelimit-N-NAME" (429 with Retry-After: 1 for the first N requests naming NAME).
"""
from __future__ import annotations

import json
import re
import secrets
import sys
import threading
import time
from email.utils import formatdate
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qsl, unquote, urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from ._https import StandInHandler, b64url, b64url_decode, publish_and_serve, tls_material, write

SCOPE = "https://www.googleapis.com/auth/androidpublisher"
CLIENT_EMAIL = "gatekit-standin@gatekit-test.iam.gserviceaccount.com"
PUSH_ISSUER = "https://oidc.standin.gatekit.invalid"
PUSH_EMAIL = "rtdn-push@gatekit-test.iam.gserviceaccount.com"
PUSH_AUDIENCE = "https://rtdn.example.com/play"
STATUS_NAMES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
                409: "ABORTED", 410: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}


def google_error(status: int, message: str, reason: str) -> bytes:
    return json.dumps({"error": {"code": status, "message": message, "status": STATUS_NAMES.get(status, "UNKNOWN"),
                                 "errors": [{"domain": "androidpublisher", "message": message, "reason": reason}]}}).encode()


def jwk(kid: str, key: rsa.RSAPrivateKey) -> Dict[str, str]:
    numbers = key.public_key().public_numbers()
    return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid,
            "n": b64url(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": b64url(numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big"))}


def sign_jwt(header: Dict[str, Any], claims: Dict[str, Any], key: Optional[rsa.RSAPrivateKey]) -> str:
    head = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    signature = key.sign(head.encode(), padding.PKCS1v15(), hashes.SHA256()) if key is not None else b""
    return head + "." + b64url(signature)


class StandIn:
    def __init__(self, folder: Path, package: str, account_key: rsa.RSAPrivateKey, key_id: str) -> None:
        self.folder = folder
        self.package = package
        self.account_public = account_key.public_key()
        self.key_id = key_id
        self.token_uri = ""
        self.control_token = secrets.token_urlsafe(24)
        self.lock = threading.Lock()
        self.world: Dict[str, Any] = {}
        self.api_requests = 0
        self.token_requests = 0
        self.key_requests = 0
        self.tokens: Dict[str, bool] = {}  # issued access token -> still accepted
        self.steered: Dict[str, int] = {}
        self.push_keys: List[Tuple[str, rsa.RSAPrivateKey]] = [self.new_push_key()]
        self.retired_key: Optional[Tuple[str, rsa.RSAPrivateKey]] = None

    @staticmethod
    def new_push_key() -> Tuple[str, rsa.RSAPrivateKey]:
        return secrets.token_hex(20), rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def log(self, entry: Dict[str, Any]) -> None:
        with self.lock, open(self.folder / "requests.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")

    def check_assertion(self, form: Dict[str, str]) -> Optional[str]:
        """What is wrong with a JWT bearer grant, as Google's token endpoint would refuse it."""
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            return f"grant_type is {form.get('grant_type')!r}"
        parts = form.get("assertion", "").split(".")
        if len(parts) != 3:
            return "the assertion is not a compact JWT"
        header, claims = (json.loads(b64url_decode(p)) for p in parts[:2])
        if header != {"alg": "RS256", "typ": "JWT", "kid": self.key_id}:
            return f"the assertion's header is {header}"
        try:
            self.account_public.verify(b64url_decode(parts[2]), f"{parts[0]}.{parts[1]}".encode(), padding.PKCS1v15(), hashes.SHA256())
        except InvalidSignature:
            return "the assertion's signature does not verify with the service account's key"
        now = time.time() + int(self.world.get("token", {}).get("dateOffsetSeconds", 0))
        wanted = {"iss": CLIENT_EMAIL, "scope": SCOPE, "aud": "https://oauth2.googleapis.com/token"}
        for name, value in wanted.items():
            if claims.get(name) != value:
                return f"the assertion's {name} is {claims.get(name)!r}, not {value!r}"
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int) or abs(iat - now) > 60 or not 0 < exp - iat <= 3600:
            return f"Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe (iat {iat}, exp {exp}, now {int(now)})"
        if set(claims) - {"iss", "scope", "aud", "iat", "exp"}:
            return f"the assertion has unexpected claims {sorted(set(claims) - set(wanted) - {'iat', 'exp'})}"
        return None

    def check_bearer(self, authorization: Optional[str]) -> Optional[str]:
        if not authorization or not authorization.startswith("Bearer "):
            return "no bearer token"
        with self.lock:
            accepted = self.tokens.get(authorization[7:])
        if accepted is None:
            return "a token the token endpoint never issued"
        return None if accepted else "a revoked token"

    def count_steer(self, name: str) -> int:
        with self.lock:
            self.steered[name] = self.steered.get(name, 0) + 1
            return self.steered[name]


# (method, path pattern below the package, what the answer is, whether a JSON body is required)
PREFIX = r"/androidpublisher/v3/applications/(?P<package>[^/]+)"
ENDPOINTS = [
    ("GET", r"/purchases/subscriptionsv2/tokens/(?P<token>[^/:]+)", "subscription", None),
    ("POST", r"/purchases/subscriptionsv2/tokens/(?P<token>[^/:]+):revoke", "revoke", "revocationContext"),
    ("POST", r"/purchases/subscriptionsv2/tokens/(?P<token>[^/:]+):cancel", "cancel", "cancellationContext"),
    ("POST", r"/purchases/subscriptionsv2/tokens/(?P<token>[^/:]+):defer", "defer", ""),
    ("POST", r"/purchases/subscriptions/(?P<product>[^/]+)/tokens/(?P<token>[^/:]+):acknowledge", "ackSubscription", ""),
    ("GET", r"/purchases/products/(?P<product>[^/]+)/tokens/(?P<token>[^/:]+)", "product", None),
    ("POST", r"/purchases/products/(?P<product>[^/]+)/tokens/(?P<token>[^/:]+):acknowledge", "ackProduct", ""),
    ("POST", r"/purchases/products/(?P<product>[^/]+)/tokens/(?P<token>[^/:]+):consume", "consume", None),
    ("GET", r"/purchases/productsv2/tokens/(?P<token>[^/:]+)", "productV2", None),
    ("GET", r"/purchases/voidedpurchases", "voided", None),
    ("GET", r"/orders/(?P<order>[^/:]+)", "order", None),
    ("GET", r"/orders:batchGet", "orders", None),
]
COMMON_QUERY = {"alt", "fields", "prettyPrint", "quotaUser", "$.xgafv", "key", "access_token", "callback", "upload_protocol", "uploadType"}
VOIDED_QUERY = {"startTime", "endTime", "type", "maxResults", "token", "startIndex", "includeQuantityBasedPartialRefund"}


def make_handler(standin: StandIn) -> type:
    class Handler(StandInHandler):
        def date_time_string(self, timestamp: Optional[float] = None) -> str:
            """The Date header on the stand-in's clock (world token.dateOffsetSeconds: a host whose clock is wrong)."""
            return formatdate(time.time() + int(standin.world.get("token", {}).get("dateOffsetSeconds", 0)), usegmt=True)

        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            query = parse_qsl(url.query, keep_blank_values=True)
            if url.path.startswith("/standin/"):
                return self.control(url.path, raw)
            if url.path == "/token":
                return self.token(raw)
            if url.path == "/oauth2/v3/certs" and self.command == "GET":
                with standin.lock:
                    standin.key_requests += 1
                    keys = {"keys": [jwk(kid, key) for kid, key in standin.push_keys]}
                age = int(standin.world.get("keysMaxAge", 300))
                time.sleep(int(standin.world.get("keysDelayMs", 0)) / 1000)  # a slow key server
                if "keysStatus" in standin.world:  # a key server that fails
                    return self.answer(int(standin.world["keysStatus"]), b"<html>unavailable</html>", content_type="text/html")
                return self.answer(200, json.dumps(keys).encode(), headers={"Cache-Control": f"public, max-age={age}, must-revalidate, no-transform"})
            self.api(url.path, query, raw)

        def token(self, raw: bytes) -> None:
            with standin.lock:
                standin.token_requests += 1
            settings = standin.world.get("token", {})
            time.sleep(int(settings.get("delayMs", 0)) / 1000)
            problem = None
            if self.command != "POST" or self.headers.get("Content-Type") != "application/x-www-form-urlencoded":
                problem = f"{self.command} with Content-Type {self.headers.get('Content-Type')!r}"
            form = dict(parse_qsl(raw.decode("ascii", "replace"), keep_blank_values=True))
            problem = problem or standin.check_assertion(form)
            standin.log({"endpoint": "token", "problem": problem})
            if problem:
                return self.answer(400, json.dumps({"error": "invalid_grant", "error_description": problem}).encode())
            status = int(settings.get("status", 200))
            if standin.token_requests <= int(settings.get("failures", 0)):  # the first N exchanges fail, then it recovers
                status = 503
            if status != 200:
                error = settings.get("error", "internal_failure")
                description = settings.get("description", f"stand-in: {error}")
                return self.answer(status, json.dumps({"error": error, "error_description": description}).encode())
            access = "ya29.standin-" + secrets.token_urlsafe(32)
            with standin.lock:
                standin.tokens[access] = True
            body = {"access_token": access, "expires_in": int(settings.get("expiresIn", 3599)), "token_type": settings.get("tokenType", "Bearer")}
            self.answer(200, json.dumps(body).encode())

        def api(self, path: str, query: List[Tuple[str, str]], raw: bytes) -> None:
            with standin.lock:
                standin.api_requests += 1
                number = standin.api_requests
            world = standin.world
            entry: Dict[str, Any] = {"endpoint": "api", "method": self.command, "path": path, "query": query,
                                     "body": raw.decode("utf-8", "replace") if raw else None, "n": number,
                                     "userAgent": self.headers.get("User-Agent"), "peer": self.client_address[1]}
            problem = standin.check_bearer(self.headers.get("Authorization"))
            if problem:
                entry["problem"] = problem
                standin.log(entry)
                return self.answer(401, google_error(401, "Request had invalid authentication credentials.", "authError"),
                                   headers={"WWW-Authenticate": 'Bearer realm="https://accounts.google.com/"'})
            m = re.fullmatch(PREFIX + r"(?P<rest>/.*)", path)
            route, args = None, {}
            if m:
                for method, pattern, name, body_member in ENDPOINTS:
                    r = re.fullmatch(pattern, m.group("rest"))
                    if r and method == self.command:
                        route, args = (name, body_member), {k: unquote(v) for k, v in r.groupdict().items()}
                        break
            if route is None:
                problem = f"no endpoint {self.command} {path}"
            elif unquote(m.group("package")) != standin.package:  # type: ignore[union-attr]
                entry["problem"] = "another package"
                standin.log(entry)
                return self.answer(404, google_error(404, "No application was found for the given package name.", "applicationNotFound"))
            elif self.headers.get("Accept") != "application/json":
                problem = f"Accept is {self.headers.get('Accept')!r}"
            else:
                problem = self.check_body(route[1], raw, query, route[0])
            entry["problem"] = problem
            standin.log(entry)
            if problem:
                return self.answer(400, google_error(400, f"stand-in: {problem}", "invalid"))
            for fault in world.get("faults", []):
                if fault.get("request") == number:
                    headers = {"Retry-After": str(fault["retryAfter"])} if "retryAfter" in fault else {}
                    body = fault.get("body")
                    data = google_error(int(fault["status"]), "stand-in fault", fault.get("reason", "backendError")) if body is None else json.dumps(body).encode()
                    return self.answer(int(fault["status"]), data, headers=headers)
            time.sleep(int(world.get("delayMs", 0)) / 1000)
            steer = args.get("token") or args.get("order") or ""
            if steer.startswith("error-"):
                _, code, reason = steer.split("-", 2)
                return self.answer(int(code), google_error(int(code), f"stand-in error {reason}", reason))
            r = re.fullmatch(r"ratelimit-(\d+)-(.+)", steer)
            if r and standin.count_steer(steer) <= int(r.group(1)):
                return self.answer(429, google_error(429, "Rate limit exceeded", "rateLimitExceeded"), headers={"Retry-After": "1"})
            if steer == "slow":
                time.sleep(3)
            if steer == "garbage":
                return self.answer(200, b"<html>not json</html>", content_type="text/html")
            if steer == "huge":
                return self.answer(200, b"{\"x\":\"" + b"a" * (17 << 20) + b"\"}")
            status, body = self.resource(route[0], args, dict(query), query)  # type: ignore[index]
            self.answer(status, body)

        def check_body(self, member: Optional[str], raw: bytes, query: List[Tuple[str, str]], name: str) -> Optional[str]:
            # Google's common parameters (alt, fields, prettyPrint, quotaUser, $.xgafv) go with any method.
            query = [(k, v) for k, v in query if k not in COMMON_QUERY]
            if name == "voided":
                unknown = {k for k, _ in query} - VOIDED_QUERY
                return f"unknown query parameters {sorted(unknown)}" if unknown else None
            if name == "orders":
                ids = [v for k, v in query if k == "orderIds"]
                return None if ids and len(ids) == len(set(ids)) else "orderIds missing or repeated"
            if query:
                return f"query parameters {query} where none are taken"
            if member is None:
                return "a body where none is sent" if raw else None
            if self.headers.get("Content-Type") != "application/json":
                return f"Content-Type {self.headers.get('Content-Type')!r} for a JSON body"
            try:
                body = json.loads(raw)
            except ValueError:
                return "a body that is not JSON"
            if not isinstance(body, dict) or (member and member not in body):
                return f"the body lacks {member}"
            return None

        def resource(self, name: str, args: Dict[str, str], query: Dict[str, str],
                     pairs: List[Tuple[str, str]]) -> Tuple[int, bytes]:
            world = standin.world
            missing = (404, google_error(404, "The purchase token was not found.", "notFound"))
            token = args.get("token", "")
            if name == "subscription":
                found = world.get("subscriptions", {}).get(token)
                return (200, json.dumps(found).encode()) if found is not None else missing
            if name in ("revoke", "cancel", "defer", "ackSubscription"):
                if token not in world.get("subscriptions", {}):
                    return missing
                if name == "defer":
                    return 200, json.dumps({"itemExpiryTimeDetails": []}).encode()
                if name == "ackSubscription":
                    # Google checks the subscription id against the token's, and says so afterwards.
                    subscription = world["subscriptions"][token]
                    if args["product"] not in [item.get("productId") for item in subscription.get("lineItems", [])]:
                        return 400, google_error(400, "The subscription id does not match the purchase token.", "invalid")
                    with standin.lock:
                        subscription["acknowledgementState"] = "ACKNOWLEDGEMENT_STATE_ACKNOWLEDGED"
                return 200, b""
            if name == "product":
                found = world.get("products", {}).get(f"{args['product']}/{token}")
                return (200, json.dumps(found).encode()) if found is not None else missing
            if name in ("ackProduct", "consume"):
                return (200, b"") if f"{args['product']}/{token}" in world.get("products", {}) else missing
            if name == "productV2":
                found = world.get("productsV2", {}).get(token)
                return (200, json.dumps(found).encode()) if found is not None else missing
            if name == "order":
                found = world.get("orders", {}).get(args["order"])
                return (200, json.dumps(found).encode()) if found is not None else (404, google_error(404, "Order not found.", "notFound"))
            if name == "orders":
                orders = world.get("orders", {})
                ids = [v for k, v in pairs if k == "orderIds"]
                if any(i not in orders for i in ids):
                    return 404, google_error(404, "An order was not found.", "notFound")
                return 200, json.dumps({"orders": [orders[i] for i in ids]}).encode()
            # voided purchases: the query's window and type, paged by a token bound to the query
            voided = world.get("voided", [])
            start = 0
            if "token" in query:  # the window and type are the first page's (Google ignores them with a token)
                try:
                    bound, start = json.loads(b64url_decode(query["token"]))
                except ValueError:
                    return 400, google_error(400, "Invalid pagination token.", "invalid")
                query = dict(bound, **{k: v for k, v in query.items() if k == "maxResults"})
            size = min(int(query.get("maxResults", 1000)), int(world.get("pageSize", 1000)), 1000)
            kind = int(query.get("type", 0))
            since = int(query.get("startTime", 0))
            # Google refuses a window ending after its now; without endTime, its now ends it.
            clock_ms = int((time.time() + int(world.get("token", {}).get("dateOffsetSeconds", 0))) * 1000)
            if "endTime" in query and int(query["endTime"]) > clock_ms + 1000:
                return 400, google_error(400, "endTime cannot be in the future.", "invalid")
            until = int(query.get("endTime", clock_ms))
            # Google keeps voided purchases for 30 days and refuses a window starting before them.
            if "startTime" in query and since < clock_ms - 30 * 86_400_000:
                return 400, google_error(400, "startTime is older than 30 days.", "invalid")
            rows = [v for v in voided if since <= int(v["voidedTimeMillis"]) <= until
                    and (kind == 1 or "subscription" not in v.get("_kind", ""))]
            rows = [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]
            page = rows[start:start + size]
            body: Dict[str, Any] = {"voidedPurchases": page, "pageInfo": {"totalResults": len(page), "resultPerPage": size}}
            if start + size < len(rows):
                bound = {k: v for k, v in query.items() if k != "token"}
                # world voidedTokenCycle: a server that hands back its first page's token again.
                body["tokenPagination"] = {"nextPageToken": b64url(json.dumps([bound, 0 if world.get("voidedTokenCycle") and start else start + size]).encode())}
            return 200, json.dumps(body).encode()

        def control(self, path: str, raw: bytes) -> None:
            if self.headers.get("Authorization") != f"Bearer {standin.control_token}":
                return self.answer(403)
            if path == "/standin/play/world" and self.command == "PUT":
                with standin.lock:
                    standin.world = json.loads(raw)
                    standin.api_requests = 0
                    standin.token_requests = 0
                    standin.steered.clear()
                return self.answer(204)
            if path == "/standin/play/rotate":
                with standin.lock:
                    standin.retired_key = standin.push_keys[0]
                    standin.push_keys = [standin.new_push_key()]
                return self.answer(200, json.dumps({"kid": standin.push_keys[0][0]}).encode())
            if path == "/standin/play/revoke":
                with standin.lock:
                    for token in standin.tokens:
                        standin.tokens[token] = False
                return self.answer(204)
            if path == "/standin/play/push-token":
                spec = json.loads(raw)
                which = spec.get("sign", "current")
                kid, key = standin.push_keys[0] if which != "old" or standin.retired_key is None else standin.retired_key
                header = {"alg": "RS256", "kid": kid, "typ": "JWT", **spec.get("header", {})}
                token = sign_jwt(header, spec["claims"], None if which == "none" else key)
                return self.answer(200, json.dumps({"token": token, "kid": kid}).encode())
            if path == "/standin/play/access-token":  # for a benchmark's bare request: a token as the endpoint issues them
                access = "ya29.standin-" + secrets.token_urlsafe(32)
                with standin.lock:
                    standin.tokens[access] = True
                return self.answer(200, json.dumps({"access_token": access}).encode())
            if path == "/standin/play/counters":
                with standin.lock:
                    counts = {"api": standin.api_requests, "token": standin.token_requests, "keys": standin.key_requests}
                return self.answer(200, json.dumps(counts).encode())
            self.answer(404)

        do_GET = do_POST = do_PUT = do_DELETE = handle_any

    return Handler


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(args[0])
    package = args[args.index("--package") + 1] if "--package" in args else "com.example.app"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    account_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    key_id = secrets.token_hex(20)
    context = tls_material(folder)
    standin = StandIn(folder, package, account_key, key_id)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(standin))
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    url = f"https://127.0.0.1:{server.server_address[1]}"
    standin.token_uri = f"{url}/token"
    pem = account_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    account = {"type": "service_account", "project_id": "gatekit-test", "private_key_id": key_id, "private_key": pem.decode(),
               "client_email": CLIENT_EMAIL, "client_id": "100000000000000000001", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
               "token_uri": standin.token_uri, "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
               "universe_domain": "googleapis.com"}
    write(folder / "service-account.json", json.dumps(account, indent=2).encode())
    env = {"GATEKIT_TEST_PLAY_URL": url, "GATEKIT_TEST_PLAY_CA": folder / "ca.pem",
           "GATEKIT_TEST_PLAY_SERVICE_ACCOUNT": folder / "service-account.json", "GATEKIT_TEST_PLAY_PACKAGE": package,
           "GATEKIT_TEST_PLAY_KEYS_URL": f"{url}/oauth2/v3/certs", "GATEKIT_TEST_PLAY_ISSUER": PUSH_ISSUER,
           "GATEKIT_TEST_PLAY_PUSH_EMAIL": PUSH_EMAIL, "GATEKIT_TEST_PLAY_PUSH_AUDIENCE": PUSH_AUDIENCE,
           "GATEKIT_TEST_PLAY_LOG": folder / "requests.jsonl", "GATEKIT_TEST_PLAY_CONTROL": standin.control_token}
    publish_and_serve(server, folder, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
