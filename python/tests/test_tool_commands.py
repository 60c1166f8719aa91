"""Every tool command a user can read about exists (issue 44, item 9): each `gatekit COMMAND
SUBCOMMAND` named in the README, the docs, the man page and the tool's own help texts, each
`--type`/`--kind` value the docs give, and each command in a doc table's "tool" column is
checked against the tool's own command table (`gatekit help commands`, the table main.c
dispatches with) — and every command of that table is in `gatekit --help`, the man page's
SYNOPSIS and its help. A renamed subcommand or a stale table then fails `make test`."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Set, Tuple

import pytest

from conftest import REPO_ROOT

TOOL = os.environ.get("GATEKIT_TOOL", str(REPO_ROOT / ".build" / "c" / "gatekit"))
COMMANDS = ("eula", "receipt", "perm", "jws", "ledger", "appstore", "api", "play", "stripe", "store", "test", "version", "help")


def run(*args: str) -> str:
    done = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def table() -> Set[Tuple[str, str]]:
    """The tool's own command table: (command, subcommand), "" for a command taking none."""
    pairs = set()
    for line in run("help", "commands").splitlines():
        command, _, sub = line.partition(" ")
        pairs.add((command, sub))
    return pairs


def help_texts() -> Dict[str, str]:
    texts = {"gatekit --help": run("--help")}
    for command in COMMANDS[:-2]:
        texts[f"gatekit help {command}"] = run("help", command)
    return texts


def documents() -> Dict[str, str]:
    docs = {str(p.relative_to(REPO_ROOT)): p.read_text() for p in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]}
    man = REPO_ROOT / ".build" / "c" / "gatekit.1"
    assert man.exists(), f"{man} is missing: `make tool` generates it"
    docs["gatekit(1)"] = man.read_text().replace("\\-", "-").replace("\\e", "\\")
    return docs


#: `gatekit [--store …] [--app-id …] COMMAND SUB`: global options may stand between.
NAMED = re.compile(r"\bgatekit((?:\s+--(?:store|app-id)(?:=\S+|\s+\S+))*)\s+(eula|receipt|perm|jws|ledger|appstore|api|play|store|test|version|help)\b(?:\s+([a-z][a-z0-9-]*))?")


def named_commands(text: str) -> List[Tuple[str, str]]:
    """Every (command, subcommand) a text names; subcommand "" when what follows is not one."""
    found = []
    for m in NAMED.finditer(text):
        found.append((m.group(2), m.group(3) or ""))
    return found


def test_the_table_holds_every_command():
    pairs = table()
    assert {c for c, _ in pairs} == set(COMMANDS)
    assert ("ledger", "metrics") in pairs and ("eula", "verify-export") in pairs and ("receipt", "entitled") in pairs
    assert len([p for p in pairs if p[0] == "api"]) == 30


def test_every_command_named_anywhere_is_in_the_table():
    pairs = table()
    takes = {c for c, s in pairs if s}
    wrong = []
    for where, text in {**documents(), **help_texts()}.items():
        for command, sub in named_commands(text):
            # Placeholders and prose after a command (`gatekit ledger …`, "gatekit api ENDPOINT") are
            # no subcommand; a lowercase word after a command that takes subcommands must be one.
            if command in takes and sub and (command, sub) not in pairs and not sub.isupper():
                wrong.append(f"{where}: gatekit {command} {sub}")
    assert wrong == [], "\n".join(sorted(set(wrong)))


def test_every_documented_kind_is_one_the_tool_takes():
    kinds = set(re.findall(r"[a-z-]+", re.search(r"--type ([a-z|-]+)", run("help", "jws")).group(1)))
    ingest = set(re.findall(r"[a-z-]+", re.search(r"ledger ingest --type ([a-z|-]+)", run("help", "ledger")).group(1)))
    assert kinds == {"transaction", "renewal-info", "notification", "app-transaction", "realtime-request"}
    assert ingest == {"notification", "transaction", "renewal-info", "app-transaction", "receipt"}
    play = set(re.findall(r"[a-z-]+", re.search(r"ledger ingest --store-kind play --type ([a-z|-]+)", run("help", "ledger")).group(1)))
    assert play == {"subscription", "product"}
    wrong = []
    for where, text in documents().items():
        for option, value in re.findall(r"(--type|--kind)[ =]([a-z][a-z-]*)", text):
            if value not in kinds | ingest | play:
                wrong.append(f"{where}: {option} {value}")
    assert wrong == [], wrong


