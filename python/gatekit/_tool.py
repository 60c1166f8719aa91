"""The `gatekit` command of the wheel: the C tool the wheel carries beside its library
(gatekit/bin/gatekit, run path $ORIGIN/..), so a pip-only user can type every shell command of
the docs. The process becomes the tool (exec): its exit status, signals and streams are the
tool's own."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import List, Optional

TOOL = Path(__file__).resolve().parent / "bin" / "gatekit"


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not os.access(TOOL, os.X_OK):
        print("gatekit: this installation has no tool: the libgatekit wheel carries it (pip install libgatekit), as Debian's\n"
              "  gatekit-tools package does (apt-get install gatekit-tools); the binding built from python/ alone does not",
              file=sys.stderr)
        return 127
    os.execv(TOOL, [str(TOOL), *args])
    return 127  # not reached: execv returns only by raising


if __name__ == "__main__":
    sys.exit(main())
