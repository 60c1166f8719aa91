"""The documentation's commands run as written (issue 25): every ```sh block that a comment
`<!-- doc-test: exits=A,B,… [dir=repo] -->` introduces, in README.md and docs/*.md, is run line
by line by bash — in a scratch folder (the default: `examples`, `include`, `pkgconfig` and
`.build` reachable as in the repository, an EULA.txt as "Start here" makes, a private HOME and
state folder) or in the repository itself (`dir=repo`, for read-only commands) — with the
built `gatekit` first on PATH, and each line must exit as listed. A renamed option or exit code
then fails `make test`, not the reader. Blocks without the marker are synopses (placeholders
such as FILE or [CUSTOMER])."""
from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from conftest import REPO_ROOT

MARKER = re.compile(r"<!-- doc-test: exits=([0-9,]+)(?: dir=(repo|scratch))? -->")
FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))


def marked_blocks() -> List[Tuple[str, List[int], str, List[str]]]:
    """(where, expected exits, folder kind, command lines) for every marked block."""
    found = []
    for doc in [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        lines = doc.read_text().splitlines()
        for i, line in enumerate(lines):
            m = MARKER.fullmatch(line.strip())
            if not m:
                continue
            assert lines[i + 1].strip() == "```sh", f"{doc.name}:{i + 1}: a doc-test marker must stand right before a ```sh block"
            commands: List[str] = []
            j = i + 2
            while lines[j].strip() != "```":
                text = lines[j]
                while text.endswith("\\"):  # continuation lines make one command
                    j += 1
                    text = text[:-1] + " " + lines[j].strip()
                if text.strip() and not text.strip().startswith("#"):
                    commands.append(text)
                j += 1
            exits = [int(x) for x in m.group(1).split(",")]
            assert len(exits) == len(commands), f"{doc.name}:{i + 1}: {len(exits)} exits for {len(commands)} commands"
            found.append((f"{doc.relative_to(REPO_ROOT)}:{i + 2}", exits, m.group(2) or "scratch", commands))
    return found


BLOCKS = marked_blocks()


def test_the_docs_have_marked_blocks():
    assert len(BLOCKS) >= 3, [where for where, *_ in BLOCKS]


@pytest.mark.parametrize("where, exits, kind, commands", BLOCKS, ids=[b[0] for b in BLOCKS])
def test_a_documented_block_runs_as_written(tmp_path: Path, where: str, exits: List[int], kind: str, commands: List[str]):
    tool = REPO_ROOT / ".build" / "c" / "gatekit"
    if not tool.exists():
        pytest.fail(f"{tool} is missing: `make` builds it (make test does)")
    if kind == "repo" and not FIXTURES.is_dir():
        pytest.skip(f"the block reads Apple's test vectors, not found at {FIXTURES} (set GATEKIT_FIXTURES)")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    for name in ("examples", "include", "pkgconfig", ".build"):
        (scratch / name).symlink_to(REPO_ROOT / name)
    (scratch / "EULA.txt").write_text("Terms of use, version 1\n")
    home = tmp_path / "home"
    home.mkdir()
    env: Dict[str, str] = {"PATH": f"{tool.parent}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
                           "XDG_STATE_HOME": str(home / "state"), "GATEKIT_FIXTURES": str(FIXTURES)}
    folder = REPO_ROOT if kind == "repo" else scratch
    script = "\n".join(["set +e", f"cd {str(folder)!r}"] + [f"{c}\necho \"__doc_exit__ $?\"" for c in commands])
    out = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=120)
    got = [int(line.split()[1]) for line in out.stdout.splitlines() if line.startswith("__doc_exit__ ")]
    assert got == exits, f"{where}: exits {got}, the doc says {exits}\n{out.stdout[-2000:]}\n{out.stderr[-2000:]}"
