"""Play Developer API calls per second from Python: GateKit's PlayClient beside Google's own
client (pip install google-api-python-client google-auth-httplib2: the discovery-based
androidpublisher v3 service with service-account credentials), both against the same local
HTTPS stand-in (scripts/with-play-standin.sh, which `make bench` starts), interleaved rounds.

Both read the same SubscriptionPurchaseV2: Google's client returns a dict; GateKit's typed
model is measured too (its parsing is the difference)."""
from __future__ import annotations

import json
import os
import ssl
import statistics
import sys
import time
import urllib.request
from pathlib import Path
from typing import Callable, Dict, List

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))

from gatekit.play import PlayClient  # noqa: E402
from gatekit.testing import PlaySubscriptionLife  # noqa: E402

ROUNDS = 7
CALLS = 100


def microseconds_per_call(body: Callable[[], object]) -> float:
    t0 = time.perf_counter_ns()
    for _ in range(CALLS):
        body()
    return (time.perf_counter_ns() - t0) / CALLS / 1e3


def main() -> int:
    e = os.environ
    if "GATEKIT_TEST_PLAY_URL" not in e:
        print("\n(Play Developer API calls from Python skipped: no stand-in; make bench starts one with scripts/with-play-standin.sh)")
        return 0
    try:
        import httplib2
        from google.oauth2 import service_account
        from google_auth_httplib2 import AuthorizedHttp
        from googleapiclient.discovery import build
    except ImportError:
        print("\n(Play Developer API calls from Python skipped: pip install google-api-python-client google-auth-httplib2 for Google's reference)")
        return 0
    from datetime import datetime, timezone
    package, url, ca = e["GATEKIT_TEST_PLAY_PACKAGE"], e["GATEKIT_TEST_PLAY_URL"], e["GATEKIT_TEST_PLAY_CA"]
    life = PlaySubscriptionLife(package, "pro.monthly", "token-1", start=datetime(2026, 1, 1, tzinfo=timezone.utc))
    life.subscribe()
    world = json.dumps({"subscriptions": {"token-1": life.resource()}}).encode()
    request = urllib.request.Request(url + "/standin/play/world", data=world, method="PUT",
                                     headers={"Authorization": f"Bearer {e['GATEKIT_TEST_PLAY_CONTROL']}"})
    urllib.request.urlopen(request, context=ssl.create_default_context(cafile=ca), timeout=30).read()

    ours = PlayClient(package, e["GATEKIT_TEST_PLAY_SERVICE_ACCOUNT"], base_url=url, ca_file=ca)
    credentials = service_account.Credentials.from_service_account_file(
        e["GATEKIT_TEST_PLAY_SERVICE_ACCOUNT"], scopes=["https://www.googleapis.com/auth/androidpublisher"])
    http = AuthorizedHttp(credentials, http=httplib2.Http(ca_certs=ca))
    service = build("androidpublisher", "v3", http=http, client_options={"api_endpoint": url + "/"}, cache_discovery=False,
                    static_discovery=True)
    theirs = service.purchases().subscriptionsv2()
    google_answer = theirs.get(packageName=package, token="token-1").execute()
    assert google_answer["subscriptionState"] == "SUBSCRIPTION_STATE_ACTIVE", google_answer
    assert ours.get_subscription("token-1").subscription_state.value == google_answer["subscriptionState"]

    rows = {
        "Google's google-api-python-client: purchases().subscriptionsv2().get(...).execute() (a dict)":
            lambda: theirs.get(packageName=package, token="token-1").execute(),
        "**GateKit PlayClient.call** (the answer as a dict)": lambda: ours.call("play_subscription_get", b"token-1"),
        "**GateKit PlayClient.get_subscription** (a typed SubscriptionPurchaseV2)": lambda: ours.get_subscription("token-1"),
    }
    samples: Dict[str, List[float]] = {name: [] for name in rows}
    for body in rows.values():
        body()  # warm
    for _ in range(ROUNDS):
        for name, body in rows.items():
            samples[name].append(microseconds_per_call(body))
    print("\n## Google Play: the Play Developer API from Python against the stand-in (loopback HTTPS)\n")
    print(f"Median of {ROUNDS} interleaved rounds of {CALLS} calls each.\n")
    print("| client | µs per call | calls/s |")
    print("|---|---:|---:|")
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, median in medians.items():
        print(f"| {name} | {median:.0f} | {1e6 / median:.0f} |")
    google = medians[next(iter(rows))]
    typed = medians[list(rows)[2]]
    print(f"\nGateKit's typed call takes {typed / google:.2f}× the time of Google's client's ({google / typed:.1f}× its calls per second).")
    ours.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
