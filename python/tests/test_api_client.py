"""The App Store Server API client from Python, against the local HTTPS stand-in that `make test`
starts (scripts/with-appstore-standin.sh): every method of Apple's AppStoreServerAPIClient makes
the same request as Apple's own client (both run against the stand-in, which checks each
bearer token, method, path, query and body) and reads the same answer into the same model
values; signed members are verified; Apple's errors, 429 and retries; raw mode; threads."""
from __future__ import annotations

import concurrent.futures
import datetime
import json
import os
import subprocess
import uuid
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Tuple

import pytest

from gatekit import api_client as gk
from gatekit import api_models
from gatekit.appstore import _plain
from conftest import EXAMPLE_PYTHON, example, example_env
from gatekit.jws import EJWS_BUNDLE_ID, IdentityError, SignatureError, SignedDataVerifier


def standin_settings() -> SimpleNamespace:
    url = os.environ.get("GATEKIT_TEST_APPSTORE_URL")
    if not url:
        if os.environ.get("GATEKIT_REQUIRE_APPSTORE") == "1":
            pytest.fail("GATEKIT_REQUIRE_APPSTORE=1 but no stand-in: run the suite through scripts/with-appstore-standin.sh")
        pytest.skip("no App Store Server API stand-in (GATEKIT_TEST_APPSTORE_URL unset): run `make test`, which starts one")
    e = os.environ
    return SimpleNamespace(url=url, ca=e["GATEKIT_TEST_APPSTORE_CA"], key=Path(e["GATEKIT_TEST_APPSTORE_KEY"]).read_bytes(),
                           key_id=e["GATEKIT_TEST_APPSTORE_KEY_ID"], issuer=e["GATEKIT_TEST_APPSTORE_ISSUER"],
                           bundle=e["GATEKIT_TEST_APPSTORE_BUNDLE_ID"], anchor=Path(e["GATEKIT_TEST_APPSTORE_ANCHOR"]).read_bytes(),
                           log=Path(e["GATEKIT_TEST_APPSTORE_LOG"]))


@pytest.fixture(scope="module")
def api() -> SimpleNamespace:
    return standin_settings()


@pytest.fixture(scope="module")
def verifier(api) -> SignedDataVerifier:
    return SignedDataVerifier(api.bundle, "Sandbox", test_anchor=api.anchor)


def make_client(api: SimpleNamespace, verifier: Any = None, **options: Any) -> gk.AppStoreServerAPIClient:
    options.setdefault("max_retries", 0)
    options.setdefault("base_url", api.url)
    options.setdefault("ca_file", api.ca)
    return gk.AppStoreServerAPIClient(api.key, api.key_id, api.issuer, api.bundle, gk.Environment.SANDBOX,
                                      verifier=verifier, **options)


@pytest.fixture(scope="module")
def client(api, verifier):
    with make_client(api, verifier) as c:
        yield c


@pytest.fixture
def apple(api, monkeypatch):
    """Apple's own client, pointed at the stand-in and trusting its CA."""
    from appstoreserverlibrary.api_client import AppStoreServerAPIClient
    from appstoreserverlibrary.models.Environment import Environment
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", api.ca)
    c = AppStoreServerAPIClient(api.key, api.key_id, api.issuer, api.bundle, Environment.SANDBOX)
    c._base_url = api.url
    return c


def requests_seen(api: SimpleNamespace) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in api.log.read_text().splitlines()]


def last_request(api: SimpleNamespace) -> Dict[str, Any]:
    return requests_seen(api)[-1]


def comparable(entry: Dict[str, Any]) -> Tuple[Any, ...]:
    """What a request asked for, as the stand-in saw it (not who signed it or when)."""
    body = entry.get("body")
    parsed = json.loads(body) if body else None
    return (entry["method"], entry["path"], sorted(map(tuple, entry["query"])), entry["contentType"], parsed,
            entry.get("bodyBase64"), entry["accept"])


def unsigned(value: Any) -> Any:
    """A model's values without its signed members (the stand-in signs anew for each answer)."""
    if isinstance(value, dict):
        return {k: unsigned(v) for k, v in value.items() if not k.startswith("signed") and k != "decoded"}
    if isinstance(value, list):
        return [unsigned(v) for v in value]
    return value


def apple_models() -> SimpleNamespace:
    import appstoreserverlibrary.models as m
    from importlib import import_module
    names = ["TransactionHistoryRequest", "NotificationHistoryRequest", "ExtendRenewalDateRequest", "MassExtendRenewalDateRequest",
             "ConsumptionRequest", "ConsumptionRequestV1", "UpdateAppAccountTokenRequest", "UploadMessageRequestBody",
             "DefaultConfigurationRequest", "RealtimeUrlRequest", "PerformanceTestRequest", "Status", "ImageSize",
             "InAppOwnershipType", "DeliveryStatus", "ExtendReasonCode", "NotificationTypeV2", "Platform", "ConsumptionStatus",
             "DeliveryStatusV1"]
    ns = SimpleNamespace(**{n: getattr(import_module(f"{m.__name__}.{n}"), n) for n in names})
    ns.ProductType = import_module(f"{m.__name__}.TransactionHistoryRequest").ProductType
    ns.Order = import_module(f"{m.__name__}.TransactionHistoryRequest").Order
    return ns


