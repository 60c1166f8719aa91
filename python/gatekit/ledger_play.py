"""Google Play in the ledger (``<gatekit/ledger_play.h>``): what the Play Developer API answered,
and real-time developer notifications, recorded beside Apple's purchases and answered by the
same questions (docs/ledger.md, "Google Play")."""
from __future__ import annotations

import ctypes
import json
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Tuple, Union

from . import _bindings, _native
from ._ledger_query import instant_ms
from ._time import Instant
from .errors import check
from .play import EPLAY_API, PlayAPIError, PlayClient, PushVerifier, authorization_header
from .play_models import PlayModel

if TYPE_CHECKING:
    from ._managed import StoreOwner
    from .ledger import IngestResult

__all__ = ["LedgerPlay"]

Answer = Union[bytes, bytearray, str, Mapping[str, Any], PlayModel]


def _bytes(answer: Answer) -> bytes:
    """The answer's bytes; a dict or model (``PlayClient.get_subscription``'s) is written back
    as JSON, member for member (``refresh_play_*`` keep Google's exact bytes)."""
    if isinstance(answer, str):
        return answer.encode("utf-8")
    if isinstance(answer, (bytes, bytearray)):
        return bytes(answer)
    if isinstance(answer, PlayModel):
        answer = answer.raw
    if isinstance(answer, Mapping):
        return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raise TypeError(f"answer must be what Google answered (bytes, text, a dict or a gatekit.play model), not {type(answer).__name__}")


class LedgerPlay:
    """``store.ledger``'s Play calls. A purchase token is the customer id of its purchase; an
    ``obfuscatedExternalAccountId`` that is a UUID is its app account token, as Apple's
    ``appAccountToken`` (ask with it, or link it: ``store.ledger.link``). Play purchases are in
    environment "Production"; a license tester's are test data (``test_signed=True``)."""

    _store: "StoreOwner"

    def _answer(self, function: object, package_name: str, purchase_token: str, answer: Answer, answered: Instant) -> "IngestResult":
        from .ledger import IngestResult
        data = _bytes(answer)
        out = ctypes.c_void_p()
        check(function(ctypes.byref(out), self._store.handle, _native.required_c_string(package_name, "package_name"),  # type: ignore[operator]
                       _native.required_c_string(purchase_token, "purchase_token"), data, len(data), instant_ms(answered)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    def ingest_play_subscription(self, package_name: str, purchase_token: str, answer: Answer, answered: Instant = None) -> "IngestResult":
        """What subscriptionsv2.get answered for ``purchase_token`` (``PlayClient.get_subscription``'s
        raw bytes, exactly as Google sent them), ``answered`` when (None: now)."""
        return self._answer(_bindings.ledger_ingest_play_subscription, package_name, purchase_token, answer, answered)

    def ingest_play_product(self, package_name: str, purchase_token: str, answer: Answer, answered: Instant = None) -> "IngestResult":
        """What productsv2.getproductpurchasev2 answered (a ProductPurchaseV2)."""
        return self._answer(_bindings.ledger_ingest_play_product, package_name, purchase_token, answer, answered)

    def ingest_play_push(self, verifier: PushVerifier, client: PlayClient,
                         headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]], body: bytes) -> "IngestResult":
        """A push to your RTDN endpoint: verified as ``verifier.verify_push`` does, then the
        purchase it names asked of Google through ``client`` and recorded. Answer the push
        2xx only after this returns (Pub/Sub redelivers otherwise)."""
        from .ledger import IngestResult
        if not isinstance(verifier, PushVerifier) or not isinstance(client, PlayClient):
            raise TypeError("verifier must be a PushVerifier and client a PlayClient")
        data = bytes(body)
        authorization = authorization_header(headers)
        out = ctypes.c_void_p()
        check(_bindings.ledger_ingest_play_push(ctypes.byref(out), self._store.handle, verifier.handle, client.handle,
                                                None if authorization is None else authorization.encode("utf-8"), data, len(data)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    def _asked(self, client: PlayClient, function: str, purchase_token: str) -> bytes:
        """Google's answer's exact bytes (PlayAPIError for Google's error answers)."""
        if not isinstance(client, PlayClient):
            raise TypeError(f"client must be a PlayClient, not {type(client).__name__}")
        out = ctypes.c_void_p()
        rc = getattr(_bindings, function)(ctypes.byref(out), client.handle, _native.required_c_string(purchase_token, "purchase_token"))
        body = _native.take_string(out) if out.value else None
        if rc == EPLAY_API:
            raise PlayAPIError(json.loads(body or "{}"), _bindings.gatekit_last_error().decode("utf-8", "replace"))
        check(rc)
        return (body or "").encode("utf-8")

    def refresh_play_subscription(self, client: PlayClient, purchase_token: str) -> "IngestResult":
        """Asks Google (subscriptionsv2.get through ``client``) and records the answer as sent."""
        return self.ingest_play_subscription(client.package_name, purchase_token,
                                             self._asked(client, "play_subscription_get", purchase_token))

    def refresh_play_product(self, client: PlayClient, purchase_token: str) -> "IngestResult":
        """Asks Google (productsv2 through ``client``) and records the answer as sent."""
        return self.ingest_play_product(client.package_name, purchase_token, self._asked(client, "play_product_get_v2", purchase_token))
