"""play_rtdn_endpoint.py: a Google Play real-time developer notification endpoint.

    python3 examples/play_rtdn_endpoint.py --package com.example.app --service-account key.json \
        --audience https://example.com/play/rtdn --push-email rtdn-push@PROJECT.iam.gserviceaccount.com [--port 8080]

POST /play/rtdn  a Pub/Sub push. Believed only when its OIDC token is Google's for this push
    subscription (audience, service account) and the notification is for --package; then, as
    Google says to, the Play Developer API is asked for the subscription's state and that
    answer is what is kept. 204 once done; 204 for a redelivered message (already done); 403
    for a push that is not Google's (Pub/Sub retries, then gives up); 503 when Google's API
    cannot be reached now (Pub/Sub retries later, so nothing is lost).
GET /play/subscriptions/<purchase token>: the state the API last answered for it.

Putting Play purchases in the entitlement ledger is the ledger's part (docs/play.md); this
endpoint shows the two halves GateKit gives today: verify the push, ask the API.
"""
from __future__ import annotations

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Optional, Tuple
from urllib.parse import unquote

from gatekit.play import (NotificationKind, PlayAPIError, PlayClient, PlayTransportError, PushRejected, PushVerifier)

MAX_BODY = 1 << 20  # a push is a few KB; GateKit refuses bodies over 1 MiB


class Endpoint:
    """What the endpoint knows: the verifier, the API client, and the last state per token."""

    def __init__(self, verifier: PushVerifier, client: PlayClient) -> None:
        self.verifier = verifier
        self.client = client
        self.states: Dict[str, Dict[str, Any]] = {}
        self.lock = threading.Lock()

    def push(self, headers: Any, body: bytes) -> Tuple[int, Optional[Dict[str, Any]]]:
        """(HTTP status, JSON answer or None) for one push."""
        try:
            notification = self.verifier.verify_push(headers, body)
        except PushRejected as error:
            return 403, {"error": str(error)}
        if notification.duplicate or notification.kind == NotificationKind.TEST:
            return 204, None
        token = notification.purchase_token
        if notification.kind != NotificationKind.SUBSCRIPTION or token is None:
            return 204, None  # one-time products and voids: ask get_product / list_voided_purchases likewise
        try:
            subscription = self.client.get_subscription(token)
        except PlayTransportError as error:
            return 503, {"error": str(error)}
        except PlayAPIError as error:
            return (503 if error.retryable else 204), {"error": str(error)}
        item = subscription.line_items[0] if subscription.line_items else None
        state = {"state": subscription.subscription_state.value if subscription.subscription_state else None,
                 "productId": item.product_id if item else None,
                 "expiryTime": item.expiry_time.isoformat() if item and item.expiry_time else None,
                 "testPurchase": subscription.is_test, "linkedPurchaseToken": subscription.linked_purchase_token}
        with self.lock:
            self.states[token] = state
        return 204, None

    def state(self, token: str) -> Optional[Dict[str, Any]]:
        with self.lock:
            return self.states.get(token)


def serve(endpoint: Endpoint, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def answer(self, status: int, document: Optional[Dict[str, Any]]) -> None:
            payload = b"" if document is None else json.dumps(document).encode()
            self.send_response(status)
            if payload:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            if self.path != "/play/rtdn":
                return self.answer(404, {"error": "not found"})
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                return self.answer(413, {"error": "a push is at most 1 MiB"})
            self.answer(*endpoint.push(self.headers.items(), self.rfile.read(length)))

        def do_GET(self) -> None:  # noqa: N802
            prefix = "/play/subscriptions/"
            state = endpoint.state(unquote(self.path[len(prefix):])) if self.path.startswith(prefix) else None
            if state is None:
                return self.answer(404, {"error": "no state for that token"})
            self.answer(200, state)

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", required=True)
    parser.add_argument("--service-account", required=True, help="the service account's JSON key file")
    parser.add_argument("--audience", required=True, help="the push subscription's audience")
    parser.add_argument("--push-email", required=True, help="the service account the push subscription authenticates as")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    endpoint = Endpoint(PushVerifier(args.package, args.audience, args.push_email), PlayClient(args.package, args.service_account))
    server = serve(endpoint, args.port)
    print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
