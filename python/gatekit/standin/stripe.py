"""A local HTTPS stand-in for Stripe's API, for tests and benchmarks.

It listens on 127.0.0.1 only, with a server certificate from its own throw-away CA, and
serves the v1 paths GateKit reads, checking every request as Stripe would and as GateKit
promises to send it:

  every request   Authorization: Bearer <the test key it wrote> (else 401, Stripe's error
                  object), Stripe-Version: the version GateKit pins (else 400: a client that
                  does not pin it reads whatever the account's default renders)
  GET  /v1/{collection}/{id}      subscriptions, checkout/sessions, invoices, customers,
                                  prices, products, refunds, disputes, charges, events: the
                                  world's object of that id and type, else 404
                                  resource_missing; a Checkout Session's line_items only with
                                  expand[]=line_items and its payment_intent an id unless
                                  expand[]=payment_intent, a Charge's refunds only with
                                  expand[]=refunds and an Invoice's payments only with
                                  expand[]=payments, as Stripe renders them
  GET  /v1/{collection}           a list, newest first, limit 1-100 (default 10),
                                  starting_after, has_more; subscriptions without status
                                  leave out the canceled, as Stripe's list does; events by
                                  created[gte|gt|lte|lt] and types[] (or type); invoice_payments
                                  by payment[type] and payment[payment_intent]; Checkout
                                  Sessions by payment_intent
  POST /v1/subscriptions/{id}     form-encoded metadata[k]=v and cancel_at_period_end=true|false
                                  applied; an Idempotency-Key is required, the first answer
                                  replayed for the same key and body, 400 idempotency_error
                                  for the same key with another body

    python -m gatekit.standin.stripe DIR

(`pip install 'libgatekit[standin]'`: it needs the `cryptography` package for its own CA.) It
writes into DIR (mode 0700): ca.pem (trust it), api-key (a test-mode secret key, 0600),
requests.jsonl (one line per request: what was asked and what the check found), and last
`env` (GATEKIT_TEST_STRIPE_* shell assignments, written once the server listens). It serves
until SIGTERM. Its world starts with a subscription "sub_standin" (active, a month from now,
metadata app_user_id "standin-user") and a paid Checkout Session "cs_standin".

Control (`Authorization: Bearer <GATEKIT_TEST_STRIPE_CONTROL>`):

    PUT  /standin/stripe/world    {"objects":[Stripe objects…], "faults":[{"request":N,
                                   "status":503,"retryAfter":"1"}]} replaces the world (and
                                   zeroes the request counter)
    POST /standin/stripe/objects  {"objects":[…]}: each replaces the object of its id (the
                                   world changing as Stripe's does: its events stay)
    POST /standin/stripe/webhook  {"type":"customer.subscription.updated","object":"sub_…",
                                   "secret":"whsec_…","t":<Unix s, default now>} → {"header":
                                   the Stripe-Signature value,"body":the event as sent}: an
                                   event whose data.object is the world's object, signed as
                                   Stripe signs (HMAC-SHA256 of t.body under the secret), and
                                   kept in the world's events (Stripe lists every event, sent
                                   or lost)
    GET  /standin/stripe/counters {"api":N}
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import parse_qsl, urlsplit

from ._https import StandInHandler, publish_and_serve, tls_material, write

#: The version GateKit pins (include/gatekit/stripe.h, stripe_api_version()).
API_VERSION = "2026-06-24.dahlia"

COLLECTIONS = {"subscriptions": "subscription", "checkout/sessions": "checkout.session", "invoices": "invoice",
               "customers": "customer", "prices": "price", "products": "product", "refunds": "refund",
               "disputes": "dispute", "events": "event", "charges": "charge", "invoice_payments": "invoice_payment"}

#: Members Stripe renders only when expanded (includable): a Charge's refunds, an Invoice's payments.
INCLUDABLE = {"charge": "refunds", "invoice": "payments"}


def stripe_error(type_: str, message: str, code: Optional[str] = None, param: Optional[str] = None) -> bytes:
    error: Dict[str, Any] = {"type": type_, "message": message}
    if code:
        error["code"] = code
    if param:
        error["param"] = param
    return json.dumps({"error": error}).encode()


def signature(body: bytes, secret: str, t: int) -> str:
    """The Stripe-Signature value Stripe sends for `body` signed at `t` under `secret`."""
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def starting_world(now: int) -> List[Dict[str, Any]]:
    """What a C test reads without setting a world: one active subscription, one paid session."""
    price = {"id": "price_standin", "object": "price", "product": "prod_standin", "currency": "usd", "unit_amount": 999,
             "type": "recurring", "recurring": {"interval": "month", "interval_count": 1}}
    subscription = {"id": "sub_standin", "object": "subscription", "customer": "cus_standin", "status": "active", "livemode": False,
                    "created": now - 86400, "start_date": now - 86400, "cancel_at_period_end": False, "cancel_at": None,
                    "canceled_at": None, "ended_at": None, "pause_collection": None, "trial_start": None, "trial_end": None,
                    "metadata": {"app_user_id": "standin-user"},
                    "items": {"object": "list", "has_more": False, "url": "/v1/subscription_items?subscription=sub_standin",
                              "data": [{"id": "si_standin", "object": "subscription_item", "quantity": 1, "price": price,
                                        "current_period_start": now - 86400, "current_period_end": now + 29 * 86400}]}}
    session = {"id": "cs_standin", "object": "checkout.session", "mode": "payment", "status": "complete", "payment_status": "paid",
               "livemode": False, "created": now - 3600, "client_reference_id": "standin-user", "customer": None, "subscription": None,
               "payment_intent": {"id": "pi_standin", "object": "payment_intent", "status": "succeeded"}, "metadata": {},
               "line_items": {"object": "list", "has_more": False, "url": "/v1/checkout/sessions/cs_standin/line_items",
                              "data": [{"id": "li_standin", "object": "item", "amount_total": 4900, "currency": "usd", "quantity": 1,
                                        "price": {"id": "price_lifetime", "object": "price", "product": "prod_lifetime",
                                                  "type": "one_time"}}]}}
    return [subscription, session]


class StripeAPIStandIn:
    def __init__(self, folder: Path, key: str) -> None:
        self.folder = folder
        self.key = key
        self.control_token = secrets.token_urlsafe(24)
        self.lock = threading.Lock()
        self.objects: Dict[str, Dict[str, Any]] = {o["id"]: o for o in starting_world(int(time.time()))}
        self.faults: List[Dict[str, Any]] = []
        self.requests = 0
        self.idempotent: Dict[str, Tuple[bytes, int, bytes]] = {}

    def log(self, entry: Dict[str, Any]) -> None:
        with self.lock, open(self.folder / "requests.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")

    def check(self, authorization: Optional[str], version: Optional[str]) -> Optional[Tuple[int, bytes, str]]:
        if authorization != f"Bearer {self.key}":
            given = (authorization or "").split(" ")[-1]
            return 401, stripe_error("invalid_request_error", f"Invalid API Key provided: {given[:8]}****"), "wrong key"
        if version != API_VERSION:
            return 400, stripe_error("invalid_request_error", f"stand-in: Stripe-Version must be {API_VERSION}, not {version!r}"), "version"
        return None


def rendered(obj: Dict[str, Any], expand: List[str]) -> Dict[str, Any]:
    """As Stripe renders the object: expandable members as ids unless expanded."""
    out = dict(obj)
    if out.get("object") == "checkout.session":
        if "line_items" not in expand:
            out.pop("line_items", None)
        intent = out.get("payment_intent")
        if isinstance(intent, dict) and "payment_intent" not in expand:
            out["payment_intent"] = intent["id"]
    includable = INCLUDABLE.get(out.get("object", ""))
    if includable and includable not in expand:
        out.pop(includable, None)
    elif includable and includable not in out:
        out[includable] = {"object": "list", "data": [], "has_more": False, "url": f"/v1/{includable}"}
    return out


def reference(member: Any) -> Any:
    """An expandable member's id, whether it is an id or the object expanded."""
    return member.get("id") if isinstance(member, dict) else member


