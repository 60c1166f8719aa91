"""One of the processes of test_ledger.test_eight_processes_ingesting_one_stream: ingests the
stream (shuffled by its seed, with repeats) into the shared store; prints its outcome counts."""
from __future__ import annotations

import json
from datetime import datetime, timezone
import random
import sys
from collections import Counter

import gatekit
from gatekit.jws import SignedDataVerifier


def main() -> int:
    where, app_id, stream, seed = sys.argv[1], sys.argv[2] or None, sys.argv[3], int(sys.argv[4])
    spec = json.loads(open(stream).read())
    items = [tuple(i) for i in spec["items"]]
    rng = random.Random(seed)
    order = items + [rng.choice(items) for _ in range(len(items) // 2)]
    rng.shuffle(order)
    verifier = SignedDataVerifier("com.example", "Sandbox", test_anchor=bytes.fromhex(spec["anchor"]))
    counts: Counter = Counter()
    with gatekit.Store(where, app_id=app_id) as store:
        for kind, jws in order:
            counts[getattr(store.ledger, f"ingest_{kind}")(jws, verifier, verify_time=datetime.fromtimestamp(spec["now"], timezone.utc)).outcome.name] += 1
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
