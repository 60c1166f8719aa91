"""The public equivalent of Apple's private ``_ChainVerifier``, which Apple's x509 tests import
from ``signed_data_verifier``: Apple's constructor and ``verify_chain``, made by GateKit's
public ``gatekit.jws.verify_chain`` (the chain rules of signed data, in libgatekit).
scripts/apple-suite.py copies this file into the suite as ``tests/gatekit_chain.py`` and
imports ``_ChainVerifier`` from it; docs/appstore.md lists the replacement.

Apple's roots among ``root_certificates`` are recognised by fingerprint (the library's pinned
Apple Root CA - G3 is used); any other root is the test anchor. Online checks (OCSP) are not
made by GateKit, so ``perform_online_checks=True`` is an error, never a silent offline check.
"""
from __future__ import annotations

import datetime
import hashlib
from typing import List

from gatekit.apple import APPLE_ROOTS
from gatekit.jws import verify_chain


class _ChainVerifier:
    def __init__(self, root_certificates: List[bytes], enable_strict_checks: bool = True) -> None:
        others = [bytes(r) for r in root_certificates if hashlib.sha256(bytes(r)).hexdigest() not in APPLE_ROOTS]
        if len(others) > 1:
            raise ValueError(f"{len(others)} roots that are not Apple's: GateKit trusts one test root at a time")
        self._test_anchor = others[0] if others else None

    def verify_chain(self, certificates: List[str], perform_online_checks: bool, effective_date: int) -> str:
        if perform_online_checks:
            raise NotImplementedError("GateKit verifies chains offline: it makes no OCSP request")
        at = datetime.datetime.fromtimestamp(effective_date, datetime.timezone.utc)
        return verify_chain(certificates, self._test_anchor, at)
