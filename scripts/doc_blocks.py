"""The documentation's command blocks, found and run as written.

A ```sh block that a comment `<!-- doc-test: exits=A,B,… [dir=scratch|repo|dist] -->`
introduces in README.md or docs/*.md is run line by line by bash, and each line must exit as
listed. `scratch` and `repo` blocks run in python/tests/test_docs.py (a scratch folder set up
like the repository, or the repository itself); `dist` blocks need the packages `make wheel`
and `make deb` built and run in scripts/test-dist.sh:

    python3 scripts/doc_blocks.py DIR KIND   runs every KIND block in DIR with this environment
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"<!-- doc-test: exits=([0-9,]+)(?: dir=(repo|scratch|dist))? -->")
EXCERPT = re.compile(r"<!-- doc-excerpt: (\S+) -->")


class Block(NamedTuple):
    where: str           # file:line of the block
    exits: List[int]     # what each command must exit with
    kind: str            # scratch, repo or dist
    commands: List[str]  # continuation lines joined


class Excerpt(NamedTuple):
    where: str    # file:line of the block
    source: Path  # the file it must be in, word for word
    text: str


def docs() -> List[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def marked(marker: "re.Pattern[str]", fence: Optional[str]) -> Iterator[Tuple[str, "re.Match[str]", List[str]]]:
    """(where, the marker's match, the fenced block's lines) for every marker in the docs; the
    marker must stand right before a ```<fence> block (fence None: any fenced block)."""
    for doc in docs():
        lines = doc.read_text().splitlines()
        for i, line in enumerate(lines):
            m = marker.fullmatch(line.strip())
            if not m:
                continue
            opening = lines[i + 1].strip()
            if (opening != "```" + fence) if fence is not None else not (opening.startswith("```") and len(opening) > 3):
                raise ValueError(f"{doc.name}:{i + 1}: the marker must stand right before a ```{fence or '<language>'} block")
            end = lines.index("```", i + 2)
            yield f"{doc.relative_to(ROOT)}:{i + 2}", m, lines[i + 2:end]


def excerpts() -> List[Excerpt]:
    """Every fenced block (python, ini, …) a `<!-- doc-excerpt: FILE -->` introduces."""
    return [Excerpt(where, ROOT / m.group(1), "\n".join(body)) for where, m, body in marked(EXCERPT, None)]


def blocks(kind: Optional[str] = None) -> List[Block]:
    found = []
    for where, m, body in marked(MARKER, "sh"):
        commands: List[str] = []
        j = 0
        while j < len(body):
            text = body[j]
            while text.endswith("\\") and j + 1 < len(body):  # continuation lines make one command
                j += 1
                text = text[:-1] + " " + body[j].strip()
            if text.strip() and not text.strip().startswith("#"):
                commands.append(text)
            j += 1
        exits = [int(x) for x in m.group(1).split(",")]
        if len(exits) != len(commands):
            raise ValueError(f"{where}: {len(exits)} exits for {len(commands)} commands")
        block = Block(where, exits, m.group(2) or "scratch", commands)
        if kind is None or block.kind == kind:
            found.append(block)
    return found


def run(block: Block, folder: Path, env: Dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    """Runs the block's commands in one bash in `folder`; stdout gets "__doc_exit__ N" after each.
    A pipe fails when any of its commands does (pipefail): a failing first command is never hidden."""
    script = "\n".join(["set +e -o pipefail", f"cd {str(folder)!r}"] + [f"{c}\necho \"__doc_exit__ $?\"" for c in block.commands])
    return subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True, timeout=timeout)


def exits_of(done: subprocess.CompletedProcess) -> List[int]:
    return [int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("__doc_exit__ ")]


def main() -> int:
    folder, kind = Path(sys.argv[1]), sys.argv[2]
    failed = 0
    for block in blocks(kind):
        done = run(block, folder, dict(os.environ))
        if exits_of(done) == block.exits:
            print(f"  ok: {block.where} ran as written (exits {block.exits})")
        else:
            failed += 1
            print(f"  FAILED: {block.where}: exits {exits_of(done)}, the doc says {block.exits}\n{done.stdout[-1500:]}\n"
                  f"{done.stderr[-1500:]}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
