"""Support grants through the C ABI (docs/ledger.md, "Support grants"), on SQLite, PostgreSQL
and PgBouncer: an entitlement given by hand to an app account or a customer answers like a
purchase beside a Play purchase of the same entitlement, shows who gave it and why, ends at its
revocation, appears in the feed, the history and the customer report, and never in the metrics."""
from __future__ import annotations

import datetime
import json

import pytest

from gatekit.errors import InvalidArgumentError, NotFoundError
from gatekit.ledger import Reason
from gatekit.play_testing import PlaySubscriptionLife

UTC = datetime.timezone.utc
ALICE = "0c2f4a4e-8a59-4d55-9a2e-3f7c8e1b2d6a"
PACKAGE = "com.example.app"
CATALOG = {"products": {"pro.monthly:monthly": {"type": "auto-renewable", "entitlements": ["premium"]}}}


def play_purchase(store) -> PlaySubscriptionLife:
    """Alice's Play subscription of "pro.monthly" (entitlement "premium"), bought two days ago."""
    start = datetime.datetime.now(UTC).replace(microsecond=0) - datetime.timedelta(days=2)
    life = PlaySubscriptionLife(PACKAGE, "pro.monthly", "grant-test-token", start=start, obfuscated_account_id=ALICE)
    life.subscribe()
    store.ledger.declare_catalog(CATALOG)
    store.ledger.ingest_play_subscription(PACKAGE, life.purchase_token, life.resource())
    return life


def test_a_grant_to_an_app_account_answers_like_a_purchase_until_it_is_revoked(store):
    grant = store.ledger.grant("premium", environment="Production", app_user_id="alice", granted_by="support:jane",
                               until=datetime.timedelta(days=30), note="a month for the outage")
    assert grant.grant_id.startswith("grant-") and grant.app_user_id == "alice" and grant.revoked_at is None
    assert grant.until - grant.start == datetime.timedelta(days=30)
    answer = store.ledger.entitled("alice", "premium", environment="Production", by_app_user=True)
    assert answer and answer.reason == Reason.NON_RENEWING and answer.store == "grant"
    assert (answer.granted_by, answer.note, answer.grants) == ("support:jane", "a month for the outage", ("premium",))
    assert answer.transaction_id == grant.grant_id and answer.until == grant.until
    revoked, changed = store.ledger.revoke_grant(grant.grant_id, environment="Production", granted_by="support:bob",
                                                 note="granted to the wrong account")
    assert changed and revoked.revoked_at is not None and revoked.granted_by == "support:jane"
    after = store.ledger.entitled("alice", "premium", environment="Production", by_app_user=True)
    assert not after and after.reason == Reason.REVOKED
    again, changed_again = store.ledger.revoke_grant(grant.grant_id, environment="Production", granted_by="support:bob")
    assert not changed_again and again.revoked_at == revoked.revoked_at
    with pytest.raises(NotFoundError, match="no grant"):
        store.ledger.revoke_grant("grant-00", environment="Production", granted_by="support:bob")
    # The feed said both changes, naming the app account, the grant's store and its entitlement.
    changes = [c for c in store.ledger.changes().changes if c.store == "grant"]
    assert [(c.entitled, c.app_user_ids, c.entitlements) for c in changes] == \
        [(True, ("alice",), ("premium",)), (False, ("alice",), ("premium",))]


def test_a_grant_beside_a_play_purchase_of_the_same_entitlement(store):
    life = play_purchase(store)
    bought = store.ledger.entitled(ALICE, "premium", environment="Production")
    assert bought and bought.store == "play"
    grant = store.ledger.grant("premium", environment="Production", customer=ALICE, granted_by="support:jane")
    granted = store.ledger.entitled(ALICE, "premium", environment="Production")
    # For good outlasts a month: the grant decides while it stands.
    assert granted and granted.store == "grant" and granted.until is None and granted.reason == Reason.NON_CONSUMABLE
    assert {e.product_id for e in store.ledger.active(ALICE, environment="Production")} == {"premium", "pro.monthly:monthly"}
    store.ledger.revoke_grant(grant.grant_id, environment="Production", granted_by="support:bob")
    after = store.ledger.entitled(ALICE, "premium", environment="Production")
    assert after and after.store == "play" and after.until == life.expires
    history = store.ledger.history(ALICE, environment="Production")
    kinds = [item["kind"] for item in history["items"]]
    assert kinds == ["play-subscription", "grant", "grant"]
    assert history["items"][2]["payload"]["revokedBy"] == "support:bob"
    report = store.ledger.customer_report(ALICE, environment="Production", start=life.start - datetime.timedelta(days=1),
                                          end=life.start + datetime.timedelta(days=60))
    assert f"Grant {grant.grant_id}" in report.html and "Given for good" in report.html and "Revoked" in report.html
    assert "Refunded" not in report.html


def test_grants_are_never_counted_in_the_metrics(store):
    life = play_purchase(store)
    window = dict(environment="Production", start=life.start - datetime.timedelta(days=3), end=life.start + datetime.timedelta(days=40),
                  granularity="day")
    before = store.ledger.metrics(**window).to_dict()
    grant = store.ledger.grant("premium", environment="Production", app_user_id="carol", granted_by="support:jane",
                               start=life.start)
    store.ledger.grant("premium", environment="Production", customer=ALICE, granted_by="support:jane",
                       until=datetime.timedelta(days=10))
    store.ledger.revoke_grant(grant.grant_id, environment="Production", granted_by="support:bob")
    after = store.ledger.metrics(**window).to_dict()
    before.pop("asOf"), after.pop("asOf")
    assert after == before
    assert any(v for series in before["series"] for v in series["revenue"].get("USD", []))  # the purchase is counted


def test_a_grant_of_a_name_the_catalog_does_not_give_is_refused(store):
    store.ledger.declare_catalog(CATALOG)
    with pytest.raises(InvalidArgumentError, match='did you mean "premium"'):
        store.ledger.grant("premum", environment="Production", app_user_id="alice", granted_by="support:jane")
    with pytest.raises(InvalidArgumentError, match="exactly one of app_user_id and customer"):
        store.ledger.grant("premium", environment="Production", app_user_id="alice", customer=ALICE, granted_by="support:jane")
    with pytest.raises(InvalidArgumentError, match="granted_by"):
        store.ledger.grant("premium", environment="Production", app_user_id="alice", granted_by="")
    assert json.dumps(store.ledger.history(environment="Production")).count('"grant"') == 0
