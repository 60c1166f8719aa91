"""receipt_server.py: a drop-in for Apple's deprecated verifyReceipt endpoint, validated locally.

    python3 examples/receipt_server.py --bundle-id com.example.app [--port 8080]
    curl -d '{"receipt-data": "MIIT..."}' localhost:8080/verifyReceipt

Answers exactly what verifyReceipt answered ({"status": 0, "environment": ..., "receipt": {...}}),
or {"status": 21002|21003|21007|21008, ...} — plus "gatekit_entitled": the product ids the
receipt covers now.
"""
from __future__ import annotations

import argparse
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict

import gatekit.receipt as receipts


def verify_receipt(body: bytes, bundle_id: str) -> Dict[str, Any]:
    """The verifyReceipt response for a request body {"receipt-data": base64}."""
    try:
        request = json.loads(body)
        data = request["receipt-data"]
    except (ValueError, KeyError, TypeError):
        return {"status": 21000, "error": "request body must be JSON with receipt-data"}
    try:
        receipt = receipts.validate(data, bundle_id)
    except receipts.ReceiptError as error:
        return {"status": error.apple_status, "error": error.detail}
    if receipt.is_test_signed:  # never happens without a test anchor; kept as a reminder
        return {"status": 21003, "error": "test-signed receipt"}
    response = receipt.to_dict()
    response["gatekit_entitled"] = receipt.active_products()
    return response


def serve(bundle_id: str, port: int) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            length = int(self.headers.get("Content-Length") or 0)
            answer = json.dumps(verify_receipt(self.rfile.read(min(length, 32 << 20)), bundle_id)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle-id", required=True)
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    server = serve(args.bundle_id, args.port)
    print(f"verifyReceipt for {args.bundle_id} on http://127.0.0.1:{server.server_address[1]}/verifyReceipt", flush=True)
    server.serve_forever()
