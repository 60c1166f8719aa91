"""The README's programs do what the README says they do."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import gatekit

from conftest import REPO_ROOT, child_env, example, example_env


def run(args, store):
    env = dict(child_env(), GATEKIT_STORE=str(store))
    return subprocess.run(args, env=env, capture_output=True, text=True)


def run_example(args, store):
    return subprocess.run(args, env=example_env(GATEKIT_STORE=str(store)), capture_output=True, text=True)


@pytest.mark.example
def test_hello_eula_py_gates_a_eula(tmp_path):
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")
    script = example("hello_eula.py") + [str(eula)]
    store = tmp_path / "store.sqlite"
    first = run_example(script, store)
    assert first.returncode == 3, first.stderr
    assert run_example(script + ["--accept"], store).returncode == 0
    again = run_example(script, store)
    assert again.returncode == 0 and "already accepted" in again.stdout
    eula.write_text("Terms, changed\n")
    assert run_example(script, store).returncode == 3


def test_the_c_tool_exits_172_when_acceptance_is_impossible(tmp_path):
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")
    store = tmp_path / "store.sqlite"
    check = [tool, "eula", "check", "--doc", "terms", "--file", str(eula)]
    env = {k: v for k, v in child_env().items() if k != "GATEKIT_ACCEPT_EULA"}
    env["GATEKIT_STORE"] = str(store)
    headless = subprocess.run(check, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert headless.returncode == 172 and "no terminal" in headless.stderr
    accepted = subprocess.run(check, env=dict(env, GATEKIT_ACCEPT_EULA="1"), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True)
    assert accepted.returncode == 0 and "accepted headless" in accepted.stdout
    status = subprocess.run([tool, "eula", "status", "--doc", "terms", "--file", str(eula)], env=env,
                            capture_output=True, text=True)
    assert status.returncode == 0 and status.stdout.startswith("accepted terms")


def test_the_c_tool_accepts_headless_only_the_text_that_was_named(tmp_path):
    """--accept-hash and GATEKIT_ACCEPT accept exactly the named text (exit 6 for another one,
    nothing recorded); the history says how each decision was given; withdraw takes it back."""
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms v2\n")
    digest = gatekit.hash_file(eula)
    env = {k: v for k, v in child_env().items() if k not in ("GATEKIT_ACCEPT_EULA", "GATEKIT_ACCEPT")}
    env["GATEKIT_STORE"] = str(tmp_path / "store.sqlite")

    def gk(*args: str, **extra: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run([tool, "eula", *args], env=dict(env, **extra), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True)

    check = ["check", "--doc", "terms", "--file", str(eula)]
    stale = gk(*check, "--accept-hash", gatekit.hash_bytes(b"Terms v1\n")[:8])
    assert stale.returncode == 6 and digest in stale.stderr and "nothing was accepted" in stale.stderr
    assert gk(*check, GATEKIT_ACCEPT=f"terms@{gatekit.hash_bytes(b'v1')[:8]}").returncode == 6
    assert gk(*check, "--user", "ops", GATEKIT_ACCEPT="terms@nothex!").returncode == 1
    assert gk("status", "--doc", "terms", "--file", str(eula)).returncode == 3  # nothing recorded
    named = gk(*check, "--accept-hash", digest[:8].upper(), "--client-address", "192.0.2.9", "--meta", "ticket=OPS-7")
    assert named.returncode == 0 and "accepted headless by --accept-hash" in named.stdout
    by_env = gk(*check, "--user", "ci", GATEKIT_ACCEPT=f"privacy@00000000, terms@{digest[:16]}")
    assert by_env.returncode == 0 and "accepted headless by GATEKIT_ACCEPT" in by_env.stdout
    assert gk("withdraw", "--doc", "terms", "--user", "ci", "--method", "admin", "--meta", "reason=asked {by mail}").returncode == 0
    assert gk("withdraw", "--doc", "terms", "--user", "ci").returncode == 3
    assert gk("status", "--doc", "terms", "--file", str(eula), "--user", "ci").returncode == 3
    history = json.loads(gk("history", "--all", "--json").stdout)["decisions"]
    assert [(d["user"], d["decision"], d.get("method"), d.get("metadata")) for d in history] == [
        (None, "accepted", "cli-flag", {"ticket": "OPS-7"}),
        ("ci", "accepted", "environment", {"variable": "GATEKIT_ACCEPT"}),
        ("ci", "withdrawn", "admin", {"reason": "asked {by mail}"})]
    table = gk("history", "--all").stdout.splitlines()
    assert table[0].split()[:6] == ["at", "document", "user", "decision", "method", "sha256"]
    assert [line.split()[3:5] for line in table[1:]] == [["accepted", "cli-flag"], ["accepted", "environment"], ["withdrawn", "admin"]]
    assert gk("accept", "--doc", "terms", "--hash", digest, "--method", "telepathy").returncode == 2
    assert gk("accept", "--doc", "terms", "--hash", digest, "--locale", "de_AT").returncode == 1


def test_the_tools_questions_create_no_store(tmp_path):
    """`eula status` and `eula history` answer "nothing accepted yet" without creating the
    store (or its folder)."""
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    if not os.path.exists(tool):
        pytest.skip(f"the gatekit tool is not built at {tool} (make tool)")
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")
    store = tmp_path / "not-yet" / "store.sqlite"
    base = [tool, "--store", str(store), "eula"]
    status = subprocess.run(base + ["status", "--doc", "terms", "--file", str(eula)], capture_output=True, text=True)
    assert status.returncode == 3 and status.stdout.startswith("present terms")
    history = subprocess.run(base + ["history", "--json"], capture_output=True, text=True)
    assert history.returncode == 0 and '"decisions":[]' in history.stdout
    assert not (tmp_path / "not-yet").exists()


@pytest.mark.example
def test_the_permission_flow_runs_in_python(tmp_path):
    py_run = run_example(example("perm_flow.py"), tmp_path / "py.sqlite")
    assert py_run.returncode == 0, py_run.stderr
    assert "camera on" in py_run.stdout and py_run.stdout.count("-> AUTHORIZED") == 4
    again = run_example(example("perm_flow.py"), tmp_path / "py.sqlite")
    assert again.returncode == 0 and "->" not in again.stdout and "camera on" in again.stdout


def test_the_permission_flow_runs_in_c(tmp_path):
    binary = tmp_path / "perm_flow"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "gatekit"], env=dict(
        os.environ, PKG_CONFIG_PATH=str(REPO_ROOT / "pkgconfig")), capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-o", str(binary), str(REPO_ROOT / "examples" / "perm_flow.c"), *flags],
                   check=True)
    c_run = run([str(binary)], tmp_path / "c.sqlite")
    assert c_run.returncode == 0, c_run.stderr
    # Every wanted category is asked once; the callback reports each change; the camera ends authorized.
    assert "camera: unknown -> authorized" in c_run.stdout
    assert "camera on" in c_run.stdout
    assert c_run.stdout.count("-> authorized") == 4
    # Run again on the same store: nothing left to ask, nothing changes.
    again = run([str(binary)], tmp_path / "c.sqlite")
    assert again.returncode == 0 and "->" not in again.stdout and "camera on" in again.stdout


def readme_example_blocks():
    """(file, block) for each README code block introduced by a link to an examples/ file."""
    lines = (REPO_ROOT / "README.md").read_text().splitlines()
    found = []
    for i, line in enumerate(lines):
        if not line.startswith("```") or line == "```" or i < 2:
            continue
        intro = " ".join(lines[max(0, i - 3):i])
        links = re.findall(r"\(examples/([\w.]+)\)", intro)
        if not links:
            continue
        end = lines.index("```", i + 1)
        found.append((links[-1], lines[i + 1:end]))
    return found


def test_readme_programs_are_the_tested_example_files():
    """What the README shows is what the tests run: each program block is the example file,
    or an uninterrupted excerpt of it."""
    blocks = readme_example_blocks()
    assert {name for name, _ in blocks} >= {"hello_eula.c", "hello_eula.py", "perm_flow.c", "perm_flow.py",
                                            "receipt_check.c", "receipt_server.py"}
    for name, block in blocks:
        source = [line.rstrip() for line in (REPO_ROOT / "examples" / name).read_text().splitlines()]
        block = [line.rstrip() for line in block]
        starts = [k for k in range(len(source) - len(block) + 1) if source[k:k + len(block)] == block]
        assert starts, f"the README's block for examples/{name} is not an excerpt of the file"


@pytest.mark.parametrize("args, first_line", [
    (["-h"], "usage: gatekit [--store PATH]"),
    (["--help"], "usage: gatekit [--store PATH]"),
    (["help"], "usage: gatekit [--store PATH]"),
    (["help", "ledger"], "usage: gatekit ledger"),
    (["eula", "--help"], "usage: gatekit eula"),
    (["receipt", "verify", "--help"], "usage: gatekit receipt"),
    (["perm", "record", "--help"], "usage: gatekit perm"),
    (["--version"], "gatekit "),
])
def test_the_tool_prints_asked_for_usage_to_stdout_with_exit_0(args, first_line):
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    if not os.path.exists(tool):
        pytest.skip(f"the gatekit tool is not built at {tool} (make tool)")
    out = subprocess.run([tool, *args], capture_output=True, text=True, timeout=30)
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout.startswith(first_line)
    # After a mistake: usage on stderr, exit 2 (the tool's usage code).
    wrong = subprocess.run([tool, *args[:1], "--no-such-option-xyz"] if args[0] not in ("-h", "--help", "--version") else [tool, "--bogus"],
                           capture_output=True, text=True, timeout=30)
    assert wrong.returncode == 2 and wrong.stdout == "" and "usage:" in wrong.stderr


def test_the_man_page_and_completion_come_from_the_help_texts():
    """`make tool` generates gatekit(1) and the bash completion from the tool's --help texts."""
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    folder = Path(tool).parent
    if not (folder / "gatekit.1").exists():
        pytest.skip(f"no generated man page beside {tool} (make tool)")
    page = (folder / "gatekit.1").read_text()
    assert page.startswith(".TH GATEKIT 1")
    for command in ("eula", "receipt", "perm", "jws", "ledger", "appstore", "store", "test"):
        usage = subprocess.run([tool, "help", command], capture_output=True, text=True).stdout
        # Every line of the command's usage is in the page (roff escapes only backslashes).
        for line in usage.splitlines()[1:]:
            assert line.replace("\\", "\\e") in page, line
    completion = folder / "gatekit.bash"
    script = f"source {completion}; COMP_WORDS=(gatekit eula sta); COMP_CWORD=2; _gatekit; echo ${{COMPREPLY[@]}}"
    assert subprocess.run(["bash", "-c", script], capture_output=True, text=True).stdout.split()[:1] == ["status"]


