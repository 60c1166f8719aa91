"""notification_server.py: an App Store Server Notifications V2 endpoint backed by the ledger.

    python3 examples/notification_server.py --bundle-id com.example.app --environment Production \
        [--environment Sandbox] --app-apple-id 1234567890 [--store PATH] [--port 8080]

POST /appstore/notifications  {"signedPayload": "..."}: verified and ingested; 200 only once
    the ledger committed it (Apple retries anything else, so nothing is lost), 400 for data
    that does not verify (a retry would not help), 503 when the store cannot take it now.
    With --environment twice, one URL takes both environments' notifications (App Store
    Connect may point both at it): each is verified with its own environment's rules.
GET /entitlements/<customer>[?environment=Sandbox]: what the customer (an app account token or
    an original transaction id) is entitled to now, from the ledger (default: the first
    environment).
"""
from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union
from urllib.parse import parse_qs, unquote, urlsplit

import gatekit
from gatekit.jws import SignedDataError, SignedDataVerifier

MAX_BODY = 1 << 20  # Apple's signed payloads are a few KB; GateKit refuses JWS over 1 MiB


Verifiers = Union[SignedDataVerifier, Sequence[SignedDataVerifier]]


def ingest(store: gatekit.Store, verifier: Verifiers, body: bytes,
           verify_time: Optional[datetime] = None) -> Tuple[int, Dict[str, Any]]:
    """(HTTP status, JSON answer) for one notification request body."""
    try:
        signed = json.loads(body)["signedPayload"]
        if not isinstance(signed, str):
            raise TypeError("signedPayload is not a string")
    except (ValueError, KeyError, TypeError) as error:
        return 400, {"error": f"the body must be JSON with a signedPayload string ({error})"}
    try:
        result = store.ledger.ingest_notification(signed, verifier, verify_time)
    except SignedDataError as error:
        return 400, {"error": str(error)}
    except gatekit.StoreError as error:
        return 503, {"error": str(error)}      # busy, disk full, ...: Apple retries later
    except gatekit.GateKitError as error:
        return 400, {"error": str(error)}      # too large, not UTF-8, ...: a retry would not help
    return 200, {"outcome": result.outcome.name.lower(), "customer": result.customer,
                 "notificationType": result.notification_type}


def entitlements(store: gatekit.Store, environment: str, customer: str, test_signed: bool) -> Dict[str, Any]:
    active = store.ledger.active(customer, environment=environment, test_signed=test_signed)
    return {"customer": customer, "entitlements": [
        {"productId": e.product_id, "reason": e.reason.name.lower(), "until": e.until.isoformat() if e.until else None,
         "familyShared": e.family_shared} for e in active]}


def serve(store: gatekit.Store, verifier: Verifiers, port: int,
          verify_time: Optional[datetime] = None) -> ThreadingHTTPServer:
    """``verifier``: one, or one per environment the endpoint takes."""
    verifiers: List[SignedDataVerifier] = [verifier] if isinstance(verifier, SignedDataVerifier) else list(verifier)
    test_signed = verifiers[0].test_anchor is not None

    class Handler(BaseHTTPRequestHandler):
        def answer(self, status: int, document: Dict[str, Any]) -> None:
            payload = json.dumps(document).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            if self.path != "/appstore/notifications":
                return self.answer(404, {"error": "not found"})
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.answer(413, {"error": "body too large"})
            self.answer(*ingest(store, verifier, self.rfile.read(length), verify_time))

        def do_GET(self) -> None:  # noqa: N802
            prefix = "/entitlements/"
            url = urlsplit(self.path)
            if not url.path.startswith(prefix) or len(url.path) == len(prefix):
                return self.answer(404, {"error": "not found"})
            customer = unquote(url.path[len(prefix):])
            environment = parse_qs(url.query).get("environment", [verifiers[0].environment])[0]
            if environment not in [v.environment for v in verifiers]:
                return self.answer(400, {"error": f"this endpoint keeps no {environment} data"})
            try:
                self.answer(200, entitlements(store, environment, customer, test_signed))
            except gatekit.InvalidArgumentError as error:
                self.answer(400, {"error": str(error)})

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--environment", action="append", choices=["Production", "Sandbox"],
                        help="the environment of the notifications taken (twice: both); default Production")
    parser.add_argument("--app-apple-id", type=int)
    parser.add_argument("--store", help="the store (default: GateKit's default store of the app, named by its bundle id)")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--test-anchor", type=Path, help="TEST ONLY: a DER test root trusted instead of Apple's")
    parser.add_argument("--verify-time", type=int, help="TEST ONLY: Unix seconds for the certificate checks")
    parser.add_argument("--test-production", action="store_true", help="TEST ONLY: take test-signed data as Production")
    args = parser.parse_args()
    anchor = args.test_anchor.read_bytes() if args.test_anchor else None
    verifiers = [SignedDataVerifier(args.bundle_id, environment, args.app_apple_id if environment == "Production" else None,
                                    anchor, test_production=args.test_production and environment == "Production")
                 for environment in dict.fromkeys(args.environment or ["Production"])]
    with gatekit.Store(args.store, app_id=args.bundle_id) as store:
        verify_time = None if args.verify_time is None else datetime.fromtimestamp(args.verify_time, timezone.utc)
        server = serve(store, verifiers, args.port, verify_time)
        print(f"notifications on http://127.0.0.1:{server.server_address[1]}/appstore/notifications", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
