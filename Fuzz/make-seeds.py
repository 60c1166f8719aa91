#!/usr/bin/env python3
"""Writes generated fuzz seeds into OUT/<target>/ (default .build/fuzz/seeds).

Real Apple data is read from $GATEKIT_FIXTURES at run time and never copied into the
repository; the generated samples (dates, base64 texts, store files) are rebuilt each run.
Usage: Fuzz/make-seeds.py [OUT]
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / ".build" / "fuzz" / "seeds"
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", ROOT.parent / "shared" / "fixtures"))


def put(target: str, data: bytes) -> None:
    folder = OUT / target
    folder.mkdir(parents=True, exist_ok=True)
    (folder / hashlib.sha1(data).hexdigest()).write_bytes(data)


def fixture_files(*patterns: str):
    if not FIXTURES.is_dir():
        return []
    return sorted(p for pattern in patterns for p in FIXTURES.glob(pattern) if p.is_file())


def b64url_decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def jws_texts():
    return [p.read_bytes().strip() for p in fixture_files("jws/apple-test/mock_signed_data/*", "jws/apple-test/xcode/*")]


def receipts():
    return [p.read_bytes() for p in fixture_files("receipts/*/*.der", "receipts/negative/*")]


def json_seeds() -> None:
    for p in fixture_files("jws/apple-test/models/*.json", "expected/*.json"):
        data = p.read_bytes()
        put("json", data[:65536])
    for text in jws_texts():
        for part in text.split(b".")[:2]:
            try:
                put("json", b64url_decode(part.decode()))
            except Exception:
                pass
    for sample in ['{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\ud83d\\ude00"]}', '[]', '{}', '"x"', '0',
                   '{"signedDate":1697679936049.7297,"x5c":["MIIB"],"alg":"ES256"}', '[[[[[[[[[[]]]]]]]]]]']:
        put("json", sample.encode())


def date_seeds() -> None:
    for text in ["2026-11-22T06:52:02.123Z", "2020-07-22T18:33:15+0100", "2013-08-01T07:00:00Z",
                 "1970-01-01T00:00:00Z", "9999-12-31T23:59:60.999999-23:59", "2024-02-29 12:00:00+05:30",
                 "0000-01-01t00:00:00z", "2017-01-01T00:00:00.5Z"]:
        put("date", text.encode())


def base64_seeds() -> None:
    rng = random.Random(6)
    for data in receipts():
        put("base64", base64.b64encode(data[:3000]))
        put("base64", base64.encodebytes(data[:600]))  # with line breaks, as devices send them
    for text in jws_texts():
        for part in text.split(b".")[:3]:
            put("base64", part[:4000])
    for n in range(0, 8):
        raw = bytes(rng.randrange(256) for _ in range(n))
        put("base64", base64.b64encode(raw))
        put("base64", base64.urlsafe_b64encode(raw).rstrip(b"="))


def eula_history_seeds() -> None:
    rng = random.Random(7)
    for n in (0, 1, 60, 200, 600):
        put("eula-history", bytes(rng.randrange(256) for _ in range(n)))


def eula_export_seeds() -> None:
    """The first byte picks the file: 1 and 2 edit the store's own JSON-lines and CSV export
    (the target makes them), 0 takes the rest as the file; no edit is a valid export."""
    rng = random.Random(11)
    put("eula-export", bytes([1, 0]))
    put("eula-export", bytes([2, 0]))
    for n in (2, 12, 40):
        put("eula-export", bytes([1 + n % 2]) + bytes(rng.randrange(256) for _ in range(n)))
    put("eula-export", b"\x00" + b'{"record":"export","version":"gatekit-eula-export/1","id":4,"document_id":null,'
                                  b'"decision":"everyone","at":"2026-11-26T10:00:00.000Z","text":"texts"}\n{"record":"end","id":0}\n')


def store_file_seeds() -> None:
    """A real GateKit store (the schema of migration 1), an empty and a foreign database."""
    scratch = OUT / "scratch"
    scratch.mkdir(parents=True, exist_ok=True)
    for name, setup in (("gatekit", gatekit_schema), ("foreign", foreign_schema), ("empty", lambda db: None)):
        path = scratch / f"{name}.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        db = sqlite3.connect(path)
        setup(db)
        db.commit()
        db.execute("VACUUM")
        db.close()
        put("store-file", path.read_bytes())


def gatekit_schema(db: sqlite3.Connection) -> None:
    # Mirrors migration 1 (Store/StoreTables.swift + EULA/EULASchema.swift; a seed, not a contract).
    db.executescript("""
        CREATE TABLE gatekit_meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE eula_decisions(id INTEGER PRIMARY KEY AUTOINCREMENT, document_id TEXT NOT NULL,
            user_name BLOB, hash TEXT NOT NULL CHECK (length(hash) = 64),
            decision INTEGER NOT NULL CHECK (decision IN (1, 2)), at_ms INTEGER NOT NULL);
        CREATE INDEX eula_decisions_by_subject ON eula_decisions(document_id, user_name, hash, id);
        CREATE TABLE eula_minor_revisions(document_id TEXT NOT NULL,
            from_hash TEXT NOT NULL CHECK (length(from_hash) = 64), to_hash TEXT NOT NULL CHECK (length(to_hash) = 64),
            at_ms INTEGER NOT NULL, PRIMARY KEY (document_id, to_hash, from_hash)) WITHOUT ROWID;
        PRAGMA application_id = 1196706644;
        PRAGMA user_version = 1;
    """)
    for i in range(5):
        db.execute("INSERT INTO eula_decisions(document_id, user_name, hash, decision, at_ms) VALUES (?,?,?,?,?)",
                   (f"doc{i}", None if i % 2 else b"user", hashlib.sha256(bytes([i])).hexdigest(), 1 + i % 2, 1_700_000_000_000 + i))


def foreign_schema(db: sqlite3.Connection) -> None:
    db.execute("CREATE TABLE t(x)")
    db.execute("INSERT INTO t VALUES (1)")


def forgeries() -> Path:
    """Receipts signed by a throw-away test PKI (Tests/c/receipt_forgeries.sh), regenerated
    when missing; its root.der is the receipt-validate target's test anchor."""
    folder = OUT / "scratch" / "forgeries"
    if not (folder / "good.der").exists() and FIXTURES.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        result = subprocess.run(["bash", str(ROOT / "Tests" / "c" / "receipt_forgeries.sh"), str(folder), str(FIXTURES)],
                                capture_output=True)
        if result.returncode != 0:
            print("make-seeds: receipt_forgeries.sh failed; no generated receipts", file=sys.stderr)
    return folder