def test_one_exit_code_table_and_json_answers(tmp_path):
    """Every question answers yes with 0 and no with 3, in text or with --json; a damaged store
    is 5; refused receipts and signed data are 10/11/12 with the same JSON on stdout; the README
    and gatekit(1) list the same table."""
    tool = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
    store = tmp_path / "store.sqlite"
    eula = tmp_path / "EULA.txt"
    eula.write_text("Terms\n")

    def gk(*args: str):
        done = subprocess.run([tool, "--store", str(store), *args], capture_output=True, text=True)
        return done.returncode, done.stdout

    code, out = gk("eula", "status", "--doc", "terms", "--file", str(eula), "--json")
    assert code == 3 and json.loads(out)["present"] is True
    assert gk("eula", "accept", "--doc", "terms", "--file", str(eula))[0] == 0
    code, out = gk("eula", "status", "--doc", "terms", "--file", str(eula), "--json")
    assert code == 0 and json.loads(out) == {"document": "terms", "hash": json.loads(out)["hash"], "present": False}
    # The state allows a prompt, but without a usage description asking would fail: not allowed.
    code, out = gk("perm", "state", "camera", "--json")
    answer = json.loads(out)
    assert code == 3 and answer["allows_prompt"] is False and answer["usage_description_missing"] is True
    assert answer["name"] == "camera" and answer["state_name"] == "unknown"
    assert gk("perm", "usage", "microphone", "Record voice notes")[0] == 0
    assert gk("perm", "record", "microphone", "dont-ask")[0] == 0
    code, out = gk("perm", "state", "microphone", "--json")
    assert code == 3 and json.loads(out)["allows_prompt"] is False
    assert gk("perm", "usage", "camera", "Scan codes")[0] == 0
    code, out = gk("perm", "pending", "camera", "microphone", "--json")
    assert code == 0 and [p["name"] for p in json.loads(out)["pending"]] == ["camera"]
    assert gk("perm", "record", "camera", "authorized")[0] == 0
    code, out = gk("perm", "pending", "camera", "--json")
    assert code == 3 and json.loads(out) == {"version": 1, "pending": []}
    code, out = gk("store", "check", "--json")
    assert code == 0 and json.loads(out)["sound"] is True
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4080)
    done = subprocess.run([tool, "--store", str(damaged), "store", "check", "--json"], capture_output=True, text=True)
    assert done.returncode == 5 and json.loads(done.stdout)["sound"] is False
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"not signed data at all")
    code, out = gk("jws", "verify", "--type", "transaction", "--bundle-id", "com.example", "--environment", "Sandbox", str(garbage))
    refusal = json.loads(out)
    assert code == 10 and refusal["status"] is None and refusal["code"] == -300
    code, out = gk("receipt", "verify", "--bundle-id", "com.example", str(garbage))
    refusal = json.loads(out)
    assert code == 10 and refusal["status"] == 21002 and refusal["code"] < -99
    # The README and the man page carry the same table.
    readme = (REPO_ROOT / "README.md").read_text()
    table = dict(re.findall(r"^\| (\d+) \| (.+) \|$", readme.split("One exit-code table")[1].split("Refusals")[0], re.M))
    assert sorted(map(int, table)) == [0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 172]
    page = (REPO_ROOT / ".build" / "c" / "gatekit.1").read_text()
    listed = re.findall(r"^(\d+) +\S", page.split(".SH EXIT STATUS")[1].split(".SH ")[0], re.M)
    assert sorted(map(int, listed)) == sorted(map(int, table))


