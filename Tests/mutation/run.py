#!/usr/bin/env python3
"""`make mutation`: applies each one-line mutant of mutants.tsv to the library, rebuilds, runs
its domain's tests (Tests/domains.tsv) stage by stage — the Swift suites, then the C test
programs and pytest files with the domain's services (scripts/quick.sh), stopping at the first
stage that kills — and says whether an assertion about behaviour killed it.

mutants.tsv: one mutant a line, tab-separated: id, domain, file, the exact text to replace
(it must occur exactly once in the file), its replacement, and the behaviour it breaks.
`\\t` and `\\n` are not allowed in the texts; '#' starts a comment line.

A mutant is killed when the tests fail with a recorded expectation (Swift's "recorded an issue",
a C check's "N failed", pytest's "N failed"), not by a crash or a build failure (those are reported as such and count as survivors). The source
file is restored after each mutant, whatever happens. Not part of `make test` (one rebuild per
mutant); run it before resolving an issue that changes a rule.

    Tests/mutation/run.py [--only ID[,ID…]] [--domain NAME]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIST = Path(__file__).resolve().parent / "mutants.tsv"

# Each domain's row of Tests/domains.tsv: its Swift suites (swift test --filter), C test
# programs and pytest files.
ROWS = {fields[0]: fields[1:] for fields in (line.split("\t") for line in (ROOT / "Tests" / "domains.tsv").read_text().splitlines()
                                             if line and not line.startswith("#"))}
DOMAINS = {name: row[0] for name, row in ROWS.items()}


def mutants(only: set[str], domain: str | None) -> list[dict[str, str]]:
    out = []
    for number, line in enumerate(LIST.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 6:
            sys.exit(f"mutants.tsv:{number}: {len(fields)} fields, not 6")
        m = dict(zip(("id", "domain", "file", "find", "replace", "breaks"), fields))
        if m["domain"] not in DOMAINS:
            sys.exit(f"mutants.tsv:{number}: unknown domain {m['domain']!r}")
        if (not only or m["id"] in only) and (domain is None or m["domain"] == domain):
            out.append(m)
    return out


def run(command: list[str], log: Path) -> int:
    with log.open("w") as f:
        return subprocess.run(command, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT).returncode


def swift_stage(m: dict[str, str], log: Path) -> tuple[str, str]:
    if DOMAINS[m["domain"]] == "-":
        return "survived", "every test passed"
    code = run(["swift", "test", "--skip-build", "--filter", DOMAINS[m["domain"]]], log)
    text = log.read_text(errors="replace")
    failing = sorted({l.split("Test ", 1)[1].split("(")[0] for l in text.splitlines()
                      if "recorded an issue" in l and "Test " in l})
    if code != 0 and failing:
        return "killed", "by " + ", ".join(failing[:3]) + (" …" if len(failing) > 3 else "")
    if code != 0:
        return "survived", "the tests crashed or failed without an expectation (see the log)"
    return "survived", "every test passed"


def c_and_python_stage(m: dict[str, str], log: Path) -> tuple[str, str]:
    """The domain's C programs, then its pytest files, with its services, up to the first failure."""
    code = run(["env", "QUICK_STAGES=c python", "QUICK_FAIL_FAST=1", "scripts/quick.sh", m["domain"]], log)
    text = log.read_text(errors="replace")
    c_failed = [l for l in text.splitlines() if re.search(r"\b[1-9][0-9]* failed\b", l) and "passed" in l and "=" not in l]
    py_failed = [l.split("FAILED ", 1)[1].split(" - ")[0] for l in text.splitlines() if l.startswith("FAILED ")]
    if code != 0 and py_failed:
        return "killed", "by " + ", ".join(py_failed[:2])
    if code != 0 and c_failed:
        return "killed", "by a C check: " + c_failed[0].strip()
    if code != 0:
        return "survived", "the C or Python stage crashed or failed without an expectation (see the log)"
    return "survived", "every test passed (Swift, C and Python)"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default="")
    parser.add_argument("--domain")
    args = parser.parse_args()
    chosen = mutants(set(filter(None, args.only.split(","))), args.domain)
    logs = ROOT / ".build" / "mutation"
    logs.mkdir(parents=True, exist_ok=True)
    env_note = "SWIFT_BACKTRACE=enable=no"  # a crash must not wait on the backtracer
    import os
    os.environ["SWIFT_BACKTRACE"] = "enable=no"
    killed, survived = [], []
    started = time.monotonic()
    for m in chosen:
        path = ROOT / m["file"]
        original = path.read_text()
        if original.count(m["find"]) != 1:
            print(f"{m['id']}: the text occurs {original.count(m['find'])} times in {m['file']}, not once: fix the list")
            survived.append(m["id"])
            continue
        path.write_text(original.replace(m["find"], m["replace"]))
        log = logs / f"{m['id']}.log"
        try:
            if run(["swift", "build", "--build-tests"], log) != 0:
                verdict, how = "survived", "the mutant does not build (choose another)"
            else:
                verdict, how = swift_stage(m, log)
                if verdict == "survived" and how == "every test passed" and (ROWS[m["domain"]][1] != "-" or ROWS[m["domain"]][2] != "-"):
                    verdict, how = c_and_python_stage(m, logs / f"{m['id']}.c-python.log")
        finally:
            path.write_text(original)
        (killed if verdict == "killed" else survived).append(m["id"])
        print(f"{m['id']:<6} {verdict:<8} [{m['domain']}] {m['breaks']} — {how}", flush=True)
    # Leave the build as the sources are.
    run(["swift", "build", "--build-tests"], logs / "restore.log")
    total = len(killed) + len(survived)
    print(f"mutation: {len(killed)} of {total} killed ({100 * len(killed) // max(total, 1)}%) in {time.monotonic() - started:.0f} s;"
          f" survivors: {', '.join(survived) or 'none'} (logs in .build/mutation/; {env_note})")
    return 0 if not survived else 1


if __name__ == "__main__":
    sys.exit(main())
