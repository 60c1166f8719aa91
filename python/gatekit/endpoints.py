"""The HTTP endpoints a team deploys beside its ledger, as one application for ASGI servers
(uvicorn, hypercorn) and WSGI servers (gunicorn, uWSGI), mounted in a team's own app or run
alone (docs/endpoints.md):

- ``POST /appstore/notifications``: App Store Server Notifications V2, verified and recorded;
- ``POST /play/rtdn``: a Google Play real-time developer notification (a Pub/Sub push),
  believed only with Google's OIDC token, the purchase then asked of Google and recorded;
- ``POST /stripe/webhooks``: a Stripe webhook, its signature checked, the object it names read
  back from Stripe and recorded (the event's body is never believed);
- ``GET /entitled/<customer>/<product, group or entitlement>?environment=…&app_user=1``;
- ``GET /health``: the store answers, and how each webhook endpoint's deliveries stand.

Every push is answered only after the ledger committed it (2xx), so a store that cannot take it
now answers 503 and the sender retries; data that does not verify answers 400 or 403, which no
retry mends. The store is opened per process, on the first request (a prefork server forks
after importing the app)."""
from __future__ import annotations

import asyncio
import json
import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Mapping, MutableMapping, Optional, Sequence, Tuple
from urllib.parse import parse_qs, unquote

from .errors import GateKitError, InvalidArgumentError, StoreError
from .jws import SignedDataError, SignedDataVerifier
from .play import PlayAPIError, PlayClient, PlayTransportError, PushRejected, PushVerifier
from .store import Store
from .stripe import StripeClient, WebhookRejected

__all__ = ["Endpoints", "Response", "from_environment"]

#: The largest request body read: signed payloads, pushes and events are a few KB.
MAX_BODY = 1 << 20

log = logging.getLogger("gatekit.endpoints")


@dataclass(frozen=True)
class Response:
    status: int
    document: Optional[Dict[str, Any]] = None

    def encoded(self) -> Tuple[int, List[Tuple[str, str]], bytes]:
        body = b"" if self.document is None else json.dumps(self.document).encode()
        headers = [("content-length", str(len(body)))]
        if body:
            headers.append(("content-type", "application/json"))
        return self.status, headers, body


