"""Apple's Advanced Commerce API models (appstoreserverlibrary.models.AdvancedCommerce*), with
the semantics of every GateKit model (gatekit._model): the in-app requests an app signs with
``AdvancedCommerceAPIInAppSignatureCreator``, the server requests and responses, and the
Advanced Commerce members of decoded transactions and renewal infos. Apple's limits are checked
when a model is made: description at most 45 characters, display name 30, SKU 128, period
counts 1 to 12, item lists non-empty and without None.
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, List, Optional, Tuple

from ._model import Model, each_max_length, in_range, max_length, not_empty
from .apple_enums import (AdvancedCommerceEffective, AdvancedCommerceOfferPeriod, AdvancedCommerceOfferReason,
                          AdvancedCommercePeriod, AdvancedCommercePriceIncreaseInfoStatus, AdvancedCommerceReason,
                          AdvancedCommerceRefundReason, AdvancedCommerceRefundType)

__all__ = ["AdvancedCommerceAPIInAppRequest", "AdvancedCommerceRequest", "AbstractAdvancedCommerceInAppRequest", "AbstractAdvancedCommerceBaseItem", "AbstractAdvancedCommerceItem", "AbstractAdvancedCommerceResponse", "AdvancedCommerceDescriptors", "AdvancedCommerceOffer", "AdvancedCommerceRefund", "AdvancedCommercePriceIncreaseInfo", "AdvancedCommerceTransactionItem", "AdvancedCommerceTransactionInfo", "AdvancedCommerceRenewalItem", "AdvancedCommerceRenewalInfo", "AdvancedCommerceRequestInfo", "AdvancedCommerceOneTimeChargeItem", "AdvancedCommerceOneTimeChargeCreateRequest", "AdvancedCommerceSubscriptionCreateItem", "AdvancedCommerceSubscriptionCreateRequest", "AdvancedCommerceRequestRefundItem", "AdvancedCommerceRequestRefundRequest", "AdvancedCommerceRequestRefundResponse", "AdvancedCommerceSubscriptionCancelRequest", "AdvancedCommerceSubscriptionCancelResponse", "AdvancedCommerceSubscriptionChangeMetadataDescriptors", "AdvancedCommerceSubscriptionChangeMetadataItem", "AdvancedCommerceSubscriptionChangeMetadataRequest", "AdvancedCommerceSubscriptionChangeMetadataResponse", "AdvancedCommerceSubscriptionMigrateDescriptors", "AdvancedCommerceSubscriptionMigrateItem", "AdvancedCommerceSubscriptionMigrateRenewalItem", "AdvancedCommerceSubscriptionMigrateRequest", "AdvancedCommerceSubscriptionMigrateResponse", "AdvancedCommerceSubscriptionModifyAddItem", "AdvancedCommerceSubscriptionModifyChangeItem", "AdvancedCommerceSubscriptionModifyDescriptors", "AdvancedCommerceSubscriptionModifyPeriodChange", "AdvancedCommerceSubscriptionModifyRemoveItem", "AdvancedCommerceSubscriptionModifyInAppRequest", "AdvancedCommerceSubscriptionPriceChangeItem", "AdvancedCommerceSubscriptionPriceChangeRequest", "AdvancedCommerceSubscriptionPriceChangeResponse", "AdvancedCommerceSubscriptionReactivateItem", "AdvancedCommerceSubscriptionReactivateInAppRequest", "AdvancedCommerceSubscriptionRevokeRequest", "AdvancedCommerceSubscriptionRevokeResponse"]

UUID = uuid.UUID


class AdvancedCommerceAPIInAppRequest:
    """What ``AdvancedCommerceAPIInAppSignatureCreator`` signs: any model deriving from it
    (Apple's attrs classes deriving from it work too)."""


@dataclass(eq=True)
class AdvancedCommerceRequest(Model):
    """A request of the Advanced Commerce API: every one carries ``requestInfo``."""
    requestInfo: Optional[AdvancedCommerceRequestInfo] = None
    _required: ClassVar[Tuple[str, ...]] = ("requestInfo",)


@dataclass(eq=True)
class AbstractAdvancedCommerceInAppRequest(AdvancedCommerceRequest, AdvancedCommerceAPIInAppRequest):
    """An in-app request, signed by the app: its ``operation`` and ``version`` are fixed."""
    operation: str = field(default="", init=False)
    version: str = field(default="1", init=False)


@dataclass(eq=True)
class AbstractAdvancedCommerceBaseItem(Model):
    """An item named by its SKU."""
    SKU: Optional[str] = None
    _required: ClassVar[Tuple[str, ...]] = ("SKU",)
    _checks: ClassVar[Dict[str, Callable[[Any], None]]] = {"SKU": max_length(128, "SKU")}


@dataclass(eq=True)
class AbstractAdvancedCommerceItem(AbstractAdvancedCommerceBaseItem):
    """An item with its SKU, description and display name."""
    description: Optional[str] = None
    displayName: Optional[str] = None
    _required = AbstractAdvancedCommerceBaseItem._required + ("description", "displayName")
    _checks = {**AbstractAdvancedCommerceBaseItem._checks, "description": max_length(45, "description"),
               "displayName": max_length(30, "displayName")}


@dataclass(eq=True)
class AbstractAdvancedCommerceResponse(Model):
    """An Advanced Commerce API answer: the signed renewal info and transaction info."""
    signedRenewalInfo: Optional[str] = None
    signedTransactionInfo: Optional[str] = None


@dataclass(eq=True)
class AdvancedCommerceDescriptors(Model):
    description: Optional[str] = None
    displayName: Optional[str] = None
    _required = ("description", "displayName")
    _checks = {"description": max_length(45, "description"), "displayName": max_length(30, "displayName")}


@dataclass(eq=True)
class AdvancedCommerceOffer(Model):
    periodCount: Optional[int] = None
    price: Optional[int] = None
    period: Optional[AdvancedCommerceOfferPeriod] = None
    rawPeriod: Optional[str] = None
    reason: Optional[AdvancedCommerceOfferReason] = None
    rawReason: Optional[str] = None
    _enums = {"period": AdvancedCommerceOfferPeriod, "reason": AdvancedCommerceOfferReason}
    _required = ("periodCount", "price")
    _required_raw = ("rawPeriod", "rawReason")
    _checks = {"periodCount": in_range(1, 12, "periodCount")}


@dataclass(eq=True)
class AdvancedCommerceRefund(Model):
    refundAmount: Optional[int] = None
    refundDate: Optional[int] = None
    refundReason: Optional[AdvancedCommerceRefundReason] = None
    rawRefundReason: Optional[str] = None
    refundType: Optional[AdvancedCommerceRefundType] = None
    rawRefundType: Optional[str] = None
    _enums = {"refundReason": AdvancedCommerceRefundReason, "refundType": AdvancedCommerceRefundType}


@dataclass(eq=True)
class AdvancedCommercePriceIncreaseInfo(Model):
    dependentSKUs: Optional[List[str]] = None
    price: Optional[int] = None
    status: Optional[AdvancedCommercePriceIncreaseInfoStatus] = None
    rawStatus: Optional[str] = None
    _enums = {"status": AdvancedCommercePriceIncreaseInfoStatus}


@dataclass(eq=True)
class AdvancedCommerceTransactionItem(Model):
    SKU: Optional[str] = None
    description: Optional[str] = None
    displayName: Optional[str] = None
    offer: Optional[AdvancedCommerceOffer] = None
    price: Optional[int] = None
    refunds: Optional[List[AdvancedCommerceRefund]] = None
    revocationDate: Optional[int] = None


@dataclass(eq=True)
class AdvancedCommerceTransactionInfo(Model):
    descriptors: Optional[AdvancedCommerceDescriptors] = None
    estimatedTax: Optional[int] = None
    items: Optional[List[AdvancedCommerceTransactionItem]] = None
    period: Optional[AdvancedCommercePeriod] = None
    rawPeriod: Optional[str] = None
    requestReferenceId: Optional[str] = None
    taxCode: Optional[str] = None
    taxExclusivePrice: Optional[int] = None
    taxRate: Optional[str] = None
    _enums = {"period": AdvancedCommercePeriod}


@dataclass(eq=True)
class AdvancedCommerceRenewalItem(Model):
    SKU: Optional[str] = None
    description: Optional[str] = None
    displayName: Optional[str] = None
    offer: Optional[AdvancedCommerceOffer] = None
    price: Optional[int] = None
    priceIncreaseInfo: Optional[AdvancedCommercePriceIncreaseInfo] = None


@dataclass(eq=True)
class AdvancedCommerceRenewalInfo(Model):
    consistencyToken: Optional[str] = None
    descriptors: Optional[AdvancedCommerceDescriptors] = None
    items: Optional[List[AdvancedCommerceRenewalItem]] = None
    period: Optional[AdvancedCommercePeriod] = None
    rawPeriod: Optional[str] = None
    requestReferenceId: Optional[str] = None
    taxCode: Optional[str] = None
    _enums = {"period": AdvancedCommercePeriod}


@dataclass(eq=True)
class AdvancedCommerceRequestInfo(Model):
    requestReferenceId: Optional[UUID] = None
    appAccountToken: Optional[UUID] = None
    consistencyToken: Optional[str] = None
    _required = ("requestReferenceId",)


@dataclass(eq=True)
class AdvancedCommerceOneTimeChargeItem(AbstractAdvancedCommerceItem):
    price: Optional[int] = None
    _required = AbstractAdvancedCommerceItem._required + ("price",)


@dataclass(eq=True)
class AdvancedCommerceOneTimeChargeCreateRequest(AbstractAdvancedCommerceInAppRequest):
    operation: str = field(default="CREATE_ONE_TIME_CHARGE", init=False)
    currency: Optional[str] = None
    item: Optional[AdvancedCommerceOneTimeChargeItem] = None
    taxCode: Optional[str] = None
    storefront: Optional[str] = None
    _required = AbstractAdvancedCommerceInAppRequest._required + ("currency", "item", "taxCode")


@dataclass(eq=True)
class AdvancedCommerceSubscriptionCreateItem(AbstractAdvancedCommerceItem):
    price: Optional[int] = None
    offer: Optional[AdvancedCommerceOffer] = None
    _required = AbstractAdvancedCommerceItem._required + ("price",)


@dataclass(eq=True)
class AdvancedCommerceSubscriptionCreateRequest(AbstractAdvancedCommerceInAppRequest):
    operation: str = field(default="CREATE_SUBSCRIPTION", init=False)
    currency: Optional[str] = None
    descriptors: Optional[AdvancedCommerceDescriptors] = None
    items: Optional[List[AdvancedCommerceSubscriptionCreateItem]] = None
    taxCode: Optional[str] = None
    period: Optional[AdvancedCommercePeriod] = None
    rawPeriod: Optional[str] = None
    previousTransactionId: Optional[str] = None
    storefront: Optional[str] = None
    _enums = {"period": AdvancedCommercePeriod}
    _required = AbstractAdvancedCommerceInAppRequest._required + ("currency", "descriptors", "items", "taxCode")
    _required_raw = ("rawPeriod",)


@dataclass(eq=True)
class AdvancedCommerceRequestRefundItem(AbstractAdvancedCommerceBaseItem):
    revoke: Optional[bool] = None
    refundReason: Optional[AdvancedCommerceRefundReason] = None
    rawRefundReason: Optional[str] = None
    refundType: Optional[AdvancedCommerceRefundType] = None
    rawRefundType: Optional[str] = None
    refundAmount: Optional[int] = None
    _enums = {"refundReason": AdvancedCommerceRefundReason, "refundType": AdvancedCommerceRefundType}
    _required = AbstractAdvancedCommerceBaseItem._required + ("revoke",)
    _required_raw = ("rawRefundReason", "rawRefundType")


@dataclass(eq=True)
class AdvancedCommerceRequestRefundRequest(AdvancedCommerceRequest):
    items: Optional[List[AdvancedCommerceRequestRefundItem]] = None
    refundRiskingPreference: Optional[bool] = None
    currency: Optional[str] = None
    storefront: Optional[str] = None
    _required = AdvancedCommerceRequest._required + ("items", "refundRiskingPreference")
    _checks = {"items": not_empty("items")}


@dataclass(eq=True)
class AdvancedCommerceRequestRefundResponse(AbstractAdvancedCommerceResponse):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionCancelRequest(AdvancedCommerceRequest):
    storefront: Optional[str] = None


@dataclass(eq=True)
class AdvancedCommerceSubscriptionCancelResponse(AbstractAdvancedCommerceResponse):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionChangeMetadataDescriptors(Model):
    effective: Optional[AdvancedCommerceEffective] = None
    rawEffective: Optional[str] = None
    description: Optional[str] = None
    displayName: Optional[str] = None
    _enums = {"effective": AdvancedCommerceEffective}
    _required_raw = ("rawEffective",)
    _checks = {"description": max_length(45, "description"), "displayName": max_length(30, "displayName")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionChangeMetadataItem(Model):
    currentSKU: Optional[str] = None
    effective: Optional[AdvancedCommerceEffective] = None
    rawEffective: Optional[str] = None
    description: Optional[str] = None
    displayName: Optional[str] = None
    SKU: Optional[str] = None
    _enums = {"effective": AdvancedCommerceEffective}
    _required = ("currentSKU",)
    _required_raw = ("rawEffective",)
    _checks = {"currentSKU": max_length(128, "currentSKU"), "description": max_length(45, "description"), "displayName": max_length(30, "displayName"), "SKU": max_length(128, "SKU")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionChangeMetadataRequest(AdvancedCommerceRequest):
    descriptors: Optional[AdvancedCommerceSubscriptionChangeMetadataDescriptors] = None
    items: Optional[List[AdvancedCommerceSubscriptionChangeMetadataItem]] = None
    storefront: Optional[str] = None
    taxCode: Optional[str] = None
    _checks = {"items": not_empty("items")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionChangeMetadataResponse(AbstractAdvancedCommerceResponse):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionMigrateDescriptors(AdvancedCommerceDescriptors):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionMigrateItem(AbstractAdvancedCommerceItem):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionMigrateRenewalItem(AbstractAdvancedCommerceItem):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionMigrateRequest(AdvancedCommerceRequest):
    descriptors: Optional[AdvancedCommerceSubscriptionMigrateDescriptors] = None
    items: Optional[List[AdvancedCommerceSubscriptionMigrateItem]] = None
    targetProductId: Optional[str] = None
    taxCode: Optional[str] = None
    renewalItems: Optional[List[AdvancedCommerceSubscriptionMigrateRenewalItem]] = None
    storefront: Optional[str] = None
    _required = AdvancedCommerceRequest._required + ("descriptors", "items", "targetProductId", "taxCode")
    _checks = {"items": not_empty("items"), "renewalItems": not_empty("renewalItems")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionMigrateResponse(AbstractAdvancedCommerceResponse):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionModifyAddItem(AbstractAdvancedCommerceItem):
    price: Optional[int] = None
    offer: Optional[AdvancedCommerceOffer] = None
    proratedPrice: Optional[int] = None
    _required = AbstractAdvancedCommerceItem._required + ("price",)


@dataclass(eq=True)
class AdvancedCommerceSubscriptionModifyChangeItem(AbstractAdvancedCommerceItem):
    currentSKU: Optional[str] = None
    price: Optional[int] = None
    reason: Optional[AdvancedCommerceReason] = None
    rawReason: Optional[str] = None
    effective: Optional[AdvancedCommerceEffective] = None
    rawEffective: Optional[str] = None
    offer: Optional[AdvancedCommerceOffer] = None
    proratedPrice: Optional[int] = None
    _enums = {"reason": AdvancedCommerceReason, "effective": AdvancedCommerceEffective}
    _required = AbstractAdvancedCommerceItem._required + ("currentSKU", "price")
    _required_raw = ("rawReason", "rawEffective")
    _checks = {**AbstractAdvancedCommerceItem._checks, "currentSKU": max_length(128, "currentSKU")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionModifyDescriptors(Model):
    effective: Optional[AdvancedCommerceEffective] = None
    rawEffective: Optional[str] = None
    description: Optional[str] = None
    displayName: Optional[str] = None
    _enums = {"effective": AdvancedCommerceEffective}
    _required_raw = ("rawEffective",)
    _checks = {"description": max_length(45, "description"), "displayName": max_length(30, "displayName")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionModifyPeriodChange(Model):
    effective: Optional[AdvancedCommerceEffective] = None
    rawEffective: Optional[str] = None
    period: Optional[AdvancedCommercePeriod] = None
    rawPeriod: Optional[str] = None
    _enums = {"effective": AdvancedCommerceEffective, "period": AdvancedCommercePeriod}
    _required_raw = ("rawEffective", "rawPeriod")


@dataclass(eq=True)
class AdvancedCommerceSubscriptionModifyRemoveItem(AbstractAdvancedCommerceBaseItem):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionModifyInAppRequest(AbstractAdvancedCommerceInAppRequest):
    operation: str = field(default="MODIFY_SUBSCRIPTION", init=False)
    transactionId: Optional[str] = None
    retainBillingCycle: Optional[bool] = None
    addItems: Optional[List[AdvancedCommerceSubscriptionModifyAddItem]] = None
    changeItems: Optional[List[AdvancedCommerceSubscriptionModifyChangeItem]] = None
    currency: Optional[str] = None
    descriptors: Optional[AdvancedCommerceSubscriptionModifyDescriptors] = None
    periodChange: Optional[AdvancedCommerceSubscriptionModifyPeriodChange] = None
    removeItems: Optional[List[AdvancedCommerceSubscriptionModifyRemoveItem]] = None
    storefront: Optional[str] = None
    taxCode: Optional[str] = None
    _required = AbstractAdvancedCommerceInAppRequest._required + ("transactionId", "retainBillingCycle")
    _checks = {"addItems": not_empty("addItems"), "changeItems": not_empty("changeItems")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionPriceChangeItem(AbstractAdvancedCommerceBaseItem):
    price: Optional[int] = None
    dependentSKUs: Optional[List[str]] = None
    _required = AbstractAdvancedCommerceBaseItem._required + ("price",)
    _checks = {**AbstractAdvancedCommerceBaseItem._checks, "dependentSKUs": each_max_length(128, "dependentSKUs")}


@dataclass(eq=True)
class AdvancedCommerceSubscriptionPriceChangeRequest(AdvancedCommerceRequest):
    items: Optional[List[AdvancedCommerceSubscriptionPriceChangeItem]] = None
    currency: Optional[str] = None
    storefront: Optional[str] = None
    _required = AdvancedCommerceRequest._required + ("items",)


@dataclass(eq=True)
class AdvancedCommerceSubscriptionPriceChangeResponse(AbstractAdvancedCommerceResponse):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionReactivateItem(AbstractAdvancedCommerceBaseItem):
    pass


@dataclass(eq=True)
class AdvancedCommerceSubscriptionReactivateInAppRequest(AbstractAdvancedCommerceInAppRequest):
    operation: str = field(default="REACTIVATE_SUBSCRIPTION", init=False)
    transactionId: Optional[str] = None
    items: Optional[List[AdvancedCommerceSubscriptionReactivateItem]] = None
    storefront: Optional[str] = None
    _required = AbstractAdvancedCommerceInAppRequest._required + ("transactionId",)


@dataclass(eq=True)
class AdvancedCommerceSubscriptionRevokeRequest(AdvancedCommerceRequest):
    refundRiskingPreference: Optional[bool] = None
    refundType: Optional[AdvancedCommerceRefundType] = None
    rawRefundType: Optional[str] = None
    refundReason: Optional[AdvancedCommerceRefundReason] = None
    rawRefundReason: Optional[str] = None
    storefront: Optional[str] = None
    _enums = {"refundType": AdvancedCommerceRefundType, "refundReason": AdvancedCommerceRefundReason}
    _required = AdvancedCommerceRequest._required + ("refundRiskingPreference",)
    _required_raw = ("rawRefundType", "rawRefundReason")


@dataclass(eq=True)
class AdvancedCommerceSubscriptionRevokeResponse(AbstractAdvancedCommerceResponse):
    pass
