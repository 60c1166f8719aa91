"""play_rtdn_endpoint.py: a Google Play real-time developer notification endpoint, answering
entitlement questions from the ledger.

    python3 examples/play_rtdn_endpoint.py --package com.example.app --service-account key.json \
        --audience https://example.com/play/rtdn --push-email rtdn-push@PROJECT.iam.gserviceaccount.com \
        [--store ledger.sqlite] [--port 8080]

POST /play/rtdn  a Pub/Sub push. ``store.ledger.ingest_play_push`` does the whole endpoint in one
    call: the push believed only when its OIDC token is Google's for this push subscription
    (audience, service account) and the notification is for --package; then, as Google says to,
    the Play Developer API asked about the purchase and its answer recorded in the ledger as
    sent. Every push is answered: 204 once recorded; 204 for a redelivered message (recorded
    before: Google is not asked again); 403 for a push that is not Google's, one without
    authentication included (Pub/Sub retries, then gives up); 503 when Google's API cannot be
    reached now or the store is busy (Pub/Sub retries later, so nothing is lost); 204 and a log
    line for a failure that no retry mends (Google answers 404 or 410 about the token: Pub/Sub
    would otherwise redeliver it for days).
GET /play/entitled/<customer>/<product, group or entitlement>: the ledger's answer (JSON), for a
    purchase token or a UUID obfuscated account id, beside Apple's purchases in the same ledger.

docs/ledger.md, "Google Play", has the rules; run ``store.ledger.sync_play(client)`` from a
timer to heal what lost notifications would have told the ledger.
"""
from __future__ import annotations

import argparse
import json
import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Optional, Tuple
from urllib.parse import unquote

import gatekit
from gatekit.play import PlayAPIError, PlayClient, PlayTransportError, PushRejected, PushVerifier

MAX_BODY = 1 << 20  # a push is a few KB; GateKit refuses bodies over 1 MiB
log = logging.getLogger("play_rtdn_endpoint")


class Endpoint:
    """The ledger, the verifier and the API client; ``test_data``: answer from the ledger's test
    part (pushes signed by a test issuer, license testers' purchases)."""

    def __init__(self, store: gatekit.Store, verifier: PushVerifier, client: PlayClient, test_data: bool = False) -> None:
        self.store = store
        self.verifier = verifier
        self.client = client
        self.test_data = test_data

    def push(self, headers: Any, body: bytes) -> Tuple[int, Optional[Dict[str, Any]]]:
        """(HTTP status, JSON answer or None) for one push: every push gets one."""
        try:
            self.store.ledger.ingest_play_push(self.verifier, self.client, headers, body)
        except PushRejected as error:
            return 403, {"error": str(error)}
        except (PlayTransportError, gatekit.errors.StoreError) as error:
            return 503, {"error": str(error)}   # now, not for good: Pub/Sub retries
        except PlayAPIError as error:
            if error.retryable:
                return 503, {"error": str(error)}
            # Google will never answer about this token (404, 410): redelivery mends nothing.
            log.warning("play rtdn: push acknowledged without a record: %s", error)
            return 204, None
        except gatekit.GateKitError as error:
            log.error("play rtdn: push acknowledged without a record: %s", error)
            return 204, None
        return 204, None

    def entitled(self, customer: str, name: str) -> Dict[str, Any]:
        answer = self.store.ledger.entitled(customer, name, environment="Production", test_signed=self.test_data)
        return answer.to_dict()


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
            parts = self.path.split("/")
            if len(parts) != 5 or parts[1:3] != ["play", "entitled"]:
                return self.answer(404, {"error": "ask /play/entitled/<customer>/<product or entitlement>"})
            try:
                self.answer(200, endpoint.entitled(unquote(parts[3]), unquote(parts[4])))
            except gatekit.errors.InvalidArgumentError as error:
                self.answer(400, {"error": str(error)})

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", required=True)
    parser.add_argument("--service-account", required=True, help="the service account's JSON key file")
    parser.add_argument("--audience", required=True, help="the push subscription's audience")
    parser.add_argument("--push-email", required=True, help="the service account the push subscription authenticates as")
    parser.add_argument("--store", default=None, help="the ledger's store (default: the app's store for --package)")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    with gatekit.Store(args.store, app_id=args.package) as store:
        endpoint = Endpoint(store, PushVerifier(args.package, args.audience, args.push_email), PlayClient(args.package, args.service_account))
        server = serve(endpoint, args.port)
        print(f"listening on 127.0.0.1:{server.server_address[1]}", flush=True)
        server.serve_forever()


if __name__ == "__main__":
    main()