def make_handler(standin: StripeAPIStandIn) -> type:
    class Handler(StandInHandler):
        query_pairs: List[Tuple[str, str]] = []

        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            url = urlsplit(self.path)
            query = parse_qsl(url.query, keep_blank_values=True)
            if url.path.startswith("/standin/"):
                return self.control(url.path, raw)
            with standin.lock:
                standin.requests += 1
                number = standin.requests
                fault = next((f for f in standin.faults if f.get("request") == number), None)
            entry: Dict[str, Any] = {"method": self.command, "path": url.path, "query": query, "n": number,
                                     "version": self.headers.get("Stripe-Version"),
                                     "idempotencyKey": self.headers.get("Idempotency-Key"),
                                     "body": raw.decode("utf-8", "replace") if raw else None}
            problem = standin.check(self.headers.get("Authorization"), self.headers.get("Stripe-Version"))
            if problem:
                entry["problem"] = problem[2]
                standin.log(entry)
                return self.answer(problem[0], problem[1])
            if fault:
                entry["fault"] = fault["status"]
                standin.log(entry)
                headers = {"Retry-After": str(fault["retryAfter"])} if "retryAfter" in fault else {}
                return self.answer(int(fault["status"]), stripe_error("api_error", "stand-in: a fault as asked"), headers=headers)
            status, body = self.post(url.path, raw, entry) if self.command == "POST" else self.get(url.path, query)
            standin.log(entry)
            self.answer(status, body)

        def get(self, path: str, query: List[Tuple[str, str]]) -> Tuple[int, bytes]:
            self.query_pairs = query
            expand = [v for k, v in query if k == "expand[]"]
            params = dict(query)
            for collection, kind in COLLECTIONS.items():
                m = re.fullmatch(rf"/v1/{collection}/([A-Za-z0-9_]+)", path)
                if m:
                    with standin.lock:
                        obj = standin.objects.get(m.group(1))
                    if obj is None or obj.get("object") != kind:
                        return 404, stripe_error("invalid_request_error", f"No such {kind}: '{m.group(1)}'", "resource_missing", "id")
                    return 200, json.dumps(rendered(obj, expand)).encode()
                if path == f"/v1/{collection}":
                    return self.listed(kind, params, expand)
            return 404, stripe_error("invalid_request_error", f"Unrecognized request URL (GET: {path})")

        def event_wanted(self, event: Dict[str, Any], params: Dict[str, str]) -> bool:
            created = int(event.get("created", 0))
            for name, holds in (("gte", created.__ge__), ("gt", created.__gt__), ("lte", created.__le__), ("lt", created.__lt__)):
                if f"created[{name}]" in params and not holds(int(params[f"created[{name}]"])):
                    return False
            types = [v for k, v in self.query_pairs if k == "types[]"] or ([params["type"]] if "type" in params else [])
            return not types or event.get("type") in types

        def listed(self, kind: str, params: Dict[str, str], expand: List[str]) -> Tuple[int, bytes]:
            limit = int(params.get("limit", "10"))
            if not 1 <= limit <= 100:
                return 400, stripe_error("invalid_request_error", "limit must be 1 to 100", param="limit")
            with standin.lock:
                found = [o for o in standin.objects.values() if o.get("object") == kind]
            if kind == "subscription" and params.get("status") != "all":
                found = [o for o in found if o.get("status") not in ("canceled", "incomplete_expired")]
            if kind == "event":
                found = [o for o in found if self.event_wanted(o, params)]
            if kind == "invoice_payment" and "payment[type]" in params:
                kind_of = params["payment[type]"]
                found = [o for o in found if o.get("payment", {}).get("type") == kind_of
                         and reference(o["payment"].get(kind_of)) == params.get(f"payment[{kind_of}]")]
            if kind == "checkout.session" and "payment_intent" in params:
                found = [o for o in found if reference(o.get("payment_intent")) == params["payment_intent"]]
            found.sort(key=lambda o: (-int(o.get("created", 0)), o["id"]))
            after = params.get("starting_after")
            if after is not None:
                ids = [o["id"] for o in found]
                if after not in ids:
                    return 400, stripe_error("invalid_request_error", f"starting_after {after!r} is not in the list", param="starting_after")
                found = found[ids.index(after) + 1:]
            page = [rendered(o, [e[len("data."):] for e in expand if e.startswith("data.")]) for o in found[:limit]]
            return 200, json.dumps({"object": "list", "url": "/v1/" + kind, "has_more": len(found) > limit, "data": page}).encode()

        def post(self, path: str, raw: bytes, entry: Dict[str, Any]) -> Tuple[int, bytes]:
            key = self.headers.get("Idempotency-Key")
            if not key:
                entry["problem"] = "no idempotency key"
                return 400, stripe_error("invalid_request_error", "stand-in: every POST carries an Idempotency-Key")
            if self.headers.get("Content-Type") != "application/x-www-form-urlencoded":
                entry["problem"] = "content type"
                return 400, stripe_error("invalid_request_error", "stand-in: v1 POST bodies are form-encoded")
            with standin.lock:
                kept = standin.idempotent.get(key)
            if kept is not None:
                if kept[0] != raw:
                    entry["problem"] = "idempotency key reused"
                    return 400, stripe_error("idempotency_error", "Keys for idempotent requests can only be used with the same parameters")
                entry["replayed"] = True
                return kept[1], kept[2]
            m = re.fullmatch(r"/v1/subscriptions/([A-Za-z0-9_]+)", path)
            with standin.lock:
                obj = standin.objects.get(m.group(1)) if m else None
                if obj is None or obj.get("object") != "subscription":
                    status, body = 404, stripe_error("invalid_request_error", f"No such subscription: {path}", "resource_missing", "id")
                else:
                    for name, value in parse_qsl(raw.decode("ascii"), keep_blank_values=True):
                        meta = re.fullmatch(r"metadata\[(.+)\]", name)
                        if meta:
                            obj.setdefault("metadata", {})[meta.group(1)] = value
                        elif name == "cancel_at_period_end":
                            obj["cancel_at_period_end"] = value == "true"
                    status, body = 200, json.dumps(obj).encode()
                standin.idempotent[key] = (raw, status, body)
            return status, body

        def control(self, path: str, raw: bytes) -> None:
            if self.headers.get("Authorization") != f"Bearer {standin.control_token}":
                return self.answer(403)
            if path == "/standin/stripe/world" and self.command == "PUT":
                world = json.loads(raw)
                with standin.lock:
                    standin.objects = {o["id"]: o for o in world.get("objects", [])}
                    standin.faults = list(world.get("faults", []))
                    standin.requests = 0
                return self.answer(204)
            if path == "/standin/stripe/objects" and self.command == "POST":
                with standin.lock:
                    for obj in json.loads(raw).get("objects", []):
                        standin.objects[obj["id"]] = obj
                return self.answer(204)
            if path == "/standin/stripe/webhook" and self.command == "POST":
                spec = json.loads(raw)
                with standin.lock:
                    obj = standin.objects.get(spec["object"])
                if obj is None:
                    return self.answer(404)
                t = int(spec.get("t", time.time()))
                event = {"id": "evt_" + secrets.token_hex(12), "object": "event", "api_version": API_VERSION, "created": t,
                         "livemode": bool(obj.get("livemode", False)), "type": spec["type"], "pending_webhooks": 1,
                         "request": {"id": None, "idempotency_key": None}, "data": {"object": obj}}
                body = json.dumps(event).encode()
                with standin.lock:
                    standin.objects[event["id"]] = event
                return self.answer(200, json.dumps({"header": signature(body, spec["secret"], t), "body": body.decode()}).encode())
            if path == "/standin/stripe/counters":
                with standin.lock:
                    return self.answer(200, json.dumps({"api": standin.requests}).encode())
            self.answer(404)

        do_GET = do_POST = do_PUT = do_DELETE = handle_any

    return Handler


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(args[0])
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    context = tls_material(folder)
    key = "sk_test_standin" + secrets.token_hex(16)
    write(folder / "api-key", (key + "\n").encode())
    standin = StripeAPIStandIn(folder, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(standin))
    server.daemon_threads = True
    server.socket = context.wrap_socket(server.socket, server_side=True)
    url = f"https://127.0.0.1:{server.server_address[1]}"
    env = {"GATEKIT_TEST_STRIPE_URL": url, "GATEKIT_TEST_STRIPE_CA": folder / "ca.pem", "GATEKIT_TEST_STRIPE_KEY_FILE": folder / "api-key",
           "GATEKIT_TEST_STRIPE_VERSION": API_VERSION, "GATEKIT_TEST_STRIPE_LOG": folder / "requests.jsonl",
           "GATEKIT_TEST_STRIPE_CONTROL": standin.control_token}
    publish_and_serve(server, folder, env)
    return 0


if __name__ == "__main__":
    sys.exit(main())
