"""EULA gating through the Python package: semantics, threads, processes, crashes, bad files."""
from __future__ import annotations

import os
import random
import signal
import subprocess
import sqlite3
from datetime import datetime, timezone
import threading
import time
from pathlib import Path

import pytest

import gatekit
from gatekit import EulaAnswer
from conftest import worker


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_presented_until_this_exact_text_is_accepted(store, tmp_path):
    eula = write(tmp_path / "EULA.txt", "Terms v1\n")
    assert store.eula.should_present("terms", eula)
    shown = gatekit.hash_file(eula)
    assert shown == gatekit.hash_bytes(b"Terms v1\n")
    store.eula.accept("terms", shown)
    assert not store.eula.should_present("terms", eula)
    assert store.eula.should_present("terms", eula, user="alice")
    write(eula, "Terms v2\n")
    assert store.eula.should_present("terms", eula)


def test_decline_after_accept_presents_again_and_minor_revisions_are_covered(store):
    v1, v1a = gatekit.hash_bytes(b"v1"), gatekit.hash_bytes(b"v1, typo fixed")
    store.eula.accept("terms", v1)
    assert store.eula.should_present_hash("terms", v1a)
    store.eula.mark_minor_revision("terms", v1, v1a)
    assert not store.eula.should_present_hash("terms", v1a)
    store.eula.decline("terms", v1)
    assert store.eula.should_present_hash("terms", v1a)


def test_history_records_who_which_text_and_when(store):
    h = gatekit.hash_bytes(b"privacy")
    store.eula.accept("privacy", h, user=b"J\xf6rg")   # not UTF-8: kept exactly
    store.eula.decline("privacy", h, user="Jörg")
    store.eula.accept("privacy", h, user="alice")
    latin1 = store.eula.history("privacy", user=b"J\xf6rg")
    # str out: a name that is not UTF-8 comes back with its bytes as surrogate escapes ...
    assert [(d.user, d.decision, d.hash) for d in latin1] == [("J\udcf6rg", EulaAnswer.ACCEPTED, h)]
    assert latin1[0].accepted and latin1[0].decision == "accepted"
    # ... and passed back as that str names the same user.
    assert store.eula.history("privacy", user="J\udcf6rg") == latin1
    assert store.eula.history("privacy", user="alice")[0].user == "alice"   # str in, str out
    assert latin1[0].at.tzinfo is not None and abs((datetime.now(timezone.utc) - latin1[0].at).total_seconds()) < 60
    everyone = store.eula.history_all()
    assert [d.user for d in everyone] == ["J\udcf6rg", "Jörg", "alice"]
    assert [d.decision for d in everyone] == [EulaAnswer.ACCEPTED, EulaAnswer.DECLINED, EulaAnswer.ACCEPTED]
    assert store.eula.history() == []


def test_errors_carry_code_and_detail(store, tmp_path):
    with pytest.raises(gatekit.InvalidArgumentError) as info:
        store.eula.accept("terms", "not-a-hash")
    assert info.value.code == gatekit.errors.EINVAL
    assert "64 hex digits" in info.value.detail
    with pytest.raises(gatekit.NotFoundError):
        store.eula.should_present("terms", tmp_path / "missing.txt")
    with pytest.raises(gatekit.StoreError):
        store.eula.should_present("terms", tmp_path)          # a folder
    with pytest.raises(ValueError):
        store.eula.accept("terms\0x", gatekit.hash_bytes(b""))
    with pytest.raises(TypeError):
        store.eula.accept("terms", gatekit.hash_bytes(b""), user=42)


def test_a_closed_store_refuses_calls(tmp_path):
    s = gatekit.Store(tmp_path / "s.sqlite")
    s.close()
    s.close()  # idempotent
    with pytest.raises(ValueError):
        s.eula.history()
    assert "closed" in repr(s)


def test_sixteen_threads_share_one_store(store):
    per_thread = 40
    errors = []

    def run(t: int) -> None:
        try:
            for i in range(per_thread):
                h = gatekit.hash_bytes(f"{t}/{i}".encode())
                assert store.eula.should_present_hash("doc", h, user=f"user-{t}")
                store.eula.accept("doc", h, user=f"user-{t}")
                assert not store.eula.should_present_hash("doc", h, user=f"user-{t}")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.eula.history_all()) == 16 * per_thread
    for t in range(16):
        assert len(store.eula.history(user=f"user-{t}")) == per_thread