IMAGE_ID = uuid.UUID("a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def every_call(a: SimpleNamespace, history_version: Any) -> List[Tuple[str, Callable[[Any], Any]]]:
    """Each of Apple's methods with arguments made of Apple's own request models."""
    history = a.TransactionHistoryRequest(startDate=1698148800000, endDate=1698148950000, productIds=["com.example.1", "com.example.2"],
                                          productTypes=[a.ProductType.AUTO_RENEWABLE, a.ProductType.CONSUMABLE], sort=a.Order.DESCENDING,
                                          subscriptionGroupIdentifiers=["sub_group_id"], inAppOwnershipType=a.InAppOwnershipType.PURCHASED)
    return [
        ("get_transaction_info", lambda c: c.get_transaction_info("1234")),
        ("get_transaction_history", lambda c: c.get_transaction_history("1234", "revision_input", history, history_version)),
        ("get_all_subscription_statuses", lambda c: c.get_all_subscription_statuses("4321", [a.Status.ACTIVE, a.Status.EXPIRED])),
        ("get_refund_history", lambda c: c.get_refund_history("555", "revision_input")),
        ("look_up_order_id", lambda c: c.look_up_order_id("W002182")),
        ("get_app_transaction_info", lambda c: c.get_app_transaction_info("1234")),
        ("finish_transaction", lambda c: c.finish_transaction("1234")),
        ("send_consumption_information", lambda c: c.send_consumption_information("49571273", a.ConsumptionRequest(
            customerConsented=True, sampleContentProvided=False, deliveryStatus=a.DeliveryStatus.DELIVERED, consumptionPercentage=50000))),
        ("send_consumption_data", lambda c: c.send_consumption_data("49571273", a.ConsumptionRequestV1(
            customerConsented=True, consumptionStatus=a.ConsumptionStatus.NOT_CONSUMED, platform=a.Platform.NON_APPLE,
            sampleContentProvided=False, deliveryStatus=a.DeliveryStatusV1.DELIVERED_AND_WORKING_PROPERLY))),
        ("set_app_account_token", lambda c: c.set_app_account_token("49571273", a.UpdateAppAccountTokenRequest(
            appAccountToken="7389a31a-fb6d-4569-a2a6-db7d85d84813"))),
        ("extend_subscription_renewal_date", lambda c: c.extend_subscription_renewal_date("4124214", a.ExtendRenewalDateRequest(
            extendByDays=45, extendReasonCode=a.ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier="fdf964a4-233b-486c-aac1-97d8d52688ac"))),
        ("extend_renewal_date_for_all_active_subscribers", lambda c: c.extend_renewal_date_for_all_active_subscribers(
            a.MassExtendRenewalDateRequest(extendByDays=45, extendReasonCode=a.ExtendReasonCode.CUSTOMER_SATISFACTION,
                                           requestIdentifier="fdf964a4-233b-486c-aac1-97d8d52688ac", storefrontCountryCodes=["USA", "MEX"],
                                           productId="com.example.productId"))),
        ("get_status_of_subscription_renewal_date_extensions", lambda c: c.get_status_of_subscription_renewal_date_extensions(
            "20fba8a0-2b80-4a7d-a17f-85c1854727f8", "com.example.product")),
        ("get_notification_history", lambda c: c.get_notification_history("a036bc0e-52b8-4bee-82fc-8c24cb6715d6", a.NotificationHistoryRequest(
            startDate=1698148900000, endDate=1698148950000, notificationType=a.NotificationTypeV2.SUBSCRIBED, transactionId="999733843",
            onlyFailures=True))),
        ("request_test_notification", lambda c: c.request_test_notification()),
        ("get_test_notification_status", lambda c: c.get_test_notification_status("8cd2974c-f905-492a-bf9a-b2f47c791d19_1698148900000")),
        ("upload_image", lambda c: c.upload_image(IMAGE_ID, PNG, a.ImageSize.FULL_SIZE)),
        ("delete_image", lambda c: c.delete_image(IMAGE_ID)),
        ("get_image_list", lambda c: c.get_image_list()),
        ("upload_message", lambda c: c.upload_message(IMAGE_ID, a.UploadMessageRequestBody(header="Header text", body="Body text"))),
        ("delete_message", lambda c: c.delete_message(IMAGE_ID)),
        ("get_message_list", lambda c: c.get_message_list()),
        ("configure_default_message", lambda c: c.configure_default_message("com.example.product", "en-US",
                                                                            a.DefaultConfigurationRequest(messageIdentifier=IMAGE_ID))),
        ("delete_default_message", lambda c: c.delete_default_message("com.example.product", "en-US")),
        ("get_default_message", lambda c: c.get_default_message("com.example.product", "en-US")),
        ("configure_realtime_url", lambda c: c.configure_realtime_url(a.RealtimeUrlRequest(realtimeURL="https://example.com/realtime"))),
        ("delete_realtime_url", lambda c: c.delete_realtime_url()),
        ("get_realtime_url", lambda c: c.get_realtime_url()),
        ("initiate_performance_test", lambda c: c.initiate_performance_test(a.PerformanceTestRequest(originalTransactionId="1234"))),
        ("get_performance_test_results", lambda c: c.get_performance_test_results("c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d")),
    ]


def test_every_method_makes_apples_request_and_reads_apples_answer(api, client, apple):
    from appstoreserverlibrary.api_client import GetTransactionHistoryVersion
    a = apple_models()
    calls = every_call(a, GetTransactionHistoryVersion.V2)
    apple_methods = {n for n in dir(type(apple)) if not n.startswith("_")}
    assert {name for name, _ in calls} == apple_methods, "every public method of Apple's client is called here"
    for name, call in calls:
        ours = call(client)
        mine = last_request(api)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # send_consumption_data is deprecated by Apple
            theirs = call(apple)
        apples = last_request(api)
        assert mine["problem"] is None, (name, mine)
        assert apples["problem"] is None, (name, apples)
        assert comparable(mine) == comparable(apples), name
        assert set(mine["claims"]) >= set(apples["claims"]), name  # Apple's claims, and iat as Apple's docs ask
        assert (ours is None) == (theirs is None), name
        if ours is not None:
            assert type(ours).__name__ == type(theirs).__name__, name
            assert unsigned(_plain(ours)) == unsigned(_plain(theirs)), name


def test_history_v1_and_a_request_without_filters(api, client):
    r = client.get_transaction_history("1234", None, api_models.TransactionHistoryRequest())
    seen = last_request(api)
    assert seen["path"] == "/inApps/v1/history/1234" and seen["query"] == [] and seen["problem"] is None
    assert r.hasMore is True and r.environment == gk.Environment.LOCAL_TESTING and r.rawEnvironment == "LocalTesting"
    client.get_transaction_history("1234", "rev", {"revoked": False, "productTypes": [api_models.ProductType.NON_CONSUMABLE]},
                                   gk.GetTransactionHistoryVersion.V2)
    assert last_request(api)["query"] == [["revision", "rev"], ["revoked", "false"], ["productType", "NON_CONSUMABLE"]]


def test_signed_members_are_verified_and_decoded(api, client):
    r = client.get_transaction_info("1234")
    assert r.signedTransactionInfo and r.signedTransactionInfo.count(".") == 2
    assert r.decoded is not None
    decoded = r.decoded["signedTransactionInfo"]
    assert decoded["transactionId"] == "23456" and decoded["bundleId"] == api.bundle
    assert decoded["gatekit"]["testSigned"] is True
    status = client.get_all_subscription_statuses("4321")
    assert status.data and status.data[0].lastTransactions and status.data[0].lastTransactions[0].status == gk.Status.ACTIVE
    assert status.decoded is not None
    last = status.decoded["data"][0]["lastTransactions"][0]
    assert last["signedRenewalInfo"]["autoRenewProductId"] and last["signedTransactionInfo"]["transactionId"]
    history = client.get_notification_history(None, {"startDate": 1, "endDate": 2})
    assert history.decoded is not None
    assert history.decoded["notificationHistory"][0]["signedPayload"]["notificationType"] == "SUBSCRIBED"
    assert history.notificationHistory and history.notificationHistory[0].sendAttempts
    attempt = history.notificationHistory[0].sendAttempts[0]
    assert attempt.sendAttemptResult == api_models.SendAttemptResult.NO_RESPONSE and attempt.rawSendAttemptResult == "NO_RESPONSE"


def test_tampered_or_foreign_signed_data_is_never_returned(client):
    with pytest.raises(SignatureError) as tampered:
        client.get_transaction_info("tampered")
    assert "signedTransactionInfo" in str(tampered.value)
    with pytest.raises(IdentityError) as foreign:
        client.look_up_order_id("wrongbundle")
    assert foreign.value.code == EJWS_BUNDLE_ID and "signedTransactions[0]" in str(foreign.value)


def test_raw_mode_returns_signed_members_undecoded(api):
    with make_client(api) as raw:
        r = raw.get_transaction_info("tampered")
    assert r.signedTransactionInfo and r.decoded is None


def test_apples_errors_are_apples_exceptions(api, client, apple):
    from appstoreserverlibrary.api_client import APIException as ApplesException
    for steer in ("error-4040010", "error-4000006", "error-5000000", "error-text", "error-4040019"):
        with pytest.raises(gk.APIException) as ours:
            client.get_transaction_info(steer)
        with pytest.raises(ApplesException) as theirs:
            apple.get_transaction_info(steer)
        o, t = ours.value, theirs.value
        assert (o.http_status_code, o.raw_api_error, o.error_message) == (t.http_status_code, t.raw_api_error, t.error_message)
        assert (o.api_error is None and t.api_error is None) or o.api_error.value == t.api_error.value
        assert o.retryable is False and o.code == gk.EAPPSTORE_API
    with pytest.raises(gk.APIException) as not_found:
        client.get_transaction_info("error-4040010")
    assert not_found.value.api_error == gk.APIError.TRANSACTION_ID_NOT_FOUND and "HTTP 404" in str(not_found.value)


def test_rate_limits_and_retryable_errors(api):
    with make_client(api, max_retries=0) as once:
        with pytest.raises(gk.APIException) as limited:
            once.get_transaction_info("ratelimit-1-py-a")
    e = limited.value
    assert e.http_status_code == 429 and e.api_error == gk.APIError.RATE_LIMIT_EXCEEDED
    assert e.retryable and e.retry_after == datetime.timedelta(seconds=1)
    with make_client(api, max_retries=2) as patient:
        assert patient.get_transaction_info("ratelimit-1-py-b").signedTransactionInfo
        assert [r["path"] for r in requests_seen(api)[-2:]] == ["/inApps/v1/transactions/ratelimit-1-py-b"] * 2
        assert patient.get_transaction_info("retryable-2-py-c").signedTransactionInfo
        with pytest.raises(gk.APIException) as exhausted:
            patient.get_transaction_info("retryable-3-py-d")
        assert exhausted.value.api_error == gk.APIError.GENERAL_INTERNAL_RETRYABLE and exhausted.value.retryable
    with make_client(api, max_retries=2, max_retry_wait=datetime.timedelta(milliseconds=500)) as hurried:
        with pytest.raises(gk.APIException) as too_long:  # Retry-After: 1 is longer than it may wait
            hurried.get_transaction_info("ratelimit-1-py-e")
        assert too_long.value.http_status_code == 429


def test_answers_that_are_not_apples(api, client):
    with pytest.raises(gk.APIResponseError):
        client.get_transaction_info("garbage")
    with pytest.raises(gk.APIResponseError):
        client.get_transaction_info("huge")
    with make_client(api, timeout=datetime.timedelta(milliseconds=400)) as impatient:
        with pytest.raises(gk.APITransportError, match="timed out"):
            impatient.get_transaction_info("slow")


def test_an_untrusted_server_is_refused(api):
    with gk.AppStoreServerAPIClient(api.key, api.key_id, api.issuer, api.bundle, "Sandbox", base_url=api.url, max_retries=0) as c:
        with pytest.raises(gk.APITransportError, match="certificate"):
            c.get_transaction_info("1")
    assert isinstance(gk.APITransportError(-403, "x"), ConnectionError)


def test_arguments_that_cannot_be_sent(api, client):
    with pytest.raises(ValueError, match="Xcode"):
        gk.AppStoreServerAPIClient(api.key, api.key_id, api.issuer, api.bundle, gk.Environment.XCODE)
    with pytest.raises(ValueError):
        gk.AppStoreServerAPIClient(api.key, api.key_id, api.issuer, api.bundle, "Sandbox", base_url="http://127.0.0.1:1")
    with pytest.raises(ValueError):
        client.upload_image("not-a-uuid", PNG)
    with pytest.raises(ValueError):
        client.get_transaction_info("")
    with pytest.raises(ValueError):
        client.get_transaction_history("1", None, {"unknownMember": 1}, gk.GetTransactionHistoryVersion.V2)
    client.get_transaction_info("../lookup/x?y=1")
    assert last_request(api)["path"] == "/inApps/v1/transactions/..%2Flookup%2Fx%3Fy%3D1"


def test_one_client_shared_by_threads(api, client):
    def call(i: int) -> str:
        r = client.get_transaction_info(f"thread-{i}")
        assert r.decoded is not None
        return str(r.decoded["signedTransactionInfo"]["transactionId"])
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert set(pool.map(call, range(40))) == {"23456"}


TOOL = os.environ.get("GATEKIT_TOOL", str(Path(__file__).resolve().parents[2] / ".build" / "c" / "gatekit"))


def run_tool(api: SimpleNamespace, tmp_path: Path, *args: str, raw: bool = False) -> "subprocess.CompletedProcess[str]":
    key = tmp_path / "key.p8"
    if not key.exists():
        key.write_bytes(api.key)
    anchor = tmp_path / "root.der"
    if not anchor.exists():
        anchor.write_bytes(api.anchor)
    common = ["--key", str(key), "--key-id", api.key_id, "--issuer-id", api.issuer, "--bundle-id", api.bundle,
              "--environment", "Sandbox", "--base-url", api.url, "--ca-file", api.ca, "--retries", "0"]
    common += ["--raw"] if raw else ["--test-anchor", str(anchor)]
    return subprocess.run([TOOL, "api", *args, *common], capture_output=True, text=True, timeout=60)


def test_the_tool_calls_every_endpoint(api, tmp_path):
    request = tmp_path / "request.json"
    image = tmp_path / "image.png"
    image.write_bytes(PNG)
    uid = str(IMAGE_ID)
    bodies = {
        "send-consumption-information": {"customerConsented": True, "sampleContentProvided": False, "deliveryStatus": "DELIVERED"},
        "send-consumption-data": {"customerConsented": True, "consumptionStatus": 1, "platform": 1, "sampleContentProvided": False,
                                  "deliveryStatus": 0},
        "set-app-account-token": {"appAccountToken": "7389a31a-fb6d-4569-a2a6-db7d85d84813"},
        "extend-subscription-renewal-date": {"extendByDays": 45, "extendReasonCode": 1, "requestIdentifier": "r"},
        "extend-renewal-date-for-all-active-subscribers": {"extendByDays": 45, "extendReasonCode": 1, "requestIdentifier": "r",
                                                           "productId": "p"},
        "get-notification-history": {"startDate": 1, "endDate": 2},
        "upload-message": {"header": "h", "body": "b"},
        "configure-default-message": {"messageIdentifier": uid},
        "configure-realtime-url": {"realtimeURL": "https://example.com/r"},
        "initiate-performance-test": {"originalTransactionId": "1"},
        "get-transaction-history": {"startDate": 1698148800000, "productTypes": ["AUTO_RENEWABLE"]},
    }
    calls = [
        (["get-transaction-info", "11"], "GET", "/inApps/v1/transactions/11"),
        (["get-transaction-history", "11", "--revision", "r1"], "GET", "/inApps/v2/history/11"),
        (["get-all-subscription-statuses", "11", "--status", "1", "--status", "4"], "GET", "/inApps/v1/subscriptions/11"),
        (["get-refund-history", "11"], "GET", "/inApps/v2/refund/lookup/11"),
        (["look-up-order-id", "W1"], "GET", "/inApps/v1/lookup/W1"),
        (["get-app-transaction-info", "11"], "GET", "/inApps/v1/transactions/appTransactions/11"),
        (["finish-transaction", "11"], "POST", "/inApps/v1/transactions/11/finish"),
        (["send-consumption-information", "11"], "PUT", "/inApps/v2/transactions/consumption/11"),
        (["send-consumption-data", "11"], "PUT", "/inApps/v1/transactions/consumption/11"),
        (["set-app-account-token", "11"], "PUT", "/inApps/v1/transactions/11/appAccountToken"),
        (["extend-subscription-renewal-date", "11"], "PUT", "/inApps/v1/subscriptions/extend/11"),
        (["extend-renewal-date-for-all-active-subscribers"], "POST", "/inApps/v1/subscriptions/extend/mass"),
        (["get-status-of-subscription-renewal-date-extensions", "r", "p"], "GET", "/inApps/v1/subscriptions/extend/mass/p/r"),
        (["get-notification-history", "--pagination-token", "t"], "POST", "/inApps/v1/notifications/history"),
        (["request-test-notification"], "POST", "/inApps/v1/notifications/test"),
        (["get-test-notification-status", "tok"], "GET", "/inApps/v1/notifications/test/tok"),
        (["upload-image", uid, "--image", str(image), "--image-size", "BULLET_POINT"], "PUT", f"/inApps/v1/messaging/image/{uid}"),
        (["delete-image", uid], "DELETE", f"/inApps/v1/messaging/image/{uid}"),
        (["get-image-list"], "GET", "/inApps/v1/messaging/image/list"),
        (["upload-message", uid], "PUT", f"/inApps/v1/messaging/message/{uid}"),
        (["delete-message", uid], "DELETE", f"/inApps/v1/messaging/message/{uid}"),
        (["get-message-list"], "GET", "/inApps/v1/messaging/message/list"),
        (["configure-default-message", "p", "en-US"], "PUT", "/inApps/v1/messaging/default/p/en-US"),
        (["delete-default-message", "p", "en-US"], "DELETE", "/inApps/v1/messaging/default/p/en-US"),
        (["get-default-message", "p", "en-US"], "GET", "/inApps/v1/messaging/default/p/en-US"),
        (["configure-realtime-url"], "PUT", "/inApps/v1/messaging/realtime/url"),
        (["delete-realtime-url"], "DELETE", "/inApps/v1/messaging/realtime/url"),
        (["get-realtime-url"], "GET", "/inApps/v1/messaging/realtime/url"),
        (["initiate-performance-test"], "POST", "/inApps/v1/messaging/performanceTest"),
        (["get-performance-test-results", "q"], "GET", "/inApps/v1/messaging/performanceTest/result/q"),
    ]
    assert len(calls) == len(every_call(apple_models(), None)), "one tool call per method of Apple's client"
    for args, method, path in calls:
        extra: List[str] = []
        if args[0] in bodies:
            request.write_text(json.dumps(bodies[args[0]]))
            extra = ["--request", str(request)]
        done = run_tool(api, tmp_path, *args, *extra)
        assert done.returncode == 0, (args, done.stderr)
        seen = last_request(api)
        assert (seen["method"], seen["path"], seen["problem"]) == (method, path, None), args
        if done.stdout.strip():
            json.loads(done.stdout)
    # Verified and decoded by default; Apple's body as sent with --raw.
    decoded = json.loads(run_tool(api, tmp_path, "get-transaction-info", "12").stdout)
    assert decoded["signedTransactionInfo"]["transactionId"] == "23456" and decoded["signedTransactionInfo"]["gatekit"]["testSigned"]
    raw = json.loads(run_tool(api, tmp_path, "get-transaction-info", "12", raw=True).stdout)
    assert raw["signedTransactionInfo"].startswith("ey")


def test_the_tool_reports_apples_errors_and_usage(api, tmp_path):
    failed = run_tool(api, tmp_path, "get-transaction-info", "error-4040010")
    assert failed.returncode == 1 and "Apple error 4040010" in failed.stderr
    assert json.loads(failed.stdout)["errorCode"] == 4040010
    tampered = run_tool(api, tmp_path, "get-transaction-info", "tampered")
    assert tampered.returncode == 11 and "signedTransactionInfo" in tampered.stderr  # refused: not authentic
    assert json.loads(tampered.stdout)["code"] == -307  # GATEKIT_EJWS_SIGNATURE, the tool's refusal JSON
    assert run_tool(api, tmp_path, "get-transaction-info").returncode == 2  # no id
    assert run_tool(api, tmp_path, "no-such-endpoint").returncode == 2
    assert run_tool(api, tmp_path, "get-all-subscription-statuses", "1", "--status", "9").returncode == 2
    help_text = subprocess.run([TOOL, "api", "--help"], capture_output=True, text=True)
    assert help_text.returncode == 0 and "get-performance-test-results" in help_text.stdout


def test_apples_names_and_constructors_from_one_module(api):
    """`from gatekit.apple import …` stands in for Apple's imports: the verifier takes Apple's
    constructor (roots, online checks, environment, bundle id, app Apple id)."""
    from gatekit import apple
    from appstoreserverlibrary.models.Environment import Environment as ApplesEnvironment
    certs = Path(os.environ.get("GATEKIT_FIXTURES", Path(__file__).resolve().parents[3] / "shared" / "fixtures")) / "certs"
    g3 = (certs / "AppleRootCA-G3.cer").read_bytes()
    rsa_root = (certs / "AppleIncRootCertificate.cer").read_bytes()
    # Apple's roots are recognised (the library's pinned G3 is used); the stand-in's root is the test root.
    verifier = apple.SignedDataVerifier([g3, rsa_root, api.anchor], False, ApplesEnvironment.SANDBOX, api.bundle)
    with make_client(api) as raw:
        signed = raw.get_transaction_info("1").signedTransactionInfo
    assert signed is not None
    decoded = verifier.verify_and_decode_signed_transaction(signed)
    assert type(decoded).__name__ == "JWSTransactionDecodedPayload" and decoded.transactionId == "23456"
    assert verifier.verified("transaction", signed)[1]  # GateKit's marking: accepted under the test root
    wrong = apple.SignedDataVerifier([api.anchor], False, "Sandbox", "com.example.other")
    with pytest.raises(apple.VerificationException) as e:
        wrong.verify_and_decode_signed_transaction(signed)
    assert e.value.status == apple.VerificationStatus.INVALID_APP_IDENTIFIER
    with pytest.raises(apple.VerificationException) as e:  # Apple's roots alone: test data is not Apple's
        apple.SignedDataVerifier([g3], False, "Sandbox", api.bundle).verify_and_decode_signed_transaction(signed)
    assert e.value.status in (apple.VerificationStatus.INVALID_CHAIN, apple.VerificationStatus.VERIFICATION_FAILURE)
    with pytest.raises(ValueError, match="offline"):
        apple.SignedDataVerifier([g3], True, "Sandbox", api.bundle)
    with pytest.raises(ValueError, match="empty"):
        apple.SignedDataVerifier([], False, "Sandbox", api.bundle)
    with pytest.raises(ValueError, match="G3"):
        apple.SignedDataVerifier([rsa_root], False, "Sandbox", api.bundle)
    with pytest.raises(ValueError, match="Production"):
        apple.SignedDataVerifier([g3], False, "Production", api.bundle)
    for name in ("AppStoreServerAPIClient", "APIException", "APIError", "GetTransactionHistoryVersion", "ReceiptUtility",
                 "PromotionalOfferSignatureCreator", "PromotionalOfferV2SignatureCreator",
                 "IntroductoryOfferEligibilitySignatureCreator", "AdvancedCommerceAPIInAppSignatureCreator", "TransactionHistoryRequest"):
        assert hasattr(apple, name) and name in apple.__all__, name


@pytest.mark.example
def test_the_transaction_lookup_examples(api, tmp_path):
    """examples/transaction_lookup.c and .py, as the README shows them, against the stand-in."""
    import shutil
    import gatekit
    repo = Path(__file__).resolve().parents[2]
    key = tmp_path / "key.p8"
    key.write_bytes(api.key)
    root = tmp_path / "root.der"
    root.write_bytes(api.anchor)
    args = [str(key), api.key_id, api.issuer, api.bundle, "Sandbox"]
    stand_in = [api.url, api.ca, str(root)]
    programs = [example("transaction_lookup.py")]
    if EXAMPLE_PYTHON:
        print("the C example is not part of the wheel's run")
    elif shutil.which("cc"):
        library = Path(gatekit.library_path()).resolve().parent
        binary = tmp_path / "transaction_lookup"
        subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(binary), str(repo / "examples" / "transaction_lookup.c"),
                        f"-I{repo / 'include'}", f"-L{library}", f"-Wl,-rpath,{library}", "-lgatekit"], check=True)
        programs.append([str(binary)])
    else:
        print("SKIP: the C example (no C compiler)")
    env = example_env()
    for program in programs:
        found = subprocess.run([*program, *args, "1234", *stand_in], capture_output=True, text=True, env=env, timeout=60)
        assert found.returncode == 0, (program, found.stderr)
        transaction = json.loads(found.stdout)["signedTransactionInfo"]
        assert transaction["transactionId"] == "23456" and transaction["gatekit"]["testSigned"] is True
        missing = subprocess.run([*program, *args, "error-4040010", *stand_in], capture_output=True, text=True, env=env, timeout=60)
        assert missing.returncode == 1 and json.loads(missing.stdout)["errorCode"] == 4040010, (program, missing.stderr)
        forged = subprocess.run([*program, *args, "tampered", *stand_in], capture_output=True, text=True, env=env, timeout=60)
        assert forged.returncode != 0 and "signedTransactionInfo" in forged.stderr and forged.stdout == "", program
        assert subprocess.run([*program], capture_output=True, env=env).returncode == 2


