"""The documentation's commands run as written (issue 25): every ```sh block that a comment
`<!-- doc-test: exits=A,B,… [dir=repo|dist] -->` introduces, in README.md and docs/*.md, is
run line by line by bash (scripts/doc_blocks.py) — in a scratch folder (the default:
`examples`, `include`, `pkgconfig` and `.build` reachable as in the repository, an EULA.txt as
"Start here" makes, a private HOME and state folder) or in the repository itself (`dir=repo`,
for read-only commands) — with the built `gatekit` first on PATH, and each line must exit as
listed; `dir=dist` blocks install the packages and run in scripts/test-dist.sh. A renamed
option or exit code then fails `make test`, not the reader. Blocks without the marker are
synopses (placeholders such as FILE or [CUSTOMER]). A ```python block after
`<!-- doc-excerpt: FILE -->` must be word for word in FILE, which runs."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from conftest import REPO_ROOT

FIXTURES = Path(os.environ.get("GATEKIT_FIXTURES", REPO_ROOT.parent / "shared" / "fixtures"))

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import doc_blocks  # noqa: E402  (scripts/doc_blocks.py: one extractor for the tests and test-dist)

# dist blocks need the built packages: scripts/test-dist.sh runs them.
BLOCKS = [b for b in doc_blocks.blocks() if b.kind != "dist"]


def test_the_docs_have_marked_blocks():
    assert len(BLOCKS) >= 3, [where for where, *_ in BLOCKS]


def scratch_folder(folder: Path) -> Path:
    """A folder set up like the repository after "Start here": its folders linked, EULA.txt."""
    folder.mkdir()
    for name in ("examples", "include", "pkgconfig", ".build", "python"):
        (folder / name).symlink_to(REPO_ROOT / name)
    (folder / "EULA.txt").write_text("Terms of use, version 1\n")
    return folder


def user_env(home: Path) -> Dict[str, str]:
    """A new user's shell: the built tool first on PATH, a HOME of their own (and its state)."""
    tool = REPO_ROOT / ".build" / "c" / "gatekit"
    if not tool.exists():
        pytest.fail(f"{tool} is missing: `make` builds it (make test does)")
    home.mkdir(exist_ok=True)
    (home / "tmp").mkdir(exist_ok=True)
    # python3 is this interpreter, with the package from the tree and the library under test.
    python = Path(sys.executable).parent
    env: Dict[str, str] = {"PATH": f"{tool.parent}:{python}:/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
                           "XDG_STATE_HOME": str(home / "state"), "GATEKIT_FIXTURES": str(FIXTURES), "TMPDIR": str(home / "tmp"),
                           "PYTHONPATH": str(REPO_ROOT / "python"), "PYTHONDONTWRITEBYTECODE": "1"}
    if "GATEKIT_LIBRARY" in os.environ:
        env["GATEKIT_LIBRARY"] = os.environ["GATEKIT_LIBRARY"]
    return env


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_a_documented_block_runs_as_written(tmp_path: Path, block: doc_blocks.Block):
    if block.kind == "repo" and not FIXTURES.is_dir():
        pytest.skip(f"the block reads Apple's test vectors, not found at {FIXTURES} (set GATEKIT_FIXTURES)")
    env = user_env(tmp_path / "home")
    done = doc_blocks.run(block, REPO_ROOT if block.kind == "repo" else scratch_folder(tmp_path / "scratch"), env, timeout=120)
    got = doc_blocks.exits_of(done)
    assert got == block.exits, f"{block.where}: exits {got}, the doc says {block.exits}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def test_the_blocks_run_one_after_another_in_one_home(tmp_path: Path):
    """A reader runs the README's blocks, then the docs', in one shell account — not each in a
    fresh machine (issue 44, item 10: docs/eula.md's first block answered "accepted" after the
    README's own flow, where it says exit 6). Every block creates the state it relies on, so
    each gives its documented exits after all the others, and again when run a second time."""
    env = user_env(tmp_path / "home")
    scratch = [b for b in BLOCKS if b.kind == "scratch"]
    assert len(scratch) >= 6
    failures = []
    for round in (1, 2):
        for i, block in enumerate(scratch):
            # Files a block writes (a test PKI, an export) stay in its folder; the store is the
            # account's, shared by every block as it is by a reader's shell.
            done = doc_blocks.run(block, scratch_folder(tmp_path / f"r{round}-{i}"), env, timeout=120)
            if doc_blocks.exits_of(done) != block.exits:
                failures.append(f"round {round}, {block.where}: exits {doc_blocks.exits_of(done)}, the doc says {block.exits}\n"
                                f"{done.stderr[-800:]}")
    assert failures == [], "\n".join(failures)


