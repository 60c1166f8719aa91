"""wsgi_entitlements.py: entitlement answers from the ledger under a prefork WSGI server.

    cd examples && BUNDLE_ID=com.example.app gunicorn --preload --workers 4 --threads 8 \\
        wsgi_entitlements:app

GET  /entitled/<customer>/<product or group>   the ledger's answer as JSON (200)
POST /appstore/notifications                   {"signedPayload": ...}: verified and recorded

A store handle belongs to the process that opened it: gunicorn --preload (and uWSGI without
lazy-apps) imports this module in the master and then forks the workers, so the store is
opened per worker process on first use, never at import. Inside a worker one handle serves
every thread. Settings: BUNDLE_ID, ENVIRONMENT (Production), APP_APPLE_ID, GATEKIT_STORE
(default: the app's default store), and TEST ONLY: TEST_ANCHOR (a DER test root).
"""
from __future__ import annotations

import json
import os
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple
from urllib.parse import unquote

import gatekit
from gatekit.jws import SignedDataError, SignedDataVerifier

BUNDLE_ID = os.environ.get("BUNDLE_ID", "com.example.app")
ENVIRONMENT = os.environ.get("ENVIRONMENT", "Production")
_ANCHOR = os.environ.get("TEST_ANCHOR")
VERIFIER = SignedDataVerifier(BUNDLE_ID, ENVIRONMENT, int(os.environ.get("APP_APPLE_ID", "0")) or None,
                              open(_ANCHOR, "rb").read() if _ANCHOR else None)

_opened: Dict[int, gatekit.Store] = {}
_opening = threading.Lock()


def store() -> gatekit.Store:
    """This worker's store, opened on its first request (a handle from before the fork would
    raise gatekit.ForkedStoreError: it belongs to the master)."""
    pid = os.getpid()
    with _opening:
        if pid not in _opened:
            _opened.clear()  # a parent's handle, if any: left to the parent
            _opened[pid] = gatekit.Store(None, app_id=BUNDLE_ID)
        return _opened[pid]


StartResponse = Callable[[str, List[Tuple[str, str]]], Any]


def answer(start_response: StartResponse, status: str, document: Dict[str, Any]) -> Iterable[bytes]:
    body = json.dumps(document).encode()
    start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                            ("X-Worker", str(os.getpid()))])
    return [body]


def app(environ: Dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
    path: str = environ.get("PATH_INFO", "")
    if environ["REQUEST_METHOD"] == "GET" and path.startswith("/entitled/"):
        parts = [unquote(p) for p in path[len("/entitled/"):].split("/")]
        if len(parts) != 2 or not all(parts):
            return answer(start_response, "404 Not Found", {"error": "GET /entitled/<customer>/<product or group>"})
        entitlement = store().ledger.entitled(parts[0], parts[1], environment=ENVIRONMENT,
                                              test_signed=VERIFIER.test_anchor is not None)
        return answer(start_response, "200 OK", entitlement.to_dict())
    if environ["REQUEST_METHOD"] == "POST" and path == "/appstore/notifications":
        length = int(environ.get("CONTENT_LENGTH") or 0)
        try:
            signed: Optional[str] = json.loads(environ["wsgi.input"].read(min(length, 1 << 20)))["signedPayload"]
            result = store().ledger.ingest_notification(str(signed), VERIFIER)
        except (ValueError, KeyError, TypeError, SignedDataError) as error:
            return answer(start_response, "400 Bad Request", {"error": str(error)})
        except gatekit.StoreError as error:
            return answer(start_response, "503 Service Unavailable", {"error": str(error)})  # Apple retries
        return answer(start_response, "200 OK", result.to_dict())
    return answer(start_response, "404 Not Found", {"error": "not found"})