def test_gatekit_appstore_endpoint_is_gatekit_api_endpoint(api, tmp_path):
    done = run_tool(api, tmp_path, "get-transaction-info", "77")
    key = tmp_path / "key.p8"
    via_appstore = subprocess.run([TOOL, "appstore", "get-transaction-info", "77", "--key", str(key), "--key-id", api.key_id,
                                   "--issuer-id", api.issuer, "--bundle-id", api.bundle, "--environment", "Sandbox",
                                   "--base-url", api.url, "--ca-file", api.ca, "--test-anchor", str(tmp_path / "root.der")],
                                  capture_output=True, text=True, timeout=60)
    assert via_appstore.returncode == 0 and last_request(api)["path"] == "/inApps/v1/transactions/77"
    assert json.loads(via_appstore.stdout)["signedTransactionInfo"]["transactionId"] == \
        json.loads(done.stdout)["signedTransactionInfo"]["transactionId"]


def test_the_call_has_one_deadline_retries_included(api):
    """`timeout` bounds the whole call: a retry whose Retry-After would pass it is not made (it
    used to be made, and the call outlived its timeout by the wait)."""
    with make_client(api, max_retries=2, timeout=datetime.timedelta(milliseconds=800)) as bounded:
        with pytest.raises(gk.APIException) as limited:
            bounded.get_transaction_info("ratelimit-1-py-deadline")
        assert limited.value.http_status_code == 429
    assert [r["path"] for r in requests_seen(api)[-1:]] == ["/inApps/v1/transactions/ratelimit-1-py-deadline"]
    # A Retry-After no timedelta holds is an APIException with the longest one, not OverflowError.
    with make_client(api, max_retries=2) as c:
        with pytest.raises(gk.APIException) as huge:
            c.get_transaction_info("hugeretry")
    assert huge.value.retry_after == datetime.timedelta.max
    # 10^24 s overflows 64 bits: still the longest wait (never "absent", and never retried).
    with make_client(api, max_retries=2) as c:
        with pytest.raises(gk.APIException) as absurd:
            c.get_transaction_info("absurdretry")
    assert absurd.value.retry_after == datetime.timedelta.max
    assert [r["path"] for r in requests_seen(api)[-1:]] == ["/inApps/v1/transactions/absurdretry"]
    assert sum(r["path"].endswith("/absurdretry") for r in requests_seen(api)) == 1


