"""Google Play in the ledger (``<gatekit/ledger_play.h>``): what the Play Developer API answered,
and real-time developer notifications, recorded beside Apple's purchases and answered by the
same questions (docs/ledger.md, "Google Play")."""
from __future__ import annotations

import ctypes
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _bindings, _native, _time
from ._enums import SyncOutcome
from ._result import JSONResult
from ._ledger_query import instant_ms
from ._time import Instant
from .errors import GateKitError, check, error_for
from .play import PlayClient, PushVerifier, authorization_header, play_answer, push_bytes
from .play_models import PlayModel

if TYPE_CHECKING:
    from ._managed import StoreOwner
    from .ledger import IngestResult

__all__ = ["LedgerPlay", "PlaySyncReport"]

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


@dataclass(frozen=True)
class PlaySyncReport(JSONResult):
    """What one ``sync_play`` did (``to_dict()`` is ledger_sync_play()'s JSON): voided-list pages
    read, voids recorded (``voided``), seen before, or of tokens the ledger does not hold,
    tokens refreshed, and those Google would not answer about (``refresh_failures``: token →
    message)."""
    outcome: SyncOutcome
    stopped_by: str
    pages: int
    voided: int
    voided_before: int
    voided_unknown: int
    refreshed: int
    refresh_failures: Dict[str, str]
    raw: Mapping[str, Any]

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "PlaySyncReport":
        return cls(outcome=SyncOutcome[raw["outcome"].upper()], stopped_by=raw["stoppedBy"], pages=raw["pages"], voided=raw["voided"],
                   voided_before=raw["voidedBefore"], voided_unknown=raw["voidedUnknown"], refreshed=raw["refreshed"],
                   refresh_failures={f["purchaseToken"]: f["error"] for f in raw["refreshFailures"]}, raw=dict(raw))

    def to_dict(self) -> Dict[str, Any]:
        return dict(self.raw)


