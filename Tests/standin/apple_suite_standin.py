"""The public equivalent of the private helper Apple's API-client tests patch.

Apple's tests replace the client's private ``_execute_request`` with a function that asserts the
request (method, URL, query parameters, headers, JSON body or raw data) and returns a canned
answer. GateKit's client makes its requests in libgatekit (libcurl), so there is nothing to
patch: instead the client is pointed, through its public ``base_url`` and ``ca_file``, at this
HTTPS server on loopback, which hands each request *as it arrived on the wire* to the same
function and answers with the body and status it returns. scripts/apple-suite.py copies this
file into the suite as ``tests/gatekit_standin.py``; docs/appstore.md lists the replacement.

What arrives is given to Apple's function in the shape Apple's ``_execute_request`` receives:
  - url: Apple's base URL for the environment + the path as sent (the query split off);
  - params: the query, each name with its values in order; it equals Apple's expected dict
    when Apple's values, written as ``requests`` writes them (``str``), are those values;
  - headers: those the client sets, in the order sent (transport headers — Host,
    Content-Length, Accept-Encoding, Connection — are libcurl's, and a JSON body's Content-Type
    is what ``requests`` adds for ``json=``, so both are left out as Apple's helper never sees
    them);
  - json: the parsed body when it is application/json, else None; data: any other body.
A failed assertion inside the function is re-raised from the client call that caused it.
"""
from __future__ import annotations

import asyncio
import functools
import inspect
import json
import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional
from urllib.parse import parse_qsl, urlsplit

from appstore_api_standin import tls_material  # Tests/standin, on the suite's PYTHONPATH

APPLE_BASE_URL = {"LocalTesting": "https://local-testing-base-url", "Sandbox": "https://api.storekit-sandbox.apple.com",
                  "Production": "https://api.storekit.apple.com"}
TRANSPORT_HEADERS = {"host", "content-length", "accept-encoding", "connection", "expect", "transfer-encoding"}


class WireParams(dict):
    """The query as it arrived: name -> [value, ...]. Equal to Apple's expected parameters when
    those, written as ``requests`` writes a query value (``str(value)``), are the same."""

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        written = {name: [str(v) for v in (values if isinstance(values, (list, tuple)) else [values])]
                   for name, values in other.items()}
        return dict(self) == written

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]


class StandIn:
    """One HTTPS server for the whole suite; each test routes it to its own checking function."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="gatekit-apple-standin-")
        context = tls_material(Path(self.folder))  # the project stand-in's throw-away CA (ca.pem) and server certificate
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(self))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self.server.server_address[1]}"
        self.validator: Optional[Callable[..., Any]] = None
        self.environment = "LocalTesting"
        self.failure: Optional[BaseException] = None
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def client_options(self) -> Dict[str, str]:
        return {"base_url": self.url, "ca_file": os.path.join(self.folder, "ca.pem")}

    def route(self, validator: Callable[..., Any], client: Any) -> Any:
        """Sends what the client asks to ``validator``; returns the client, wrapped so that a
        failed check inside ``validator`` is raised from the call that caused it."""
        self.validator, self.failure = validator, None
        self.environment = str(getattr(client.environment, "value", client.environment))
        return Checked(client, self)

    def answer(self, method: str, target: str, headers: List[tuple], body: bytes) -> tuple:
        split = urlsplit(target)
        params = WireParams()
        for name, value in parse_qsl(split.query, keep_blank_values=True):
            params.setdefault(name, []).append(value)
        kept = {name: value for name, value in headers if name.lower() not in TRANSPORT_HEADERS}
        json_body: Any = None
        data: Optional[bytes] = None
        if body:
            if kept.get("Content-Type", "").split(";")[0].strip() == "application/json":
                kept.pop("Content-Type")
                json_body = json.loads(body)
            else:
                data = body
        url = APPLE_BASE_URL[self.environment] + split.path
        if self.validator is None:
            raise AssertionError(f"{method} {target}: no test routed the stand-in")
        if inspect.iscoroutinefunction(self.validator):
            response = asyncio.run(self.validator(method, url, params, kept, json_body, data))
        else:
            response = self.validator(method, url, params, kept, json_body, data)
        return response.status_code, response.headers.get("Content-Type", "application/json"), response.content


class Checked:
    """The client, with each call re-raising what the stand-in's check found."""

    def __init__(self, client: Any, standin: StandIn) -> None:
        self._client, self._standin = client, standin

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if not callable(attribute):
            return attribute
        if inspect.iscoroutinefunction(attribute):
            @functools.wraps(attribute)
            async def checked_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    result = await attribute(*args, **kwargs)
                finally:
                    self._raise_failure()
                return result
            return checked_async

        @functools.wraps(attribute)
        def checked(*args: Any, **kwargs: Any) -> Any:
            try:
                result = attribute(*args, **kwargs)
            finally:
                self._raise_failure()
            return result
        return checked

    def _raise_failure(self) -> None:
        failure, self._standin.failure = self._standin.failure, None
        if failure is not None:
            raise failure


def make_handler(standin: StandIn) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def handle_any(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                status, content_type, content = standin.answer(self.command, self.path, list(self.headers.items()), body)
            except BaseException as failure:  # the test's own assertion: handed back to the client call
                standin.failure = failure
                status, content_type, content = 599, "text/plain", b"the stand-in's check failed"
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = handle_any

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


_standin: Optional[StandIn] = None


def standin() -> StandIn:
    global _standin
    if _standin is None:
        _standin = StandIn()
    return _standin