def payload_of(path: Path):
    result = subprocess.run(["openssl", "cms", "-verify", "-noverify", "-binary", "-inform", "DER", "-in", str(path)],
                            capture_output=True)
    return result.stdout if result.returncode == 0 and result.stdout else None


def receipt_seeds() -> None:
    generated = sorted(forgeries().glob("*.der"))
    real = fixture_files("receipts/*/*.der", "receipts/negative/*")
    for p in real + [g for g in generated if g.stat().st_size > 1500]:
        data = p.read_bytes()
        for target in ("receipt-container", "receipt-validate"):
            put(target, data)
        payload = payload_of(p)
        if payload:
            put("receipt-payload", payload)
    for p in real[:3]:
        put("receipt-container", base64.b64encode(p.read_bytes()))  # base64 text, as devices send it
    for target in ("receipt-container", "receipt-payload", "receipt-validate"):
        put(target, bytes.fromhex("3080020101") + b"\x00\x00")


def jws_seeds() -> None:
    for text in jws_texts():
        put("jws-parse", text)
        put("jws-verify", text)
    put("jws-parse", b"e30.e30.AA")  # {} . {} . signature
    put("jws-verify", b"eyJhbGciOiJFUzI1NiIsIng1YyI6W119.e30.AA")


def api_answer_seeds() -> None:
    for p in fixture_files("appstore-api/models/*.json"):
        put("api-answer", p.read_bytes()[:65536])
    put("api-answer", b'{"startDate":1,"productIds":["a"],"revoked":false}')
    put("api-answer", b"../x?y#z%2F..")


def play_push_seeds() -> None:
    data = base64.b64encode(b'{"version":"1.0","packageName":"com.example.app","eventTimeMillis":"1","subscriptionNotification":{"version":"1.0","notificationType":4,"purchaseToken":"t"}}')
    put("play-push", b'{"message":{"data":"' + data + b'","messageId":"1"},"subscription":"s"}')
    put("play-push", b'eyJhbGciOiJSUzI1NiIsImtpZCI6ImEifQ.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20ifQ.AAAA')
    put("play-push", b'{"keys":[{"kty":"RSA","kid":"a","n":"AQAB","e":"AQAB"}]}')
    put("play-push", b'{"error":{"code":410,"status":"NOT_FOUND","errors":[{"reason":"subscriptionNoLongerAvailable"}]}}')
    put("play-push", b'{"startTime":1,"type":1,"token":"x"}')


GENERATORS = {
    "json": json_seeds,
    "date": date_seeds,
    "base64": base64_seeds,
    "eula-history": eula_history_seeds,
    "eula-export": eula_export_seeds,
    "store-file": store_file_seeds,
    "receipts": receipt_seeds,
    "jws": jws_seeds,
    "api-answer": api_answer_seeds,
    "play-push": play_push_seeds,
}

if __name__ == "__main__":
    if not FIXTURES.is_dir():
        print(f"make-seeds: no fixtures at {FIXTURES}: generated seeds only", file=sys.stderr)
    for generate in GENERATORS.values():
        generate()
    counts = {t.name: len(list(t.glob("*"))) for t in sorted(OUT.iterdir()) if t.is_dir() and t.name != "scratch"}
    print("seeds:", ", ".join(f"{t} {n}" for t, n in counts.items()))