@dataclass(frozen=True)
class PlayVoidedReport(JSONResult):
    """What one ``ingest_play_voided`` did (``to_dict()`` is ledger_ingest_play_voided()'s JSON):
    voids recorded, recorded before, and of tokens the ledger does not hold."""
    voided: int
    voided_before: int
    voided_unknown: int

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "PlayVoidedReport":
        return cls(voided=raw["voided"], voided_before=raw["voidedBefore"], voided_unknown=raw["voidedUnknown"])

    def to_dict(self) -> Dict[str, Any]:
        return {"version": 1, "voided": self.voided, "voidedBefore": self.voided_before, "voidedUnknown": self.voided_unknown}


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

    def ingest_play_product(self, package_name: str, purchase_token: str, answer: Answer, answered: Instant = None, *,
                            product_id: Optional[str] = None) -> "IngestResult":
        """What productsv2.getproductpurchasev2 answered (a ProductPurchaseV2); with
        ``product_id``, what purchases.products.get answered for that product (the v1
        ProductPurchase most apps' code reads), recorded as its productsv2 answer would be."""
        if product_id is None:
            return self._answer(_bindings.ledger_ingest_play_product, package_name, purchase_token, answer, answered)
        from .ledger import IngestResult
        data = _bytes(answer)
        out = ctypes.c_void_p()
        check(_bindings.ledger_ingest_play_product_v1(ctypes.byref(out), self._store.handle, _native.required_c_string(package_name, "package_name"),
                                                      _native.required_c_string(product_id, "product_id"),
                                                      _native.required_c_string(purchase_token, "purchase_token"), data, len(data), instant_ms(answered)))
        return IngestResult.from_json(json.loads(_native.take_string(out)))

    def ingest_play_batch(self, package_name: str, kind: str, answers: Sequence[Tuple[str, Answer]],
                          answered: Instant = None) -> "List[Union[IngestResult, GateKitError]]":
        """Several answers of one ``kind`` ("subscription" or "product") for one package, as
        (purchase token, answer) pairs, recorded in one durable transaction: each result in
        input order is an IngestResult, or the exception (not raised) for an answer refused."""
        from .ledger import IngestResult
        kinds = {"subscription": _bindings.GATEKIT_LEDGER_PLAY_SUBSCRIPTION, "product": _bindings.GATEKIT_LEDGER_PLAY_PRODUCT}
        if kind not in kinds:
            raise ValueError(f"kind must be subscription or product, not {kind!r}")
        tokens = [_native.required_c_string(token, "purchase_token") for token, _ in answers]
        texts = [_bytes(answer) for _, answer in answers]
        token_array = (ctypes.c_char_p * max(len(tokens), 1))(*tokens)
        text_array = (ctypes.c_char_p * max(len(texts), 1))(*texts)
        out = ctypes.c_void_p()
        check(_bindings.ledger_ingest_play_batch(ctypes.byref(out), self._store.handle, _native.required_c_string(package_name, "package_name"),
                                                 kinds[kind], token_array, text_array, len(texts), instant_ms(answered)))
        results: List[Union[IngestResult, GateKitError]] = []
        for entry in json.loads(_native.take_string(out))["results"]:
            results.append(error_for(entry["error"], entry["message"]) if "error" in entry else IngestResult.from_json(entry))
        return results

    def ingest_play_push(self, verifier: PushVerifier, client: PlayClient,
                         headers: Union[Mapping[str, str], Iterable[Tuple[str, str]]], body: bytes) -> "IngestResult":
        """A push to your RTDN endpoint: verified as ``verifier.verify_push`` does, then the
        purchase it names asked of Google through ``client`` and recorded. Answer the push
        2xx only after this returns (Pub/Sub redelivers otherwise)."""
        from .ledger import IngestResult
        if not isinstance(verifier, PushVerifier) or not isinstance(client, PlayClient):
            raise TypeError("verifier must be a PushVerifier and client a PlayClient")
        data = push_bytes(body)
        authorization = authorization_header(headers)
        out = ctypes.c_void_p()
        report = play_answer(_bindings.ledger_ingest_play_push(ctypes.byref(out), self._store.handle, verifier.handle, client.handle,
                                                               None if authorization is None else authorization.encode("utf-8"), data, len(data)), out)
        return IngestResult.from_json(json.loads(report or "{}"))

    def _asked(self, client: PlayClient, function: str, purchase_token: str) -> bytes:
        """Google's answer's exact bytes (PlayAPIError for Google's error answers)."""
        if not isinstance(client, PlayClient):
            raise TypeError(f"client must be a PlayClient, not {type(client).__name__}")
        out = ctypes.c_void_p()
        body = play_answer(getattr(_bindings, function)(ctypes.byref(out), client.handle, _native.required_c_string(purchase_token, "purchase_token")), out)
        return (body or "").encode("utf-8")

    def refresh_play_subscription(self, client: PlayClient, purchase_token: str) -> "IngestResult":
        """Asks Google (subscriptionsv2.get through ``client``) and records the answer as sent."""
        return self.ingest_play_subscription(client.package_name, purchase_token,
                                             self._asked(client, "play_subscription_get", purchase_token))

    def refresh_play_product(self, client: PlayClient, purchase_token: str) -> "IngestResult":
        """Asks Google (productsv2 through ``client``) and records the answer as sent."""
        return self.ingest_play_product(client.package_name, purchase_token, self._asked(client, "play_product_get_v2", purchase_token))

    def acknowledge_play(self, client: PlayClient, purchase_token: str) -> "IngestResult":
        """Acknowledges a held Play purchase to Google (one not acknowledged within three days is
        refunded and revoked) and records Google's answer after it."""
        from .ledger import IngestResult
        if not isinstance(client, PlayClient):
            raise TypeError(f"client must be a PlayClient, not {type(client).__name__}")
        out = ctypes.c_void_p()
        report = play_answer(_bindings.ledger_play_acknowledge(ctypes.byref(out), self._store.handle, client.handle,
                                                               _native.required_c_string(purchase_token, "purchase_token")), out)
        return IngestResult.from_json(json.loads(report or "{}"))

    def sync_play(self, client: PlayClient, *, budget: Optional[timedelta] = None, max_pages: Optional[int] = None,
                  max_refreshes: int = 1000, overlap: timedelta = timedelta(minutes=10),
                  lease: timedelta = timedelta(minutes=2)) -> PlaySyncReport:
        """Heals the ledger's Play purchases of ``client``'s package: the voided-purchases list
        from the checkpoint (each void recorded once, its order revoked), then a refresh of
        every held token whose answer may have changed. Resumable, one process or host at a
        time (BUSY otherwise); ``budget`` / ``max_pages`` / ``max_refreshes`` stop early
        (PARTIAL) and the next call goes on. docs/ledger.md, "Google Play"."""
        if not isinstance(client, PlayClient):
            raise TypeError(f"client must be a PlayClient, not {type(client).__name__}")
        options = _bindings.gatekit_ledger_play_sync_options()
        check(_bindings.ledger_play_sync_options_init(ctypes.byref(options), _bindings.GATEKIT_LEDGER_PLAY_SYNC_OPTIONS_VERSION))
        options.overlap_ms = _time.span_milliseconds(overlap, "overlap")
        options.budget_ms = 0 if budget is None else max(1, _time.span_milliseconds(budget, "budget"))
        options.max_pages = 0 if max_pages is None else int(max_pages)
        options.max_refreshes = int(max_refreshes)
        options.lease_ms = _time.span_milliseconds(lease, "lease")
        out = ctypes.c_void_p()
        report = play_answer(_bindings.ledger_sync_play(ctypes.byref(out), self._store.handle, client.handle, ctypes.byref(options)), out)
        return PlaySyncReport.from_json(json.loads(report or "{}"))

    def ingest_play_voided(self, client: PlayClient, page: Answer) -> PlayVoidedReport:
        """Voided purchases the host already holds (a voidedpurchases.list answer, as Google sent
        it: ``{"voidedPurchases": [...]}``), recorded as ``sync_play`` records the voids it reads:
        each once, its purchase asked about again through ``client``, its order revoked."""
        if not isinstance(client, PlayClient):
            raise TypeError(f"client must be a PlayClient, not {type(client).__name__}")
        data = _bytes(page)
        out = ctypes.c_void_p()
        report = play_answer(_bindings.ledger_ingest_play_voided(ctypes.byref(out), self._store.handle, client.handle, data, len(data)), out)
        return PlayVoidedReport.from_json(json.loads(report or "{}"))

    def set_play_refresher(self, client: Optional[PlayClient]) -> None:
        """Lets questions with ``refresh_within`` ask Google before saying no about a Play
        subscription whose period ended with renewal on (None: stop)."""
        if client is not None and not isinstance(client, PlayClient):
            raise TypeError(f"client must be a PlayClient or None, not {type(client).__name__}")
        check(_bindings.ledger_set_play_refresher(self._store.handle, None if client is None else client.handle))