@dataclass
class Endpoints:
    """The application. ``store``: a location (a path, ``postgresql://…``; None: the app's
    default store) opened per process, with ``app_id``. Each store's part is enabled by what it
    needs: ``apple`` the verifiers of the environments taken (one per environment); ``play`` the
    push verifier and the Play client; ``stripe`` the Stripe client and the endpoint's signing
    secrets. ``environment``: what ``/entitled`` asks by default. ``test_data``: ``/entitled``
    may be asked about the ledger's test part (``?test_signed=1``: data signed by a test PKI) —
    tests only."""
    store: Optional[str] = None
    app_id: Optional[str] = None
    apple: Sequence[SignedDataVerifier] = ()
    play: Optional[Tuple[PushVerifier, PlayClient]] = None
    stripe: Optional[Tuple[StripeClient, Sequence[str]]] = None
    environment: str = "Production"
    test_data: bool = False
    _opened: Dict[int, Store] = field(default_factory=dict, repr=False)
    _opening: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def opened(self) -> Store:
        """This process's store (a handle from before a fork belongs to the parent)."""
        pid = os.getpid()
        with self._opening:
            if pid not in self._opened:
                self._opened.clear()
                self._opened[pid] = Store(self.store, app_id=self.app_id)
            return self._opened[pid]

    def close(self) -> None:
        with self._opening:
            for store in self._opened.values():
                store.close()
            self._opened.clear()

    # ---- the routes ---------------------------------------------------------------------

    def handle(self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes) -> Response:
        """One request, whatever the server: ``headers`` with lower-case names."""
        try:
            if path == "/health":
                return self._only(method, "GET") or self._health()
            if path.startswith("/entitled/"):
                return self._only(method, "GET") or self._entitled(path, query)
            if path == "/appstore/notifications" and self.apple:
                return self._only(method, "POST") or self._apple(body)
            if path == "/play/rtdn" and self.play is not None:
                return self._only(method, "POST") or self._play(headers, body)
            if path == "/stripe/webhooks" and self.stripe is not None:
                return self._only(method, "POST") or self._stripe(headers, body)
            return Response(404, {"error": "not found"})
        except StoreError as error:
            return Response(503, {"error": str(error)})  # busy, disk full, the server away: the sender retries

    @staticmethod
    def _only(method: str, allowed: str) -> Optional[Response]:
        return None if method == allowed else Response(405, {"error": f"use {allowed}"})

    def _health(self) -> Response:
        store = self.opened()
        endpoints = [{"id": e.id, "enabled": e.enabled, "pending": e.deliveries.get("pending", 0),
                      "oldestPendingAgeMs": e.deliveries.get("oldestPendingAgeMs"), "dead": e.deliveries.get("dead", 0)}
                     for e in store.ledger.webhook_report()]
        return Response(200, {"status": "ok", "webhooks": endpoints})

    def _entitled(self, path: str, query: str) -> Response:
        parts = [unquote(p) for p in path[len("/entitled/"):].split("/")]
        if len(parts) != 2 or not all(parts):
            return Response(404, {"error": "ask /entitled/<customer>/<product, group or entitlement>"})
        asked = parse_qs(query)
        environment = asked.get("environment", [self.environment])[0]
        by_app_user = asked.get("app_user", ["0"])[0] in ("1", "true")
        test_signed = asked.get("test_signed", ["0"])[0] in ("1", "true")
        if test_signed and not self.test_data:
            return Response(400, {"error": "this endpoint answers no test-signed data"})
        try:
            answer = self.opened().ledger.entitled(parts[0], parts[1], environment=environment, test_signed=test_signed,
                                                   by_app_user=by_app_user)
        except InvalidArgumentError as error:
            return Response(400, {"error": str(error)})
        return Response(200, answer.to_dict())

    def _apple(self, body: bytes) -> Response:
        try:
            signed = json.loads(body)["signedPayload"]
            if not isinstance(signed, str):
                raise TypeError("signedPayload is not a string")
        except (ValueError, KeyError, TypeError) as error:
            return Response(400, {"error": f"the body must be JSON with a signedPayload string ({error})"})
        try:
            result = self.opened().ledger.ingest_notification(signed, list(self.apple))
        except StoreError:
            raise
        except (SignedDataError, GateKitError) as error:
            return Response(400, {"error": str(error)})  # forged, foreign, malformed: a retry would not help
        return Response(200, {"outcome": result.outcome.name.lower(), "customer": result.customer,
                              "notificationType": result.notification_type})

    def _play(self, headers: Mapping[str, str], body: bytes) -> Response:
        if self.play is None:
            return Response(404, {"error": "not found"})
        verifier, client = self.play
        try:
            self.opened().ledger.ingest_play_push(verifier, client, headers, body)
        except PushRejected as error:
            return Response(403, {"error": str(error)})
        except PlayTransportError as error:
            return Response(503, {"error": str(error)})  # Google away now: Pub/Sub redelivers
        except PlayAPIError as error:
            if error.retryable:
                return Response(503, {"error": str(error)})
            log.warning("play rtdn: acknowledged without a record (Google will never answer about it): %s", error)
            return Response(204)
        except StoreError:
            raise
        except GateKitError as error:
            log.error("play rtdn: acknowledged without a record: %s", error)
            return Response(204)
        return Response(204)

    def _stripe(self, headers: Mapping[str, str], body: bytes) -> Response:
        if self.stripe is None:
            return Response(404, {"error": "not found"})
        client, secrets = self.stripe
        try:
            result = self.opened().ledger.ingest_stripe_webhook(client, headers, body, list(secrets))
        except WebhookRejected as error:
            return Response(400, {"error": str(error)})
        except StoreError:
            raise
        except GateKitError as error:
            return Response(503, {"error": str(error)})  # Stripe away now: it retries for days
        return Response(200, {"event": result.event_id, "type": result.event_type,
                              "outcome": None if result.ingested is None else result.ingested.outcome.name.lower()})

    # ---- the servers' interfaces ----------------------------------------------------------

    def wsgi(self, environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        """The WSGI application (PEP 3333)."""
        headers = {k[5:].replace("_", "-").lower(): v for k, v in environ.items() if k.startswith("HTTP_")}
        if environ.get("CONTENT_TYPE"):
            headers["content-type"] = environ["CONTENT_TYPE"]
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            response = Response(413, {"error": f"a body is at most {MAX_BODY} bytes"})
        else:
            body = environ["wsgi.input"].read(length) if length else b""
            response = self.handle(environ["REQUEST_METHOD"], environ.get("PATH_INFO", ""), environ.get("QUERY_STRING", ""), headers, body)
        status, fields, payload = response.encoded()
        start_response(f"{status} {_REASONS.get(status, '')}".rstrip(), fields)
        return [payload]

    async def __call__(self, scope: MutableMapping[str, Any], receive: Callable[[], Awaitable[MutableMapping[str, Any]]],
                       send: Callable[[MutableMapping[str, Any]], Awaitable[None]]) -> None:
        """The ASGI application (ASGI 3): the ledger's calls block, so each runs in a thread."""
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await asyncio.to_thread(self.close)
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        body = bytearray()
        too_large = False
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                too_large = True
            if not message.get("more_body"):
                break
        if too_large:
            response = Response(413, {"error": f"a body is at most {MAX_BODY} bytes"})
        else:
            response = await asyncio.to_thread(self.handle, scope["method"], scope["path"], scope.get("query_string", b"").decode("latin-1"),
                                               headers, bytes(body))
        status, fields, payload = response.encoded()
        await send({"type": "http.response.start", "status": status, "headers": [(k.encode(), v.encode()) for k, v in fields]})
        await send({"type": "http.response.body", "body": payload})


_REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
            413: "Payload Too Large", 503: "Service Unavailable"}