def test_the_start_here_blocks_run_in_the_package_test():
    """README's Start here installs the packages; scripts/test-dist.sh runs those blocks."""
    dist = [b.where for b in doc_blocks.blocks("dist")]
    assert len(dist) >= 2 and all(w.startswith("README.md") for w in dist), dist
    assert "doc_blocks.py" in (REPO_ROOT / "scripts" / "test-dist.sh").read_text()


EXCERPTS = doc_blocks.excerpts()


@pytest.mark.parametrize("excerpt", EXCERPTS, ids=[e.where for e in EXCERPTS])
def test_a_documented_excerpt_is_the_file_as_it_is(excerpt: doc_blocks.Excerpt):
    """An excerpt shown in the docs is word for word in the file it comes from (which runs)."""
    assert excerpt.text in excerpt.source.read_text(), \
        f"{excerpt.where}: the excerpt is not in {excerpt.source.relative_to(REPO_ROOT)} as written"


def test_the_architecture_map_names_files_that_exist():
    """docs/ARCHITECTURE.md's map cannot drift: every path it names exists."""
    text = (REPO_ROOT / "docs" / "ARCHITECTURE.md").read_text()
    paths = set(re.findall(r"`((?:Sources|Tests|tools|python|docs|include|scripts|packaging|examples|bench|Fuzz)/[^`*<> ]+)`", text))
    assert len(paths) >= 40, sorted(paths)
    missing = sorted(p for p in paths if not (REPO_ROOT / p).exists())
    assert missing == [], missing
    # Relative core paths in the walk-throughs ("Receipts/CMS/", "Ledger/LedgerRows.swift").
    core = set(re.findall(r"`((?:Receipts|Trust|JWS|Ledger|Store|Support|Crypto)/[^`*<> ]*)`", text))
    assert sorted(p for p in core if not (REPO_ROOT / "Sources" / "GateKitCore" / p).exists()) == []