def test_eight_processes_accept_into_one_store_without_loss(store_location, open_store):
    per_process = 50
    procs = [worker("accept-many", store_location("shared"), f"p{n}", str(per_process)) for n in range(8)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    with open_store("shared") as store:
        history = store.eula.history_all()
        assert len(history) == 8 * per_process
        for n in range(8):
            mine = store.eula.history(user=f"p{n}")
            assert sorted(d.document_id for d in mine) == sorted(f"doc-p{n}-{i}" for i in range(per_process))
        store.check()


def test_many_processes_deciding_for_one_user_keep_one_whole_chain(store_location, open_store):
    """The same user's decisions on the same document from 24 processes at once: every one is
    kept with its consent, in one hash chain that store check finds whole. On PostgreSQL the
    racing writers meet at the chain's unique key; a loser queues on the chain's lock (when it
    raced again instead, one in ten of 24 processes gave up after ten lost races), and a writer
    trying alone never overtakes a queued one (when it could, a queued writer once lost ten times)."""
    processes, per_process = 24, 30
    procs = [worker("decide-one-chain", store_location("chain"), f"p{n}", str(per_process)) for n in range(processes)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    with open_store("chain") as store:
        history = store.eula.history("terms", user="shared")
        assert len(history) == processes * per_process
        assert sorted((d.consent.metadata["process"], int(d.consent.metadata["n"])) for d in history) == \
            sorted((f"p{n}", i) for n in range(processes) for i in range(per_process))
        store.check()


def test_sigkill_never_loses_a_returned_acceptance(store_location, open_store):
    rng = random.Random(20261122)
    confirmed = set()
    for _ in range(5):
        child = worker("accept-forever", store_location("killed"), stdout=__import__("subprocess").PIPE, text=True)
        deadline = time.monotonic() + rng.uniform(0.3, 0.9)
        assert child.stdout is not None
        while time.monotonic() < deadline:
            line = child.stdout.readline()
            if not line:
                break
            confirmed.add(int(line))
        os.kill(child.pid, signal.SIGKILL)
        # Lines already written before the kill were also confirmed.
        confirmed.update(int(line) for line in child.stdout.read().split())
        child.wait()
        with open_store("killed") as store:
            store.check()
            recorded = {d.hash for d in store.eula.history("doc", user="killed")}
        assert {gatekit.hash_bytes(str(i).encode()) for i in confirmed} <= recorded
    assert len(confirmed) > 0


def test_a_corrupt_store_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "store.sqlite"
    with gatekit.Store(path) as s:
        for i in range(300):
            s.eula.accept(f"d{i}", gatekit.hash_bytes(str(i).encode()))
    with sqlite3.connect(path) as db:  # fold the WAL into the main file
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    for i in range(4096 + 16, len(data), 113):
        data[i] ^= 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises((gatekit.CorruptStoreError, gatekit.NotAStoreError)):
        gatekit.Store(path)
    assert path.read_bytes() == bytes(data)


def test_a_newer_schema_is_refused_and_left_unchanged(tmp_path):
    path = tmp_path / "store.sqlite"
    gatekit.Store(path).close()
    with sqlite3.connect(path) as db:
        (version,) = db.execute("PRAGMA user_version").fetchone()
        db.execute(f"PRAGMA user_version={version + 1}")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    before = path.read_bytes()
    with pytest.raises(gatekit.NewerStoreError) as info:
        gatekit.Store(path)
    assert "newer" in info.value.detail
    assert path.read_bytes() == before


def test_a_foreign_file_is_refused_and_left_unchanged(tmp_path):
    path = write(tmp_path / "notes.txt", "not a database")
    with pytest.raises(gatekit.NotAStoreError):
        gatekit.Store(path)
    assert path.read_text() == "not a database"
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t(x)")
    before = other.read_bytes()
    with pytest.raises(gatekit.NotAStoreError):
        gatekit.Store(other)
    assert other.read_bytes() == before


def test_a_missing_document_is_a_file_not_found_error(store, tmp_path):
    """Hosts catch GateKit's errors with the built-ins they already handle."""
    with pytest.raises(FileNotFoundError):
        store.eula.should_present("terms", tmp_path / "missing.txt")
    try:
        store.eula.should_present("terms", tmp_path / "missing.txt")
    except OSError as error:
        assert isinstance(error, gatekit.NotFoundError) and isinstance(error, LookupError)
        assert error.code == gatekit.errors.ENOTFOUND and "missing.txt" in str(error)
    with pytest.raises(ValueError):
        store.eula.accept("terms", "not-a-hash")


def test_how_consent_was_given_is_kept_with_the_decision(store):
    from gatekit.eula import Consent, EulaMethod
    v1 = gatekit.hash_bytes(b"v1")
    how = Consent(EulaMethod.CLICK_THROUGH, client_address="2001:DB8::1", user_agent="Mozilla/5.0",
                  locale="de-AT", metadata={"checkbox": "newsletter=no", "form": "signup \"v3\""})
    store.eula.accept("terms", v1, user="ann", consent=how)
    store.eula.decline("terms", v1, user="ann", consent=Consent(EulaMethod.API))
    accepted, declined = store.eula.history("terms", user="ann")
    assert accepted.consent == Consent(EulaMethod.CLICK_THROUGH, "2001:db8::1", "Mozilla/5.0", "de-AT",
                                       {"checkbox": "newsletter=no", "form": "signup \"v3\""})
    assert list(accepted.consent.metadata) == ["checkbox", "form"]  # the host's order
    assert declined.decision is EulaAnswer.DECLINED and declined.consent == Consent(EulaMethod.API)
    assert accepted.to_dict()["metadata"] == {"checkbox": "newsletter=no", "form": "signup \"v3\""}
    assert type(accepted).from_dict(accepted.to_dict()) == accepted
    with pytest.raises(gatekit.InvalidArgumentError, match="client_address"):
        store.eula.accept("terms", v1, user="ann", consent=Consent(client_address="ann's laptop"))
    with pytest.raises(gatekit.InvalidArgumentError, match="given twice|ETOOLARGE|at most"):
        store.eula.accept("terms", v1, user="ann", consent=Consent(metadata={f"k{i}": "v" for i in range(33)}))
    assert len(store.eula.history("terms", user="ann")) == 2  # nothing refused was recorded


def test_withdrawal_presents_the_document_again(store):
    from gatekit.eula import Consent, EulaMethod
    v1, v2 = gatekit.hash_bytes(b"v1"), gatekit.hash_bytes(b"v2")
    with pytest.raises(gatekit.NotFoundError, match="no acceptance"):
        store.eula.withdraw("terms", user="bo")
    store.eula.accept("terms", v1, user="bo")
    assert not store.eula.should_present_hash("terms", v1, user="bo")
    store.eula.withdraw("terms", user="bo", consent=Consent(EulaMethod.ADMIN, metadata={"ticket": "SUP-12"}))
    assert store.eula.should_present_hash("terms", v1, user="bo")
    assert store.eula.should_present_hash("terms", v2, user="bo")
    entry = store.eula.history("terms", user="bo")[-1]
    assert (entry.decision, entry.hash, entry.consent.method) == (EulaAnswer.WITHDRAWN, v1, EulaMethod.ADMIN)
    store.eula.accept("terms", v2, user="bo")
    assert not store.eula.should_present_hash("terms", v2, user="bo")


def test_headless_acceptance_names_one_text(store, monkeypatch):
    from gatekit.eula import EulaHashMismatchError, EulaMethod
    v1, v2 = gatekit.hash_bytes(b"v1"), gatekit.hash_bytes(b"v2")
    assert store.eula.accept_named("terms", v1, f"terms@{v1[:8]}", user="cy")
    assert not store.eula.accept_named("privacy", v1, f"terms@{v1[:8]}", user="cy")
    with pytest.raises(EulaHashMismatchError, match=v2) as raised:
        store.eula.accept_named("terms", v2, f"terms@{v1[:8]}", user="cy")
    assert raised.value.code == gatekit.eula.EEULA_HASH_MISMATCH
    assert store.eula.should_present_hash("terms", v2, user="cy")

    monkeypatch.delenv("GATEKIT_ACCEPT", raising=False)
    assert not store.eula.accept_from_env("terms", v2, user="dee")
    monkeypatch.setenv("GATEKIT_ACCEPT", f"terms@{v2[:10]}")
    assert store.eula.accept_from_env("terms", v2, user="dee")
    entry = store.eula.history("terms", user="dee")[-1]
    assert entry.consent.method is EulaMethod.ENVIRONMENT and dict(entry.consent.metadata) == {"variable": "GATEKIT_ACCEPT"}
    with pytest.raises(EulaHashMismatchError, match="GATEKIT_ACCEPT"):
        store.eula.accept_from_env("terms", v1, user="eve")
    with pytest.raises(gatekit.InvalidArgumentError, match="hex digits"):
        store.eula.accept_named("terms", v1, "terms@1234", user="eve")


def test_store_check_finds_a_decision_edited_behind_gatekits_back(tmp_path):
    """The history's hash chains: a decision changed in the file (its append-only triggers
    dropped, as anyone who can write the file could) makes check() fail and name it; the
    tool's `store check` exits 5. (The same on PostgreSQL: EULAConsentTests in make test.)"""
    from gatekit.eula import Consent, EulaMethod
    path = tmp_path / "store.sqlite"
    v1 = gatekit.hash_bytes(b"v1")
    with gatekit.Store(str(path)) as store:
        store.eula.accept("terms", v1, user="ann", consent=Consent(EulaMethod.CLICK_THROUGH, client_address="192.0.2.1"))
        store.eula.accept("terms", v1, user="bo")
        store.check()
    db = sqlite3.connect(path)
    db.executescript("DROP TRIGGER eula_decisions_no_update;"
                     "UPDATE eula_decisions SET client_address = '198.51.100.7' WHERE user_name = CAST('ann' AS BLOB);")
    db.close()
    with gatekit.Store(str(path)) as store:
        with pytest.raises(gatekit.CorruptStoreError, match=r"eula decision \d+ was changed"):
            store.check()
    tool = os.environ.get("GATEKIT_TOOL", str(Path(__file__).resolve().parents[2] / ".build" / "c" / "gatekit"))
    checked = subprocess.run([tool, "--store", str(path), "store", "check"], capture_output=True, text=True)
    assert checked.returncode == 5 and "was changed" in checked.stderr + checked.stdout


# ---- Published versions: translations, schedules, and the export that proves consent ----

def test_a_user_is_asked_in_their_language_and_any_translation_accepts(store, tmp_path):
    from gatekit.eula_versions import EulaStatus, EulaVersionConflictError
    german = write(tmp_path / "de.txt", "Bedingungen")
    store.eula.publish("terms", "2026-12", {"en": b"Terms", "de": german, "pt-BR": b"Termos"}, default_language="en")
    shown = store.eula.should_present_at("terms", user="ann", language="de-AT")
    assert (shown.status, shown.label, shown.language) == (EulaStatus.REQUIRED, "2026-12", "de") and shown.must_present
    assert shown.hash == gatekit.hash_bytes(b"Bedingungen") and store.eula.text("terms", shown.hash) == b"Bedingungen"
    assert store.eula.should_present_at("terms", user="ann", language="pt").language == "en"  # pt-BR is not pt
    store.eula.accept("terms", shown.hash, user="ann")
    for language in ("en", "pt-BR", None):
        assert store.eula.should_present_at("terms", user="ann", language=language).status is EulaStatus.ACCEPTED
    assert not store.eula.should_present_hash("terms", gatekit.hash_bytes(b"Terms"), user="ann")
    [decision] = store.eula.history("terms", user="ann")
    assert decision.language == "de" and decision.to_dict()["language"] == "de"
    with pytest.raises(EulaVersionConflictError, match="2026-12"):
        store.eula.publish("terms", "2026-12", {"en": b"Terms, edited"}, default_language="en")
    with pytest.raises(gatekit.InvalidArgumentError, match="de_AT"):
        store.eula.should_present_at("terms", language="de_AT")
    store.check()


def test_a_schedule_crosses_at_the_exact_millisecond_with_grace(store):
    from datetime import timedelta
    from gatekit.eula_versions import EulaStatus
    store.eula.publish("terms", "v1", {"en": b"one"}, default_language="en")
    effective = datetime(2100, 1, 1, tzinfo=timezone.utc)
    store.eula.publish("terms", "v2", {"en": b"two"}, default_language="en", effective=effective, grace=timedelta(days=14))
    store.eula.accept("terms", gatekit.hash_bytes(b"one"), user="ann")
    ms = timedelta(milliseconds=1)
    before = store.eula.should_present_at("terms", user="ann", at=effective - ms)
    assert (before.label, before.status, before.next_effective) == ("v1", EulaStatus.ACCEPTED, effective)
    crossing = store.eula.should_present_at("terms", user="ann", at=effective)
    assert (crossing.label, crossing.status, crossing.required_at) == ("v2", EulaStatus.IN_GRACE, effective + timedelta(days=14))
    assert not crossing.must_present
    assert store.eula.should_present_at("terms", user="ann", at=effective + timedelta(days=14) - ms).status is EulaStatus.IN_GRACE
    assert store.eula.should_present_at("terms", user="ann", at=effective + timedelta(days=14)).must_present
    assert store.eula.should_present_at("terms", user="bo", at=effective).must_present
    with pytest.raises(gatekit.NotFoundError):
        store.eula.should_present_at("terms", at=datetime(2000, 1, 1, tzinfo=timezone.utc))


def test_an_export_proves_the_history_and_an_edit_is_found(store, tmp_path):
    import io
    from gatekit.eula import Consent, EulaMethod
    from gatekit.eula_versions import EulaExportAlteredError
    store.eula.publish("terms", "v1", {"en": b"one", "de": b"eins"}, default_language="en")
    store.eula.accept("terms", gatekit.hash_bytes(b"eins"), user="ann",
                      consent=Consent(EulaMethod.CLICK_THROUGH, client_address="192.0.2.9", metadata={"box": "a, \"b\""}))
    store.eula.decline("privacy", gatekit.hash_bytes(b"p"), user=b"\xff-not-utf8")
    store.eula.withdraw("terms", user="ann")
    for csv in (False, True):
        path = tmp_path / ("all.csv" if csv else "all.jsonl")
        with open(path, "wb") as out:
            assert store.eula.export(out, everyone=True, csv=csv, texts=True) == 3
        assert store.eula.verify_export(path) == 3
        text = path.read_bytes()
        path.write_bytes(text.replace(b"192.0.2.9", b"192.0.2.8", 1))
        with pytest.raises(EulaExportAlteredError, match="client_address"):
            store.eula.verify_export(path)
        path.write_bytes(text[: text.rindex(b"\n", 0, len(text) - 1) + 1])  # the end record cut off
        with pytest.raises(EulaExportAlteredError):
            store.eula.verify_export(path)
    buffer = io.BytesIO()
    assert store.eula.export(buffer, document_id="terms", user="ann") == 2
    records = [__import__("json").loads(line) for line in buffer.getvalue().splitlines()]
    assert [r["record"] for r in records] == ["export", "decision", "decision", "end"]
    assert records[1]["language"] == "de" and records[1]["version"] == "v1" and records[2]["decision"] == "withdrawn"

    class Full(io.RawIOBase):
        def write(self, b):  # type: ignore[override]
            raise OSError(28, "No space left on device")
    with pytest.raises(OSError, match="No space"):
        store.eula.export(Full(), everyone=True)  # type: ignore[arg-type]


def test_a_csv_export_runs_no_formula_in_a_spreadsheet_and_still_verifies(store, tmp_path):
    """Cells beginning with =, +, -, @, a tab or a carriage return (a user agent, a user name,
    metadata) were written as is: a spreadsheet opening the export ran them (Hardening IV, 16)."""
    import csv as csvmodule
    from gatekit.eula import Consent, EulaMethod
    hostile = ['=HYPERLINK("http://x","y")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1)", "\t=1", "\r=1"]
    terms = gatekit.hash_bytes(b"terms")
    for n, text in enumerate(hostile):
        store.eula.accept("terms", terms, user=text if n % 2 == 0 else f"u{n}",
                          consent=Consent(EulaMethod.API, user_agent=text if n % 2 else "agent", metadata={"note": text}))
    path = tmp_path / "everyone.csv"
    with open(path, "wb") as out:
        assert store.eula.export(out, everyone=True, csv=True) == len(hostile)
    with open(path, newline="") as f:
        rows = list(csvmodule.reader(f))
    cells = [cell for row in rows for cell in row]
    assert all(cell[:1] not in ("=", "+", "-", "@", "\t", "\r") for cell in cells), [c for c in cells if c[:1] in "=+-@\t\r"]
    for text in hostile:
        assert f"'{text}" in cells, text  # neutralised, the text itself kept after the '
    assert store.eula.verify_export(path) == len(hostile)
    # The store's own record of who said what is untouched by the neutralisation.
    assert {d.user for d in store.eula.history_all("terms")} >= {hostile[0], hostile[2], hostile[4]}


def test_verifying_a_crafted_export_is_bounded_by_what_the_store_holds(store, tmp_path):
    """A header claiming decision 10^15 (everyone's export) made verification step through a
    thousand ids at a time up to it: killed after 20 s, months extrapolated (Hardening IV, 17)."""
    import json as jsonmodule
    import subprocess
    import sys
    from conftest import child_env, location_of
    for n in range(3):
        store.eula.accept("terms", gatekit.hash_bytes(b"terms"), user=f"u{n}")
    path = tmp_path / "everyone.jsonl"
    with open(path, "wb") as out:
        assert store.eula.export(out, everyone=True) == 3
    lines = path.read_bytes().splitlines(keepends=True)
    header = jsonmodule.loads(lines[0])
    header["id"] = 10**15
    path.write_bytes(jsonmodule.dumps(header, separators=(",", ":")).encode() + b"\n" + b"".join(lines[1:]))
    where, app_id = location_of(store)
    code = ("import sys, gatekit\n"
            "from gatekit.eula_versions import EulaExportAlteredError\n"
            "with gatekit.Store(sys.argv[1], app_id=sys.argv[2] or None) as s:\n"
            "    try: s.eula.verify_export(sys.argv[3])\n"
            "    except EulaExportAlteredError as e: print('altered:', e); sys.exit(7)\n")
    done = subprocess.run([sys.executable, "-c", code, where, app_id or "", str(path)], capture_output=True, text=True,
                          env=child_env(), timeout=60)
    assert done.returncode == 7 and "never wrote this file" in done.stdout, done.stdout + done.stderr


def test_a_publication_or_text_edited_in_the_file_is_found(tmp_path):
    """Version 2's grace set to ten years in the SQLite file passed `store check` and turned a
    REQUIRED answer into IN_GRACE; a text's body edited passed too, and eula_text() returned
    bytes whose SHA-256 was not the hash they were looked up by (Hardening IV, 18)."""
    import sqlite3
    from datetime import timedelta
    from gatekit.eula_versions import EulaStatus
    path = tmp_path / "sealed.sqlite"
    with gatekit.Store(str(path)) as store:
        store.eula.publish("terms", "v1", {"en": b"one"}, default_language="en")
        store.eula.publish("terms", "v2", {"en": b"two", "de": b"zwei"}, default_language="en", grace=timedelta(days=1))
        store.eula.publish("privacy", "p1", {"en": b"private"}, default_language="en")
        store.eula.accept("terms", gatekit.hash_bytes(b"one"), user="ann")
        store.check()
        at = datetime.now(timezone.utc) + timedelta(days=2)
        assert store.eula.should_present_at("terms", user="ann", at=at).status is EulaStatus.REQUIRED

    def edited(sql: str, *args: object) -> None:
        with sqlite3.connect(path) as db:  # what anyone with the file can do
            for table in ("eula_versions", "eula_texts"):
                db.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
            db.execute(sql, args)

    edited("UPDATE eula_versions SET grace_ms = ? WHERE label = 'v2'", 10 * 365 * 86_400_000)
    with gatekit.Store(str(path)) as store:
        with pytest.raises(gatekit.CorruptStoreError, match="version \"v2\" of \"terms\" does not match its seal"):
            store.check()
    edited("UPDATE eula_versions SET grace_ms = ? WHERE label = 'v2'", 86_400_000)
    with gatekit.Store(str(path)) as store:
        store.check()  # as published again
    edited("UPDATE eula_texts SET body = ? WHERE hash = ?", b"zwo", gatekit.hash_bytes(b"zwei"))
    with gatekit.Store(str(path)) as store:
        with pytest.raises(gatekit.CorruptStoreError, match="is not that text"):
            store.eula.text("terms", gatekit.hash_bytes(b"zwei"))
        with pytest.raises(gatekit.CorruptStoreError, match="is not that text"):
            store.check()
        assert store.eula.text("terms", gatekit.hash_bytes(b"two")) == b"two"


def test_eight_processes_accept_translations_into_one_history(store_location, open_store, tmp_path):
    """Eight processes ask in four languages and accept at once: every acceptance is kept with
    its text's language, and the export of everyone verifies."""
    with open_store("translations") as store:
        store.eula.publish("terms", "v1", {"en": b"Terms", "de": b"Bedingungen", "fr": b"Conditions", "pt-BR": b"Termos"},
                           default_language="en")
    per_process = 20
    procs = [worker("accept-translations", store_location("translations"), f"p{n}", str(per_process)) for n in range(8)]
    for p in procs:
        assert p.wait(timeout=120) == 0
    with open_store("translations") as store:
        history = store.eula.history_all("terms")
        assert len(history) == 8 * per_process
        assert sorted({d.language for d in history}) == ["de", "en", "fr", "pt-BR"]
        assert all(not store.eula.should_present_at("terms", user=d.user).must_present for d in history[:8])
        with open(tmp_path / "everyone.jsonl", "wb") as out:
            assert store.eula.export(out, everyone=True) == 8 * per_process
        assert store.eula.verify_export(tmp_path / "everyone.jsonl") == 8 * per_process
        store.check()