def from_environment(environ: Optional[Mapping[str, str]] = None) -> Endpoints:
    """The application configured by environment variables, for ``uvicorn --factory
    gatekit.endpoints:from_environment`` or a WSGI server's ``gatekit.endpoints:wsgi_app``:
    GATEKIT_STORE (a location; unset: the app's default store), GATEKIT_APP_ID; App Store:
    APPLE_BUNDLE_ID, APPLE_ENVIRONMENTS (comma-separated, default Production), APPLE_APP_APPLE_ID;
    Play: PLAY_PACKAGE, PLAY_SERVICE_ACCOUNT (a key file), PLAY_PUSH_AUDIENCE, PLAY_PUSH_EMAIL;
    Stripe: STRIPE_API_KEY_FILE, STRIPE_WEBHOOK_SECRETS (comma-separated), STRIPE_BASE_URL and
    STRIPE_CA_FILE (a stand-in); GATEKIT_ENVIRONMENT (what /entitled asks by default). A store's
    part is served only when its settings are all there; a part half set is a ValueError. TESTS
    ONLY: APPLE_TEST_ANCHOR (a DER test root), GATEKIT_TEST_DATA=1 (``?test_signed=1`` asks the
    ledger's test part)."""
    env = os.environ if environ is None else environ

    def given(*names: str) -> bool:
        present = [n for n in names if env.get(n)]
        if present and len(present) != len(names):
            missing = ", ".join(n for n in names if not env.get(n))
            raise ValueError(f"{', '.join(present)} set without {missing}")
        return bool(present)

    apple: List[SignedDataVerifier] = []
    if env.get("APPLE_BUNDLE_ID"):
        anchor_path = env.get("APPLE_TEST_ANCHOR")
        anchor = open(anchor_path, "rb").read() if anchor_path else None
        app_apple_id = int(env["APPLE_APP_APPLE_ID"]) if env.get("APPLE_APP_APPLE_ID") else None
        for environment in dict.fromkeys(env.get("APPLE_ENVIRONMENTS", "Production").split(",")):
            apple.append(SignedDataVerifier(env["APPLE_BUNDLE_ID"], environment.strip(),
                                            app_apple_id if environment.strip() == "Production" else None, anchor))
    play = None
    if given("PLAY_PACKAGE", "PLAY_SERVICE_ACCOUNT", "PLAY_PUSH_AUDIENCE", "PLAY_PUSH_EMAIL"):
        play = (PushVerifier(env["PLAY_PACKAGE"], env["PLAY_PUSH_AUDIENCE"], env["PLAY_PUSH_EMAIL"]),
                PlayClient(env["PLAY_PACKAGE"], env["PLAY_SERVICE_ACCOUNT"]))
    stripe = None
    if given("STRIPE_API_KEY_FILE", "STRIPE_WEBHOOK_SECRETS"):
        client = StripeClient(env["STRIPE_API_KEY_FILE"], base_url=env.get("STRIPE_BASE_URL") or None, ca_file=env.get("STRIPE_CA_FILE") or None)
        stripe = (client, [s.strip() for s in env["STRIPE_WEBHOOK_SECRETS"].split(",") if s.strip()])
    return Endpoints(store=env.get("GATEKIT_STORE") or None, app_id=env.get("GATEKIT_APP_ID") or None, apple=apple, play=play,
                     stripe=stripe, environment=env.get("GATEKIT_ENVIRONMENT", "Production"),
                     test_data=env.get("GATEKIT_TEST_DATA") == "1")


def wsgi_app(environ: Dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    """A WSGI application configured as :func:`from_environment` says, made on the first request."""
    global _wsgi
    with _wsgi_lock:
        if _wsgi is None:
            _wsgi = from_environment()
    return _wsgi.wsgi(environ, start_response)


_wsgi: Optional[Endpoints] = None
_wsgi_lock = threading.Lock()