def test_the_readmes_package_list_is_what_install_deps_installs():
    """The Debian packages the README says the two commands install are exactly the ones
    scripts/install-deps.sh installs (a package added to one and not the other fails here)."""
    import re
    script = (REPO_ROOT / "scripts" / "install-deps.sh").read_text()
    installed = set(re.search(r"packages=\(([^)]*)\)", script, re.S).group(1).replace('"$@"', "").split())
    readme = " ".join((REPO_ROOT / "README.md").read_text().split())
    listed = set(re.search(r"whatever is missing of `([^`]*)`", readme).group(1).split())
    assert listed == installed, (sorted(listed - installed), sorted(installed - listed))


@pytest.mark.example
def test_both_stores_answers_alice_from_whichever_store_entitles_her(tmp_path):
    """examples/both_stores.py (docs/play.md, "Quick start"): offline, one catalog for both
    stores, alice's Apple month then her Play subscription; the ledger it leaves answers the tool."""
    store = tmp_path / "ledger.sqlite"
    done = run_example(example("both_stores.py") + [str(store)], tmp_path / "unused.sqlite")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "alice, pro, 20 days ago: entitled (subscription, from app-store: com.example.pro.monthly)",
        "alice, pro, 10 days ago: not entitled (expired, from app-store: com.example.pro.monthly)",
        "alice, pro, now: entitled (subscription, from play: pro.monthly:monthly)"]
    with gatekit.Store(str(store)) as s:
        e = s.ledger.entitled("alice", "pro", environment="Production", test_signed=True, by_app_user=True)
        assert e and e.store == "play" and e.grants == ("pro",)
        assert s.ledger.entitled("alice", "pro", environment="Production", by_app_user=True).reason.name == "ONLY_TEST_SIGNED"


