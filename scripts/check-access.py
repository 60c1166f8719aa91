"""What a core layer shares upward is `package` unless the export layer uses it (issue 45).

    python3 scripts/check-access.py          lists the public top-level declarations of
                                             Sources/GateKitCore that need not be public (exit 1)
    python3 scripts/check-access.py --fix    makes those `package` (their public members too)

Members of a public type stay public: made `package`, the release build (cross-module
optimization) stopped inlining them across layers, and warm JWS verification slowed (measured
in BENCHMARKS.md, "Architecture III"). A top-level declaration may be public when
Sources/GateKit (the export layer) names it, or when
one that may be public names it (a public signature, an enum case, a default argument or
@inlinable code of it must see it)."""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "Sources" / "GateKitCore"
TOP = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*public\s+(?:final\s+)?(struct|enum|class|protocol|typealias|func|let|var|actor|extension)\s+([A-Za-z_][A-Za-z0-9_]*)")
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: An extension without an access level: its public members belong to the extended type.
EXTENSION = re.compile(r"^(extension)\s+([A-Za-z_][A-Za-z0-9_]*)")


def declarations() -> Dict[str, List["tuple[Path, int, int]"]]:
    """Each public top-level name: where it is declared (file, first line, last line of its
    body; extensions of it included under its name)."""
    found: Dict[str, List["tuple[Path, int, int]"]] = {}
    for path in sorted(CORE.rglob("*.swift")):
        lines = path.read_text().split("\n")
        for i, line in enumerate(lines):
            m = TOP.match(line) or EXTENSION.match(line)
            if not m:
                continue
            end = i
            if line.rstrip().endswith("{"):
                end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("}")), i)
            found.setdefault(m.group(2), []).append((path, i, end))
    return found


def public_signatures(lines: List[str]) -> List[str]:
    """The lines of each public member's signature: from `public` to the line that opens its body."""
    out: List[str] = []
    inside = False
    for line in lines:
        if re.match(r"\s*(?:@\w+(?:\([^)]*\))?\s+)*public\b", line):
            inside = True
        if inside:
            out.append(line.split("{", 1)[0])
            if "{" in line or not line.rstrip().endswith((",", "(", "->")):
                inside = False
    return out


def needed(found: Dict[str, List["tuple[Path, int, int]"]]) -> Set[str]:
    export = "\n".join(p.read_text() for p in (ROOT / "Sources" / "GateKit").glob("*.swift"))
    keep = {name for name in found if re.search(rf"\b{name}\b", export)}
    frontier = list(keep)
    while frontier:
        name = frontier.pop()
        for path, start, end in found[name]:
            lines = path.read_text().split("\n")[start:end + 1]
            if TOP.match(lines[0]):
                # Its whole body: a public signature may run over lines, an enum case or a
                # default argument may name another declaration, @inlinable code is public too.
                seen = "\n".join(lines)
            else:
                # An extension without an access level: its public members' signatures.
                seen = "\n".join(public_signatures(lines))
            for word in set(WORD.findall(seen)):
                if word in found and word not in keep:
                    keep.add(word)
                    frontier.append(word)
    return keep


def main() -> int:
    found = declarations()
    keep = needed(found)
    public = {name for name, places in found.items()
              if any(TOP.match(path.read_text().split("\n")[start]) for path, start, _ in places)}
    spare = sorted(public - keep)
    if "--fix" not in sys.argv:
        for name in spare:
            path, line, _ = found[name][0]
            print(f"{path.relative_to(ROOT)}:{line + 1}: {name} is public but the export layer never needs it: make it package")
        print(f"check-access: {len(keep)} public top-level declarations the export layer needs, {len(spare)} that should be package")
        return 1 if spare else 0
    edits: Dict[Path, Set[int]] = {}
    for name in spare:
        for path, start, end in found[name]:
            edits.setdefault(path, set()).update(range(start, end + 1))
    for path, rows in edits.items():
        lines = path.read_text().split("\n")
        for i in rows:
            lines[i] = re.sub(r"^(\s*(?:@\w+(?:\([^)]*\))?\s+)*)public\b", r"\1package", lines[i])
        path.write_text("\n".join(lines))
    print(f"check-access: {len(spare)} made package")
    return 0


if __name__ == "__main__":
    sys.exit(main())
