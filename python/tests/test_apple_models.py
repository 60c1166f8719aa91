"""The App Store Server API models behave as Apple's (gatekit._model): enumeration members and
their raw twins in step however a model is made or changed, strict JSON types, UUIDs, nested
models, required members and Apple's limits, and JSON out as Apple writes it."""
from __future__ import annotations

import uuid

import pytest

from gatekit import api_models as m
from gatekit._model import ModelError
from gatekit.apple_enums import AdvancedCommercePeriod, DeliveryStatus, Status

IMAGE = "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890"


def test_a_hand_built_model_equals_the_parsed_one():
    built = m.StatusResponse(environment=m.Environment.SANDBOX, appAppleId=5, data=[m.SubscriptionGroupIdentifierItem(
        subscriptionGroupIdentifier="g", lastTransactions=[m.LastTransactionsItem(status=Status.ACTIVE, originalTransactionId="1")])])
    parsed = m.StatusResponse.from_json({"environment": "Sandbox", "appAppleId": 5, "data": [
        {"subscriptionGroupIdentifier": "g", "lastTransactions": [{"status": 1, "originalTransactionId": "1"}]}]})
    assert built == parsed
    assert built.rawEnvironment == "Sandbox" and parsed.data[0].lastTransactions[0].rawStatus == 1
    assert isinstance(parsed.data[0].lastTransactions[0], m.LastTransactionsItem)


def test_twins_follow_each_other_when_assigned():
    item = m.LastTransactionsItem(rawStatus=2)
    assert item.status is Status.EXPIRED
    item.status = Status.REVOKED
    assert item.rawStatus == 5
    item.rawStatus = 99  # newer than this package: kept raw, the member is None
    assert item.status is None and item.rawStatus == 99
    item.status = None
    assert item.rawStatus is None
    assert m.LastTransactionsItem.from_json({"status": 42}).to_json() == {"status": 42}


def test_json_types_are_checked_and_unknown_members_ignored():
    with pytest.raises(ModelError, match="appAppleId"):
        m.HistoryResponse.from_json({"appAppleId": "hi"})
    with pytest.raises(ModelError, match="hasMore"):
        m.HistoryResponse.from_json({"hasMore": 1})
    with pytest.raises(ModelError, match="not a UUID"):
        m.GetImageListResponse.from_json({"imageIdentifiers": [{"imageIdentifier": "nope"}]})
    with pytest.raises(ModelError, match="expected a list"):
        m.HistoryResponse.from_json({"signedTransactions": "x"})
    parsed = m.GetImageListResponse.from_json({"imageIdentifiers": [{"imageIdentifier": IMAGE, "imageState": "APPROVED"}],
                                               "newerMember": {"x": 1}})
    assert parsed.imageIdentifiers[0].imageIdentifier == uuid.UUID(IMAGE)
    assert parsed.imageIdentifiers[0].imageState is m.ImageState.APPROVED


def test_required_members_and_apples_limits():
    with pytest.raises(TypeError, match="altText"):
        m.UploadMessageImage(imageIdentifier=IMAGE)
    with pytest.raises(ValueError, match="rawDeliveryStatus"):
        m.ConsumptionRequest(customerConsented=True, sampleContentProvided=False)
    request = m.ConsumptionRequest(customerConsented=True, sampleContentProvided=False, deliveryStatus=DeliveryStatus.DELIVERED)
    assert request.to_json() == {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": "DELIVERED"}
    with pytest.raises(ValueError, match="text"):
        m.BulletPoint(text="x" * 67, imageIdentifier=IMAGE, altText="a")
    point = m.BulletPoint(text="x" * 66, imageIdentifier=IMAGE, altText="a")
    assert point.imageIdentifier == uuid.UUID(IMAGE)
    with pytest.raises(ValueError, match="altText"):
        point.altText = "a" * 151
    with pytest.raises(ValueError, match="bulletPoints"):
        m.UploadMessageRequestBody(header="h", body="b", bulletPoints=[point] * 6)


def test_json_out_is_apples():
    body = m.UploadMessageRequestBody(header="h", body="b", headerPosition=m.HeaderPosition.ABOVE_IMAGE,
                                      image=m.UploadMessageImage(imageIdentifier=IMAGE, altText="alt"))
    assert body.to_json() == {"header": "h", "body": "b", "headerPosition": "ABOVE_IMAGE",
                              "image": {"imageIdentifier": IMAGE, "altText": "alt"}}
    result = m.PerformanceTestResultResponse.from_json({"result": "PASS", "failures": {"TIMED_OUT": 3, "NEWER": 1}})
    assert result.failures == {m.SendAttemptResult.TIMED_OUT: 3} and result.rawFailures == {"TIMED_OUT": 3, "NEWER": 1}
    assert result.to_json() == {"result": "PASS", "failures": {"TIMED_OUT": 3, "NEWER": 1}}


def test_enumerations_answer_membership_by_value():
    assert "P1W" in AdvancedCommercePeriod and "INVALID" not in AdvancedCommercePeriod
    assert 5 in Status and "x" not in Status
