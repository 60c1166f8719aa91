"""Apple's Retention Messaging models (appstoreserverlibrary.models.RealtimeResponseBody and
its members): the answer a server gives to a realtime request, with the semantics of every
GateKit model (gatekit._model).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Optional

from ._model import Model
from .apple_enums import BillingPlanType

__all__ = ["Message", "AlternateProduct", "PromotionalOfferSignatureV1", "PromotionalOffer", "AdvancedCommerceInfo", "RealtimeResponseBody"]

UUID = uuid.UUID


@dataclass(eq=True)
class Message(Model):
    messageIdentifier: Optional[UUID] = None


@dataclass(eq=True)
class AlternateProduct(Model):
    messageIdentifier: Optional[UUID] = None
    productId: Optional[str] = None
    billingPlanType: Optional[BillingPlanType] = None
    rawBillingPlanType: Optional[str] = None
    _enums = {"billingPlanType": BillingPlanType}


@dataclass(eq=True)
class PromotionalOfferSignatureV1(Model):
    encodedSignature: Optional[str] = None
    productId: Optional[str] = None
    nonce: Optional[UUID] = None
    timestamp: Optional[int] = None
    keyId: Optional[str] = None
    offerIdentifier: Optional[str] = None
    appAccountToken: Optional[UUID] = None
    _required = ("encodedSignature", "productId", "nonce", "timestamp", "keyId", "offerIdentifier")


@dataclass(eq=True)
class PromotionalOffer(Model):
    messageIdentifier: Optional[UUID] = None
    promotionalOfferSignatureV2: Optional[str] = None
    promotionalOfferSignatureV1: Optional[PromotionalOfferSignatureV1] = None


@dataclass(eq=True)
class AdvancedCommerceInfo(Model):
    messageIdentifier: Optional[UUID] = None
    advancedCommerceData: Optional[str] = None


@dataclass(eq=True)
class RealtimeResponseBody(Model):
    message: Optional[Message] = None
    alternateProduct: Optional[AlternateProduct] = None
    promotionalOffer: Optional[PromotionalOffer] = None
    advancedCommerceInfo: Optional[AdvancedCommerceInfo] = None