def test_the_data_paths_name_real_functions():
    """docs/ARCHITECTURE.md's walks (a receipt to its verdict, a notification and a Play push to their rows)
    name functions as `Type.function` or `function`: each is declared in Sources (a function,
    or a type and its function), so the walk cannot go stale when the code moves."""
    text = (REPO_ROOT / "docs" / "ARCHITECTURE.md").read_text()
    walks = text.split("## The data paths, file by file", 1)[1].split("\n## ", 1)[0]
    sources = "\n".join(p.read_text() for p in (REPO_ROOT / "Sources").rglob("*.swift"))
    named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)(?:\(…\))?`", walks))
    functions = [n for n in named if not n.endswith((".swift", ".c", ".h")) and (("." in n) or n[0].islower())]
    assert len(functions) >= 15, functions
    header = (REPO_ROOT / "include" / "gatekit.h").read_text() + "".join(
        h.read_text() for h in (REPO_ROOT / "include" / "gatekit").glob("*.h"))
    missing = []
    for name in sorted(functions):
        if re.search(rf"\bGATEKIT_API\b[^;]*\b{re.escape(name)}\(", header):
            continue   # a C function of the header
        owner, _, function = name.rpartition(".")
        if not re.search(rf"\bfunc {re.escape(function)}\b", sources):
            missing.append(name)
        elif owner and not re.search(rf"\b(enum|struct|class|extension|actor) {re.escape(owner)}\b", sources):
            missing.append(name)
    assert missing == [], f"the walks name functions that do not exist: {missing}"


def test_every_mutant_still_applies():
    """Tests/mutation/mutants.tsv: each mutant's text is in its file exactly once, in a domain
    of Tests/domains.tsv — code that moves takes its mutants along, or `make mutation` would
    find nothing to mutate; and each id names one mutant (`make mutation MUTANTS=…` runs by id)."""
    domains = {line.split("\t")[0] for line in (REPO_ROOT / "Tests" / "domains.tsv").read_text().splitlines()
               if line and not line.startswith("#")}
    ids = [line.split("\t")[0] for line in (REPO_ROOT / "Tests" / "mutation" / "mutants.tsv").read_text().splitlines()
           if line.strip() and not line.startswith("#")]
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    stale = []
    for line in (REPO_ROOT / "Tests" / "mutation" / "mutants.tsv").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        assert len(fields) == 6, line
        path = REPO_ROOT / fields[2]
        count = path.read_text().count(fields[3]) if path.exists() else -1
        if count != 1 or fields[1] not in domains:
            stale.append(f"{fields[0]}: {fields[2]} holds its text {count} times (domain {fields[1]})")
    assert stale == [], "\n".join(stale)


def test_every_test_file_is_on_the_map_and_in_a_domain():
    """docs/ARCHITECTURE.md's domain map names every test file (Swift, C, pytest), and
    Tests/domains.tsv runs each in a domain (its Swift suites by name), so `make quick` and
    `make mutation` reach every test and the map cannot leave one out."""
    text = (REPO_ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = [line.split("\t") for line in (REPO_ROOT / "Tests" / "domains.tsv").read_text().splitlines()
            if line and not line.startswith("#")]
    suites = {s for row in rows for s in row[1].split("|")}
    c_tests = {t for row in rows for t in row[2].split()}
    py_tests = {t for row in rows for t in row[3].split()}
    unmapped, homeless = [], []
    for path in sorted((REPO_ROOT / "Tests" / "GateKitCoreTests").glob("*.swift")):
        if f"Tests/GateKitCoreTests/{path.name}" not in text:
            unmapped.append(path.name)
        homeless += [f"{path.name}: {suite}" for suite in re.findall(r"@Suite[^{]*?struct (\w+)", path.read_text()) if suite not in suites]
    for path in sorted((REPO_ROOT / "Tests" / "c").glob("test_*.c")):
        if f"Tests/c/{path.name}" not in text:
            unmapped.append(path.name)
        if path.stem not in c_tests:
            homeless.append(path.name)
    for path in sorted((REPO_ROOT / "python" / "tests").glob("test_*.py")):
        if f"python/tests/{path.name}" not in text:
            unmapped.append(path.name)
        if path.name not in py_tests:
            homeless.append(path.name)
    assert unmapped == [], f"not on docs/ARCHITECTURE.md's map: {unmapped}"
    assert homeless == [], f"in no row of Tests/domains.tsv: {homeless}"


def released_versions() -> List[str]:
    return re.findall(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$", (REPO_ROOT / "CHANGELOG.md").read_text(), re.M)


def version_key(version: str) -> Tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def test_the_release_agrees_with_itself():
    """CHANGELOG.md's newest release is the header's version (its copies agree:
    test_package.py), and the symbols file names only released versions and, while the
    changelog has an "Unreleased" section, the one after the newest release."""
    released = released_versions()
    assert released, "CHANGELOG.md names no release"
    header = (REPO_ROOT / "include" / "gatekit" / "common.h").read_text()
    assert f'#define GATEKIT_VERSION_STRING "{released[0]}"' in header, "the header's version is not the newest release"
    symbols = set(re.findall(r"@Base (\S+)$", (REPO_ROOT / "packaging" / "debian" / "libgatekit0.symbols").read_text(), re.M))
    unreleased = re.search(r"^## Unreleased$", (REPO_ROOT / "CHANGELOG.md").read_text(), re.M) is not None
    later = sorted(symbols - set(released), key=version_key)
    assert len(later) <= 1 and (not later or unreleased), f"symbols of versions never released: {later}"
    assert all(version_key(v) > version_key(released[0]) for v in later)


def test_every_released_version_has_its_tag():
    """Each `## X.Y.Z (date)` of CHANGELOG.md is a release: where the clone carries tags (the
    release repository), the tag vX.Y.Z exists and its header carries that version. A CI clone
    of main carries none: then the release step itself is what is checked
    (test_the_release_step_tags_the_release), so nothing here is skipped."""
    import subprocess
    tags = subprocess.run(["git", "-C", str(REPO_ROOT), "tag", "--list", "v*"], capture_output=True, text=True)
    for version in released_versions() if tags.returncode == 0 and tags.stdout.strip() else []:
        header = subprocess.run(["git", "-C", str(REPO_ROOT), "show", f"v{version}:include/gatekit/common.h"],
                                capture_output=True, text=True)
        assert header.returncode == 0, f"no tag v{version} (or it lacks include/gatekit/common.h): {header.stderr.strip()}"
        assert f'#define GATEKIT_VERSION_STRING "{version}"' in header.stdout


def test_the_release_step_tags_the_release(tmp_path: Path):
    """scripts/release.sh, the documented step (CHANGELOG.md's header), run on a copy of this
    checkout for the version its symbols file is waiting for: it moves every copy of the
    version, dates the changelog's section, commits and tags — and refuses a dirty tree."""
    import subprocess
    if not (REPO_ROOT / ".git").exists():
        pytest.fail("not a git checkout: the release step needs one (make test runs in a clone)")
    import shutil
    # The working tree as it is (what is being tested may be uncommitted), as a repository of its own.
    copy = tmp_path / "copy"
    listed = subprocess.run(["git", "-C", str(REPO_ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (REPO_ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO_ROOT / name, copy / name)
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.com")
    git = ["git", "-C", str(copy)]
    symbols = re.findall(r"@Base (\S+)$", (copy / "packaging" / "debian" / "libgatekit0.symbols").read_text(), re.M)
    version = max(symbols, key=version_key)
    if version in released_versions():   # nothing waits: release the next patch, with a change of its own
        major, minor, patch = version_key(version)
        version = f"{major}.{minor}.{patch + 1}"
        changelog = copy / "CHANGELOG.md"
        if not re.search(r"^## Unreleased$", changelog.read_text(), re.M):
            text = changelog.read_text()
            first = text.index("\n## ")
            changelog.write_text(text[:first] + "\n## Unreleased\n\n- A fix.\n" + text[first:])
    for step in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the tree under test"]):
        subprocess.run(git + step, check=True, env=env)
    (copy / "stray.txt").write_text("uncommitted")
    refused = subprocess.run(["bash", str(copy / "scripts" / "release.sh"), version], capture_output=True, text=True, env=env)
    assert refused.returncode == 1 and "uncommitted" in refused.stderr
    (copy / "stray.txt").unlink()
    done = subprocess.run(["bash", str(copy / "scripts" / "release.sh"), version], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run(git + ["show", f"v{version}:include/gatekit/common.h"], capture_output=True, text=True)
    assert f'#define GATEKIT_VERSION_STRING "{version}"' in shown.stdout
    assert re.search(rf"^## {re.escape(version)} \(\d{{4}}-\d{{2}}-\d{{2}}\)$", (copy / "CHANGELOG.md").read_text(), re.M)
    for path, pattern in (("python/pyproject.toml", rf'^version = "{version}"'), ("python/gatekit/__init__.py", rf'^__version__ = "{version}"'),
                          ("python/gatekit/_bindings.py", rf'^GATEKIT_VERSION_STRING = "{version}"'),
                          ("pkgconfig/gatekit.pc", rf"^Version: {version}$"),
                          ("Sources/GateKitCore/Support/GateKitVersion.swift", rf'string: StaticString = "{version}"')):
        assert re.search(pattern, (copy / path).read_text(), re.M), path
    again = subprocess.run(["bash", str(copy / "scripts" / "release.sh"), version], capture_output=True, text=True, env=env)
    assert again.returncode == 1 and "exists" in again.stderr


def test_the_floor_experiments_still_apply():
    """`make bench-floor` builds the library with bench/floor/*.patch (BENCHMARKS.md, issue 29's
    floor): each patch must still apply to the tree, or the figures could not be reproduced."""
    import subprocess
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("not a git checkout: `git apply --check` needs one")
    patches = sorted((REPO_ROOT / "bench" / "floor").glob("*.patch"))
    assert [p.name for p in patches] == ["item-and-versions-only.patch", "no-derived-rows.patch"]
    for patch in patches:
        check = subprocess.run(["git", "-C", str(REPO_ROOT), "apply", "--check", str(patch)], capture_output=True, text=True)
        assert check.returncode == 0, f"{patch.name} no longer applies: {check.stderr.strip()}"
        assert "EXPERIMENT (issue 29 floor)" in patch.read_text()


def test_the_launch_order_lists_what_a_launch_runs(tmp_path: Path):
    """`make launch-order` (scripts/launch-order.py, BENCHMARKS.md's launch check) lists the
    functions of libgatekit a first verdict runs, found by callgrind over the launch host. Run
    here against the library under test: it names the receipt's and the signed transaction's
    checks, each once and each a function the library defines, under the committed list's header."""
    import subprocess
    import gatekit
    library = Path(gatekit.library_path()).resolve()
    out = tmp_path / "order.txt"
    run = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "launch-order.py"), str(library), str(out)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    header, *names = out.read_text().splitlines()
    assert header == (REPO_ROOT / "Sources" / "GateKit" / "launch-order.txt").read_text().splitlines()[0]
    assert len(names) >= 100 and len(names) == len(set(names))
    symbols = subprocess.run(["nm", str(library)], capture_output=True, text=True, check=True).stdout.splitlines()
    functions = {line.split()[-1] for line in symbols if len(line.split()) == 3 and line.split()[1] in "tTwW"}
    assert set(names) <= functions, sorted(set(names) - functions)[:5]
    assert any("ReceiptValidator" in n and "validate" in n for n in names)
    assert any("JWSVerifier" in n for n in names)


def test_make_help_names_every_make_command_the_docs_name():
    """`make help` lists each `make X` README.md, CONTRIBUTING.md and docs/ tell a developer to type."""
    import subprocess
    shown = subprocess.run(["make", "-s", "-C", str(REPO_ROOT), "help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    listed = set(re.findall(r"^\s+make ([a-z][a-z-]*)", shown.stdout, re.M))
    targets = set(re.findall(r"^([a-z][a-z-]*):", (REPO_ROOT / "Makefile").read_text(), re.M))
    named = set()
    for doc in [REPO_ROOT / "README.md", REPO_ROOT / "CONTRIBUTING.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]:
        named |= set(re.findall(r"`make ([a-z][a-z-]*)", doc.read_text())) & targets
    assert named and named <= listed | {"help"}, f"named in the docs but not in make help: {sorted(named - listed)}"
    assert listed <= targets, f"make help lists what the Makefile lacks: {sorted(listed - targets)}"


def test_the_readme_lists_every_header():
    """README.md's file table names each header of include/gatekit/ (it once left one out)."""
    listed = re.search(r"`include/gatekit/\{([a-z_,]+)\}\.h`", (REPO_ROOT / "README.md").read_text())
    assert listed, "README.md names the headers as include/gatekit/{a,b,…}.h"
    assert sorted(listed.group(1).split(",")) == sorted(p.stem for p in (REPO_ROOT / "include" / "gatekit").glob("*.h"))


#: A store named in code: its name, its company, or its kit (a font's "-apple-system" is not one).
STORE_NAME = re.compile(r"(?i)(?<![-\w])(play|google|apple|app ?store|storekit)")


def test_the_ledger_core_names_no_store():
    """Architecture IV: a store is a value the core asks, never a branch it takes. The ledger's
    code outside its adapters (Sources/GateKitCore/Ledger/Adapters/: each store's facts, kinds,
    mapping and migrations, and the one list of them) names no store; comments may."""
    core = REPO_ROOT / "Sources" / "GateKitCore" / "Ledger"
    found = []
    for path in sorted(core.rglob("*.swift")):
        if "Adapters" in path.relative_to(core).parts:
            continue
        for number, line in enumerate(path.read_text().split("\n"), 1):
            code = line.split("//", 1)[0]
            if STORE_NAME.search(code):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)
    assert {p.name for p in (core / "Adapters").iterdir()} >= {"Apple", "Play", "Registry.swift"}


def test_the_layer_map_is_package_swift():
    """docs/ARCHITECTURE.md's layer block is each core target and its dependencies as
    Package.swift declares them: an import added there and not drawn fails here."""
    declared = re.findall(r'core\("(\w+)"(?:, \[([^\]]*)\])?\)', (REPO_ROOT / "Package.swift").read_text())
    expected = [f"{name:<16}-> {', '.join(d.strip().strip(chr(34)) for d in deps.split(','))}" if deps else name for name, deps in declared]
    text = (REPO_ROOT / "docs" / "ARCHITECTURE.md").read_text()
    block = re.search(r"checks this block against it\):\n\n```\n(.*?)\n```", text, re.S)
    assert block, "docs/ARCHITECTURE.md has no layer block"
    assert block.group(1).splitlines() == expected
