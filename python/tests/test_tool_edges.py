"""The tool as a new user meets it (issue 25): a missing option is named, a wrong value is a
usage error, global options may follow the command, questions never create a store, and each
answer is complete (eula show's hash, perm's usage descriptions)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import REPO_ROOT

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))


@pytest.fixture
def home(tmp_path: Path) -> Dict[str, str]:
    """An environment whose default store would be under tmp_path/state."""
    env = {k: v for k, v in os.environ.items() if k != "GATEKIT_STORE"}
    env.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"), TMPDIR=str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    return env


def gk(env: Dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TOOL, *args], capture_output=True, text=True, env=env, timeout=60)


def everything_under(folder: Path) -> List[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


def test_questions_never_create_a_store(tmp_path: Path, home: Dict[str, str]):
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")
    questions = [
        (["store", "path"], 3), (["store", "info"], 3), (["store", "check"], 1),
        (["ledger", "entitled", "--environment", "Sandbox", "1000", "pro"], 3),
        (["ledger", "active", "--environment", "Sandbox", "1000"], 3),
        (["ledger", "status", "--environment", "Sandbox", "1000"], 3),
        (["ledger", "eligible", "--environment", "Sandbox", "1000", "group"], 3),
        (["ledger", "history", "--environment", "Sandbox"], 3),
        (["ledger", "links", "--environment", "Sandbox"], 3),
        (["ledger", "catalog"], 3),
        (["ledger", "changes"], 3),
        (["ledger", "changes", "--follow"], 3),   # never waits on a store that is not there
        (["ledger", "sync-state", "--environment", "Sandbox"], 3),
        (["ledger", "metrics", "--environment", "Sandbox", "--from", "2025-01-01", "--to", "2025-02-01"], 3),
        (["perm", "list"], 0), (["perm", "state", "camera"], 3), (["perm", "history"], 0),
        (["eula", "status", "--doc", "terms", "--file", str(eula)], 3),
    ]
    for args, code in questions:
        done = gk(home, "--app-id", "com.example.app", *args)
        assert done.returncode == code, (args, done.returncode, done.stderr)
        assert everything_under(tmp_path / "state") == [], args
        assert everything_under(tmp_path / "tmp") == [], args   # the empty stand-in is removed
    # A ledger question of an absent store says so, naming the path (a forgotten --app-id is
    # seen at once, not answered "no-purchase" from a store that does not exist).
    absent = gk(home, "--app-id", "com.example.app", "ledger", "entitled", "--environment", "Sandbox", "1000", "pro")
    assert absent.stdout == "" and absent.stderr.startswith("gatekit ledger entitled: no store yet")
    assert str(tmp_path / "state" / "gatekit" / "com.example.app.sqlite") in absent.stderr and "--app-id" in absent.stderr
    path = gk(home, "--app-id", "com.example.app", "store", "path")
    assert "no store yet" in path.stderr and str(tmp_path / "state" / "gatekit" / "com.example.app.sqlite") in path.stderr
    # What records something creates it; then store path answers.
    assert gk(home, "--app-id", "com.example.app", "perm", "usage", "camera", "Scan codes").returncode == 0
    store = tmp_path / "state" / "gatekit" / "com.example.app.sqlite"
    assert store.is_file()
    assert gk(home, "--app-id", "com.example.app", "store", "path").stdout.strip() == str(store)


def test_global_options_may_follow_the_command(tmp_path: Path, home: Dict[str, str]):
    store = tmp_path / "s.sqlite"
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")
    assert gk(home, "eula", "accept", "--doc", "terms", "--file", str(eula), "--store", str(store)).returncode == 0
    assert gk(home, "eula", "status", "--store=" + str(store), "--doc", "terms", "--file", str(eula)).returncode == 0
    assert gk(home, "--store", str(store), "eula", "status", "--doc", "terms", "--file", str(eula)).returncode == 0
    assert gk(home, "store", "path", "--app-id", "other.app").returncode == 3   # a different store: none yet
    assert gk(home, "eula", "status", "--doc", "terms", "--file", str(eula), "--store").returncode == 2


@pytest.mark.parametrize("args, named", [
    (["jws", "verify", "--type", "transaction", "--environment", "Sandbox", "f"], "missing --bundle-id"),
    (["jws", "verify", "--bundle-id", "b", "--environment", "Sandbox", "f"], "missing --type"),
    (["jws", "verify", "--type", "transaction", "--bundle-id", "b", "f"], "missing --environment"),
    (["jws", "entitled", "--bundle-id", "b", "--environment", "Sandbox"], "missing FILE"),
    (["ledger", "ingest", "--bundle-id", "b", "--environment", "Sandbox", "f"], "missing --type"),
    (["ledger", "entitled", "1000", "pro"], "missing --environment"),
    (["ledger", "entitled", "--environment", "Sandbox", "1000"], "missing PRODUCT|GROUP"),
    (["receipt", "verify", "f"], "missing --bundle-id"),
    (["api", "get-transaction-info", "--key-id", "K"], "missing --key"),
    (["test", "sign", "--pki", "p", "f"], "missing --kind"),
    (["test", "pki"], "missing DIR"),
])
def test_a_missing_option_is_named_before_the_usage(home: Dict[str, str], args: List[str], named: str):
    done = gk(home, *args)
    assert done.returncode == 2, done.stderr
    assert named in done.stderr.splitlines()[0] and "usage:" in done.stderr


@pytest.mark.parametrize("args", [
    ["jws", "verify", "--type", "transaction", "--bundle-id", "b", "--environment", "sandbox", "/dev/null"],
    ["ledger", "entitled", "--environment", "production", "1000", "pro"],
    ["ledger", "ingest", "--type", "transaction", "--bundle-id", "b", "--environment", "SANDBOX", "/dev/null"],
    ["jws", "verify", "--type", "renewal", "--bundle-id", "b", "--environment", "Sandbox", "/dev/null"],
    ["jws", "entitled", "--bundle-id", "b", "--environment", "Sandbox", "--at-ms", "99999999999999999999", "/dev/null"],
    ["ledger", "entitled", "--environment", "Sandbox", "--at", "9999999999999999", "1000", "pro"],
    ["receipt", "verify", "--bundle-id", "b", "--at", "99999999999999999999", "/dev/null"],
])
def test_a_wrong_value_is_a_usage_error(home: Dict[str, str], args: List[str]):
    done = gk(home, *args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stdout == ""


def test_eula_show_prints_the_hash_on_stdout(tmp_path: Path, home: Dict[str, str]):
    import hashlib
    eula = tmp_path / "EULA.txt"
    eula.write_bytes(b"Terms without a final newline")
    shown = gk(home, "eula", "show", "--file", str(eula))
    assert shown.returncode == 0
    assert shown.stdout == f"Terms without a final newline\nsha256 {hashlib.sha256(eula.read_bytes()).hexdigest()}\n"


def test_perm_answers_name_a_missing_usage_description(tmp_path: Path, home: Dict[str, str]):
    store = str(tmp_path / "s.sqlite")
    listed = json.loads(gk(home, "--store", store, "perm", "list", "--json").stdout)
    camera = next(c for c in listed["categories"] if c["name"] == "camera")
    assert camera["state_name"] == "unknown" and camera["allows_prompt"] is False and camera["usage_description"] is None
    text = gk(home, "--store", store, "perm", "state", "camera")
    assert text.returncode == 3 and "no usage description" in text.stdout
    pending = gk(home, "--store", store, "perm", "pending", "camera")
    assert pending.returncode == 1 and "camera" in pending.stderr and "usage description" in pending.stderr
    assert gk(home, "--store", store, "perm", "usage", "camera", "Scan codes").returncode == 0
    listed = json.loads(gk(home, "--store", store, "perm", "list", "--json").stdout)
    assert next(c for c in listed["categories"] if c["name"] == "camera")["allows_prompt"] is True
    assert gk(home, "--store", store, "perm", "state", "camera").returncode == 0
