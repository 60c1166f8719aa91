"""webhook_forwarder.py: the ledger's change feed delivered to a webhook, at least once.

    python3 examples/webhook_forwarder.py --app-id com.example.app --url https://hooks.example.com/gatekit \
        --cursor /var/lib/myapp/feed.cursor [--store PATH] [--until-idle SECONDS]

Follows the change feed (docs/ledger.md, "The change feed") and POSTs each change as JSON —
{"id": "<seq>", "originalTransactionId": …, "appUserIds": […], "productId": …, "entitlements":
[…], "entitled": …, "reason": …, "until": …, "at": …, "cause": …} — moving its cursor, kept in a
file, only once the webhook answered 2xx. A failed POST is tried again (waiting 1, 2, 4 … 60 s);
a crash sends the last change again: receivers deduplicate by "id". Runs until stopped, or with
--until-idle until no change came for that many seconds (for a timer instead of a service).
"""
from __future__ import annotations

import argparse
import json
import os
import time
import urllib.error
import urllib.request
from datetime import timedelta
from pathlib import Path
from typing import Any, Dict, Optional

import gatekit


MAX_SEQ = (1 << 63) - 1


class CursorError(Exception):
    """The cursor file is not one this program wrote."""


def read_cursor(path: Path) -> int:
    """The last change delivered (0: none yet). The file is not followed if it is a link."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return 0
    except OSError as error:
        raise CursorError(f"{path}: cannot be read ({error.strerror}; a symbolic link is not followed)") from None
    with os.fdopen(fd, "rb") as f:
        text = f.read(64).strip()
    if not text:
        return 0
    if not text.isdigit() or len(text) > 19 or int(text) > MAX_SEQ:
        raise CursorError(f"{path}: not a cursor ({text[:20]!r}…): expected a change number from 0 to {MAX_SEQ}")
    return int(text)


def write_cursor(path: Path, seq: int) -> None:
    """Atomically, readable by its owner only: the temporary file is made anew (a stale one,
    whatever its mode, is removed first), never followed if it is a link."""
    temporary = path.with_name(path.name + ".tmp")
    try:
        os.unlink(temporary)
    except FileNotFoundError:
        pass
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(f"{seq}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def deliver(url: str, event: Dict[str, Any], timeout: float = 10) -> None:
    """POSTs until the webhook answers 2xx."""
    body = json.dumps(event).encode()
    wait = 1.0
    while True:
        request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                if 200 <= answer.status < 300:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(wait)
        wait = min(wait * 2, 60.0)


def forward(store: gatekit.Store, url: str, cursor: Path, until_idle: Optional[float] = None) -> int:
    """Delivers every change after the cursor; returns how many."""
    after, sent, idle_since = read_cursor(cursor), 0, time.monotonic()
    while True:
        page = store.ledger.changes(after)
        for change in page.changes:
            deliver(url, dict(change.to_dict(), id=str(change.seq)))
            write_cursor(cursor, change.seq)
            sent += 1
        after = page.last
        if page.changes:
            idle_since = time.monotonic()
            continue
        if until_idle is not None and time.monotonic() - idle_since >= until_idle:
            return sent
        store.ledger.wait_changes(after, timedelta(seconds=until_idle if until_idle is not None else 30))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--app-id", required=True, help="the app's id: its store is GateKit's default store of the app")
    parser.add_argument("--store", help="another store (a path or a postgresql:// URI)")
    parser.add_argument("--url", required=True)
    parser.add_argument("--cursor", type=Path, required=True, help="the file keeping the last change delivered")
    parser.add_argument("--until-idle", type=float, help="exit when no change came for this many seconds")
    args = parser.parse_args()
    try:
        with gatekit.Store(args.store, app_id=args.app_id) as store:
            count = forward(store, args.url, args.cursor, args.until_idle)
            print(f"delivered {count} changes")
    except CursorError as error:
        raise SystemExit(f"webhook_forwarder: {error}")