def test_a_base_url_with_credentials_is_refused(api):
    with pytest.raises(ValueError, match="user information"):
        make_client(api, base_url=api.url.replace("https://", "https://user:s3cret@"))


def test_the_ca_file_is_read_once_and_judged_with_its_folders(api, tmp_path):
    """The CA file is read when the client is made: replacing it afterwards (with another CA, or
    nothing) changes nothing; a symbolic link, or a file in a folder others can write, is refused."""
    folder = tmp_path / "trust"
    folder.mkdir(mode=0o700)
    ca = folder / "ca.pem"
    ca.write_bytes(Path(api.ca).read_bytes())
    ca.chmod(0o600)
    with make_client(api, ca_file=str(ca)) as c:
        other = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                "-days", "1", "-subj", "/CN=swapped", "-keyout", "/dev/null", "-out", "/dev/stdout"],
                               capture_output=True, check=True).stdout
        ca.write_bytes(other)
        assert c.get_transaction_info("1").signedTransactionInfo  # still the CA it was made with
    with pytest.raises(gk.APITransportError, match="certificate"):
        make_client(api, ca_file=str(ca)).get_transaction_info("1")  # a new client reads the new file
    link = folder / "link.pem"
    link.symlink_to(api.ca)
    with pytest.raises(gk.GateKitError, match="symbolic link"):
        make_client(api, ca_file=str(link))
    folder.chmod(0o777)
    ca.write_bytes(Path(api.ca).read_bytes())
    with pytest.raises(gk.GateKitError, match="another user can write"):
        make_client(api, ca_file=str(ca))
    folder.chmod(0o700)