def test_both_stores_in_c_asks_the_ledger_the_quick_start_left(tmp_path):
    """examples/both_stores.c: alice's answer names Google Play; without --test-signed the
    ledger says her purchases are test data; a store that is not there is an error, never made."""
    store = tmp_path / "ledger.sqlite"
    made = run_example(example("both_stores.py") + [str(store)], tmp_path / "unused.sqlite")
    assert made.returncode == 0, made.stderr
    binary = tmp_path / "both_stores"
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "gatekit"], env=dict(
        os.environ, PKG_CONFIG_PATH=str(REPO_ROOT / "pkgconfig")), capture_output=True, text=True, check=True).stdout.split()
    subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(binary), str(REPO_ROOT / "examples" / "both_stores.c"), *flags],
                   check=True)
    asked = run([str(binary), str(store), "alice", "pro", "--test-signed"], store)
    answer = json.loads(asked.stdout)
    assert asked.returncode == 0 and answer["entitled"] is True and answer["store"] == "play" and answer["entitlements"] == ["pro"], asked.stderr
    real = run([str(binary), str(store), "alice", "pro"], store)
    assert real.returncode == 3 and json.loads(real.stdout)["reason"] == "only-test-signed", real.stdout
    missing = run([str(binary), str(tmp_path / "absent.sqlite"), "alice", "pro"], store)
    assert missing.returncode == 1 and "cannot open" in missing.stderr and not (tmp_path / "absent.sqlite").exists()
