"""Worker processes for the multi-process tests (run with sys.executable)."""
from __future__ import annotations

import sys
from typing import Optional

import gatekit


def open_store(where: str, app_id: Optional[str]) -> gatekit.Store:
    return gatekit.Store(where, app_id=app_id)


def accept_many(where: str, app_id: Optional[str], tag: str, count: int) -> None:
    with open_store(where, app_id) as store:
        for i in range(count):
            store.eula.accept(f"doc-{tag}-{i}", gatekit.hash_bytes(f"{tag}/{i}".encode()), user=tag)


def decide_one_chain(where: str, app_id: Optional[str], tag: str, count: int) -> None:
    """Accepts and declines one document for one user, with how each was given: every
    process on the same hash chain."""
    from gatekit.eula import Consent, EulaMethod
    digest = gatekit.hash_bytes(b"terms")
    with open_store(where, app_id) as store:
        for i in range(count):
            how = Consent(EulaMethod.API, metadata={"process": tag, "n": str(i)})
            if i % 2:
                store.eula.decline("terms", digest, user="shared", consent=how)
            else:
                store.eula.accept("terms", digest, user="shared", consent=how)


def accept_translations(where: str, app_id: Optional[str], tag: str, count: int) -> None:
    """Accepts the published "terms" version for `count` users of its own, each in the
    language the store shows them (its translations in turn)."""
    languages = ["en", "de-AT", "fr-CA", "pt-BR"]
    with open_store(where, app_id) as store:
        for i in range(count):
            user = f"{tag}-{i}"
            shown = store.eula.should_present_at("terms", user=user, language=languages[i % len(languages)])
            store.eula.accept("terms", shown.hash, user=user)


def accept_forever(where: str, app_id: Optional[str]) -> None:
    """Prints each index after its acceptance returned: the parent kills us at random."""
    with open_store(where, app_id) as store:
        i = 0
        while True:
            store.eula.accept("doc", gatekit.hash_bytes(str(i).encode()), user="killed")
            sys.stdout.write(f"{i}\n")
            sys.stdout.flush()
            i += 1


def accept_through_outage(where: str, app_id: Optional[str], tag: str, count: int) -> None:
    """Accepts `count` documents on one handle while the server may restart; prints (and
    flushes) "ok I" after each acceptance returned and "err I CODE" after each error, then
    waits 20 ms as a client backing off would, and keeps going."""
    import time
    with open_store(where, app_id) as store:
        for i in range(count):
            try:
                store.eula.accept(f"{tag}-{i}", gatekit.hash_bytes(f"{tag}/{i}".encode()), user=tag)
                sys.stdout.write(f"ok {i}\n")
            except gatekit.StoreError as e:
                sys.stdout.write(f"err {i} {e.code}\n")
                time.sleep(0.02)
            sys.stdout.flush()


def perm_record(where: str, app_id: Optional[str], category: int, decision: int) -> None:
    with open_store(where, app_id) as store:
        if decision == 0:
            store.permissions.reset(category)
        else:
            store.permissions.record(category, decision)


def sync_steps(where: str, app_id: Optional[str], settings_json: str) -> None:
    """Syncs the ledger from a stand-in world step by step (the world's clock moved to each
    step, then a sync up to it), resuming where the store's checkpoint says; a BUSY sync is
    tried again. Prints each outcome; killed at random by the parent."""
    import json
    import time
    from datetime import timedelta
    from pathlib import Path
    from gatekit.jws import SignedDataVerifier
    from gatekit.ledger import SyncOutcome
    from standin_world import World
    settings = json.loads(settings_json)
    world = World(settings["bundle"])
    anchor = Path(settings["anchor"]).read_bytes()
    verifier = SignedDataVerifier(settings["bundle"], "Sandbox", test_anchor=anchor)
    at = gatekit._time.from_milliseconds(settings["verify_time"])
    with open_store(where, app_id) as store, world.client() as client:
        steps = settings["steps"]
        while True:
            synced = store.ledger.sync_state("Sandbox")["syncedUntil"] or 0
            todo = [step for step in steps if step > synced]
            if not todo:
                return
            world.clock(todo[0])
            report = store.ledger.sync_notifications(client, verifier, since=gatekit._time.from_milliseconds(settings["since"]),
                                                     until=gatekit._time.from_milliseconds(todo[0]),
                                                     lease=timedelta(milliseconds=settings["lease_ms"]), verify_time=at)
            sys.stdout.write(f"{report.outcome.name} {report.pages}\n")
            sys.stdout.flush()
            if report.outcome == SyncOutcome.BUSY:
                time.sleep(0.05)


def ledger_work(where: str, app_id: Optional[str], work_file: str, index: int) -> None:
    """Ingests this worker's share of signed transactions (a JSON file the test wrote: the
    test PKI's root, the verification instant, each worker's items), then asks about each of
    its customers; prints the answers as JSON, one per customer, in order."""
    import json
    from gatekit.jws import SignedDataVerifier
    work = json.loads(open(work_file).read())
    verifier = SignedDataVerifier(work["bundle"], "Sandbox", test_anchor=bytes.fromhex(work["anchor"]))
    at = gatekit._time.from_milliseconds(work["verify_at_ms"])
    answers = []
    with open_store(where, app_id) as store:
        for signed in work["items"][index]:
            store.ledger.ingest_transaction(signed, verifier, at)
        for customer in work["customers"][index]:
            e = store.ledger.entitled(customer, work["product"], environment="Sandbox", test_signed=True)
            answers.append([e.entitled, e.reason.name, e.transaction_id, e.until.isoformat() if e.until else None])
    sys.stdout.write(json.dumps(answers) + "\n")


if __name__ == "__main__":
    # Every command starts with the store's location: a path or connection string, and an
    # app id ("" for none).
    command, where, app_id_text, *rest = sys.argv[1:]
    app_id = app_id_text or None
    if command == "accept-many":
        accept_many(where, app_id, rest[0], int(rest[1]))
    elif command == "decide-one-chain":
        decide_one_chain(where, app_id, rest[0], int(rest[1]))
    elif command == "accept-translations":
        accept_translations(where, app_id, rest[0], int(rest[1]))
    elif command == "accept-forever":
        accept_forever(where, app_id)
    elif command == "accept-through-outage":
        accept_through_outage(where, app_id, rest[0], int(rest[1]))
    elif command == "sync-steps":
        sync_steps(where, app_id, rest[0])
    elif command == "ledger-work":
        ledger_work(where, app_id, rest[0], int(rest[1]))
    elif command == "perm-record":
        perm_record(where, app_id, int(rest[0]), int(rest[1]))
    else:
        raise SystemExit(f"unknown command {command}")