def test_the_servers_name_is_verified_too(api, tmp_path):
    """TLS verification read back from behaviour (issue 32): a server whose certificate a
    trusted CA signed but for another name is refused; the same CA's certificate for this
    name is accepted. (An untrusted CA: test_an_untrusted_server_is_refused.)"""
    import http.server
    import ssl
    import threading

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp_path)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=name test CA", "-keyout", "ca.key", "-out", "ca.pem")
    (tmp_path / "ca.pem").chmod(0o600)

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"{}"
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    def serve(name: str, san: str) -> Tuple[http.server.HTTPServer, str]:
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", f"/CN={name}",
                "-keyout", f"{name}.key", "-out", f"{name}.csr")
        (tmp_path / f"{name}.ext").write_text(f"subjectAltName={san}\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1",
                "-extfile", f"{name}.ext", "-out", f"{name}.pem")
        server = http.server.HTTPServer(("127.0.0.1", 0), Answer)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(tmp_path / f"{name}.pem", tmp_path / f"{name}.key")
        server.socket = context.wrap_socket(server.socket, server_side=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server, f"https://127.0.0.1:{server.server_address[1]}"

    elsewhere, elsewhere_url = serve("elsewhere", "DNS:elsewhere.example")
    here, here_url = serve("here", "IP:127.0.0.1")
    try:
        with pytest.raises(gk.APITransportError, match="127.0.0.1|name|certificate"):
            make_client(api, base_url=elsewhere_url, ca_file=str(tmp_path / "ca.pem")).get_transaction_info("1")
        with make_client(api, base_url=here_url, ca_file=str(tmp_path / "ca.pem")) as c:
            assert c.get_transaction_info("1").signedTransactionInfo is None  # {} read, the name and chain verified
    finally:
        elsewhere.shutdown()
        here.shutdown()


def test_the_user_agent_is_gatekits_unless_set(api, client):
    import gatekit
    client.get_transaction_info("ua-default")
    assert last_request(api)["userAgent"] == f"gatekit/{gatekit.version()}"
    with make_client(api, user_agent="my-server/2.0 (gatekit)") as named:
        named.get_transaction_info("ua-named")
    assert last_request(api)["userAgent"] == "my-server/2.0 (gatekit)"
    with pytest.raises(ValueError, match="user_agent"):
        make_client(api, user_agent="agent\r\nX-Injected: 1")


def apple_client(api: SimpleNamespace, cls: Any, **options: Any) -> Any:
    return cls(api.key, api.key_id, api.issuer, api.bundle, gk.Environment.SANDBOX, base_url=api.url, ca_file=api.ca, **options)


def test_apples_client_at_apples_path_behaves_as_apples(api):
    """gatekit.apple's client: Apple's User-Agent family, no automatic retry (Apple's raises the
    429 at once), `revoked` written as Python writes it, a missing request sent without a body."""
    from gatekit.apple.api_client import AppStoreServerAPIClient, APIException
    client = apple_client(api, AppStoreServerAPIClient)
    client.get_transaction_history("1", None, api_models.TransactionHistoryRequest(revoked=False), gk.GetTransactionHistoryVersion.V2)
    seen = last_request(api)
    assert seen["userAgent"].startswith("app-store-server-library/python (gatekit ")
    assert ["revoked", "False"] in seen["query"]
    before = len(requests_seen(api))
    with pytest.raises(APIException) as raised:
        client.get_transaction_info("ratelimit-5-applenoretry")
    assert raised.value.http_status_code == 429 and len(requests_seen(api)) == before + 1
    with pytest.raises(APIException):
        client.set_app_account_token("49571273", None)
    assert last_request(api)["method"] == "PUT" and last_request(api).get("body") in (None, "", b"")


def test_the_async_client_runs_calls_concurrently_without_blocking_the_loop(api, verifier):
    """AsyncAppStoreServerAPIClient: Apple's methods awaited; while one call waits on a slow
    answer the event loop keeps running; many calls at once all come back right; Apple's errors
    raise from the await."""
    import asyncio
    from gatekit.apple.api_client import AsyncAppStoreServerAPIClient, APIException

    async def scenario() -> None:
        client = apple_client(api, AsyncAppStoreServerAPIClient, verifier=verifier)
        ticks = 0
        stop = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0.01)
        ticking = asyncio.ensure_future(ticker())
        slow = await client.get_transaction_info("slow")
        stop.set()
        await ticking
        assert slow.signedTransactionInfo and ticks > 10  # the loop ran while libcurl waited
        answers = await asyncio.gather(*(client.get_transaction_info(f"async-{i}") for i in range(24)))
        assert [a.decoded["signedTransactionInfo"]["transactionId"] for a in answers] == ["23456"] * 24
        with pytest.raises(APIException) as raised:
            await client.get_transaction_info("error-4040010")
        assert raised.value.raw_api_error == 4040010
        await client.async_close()
        with pytest.raises(Exception):
            await client.get_transaction_info("closed")
    asyncio.run(scenario())