def test_every_tool_cell_of_a_doc_table_is_a_command():
    """A table with a "tool" column (docs/appstore.md's mapping, docs/ledger.md's): each
    backticked command in it, whole (`gatekit api get-transaction-info ID`) or shortened to its
    subcommand (`get-refund-history`) or its --type, is the tool's."""
    pairs = table()
    subcommands = {s for _, s in pairs if s}
    checked, wrong = 0, []
    for where, text in documents().items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if not (line.startswith("|") and i + 1 < len(lines) and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", lines[i + 1].strip())):
                continue
            headers = [h.strip().lower() for h in line.strip().strip("|").split("|")]
            if "tool" not in headers:
                continue
            column = headers.index("tool")
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                if column >= len(cells):
                    continue
                for code in re.findall(r"`([^`]+)`", cells[column]):
                    checked += 1
                    if code.startswith("gatekit "):
                        named = named_commands(code)
                        if not named or any(s and (c, s) not in pairs and (c, "") not in pairs for c, s in named):
                            wrong.append(f"{where}: {code}")
                    elif code.startswith("--type "):
                        if code.split()[1] not in {"transaction", "renewal-info", "notification", "app-transaction", "realtime-request"}:
                            wrong.append(f"{where}: {code}")
                    elif re.fullmatch(r"[a-z]+(-[a-z]+)+", code.split(" ")[0]) and code.split(" ")[0] not in subcommands:
                        wrong.append(f"{where}: {code}")
    assert checked >= 40, checked
    assert wrong == [], wrong


def test_the_help_and_the_man_page_name_every_command():
    pairs = table()
    top = run("--help")
    man = documents()["gatekit(1)"]
    synopsis = man.split(".SH SYNOPSIS", 1)[1].split(".SH DESCRIPTION", 1)[0]
    missing = []
    for command, sub in sorted(pairs):
        if command in ("api", "appstore") and sub not in {s for c, s in pairs if c == "appstore"} - {s for c, s in pairs if c == "api"}:
            continue   # the endpoints: `api get-transaction-info|...`, listed in `gatekit help api`
        if command == "help":
            continue
        word = sub or command
        line = next((l for l in top.splitlines() if re.search(rf"^\s+{command}\b", l) and re.search(rf"[ |]{re.escape(word)}(\||\s|$)", l)), None)
        if line is None:
            missing.append(f"gatekit --help: {command} {sub}")
        if f"{command} " not in synopsis or not re.search(rf"[ |]{re.escape(word)}(\||\s|$)", synopsis):
            missing.append(f"SYNOPSIS: {command} {sub}")
        if sub and not re.search(rf"(gatekit {command} {re.escape(sub)}\b|^\s+{re.escape(sub)}\b)", run("help", command), re.M):
            missing.append(f"gatekit help {command}: {sub}")
    for endpoint in sorted(s for c, s in pairs if c == "api"):
        if endpoint not in run("help", "api"):
            missing.append(f"gatekit help api: {endpoint}")
    assert missing == [], "\n".join(missing)


def test_the_man_pages_files_section_names_real_commands():
    files = documents()["gatekit(1)"].split(".SH FILES", 1)[1].split(".SH ENVIRONMENT", 1)[0]
    creators = re.search(r"create it \(([^)]*)\)", files.replace("\n", " "))
    assert creators, files
    pairs = table()
    named = 0
    for group in creators.group(1).split(";"):
        words = re.findall(r"[a-z][a-z-]*", group.replace(" and ", ", "))
        command, subs = words[0], words[1:]
        for sub in subs if command != "ledger" else [w for w in subs if w != "declare"]:
            named += 1
            assert (command, sub) in pairs, f"gatekit(1) FILES names {command} {sub}"
    assert named >= 12, named
