"""Worker processes for the multi-process tests (run with sys.executable)."""
from __future__ import annotations

import sys

import gatekit


def accept_many(path: str, tag: str, count: int) -> None:
    with gatekit.Store(path) as store:
        for i in range(count):
            store.eula.accept(f"doc-{tag}-{i}", gatekit.hash_bytes(f"{tag}/{i}".encode()), user=tag)


def accept_forever(path: str) -> None:
    """Prints each index after its acceptance returned: the parent kills us at random."""
    with gatekit.Store(path) as store:
        i = 0
        while True:
            store.eula.accept("doc", gatekit.hash_bytes(str(i).encode()), user="killed")
            sys.stdout.write(f"{i}\n")
            sys.stdout.flush()
            i += 1


def perm_record(path: str, category: int, decision: int) -> None:
    with gatekit.Store(path) as store:
        if decision == 0:
            store.permissions.reset(category)
        else:
            store.permissions.record(category, decision)


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "accept-many":
        accept_many(rest[0], rest[1], int(rest[2]))
    elif command == "accept-forever":
        accept_forever(rest[0])
    elif command == "perm-record":
        perm_record(rest[0], int(rest[1]), int(rest[2]))
    else:
        raise SystemExit(f"unknown command {command}")
